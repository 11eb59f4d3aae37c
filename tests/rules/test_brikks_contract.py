"""Brikks against the engine contract of ``games/rules/base.py``: whole bot
games, JSON round-trips, folding, purity of ``evolve``, legal actions that
``decide`` accepts, garbage actions, views."""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.rules import brikks
from games.rules.base import IllegalAction, fold, play_bot_game

GAMES = [
    pytest.param(1, {}, id="solo"),
    pytest.param(1, {"level": 4}, id="solo-level-4"),
    pytest.param(2, {}, id="2p"),
    pytest.param(2, {"duel": True}, id="duel"),
    pytest.param(3, {"levels": [1, 2, 3]}, id="3p-mixed-levels"),
    pytest.param(4, {}, id="4p"),
]

REASON_CODES = {
    "not_your_turn",
    "game_finished",
    "malformed_action",
    "unknown_action",
    "wrong_phase",
    "block_taken",
    "not_reachable",
    "not_enough_energy",
    "no_bombs_left",
    "cannot_give_up",
    "mini_blocks_adjacent",
}


def test_module_exposes_the_ruleset_contract() -> None:
    assert (brikks.SLUG, brikks.NAME, brikks.VERSION) == ("brikks", "Brikks", 1)
    assert (brikks.MIN_PLAYERS, brikks.MAX_PLAYERS) == (1, 4)
    assert json.loads(json.dumps(brikks.OPTIONS)) == brikks.OPTIONS


@pytest.mark.parametrize(("num_players", "options"), GAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_bot_game_states_round_trip_json_and_fold_to_the_final_state(
    num_players: int, options: dict[str, Any], seed: int
) -> None:
    final, events = play_bot_game(brikks, num_players, options, random.Random(seed))
    assert brikks.is_over(final)
    assert fold(brikks, events) == final
    state: dict[str, Any] = {}
    for event in events:
        assert re.fullmatch(r"[a-z]+(_[a-z]+)*", event["type"]), event["type"]
        assert "actor" in event
        assert json.loads(json.dumps(event)) == event
        before = copy.deepcopy(state)
        new_state = brikks.evolve(state, event)
        assert state == before, f"evolve mutated its input on {event['type']}"
        state = new_state
        assert json.loads(json.dumps(state)) == state
    outcome = brikks.result(final)
    assert json.loads(json.dumps(outcome)) == outcome
    assert len(outcome["scores"]) == num_players
    assert sorted(outcome["ranking"]) == list(range(num_players))
    assert outcome["winners"] and outcome["ranking"][0] in outcome["winners"]
    assert all(type(score) is int for score in outcome["scores"])


def _check_every_legal_action(state: dict[str, Any], rng: random.Random) -> None:
    waiting = brikks.pending(state)
    for seat in range(state["num_players"]):
        actions = brikks.legal_actions(state, seat)
        if seat not in waiting:
            assert actions == []
            with pytest.raises(IllegalAction) as caught:
                brikks.decide(state, seat, {"type": "bomb"}, rng)
            assert caught.value.reason in {"not_your_turn", "game_finished"}
            continue
        assert actions, f"seat {seat} is pending with nothing to do"
        assert brikks.auto_action(state, seat, rng) in actions
        for action in actions:
            brikks.decide(state, seat, action, random.Random(0))  # must not raise


@pytest.mark.parametrize(("num_players", "options"), GAMES)
def test_every_listed_action_is_accepted_and_auto_action_is_always_legal(
    num_players: int, options: dict[str, Any]
) -> None:
    rng = random.Random(7)
    final, events = play_bot_game(brikks, num_players, options, rng)
    state: dict[str, Any] = {}
    for index, event in enumerate(events):
        state = brikks.evolve(state, event)
        if index % 3 == 0 or brikks.is_over(state):
            _check_every_legal_action(state, rng)


def test_a_finished_game_refuses_every_action() -> None:
    final, _ = play_bot_game(brikks, 2, {}, random.Random(3))
    for seat in (0, 1):
        assert brikks.legal_actions(final, seat) == []
        with pytest.raises(IllegalAction) as caught:
            brikks.decide(final, seat, {"type": "keep"}, random.Random(0))
        assert caught.value.reason == "game_finished"
    assert brikks.pending(final) == [] and brikks.system_step(final, random.Random(0)) is None


def _states_along_a_game() -> list[dict[str, Any]]:
    _, events = play_bot_game(brikks, 2, {"duel": True}, random.Random(11))
    states, state = [], {}
    for event in events:
        state = brikks.evolve(state, event)
        if brikks.pending(state):
            states.append(state)
    return states


STATES = _states_along_a_game()

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-20, 20) | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
known_types = st.sampled_from(
    ["keep", "reroll", "start_block", "place", "bomb", "give_up", "mini_block", "PLACE", ""]
)
garbage_actions = json_values | st.fixed_dictionaries(
    {"type": known_types},
    optional={
        "color": st.sampled_from(["red", "blue", "pink", 3, None]) | json_values,
        "column": st.integers(-2, 6) | json_values,
        "x": st.integers(-3, 12) | json_values,
        "y": st.integers(-3, 13) | json_values,
        "extra": json_values,
    },
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    state_index=st.integers(0, len(STATES) - 1),
    seat=st.integers(-1, 2) | st.none() | st.booleans() | st.text(max_size=2),
    action=garbage_actions,
)
def test_garbage_actions_only_ever_raise_illegal_action(
    state_index: int, seat: Any, action: Any
) -> None:
    state = STATES[state_index]
    before = copy.deepcopy(state)
    try:
        events = brikks.decide(state, seat, action, random.Random(0))
    except IllegalAction as refused:
        assert refused.reason in REASON_CODES
    else:
        assert isinstance(events, list) and events
        assert all(type(event["actor"]) is int or event["actor"] is None for event in events)
    assert state == before


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ("place", "malformed_action"),
        ({}, "malformed_action"),
        ({"type": 3}, "malformed_action"),
        ({"type": "rotate"}, "unknown_action"),
        ({"type": "bomb", "x": 1}, "malformed_action"),
        ({"type": "place", "color": "red", "column": 1, "x": 0}, "malformed_action"),
        ({"type": "place", "color": "pink", "column": 1, "x": 0, "y": 0}, "malformed_action"),
        ({"type": "place", "color": "red", "column": 5, "x": 0, "y": 0}, "malformed_action"),
        ({"type": "place", "color": "red", "column": 1, "x": 0.0, "y": 0}, "malformed_action"),
        ({"type": "place", "color": "red", "column": True, "x": 0, "y": 0}, "malformed_action"),
    ],
)
def test_malformed_actions_get_stable_reason_codes(action: Any, code: str) -> None:
    state = next(s for s in STATES if s["phase"] == "place")
    seat = brikks.pending(state)[0]
    with pytest.raises(IllegalAction) as caught:
        brikks.decide(state, seat, action, random.Random(0))
    assert caught.value.reason == code


