"""Brilliant rules: one test (or parametrized case) per rule, plus the contract checks."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import brilliant
from games.rules.base import IllegalAction, InvalidOptions, fold, play_bot_game
from games.rules.brilliant.engine import can_ever_write
from games.rules.brilliant.sheets import Area, sheet

LEVEL_1 = sheet(1)


# --------------------------------------------------------------------------- helpers


def area(colour: str, level: int = 1, min_size: int = 2) -> Area:
    """The first area of that colour on a sheet with at least ``min_size`` fields."""
    return next(a for a in sheet(level).areas if a.colour == colour and len(a.fields) >= min_size)


def area_by_letter(letter: str, level: int = 1) -> Area:
    return next(a for a in sheet(level).areas if a.letter == letter)


def position(
    cells: list[list[list[int]]],
    dice: list[int] | None = (2, 5),  # type: ignore[assignment]
    level: int = 1,
    roll: int = 1,
) -> dict[str, Any]:
    """A state built from events: one grid per seat (``cells``), then a roll of ``dice``."""
    players = len(cells)
    events = brilliant.setup(players, {"level": level}, random.Random(0))
    events.append({"type": "setup_revealed", "actor": None, "cells": cells})
    if dice is not None:
        events.append(
            {"type": "dice_rolled", "actor": (roll - 1) % players, "dice": list(dice), "roll": roll}
        )
    return fold(brilliant, events)


def play(state: dict[str, Any], seat: int, action: dict[str, Any]) -> tuple[dict, list]:
    events = brilliant.decide(state, seat, action, random.Random(0))
    return fold(brilliant, events, state), events


def place(row: int, col: int, value: int) -> dict[str, Any]:
    return {"type": "place", "row": row, "col": col, "value": value}


PASS = {"type": "pass"}


def bfs_order(target_area: Area) -> list[tuple[int, int]]:
    """The area's fields in breadth-first order: each one touches an earlier one."""
    fields = set(target_area.fields)
    order = [target_area.fields[0]]
    for current in order:
        for other in LEVEL_1.neighbours[current]:
            if other in fields and other not in order:
                order.append(other)
    return order


def reason(state: dict[str, Any], seat: int, action: Any) -> str:
    with pytest.raises(IllegalAction) as caught:
        brilliant.decide(state, seat, action, random.Random(0))
    return caught.value.reason


def started_game(players: int = 2, level: int = 1) -> dict[str, Any]:
    return fold(brilliant, brilliant.setup(players, {"level": level}, random.Random(0)))


def all_stars(players: int = 2, level: int = 1, seed: int = 0) -> dict[str, Any]:
    """Everyone took the stars and the first roll is made."""
    state = started_game(players, level)
    for seat in range(players):
        state, _ = play(state, seat, {"type": "setup", "stars": True})
    events = brilliant.system_step(state, random.Random(seed))
    assert events is not None
    return fold(brilliant, events, state)


# --------------------------------------------------------------------------- options


def test_options_default_to_level_1() -> None:
    assert brilliant.normalize_options({}, 2) == {"level": 1}


@pytest.mark.parametrize("options", [{"level": 0}, {"level": 5}, {"level": "2"}, {"colour": 1}])
def test_options_reject_unknown_levels_and_keys(options: dict[str, Any]) -> None:
    with pytest.raises(InvalidOptions):
        brilliant.normalize_options(options, 2)


@pytest.mark.parametrize("players", [1, 7])
def test_two_to_six_players(players: int) -> None:
    with pytest.raises(InvalidOptions):
        brilliant.normalize_options({}, players)


# --------------------------------------------------------------------------- setup


def test_setup_all_seats_choose_at_once() -> None:
    state = started_game(3)
    assert brilliant.pending(state) == [0, 1, 2]
    assert brilliant.system_step(state, random.Random(0)) is None


