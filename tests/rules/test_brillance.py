"""Rules tests for Brillance: one test per rule, plus the rule book's examples."""

from __future__ import annotations

import contextlib
import copy
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


def play(state: dict[str, Any], seat: int, action: dict[str, Any], seed: int = 0) -> dict[str, Any]:
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
            nxt = [
                n
                for n in NEIGHBOURS[run[-1]]
                if SPACES[n]["y"] == last["y"] and SPACES[n]["x"] == last["x"] + 1
            ]
            if not nxt or SPACES[nxt[0]]["kind"] != "street" or SPACES[nxt[0]]["island"]:
                break
            run.append(nxt[0])
        if len(run) == length and all(
            SPACES[s]["kind"] == "street" and not SPACES[s]["island"] for s in run
        ):
            return run
    raise AssertionError("no lane that long")


def own_shop(state: dict[str, Any], seat: int, order: int | None = None) -> dict[str, Any]:
    colour = state["companies"][seat]
    return next(
        s
        for s in state["shops"]
        if s["colour"] == colour and (order is None or s["order"] == order)
    )


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
            "street",
            "bridge",
            "castle",
            "guard",
            "gate",
            "start",
            "delivery",
        )
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
        sums.append(
            sum(dist[s["id"]] for s in SPACES if s["kind"] == "delivery" and s["colour"] == colour)
        )
    assert max(sums) <= min(sums) * 1.1


def test_deck_has_36_cards_of_the_ten_named_kinds() -> None:
    assert len(DECK) == 36
    assert set(DECK) == set(CARD_KINDS)
    assert sum(info["count"] for info in CARD_KINDS.values()) == 36


# ---------------------------------------------------------------- options and set-up


def test_options_default_to_false() -> None:
    assert game.normalize_options({}, 3) == {
        "wandering_competitors": False,
        "speed_bonus": False,
        "one_card_per_turn": False,
    }


@pytest.mark.parametrize(
    "options, players",
    [
        ({"speed_bonus": True}, 3),
        ({"wandering_competitors": True}, 6),
        ({"one_card_per_turn": "yes"}, 4),
        ({"unknown": True}, 4),
        ({}, 7),
        ({}, 1),
    ],
)
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
    assert state["brigands"] == {
        "space": board.CASTLE,
        "loot": 0,
        "active": False,
        "points": 0,
        "immobile": False,
    }


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
    assert (
        play(state, 0, {"type": "move", "cart": 0, "path": [guard]})["carts"][0]["space"] == guard
    )


def test_carts_never_enter_the_castle() -> None:
    state = clear_city(new_state())
    state["brigands"]["space"] = SPACES[0]["id"]  # somewhere else
    beside = NEIGHBOURS[board.CASTLE][0]
    put(state, 0, beside)
    assert refused(state, 0, {"type": "move", "cart": 0, "path": [board.CASTLE]}) == (
        "castle_space"
    )


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
        "not_on_own_delivery_space"
    )


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
            if (
                second != shop["space"]
                and SPACES[second]["kind"] == "street"
                and SPACES[first]["kind"] == "street"
            ):
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
    step = next(
        n
        for n in NEIGHBOURS[shop["space"]]
        if n != approach[1] and SPACES[n]["kind"] in ("street", "delivery")
    )
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
        "carts_not_adjacent"
    )


# ---------------------------------------------------------------- event cards


def card_state(seat_cards: dict[int, list[str]], players: int = 3) -> dict[str, Any]:
    """A 3-player state, city cleared, with the given cards in hands."""
    state = clear_city(new_state(players))
    for seat in range(players):
        state["deck"].extend(state["hands"][seat])
        state["hands"][seat] = []
    ids = {}
    for seat, kinds in seat_cards.items():
        for kind in kinds:
            ids.setdefault(seat, []).append(hand_card(state, seat, kind))
    return state


def test_bonus_gift_lowers_the_order_but_scores_the_token() -> None:
    """Rule book: order of 3, Bonus Gift, deliver 2, score 3."""
    state = card_state({0: ["bonus_gift"]})
    shop = own_shop(state, 0, order=3)
    card = state["hands"][0][0]
    state = play(state, 0, {"type": "play_card", "card": card, "shop": shop["id"]})
    put(state, 0, shop["space"], load=2)
    state = play(state, 0, {"type": "unload", "cart": 0, "count": 2})
    assert state["shops"][shop["id"]]["filled"]
    assert rules.score_breakdown(state, 0)["delivered"] == 3


