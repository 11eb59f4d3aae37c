"""The event store: appending to a game's log and reading it back.

Appends happen only under the game's row lock (see services). Each event's
hash is SHA-256 over the previous hash and the canonical JSON of the event,
so changing, removing or reordering any stored event breaks the chain from
that point on (``verify_chain``). An event's ``cause`` (what a provably fair
game drew for it) is hashed only when present, so older chains stay valid.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError

from .errors import Conflict
from .models import Event, Game
from .rules.base import Event as RuleEvent

GENESIS_HASH = ""


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def normalize(event: RuleEvent) -> RuleEvent:
    """The event exactly as it will read back from the database, so the live
    fold and a later replay see identical input (tuples become lists...)."""
    return json.loads(canonical_json(event))


def event_hash(
    *,
    previous_hash: str,
    game_id: int,
    seq: int,
    type: str,
    actor: int | None,
    automatic: bool,
    payload: dict[str, Any],
    created_at: datetime | str,
    cause: dict[str, Any] | None = None,
) -> str:
    """``created_at`` as a datetime, or already as its ``isoformat()`` (a record)."""
    record = {
        "game": game_id,
        "seq": seq,
        "type": type,
        "actor": actor,
        "automatic": automatic,
        "payload": payload,
        "created_at": created_at if isinstance(created_at, str) else created_at.isoformat(),
    }
    if cause is not None:
        record["cause"] = cause
    return hashlib.sha256((previous_hash + canonical_json(record)).encode()).hexdigest()


def row_hash(previous_hash: str, row: Event) -> str:
    return event_hash(
        previous_hash=previous_hash,
        game_id=row.game_id,
        seq=row.seq,
        type=row.type,
        actor=row.actor,
        automatic=row.automatic,
        payload=row.payload,
        created_at=row.created_at,
        cause=row.cause,
    )


def rule_event(type: str, actor: int | None, payload: dict[str, Any]) -> RuleEvent:
    """A stored event as its ruleset sees it (one place for the shape)."""
    return {"type": type, "actor": actor, **payload}


def as_rule_event(row: Event) -> RuleEvent:
    return rule_event(row.type, row.actor, row.payload)


# The columns ``rule_event`` needs, for reads that skip model instances.
RULE_EVENT_FIELDS = ("type", "actor", "payload")


@dataclass
class NewEvent:
    type: str
    actor: int | None
    payload: dict[str, Any]
    automatic: bool = False
    cause: dict[str, Any] | None = None

    @classmethod
    def from_rules(
        cls, event: RuleEvent, *, automatic: bool = False, cause: dict[str, Any] | None = None
    ) -> NewEvent:
        payload = {k: v for k, v in event.items() if k not in ("type", "actor")}
        return cls(
            type=event["type"],
            actor=event.get("actor"),
            payload=payload,
            automatic=automatic,
            cause=cause,
        )

    def as_rule_event(self) -> RuleEvent:
        return {"type": self.type, "actor": self.actor, **self.payload}


def append(*, game: Game, events: Sequence[NewEvent], now: datetime) -> list[Event]:
    """Insert ``events`` after ``game.seq``, advancing ``game.seq`` and
    ``game.last_hash`` in memory (the caller saves the game row). Caller
    holds the game's row lock; the unique (game, seq) constraint is the
    last line of defence and surfaces as a Conflict, never a 500."""
    rows = []
    for new in events:
        game.seq += 1
        row = Event(
            game=game,
            seq=game.seq,
            type=new.type,
            actor=new.actor,
            automatic=new.automatic,
            payload=new.payload,
            cause=new.cause,
            created_at=now,
        )
        row.hash = row_hash(game.last_hash, row)
        game.last_hash = row.hash
        rows.append(row)
    try:
        Event.objects.bulk_create(rows)
    except IntegrityError as exc:
        raise Conflict(
            "Another write reached this game first; retry.", details={"seq": game.seq - len(rows)}
        ) from exc
    return rows


def verify_chain(
    rows: Iterable[Event], *, head: tuple[int, str] | None = None
) -> tuple[bool, int | None]:
    """Recompute the chain; returns (ok, first bad seq).

    ``head`` is the (seq, last hash) the game row records. The links alone
    cannot show a deleted last event, an event inserted after the head, or a
    tail rewritten with fresh hashes; comparing the chain's end with the head
    does. Such a break is reported at the first seq past the shorter of the
    two, or at the head itself when only its hash differs."""
    previous = GENESIS_HASH
    expected_seq = 1
    for row in rows:
        digest = row_hash(previous, row)
        if row.seq != expected_seq or digest != row.hash:
            return False, row.seq
        previous = digest
        expected_seq += 1
    if head is not None:
        length = expected_seq - 1
        head_seq, head_hash = head
        if length != head_seq:
            return False, min(length, head_seq) + 1
        if previous != head_hash:
            return False, length
    return True, None