def test_setup_stars_write_one_to_six_on_the_star_fields() -> None:
    state = started_game(2)
    state, _ = play(state, 0, {"type": "setup", "stars": True})
    state, events = play(state, 1, {"type": "setup", "stars": True})
    assert events[-1]["type"] == "setup_revealed"
    for value, (row, col) in enumerate(LEVEL_1.stars, start=1):
        assert state["grids"][0][row][col] == value
    assert state["phase"] == "roll"


def test_setup_free_cells_in_six_different_areas() -> None:
    cells = [[*area.fields[0], value] for value, area in enumerate(LEVEL_1.areas[:6], start=1)]
    state = started_game(2)
    state, _ = play(state, 0, {"type": "setup", "cells": cells})
    state, _ = play(state, 1, {"type": "setup", "stars": True})
    for row, col, value in cells:
        assert state["grids"][0][row][col] == value


def _free_setup(**change: Any) -> list[list[int]]:
    cells = [[*area.fields[0], value] for value, area in enumerate(LEVEL_1.areas[:6], start=1)]
    if "same_area" in change:
        cells[1] = [*LEVEL_1.areas[0].fields[1], 2]
    if "repeated_value" in change:
        cells[1][2] = 1
    if "hole" in change:
        cells[1] = [0, 8, 2]  # (0, 8) is a hole on level 1
    if "off_sheet" in change:
        cells[1] = [9, 0, 2]
    if "five" in change:
        cells = cells[:5]
    return cells


@pytest.mark.parametrize("change", ["same_area", "repeated_value", "hole", "off_sheet", "five"])
def test_setup_must_be_one_to_six_in_six_different_areas(change: str) -> None:
    state = started_game(2)
    assert reason(state, 0, {"type": "setup", "cells": _free_setup(**{change: True})}) == (
        "setup_invalid"
    )


def test_setup_only_once_per_seat() -> None:
    state, _ = play(started_game(2), 0, {"type": "setup", "stars": True})
    assert reason(state, 0, {"type": "setup", "stars": True}) == "already_answered"
    assert brilliant.pending(state) == [1]


def test_setup_is_hidden_until_everyone_has_chosen() -> None:
    state, events = play(started_game(2), 0, {"type": "setup", "stars": True})
    assert "cells" not in brilliant.redact_event(events[0], 1)
    assert "cells" not in brilliant.redact_event(events[0], None)
    assert brilliant.redact_event(events[0], 0) == events[0]
    assert brilliant.view(state, 1)["answers"][0] is None
    assert brilliant.view(state, 0)["answers"][0] is not None
    assert brilliant.view(state, None)["answers"] == [None, None]


# --------------------------------------------------------------------------- rolls


def test_dice_roll_is_a_system_step_with_the_roller_moving_clockwise() -> None:
    state = started_game(3)
    for seat in range(3):
        state, _ = play(state, seat, {"type": "setup", "stars": True})
    rollers = []
    for _ in range(4):
        events = brilliant.system_step(state, random.Random(len(rollers)))
        assert events is not None and events[0]["type"] == "dice_rolled"
        assert all(1 <= die <= 6 for die in events[0]["dice"])
        rollers.append(events[0]["actor"])
        state = fold(brilliant, events, state)
        assert brilliant.system_step(state, random.Random(0)) is None
        for seat in brilliant.pending(state):
            state, _ = play(state, seat, PASS)
    assert rollers == [0, 1, 2, 0]


def test_everyone_answers_the_same_roll() -> None:
    state = all_stars(3)
    assert brilliant.pending(state) == [0, 1, 2]


# The rule text's example: "if you roll a 2 and a 5, you can write a 2 next to an
# already entered 5, or a 5 next to an already entered 2".
GREEN_B = area_by_letter("B")  # (0,7) (1,7) (1,8) (2,8)


