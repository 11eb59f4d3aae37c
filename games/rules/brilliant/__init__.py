"""Brilliant (Ravensburger, 2025): write dice numbers next to each other on a
sheet of coloured areas; completing an area first scores most.

Rules as implemented: ``docs/rules/brilliant.md``. This package follows the
contract in ``games/rules/base.py`` and imports nothing from Django.
"""

from __future__ import annotations

from typing import Any

from .bot import auto_action
from .engine import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    decide,
    evolve,
    is_over,
    legal_actions,
    normalize_options,
    pending,
    redact_event,
    result,
    setup,
    system_step,
    view,
)
from .sheets import LEVELS, sheet_material

SLUG = "brilliant"
NAME = "Brilliant"
VERSION = 1
OPTIONS: dict[str, Any] = {
    "level": {
        "type": "integer",
        "minimum": LEVELS[0],
        "maximum": LEVELS[-1],
        "default": 1,
        "description": "Sheet to play on: 1 (easiest) to 4 (largest restrictive areas).",
    }
}

# Shown with legal-actions: the free setup has far too many choices to list.
LEGAL_ACTIONS_NOTE = (
    "During setup only the star setup and two sample free setups are listed. Any "
    '{"type": "setup", "cells": [[row, col, value], ...]} is accepted that writes the values '
    "1 to 6 once each into six empty fields of six different areas."
)


def material() -> dict[str, Any]:
    """The four sheets, for clients to draw: grid size, fields, areas, stars."""
    return {"sheets": {str(level): sheet_material(level) for level in LEVELS}}


__all__ = [
    "LEGAL_ACTIONS_NOTE",
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