def test_delivery_error_raises_an_opponents_order_and_it_is_cancellable() -> None:
    state = card_state({0: ["delivery_error"], 1: ["lucky_break"]})
    shop = own_shop(state, 2)
    card = state["hands"][0][0]
    after = play(state, 0, {"type": "play_card", "card": card, "shop": shop["id"]})
    assert after["shops"][shop["id"]]["plus"]  # seat 2 holds no Lucky Break
    target = own_shop(state, 1, order=2)
    window = play(state, 0, {"type": "play_card", "card": card, "shop": target["id"]})
    assert game.pending(window) == [1]
    cancelled = play(window, 1, {"type": "react", "cancel": True})
    assert not cancelled["shops"][target["id"]]["plus"]
    assert cancelled["hands"][1] == [] and game.pending(cancelled) == [0]
    declined = play(window, 1, {"type": "react", "cancel": False})
    assert declined["shops"][target["id"]]["plus"]
    filled = copy.deepcopy(declined)
    filled["current"] = 1
    put(filled, 5, target["space"])
    filled["carts"][5]["owner"] = 1
    reason = refused(filled, 1, {"type": "unload", "cart": 5, "count": 3})
    assert reason in ("exceeds_order", "not_your_cart", "not_on_own_delivery_space")


def test_markers_only_on_shops_not_yet_delivered_and_never_twice() -> None:
    state = card_state({0: ["bonus_gift", "bonus_gift"]})
    first, second = state["hands"][0]
    shop = own_shop(state, 0)
    state2 = play(state, 0, {"type": "play_card", "card": first, "shop": shop["id"]})
    assert refused(state2, 0, {"type": "play_card", "card": second, "shop": shop["id"]}) == (
        "marker_already_placed"
    )
    state["shops"][shop["id"]]["delivered"] = 1
    assert refused(state, 0, {"type": "play_card", "card": first, "shop": shop["id"]}) == (
        "shop_already_delivered"
    )
    assert (
        refused(state, 0, {"type": "play_card", "card": first, "shop": own_shop(state, 1)["id"]})
        == "invalid_target"
    )


def test_both_markers_may_share_a_shop() -> None:
    state = card_state({0: ["delivery_error"], 1: ["bonus_gift"]})
    shop = own_shop(state, 1, order=2)
    state = play(state, 0, {"type": "play_card", "card": state["hands"][0][0], "shop": shop["id"]})
    state["current"] = 1
    state = play(state, 1, {"type": "play_card", "card": state["hands"][1][0], "shop": shop["id"]})
    assert rules.remaining_order(state["shops"][shop["id"]]) == 2


def test_breakdown_stops_a_cart_for_its_owners_next_turn_only() -> None:
    state = card_state({0: ["breakdown"]})
    lane = city_lane(3)
    rival = next(c["id"] for c in state["carts"] if c["owner"] == 1)
    put(state, rival, lane[0])
    state = play(state, 0, {"type": "play_card", "card": state["hands"][0][0], "target": rival})
    state = play(state, 0, {"type": "end_turn"})
    assert state["carts"][rival]["immobile"]
    assert refused(state, 1, {"type": "move", "cart": rival, "path": [lane[1]]}) == (
        "cart_immobilised"
    )
    state = play(state, 1, {"type": "end_turn"})
    assert not state["carts"][rival]["immobile"]


def test_breakdown_only_on_opponents_carts() -> None:
    state = card_state({0: ["breakdown"]})
    put(state, 0, city_lane(1)[0])
    assert (
        refused(state, 0, {"type": "play_card", "card": state["hands"][0][0], "target": 0})
        == "invalid_target"
    )


def test_breakdown_cancelled_by_lucky_break() -> None:
    state = card_state({0: ["breakdown"], 1: ["lucky_break"]})
    rival = next(c["id"] for c in state["carts"] if c["owner"] == 1)
    put(state, rival, city_lane(1)[0])
    state = play(state, 0, {"type": "play_card", "card": state["hands"][0][0], "target": rival})
    state = play(state, 1, {"type": "react", "cancel": True})
    assert not state["carts"][rival]["immobile"]
    assert len(state["discard"]) == 2


def test_collision_stops_two_adjacent_carts_of_two_opponents() -> None:
    state = card_state({0: ["collision"], 2: ["lucky_break"]})
    lane = city_lane(2)
    a = next(c["id"] for c in state["carts"] if c["owner"] == 1)
    b = next(c["id"] for c in state["carts"] if c["owner"] == 2)
    put(state, a, lane[0])
    put(state, b, lane[1])
    card = state["hands"][0][0]
    window = play(state, 0, {"type": "play_card", "card": card, "targets": [a, b]})
    assert game.pending(window) == [2]
    done = play(window, 2, {"type": "react", "cancel": False})
    assert done["carts"][a]["immobile"] and done["carts"][b]["immobile"]
    cancelled = play(window, 2, {"type": "react", "cancel": True})
    assert not cancelled["carts"][a]["immobile"]
    a2 = next(c["id"] for c in state["carts"] if c["owner"] == 1 and c["id"] != a)
    put(state, a2, lane[1])
    put(state, b, city_lane(5)[4])
    assert refused(state, 0, {"type": "play_card", "card": card, "targets": [a, a2]}) == (
        "invalid_target"
    )


