"""Token scopes: what a bearer token may do.

A DRF view may name the scope it needs with a class attribute
``required_scope``; without it, safe methods need ``games:read`` and the
others ``games:play`` (``accounts.permissions.HasTokenScope``). A view that
sets ``required_scope = None`` accepts any valid token.
"""

from __future__ import annotations

GAMES_READ = "games:read"
GAMES_PLAY = "games:play"
WEBHOOKS_MANAGE = "webhooks:manage"
# Creating, listing and revoking tokens. Only login session tokens hold it and
# it cannot be granted to a personal token, so a leaked personal token can
# never mint a stronger one.
TOKENS_MANAGE = "tokens:manage"

GRANTABLE_SCOPES: tuple[str, ...] = (GAMES_READ, GAMES_PLAY, WEBHOOKS_MANAGE)
SESSION_SCOPES: tuple[str, ...] = (*GRANTABLE_SCOPES, TOKENS_MANAGE)

SCOPE_DESCRIPTIONS: dict[str, str] = {
    GAMES_READ: "read games, their logs and your seat's view",
    GAMES_PLAY: "open, join, leave, start games; act; resign",
    WEBHOOKS_MANAGE: "create, list and delete webhooks",
    TOKENS_MANAGE: "create, list and revoke tokens (login sessions only)",
}
