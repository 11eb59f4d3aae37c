"""The project's OpenAPI AutoSchema: every POST declares the optional
``Idempotency-Key`` header and the errors it can cause."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from .middleware import HEADER, KEY_PATTERN
from .models import MAX_KEY_LENGTH

IDEMPOTENCY_KEY = OpenApiParameter(
    HEADER,
    {
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_KEY_LENGTH,
        "pattern": f"^{KEY_PATTERN}$",
    },
    location=OpenApiParameter.HEADER,
    required=False,
    description=(
        f"Any unique string (1-{MAX_KEY_LENGTH} printable ASCII characters; a UUID is ideal). "
        "A retry with the same key and body gets the first answer again (with "
        "`Idempotent-Replayed: true`) and writes nothing new. Keys are kept at least 24 hours."
    ),
)

IDEMPOTENCY_ERRORS = {
    "400": "`invalid_idempotency_key`: the key is empty, too long or not printable ASCII.",
    "409": "`idempotency_key_in_use`: a request with this key is still running; retry later.",
    "422": "`idempotency_key_reused`: this key was used for another request.",
}


class ApiErrorBody(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    details = serializers.DictField()


class ApiError(serializers.Serializer):
    error = ApiErrorBody()


class FacetsAutoSchema(AutoSchema):
    def get_override_parameters(self) -> list[Any]:
        parameters = list(super().get_override_parameters())
        if self._takes_idempotency_key():
            parameters.append(IDEMPOTENCY_KEY)
        return parameters

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation = super().get_operation(*args, **kwargs)
        if operation is None or not self._takes_idempotency_key():
            return operation
        error_schema = self.resolve_serializer(ApiError, "response").ref
        responses = operation.setdefault("responses", {})
        for status, description in IDEMPOTENCY_ERRORS.items():
            entry = responses.setdefault(
                status,
                {
                    "description": "",
                    "content": {"application/json": {"schema": error_schema}},
                },
            )
            entry["description"] = " ".join(filter(None, [entry.get("description"), description]))
        return operation

    def _takes_idempotency_key(self) -> bool:
        return self.method == "POST" and not getattr(self.view, "idempotency_exempt", False)
