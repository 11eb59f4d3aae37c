"""Scope enforcement for bearer tokens (see ``accounts/scopes.py``)."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission

from games.errors import ApplicationError

from .models import ApiToken
from .scopes import GAMES_PLAY, GAMES_READ

_UNSET = object()  # no required_scope attribute: the method decides


class InsufficientScope(ApplicationError):
    code = "insufficient_scope"
    status = 403

    def __init__(self, scope: str) -> None:
        super().__init__(
            f"This token lacks the {scope!r} scope.", details={"required_scope": scope}
        )


def required_scope(view: Any, method: str) -> str | None:
    """The scope ``view`` needs for ``method``: its ``required_scope``
    attribute if it has one (None: any valid token), else ``games:read`` for
    safe methods and ``games:play`` for the others."""
    declared = getattr(view, "required_scope", _UNSET)
    if declared is None or isinstance(declared, str):
        return declared
    return GAMES_READ if method in SAFE_METHODS else GAMES_PLAY


class HasTokenScope(BasePermission):
    """Refuses (403 ``insufficient_scope``) a request whose bearer token lacks
    the view's scope. Anonymous requests pass: whether anonymous callers may
    use a view is the other permission classes' decision."""

    def has_permission(self, request: Any, view: Any) -> bool:
        token = request.auth
        if not isinstance(token, ApiToken):
            return True
        scope = required_scope(view, request.method)
        if scope is not None and not token.has_scope(scope):
            raise InsufficientScope(scope)
        return True
