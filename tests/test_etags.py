"""ETags on a game's detail and state: from the game's version and the caller's
seat, answered 304 without building the answer."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import act, error_code, legal, ok, open_table

pytestmark = pytest.mark.django_db

READS = ["/api/v1/games/{}", "/api/v1/games/{}/state"]


@pytest.fixture
def duel(client_for, task_queue) -> tuple[Any, Any, int]:
    """ada (seat 0) and bob (seat 1) in a started Brilliant game."""
    ada, bob = client_for("ada"), client_for("bob")
    table = open_table(ada, num_seats=2)
    ok(bob.post(f"/api/v1/games/{table['id']}/join"))
    task_queue.drain()
    return ada, bob, table["id"]


@pytest.mark.parametrize("read", READS)
def test_an_unchanged_game_answers_304_with_its_etag(duel, read) -> None:
    ada, _, game_id = duel
    first = ada.get(read.format(game_id))
    etag = first["ETag"]
    assert first.status_code == 200 and etag.startswith('W/"')

    again = ada.get(read.format(game_id), HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b"" and again["ETag"] == etag
    # The strong form of the same tag, a list, and "*" match too (weak comparison).
    for header in (etag.removeprefix("W/"), f'"other", {etag}', "*"):
        assert ada.get(read.format(game_id), HTTP_IF_NONE_MATCH=header).status_code == 304
    assert ada.get(read.format(game_id), HTTP_IF_NONE_MATCH='"other"').status_code == 200


@pytest.mark.parametrize("read", READS)
def test_the_etag_changes_after_a_move(duel, task_queue, read) -> None:
    ada, bob, game_id = duel
    before = {name: c.get(read.format(game_id))["ETag"] for name, c in (("ada", ada), ("bob", bob))}
    ok(act(ada, game_id, legal(ada, game_id)[0]), 201)
    for name, client in (("ada", ada), ("bob", bob)):
        changed = client.get(read.format(game_id), HTTP_IF_NONE_MATCH=before[name])
        assert changed.status_code == 200, name
        assert changed["ETag"] != before[name], name


@pytest.mark.parametrize("read", READS)
def test_each_seat_has_its_own_etag(duel, anon, read) -> None:
    ada, bob, game_id = duel
    adas, bobs = (c.get(read.format(game_id))["ETag"] for c in (ada, bob))
    assert adas != bobs
    # bob's copy is not ada's (each seat sees its own hidden information):
    # his tag never gets her a 304.
    assert ada.get(read.format(game_id), HTTP_IF_NONE_MATCH=bobs).status_code == 200
    if read.endswith("/state"):
        return  # a spectator may not read the state of a game in progress
    assert anon.get(read.format(game_id))["ETag"] not in (adas, bobs)


def test_joining_an_open_table_changes_the_etag_though_no_event_is_written(client_for) -> None:
    ada, bob = client_for("ada"), client_for("bob")
    table = open_table(ada, num_seats=3)
    etag = ada.get(f"/api/v1/games/{table['id']}")["ETag"]
    ok(bob.post(f"/api/v1/games/{table['id']}/join"))
    changed = ada.get(f"/api/v1/games/{table['id']}", HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed.json()["seq"] == table["seq"]
    assert [p["username"] for p in changed.json()["players"]] == ["ada", "bob"]


def test_a_replayed_seq_has_its_own_etag(duel) -> None:
    ada, _, game_id = duel
    ok(act(ada, game_id, legal(ada, game_id)[0]), 201)
    now = ada.get(f"/api/v1/games/{game_id}/state")
    past = ada.get(f"/api/v1/games/{game_id}/state?at=1")
    assert past.json()["seq"] == 1 and past["ETag"] != now["ETag"]
    again = ada.get(f"/api/v1/games/{game_id}/state?at=1", HTTP_IF_NONE_MATCH=past["ETag"])
    assert again.status_code == 304


def test_304_is_answered_without_building_the_answer(duel, monkeypatch) -> None:
    ada, _, game_id = duel
    tags = {read: ada.get(read.format(game_id))["ETag"] for read in READS}

    def must_not_run(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("built an answer for a 304")

    monkeypatch.setattr("games.api.views.presenters.game_detail", must_not_run)
    monkeypatch.setattr("games.api.views.selectors.state_at", must_not_run)
    for read, tag in tags.items():
        assert ada.get(read.format(game_id), HTTP_IF_NONE_MATCH=tag).status_code == 304


def test_a_304_costs_the_access_queries_only(duel, django_assert_max_num_queries) -> None:
    ada, _, game_id = duel
    etag = ada.get(f"/api/v1/games/{game_id}")["ETag"]
    # The token, the game, its seats.
    with django_assert_max_num_queries(3):
        assert ada.get(f"/api/v1/games/{game_id}", HTTP_IF_NONE_MATCH=etag).status_code == 304


def test_a_reader_who_may_not_see_the_state_gets_403_not_304(duel, anon) -> None:
    _, _, game_id = duel
    response = anon.get(f"/api/v1/games/{game_id}/state", HTTP_IF_NONE_MATCH="*")
    assert error_code(response, 403) == "not_a_player"


def test_the_schema_documents_etag_and_304(anon) -> None:
    schema = ok(anon.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json"))
    for path in ("/api/v1/games/{game_id}", "/api/v1/games/{game_id}/state"):
        operation = schema["paths"][path]["get"]
        headers = {p["name"] for p in operation["parameters"] if p["in"] == "header"}
        assert "If-None-Match" in headers, path
        assert "304" in operation["responses"], path
        assert "ETag" in operation["responses"]["200"]["headers"], path
