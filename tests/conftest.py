"""Shared fixtures: API clients with accounts, a queue standing in for the
broker, and a reproducible random generator."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from django.db.backends.signals import connection_created
from rest_framework.test import APIClient

from games import dispatch, tasks
from games.webhooks import tasks as webhook_tasks

PASSWORD = "correct-horse-battery-staple"


def _allow_event_purge(sender: Any, connection: Any, **kwargs: Any) -> None:
    # Test teardown flushes tables with TRUNCATE; the append-only trigger lets
    # only a session that declares a purge do that (see migration 0002).
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET facets.allow_event_purge = 'on'")


connection_created.connect(_allow_event_purge)


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    # The real hasher is slow on purpose; tests register many accounts.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_throttles() -> None:
    # Throttle counters live in the cache; each test starts with none.
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def seeded_rng(monkeypatch: pytest.MonkeyPatch) -> random.Random:
    rng = random.Random(20261130)
    monkeypatch.setattr("games.services.platform_rng", lambda: rng)
    # Each game's committed seed comes from the same reproducible stream.
    monkeypatch.setattr(
        "games.services.new_game_seed", lambda: rng.getrandbits(256).to_bytes(32, "big").hex()
    )
    return rng


class TaskQueue:
    """Collects the tasks services send after commit; ``drain`` runs them in
    order (and whatever they send in turn) like a worker would."""

    TASKS: dict[str, Callable[..., Any]] = {
        "games.tasks.run_system_step": tasks.run_system_step,
        "games.tasks.play_bot_move": tasks.play_bot_move,
        "games.tasks.sweep_due_work": tasks.sweep_due_work,
        "webhooks.tasks.deliver": webhook_tasks.deliver,
        "webhooks.tasks.sweep_deliveries": webhook_tasks.sweep_deliveries,
    }

    def __init__(self) -> None:
        self.sent: list[tuple[str, tuple[Any, ...]]] = []

    def send(self, name: str, *args: Any) -> None:
        self.sent.append((name, args))

    def drain(self, limit: int = 100_000, drop: str | None = None) -> int:
        """Run queued tasks until none are left; ``drop`` names a task to
        lose instead of running (a broker losing those messages)."""
        ran = 0
        while self.sent:
            name, args = self.sent.pop(0)
            if name == drop:
                continue
            self.TASKS[name](*args)
            ran += 1
            if ran > limit:
                raise RuntimeError("tasks keep coming: a loop?")
        return ran


@pytest.fixture(autouse=True)
def task_queue(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> TaskQueue | None:
    if request.node.get_closest_marker("worker"):
        return None  # a real worker consumes real messages
    queue = TaskQueue()
    monkeypatch.setattr(dispatch, "send_task", queue.send)
    return queue


@pytest.fixture
def make_user(db: None) -> Callable[[str], Any]:
    from accounts.services import user_register

    def make(username: str) -> Any:
        return user_register(username=username, password=PASSWORD)

    return make


@pytest.fixture
def client_for(db: None) -> Callable[[str], APIClient]:
    """An API client logged in (through the API) as a new user."""

    def make(username: str) -> APIClient:
        client = APIClient()
        assert (
            client.post(
                "/api/v1/auth/register", {"username": username, "password": PASSWORD}, format="json"
            ).status_code
            == 201
        )
        response = client.post(
            "/api/v1/auth/login", {"username": username, "password": PASSWORD}, format="json"
        )
        assert response.status_code == 201, response.content
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {response.json()['token']}")
        return client

    return make


@pytest.fixture
def anon() -> APIClient:
    return APIClient()
