"""Brillance (Frédéric Moyersoen, Oriflam 2006) as a pure rules package.

Carts deliver merchandise through the one-cart lanes of a walled city, event
cards and Pakius's brigands get in the way. See ``docs/rules/brillance.md``.
"""

from __future__ import annotations

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
