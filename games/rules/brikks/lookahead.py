"""One block of look-ahead for the bot: the expected value of a field over
the 24 equally likely rolls of the next round.

For each of the 24 blocks the bot finds its best straight drop (a quick
approximation of the exact search in ``field.resting_positions``: no
sliding under overhangs), valued by the field it leaves plus the energy and
crosses it earns. For each roll it then takes the best block it could afford
(the rolled one, a rotation, or any block for 5) minus the energy spent. A
roll for which nothing fits is worth the field as it stands minus a penalty
(a bomb or the end of the game).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .field import FULL_LINE, Rows, ShapeMasks
from .rules import placement_cost
from .sheet import (
    CIRCLES,
    COLORS,
    ENERGY_BAR_LENGTH,
    FIELD_HEIGHT,
    FIELD_WIDTH,
    LEVELS,
    MULTI_LINE_CROSSES,
    NUM_COLUMNS,
    PINK_X_CIRCLES,
    SHAPES,
)

_CIRCLE_AT = {(c["x"], c["y"]): c["color"] for c in CIRCLES}
_PINK = frozenset(PINK_X_CIRCLES)
_ROLLS = [(color, number) for color in COLORS for number in range(1, NUM_COLUMNS + 1)]


class _Shape(ShapeMasks):
    """The rules' bitmasks plus what the look-ahead needs about a shape."""

    __slots__ = ("key", "color", "bottom", "squares")

    def __init__(self, key: tuple[str, int], squares: list[list[int]]) -> None:
        super().__init__(squares)
        self.key = key
        self.color = key[0]
        self.bottom = tuple(min(dy for sx, dy in squares if sx == dx) for dx in range(self.width))
        self.squares = tuple((dx, dy) for dx, dy in squares)


_SHAPES = [_Shape(key, squares) for key, squares in SHAPES.items()]
SHAPE_BY_KEY = {shape.key: shape for shape in _SHAPES}


def column_heights(rows: Rows) -> list[int]:
    heights = [0] * FIELD_WIDTH
    seen = 0
    for y in range(FIELD_HEIGHT - 1, -1, -1):
        newly = rows[y] & ~seen
        seen |= rows[y]
        while newly:
            lowest = newly & -newly
            heights[lowest.bit_length() - 1] = y + 1
            newly ^= lowest
        if seen == FULL_LINE:
            break
    return heights


def drop_summary(
    rows: Rows, shape: _Shape, x: int, y: int, level: int, position: int
) -> tuple[Rows, int, int, int]:
    """The field after placing the block at (x, y) (any legal position, not
    only a straight drop), energy activated, energy lost (before capping by
    what is available) and crosses earned, as ``rules.block_summary``
    counts them."""
    new_rows = list(rows)
    completed = 0
    for dy, mask in enumerate(shape.line_masks):
        before = new_rows[y + dy]
        after = before | (mask << x)
        new_rows[y + dy] = after
        if after == FULL_LINE:
            completed += 1
    rule = LEVELS[level]
    gains = losses = 0
    for dx, dy in shape.squares:
        circle = _CIRCLE_AT.get((x + dx, y + dy))
        if circle is None:
            continue
        delta = rule["same_color"] if circle == shape.color else rule["other_color"]
        if delta > 0:
            gains += delta
        else:
            losses -= delta
    activated = min(gains, ENERGY_BAR_LENGTH - position)
    pink = sum(1 for circle in range(position + 1, position + 1 + activated) if circle in _PINK)
    return tuple(new_rows), activated, losses, pink + MULTI_LINE_CROSSES[completed]


def expected_next_value(
    rows: Rows,
    player: dict[str, Any],
    energy: int,
    field_value: Callable[[Rows], float],
    reward: Callable[[dict[str, Any], int, int, int, int], float],
    no_fit_penalty: float,
    spending_cost: float,
) -> float:
    """The mean over the 24 rolls of the best affordable next block.

    ``player`` needs ``level``, ``energy_position`` and ``bonus_crosses``;
    ``reward(player, activated, lost, crosses, cost)`` values what a block
    earns."""
    heights = column_heights(rows)
    level = player["level"]
    position = player["energy_position"]
    best_by_key: dict[tuple[str, int], float] = {}
    for shape in _SHAPES:
        best = float("-inf")
        top = FIELD_HEIGHT - shape.height
        bottom = shape.bottom
        for x in range(FIELD_WIDTH - shape.width + 1):
            y = max(heights[x + dx] - bottom[dx] for dx in range(shape.width))
            if y > top:
                continue
            new_rows, activated, lost, crosses = drop_summary(rows, shape, x, y, level, position)
            value = field_value(new_rows) + reward(player, activated, min(lost, energy), crosses, 0)
            if value > best:
                best = value
        best_by_key[shape.key] = best
    stuck = field_value(rows) - no_fit_penalty
    total = 0.0
    for color, number in _ROLLS:
        dice = {"color": color, "number": number}
        best = stuck
        for key, value in best_by_key.items():
            if value == float("-inf"):
                continue
            cost = placement_cost(dice, key[0], key[1])
            if cost > energy:
                continue
            value -= spending_cost * cost
            if value > best:
                best = value
        total += best
    return total / len(_ROLLS)
