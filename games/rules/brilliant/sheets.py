"""The four Brilliant sheets, designed by the project (the printed ones are not available).

Each sheet is drawn as rows of area letters ("." is a hole, not a field), with a
table giving each letter its colour and its three point values (high, middle,
low). Star fields are listed in the order of the values they receive: the first
star gets 1, the sixth gets 6. ``tests/rules/test_brilliant_sheets.py`` checks
the constraints of the issue (field and area counts, connectivity, sizes,
colours, star placement, point ordering).

Point values were tuned with ``bench/simulate_brilliant.py`` so that bot games
end by the score threshold in roughly 20 to 40 rolls.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

Field = tuple[int, int]

COLOURS = ("green", "blue", "gray", "red", "yellow", "purple", "orange")

# Every level: grid rows, area table {letter: (colour, [high, middle, low])}, stars.
_LEVELS: dict[int, dict[str, Any]] = {
    1: {
        # The gray area A runs along the whole top edge: seven equal numbers.
        "grid": [
            "AAAAAAAB.",
            "CCDDEEFBB",
            "CCDDEEFFB",
            "GGHH.IIFF",
            "GGHHJJIIK",
            "LLMMJJNNK",
            "L.MMOONNK",
            "LLPPOOQQK",
        ],
        "areas": {
            "A": ("gray", [10, 7, 4]),
            "B": ("green", [3, 2, 1]),
            "C": ("purple", [4, 3, 1]),
            "D": ("red", [5, 3, 2]),
            "E": ("yellow", [5, 3, 2]),
            "F": ("orange", [5, 3, 2]),
            "G": ("green", [3, 2, 1]),
            "H": ("blue", [6, 4, 2]),
            "I": ("orange", [4, 3, 1]),
            "J": ("green", [3, 2, 1]),
            "K": ("yellow", [5, 3, 2]),
            "L": ("green", [4, 3, 1]),
            "M": ("purple", [4, 3, 1]),
            "N": ("red", [5, 3, 2]),
            "O": ("orange", [4, 3, 1]),
            "P": ("blue", [3, 2, 1]),
            "Q": ("gray", [4, 3, 1]),
        },
        "stars": [[1, 2], [2, 7], [4, 1], [4, 5], [6, 3], [6, 7]],
    },
    2: {
        "grid": [
            "AAABBBCCC",
            "ADDBBECCF",
            "ADDGGEEFF",
            "HHDGGE.FF",
            "HHIIGJJKK",
            "LHII.JJKK",
            "LLMMMNNOO",
            ".LMMPPNOO",
        ],
        "areas": {
            "A": ("gray", [9, 6, 3]),
            "B": ("red", [8, 5, 3]),
            "C": ("green", [4, 3, 1]),
            "D": ("purple", [5, 3, 2]),
            "E": ("yellow", [6, 4, 2]),
            "F": ("orange", [5, 3, 2]),
            "G": ("blue", [9, 6, 3]),
            "H": ("orange", [5, 3, 2]),
            "I": ("red", [6, 4, 2]),
            "J": ("green", [3, 2, 1]),
            "K": ("purple", [4, 3, 1]),
            "L": ("blue", [7, 5, 3]),
            "M": ("yellow", [8, 5, 3]),
            "N": ("green", [3, 2, 1]),
            "O": ("gray", [7, 5, 3]),
            "P": ("green", [3, 2, 1]),
        },
        "stars": [[1, 1], [2, 4], [0, 7], [4, 5], [5, 1], [6, 6]],
    },
    3: {
        "grid": [
            "AAAABBBCC",
            "DDAABBCCC",
            "DDEEEBFFC",
            "DGGEE.FFH",
            "DGGIIIFHH",
            "JJGIIKKHH",
            "JJLL.KKMM",
            "JLLLNNKMM",
        ],
        "areas": {
            "A": ("gray", [11, 7, 4]),
            "B": ("red", [9, 6, 3]),
            "C": ("purple", [7, 5, 3]),
            "D": ("blue", [11, 7, 4]),
            "E": ("green", [4, 3, 1]),
            "F": ("yellow", [8, 5, 3]),
            "G": ("orange", [5, 3, 2]),
            "H": ("green", [4, 3, 1]),
            "I": ("purple", [5, 3, 2]),
            "J": ("yellow", [8, 5, 3]),
            "K": ("orange", [5, 3, 2]),
            "L": ("green", [4, 3, 1]),
            "M": ("red", [6, 4, 2]),
            "N": ("blue", [4, 3, 1]),
        },
        "stars": [[2, 3], [4, 8], [6, 3], [5, 4], [1, 7], [6, 6]],
    },
    4: {
        "grid": [
            "AAAABBBB.",
            "ACCABBDDD",
            "ACCEEEDDD",
            "FFCEE.GGG",
            "FFHHEGGII",
            "FJHHHKKII",
            "FJJLLKKII",
            ".JJLLLKMM",
        ],
        "areas": {
            "A": ("gray", [13, 9, 5]),
            "B": ("red", [9, 6, 3]),
            "C": ("green", [5, 3, 2]),
            "D": ("purple", [7, 5, 3]),
            "E": ("yellow", [9, 6, 3]),
            "F": ("orange", [7, 5, 3]),
            "G": ("blue", [9, 6, 3]),
            "H": ("purple", [6, 4, 2]),
            "I": ("gray", [11, 7, 4]),
            "J": ("red", [8, 5, 3]),
            "K": ("green", [5, 3, 2]),
            "L": ("orange", [6, 4, 2]),
            "M": ("green", [3, 2, 1]),
        },
        "stars": [[1, 2], [5, 5], [7, 8], [2, 4], [4, 0], [6, 8]],
    },
}

LEVELS = tuple(sorted(_LEVELS))


@dataclass(frozen=True)
class Area:
    id: int
    letter: str
    colour: str
    fields: tuple[Field, ...]
    points: tuple[int, int, int]


@dataclass(frozen=True)
class Sheet:
    level: int
    rows: int
    cols: int
    areas: tuple[Area, ...]
    area_of: dict[Field, int]
    neighbours: dict[Field, tuple[Field, ...]]
    stars: tuple[Field, ...]

    def is_field(self, row: int, col: int) -> bool:
        return (row, col) in self.area_of


@cache
def sheet(level: int) -> Sheet:
    """The parsed sheet of ``level`` (cached: sheets are static)."""
    spec = _LEVELS[level]
    grid: list[str] = spec["grid"]
    letters = sorted(spec["areas"])
    area_id = {letter: index for index, letter in enumerate(letters)}
    area_of: dict[Field, int] = {}
    members: dict[int, list[Field]] = {index: [] for index in area_id.values()}
    for row, line in enumerate(grid):
        for col, letter in enumerate(line):
            if letter != ".":
                area_of[(row, col)] = area_id[letter]
                members[area_id[letter]].append((row, col))
    neighbours = {
        (row, col): tuple(
            other
            for other in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
            if other in area_of
        )
        for row, col in area_of
    }
    areas = tuple(
        Area(
            id=area_id[letter],
            letter=letter,
            colour=spec["areas"][letter][0],
            fields=tuple(members[area_id[letter]]),
            points=tuple(spec["areas"][letter][1]),
        )
        for letter in letters
    )
    return Sheet(
        level=level,
        rows=len(grid),
        cols=len(grid[0]),
        areas=areas,
        area_of=area_of,
        neighbours=neighbours,
        stars=tuple((row, col) for row, col in spec["stars"]),
    )


def sheet_material(level: int) -> dict[str, Any]:
    """JSON description of one sheet, for clients to draw it."""
    parsed = sheet(level)
    return {
        "level": level,
        "rows": parsed.rows,
        "cols": parsed.cols,
        "fields": [
            {"row": row, "col": col, "area": area}
            for (row, col), area in sorted(parsed.area_of.items())
        ],
        "areas": [
            {
                "id": area.id,
                "letter": area.letter,
                "colour": area.colour,
                "rule": RULE_TEXT[area.colour],
                "fields": [[row, col] for row, col in area.fields],
                "points": list(area.points),
            }
            for area in parsed.areas
        ],
        "stars": [
            {"row": row, "col": col, "value": value}
            for value, (row, col) in enumerate(parsed.stars, start=1)
        ],
    }


RULE_TEXT = {
    "green": "green area: any numbers",
    "blue": "blue area: all numbers must be the same",
    "gray": "gray area: all numbers must be the same",
    "red": "red area: all numbers must be different",
    "yellow": "yellow area: all numbers must be different",
    "purple": "purple area: at most two different numbers",
    "orange": "orange area: all numbers 1-3 or all numbers 4-6",
}


def area_allows(colour: str, values: list[int]) -> bool:
    """Whether the numbers ``values`` written in one area respect its colour's rule."""
    if colour in ("blue", "gray"):
        return len(set(values)) <= 1
    if colour in ("red", "yellow"):
        return len(set(values)) == len(values)
    if colour == "purple":
        return len(set(values)) <= 2
    if colour == "orange":
        return all(value <= 3 for value in values) or all(value >= 4 for value in values)
    return True
