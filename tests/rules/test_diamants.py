"""Diamants rules tests: one test (or case) per rule, plus contract checks
along whole bot games. No database, no Django."""

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

from games.rules import diamants as D
from games.rules.base import IllegalAction, InvalidOptions, fold, play_bot_game
from games.rules.diamants import cards
from games.rules.diamants.engine import is_valid_roll


class FixedRng:
    """An rng whose dice are given in advance, so each rule test is exact."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)

    def randint(self, a: int, b: int) -> int:
        value = self.values.pop(0)
        assert a <= value <= b
        return value

    def shuffle(self, x: list[Any]) -> None:
        raise AssertionError("Diamants never shuffles")

    def choice(self, seq: Any) -> Any:
        raise AssertionError("Diamants never chooses at random")

    def random(self) -> float:
        raise AssertionError("Diamants never draws floats")


def started(num_players: int = 2, first: int = 0, **changes: Any) -> dict[str, Any]:
    """A game right after the roll-off, with ``first`` to play; ``changes``
    override state fields (table, stacks, specials...)."""
    events = D.setup(num_players, {}, FixedRng())
    events += [
        {"type": "first_player_chosen", "actor": None, "seat": first},
        {"type": "turn_started", "actor": None, "seat": first, "round": 1},
    ]
    state = fold(D, events)
    for key, value in changes.items():
        if key == "specials":
            state["specials"].update(value)
        else:
            state[key] = value
    return state


def act(state: dict[str, Any], seat: int, action: dict[str, Any], *dice: int):
    """Decide and fold; returns (new state, events)."""
    events = D.decide(state, seat, action, FixedRng(*dice))
    return fold(D, events, state), events


def roll(state: dict[str, Any], seat: int, *dice: int):
    return act(state, seat, {"type": "roll"}, *dice)


def refused(state: dict[str, Any], seat: int, action: Any, *dice: int) -> str:
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as info:
        D.decide(state, seat, action, FixedRng(*dice))
    assert state == before
    return info.value.reason


def types(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


# --------------------------------------------------------------------------- material


def test_material_has_18_numbered_cards_and_10_special_cards() -> None:
    material = D.material()
    assert [c["value"] for c in material["numbered_cards"]] == list(range(1, 19))
    assert len(material["special_cards"]) == 10
    kinds = [c["kind"] for c in material["special_cards"]]
    assert kinds.count("thief") == 2 and kinds.count("treasure") == 1
    assert json.loads(json.dumps(material)) == material


def test_material_every_named_special_exists_and_end_values_have_both_signs() -> None:
    named = {c["special"] for c in D.material()["numbered_cards"]} - {None}
    assert named <= set(cards.SPECIALS_BY_KIND)
    assert set(cards.SPECIALS_BY_KIND) - {"treasure"} <= named
    values = [cards.end_value(c) for c in cards.SPECIAL_CARDS]
    assert min(values) < 0 < max(values)
    diamonds = [cards.diamonds(v) for v in range(1, 19)]
    assert diamonds == sorted(diamonds) and diamonds[0] >= 1


def test_material_one_special_card_uses_the_white_die() -> None:
    assert "white_die" in cards.SPECIALS_BY_KIND


# --------------------------------------------------------------------------- options


def test_options_are_empty_and_unknown_keys_are_refused() -> None:
    assert D.normalize_options({}, 4) == {}
    with pytest.raises(InvalidOptions):
        D.normalize_options({"level": 1}, 4)


@pytest.mark.parametrize("num_players", [1, 7])
def test_options_refuse_player_counts_outside_2_to_6(num_players: int) -> None:
    with pytest.raises(InvalidOptions):
        D.normalize_options({}, num_players)


# --------------------------------------------------------------------------- rule [1]


def test_rule_1_highest_rolloff_total_starts_then_clockwise() -> None:
    state = fold(D, D.setup(3, {}, FixedRng()))
    assert D.pending(state) == [] and D.legal_actions(state, 0) == []
    events = D.system_step(state, FixedRng(1, 2, 3, 6, 6, 5, 4, 4, 4))
    state = fold(D, events, state)
    assert [e["actor"] for e in events if e["type"] == "rolloff_rolled"] == [0, 1, 2]
    assert state["first_player"] == 1 and D.pending(state) == [1]
    assert D.system_step(state, FixedRng()) is None
    state, _ = roll(state, 1, 1, 1, 2)
    state, events = act(state, 1, {"type": "take", "card": 4})
    assert D.pending(state) == [2]


def test_rule_1_tied_rolloff_is_rolled_again_by_the_tied_seats_only() -> None:
    state = fold(D, D.setup(3, {}, FixedRng()))
    events = D.system_step(state, FixedRng(6, 6, 5, 1, 1, 1, 5, 6, 6))
    state = fold(D, events, state)
    assert events[-1] == {"type": "rolloff_tied", "actor": None, "seats": [0, 2]}
    assert D.pending(state) == []
    events = D.system_step(state, FixedRng(1, 1, 1, 2, 2, 2))
    assert [e["actor"] for e in events if e["type"] == "rolloff_rolled"] == [0, 2]
    state = fold(D, events, state)
    assert state["first_player"] == 2 and D.pending(state) == [2]


# --------------------------------------------------------------------------- rule [2]


@pytest.mark.parametrize(
    "dice, valid",
    [
        ([1, 3, 4], True),  # a 1
        ([2, 6, 3], True),  # a 6
        ([4, 4, 4], True),  # three identical dice
        ([2, 3, 4], False),  # none of the three
        ([5, 5, 4], False),  # a pair is not a triple
        ([2, 2, 5], False),
    ],
)
def test_rule_2_valid_roll_needs_a_one_a_six_or_a_triple(dice: list[int], valid: bool) -> None:
    assert is_valid_roll(dice) is valid
    state, events = roll(started(), 0, *dice)
    assert events[0]["valid"] is valid
    assert state["unlocked"] is valid
    assert (D.legal_actions(state, 0) == [{"type": "roll"}]) is not valid


def test_rule_2_special_cards_cannot_be_used_before_a_valid_roll() -> None:
    state = started(specials={"white_die": 0})
    assert refused(state, 0, {"type": "use_special", "card": "white_die"}, 3) == "no_valid_roll_yet"
    state, _ = roll(state, 0, 2, 3, 4)
    assert refused(state, 0, {"type": "use_special", "card": "white_die"}, 3) == "no_valid_roll_yet"
    state, _ = roll(state, 0, 2, 3, 6)
    assert {"type": "use_special", "card": "white_die"} in D.legal_actions(state, 0)


def test_rule_2_at_most_two_rolls_per_turn() -> None:
    state, _ = roll(started(), 0, 1, 2, 3)
    assert {"type": "roll"} in D.legal_actions(state, 0)
    state, _ = roll(state, 0, 1, 4, 5)
    assert state["rolls"] == 2
    assert {"type": "roll"} not in D.legal_actions(state, 0)
    assert refused(state, 0, {"type": "roll"}, 1, 1, 1) == "no_rolls_left"


def test_rule_2_take_before_any_roll_is_refused() -> None:
    assert refused(started(), 0, {"type": "take", "card": 1}) == "no_valid_roll_yet"
    assert refused(started(), 0, {"type": "stop"}) == "no_valid_roll_yet"


# --------------------------------------------------------------------------- rule [3]


def test_rule_3_take_a_card_of_value_at_most_the_sum() -> None:
    state, _ = roll(started(), 0, 1, 3, 5)  # sum 9
    takes = [a["card"] for a in D.legal_actions(state, 0) if a["type"] == "take"]
    assert takes == list(range(1, 10))
    assert refused(state, 0, {"type": "take", "card": 10}) == "sum_too_low"
    state, events = act(state, 0, {"type": "take", "card": 9})
    assert state["stacks"][0] == [9] and 9 not in state["table"]
    assert types(events)[0] == "card_taken" and D.pending(state) == [1]


def test_rule_3_a_card_not_on_the_table_cannot_be_taken() -> None:
    state, _ = roll(started(table=[1, 2, 3], stacks=[[], [4]]), 0, 1, 3, 5)
    assert refused(state, 0, {"type": "take", "card": 4}) == "card_not_on_table"


def test_rule_3_a_valid_first_roll_may_be_rolled_again() -> None:
    state, _ = roll(started(), 0, 1, 1, 2)
    state, events = roll(state, 0, 6, 6, 5)
    assert state["dice"] == [6, 6, 5] and state["unlocked"]
    state, _ = act(state, 0, {"type": "take", "card": 17})
    assert state["stacks"][0] == [17]


# --------------------------------------------------------------------------- rules [4] and [7]


def test_rule_4_invalid_second_roll_fails_turn_flips_highest_and_returns_top() -> None:
    state = started(stacks=[[3, 8], []], table=[1, 2, 5, 12])
    state, _ = roll(state, 0, 2, 3, 4)
    state, events = roll(state, 0, 5, 5, 4)
    assert types(events) == ["dice_rolled", "failure", "turn_started"]
    assert events[1] == {"type": "failure", "actor": 0, "flipped": 12, "returned": 8}
    assert state["face_down"] == [12]
    assert state["table"] == [1, 2, 5, 8] and state["stacks"][0] == [3]
    assert D.pending(state) == [1]


def test_rule_4_failure_without_a_card_only_flips_the_highest() -> None:
    state = started(table=[1, 2, 5, 12])
    state, _ = roll(state, 0, 2, 3, 4)
    state, events = roll(state, 0, 2, 3, 4)
    assert events[1]["returned"] is None and state["face_down"] == [12]
    assert state["table"] == [1, 2, 5] and D.pending(state) == [1]


def test_rule_7_a_sum_that_allows_no_take_is_an_invalid_roll() -> None:
    state = started(table=[10, 11], stacks=[[], [9]])
    state, events = roll(state, 0, 1, 2, 3)  # valid, sum 6: nothing to take or steal
    assert events[0]["valid"] and not events[0]["playable"]
    assert D.legal_actions(state, 0) == [{"type": "roll"}]
    state, events = roll(state, 0, 1, 2, 4)
    assert events[1] == {"type": "failure", "actor": 0, "flipped": 11, "returned": None}


def test_rule_7_an_exact_steal_makes_a_low_roll_playable() -> None:
    state = started(table=[10, 11], stacks=[[], [6]])
    state, events = roll(state, 0, 1, 2, 3)
    assert events[0]["playable"]
    assert D.legal_actions(state, 0) == [{"type": "steal", "seat": 1}, {"type": "roll"}]


# --------------------------------------------------------------------------- rules [5] and [6]


def test_rule_5_second_card_covers_the_first() -> None:
    state = started(stacks=[[4], []], table=[1, 9])
    state, _ = roll(state, 0, 1, 3, 5)
    state, _ = act(state, 0, {"type": "take", "card": 9})
    assert state["stacks"][0] == [4, 9]


def test_rule_5_only_the_top_card_can_be_stolen() -> None:
    state = started(stacks=[[], [7, 9]], table=[18])
    state, events = roll(state, 0, 1, 2, 4)  # sum 7 matches the covered card only
    assert not events[0]["playable"]
    state = started(stacks=[[], [7, 9]], table=[1])
    state, _ = roll(state, 0, 1, 2, 4)
    assert {"type": "steal", "seat": 1} not in D.legal_actions(state, 0)
    assert refused(state, 0, {"type": "steal", "seat": 1}) == "steal_sum_mismatch"


def test_rule_6_steal_the_top_card_when_the_sum_is_exact() -> None:
    state = started(stacks=[[2], [7, 9]], table=[1])
    state, _ = roll(state, 0, 1, 2, 6)  # sum 9
    state, events = act(state, 0, {"type": "steal", "seat": 1})
    assert events[0] == {"type": "card_stolen", "actor": 0, "card": 9, "from": 1, "by": "dice"}
    assert state["stacks"] == [[2, 9], [7]]
    assert D.pending(state) == [1]


@pytest.mark.parametrize(
    "target, reason", [(0, "invalid_target"), (2, "invalid_target"), (-1, "invalid_target")]
)
def test_rule_6_steal_target_must_be_an_opponent(target: int, reason: str) -> None:
    state, _ = roll(started(stacks=[[9], [9]]), 0, 1, 2, 6)
    assert refused(state, 0, {"type": "steal", "seat": target}) == reason


def test_rule_6_steal_from_an_empty_stack_is_refused() -> None:
    state, _ = roll(started(), 0, 1, 2, 6)
    assert refused(state, 0, {"type": "steal", "seat": 1}) == "empty_stack"


# --------------------------------------------------------------------------- special cards: gaining


def test_special_taking_a_card_gives_its_special_from_the_table() -> None:
    state, _ = roll(started(), 0, 1, 2, 6)
    state, events = act(state, 0, {"type": "take", "card": 9})  # 9 names the Swap
    assert events[1] == {
        "type": "special_gained",
        "actor": 0,
        "special": "swap",
        "from": None,
        "reason": "card",
    }
    assert state["specials"]["swap"] == 0


def test_special_taking_a_card_takes_its_special_from_the_holder() -> None:
    state, _ = roll(started(specials={"swap": 1}), 0, 1, 2, 6)
    state, events = act(state, 0, {"type": "take", "card": 9})
    assert events[1]["from"] == 1 and state["specials"]["swap"] == 0


def test_special_stealing_a_numbered_card_gives_no_special() -> None:
    state, _ = roll(started(stacks=[[], [9]]), 0, 1, 2, 6)
    state, events = act(state, 0, {"type": "steal", "seat": 1})
    assert "special_gained" not in types(events) and state["specials"]["swap"] is None


def test_special_card_with_no_special_gives_nothing() -> None:
    state, _ = roll(started(), 0, 1, 2, 4)
    state, events = act(state, 0, {"type": "take", "card": 7})
    assert types(events) == ["card_taken", "turn_started"]


# --------------------------------------------------------------------------- Thief priority


def test_thief_priority_a_thief_on_the_table_is_taken_first() -> None:
    state = started(3, specials={"thief_1": 1})
    state, _ = roll(state, 0, 1, 2, 2)
    state, events = act(state, 0, {"type": "take", "card": 5})
    assert events[1]["special"] == "thief_2" and events[1]["from"] is None
    assert state["specials"]["thief_1"] == 1


def test_thief_priority_naming_the_holder_while_one_is_on_the_table_is_refused() -> None:
    state, _ = roll(started(3, specials={"thief_1": 1}), 0, 1, 2, 2)
    reason = refused(state, 0, {"type": "take", "card": 5, "thief_from": 1})
    assert reason == "thief_on_table"


def test_thief_priority_with_none_on_the_table_one_is_taken_from_an_opponent() -> None:
    state, _ = roll(started(3, specials={"thief_1": 1, "thief_2": 2}), 0, 1, 2, 2)
    takes = [a for a in D.legal_actions(state, 0) if a.get("card") == 5]
    assert takes == [
        {"type": "take", "card": 5, "thief_from": 1},
        {"type": "take", "card": 5, "thief_from": 2},
    ]
    state, events = act(state, 0, {"type": "take", "card": 5, "thief_from": 2})
    assert events[1]["special"] == "thief_2" and events[1]["from"] == 2


def test_thief_priority_default_holder_is_the_next_clockwise() -> None:
    state, _ = roll(started(3, first=1, specials={"thief_1": 0, "thief_2": 2}), 1, 1, 2, 2)
    state, events = act(state, 1, {"type": "take", "card": 5})
    assert events[1]["special"] == "thief_2" and events[1]["from"] == 2


def test_thief_priority_holding_one_takes_the_other_from_its_holder() -> None:
    state, _ = roll(started(3, specials={"thief_1": 0, "thief_2": 2}), 0, 1, 2, 2)
    takes = [a for a in D.legal_actions(state, 0) if a.get("card") == 5]
    assert takes == [{"type": "take", "card": 5}]
    state, events = act(state, 0, {"type": "take", "card": 5})
    assert events[1]["special"] == "thief_2" and events[1]["from"] == 2


def test_thief_priority_holding_both_gives_nothing_more() -> None:
    state, _ = roll(started(specials={"thief_1": 0, "thief_2": 0}), 0, 1, 2, 2)
    state, events = act(state, 0, {"type": "take", "card": 5})
    assert "special_gained" not in types(events)
    assert (
        refused(
            roll(started(specials={"thief_1": 0, "thief_2": 1}), 0, 1, 2, 2)[0],
            0,
            {"type": "take", "card": 5, "thief_from": 0},
        )
        == "invalid_target"
    )


def test_thief_from_on_a_card_without_thief_is_refused() -> None:
    state, _ = roll(started(specials={"thief_1": 1, "thief_2": 1}), 0, 1, 2, 2)
    reason = refused(state, 0, {"type": "take", "card": 4, "thief_from": 1})
    assert reason == "invalid_target"


# --------------------------------------------------------------------------- Treasure on a triple


def test_treasure_a_triple_gives_the_treasure_from_the_table() -> None:
    state, events = roll(started(), 0, 3, 3, 3)
    assert events[1] == {
        "type": "special_gained",
        "actor": 0,
        "special": "treasure",
        "from": None,
        "reason": "triple",
    }
    assert state["specials"]["treasure"] == 0 and state["unlocked"]


def test_treasure_a_triple_takes_the_treasure_from_its_holder() -> None:
    state, events = roll(started(specials={"treasure": 1}), 0, 5, 5, 5)
    assert events[1]["from"] == 1 and state["specials"]["treasure"] == 0


def test_treasure_a_triple_when_already_held_changes_nothing() -> None:
    state, events = roll(started(specials={"treasure": 0}), 0, 2, 2, 2)
    assert types(events) == ["dice_rolled"]


def test_treasure_an_unplayable_second_triple_still_gives_it_then_fails() -> None:
    state = started(table=[10, 11])
    state, _ = roll(state, 0, 2, 3, 4)
    state, events = roll(state, 0, 2, 2, 2)
    assert types(events) == ["dice_rolled", "special_gained", "failure", "turn_started"]
    assert state["specials"]["treasure"] == 0


# --------------------------------------------------------------------------- each special card


def use(card: str, **targets: int) -> dict[str, Any]:
    return {"type": "use_special", "card": card, **targets}


def test_special_thief_steals_a_top_card_of_value_at_most_the_sum() -> None:
    state = started(stacks=[[], [3, 8]], specials={"thief_1": 0})
    state, _ = roll(state, 0, 1, 4, 5)  # sum 10 >= 8
    state, events = act(state, 0, use("thief_1", seat=1))
    assert types(events) == ["special_used", "card_stolen", "turn_started"]
    assert state["stacks"] == [[8], [3]] and state["specials"]["thief_1"] is None
    assert D.pending(state) == [1]


def test_special_thief_cannot_steal_above_the_sum() -> None:
    state = started(stacks=[[], [12]], specials={"thief_1": 0})
    state, _ = roll(state, 0, 1, 4, 5)
    assert use("thief_1", seat=1) not in D.legal_actions(state, 0)
    assert refused(state, 0, use("thief_1", seat=1)) == "sum_too_low"


def test_special_treasure_takes_the_highest_table_card_whatever_the_sum() -> None:
    state = started(specials={"treasure": 0}, table=[1, 2, 17])
    state, _ = roll(state, 0, 1, 1, 2)
    state, events = act(state, 0, use("treasure"))
    assert types(events) == ["special_used", "card_taken", "special_gained", "turn_started"]
    assert state["stacks"][0] == [17]
    assert state["specials"]["treasure"] == 0  # card 17 names the Treasure: it comes back


def test_special_white_die_adds_the_white_die_to_the_sum() -> None:
    state = started(specials={"white_die": 0}, table=[1, 12])
    state, _ = roll(state, 0, 1, 2, 3)  # sum 6
    state, events = act(state, 0, use("white_die"), 6)
    assert events[0]["white"] == 6 and state["bonus"] == 6
    assert {"type": "take", "card": 12} in D.legal_actions(state, 0)
    assert state["specials"]["white_die"] is None


def test_special_reroll_rerolls_one_blue_die() -> None:
    state = started(specials={"reroll": 0})
    state, _ = roll(state, 0, 1, 2, 3)
    state, events = act(state, 0, use("reroll", die=0), 6)
    assert state["dice"] == [6, 2, 3] and events[0]["value"] == 6
    assert (
        refused(roll(started(specials={"reroll": 0}), 0, 1, 2, 3)[0], 0, use("reroll", die=3))
        == "invalid_target"
    )


def test_special_flip_turns_a_die_to_its_opposite_face() -> None:
    state = started(specials={"flip": 0})
    state, _ = roll(state, 0, 1, 2, 3)
    state, _ = act(state, 0, use("flip", die=0))
    assert state["dice"] == [6, 2, 3]


def test_special_safe_slides_the_top_card_under_the_stack() -> None:
    state = started(stacks=[[2, 5, 14], []], specials={"safe": 0})
    state, _ = roll(state, 0, 1, 2, 3)
    state, _ = act(state, 0, use("safe"))
    assert state["stacks"][0] == [14, 2, 5]


def test_special_safe_needs_two_cards() -> None:
    state, _ = roll(started(stacks=[[14], []], specials={"safe": 0}), 0, 1, 2, 3)
    assert use("safe") not in D.legal_actions(state, 0)
    assert refused(state, 0, use("safe")) == "stack_too_small"


def test_special_bomb_turns_an_opponent_top_card_face_down() -> None:
    state = started(stacks=[[], [4, 11]], specials={"bomb": 0})
    state, _ = roll(state, 0, 1, 2, 3)
    state, _ = act(state, 0, use("bomb", seat=1))
    assert state["stacks"][1] == [4] and state["face_down"] == [11]
    assert (
        refused(roll(started(specials={"bomb": 0}), 0, 1, 2, 3)[0], 0, use("bomb", seat=1))
        == "empty_stack"
    )


def test_special_swap_exchanges_top_cards() -> None:
    state = started(stacks=[[3], [4, 11]], specials={"swap": 0})
    state, _ = roll(state, 0, 1, 2, 3)
    state, _ = act(state, 0, use("swap", seat=1))
    assert state["stacks"] == [[11], [4, 3]]
    state, _ = roll(started(stacks=[[], [4]], specials={"swap": 0}), 0, 1, 2, 3)
    assert refused(state, 0, use("swap", seat=1)) == "empty_stack"


def test_special_magnet_brings_a_face_down_card_back_to_the_table() -> None:
    state = started(table=[1, 2], face_down=[15, 18], specials={"magnet": 0})
    state, _ = roll(state, 0, 6, 6, 4)
    assert refused(state, 0, use("magnet", value=3)) == "card_not_face_down"
    state, _ = act(state, 0, use("magnet", value=15))
    assert state["table"] == [1, 2, 15] and state["face_down"] == [18]
    state, _ = act(state, 0, {"type": "take", "card": 15})
    assert state["stacks"][0] == [15]


def test_special_several_can_be_used_in_one_turn() -> None:
    state = started(specials={"flip": 0, "white_die": 0}, table=[1, 18])
    state, _ = roll(state, 0, 1, 5, 5)  # sum 11
    state, _ = act(state, 0, use("flip", die=0))  # 6, 5, 5: sum 16
    state, _ = act(state, 0, use("white_die"), 2)  # + 2: sum 18
    assert {"type": "take", "card": 18} in D.legal_actions(state, 0)
    state, _ = act(state, 0, {"type": "take", "card": 18})
    assert state["stacks"][0] == [18]
    assert state["specials"]["flip"] is None and state["specials"]["white_die"] is None


@pytest.mark.parametrize(
    "action, reason",
    [
        (use("thief_1", seat=1), "special_not_held"),
        (use("joker"), "unknown_special"),
        (use("flip"), "malformed_action"),
        (use("flip", die=0, seat=1), "malformed_action"),
    ],
)
def test_special_use_is_validated(action: dict[str, Any], reason: str) -> None:
    state, _ = roll(started(stacks=[[], [2]], specials={"flip": 0}), 0, 1, 2, 3)
    assert refused(state, 0, action) == reason


def test_special_used_cards_go_back_to_the_table_and_count_nothing() -> None:
    state = started(first=1, specials={"bomb": 0})
    assert D.view(state, None)["scores_now"] == [-2, -2]
    state = started(stacks=[[], [4]], specials={"bomb": 0})
    state, _ = roll(state, 0, 1, 2, 3)
    state, _ = act(state, 0, use("bomb", seat=1))
    assert state["specials"]["bomb"] is None and D.view(state, None)["scores_now"] == [-2, 0]


# --------------------------------------------------------------------------- stop


def test_stop_is_refused_while_a_card_can_be_taken() -> None:
    state, _ = roll(started(specials={"flip": 0}), 0, 1, 1, 1)
    assert {"type": "stop"} not in D.legal_actions(state, 0)
    assert refused(state, 0, {"type": "stop"}) == "take_available"


def test_stop_accepts_the_failure_when_a_special_spoiled_the_dice() -> None:
    state = started(table=[12, 13], stacks=[[], [6]], specials={"flip": 0, "white_die": 0})
    state, _ = roll(state, 0, 1, 2, 3)  # sum 6: only the exact steal
    state, _ = act(state, 0, use("flip", die=1))  # 1, 5, 3: sum 9, nothing fits
    assert {"type": "stop"} in D.legal_actions(state, 0)
    state, events = act(state, 0, {"type": "stop"})
    assert types(events) == ["failure", "turn_started"] and state["face_down"] == [13]


def test_stop_failure_is_automatic_when_nothing_else_is_left() -> None:
    state = started(table=[12, 13], stacks=[[], [6]], specials={"flip": 0})
    state, _ = roll(state, 0, 1, 2, 3)
    state, _ = roll(state, 0, 1, 2, 3)  # second roll, still only the steal
    state, events = act(state, 0, use("flip", die=1))
    assert types(events) == ["special_used", "failure", "turn_started"]


# --------------------------------------------------------------------------- turns and the end


def test_turn_other_seat_cannot_act_and_gets_no_actions() -> None:
    state = started()
    assert D.legal_actions(state, 1) == []
    assert refused(state, 1, {"type": "roll"}) == "not_your_turn"


def test_end_emptying_the_table_starts_the_final_round_which_is_played_out() -> None:
    state = started(3, first=0, table=[2], stacks=[[], [], []])
    state, _ = roll(state, 0, 1, 1, 2)
    state, events = act(state, 0, {"type": "take", "card": 2})
    assert types(events) == ["card_taken", "final_round_started", "turn_started"]
    assert not D.is_over(state) and D.pending(state) == [1]  # the round goes on
    assert D.legal_actions(state, 1) == [{"type": "roll"}, {"type": "pass"}]
    state, events = act(state, 1, {"type": "pass"})
    assert types(events) == ["turn_passed", "turn_started"] and D.pending(state) == [2]
    state, _ = roll(state, 2, 1, 2, 6)  # sum 9: nothing to take, no top card of 9
    state, events = roll(state, 2, 2, 3, 4)
    assert types(events)[-2:] == ["failure", "game_ended"] and D.is_over(state)
    assert D.pending(state) == [] and D.legal_actions(state, 0) == []
    assert refused(state, 0, {"type": "roll"}) == "game_finished"


def test_end_a_card_put_back_in_the_final_round_can_be_taken_by_a_later_seat() -> None:
    state = started(3, first=0, table=[2], stacks=[[], [9], []])
    state, _ = roll(state, 0, 1, 1, 2)
    state, _ = act(state, 0, {"type": "take", "card": 2})
    state, _ = roll(state, 1, 2, 3, 4)
    state, _ = roll(state, 1, 2, 3, 4)  # fails: 9 goes back to the table
    assert state["table"] == [9] and D.pending(state) == [2]
    state, _ = roll(state, 2, 1, 2, 6)
    state, events = act(state, 2, {"type": "take", "card": 9})
    assert types(events)[-1] == "game_ended" and state["stacks"] == [[2], [], [9]]


def test_end_when_the_last_seat_of_the_round_empties_the_table_the_game_ends() -> None:
    state = started(2, first=0, table=[2, 3])
    state, _ = roll(state, 0, 1, 1, 2)
    state, _ = act(state, 0, {"type": "take", "card": 3})
    state, _ = roll(state, 1, 1, 1, 2)
    state, events = act(state, 1, {"type": "take", "card": 2})
    assert types(events) == ["card_taken", "final_round_started", "game_ended"]


@pytest.mark.parametrize("when", ["before_the_final_round", "after_rolling"])
def test_end_pass_only_in_the_final_round_before_rolling(when: str) -> None:
    state = started(final_round=when == "after_rolling")
    if when == "after_rolling":
        state, _ = roll(state, 0, 1, 2, 3)
    assert {"type": "pass"} not in D.legal_actions(state, 0)
    assert refused(state, 0, {"type": "pass"}) == "pass_not_allowed"


def test_end_final_count_is_card_diamonds_plus_unused_special_values() -> None:
    state = started(
        3,
        table=[1],
        stacks=[[18, 2], [13], []],
        specials={"treasure": 0, "bomb": 1, "thief_1": 2, "thief_2": 2},
    )
    state, _ = roll(state, 0, 1, 2, 2)
    state, _ = act(state, 0, {"type": "take", "card": 1})
    state, _ = roll(state, 1, 2, 3, 4)
    state, _ = roll(state, 1, 2, 3, 4)  # fails: 13 goes back to the table
    state, _ = roll(state, 2, 2, 3, 4)
    state, _ = roll(state, 2, 2, 3, 4)  # fails: 13 is turned face down
    assert D.is_over(state) and state["face_down"] == [13]
    result = D.result(state)
    # seat 0: 6 + 1 + 1 diamonds + Treasure 3 - 1 (first player); seat 1: Bomb -2;
    # seat 2: two Thieves
    assert result["scores"] == [10, -2, 2]
    assert result["winners"] == [0] and result["ranking"] == [0, 2, 1]
    assert result["specials"] == {"0": ["treasure"], "1": ["bomb"], "2": ["thief_1", "thief_2"]}


@pytest.mark.parametrize("num_players, handicap", [(2, 2), (3, 1), (4, 1), (5, 1), (6, 1)])
def test_end_the_first_player_gives_diamonds_back(num_players: int, handicap: int) -> None:
    stacks = [[7] for _ in range(num_players)]
    scores = D.view(started(num_players, first=1, stacks=stacks), None)["scores_now"]
    assert scores == [3, 3 - handicap] + [3] * (num_players - 2)


def test_end_ties_go_to_the_longer_stack_then_are_shared() -> None:
    from games.rules.diamants.engine import final_result

    state = started(3, first=2, stacks=[[4, 1], [7], []])  # 3 diamonds each for 0 and 1
    result = final_result(state)
    assert result["scores"] == [3, 3, -1]
    assert result["winners"] == [0] and result["ranking"] == [0, 1, 2]
    state = started(2, first=1, stacks=[[7], [13]])  # 3 and 5 - 2
    assert final_result(state)["winners"] == [0, 1]


# --------------------------------------------------------------------------- malformed actions


GARBAGE = [
    None,
    3,
    "roll",
    [],
    {},
    {"type": 3},
    {"type": None},
    {"type": "fly"},
    {"type": "roll", "extra": 1},
    {"type": "take"},
    {"type": "take", "card": "9"},
    {"type": "take", "card": True},
    {"type": "take", "card": 9.0},
    {"type": "take", "card": 99},
    {"type": "take", "card": 3, "thief_from": "x"},
    {"type": "steal"},
    {"type": "steal", "seat": [1]},
    {"type": "steal", "seat": 10**30},
    {"type": "use_special"},
    {"type": "use_special", "card": 5},
    {"type": "use_special", "card": "thief_1"},
    {"type": "use_special", "card": "flip", "die": -1},
    {"type": "use_special", "card": "magnet", "value": {}},
    {"type": "stop", "now": True},
    {"type": "pass"},
]


@pytest.mark.parametrize("action", GARBAGE, ids=[repr(a)[:40] for a in GARBAGE])
def test_garbage_actions_raise_only_illegal_action(action: Any) -> None:
    for state in (
        started(specials={"flip": 0}),
        roll(started(specials={"flip": 0}), 0, 1, 2, 3)[0],
    ):
        with pytest.raises(IllegalAction):
            D.decide(state, 0, action, FixedRng(1, 1, 1))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
action_dicts = st.fixed_dictionaries(
    {"type": st.sampled_from(["roll", "take", "steal", "use_special", "stop", "pass", "x"])},
    optional={
        "card": st.integers(-3, 20) | st.sampled_from(list(cards.SPECIAL_CARDS)) | json_values,
        "seat": st.integers(-2, 4) | json_values,
        "die": st.integers(-1, 4) | json_values,
        "value": st.integers(0, 20) | json_values,
        "thief_from": st.integers(-1, 3) | json_values,
    },
)


@settings(max_examples=300, deadline=None)
@given(action=action_dicts | json_values, seed=st.integers(0, 50))
def test_fuzzed_actions_raise_only_illegal_action_or_succeed(action: Any, seed: int) -> None:
    state = _mid_game_state(seed)
    before = copy.deepcopy(state)
    for seat in range(3):
        try:
            events = D.decide(state, seat, action, random.Random(seed))
        except IllegalAction:
            continue
        assert json.loads(json.dumps(events)) == events
        legal = D.legal_actions(state, seat)
        # an accepted action is listed, or is a take that left the Thief's holder implicit
        assert action in legal or any(
            a["type"] == "take" and a["card"] == action["card"] for a in legal
        )
    assert state == before


def _mid_game_state(seed: int) -> dict[str, Any]:
    """The state after ``seed`` steps of a 3-player bot game."""
    rng = random.Random(seed)
    events = D.setup(3, {}, rng)
    state = fold(D, events)
    for _ in range(seed + 3):
        if D.is_over(state):
            break
        new = D.system_step(state, rng)
        if not new:
            seat = D.pending(state)[0]
            new = D.decide(state, seat, D.auto_action(state, seat, rng), rng)
        state = fold(D, new, state)
    return state


# --------------------------------------------------------------------------- whole bot games


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_bot_games_respect_the_contract(num_players: int) -> None:
    for seed in range(4):
        final, events = play_bot_game(D, num_players, {}, random.Random(100 * num_players + seed))
        assert D.is_over(final)
        assert fold(D, events) == final
        assert all("." not in e["type"] and "actor" in e for e in events)
        assert json.loads(json.dumps(events)) == events
        _check_evolve_along(events)
        result = D.result(final)
        assert set(result) >= {"winners", "scores", "ranking"}
        assert sorted(result["ranking"]) == list(range(num_players))
        assert len(result["scores"]) == num_players and result["winners"]
        assert result["scores"] == D.view(final, None)["scores_now"]
        # cards are conserved: table + stacks + face down
        held = sum(len(s) for s in final["stacks"])
        assert held + len(final["table"]) + len(final["face_down"]) == 18


def _check_evolve_along(events: list[dict[str, Any]]) -> None:
    state: dict[str, Any] = {}
    for event in events:
        before = copy.deepcopy(state)
        new_state = D.evolve(state, event)
        assert state == before, "evolve mutated its input"
        state = new_state
        assert json.loads(json.dumps(state)) == state


@pytest.mark.parametrize("num_players", [2, 3, 5, 6])
def test_bot_games_every_listed_action_is_accepted(num_players: int) -> None:
    """Between two decisions (the states the platform sees), every listed
    action is accepted, other seats get none, and auto_action is listed."""
    checker = random.Random(99)
    for seed in range(3):
        rng = random.Random(seed)
        state = fold(D, D.setup(num_players, {}, rng))
        while not D.is_over(state):
            new = D.system_step(state, rng)
            if not new:
                seat = D.pending(state)[0]
                legal = D.legal_actions(state, seat)
                assert legal
                for action in legal:
                    D.decide(state, seat, action, checker)
                for other in range(num_players):
                    if other != seat:
                        assert D.legal_actions(state, other) == []
                action = D.auto_action(state, seat, rng)
                assert action in legal
                new = D.decide(state, seat, action, rng)
            state = fold(D, new, state)
        assert D.legal_actions(state, 0) == [] and D.pending(state) == []


def test_bot_games_are_reproducible_from_the_seed() -> None:
    first = play_bot_game(D, 4, {}, random.Random(7))[1]
    second = play_bot_game(D, 4, {}, random.Random(7))[1]
    assert first == second


def test_bot_plays_better_than_random() -> None:
    def random_choice(state: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
        return rng.choice(D.legal_actions(state, seat))

    wins = 0
    for seed in range(60):
        rng = random.Random(seed)
        bot_seat = seed % 2

        def mixed(
            state: dict[str, Any], seat: int, rng: random.Random, bot_seat: int = bot_seat
        ) -> dict[str, Any]:
            chooser = D.auto_action if seat == bot_seat else random_choice
            return chooser(state, seat, rng)

        final, _ = play_bot_game(D, 2, {}, rng, choose_action=mixed)
        wins += bot_seat in D.result(final)["winners"]
    assert wins >= 42


# --------------------------------------------------------------------------- views and purity


def test_view_hides_nothing_and_redact_is_identity() -> None:
    final, events = play_bot_game(D, 3, {}, random.Random(3))
    for seat in (None, 0, 2):
        public = D.view(final, seat)
        assert {k: v for k, v in public.items() if k not in ("sum", "scores_now")} == final
        assert D.redact_event(events[-1], seat) == events[-1]


def test_package_imports_neither_django_nor_random() -> None:
    code = (
        "import sys; import games.rules.diamants; "
        "assert 'django' not in sys.modules; "
        "import games.rules.diamants.engine as e, games.rules.diamants.bot as b; "
        "assert not hasattr(e, 'random') and not hasattr(b, 'random')"
    )
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)
    for path in (root / "games/rules/diamants").glob("*.py"):
        text = path.read_text()
        for forbidden in ("import random", "from random", "import time", "datetime"):
            assert forbidden not in text, (path, forbidden)


# --------------------------------------------------------------------------- bot choices


def test_bot_pushes_its_luck_on_a_poor_first_roll_with_nothing_to_lose() -> None:
    state, _ = roll(started(table=[1, 13, 14, 15, 16, 17, 18]), 0, 1, 1, 2)  # sum 4: only the 1
    assert D.auto_action(state, 0, FixedRng()) == {"type": "roll"}


def test_bot_keeps_a_good_first_roll() -> None:
    state, _ = roll(started(), 0, 6, 6, 5)  # sum 17
    assert D.auto_action(state, 0, FixedRng()) == {"type": "take", "card": 17}


def test_bot_steals_a_high_top_card_when_the_sum_is_exact() -> None:
    state, _ = roll(started(table=[1, 2], stacks=[[], [3, 16]]), 0, 6, 6, 4)
    assert D.auto_action(state, 0, FixedRng()) == {"type": "steal", "seat": 1}


def test_bot_bombs_the_leader() -> None:
    state = started(3, stacks=[[], [2], [18]], specials={"bomb": 0})
    state, _ = roll(state, 0, 1, 2, 3)
    assert D.auto_action(state, 0, FixedRng()) == use("bomb", seat=2)


def test_bot_passes_in_the_final_round_with_an_empty_table_and_a_card_to_lose() -> None:
    state = started(table=[], stacks=[[16], [2]], final_round=True)
    assert D.auto_action(state, 0, FixedRng()) == {"type": "pass"}