@pytest.mark.parametrize(
    ("written", "action", "expected"),
    [
        pytest.param([[0, 7, 5]], place(1, 7, 2), None, id="example_2_next_to_5"),
        pytest.param([[0, 7, 2]], place(1, 7, 5), None, id="example_5_next_to_2"),
        pytest.param([[0, 7, 5]], place(1, 7, 5), "not_adjacent", id="5_next_to_5_needs_a_2"),
        pytest.param([[0, 7, 2]], place(1, 7, 2), "not_adjacent", id="2_next_to_2_needs_a_5"),
        pytest.param([[1, 7, 5]], place(2, 8, 2), "not_adjacent", id="diagonal_does_not_count"),
        pytest.param([[0, 7, 5]], place(2, 8, 2), "not_adjacent", id="far_away"),
        pytest.param([[0, 7, 5]], place(1, 7, 3), "value_not_rolled", id="value_not_rolled"),
    ],
)
def test_write_a_rolled_number_next_to_the_other_die(
    written: list[list[int]], action: dict[str, Any], expected: str | None
) -> None:
    state = position([written, written], dice=[2, 5])
    if expected is None:
        after, _ = play(state, 0, action)
        assert after["answered"][0]
    else:
        assert reason(state, 0, action) == expected


@pytest.mark.parametrize(
    ("neighbour", "expected"), [(3, None), (1, "not_adjacent")], ids=["3_next_to_3", "3_next_to_1"]
)
def test_doubles_write_the_number_next_to_the_same_number(
    neighbour: int, expected: str | None
) -> None:
    state = position([[[0, 7, neighbour]], [[0, 7, neighbour]]], dice=[3, 3])
    if expected is None:
        play(state, 0, place(1, 7, 3))
    else:
        assert reason(state, 0, place(1, 7, 3)) == expected


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        (place(0, 7, 2), "field_taken"),
        (place(8, 0, 2), "off_sheet"),
        (place(-1, 0, 2), "off_sheet"),
        (place(0, 9, 2), "off_sheet"),
        (place(0, 8, 2), "no_such_field"),
    ],
)
def test_write_only_into_an_empty_field_of_the_sheet(action: dict[str, Any], expected: str) -> None:
    state = position([[[0, 7, 5], [1, 8, 5]], [[0, 7, 5]]], dice=[2, 5])
    assert reason(state, 0, action) == expected


# Area rules: existing numbers in the area, the new number, allowed or not.
AREA_CASES = [
    ("green", [1, 2, 3], 3, True),
    ("green", [6, 6], 1, True),
    ("blue", [4], 4, True),
    ("blue", [4], 5, False),
    ("gray", [2, 2], 2, True),
    ("gray", [2, 2], 3, False),
    ("red", [1, 2], 3, True),
    ("red", [1, 2], 2, False),
    ("yellow", [5, 6], 1, True),
    ("yellow", [5], 5, False),
    ("purple", [1, 1, 2], 2, True),
    ("purple", [1, 2], 1, True),
    ("purple", [1, 2], 3, False),
    ("orange", [1, 3], 2, True),
    ("orange", [1, 3], 4, False),
    ("orange", [5], 6, True),
    ("orange", [5], 3, False),
]


@pytest.mark.parametrize(
    ("colour", "existing", "value", "allowed"),
    AREA_CASES,
    ids=[f"{c}_{''.join(map(str, e))}_plus_{v}" for c, e, v, _ in AREA_CASES],
)
def test_area_rule(colour: str, existing: list[int], value: int, allowed: bool) -> None:
    target_area = area(colour, min_size=len(existing) + 1)
    order = bfs_order(target_area)
    cells = [[*field, number] for field, number in zip(order, existing, strict=False)]
    target = order[len(existing)]
    # The target touches an earlier field (breadth-first order); roll its number.
    neighbour_value = next(
        number for *field, number in cells if tuple(field) in LEVEL_1.neighbours[target]
    )
    state = position([cells, cells], dice=[value, neighbour_value])
    if allowed:
        after, _ = play(state, 0, place(*target, value))
        assert after["answers"][0]["value"] == value
    else:
        with pytest.raises(IllegalAction) as caught:
            brilliant.decide(state, 0, place(*target, value), random.Random(0))
        assert caught.value.reason == "area_rule"
        assert colour in caught.value.detail


