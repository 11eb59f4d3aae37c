"""Brilliant: state, events and the decide/evolve pair.

Flow: ``game_started`` -> every seat answers ``setup`` (simultaneous, hidden
until all have chosen) -> ``setup_revealed`` -> loop { system step
``dice_rolled`` -> every active seat answers ``place``/``pass`` (simultaneous,
hidden until all have answered) -> ``roll_resolved`` + ``area_completed`` ...
(+ ``game_ended``) }.

A seat's answer is stored in an event (``setup_chosen``/``answered``) that
``redact_event`` strips for everyone but the actor; the resolution event that
follows the last answer repeats every answer publicly. So redaction never
needs to know whether a roll is resolved.
"""

from __future__ import annotations

from typing import Any

from ..base import Action, Event, IllegalAction, InvalidOptions, Seat, State, action_type
from .sheets import LEVELS, RULE_TEXT, Sheet, area_allows, sheet

MIN_PLAYERS = 2
MAX_PLAYERS = 6
DIE_FACES = range(1, 7)
TIER_NAMES = ("high", "middle", "low")
SETUP_SIZE = 6

# Score that ends the game after a roll, by number of players (5 or more: 20).
THRESHOLDS = {2: 26, 3: 24, 4: 22}
THRESHOLD_MANY = 20

HIDDEN_ANSWER_EVENTS = ("setup_chosen", "answered")


def threshold_for(num_players: int) -> int:
    return THRESHOLDS.get(num_players, THRESHOLD_MANY)


# --------------------------------------------------------------------------- options


def normalize_options(options: dict[str, Any], num_players: int) -> dict[str, Any]:
    if not isinstance(options, dict):
        raise InvalidOptions("options must be an object")
    unknown = set(options) - {"level"}
    if unknown:
        raise InvalidOptions(f"unknown options: {sorted(map(str, unknown))}")
    if type(num_players) is not int or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise InvalidOptions(f"Brilliant needs {MIN_PLAYERS} to {MAX_PLAYERS} players")
    level = options.get("level", 1)
    if type(level) is not int or level not in LEVELS:
        raise InvalidOptions(f"level must be an integer from {LEVELS[0]} to {LEVELS[-1]}")
    return {"level": level}


# --------------------------------------------------------------------------- helpers


def sheet_of(state: State) -> Sheet:
    return sheet(state["level"])


def area_values(grid: list[list[int]], sheet_: Sheet, area_id: int) -> list[int]:
    """The numbers already written in an area of one player's grid."""
    return [grid[row][col] for row, col in sheet_.areas[area_id].fields if grid[row][col]]


def placement_problem(
    grid: list[list[int]], sheet_: Sheet, dice: list[int], row: int, col: int, value: int
) -> tuple[str, str] | None:
    """Why writing ``value`` at (row, col) is illegal for this roll, or None if it is legal."""
    if not (0 <= row < sheet_.rows and 0 <= col < sheet_.cols):
        return "off_sheet", f"({row}, {col}) is outside the {sheet_.rows}x{sheet_.cols} sheet"
    if not sheet_.is_field(row, col):
        return "no_such_field", f"({row}, {col}) is not a field of the sheet"
    if grid[row][col]:
        return "field_taken", f"({row}, {col}) already holds {grid[row][col]}"
    first, second = dice
    if value not in (first, second):
        return "value_not_rolled", f"{value} was not rolled ({first} and {second} were)"
    other = second if value == first else first
    if not _has_neighbour_with(grid, sheet_, row, col, other):
        return "not_adjacent", f"no field next to ({row}, {col}) holds {other}"
    area = sheet_.areas[sheet_.area_of[(row, col)]]
    if not area_allows(area.colour, area_values(grid, sheet_, area.id) + [value]):
        return "area_rule", RULE_TEXT[area.colour]
    return None