def test_unfair_competition_steals_from_an_adjacent_cart_for_one_point() -> None:
    state = card_state({0: ["unfair_competition"], 1: ["lucky_break"]})
    lane = city_lane(2)
    rival = next(c["id"] for c in state["carts"] if c["owner"] == 1)
    put(state, 0, lane[0], load=1)
    put(state, rival, lane[1], load=2)
    card = state["hands"][0][0]
    window = play(state, 0, {"type": "play_card", "card": card, "cart": 0, "target": rival})
    done = play(window, 1, {"type": "react", "cancel": False})
    assert done["carts"][0]["load"] == 2 and done["carts"][rival]["load"] == 1
    assert done["carts"][0]["points"] == 4
    cancelled = play(window, 1, {"type": "react", "cancel": True})
    assert cancelled["carts"][0]["load"] == 1
    state["carts"][0]["load"] = 3
    assert (
        refused(state, 0, {"type": "play_card", "card": card, "cart": 0, "target": rival})
        == "cart_full"
    )


def test_unfair_competition_recovers_loot_from_the_brigands() -> None:
    state = card_state({0: ["unfair_competition"]})
    lane = city_lane(2)
    put(state, 0, lane[0], load=0)
    state["brigands"].update({"space": lane[1], "loot": 2, "active": True})
    state = play(
        state,
        0,
        {"type": "play_card", "card": state["hands"][0][0], "cart": 0, "target": rules.BRIGANDS},
    )
    assert state["carts"][0]["load"] == 1 and state["brigands"]["loot"] == 1


def test_unexpected_obstacle_blocks_an_empty_space_until_cleared() -> None:
    state = card_state({0: ["unexpected_obstacle", "clear_the_way"]})
    lane = city_lane(3)
    put(state, 0, lane[0])
    dwarf, clear = state["hands"][0]
    state = play(state, 0, {"type": "play_card", "card": dwarf, "space": lane[1]})
    assert refused(state, 0, {"type": "move", "cart": 0, "path": lane[1:]}) == "path_blocked"
    state = play(state, 0, {"type": "play_card", "card": clear, "space": lane[1]})
    assert (
        play(state, 0, {"type": "move", "cart": 0, "path": lane[1:]})["carts"][0]["space"]
        == lane[2]
    )


def test_guard_spaces_and_occupied_spaces_are_not_empty() -> None:
    state = card_state({0: ["unexpected_obstacle", "bribe"]})
    dwarf, bribe = state["hands"][0]
    guard = board.GUARD[state["companies"][1]]
    assert refused(state, 0, {"type": "play_card", "card": dwarf, "space": guard}) == (
        "not_empty_space"
    )
    put(state, 0, city_lane(1)[0])
    assert (
        refused(state, 0, {"type": "play_card", "card": dwarf, "space": city_lane(1)[0]})
        == "not_empty_space"
    )
    # An opponent's delivery space is empty when no cart stands on it.
    rival = own_shop(state, 1)
    assert play(state, 0, {"type": "play_card", "card": dwarf, "space": rival["space"]})[
        "obstacles"
    ] == [rival["space"]]
    beside_guard = next(n for n in NEIGHBOURS[guard] if SPACES[n]["kind"] == "street")
    rival_cart = next(c["id"] for c in state["carts"] if c["owner"] == 1)
    put(state, rival_cart, beside_guard)
    assert (
        refused(
            state, 0, {"type": "play_card", "card": bribe, "target": rival_cart, "space": guard}
        )
        == "not_empty_space"
    )


def test_bribe_moves_a_blocking_cart_one_space_but_never_the_dwarf() -> None:
    state = card_state({0: ["bribe"], 1: ["lucky_break"]})
    lane = city_lane(3)
    parked = next(c["id"] for c in new_state(3)["carts"] if c["owner"] is None)
    put(state, parked, lane[1])
    bribe = state["hands"][0][0]
    state2 = play(
        state, 0, {"type": "play_card", "card": bribe, "target": parked, "space": lane[2]}
    )
    assert state2["carts"][parked]["space"] == lane[2]  # no owner, so no reaction
    state["obstacles"] = [lane[0]]
    assert (
        refused(state, 0, {"type": "play_card", "card": bribe, "target": parked, "space": lane[0]})
        == "not_empty_space"
    )
    rival = next(c["id"] for c in state["carts"] if c["owner"] == 1)
    put(state, rival, lane[2])
    state["obstacles"] = []
    state["carts"][parked]["space"] = None
    window = play(state, 0, {"type": "play_card", "card": bribe, "target": rival, "space": lane[1]})
    assert game.pending(window) == [1]
    assert play(window, 1, {"type": "react", "cancel": True})["carts"][rival]["space"] == lane[2]