def test_a_player_may_always_pass() -> None:
    state = position([[[0, 7, 5]], [[0, 7, 5]]], dice=[2, 5])
    after, events = play(state, 0, PASS)
    assert events == [{"type": "answered", "actor": 0, "roll": 1, "answer": PASS}]
    assert brilliant.pending(after) == [1]


def test_one_answer_per_roll() -> None:
    state, _ = play(position([[[0, 7, 5]], [[0, 7, 5]]], dice=[2, 5]), 0, PASS)
    assert reason(state, 0, place(1, 7, 2)) == "already_answered"


def test_next_roll_comes_when_every_player_has_answered() -> None:
    state = position([[[0, 7, 5]], [[0, 7, 5]]], dice=[2, 5])
    state, _ = play(state, 0, place(1, 7, 2))
    assert brilliant.system_step(state, random.Random(0)) is None
    state, events = play(state, 1, PASS)
    assert [e["type"] for e in events] == ["answered", "roll_resolved"]
    assert events[1]["placements"] == [[0, 1, 7, 2]] and events[1]["passed"] == [1]
    assert state["grids"][0][1][7] == 2 and state["grids"][1][1][7] == 0
    assert brilliant.system_step(state, random.Random(0))[0]["actor"] == 1


def test_answers_are_hidden_until_the_roll_resolves() -> None:
    state = position([[[0, 7, 5]], [[0, 7, 5]]], dice=[2, 5])
    state, events = play(state, 0, place(1, 7, 2))
    assert "answer" not in brilliant.redact_event(events[0], 1)
    assert "answer" not in brilliant.redact_event(events[0], None)
    assert brilliant.redact_event(events[0], 0)["answer"] == place(1, 7, 2)
    assert brilliant.view(state, 1)["answers"] == [None, None]
    assert brilliant.view(state, 1)["answered"] == [True, False]
    assert "2" not in json.dumps(brilliant.view(state, 1)["grids"][0][1])
    state, events = play(state, 1, PASS)
    assert brilliant.redact_event(events[1], 1)["placements"] == [[0, 1, 7, 2]]


# --------------------------------------------------------------------------- completing areas

GRAY_Q = area_by_letter("Q")  # (7,6) (7,7), points 4 / 3 / 1


def test_completion_race_first_share_high_later_middle_then_low() -> None:
    start = [[7, 6, 3]]
    state = position([start] * 4, dice=[3, 3])
    high, middle, low = GRAY_Q.points
    # Roll 1: seats 0 and 1 complete the area on the same roll and share the high value.
    state, _ = play(state, 0, place(7, 7, 3))
    state, _ = play(state, 1, place(7, 7, 3))
    state, _ = play(state, 2, PASS)
    state, events = play(state, 3, PASS)
    completed = [e for e in events if e["type"] == "area_completed"]
    assert completed == [
        {
            "type": "area_completed",
            "actor": None,
            "roll": 1,
            "area": GRAY_Q.id,
            "seats": [0, 1],
            "tier": 0,
            "tier_name": "high",
            "points": high,
        }
    ]
    assert state["scores"] == [high, high, 0, 0]
    # Roll 2: seat 2 completes later and gets the middle value.
    state = fold(brilliant, [{"type": "dice_rolled", "actor": 1, "dice": [3, 3], "roll": 2}], state)
    state, _ = play(state, 0, PASS)
    state, _ = play(state, 1, PASS)
    state, _ = play(state, 2, place(7, 7, 3))
    state, events = play(state, 3, PASS)
    assert [(e["seats"], e["points"]) for e in events if e["type"] == "area_completed"] == [
        ([2], middle)
    ]
    # Roll 3: the low value is always available.
    state = fold(brilliant, [{"type": "dice_rolled", "actor": 2, "dice": [3, 3], "roll": 3}], state)
    for seat in range(3):
        state, _ = play(state, seat, PASS)
    state, events = play(state, 3, place(7, 7, 3))
    assert [(e["seats"], e["points"]) for e in events if e["type"] == "area_completed"] == [
        ([3], low)
    ]
    assert state["scores"] == [high, high, middle, low]
    assert state["completed"] == [[GRAY_Q.id]] * 4
    assert [claim["tier"] for claim in state["claims"][GRAY_Q.id]] == [0, 1, 2]


