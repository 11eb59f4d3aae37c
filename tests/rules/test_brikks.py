"""Brikks rules, one test (or parametrized case) per rule of
``docs/rules/brikks.md``, plus the worked examples of the rule text."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games.rules import brikks
from games.rules.base import IllegalAction, InvalidOptions, fold
from games.rules.brikks import scoring
from games.rules.brikks import sheet as m
from games.rules.brikks.field import MINI_SHAPE, field_rows, resting_positions, shape_masks
from games.rules.brikks.rules import apply_block

# ---------------------------------------------------------------- helpers


def field_from(lines_top_first: list[str]) -> list[str]:
    """A field drawn as text, top line first; missing lines are empty."""
    lines = [line.replace(" ", "") for line in lines_top_first]
    assert all(len(line) == m.FIELD_WIDTH for line in lines)
    empty = [m.EMPTY * m.FIELD_WIDTH] * (m.FIELD_HEIGHT - len(lines))
    return list(reversed(empty + lines))


def started(num_players: int, **options: Any) -> dict[str, Any]:
    options = brikks.normalize_options(options, num_players)
    return fold(brikks, brikks.setup(num_players, options, random.Random(0)))


def after_start(num_players: int, **options: Any) -> dict[str, Any]:
    """Everyone has put a start block on the far right, by default: black O,
    then red, blue... (at x=8), so tests have the rest of the field free."""
    state = started(num_players, **options)
    colors = ["black", "white", "yellow", "green"]
    for seat in state["start_order"]:
        color = colors.pop(0)
        x = m.FIELD_WIDTH - shape_masks((color, 1)).width
        state = act(state, seat, {"type": "start_block", "color": color, "x": x})
    return state


def act(state: dict[str, Any], seat: int, action: dict[str, Any], rng: Any = None) -> dict:
    events = brikks.decide(state, seat, action, rng or random.Random(0))
    return fold(brikks, events, state)


def rolled(state: dict[str, Any], color: str, number: int) -> dict[str, Any]:
    """The state after the roller's dice show ``color``/``number`` (kept)."""
    roller = state["roller"]
    state = brikks.evolve(
        state,
        {
            "type": "dice_rolled",
            "actor": roller,
            "round": state["round"],
            "color": color,
            "number": number,
        },
    )
    if state["phase"] == "choose_dice":
        state = act(state, roller, {"type": "keep"})
    return state


def with_player(state: dict[str, Any], seat: int, **changes: Any) -> dict[str, Any]:
    players = list(state["players"])
    players[seat] = {**players[seat], **changes}
    return {**state, "players": players}


def place(color: str, column: int, x: int, y: int) -> dict[str, Any]:
    return {"type": "place", "color": color, "column": column, "x": x, "y": y}


def reason(state: dict[str, Any], seat: int, action: Any) -> str:
    with pytest.raises(IllegalAction) as caught:
        brikks.decide(state, seat, action, random.Random(0))
    return caught.value.reason


# ---------------------------------------------------------------- material


def test_material_has_24_blocks_of_four_connected_squares() -> None:
    assert len(m.SHAPES) == 24
    for (color, column), squares in m.SHAPES.items():
        assert color in m.COLORS and 1 <= column <= 4
        assert len(squares) == 4 and len({tuple(s) for s in squares}) == 4
        assert min(x for x, _ in squares) == 0 and min(y for _, y in squares) == 0
        cells = {tuple(s) for s in squares}
        seen, todo = set(), [next(iter(cells))]
        while todo:
            x, y = todo.pop()
            if (x, y) in seen:
                continue
            seen.add((x, y))
            todo += [c for c in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)) if c in cells]
        assert seen == cells, f"{color} {column} is not connected"


def _rotate_clockwise(drawing: list[str]) -> list[str]:
    height = len(drawing)
    return [
        "".join(drawing[height - 1 - r][c] for r in range(height)) for c in range(len(drawing[0]))
    ]


@pytest.mark.parametrize("color", ["white", "yellow", "green"])
def test_overview_columns_turn_the_block_a_quarter_clockwise(color: str) -> None:
    drawings = m.SHAPE_DRAWINGS[color]
    for column in range(3):
        assert _rotate_clockwise(drawings[column]) == drawings[column + 1]


