"""Rules tests for Brillance: one test per rule, plus the rule book's examples."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from games.rules import brillance as game
from games.rules.base import IllegalAction, InvalidOptions, fold, play_bot_game
from games.rules.brillance import board, rules
from games.rules.brillance.cards import CARD_KINDS, DECK

SPACES = board.SPACES
NEIGHBOURS = board.NEIGHBOURS


# ---------------------------------------------------------------- helpers


def new_state(num_players: int = 2, seed: int = 1, **options: bool) -> dict[str, Any]:
    opts = game.normalize_options(options, num_players)
    return fold(game, game.setup(num_players, opts, random.Random(seed)))


def play(state: dict[str, Any], seat: int, action: dict[str, Any], seed: int = 0
         ) -> dict[str, Any]:
    events = game.decide(state, seat, action, random.Random(seed))
    return fold(game, events, state)


def refused(state: dict[str, Any], seat: int, action: dict[str, Any]) -> str:
    with pytest.raises(IllegalAction) as info:
        game.decide(state, seat, action, random.Random(0))
    return info.value.reason


def clear_city(state: dict[str, Any]) -> dict[str, Any]:
    """Take every cart off the board (tests then place the ones they need)."""
    state = copy.deepcopy(state)
    for cart in state["carts"]:
        cart["space"] = None
    state["phase"] = "main"
    return state


def put(state: dict[str, Any], cart_id: int, space: int, **fields: Any) -> None:
    cart = state["carts"][cart_id]
    cart.update({"space": space, "out": False, "entered": True, "points": 5, **fields})


def city_lane(length: int) -> list[int]:
    """A straight run of plain street spaces inside the city (not the island)."""
    for sp in SPACES:
        run = [sp["id"]]
        for _ in range(length - 1):
            last = SPACES[run[-1]]
            nxt = [n for n in NEIGHBOURS[run[-1]] if SPACES[n]["y"] == last["y"]
                   and SPACES[n]["x"] == last["x"] + 1]
            if not nxt or SPACES[nxt[0]]["kind"] != "street" or SPACES[nxt[0]]["island"]:
                break
            run.append(nxt[0])
        if len(run) == length and all(SPACES[s]["kind"] == "street" and not SPACES[s]["island"]
                                      for s in run):
            return run
    raise AssertionError("no lane that long")


def own_shop(state: dict[str, Any], seat: int, order: int | None = None) -> dict[str, Any]:
    colour = state["companies"][seat]
    return next(s for s in state["shops"] if s["colour"] == colour
                and (order is None or s["order"] == order))


def street_next_to(space: int) -> int:
    return next(n for n in NEIGHBOURS[space] if SPACES[n]["kind"] == "street")


def hand_card(state: dict[str, Any], seat: int, kind: str) -> int:
    """Put a card of ``kind`` in the seat's hand (taken from the deck) and return it."""
    card = next(c for c in state["deck"] if DECK[c] == kind)
    state["deck"].remove(card)
    state["hands"][seat].append(card)
    return card


# ---------------------------------------------------------------- material


def test_board_has_six_companies_each_with_camps_guard_gate_and_six_shops() -> None:
    for colour in board.COMPANIES:
        camps = [s for s in SPACES if s["kind"] == "start" and s["colour"] == colour]
        shops = [s for s in SPACES if s["kind"] == "delivery" and s["colour"] == colour]
        assert len(camps) == 5
        assert sum(1 for s in SPACES if s["kind"] == "guard" and s["colour"] == colour) == 1
        assert sum(1 for s in SPACES if s["kind"] == "gate" and s["colour"] == colour) == 1
        assert len(shops) == 6
        assert sum(1 for s in shops if s["island"]) == 1, "one shop per company on the island"
        assert board.GUARD[colour] in NEIGHBOURS[board.GATE[colour]]
        assert board.CAMPS[colour][0] in NEIGHBOURS[board.GATE[colour]]


def test_board_has_river_bridges_island_and_castle() -> None:
    names = {s["name"] for s in SPACES if s["kind"] == "bridge"}
    assert {"Tapirs Bridge", "Ox Bridge"} <= names
    assert SPACES[board.CASTLE]["island"]
    assert any(s["island"] and s["kind"] == "street" for s in SPACES)


def test_streets_join_adjacent_squares_and_the_city_is_connected() -> None:
    for a, b in board.BOARD["streets"]:
        pa, pb = SPACES[a], SPACES[b]
        assert abs(pa["x"] - pb["x"]) + abs(pa["y"] - pb["y"]) == 1
    city = [s["id"] for s in SPACES if s["kind"] not in ("start", "gate")]
    dist = board.bfs(city[0], NEIGHBOURS, [s["kind"] not in ("start", "gate") for s in SPACES])
    assert set(city) <= set(dist)