def test_later_completers_on_the_same_roll_share_the_middle_value() -> None:
    state = position([[[7, 6, 3]]] * 3, dice=[3, 3])
    state, _ = play(state, 0, place(7, 7, 3))
    state, _ = play(state, 1, PASS)
    state, _ = play(state, 2, PASS)
    state = fold(brilliant, [{"type": "dice_rolled", "actor": 1, "dice": [3, 3], "roll": 2}], state)
    state, _ = play(state, 0, PASS)
    state, _ = play(state, 1, place(7, 7, 3))
    state, events = play(state, 2, place(7, 7, 3))
    assert [(e["seats"], e["tier_name"]) for e in events if e["type"] == "area_completed"] == [
        ([1, 2], "middle")
    ]
    assert state["scores"] == [GRAY_Q.points[0], GRAY_Q.points[1], GRAY_Q.points[1]]


# --------------------------------------------------------------------------- end of game


@pytest.mark.parametrize(("players", "threshold"), [(2, 26), (3, 24), (4, 22), (5, 20), (6, 20)])
def test_threshold_depends_on_player_count(players: int, threshold: int) -> None:
    assert started_game(players)["threshold"] == threshold


def _with_scores(state: dict[str, Any], scores: list[int]) -> dict[str, Any]:
    """Give seats points through area_completed events for an area nobody plays here."""
    far = area_by_letter("A")
    events = [
        {
            "type": "area_completed",
            "actor": None,
            "roll": 0,
            "area": far.id,
            "seats": [seat],
            "tier": 2,
            "tier_name": "low",
            "points": points,
        }
        for seat, points in enumerate(scores)
        if points
    ]
    return fold(brilliant, events, state)


@pytest.mark.parametrize(
    ("players", "short_by", "ends"),
    [(2, 0, True), (2, 1, False), (3, 0, True), (3, 1, False), (5, 0, True), (5, 1, False)],
    ids=[
        "2p_reaches_26",
        "2p_stays_25",
        "3p_reaches_24",
        "3p_stays_23",
        "5p_reaches_20",
        "5p_stays_19",
    ],
)
def test_game_ends_after_a_roll_when_a_player_reaches_the_threshold(
    players: int, short_by: int, ends: bool
) -> None:
    # Seat 0 completes the gray Q area first (its high value) and lands on the
    # threshold exactly, or one point short of it.
    start = position([[[7, 6, 3]]] * players, dice=[3, 3])
    before = start["threshold"] - GRAY_Q.points[0] - short_by
    state = _with_scores(start, [before] + [0] * (players - 1))
    state, _ = play(state, 0, place(7, 7, 3))
    for seat in range(1, players):
        state, events = play(state, seat, PASS)
    assert brilliant.is_over(state) is ends
    assert (events[-1]["type"] == "game_ended") is ends
    if ends:
        assert brilliant.result(state)["reason"] == "threshold"
        assert brilliant.result(state)["winners"] == [0]
        assert brilliant.pending(state) == []
        assert brilliant.system_step(state, random.Random(0)) is None
        assert reason(state, 1, PASS) == "game_finished"


