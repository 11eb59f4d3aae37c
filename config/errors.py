"""Every error the API returns has one shape::

    {"error": {"code": "stale_seq", "message": "...", "details": {...}}}

``code`` is stable and machine-readable; ``message`` is for humans. Domain
errors (games.errors.ApplicationError), DRF's own exceptions and Django's
404/500 pages are all rendered here.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, JsonResponse
from rest_framework import exceptions as drf
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from games.errors import ApplicationError

logger = logging.getLogger(__name__)

_DRF_CODES: list[tuple[type[Exception], str]] = [
    (drf.ParseError, "malformed_request"),
    (drf.ValidationError, "validation_error"),
    (drf.NotAuthenticated, "not_authenticated"),
    (drf.AuthenticationFailed, "invalid_token"),
    (drf.PermissionDenied, "permission_denied"),
    (drf.NotFound, "not_found"),
    (drf.MethodNotAllowed, "method_not_allowed"),
    (drf.NotAcceptable, "not_acceptable"),
    (drf.UnsupportedMediaType, "unsupported_media_type"),
    (drf.Throttled, "rate_limited"),
]


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details or {}}}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ApplicationError):
        return Response(error_body(exc.code, exc.message, exc.details), status=exc.status)
    if isinstance(exc, Http404):
        exc = drf.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = drf.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        # Unexpected: log it and still answer in the one shape.
        logger.exception("unhandled error in API view", exc_info=exc)
        return Response(error_body("server_error", "Internal server error."), status=500)
    code = next((c for cls, c in _DRF_CODES if isinstance(exc, cls)), "error")
    if isinstance(exc, drf.ValidationError):
        message, details = "Invalid input.", {"fields": response.data}
    elif isinstance(exc, drf.Throttled):
        retry_after = int(getattr(exc, "wait", None) or 1)
        response["Retry-After"] = str(retry_after)
        message = f"Too many requests; retry in {retry_after} s."
        details = {"retry_after": retry_after}
    else:
        message, details = str(getattr(exc, "detail", exc)), {}
    response.data = error_body(code, message, details)
    return response


def json_400(request: Any, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse(error_body("bad_request", "Bad request."), status=400)


def json_403(request: Any, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse(error_body("permission_denied", "Forbidden."), status=403)


def json_404(request: Any, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse(error_body("not_found", "No such page."), status=404)


def json_500(request: Any) -> JsonResponse:
    return JsonResponse(error_body("server_error", "Internal server error."), status=500)
