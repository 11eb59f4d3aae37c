"""Every row lock the games app takes goes through here (Saleor's habit):
one place to read when reasoning about deadlocks. A command locks exactly one
game row; seats and events of that game are only written under that lock."""

from __future__ import annotations

from .errors import NotFound
from .models import Game

MAX_ID = 2**63 - 1  # PostgreSQL bigint; a larger id in a URL is simply not found


def lock_game(game_id: int) -> Game:
    """Lock the game row for the rest of the transaction (must be inside atomic)."""
    if not 0 < game_id <= MAX_ID:
        raise NotFound(f"No game {game_id}.")
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist as exc:
        raise NotFound(f"No game {game_id}.") from exc
