"""The platform's random generator, handed to rulesets.

The operating system's generator: unpredictable to players, and nothing to
seed or leak. Results always end up in events, so replay never needs it.
Tests replace ``platform_rng`` to get reproducible games."""

from __future__ import annotations

import random

from games.rules.base import Rng


def platform_rng() -> Rng:
    return random.SystemRandom()
