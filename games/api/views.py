"""Thin views: parse input, call one service or selector, render."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.db.models import QuerySet
from django.http import HttpResponse, HttpResponseBase, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import renderers, serializers, status
from rest_framework.exceptions import NotAuthenticated
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from accounts.permissions import HasTokenScope
from config.schema import error_response
from games import selectors, services, streams
from games.errors import NotFound
from games.rules import registry

from . import conditional, presenters
from . import serializers as s


def _valid(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def _user(request: Request) -> User | None:
    """The caller, or None for an anonymous reader."""
    return request.user if isinstance(request.user, User) else None


def _player(request: Request) -> User:
    """The caller of a write; the views' permissions guarantee a user."""
    if not isinstance(request.user, User):
        raise NotAuthenticated()
    return request.user


def conditional_parameters() -> list[OpenApiParameter]:
    return [
        OpenApiParameter(
            "If-None-Match",
            str,
            location=OpenApiParameter.HEADER,
            required=False,
            description="The ETag of the answer you have; 304 if it is still current.",
        ),
        OpenApiParameter(
            "ETag",
            str,
            location=OpenApiParameter.HEADER,
            response=[200, 304],
            description="Changes whenever the game changes; differs per seat.",
        ),
    ]


NOT_MODIFIED = OpenApiResponse(description="Not modified: your copy (If-None-Match) is current.")


def _detail(request: Request, game_id: int, code: int = status.HTTP_200_OK) -> Response:
    access = selectors.game_access(game_id=game_id, user=_user(request))
    return Response(presenters.game_detail(access), status=code)


class RulesetListView(APIView):
    permission_classes = [AllowAny, HasTokenScope]
    required_scope = None  # public material: any token, or none

    @extend_schema(
        operation_id="rulesets_list", responses=s.RulesetOutput(many=True), tags=["rulesets"]
    )
    def get(self, request: Request) -> Response:
        return Response(
            [presenters.ruleset_summary(registry.get(slug)) for slug in registry.slugs()]
        )


class RulesetDetailView(APIView):
    permission_classes = [AllowAny, HasTokenScope]
    required_scope = None

    @extend_schema(
        operation_id="rulesets_retrieve", responses=s.RulesetDetailOutput, tags=["rulesets"]
    )
    def get(self, request: Request, slug: str) -> Response:
        if slug not in registry.slugs():
            raise NotFound(f"No ruleset {slug!r}.")
        rules = registry.get(slug)
        return Response({**presenters.ruleset_summary(rules), "material": rules.material()})


class GamePagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


# Statuses the lobby and play endpoints answer besides the automatic ones
# (config/schema.py), with the codes a client may meet under each.
LOBBY_CONFLICT = error_response("game_not_open: the table has started, finished or closed.")
BAD_LOBBY_REQUEST = error_response(
    "validation_error: e.g. too few players to start, or more bots than free seats."
)
ACTION_CONFLICT = error_response(
    "stale_seq (details.seq is the current seq), not_your_turn, game_not_active or "
    "game_finished: nothing was written."
)
ILLEGAL_ACTION = error_response(
    "illegal_action: the rules refuse it; details.reason is the ruleset's code. "
    "Nothing was written."
)


class GameListView(APIView):
    # Read by the schema generator to describe the paginated list.
    pagination_class = GamePagination

    @extend_schema(
        operation_id="games_list",
        parameters=[s.GameListQuery],
        responses=s.GameSummaryOutput(many=True),
        tags=["games"],
    )
    def get(self, request: Request) -> Response:
        query = _valid(s.GameListQuery, request.query_params)
        games: QuerySet = selectors.game_list(
            user=_user(request),
            status="open" if query.pop("open") else query.get("status"),
            ruleset=query.get("ruleset"),
            mine=query["mine"],
            waiting_for_me=query["waiting_for_me"],
        )
        paginator = GamePagination()
        page = paginator.paginate_queryset(games, request, view=self)
        return paginator.get_paginated_response([presenters.game_list_item(g) for g in page or []])

    @extend_schema(
        operation_id="games_create",
        request=s.GameCreateInput,
        responses={201: s.GameOutput},
        tags=["games"],
    )
    def post(self, request: Request) -> Response:
        game = services.game_create(
            creator=_player(request), **_valid(s.GameCreateInput, request.data)
        )
        return _detail(request, game.pk, status.HTTP_201_CREATED)


class GameDetailView(APIView):
    @extend_schema(
        operation_id="games_retrieve",
        parameters=conditional_parameters(),
        responses={200: s.GameOutput, 304: NOT_MODIFIED},
        tags=["games"],
    )
    def get(self, request: Request, game_id: int) -> HttpResponseBase:
        access = selectors.game_access(game_id=game_id, user=_user(request))
        etag = conditional.game_etag(access)
        return conditional.not_modified(request, etag) or conditional.tagged(
            Response(presenters.game_detail(access)), etag
        )


