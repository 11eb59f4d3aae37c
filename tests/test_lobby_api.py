"""The lobby through HTTP: rulesets, opening, joining, leaving, bots, start, lists."""

from __future__ import annotations

import pytest

from games.models import Event, Game
from tests.helpers import error_code, game, ok, open_table

pytestmark = pytest.mark.django_db


def test_rulesets_list_and_detail_publish_material(anon) -> None:
    listed = ok(anon.get("/api/v1/rulesets"))
    brilliant = next(r for r in listed if r["slug"] == "brilliant")
    assert (brilliant["min_players"], brilliant["max_players"]) == (2, 6)
    assert "level" in brilliant["options"]
    detail = ok(anon.get("/api/v1/rulesets/brilliant"))
    assert set(detail["material"]["sheets"]) == {"1", "2", "3", "4"}
    assert error_code(anon.get("/api/v1/rulesets/chess"), 404) == "not_found"


def test_creator_takes_seat_zero_and_the_table_is_open(client_for) -> None:
    ada = client_for("ada")
    table = open_table(ada, num_seats=3)
    assert table["status"] == "open"
    assert table["your_seat"] == 0
    assert [p["username"] for p in table["players"]] == ["ada"]
    assert table["state"] is None


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"ruleset": "nope", "num_seats": 2}, "ruleset"),
        ({"ruleset": "brilliant", "num_seats": 7}, "num_seats"),
        ({"ruleset": "brilliant", "num_seats": 1}, "num_seats"),
        ({"ruleset": "brilliant", "num_seats": 2, "turn_timeout": 9}, "turn_timeout"),
        ({"ruleset": "brilliant", "num_seats": 2, "turn_timeout": 14 * 86400 + 1}, "turn_timeout"),
        ({"ruleset": "brilliant", "num_seats": 2, "options": {"level": 9}}, "options"),
        ({"ruleset": "brilliant", "num_seats": "two"}, "num_seats"),
        ({"ruleset": "brilliant", "num_seats": 2, "options": [1]}, "options"),
    ],
)
def test_bad_tables_are_refused_with_400_and_nothing_stored(client_for, body, field) -> None:
    response = client_for("ada").post("/api/v1/games", body, format="json")
    assert error_code(response, 400) == "validation_error"
    assert field in response.json()["error"]["details"]["fields"]
    assert Game.objects.count() == 0


def test_opening_a_table_needs_a_token(anon) -> None:
    response = anon.post("/api/v1/games", {"ruleset": "brilliant", "num_seats": 2}, format="json")
    assert error_code(response, 401) == "not_authenticated"


def test_joining_fills_seats_and_the_last_join_starts_the_game(client_for, task_queue) -> None:
    ada, bob, cy = client_for("ada"), client_for("bob"), client_for("cyd")
    table = open_table(ada, num_seats=3)
    joined = ok(bob.post(f"/api/v1/games/{table['id']}/join"))
    assert joined["status"] == "open" and joined["your_seat"] == 1
    assert error_code(bob.post(f"/api/v1/games/{table['id']}/join"), 409) == "game_not_open"
    started = ok(cy.post(f"/api/v1/games/{table['id']}/join"))
    assert started["status"] == "active"
    assert started["your_seat"] == 2
    assert started["seq"] >= 1
    assert {p["seat"] for p in started["players"] if p["must_act"]} == {0, 1, 2}
    assert all(p["deadline"] for p in started["players"])
    assert (
        error_code(client_for("dan").post(f"/api/v1/games/{table['id']}/join"), 409)
        == "game_not_open"
    )


def test_leaving_before_the_start_renumbers_seats_and_creator_leaving_closes(client_for) -> None:
    ada, bob, cy = client_for("ada"), client_for("bob"), client_for("cyd")
    table = open_table(ada, num_seats=4)
    for client in (bob, cy):
        ok(client.post(f"/api/v1/games/{table['id']}/join"))
    ok(bob.post(f"/api/v1/games/{table['id']}/leave"))
    seats = game(ada, table["id"])["players"]
    assert [(p["seat"], p["username"]) for p in seats] == [(0, "ada"), (1, "cyd")]
    closed = ok(ada.post(f"/api/v1/games/{table['id']}/leave"))
    assert closed["status"] == "aborted"