def _has_neighbour_with(
    grid: list[list[int]], sheet_: Sheet, row: int, col: int, value: int
) -> bool:
    return any(grid[r][c] == value for r, c in sheet_.neighbours[(row, col)])


def legal_placements(grid: list[list[int]], sheet_: Sheet, dice: list[int]) -> list[list[int]]:
    """Every [row, col, value] one player may write for ``dice``, sorted, no duplicates."""
    found = []
    for row, col in sorted(sheet_.area_of):
        if grid[row][col]:
            continue
        for value in sorted(set(dice)):
            if placement_problem(grid, sheet_, dice, row, col, value) is None:
                found.append([row, col, value])
    return found


def can_ever_write(grid: list[list[int]], sheet_: Sheet) -> bool:
    """An empty field next to a number, taking some value 1..6 within its area rule.

    Any die value can come up together with any neighbour's value, so this is
    exactly "some future roll lets this player write"."""
    for (row, col), area_id in sheet_.area_of.items():
        if grid[row][col] or not any(grid[r][c] for r, c in sheet_.neighbours[(row, col)]):
            continue
        colour = sheet_.areas[area_id].colour
        written = area_values(grid, sheet_, area_id)
        if any(area_allows(colour, written + [value]) for value in DIE_FACES):
            return True
    return False


def area_complete(grid: list[list[int]], sheet_: Sheet, area_id: int) -> bool:
    return all(grid[row][col] for row, col in sheet_.areas[area_id].fields)


def _write(grids: list[list[list[int]]], seat: int, cells: list[list[int]]) -> None:
    """Write cells into ``grids[seat]``, copying only the rows that change."""
    grid = list(grids[seat])
    for row, col, value in cells:
        grid[row] = list(grid[row])
        grid[row][col] = value
    grids[seat] = grid


# --------------------------------------------------------------------------- setup / evolve


def setup(num_players: int, options: dict[str, Any], rng: Any) -> list[Event]:
    options = normalize_options(options, num_players)
    return [
        {
            "type": "game_started",
            "actor": None,
            "num_players": num_players,
            "level": options["level"],
            "threshold": threshold_for(num_players),
        }
    ]


def evolve(state: State, event: Event) -> State:
    handler = _EVOLVERS.get(event["type"])
    if handler is None:
        raise ValueError(f"unknown Brilliant event type {event['type']!r}")
    new = dict(state)
    handler(new, event)
    return new


def _on_game_started(state: State, event: Event) -> None:
    level = sheet(event["level"])
    players = event["num_players"]
    state.update(
        level=event["level"],
        num_players=players,
        threshold=event["threshold"],
        phase="setup",
        roll=0,
        roller=None,
        dice=None,
        grids=[[[0] * level.cols for _ in range(level.rows)] for _ in range(players)],
        answered=[False] * players,
        answers=[None] * players,
        active=[True] * players,
        scores=[0] * players,
        completed=[[] for _ in range(players)],
        tiers=[0] * len(level.areas),
        claims=[[] for _ in level.areas],
        result=None,
    )


def _record_answer(state: State, seat: int, answer: Any) -> None:
    state["answered"] = list(state["answered"])
    state["answered"][seat] = True
    state["answers"] = list(state["answers"])
    state["answers"][seat] = answer


def _on_setup_chosen(state: State, event: Event) -> None:
    _record_answer(state, event["actor"], event["cells"])


def _on_setup_revealed(state: State, event: Event) -> None:
    grids = list(state["grids"])
    for seat, cells in enumerate(event["cells"]):
        _write(grids, seat, cells)
    _close_answers(state, grids)


def _close_answers(state: State, grids: list[list[list[int]]]) -> None:
    """After a reveal: new grids, answers cleared, who can still write recomputed."""
    sheet_ = sheet_of(state)
    players = state["num_players"]
    state.update(
        grids=grids,
        phase="roll",
        dice=None,
        answered=[False] * players,
        answers=[None] * players,
        active=[can_ever_write(grid, sheet_) for grid in grids],
    )