def test_red_is_s_blue_is_its_mirror_black_is_o_o_i_i() -> None:
    mirror = {tuple(line[::-1] for line in d) for d in m.SHAPE_DRAWINGS["red"]}
    assert {tuple(d) for d in m.SHAPE_DRAWINGS["blue"]} == mirror
    assert _rotate_clockwise(m.SHAPE_DRAWINGS["red"][0]) == m.SHAPE_DRAWINGS["red"][2]
    assert m.SHAPE_DRAWINGS["black"] == [["xx", "xx"], ["xx", "xx"], ["xxxx"], ["x"] * 4]


def test_circles_two_per_colour_inside_the_field_none_on_the_two_bottom_lines() -> None:
    assert sorted(c["color"] for c in m.CIRCLES) == sorted(m.COLORS * 2)
    assert len({(c["x"], c["y"]) for c in m.CIRCLES}) == 12
    for circle in m.CIRCLES:
        assert 0 <= circle["x"] < m.FIELD_WIDTH and 2 <= circle["y"] < m.FIELD_HEIGHT


def test_energy_bar_bonus_track_and_bombs_match_the_sheet() -> None:
    assert list(range(7, 29, 3)) == m.PINK_X_CIRCLES
    assert m.BONUS_TRACK[-1] == 75 and len(m.BONUS_TRACK) == 15
    assert sorted(m.BONUS_TRACK) == m.BONUS_TRACK
    assert m.BOMB_VALUES == [1, 2, 4]


def test_material_is_published_as_json() -> None:
    published = brikks.material()
    assert json.loads(json.dumps(published)) == published
    assert len(published["blocks"]) == 24
    assert published["field"] == {"width": 10, "height": 11, "origin": "bottom-left"}


# ---------------------------------------------------------------- options


def test_options_default_to_level_2_for_every_seat_no_duel() -> None:
    assert brikks.normalize_options({}, 3) == {"duel": False, "levels": [2, 2, 2]}


def test_options_single_level_applies_to_all_seats() -> None:
    assert brikks.normalize_options({"level": 4}, 2)["levels"] == [4, 4]


def test_options_are_per_seat_and_normalizing_twice_changes_nothing() -> None:
    once = brikks.normalize_options({"levels": [1, 3], "duel": True}, 2)
    assert once == {"duel": True, "levels": [1, 3]}
    assert brikks.normalize_options(once, 2) == once


@pytest.mark.parametrize(
    ("options", "num_players"),
    [
        ({"duel": True}, 3),
        ({"duel": True}, 1),
        ({"duel": "yes"}, 2),
        ({"level": 5}, 2),
        ({"level": 0}, 2),
        ({"level": True}, 2),
        ({"levels": [2]}, 2),
        ({"levels": [2, "3"]}, 2),
        ({"levels": 2}, 2),
        ({"level": 2, "levels": [2, 2]}, 2),
        ({"colour": "red"}, 2),
        ({}, 5),
        ({}, 0),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], num_players: int) -> None:
    with pytest.raises(InvalidOptions):
        brikks.normalize_options(options, num_players)


# ---------------------------------------------------------------- setup and start


@pytest.mark.parametrize(("num_players", "energy"), [(1, 5), (2, 2), (3, 3), (4, 4)])
def test_starting_energy_by_player_count(num_players: int, energy: int) -> None:
    state = started(num_players)
    for player in state["players"]:
        assert scoring.energy_available(player) == energy


def test_two_players_have_circles_3_and_4_crossed_out() -> None:
    bar = scoring.energy_bar(started(2)["players"][0], 2)
    assert bar[:5] == ["available", "available", "crossed_out", "crossed_out", "free"]


def test_start_blocks_chosen_counter_clockwise_from_the_right_of_the_start_player() -> None:
    state = started(4)
    order = []
    for color in ["white", "yellow", "green", "red"]:
        (seat,) = brikks.pending(state)
        order.append(seat)
        state = act(state, seat, {"type": "start_block", "color": color, "x": 0})
    assert order == [3, 2, 1, 0]
    assert state["phase"] == "roll" and state["round"] == 1 and state["roller"] == 0


def test_start_block_taken_by_another_player_is_refused() -> None:
    state = started(2)
    state = act(state, 1, {"type": "start_block", "color": "red", "x": 0})
    assert reason(state, 0, {"type": "start_block", "color": "red", "x": 3}) == "block_taken"
    offered = {a["color"] for a in brikks.legal_actions(state, 0)}
    assert "red" not in offered and len(offered) == 5


