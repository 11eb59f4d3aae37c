"""The README's first command on the embedded default: ``manage.py serve``
with no DATABASE_URL or REDIS_URL boots web, worker and beat on SQLite and a
file-system broker, and a game against two bots runs to its end over real HTTP
(and its live event stream, served under ASGI, replays it)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.worker

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def test_serve_runs_a_whole_bot_game_on_the_embedded_default(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        {
            "FACETS_VAR_DIR": str(tmp_path),
            "FACETS_SWEEP_SECONDS": "1",
            "FACETS_TASK_GRACE_SECONDS": "2",
        }
    )
    server = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port), "--web-workers", "1"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}/api/v1"
    try:
        for _ in range(120):
            try:
                if call(base, "GET", "/rulesets")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.5)
        else:
            pytest.fail("the server did not come up")
        assert (
            call(
                base, "POST", "/auth/register", {"username": "ada", "password": "a-long-secret-42"}
            )[0]
            == 201
        )
        token = call(
            base, "POST", "/auth/login", {"username": "ada", "password": "a-long-secret-42"}
        )[1]["token"]
        status, table = call(base, "POST", "/games", {"ruleset": "diamants", "num_seats": 3}, token)
        assert status == 201
        assert call(base, "POST", f"/games/{table['id']}/bots", {}, token)[0] == 200
        # ada plays her turns over HTTP; the worker rolls the roll-off and plays the bots.
        for _ in range(1200):
            status, game = call(base, "GET", f"/games/{table['id']}")
            if game["status"] == "finished":
                break
            offered = call(base, "GET", f"/games/{table['id']}/legal-actions", token=token)[1][
                "actions"
            ]
            if offered:
                call(base, "POST", f"/games/{table['id']}/actions", {"action": offered[0]}, token)
            else:
                time.sleep(0.2)
        assert game["status"] == "finished", game
        verified = call(base, "GET", f"/games/{table['id']}/verify")[1]
        assert verified["chain_ok"] and verified["projection_matches"]
        events = call(base, "GET", f"/games/{table['id']}/events?limit=1000")[1]["events"]
        assert {e["actor"] for e in events if e["type"] == "dice_rolled"} >= {0, 1, 2}
        # The web server is ASGI: the game's event stream replays the log and ends.
        with urllib.request.urlopen(f"{base}/games/{table['id']}/stream", timeout=30) as stream:
            assert stream.headers["Content-Type"].startswith("text/event-stream")
            lines = stream.read().decode().splitlines()
        ids = [int(line[4:]) for line in lines if line.startswith("id: ")]
        assert ids == [e["seq"] for e in events]
        assert "event: end" in lines
        assert game["result"]["reason"] != "resignation"
        assert (tmp_path / "facets.sqlite3").exists()
    finally:
        server.terminate()
        try:
            output, _ = server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            output, _ = server.communicate()
        print(output[-4000:])
    assert "API docs:" in output and "sqlite3" in output
