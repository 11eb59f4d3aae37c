"""The event store's contract, run against whichever database is configured.

``scripts/test`` runs this module twice: on PostgreSQL with the rest of the
suite, and again on the embedded SQLite default (the eventsourcing library's
habit of one recorder test case for every backend)."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from games import store
from games.errors import Conflict
from games.models import Event, Game

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(make_user) -> Game:
    return Game.objects.create(
        ruleset="brilliant",
        ruleset_version=1,
        num_seats=2,
        turn_timeout=60,
        created_by=make_user("ada"),
    )


def append(game: Game, *types: str) -> list[Event]:
    rows = store.append(
        game=game,
        events=[store.NewEvent(type=t, actor=0, payload={"t": t}) for t in types],
        now=timezone.now(),
    )
    game.save()
    return rows


def test_appends_number_events_one_by_one_and_chain_them(game: Game) -> None:
    append(game, "a", "b")
    append(game, "c")
    rows = list(Event.objects.filter(game=game).order_by("seq"))
    assert [(r.seq, r.type) for r in rows] == [(1, "a"), (2, "b"), (3, "c")]
    assert store.verify_chain(rows) == (True, None)
    assert game.last_hash == rows[-1].hash and game.seq == 3


def test_a_stale_writer_hits_the_unique_constraint_as_a_conflict(game: Game) -> None:
    append(game, "a")
    stale = Game.objects.get(pk=game.pk)
    stale.seq, stale.last_hash = 0, ""
    with pytest.raises(Conflict), transaction.atomic():
        append(stale, "forged")
    assert list(Event.objects.filter(game=game).values_list("type", flat=True)) == ["a"]


def test_the_database_refuses_updates(game: Game) -> None:
    append(game, "a")
    with pytest.raises(DatabaseError), transaction.atomic():
        Event.objects.filter(game=game).update(payload={"t": "forged"})
    assert Event.objects.get(game=game).payload == {"t": "a"}


def test_the_database_refuses_deletes(game: Game) -> None:
    append(game, "a")
    with pytest.raises(DatabaseError), transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL facets.allow_event_purge = 'off'")
        Event.objects.filter(game=game).delete()
    assert Event.objects.filter(game=game).count() == 1


def test_payloads_round_trip_exactly_so_hashes_verify_after_reading_back(game: Game) -> None:
    payload = {"z": [1, 2, {"é": "ü"}], "a": None, "n": -3, "deep": {"b": True, "a": [[]]}}
    store.append(
        game=game,
        events=[store.NewEvent(type="x", actor=None, payload=payload)],
        now=timezone.now(),
    )
    row = Event.objects.get(game=game)
    assert row.payload == payload
    assert store.verify_chain([row]) == (True, None)
