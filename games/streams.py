"""What long-polls and Server-Sent Event streams send, as async iterators.

The views (``games/api/live.py``) check the caller and the game in DRF's
usual sync path, then hand Django one of these iterators; Django's ASGI
handler consumes it in the event loop, so an idle stream holds no worker
and no thread doing work. Every database read runs in ``sync_to_async`` and
closes its connection before the stream goes back to waiting, so idle
streams hold no database connection either.

Subscribe first, read second: a commit that lands between the two is then
both read and announced (read twice at worst, never missed).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from asgiref.sync import SyncToAsync, sync_to_async
from django.conf import settings
from django.db import connections
from django.db.models import Q
from rest_framework.utils.encoders import JSONEncoder

from accounts.models import User

from . import live, selectors
from .api import presenters
from .models import Game, GameStatus, Seat
from .notifications import GAME_FINISHED, GAME_STARTED, YOUR_TURN, Notification

SSE_BATCH = 200
ENDED = (GameStatus.FINISHED, GameStatus.ABORTED)


def close_db_connections() -> None:
    """Release this thread's database connections: a stream that waits for
    minutes must not keep one open."""
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:  # never under a caller's transaction
            connection.close()


def release_request_thread() -> None:
    """Let the request's own thread go while the stream waits.

    Under ASGI Django gives each request a thread for its sync code (the
    DRF checks ran there) and keeps it until the response is over: for a
    stream, for hours. Idle streams would cost a thread each (measured:
    about 200 KiB of RSS and a thread per stream, docs/performance.md). The
    stream's own reads do not need that thread (each opens and closes its
    connection), so it is shut down here, as asgiref does when the request
    ends; a later thread-sensitive call (Django's closing of the response)
    simply gets a fresh one."""
    context = SyncToAsync.thread_sensitive_context.get(None)
    executor = SyncToAsync.context_to_thread_executor.pop(context, None) if context else None
    if executor is not None:
        executor.shutdown(wait=False)


def _dumps(body: Any) -> str:
    """JSON exactly as the DRF endpoints write it (dates included)."""
    return json.dumps(body, cls=JSONEncoder, ensure_ascii=False, separators=(",", ":"))


def sse_message(data: Any, *, id: int | None = None, event: str | None = None) -> bytes:
    lines = []
    if id is not None:
        lines.append(f"id: {id}")
    if event is not None:
        lines.append(f"event: {event}")
    lines.append(f"data: {_dumps(data)}")
    return ("\n".join(lines) + "\n\n").encode()


KEEPALIVE = b": keep-alive\n\n"


def retry_line() -> bytes:
    """The first line of every stream, sent once the stream listens: how
    long EventSource waits before reconnecting."""
    return f"retry: {settings.FACETS_SSE_RETRY_MS}\n\n".encode()


# --- Reads (sync, in a thread) -----------------------------------------------


@dataclass(frozen=True)
class Batch:
    page: dict[str, Any] | None  # the events page, or None if nothing is new
    seq: int
    status: str


def read_events(*, game_id: int, user: User | None, after: int, limit: int) -> Batch:
    """The events after ``after`` as ``user`` sees them (the events
    endpoint's presenter). Nothing new costs one primary-key read."""
    try:
        row = Game.objects.filter(pk=game_id).values_list("seq", "status").first()
        if row is None:  # games are never deleted; be safe anyway
            return Batch(None, after, GameStatus.ABORTED)
        seq, status = row
        if seq <= after:
            return Batch(None, seq, status)
        access = selectors.game_access(game_id=game_id, user=user)
        events = selectors.event_list(access=access, after=after, limit=limit)
        return Batch(presenters.event_page(access, events, after), access.game.seq, status)
    finally:
        close_db_connections()


# Not thread-sensitive: a read is self-contained (opens and closes its own
# connection), so any thread of the loop's small shared pool may run it.
_read_events = sync_to_async(read_events, thread_sensitive=False)


# --- Long-poll ---------------------------------------------------------------


async def long_poll(
    *, game_id: int, user: User | None, after: int, limit: int, wait: float
) -> AsyncIterator[bytes]:
    """One JSON body, the events endpoint's page: as soon as there is an
    event after ``after``, or the empty page after ``wait`` seconds."""
    deadline = time.monotonic() + wait
    release_request_thread()
    async with live.hub().subscribe(live.game_channel(game_id)) as wake:
        while True:
            batch = await _read_events(game_id=game_id, user=user, after=after, limit=limit)
            left = deadline - time.monotonic()
            if batch.page is not None or left <= 0 or batch.status in ENDED:
                break
            await wake.get(timeout=left)
    page = batch.page or {"events": [], "last_seq": batch.seq, "has_more": False}
    yield _dumps(page).encode()


# --- Game stream -------------------------------------------------------------


class _Clock:
    """When the stream last wrote, to send a keep-alive only on silence."""

    def __init__(self) -> None:
        self.last = time.monotonic()

    def wrote(self) -> None:
        self.last = time.monotonic()

    def until_keepalive(self) -> float:
        return max(0.0, settings.FACETS_SSE_KEEPALIVE_SECONDS - (time.monotonic() - self.last))


async def game_stream(*, game_id: int, user: User | None, after: int) -> AsyncIterator[bytes]:
    """Every event after ``after`` (SSE ``id`` = seq), then each new one as
    it is committed; a comment line on silence; ``event: end`` once the game
    is over and everything was sent."""
    clock = _Clock()
    release_request_thread()
    async with live.hub().subscribe(live.game_channel(game_id)) as wake:
        yield retry_line()
        cursor = after
        while True:
            batch = await _read_events(game_id=game_id, user=user, after=cursor, limit=SSE_BATCH)
            if batch.page is not None:
                for event in batch.page["events"]:
                    yield sse_message(event, id=event["seq"])
                    cursor = event["seq"]
                clock.wrote()
                if batch.page["has_more"]:
                    continue
            if batch.status in ENDED and cursor >= batch.seq:
                yield sse_message({"status": batch.status, "last_seq": batch.seq}, event="end")
                return
            while True:
                message = await wake.get(timeout=clock.until_keepalive())
                if message is None:
                    # Silence: a comment keeps proxies from closing the
                    # connection, and the re-read after it is a safety net
                    # should a pub/sub message have been lost.
                    yield KEEPALIVE
                    clock.wrote()
                    break
                if message.get("last_seq", cursor + 1) > cursor:
                    break


# --- User stream -------------------------------------------------------------


async def user_stream(*, user_id: int) -> AsyncIterator[bytes]:
    """The caller's notifications (your_turn, game_started, game_finished)
    as they happen; a comment line on silence."""
    release_request_thread()
    hub = live.hub()
    if hub.polling:
        async for chunk in _user_stream_polled(user_id):
            yield chunk
        return
    clock = _Clock()
    async with hub.subscribe(live.user_channel(user_id)) as inbox:
        yield retry_line()
        while True:
            message = await inbox.get(timeout=clock.until_keepalive())
            if message is None:
                yield KEEPALIVE
                clock.wrote()
            elif message.get("kind"):  # not a bare wake-up after a reconnect
                yield sse_message(message)
                clock.wrote()


@dataclass(frozen=True)
class Mark:
    """What the polled user stream remembers of one of the user's games."""

    ruleset: str
    seq: int
    status: str
    seat: int
    resigned: bool
    deadline: datetime | None
    result: dict[str, Any] | None


def read_marks(*, user_id: int, since: datetime) -> dict[int, Mark]:
    """The user's live games (and those finished since the stream opened)."""
    try:
        rows = Seat.objects.filter(user_id=user_id).filter(
            Q(game__status__in=[GameStatus.OPEN, GameStatus.ACTIVE])
            | Q(game__finished_at__gte=since)
        )
        return {
            row["game_id"]: Mark(
                ruleset=row["game__ruleset"],
                seq=row["game__seq"],
                status=row["game__status"],
                seat=row["index"],
                resigned=row["resigned"],
                deadline=row["deadline"],
                result=row["game__result"],
            )
            for row in rows.values(
                "game_id",
                "index",
                "resigned",
                "deadline",
                "game__ruleset",
                "game__seq",
                "game__status",
                "game__result",
            )
        }
    finally:
        close_db_connections()


_read_marks = sync_to_async(read_marks, thread_sensitive=False)

_UNSEEN = Mark("", 0, GameStatus.OPEN, 0, False, None, None)


def notes_between(
    before: dict[int, Mark], after: dict[int, Mark], *, user_id: int
) -> list[Notification]:
    """Pure: the notifications that explain going from ``before`` to
    ``after``. A seat's deadline is set exactly while it must act, so a new
    deadline is a new turn."""
    notes = []
    for game_id, now in sorted(after.items()):
        was = before.get(game_id, _UNSEEN)
        if now == was:
            continue

        def note(kind: str, data: dict[str, Any], now: Mark = now, game_id: int = game_id) -> None:
            notes.append(Notification(kind, user_id, game_id, now.ruleset, now.seq, data))

        if was.status == GameStatus.OPEN and now.status in (GameStatus.ACTIVE, GameStatus.FINISHED):
            note(GAME_STARTED, {"seat": now.seat})
        if now.status == GameStatus.FINISHED and was.status != GameStatus.FINISHED:
            note(GAME_FINISHED, {"seat": now.seat, "result": now.result or {}})
        elif (
            now.status == GameStatus.ACTIVE
            and not now.resigned
            and now.deadline is not None
            and now.deadline != was.deadline
        ):
            note(YOUR_TURN, {"seat": now.seat})
    return notes


async def _user_stream_polled(user_id: int) -> AsyncIterator[bytes]:
    """No Redis: the notifications are derived by comparing what the
    database says about the user's games from one poll to the next."""
    from django.utils import timezone

    clock = _Clock()
    since = timezone.now()
    marks = await _read_marks(user_id=user_id, since=since)
    yield retry_line()
    while True:
        await asyncio.sleep(min(settings.FACETS_LIVE_POLL_SECONDS, clock.until_keepalive()))
        if clock.until_keepalive() <= 0:
            yield KEEPALIVE
            clock.wrote()
        fresh = await _read_marks(user_id=user_id, since=since)
        for note in notes_between(marks, fresh, user_id=user_id):
            yield sse_message(note.as_json())
            clock.wrote()
        marks = fresh