def test_lucky_break_is_only_a_reaction() -> None:
    state = card_state({0: ["lucky_break"]})
    assert refused(state, 0, {"type": "play_card", "card": state["hands"][0][0]}) == (
        "only_as_reaction"
    )


def test_cards_not_in_hand_are_refused() -> None:
    state = card_state({0: []})
    card = state["deck"][0]
    assert refused(state, 0, {"type": "play_card", "card": card}) == "card_not_in_hand"


def test_any_number_of_cards_per_turn_by_default() -> None:
    state = card_state({0: ["bonus_gift", "bonus_gift"]})
    first, second = state["hands"][0]
    shops = [s for s in state["shops"] if s["colour"] == state["companies"][0]]
    state = play(state, 0, {"type": "play_card", "card": first, "shop": shops[0]["id"]})
    state = play(state, 0, {"type": "play_card", "card": second, "shop": shops[1]["id"]})
    assert state["shops"][shops[1]["id"]]["minus"]


def test_one_card_per_turn_variant_except_bribe() -> None:
    state = card_state({0: ["bonus_gift", "bonus_gift", "bribe"]})
    state["options"]["one_card_per_turn"] = True
    first, second, bribe = state["hands"][0]
    shops = [s for s in state["shops"] if s["colour"] == state["companies"][0]]
    state = play(state, 0, {"type": "play_card", "card": first, "shop": shops[0]["id"]})
    assert refused(state, 0, {"type": "play_card", "card": second, "shop": shops[1]["id"]}) == (
        "one_card_per_turn"
    )
    lane = city_lane(2)
    parked = next(c["id"] for c in new_state(3)["carts"] if c["owner"] is None)
    put(state, parked, lane[0])
    state = play(state, 0, {"type": "play_card", "card": bribe, "target": parked, "space": lane[1]})
    assert state["carts"][parked]["space"] == lane[1]


def test_hand_never_exceeds_four_and_a_card_is_drawn_at_end_of_turn() -> None:
    state = card_state({0: ["bribe"]})
    after = play(state, 0, {"type": "end_turn"})
    assert len(after["hands"][0]) == 2
    full = card_state({0: ["bribe", "bribe", "bribe", "bribe"]})
    after = play(full, 0, {"type": "end_turn"})
    assert len(after["hands"][0]) == 4


def test_discards_are_reshuffled_when_the_deck_runs_out() -> None:
    state = card_state({0: []})
    state["discard"] = list(state["deck"])
    state["deck"] = []
    events = game.decide(state, 0, {"type": "end_turn"}, random.Random(3))
    assert [e["type"] for e in events][:3] == ["turn_ended", "deck_reshuffled", "card_drawn"]
    after = fold(game, events, state)
    assert after["discard"] == [] and len(after["hands"][0]) == 1


# ---------------------------------------------------------------- brigands


def brigands_state() -> dict[str, Any]:
    state = card_state({0: ["brigands", "brigands"]})
    return state


def test_brigands_card_lets_its_player_move_them_five_spaces() -> None:
    state = brigands_state()
    state = play(state, 0, {"type": "play_card", "card": state["hands"][0][0]})
    assert state["phase"] == "brigands" and state["brigands"]["active"]
    options = rules.brigands_reachable(state)
    assert options and max(len(p) for p in options.values()) <= 5
    far = max(options, key=lambda s: len(options[s]))
    state = play(state, 0, {"type": "brigands_move", "path": options[far]})
    assert state["brigands"]["space"] == far


def test_after_a_brigands_card_each_next_player_moves_them_first() -> None:
    state = brigands_state()
    state = play(state, 0, {"type": "play_card", "card": state["hands"][0][0]})
    state = play(state, 0, {"type": "brigands_end"})
    state = play(state, 0, {"type": "end_turn"})
    assert state["current"] == 1 and state["phase"] == "brigands"
    assert refused(state, 1, {"type": "end_turn"}) == "brigands_to_move"
    assert state["brigands"]["points"] == 5


def test_brigands_steal_one_merchandise_per_adjacent_cart_for_one_point_each() -> None:
    state = brigands_state()
    lane = city_lane(5)
    state = play(state, 0, {"type": "play_card", "card": state["hands"][0][0]})
    state["brigands"]["space"] = lane[0]
    rival = [c["id"] for c in state["carts"] if c["owner"] == 1][:2]
    stop = lane[2]
    around = [n for n in NEIGHBOURS[stop] if n not in lane[:2]][:2]
    for cart_id, space in zip(rival, [lane[3]] + around[1:], strict=False):
        put(state, cart_id, space, load=3)
    state = play(state, 0, {"type": "brigands_move", "path": lane[1:3]})
    robbed = [
        c
        for c in rival
        if state["carts"][c]["load"] == 2 and state["carts"][c]["space"] in NEIGHBOURS[stop]
    ]
    assert state["brigands"]["loot"] == len(robbed) >= 1
    assert state["brigands"]["points"] == 5 - 2 - len(robbed)


