"""Celery for real: a worker and beat in their own process, talking to Redis
and to the test database, while players use the API."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.db import connection

from games.models import Event, Game, Seat
from tests.helpers import act, legal, ok, open_table
from tests.workers import celery_worker

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def worker(tmp_path: Path, transactional_db: None) -> Iterator[subprocess.Popen]:
    if not settings.REDIS_URL:
        pytest.fail("REDIS_URL must point at a real Redis for worker tests (scripts/test sets it)")
    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "REDIS_URL": settings.REDIS_URL,
        "FACETS_SWEEP_SECONDS": "1",
        "FACETS_TASK_GRACE_SECONDS": "2",
        "FACETS_VAR_DIR": str(tmp_path),
    }
    with celery_worker(env, tmp_path) as process:
        yield process


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.25)
    pytest.fail(f"timed out waiting for {what}")


def test_worker_rolls_dice_and_moves_a_silent_player_on_after_the_timeout(
    client_for, worker
) -> None:
    ada, bob = client_for("ada"), client_for("bob")
    table = open_table(ada, num_seats=2, turn_timeout=10)
    game_id = table["id"]
    ok(bob.post(f"/api/v1/games/{game_id}/join"))
    ok(act(ada, game_id, {"type": "setup", "stars": True}), 201)
    deadline = Seat.objects.get(game_id=game_id, index=1).deadline
    assert deadline is not None

    # bob never answers: the beat sweep plays his automatic setup after 10 s,
    # and the worker then rolls the dice.
    wait_for(
        lambda: Event.objects.filter(game_id=game_id, type="dice_rolled").exists(),
        40,
        "the first roll",
    )
    bob_setup = Event.objects.get(game_id=game_id, type="setup_chosen", actor=1)
    assert bob_setup.automatic
    assert bob_setup.created_at >= deadline
    roll = Event.objects.get(game_id=game_id, type="dice_rolled")
    assert roll.actor == 0 and roll.seq > bob_setup.seq


def test_worker_plays_the_bots_while_a_player_plays_over_http(client_for, worker) -> None:
    ada = client_for("ada")
    table = open_table(ada, num_seats=3, turn_timeout=3600)
    game_id = table["id"]
    ok(ada.post(f"/api/v1/games/{game_id}/bots"))
    deadline = time.monotonic() + 180
    while Game.objects.get(pk=game_id).status != "finished":
        assert time.monotonic() < deadline, "the game did not finish"
        offered = legal(ada, game_id)
        if offered:
            act(ada, game_id, offered[0])  # may be 409 if a roll came in between
        else:
            time.sleep(0.1)
    game = Game.objects.get(pk=game_id)
    seqs = list(Event.objects.filter(game_id=game_id).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.seq + 1))
    bot_answers = Event.objects.filter(
        game_id=game_id, type="answered", actor__in=[1, 2], automatic=False
    )
    assert bot_answers.count() > 10
    assert game.result["reason"] != "resignation"