def test_highest_score_wins_when_several_reach_the_threshold() -> None:
    state = _with_scores(position([[[7, 6, 3]]] * 3, dice=[3, 3]), [22, 25, 10])
    for seat in range(3):
        state, _ = play(state, seat, place(7, 7, 3))
    outcome = brilliant.result(state)
    assert outcome["scores"] == [26, 29, 14]
    assert outcome["winners"] == [1]
    assert outcome["ranking"] == [1, 0, 2]


def test_a_tie_at_the_top_shares_the_win() -> None:
    state = _with_scores(position([[[7, 6, 3]]] * 3, dice=[3, 3]), [23, 23, 0])
    for seat in range(3):
        state, _ = play(state, seat, place(7, 7, 3))
    outcome = brilliant.result(state)
    assert outcome["winners"] == [0, 1]
    assert outcome["completed"] == [[LEVEL_1.areas[0].id, GRAY_Q.id]] * 2 + [[GRAY_Q.id]]


def _full_sheet_but(empty: tuple[int, int]) -> list[list[int]]:
    """Every field written except ``empty``, each area with one number (rules hold)."""
    return [
        [row, col, 1 + LEVEL_1.area_of[(row, col)] % 6]
        for row, col in sorted(LEVEL_1.area_of)
        if (row, col) != empty
    ]


def test_a_player_who_can_never_write_again_is_not_asked() -> None:
    # Seat 0 has only the green field (1,7) left: once written, the sheet is full.
    nearly_full = _full_sheet_but((1, 7))
    value_above = 1 + LEVEL_1.area_of[(0, 7)] % 6
    state = position([nearly_full, [[0, 7, 5]]], dice=[4, value_above])
    state, _ = play(state, 0, place(1, 7, 4))
    state, _ = play(state, 1, PASS)
    assert state["active"] == [False, True]
    state = fold(brilliant, brilliant.system_step(state, random.Random(0)), state)
    assert brilliant.pending(state) == [1]
    assert brilliant.legal_actions(state, 0) == []
    assert reason(state, 0, PASS) == "not_your_turn"


def test_game_ends_when_no_player_can_ever_write_again() -> None:
    nearly_full = _full_sheet_but((1, 7))
    value_above = 1 + LEVEL_1.area_of[(0, 7)] % 6
    state = position([nearly_full, nearly_full], dice=[4, value_above])
    state, _ = play(state, 0, place(1, 7, 4))
    state, events = play(state, 1, place(1, 7, 4))
    assert events[-1]["type"] == "game_ended"
    assert brilliant.result(state)["reason"] == "no_moves"
    # Both completed green B on the same roll and share its high value.
    assert brilliant.result(state)["winners"] == [0, 1]


def test_can_ever_write_needs_an_empty_field_next_to_a_number() -> None:
    grid = [[0] * LEVEL_1.cols for _ in range(LEVEL_1.rows)]
    assert not can_ever_write(grid, LEVEL_1)
    grid[0][7] = 5
    assert can_ever_write(grid, LEVEL_1)


# --------------------------------------------------------------------------- malformed input


GARBAGE = [
    None,
    [],
    "place",
    42,
    {},
    {"type": None},
    {"type": 3},
    {"type": "jump"},
    {"type": "PLACE", "row": 1, "col": 7, "value": 2},
    {"type": "place"},
    {"type": "place", "row": "1", "col": 7, "value": 2},
    {"type": "place", "row": 1.0, "col": 7, "value": 2},
    {"type": "place", "row": True, "col": 7, "value": 2},
    {"type": "place", "row": 1, "col": 7, "value": None},
    {"type": "place", "row": 1, "col": 7, "value": 2, "extra": 1},
    {"type": "place", "row": 10**30, "col": 7, "value": 2},
    {"type": "place", "row": 1, "col": 7, "value": -2},
    {"type": "pass", "now": True},
    {"type": "setup", "stars": True},
    {"type": "setup", "stars": False},
    {"type": "setup", "cells": "all"},
    {"type": "setup", "cells": [[1, 2]]},
    {"type": "setup", "cells": [[1, 2, 3]] * 6},
    {"type": "setup", "cells": [], "stars": True},
    {"type": "setup"},
    {1: 2},
]


