"""Diamants through HTTP: two players, and five with bots, to the end. Every
take and steal offered is checked against the rule text's conditions."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.helpers import ok, open_table, play_until_finished

pytestmark = pytest.mark.django_db(transaction=True)


def roll_is_valid(dice: list[int]) -> bool:
    """At least one 1, at least one 6, or three identical dice."""
    return 1 in dice or 6 in dice or len(set(dice)) == 1


def check_offer(state: dict[str, Any], seat: int, action: dict[str, Any]) -> None:
    if action["type"] in ("take", "steal", "use_special"):
        assert state["dice"] and roll_is_valid(state["dice"][:3]), (state["dice"], action)
    if action["type"] == "take":
        assert action["card"] in state["table"]
        assert action["card"] <= state["sum"]
        if "thief_from" in action:
            # A Thief is taken from another player only while none is on the table.
            holders = [state["specials"][c] for c in ("thief_1", "thief_2")]
            assert None not in holders and action["thief_from"] in holders
    if action["type"] == "steal":
        victim = action["seat"]
        assert victim != seat and state["stacks"][victim]
        assert state["stacks"][victim][-1] == state["sum"]
    if action["type"] == "roll":
        assert state["rolls"] < 2 or state["current"] != seat or state.get("turn_over")


def chooser(seed: int):
    rng = random.Random(seed)

    def choose(state: dict[str, Any], seat: int, actions: list[dict[str, Any]]) -> dict[str, Any]:
        gains = [a for a in actions if a["type"] in ("steal", "take")]
        if gains and rng.random() < 0.8:
            return max(gains, key=lambda a: a.get("card", 0) or 20)
        return rng.choice(actions)

    return choose


def play_to_the_end(
    clients: dict[str, Any], game_id: int, task_queue
) -> tuple[dict[str, Any], int]:
    checked: list[dict[str, Any]] = []

    def check_offers(state: dict[str, Any], seat: int, offered: list[dict[str, Any]]) -> None:
        for action in offered:
            check_offer(state, seat, action)
            checked.append(action)

    final = play_until_finished(
        clients, game_id, task_queue, choose=chooser(17), check=check_offers
    )
    return final, len(checked)


def test_two_players_play_diamants_to_the_end(client_for, task_queue, anon) -> None:
    clients = {name: client_for(name) for name in ("ada", "bob")}
    table = open_table(clients["ada"], ruleset="diamants", num_seats=2)
    ok(clients["bob"].post(f"/api/v1/games/{table['id']}/join"))
    final, checked = play_to_the_end(clients, table["id"], task_queue)
    assert checked > 20
    result = final["result"]
    best = max(result["scores"])
    assert all(result["scores"][w] == best for w in result["winners"])
    assert ok(anon.get(f"/api/v1/games/{table['id']}/verify"))["projection_matches"]


def test_five_players_with_bots_play_diamants_to_the_end(client_for, task_queue, anon) -> None:
    ada = client_for("ada")
    table = open_table(ada, ruleset="diamants", num_seats=5)
    ok(ada.post(f"/api/v1/games/{table['id']}/bots"))
    final, _ = play_to_the_end({"ada": ada}, table["id"], task_queue)
    assert len(final["result"]["scores"]) == 5
    events = ok(anon.get(f"/api/v1/games/{table['id']}/events?limit=1000"))["events"]
    rolls = [e for e in events if e["type"] == "dice_rolled"]
    assert rolls and all(e["actor"] is not None for e in rolls)
    verified = ok(anon.get(f"/api/v1/games/{table['id']}/verify"))
    assert verified["chain_ok"] and verified["projection_matches"]


def test_diamants_refuses_options(client_for) -> None:
    response = client_for("ada").post(
        "/api/v1/games",
        {"ruleset": "diamants", "num_seats": 2, "options": {"speed": 1}},
        format="json",
    )
    assert response.status_code == 400
