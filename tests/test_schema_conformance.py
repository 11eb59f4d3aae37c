"""Schemathesis against the schema the app serves: for every operation in it
(found by schemathesis, not listed here), generated requests, valid and
invalid, must never get a 5xx, and every answer must match the schema: a
documented status, content type, headers and body.

Requests go to the WSGI app in-process with a real player's token, and then
anonymously. Path parameters are often swapped for objects that exist (an
open table, a game in play, a finished game, a table of someone else's), so
the operations get past their 404s. Throttles are switched off: a 429 would
make the run depend on its speed. Hypothesis is derandomized and bounded, so
the run is the same every time and takes about a minute.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.core.management import call_command
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, settings
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from config.wsgi import application
from games.rules import registry
from tests.conftest import PASSWORD
from tests.helpers import ok, open_table

pytestmark = pytest.mark.django_db

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
# Not negative_data_rejection: invalid requests are generated too (and must
# get no 5xx and a documented answer), but DRF ignores unknown query parameters
# and reads an empty one as absent, by design, where that check wants a 400.
EXAMPLES_PER_OPERATION = 25

served_schema = schemathesis.openapi.from_wsgi("/api/schema/", application)


def _streams(ctx: Any) -> bool:
    """Operations whose success answer is a stream (not JSON): such a stream
    does not end by itself, so it cannot be read to its end here; their own
    tests cover them over a real server."""
    path = served_schema.raw_schema["paths"].get(ctx.operation.path, {})
    operation = path.get(ctx.operation.method.lower(), {})
    content = operation.get("responses", {}).get("200", {}).get("content", {})
    return bool(content) and "application/json" not in content


schema = served_schema.exclude(func=_streams)


@dataclass
class World:
    """What exists before an operation is tested, and whom to call it as."""

    token: str
    # Values of path parameters (by name) and body fields that hit real objects.
    existing: dict[str, list[Any]] = field(default_factory=dict)


def _token(username: str) -> str:
    client = APIClient()
    credentials = {"username": username, "password": PASSWORD}
    ok(client.post("/api/v1/auth/register", credentials, format="json"), 201)
    return ok(client.post("/api/v1/auth/login", credentials, format="json"), 201)["token"]


def _as(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


@pytest.fixture
def after_commit(
    django_capture_on_commit_callbacks: Any, task_queue: Any
) -> Callable[[], AbstractContextManager[Any]]:
    """Each test runs in one transaction that is rolled back (fast). Around
    calls, this runs what the services schedule after commit, and then the
    tasks that sends (dice rolls, bot moves) as a worker would. It also keeps
    the bare WSGI app that schemathesis calls from closing the database
    connection, with the test's transaction, at the start and end of each
    request (Django's test client does the same)."""

    @contextmanager
    def run() -> Iterator[None]:
        signals.request_started.disconnect(close_old_connections)
        signals.request_finished.disconnect(close_old_connections)
        try:
            with django_capture_on_commit_callbacks(execute=True):
                yield
        finally:
            signals.request_started.connect(close_old_connections)
            signals.request_finished.connect(close_old_connections)
        task_queue.drain()

    return run


@pytest.fixture
def world(after_commit: Any, monkeypatch: pytest.MonkeyPatch) -> World:
    monkeypatch.setattr(SimpleRateThrottle, "allow_request", lambda self, request, view: True)
    with after_commit():
        return _build_world()


def _build_world() -> World:
    ada, bob = _token("ada"), _token("bob")
    open_by_ada = open_table(_as(ada), ruleset="brilliant", num_seats=3)["id"]
    open_by_bob = open_table(_as(bob), ruleset="brikks", num_seats=2)["id"]
    in_play = open_table(_as(ada), ruleset="diamants", num_seats=2)["id"]
    ok(_as(bob).post(f"/api/v1/games/{in_play}/join"))
    finished = open_table(_as(ada), ruleset="brilliant", num_seats=2)["id"]
    ok(_as(bob).post(f"/api/v1/games/{finished}/join"))
    ok(_as(bob).post(f"/api/v1/games/{finished}/resign"))
    return World(
        token=ada,
        existing={
            "game_id": [in_play, open_by_ada, finished, open_by_bob],
            "slug": registry.slugs(),
            "ruleset": registry.slugs(),
        },
    )


def _aim_at_existing_objects(case: Any, world: World) -> None:
    """Four generated values in five are replaced by a real object's, chosen
    by the generated value itself so the run stays deterministic."""
    for name, value in list(case.path_parameters.items()):
        choices = world.existing.get(name)
        if choices and _index(value, 5):
            case.path_parameters[name] = choices[_index(value, len(choices))]
    if isinstance(case.body, dict):
        for name, value in list(case.body.items()):
            choices = world.existing.get(name)
            if choices and isinstance(value, str) and len(value) % 5:
                case.body[name] = choices[_index(value, len(choices))]


def _index(value: Any, size: int) -> int:
    return sum(str(value).encode()) % size


def _operations(served: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in served["paths"].items():
        for method, operation in item.items():
            yield path, method.upper(), operation


@pytest.fixture
def served(anon: APIClient) -> dict[str, Any]:
    return ok(anon.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json"))


def test_the_schema_generates_without_warnings(tmp_path: Any) -> None:
    call_command(
        "spectacular", file=str(tmp_path / "schema.yaml"), validate=True, fail_on_warn=True
    )


def test_every_error_answer_is_the_one_error_shape(served: dict[str, Any]) -> None:
    error = served["components"]["schemas"]["Error"]
    assert set(error["required"]) == {"code", "message", "details"}
    assert served["components"]["schemas"]["ErrorResponse"]["required"] == ["error"]
    for path, method, operation in _operations(served):
        for status, response in operation["responses"].items():
            if status.startswith("4"):
                content = response["content"]["application/json"]["schema"]
                assert content == {"$ref": "#/components/schemas/ErrorResponse"}, (
                    method,
                    path,
                    status,
                )
                assert response["description"], (method, path, status)


def test_every_operation_documents_the_errors_its_kind_can_answer(
    served: dict[str, Any],
) -> None:
    for path, method, operation in _operations(served):
        statuses = set(operation["responses"])
        where = (method, path, sorted(statuses))
        if {"bearerAuth": []} in operation.get("security", []):
            assert {"401", "403"} <= statuses, where
        if "{" in path:
            assert "404" in statuses, where
        if "requestBody" in operation:
            assert {"400", "415"} <= statuses, where
        ok_content = operation["responses"].get("200", {}).get("content", {})
        if method == "GET" and "application/json" in ok_content:  # not event streams
            assert "304" in statuses and "ETag" in operation["responses"]["200"]["headers"], where
        if "429" in statuses:
            assert "Retry-After" in operation["responses"]["429"]["headers"], where


def test_operation_ids_are_short_readable_and_unique(served: dict[str, Any]) -> None:
    ids = [operation["operationId"] for _, _, operation in _operations(served)]
    assert len(ids) == len(set(ids))
    for operation_id in ids:
        assert re.fullmatch(r"[a-z]+(_[a-z]+)*", operation_id), operation_id
        assert not operation_id.startswith(("api_", "v1_")), operation_id
    assert {"games_create", "games_submit_action", "auth_login"} <= set(ids)


@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    derandomize=True,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_conforms_to_the_schema(case: Any, world: World, after_commit: Any) -> None:
    _aim_at_existing_objects(case, world)
    with after_commit():
        case.call_and_validate(headers={"Authorization": f"Bearer {world.token}"}, checks=CHECKS)
    with after_commit():
        case.call_and_validate(checks=CHECKS)
