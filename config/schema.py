"""The OpenAPI schema: every operation also documents the errors every
endpoint may give (401 bad token, 403 missing scope, 429 rate limited with
``Retry-After``), the token scope it needs, and on every POST the optional
``Idempotency-Key`` header with its errors."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers

from accounts.permissions import HasTokenScope, required_scope
from accounts.scopes import SESSION_SCOPES
from games.idempotency.schema import IDEMPOTENCY_ERRORS, IDEMPOTENCY_KEY


class ErrorBodySerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable machine-readable code (docs/api.md).")
    message = serializers.CharField(help_text="For humans.")
    details = serializers.DictField(help_text="Structured details; depends on the code.")


class ErrorSerializer(serializers.Serializer):
    error = ErrorBodySerializer()


class InsufficientScopeDetailsSerializer(serializers.Serializer):
    # Not required: other 403 codes (permission_denied, not_a_player) have no details.
    required_scope = serializers.ChoiceField(choices=list(SESSION_SCOPES), required=False)


class ForbiddenBodySerializer(ErrorBodySerializer):
    details = InsufficientScopeDetailsSerializer(  # type: ignore[assignment]
        help_text="With code insufficient_scope: the scope the token lacks."
    )


class ForbiddenErrorSerializer(serializers.Serializer):
    error = ForbiddenBodySerializer()


class RateLimitedDetailsSerializer(serializers.Serializer):
    retry_after = serializers.IntegerField(
        min_value=1, help_text="Seconds to wait; the same as the Retry-After header."
    )


class RateLimitedBodySerializer(ErrorBodySerializer):
    details = RateLimitedDetailsSerializer()  # type: ignore[assignment]


class RateLimitedErrorSerializer(serializers.Serializer):
    error = RateLimitedBodySerializer()


RETRY_AFTER_HEADER = {
    "Retry-After": {
        "description": "Seconds to wait before the limit's window ends.",
        "schema": {"type": "integer", "minimum": 1},
        "required": True,
    }
}


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
        error_schema = self.resolve_serializer(ErrorSerializer, "response").ref
        responses = operation.setdefault("responses", {})
        for status, description in IDEMPOTENCY_ERRORS.items():
            entry = responses.setdefault(
                status,
                {"description": "", "content": {"application/json": {"schema": error_schema}}},
            )
            entry["description"] = " ".join(filter(None, [entry.get("description"), description]))
        return operation

    def _takes_idempotency_key(self) -> bool:
        return self.method == "POST" and not getattr(self.view, "idempotency_exempt", False)

    def _scope(self) -> str | None:
        if not any(isinstance(p, HasTokenScope) for p in self.view.get_permissions()):
            return None
        return required_scope(self.view, self.method)

    def get_description(self) -> str:  # type: ignore[override]  # drf-spectacular's signature
        description = super().get_description() or ""
        scope = self._scope()
        if scope is None:
            return description
        note = f"Token scope needed: `{scope}`."
        return f"{description}\n\n{note}" if description else note

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        if self.view.get_authenticators():
            responses.setdefault(
                "401",
                self._error(
                    "401",
                    "Missing, wrong, revoked or expired token.",
                    ErrorSerializer,
                ),
            )
        if self._scope() is not None:
            responses.setdefault(
                "403",
                self._error(
                    "403",
                    "Refused: insufficient_scope (the token lacks the scope in "
                    "details.required_scope) or another permission code.",
                    ForbiddenErrorSerializer,
                ),
            )
        if self.view.get_throttles():
            limited = self._error(
                "429", "Rate limited (code rate_limited).", RateLimitedErrorSerializer
            )
            responses.setdefault("429", {**limited, "headers": RETRY_AFTER_HEADER})
        return responses

    def _error(
        self, code: str, description: str, serializer: type[serializers.Serializer]
    ) -> dict[str, Any]:
        response: dict[str, Any] = self._get_response_for_code(serializer, code)
        return {**response, "description": description}
