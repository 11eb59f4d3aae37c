"""Machinery for the fault tests: a real HTTP server in this process, a
private ``redis-server`` that a test may flush, kill and restart, real Celery
workers on it, plain database connections that hold locks behind the
service's back, and checks of a game's log that every fault test shares."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import psycopg
from django.db import connection, connections

from accounts.services import token_issue, user_register
from games import store
from games.models import Event, Game

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "correct-horse-battery-staple"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``condition`` (a database or process fact, never a clock)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


# --- accounts without the throttled auth endpoints -----------------------------


def user_with_token(username: str) -> tuple[Any, str]:
    """A new user and a bearer token, made through the services (a hundred
    logins from one address would be throttled, which is not under test)."""
    user = user_register(username=username, password=PASSWORD)
    return user, token_issue(username=username, password=PASSWORD).key


# --- a real HTTP server with a bounded pool, like gunicorn's threads ----------------


class _PooledWSGIServer(ThreadingMixIn, WSGIServer):
    """Accepts every connection at once, serves ``workers`` of them at a time:
    a hundred clients connect concurrently while the database sees at most
    ``workers`` connections (the shared PostgreSQL allows 100 in all)."""

    daemon_threads = True
    request_queue_size = 256
    workers = 12

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="http")

    def process_request(self, request: Any, client_address: Any) -> None:
        self.pool.submit(self._serve, request, client_address)

    def _serve(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)
            # No connection may outlive the test (the test database is dropped).
            connections.close_all()


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def live_server() -> Iterator[str]:
    """Serve the project's WSGI app on a free port; yields the base URL."""
    from django.core.wsgi import get_wsgi_application

    server = make_server(
        "127.0.0.1",
        free_port(),
        get_wsgi_application(),
        server_class=_PooledWSGIServer,
        handler_class=_QuietHandler,
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/api/v1"
    finally:
        server.shutdown()
        server.pool.shutdown(wait=True)
        server.server_close()


def call(
    base: str, method: str, path: str, body: Any = None, token: str | None = None
) -> tuple[int, Any]:
    request = urllib.request.Request(
        base + path, method=method, data=None if body is None else json.dumps(body).encode()
    )
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def is_error_shape(body: Any) -> bool:
    return (
        isinstance(body, dict)
        and set(body) == {"error"}
        and isinstance(body["error"], dict)
        and {"code", "message", "details"} <= set(body["error"])
        and isinstance(body["error"]["code"], str)
    )


# --- the database behind the ORM's back -----------------------------------------


def plain_connection(*, autocommit: bool = False) -> psycopg.Connection:
    """A connection of its own to the test database, as another process
    (an operator's psql, a second web server) would open it."""
    db = connection.settings_dict
    return psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=int(db["PORT"] or 5432),
        user=db["USER"],
        password=db["PASSWORD"] or None,
        dbname=db["NAME"],
        autocommit=autocommit,
    )


def backends_waiting_on_a_lock(query_start: str) -> list[int]:
    """Pids of database sessions blocked on a lock, running a query that
    starts with ``query_start`` (how a test sees a worker stuck mid-task)."""
    with plain_connection(autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND wait_event_type = 'Lock' AND query LIKE %s",
            [query_start + "%"],
        ).fetchall()
    return [pid for (pid,) in rows]


def backend_alive(pid: int) -> bool:
    with plain_connection(autocommit=True) as conn:
        return bool(
            conn.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone()[
                0
            ]
        )


# --- a private Redis and real Celery workers ---------------------------------------