class GameJoinView(APIView):
    @extend_schema(
        operation_id="games_join",
        request=None,
        responses={200: s.GameOutput, 409: LOBBY_CONFLICT},
        tags=["lobby"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        services.game_join(game_id=game_id, user=_player(request))
        return _detail(request, game_id)


class GameLeaveView(APIView):
    @extend_schema(
        operation_id="games_leave",
        request=None,
        responses={200: s.GameOutput, 409: LOBBY_CONFLICT},
        tags=["lobby"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        services.game_leave(game_id=game_id, user=_player(request))
        return _detail(request, game_id)


class GameBotsView(APIView):
    @extend_schema(
        operation_id="games_add_bots",
        request=s.BotsInput,
        responses={200: s.GameOutput, 400: BAD_LOBBY_REQUEST, 409: LOBBY_CONFLICT},
        tags=["lobby"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = _valid(s.BotsInput, request.data or {})
        services.game_add_bots(game_id=game_id, user=_player(request), count=data["count"])
        return _detail(request, game_id)


class GameStartView(APIView):
    @extend_schema(
        operation_id="games_start",
        request=None,
        responses={200: s.GameOutput, 400: BAD_LOBBY_REQUEST, 409: LOBBY_CONFLICT},
        tags=["lobby"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        services.game_start(game_id=game_id, user=_player(request))
        return _detail(request, game_id)


class GameResignView(APIView):
    @extend_schema(
        operation_id="games_resign",
        request=None,
        responses={200: s.GameOutput, 409: ACTION_CONFLICT},
        tags=["play"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        services.game_resign(game_id=game_id, user=_player(request))
        return _detail(request, game_id)


class LegalActionsView(APIView):
    permission_classes = [IsAuthenticated, HasTokenScope]

    @extend_schema(
        operation_id="games_legal_actions", responses=s.LegalActionsOutput, tags=["play"]
    )
    def get(self, request: Request, game_id: int) -> Response:
        access = selectors.game_access(game_id=game_id, user=_player(request))
        actions = selectors.game_legal_actions(access)
        note = getattr(access.rules, "LEGAL_ACTIONS_NOTE", "")
        return Response(
            {
                "seq": access.game.seq,
                "your_seat": access.seat_index,
                "actions": actions,
                "note": note,
            }
        )


class ActionView(APIView):
    permission_classes = [IsAuthenticated, HasTokenScope]

    @extend_schema(
        operation_id="games_submit_action",
        request=s.ActionInput,
        responses={201: s.ActionOutput, 409: ACTION_CONFLICT, 422: ILLEGAL_ACTION},
        tags=["play"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = _valid(s.ActionInput, request.data)
        outcome = services.action_submit(
            game_id=game_id,
            user=_player(request),
            action=data["action"],
            expected_seq=data["expected_seq"],
        )
        access = selectors.game_access(game_id=game_id, user=_player(request))
        body = {
            "seq": outcome.game.seq,
            "events": [selectors.event_for(access, row) for row in outcome.events],
            "game": presenters.game_detail(access),
        }
        return Response(body, status=status.HTTP_201_CREATED)


class EventListView(APIView):
    permission_classes = [AllowAny, HasTokenScope]

    @extend_schema(
        operation_id="games_events",
        parameters=[s.EventsQuery],
        responses={
            200: s.EventPageOutput,
            400: OpenApiResponse(s.ErrorOutput, description="Bad after, limit or wait."),
            404: OpenApiResponse(s.ErrorOutput, description="No such game."),
        },
        tags=["history"],
    )
    def get(self, request: Request, game_id: int) -> Response | StreamingHttpResponse:
        query = _valid(s.EventsQuery, request.query_params)
        access = selectors.game_access(game_id=game_id, user=_user(request))
        if query["wait"]:
            # Long-poll: the same page, awaited in the event loop (no thread
            # waits); the checks above already ran here, as for any read.
            streams.close_db_connections()
            poll = streams.long_poll(
                game_id=game_id,
                user=_user(request),
                after=query["after"],
                limit=query["limit"],
                wait=query["wait"],
            )
            return StreamingHttpResponse(poll, content_type="application/json")
        events = selectors.event_list(access=access, after=query["after"], limit=query["limit"])
        return Response(presenters.event_page(access, events, query["after"]))


class StateView(APIView):
    permission_classes = [AllowAny, HasTokenScope]

    @extend_schema(
        operation_id="games_state",
        parameters=[
            OpenApiParameter("at", int, description="Replay: the state right after this seq."),
            *conditional_parameters(),
        ],
        responses={200: s.StateOutput, 304: NOT_MODIFIED},
        tags=["history"],
    )
    def get(self, request: Request, game_id: int) -> HttpResponseBase:
        query = _valid(s.StateQuery, request.query_params)
        access = selectors.game_access(game_id=game_id, user=_user(request))
        at = access.game.seq if query["at"] is None else query["at"]
        selectors.state_check_readable(access=access, seq=at)
        etag = conditional.game_etag(access, "state", at)
        if (unchanged := conditional.not_modified(request, etag)) is not None:
            return unchanged  # no replay
        state = selectors.state_at(access=access, seq=at)
        body = {"seq": at, "your_seat": access.seat_index, "state": state}
        return conditional.tagged(Response(body), etag)


class VerifyView(APIView):
    permission_classes = [AllowAny, HasTokenScope]

    @extend_schema(
        operation_id="games_verify",
        responses={200: s.VerifyOutput, 404: error_response("not_found: no such game.")},
        tags=["history"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        access = selectors.game_access(game_id=game_id, user=_user(request))
        return Response(selectors.replay_check(access=access))


# --- records --------------------------------------------------------------------

VERIFIER = Path(__file__).resolve().parent.parent / "verify_record.py"


class NDJSONRenderer(renderers.BaseRenderer):
    """One JSON document per line (an error too, if one is rendered)."""

    media_type = "application/x-ndjson"
    format = "ndjson"
    charset = "utf-8"

    def render(
        self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None
    ) -> bytes:
        return ndjson_line(data)


class PythonRenderer(renderers.BaseRenderer):
    media_type = "text/x-python"
    format = "py"
    charset = "utf-8"

    def render(
        self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None
    ) -> bytes:
        return data if isinstance(data, bytes) else json.dumps(data).encode()


def ndjson_line(data: Any) -> bytes:
    return (json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


class RecordView(APIView):
    permission_classes = [AllowAny, HasTokenScope]

    @extend_schema(
        operation_id="games_record",
        responses={200: s.RecordOutput, 404: error_response("not_found: no such game.")},
        tags=["records"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        access = selectors.game_access(game_id=game_id, user=_user(request))
        return Response(selectors.game_record(access=access))


class UserGamesExportView(APIView):
    permission_classes = [AllowAny, HasTokenScope]
    renderer_classes = [renderers.JSONRenderer, NDJSONRenderer]

    @extend_schema(
        operation_id="users_games_export",
        parameters=[s.UserGamesQuery],
        responses={
            (200, "application/x-ndjson"): s.RecordOutput,
            400: error_response("validation_error: bad since or max."),
            404: error_response("not_found: no such user."),
        },
        description="The user's finished games, newest first, as NDJSON: one complete "
        "record per line, streamed.",
        tags=["records"],
    )
    def get(self, request: Request, username: str) -> StreamingHttpResponse:
        query = _valid(s.UserGamesQuery, request.query_params)
        records = selectors.finished_records_of(
            username=username,
            viewer=_user(request),
            since=query.get("since"),
            max_games=query.get("max"),
        )
        return StreamingHttpResponse(
            (ndjson_line(record) for record in records), content_type="application/x-ndjson"
        )


class RecordImportView(APIView):
    permission_classes = [IsAuthenticated, HasTokenScope]

    @extend_schema(
        operation_id="records_import",
        request=s.RecordInput,
        responses={
            201: s.ImportedRecordOutput,
            400: error_response(
                "validation_error: details lists each malformed part of the record."
            ),
        },
        description="Store a finished game's record (as GET /games/{id}/record gives it) "
        "to view and verify it. It never becomes a live game.",
        tags=["records"],
    )
    def post(self, request: Request) -> Response:
        imported = services.record_import(user=_player(request), record=request.data)
        return Response(presenters.imported_record(imported), status=status.HTTP_201_CREATED)


class ImportedRecordView(APIView):
    permission_classes = [AllowAny, HasTokenScope]

    @extend_schema(
        operation_id="records_retrieve",
        responses={
            200: s.ImportedRecordOutput,
            404: error_response("not_found: no such imported record."),
        },
        tags=["records"],
    )
    def get(self, request: Request, record_id: int) -> Response:
        imported = selectors.imported_record_get(record_id=record_id)
        return Response(presenters.imported_record(imported))


class ImportedRecordVerifyView(APIView):
    permission_classes = [AllowAny, HasTokenScope]

    @extend_schema(
        operation_id="records_verify",
        responses={
            200: s.VerifyOutput,
            404: error_response("not_found: no such imported record."),
        },
        tags=["records"],
    )
    def get(self, request: Request, record_id: int) -> Response:
        imported = selectors.imported_record_get(record_id=record_id)
        return Response(selectors.imported_record_verify(imported=imported))


class VerifierScriptView(APIView):
    permission_classes = [AllowAny, HasTokenScope]
    required_scope = None  # public software: any token, or none
    renderer_classes = [PythonRenderer, renderers.JSONRenderer]

    @extend_schema(
        operation_id="verifier_script",
        responses={(200, "text/x-python"): OpenApiResponse(OpenApiTypes.STR)},
        description="The standalone verifier: one Python file needing only the standard "
        "library. Run `python verify_record.py record.json` (exit code 0: verified).",
        tags=["records"],
    )
    def get(self, request: Request) -> HttpResponse:
        response = HttpResponse(VERIFIER.read_bytes(), content_type="text/x-python; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="verify_record.py"'
        return response
