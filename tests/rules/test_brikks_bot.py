"""The Brikks bot (``games/rules/brikks/bot.py`` and ``lookahead.py``):
its fast placement summary agrees with the rules, it is a pure function of
(state, seat, rng), it plays the obvious good moves, and it stays fast."""

from __future__ import annotations

import copy
import random
import statistics
import time
from typing import Any

from games.rules import brikks
from games.rules.base import fold, play_bot_game
from games.rules.brikks import scoring
from games.rules.brikks import sheet as m
from games.rules.brikks.field import field_rows
from games.rules.brikks.lookahead import SHAPE_BY_KEY, drop_summary
from games.rules.brikks.rules import block_summary, placement_cost


def solo_with(field_top_first: list[str], color: str, number: int, **player: Any) -> dict:
    """A solo game in the place phase with this field and these dice."""
    options = brikks.normalize_options({}, 1)
    state = fold(brikks, brikks.setup(1, options, random.Random(0)))
    lines = [line.replace(" ", "") for line in field_top_first]
    field = list(reversed([m.EMPTY * m.FIELD_WIDTH] * (m.FIELD_HEIGHT - len(lines)) + lines))
    players = [{**state["players"][0], "field": field, "start_color": "black", **player}]
    return {
        **state,
        "players": players,
        "phase": "place",
        "round": 5,
        "dice": {"color": color, "number": number},
    }


def test_fast_summary_matches_the_rules_at_every_placement_of_bot_games() -> None:
    checked = 0
    for num_players, options in ((3, {"levels": [1, 3, 4]}), (1, {"level": 2})):
        _, events = play_bot_game(brikks, num_players, options, random.Random(7))
        state: dict[str, Any] = {}
        for index, event in enumerate(events):
            state = brikks.evolve(state, event)
            if state["phase"] != "place" or index % 3:
                continue
            for seat in brikks.pending(state):
                player = state["players"][seat]
                rows = field_rows(player["field"])
                energy = scoring.energy_available(player)
                for action in brikks.legal_actions(state, seat):
                    if action["type"] != "place":
                        continue
                    key = (action["color"], action["column"])
                    cost = placement_cost(state["dice"], *key)
                    x, y = action["x"], action["y"]
                    summary = block_summary(player, rows, *key, x, y, cost)
                    _, activated, losses, crosses = drop_summary(
                        rows, SHAPE_BY_KEY[key], x, y, player["level"], player["energy_position"]
                    )
                    lost = min(losses, max(0, energy - cost))
                    assert (activated, lost, crosses) == (
                        summary["energy_activated"],
                        summary["energy_lost"],
                        summary["crosses"],
                    )
                    checked += 1
    assert checked > 1000


def test_bot_is_a_pure_function_of_state_seat_and_rng() -> None:
    _, events = play_bot_game(brikks, 2, {}, random.Random(5))
    state: dict[str, Any] = {}
    for event in events[:40]:
        state = brikks.evolve(state, event)
    for seat in brikks.pending(state):
        before = copy.deepcopy(state)
        first = brikks.auto_action(state, seat, random.Random(1))
        second = brikks.auto_action(copy.deepcopy(state), seat, random.Random(2))
        assert first == second
        assert state == before


def test_bot_fills_a_four_line_well_with_the_standing_i() -> None:
    state = solo_with([".kkkkkkkkk"] * 4, "black", 4)
    action = brikks.auto_action(state, 0, random.Random(0))
    assert action == {"type": "place", "color": "black", "column": 4, "x": 0, "y": 0}


def test_bot_rotates_a_block_with_energy_to_complete_the_bottom_line() -> None:
    # The rolled standing I (black 4) does not complete the line; one energy
    # turns it into the lying I that does. (The black circle at (0, 3) is
    # covered already: the standing I there would earn energy and a cross.)
    state = solo_with(["k........."] * 3 + ["kkkkkk...."], "black", 4)
    action = brikks.auto_action(state, 0, random.Random(0))
    assert action["type"] == "place"
    assert action["y"] == 0
    after = brikks.decide(state, 0, action, random.Random(0))
    assert after[0]["lines_completed"] == 1


def test_bot_keeps_its_bombs_when_a_block_fits_well() -> None:
    state = solo_with(["kkkkkk...."], "black", 3)
    action = brikks.auto_action(state, 0, random.Random(0))
    assert action == {"type": "place", "color": "black", "column": 3, "x": 6, "y": 0}


def test_bot_decision_is_fast_on_an_open_field_with_energy() -> None:
    # The most placements to weigh: an open field and energy for any block.
    state = solo_with(["kk........"], "red", 1, energy_activated=9, energy_position=9)
    started = time.perf_counter()
    for _ in range(5):
        brikks.auto_action(state, 0, random.Random(0))
    per_move = (time.perf_counter() - started) / 5
    assert per_move < 0.5  # about 30 ms on an idle machine; loose for CI


def test_bot_solo_level_2_scores_like_a_decent_human() -> None:
    scores = []
    for seed in range(8):
        final, _ = play_bot_game(brikks, 1, {"level": 2}, random.Random(seed))
        outcome = brikks.result(final)
        assert outcome is not None
        scores.append(outcome["scores"][0])
    assert statistics.mean(scores) >= 60
