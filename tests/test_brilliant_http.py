"""A whole Brilliant game played by three accounts through HTTP.

Every action the server offers is checked against the rule text by an
independent checker written here from the published sheets, and every state
a player was shown is compared with the replay at that seq."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.models import Event
from tests.helpers import act, error_code, game, legal, ok, open_table

pytestmark = pytest.mark.django_db(transaction=True)


class BrilliantReferee:
    """The rule text, restated independently of games/rules/brilliant."""

    def __init__(self, sheet: dict[str, Any]) -> None:
        self.area_of = {(f["row"], f["col"]): f["area"] for f in sheet["fields"]}
        self.areas = {a["id"]: a for a in sheet["areas"]}

    def area_allows(self, colour: str, values: list[int]) -> bool:
        distinct = set(values)
        if colour == "green":
            return True
        if colour in ("blue", "gray"):
            return len(distinct) <= 1
        if colour in ("red", "yellow"):
            return len(distinct) == len(values)
        if colour == "purple":
            return len(distinct) <= 2
        if colour == "orange":
            return distinct <= {1, 2, 3} or distinct <= {4, 5, 6}
        raise AssertionError(f"unknown colour {colour}")

    def area_values(self, grid: list[list[int]], area_id: int) -> list[int]:
        return [grid[r][c] for r, c in self.areas[area_id]["fields"] if grid[r][c]]

    def check_place(self, grid: list[list[int]], dice: list[int], action: dict[str, Any]) -> None:
        row, col, value = action["row"], action["col"], action["value"]
        assert (row, col) in self.area_of, f"{action} is not a field"
        assert grid[row][col] == 0, f"{action}: field already written"
        a, b = dice
        neighbours = [
            grid[r][c]
            for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
            if (r, c) in self.area_of
        ]
        assert (value == a and b in neighbours) or (value == b and a in neighbours), (
            f"{action}: not next to the other die ({dice}, neighbours {neighbours})"
        )
        area = self.areas[self.area_of[(row, col)]]
        assert self.area_allows(area["colour"], [*self.area_values(grid, area["id"]), value]), (
            f"{action}: breaks the {area['colour']} rule"
        )

    def check_setup(self, stars: list[dict[str, Any]], action: dict[str, Any]) -> None:
        cells = (
            [[s["row"], s["col"], s["value"]] for s in stars]
            if action.get("stars")
            else action["cells"]
        )
        assert sorted(v for _, _, v in cells) == [1, 2, 3, 4, 5, 6]
        assert len({self.area_of[(r, c)] for r, c, _ in cells}) == 6


def choose(rng: random.Random, actions: list[dict[str, Any]]) -> dict[str, Any]:
    places = [a for a in actions if a["type"] == "place"]
    return rng.choice(places) if places and rng.random() < 0.9 else rng.choice(actions)


def test_three_players_play_brilliant_to_the_end_over_http(client_for, task_queue, anon) -> None:
    names = ["ada", "bob", "cyd"]
    clients = {name: client_for(name) for name in names}
    table = open_table(clients["ada"], num_seats=3, options={"level": 2})
    game_id = table["id"]
    for name in names[1:]:
        ok(clients[name].post(f"/api/v1/games/{game_id}/join"))
    sheet = ok(anon.get("/api/v1/rulesets/brilliant"))["material"]["sheets"]["2"]
    referee = BrilliantReferee(sheet)
    rng = random.Random(7)
    shown: dict[str, dict[int, Any]] = {name: {} for name in names}
    checked_actions = 0

    for _ in range(400):
        task_queue.drain()
        current = game(clients["ada"], game_id)
        if current["status"] == "finished":
            break
        for name in names:
            mine = game(clients[name], game_id)
            shown[name][mine["seq"]] = mine["state"]
            seat = mine["your_seat"]
            if not any(p["seat"] == seat and p["must_act"] for p in mine["players"]):
                assert legal(clients[name], game_id) == []
                continue
            offered = legal(clients[name], game_id)
            assert offered, "a seat that must act is offered nothing"
            # A seat with nothing to write is passed for at once, never asked.
            assert offered != [{"type": "pass"}]
            state = mine["state"]
            for action in offered:
                if action["type"] == "place":
                    referee.check_place(state["grids"][seat], state["dice"], action)
                elif action["type"] == "setup":
                    referee.check_setup(sheet["stars"], action)
                else:
                    assert action == {"type": "pass"}
                checked_actions += 1
            result = ok(act(clients[name], game_id, choose(rng, offered)), 201)
            assert result["seq"] > mine["seq"]
    else:
        pytest.fail("the game did not finish")

    final = game(clients["ada"], game_id)
    result = final["result"]
    scores = result["scores"]
    best = max(scores)
    assert sorted(result["winners"]) == [i for i, s in enumerate(scores) if s == best]
    assert best >= 24 or result.get("reason") != "threshold"
    assert checked_actions > 50

    # Replay: what each player was shown at each seq is what replay gives.
    for name in names:
        for seq, state in shown[name].items():
            replayed = ok(clients[name].get(f"/api/v1/games/{game_id}/state?at={seq}"))
            assert replayed["state"] == state, f"{name} at seq {seq}"
    verified = ok(anon.get(f"/api/v1/games/{game_id}/verify"))
    assert verified == {**verified, "chain_ok": True, "projection_matches": True}
    forced = Event.objects.filter(game_id=game_id, type="answered", automatic=True)
    assert forced.exists(), "late in the game somebody must have had nothing to write"
    assert verified["events"] == Event.objects.filter(game_id=game_id).count() == final["seq"]


def test_refused_actions_write_nothing_and_use_the_error_shape(client_for, task_queue) -> None:
    ada, bob = client_for("ada"), client_for("bob")
    table = open_table(ada, num_seats=2)
    game_id = table["id"]
    ok(bob.post(f"/api/v1/games/{game_id}/join"))
    ok(act(ada, game_id, {"type": "setup", "stars": True}), 201)
    before = Event.objects.filter(game_id=game_id).count()

    assert error_code(act(ada, game_id, {"type": "setup", "stars": True}), 409) == "not_your_turn"
    response = act(bob, game_id, {"type": "place", "row": 0, "col": 0, "value": 1})
    assert error_code(response, 422) == "illegal_action"
    assert response.json()["error"]["details"]["reason"]
    for garbage in [
        {"type": "fly"},
        {"type": "setup", "cells": "x"},
        {"type": "setup", "cells": [[1]]},
        {"type": "setup", "cells": [[0, 0, 1]] * 6},
        {"type": "setup"},
    ]:
        response = act(bob, game_id, garbage)
        assert error_code(response, 422) == "illegal_action", garbage
    for not_an_action in [{"action": "pass"}, {"action": {}}, {}, {"action": {"type": 3}}]:
        response = bob.post(f"/api/v1/games/{game_id}/actions", not_an_action, format="json")
        assert error_code(response, 400) == "validation_error"
    assert (
        error_code(act(bob, game_id, {"type": "setup", "stars": True}, expected_seq=0), 409)
        == "stale_seq"
    )
    assert error_code(act(client_for("eve"), game_id, {"type": "pass"}), 403) == "not_a_player"
    assert Event.objects.filter(game_id=game_id).count() == before

    stale = act(bob, game_id, {"type": "setup", "stars": True}, expected_seq=before - 1)
    assert stale.json()["error"]["details"]["seq"] == before
    ok(act(bob, game_id, {"type": "setup", "stars": True}, expected_seq=before), 201)


def test_events_are_paginated_and_replay_needs_a_seat_until_the_end(
    client_for, task_queue, anon
) -> None:
    ada, bob = client_for("ada"), client_for("bob")
    table = open_table(ada, num_seats=2)
    game_id = table["id"]
    ok(bob.post(f"/api/v1/games/{game_id}/join"))
    for client in (ada, bob):
        ok(act(client, game_id, {"type": "setup", "stars": True}), 201)
    task_queue.drain()
    page = ok(ada.get(f"/api/v1/games/{game_id}/events?after=0&limit=2"))
    assert [e["seq"] for e in page["events"]] == [1, 2] and page["has_more"]
    rest = ok(ada.get(f"/api/v1/games/{game_id}/events?after=2"))
    assert rest["events"][0]["seq"] == 3 and not rest["has_more"]
    assert rest["events"][-1]["type"] == "dice_rolled"
    assert rest["events"][-1]["actor"] == 0  # attributed to the roller
    assert error_code(anon.get(f"/api/v1/games/{game_id}/state?at=1"), 403) == "not_a_player"
    note = ok(ada.get(f"/api/v1/games/{game_id}/legal-actions"))["note"]
    assert "six different areas" in note
    assert error_code(ada.get(f"/api/v1/games/{game_id}/state?at=999"), 400) == "validation_error"
    assert (
        error_code(ada.get(f"/api/v1/games/{game_id}/events?after=-1"), 400) == "validation_error"
    )
