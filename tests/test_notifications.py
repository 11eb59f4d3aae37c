"""The signals that streams and webhooks listen to: sent after commit, with
the right notifications for the right players."""

from __future__ import annotations

from typing import Any

import pytest

from games import notifications

from .helpers import act, legal, ok, open_table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def heard() -> Any:
    events: list[dict[str, Any]] = []
    notes: list[notifications.Notification] = []

    def on_events(sender: Any, **kwargs: Any) -> None:
        events.append(kwargs)

    def on_notes(sender: Any, notifications: list[Any], **kwargs: Any) -> None:
        notes.extend(notifications)

    notifications.events_committed.connect(on_events, weak=False)
    notifications.users_notified.connect(on_notes, weak=False)
    yield events, notes
    notifications.events_committed.disconnect(on_events)
    notifications.users_notified.disconnect(on_notes)


def test_start_turns_and_finish_are_announced_to_the_right_users(
    client_for: Any, task_queue: Any, heard: Any
) -> None:
    events, notes = heard
    alice, bob = client_for("alice"), client_for("bob")
    game_id = open_table(alice, ruleset="diamants", num_seats=2)["id"]
    ok(bob.post(f"/api/v1/games/{game_id}/join"))
    task_queue.drain()

    started = [n for n in notes if n.kind == notifications.GAME_STARTED]
    assert sorted(n.data["seat"] for n in started) == [0, 1]
    assert events[0]["first_seq"] == 1 and events[0]["game_id"] == game_id
    # Consecutive announcements cover every seq once.
    for before, after in zip(events, events[1:], strict=False):
        assert after["first_seq"] == before["last_seq"] + 1

    turns = [n for n in notes if n.kind == notifications.YOUR_TURN]
    assert turns, "somebody must be told it is their turn"
    first_turn = turns[0]
    client = alice if first_turn.data["seat"] == 0 else bob
    assert first_turn.user_id == ok(client.get("/api/v1/me"))["id"]

    ok(alice.post(f"/api/v1/games/{game_id}/resign"))
    finished = [n for n in notes if n.kind == notifications.GAME_FINISHED]
    assert sorted(n.data["seat"] for n in finished) == [0, 1]
    assert finished[0].data["result"]["reason"] == "resignation"


def test_a_refused_action_announces_nothing(client_for: Any, task_queue: Any, heard: Any) -> None:
    events, notes = heard
    alice, bob = client_for("alice"), client_for("bob")
    game_id = open_table(alice, ruleset="diamants", num_seats=2)["id"]
    ok(bob.post(f"/api/v1/games/{game_id}/join"))
    task_queue.drain()
    before = (len(events), len(notes))
    pending = alice if legal(alice, game_id) else bob
    assert act(pending, game_id, {"type": "no-such-action"}).status_code == 422
    assert (len(events), len(notes)) == before


def test_notifications_for_is_pure_and_skips_bots_and_resigned() -> None:
    seats = [
        notifications.SeatSnapshot(0, 7, False),
        notifications.SeatSnapshot(1, None, False),
        notifications.SeatSnapshot(2, 9, True),
    ]
    notes = notifications.notifications_for(
        game_id=1,
        ruleset="brilliant",
        seq=5,
        seats=seats,
        started=False,
        finished=False,
        newly_pending={0, 1, 2},
        result=None,
    )
    assert [(n.kind, n.user_id) for n in notes] == [("your_turn", 7)]
    assert "user_id" not in notes[0].as_json()