def test_board_is_json_with_names_kinds_and_coordinates() -> None:
    material = game.material()
    assert json.loads(json.dumps(material)) == material
    for sp in material["board"]["spaces"]:
        assert sp["name"] and sp["kind"] in (
            "street", "bridge", "castle", "guard", "gate", "start", "delivery")
        assert isinstance(sp["x"], int) and isinstance(sp["y"], int)


def test_drawing_is_generated_from_the_board_data() -> None:
    drawing = board.draw().split("\n")
    for sp in SPACES:
        assert drawing[sp["y"]][sp["x"]] not in " #~"


def test_routes_are_balanced_between_companies() -> None:
    """Sum of gate-to-shop distances on the empty board is within 10% for all six."""
    sums = []
    for colour in board.COMPANIES:
        dist = board.bfs(board.GUARD[colour], NEIGHBOURS)
        sums.append(sum(dist[s["id"]] for s in SPACES
                        if s["kind"] == "delivery" and s["colour"] == colour))
    assert max(sums) <= min(sums) * 1.1


def test_deck_has_36_cards_of_the_ten_named_kinds() -> None:
    assert len(DECK) == 36
    assert set(DECK) == set(CARD_KINDS)
    assert sum(info["count"] for info in CARD_KINDS.values()) == 36


# ---------------------------------------------------------------- options and set-up


def test_options_default_to_false() -> None:
    assert game.normalize_options({}, 3) == {
        "wandering_competitors": False, "speed_bonus": False, "one_card_per_turn": False}


@pytest.mark.parametrize("options, players", [
    ({"speed_bonus": True}, 3),
    ({"wandering_competitors": True}, 6),
    ({"one_card_per_turn": "yes"}, 4),
    ({"unknown": True}, 4),
    ({}, 7),
    ({}, 1),
])
def test_invalid_options_are_refused(options: dict[str, Any], players: int) -> None:
    with pytest.raises(InvalidOptions):
        game.normalize_options(options, players)


def test_setup_orders_are_three_twos_and_three_threes_per_player() -> None:
    state = new_state(4)
    for colour in state["companies"]:
        orders = sorted(s["order"] for s in state["shops"] if s["colour"] == colour)
        assert orders == [2, 2, 2, 3, 3, 3]
    others = [s for s in state["shops"] if s["colour"] not in state["companies"]]
    assert all(s["order"] is None for s in others)


def test_setup_carts_loaded_in_camps_and_brigands_empty_in_castle() -> None:
    state = new_state(3)
    for seat, colour in enumerate(state["companies"]):
        carts = [c for c in state["carts"] if c["owner"] == seat]
        assert sorted(c["space"] for c in carts) == sorted(board.CAMPS[colour])
        assert all(c["load"] == 3 for c in carts)
    assert state["brigands"] == {"space": board.CASTLE, "loot": 0, "active": False,
                                 "points": 0, "immobile": False}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_non_player_carts_block_their_delivery_spaces_but_never_the_island(players: int) -> None:
    state = new_state(players)
    parked = [c for c in state["carts"] if c["owner"] is None]
    assert len(parked) == 5 * (6 - players)
    for cart in parked:
        sp = SPACES[cart["space"]]
        assert sp["kind"] == "delivery" and sp["colour"] == cart["colour"]
        assert not sp["island"]


def test_six_players_leave_no_non_player_carts() -> None:
    state = new_state(6)
    assert all(c["owner"] is not None for c in state["carts"])


def test_each_player_draws_two_cards_before_the_game() -> None:
    state = new_state(5)
    assert [len(h) for h in state["hands"]] == [2] * 5
    assert len(state["deck"]) == 36 - 10


def test_first_turn_action_points_grow_with_seat_order() -> None:
    state = new_state(6)
    seen = []
    for seat in range(6):
        assert state["current"] == seat
        seen.append(max(c["points"] for c in state["carts"] if c["owner"] == seat))
        state = play(state, seat, {"type": "end_turn"})
    assert seen == [1, 2, 3, 4, 5, 5]
    assert state["round"] == 2
    assert all(c["points"] == 5 for c in state["carts"] if c["owner"] == 0)


# ---------------------------------------------------------------- movement


def test_moving_costs_one_point_per_space() -> None:
    state = clear_city(new_state())
    lane = city_lane(4)
    put(state, 0, lane[0])
    after = play(state, 0, {"type": "move", "cart": 0, "path": lane[1:]})
    assert after["carts"][0]["space"] == lane[3]
    assert after["carts"][0]["points"] == 2


def test_a_move_longer_than_the_points_left_is_refused() -> None:
    state = clear_city(new_state())
    lane = city_lane(4)
    put(state, 0, lane[0], points=2)
    assert refused(state, 0, {"type": "move", "cart": 0, "path": lane[1:]}) == "no_action_points"


