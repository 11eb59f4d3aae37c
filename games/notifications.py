"""What other parts of the platform hear about a committed game change.

Every command that appends events ends in ``services._commit``; it calls
:func:`announce_after_commit`, which sends two Django signals once the
transaction has committed (never before: a listener must not announce a
write that could still roll back):

* ``events_committed``: a game has new events, seqs ``first_seq..last_seq``.
  Live streams and long-polls listen to it.
* ``users_notified``: the per-user notifications (``your_turn``,
  ``game_started``, ``game_finished``) that this change produced. The user
  stream and webhooks listen to it.

Listeners run in the process that made the write (a web worker or a Celery
worker); one that fails is logged and does not disturb the others.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from django.db import transaction
from django.dispatch import Signal

logger = logging.getLogger(__name__)

YOUR_TURN = "your_turn"
GAME_STARTED = "game_started"
GAME_FINISHED = "game_finished"
KINDS = (YOUR_TURN, GAME_STARTED, GAME_FINISHED)

# Arguments: game_id, first_seq, last_seq, status.
events_committed = Signal()
# Arguments: notifications (a list of Notification).
users_notified = Signal()


@dataclass(frozen=True)
class Notification:
    kind: str
    user_id: int
    game_id: int
    ruleset: str
    seq: int
    data: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        """The public shape (users see their own notifications only, so the
        user id is left out)."""
        body = asdict(self)
        del body["user_id"]
        return body


@dataclass(frozen=True)
class SeatSnapshot:
    index: int
    user_id: int | None
    resigned: bool


def notifications_for(
    *,
    game_id: int,
    ruleset: str,
    seq: int,
    seats: Iterable[SeatSnapshot],
    started: bool,
    finished: bool,
    newly_pending: set[int],
    result: dict[str, Any] | None,
) -> list[Notification]:
    """Pure: which human players must hear what about one commit."""
    notes: list[Notification] = []
    for seat in seats:
        if seat.user_id is None:
            continue

        def note(kind: str, data: dict[str, Any], seat: SeatSnapshot = seat) -> Notification:
            assert seat.user_id is not None
            return Notification(kind, seat.user_id, game_id, ruleset, seq, data)

        if started:
            notes.append(note(GAME_STARTED, {"seat": seat.index}))
        if finished:
            notes.append(note(GAME_FINISHED, {"seat": seat.index, "result": result or {}}))
        elif seat.index in newly_pending and not seat.resigned:
            notes.append(note(YOUR_TURN, {"seat": seat.index}))
    return notes


def announce_after_commit(
    *,
    game_id: int,
    first_seq: int,
    last_seq: int,
    status: str,
    notifications: list[Notification],
) -> None:
    def _announce() -> None:
        _send_robust(
            events_committed,
            game_id=game_id,
            first_seq=first_seq,
            last_seq=last_seq,
            status=status,
        )
        if notifications:
            _send_robust(users_notified, notifications=notifications)

    transaction.on_commit(_announce)


def _send_robust(signal: Signal, **kwargs: Any) -> None:
    for receiver, outcome in signal.send_robust(sender=None, **kwargs):
        if isinstance(outcome, Exception):
            logger.error("listener %r failed", receiver, exc_info=outcome)