@pytest.mark.parametrize("action", GARBAGE, ids=[repr(a)[:40] for a in GARBAGE])
@pytest.mark.parametrize("phase", ["setup", "answer"])
def test_garbage_actions_are_refused_with_illegal_action(action: Any, phase: str) -> None:
    state = started_game(2) if phase == "setup" else position([[[0, 7, 5]], [[0, 7, 5]]])
    if phase == "setup" and action == {"type": "setup", "stars": True}:
        return  # the one legal action in the list
    with pytest.raises(IllegalAction) as caught:
        brilliant.decide(state, 0, action, random.Random(0))
    assert caught.value.reason.isidentifier() and caught.value.reason.islower()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
action_like = st.fixed_dictionaries(
    {"type": st.sampled_from(["setup", "place", "pass", "roll", ""]) | json_values},
    optional={
        "row": json_values | st.integers(-2, 9),
        "col": json_values | st.integers(-2, 9),
        "value": json_values | st.integers(0, 7),
        "cells": json_values
        | st.lists(st.lists(st.integers(-1, 9), min_size=3, max_size=3), max_size=7),
        "stars": json_values,
    },
)


@settings(max_examples=300, deadline=None)
@given(action=action_like | json_values, seat=st.integers(-1, 3) | json_values)
def test_decide_raises_only_illegal_action_for_any_input(action: Any, seat: Any) -> None:
    for state in (_SETUP_STATE, _ANSWER_STATE):
        try:
            events = brilliant.decide(state, seat, action, random.Random(0))
        except IllegalAction:
            continue
        assert json.loads(json.dumps(events)) == events


_SETUP_STATE = started_game(2)
_ANSWER_STATE = position([[[0, 7, 5], [4, 1, 2]], [[0, 7, 5]]], dice=[2, 5])


def test_not_your_turn_while_waiting_for_the_dice() -> None:
    state = position([[[0, 7, 5]], [[0, 7, 5]]], dice=None)
    assert brilliant.pending(state) == []
    assert brilliant.legal_actions(state, 0) == []
    assert reason(state, 0, PASS) == "not_your_turn"
    assert reason(state, 5, PASS) == "not_your_turn"


def test_place_during_setup_is_the_wrong_phase() -> None:
    assert reason(started_game(2), 0, place(1, 7, 2)) == "wrong_phase"
    state = position([[[0, 7, 5]], [[0, 7, 5]]])
    assert reason(state, 0, {"type": "setup", "stars": True}) == "wrong_phase"


# --------------------------------------------------------------------------- whole games


CASES = [(level, players) for level in (1, 2, 3, 4) for players in (2, 3, 4, 5, 6)]


@pytest.mark.parametrize(("level", "players"), CASES)
def test_full_bot_game_ends_and_replays(level: int, players: int) -> None:
    state, events = play_bot_game(
        brilliant, players, {"level": level}, random.Random(level * 10 + players)
    )
    assert brilliant.is_over(state)
    outcome = brilliant.result(state)
    assert outcome["reason"] == "threshold"
    assert max(outcome["scores"]) >= state["threshold"]
    assert outcome["winners"] == [
        s for s in range(players) if outcome["scores"][s] == max(outcome["scores"])
    ]
    assert sorted(outcome["ranking"]) == list(range(players))
    assert fold(brilliant, events) == state
    assert json.loads(json.dumps(events)) == events
    assert all("." not in e["type"] and "actor" in e for e in events)


