"""Append throughput: our service layer next to the floor and the peer.

* service: ``games.services.action_submit`` (lock the game row, decide,
  append with the hash chain, update the projection and deadlines, commit)
  playing Diamants games, whose moves are cheap to choose; the client picks
  each move with the ruleset's bot (``auto_action``) and runs the due dice
  rolls as the Celery task would. Counted: moves (one transaction each).
* floor: raw psycopg, one INSERT per transaction (autocommit) into a table
  made ``LIKE games_event INCLUDING ALL`` (same columns, unique (game, seq),
  jsonb payload, same indexes), replaying the events the service stored.
* peer: the ``eventsourcing`` library's PostgreSQL application recorder,
  the same events, one ``save`` (one transaction) per event.

Each runs for a fixed time with 1 client on 1 game, then 8 clients (processes)
on 8 games; the rate is operations over that time.
"""

from __future__ import annotations

import multiprocessing
import time
import uuid
from collections.abc import Callable
from typing import Any

from psycopg.types.json import Jsonb

from .common import Driver, Figure, Results, make_user, open_game, raw_connection
from .peer import peer_app

RULESET = "diamants"
FLOOR_TABLE = "bench_floor_event"

# worker(client index) -> one operation, returning how many it counted.
Operation = Callable[[], int]
Worker = Callable[[int], Operation]


def run_clients(worker: Worker, clients: int, seconds: float) -> float:
    """Operations per second of ``clients`` processes doing ``worker``'s
    operation for ``seconds``, all starting together after their setup."""
    from django.db import connections

    connections.close_all()  # each child opens its own
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(clients + 1)
    counts = context.Queue()
    children = [
        context.Process(target=_client, args=(worker, index, barrier, seconds, counts))
        for index in range(clients)
    ]
    for child in children:
        child.start()
    barrier.wait(timeout=600)
    total = sum(counts.get(timeout=600 + seconds) for _ in children)
    for child in children:
        child.join()
    return total / seconds


def _client(worker: Worker, index: int, barrier: Any, seconds: float, counts: Any) -> None:
    try:
        operation = worker(index)
    except BaseException:
        barrier.abort()  # the parent stops waiting at once
        raise
    barrier.wait(timeout=600)
    done = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        done += operation()
    counts.put(done)


# --- the three contenders ----------------------------------------------------------


def service_worker(tag: str) -> Worker:
    def worker(index: int) -> Operation:
        users = [make_user(f"{tag}{index}a"), make_user(f"{tag}{index}b")]
        games: list[Driver] = []

        def next_game() -> Driver:
            game_id = open_game(RULESET, users)
            return Driver(game_id, users, seed=index)

        games.append(next_game())

        def operation() -> int:
            driver = games[-1]
            if driver.over:
                driver = next_game()
                games.append(driver)
            before = driver.moves
            driver.step()
            return driver.moves - before

        return operation

    return worker


def stored_events(limit: int = 5000) -> list[tuple[Any, ...]]:
    """Events the service stored, to be appended again by floor and peer."""
    with raw_connection() as conn:
        return conn.execute(
            "SELECT type, actor, automatic, payload, hash FROM games_event ORDER BY id LIMIT %s",
            [limit],
        ).fetchall()


def floor_worker(events: list[tuple[Any, ...]]) -> Worker:
    def worker(index: int) -> Operation:
        conn = raw_connection(autocommit=True)
        game_id = 10_000_000 + index * 1_000_000 + int(time.time()) % 100_000
        seq = iter(range(1, 10**9))
        sql = (
            f"INSERT INTO {FLOOR_TABLE} (game_id, seq, type, actor, automatic, payload,"
            " created_at, hash) VALUES (%s, %s, %s, %s, %s, %s, now(), %s)"
        )

        def operation() -> int:
            n = next(seq)
            type_, actor, automatic, payload, hash_ = events[n % len(events)]
            conn.execute(sql, [game_id, n, type_, actor, automatic, Jsonb(payload), hash_])
            return 1

        return operation

    return worker


def peer_worker(events: list[tuple[Any, ...]]) -> Worker:
    def worker(index: int) -> Operation:
        from .peer import PeerGame

        app = peer_app(create_tables=False)
        game = PeerGame(ruleset="bench-peer-append")
        app.save(game)
        position = iter(range(10**9))

        def operation() -> int:
            type_, actor, automatic, payload, _ = events[next(position) % len(events)]
            # A dotted type: stored and applied as data only (no evolve), as
            # the floor and the service store it.
            game.happen(type="peer." + type_, actor=actor, automatic=automatic, payload=payload)
            app.save(game)
            return 1

        return operation

    return worker


def create_floor_table() -> None:
    with raw_connection() as conn:
        conn.execute(f"DROP TABLE IF EXISTS {FLOOR_TABLE}")
        conn.execute(f"CREATE TABLE {FLOOR_TABLE} (LIKE games_event INCLUDING ALL)")


def measure(results: Results, *, seconds: float) -> None:
    create_floor_table()
    tag = "ap" + uuid.uuid4().hex[:6]
    service = {}
    for clients in (1, 8):
        service[clients] = run_clients(service_worker(f"{tag}c{clients}n"), clients, seconds)
    events = stored_events()
    floor = {c: run_clients(floor_worker(events), c, seconds) for c in (1, 8)}
    peer_app()  # creates the peer's tables once, before its clients race to
    peer = {c: run_clients(peer_worker(events), c, seconds) for c in (1, 8)}
    for clients in (1, 8):
        label = f"{clients} client{'s' if clients > 1 else ''}, {clients} game{'s' if clients > 1 else ''}"
        results.add(
            Figure("append", f"floor: raw INSERT per transaction ({label})", floor[clients], "tx/s")
        )
        results.add(
            Figure(
                "append",
                f"peer: eventsourcing, one event per save ({label})",
                peer[clients],
                "events/s",
            )
        )
        results.add(
            Figure(
                "append",
                f"service: action_submit, Diamants ({label})",
                service[clients],
                "moves/s",
                ratio=service[clients] / peer[clients],
                ratio_of="peer",
                target=">= 1x peer",
                met=service[clients] >= peer[clients],
            )
        )
        ratio = service[clients] / floor[clients]
        results.add(
            Figure(
                "append",
                f"service over floor ({label})",
                service[clients],
                "moves/s",
                ratio=ratio,
                ratio_of="floor",
                target=">= 0.6x floor",
                met=ratio >= 0.6,
            )
        )
