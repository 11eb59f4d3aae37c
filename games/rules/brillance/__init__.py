"""Brillance (Frédéric Moyersoen, Oriflam 2006) as a pure rules package.

Carts deliver merchandise through the one-cart lanes of a walled city, event
cards and Pakius's brigands get in the way. See ``docs/rules/brillance.md``.
"""

from __future__ import annotations

from ..base import Action, Rng, Seat, State
from .bot import auto_action
from .rules import (
    OPTIONS,
    decide,
    evolve,
    is_over,
    legal_actions,
    material,
    normalize_options,
    pending,
    redact_event,
    result,
    setup,
    system_step,
    view,
)

SLUG = "brillance"
NAME = "Brillance"
VERSION = 1
MIN_PLAYERS = 2
MAX_PLAYERS = 6

# A Lucky Break reaction window is short: a quarter of the table's turn
# timeout (never under the platform's 10 s minimum), so one absent holder
# does not stall the player whose turn it is for a whole turn.
REACTION_WINDOW_SHARE = 4


def timeout_action(state: State, seat: Seat, rng: Rng) -> Action:
    """What a player who let their deadline pass does: "no" to a reaction
    window (the issue's automatic answer), otherwise what the bot would."""
    if state.get("reaction") is not None:
        return {"type": "react", "cancel": False}
    return auto_action(state, seat, rng)


def deadline_seconds(state: State, seat: Seat, turn_timeout: int) -> int:
    if state.get("reaction") is not None:
        return turn_timeout // REACTION_WINDOW_SHARE
    return turn_timeout


__all__ = [
    "SLUG",
    "NAME",
    "VERSION",
    "MIN_PLAYERS",
    "MAX_PLAYERS",
    "OPTIONS",
    "normalize_options",
    "material",
    "setup",
    "evolve",
    "decide",
    "system_step",
    "pending",
    "legal_actions",
    "auto_action",
    "timeout_action",
    "deadline_seconds",
    "view",
    "redact_event",
    "is_over",
    "result",
]