def _on_dice_rolled(state: State, event: Event) -> None:
    state.update(phase="answer", roll=event["roll"], roller=event["actor"], dice=event["dice"])


def _on_answered(state: State, event: Event) -> None:
    _record_answer(state, event["actor"], event["answer"])


def _on_roll_resolved(state: State, event: Event) -> None:
    grids = list(state["grids"])
    for seat, row, col, value in event["placements"]:
        _write(grids, seat, [[row, col, value]])
    _close_answers(state, grids)


def _on_area_completed(state: State, event: Event) -> None:
    area, points = event["area"], event["points"]
    state["scores"] = list(state["scores"])
    state["completed"] = list(state["completed"])
    for seat in event["seats"]:
        state["scores"][seat] += points
        state["completed"][seat] = state["completed"][seat] + [area]
    state["tiers"] = list(state["tiers"])
    state["tiers"][area] = min(event["tier"] + 1, len(TIER_NAMES) - 1)
    state["claims"] = list(state["claims"])
    claim = {
        "roll": event["roll"],
        "tier": event["tier"],
        "points": points,
        "seats": event["seats"],
    }
    state["claims"][area] = state["claims"][area] + [claim]


def _on_game_ended(state: State, event: Event) -> None:
    state.update(
        phase="over",
        dice=None,
        result={
            "reason": event["reason"],
            "winners": event["winners"],
            "scores": event["scores"],
            "ranking": event["ranking"],
            "completed": event["completed"],
        },
    )


_EVOLVERS = {
    "game_started": _on_game_started,
    "setup_chosen": _on_setup_chosen,
    "setup_revealed": _on_setup_revealed,
    "dice_rolled": _on_dice_rolled,
    "answered": _on_answered,
    "roll_resolved": _on_roll_resolved,
    "area_completed": _on_area_completed,
    "game_ended": _on_game_ended,
}


# --------------------------------------------------------------------------- queries


def is_over(state: State) -> bool:
    return state.get("phase") == "over"


def pending(state: State) -> list[Seat]:
    if state.get("phase") not in ("setup", "answer"):
        return []
    return [
        seat
        for seat in range(state["num_players"])
        if state["active"][seat] and not state["answered"][seat]
    ]


def result(state: State) -> dict[str, Any] | None:
    return state["result"] if is_over(state) else None


def system_step(state: State, rng: Any) -> list[Event] | None:
    """Roll both dice when a roll is due; the roller moves clockwise from seat 0."""
    if state.get("phase") != "roll":
        return None
    roller = state["roll"] % state["num_players"]
    dice = [rng.randint(1, 6), rng.randint(1, 6)]
    return [{"type": "dice_rolled", "actor": roller, "dice": dice, "roll": state["roll"] + 1}]


# --------------------------------------------------------------------------- decide


def decide(state: State, seat: Seat, action: Action, rng: Any) -> list[Event]:
    if is_over(state):
        raise IllegalAction("game_finished", "the game is over")
    if not state or type(seat) is not int or not 0 <= seat < state["num_players"]:
        raise IllegalAction("not_your_turn", f"seat {seat!r} is not playing")
    if state["phase"] in ("setup", "answer") and state["answered"][seat]:
        raise IllegalAction("already_answered", "you already answered; wait for the others")
    if seat not in pending(state):
        raise IllegalAction("not_your_turn", "you have nothing to answer now")
    kind = _action_type(action)
    if kind == "setup":
        return _decide_setup(state, seat, action)
    return _decide_answer(state, seat, kind, action)


_ACTION_KEYS = {
    "setup": ({"type", "cells"}, {"type", "stars"}),
    "place": ({"type", "row", "col", "value"},),
    "pass": ({"type"},),
}