class PrivateRedis:
    """A ``redis-server`` of the test's own, on a free port, without any
    persistence: flushing or restarting it touches nobody else."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        if shutil.which("redis-server") is None:
            raise RuntimeError(
                "the fault tests start a redis-server of their own: install it "
                "(apt-get install redis-server)"
            )
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
            + ["--appendonly", "no", "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(self.ping, 20, "redis-server to start")

    def ping(self) -> bool:
        import redis

        try:
            return bool(redis.Redis.from_url(self.url, socket_timeout=1).ping())
        except redis.RedisError:
            return False

    def client(self) -> Any:
        import redis

        return redis.Redis.from_url(self.url)

    def flush_and_stop(self) -> None:
        """FLUSHALL, then kill the server: every queued and unacked message is gone."""
        self.client().flushall()
        self.stop()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=20)
        self.process = None


def worker_env(redis_url: str, tmp_path: Path) -> dict[str, str]:
    db = connection.settings_dict
    return {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "REDIS_URL": redis_url,
        "FACETS_SWEEP_SECONDS": "1",
        "FACETS_TASK_GRACE_SECONDS": "2",
        "FACETS_VAR_DIR": str(tmp_path),
    }


def start_worker(redis_url: str, tmp_path: Path, *, beat: bool) -> subprocess.Popen:
    """A Celery worker (solo pool: the task runs in this very process, so a
    SIGKILL kills it mid-task), with the beat sweep when ``beat``."""
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo"]
    command += ["--loglevel", "WARNING", "--without-mingle", "--without-gossip"]
    if beat:
        command += ["--beat", "--schedule", str(tmp_path / f"beat-{time.monotonic_ns()}")]
    # A file, not a pipe: nobody reads a pipe while the test runs, and a
    # worker logging broker errors while Redis is down would fill it and
    # block on its next write.
    log = (tmp_path / f"worker-{time.monotonic_ns()}.log").open("w")
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=worker_env(redis_url, tmp_path),
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    process.log_path = log.name  # type: ignore[attr-defined]
    log.close()  # the child keeps its own copy of the descriptor
    return process


def stop_worker(process: subprocess.Popen, *, kill: bool = False) -> str:
    """Stop a worker this test started (SIGKILL when ``kill``) and return its output."""
    if process.poll() is None:
        process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    return Path(process.log_path).read_text()  # type: ignore[attr-defined]


def broker_sender(redis_url: str) -> Callable[..., None]:
    """A stand-in for ``dispatch.send_task`` that publishes to ``redis_url``
    (the test process's own Celery app points at the shared Redis)."""
    from celery import Celery

    app = Celery("faults", broker=redis_url, set_as_current=False)
    app.conf.broker_connection_retry_on_startup = False

    def send(name: str, *args: Any) -> None:
        app.send_task(name, args=list(args), retry=False)

    return send


# --- checks on a game's log ----------------------------------------------------------


def log_of(game_id: int) -> list[Event]:
    return list(Event.objects.filter(game_id=game_id).order_by("seq"))


def assert_log_is_whole(game_id: int) -> list[Event]:
    """Seqs 1..N with no gap or duplicate, the game row at N, the hash chain
    intact and the replay equal to the projection."""
    from games import selectors

    rows = log_of(game_id)
    game = Game.objects.get(pk=game_id)
    assert [row.seq for row in rows] == list(range(1, game.seq + 1))
    assert store.verify_chain(rows) == (True, None)
    checked = selectors.replay_check(access=selectors.game_access(game_id=game_id, user=None))
    assert checked["chain_ok"] and checked["projection_matches"], checked
    return rows


def assert_brilliant_moves_happen_once(rows: list[Event], num_seats: int) -> None:
    """No duplicate roll or move in a Brilliant log: each seat chooses its
    setup once; each roll is answered at most once per seat and resolved
    once before the next roll."""
    setups = [row.actor for row in rows if row.type == "setup_chosen"]
    assert sorted(setups) == sorted(set(setups)) and set(setups) <= set(range(num_seats))
    answered: list[int] | None = None
    for row in rows:
        if row.type == "dice_rolled":
            assert answered is None, f"a second roll at seq {row.seq} before the first resolved"
            answered = []
        elif row.type == "answered":
            assert answered is not None, f"an answer without a roll at seq {row.seq}"
            assert row.actor not in answered, f"seat {row.actor} answered twice at seq {row.seq}"
            answered.append(row.actor)
        elif row.type == "roll_resolved":
            assert answered is not None
            answered = None
