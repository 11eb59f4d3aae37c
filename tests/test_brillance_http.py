"""Brillance through HTTP: two players, and six with bots, to the end of
turn 10, with no hand or deck order ever shown to anyone not allowed."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.models import Game
from tests.helpers import game, ok, open_table, play_until_finished

pytestmark = pytest.mark.django_db(transaction=True)

HIDDEN_IN_EVENTS = {"deck_shuffled": "order", "deck_reshuffled": "order"}
PRIVATE_EVENTS = {"cards_dealt": "cards", "card_drawn": "card"}


def assert_nothing_hidden_leaks(client: Any, game_id: int, seat: int | None) -> None:
    shown = ok(client.get(f"/api/v1/games/{game_id}"))["state"]
    truth = Game.objects.get(pk=game_id).state
    assert "hands" not in shown and "deck" not in shown
    assert shown["hand_counts"] == [len(h) for h in truth["hands"]]
    assert shown["deck_count"] == len(truth["deck"])
    if seat is None:
        assert "hand" not in shown
    else:
        assert shown["hand"] == truth["hands"][seat]
    events = ok(client.get(f"/api/v1/games/{game_id}/events?limit=1000"))["events"]
    if Game.objects.get(pk=game_id).status == "finished":
        # A finished game is fully public: every deck order and hand is shown.
        assert all(
            HIDDEN_IN_EVENTS[e["type"]] in e["payload"]
            for e in events
            if e["type"] in HIDDEN_IN_EVENTS
        )
        return
    for event in events:
        if event["type"] in HIDDEN_IN_EVENTS:
            assert HIDDEN_IN_EVENTS[event["type"]] not in event["payload"]
        if event["type"] in PRIVATE_EVENTS and event["payload"]["seat"] != seat:
            assert PRIVATE_EVENTS[event["type"]] not in event["payload"]


def play_to_the_end(clients: dict[str, Any], game_id: int, task_queue, anon) -> dict[str, Any]:
    rng = random.Random(23)
    turns = [0]

    def choose(state: dict[str, Any], seat: int, actions: list[dict[str, Any]]) -> dict[str, Any]:
        useful = [
            a for a in actions if a["type"] in ("unload", "move", "play_card", "brigands_move")
        ]
        if useful and rng.random() < 0.85:
            unloads = [a for a in useful if a["type"] == "unload"]
            return rng.choice(unloads or useful)
        return rng.choice(actions)

    def check(state: dict[str, Any], seat: int, offered: list[dict[str, Any]]) -> None:
        turns[0] += 1
        if turns[0] % 25 == 0:
            for other in clients.values():
                assert_nothing_hidden_leaks(other, game_id, game(other, game_id)["your_seat"])
            assert_nothing_hidden_leaks(anon, game_id, None)

    return play_until_finished(
        clients, game_id, task_queue, choose=choose, check=check, max_rounds=20000
    )


def test_two_players_play_brillance_to_the_end_of_turn_ten(client_for, task_queue, anon) -> None:
    clients = {name: client_for(name) for name in ("ada", "bob")}
    table = open_table(clients["ada"], ruleset="brillance", num_seats=2)
    ok(clients["bob"].post(f"/api/v1/games/{table['id']}/join"))
    final = play_to_the_end(clients, table["id"], task_queue, anon)
    assert final["state"]["round"] == 10
    for client in clients.values():
        assert_nothing_hidden_leaks(client, table["id"], game(client, table["id"])["your_seat"])
    result = final["result"]
    best = max(result["scores"])
    assert result["winners"] and all(result["scores"][w] == best for w in result["winners"])


def test_six_players_with_bots_play_brillance_to_the_end(client_for, task_queue, anon) -> None:
    ada = client_for("ada")
    table = open_table(ada, ruleset="brillance", num_seats=6, options={"speed_bonus": True})
    ok(ada.post(f"/api/v1/games/{table['id']}/bots"))
    final = play_to_the_end({"ada": ada}, table["id"], task_queue, anon)
    assert final["state"]["round"] == 10 and len(final["result"]["scores"]) == 6
    assert_nothing_hidden_leaks(ada, table["id"], 0)
    verified = ok(anon.get(f"/api/v1/games/{table['id']}/verify"))
    assert verified["chain_ok"] and verified["projection_matches"]
