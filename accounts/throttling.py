"""Rate limits: fixed-window counters in the shared cache.

DRF's own ``SimpleRateThrottle`` keeps a list of timestamps per client and
writes it back with get-then-set: under several web workers concurrent
requests overwrite each other's timestamps, and a high rate means a long list
pickled on every request. Here each client has one integer per window,
incremented atomically (Redis ``INCR`` when ``REDIS_URL`` is set), so the
count is right across processes and costs the same at any rate.

Rates come from ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (settings read
them from ``FACETS_RATE_*``), looked up on every request so tests may
override them; a rate of ``None`` lifts that limit.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import time
from typing import Any

from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from .models import ApiToken

logger = logging.getLogger(__name__)


class FixedWindowThrottle(BaseThrottle):
    """At most N requests per client per window (``"N/second|minute|hour|day"``).

    A window starts on a multiple of its length, so a client may send up to
    2N requests across a boundary; in exchange the count is one integer.
    """

    scope: str = ""

    def __init__(self) -> None:
        self._retry_after: int | None = None

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        """Who is counted, or None when this throttle does not apply."""
        raise NotImplementedError

    def allow_request(self, request: Any, view: Any) -> bool:
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        if not isinstance(rate, str) or not rate:
            return True
        ident = self.get_cache_key(request, view)
        if ident is None:
            return True
        limit, period = parse_rate(rate)
        now = time.time()
        window = int(now // period)
        key = f"throttle:{self.scope}:{ident}:{period}:{window}"
        try:
            count = _count(key, timeout=period + 1)
        except Exception:
            # A cache outage must not take the whole API down with it.
            logger.warning("rate limit cache unavailable; not limiting", exc_info=True)
            return True
        if count <= limit:
            return True
        self._retry_after = max(1, int((window + 1) * period - now + 0.999))
        return False

    def wait(self) -> float | None:
        return self._retry_after


def _count(key: str, *, timeout: int) -> int:
    """Add one to ``key`` (created with ``timeout``) and return its value."""
    cache = caches["default"]
    if isinstance(cache, RedisCache):
        # One round trip instead of the three of add() + incr() (EXISTS, INCR).
        # Re-setting the expiry each time is harmless: the key names its window.
        full_key = cache.make_and_validate_key(key)
        client = cache._cache.get_client(full_key, write=True)
        pipeline = client.pipeline(transaction=False)
        pipeline.incr(full_key)
        pipeline.expire(full_key, timeout)
        count, _ = pipeline.execute()
        return int(count)
    if cache.add(key, 1, timeout=timeout):
        return 1
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr: a new window began
        cache.add(key, 1, timeout=timeout)
        return 1


def parse_rate(rate: str) -> tuple[int, int]:
    """``"30/minute"`` → (30, 60). Only the period's first letter counts, as in DRF."""
    number, period = rate.split("/")
    return int(number), {"s": 1, "m": 60, "h": 3600, "d": 86400}[period.strip()[0]]


def client_address(request: Any) -> str:
    """The caller's address, as DRF finds it (``NUM_PROXIES`` says how many
    ``X-Forwarded-For`` hops to trust; by default none, so the header cannot
    be forged to dodge a limit). An IPv6 caller is counted by its /64, which
    one subscriber usually holds whole."""
    address = BaseThrottle().get_ident(request) or "unknown"
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


class AnonymousAddressThrottle(FixedWindowThrottle):
    """Anonymous callers, per address (authenticated ones are counted per
    token instead, so many players behind one address do not share a limit)."""

    scope = "anon"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return client_address(request)


class TokenThrottle(FixedWindowThrottle):
    """Authenticated callers, per token."""

    scope = "token"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if isinstance(request.auth, ApiToken):
            return f"t{request.auth.pk}"
        if request.user and request.user.is_authenticated:
            return f"u{request.user.pk}"
        return None


class LoginAddressThrottle(FixedWindowThrottle):
    """Log-in attempts per address: one machine guessing many accounts."""

    scope = "login"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return client_address(request)


class LoginUsernameThrottle(FixedWindowThrottle):
    """Log-in attempts per username, from any address: many machines
    guessing one account. (Someone may thereby lock an account out of
    logging in for the rest of the window; its existing tokens keep working.)"""

    scope = "login_username"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        data = request.data
        username = data.get("username") if isinstance(data, dict) else None
        if not isinstance(username, str) or not username:
            return None
        # Hashed: a cache key must not carry whatever bytes a caller sent.
        return hashlib.sha256(username.strip().lower().encode()).hexdigest()[:32]


class RegisterAddressThrottle(FixedWindowThrottle):
    """Registrations per address."""

    scope = "register"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return client_address(request)
