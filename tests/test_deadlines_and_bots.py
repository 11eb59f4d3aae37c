"""Deadlines, automatic moves, zombie seats, bots and lost task messages,
with the clock moved forward instead of waiting."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.models import Event, Game, Seat
from games.rules import registry
from tests.helpers import act, game, legal, ok, open_table, play_until_finished

pytestmark = pytest.mark.django_db(transaction=True)


def later(seconds: float) -> timezone.datetime:
    return timezone.now() + timedelta(seconds=seconds)


def two_player_table(client_for, timeout: int = 60) -> tuple[int, object, object]:
    ada, bob = client_for("ada"), client_for("bob")
    table = open_table(ada, num_seats=2, turn_timeout=timeout)
    ok(bob.post(f"/api/v1/games/{table['id']}/join"))
    return table["id"], ada, bob


def test_pending_seats_get_deadlines_of_the_turn_timeout(client_for) -> None:
    game_id, ada, _ = two_player_table(client_for, timeout=600)
    seats = Seat.objects.filter(game_id=game_id)
    for seat in seats:
        remaining = (seat.deadline - timezone.now()).total_seconds()
        assert 590 < remaining <= 600
    ok(act(ada, game_id, {"type": "setup", "stars": True}), 201)
    assert Seat.objects.get(game_id=game_id, index=0).deadline is None


def test_nothing_happens_before_the_deadline(client_for) -> None:
    game_id, _, _ = two_player_table(client_for, timeout=60)
    seq = Game.objects.get(pk=game_id).seq
    assert services.due_work_sweep(now=later(30)) == {"automatic_moves": 0, "system_steps": 0}
    assert Game.objects.get(pk=game_id).seq == seq


def test_an_expired_deadline_plays_the_automatic_move_flagged_as_automatic(
    client_for, task_queue
) -> None:
    game_id, ada, bob = two_player_table(client_for, timeout=60)
    ok(act(ada, game_id, {"type": "setup", "stars": True}), 201)
    swept = services.due_work_sweep(now=later(61))
    assert swept["automatic_moves"] == 1
    setups = dict(
        Event.objects.filter(game_id=game_id, type="setup_chosen").values_list("actor", "automatic")
    )
    assert setups == {0: False, 1: True}
    task_queue.drain()  # the roll that follows
    assert Event.objects.filter(game_id=game_id, type="dice_rolled").count() == 1
    assert ok(bob.get(f"/api/v1/games/{game_id}/events"))["events"][-2]["automatic"] is True


def test_three_automatic_moves_in_a_row_hand_the_seat_to_the_bot_until_its_player_acts(
    client_for, task_queue
) -> None:
    game_id, ada, bob = two_player_table(client_for, timeout=60)
    ok(act(ada, game_id, {"type": "setup", "stars": True}), 201)
    for round_number in range(3):
        assert services.due_work_sweep(now=later(61 + round_number))["automatic_moves"] >= 1
        task_queue.drain()
        if round_number < 2:
            # ada answers each roll herself; bob keeps timing out
            actions = legal(ada, game_id)
            ok(act(ada, game_id, actions[0]), 201)
            task_queue.drain()
    bob_seat = Seat.objects.get(game_id=game_id, index=1)
    assert bob_seat.zombie and bob_seat.auto_moves_in_row == 3
    assert Event.objects.filter(game_id=game_id, type="seat.zombie", actor=1).exists()
    assert game(ada, game_id)["players"][1]["zombie"] is True

    # From now on the bot answers for bob at once, without waiting for a deadline.
    ok(act(ada, game_id, legal(ada, game_id)[0]), 201)
    task_queue.drain()
    state = Game.objects.get(pk=game_id).state
    assert 1 not in registry.get("brilliant").pending(state)

    # bob comes back: the bot's message is lost this time, so bob is pending
    # and his own action hands the seat back to him.
    ok(act(ada, game_id, legal(ada, game_id)[0]), 201)
    task_queue.drain(drop="games.tasks.play_bot_move")
    assert 1 in registry.get("brilliant").pending(Game.objects.get(pk=game_id).state)
    ok(act(bob, game_id, legal(bob, game_id)[0]), 201)
    bob_seat.refresh_from_db()
    assert not bob_seat.zombie and bob_seat.auto_moves_in_row == 0
    assert Event.objects.filter(game_id=game_id, type="seat.reclaimed", actor=1).exists()


def test_a_lost_roll_message_is_recovered_by_the_sweep(client_for, task_queue) -> None:
    game_id, ada, bob = two_player_table(client_for)
    ok(act(ada, game_id, {"type": "setup", "stars": True}), 201)
    ok(act(bob, game_id, {"type": "setup", "stars": True}), 201)
    task_queue.sent.clear()  # the broker lost the roll task
    assert not Event.objects.filter(game_id=game_id, type="dice_rolled").exists()
    assert services.due_work_sweep(now=later(1))["system_steps"] == 0  # within the grace period
    assert services.due_work_sweep(now=later(30))["system_steps"] == 1
    assert Event.objects.filter(game_id=game_id, type="dice_rolled").count() == 1


def test_tasks_are_idempotent_by_seq(client_for, task_queue) -> None:
    game_id, ada, bob = two_player_table(client_for)
    ok(act(ada, game_id, {"type": "setup", "stars": True}), 201)
    ok(act(bob, game_id, {"type": "setup", "stars": True}), 201)
    duplicated = list(task_queue.sent)
    task_queue.sent.extend(duplicated)  # the broker delivered every message twice
    task_queue.drain()
    assert Event.objects.filter(game_id=game_id, type="dice_rolled").count() == 1
    seq = Game.objects.get(pk=game_id).seq
    assert services.system_step_run(game_id=game_id, seq=seq - 1) is False
    assert Game.objects.get(pk=game_id).seq == seq


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_full_bot_games_end_and_replay_to_the_projection(
    client_for, task_queue, anon, players
) -> None:
    ada = client_for("ada")
    table = open_table(ada, num_seats=players)
    ok(ada.post(f"/api/v1/games/{table['id']}/bots"))
    # ada stops playing: her seat is handed to the bot, as after three timeouts.
    Seat.objects.filter(game_id=table["id"], index=0).update(zombie=True, deadline=timezone.now())
    services.due_work_sweep()
    task_queue.drain()
    final = game(anon, table["id"])
    assert final["status"] == "finished", final
    assert final["result"]["reason"] != "resignation"
    assert (
        max(final["result"]["scores"]) >= final["state"]["threshold"]
        or final["result"]["reason"] == "no_moves"
    )
    verified = ok(anon.get(f"/api/v1/games/{table['id']}/verify"))
    assert verified["chain_ok"] and verified["projection_matches"]


def test_when_only_bots_would_be_left_resigning_ends_the_game(client_for, task_queue) -> None:
    ada = client_for("ada")
    table = open_table(ada, num_seats=3)
    ok(ada.post(f"/api/v1/games/{table['id']}/bots"))
    finished = ok(ada.post(f"/api/v1/games/{table['id']}/resign"))
    assert finished["status"] == "finished"
    assert finished["result"]["reason"] == "resignation"
    assert finished["result"]["winners"] == [1, 2]


def test_a_resigned_seat_is_played_by_the_bot_and_never_wins(client_for, task_queue) -> None:
    ada, bob, cyd = client_for("ada"), client_for("bob"), client_for("cyd")
    table = open_table(ada, num_seats=3)
    for client in (bob, cyd):
        ok(client.post(f"/api/v1/games/{table['id']}/join"))
    ok(cyd.post(f"/api/v1/games/{table['id']}/resign"))
    task_queue.drain()
    assert Event.objects.filter(game_id=table["id"], type="setup_chosen", actor=2).exists()
    final = play_until_finished(
        {"ada": ada, "bob": bob},
        table["id"],
        task_queue,
        choose=lambda state, seat, offered: offered[0],
    )
    assert 2 not in final["result"]["winners"]
    assert final["result"]["ranking"][-1] == 2
    assert final["result"]["resigned"] == [2]


def test_resigning_in_a_two_player_game_ends_it_for_the_other(client_for) -> None:
    game_id, ada, bob = two_player_table(client_for)
    finished = ok(bob.post(f"/api/v1/games/{game_id}/resign"))
    assert finished["status"] == "finished"
    assert finished["result"]["winners"] == [0]
    assert finished["result"]["reason"] == "resignation"
    response = act(ada, game_id, {"type": "setup", "stars": True})
    assert response.status_code == 409 and response.json()["error"]["code"] == "game_finished"