def test_views_show_every_public_sheet_and_nothing_else() -> None:
    state = STATES[len(STATES) // 2]
    spectator = brikks.view(state, None)
    seat_view = brikks.view(state, 0)
    assert json.loads(json.dumps(spectator)) == spectator
    assert spectator["viewer"] is None and seat_view["viewer"] == 0
    # Brikks has no secrets: both views show both fields, and nothing that
    # could predict a future roll is stored anywhere.
    for shown in (spectator, seat_view):
        assert [p["field"] for p in shown["players"]] == [p["field"] for p in state["players"]]
    text = json.dumps(spectator).lower()
    assert "seed" not in text and "rng" not in text
    assert brikks.view(state, 1)["players"][0]["score"]["total"] >= 0
    event = {"type": "dice_rolled", "actor": 0, "round": 1, "color": "red", "number": 2}
    assert brikks.redact_event(event, None) == event


def test_package_imports_no_django_and_no_random() -> None:
    import subprocess
    import sys

    code = (
        "import sys; import games.rules.brikks; "
        "bad = [m for m in ('django', 'random') if m in sys.modules]; print(bad)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    ).stdout.strip()
    assert out == "[]"


def _naive_resting(field: list[str], squares: list[list[int]]) -> set[tuple[int, int]]:
    """An independent, slow reading of the falling rule: flood fill over
    lower-left positions from every column above the field, one square left,
    right or down at a time, never overlapping a filled square."""
    filled = {(x, y) for y, line in enumerate(field) for x, char in enumerate(line) if char != "."}

    def free(px: int, py: int) -> bool:
        cells = [(px + dx, py + dy) for dx, dy in squares]
        return all(0 <= cx < 10 and cy >= 0 and (cx, cy) not in filled for cx, cy in cells)

    todo = [(x, 11) for x in range(10) if free(x, 11)]
    seen = set(todo)
    while todo:
        x, y = todo.pop()
        for nxt in ((x - 1, y), (x + 1, y), (x, y - 1)):
            if nxt not in seen and free(*nxt):
                seen.add(nxt)
                todo.append(nxt)
    height = max(dy for _, dy in squares) + 1
    return {(x, y) for x, y in seen if not free(x, y - 1) and y + height <= 11}


def test_offered_placements_are_exactly_the_reachable_resting_positions() -> None:
    """At many points of bot games, ``legal_actions`` offers exactly the
    positions an independent flood fill finds, for every affordable block."""
    from games.rules.brikks import sheet
    from games.rules.brikks.rules import affordable_blocks

    checked = 0
    for seed in (21, 22):
        _, events = play_bot_game(brikks, 3, {}, random.Random(seed))
        state: dict[str, Any] = {}
        for event in events:
            state = brikks.evolve(state, event)
            if state["phase"] != "place":
                continue
            for seat in brikks.pending(state):
                offered = {
                    (a["color"], a["column"], a["x"], a["y"])
                    for a in brikks.legal_actions(state, seat)
                    if a["type"] == "place"
                }
                expected = {
                    (color, column, x, y)
                    for color, column, _cost in affordable_blocks(state, seat)
                    for x, y in _naive_resting(
                        state["players"][seat]["field"], sheet.SHAPES[(color, column)]
                    )
                }
                assert offered == expected
                checked += 1
    assert checked > 50