def test_full_brigands_must_go_straight_home_and_then_sleep() -> None:
    state = brigands_state()
    state = play(state, 0, {"type": "play_card", "card": state["hands"][0][0]})
    castle = board.CASTLE
    dist = board.bfs(castle, NEIGHBOURS)
    start = next(s for s, d in dist.items() if d == 3 and SPACES[s]["kind"] == "street")
    state["brigands"].update({"space": start, "loot": 3})
    assert refused(state, 0, {"type": "brigands_end"}) == "brigands_must_return"
    away = next(n for n in NEIGHBOURS[start] if dist.get(n, 0) > 3)
    assert refused(state, 0, {"type": "brigands_move", "path": [away]}) == ("brigands_must_return")
    path = rules.brigands_reachable(state)[castle]
    state = play(state, 0, {"type": "brigands_move", "path": path})
    assert state["brigands"] == {**state["brigands"], "space": castle, "loot": 0, "active": False}
    state = play(state, 0, {"type": "end_turn"})
    assert state["phase"] == "main"  # asleep: nobody moves them until a new card


def test_breakdown_on_the_brigands_skips_their_next_move() -> None:
    state = card_state({0: ["brigands", "breakdown"]})
    brig_card, breakdown = state["hands"][0]
    state = play(state, 0, {"type": "play_card", "card": brig_card})
    state = play(state, 0, {"type": "brigands_end"})
    state = play(state, 0, {"type": "play_card", "card": breakdown, "target": rules.BRIGANDS})
    state = play(state, 0, {"type": "end_turn"})
    assert state["current"] == 1 and state["phase"] == "main"
    assert not state["brigands"]["immobile"]


# ---------------------------------------------------------------- optional rules


def test_wandering_competitors_move_non_player_carts_after_own_carts() -> None:
    state = new_state(2, wandering_competitors=True)
    assert state["turn"]["wander_left"] == 3
    parked = next(c for c in state["carts"] if c["owner"] is None)
    options = rules.reachable(state, parked, 3)
    assert options
    target = max(options, key=lambda s: len(options[s]))
    moved = play(state, 0, {"type": "wander", "cart": parked["id"], "path": options[target]})
    assert moved["carts"][parked["id"]]["space"] == target
    own = next(c["id"] for c in moved["carts"] if c["owner"] == 0)
    gate = board.GATE[moved["companies"][0]]
    assert refused(moved, 0, {"type": "move", "cart": own, "path": [gate]}) == (
        "carts_already_done"
    )


@pytest.mark.parametrize("players, spaces", [(2, 3), (3, 3), (4, 2), (5, 1)])
def test_wandering_spaces_depend_on_player_count(players: int, spaces: int) -> None:
    assert new_state(players, wandering_competitors=True)["turn"]["wander_left"] == spaces


def test_without_the_option_nobody_wanders() -> None:
    state = new_state(2)
    parked = next(c for c in state["carts"] if c["owner"] is None)
    step = next(iter(rules.reachable(state, parked, 1).values()))
    assert refused(state, 0, {"type": "wander", "cart": parked["id"], "path": step}) == (
        "no_wandering"
    )


@pytest.mark.parametrize("round_, bonus", [(5, 0), (6, 6), (7, 4), (8, 3), (9, 2), (10, 1)])
def test_speed_bonus_for_empty_carts_leaving_from_turn_six(round_: int, bonus: int) -> None:
    state = clear_city(new_state(4, speed_bonus=True))
    state["round"] = round_
    colour = state["companies"][0]
    put(state, 0, board.GUARD[colour], load=0)
    after = play(state, 0, {"type": "move", "cart": 0, "path": [board.GATE[colour]]})
    assert rules.score_breakdown(after, 0) == {"delivered": 0, "carts_out": 1, "speed_bonus": bonus}
    put(state, 0, board.GUARD[colour], load=1)
    loaded = play(state, 0, {"type": "move", "cart": 0, "path": [board.GATE[colour]]})
    assert rules.score_breakdown(loaded, 0)["speed_bonus"] == 0


# ---------------------------------------------------------------- end of game


def finish(state: dict[str, Any]) -> dict[str, Any]:
    state = copy.deepcopy(state)
    state["round"] = rules.ROUNDS
    state["current"] = state["num_players"] - 1
    return play(state, state["current"], {"type": "end_turn"})


