"""The city of Brillance as data: a character map parsed into spaces and streets.

The published board is not available, so the project designed one (see
``docs/rules/brillance.md``). The map below *is* the data: every character is
one square of a grid, and the parser turns it into numbered spaces with a
kind, a colour, a name and drawing coordinates, plus the streets (pairs of
orthogonally adjacent spaces). Bridges only join the spaces above and below
them, so a bridge never touches the water beside it.

Legend::

    #   building or city wall (not a space)     ~   river (not a space)
    .   street                                   =   bridge (north-south)
    ,   street on the island                     C   the brigands' castle
    +   a gate in the wall (it belongs to the company whose guard stands beside it)
    0-5 guard space of company 0-5, the street square just inside its gate
    y b o g r p   starting spaces of a company (outside the wall)
    Y B O G R P   delivery space of one of the company's shops
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

COMPANIES: list[str] = ["yellow", "blue", "orange", "green", "red", "purple"]
START_LETTERS = "ybogrp"
DELIVERY_LETTERS = "YBOGRP"
GATE_NAMES = [
    "North-West Gate",
    "North-East Gate",
    "East Gate",
    "South-East Gate",
    "South-West Gate",
    "West Gate",
]

MAP: list[str] = [
    "          y           b",
    "          y           b",
    "          y           b",
    "          y           b",
    "          y           b",
    "     #####+###########+#####",
    "     #....0..G..P..R..1..O.#",
    "     #.###.###.###.###.###.#",
    "     #.###O###.###O###.###.#",
    "ppppp+5..B.....B....YP.....#",
    "     #.###G###.###.###.###.#",
    "     #......Y...R...R......#",
    "     #~~=~~~~=~~~~~=~~~~=~~#",
    "     #~~=~~,,,,,,O,,G,~~=~~#",
    "     #~~=~~,####C####B~~=~~#",
    "     #~~=~~,,,,P,,R,Y,~~=~~#",
    "     #~~=~~~~=~~~~~=~~~~=~~#",
    "     #.R...GY...B..........#",
    "     #.###.###.###.###.###.#",
    "     #.....B.P.G.Y..P..P..2+ooooo",
    "     #.###.###.###.###.###.#",
    "     #G###.###.###.###.###Y#",
    "     #.O..4....O...B..3..R.#",
    "     #####+###########+#####",
    "          r           g",
    "          r           g",
    "          r           g",
    "          r           g",
    "          r           g",
]

# Bridges, named west to east and north to south (x, y of their first square).
BRIDGE_NAMES: dict[tuple[int, int], str] = {
    (8, 12): "Old Bridge",
    (13, 12): "Tapirs Bridge",
    (19, 12): "Ox Bridge",
    (24, 12): "New Bridge",
    (13, 16): "Mill Bridge",
    (19, 16): "Tanners' Bridge",
}

SHOP_TRADES: list[str] = [
    "Baker",
    "Weaver",
    "Cooper",
    "Tanner",
    "Chandler",
    "Apothecary",
    "Goldsmith",
    "Cutler",
    "Potter",
    "Glazier",
    "Hatter",
    "Saddler",
    "Brewer",
    "Vintner",
    "Butcher",
    "Fishmonger",
    "Cheesemonger",
    "Grocer",
    "Draper",
    "Mercer",
    "Cobbler",
    "Bookbinder",
    "Scrivener",
    "Locksmith",
    "Wheelwright",
    "Ropemaker",
    "Dyer",
    "Furrier",
    "Perfumer",
    "Spicer",
    "Armourer",
    "Bowyer",
    "Fletcher",
    "Tinker",
    "Barber",
    "Jeweller",
]


def _is_space(char: str) -> bool:
    return char in ".=,C+" or char.isdigit() or (char != "" and char.lower() in START_LETTERS)


def _kind(char: str) -> tuple[str, str | None]:
    if char in ".,":
        return "street", None
    if char == "=":
        return "bridge", None
    if char == "C":
        return "castle", None
    if char == "+":
        return "gate", None
    if char.isdigit():
        return "guard", COMPANIES[int(char)]
    if char in START_LETTERS:
        return "start", COMPANIES[START_LETTERS.index(char)]
    return "delivery", COMPANIES[DELIVERY_LETTERS.index(char)]


def _island_squares(grid: list[str]) -> set[tuple[int, int]]:
    """The island: every square reachable from the castle without taking a bridge."""
    castle = next((x, y) for y, row in enumerate(grid) for x, ch in enumerate(row) if ch == "C")
    seen = {castle}
    todo = [castle]
    while todo:
        x, y = todo.pop()
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nxt = (x + dx, y + dy)
            ch = _char(grid, *nxt)
            if nxt not in seen and _is_space(ch) and ch != "=":
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _char(grid: list[str], x: int, y: int) -> str:
    if 0 <= y < len(grid) and 0 <= x < len(grid[y]):
        return grid[y][x]
    return " "


def build_board(grid: list[str]) -> dict[str, Any]:
    """Parse the map into spaces, streets, shops and per-company gates."""
    island = _island_squares(grid)
    ids: dict[tuple[int, int], int] = {}
    spaces: list[dict[str, Any]] = []
    for y, row in enumerate(grid):
        for x, ch in enumerate(row):
            if not _is_space(ch):
                continue
            kind, colour = _kind(ch)
            ids[(x, y)] = len(spaces)
            spaces.append(
                {
                    "id": len(spaces),
                    "kind": kind,
                    "colour": colour,
                    "name": "",
                    "x": x,
                    "y": y,
                    "island": (x, y) in island,
                }
            )
    streets: list[list[int]] = []
    for (x, y), sid in ids.items():
        for dx, dy in ((1, 0), (0, 1)):
            other = ids.get((x + dx, y + dy))
            if other is None:
                continue
            if dx and "=" in (grid[y][x], grid[y][x + dx]):
                continue  # bridges run north-south only
            streets.append([sid, other])
    streets.sort()
    for sp in spaces:
        if sp["kind"] == "gate":  # a gate takes the colour of the guard beside it
            guards = [
                spaces[ids[(sp["x"] + dx, sp["y"] + dy)]]
                for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
                if (sp["x"] + dx, sp["y"] + dy) in ids
            ]
            sp["colour"] = next(g["colour"] for g in guards if g["kind"] == "guard")
    _name_spaces(grid, spaces, ids)
    return {
        "width": max(len(r) for r in grid),
        "height": len(grid),
        "spaces": spaces,
        "streets": streets,
    }


def _name_spaces(
    grid: list[str], spaces: list[dict[str, Any]], ids: dict[tuple[int, int], int]
) -> None:
    """Give every space a readable name (gates, camps, shops, bridges, lanes)."""
    shop_count = 0
    # Camps are numbered from the gate outwards: sort by distance to the gate.
    gates = {sp["colour"]: sp for sp in spaces if sp["kind"] == "gate"}
    for sp in sorted(spaces, key=lambda s: (s["y"], s["x"])):
        kind, colour = sp["kind"], sp["colour"]
        if kind == "gate":
            sp["name"] = GATE_NAMES[COMPANIES.index(colour)]
        elif kind == "guard":
            sp["name"] = GATE_NAMES[COMPANIES.index(colour)].replace("Gate", "Guard")
        elif kind == "castle":
            sp["name"] = "Pakius's Castle"
        elif kind == "bridge":
            sp["name"] = _bridge_name(sp["x"], sp["y"], grid)
        elif kind == "delivery":
            sp["name"] = f"{SHOP_TRADES[shop_count]} ({colour})"
            shop_count += 1
        elif kind == "street":
            where = "Island lane" if sp["island"] else "Lane"
            sp["name"] = f"{where} {sp['x']}-{sp['y']}"
    for sp in spaces:
        if sp["kind"] == "start":
            gate = gates[sp["colour"]]
            rank = abs(sp["x"] - gate["x"]) + abs(sp["y"] - gate["y"])
            sp["rank"] = rank
            sp["name"] = f"{sp['colour'].capitalize()} camp {rank}"


def _bridge_name(x: int, y: int, grid: list[str]) -> str:
    # Walk north to the first square of this bridge: that square names it.
    while _char(grid, x, y - 1) == "=":
        y -= 1
    return BRIDGE_NAMES.get((x, y), f"Bridge {x}-{y}")


def neighbours_table(board: dict[str, Any]) -> list[list[int]]:
    table: list[list[int]] = [[] for _ in board["spaces"]]
    for a, b in board["streets"]:
        table[a].append(b)
        table[b].append(a)
    for row in table:
        row.sort()
    return table


def bfs(
    start: int, neighbours: list[list[int]], passable: Iterable[bool] | None = None
) -> dict[int, int]:
    """Distances from ``start`` over spaces whose ``passable`` flag is true."""
    flags = list(passable) if passable is not None else None
    dist = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for there in neighbours[here]:
            if there in dist or (flags is not None and not flags[there]):
                continue
            dist[there] = dist[here] + 1
            queue.append(there)
    return dist


BOARD: dict[str, Any] = build_board(MAP)
SPACES: list[dict[str, Any]] = BOARD["spaces"]
NEIGHBOURS: list[list[int]] = neighbours_table(BOARD)
SHOP_SPACES: list[int] = [sp["id"] for sp in SPACES if sp["kind"] == "delivery"]
CASTLE: int = next(sp["id"] for sp in SPACES if sp["kind"] == "castle")
GUARD: dict[str, int] = {sp["colour"]: sp["id"] for sp in SPACES if sp["kind"] == "guard"}
GATE: dict[str, int] = {sp["colour"]: sp["id"] for sp in SPACES if sp["kind"] == "gate"}
# Starting spaces of each company, nearest the gate first.
CAMPS: dict[str, list[int]] = {
    colour: [
        sp["id"]
        for sp in sorted(
            (s for s in SPACES if s["kind"] == "start" and s["colour"] == colour),
            key=lambda s: s["rank"],
        )
    ]
    for colour in COMPANIES
}


def draw(marks: dict[int, str] | None = None) -> str:
    """The board as text, from the parsed data (optionally with marks on spaces)."""
    grid = [[" "] * BOARD["width"] for _ in range(BOARD["height"])]
    for y, row in enumerate(MAP):
        for x, ch in enumerate(row):
            grid[y][x] = ch
    for sid, mark in (marks or {}).items():
        sp = SPACES[sid]
        grid[sp["y"]][sp["x"]] = mark
    return "\n".join("".join(row).rstrip() for row in grid)
