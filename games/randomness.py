"""The platform's random generators, handed to rulesets.

A game's randomness (``setup``, ``decide``, ``system_step``: dice, shuffles)
is *provably fair*: at creation the game draws a secret 32-byte seed and
publishes ``sha256(seed)`` (the commitment). Every draw is
``HMAC-SHA256(key=seed, msg=counter)`` with the counter as ASCII decimal
(``b"0"``, ``b"1"``, ...), one counter per HMAC; ``randbelow(n)`` keeps the
top ``k`` bits of the digest (``k`` = bit length of ``n - 1``) and accepts
them if below ``n``, else tries the next counter (rejection sampling: no
modulo bias). ``randint``, ``choice``, ``shuffle`` and ``random`` are built on
``randbelow`` exactly as documented in docs/api.md, so anyone holding the
revealed seed recomputes every roll (``games/verify_record.py``).

Bots' own choices are not the game's randomness: they get ``bot_rng()`` (the
operating system's generator), which is neither committed nor recorded.

Tests replace ``platform_rng`` (bots) and ``new_game_seed`` (games) in
``games.services`` to get reproducible games.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import MutableSequence, Sequence
from typing import Any, TypeVar

from games.rules.base import Rng

T = TypeVar("T")

SEED_BYTES = 32
FLOAT_BITS = 53

Draw = list[int]  # [n, value]: one accepted randbelow(n)


def platform_rng() -> Rng:
    """The bots' generator (their strategy, not the game's dice)."""
    return random.SystemRandom()


def new_game_seed() -> str:
    """A fresh secret seed, as 64 hex digits."""
    return secrets.token_hex(SEED_BYTES)


def seed_commitment(seed_hex: str) -> str:
    """What a game publishes at creation: SHA-256 of the seed's bytes, in hex."""
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


def hmac_bits(seed: bytes, counter: int, bits: int) -> int:
    """The top ``bits`` bits of HMAC-SHA256(seed, ASCII decimal counter)."""
    digest = hmac.new(seed, str(counter).encode("ascii"), hashlib.sha256).digest()
    return int.from_bytes(digest, "big") >> (256 - bits)


class DrawRng:
    """``random``-compatible methods built on ``randbelow`` alone, so every
    result is a sequence of recorded ``[n, value]`` draws."""

    def randbelow(self, n: int) -> int:
        raise NotImplementedError

    def randint(self, a: int, b: int) -> int:
        if b < a:
            raise ValueError(f"empty range for randint({a}, {b})")
        return a + self.randbelow(b - a + 1)

    def choice(self, seq: Sequence[T]) -> T:
        if not seq:
            raise IndexError("cannot choose from an empty sequence")
        return seq[self.randbelow(len(seq))]

    def shuffle(self, x: MutableSequence[Any]) -> None:
        # Fisher-Yates from the end, as Python's random.shuffle does.
        for i in reversed(range(1, len(x))):
            j = self.randbelow(i + 1)
            x[i], x[j] = x[j], x[i]

    def random(self) -> float:
        return self.randbelow(1 << FLOAT_BITS) / (1 << FLOAT_BITS)


class FairRng(DrawRng):
    """The committed generator of one game, from its seed and counter.

    ``draws`` collects every accepted ``[n, value]`` since the last
    ``take_draws``; ``counter`` is the next unused HMAC counter (the game
    stores it between commands)."""

    def __init__(self, seed_hex: str, counter: int = 0) -> None:
        self._seed = bytes.fromhex(seed_hex)
        self.counter = counter
        self.draws: list[Draw] = []

    def __repr__(self) -> str:  # never show the seed, even in a traceback
        return f"FairRng(counter={self.counter})"

    def randbelow(self, n: int) -> int:
        if n < 1:
            raise ValueError("randbelow needs n >= 1")
        bits = (n - 1).bit_length()
        while True:
            value = hmac_bits(self._seed, self.counter, bits)
            self.counter += 1
            if value < n:
                self.draws.append([n, value])
                return value

    def take_draws(self) -> list[Draw]:
        draws, self.draws = self.draws, []
        return draws

    def rewind(self, counter: int) -> None:
        """Forget draws nobody saw (a ruleset call that produced no event)."""
        self.counter = counter
        self.draws = []


class ReplayMismatch(Exception):
    """Re-execution asked for a draw the record does not hold."""


class ReplayRng(DrawRng):
    """Serves a record's draws back to a ruleset, in order, so re-running a
    call reproduces it; any disagreement raises ReplayMismatch."""

    def __init__(self, draws: Sequence[Sequence[int]]) -> None:
        self._draws = list(draws)
        self._next = 0

    def randbelow(self, n: int) -> int:
        if self._next >= len(self._draws):
            raise ReplayMismatch(f"the call drew more than the {len(self._draws)} recorded draws")
        recorded_n, value = self._draws[self._next]
        if recorded_n != n:
            raise ReplayMismatch(
                f"draw {self._next}: the rules asked for randbelow({n}), "
                f"the record holds randbelow({recorded_n})"
            )
        if not 0 <= value < n:
            raise ReplayMismatch(f"draw {self._next}: {value} is not below {n}")
        self._next += 1
        return value

    @property
    def exhausted(self) -> bool:
        return self._next == len(self._draws)