def test_game_ends_after_the_tenth_turn() -> None:
    state = new_state(2)
    for _ in range(10):
        for seat in range(2):
            assert not game.is_over(state)
            state = play(state, seat, {"type": "end_turn"})
    assert game.is_over(state)
    assert refused(state, 0, {"type": "end_turn"}) == "game_finished"


def test_score_is_completed_orders_plus_carts_out() -> None:
    state = clear_city(new_state(2))
    for shop in state["shops"]:
        if shop["colour"] == state["companies"][0] and shop["order"] == 3:
            shop["filled"] = True
    partly = own_shop(state, 0, order=2)
    state["shops"][partly["id"]]["delivered"] = 1
    state["exits"] = [{"seat": 0, "cart": 0, "round": 9, "bonus": 0, "load": 0}]
    result = game.result(finish(state))
    assert result["scores"] == [9 + 1, 0]
    assert result["winners"] == [0] and result["ranking"] == [0, 1]


def test_ties_go_to_the_first_player_to_bring_a_cart_out() -> None:
    state = clear_city(new_state(2))
    state["exits"] = [
        {"seat": 1, "cart": 15, "round": 4, "bonus": 0, "load": 0},
        {"seat": 0, "cart": 0, "round": 5, "bonus": 0, "load": 0},
    ]
    result = game.result(finish(state))
    assert result["scores"] == [1, 1]
    assert result["winners"] == [1] and result["ranking"] == [1, 0]


def test_a_tie_without_any_cart_out_is_shared() -> None:
    result = game.result(finish(clear_city(new_state(3))))
    assert result["winners"] == [0, 1, 2]


# ---------------------------------------------------------------- the contract


@pytest.fixture(scope="module")
def bot_games() -> dict[int, tuple[dict[str, Any], list[dict[str, Any]]]]:
    games = {}
    for players in (2, 4, 6):
        options = {"wandering_competitors": players < 6, "speed_bonus": players >= 4}
        games[players] = play_bot_game(game, players, options, random.Random(players))
    return games


@pytest.mark.parametrize("players", [2, 4, 6])
def test_bot_game_runs_to_the_end_of_turn_ten(bot_games: dict, players: int) -> None:
    state, events = bot_games[players]
    assert game.is_over(state) and state["round"] == 10
    result = game.result(state)
    assert len(result["scores"]) == players
    assert sorted(result["ranking"]) == list(range(players))
    assert all(isinstance(e["type"], str) and "." not in e["type"] and "actor" in e for e in events)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_states_are_json_and_folding_the_events_gives_the_final_state(
    bot_games: dict, players: int
) -> None:
    final, events = bot_games[players]
    assert fold(game, events) == final
    state: dict[str, Any] = {}
    for index, event in enumerate(events):
        state = game.evolve(state, event)
        if index % 25 == 0:
            assert json.loads(json.dumps(state)) == state
            assert json.loads(json.dumps(event)) == event
    assert json.loads(json.dumps(final)) == final


def test_evolve_never_mutates_its_input(bot_games: dict) -> None:
    _, events = bot_games[4]
    state: dict[str, Any] = {}
    for event in events:
        before = copy.deepcopy(state)
        new = game.evolve(state, event)
        assert state == before
        state = new


def sample_states(events: list[dict[str, Any]], every: int):
    state: dict[str, Any] = {}
    for index, event in enumerate(events):
        state = game.evolve(state, event)
        if index % every == 0 and not game.is_over(state):
            yield state


@pytest.mark.parametrize("players", [2, 6])
def test_every_legal_action_is_accepted_and_auto_action_is_legal(
    bot_games: dict, players: int
) -> None:
    _, events = bot_games[players]
    rng = random.Random(0)
    checked = 0
    for state in sample_states(events, 37):
        for seat in range(players):
            actions = game.legal_actions(state, seat)
            if seat not in game.pending(state):
                assert actions == []
                continue
            assert actions
            for action in actions:
                game.decide(state, seat, action, random.Random(1))
                checked += 1
            auto = game.auto_action(state, seat, rng)
            game.decide(state, seat, auto, random.Random(1))
    assert checked > 100


def test_acting_out_of_turn_is_refused(bot_games: dict) -> None:
    state = new_state(3)
    assert refused(state, 1, {"type": "end_turn"}) == "not_your_turn"
    assert game.legal_actions(state, 1) == []


