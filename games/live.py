"""Live updates: telling open streams and long-polls that something changed.

Writers (web processes and Celery workers) hear ``events_committed`` and
``users_notified`` after commit; :func:`publish_game` / :func:`publish_user`
forward them to Redis channels ``<prefix>:game:<id>`` and
``<prefix>:user:<id>`` when ``REDIS_URL`` is set.

Readers (streams, long-polls) run in the web process's event loop. Each
process holds ONE Redis pub/sub connection (:class:`RedisHub`) and fans its
messages out to one ``asyncio.Queue`` per waiting reader; subscribing a
channel is reference-counted, so a thousand streams on one game cost one
``SUBSCRIBE``. A game message is only a wake-up call: the reader then reads
the events after its own cursor from the database, through the same
presenter as the events endpoint, so order, redaction and "each seq once"
never depend on the message itself.

Without Redis (the embedded default) :class:`PollingHub` wakes every reader
every ``FACETS_LIVE_POLL_SECONDS``; the reader's database check is one
primary-key read of the game's seq, so idle streams cost little.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import weakref
from collections.abc import AsyncIterator
from typing import Any

from django.conf import settings

from .notifications import Notification

logger = logging.getLogger(__name__)


def game_channel(game_id: int) -> str:
    return f"{settings.FACETS_PUBSUB_PREFIX}:game:{game_id}"


def user_channel(user_id: int) -> str:
    return f"{settings.FACETS_PUBSUB_PREFIX}:user:{user_id}"


# --- Publishing (sync: runs in the writer's thread after commit) -------------

_publishers: dict[str, Any] = {}


def _redis() -> Any:
    client = _publishers.get(settings.REDIS_URL)
    if client is None:
        import redis

        # Short timeouts: a publish runs after commit, in the writer's
        # request or task, which must not hang on an unwell Redis.
        client = redis.Redis.from_url(
            settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2
        )
        _publishers[settings.REDIS_URL] = client
    return client


def publish_game(
    sender: Any, *, game_id: int, first_seq: int, last_seq: int, status: str, **kwargs: Any
) -> None:
    """Receiver of ``events_committed``."""
    if not settings.REDIS_URL:
        return
    body = {"game_id": game_id, "first_seq": first_seq, "last_seq": last_seq, "status": status}
    _redis().publish(game_channel(game_id), json.dumps(body))


def publish_user(sender: Any, *, notifications: list[Notification], **kwargs: Any) -> None:
    """Receiver of ``users_notified``: one message per notification, on the
    user's own channel (a message carries no other user's data)."""
    if not settings.REDIS_URL:
        return
    with _redis().pipeline(transaction=False) as pipe:
        for note in notifications:
            pipe.publish(user_channel(note.user_id), json.dumps(note.as_json()))
        pipe.execute()


# --- Subscribing (async: runs in the web process's event loop) --------------


class Subscription:
    """What one reader waits on. ``get`` returns the next message (a dict),
    or None after ``timeout`` seconds without one."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=1000)

    def put(self, message: dict[str, Any]) -> None:
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            # A reader this far behind re-reads the database anyway; for a
            # user stream, dropping the oldest is better than growing forever.
            self.queue.get_nowait()
            self.queue.put_nowait(message)

    async def get(self, timeout: float) -> dict[str, Any] | None:
        try:
            return await asyncio.wait_for(self.queue.get(), timeout)
        except TimeoutError:
            return None


class PollingHub:
    """No Redis: wake every reader every ``FACETS_LIVE_POLL_SECONDS`` with an
    empty message; readers check the database themselves."""

    polling = True

    @contextlib.asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[Subscription]:
        yield _PolledSubscription()


class _PolledSubscription(Subscription):
    async def get(self, timeout: float) -> dict[str, Any] | None:
        interval = settings.FACETS_LIVE_POLL_SECONDS
        await asyncio.sleep(min(timeout, interval))
        return {} if timeout >= interval else None


class RedisHub:
    """One pub/sub connection per process (per event loop), shared by every
    reader: messages are fanned out to the readers' queues. If Redis cannot
    be reached, readers fall back to polling the database until it can."""

    polling = False
    RECONNECT_SECONDS = 1.0

    def __init__(self, url: str) -> None:
        self.url = url
        self.readers: dict[str, set[Subscription]] = {}
        self.pubsub: Any = None
        self.listener: asyncio.Task[None] | None = None
        self.lock = asyncio.Lock()

    @contextlib.asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[Subscription]:
        subscription = Subscription()
        try:
            async with self.lock:
                await self._start()
                if not self.readers.get(channel):
                    await self.pubsub.subscribe(channel)
                self.readers.setdefault(channel, set()).add(subscription)
        except Exception:
            logger.warning("live updates: Redis unreachable, polling instead", exc_info=True)
            yield _PolledSubscription()
            return
        try:
            yield subscription
        finally:
            async with self.lock:
                readers = self.readers.get(channel, set())
                readers.discard(subscription)
                if not readers:
                    self.readers.pop(channel, None)
                    with contextlib.suppress(Exception):
                        await self.pubsub.unsubscribe(channel)

    async def _start(self) -> None:
        if self.listener is None or self.listener.done():
            await self._open()
            self.listener = asyncio.create_task(self._listen())

    async def _open(self) -> None:
        import redis.asyncio as aioredis

        if self.pubsub is not None:
            with contextlib.suppress(Exception):
                await self.pubsub.aclose()
        pubsub = aioredis.Redis.from_url(self.url).pubsub(ignore_subscribe_messages=True)
        # A pub/sub connection is read only once it has a subscription; after
        # a reconnect, the channels of the readers still waiting come back.
        await pubsub.subscribe(f"{settings.FACETS_PUBSUB_PREFIX}:hello", *self.readers)
        self.pubsub = pubsub

    async def _listen(self) -> None:
        while True:
            try:
                async for message in self.pubsub.listen():
                    self._fan_out(message)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("live updates: lost the Redis pub/sub connection", exc_info=True)
            # Whatever was published meanwhile is lost: every reader re-reads
            # the database now, then waits for the reconnected channel.
            for readers in self.readers.values():
                for reader in readers:
                    reader.put({})
            await asyncio.sleep(self.RECONNECT_SECONDS)
            with contextlib.suppress(Exception):
                async with self.lock:
                    await self._open()

    def _fan_out(self, message: dict[str, Any]) -> None:
        if message.get("type") != "message":
            return
        try:
            body = json.loads(message["data"])
        except ValueError:
            return
        for reader in list(self.readers.get(message["channel"].decode(), ())):
            reader.put(body)


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, PollingHub | RedisHub] = (
    weakref.WeakKeyDictionary()
)


def hub() -> PollingHub | RedisHub:
    """The hub of the running event loop (a server process has one loop;
    asyncio objects cannot be shared across loops)."""
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None:
        found = RedisHub(settings.REDIS_URL) if settings.REDIS_URL else PollingHub()
        _hubs[loop] = found
    return found
