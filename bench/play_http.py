"""Play whole games over real HTTP against a running server, as third-party
clients would: register, open a table, join, then each player polls and plays
a random legal action, in parallel threads.

    scripts/serve &                       # in another terminal
    python bench/play_http.py --base http://127.0.0.1:8000 --ruleset brilliant --players 3 --games 2

Prints per-game figures (events, wall time, request latency percentiles and
any non-2xx answers). Uses only the standard library.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import threading
import time
import urllib.error
import urllib.request
import uuid
from typing import Any


class Client:
    def __init__(self, base: str, latencies: list[float]) -> None:
        self.base = base.rstrip("/") + "/api/v1"
        self.token: str | None = None
        self.latencies = latencies

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        start = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        self.latencies.append((time.perf_counter() - start) * 1000)
        return status, json.loads(raw) if raw else None

    def sign_up(self, username: str) -> None:
        password = "play-http-" + uuid.uuid4().hex
        self.call("POST", "/auth/register", {"username": username, "password": password})
        status, body = self.call(
            "POST", "/auth/login", {"username": username, "password": password}
        )
        assert status == 201, body
        self.token = body["token"]


def play(args: argparse.Namespace, game_number: int) -> dict[str, Any]:
    latencies: list[float] = []
    problems: list[str] = []
    tag = uuid.uuid4().hex[:6]
    clients = [Client(args.base, latencies) for _ in range(args.players)]
    for index, client in enumerate(clients):
        client.sign_up(f"p{index}_{tag}")
    status, table = clients[0].call(
        "POST",
        "/games",
        {
            "ruleset": args.ruleset,
            "num_seats": args.players,
            "options": json.loads(args.options),
            "turn_timeout": args.timeout,
        },
    )
    assert status == 201, table
    game_id = table["id"]
    for client in clients[1:]:
        status, body = client.call("POST", f"/games/{game_id}/join")
        assert status == 200, body
    started = time.perf_counter()
    done = threading.Event()

    def player(client: Client, seed: int) -> None:
        rng = random.Random(seed)
        while not done.is_set():
            status, game = client.call("GET", f"/games/{game_id}")
            if game["status"] == "finished":
                done.set()
                return
            me = game["your_seat"]
            if not any(p["seat"] == me and p["must_act"] for p in game["players"]):
                time.sleep(args.poll)
                continue
            status, offered = client.call("GET", f"/games/{game_id}/legal-actions")
            actions = offered["actions"]
            if not actions:
                time.sleep(args.poll)
                continue
            status, body = client.call(
                "POST", f"/games/{game_id}/actions", {"action": rng.choice(actions)}
            )
            if status not in (201, 409):  # 409: someone else moved first; look again
                problems.append(f"{status}: {body}")

    threads = [
        threading.Thread(target=player, args=(c, game_number * 100 + i))
        for i, c in enumerate(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=args.max_seconds)
    done.set()
    status, final = clients[0].call("GET", f"/games/{game_id}")
    status, verified = clients[0].call("GET", f"/games/{game_id}/verify")
    latencies.sort()
    return {
        "game": game_id,
        "status": final["status"],
        "events": final["seq"],
        "seconds": round(time.perf_counter() - started, 1),
        "requests": len(latencies),
        "median_ms": round(statistics.median(latencies), 1),
        "p95_ms": round(latencies[int(len(latencies) * 0.95) - 1], 1),
        "verified": verified["chain_ok"] and verified["projection_matches"],
        "result": final["result"],
        "problems": problems[:5],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", default="http://127.0.0.1:8000")
    parser.add_argument("--ruleset", default="brilliant")
    parser.add_argument("--options", default="{}", help="JSON options for the table")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--timeout", type=int, default=3600, help="turn_timeout of the tables")
    parser.add_argument("--poll", type=float, default=0.2)
    parser.add_argument("--max-seconds", type=float, default=600)
    args = parser.parse_args()
    for number in range(args.games):
        print(json.dumps(play(args, number)))


if __name__ == "__main__":
    main()