def test_start_block_goes_unrotated_on_the_bottom_line() -> None:
    state = act(started(1), 0, {"type": "start_block", "color": "white", "x": 2})
    field = state["players"][0]["field"]
    assert field[0] == "..www....." and field[1] == "...w......"
    assert (
        reason(started(1), 0, {"type": "start_block", "color": "white", "x": 8}) == "not_reachable"
    )


# ---------------------------------------------------------------- dice


class RecordingRng(random.Random):
    def __init__(self, values: list[int]) -> None:
        super().__init__(0)
        self.values = values
        self.calls: list[tuple[int, int]] = []

    def randint(self, a: int, b: int) -> int:
        self.calls.append((a, b))
        return self.values.pop(0)


def test_server_rolls_colour_and_number_for_the_roller() -> None:
    state = after_start(3)
    rng = RecordingRng([4, 3])
    (event,) = brikks.system_step(state, rng)
    assert rng.calls == [(0, 5), (1, 4)]
    assert event == {"type": "dice_rolled", "actor": 0, "round": 1, "color": "blue", "number": 3}
    assert brikks.system_step(fold(brikks, [event], state), rng) is None


def test_roller_alone_decides_to_keep_or_reroll_both_dice_once() -> None:
    state = after_start(2)
    state = brikks.evolve(
        state, {"type": "dice_rolled", "actor": 0, "round": 1, "color": "blue", "number": 1}
    )
    assert brikks.pending(state) == [0]
    assert reason(state, 1, {"type": "keep"}) == "not_your_turn"
    assert reason(state, 0, place("blue", 1, 0, 0)) == "wrong_phase"
    events = brikks.decide(state, 0, {"type": "reroll"}, RecordingRng([3, 4]))
    assert events == [{"type": "dice_rerolled", "actor": 0, "color": "red", "number": 4}]
    state = fold(brikks, events, state)
    assert state["dice"] == {"color": "red", "number": 4}
    assert brikks.pending(state) == [0, 1]
    assert reason(state, 0, {"type": "reroll"}) == "wrong_phase"


def test_solo_has_no_reroll_the_first_roll_is_final() -> None:
    state = after_start(1)
    (event,) = brikks.system_step(state, random.Random(3))
    state = brikks.evolve(state, event)
    assert state["phase"] == "place"
    assert {"type": "reroll"} not in brikks.legal_actions(state, 0)
    assert reason(state, 0, {"type": "reroll"}) == "wrong_phase"


def test_all_players_still_in_place_the_same_block_at_the_same_time() -> None:
    state = rolled(after_start(3), "green", 3)
    assert brikks.pending(state) == [0, 1, 2]
    state = act(state, 1, {"type": "bomb"})
    assert brikks.pending(state) == [0, 2]
    assert brikks.legal_actions(state, 1) == []


def test_roll_passes_clockwise_skipping_players_who_are_out() -> None:
    state = rolled(after_start(3), "green", 3)
    state = with_player(state, 1, out=True, out_round=0)
    state = act(state, 0, {"type": "bomb"})
    state = act(state, 2, {"type": "bomb"})
    assert state["phase"] == "roll" and state["round"] == 2 and state["roller"] == 2


# ---------------------------------------------------------------- falling


NARROW_GAP = field_from(
    [
        "kkkk.kkkkk",  # line 3: a one-square gap at x=4
        "..........",  # lines 1-2: a cavity below
        "..........",
    ]
)


def test_narrow_gap_a_two_wide_block_cannot_slide_through_a_one_wide_gap() -> None:
    rows = field_rows(NARROW_GAP)
    yellow = resting_positions(rows, ("yellow", 1))  # 2 squares wide
    assert yellow and all(y >= 3 for _, y in yellow)
    # It would fit in the cavity at the end, but it cannot get there.
    state = with_player(rolled(after_start(1), "yellow", 1), 0, field=NARROW_GAP)
    assert reason(state, 0, place("yellow", 1, 3, 0)) == "not_reachable"


def test_narrow_gap_a_one_wide_block_falls_through_and_can_slide_under() -> None:
    rows = field_rows(NARROW_GAP)
    standing_i = resting_positions(rows, ("black", 4))
    assert (4, 0) in standing_i
    mini = resting_positions(rows, MINI_SHAPE)
    assert {(x, 0) for x in range(10)} <= mini  # slid sideways under line 3


OVERHANG = field_from(
    [
        "kkkk......",  # line 3: an overhang over x=0..3
        "......kkkk",  # lines 1-2: filled on the right
        "......kkkk",
    ]
)