def _action_type(action: Any) -> str:
    """The action's type, once its keys have the documented shape."""
    kind = action_type(action, _ACTION_KEYS, "Brilliant")
    if set(action) not in [set(keys) for keys in _ACTION_KEYS[kind]]:
        shapes = " or ".join(str(sorted(keys)) for keys in _ACTION_KEYS[kind])
        raise IllegalAction("malformed_action", f"a {kind} action has exactly the keys {shapes}")
    return kind


def _is_int(value: Any) -> bool:
    return type(value) is int


def _decide_setup(state: State, seat: Seat, action: Action) -> list[Event]:
    if state["phase"] != "setup":
        raise IllegalAction("wrong_phase", "the starting numbers are already written")
    sheet_ = sheet_of(state)
    if "stars" in action:
        if action["stars"] is not True:
            raise IllegalAction("malformed_action", "'stars' must be true")
        cells = star_cells(sheet_)
        stars = True
    else:
        cells = _parse_cells(action["cells"])
        _check_setup_cells(sheet_, cells)
        stars = False
    events: list[Event] = [{"type": "setup_chosen", "actor": seat, "cells": cells, "stars": stars}]
    after = evolve(state, events[0])
    if not pending(after):
        cells_by_seat = [[list(cell) for cell in cells] for cells in after["answers"]]
        reveal = {"type": "setup_revealed", "actor": None, "cells": cells_by_seat}
        events.append(reveal)
        events.extend(_end_if_nobody_can_write(evolve(after, reveal)))
    return events


def star_cells(sheet_: Sheet) -> list[list[int]]:
    """The star fields with 1..6 in the order the sheet lists them."""
    return [[row, col, value] for value, (row, col) in enumerate(sheet_.stars, start=1)]


def _parse_cells(cells: Any) -> list[list[int]]:
    if not isinstance(cells, list) or not all(
        isinstance(cell, list) and len(cell) == 3 and all(_is_int(part) for part in cell)
        for cell in cells
    ):
        raise IllegalAction("malformed_action", "'cells' is a list of [row, col, value] integers")
    return [list(cell) for cell in cells]


def _check_setup_cells(sheet_: Sheet, cells: list[list[int]]) -> None:
    if len(cells) != SETUP_SIZE:
        raise IllegalAction("setup_invalid", f"write exactly {SETUP_SIZE} starting numbers")
    for row, col, _ in cells:
        if not sheet_.is_field(row, col):
            raise IllegalAction("setup_invalid", f"({row}, {col}) is not a field of the sheet")
    if sorted(value for _, _, value in cells) != list(DIE_FACES):
        raise IllegalAction("setup_invalid", "the starting numbers are 1 to 6, each once")
    if len({sheet_.area_of[(row, col)] for row, col, _ in cells}) != SETUP_SIZE:
        raise IllegalAction("setup_invalid", "each starting number goes into a different area")


def _decide_answer(state: State, seat: Seat, kind: str, action: Action) -> list[Event]:
    if state["phase"] != "answer":
        raise IllegalAction("wrong_phase", "write your starting numbers first")
    if kind == "place":
        row, col, value = action["row"], action["col"], action["value"]
        if not (_is_int(row) and _is_int(col) and _is_int(value)):
            raise IllegalAction("malformed_action", "row, col and value are integers")
        problem = placement_problem(
            state["grids"][seat], sheet_of(state), state["dice"], row, col, value
        )
        if problem is not None:
            raise IllegalAction(*problem)
        answer: dict[str, Any] = {"type": "place", "row": row, "col": col, "value": value}
    else:
        answer = {"type": "pass"}
    events: list[Event] = [
        {"type": "answered", "actor": seat, "roll": state["roll"], "answer": answer}
    ]
    after = evolve(state, events[0])
    if not pending(after):
        events.extend(_resolve_roll(after))
    return events


