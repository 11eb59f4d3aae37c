"""Brikks through HTTP: two players, four with bots, solo and duel, each to
the end. Every placement legal-actions offers is compared with the resting
positions an independent search (written here from the rule text and the
published shapes) finds for the energy the player has."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.helpers import act, game, legal, ok, open_table, play_until_finished

pytestmark = pytest.mark.django_db(transaction=True)


class BrikksReferee:
    """Falling blocks restated: a block enters above the field, moves left,
    right or down through free squares, and rests where it cannot fall."""

    def __init__(self, material: dict[str, Any]) -> None:
        self.width = material["field"]["width"]
        self.height = material["field"]["height"]
        self.shapes = {
            (b["color"], b["column"]): [tuple(s) for s in b["squares"]] for b in material["blocks"]
        }
        self.colors = material["colors"]
        self.per_column = material["energy_costs"]["per_column"]
        self.any_block = material["energy_costs"]["any_block"]

    def cost(self, rolled: tuple[str, int], block: tuple[str, int]) -> int:
        if block == rolled:
            return 0
        if block[0] == rolled[0]:
            return min(abs(block[1] - rolled[1]) * self.per_column, self.any_block)
        return self.any_block

    def resting_positions(
        self, field: list[str], squares: list[tuple[int, int]]
    ) -> set[tuple[int, int]]:
        filled = {
            (x, y) for y, row in enumerate(field) for x, cell in enumerate(row) if cell != "."
        }

        def free(x: int, y: int) -> bool:
            cells = [(x + dx, y + dy) for dx, dy in squares]
            return all(
                0 <= cx < self.width and cy >= 0 and (cx, cy) not in filled for cx, cy in cells
            )

        width = max(dx for dx, _ in squares) + 1
        frontier = [(x, self.height) for x in range(self.width - width + 1)]
        seen = set(frontier)
        while frontier:
            x, y = frontier.pop()
            for nx, ny in ((x - 1, y), (x + 1, y), (x, y - 1)):
                if (nx, ny) not in seen and free(nx, ny):
                    seen.add((nx, ny))
                    frontier.append((nx, ny))
        top = max(dy for _, dy in squares)
        return {(x, y) for x, y in seen if not free(x, y - 1) and y + top < self.height}

    def placements(
        self, player: dict[str, Any], dice: dict[str, Any]
    ) -> set[tuple[str, int, int, int]]:
        rolled = (dice["color"], dice["number"])
        found = set()
        for block, squares in self.shapes.items():
            if self.cost(rolled, block) > player["energy_available"]:
                continue
            for x, y in self.resting_positions(player["field"], squares):
                found.add((block[0], block[1], x, y))
        return found


def chooser(seed: int):
    rng = random.Random(seed)

    def choose(state: dict[str, Any], seat: int, actions: list[dict[str, Any]]) -> dict[str, Any]:
        by_type: dict[str, list[dict[str, Any]]] = {}
        for action in actions:
            by_type.setdefault(action["type"], []).append(action)
        for preferred in ("keep", "place", "start_block", "mini_block"):
            if preferred in by_type and rng.random() < 0.95:
                return rng.choice(by_type[preferred])
        return rng.choice(actions)

    return choose


def play_to_the_end(
    clients: dict[str, Any], game_id: int, task_queue, referee: BrikksReferee, seed: int = 3
) -> tuple[dict[str, Any], int]:
    checked: list[int] = []

    def check(state: dict[str, Any], seat: int, offered: list[dict[str, Any]]) -> None:
        if state["phase"] != "place":
            return
        places = {
            (a["color"], a["column"], a["x"], a["y"]) for a in offered if a["type"] == "place"
        }
        assert places == referee.placements(state["players"][seat], state["dice"])
        assert {"type": "bomb"} in offered or state["players"][seat]["bombs_used"] == 3
        if not places:
            assert {"type": "give_up"} in offered
        checked.append(len(places))

    final = play_until_finished(clients, game_id, task_queue, choose=chooser(seed), check=check)
    return final, len(checked)


@pytest.fixture
def referee(anon) -> BrikksReferee:
    return BrikksReferee(ok(anon.get("/api/v1/rulesets/brikks"))["material"])


def test_two_players_play_brikks_to_the_end(client_for, task_queue, referee) -> None:
    clients = {name: client_for(name) for name in ("ada", "bob")}
    table = open_table(clients["ada"], ruleset="brikks", num_seats=2, options={"levels": [1, 3]})
    ok(clients["bob"].post(f"/api/v1/games/{table['id']}/join"))
    final, checked = play_to_the_end(clients, table["id"], task_queue, referee)
    assert checked > 10
    result = final["result"]
    assert set(result["winners"]) <= {0, 1} and result["winners"]
    assert max(result["scores"]) == max(result["scores"][w] for w in result["winners"])


def test_four_players_with_bots_play_brikks_to_the_end(
    client_for, task_queue, referee, anon
) -> None:
    ada = client_for("ada")
    table = open_table(ada, ruleset="brikks", num_seats=4)
    ok(ada.post(f"/api/v1/games/{table['id']}/bots"))
    final, checked = play_to_the_end({"ada": ada}, table["id"], task_queue, referee)
    assert checked > 5
    assert len(final["result"]["scores"]) == 4
    verified = ok(anon.get(f"/api/v1/games/{table['id']}/verify"))
    assert verified["chain_ok"] and verified["projection_matches"]


def test_a_solo_game_starts_at_once_has_no_reroll_and_ends_with_a_rating(
    client_for, task_queue, referee
) -> None:
    ada = client_for("ada")
    table = open_table(ada, ruleset="brikks", num_seats=1, options={"level": 1})
    assert table["status"] == "active"
    assert (
        table["state"]["players"][0]["energy_available"] == 5 or table["state"]["phase"] == "start"
    )
    seen_roller_choice = []
    choose = chooser(5)
    for _ in range(2000):
        task_queue.drain()
        current = game(ada, table["id"])
        if current["status"] == "finished":
            break
        offered = legal(ada, table["id"])
        seen_roller_choice += [a for a in offered if a["type"] in ("keep", "reroll")]
        if current["state"]["phase"] == "place":
            places = {
                (a["color"], a["column"], a["x"], a["y"]) for a in offered if a["type"] == "place"
            }
            assert places == referee.placements(
                current["state"]["players"][0], current["state"]["dice"]
            )
        ok(act(ada, table["id"], choose(current["state"], 0, offered)), 201)
    assert current["status"] == "finished"
    assert seen_roller_choice == []  # solo: no reroll
    assert isinstance(current["result"].get("rating"), str) and current["result"]["rating"]


def test_a_duel_runs_to_the_end(client_for, task_queue, referee) -> None:
    clients = {name: client_for(name) for name in ("ada", "bob")}
    table = open_table(clients["ada"], ruleset="brikks", num_seats=2, options={"duel": True})
    ok(clients["bob"].post(f"/api/v1/games/{table['id']}/join"))
    final, _ = play_to_the_end(clients, table["id"], task_queue, referee, seed=11)
    assert final["state"]["duel"] is True
    assert final["result"]["winners"]


def test_brikks_options_are_validated(client_for) -> None:
    ada = client_for("ada")
    response = ada.post(
        "/api/v1/games",
        {"ruleset": "brikks", "num_seats": 3, "options": {"duel": True}},
        format="json",
    )
    assert response.status_code == 400 and response.json()["error"]["code"] == "validation_error"
    response = ada.post(
        "/api/v1/games",
        {"ruleset": "brikks", "num_seats": 2, "options": {"levels": [1, 9]}},
        format="json",
    )
    assert response.status_code == 400
