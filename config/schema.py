"""How the OpenAPI schema describes the API to client generators.

Every operation gets, without each view repeating it:

- the one error shape (the ``ErrorResponse`` component) for each 4xx status
  its view can answer, derived from what the view declares: a body or query
  parameters → 400 (and 415 for a body), authentication → 401 and 403, a path
  parameter → 404, throttles → 429 with ``Retry-After``. Statuses a view adds
  itself (409 ``stale_seq``, 422 ``illegal_action``...) are written in its
  ``extend_schema(responses=...)`` with :func:`error_response`;
- the token scope it needs, in its description (``accounts/permissions.py``),
  and 403 ``insufficient_scope`` wherever a scope applies;
- on every POST the optional ``Idempotency-Key`` header and the errors it can
  cause (``games/idempotency``), unless the view is ``idempotency_exempt``;
- on GET, the ``ETag`` header of its 200 answer, the ``If-None-Match``
  request header and the bodiless 304 (``ConditionalGetMiddleware``);
- component names without the ``Output``/``Input`` suffixes our serializers
  carry (``GameOutput`` → ``Game``, ``ActionInput`` → ``ActionRequest``), so a
  generated client's classes read well.

Operation ids come from the path without ``/api/v1`` (``SCHEMA_PATH_PREFIX``):
``games_list``, ``games_create``; action endpoints name themselves with
``extend_schema(operation_id=...)``.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema_serializer
from rest_framework import serializers

from accounts.permissions import HasTokenScope, required_scope
from games.idempotency.schema import IDEMPOTENCY_ERRORS, IDEMPOTENCY_KEY

_WRITE_METHODS = {"POST", "PUT", "PATCH"}
_SUFFIXES = ("Output", "Input")


@extend_schema_serializer(component_name="Error")
class ErrorBodySerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="Stable and machine-readable, e.g. stale_seq (docs/api.md lists them)."
    )
    message = serializers.CharField(help_text="For humans; may change.")
    details = serializers.DictField(
        child=serializers.JSONField(),
        help_text="Structured facts about the error, e.g. fields, reason or seq.",
    )


@extend_schema_serializer(component_name="ErrorResponse")
class ErrorResponseSerializer(serializers.Serializer):
    error = ErrorBodySerializer()


# The one error shape, under the name views import.
ErrorSerializer = ErrorResponseSerializer


def error_response(description: str) -> OpenApiResponse:
    """A documented error status: ``responses={409: error_response("stale_seq: ...")}``."""
    return OpenApiResponse(ErrorResponseSerializer, description=description)


# The automatic error statuses and what they mean, for the schema's descriptions.
VALIDATION = error_response(
    "validation_error (details.fields names each bad field) or malformed_request."
)
UNAUTHENTICATED = error_response("not_authenticated (no token) or invalid_token.")
FORBIDDEN = error_response(
    "permission_denied, not_a_player or insufficient_scope: the caller may not do this."
)
NOT_FOUND = error_response("not_found: no such object.")
NO_SUCH_PAGE = error_response("not_found: no such page (past the last one, or below 1).")
UNSUPPORTED_MEDIA_TYPE = error_response("unsupported_media_type: send application/json.")
THROTTLED = error_response(
    "rate_limited: retry after Retry-After seconds (also in details.retry_after)."
)

_ETAG = {
    "description": "Send it back as If-None-Match: an unchanged answer is a bodiless 304.",
    "schema": {"type": "string"},
}
_RETRY_AFTER = {
    "description": "Seconds to wait before retrying.",
    "schema": {"type": "integer"},
}


class FacetsAutoSchema(AutoSchema):
    def get_serializer_name(self, serializer: serializers.Serializer, direction: Any) -> str:
        name = super().get_serializer_name(serializer, direction)
        for suffix in _SUFFIXES:
            if name.endswith(suffix) and len(name) > len(suffix):
                return name[: -len(suffix)]
        return name

    def get_description(self) -> str:  # type: ignore[override]  # drf-spectacular's signature
        description = super().get_description() or ""
        scope = self._scope()
        if scope is None:
            return description
        note = f"Token scope needed: `{scope}`."
        return f"{description}\n\n{note}" if description else note

    def _scope(self) -> str | None:
        if not any(isinstance(p, HasTokenScope) for p in self.view.get_permissions()):
            return None
        return required_scope(self.view, self.method)

    def _takes_idempotency_key(self) -> bool:
        return self.method == "POST" and not getattr(self.view, "idempotency_exempt", False)

    def get_override_parameters(self) -> list[Any]:
        parameters = list(super().get_override_parameters())
        if self._takes_idempotency_key():
            parameters.append(IDEMPOTENCY_KEY)
        if self.method == "GET":
            parameters.append(
                OpenApiParameter(
                    "If-None-Match",
                    str,
                    OpenApiParameter.HEADER,
                    required=False,
                    description="The ETag of an answer you hold: 304 if it is unchanged.",
                )
            )
        return parameters

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for status, response in self._automatic_errors().items():
            if str(status) not in responses:
                responses[str(status)] = self._get_response_for_code(response, str(status))
        if "429" in responses:
            responses["429"].setdefault("headers", {})["Retry-After"] = _RETRY_AFTER
        for code, description in self._idempotency_errors().items():
            entry = responses.setdefault(
                code, self._get_response_for_code(error_response(""), code)
            )
            entry["description"] = " ".join(filter(None, [entry.get("description"), description]))
        if self.method == "GET":
            ok = responses.get("200")
            if ok and "application/json" in ok.get("content", {}):
                ok.setdefault("headers", {})["ETag"] = _ETAG
                responses.setdefault("304", {"description": "Not Modified: your copy is current."})
        return dict(sorted(responses.items()))

    def _idempotency_errors(self) -> dict[str, str]:
        return IDEMPOTENCY_ERRORS if self._takes_idempotency_key() else {}

    def _automatic_errors(self) -> dict[int, OpenApiResponse]:
        view = self.view
        has_body = self.method in _WRITE_METHODS and self.get_request_serializer() is not None
        has_query = any(
            isinstance(p, OpenApiParameter)
            and p.location == OpenApiParameter.QUERY
            or not isinstance(p, OpenApiParameter)
            for p in self.get_override_parameters()
        )
        errors: dict[int, OpenApiResponse] = {}
        if has_body or has_query:
            errors[400] = VALIDATION
        if view.get_authenticators():
            errors[401] = UNAUTHENTICATED
            errors[403] = FORBIDDEN
        if "{" in self.path:
            errors[404] = NOT_FOUND
        elif self.method == "GET" and self._is_list_view() and self._get_paginator():
            errors[404] = NO_SUCH_PAGE
        if has_body:
            errors[415] = UNSUPPORTED_MEDIA_TYPE
        if view.get_throttles():
            errors[429] = THROTTLED
        return errors
