"""Diamants through HTTP: two players, and five with bots, to the end. Every
take and steal offered is checked against the rule text's conditions."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.helpers import act, game, legal, ok, open_table

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


def choose(rng: random.Random, actions: list[dict[str, Any]]) -> dict[str, Any]:
    gains = [a for a in actions if a["type"] in ("steal", "take")]
    if gains and rng.random() < 0.8:
        return max(gains, key=lambda a: a.get("card", 0) or 20)
    return rng.choice(actions)


def play_to_the_end(
    clients: dict[str, Any], game_id: int, task_queue
) -> tuple[dict[str, Any], int]:
    rng = random.Random(17)
    checked = 0
    for _ in range(3000):
        task_queue.drain()
        current = game(next(iter(clients.values())), game_id)
        if current["status"] == "finished":
            return current, checked
        for client in clients.values():
            mine = game(client, game_id)
            seat = mine["your_seat"]
            if not any(p["seat"] == seat and p["must_act"] for p in mine["players"]):
                continue
            offered = legal(client, game_id)
            assert offered
            for action in offered:
                check_offer(mine["state"], seat, action)
                checked += 1
            ok(act(client, game_id, choose(rng, offered)), 201)
    pytest.fail("the game did not finish")


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