def _walk(level: int, players: int, seed: int):
    """Every intermediate state of a bot game with the events that lead from it."""
    rng = random.Random(seed)
    events = brilliant.setup(players, {"level": level}, rng)
    state = fold(brilliant, events)
    while not brilliant.is_over(state):
        new = brilliant.system_step(state, rng)
        if not new:
            seat = brilliant.pending(state)[0]
            new = brilliant.decide(state, seat, brilliant.auto_action(state, seat, rng), rng)
        yield state, new
        state = fold(brilliant, new, state)
    yield state, []


@pytest.mark.parametrize(("level", "players"), [(1, 2), (3, 4), (4, 6)])
def test_states_are_json_and_evolve_does_not_mutate(level: int, players: int) -> None:
    for state, events in _walk(level, players, seed=7):
        assert json.loads(json.dumps(state)) == state
        before = copy.deepcopy(state)
        for event in events:
            brilliant.evolve(state, event)
        assert state == before


@pytest.mark.parametrize(("level", "players"), [(1, 3), (2, 2), (4, 5)])
def test_legal_actions_are_accepted_and_auto_action_is_legal(level: int, players: int) -> None:
    rng = random.Random(3)
    for state, _ in _walk(level, players, seed=11):
        waiting = brilliant.pending(state)
        for seat in range(players):
            actions = brilliant.legal_actions(state, seat)
            if seat not in waiting:
                assert actions == []
                continue
            assert actions and len({json.dumps(a, sort_keys=True) for a in actions}) == len(actions)
            for action in actions:
                brilliant.decide(state, seat, action, rng)  # must not raise
            assert brilliant.auto_action(state, seat, rng) in actions


@pytest.mark.parametrize("players", [2, 4])
def test_views_never_show_another_seats_open_answer(players: int) -> None:
    for state, events in _walk(2, players, seed=5):
        for viewer in [None, *range(players)]:
            shown = brilliant.view(state, viewer)
            assert json.loads(json.dumps(shown)) == shown
            for seat, answer in enumerate(shown.get("answers", [])):
                assert answer is None or seat == viewer
            for event in events:
                redacted = brilliant.redact_event(event, viewer)
                if event["type"] in ("answered", "setup_chosen") and event["actor"] != viewer:
                    assert set(redacted) <= {"type", "actor", "roll"}
                else:
                    assert redacted == event


def test_ruleset_constants() -> None:
    assert (brilliant.SLUG, brilliant.NAME, brilliant.VERSION) == ("brilliant", "Brilliant", 1)
    assert (brilliant.MIN_PLAYERS, brilliant.MAX_PLAYERS) == (2, 6)
    assert brilliant.OPTIONS["level"]["default"] == 1


def test_package_imports_neither_django_nor_random() -> None:
    package = Path(brilliant.__file__).parent
    for source in package.glob("*.py"):
        imports = [
            line.strip()
            for line in source.read_text().splitlines()
            if line.strip().startswith(("import ", "from "))
        ]
        for line in imports:
            module = line.split()[1]
            assert module.split(".")[0] not in ("random", "django", "time", "datetime", "os"), (
                f"{source.name}: {line}"
            )
    code = "import sys, games.rules.brilliant; assert 'django' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(package.parents[2]))


def test_evolve_copies_only_what_changes() -> None:
    state = position([[[0, 7, 5]], [[1, 8, 5]]], dice=[2, 5])
    after = brilliant.evolve(state, {"type": "answered", "actor": 0, "roll": 1, "answer": PASS})
    assert after["grids"] is state["grids"]  # an answer writes nothing yet
    resolved = brilliant.evolve(
        after,
        {
            "type": "roll_resolved",
            "actor": None,
            "roll": 1,
            "placements": [[0, 1, 7, 2]],
            "passed": [1],
        },
    )
    assert resolved["grids"][1] is state["grids"][1]  # the seat that passed keeps its grid
    assert resolved["grids"][0][0] is state["grids"][0][0]  # untouched rows are shared
    assert resolved["grids"][0][1] is not state["grids"][0][1]
