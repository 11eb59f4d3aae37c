"""History cannot be changed through the database, and a change made behind
the triggers' back (a superuser disabling them) is caught by
``GET /games/{id}/verify``.

``tests/test_event_store.py`` checks the triggers through Django's own
connection; here the statements come from a plain connection of their own,
as an operator's psql session would send them."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from games import store
from games.models import Event, Game
from tests.faults.support import log_of, plain_connection
from tests.helpers import act, ok, open_table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def game_id(client_for) -> int:
    """A started two-player Brilliant game a few events long."""
    ada, bob = client_for("ada"), client_for("bob")
    table = open_table(ada, num_seats=2)
    ok(bob.post(f"/api/v1/games/{table['id']}/join"))
    ok(act(ada, table["id"], {"type": "setup", "stars": True}), 201)
    ok(act(bob, table["id"], {"type": "setup", "stars": True}), 201)
    assert Game.objects.get(pk=table["id"]).seq >= 4
    return table["id"]


def snapshot(game_id: int) -> list[tuple[Any, ...]]:
    return list(
        Event.objects.filter(game_id=game_id)
        .order_by("seq")
        .values_list("seq", "type", "actor", "payload", "created_at", "hash")
    )


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE games_event SET payload = '{}'::jsonb WHERE game_id = %(game)s AND seq = 2",
        "UPDATE games_event SET actor = 1 - actor WHERE game_id = %(game)s",
        "UPDATE games_event SET hash = md5(hash) WHERE game_id = %(game)s",
        "DELETE FROM games_event WHERE game_id = %(game)s AND seq = 2",
        "DELETE FROM games_event",
        "TRUNCATE games_event CASCADE",
        "TRUNCATE games_game CASCADE",
    ],
)
def test_a_plain_session_cannot_update_delete_or_truncate_events(
    game_id: int, statement: str
) -> None:
    before = snapshot(game_id)
    with (
        plain_connection() as conn,
        pytest.raises(psycopg.errors.RaiseException, match="append-only"),
    ):
        conn.execute(statement, {"game": game_id})
    assert snapshot(game_id) == before


def test_the_purge_escape_hatch_never_allows_an_update(game_id: int) -> None:
    before = snapshot(game_id)
    with (
        plain_connection() as conn,
        pytest.raises(psycopg.errors.RaiseException, match="append-only"),
    ):
        conn.execute("SET facets.allow_event_purge = 'on'")
        conn.execute("UPDATE games_event SET payload = '{}'::jsonb WHERE game_id = %s", [game_id])
    assert snapshot(game_id) == before


def tamper(sql: str, params: list[Any]) -> None:
    """Change history as a superuser who switches the triggers off (on the
    test database only) and back on."""
    with plain_connection() as conn:
        conn.execute("ALTER TABLE games_event DISABLE TRIGGER USER")
        conn.execute(sql, params)
        conn.execute("ALTER TABLE games_event ENABLE TRIGGER USER")


def verify(anon: Any, game_id: int) -> dict[str, Any]:
    return ok(anon.get(f"/api/v1/games/{game_id}/verify"))


def test_verify_is_clean_before_any_tampering(game_id: int, anon) -> None:
    checked = verify(anon, game_id)
    assert checked["chain_ok"] and checked["first_bad_seq"] is None
    assert checked["projection_matches"]


@pytest.mark.parametrize(
    "edit",
    [
        "UPDATE games_event SET payload = payload || '{\"stars\": false}' WHERE game_id = %s AND seq = %s",
        "UPDATE games_event SET actor = 1 - actor WHERE game_id = %s AND seq = %s",
        "UPDATE games_event SET automatic = NOT automatic WHERE game_id = %s AND seq = %s",
        "UPDATE games_event SET created_at = created_at - interval '1 second' WHERE game_id = %s AND seq = %s",
        "UPDATE games_event SET type = 'setup_revealed' WHERE game_id = %s AND seq = %s",
    ],
)
def test_an_edited_event_is_caught_at_its_seq(game_id: int, anon, edit: str) -> None:
    edited = next(r.seq for r in log_of(game_id) if r.type == "setup_chosen")
    tamper(edit, [game_id, edited])
    checked = verify(anon, game_id)
    assert checked["chain_ok"] is False
    assert checked["first_bad_seq"] == edited


def test_a_deleted_event_is_caught_where_the_gap_is(game_id: int, anon) -> None:
    tamper("DELETE FROM games_event WHERE game_id = %s AND seq = %s", [game_id, 2])
    checked = verify(anon, game_id)
    assert checked["chain_ok"] is False and checked["first_bad_seq"] == 3


def test_an_edit_with_its_hash_recomputed_breaks_the_next_link(game_id: int, anon) -> None:
    rows = log_of(game_id)
    forged = rows[1]
    forged.payload = {**forged.payload, "forged": True}
    forged_hash = store.row_hash(rows[0].hash, forged)
    tamper(
        "UPDATE games_event SET payload = payload || '{\"forged\": true}', hash = %s"
        " WHERE game_id = %s AND seq = %s",
        [forged_hash, game_id, forged.seq],
    )
    checked = verify(anon, game_id)
    assert checked["chain_ok"] is False and checked["first_bad_seq"] == forged.seq + 1


def test_a_tail_rewritten_with_fresh_hashes_disagrees_with_the_game_row(game_id: int, anon) -> None:
    """Whoever rewrites every hash from an edited event on still leaves the
    game row's recorded head (seq and last hash) behind."""
    rows = log_of(game_id)
    rows[-1].payload = {**rows[-1].payload, "forged": True}
    rewritten = store.row_hash(rows[-2].hash, rows[-1])
    tamper(
        "UPDATE games_event SET payload = payload || '{\"forged\": true}', hash = %s"
        " WHERE game_id = %s AND seq = %s",
        [rewritten, game_id, rows[-1].seq],
    )
    assert store.verify_chain(log_of(game_id)) == (True, None)  # the links alone hold
    checked = verify(anon, game_id)
    assert checked["chain_ok"] is False and checked["first_bad_seq"] == rows[-1].seq


def test_a_deleted_last_event_is_caught(game_id: int, anon) -> None:
    last = Game.objects.get(pk=game_id).seq
    tamper("DELETE FROM games_event WHERE game_id = %s AND seq = %s", [game_id, last])
    checked = verify(anon, game_id)
    assert checked["chain_ok"] is False and checked["first_bad_seq"] == last


def test_a_forged_event_appended_behind_the_service_is_caught(game_id: int, anon) -> None:
    """INSERT is what the log allows; one that bypasses the service (and the
    game row) is still found: the log runs past the game's recorded head."""
    rows = log_of(game_id)
    head = rows[-1]
    forged = Event(
        game_id=game_id,
        seq=head.seq + 1,
        type="setup_chosen",
        actor=0,
        automatic=False,
        payload={"cells": [], "stars": True},
        created_at=head.created_at,
    )
    forged.hash = store.row_hash(head.hash, forged)
    with plain_connection() as conn:
        conn.execute(
            "INSERT INTO games_event (game_id, seq, type, actor, automatic, payload, created_at, hash)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            [
                game_id,
                forged.seq,
                forged.type,
                forged.actor,
                forged.automatic,
                psycopg.types.json.Jsonb(forged.payload),
                forged.created_at,
                forged.hash,
            ],
        )
    checked = verify(anon, game_id)
    assert checked["chain_ok"] is False and checked["first_bad_seq"] == head.seq + 1
