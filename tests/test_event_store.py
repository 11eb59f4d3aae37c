"""The event store's contract: append-only in the database, hash-chained,
gap-free under concurrent writers, and cheap to read at any length."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import DatabaseError, connection, connections, transaction
from django.utils import timezone

from games import store
from games.errors import Conflict
from games.models import Event, Game
from games.rules import registry
from tests.helpers import act, ok, open_table

pytestmark = pytest.mark.django_db(transaction=True)


def started_two_player_game(client_for) -> tuple[int, Any, Any]:
    ada, bob = client_for("ada"), client_for("bob")
    table = open_table(ada, num_seats=2)
    ok(bob.post(f"/api/v1/games/{table['id']}/join"))
    return table["id"], ada, bob


def refuse_purge(cursor: Any) -> None:
    cursor.execute("SET LOCAL facets.allow_event_purge = 'off'")


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE games_event SET payload = '{}'::jsonb",
        "UPDATE games_event SET seq = seq + 100",
        "DELETE FROM games_event",
        "TRUNCATE games_event CASCADE",
    ],
)
def test_postgres_refuses_to_change_history(client_for, statement: str) -> None:
    game_id, _, _ = started_two_player_game(client_for)
    before = list(Event.objects.filter(game_id=game_id).values_list("seq", "payload", "hash"))
    assert before
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        refuse_purge(cursor)
        cursor.execute(statement)
    assert (
        list(Event.objects.filter(game_id=game_id).values_list("seq", "payload", "hash")) == before
    )


def test_orm_updates_are_refused_too(client_for) -> None:
    game_id, _, _ = started_two_player_game(client_for)
    with pytest.raises(DatabaseError), transaction.atomic():
        with connection.cursor() as cursor:
            refuse_purge(cursor)
        Event.objects.filter(game_id=game_id).update(type="forged")
    assert not Event.objects.filter(type="forged").exists()


def test_hash_chain_links_every_event_and_detects_edits(client_for) -> None:
    game_id, ada, bob = started_two_player_game(client_for)
    ok(act(ada, game_id, {"type": "setup", "stars": True}), 201)
    rows = list(Event.objects.filter(game_id=game_id).order_by("seq"))
    assert store.verify_chain(rows) == (True, None)
    assert len({row.hash for row in rows}) == len(rows)
    rows[0].payload = {**rows[0].payload, "threshold": 1}  # an edit made outside the database
    assert store.verify_chain(rows) == (False, 1)
    swapped = [rows[1], rows[0]]
    assert store.verify_chain(swapped)[0] is False


def test_event_hash_is_sha256_over_previous_hash_and_canonical_json() -> None:
    import hashlib
    import json

    now = timezone.now()
    digest = store.event_hash(
        previous_hash="ab",
        game_id=1,
        seq=2,
        type="t",
        actor=0,
        automatic=False,
        payload={"b": 1, "a": [1, 2]},
        created_at=now,
    )
    record = {
        "game": 1,
        "seq": 2,
        "type": "t",
        "actor": 0,
        "automatic": False,
        "payload": {"a": [1, 2], "b": 1},
        "created_at": now.isoformat(),
    }
    canonical = json.dumps(record, sort_keys=True, separators=(",", ":"))
    assert digest == hashlib.sha256(("ab" + canonical).encode()).hexdigest()


def test_unique_game_seq_is_the_last_line_of_defence(client_for) -> None:
    game_id, _, _ = started_two_player_game(client_for)
    game = Game.objects.get(pk=game_id)
    game.seq -= 1  # pretend a writer forgot to lock and read a stale seq
    with pytest.raises(Conflict), transaction.atomic():
        store.append(
            game=game, events=[store.NewEvent(type="x", actor=None, payload={})], now=timezone.now()
        )


def test_concurrent_submissions_never_leave_gaps_or_duplicates(client_for, task_queue) -> None:
    """Six players answer the same roll at the same moment, for real, each in
    its own thread and database connection."""
    names = ["ann", "ben", "cat", "dov", "eli", "fay"]
    clients = {n: client_for(n) for n in names}
    table = open_table(clients["ann"], num_seats=6)
    game_id = table["id"]
    for name in names[1:]:
        ok(clients[name].post(f"/api/v1/games/{game_id}/join"))
    barrier = threading.Barrier(len(names))
    statuses: list[int] = []

    def setup_now(name: str) -> None:
        try:
            barrier.wait()
            statuses.append(
                act(clients[name], game_id, {"type": "setup", "stars": True}).status_code
            )
        finally:
            connections.close_all()

    threads = [threading.Thread(target=setup_now, args=(n,)) for n in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [201] * 6
    seqs = list(Event.objects.filter(game_id=game_id).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    setups = Event.objects.filter(game_id=game_id, type="setup_chosen")
    assert sorted(setups.values_list("actor", flat=True)) == list(range(6))
    game = Game.objects.get(pk=game_id)
    assert game.seq == seqs[-1]
    assert store.verify_chain(Event.objects.filter(game_id=game_id).order_by("seq")) == (True, None)
    # Every setup is in the projection: nobody is left to act before the roll.
    assert registry.get("brilliant").pending(game.state) == []
    assert game.system_step_due_at is not None


def test_the_same_expected_seq_wins_once(client_for) -> None:
    """Two clients race with the same expected_seq: exactly one is accepted."""
    game_id, ada, bob = started_two_player_game(client_for)
    seq = Game.objects.get(pk=game_id).seq
    barrier = threading.Barrier(2)
    statuses: list[int] = []

    def submit(client: Any) -> None:
        try:
            barrier.wait()
            statuses.append(
                act(client, game_id, {"type": "setup", "stars": True}, expected_seq=seq).status_code
            )
        finally:
            connections.close_all()

    threads = [threading.Thread(target=submit, args=(c,)) for c in (ada, bob)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [201, 409]


def test_reading_and_acting_cost_a_fixed_number_of_queries(
    client_for, django_assert_max_num_queries
) -> None:
    game_id, ada, bob = started_two_player_game(client_for)
    with django_assert_max_num_queries(8):
        ok(ada.get(f"/api/v1/games/{game_id}"))
    with django_assert_max_num_queries(20):
        ok(act(ada, game_id, {"type": "setup", "stars": True}), 201)
