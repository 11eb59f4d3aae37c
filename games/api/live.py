"""Live updates over HTTP: Server-Sent Event streams (and the long-poll's
response, built in ``views.EventListView``).

These are ordinary DRF views for everything that can fail (authentication,
token scopes, throttles, validation, access, errors in the one shape), so
they behave like every other endpoint and document themselves. What they
return on success is a ``StreamingHttpResponse`` over an *async* iterator
(``games/streams.py``): under ASGI Django consumes it in the event loop, so
the thread that ran the checks is released at once and an idle stream costs
a coroutine, not a worker.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.permissions import HasTokenScope
from games import selectors, streams
from games.errors import ValidationFailed

from . import serializers as s
from .views import _player, _user, _valid


def sse_response(stream: Any) -> StreamingHttpResponse:
    response = StreamingHttpResponse(stream, content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    # nginx and similar proxies must pass each message on, not buffer them.
    response["X-Accel-Buffering"] = "no"
    return response


class _StreamView(APIView):
    renderer_classes = [JSONRenderer]  # for errors; success is the stream itself

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        # EventSource sends "Accept: text/event-stream"; errors are still
        # JSON in the one error shape, whatever the client accepts.
        return JSONRenderer(), JSONRenderer.media_type


class StreamQuery(serializers.Serializer):
    after = serializers.IntegerField(
        min_value=0,
        required=False,
        default=0,
        help_text="Send the events after this seq (a Last-Event-ID header takes precedence).",
    )


LAST_EVENT_ID = OpenApiParameter(
    "Last-Event-ID",
    int,
    location=OpenApiParameter.HEADER,
    required=False,
    description="Sent by EventSource when it reconnects: the seq of the last event received.",
)

ERRORS = {
    401: OpenApiResponse(s.ErrorOutput, description="Invalid, revoked or missing token."),
    403: OpenApiResponse(s.ErrorOutput, description="The token may not read games."),
}

GAME_STREAM_EXAMPLE = (
    "retry: 3000\n\n"
    'id: 18\ndata: {"seq":18,"type":"dice_rolled","actor":0,"automatic":false,'
    '"payload":{"dice":[3,5]},"created_at":"2026-11-30T10:00:00Z","hash":"..."}\n\n'
    ": keep-alive\n\n"
    'event: end\ndata: {"status":"finished","last_seq":240}\n\n'
)

USER_STREAM_EXAMPLE = (
    "retry: 3000\n\n"
    'data: {"kind":"your_turn","game_id":7,"ruleset":"brilliant","seq":18,"data":{"seat":0}}\n\n'
    ": keep-alive\n\n"
)


def _last_event_id(request: Request, default: int) -> int:
    raw = request.headers.get("Last-Event-ID")
    if raw is None or raw == "":
        return default
    if not raw.isdigit():
        raise ValidationFailed(
            "Last-Event-ID must be a seq (a non-negative integer).",
            details={"fields": {"Last-Event-ID": ["not a seq"]}},
        )
    return int(raw)


class GameStreamView(_StreamView):
    permission_classes = [AllowAny, HasTokenScope]

    @extend_schema(
        operation_id="games_stream",
        summary="The game's events as Server-Sent Events",
        description=(
            "Each event as the caller may see it (the events endpoint's shape: "
            "spectators get public information only), one SSE message per event "
            "with `id:` = seq; a `: keep-alive` comment line after "
            "`FACETS_SSE_KEEPALIVE_SECONDS` of silence; once the game is over and "
            "every event was sent, an `event: end` message and the stream closes. "
            "Resume with the `Last-Event-ID` header (EventSource sends it) or "
            "`?after=`. 204 when the game is over and there is nothing after "
            "the given seq."
        ),
        parameters=[StreamQuery, LAST_EVENT_ID],
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                OpenApiTypes.STR,
                description="An endless stream of SSE messages.",
                examples=[OpenApiExample("stream", value=GAME_STREAM_EXAMPLE)],
            ),
            204: OpenApiResponse(description="The game is over and everything was sent."),
            400: OpenApiResponse(s.ErrorOutput, description="Bad `after` or Last-Event-ID."),
            **ERRORS,
            404: OpenApiResponse(s.ErrorOutput, description="No such game."),
        },
        tags=["live"],
    )
    def get(self, request: Request, game_id: int) -> HttpResponseBase:
        after = _last_event_id(request, _valid(StreamQuery, request.query_params)["after"])
        access = selectors.game_access(game_id=game_id, user=_user(request))
        if access.game.status in streams.ENDED and after >= access.game.seq:
            # A reconnecting EventSource stops on 204 instead of retrying forever.
            return HttpResponse(status=204)
        streams.close_db_connections()
        return sse_response(streams.game_stream(game_id=game_id, user=_user(request), after=after))


class UserStreamView(_StreamView):
    permission_classes = [IsAuthenticated, HasTokenScope]

    @extend_schema(
        operation_id="user_stream",
        summary="Your notifications as Server-Sent Events",
        description=(
            "One SSE message per notification for the authenticated user: "
            "`your_turn`, `game_started`, `game_finished` (`kind` in the data); a "
            "`: keep-alive` comment line after `FACETS_SSE_KEEPALIVE_SECONDS` of "
            "silence. Notifications are not stored: after a reconnect, catch up "
            "with `GET /games?waiting_for_me=true`."
        ),
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                OpenApiTypes.STR,
                description="An endless stream of SSE messages.",
                examples=[OpenApiExample("stream", value=USER_STREAM_EXAMPLE)],
            ),
            **ERRORS,
        },
        tags=["live"],
    )
    def get(self, request: Request) -> HttpResponseBase:
        user = _player(request)
        streams.close_db_connections()
        return sse_response(streams.user_stream(user_id=user.pk))