def test_slide_under_an_overhang_at_the_bottom_of_the_fall() -> None:
    positions = resting_positions(field_rows(OVERHANG), ("black", 1))  # the 2x2 O
    assert {(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)} <= positions
    assert (0, 3) in positions  # or rest on top of the overhang
    state = with_player(rolled(after_start(1), "black", 1), 0, field=OVERHANG)
    assert place("black", 1, 0, 0) in brikks.legal_actions(state, 0)
    state = act(state, 0, place("black", 1, 0, 0))
    assert state["players"][0]["field"][0].startswith("kk..")


def test_a_block_cannot_stop_in_mid_air() -> None:
    state = rolled(after_start(1), "black", 1)
    assert reason(state, 0, place("black", 1, 0, 3)) == "not_reachable"
    assert reason(state, 0, place("black", 1, -1, 0)) == "not_reachable"
    assert reason(state, 0, place("black", 1, 9, 0)) == "not_reachable"


def test_a_sealed_cavity_is_not_reachable() -> None:
    sealed = field_from(["kkkkkkkkk.", "k.......kk"])
    positions = resting_positions(field_rows(sealed), MINI_SHAPE)
    assert (3, 0) not in positions and (9, 0) not in positions and (3, 2) in positions


def test_a_block_that_would_stick_out_of_the_top_does_not_fit() -> None:
    field = ["kkkkkkkkk."] * 8 + ["kkkkkkkkkk"] * 3
    field = list(reversed(field))  # x=9 open on lines 3..10 (bottom first: 0..2 full)
    rows = field_rows(field)
    assert resting_positions(rows, ("black", 4)) == {(9, 3)}
    assert resting_positions(rows, ("black", 1)) == frozenset()


# ---------------------------------------------------------------- energy


@pytest.mark.parametrize(("column", "cost"), [(3, 0), (2, 1), (4, 1), (1, 2)])
def test_each_column_moved_costs_one_energy(column: int, cost: int) -> None:
    state = rolled(after_start(1), "green", 3)
    state = act(state, 0, place("green", column, 0, 0))
    assert state["players"][0]["energy_spent"] == cost


def test_no_wrap_around_column_1_to_4_costs_three() -> None:
    state = rolled(after_start(1), "white", 1)
    state = act(state, 0, place("white", 4, 0, 0))
    assert state["players"][0]["energy_spent"] == 3


def test_any_other_block_costs_five_energy() -> None:
    state = rolled(after_start(1), "white", 1)
    state = act(state, 0, place("black", 3, 0, 0))
    assert state["players"][0]["energy_spent"] == 5
    assert scoring.energy_available(state["players"][0]) == 0


def test_not_enough_energy_is_refused_and_not_offered() -> None:
    state = rolled(after_start(2), "white", 1)  # 2 energy each
    assert reason(state, 0, place("white", 4, 0, 0)) == "not_enough_energy"
    assert reason(state, 0, place("black", 3, 0, 0)) == "not_enough_energy"
    offered = {
        (a["color"], a["column"]) for a in brikks.legal_actions(state, 0) if a["type"] == "place"
    }
    assert offered == {("white", 1), ("white", 2), ("white", 3)}


def _cover_circle(level: int, circle_color: str, block_color: str, energy: int = 4) -> dict:
    """Draw a block of ``block_color`` with its first square on the first
    circle of ``circle_color`` (a 4-player sheet with ``energy`` available).
    ``apply_block`` directly, so that any colour can cover any circle."""
    player = started(4, level=level)["players"][0]
    player = {**player, "energy_spent": 4 - energy}
    circle = next(c for c in m.CIRCLES if c["color"] == circle_color)
    column = 4 if block_color == "black" else 1  # the standing I for black
    squares = m.SHAPES[(block_color, column)]
    dx, dy = squares[0]
    after, summary = apply_block(
        player, block_color, column, circle["x"] - dx, circle["y"] - dy, 0, duel=False
    )
    return summary


@pytest.mark.parametrize(
    ("level", "same", "other"),
    [(1, 2, 1), (2, 2, 0), (3, 2, -1), (4, 2, -2)],
)
def test_energy_for_covering_a_circle_by_level(level: int, same: int, other: int) -> None:
    same_summary = _cover_circle(level, "white", "white")
    other_summary = _cover_circle(level, "white", "black")
    assert same_summary["energy_activated"] - same_summary["energy_lost"] == same
    assert other_summary["energy_activated"] - other_summary["energy_lost"] == other


