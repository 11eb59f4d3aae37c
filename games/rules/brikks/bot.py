"""A reasonable player for bot seats and timeouts.

It scores each legal placement by the field it leaves behind (Tetris-style
features: covered holes, height, bumpiness, how full the lines are), plus the
energy it gains or spends and the bonus crosses it earns. Blocks never
vanish in Brikks, so holes are permanent unless something can slide under an
overhang later: the bot avoids them hard and keeps the stack low.
"""

from __future__ import annotations

from typing import Any

from ..base import Action, Rng, Seat, State
from .field import FULL_LINE, MINI_SHAPE, field_rows, resting_positions, shape_squares
from .rules import (
    apply_block,
    legal_actions,
    mini_block_positions,
    placement_cost,
    start_block_actions,
)
from .sheet import (
    BOMB_VALUES,
    COLORS,
    FIELD_HEIGHT,
    FIELD_WIDTH,
    LINE_MULTIPLIERS,
    LINE_POINTS,
    NUM_COLUMNS,
)

Rows = tuple[int, ...]

HOLE_PENALTY = 6.0
HEIGHT_PENALTY = 0.6
BUMPINESS_PENALTY = 0.5
ENERGY_VALUE = 1.2
CROSS_VALUE = 4.0
# A placement this bad is worse than spending a bomb (if more than the last
# bomb is left).
BOMB_THRESHOLD = -40.0


def field_value(rows: Rows) -> float:
    """How good a field is to keep playing on (higher is better)."""
    heights = [0] * FIELD_WIDTH
    holes = 0
    covered = 0
    for y in range(FIELD_HEIGHT - 1, -1, -1):
        row = rows[y]
        holes += (covered & ~row & FULL_LINE).bit_count()
        covered |= row
        for x in range(FIELD_WIDTH):
            if not heights[x] and row >> x & 1:
                heights[x] = y + 1
    value = 0.0
    for y, row in enumerate(rows):
        crosses = row.bit_count()
        value += LINE_POINTS.get(crosses, 0) * LINE_MULTIPLIERS[y]
        value += 0.05 * crosses * crosses
    bumpiness = sum(abs(a - b) for a, b in zip(heights, heights[1:], strict=False))
    value -= HOLE_PENALTY * holes
    value -= HEIGHT_PENALTY * sum(heights) / FIELD_WIDTH * 3
    value -= BUMPINESS_PENALTY * bumpiness
    return value


def _placement_value(player: dict[str, Any], action: Action, cost: int, duel: bool) -> float:
    after, summary = apply_block(
        player, action["color"], action["column"], action["x"], action["y"], cost, duel
    )
    value = field_value(field_rows(after["field"]))
    value += ENERGY_VALUE * (summary["energy_activated"] - summary["energy_lost"] - cost)
    value += CROSS_VALUE * summary["crosses"]
    return value


def best_placement(state: State, seat: Seat, actions: list[Action]) -> tuple[Action | None, float]:
    player = state["players"][seat]
    best: Action | None = None
    best_value = float("-inf")
    for action in actions:
        if action["type"] != "place":
            continue
        cost = placement_cost(state["dice"], action["color"], action["column"])
        value = _placement_value(player, action, cost, state["duel"])
        if value > best_value:
            best, best_value = action, value
    return best, best_value


def auto_action(state: State, seat: Seat, rng: Rng) -> Action:
    phase = state["phase"]
    if phase == "start":
        return _choose_start_block(state, seat)
    if phase == "choose_dice":
        return {"type": "reroll"} if _wants_reroll(state, seat) else {"type": "keep"}
    if phase == "mini_blocks":
        return _choose_mini_block(state, seat)
    actions = legal_actions(state, seat)
    best, value = best_placement(state, seat, actions)
    bombs_left = len(BOMB_VALUES) - state["players"][seat]["bombs_used"]
    if best is not None and (value > BOMB_THRESHOLD or bombs_left < 2):
        return best
    if bombs_left:
        return {"type": "bomb"}
    if best is not None:
        return best
    return {"type": "give_up"}


def _choose_start_block(state: State, seat: Seat) -> Action:
    player = state["players"][seat]
    best, best_value = None, float("-inf")
    for action in start_block_actions(state):
        squares = shape_squares((action["color"], 1), action["x"], 0)
        after, _ = apply_block(player, action["color"], 1, action["x"], 0, 0, state["duel"])
        value = field_value(field_rows(after["field"])) - 0.01 * len(squares)
        if value > best_value:
            best, best_value = action, value
    assert best is not None  # six colours, at most four players
    return best


def _wants_reroll(state: State, seat: Seat) -> bool:
    """Reroll when the rolled block, unrotated, is worse for this seat than
    the average block would be."""
    player = state["players"][seat]
    rows = field_rows(player["field"])
    dice = state["dice"]

    def best_free(color: str, column: int) -> float:
        best = float("-inf")
        for x, y in resting_positions(rows, (color, column)):
            after, summary = apply_block(player, color, column, x, y, 0, state["duel"])
            value = field_value(field_rows(after["field"]))
            value += ENERGY_VALUE * summary["energy_activated"] + CROSS_VALUE * summary["crosses"]
            best = max(best, value)
        return best

    values = [best_free(c, k) for c in COLORS for k in range(1, NUM_COLUMNS + 1)]
    finite = [v for v in values if v != float("-inf")]
    if not finite:
        return True
    current = best_free(dice["color"], dice["number"])
    return current < sum(finite) / len(finite)


def _choose_mini_block(state: State, seat: Seat) -> Action:
    """Do the most harm: the square that leaves the opponent's field worst."""
    target = 1 - seat
    rows = list(field_rows(state["players"][target]["field"]))
    best, best_value = None, float("inf")
    for x, y in mini_block_positions(state, seat):
        trial = list(rows)
        trial[y] |= 1 << x
        value = field_value(tuple(trial))
        if value < best_value:
            best, best_value = (x, y), value
    assert best is not None  # forfeited automatically when nothing fits
    assert (best[0], best[1]) in resting_positions(tuple(rows), MINI_SHAPE)
    return {"type": "mini_block", "x": best[0], "y": best[1]}