def test_carts_may_not_pass_another_cart_even_of_their_own_colour() -> None:
    state = clear_city(new_state())
    lane = city_lane(4)
    put(state, 0, lane[0])
    put(state, 1, lane[2])
    assert refused(state, 0, {"type": "move", "cart": 0, "path": lane[1:]}) == "path_blocked"


def test_carts_may_not_stop_on_an_occupied_space() -> None:
    state = clear_city(new_state())
    lane = city_lane(3)
    put(state, 0, lane[0])
    put(state, 25, lane[1])
    assert refused(state, 0, {"type": "move", "cart": 0, "path": lane[1:2]}) == "path_blocked"


def test_paths_follow_streets() -> None:
    state = clear_city(new_state())
    lane = city_lane(4)
    put(state, 0, lane[0])
    assert refused(state, 0, {"type": "move", "cart": 0, "path": [lane[2]]}) == "not_adjacent"


def test_a_cart_may_pass_but_not_stop_on_another_companys_guard_space() -> None:
    state = clear_city(new_state())
    other = state["companies"][1]
    guard = board.GUARD[other]
    before, after = [n for n in NEIGHBOURS[guard] if SPACES[n]["kind"] != "gate"][:2]
    put(state, 0, before)
    assert refused(state, 0, {"type": "move", "cart": 0, "path": [guard]}) == "guard_space"
    moved = play(state, 0, {"type": "move", "cart": 0, "path": [guard, after]})
    assert moved["carts"][0]["space"] == after


def test_a_cart_may_stop_on_its_own_guard_space() -> None:
    state = clear_city(new_state())
    guard = board.GUARD[state["companies"][0]]
    start = next(n for n in NEIGHBOURS[guard] if SPACES[n]["kind"] == "street")
    put(state, 0, start)
    assert play(state, 0, {"type": "move", "cart": 0, "path": [guard]})["carts"][0][
        "space"] == guard


def test_carts_never_enter_the_castle() -> None:
    state = clear_city(new_state())
    state["brigands"]["space"] = SPACES[0]["id"]  # somewhere else
    beside = NEIGHBOURS[board.CASTLE][0]
    put(state, 0, beside)
    assert refused(state, 0, {"type": "move", "cart": 0, "path": [board.CASTLE]}) == (
        "castle_space")


def test_carts_enter_through_their_gate_from_their_camp() -> None:
    state = new_state(6)
    for seat in range(5):
        state = play(state, seat, {"type": "end_turn"})
    colour = state["companies"][5]
    gate, guard = board.GATE[colour], board.GUARD[colour]
    front = next(c for c in state["carts"] if c["space"] == board.CAMPS[colour][0])
    state = play(state, 5, {"type": "move", "cart": front["id"], "path": [gate, guard]})
    assert state["carts"][front["id"]]["entered"]


def test_a_cart_leaves_only_by_its_own_gate_and_scores() -> None:
    state = clear_city(new_state())
    colour = state["companies"][0]
    guard, gate = board.GUARD[colour], board.GATE[colour]
    put(state, 0, guard, load=0)
    after = play(state, 0, {"type": "move", "cart": 0, "path": [gate]})
    assert after["carts"][0]["out"] and after["carts"][0]["space"] is None
    assert after["exits"][0]["cart"] == 0
    # Another company's gate is closed to it.
    other_guard = board.GUARD[state["companies"][1]]
    put(state, 1, other_guard)
    other_gate = board.GATE[state["companies"][1]]
    assert refused(state, 0, {"type": "move", "cart": 1, "path": [other_gate]}) == "outside_city"


def test_a_cart_that_left_never_returns() -> None:
    state = clear_city(new_state())
    state["carts"][0].update({"out": True, "space": None})
    reason = refused(state, 0, {"type": "move", "cart": 0, "path": [board.CAMPS["yellow"][0]]})
    assert reason == "cart_out"


def test_a_cart_that_never_entered_cannot_leave() -> None:
    state = new_state()
    colour = state["companies"][0]
    front = next(c for c in state["carts"] if c["space"] == board.CAMPS[colour][0])
    state = play(state, 0, {"type": "move", "cart": front["id"], "path": [board.GATE[colour]]})
    assert not state["carts"][front["id"]]["out"]


def test_staying_a_second_turn_on_an_opponents_delivery_space_is_refused() -> None:
    state = clear_city(new_state())
    rival_shop = own_shop(state, 1)
    put(state, 0, rival_shop["space"])
    state["carts"][0]["stay"] = rival_shop["space"]  # it was there when the turn began
    assert refused(state, 0, {"type": "end_turn"}) == "must_leave_delivery_space"
    away = street_next_to(rival_shop["space"])
    moved = play(state, 0, {"type": "move", "cart": 0, "path": [away]})
    assert game.decide(moved, 0, {"type": "end_turn"}, random.Random(0))