@pytest.mark.django_db(transaction=True)
def test_bots_fill_the_empty_seats_and_start_the_game(client_for, task_queue) -> None:
    ada = client_for("ada")
    table = open_table(ada, num_seats=3)
    assert (
        error_code(client_for("bob").post(f"/api/v1/games/{table['id']}/bots"), 403)
        == "permission_denied"
    )
    started = ok(ada.post(f"/api/v1/games/{table['id']}/bots", {}, format="json"))
    assert started["status"] == "active"
    assert [p["bot"] for p in started["players"]] == [False, True, True]
    task_queue.drain()
    # Bots answered their setup at once; only the human is still to act.
    assert [p["seat"] for p in game(ada, table["id"])["players"] if p["must_act"]] == [0]


def test_bots_count_is_validated(client_for) -> None:
    ada = client_for("ada")
    table = open_table(ada, num_seats=3)
    response = ada.post(f"/api/v1/games/{table['id']}/bots", {"count": 3}, format="json")
    assert error_code(response, 400) == "validation_error"


def test_creator_may_start_early_with_enough_players(client_for) -> None:
    ada, bob = client_for("ada"), client_for("bob")
    table = open_table(ada, num_seats=4)
    assert error_code(ada.post(f"/api/v1/games/{table['id']}/start"), 400) == "validation_error"
    ok(bob.post(f"/api/v1/games/{table['id']}/join"))
    assert error_code(bob.post(f"/api/v1/games/{table['id']}/start"), 403) == "permission_denied"
    started = ok(ada.post(f"/api/v1/games/{table['id']}/start"))
    assert started["status"] == "active" and started["num_seats"] == 2
    assert started["state"]["threshold"] == 26  # the 2-player threshold


def test_game_list_filters(client_for, task_queue) -> None:
    ada, bob = client_for("ada"), client_for("bob")
    open_one = open_table(ada, num_seats=3)
    mine_started = open_table(bob, num_seats=2)
    ok(ada.post(f"/api/v1/games/{mine_started['id']}/join"))

    def ids(client, query=""):
        return [g["id"] for g in ok(client.get(f"/api/v1/games{query}"))["results"]]

    assert ids(bob, "?open=true") == [open_one["id"]]
    assert ids(bob, "?mine=true") == [mine_started["id"]]
    assert set(ids(ada, "?mine=true")) == {open_one["id"], mine_started["id"]}
    assert ids(ada, "?waiting_for_me=true") == [mine_started["id"]]
    assert ids(ada, "?status=finished") == []
    assert ids(ada, "?ruleset=brilliant&status=active") == [mine_started["id"]]
    assert error_code(ada.get("/api/v1/games?status=bogus"), 400) == "validation_error"


@pytest.mark.parametrize("game_id", ["999999", "99999999999999999999999"])
def test_unknown_game_is_404_everywhere(client_for, game_id) -> None:
    ada = client_for("ada")
    for path in ["", "/join", "/legal-actions", "/events", "/state", "/actions", "/verify"]:
        method = ada.post if path in ("/join", "/actions") else ada.get
        assert (
            error_code(
                method(
                    f"/api/v1/games/{game_id}{path}", {"action": {"type": "pass"}}, format="json"
                )
                if method == ada.post
                else method(f"/api/v1/games/{game_id}{path}"),
                404,
            )
            == "not_found"
        ), path
    assert Event.objects.count() == 0


def test_polling_with_an_etag_gets_304_until_the_game_changes(client_for) -> None:
    ada, bob = client_for("ada"), client_for("bob")
    table = open_table(ada, num_seats=2)
    first = ada.get(f"/api/v1/games/{table['id']}")
    etag = first["ETag"]
    assert ada.get(f"/api/v1/games/{table['id']}", HTTP_IF_NONE_MATCH=etag).status_code == 304
    ok(bob.post(f"/api/v1/games/{table['id']}/join"))
    changed = ada.get(f"/api/v1/games/{table['id']}", HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed.json()["status"] == "active"
