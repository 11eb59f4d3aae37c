"""Celery workers and Redis failing for real, on a ``redis-server`` of the
test's own (the machine's shared Redis is never touched).

* A worker is SIGKILLed in the middle of a bot move: its transaction has
  inserted the move's events and is blocked (the test holds a seat row's
  lock from another connection). Nothing of it survives, and a new worker's
  beat sweep plays every bot turn exactly once.
* Redis is flushed and restarted while games wait on a dice roll, on bot
  moves and on an expired deadline, with a worker running: every queued
  message is gone, and the beat sweep brings each game back on track with no
  duplicate roll or move.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from games import dispatch
from games.models import Event, Game, Seat
from tests.faults.support import (
    PrivateRedis,
    assert_brilliant_moves_happen_once,
    assert_log_is_whole,
    backend_alive,
    backends_waiting_on_a_lock,
    broker_sender,
    plain_connection,
    start_worker,
    stop_worker,
    wait_for,
)
from tests.helpers import act, ok, open_table

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def private_redis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PrivateRedis]:
    """A private redis-server; the services in this process send their tasks to it."""
    server = PrivateRedis(tmp_path)
    server.start()
    monkeypatch.setattr(dispatch, "send_task", broker_sender(server.url))
    yield server
    server.stop()


@pytest.fixture
def workers(private_redis: PrivateRedis, tmp_path: Path) -> Iterator[list[Any]]:
    """Workers a test starts; whatever is left running is stopped at the end."""
    started: list[Any] = []
    yield started
    for process in started:
        print(stop_worker(process)[-3000:])


def events(game_id: int, **filters: Any) -> Any:
    return Event.objects.filter(game_id=game_id, **filters)


def answer_the_next_roll(game_id: int, players: dict[int, Any]) -> None:
    """Wait for the roll, have each human answer it over HTTP, and wait until
    it is resolved (by the worker's bots and forced passes as well)."""
    resolved = events(game_id, type="roll_resolved").count()
    wait_for(lambda: events(game_id, type="dice_rolled").count() > resolved, 90, "the next roll")
    for client in players.values():
        offered = ok(client.get(f"/api/v1/games/{game_id}/legal-actions"))["actions"]
        if offered:
            ok(act(client, game_id, offered[0]), 201)
    wait_for(
        lambda: events(game_id, type="roll_resolved").count() > resolved, 90, "the roll resolved"
    )


def test_a_worker_killed_mid_move_leaves_nothing_and_the_sweep_plays_each_bot_turn_once(
    client_for, private_redis: PrivateRedis, workers: list[Any], tmp_path: Path
) -> None:
    ada = client_for("ada")
    table = open_table(ada, num_seats=3)
    game_id = table["id"]
    # The bot tasks wait in the private Redis: no worker is running yet.
    ok(ada.post(f"/api/v1/games/{game_id}/bots"))
    seq_before = Game.objects.get(pk=game_id).seq
    assert private_redis.client().llen("celery") == 2  # one move per bot seat

    with plain_connection() as blocker:
        # Lock the bots' seat rows: a bot move inserts its events, then blocks
        # updating its seat's deadline, inside its open transaction.
        blocker.execute(
            "SELECT id FROM games_seat WHERE game_id = %s AND index IN (1, 2) FOR UPDATE",
            [game_id],
        )
        doomed = start_worker(private_redis.url, tmp_path, beat=False)
        workers.append(doomed)
        wait_for(
            lambda: bool(backends_waiting_on_a_lock('UPDATE "games_seat"')),
            60,
            "the worker to block in the middle of a bot move",
        )
        (stuck_backend,) = backends_waiting_on_a_lock('UPDATE "games_seat"')
        stop_worker(doomed, kill=True)
        workers.remove(doomed)
        blocker.rollback()

    # The dead worker's session ends and its transaction is rolled back.
    wait_for(lambda: not backend_alive(stuck_backend), 60, "the dead worker's session to end")
    assert Game.objects.get(pk=game_id).seq == seq_before
    assert not events(game_id, seq__gt=seq_before).exists()

    # Its message was taken and never acknowledged; the other bot's may
    # still be queued. A new worker with beat: the sweep finds the bots'
    # due rows and plays each bot's setup once.
    workers.append(start_worker(private_redis.url, tmp_path, beat=True))
    wait_for(
        lambda: events(game_id, type="setup_chosen", actor__in=[1, 2]).count() == 2,
        90,
        "both bots' setups",
    )
    ok(act(ada, game_id, {"type": "setup", "stars": True}), 201)
    answer_the_next_roll(game_id, {0: ada})
    rows = assert_log_is_whole(game_id)
    assert [r.actor for r in rows if r.type == "setup_chosen"].count(1) == 1
    assert [r.actor for r in rows if r.type == "setup_chosen"].count(2) == 1
    assert_brilliant_moves_happen_once(rows, 3)


def test_redis_flushed_and_restarted_while_games_wait_the_sweep_brings_every_game_back(
    client_for, private_redis: PrivateRedis, workers: list[Any], tmp_path: Path
) -> None:
    ada, bob = client_for("ada"), client_for("bob")

    # The worker is kept busy on one game (its bot's move blocks on a seat
    # row this test holds), so the messages for the others queue up in Redis.
    busy = open_table(ada, num_seats=2)["id"]
    ok(ada.post(f"/api/v1/games/{busy}/bots"))
    with plain_connection() as blocker:
        blocker.execute(
            "SELECT id FROM games_seat WHERE game_id = %s AND index = 1 FOR UPDATE", [busy]
        )
        workers.append(start_worker(private_redis.url, tmp_path, beat=True))
        wait_for(
            lambda: bool(backends_waiting_on_a_lock('UPDATE "games_seat"')),
            60,
            "the worker to be busy",
        )

        waiting_for_a_roll = open_table(ada, num_seats=2)["id"]
        ok(bob.post(f"/api/v1/games/{waiting_for_a_roll}/join"))
        ok(act(ada, waiting_for_a_roll, {"type": "setup", "stars": True}), 201)
        ok(act(bob, waiting_for_a_roll, {"type": "setup", "stars": True}), 201)
        waiting_for_bots = open_table(bob, num_seats=3)["id"]
        ok(bob.post(f"/api/v1/games/{waiting_for_bots}/bots"))
        ok(act(bob, waiting_for_bots, {"type": "setup", "stars": True}), 201)
        queued = [m.decode() for m in private_redis.client().lrange("celery", 0, -1)]
        assert sum("run_system_step" in m for m in queued) == 1
        assert sum("play_bot_move" in m for m in queued) >= 2  # one per commit with bots to move

        # Redis loses everything and goes down; the busy worker finishes its
        # move meanwhile and cannot acknowledge it.
        private_redis.flush_and_stop()
        blocker.rollback()

    # With the broker down, games go on: the services' messages are lost
    # (dispatch logs them), and the database still records what is due.
    past_its_deadline = open_table(ada, num_seats=2, turn_timeout=600)["id"]
    ok(bob.post(f"/api/v1/games/{past_its_deadline}/join"))
    ok(act(ada, past_its_deadline, {"type": "setup", "stars": True}), 201)
    Seat.objects.filter(game_id=past_its_deadline, index=1).update(
        deadline=timezone.now() - timedelta(seconds=1)  # bob's time is up
    )
    wait_for(lambda: events(busy, type="setup_chosen", actor=1).exists(), 60, "the busy move")
    ok(act(ada, busy, {"type": "setup", "stars": True}), 201)
    games = (busy, waiting_for_a_roll, waiting_for_bots, past_its_deadline)
    assert not any(events(g, type="dice_rolled").exists() for g in games)

    private_redis.start()  # empty: every queued message is gone
    wait_for(
        lambda: all(events(g, type="dice_rolled").exists() for g in games),
        120,
        "every game's first roll after Redis came back",
    )
    bob_setup = events(past_its_deadline, type="setup_chosen", actor=1).get()
    assert bob_setup.automatic
    assert Seat.objects.get(game_id=past_its_deadline, index=1).auto_moves_in_row == 1

    # Everyone answers the roll; the games go on with the same worker.
    answer_the_next_roll(busy, {0: ada})
    answer_the_next_roll(waiting_for_a_roll, {0: ada, 1: bob})
    answer_the_next_roll(waiting_for_bots, {0: bob})
    answer_the_next_roll(past_its_deadline, {0: ada, 1: bob})

    for game_id in games:
        seats = Game.objects.get(pk=game_id).num_seats
        rows = assert_log_is_whole(game_id)
        assert_brilliant_moves_happen_once(rows, seats)
        assert sorted(r.actor for r in rows if r.type == "setup_chosen") == list(range(seats))