def test_stopping_one_turn_on_an_opponents_delivery_space_is_allowed() -> None:
    state = clear_city(new_state())
    rival_shop = own_shop(state, 1)
    put(state, 0, street_next_to(rival_shop["space"]))
    state = play(state, 0, {"type": "move", "cart": 0, "path": [rival_shop["space"]]})
    state = play(state, 0, {"type": "end_turn"})
    assert state["current"] == 1


# ---------------------------------------------------------------- delivering


def test_unloading_costs_one_point_per_merchandise_and_fills_the_order() -> None:
    state = clear_city(new_state())
    shop = own_shop(state, 0, order=2)
    put(state, 0, shop["space"])
    state = play(state, 0, {"type": "unload", "cart": 0, "count": 2})
    assert state["carts"][0]["points"] == 3 and state["carts"][0]["load"] == 1
    assert state["shops"][shop["id"]]["filled"]
    assert game.rules.score_breakdown(state, 0)["delivered"] == 2


def test_unloading_never_exceeds_the_order() -> None:
    state = clear_city(new_state())
    shop = own_shop(state, 0, order=2)
    put(state, 0, shop["space"])
    assert refused(state, 0, {"type": "unload", "cart": 0, "count": 3}) == "exceeds_order"


def test_a_partial_delivery_does_not_score_until_the_order_is_complete() -> None:
    state = clear_city(new_state())
    shop = own_shop(state, 0, order=3)
    put(state, 0, shop["space"], load=1)
    state = play(state, 0, {"type": "unload", "cart": 0, "count": 1})
    assert not state["shops"][shop["id"]]["filled"]
    assert game.rules.score_breakdown(state, 0)["delivered"] == 0


def test_only_own_colour_shops_accept_deliveries() -> None:
    state = clear_city(new_state())
    put(state, 0, own_shop(state, 1)["space"])
    assert refused(state, 0, {"type": "unload", "cart": 0, "count": 1}) == (
        "not_on_own_delivery_space")


def test_unloading_needs_action_points() -> None:
    state = clear_city(new_state())
    shop = own_shop(state, 0, order=3)
    put(state, 0, shop["space"], points=1)
    assert refused(state, 0, {"type": "unload", "cart": 0, "count": 2}) == "no_action_points"


def test_worked_example_yellow_delivers_two_then_blocks_blue() -> None:
    """Rule book: 2 spaces to the shop, unload 2 (2 points), last point onto the
    rival's delivery space, which the rival cannot then use."""
    state = clear_city(new_state())
    shop = own_shop(state, 0, order=2)
    # Find a two-step approach to our shop and a rival shop reachable in one step after it.
    approach = None
    for first in NEIGHBOURS[shop["space"]]:
        for second in NEIGHBOURS[first]:
            if second != shop["space"] and SPACES[second]["kind"] == "street" and SPACES[first][
                    "kind"] == "street":
                approach = [second, first]
                break
        if approach:
            break
    assert approach
    put(state, 0, approach[0])
    rival = own_shop(state, 1)
    state["shops"][rival["id"]]["space"] = rival["space"]
    state = play(state, 0, {"type": "move", "cart": 0, "path": [approach[1], shop["space"]]})
    state = play(state, 0, {"type": "unload", "cart": 0, "count": 2})
    assert state["shops"][shop["id"]]["filled"]
    assert state["carts"][0]["points"] == 1
    step = next(n for n in NEIGHBOURS[shop["space"]] if n != approach[1]
                and SPACES[n]["kind"] in ("street", "delivery"))
    state = play(state, 0, {"type": "move", "cart": 0, "path": [step]})
    assert state["carts"][0]["points"] == 0


def test_carts_of_one_colour_pass_merchandise_when_adjacent() -> None:
    state = clear_city(new_state())
    lane = city_lane(3)
    put(state, 0, lane[0], load=3)
    put(state, 1, lane[1], load=1)
    state2 = play(state, 0, {"type": "transfer", "from": 0, "to": 1, "count": 2})
    assert state2["carts"][0]["load"] == 1 and state2["carts"][1]["load"] == 3
    assert state2["carts"][0]["points"] == 3 and state2["carts"][1]["points"] == 5
    assert refused(state, 0, {"type": "transfer", "from": 0, "to": 1, "count": 3}) == "cart_full"
    put(state, 1, lane[2])
    assert refused(state, 0, {"type": "transfer", "from": 0, "to": 1, "count": 1}) == (
        "carts_not_adjacent")
