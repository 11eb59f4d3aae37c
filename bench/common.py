"""Shared by the benchmark sections: the benchmark database, Django, players
and a driver that plays games through the service layer.

The whole run uses ONE PostgreSQL database (``DATABASE_URL``, normally
``facets_bench``), dropped and recreated at the start, so every figure is
taken on the same server, tables and settings.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

import psycopg


@dataclass
class Figure:
    """One line of the results table."""

    section: str
    name: str
    value: float | None
    unit: str
    ratio: float | None = None
    ratio_of: str = ""
    target: str = ""
    met: bool | None = None
    note: str = ""


@dataclass
class Results:
    figures: list[Figure] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    def add(self, figure: Figure) -> Figure:
        self.figures.append(figure)
        value = "n/a" if figure.value is None else f"{figure.value:,.2f} {figure.unit}"
        ratio = f"  ({figure.ratio:.2f}x {figure.ratio_of})" if figure.ratio is not None else ""
        print(f"  {figure.section} | {figure.name}: {value}{ratio}", flush=True)
        return figure


def connection_kwargs(url: str | None = None) -> dict[str, Any]:
    parsed = urlparse(url or os.environ["DATABASE_URL"])
    return {
        "host": parsed.hostname or "127.0.0.1",
        "port": parsed.port or 5432,
        "user": parsed.username or "postgres",
        "password": parsed.password or None,
        "dbname": parsed.path.lstrip("/"),
    }


def raw_connection(autocommit: bool = True) -> psycopg.Connection:
    kwargs = connection_kwargs()
    return psycopg.connect(
        **{k: v for k, v in kwargs.items() if v is not None}, autocommit=autocommit
    )


def recreate_database() -> None:
    """Drop and create the benchmark database (never a database in use by others:
    the name comes from DATABASE_URL, facets_bench by default)."""
    kwargs = connection_kwargs()
    name = kwargs.pop("dbname")
    if not name.startswith(("facets_bench", "bench")):
        raise SystemExit(f"refusing to drop {name!r}: the benchmark database must be facets_bench*")
    admin = {k: v for k, v in kwargs.items() if v is not None}
    with psycopg.connect(**admin, dbname="postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings

    # Accounts are made by the thousand here; the password hash is no part of
    # any figure (requests authenticate with bearer tokens).
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def test_environment() -> None:
    """Django's test environment (the test client's request handling), once."""
    from django.test import utils

    if not getattr(test_environment, "done", False):
        utils.setup_test_environment()
        test_environment.done = True  # type: ignore[attr-defined]


def silence_broker() -> None:
    """No Celery in the in-process sections: the driver runs due work itself."""
    from games import dispatch

    dispatch.send_task = lambda *args, **kwargs: None  # type: ignore[assignment]


PASSWORD = "bench-pass-123"


def make_user(username: str) -> Any:
    from accounts import services as accounts

    return accounts.user_register(username=username, password=PASSWORD)


def issue_token(username: str) -> str:
    from accounts import services as accounts

    return accounts.token_issue(username=username, password=PASSWORD).key


def open_game(ruleset: str, users: list[Any], *, turn_timeout: int = 3600) -> int:
    """A started game with ``users`` in seats 0..n-1."""
    from games import services

    game = services.game_create(
        creator=users[0],
        ruleset=ruleset,
        options={},
        num_seats=len(users),
        turn_timeout=turn_timeout,
    )
    for user in users[1:]:
        services.game_join(game_id=game.pk, user=user)
    return game.pk


class Driver:
    """Plays one game through the service layer as its players would: the
    pending seat submits the ruleset's own automatic (bot) choice; when
    nobody is pending, the due system step (a dice roll) runs, as the Celery
    task would."""

    def __init__(self, game_id: int, users: list[Any], seed: int = 0) -> None:
        from games.models import Game
        from games.rules import registry

        self.game_id = game_id
        self.users = users
        game = Game.objects.get(pk=game_id)
        self.rules = registry.get(game.ruleset, game.ruleset_version)
        self.state = game.state
        self.status = game.status
        self.rng = random.Random(seed)
        self.moves = 0

    @property
    def over(self) -> bool:
        return self.status != "active"

    def step(self) -> bool:
        """One move (or one system step). False once the game is over."""
        from games import services
        from games.models import Game

        if self.over:
            return False
        pending = self.rules.pending(self.state)
        if pending:
            seat = pending[0]
            action = self.rules.auto_action(self.state, seat, self.rng)
            outcome = services.action_submit(
                game_id=self.game_id, user=self.users[seat], action=action
            )
            self.state, self.status = outcome.game.state, outcome.game.status
            self.moves += 1
        else:
            services.system_step_run(game_id=self.game_id, seq=None)
            game = Game.objects.get(pk=self.game_id)
            self.state, self.status = game.state, game.status
        return not self.over

    def play_to_end(self, max_steps: int = 5000) -> None:
        for _ in range(max_steps):
            if not self.step():
                return


def timed_samples(operation: Callable[[], object], repeats: int) -> list[float]:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        operation()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]
