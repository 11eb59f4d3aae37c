"""What one idle Server-Sent Event stream costs a web worker.

Starts one uvicorn worker (the production worker class's server) on a fresh
embedded database (or on ``DATABASE_URL``, which must then be a throwaway
database: it is migrated), opens a game, then opens N idle streams on it and
compares the worker's resident memory (RSS), thread count and (on
PostgreSQL) open database connections before and after. With ``REDIS_URL`` set it also asks Redis how many subscriptions the
N streams made (one per process is the design).

    python bench/stream_memory.py                      # embedded: database polling
    REDIS_URL=redis://127.0.0.1:6379/0 python bench/stream_memory.py --streams 200

Prints the figures; docs/performance.md records them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def call(base: str, method: str, path: str, body: Any = None, token: str = "") -> Any:
    request = urllib.request.Request(
        base + path, method=method, data=None if body is None else json.dumps(body).encode()
    )
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


async def open_stream(port: int, path: str) -> asyncio.StreamWriter:
    """An idle SSE client: sends the request, reads until the first
    ``retry:`` line (the server is then subscribed), then just stays."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    while b"retry:" not in await reader.readline():
        pass
    writer._facets_reader = reader  # type: ignore[attr-defined]  # keep it referenced
    return writer


def settle(process: psutil.Process, seconds: float = 3.0) -> tuple[float, int, int | None]:
    """RSS (MiB), threads, and the server's open PostgreSQL connections."""
    time.sleep(seconds)
    return process.memory_info().rss / 2**20, process.num_threads(), database_connections()


def database_connections() -> int | None:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        return None
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchone()
    return row[0] if row else None


async def measure(args: argparse.Namespace, port: int, game_id: int, pid: int) -> dict[str, Any]:
    process = psutil.Process(pid)
    path = f"/api/v1/games/{game_id}/stream"
    # Warm up: the first streams import and allocate what every later one shares.
    warm = [await open_stream(port, path) for _ in range(10)]
    for writer in warm:
        writer.close()
    await asyncio.sleep(2)
    before_mb, before_threads, before_db = settle(process)
    streams = await asyncio.gather(*(open_stream(port, path) for _ in range(args.streams)))
    after_mb, after_threads, after_db = await asyncio.to_thread(settle, process)
    subscriptions = None
    if os.environ.get("REDIS_URL"):
        import redis

        channel = f"{os.environ['FACETS_PUBSUB_PREFIX']}:game:{game_id}"
        subscriptions = redis.Redis.from_url(os.environ["REDIS_URL"]).pubsub_numsub(channel)[0][1]
    for writer in streams:
        writer.close()
    return {
        "streams": args.streams,
        "rss_before_mib": round(before_mb, 1),
        "rss_after_mib": round(after_mb, 1),
        "kib_per_stream": round((after_mb - before_mb) * 1024 / args.streams, 1),
        "threads_before": before_threads,
        "threads_after": after_threads,
        "db_connections_before": before_db,
        "db_connections_after": after_db,
        "redis_subscriptions_for_the_game": subscriptions,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=200)
    args = parser.parse_args()
    port = free_port()
    var_dir = tempfile.mkdtemp(prefix="facets-bench-")
    env = {
        **os.environ,
        "FACETS_VAR_DIR": var_dir,
        "FACETS_PUBSUB_PREFIX": f"facets-bench-{uuid.uuid4().hex[:8]}",
        "LOG_LEVEL": "WARNING",
        # As `manage.py serve` runs the web workers: a burst of streams opening
        # at once then waits for one of a few pooled connections instead of
        # each opening its own (PostgreSQL allows 100 by default).
        "FACETS_DB_POOL": os.environ.get("FACETS_DB_POOL", "1"),
    }
    os.environ["FACETS_PUBSUB_PREFIX"] = env["FACETS_PUBSUB_PREFIX"]
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    server = subprocess.Popen(
        [python, "-m", "uvicorn", "config.asgi:application", "--port", str(port)]
        + ["--lifespan", "off", "--log-level", "warning"],
        cwd=ROOT,
        env=env,
    )
    base = f"http://127.0.0.1:{port}/api/v1"
    try:
        for _ in range(100):
            try:
                call(base, "GET", "/rulesets")
                break
            except OSError:
                time.sleep(0.2)
        user = {"username": f"bench{uuid.uuid4().hex[:8]}", "password": "a-long-secret-42"}
        call(base, "POST", "/auth/register", user)
        token = call(base, "POST", "/auth/login", user)["token"]
        game = call(base, "POST", "/games", {"ruleset": "diamants", "num_seats": 2}, token)
        result = asyncio.run(measure(args, port, game["id"], server.pid))
    finally:
        server.terminate()
        server.wait(timeout=30)
    database = "postgresql" if os.environ.get("DATABASE_URL") else "sqlite"
    hub = "redis pub/sub" if os.environ.get("REDIS_URL") else "database polling"
    print(f"one uvicorn worker; database: {database}; live updates: {hub}")
    for key, value in result.items():
        print(f"{key:34} {value}")


if __name__ == "__main__":
    main()
