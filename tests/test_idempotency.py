"""``Idempotency-Key`` on POST, through HTTP.

The in-process client covers replay, reuse, scoping, what is (not) stored and
the expiry. A real server (pytest-django's ``live_server``) covers what only a
network can do: a client that hangs up before reading the answer, a request
still running when its retry arrives, and the server's database connection
dying in the middle of a request, before and after the action's events were
written.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from games.idempotency.models import IdempotencyRecord
from games.idempotency.services import expired_records_purge
from games.models import Event, Game
from tests.conftest import PASSWORD
from tests.helpers import error_code, legal, ok, open_table

ACTIONS = "/api/v1/games/{}/actions"


def _key() -> str:
    return str(uuid.uuid4())


def _started_game(client: APIClient, task_queue: Any) -> int:
    """A Brilliant table of the client (seat 0) and a bot, started; seat 0 must act."""
    table = open_table(client, num_seats=2)
    ok(client.post(f"/api/v1/games/{table['id']}/bots", {"count": 1}, format="json"))
    task_queue.drain()
    return table["id"]


def _moves_by_seat_zero(game_id: int) -> int:
    return Event.objects.filter(game_id=game_id, actor=0, automatic=False).count()


def _post_action(client: APIClient, game_id: int, action: dict[str, Any], key: str) -> Any:
    return client.post(
        ACTIONS.format(game_id), {"action": action}, format="json", HTTP_IDEMPOTENCY_KEY=key
    )


# --- in process -----------------------------------------------------------------


@pytest.mark.django_db
def test_a_retry_with_the_same_key_and_body_replays_the_first_answer(
    client_for, task_queue
) -> None:
    ada = client_for("ada")
    game_id = _started_game(ada, task_queue)
    action = legal(ada, game_id)[0]
    key = _key()

    first = _post_action(ada, game_id, action, key)
    assert first.status_code == 201 and "Idempotent-Replayed" not in first
    events_after_first = Event.objects.filter(game_id=game_id).count()
    retry = _post_action(ada, game_id, action, key)

    assert retry.status_code == 201
    assert retry["Idempotent-Replayed"] == "true"
    assert retry["Content-Type"] == first["Content-Type"]
    assert retry.content == first.content
    assert Event.objects.filter(game_id=game_id).count() == events_after_first
    assert _moves_by_seat_zero(game_id) == 1


@pytest.mark.django_db
def test_a_retried_table_opening_opens_one_table(client_for) -> None:
    ada = client_for("ada")
    body = {"ruleset": "brilliant", "num_seats": 3}
    key = _key()
    first = ok(ada.post("/api/v1/games", body, format="json", HTTP_IDEMPOTENCY_KEY=key), 201)
    # The same JSON object, serialised differently, is the same request.
    respaced = json.dumps({"num_seats": 3, "ruleset": "brilliant"}, indent=2)
    retry = ada.post(
        "/api/v1/games", respaced, content_type="application/json", HTTP_IDEMPOTENCY_KEY=key
    )
    assert ok(retry, 201) == first and retry["Idempotent-Replayed"] == "true"
    assert Game.objects.count() == 1


@pytest.mark.django_db
def test_the_same_key_with_another_body_is_refused_and_writes_nothing(
    client_for, task_queue
) -> None:
    ada = client_for("ada")
    game_id = _started_game(ada, task_queue)
    first_choice, other_choice = legal(ada, game_id)[:2]
    key = _key()
    ok(_post_action(ada, game_id, first_choice, key), 201)
    events = list(Event.objects.filter(game_id=game_id).values_list("seq", flat=True))

    reused = _post_action(ada, game_id, other_choice, key)
    assert error_code(reused, 422) == "idempotency_key_reused"
    other_path = ada.post("/api/v1/games", {}, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert error_code(other_path, 422) == "idempotency_key_reused"
    assert list(Event.objects.filter(game_id=game_id).values_list("seq", flat=True)) == events
    assert Game.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("key", ["", "k" * 256, "naïve", "tab\tkey", " padded "])
def test_a_malformed_key_is_refused_before_anything_runs(client_for, key) -> None:
    ada = client_for("ada")
    response = ada.post(
        "/api/v1/games", {"ruleset": "brilliant", "num_seats": 2}, format="json",
        HTTP_IDEMPOTENCY_KEY=key,
    )  # fmt: skip
    assert error_code(response, 400) == "invalid_idempotency_key"
    assert Game.objects.count() == 0 and IdempotencyRecord.objects.count() == 0


@pytest.mark.django_db
def test_the_longest_key_is_accepted(client_for) -> None:
    ada = client_for("ada")
    body = {"ruleset": "brilliant", "num_seats": 2}
    key = "k" + " " * 253 + "~"
    ok(ada.post("/api/v1/games", body, format="json", HTTP_IDEMPOTENCY_KEY=key), 201)
    replay = ada.post("/api/v1/games", body, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert replay.status_code == 201 and replay["Idempotent-Replayed"] == "true"


@pytest.mark.django_db
def test_keys_belong_to_their_user(client_for) -> None:
    ada, bob = client_for("ada"), client_for("bob")
    body = {"ruleset": "brilliant", "num_seats": 2}
    key = _key()
    ok(ada.post("/api/v1/games", body, format="json", HTTP_IDEMPOTENCY_KEY=key), 201)
    bobs = bob.post("/api/v1/games", body, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert ok(bobs, 201)["created_by"] == "bob" and "Idempotent-Replayed" not in bobs
    # Another token of the same user (another device) shares the user's keys.
    login = {"username": "ada", "password": PASSWORD}
    token = ok(APIClient().post("/api/v1/auth/login", login, format="json"), 201)["token"]
    other_device = APIClient()
    other_device.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    replay = other_device.post("/api/v1/games", body, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert replay.status_code == 201 and replay["Idempotent-Replayed"] == "true"
    assert Game.objects.count() == 2


@pytest.mark.django_db
def test_a_refused_action_is_replayed_and_still_writes_nothing(client_for, task_queue) -> None:
    ada = client_for("ada")
    game_id = _started_game(ada, task_queue)
    bad = {"type": "setup", "cells": [[0, 0, 1]]}
    key = _key()
    first = _post_action(ada, game_id, bad, key)
    assert error_code(first, 422) == "illegal_action"
    retry = _post_action(ada, game_id, bad, key)
    assert retry.status_code == 422 and retry["Idempotent-Replayed"] == "true"
    assert retry.content == first.content
    assert _moves_by_seat_zero(game_id) == 0


@pytest.mark.django_db
def test_a_server_error_keeps_nothing_and_the_retry_runs_once(
    client_for, task_queue, monkeypatch
) -> None:
    ada = client_for("ada")
    game_id = _started_game(ada, task_queue)
    action = legal(ada, game_id)[0]
    key = _key()
    seq_before = Game.objects.get(pk=game_id).seq

    def broken_presenter(access: Any) -> Any:
        raise RuntimeError("the answer could not be built after the move was stored")

    with monkeypatch.context() as patch:
        patch.setattr("games.api.views.presenters.game_detail", broken_presenter)
        failed = _post_action(ada, game_id, action, key)
    assert error_code(failed, 500) == "server_error"
    # The service's write is rolled back with the unstored answer...
    assert Game.objects.get(pk=game_id).seq == seq_before
    assert _moves_by_seat_zero(game_id) == 0 and IdempotencyRecord.objects.count() == 0
    # ...so the retry runs the move, once.
    retry = _post_action(ada, game_id, action, key)
    assert retry.status_code == 201 and "Idempotent-Replayed" not in retry
    assert _moves_by_seat_zero(game_id) == 1


@pytest.mark.django_db
def test_a_request_that_fails_authentication_is_not_recorded(anon) -> None:
    anon.credentials(HTTP_AUTHORIZATION="Bearer not-a-token")
    response = anon.post(
        "/api/v1/games", {"ruleset": "brilliant", "num_seats": 2}, format="json",
        HTTP_IDEMPOTENCY_KEY=_key(),
    )  # fmt: skip
    assert error_code(response, 401) == "invalid_token"
    assert IdempotencyRecord.objects.count() == 0


@pytest.mark.django_db
def test_anonymous_registration_is_replayed_but_log_in_is_exempt(anon) -> None:
    credentials = {"username": "ada", "password": "a-long-secret-42"}
    key = _key()
    first = anon.post("/api/v1/auth/register", credentials, format="json", HTTP_IDEMPOTENCY_KEY=key)
    retry = anon.post("/api/v1/auth/register", credentials, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert ok(retry, 201) == ok(first, 201) and retry["Idempotent-Replayed"] == "true"

    logins = [
        anon.post("/api/v1/auth/login", credentials, format="json", HTTP_IDEMPOTENCY_KEY=key)
        for _ in range(2)
    ]
    tokens = {ok(response, 201)["token"] for response in logins}
    # A log-in answer holds a token, which is never stored in clear: each
    # log-in issues its own.
    assert len(tokens) == 2 and ApiToken.objects.count() == 2
    assert not any("Idempotent-Replayed" in response for response in logins)
    assert IdempotencyRecord.objects.count() == 1
    assert b"token" not in bytes(IdempotencyRecord.objects.get().body)


@pytest.mark.django_db
def test_keys_are_kept_a_day_then_purged(client_for, settings) -> None:
    assert timedelta(hours=24) <= settings.FACETS_IDEMPOTENCY_KEY_TTL
    ada = client_for("ada")
    body = {"ruleset": "brilliant", "num_seats": 2}
    key = _key()
    ok(ada.post("/api/v1/games", body, format="json", HTTP_IDEMPOTENCY_KEY=key), 201)
    created = IdempotencyRecord.objects.get().created_at

    assert expired_records_purge(now=created + timedelta(hours=24) - timedelta(seconds=1)) == 0
    replay = ada.post("/api/v1/games", body, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert replay["Idempotent-Replayed"] == "true"

    assert expired_records_purge(now=created + timedelta(hours=24, seconds=1)) == 1
    again = ada.post("/api/v1/games", body, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert again.status_code == 201 and "Idempotent-Replayed" not in again
    assert Game.objects.count() == 2


def test_the_purge_runs_hourly_from_beat(settings) -> None:
    schedule = settings.CELERY_BEAT_SCHEDULE["purge-idempotency-records"]
    assert schedule["task"] == "idempotency.tasks.purge_expired_records"
    assert schedule["schedule"] <= 3600


@pytest.mark.django_db
def test_every_post_declares_the_idempotency_key_in_the_schema(anon) -> None:
    schema = ok(anon.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json"))
    posts = {path: item["post"] for path, item in schema["paths"].items() if "post" in item}
    assert "/api/v1/games/{game_id}/actions" in posts
    for path, operation in posts.items():
        headers = {p["name"] for p in operation.get("parameters", []) if p["in"] == "header"}
        # Their answers hold a new token's key, never stored in clear.
        if path in ("/api/v1/auth/login", "/api/v1/tokens"):
            assert "Idempotency-Key" not in headers
            continue
        assert "Idempotency-Key" in headers, path
        assert {"400", "409", "422"} <= set(operation["responses"]), path
        error = operation["responses"]["422"]["content"]["application/json"]["schema"]
        assert error == {"$ref": "#/components/schemas/ErrorResponse"}, path


# --- a real server ----------------------------------------------------------------

needs_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="kills a PostgreSQL backend"
)


class Server:
    """Raw HTTP against the live server, with a user's token."""

    def __init__(self, url: str, token: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "localhost", parts.port or 80
        self.token = token

    def request(self, path: str, body: dict[str, Any], key: str) -> tuple[int, dict[str, str], Any]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            conn.request("POST", path, json.dumps(body), self._headers(key))
            response = conn.getresponse()
            raw = response.read()
            return response.status, dict(response.getheaders()), json.loads(raw or b"null")
        finally:
            conn.close()

    def send_and_hang_up(self, path: str, body: dict[str, Any], key: str) -> None:
        """Send the whole request, then close without reading a byte of the answer."""
        payload = json.dumps(body).encode()
        head = [f"POST {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        head += [f"{name}: {value}" for name, value in self._headers(key).items()]
        head += [f"Content-Length: {len(payload)}", "Connection: close", "", ""]
        with socket.create_connection((self.host, self.port)) as sock:
            sock.sendall("\r\n".join(head).encode() + payload)

    def _headers(self, key: str) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {self.token}",
            "Content-Type": "application/json",
            "Idempotency-Key": key,
        }


@pytest.fixture
def ada_on_server(live_server, task_queue) -> tuple[Server, APIClient, int]:
    """Ada (seat 0, must act) and a bot at a started table, and ada's handles
    on the live server and in process."""
    from accounts.services import token_issue, user_register

    user_register(username="ada", password="a-long-secret-42")
    token = token_issue(username="ada", password="a-long-secret-42").key
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    game_id = _started_game(client, task_queue)
    return Server(live_server.url, token), client, game_id


def _wait_for(condition: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if result := condition():
            return result
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@contextmanager
def _side_connection() -> Iterator[Any]:
    """A connection of our own to the test database, outside Django's."""
    import psycopg

    settings = connection.settings_dict
    with psycopg.connect(
        host=settings["HOST"] or None,
        port=settings["PORT"] or None,
        user=settings["USER"] or None,
        password=settings["PASSWORD"] or None,
        dbname=settings["NAME"],
    ) as side:
        yield side


def _backend_blocked_by(side: Any) -> int | None:
    with side.cursor() as cur:
        # Inside a transaction PostgreSQL keeps one snapshot of the activity
        # view: drop it so each look sees the server's backend as it is now.
        cur.execute("SELECT pg_stat_clear_snapshot()")
        cur.execute(
            "SELECT pid FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))",
            [side.info.backend_pid],
        )
        row = cur.fetchone()
    return row[0] if row else None


@pytest.mark.django_db(transaction=True)
def test_a_client_that_hangs_up_retries_and_gets_the_first_answer(ada_on_server) -> None:
    server, client, game_id = ada_on_server
    action = legal(client, game_id)[0]
    key = _key()
    seq_before = Game.objects.get(pk=game_id).seq

    server.send_and_hang_up(ACTIONS.format(game_id), {"action": action}, key)
    _wait_for(lambda: IdempotencyRecord.objects.filter(key=key).exists(), "the first request")
    status, headers, body = server.request(ACTIONS.format(game_id), {"action": action}, key)

    assert status == 201 and headers["Idempotent-Replayed"] == "true"
    assert _moves_by_seat_zero(game_id) == 1
    # The replay is the answer the first request would have received: its
    # events are exactly those that request appended.
    logged = ok(client.get(f"/api/v1/games/{game_id}/events?after={seq_before}"))["events"]
    assert body["events"] == [e for e in logged if e["seq"] <= body["seq"]]
    assert body["events"][0]["actor"] == 0 and not body["events"][0]["automatic"]


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_retry_while_the_first_request_runs_is_told_to_wait(ada_on_server) -> None:
    server, client, game_id = ada_on_server
    action = legal(client, game_id)[0]
    key = _key()
    path = ACTIONS.format(game_id)
    with _side_connection() as side, ThreadPoolExecutor(1) as pool:
        side.execute("SELECT id FROM games_game WHERE id = %s FOR UPDATE", [game_id])
        first = pool.submit(server.request, path, {"action": action}, key)
        _wait_for(lambda: _backend_blocked_by(side), "the first request to wait for the game")

        status, _, body = server.request(path, {"action": action}, key)
        assert status == 409 and body["error"]["code"] == "idempotency_key_in_use"

        side.rollback()
        first_status, _, first_body = first.result(timeout=60)
    assert first_status == 201
    status, headers, body = server.request(path, {"action": action}, key)
    assert (status, headers["Idempotent-Replayed"], body) == (201, "true", first_body)
    assert _moves_by_seat_zero(game_id) == 1


# Where the server's request is made to wait while its database backend is
# killed: before the action (on the game's row lock) or after the action's
# events were written (on the idempotency table, written last).
BLOCKERS = {
    "before_the_action": "SELECT id FROM games_game WHERE id = %(game)s FOR UPDATE",
    "after_the_events_were_written": ("LOCK TABLE idempotency_idempotencyrecord IN EXCLUSIVE MODE"),
}


def _holds_event_writes(side: Any, pid: int) -> bool:
    with side.cursor() as cur:
        cur.execute(
            "SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
            " WHERE l.pid = %s AND c.relname = 'games_event' AND l.mode = 'RowExclusiveLock'"
            " AND l.granted",
            [pid],
        )
        return cur.fetchone() is not None


@needs_postgresql
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("moment", list(BLOCKERS))
def test_a_database_connection_dropped_mid_request_then_a_retry_makes_one_move(
    ada_on_server, moment
) -> None:
    server, client, game_id = ada_on_server
    action = legal(client, game_id)[0]
    key = _key()
    path = ACTIONS.format(game_id)
    with _side_connection() as side, ThreadPoolExecutor(1) as pool:
        side.execute(BLOCKERS[moment], {"game": game_id})
        first = pool.submit(server.request, path, {"action": action}, key)
        pid = _wait_for(lambda: _backend_blocked_by(side), "the request to block")
        assert _holds_event_writes(side, pid) == (moment == "after_the_events_were_written")
        side.execute("SELECT pg_terminate_backend(%s)", [pid])
        side.rollback()
        try:
            status, _, _ = first.result(timeout=60)
            assert status >= 500
        except (ConnectionError, http.client.HTTPException):
            pass  # the server dropped the connection: just as good for the client
    assert _moves_by_seat_zero(game_id) == 0
    assert not IdempotencyRecord.objects.filter(key=key).exists()

    status, headers, body = server.request(path, {"action": action}, key)
    assert status == 201 and "Idempotent-Replayed" not in headers
    assert _moves_by_seat_zero(game_id) == 1
    assert body["events"][0]["actor"] == 0
    # And a further retry is a replay.
    assert server.request(path, {"action": action}, key)[1]["Idempotent-Replayed"] == "true"
    assert _moves_by_seat_zero(game_id) == 1
    assert timezone.now() - IdempotencyRecord.objects.get(key=key).created_at < timedelta(hours=1)
