"""Live updates through a real ASGI server (uvicorn in a subprocess, on the
test database): long-poll, Server-Sent Event streams of a game and of a
user, with Redis pub/sub and with the database-polling fallback."""

from __future__ import annotations

import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from django.conf import settings
from django.db import connection

from games import streams
from games.models import Game, GameStatus
from games.notifications import GAME_FINISHED, GAME_STARTED, YOUR_TURN

from .helpers import act, error_code, legal, ok, open_table
from .workers import celery_worker

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parent.parent
API = "/api/v1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url() -> str:
    db = connection.settings_dict
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture
def channel_prefix(settings: Any) -> str:
    """Pub/sub channels ignore Redis database numbers: a prefix of our own
    keeps parallel test runs from hearing each other."""
    prefix = f"facets-test-{uuid.uuid4().hex[:10]}"
    settings.FACETS_PUBSUB_PREFIX = prefix
    return prefix


def _service_env(tmp_path: Path, prefix: str, *, with_redis: bool) -> dict[str, str]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "FACETS_PUBSUB_PREFIX": prefix,
        "FACETS_SSE_KEEPALIVE_SECONDS": "1",
        "FACETS_LIVE_POLL_SECONDS": "0.2",
        "FACETS_SWEEP_SECONDS": "1",
        "FACETS_TASK_GRACE_SECONDS": "2",
        "FACETS_VAR_DIR": str(tmp_path),
    }
    if with_redis:
        if not settings.REDIS_URL:
            pytest.fail(
                "REDIS_URL must point at a real Redis for live tests (scripts/test sets it)"
            )
        env["REDIS_URL"] = settings.REDIS_URL
    else:
        env.pop("REDIS_URL", None)
    return env


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        output, _ = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
    print(output[-4000:])


HUB_OF: dict[str, str] = {}  # server base URL -> "redis" or "polling"


