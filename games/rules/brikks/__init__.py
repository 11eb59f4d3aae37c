"""Brikks: falling blocks on a paper sheet, energy, bonus track, bombs.

The module-level names below fulfil ``games.rules.base.Ruleset``. Rules as
implemented, decisions and reason codes: ``docs/rules/brikks.md``.
"""

from __future__ import annotations

from typing import Any

from .bot import auto_action
from .public import material, redact_event, result, view
from .rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    decide,
    evolve,
    is_over,
    legal_actions,
    normalize_options,
    pending,
    setup,
    system_step,
)

SLUG = "brikks"
NAME = "Brikks"
VERSION = 1

OPTIONS: dict[str, Any] = {
    "duel": {
        "type": "boolean",
        "default": False,
        "description": "Brikks Duel: exactly 2 players, the one who stays in longer wins.",
    },
    "levels": {
        "type": "array",
        "items": {"type": "integer", "minimum": 1, "maximum": 4},
        "default": "2 for every seat",
        "description": "Difficulty level per seat (1 easiest, 2 the base game, 4 hardest).",
    },
    "level": {
        "type": "integer",
        "minimum": 1,
        "maximum": 4,
        "description": "Shorthand: the same level for every seat (instead of levels).",
    },
}

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
    "view",
    "redact_event",
    "is_over",
    "result",
]
