"""How the OpenAPI schema describes the API to client generators.

Every operation gets, without each view repeating it:

- the one error shape (the ``ErrorResponse`` component) for each 4xx status
  its view can answer, derived from what the view declares: a body or query
  parameters → 400 (and 415 for a body), authentication → 401 and 403, a path
  parameter → 404, throttles → 429 with ``Retry-After``. Statuses a view adds
  itself (409 ``stale_seq``, 422 ``illegal_action``...) are written in its
  ``extend_schema(responses=...)`` with :func:`error_response`;
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

_WRITE_METHODS = {"POST", "PUT", "PATCH"}
_SUFFIXES = ("Output", "Input")


@extend_schema_serializer(component_name="Error")
class ErrorSerializer(serializers.Serializer):
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
    error = ErrorSerializer()


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
THROTTLED = error_response("rate_limited / throttled: retry after Retry-After seconds.")

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

    def get_override_parameters(self) -> list[Any]:
        parameters = list(super().get_override_parameters())
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
        if self.method == "GET":
            ok = responses.get("200")
            if ok and "application/json" in ok.get("content", {}):
                ok.setdefault("headers", {})["ETag"] = _ETAG
                responses.setdefault("304", {"description": "Not Modified: your copy is current."})
        return dict(sorted(responses.items()))

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
        if getattr(view, "authentication_classes", None):
            errors[401] = UNAUTHENTICATED
            errors[403] = FORBIDDEN
        if "{" in self.path:
            errors[404] = NOT_FOUND
        elif self.method == "GET" and self._is_list_view() and self._get_paginator():
            errors[404] = NO_SUCH_PAGE
        if has_body:
            errors[415] = UNSUPPORTED_MEDIA_TYPE
        if getattr(view, "throttle_classes", None):
            errors[429] = THROTTLED
        return errors