def start_uvicorn(env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--port", str(port)]
        + ["--lifespan", "off", "--log-level", "warning"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}{API}"
    for _ in range(100):
        try:
            if httpx.get(f"{base}/rulesets").status_code == 200:
                return process, base
        except httpx.TransportError:
            time.sleep(0.1)
    _stop(process)
    pytest.fail("uvicorn did not come up")


@pytest.fixture(params=["redis", "polling"])
def server(
    request: pytest.FixtureRequest, tmp_path: Path, transactional_db: None, channel_prefix: str
) -> Iterator[str]:
    """The ASGI app under uvicorn; "polling" runs it without REDIS_URL."""
    env = _service_env(tmp_path, channel_prefix, with_redis=request.param == "redis")
    process, base = start_uvicorn(env)
    HUB_OF[base] = request.param
    try:
        yield base
    finally:
        _stop(process)


redis_server = pytest.mark.parametrize("server", ["redis"], indirect=True)


def token_of(client: Any) -> str:
    return client._credentials["HTTP_AUTHORIZATION"].split()[1]


class SSE:
    """An SSE client reading in a thread; ``next`` returns the next message
    ({"id", "event", "data"} fields, or {"comment": ...})."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.opened = threading.Event()
        self.status = 0
        self.client = httpx.Client(timeout=httpx.Timeout(10, read=60))
        self.thread = threading.Thread(target=self._read, args=(url, headers or {}), daemon=True)
        self.thread.start()
        assert self.opened.wait(15), "the stream did not open"

    def _read(self, url: str, headers: dict[str, str]) -> None:
        try:
            with self.client.stream("GET", url, headers=headers) as response:
                self.status = response.status_code
                self.content_type = response.headers.get("content-type", "")
                self.opened.set()
                fields: dict[str, Any] = {}
                for line in response.iter_lines():
                    if line == "":
                        if fields:
                            if "data" in fields:
                                fields["data"] = json.loads(fields["data"])
                            self.messages.put(fields)
                        fields = {}
                    elif line.startswith(":"):
                        self.messages.put({"comment": line[1:].strip()})
                    else:
                        name, _, value = line.partition(":")
                        fields[name] = value.removeprefix(" ")
                self.messages.put({"closed": True})
        except Exception as error:  # closed by the test, or a failure to report
            self.opened.set()
            self.messages.put({"closed": True, "error": repr(error)})

    def next(self, timeout: float = 60) -> dict[str, Any]:
        try:
            return self.messages.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"no SSE message within {timeout} s")

    def next_data(self, timeout: float = 60) -> dict[str, Any]:
        """The next message with data (skips keep-alives and ``retry:``)."""
        while True:
            message = self.next(timeout)
            assert not message.get("closed"), message
            if "data" in message:
                return message

    def close(self) -> None:
        self.client.close()


@pytest.fixture
def sse() -> Iterator[Callable[..., SSE]]:
    opened: list[SSE] = []

    def open_stream(url: str, token: str | None = None, **headers: str) -> SSE:
        if token:
            headers["Authorization"] = f"Bearer {token}"
        stream = SSE(url, headers)
        opened.append(stream)
        return stream

    yield open_stream
    for stream in opened:
        stream.close()


def events_as_seen_by(base: str, game_id: int, token: str | None = None) -> list[dict[str, Any]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = httpx.get(f"{base}/games/{game_id}/events?limit=1000", headers=headers)
    return response.json()["events"]


# --- Long-poll ---------------------------------------------------------------


def test_long_poll_returns_as_soon_as_an_event_arrives(server: str, client_for: Any) -> None:
    ada, bob = client_for("ada"), client_for("bob")
    game_id = open_table(ada, ruleset="diamants", num_seats=2)["id"]
    answers: queue.Queue[tuple[httpx.Response, float]] = queue.Queue()

    def poll() -> None:
        started = time.monotonic()
        response = httpx.get(f"{server}/games/{game_id}/events?after=0&wait=30", timeout=60)
        answers.put((response, time.monotonic() - started))

    threading.Thread(target=poll, daemon=True).start()
    # Give the poll time to be waiting (if it is not yet, it finds the event
    # in its first read instead: the answer is the same).
    time.sleep(1)
    ok(bob.post(f"{API}/games/{game_id}/join"))  # starts the game: event 1
    response, elapsed = answers.get(timeout=60)
    assert response.status_code == 200
    page = response.json()
    assert set(page) == {"events", "last_seq", "has_more"}
    assert page["events"][0]["seq"] == 1 and page["events"][0]["type"] == "game_started"
    assert elapsed < 20, "the long-poll waited for its timeout instead of the event"


def test_long_poll_answers_the_empty_page_after_the_wait(server: str, client_for: Any) -> None:
    ada = client_for("ada")
    game_id = open_table(ada, ruleset="diamants", num_seats=2)["id"]
    started = time.monotonic()
    response = httpx.get(f"{server}/games/{game_id}/events?after=0&wait=1", timeout=30)
    assert time.monotonic() - started >= 1
    assert response.status_code == 200
    assert response.json() == {"events": [], "last_seq": 0, "has_more": False}


def test_wait_out_of_range_is_refused_and_no_wait_answers_as_before(client_for: Any) -> None:
    ada = client_for("ada")
    game_id = open_table(ada, ruleset="diamants", num_seats=2)["id"]
    for wait in ("61", "-1", "soon"):
        response = ada.get(f"{API}/games/{game_id}/events?wait={wait}")
        assert error_code(response, 400) == "validation_error"
        assert "wait" in response.json()["error"]["details"]["fields"]
    plain = ada.get(f"{API}/games/{game_id}/events")
    assert ok(plain) == {"events": [], "last_seq": 0, "has_more": False}
    assert plain.has_header("ETag")
    assert error_code(ada.get(f"{API}/games/424242/events?wait=5"), 404) == "not_found"


# --- The game stream ---------------------------------------------------------


@pytest.fixture
def worker(tmp_path: Path, transactional_db: None, channel_prefix: str) -> Iterator[None]:
    """A real Celery worker (with beat) on Redis and the test database."""
    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    with celery_worker(_service_env(tmp_path, channel_prefix, with_redis=True), tmp_path):
        yield


def read_until_end(stream: SSE) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    events = []
    while True:
        message = stream.next_data(timeout=120)
        if message.get("event") == "end":
            return events, message["data"]
        assert int(message["id"]) == message["data"]["seq"]
        events.append(message["data"])


@redis_server
@pytest.mark.worker
def test_an_sse_stream_receives_the_events_of_a_game_played_by_bots(
    server: str, worker: None, client_for: Any, sse: Any
) -> None:
    ada = client_for("ada")
    game_id = open_table(ada, ruleset="brilliant", num_seats=2, turn_timeout=3600)["id"]
    mine = sse(f"{server}/games/{game_id}/stream", token_of(ada))
    watcher = sse(f"{server}/games/{game_id}/stream")  # an anonymous spectator
    assert mine.status == watcher.status == 200
    assert mine.content_type.startswith("text/event-stream")
    ok(ada.post(f"{API}/games/{game_id}/bots"))  # the bot's seat fills the table: it starts

    # ada plays her seat over HTTP; the worker rolls the dice and plays the bot.
    deadline = time.monotonic() + 240
    while Game.objects.get(pk=game_id).status != GameStatus.FINISHED:
        assert time.monotonic() < deadline, "the game did not finish"
        offered = legal(ada, game_id)
        if offered:
            act(ada, game_id, offered[0])  # 409 if a roll came in between: fine
        else:
            time.sleep(0.1)

    last_seq = Game.objects.get(pk=game_id).seq
    streamed = {}
    for name, stream, token in (("ada", mine, token_of(ada)), ("spectator", watcher, None)):
        events, end = read_until_end(stream)
        assert [e["seq"] for e in events] == list(range(1, last_seq + 1))  # in order, once
        assert end == {"status": "finished", "last_seq": last_seq}
        assert stream.next()["closed"]
        # The same presenter as the events endpoint. Events sent while the
        # game was in play went out redacted and without hashes; what was
        # sent after the end is the public record, as the endpoint shows now.
        endpoint = events_as_seen_by(server, game_id, token)
        for sent, now in zip(events, endpoint, strict=True):
            if sent["hash"] is None:
                assert sent["cause"] is None
                assert {**sent, "hash": now["hash"], "cause": now["cause"]} == {
                    **now,
                    "payload": sent["payload"],
                }
            else:
                assert sent == now
        streamed[name] = [e for e in events if e["hash"] is None]

    # While in play, the bot's answers were hidden from ada, everyone's from
    # the spectator...
    hidden = ("setup_chosen", "answered")
    in_play = streamed["spectator"] + [e for e in streamed["ada"] if e["actor"] == 1]
    assert any(e["type"] in hidden for e in in_play)
    for event in in_play:
        if event["type"] in hidden:
            assert set(event["payload"]) <= {"roll"}, event
    # ...while ada saw her own.
    assert any(
        e["type"] == "answered" and set(e["payload"]) - {"roll"}
        for e in streamed["ada"]
        if e["actor"] == 0
    )
    # Once finished, the whole log is public, to a spectator too.
    watched, _ = read_until_end(sse(f"{server}/games/{game_id}/stream"))
    assert any(
        e["type"] == "answered" and set(e["payload"]) - {"roll"} for e in watched if e["actor"] == 1
    )


def started_game_with_events(client_for: Any, task_queue: Any) -> tuple[int, Any, Any]:
    ada, bob = client_for("ada"), client_for("bob")
    game_id = open_table(ada, ruleset="diamants", num_seats=2)["id"]
    ok(bob.post(f"{API}/games/{game_id}/join"))
    task_queue.drain()  # the roll-off
    assert Game.objects.get(pk=game_id).seq >= 2
    return game_id, ada, bob


def test_keepalive_lines_arrive_and_a_stream_resumes_after_last_event_id(
    server: str, client_for: Any, task_queue: Any, sse: Any
) -> None:
    game_id, ada, _ = started_game_with_events(client_for, task_queue)
    seq = Game.objects.get(pk=game_id).seq

    resumed = sse(f"{server}/games/{game_id}/stream?after=0", **{"Last-Event-ID": "1"})
    assert [resumed.next_data()["data"]["seq"] for _ in range(seq - 1)] == list(range(2, seq + 1))
    # Silence: a comment line (FACETS_SSE_KEEPALIVE_SECONDS is 1 here).
    message = resumed.next(timeout=15)
    while "comment" not in message:
        assert "data" not in message, message
        message = resumed.next(timeout=15)
    assert message == {"comment": "keep-alive"}

    from_query = sse(f"{server}/games/{game_id}/stream?after={seq - 1}")
    assert from_query.next_data()["data"]["seq"] == seq
    if HUB_OF[server] == "redis":
        # Both streams of this game share the process's one subscription.
        channel = f"{settings.FACETS_PUBSUB_PREFIX}:game:{game_id}"
        assert redis.Redis.from_url(settings.REDIS_URL).pubsub_numsub(channel) == [
            (channel.encode(), 1)
        ]

    # A new event reaches the open stream.
    ok(ada.post(f"{API}/games/{game_id}/resign"))
    news = resumed.next_data()
    assert int(news["id"]) == seq + 1
    assert news["data"]["type"] == "seat.resigned"

    # Once everything was sent, reconnecting is answered 204 (EventSource stops).
    last = Game.objects.get(pk=game_id).seq
    gone = httpx.get(f"{server}/games/{game_id}/stream", headers={"Last-Event-ID": str(last)})
    assert gone.status_code == 204


# --- The user stream ---------------------------------------------------------


def test_the_user_stream_receives_start_turn_and_finish(
    server: str, client_for: Any, sse: Any
) -> None:
    ada, bob = client_for("ada"), client_for("bob")
    inbox = sse(f"{server}/stream", token_of(ada), Accept="text/event-stream")
    assert inbox.status == 200
    assert inbox.next() == {"retry": "3000"}  # sent once the stream listens
    # Brilliant starts with every seat choosing its setup: both must act.
    game_id = open_table(ada, ruleset="brilliant", num_seats=2)["id"]
    ok(bob.post(f"{API}/games/{game_id}/join"))

    kinds = []
    while YOUR_TURN not in kinds:
        note = inbox.next_data(timeout=30)["data"]
        assert note["game_id"] == game_id and note["data"]["seat"] == 0, note
        kinds.append(note["kind"])
    assert kinds == [GAME_STARTED, YOUR_TURN]

    ok(ada.post(f"{API}/games/{game_id}/resign"))
    note = inbox.next_data(timeout=30)["data"]
    assert note["kind"] == GAME_FINISHED
    assert note["data"]["result"]["reason"] == "resignation"
    assert "user_id" not in note
    assert Game.objects.get(pk=game_id).seq == note["seq"]


def test_notes_between_snapshots_explain_what_changed() -> None:
    def mark(status: str, deadline: Any = None, seq: int = 1) -> streams.Mark:
        return streams.Mark("diamants", seq, status, 1, False, deadline, {"reason": "rules"})

    before = {7: mark(GameStatus.OPEN, seq=0)}
    after = {7: mark(GameStatus.ACTIVE, deadline="t1")}
    assert [n.kind for n in streams.notes_between(before, after, user_id=3)] == [
        GAME_STARTED,
        YOUR_TURN,
    ]
    later = {7: mark(GameStatus.ACTIVE, deadline="t1", seq=5)}
    assert streams.notes_between(after, later, user_id=3) == []  # still the same turn
    again = {7: mark(GameStatus.ACTIVE, deadline="t2", seq=9)}
    assert [n.kind for n in streams.notes_between(later, again, user_id=3)] == [YOUR_TURN]
    done = {7: mark(GameStatus.FINISHED, seq=12)}
    (finished,) = streams.notes_between(again, done, user_id=3)
    assert finished.kind == GAME_FINISHED and finished.data["result"] == {"reason": "rules"}


# --- Errors and the schema ---------------------------------------------------


def test_streams_refuse_in_the_one_error_shape(client_for: Any, anon: Any) -> None:
    ada = client_for("ada")
    game_id = open_table(ada, ruleset="diamants", num_seats=2)["id"]
    sse_accept = {"HTTP_ACCEPT": "text/event-stream"}
    assert error_code(anon.get(f"{API}/stream", **sse_accept), 401) == "not_authenticated"
    anon.credentials(HTTP_AUTHORIZATION="Bearer not-a-token")
    assert error_code(anon.get(f"{API}/stream", **sse_accept), 401) == "invalid_token"
    assert error_code(anon.get(f"{API}/games/{game_id}/stream", **sse_accept), 401) == (
        "invalid_token"
    )
    assert error_code(ada.get(f"{API}/games/424242/stream", **sse_accept), 404) == "not_found"
    bad_resume = ada.get(f"{API}/games/{game_id}/stream", HTTP_LAST_EVENT_ID="x", **sse_accept)
    assert error_code(bad_resume, 400) == "validation_error"
    assert error_code(ada.get(f"{API}/games/{game_id}/stream?after=-1"), 400) == (
        "validation_error"
    )
    assert bad_resume["Content-Type"] == "application/json"


def test_a_permission_refusal_on_a_stream_is_a_json_403(
    client_for: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scopes and other permissions are DRF permissions: a refusing one
    answers in the one error shape, even to an EventSource's Accept."""
    from rest_framework.permissions import BasePermission

    from games.api import live as live_views

    class Refuse(BasePermission):
        message = "This token may not read games."

        def has_permission(self, request: Any, view: Any) -> bool:
            return False

    ada = client_for("ada")
    game_id = open_table(ada, ruleset="diamants", num_seats=2)["id"]
    for view in (live_views.GameStreamView, live_views.UserStreamView):
        monkeypatch.setattr(view, "permission_classes", [Refuse])
    for path in (f"{API}/games/{game_id}/stream", f"{API}/stream"):
        refused = ada.get(path, HTTP_ACCEPT="text/event-stream")
        assert error_code(refused, 403) == "permission_denied"
        assert refused.json()["error"]["message"] == "This token may not read games."


def test_the_schema_documents_the_live_endpoints(anon: Any) -> None:
    schema = ok(anon.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json"))
    for path in ("/api/v1/games/{game_id}/stream", "/api/v1/stream"):
        answers = schema["paths"][path]["get"]["responses"]
        assert "text/event-stream" in answers["200"]["content"], path
        assert "401" in answers
    game_stream = schema["paths"]["/api/v1/games/{game_id}/stream"]["get"]
    params = {p["name"]: p for p in game_stream["parameters"]}
    assert params["Last-Event-ID"]["in"] == "header" and params["after"]["in"] == "query"
    events = schema["paths"]["/api/v1/games/{game_id}/events"]["get"]
    wait = next(p for p in events["parameters"] if p["name"] == "wait")
    assert wait["schema"]["maximum"] == 60 and wait["schema"]["minimum"] == 0


# --- Redis going away ----------------------------------------------------------


@pytest.fixture
def own_redis(tmp_path: Path, settings: Any) -> Iterator[Callable[[], None]]:
    """A redis-server of this test's own (the shared one is never stopped);
    calling the fixture's value restarts it on the same port."""
    port = free_port()
    processes: list[subprocess.Popen] = []

    def start() -> None:
        processes.append(
            subprocess.Popen(
                ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no"],
                cwd=tmp_path,
                stdout=subprocess.DEVNULL,
            )
        )
        client = redis.Redis(port=port)
        for _ in range(100):
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        pytest.fail("redis-server did not start")

    def stop() -> None:
        processes[-1].terminate()
        processes[-1].wait(timeout=10)

    start()
    settings.REDIS_URL = f"redis://127.0.0.1:{port}/0"
    yield lambda: (stop(), start())  # type: ignore[func-returns-value]
    stop()


def test_a_stream_survives_redis_restarting(
    own_redis: Callable[[], None],
    tmp_path: Path,
    transactional_db: None,
    channel_prefix: str,
    client_for: Any,
    task_queue: Any,
    sse: Any,
) -> None:
    game_id, ada, bob = started_game_with_events(client_for, task_queue)
    seq = Game.objects.get(pk=game_id).seq
    env = _service_env(tmp_path, channel_prefix, with_redis=True)  # settings.REDIS_URL: ours
    process, base = start_uvicorn(env)
    try:
        stream = sse(f"{base}/games/{game_id}/stream?after={seq}", token_of(bob))
        assert stream.next() == {"retry": "3000"}

        own_redis()  # restart: the server's pub/sub connection breaks
        ok(ada.post(f"{API}/games/{game_id}/resign"))  # may be published before it is back
        events, end = read_until_end(stream)
        last = Game.objects.get(pk=game_id).seq
        assert [e["seq"] for e in events] == list(range(seq + 1, last + 1))
        assert events[0]["type"] == "seat.resigned"
        assert end == {"status": "finished", "last_seq": last}
    finally:
        _stop(process)