def test_level_3_and_4_lose_only_energy_already_activated() -> None:
    summary = _cover_circle(4, "white", "black", energy=1)
    assert summary["energy_lost"] == 1
    summary = _cover_circle(3, "white", "black", energy=0)
    assert summary["energy_lost"] == 0 and summary["energy_activated"] == 0


def test_activated_energy_beyond_the_28th_circle_is_lost() -> None:
    player = started(1)["players"][0]
    player = {**player, "energy_position": 27, "energy_activated": 27}
    # the white T at (3, 2) covers the white circle at (4, 2): 2 energy due
    after, summary = apply_block(player, "white", 1, 3, 2, 0, duel=False)
    assert summary["energy_activated"] == 1 and after["energy_position"] == 28


def test_worked_example_red_4_turned_to_column_2_activates_a_pink_x() -> None:
    """Marie's red 4: Lukas spends 2 energy to turn it to column 2, draws it
    on a red circle, activates 2 energy, reaches a pink X and has 3 crosses
    = 6 bonus points."""
    state = rolled(after_start(1), "red", 4)
    base = ["kkkkkkkkkk"] * 5 + [m.EMPTY * 10] * 6
    state = with_player(
        state, 0, field=base, energy_position=5, energy_activated=5, bonus_crosses=2
    )
    # red column 2 is ".x / xx / x.": its bottom square at (5, 5) = the red circle
    state = act(state, 0, place("red", 2, 5, 5))
    player = state["players"][0]
    assert player["energy_spent"] == 2
    assert player["energy_position"] == 7  # circles 6 and 7; 7 has a pink X
    assert player["bonus_crosses"] == 3
    assert scoring.score_breakdown(player, duel=False)["bonus"] == 6


# ---------------------------------------------------------------- bonus crosses


@pytest.mark.parametrize(("lines", "crosses"), [(1, 0), (2, 1), (3, 2), (4, 4)])
def test_completing_several_lines_with_one_block_earns_crosses(lines: int, crosses: int) -> None:
    field = ["kkkkkkkkk."] * lines + [m.EMPTY * 10] * (11 - lines)
    player = {**started(1)["players"][0], "field": field}
    # standing I fills x=9 on lines 0..3; only `lines` of them are otherwise full
    after, summary = apply_block(player, "black", 4, 9, 0, 0, duel=False)
    assert summary["lines_completed"] == lines
    assert after["bonus_crosses"] == crosses


def test_worked_example_two_lines_at_once_makes_four_crosses_worth_10() -> None:
    player = {
        **started(1)["players"][0],
        "bonus_crosses": 3,
        "field": ["kkkkkkkkk."] * 2 + [m.EMPTY * 10] * 9,
    }
    after, _ = apply_block(player, "black", 4, 9, 0, 0, duel=False)
    assert scoring.score_breakdown(after, duel=False)["bonus"] == 10


def test_at_most_14_crosses_count_on_the_bonus_track() -> None:
    player = {
        **started(1)["players"][0],
        "bonus_crosses": 13,
        "field": ["kkkkkkkkk."] * 4 + [m.EMPTY * 10] * 7,
    }
    after, summary = apply_block(player, "black", 4, 9, 0, 0, duel=False)
    assert summary["crosses"] == 4
    assert after["bonus_crosses"] == 14 and after["bonus_crosses_lost"] == 3
    assert scoring.score_breakdown(after, duel=False)["bonus"] == 75


# ---------------------------------------------------------------- bombs


def test_a_bomb_may_be_used_even_when_the_block_fits_and_places_nothing() -> None:
    state = rolled(after_start(1), "black", 1)
    before = state["players"][0]["field"]
    state = act(state, 0, {"type": "bomb"})
    assert state["players"][0]["field"] == before
    assert state["players"][0]["bombs_used"] == 1


def test_bombs_are_used_from_the_top_and_there_are_three() -> None:
    state = after_start(1)
    values = []
    for _ in range(3):
        state = rolled(state, "black", 1)
        state = act(state, 0, {"type": "bomb"})
        values.append(scoring.unused_bomb_points(state["players"][0]["bombs_used"]))
    assert values == [6, 4, 0]
    state = rolled(state, "black", 1)
    assert reason(state, 0, {"type": "bomb"}) == "no_bombs_left"
    assert {"type": "bomb"} not in brikks.legal_actions(state, 0)


# ---------------------------------------------------------------- elimination

FULL_BUT_ONE_COLUMN = ["kkkkkkkkk."] * 11


