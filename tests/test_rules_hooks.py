"""The optional ruleset hooks the platform honours: a timeout move that
differs from the bot's, and a shorter deadline for reaction windows."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest

from games import services
from games.randomness import FairRng
from games.rules import brillance
from games.rules.base import fold


def brillance_state_with_reaction_window() -> dict[str, Any]:
    """Bots play until one of them faces a Lucky Break reaction window."""
    for seed in range(50):
        rng = random.Random(seed)
        options = brillance.normalize_options({}, 3)
        state = fold(brillance, brillance.setup(3, options, rng))
        for _ in range(3000):
            if brillance.is_over(state):
                break
            if state["reaction"] is not None:
                return state
            seat = brillance.pending(state)[0]
            state = fold(
                brillance,
                brillance.decide(state, seat, brillance.auto_action(state, seat, rng), rng),
                state,
            )
    pytest.skip("no reaction window in 50 seeded games")


def test_brillance_reaction_window_times_out_as_no_but_the_bot_cancels() -> None:
    state = brillance_state_with_reaction_window()
    reactor = brillance.pending(state)[0]
    rng = random.Random(1)
    assert brillance.timeout_action(state, reactor, rng) == {"type": "react", "cancel": False}
    assert brillance.auto_action(state, reactor, rng) == {"type": "react", "cancel": True}
    assert brillance.deadline_seconds(state, reactor, 3600) == 900
    current = state["current"]
    assert current != reactor


def test_platform_plays_the_timeout_move_first_then_the_bot() -> None:
    calls: list[str] = []
    rules = SimpleNamespace(
        is_over=lambda state: False,
        pending=lambda state: [0] if state["left"] else [],
        timeout_action=lambda state, seat, rng: calls.append("timeout") or {"type": "timeout"},
        auto_action=lambda state, seat, rng: calls.append("bot") or {"type": "bot"},
        decide=lambda state, seat, action, rng: [{"type": action["type"], "actor": seat}],
        evolve=lambda state, event: {"left": state["left"] - 1},
    )
    game_rng = FairRng("00" * 32)
    events = services._automatic_turn(rules, {"left": 3}, 0, game_rng, timed_out=True)
    assert [e.type for e in events] == ["timeout", "bot", "bot"]
    assert [e.cause["action"]["type"] for e in events if e.cause] == ["timeout", "bot", "bot"]
    calls.clear()
    services._automatic_turn(rules, {"left": 2}, 0, game_rng, timed_out=False)
    assert calls == ["bot", "bot"]


@pytest.mark.parametrize(("hook_says", "expected"), [(900, 900), (1, 10), (10**9, 3600)])
def test_deadline_hook_is_clamped_between_the_minimum_and_the_turn_timeout(
    hook_says, expected
) -> None:
    rules = SimpleNamespace(deadline_seconds=lambda state, seat, timeout: hook_says)
    table = SimpleNamespace(turn_timeout=3600, state={})
    assert services._deadline_seconds(rules, table, 0) == expected
    assert services._deadline_seconds(SimpleNamespace(), table, 0) == 3600
