"""HTTP under load: wrk against the service started exactly as ``scripts/serve``
starts it (``manage.py serve``: gunicorn web workers, a Celery worker, beat),
on the benchmark database and Redis.

200 games of Diamants are opened first; wrk then runs one connection per
game (200 threads, each mostly asleep in epoll) with ``bench/wrk/games.lua``:
each connection plays its game as both players (GET legal-actions, POST one
at random; the dice rolls between turns come from the Celery worker) and
opens a new table when its game ends. A second run reads the games' state
(GET /games/{id}). Peak RSS (VmHWM) of every web and Celery worker process
is read at the end of the load.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from .common import Figure, Results, issue_token, make_user, open_game

ROOT = Path(__file__).resolve().parent.parent
LUA = ROOT / "bench" / "wrk" / "games.lua"
GAMES = 200
USERS = 40
TARGET_MOVES = 300
TARGET_P99_MS = 150
TARGET_RSS_MB = 300


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def prepare_games(path: Path) -> None:
    """Each game is played by two of USERS accounts: a player is at many tables."""
    tag = "w" + uuid.uuid4().hex[:6]
    names = [f"{tag}u{i}" for i in range(USERS)]
    users = [make_user(name) for name in names]
    tokens = [issue_token(name) for name in names]
    lines = []
    for number in range(GAMES):
        a, b = number % USERS, (number + 1 + number // USERS) % USERS
        if a == b:
            b = (b + 1) % USERS
        game_id = open_game("diamants", [users[a], users[b]])
        lines.append(f"{game_id} {tokens[a]} {tokens[b]}")
    path.write_text("\n".join(lines) + "\n")


class Server:
    def __init__(self, web_workers: int | None) -> None:
        self.port = free_port()
        self.var_dir = tempfile.mkdtemp(prefix="facets-bench-")
        env = {**os.environ, "FACETS_VAR_DIR": self.var_dir, "LOG_LEVEL": "WARNING"}
        command = [sys.executable, "manage.py", "serve", "--port", str(self.port)]
        if web_workers:
            command += ["--web-workers", str(web_workers)]
        self.log = open(Path(self.var_dir) / "serve.log", "w")  # noqa: SIM115
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT
        )
        self.base = f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout: float = 120) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited; see {self.log.name}")
            try:
                with urllib.request.urlopen(self.base + "/api/v1/rulesets", timeout=5) as r:
                    if r.status == 200 and len(self.workers("celery")) >= 2:
                        return
            except OSError:
                pass
            time.sleep(0.5)
        raise RuntimeError("server did not become ready")

    def workers(self, kind: str) -> list[Any]:
        """Web worker processes (children of the gunicorn master) or every
        Celery worker process (main and pool children; beat excluded)."""
        import psutil

        found = []
        for proc in psutil.Process(self.process.pid).children(recursive=True):
            try:
                cmd = " ".join(proc.cmdline())
                parent = " ".join(proc.parent().cmdline())
            except psutil.Error:
                continue
            if kind == "web" and "gunicorn" in cmd and "gunicorn" in parent:
                found.append(proc)
            if kind == "celery" and "celery" in cmd and " worker" in cmd:
                found.append(proc)
        return found

    def peak_rss_mb(self, kind: str) -> float:
        peaks = []
        for proc in self.workers(kind):
            try:
                status = Path(f"/proc/{proc.pid}/status").read_text()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith("VmHWM:"):
                    peaks.append(int(line.split()[1]) / 1024)
        return max(peaks, default=0.0)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()
        shutil.rmtree(self.var_dir, ignore_errors=True)


def wrk(base: str, games_file: Path, mode: str, seconds: int, rate: float) -> dict[str, Any]:
    """``rate``: moves (or reads) per second per game; 0 for as fast as possible."""
    env = {
        **os.environ,
        "BENCH_GAMES_FILE": str(games_file),
        "BENCH_MODE": mode,
        "BENCH_RATE": str(rate),
    }
    command = ["wrk", f"-t{GAMES}", f"-c{GAMES}", f"-d{seconds}s", "--timeout", "10s"]
    output = subprocess.run(
        [*command, "-s", str(LUA), base], env=env, capture_output=True, text=True, check=True
    ).stdout
    line = next(line for line in output.splitlines() if line.startswith("BENCH "))
    return json.loads(line[len("BENCH ") :])


def measure(results: Results, *, seconds: int, web_workers: int | None) -> None:
    if shutil.which("wrk") is None:
        results.add(Figure("http", "wrk is not installed (apt-get install wrk)", None, ""))
        return
    games_file = Path(tempfile.mkstemp(prefix="facets-bench-games-")[1])
    prepare_games(games_file)
    from django.db import connections

    connections.close_all()
    server = Server(web_workers)
    try:
        server.wait_ready()
        per_game = TARGET_MOVES / GAMES
        wrk(server.base, games_file, "play", 5, per_game)  # warm up every worker
        play = wrk(server.base, games_file, "play", seconds, per_game)
        read = wrk(server.base, games_file, "read", max(10, seconds // 2), per_game)
        flat_out = wrk(server.base, games_file, "play", max(10, seconds // 2), 0)
        web_mb, celery_mb = server.peak_rss_mb("web"), server.peak_rss_mb("celery")
        results.facts["web workers"] = len(server.workers("web"))
    finally:
        server.stop()
        games_file.unlink(missing_ok=True)
    report(results, play, read, web_mb, celery_mb)
    capacity = flat_out["moves"] / flat_out["duration_s"]
    act = flat_out["latency"].get("act", {})
    results.add(
        Figure(
            "http",
            f"capacity: moves/s with {GAMES} clients never waiting (p99 {act.get('p99', 0):.0f} ms)",
            capacity,
            "moves/s",
            note=f"{flat_out['requests'] / flat_out['duration_s']:.0f} requests/s in all",
        )
    )


def report(
    results: Results, play: dict[str, Any], read: dict[str, Any], web_mb: float, celery_mb: float
) -> None:
    errors = sum(play["http_errors"].values()) + sum(play["socket_errors"].values())
    moves = play["moves"] / play["duration_s"]
    act = play["latency"].get("act", {})
    legal = play["latency"].get("legal", {})
    results.add(
        Figure(
            "http",
            f"moves/s, {GAMES} games each offered {TARGET_MOVES / GAMES:g} moves/s (POST actions, 201)",
            moves,
            "moves/s",
            target=f">= {TARGET_MOVES}",
            met=moves >= TARGET_MOVES,
            note=f"{play['requests'] / play['duration_s']:.0f} requests/s in all",
        )
    )
    results.add(
        Figure(
            "http",
            "POST actions p99 (p50 {:.1f} ms)".format(act.get("p50", 0)),
            act.get("p99"),
            "ms",
            target=f"< {TARGET_P99_MS} ms",
            met=act.get("p99") is not None and act["p99"] < TARGET_P99_MS,
        )
    )
    results.add(
        Figure(
            "http",
            "GET legal-actions p99 during play (p50 {:.1f} ms)".format(legal.get("p50", 0)),
            legal.get("p99"),
            "ms",
        )
    )
    results.add(
        Figure(
            "http",
            "errors during play: " + json.dumps({**play["http_errors"], **play["socket_errors"]}),
            errors,
            "",
            target="0",
            met=errors == 0,
        )
    )
    reads = read["latency"].get("read", {})
    read_errors = sum(read["http_errors"].values()) + sum(read["socket_errors"].values())
    read_rate = reads.get("count", 0) / read["duration_s"]
    results.add(
        Figure(
            "http",
            f"state reads/s, {GAMES} games each offered {TARGET_MOVES / GAMES:g} reads/s (GET game)",
            read_rate,
            "reads/s",
            target=f">= {TARGET_MOVES}",
            met=read_rate >= TARGET_MOVES,
        )
    )
    results.add(
        Figure(
            "http",
            "GET game p99 (p50 {:.1f} ms)".format(reads.get("p50", 0)),
            reads.get("p99"),
            "ms",
            target=f"< {TARGET_P99_MS} ms",
            met=reads.get("p99") is not None and reads["p99"] < TARGET_P99_MS,
        )
    )
    results.add(
        Figure("http", "errors during reads", read_errors, "", target="0", met=read_errors == 0)
    )
    for name, mb in (("web worker", web_mb), ("Celery worker", celery_mb)):
        results.add(
            Figure(
                "memory",
                f"peak RSS of a {name} (VmHWM)",
                mb,
                "MB",
                target=f"< {TARGET_RSS_MB} MB",
                met=0 < mb < TARGET_RSS_MB,
            )
        )