def test_give_up_is_refused_while_an_affordable_block_fits() -> None:
    state = rolled(after_start(1), "black", 1)
    assert reason(state, 0, {"type": "give_up"}) == "cannot_give_up"
    assert {"type": "give_up"} not in brikks.legal_actions(state, 0)


def test_give_up_is_refused_when_the_block_fits_only_with_energy() -> None:
    # only the standing I fits (x=9 open); black 3 rolled, 1 energy turns it
    state = rolled(after_start(1), "black", 3)
    state = with_player(state, 0, field=["kkkkkkkkk."] * 11)
    assert [a for a in brikks.legal_actions(state, 0) if a["type"] == "place"] == [
        place("black", 4, 9, 0)
    ]
    assert reason(state, 0, {"type": "give_up"}) == "cannot_give_up"


def test_nothing_fits_bomb_or_leave_the_game_the_others_play_on() -> None:
    state = rolled(after_start(2), "white", 1)
    state = with_player(state, 1, field=["kkkkkkkkkk"] * 11)
    assert brikks.legal_actions(state, 1) == [{"type": "bomb"}, {"type": "give_up"}]
    state = act(state, 1, {"type": "give_up"})
    assert state["players"][1]["out"] and state["players"][1]["out_round"] == 1
    state = act(state, 0, {"type": "bomb"})
    assert state["phase"] == "roll" and state["roller"] == 0
    assert brikks.pending(rolled(state, "white", 1)) == [0]


def test_with_nothing_fitting_and_no_bombs_the_only_action_is_to_leave() -> None:
    state = rolled(after_start(1), "white", 1)
    state = with_player(state, 0, field=["kkkkkkkkkk"] * 11, bombs_used=3)
    assert brikks.legal_actions(state, 0) == [{"type": "give_up"}]


def test_the_game_ends_when_the_last_player_is_out() -> None:
    state = rolled(after_start(2), "white", 1)
    for seat in (0, 1):
        state = with_player(state, seat, field=["kkkkkkkkkk"] * 11)
    state = act(state, 0, {"type": "give_up"})
    assert not brikks.is_over(state)
    state = act(state, 1, {"type": "give_up"})
    assert brikks.is_over(state) and brikks.pending(state) == []
    assert reason(state, 0, {"type": "bomb"}) == "game_finished"


# ---------------------------------------------------------------- scoring

WORKED_EXAMPLE_FIELD = [  # lines 1..11, bottom first: 10,10,10,10,10,9,9,10,7,9,5 crosses
    "kkkkkkkkkk",
    "kkkkkkkkkk",
    "kkkkkkkkkk",
    "kkkkkkkkkk",
    "kkkkkkkkkk",
    "kkkk.kkkkk",
    "kkkkkkkk.k",
    "kkkkkkkkkk",
    "kk.k.kk.kk",
    "kkk.kkkkkk",
    "..kkkkk...",
]


def test_worked_example_lukas_keeps_his_bomb_and_leaves_with_73_points() -> None:
    """47 for the lines (5+5+5+5+5+4+4+10+0+4+0), 21 bonus (6 crosses), 4 for
    the last unused bomb, 1 for 2 unused energy: 73."""
    state = rolled(after_start(1), "yellow", 3)
    state = with_player(
        state,
        0,
        field=WORKED_EXAMPLE_FIELD,
        bonus_crosses=6,
        bombs_used=2,
        energy_position=10,
        energy_activated=10,
        energy_spent=8,
    )
    assert not [a for a in brikks.legal_actions(state, 0) if a["type"] == "place"]
    state = act(state, 0, {"type": "give_up"})
    outcome = brikks.result(state)
    breakdown = outcome["breakdown"][0]
    assert breakdown["per_line"] == [5, 5, 5, 5, 5, 4, 4, 10, 0, 4, 0]
    assert (breakdown["lines"], breakdown["bonus"], breakdown["bombs"], breakdown["energy"]) == (
        47,
        21,
        4,
        1,
    )
    assert outcome["scores"] == [73] and outcome["winners"] == [0]


@pytest.mark.parametrize(
    ("y", "crosses", "points"),
    [(0, 10, 5), (0, 9, 2), (0, 8, 1), (0, 7, 0), (5, 10, 10), (9, 9, 4), (10, 10, 20), (10, 8, 4)],
)
def test_line_points_by_crosses_doubled_from_line_6_quadrupled_on_top(
    y: int, crosses: int, points: int
) -> None:
    field = [m.EMPTY * 10] * 11
    field[y] = "k" * crosses + m.EMPTY * (10 - crosses)
    assert scoring.line_points(field)[y] == points


