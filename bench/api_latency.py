"""Platform benchmark: does reading a game cost the same at move 10 and at
move 10,000? How long do an action, an events page and a replay take?

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/facets python bench/api_latency.py

Runs in a throwaway test database (``test_<name>``), created and dropped here.
Prints median and 95th percentile milliseconds per operation.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

REPEATS = 200
LONG_GAME_EVENTS = 10_000


def timed(operation: Callable[[], object], repeats: int = REPEATS) -> tuple[float, float]:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        operation()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


def main() -> None:
    setup_test_environment()
    from django.conf import settings

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        run()
    finally:
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET facets.allow_event_purge = 'on'")
        connection.creation.destroy_test_db(old_name, verbosity=0)


def client(username: str) -> APIClient:
    api = APIClient()
    api.post(
        "/api/v1/auth/register", {"username": username, "password": "bench-pass-123"}, format="json"
    )
    token = api.post(
        "/api/v1/auth/login", {"username": username, "password": "bench-pass-123"}, format="json"
    ).json()["token"]
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return api


def new_game(ada: APIClient, bob: APIClient) -> int:
    game_id = ada.post(
        "/api/v1/games", {"ruleset": "brilliant", "num_seats": 2}, format="json"
    ).json()["id"]
    bob.post(f"/api/v1/games/{game_id}/join")
    return game_id


def run() -> None:
    from games import dispatch, store
    from games.models import Game

    dispatch.send_task = lambda *args: None  # no broker needed here
    ada, bob = client("ada"), client("bob")
    short_game, long_game = new_game(ada, bob), new_game(ada, bob)

    # Pad the long game's log with platform events (skipped by the rules'
    # fold), as a game at move 10,000 would have.
    game = Game.objects.get(pk=long_game)
    filler = [
        store.NewEvent(type="bench.filler", actor=None, payload={"n": i})
        for i in range(LONG_GAME_EVENTS)
    ]
    for start in range(0, LONG_GAME_EVENTS, 1000):
        store.append(game=game, events=filler[start : start + 1000], now=timezone.now())
    game.save()

    timed(lambda: ada.get(f"/api/v1/games/{short_game}"), 50)  # warm up caches and connections
    rows = []
    for label, game_id in (("short", short_game), ("long", long_game)):
        seq = Game.objects.get(pk=game_id).seq
        read = timed(lambda g=game_id: ada.get(f"/api/v1/games/{g}"))
        legal = timed(lambda g=game_id: ada.get(f"/api/v1/games/{g}/legal-actions"))
        tail = timed(
            lambda g=game_id, s=seq: ada.get(f"/api/v1/games/{g}/events?after={max(0, s - 20)}")
        )
        rows.append((f"GET game ({label}, seq {seq})", *read))
        rows.append((f"GET legal-actions ({label})", *legal))
        rows.append((f"GET last 20 events ({label})", *tail))

    def submit_and_reset() -> None:
        game_id = new_game(ada, bob)
        start = time.perf_counter()
        ada.post(
            f"/api/v1/games/{game_id}/actions",
            {"action": {"type": "setup", "stars": True}},
            format="json",
        )
        submit_samples.append((time.perf_counter() - start) * 1000)

    submit_samples: list[float] = []
    for _ in range(100):
        submit_and_reset()
    submit_samples.sort()
    rows.append(("POST action (setup)", statistics.median(submit_samples), submit_samples[94]))
    replay = timed(lambda: ada.get(f"/api/v1/games/{long_game}/state?at=5"), 50)
    rows.append(("GET state?at=5 (replay, long game)", *replay))

    print(
        f"database: {connection.vendor}; {REPEATS} requests per row through the Django test client"
    )
    print(f"{'operation':45} {'median ms':>10} {'p95 ms':>10}")
    for name, median, p95 in rows:
        print(f"{name:45} {median:10.2f} {p95:10.2f}")


if __name__ == "__main__":
    main()
