"""Small helpers for API tests: opening tables and reading answers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework.test import APIClient


def ok(response: Any, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.content[:2000])
    return response.json()


def error_code(response: Any, status: int) -> str:
    assert response.status_code == status, (response.status_code, response.content[:2000])
    body = response.json()
    assert set(body) == {"error"} and {"code", "message", "details"} <= set(body["error"])
    return body["error"]["code"]


def open_table(
    client: APIClient,
    *,
    ruleset: str = "brilliant",
    num_seats: int = 3,
    options: dict[str, Any] | None = None,
    turn_timeout: int = 3600,
) -> dict[str, Any]:
    return ok(
        client.post(
            "/api/v1/games",
            {
                "ruleset": ruleset,
                "num_seats": num_seats,
                "options": options or {},
                "turn_timeout": turn_timeout,
            },
            format="json",
        ),
        201,
    )


def game(client: APIClient, game_id: int) -> dict[str, Any]:
    return ok(client.get(f"/api/v1/games/{game_id}"))


def legal(client: APIClient, game_id: int) -> list[dict[str, Any]]:
    return ok(client.get(f"/api/v1/games/{game_id}/legal-actions"))["actions"]


def act(
    client: APIClient, game_id: int, action: dict[str, Any], expected_seq: int | None = None
) -> Any:
    body: dict[str, Any] = {"action": action}
    if expected_seq is not None:
        body["expected_seq"] = expected_seq
    return client.post(f"/api/v1/games/{game_id}/actions", body, format="json")


Chooser = Callable[[dict[str, Any], int, list[dict[str, Any]]], dict[str, Any]]
Checker = Callable[[dict[str, Any], int, list[dict[str, Any]]], None]


def play_until_finished(
    clients: dict[str, APIClient],
    game_id: int,
    task_queue: Any,
    *,
    choose: Chooser,
    check: Checker | None = None,
    max_rounds: int = 3000,
) -> dict[str, Any]:
    """Every player polls the game, and whoever must act checks what
    legal-actions offers (``check``) and plays ``choose``'s pick, over HTTP,
    with the queued tasks (dice, bots) run between rounds. Returns the
    finished game as the first client sees it."""
    first = next(iter(clients.values()))
    for _ in range(max_rounds):
        task_queue.drain()
        current = game(first, game_id)
        if current["status"] == "finished":
            return current
        for client in clients.values():
            mine = game(client, game_id)
            seat = mine["your_seat"]
            if not any(p["seat"] == seat and p["must_act"] for p in mine["players"]):
                continue
            offered = legal(client, game_id)
            assert offered, "a seat that must act is offered nothing"
            if check is not None:
                check(mine["state"], seat, offered)
            ok(act(client, game_id, choose(mine["state"], seat, offered)), 201)
    raise AssertionError("the game did not finish")
