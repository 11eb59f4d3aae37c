"""Celery tasks: thin wrappers around one service each.

Every task is keyed by the game and the seq it was scheduled at and is safe
to run twice: the service re-checks under the game's row lock and does
nothing if the game has moved on. Nothing waits on a long ETA; the beat task
``sweep_due_work`` runs whatever is due according to the database, so a lost
message delays work by at most the sweep interval plus the grace period.
"""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(name="games.tasks.run_system_step", acks_late=True)
def run_system_step(game_id: int, seq: int) -> bool:
    return services.system_step_run(game_id=game_id, seq=seq)


@shared_task(name="games.tasks.play_bot_move", acks_late=True)
def play_bot_move(game_id: int, seat_index: int, seq: int) -> bool:
    return services.automatic_move_play(game_id=game_id, seat_index=seat_index, seq=seq)


@shared_task(name="games.tasks.sweep_due_work", acks_late=True, expires=60)
def sweep_due_work() -> dict[str, int]:
    return services.due_work_sweep()