def test_one_point_per_two_unused_activated_energy() -> None:
    player = {**started(4)["players"][0], "energy_spent": 1}
    assert scoring.score_breakdown(player, duel=False)["energy"] == 1


def test_multiplayer_winners_share_the_best_total_ranking_best_first() -> None:
    state = rolled(after_start(3), "white", 1)
    full = ["kkkkkkkkkk"] * 11
    state = with_player(state, 0, field=full, bombs_used=3)
    state = with_player(state, 1, field=full, bombs_used=2)
    state = with_player(state, 2, field=full, bombs_used=2)
    for seat in (0, 1, 2):
        state = act(state, seat, {"type": "give_up"})
    outcome = brikks.result(state)
    assert outcome["winners"] == [1, 2]
    assert outcome["ranking"] == [1, 2, 0]
    assert outcome["scores"][1] == outcome["scores"][0] + 4


# ---------------------------------------------------------------- solo


@pytest.mark.parametrize(
    ("score", "level", "label"),
    [
        (151, 1, "Brikks Master 2000!!!"),
        (150, 1, "You show-off!"),
        (155, 2, "You show-off!"),
        (156, 2, "Brikks Master 2000!!!"),
        (70, 1, "On a roll!"),
        (70, 3, "There's still room to improve!"),
        (59, 1, "Your first time?"),
        (0, 4, "Your first time?"),
    ],
)
def test_solo_rating_label_adds_5_points_per_level_above_1(
    score: int, level: int, label: str
) -> None:
    assert scoring.solo_rating(score, level) == label


def test_solo_result_shows_the_rating() -> None:
    state = rolled(after_start(1, level=1), "white", 1)
    state = with_player(
        state,
        0,
        field=WORKED_EXAMPLE_FIELD,
        bonus_crosses=6,
        bombs_used=2,
        energy_position=10,
        energy_activated=10,
        energy_spent=8,
    )
    state = act(state, 0, {"type": "give_up"})
    assert brikks.result(state)["rating"] == "On a roll!"  # 73


# ---------------------------------------------------------------- duel


def duel_round(pink_for: int = 0) -> dict[str, Any]:
    """A duel in the place phase where seat ``pink_for`` will reach a pink X."""
    state = rolled(after_start(2, duel=True), "black", 1)
    return with_player(state, pink_for, energy_position=6, energy_activated=4)


def test_duel_pink_x_earns_a_mini_block_not_a_bonus_cross() -> None:
    state = duel_round()
    # red column 2 with its bottom square on the red circle at (5, 5)
    base = ["kkkkkkkkkk"] * 5 + [m.EMPTY * 10] * 6
    state = with_player(state, 0, field=base)
    state = {**state, "dice": {"color": "red", "number": 2}}
    state = act(state, 0, place("red", 2, 5, 5))
    assert state["players"][0]["bonus_crosses"] == 0
    assert state["players"][0]["mini_blocks_earned"] == 1
    state = act(state, 1, {"type": "bomb"})
    assert state["phase"] == "mini_blocks" and brikks.pending(state) == [0]
    opponent_before = state["players"][1]["field"]
    actions = brikks.legal_actions(state, 0)
    assert actions and all(a["type"] == "mini_block" for a in actions)
    assert reason(state, 0, {"type": "mini_block", "x": 0, "y": 5}) == "not_reachable"
    state = act(state, 0, {"type": "mini_block", "x": 0, "y": 0})
    assert state["players"][1]["field"][0][0] == m.MINI_BLOCK_LETTER
    assert opponent_before[0][0] == m.EMPTY
    assert state["phase"] == "roll" and state["round"] == 2 and state["roller"] == 1


def test_duel_mini_blocks_of_one_round_touch_only_at_corners() -> None:
    state = duel_round()
    state = {**state, "phase": "mini_blocks"}
    state = with_player(state, 0, mini_blocks_owed=3)
    state = act(state, 0, {"type": "mini_block", "x": 0, "y": 0})
    assert reason(state, 0, {"type": "mini_block", "x": 1, "y": 0}) == "mini_blocks_adjacent"
    assert reason(state, 0, {"type": "mini_block", "x": 0, "y": 1}) == "mini_blocks_adjacent"
    offered = {(a["x"], a["y"]) for a in brikks.legal_actions(state, 0)}
    assert (1, 0) not in offered and (0, 1) not in offered and (2, 0) in offered
    state = act(state, 0, {"type": "mini_block", "x": 2, "y": 0})
    assert state["players"][0]["mini_blocks_owed"] == 1