GARBAGE: list[Any] = [
    None,
    3,
    "move",
    [],
    {},
    {"type": 5},
    {"type": "fly"},
    {"type": "move"},
    {"type": "move", "cart": "0", "path": [1]},
    {"type": "move", "cart": 0, "path": "12"},
    {"type": "move", "cart": 0, "path": []},
    {"type": "move", "cart": 0, "path": [10**9]},
    {"type": "move", "cart": 0, "path": [True]},
    {"type": "move", "cart": -1, "path": [1]},
    {"type": "move", "cart": 999, "path": [1]},
    {"type": "move", "cart": 30, "path": [1]},
    {"type": "move", "cart": 0, "path": [[1]]},
    {"type": "move", "cart": 0, "path": [1.5]},
    {"type": "unload", "cart": 0},
    {"type": "unload", "cart": 0, "count": -2},
    {"type": "unload", "cart": 0, "count": 2.0},
    {"type": "transfer", "from": 0},
    {"type": "transfer", "from": 0, "to": 0, "count": 1},
    {"type": "play_card"},
    {"type": "play_card", "card": None},
    {"type": "play_card", "card": -1},
    {"type": "play_card", "card": 10**12},
    {"type": "react"},
    {"type": "react", "cancel": "yes"},
    {"type": "brigands_move", "path": [1]},
    {"type": "brigands_end"},
    {"type": "wander", "cart": 0, "path": [1]},
    {"type": "end_turn", "extra": {"x": []}},
]


@pytest.mark.parametrize("action", GARBAGE, ids=[repr(a)[:40] for a in GARBAGE])
def test_malformed_actions_raise_only_illegal_action(action: Any) -> None:
    states = [new_state(3)]
    for hand_kind in (
        "bonus_gift",
        "breakdown",
        "collision",
        "bribe",
        "unexpected_obstacle",
        "clear_the_way",
        "unfair_competition",
        "delivery_error",
        "brigands",
    ):
        state = card_state({0: [hand_kind]})
        states.append(state)
    for state in states:
        for seat in (0, 1, 7, -1):
            with contextlib.suppress(IllegalAction):
                game.decide(state, seat, action, random.Random(0))
            if isinstance(action, dict) and action.get("type") == "play_card" and state["hands"][0]:
                card_action = {**action, "card": state["hands"][0][0]}
                with contextlib.suppress(IllegalAction):
                    game.decide(state, 0, card_action, random.Random(0))
                for key in ("shop", "target", "space", "cart", "targets"):
                    for junk in (None, "x", -5, 10**6, [1, 2, 3], True, 2.5):
                        with contextlib.suppress(IllegalAction):
                            game.decide(state, 0, {**card_action, key: junk}, random.Random(0))


def test_reason_codes_for_unknown_and_malformed_actions() -> None:
    state = new_state(2)
    assert refused(state, 0, {"type": "fly"}) == "unknown_action"
    assert refused(state, 0, {"kind": "move"}) == "malformed_action"
    assert refused(state, 0, {"type": "move", "cart": 0, "path": "up"}) == "malformed_action"
    assert refused(state, 0, {"type": "move", "cart": 20, "path": [1]}) == "not_your_cart"
    assert refused(state, 0, {"type": "react", "cancel": True}) == "no_reaction_pending"


# ---------------------------------------------------------------- hidden information


def test_view_shows_own_hand_and_only_counts_of_other_hands_and_the_deck() -> None:
    state = new_state(3)
    for seat in (0, 1, 2, None):
        seen = game.view(state, seat)
        assert "hands" not in seen and "deck" not in seen
        assert seen["hand_counts"] == [2, 2, 2] and seen["deck_count"] == 30
        text = json.dumps(seen)
        if seat is None:
            assert "hand" not in seen
        else:
            assert seen["hand"] == state["hands"][seat]
        assert json.dumps(state["deck"]) not in text


def test_setup_and_draw_events_are_redacted_for_everyone_else(bot_games: dict) -> None:
    _, events = bot_games[4]
    for event in events:
        for seat in (0, 1, 2, 3, None):
            shown = game.redact_event(event, seat)
            assert "order" not in shown or shown["type"] not in ("deck_shuffled", "deck_reshuffled")
            if event["type"] in ("cards_dealt", "card_drawn"):
                if event["seat"] == seat:
                    assert shown == event
                else:
                    assert "cards" not in shown and "card" not in shown
    shuffles = [e for e in events if e["type"] == "deck_shuffled"]
    assert shuffles and "order" in shuffles[0]


def test_redact_event_does_not_change_its_input() -> None:
    event = {"type": "card_drawn", "actor": 0, "seat": 0, "card": 5}
    before = copy.deepcopy(event)
    game.redact_event(event, 1)
    assert event == before


