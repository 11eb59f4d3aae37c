"""What one hot operation costs, in figures that a busy machine disturbs
little: SQL queries (exact) and this process's CPU milliseconds (the time
spent waiting for PostgreSQL or for a core is not counted; the wall time is
printed beside it). Used to judge the profile-driven fixes.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

from .common import Driver, Figure, Results, issue_token, make_user, open_game, test_environment


def _cost(operation: Callable[[], object], repeats: int) -> tuple[float, float, float]:
    """(queries, CPU ms, wall ms) per call."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(repeats):
            operation()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return len(queries.captured_queries) / repeats, cpu * 1000 / repeats, wall * 1000 / repeats


def measure(results: Results, *, repeats: int) -> None:
    from rest_framework.test import APIClient

    test_environment()
    tag = "c" + uuid.uuid4().hex[:6]
    users = [make_user(f"{tag}a"), make_user(f"{tag}b")]
    drivers = [Driver(open_game("diamants", users), users, seed=3)]

    def move() -> None:
        while True:
            if drivers[-1].over:
                drivers.append(Driver(open_game("diamants", users), users, seed=len(drivers)))
            moves = drivers[-1].moves
            drivers[-1].step()
            if drivers[-1].moves > moves:
                return

    move()
    # Counted per move, the occasional dice roll and new table included.
    _report(results, "service: one move (action_submit, Diamants)", _cost(move, repeats))

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issue_token(f'{tag}a')}")
    game = drivers[-1].game_id
    client.get(f"/api/v1/games/{game}")
    _report(
        results,
        "API: GET game (test client)",
        _cost(lambda: client.get(f"/api/v1/games/{game}"), repeats),
    )
    _report(
        results,
        "API: GET legal-actions (test client)",
        _cost(lambda: client.get(f"/api/v1/games/{game}/legal-actions"), repeats),
    )


def _report(results: Results, name: str, cost: tuple[float, float, float]) -> None:
    queries, cpu_ms, wall_ms = cost
    results.add(Figure("cost", f"{name}: SQL queries", queries, "queries"))
    results.add(
        Figure("cost", f"{name}: CPU of this process", cpu_ms, "ms", note=f"wall {wall_ms:.1f} ms")
    )