def test_duel_mini_blocks_that_cannot_be_placed_are_forfeited() -> None:
    state = duel_round()
    almost_full = ["kkkkkkkkkk"] * 10 + [".kkkkkkkkk"]
    state = with_player(state, 1, field=almost_full)
    state = {**state, "phase": "mini_blocks"}
    state = with_player(state, 0, mini_blocks_owed=2)
    events = brikks.decide(state, 0, {"type": "mini_block", "x": 0, "y": 10}, random.Random(0))
    assert [e["type"] for e in events] == [
        "mini_block_placed",
        "mini_blocks_forfeited",
        "round_ended",
    ]
    assert events[1] == {"type": "mini_blocks_forfeited", "actor": 0, "count": 1}


def test_duel_no_bonus_track_points() -> None:
    player = {**started(2, duel=True)["players"][0], "bonus_crosses": 5}
    assert scoring.score_breakdown(player, duel=True)["bonus"] == 0


def test_duel_the_player_who_stays_in_longer_wins_and_the_game_stops() -> None:
    state = rolled(after_start(2, duel=True), "white", 1)
    state = with_player(state, 1, field=["kkkkkkkkkk"] * 11)
    state = act(state, 1, {"type": "give_up"})
    state = act(state, 0, {"type": "bomb"})
    assert brikks.is_over(state)
    outcome = brikks.result(state)
    assert outcome["winners"] == [0] and outcome["ranking"] == [0, 1]


@pytest.mark.parametrize(
    ("line_counts", "winners"), [((10, 9), [0]), ((8, 10), [1]), ((10, 10), [0, 1])]
)
def test_duel_both_out_in_the_same_round_line_points_break_the_tie(
    line_counts: tuple[int, int], winners: list[int]
) -> None:
    state = rolled(after_start(2, duel=True), "black", 3)
    for seat, crosses in enumerate(line_counts):
        bottom = "k" * crosses + m.EMPTY * (10 - crosses)
        # the top stays full so nothing fits: only line 1 differs
        field = [bottom] + ["kkkkkkkkkk"] * 10
        state = with_player(state, seat, field=field, energy_spent=2)
        state = act(state, seat, {"type": "give_up"})
    outcome = brikks.result(state)
    assert outcome["winners"] == winners
    lines = [b["lines"] for b in outcome["breakdown"]]
    assert outcome["scores"] == lines


def test_levels_apply_per_seat() -> None:
    """Seat 0 plays level 1, seat 1 level 4: the same black standing I on the
    white circle at (4, 2) activates 1 energy for one and costs 2 for the
    other."""
    state = rolled(after_start(2, levels=[1, 4]), "black", 4)
    for seat in (0, 1):
        state = act(state, seat, place("black", 4, 4, 0))
    energy = [scoring.energy_available(p) for p in state["players"]]
    assert energy == [3, 0]


def test_duel_both_seats_place_their_mini_blocks_at_the_same_time() -> None:
    state = duel_round()
    state = {**state, "phase": "mini_blocks"}
    state = with_player(state, 0, mini_blocks_owed=1)
    state = with_player(state, 1, mini_blocks_owed=2)
    assert brikks.pending(state) == [0, 1]
    state = act(state, 1, {"type": "mini_block", "x": 3, "y": 0})
    assert state["players"][0]["field"][0][3] == m.MINI_BLOCK_LETTER
    assert brikks.pending(state) == [0, 1]
    state = act(state, 0, {"type": "mini_block", "x": 0, "y": 0})
    state = act(state, 1, {"type": "mini_block", "x": 5, "y": 0})
    assert state["phase"] == "roll" and state["round"] == 2


def test_duel_mini_blocks_earned_in_the_round_a_seat_goes_out_are_not_placed() -> None:
    state = duel_round()
    base = ["kkkkkkkkkk"] * 5 + [m.EMPTY * 10] * 6
    state = with_player(state, 0, field=base)
    state = {**state, "dice": {"color": "red", "number": 2}}
    state = act(state, 0, place("red", 2, 5, 5))  # earns a mini-block
    state = with_player(state, 1, field=["kkkkkkkkkk"] * 11)
    state = act(state, 1, {"type": "give_up"})
    assert brikks.is_over(state) and brikks.result(state)["winners"] == [0]