def test_reaction_window_is_open_only_to_the_targeted_player() -> None:
    state = card_state({0: ["breakdown"], 1: ["lucky_break"], 2: ["lucky_break"]})
    rival = next(c["id"] for c in state["carts"] if c["owner"] == 1)
    put(state, rival, city_lane(1)[0])
    window = play(state, 0, {"type": "play_card", "card": state["hands"][0][0], "target": rival})
    assert game.pending(window) == [1]
    assert refused(window, 2, {"type": "react", "cancel": True}) == "not_your_turn"
    assert refused(window, 0, {"type": "end_turn"}) == "not_your_turn"
    assert game.legal_actions(window, 1) == [
        {"type": "react", "cancel": True},
        {"type": "react", "cancel": False},
    ]
    assert game.auto_action(window, 1, random.Random(0)) == {"type": "react", "cancel": True}


def test_no_system_steps() -> None:
    assert game.system_step(new_state(2), random.Random(0)) is None


def test_package_imports_no_django_and_no_random_at_runtime() -> None:
    import subprocess
    import sys

    code = (
        "import sys; import games.rules.brillance; "
        "assert 'django' not in sys.modules; "
        "import games.rules.brillance.rules as r, games.rules.brillance.bot as b; "
        "assert not hasattr(r, 'random') and not hasattr(b, 'random')"
    )
    subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        cwd=str(__import__("pathlib").Path(__file__).resolve().parents[2]),
    )


def test_docs_show_the_board_drawn_from_the_data() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs/rules/brillance.md").read_text()
    start = doc.index("<!-- board:start -->\n") + len("<!-- board:start -->\n")
    end = doc.index("\n<!-- board:end -->")
    assert doc[start:end] == board.draw()


def test_worked_example_blue_takes_the_ox_bridge_when_the_tapirs_bridge_is_blocked() -> None:
    """Rule book: the orange cart blocks the Tapirs Bridge, so the blue cart heads
    for the Ox Bridge; the orange guard forbids stopping in front of the gate."""
    state = clear_city(new_state(6))
    tapirs = [s["id"] for s in SPACES if s["name"] == "Tapirs Bridge"]
    ox = {s["id"] for s in SPACES if s["name"] == "Ox Bridge"}
    north_of_tapirs = next(
        n
        for n in NEIGHBOURS[tapirs[0]]
        if not SPACES[n]["island"] and SPACES[n]["kind"] != "bridge"
    )
    island_end = next(n for n in NEIGHBOURS[tapirs[-1]] if SPACES[n]["island"])
    blue = next(c["id"] for c in state["carts"] if c["colour"] == "blue")
    orange = next(c["id"] for c in state["carts"] if c["colour"] == "orange")
    put(state, blue, north_of_tapirs, points=30)
    put(state, orange, tapirs[0])
    path = rules.reachable(state, state["carts"][blue], 30)[island_end]
    assert ox & set(path) and not set(tapirs) & set(path)
    orange_guard = board.GUARD["orange"]
    state["current"] = 1
    state["carts"][blue]["points"] = 5
    before_guard = next(n for n in NEIGHBOURS[orange_guard] if SPACES[n]["kind"] == "street")
    put(state, blue, before_guard)
    assert refused(state, 1, {"type": "move", "cart": blue, "path": [orange_guard]}) == (
        "guard_space"
    )


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 300)
    | st.floats(allow_nan=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
action_keys = st.sampled_from(
    [
        "type",
        "cart",
        "path",
        "count",
        "from",
        "to",
        "card",
        "shop",
        "target",
        "targets",
        "space",
        "cancel",
    ]
)
action_types = st.sampled_from(
    [
        "move",
        "unload",
        "transfer",
        "play_card",
        "react",
        "brigands_move",
        "brigands_end",
        "wander",
        "end_turn",
        "x",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=action_types,
    fields=st.dictionaries(action_keys, json_values, max_size=4),
    seat=st.integers(-1, 3),
)
def test_random_actions_raise_only_illegal_action(kind: str, fields: dict, seat: int) -> None:
    state = FUZZ_STATE
    action = {**fields, "type": kind} if "type" not in fields else fields
    with contextlib.suppress(IllegalAction):
        game.decide(state, seat, action, random.Random(0))
    card_play = {**fields, "type": "play_card", "card": state["hands"][0][len(fields) % 3]}
    with contextlib.suppress(IllegalAction):
        game.decide(state, 0, card_play, random.Random(0))


FUZZ_STATE = card_state({0: ["bribe", "collision", "unfair_competition"]})


def test_views_along_a_bot_game_never_show_other_hands_or_the_deck(bot_games: dict) -> None:
    _, events = bot_games[4]
    for state in sample_states(events, 20):
        for seat in (0, 1, 2, 3, None):
            seen = game.view(state, seat)
            assert "hands" not in seen and "deck" not in seen
            assert seen["hand_counts"] == [len(h) for h in state["hands"]]
            assert seen["deck_count"] == len(state["deck"])
            assert seen.get("hand") == (None if seat is None else state["hands"][seat])
            assert json.loads(json.dumps(seen)) == seen
