"""Geometry of the playing field: where a falling block can come to rest.

The stored field is a list of ``FIELD_HEIGHT`` strings (line 0 = bottom), one
character per square. For computing we turn it into one int bitmask per line
(bit ``x`` set = square filled), which keeps the reachability search cheap
enough to run for all 24 blocks on every decision of a 4-player simulation.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache

from .sheet import EMPTY, FIELD_HEIGHT, FIELD_WIDTH, SHAPES

Rows = tuple[int, ...]
ShapeKey = tuple[str, int]

# The duel's one-square mini-block uses the same search.
MINI_SHAPE: ShapeKey = ("mini", 0)
_ALL_SHAPES: dict[ShapeKey, list[list[int]]] = {**SHAPES, MINI_SHAPE: [[0, 0]]}

FULL_LINE = (1 << FIELD_WIDTH) - 1


class ShapeMasks:
    """A shape as one bitmask per line of its bounding box, bottom first."""

    __slots__ = ("width", "height", "line_masks")

    def __init__(self, squares: list[list[int]]) -> None:
        self.width = max(dx for dx, _ in squares) + 1
        self.height = max(dy for _, dy in squares) + 1
        masks = [0] * self.height
        for dx, dy in squares:
            masks[dy] |= 1 << dx
        self.line_masks = tuple(masks)


_MASKS: dict[ShapeKey, ShapeMasks] = {key: ShapeMasks(sq) for key, sq in _ALL_SHAPES.items()}


def shape_masks(key: ShapeKey) -> ShapeMasks:
    return _MASKS[key]


# Any letter is a filled square: map it to "1", the empty mark to "0".
_TO_BITS = {ord(char): "1" for char in "abcdefghijklmnopqrstuvwxyz"}
_TO_BITS[ord(EMPTY)] = "0"


def field_rows(field: list[str]) -> Rows:
    """The stored field as line bitmasks (bit x = column x)."""
    return tuple(int(line[::-1].translate(_TO_BITS), 2) for line in field)


def fits(rows: Rows, shape: ShapeMasks, x: int, y: int) -> bool:
    """Whether the shape, lower-left at (x, y), is inside the walls and
    overlaps nothing. Squares above the top line are free space."""
    if x < 0 or y < 0 or x + shape.width > FIELD_WIDTH:
        return False
    for dy, mask in enumerate(shape.line_masks):
        line = y + dy
        if line < FIELD_HEIGHT and rows[line] & (mask << x):
            return False
    return True


@lru_cache(maxsize=8192)
def resting_positions(rows: Rows, key: ShapeKey) -> frozenset[tuple[int, int]]:
    """Every (x, y) where the block can come to rest entirely inside the field.

    Breadth-first search from every column just above the field, moving
    left, right and down one square at a time without ever overlapping a
    filled square. A position is a resting one when the block cannot move
    down from it; it counts only if the whole block is inside the field
    (a block resting on a full column sticks out and does not fit)."""
    shape = _MASKS[key]
    start_y = FIELD_HEIGHT
    seen: set[tuple[int, int]] = set()
    queue: deque[tuple[int, int]] = deque()
    for x in range(FIELD_WIDTH - shape.width + 1):
        seen.add((x, start_y))
        queue.append((x, start_y))
    resting: set[tuple[int, int]] = set()
    while queue:
        x, y = queue.popleft()
        if not fits(rows, shape, x, y - 1) and y + shape.height <= FIELD_HEIGHT:
            resting.add((x, y))
        for nx, ny in ((x - 1, y), (x + 1, y), (x, y - 1)):
            if (nx, ny) not in seen and fits(rows, shape, nx, ny):
                seen.add((nx, ny))
                queue.append((nx, ny))
    return frozenset(resting)


def shape_squares(key: ShapeKey, x: int, y: int) -> list[tuple[int, int]]:
    """Field squares covered by the block with its lower-left at (x, y)."""
    return [(x + dx, y + dy) for dx, dy in _ALL_SHAPES[key]]


def fill(field: list[str], squares: list[tuple[int, int]], letter: str) -> list[str]:
    """A new field with ``squares`` filled with ``letter`` (input untouched)."""
    new_field = list(field)
    for x, y in squares:
        line = new_field[y]
        new_field[y] = line[:x] + letter + line[x + 1 :]
    return new_field


def add_squares(rows: Rows, squares: list[tuple[int, int]]) -> Rows:
    """The bitmask field with ``squares`` filled."""
    new_rows = list(rows)
    for x, y in squares:
        new_rows[y] |= 1 << x
    return tuple(new_rows)


def full_lines(rows: Rows) -> list[int]:
    return [y for y, mask in enumerate(rows) if mask == FULL_LINE]


def empty_field() -> list[str]:
    return [EMPTY * FIELD_WIDTH for _ in range(FIELD_HEIGHT)]
