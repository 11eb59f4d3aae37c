"""The printed material of Brikks, as the project's own data.

Everything a client needs to draw the sheet and the block overview lives here
as plain Python literals; ``tests/rules/test_brikks.py`` checks it (24 shapes of
four connected squares, the rotations per column, the circle positions...).

Coordinates: ``x`` is the column from the left (0..9), ``y`` the line from the
bottom (0..10). The rules text and the reference count from 1; we count from 0
because every action uses these numbers.
"""

from __future__ import annotations

from typing import Any

FIELD_WIDTH = 10
FIELD_HEIGHT = 11

# The colour die, face by face: ``rng.randint(0, 5)`` indexes this list.
COLORS: list[str] = ["white", "yellow", "green", "red", "blue", "black"]

# One letter per colour in the stored field; "m" marks a duel mini-block and
# "." an empty square.
COLOR_LETTERS: dict[str, str] = {
    "white": "w",
    "yellow": "y",
    "green": "g",
    "red": "r",
    "blue": "b",
    "black": "k",
}
MINI_BLOCK_LETTER = "m"
EMPTY = "."

# The block overview: colour row -> the four columns, each drawn top line
# first ("x" = square). White, yellow and green turn a quarter turn clockwise
# per column; red and blue are upright in columns 1-2 and lying in 3-4; black
# is O, O, I lying, I standing.
SHAPE_DRAWINGS: dict[str, list[list[str]]] = {
    "white": [
        [".x.", "xxx"],
        ["x.", "xx", "x."],
        ["xxx", ".x."],
        [".x", "xx", ".x"],
    ],
    "yellow": [
        [".x", ".x", "xx"],
        ["x..", "xxx"],
        ["xx", "x.", "x."],
        ["xxx", "..x"],
    ],
    "green": [
        ["x.", "x.", "xx"],
        ["xxx", "x.."],
        ["xx", ".x", ".x"],
        ["..x", "xxx"],
    ],
    "red": [
        [".x", "xx", "x."],
        [".x", "xx", "x."],
        ["xx.", ".xx"],
        ["xx.", ".xx"],
    ],
    "blue": [
        ["x.", "xx", ".x"],
        ["x.", "xx", ".x"],
        [".xx", "xx."],
        [".xx", "xx."],
    ],
    "black": [
        ["xx", "xx"],
        ["xx", "xx"],
        ["xxxx"],
        ["x", "x", "x", "x"],
    ],
}

NUM_COLUMNS = 4

# Coloured circles on the field, (x, y) from the bottom-left, two per colour.
# The blue circle of line 10 is at column 10 (x=9); one source puts it at
# column 9, we follow the majority of sources (see docs/rules/brikks.md).
CIRCLES: list[dict[str, Any]] = [
    {"x": 6, "y": 10, "color": "green"},
    {"x": 0, "y": 9, "color": "red"},
    {"x": 9, "y": 9, "color": "blue"},
    {"x": 3, "y": 8, "color": "black"},
    {"x": 7, "y": 7, "color": "white"},
    {"x": 1, "y": 6, "color": "yellow"},
    {"x": 5, "y": 5, "color": "red"},
    {"x": 2, "y": 4, "color": "blue"},
    {"x": 9, "y": 4, "color": "yellow"},
    {"x": 0, "y": 3, "color": "black"},
    {"x": 7, "y": 3, "color": "green"},
    {"x": 4, "y": 2, "color": "white"},
]

# Energy bar: 28 circles, numbered 1..28; these carry a pink X.
ENERGY_BAR_LENGTH = 28
PINK_X_CIRCLES: list[int] = [7, 10, 13, 16, 19, 22, 25, 28]
# Circles 1..4 are printed activated; some are crossed out with fewer players.
PRINTED_ACTIVE_CIRCLES = 4
CROSSED_OUT_BY_PLAYERS: dict[int, list[int]] = {1: [], 2: [3, 4], 3: [4], 4: []}
# Solo: the 5th circle is circled at the start as well.
SOLO_EXTRA_CIRCLES = 1

# Energy costs on the overview.
COST_PER_COLUMN = 1
COST_ANY_BLOCK = 5

# Bonus track: victory points by number of crosses (0..14).
BONUS_TRACK: list[int] = [0, 1, 3, 6, 10, 15, 21, 28, 36, 44, 51, 58, 64, 70, 75]
MAX_BONUS_CROSSES = len(BONUS_TRACK) - 1
# Crosses for completing several full lines with one block.
MULTI_LINE_CROSSES: dict[int, int] = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4}

# Bombs, top to bottom; used from the top.
BOMB_VALUES: list[int] = [1, 2, 4]

# Line scoring: crosses in a line -> points; multiplier per line (y).
LINE_POINTS: dict[int, int] = {10: 5, 9: 2, 8: 1}
LINE_MULTIPLIERS: list[int] = [1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 4]

# Difficulty levels: energy for covering a circle with a block of the same
# colour / of another colour (negative = activated energy lost).
LEVELS: dict[int, dict[str, int]] = {
    1: {"same_color": 2, "other_color": 1},
    2: {"same_color": 2, "other_color": 0},
    3: {"same_color": 2, "other_color": -1},
    4: {"same_color": 2, "other_color": -2},
}
DEFAULT_LEVEL = 2

# Solo rating table (level 1 thresholds; +5 points per level above 1):
# (minimum score, label), best first.
SOLO_RATINGS: list[tuple[int, str]] = [
    (151, "Brikks Master 2000!!!"),
    (130, "You show-off!"),
    (110, "You should do this professionally!"),
    (100, "Did you all see that?"),
    (90, "Enjoy your success!"),
    (80, "Someone's been practicing!"),
    (70, "On a roll!"),
    (60, "There's still room to improve!"),
    (0, "Your first time?"),
]
SOLO_RATING_STEP_PER_LEVEL = 5


def drawing_to_squares(drawing: list[str]) -> list[list[int]]:
    """Squares ``[dx, dy]`` relative to the lower-left of the bounding box."""
    height = len(drawing)
    return [
        [dx, height - 1 - row]
        for row, line in enumerate(drawing)
        for dx, char in enumerate(line)
        if char == "x"
    ]


# (colour, column 1..4) -> squares, sorted for a stable published form.
SHAPES: dict[tuple[str, int], list[list[int]]] = {
    (color, column + 1): sorted(drawing_to_squares(drawing), key=lambda sq: (sq[1], sq[0]))
    for color, drawings in SHAPE_DRAWINGS.items()
    for column, drawing in enumerate(drawings)
}