def _resolve_roll(state: State) -> list[Event]:
    """Reveal every answer, score the areas completed on this roll, maybe end the game."""
    placements, passed = [], []
    for seat, answer in enumerate(state["answers"]):
        if answer is None:
            continue  # a seat that can never write again was not asked
        if answer["type"] == "place":
            placements.append([seat, answer["row"], answer["col"], answer["value"]])
        else:
            passed.append(seat)
    reveal = {
        "type": "roll_resolved",
        "actor": None,
        "roll": state["roll"],
        "placements": placements,
        "passed": passed,
    }
    events: list[Event] = [reveal]
    state = evolve(state, reveal)
    for event in _completions(state, placements):
        events.append(event)
        state = evolve(state, event)
    if max(state["scores"]) >= state["threshold"]:
        events.append(_game_ended(state, "threshold"))
    else:
        events.extend(_end_if_nobody_can_write(state))
    return events


def _completions(state: State, placements: list[list[int]]) -> list[Event]:
    """One ``area_completed`` event per area completed on this roll, completers sharing it."""
    sheet_ = sheet_of(state)
    completers: dict[int, list[int]] = {}
    for seat, row, col, _ in placements:
        area_id = sheet_.area_of[(row, col)]
        if area_complete(state["grids"][seat], sheet_, area_id):
            completers.setdefault(area_id, []).append(seat)
    events = []
    for area_id, seats in sorted(completers.items()):
        tier = state["tiers"][area_id]
        events.append(
            {
                "type": "area_completed",
                "actor": None,
                "roll": state["roll"],
                "area": area_id,
                "seats": seats,
                "tier": tier,
                "tier_name": TIER_NAMES[tier],
                "points": sheet_.areas[area_id].points[tier],
            }
        )
    return events


def _end_if_nobody_can_write(state: State) -> list[Event]:
    return [] if any(state["active"]) else [_game_ended(state, "no_moves")]


def _game_ended(state: State, reason: str) -> Event:
    scores = list(state["scores"])
    best = max(scores)
    return {
        "type": "game_ended",
        "actor": None,
        "reason": reason,
        "winners": [seat for seat, score in enumerate(scores) if score == best],
        "scores": scores,
        "ranking": sorted(range(len(scores)), key=lambda seat: (-scores[seat], seat)),
        "completed": [list(areas) for areas in state["completed"]],
    }


# --------------------------------------------------------------------------- legal / view


def legal_actions(state: State, seat: Seat) -> list[Action]:
    if seat not in pending(state):
        return []
    sheet_ = sheet_of(state)
    if state["phase"] == "setup":
        return [{"type": "setup", "stars": True}] + [
            {"type": "setup", "cells": cells} for cells in sample_setups(sheet_)
        ]
    return [
        {"type": "place", "row": row, "col": col, "value": value}
        for row, col, value in legal_placements(state["grids"][seat], sheet_, state["dice"])
    ] + [{"type": "pass"}]


def sample_setups(sheet_: Sheet) -> list[list[list[int]]]:
    """A few free setups to offer besides the stars: the star fields with the
    values reversed, and the first field of six evenly spread areas."""
    stars = star_cells(sheet_)
    reversed_stars = [[row, col, 7 - value] for row, col, value in stars]
    step = len(sheet_.areas) // SETUP_SIZE
    spread = [
        [*sheet_.areas[index * step].fields[0], value]
        for value, index in enumerate(range(SETUP_SIZE), start=1)
    ]
    return [reversed_stars, spread]


def view(state: State, seat: Seat | None) -> dict[str, Any]:
    """Everything but the other seats' answers to the open setup or roll."""
    visible = dict(state)
    if "answers" in state:
        visible["answers"] = [
            answer if viewer == seat else None for viewer, answer in enumerate(state["answers"])
        ]
    visible["pending"] = pending(state) if state else []
    return visible


def redact_event(event: Event, seat: Seat | None) -> Event:
    """Another seat's answer is hidden; the reveal event that follows shows it to all."""
    if event["type"] in HIDDEN_ANSWER_EVENTS and event["actor"] != seat:
        return {key: value for key, value in event.items() if key in ("type", "actor", "roll")}
    return event
