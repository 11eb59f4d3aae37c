"""Reads for accounts."""

from __future__ import annotations

from django.db.models import QuerySet

from .models import ApiToken, User


def token_list(*, user: User, kind: str | None = None) -> QuerySet[ApiToken]:
    """The user's tokens not revoked (expired ones included: their owner
    should see that they expired), newest first."""
    tokens = ApiToken.objects.filter(user=user, revoked_at__isnull=True)
    if kind is not None:
        tokens = tokens.filter(kind=kind)
    return tokens.order_by("-created_at", "-pk")
