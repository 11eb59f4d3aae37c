"""A hundred clients post to one game at the same moment, over real HTTP,
each in its own thread: players (several devices per seat), people with no
seat there and anonymous callers, with and without ``expected_seq``.

Whatever the interleaving: seqs stay 1..N with no gap or duplicate, every
accepted action's events are in the log exactly once, every refused one
wrote nothing (the log grows by exactly the accepted responses' events), and
the hash chain and the replay still verify.

(``tests/test_event_store.py`` has the two- and six-writer versions.)"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest

from games.models import Event, Game
from tests.faults.support import (
    assert_brilliant_moves_happen_once,
    assert_log_is_whole,
    call,
    is_error_shape,
    live_server,
    user_with_token,
)

pytestmark = pytest.mark.django_db(transaction=True)

CLIENTS = 100
SEATS = 6
DEVICES_PER_SEAT = 9  # 54 player clients
ANONYMOUS = 10  # and 36 people with an account but no seat in this game


@dataclass
class Client:
    token: str | None
    seat: int | None  # None: not a player of this game
    device: int = 0


@dataclass
class Answer:
    client: Client
    status: int
    body: Any


def hundred_clients(seat_tokens: list[str], outsider_tokens: list[str]) -> list[Client]:
    clients = [
        Client(token=token, seat=seat, device=device)
        for seat, token in enumerate(seat_tokens)
        for device in range(DEVICES_PER_SEAT)
    ]
    clients += [Client(token=token, seat=None) for token in outsider_tokens]
    clients += [Client(token=None, seat=None) for _ in range(ANONYMOUS)]
    assert len(clients) == CLIENTS
    return clients


def post_all_at_once(base: str, game_id: int, bodies: list[tuple[Client, Any]]) -> list[Answer]:
    barrier = threading.Barrier(len(bodies))
    answers: list[Answer] = []
    lock = threading.Lock()

    def post(client: Client, body: Any) -> None:
        barrier.wait()
        status, answer = call(base, "POST", f"/games/{game_id}/actions", body, client.token)
        with lock:
            answers.append(Answer(client, status, answer))

    threads = [threading.Thread(target=post, args=pair) for pair in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert len(answers) == len(bodies), "a client never got an answer"
    return answers


def assert_round_is_exact(
    game_id: int, answers: list[Answer], seq_before: int, pending_before: set[int]
) -> None:
    rows = assert_log_is_whole(game_id)
    by_seq = {row.seq: row for row in rows}
    accepted = [a for a in answers if a.status == 201]
    refused = [a for a in answers if a.status != 201]

    # Each seat that had to act got exactly one action through; nobody else did.
    assert Counter(a.client.seat for a in accepted) == dict.fromkeys(pending_before, 1)

    # Every accepted action's events are in the log once, as the answer said.
    shown = [event for a in accepted for event in a.body["events"]]
    assert len({e["seq"] for e in shown}) == len(shown)
    for answer in accepted:
        assert answer.body["events"][0]["actor"] == answer.client.seat
        for event in answer.body["events"]:
            row = by_seq[event["seq"]]
            # (Hashes are shown once the game is finished, not during play.)
            assert (row.type, row.actor) == (event["type"], event["actor"])
            assert event["hash"] is None

    # Refused ones wrote nothing: the log grew by the accepted events alone.
    assert Event.objects.filter(game_id=game_id).count() == seq_before + len(shown)
    assert sorted(e["seq"] for e in shown) == list(
        range(seq_before + 1, seq_before + 1 + len(shown))
    )

    # And each was refused for the right reason, in the one error shape.
    for answer in refused:
        assert is_error_shape(answer.body), answer.body
        code = answer.body["error"]["code"]
        if answer.client.token is None:
            assert (answer.status, code) == (401, "not_authenticated")
        elif answer.client.seat is None:
            assert (answer.status, code) == (403, "not_a_player")
        else:
            assert answer.status == 409 and code in {"stale_seq", "not_your_turn"}, answer.body


def test_a_hundred_clients_post_to_one_game_and_nothing_is_lost_or_doubled(
    task_queue,
) -> None:
    seat_tokens = [user_with_token(f"seat{n}")[1] for n in range(SEATS)]
    outsiders = CLIENTS - SEATS * DEVICES_PER_SEAT - ANONYMOUS
    outsider_tokens = [user_with_token(f"outsider{n}")[1] for n in range(outsiders)]
    clients = hundred_clients(seat_tokens, outsider_tokens)

    with live_server() as base:
        status, table = call(
            base, "POST", "/games", {"ruleset": "brilliant", "num_seats": SEATS}, seat_tokens[0]
        )
        assert status == 201
        game_id = table["id"]
        for token in seat_tokens[1:]:
            assert call(base, "POST", f"/games/{game_id}/join", None, token)[0] == 200

        for round_number in range(3):  # the setup, then two rolls answered by everyone
            task_queue.drain()  # the worker's dice roll, if one is due
            game = Game.objects.get(pk=game_id)
            offered = {
                seat: call(base, "GET", f"/games/{game_id}/legal-actions", None, token)[1][
                    "actions"
                ]
                for seat, token in enumerate(seat_tokens)
            }
            pending = {seat for seat, actions in offered.items() if actions}
            assert pending, f"nobody to act in round {round_number}"
            bodies = [(client, body_for(client, offered, game.seq)) for client in clients]
            answers = post_all_at_once(base, game_id, bodies)
            assert_round_is_exact(game_id, answers, game.seq, pending)

    assert_brilliant_moves_happen_once(assert_log_is_whole(game_id), SEATS)


def body_for(client: Client, offered: dict[int, list[Any]], seq: int) -> dict[str, Any]:
    """Device 0 of each seat posts without expected_seq (so every seat gets
    through); the other devices post other legal actions, every other one
    with the seq they saw. Outsiders and anonymous callers copy seat 0's."""
    actions = offered[client.seat if client.seat is not None else 0] or [{"type": "pass"}]
    body: dict[str, Any] = {"action": actions[client.device % len(actions)]}
    if client.device % 2 == 1 or client.seat is None:
        body["expected_seq"] = seq
    return body


def test_one_seat_posting_the_same_move_a_hundred_times_with_expected_seq_wins_once(
    task_queue,
) -> None:
    _, ada = user_with_token("ada")
    _, bob = user_with_token("bob")
    with live_server() as base:
        game_id = call(base, "POST", "/games", {"ruleset": "brilliant", "num_seats": 2}, ada)[1][
            "id"
        ]
        assert call(base, "POST", f"/games/{game_id}/join", None, bob)[0] == 200
        seq = Game.objects.get(pk=game_id).seq
        body = {"action": {"type": "setup", "stars": True}, "expected_seq": seq}
        answers = post_all_at_once(base, game_id, [(Client(ada, 0), body)] * CLIENTS)

    statuses = Counter((a.status, a.body.get("error", {}).get("code")) for a in answers)
    assert statuses == {(201, None): 1, (409, "stale_seq"): CLIENTS - 1}
    winner = next(a for a in answers if a.status == 201)
    rows = assert_log_is_whole(game_id)
    assert [e["seq"] for e in winner.body["events"]] == [r.seq for r in rows if r.seq > seq]
    assert [r.actor for r in rows if r.type == "setup_chosen"] == [0]
    for answer in answers:
        if answer.status == 409:
            assert answer.body["error"]["details"]["seq"] == seq + len(winner.body["events"])
