"""Diamants: roll three dice, take numbered cards, steal tops, use special cards.

The module-level names below are the ruleset contract of ``games.rules.base``.
"""

from __future__ import annotations

from .bot import auto_action
from .engine import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NAME,
    OPTIONS,
    SLUG,
    VERSION,
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

__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NAME",
    "OPTIONS",
    "SLUG",
    "VERSION",
    "auto_action",
    "decide",
    "evolve",
    "is_over",
    "legal_actions",
    "material",
    "normalize_options",
    "pending",
    "redact_event",
    "result",
    "setup",
    "system_step",
    "view",
]
