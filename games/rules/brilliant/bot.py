"""The Brilliant bot, used for bot seats and for answers after a deadline.

Setup: the star fields. A roll: the legal placement with the best score, where
completing an area (worth the points still on offer) beats everything, then
progress in areas that are nearly full and pay well per field, then opening
new empty neighbours (more future options). Passing only when nothing is legal.
"""

from __future__ import annotations

from typing import Any

from ..base import Action, Seat, State
from .engine import area_values, legal_placements, pending, sheet_of
from .sheets import Sheet

COMPLETION_BONUS = 100
PROGRESS_WEIGHT = 10
VALUE_WEIGHT = 4
OPENING_WEIGHT = 1


def auto_action(state: State, seat: Seat, rng: Any) -> Action:
    if seat not in pending(state):
        return {"type": "pass"}  # nothing to answer; decide will say why if it is sent
    if state["phase"] == "setup":
        return {"type": "setup", "stars": True}
    sheet_ = sheet_of(state)
    grid = state["grids"][seat]
    options = legal_placements(grid, sheet_, state["dice"])
    if not options:
        return {"type": "pass"}
    scored = [(_placement_score(state, sheet_, grid, option), option) for option in options]
    best = max(score for score, _ in scored)
    row, col, value = rng.choice([option for score, option in scored if score == best])
    return {"type": "place", "row": row, "col": col, "value": value}


def _placement_score(
    state: State, sheet_: Sheet, grid: list[list[int]], option: list[int]
) -> float:
    row, col, _ = option
    area = sheet_.areas[sheet_.area_of[(row, col)]]
    filled_after = len(area_values(grid, sheet_, area.id)) + 1
    on_offer = area.points[state["tiers"][area.id]]
    score = PROGRESS_WEIGHT * filled_after / len(area.fields)
    score += VALUE_WEIGHT * on_offer / len(area.fields)
    if filled_after == len(area.fields):
        score += COMPLETION_BONUS + on_offer
    score += OPENING_WEIGHT * sum(1 for r, c in sheet_.neighbours[(row, col)] if not grid[r][c])
    return score
