"""Every ruleset's ``decide`` against random and malformed input.

States come from random bot play (every phase a real game passes through);
actions are random JSON (wrong types, missing keys, huge numbers, nested
junk) or legal actions with one value changed, one key dropped or one added.
``decide`` must either return events or raise ``IllegalAction`` with a
reason code, never anything else, and must leave the state it was given
untouched. Accepted events must fold, round-trip through JSON and be
viewable, as the platform will store and replay them.

Each ruleset's own tests fuzz one or two hand-made states; this one runs
the same contract over all four, on states reached by play."""

from __future__ import annotations

import copy
import functools
import json
import random
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import store
from games.rules import registry
from games.rules.base import IllegalAction, Ruleset, fold

SAMPLED_STATES = 24
REASON_CODE = re.compile(r"^[a-z][a-z0-9_]*$")

fuzz_settings = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,  # the same examples on every run, in CI too
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@functools.cache
def states_of(slug: str) -> list[tuple[dict[str, Any], dict[int, list[dict[str, Any]]]]]:
    """States along bot games of each size (every phase of play), each with
    the legal actions of its pending seats."""
    rules = registry.get(slug)
    sampled = []
    for players in sorted({rules.MIN_PLAYERS, min(rules.MAX_PLAYERS, 3)}):
        rng = random.Random(20261130 + players)
        states = [fold(rules, rules.setup(players, rules.normalize_options({}, players), rng))]
        while not rules.is_over(states[-1]):
            state = states[-1]
            new = rules.system_step(state, rng)
            if not new:
                seat = rng.choice(rules.pending(state))
                new = rules.decide(state, seat, rules.auto_action(state, seat, rng), rng)
            states.append(fold(rules, new, state))
        step = max(1, len(states) // (SAMPLED_STATES // 2))
        sampled += states[::step] + [states[-1]]
    return [(s, {seat: rules.legal_actions(s, seat) for seat in rules.pending(s)}) for s in sampled]


@functools.cache
def action_types(slug: str) -> list[str]:
    return sorted(
        {a["type"] for _, legal in states_of(slug) for acts in legal.values() for a in acts}
    )


junk_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([-1, 0, 1, 2**31, 2**63, -(2**63) - 1, 10**30])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.sampled_from(["", "pass", "0", "red", "\u0000", "💎" * 3])
)
junk_json = st.recursive(
    junk_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def fuzzed_input(draw: st.DrawFn, slug: str) -> tuple[dict[str, Any], Any, Any]:
    """A state reached by play, a seat (mostly a pending one) and an action."""
    state, legal = draw(st.sampled_from(states_of(slug)))
    num_players = state_players(registry.get(slug), state)
    # The platform only ever passes a seat index (an int from the database).
    seat = draw(st.sampled_from(sorted(legal) or [0]) | st.integers(-2, num_players + 1))
    offered = legal.get(seat, []) if isinstance(seat, int) else []
    kind = st.sampled_from(action_types(slug) or ["pass"])
    action = draw(
        junk_json
        | st.builds(
            lambda k, extra: {**extra, "type": k},
            kind,
            st.dictionaries(st.text(max_size=8), junk_json, max_size=4),
        )
        | (st.sampled_from(offered).flatmap(mutated) if offered else junk_json)
        | (st.sampled_from(offered) if offered else kind.map(lambda k: {"type": k}))
    )
    return state, seat, action


def mutated(action: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A legal action with one value replaced, one key dropped or one added."""
    keys = sorted(action)
    replace = st.tuples(st.sampled_from(keys), junk_json).map(lambda kv: {**action, kv[0]: kv[1]})
    drop = st.sampled_from(keys).map(lambda k: {x: v for x, v in action.items() if x != k})
    add = st.tuples(st.text(max_size=8), junk_json).map(lambda kv: {kv[0]: kv[1], **action})
    nudge = st.sampled_from(keys).flatmap(
        lambda k: st.integers(-3, 3).map(lambda d: {**action, k: nudged(action[k], d)})
    )
    return replace | drop | add | nudge


def nudged(value: Any, delta: int) -> Any:
    """Move every number in a value by ``delta``: a legal-looking wrong value."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + delta
    if isinstance(value, list):
        return [nudged(v, delta) for v in value]
    if isinstance(value, dict):
        return {k: nudged(v, delta) for k, v in value.items()}
    return value


def state_players(rules: Ruleset, state: dict[str, Any]) -> int:
    for key in ("num_players", "players"):
        value = state.get(key)
        if isinstance(value, int):
            return value
        if isinstance(value, list):
            return len(value)
    return rules.MAX_PLAYERS


def check_decide(slug: str, state: dict[str, Any], seat: Any, action: Any) -> None:
    rules = registry.get(slug)
    before = copy.deepcopy(state)
    action_before = copy.deepcopy(action)
    try:
        events = rules.decide(state, seat, action, random.Random(0))
    except IllegalAction as refused:
        assert REASON_CODE.match(refused.reason), refused.reason
    else:
        assert isinstance(events, list) and events
        for event in events:
            assert isinstance(event["type"], str) and "." not in event["type"]
            assert event["actor"] is None or type(event["actor"]) is int
        # The platform stores events as JSON and replays what it read back.
        stored = [store.normalize(e) for e in events]
        assert json.loads(json.dumps(stored, allow_nan=False)) == stored
        after = fold(rules, stored, state)
        assert store.normalize(after) == after
        for viewer in [None, *range(state_players(rules, state))]:
            json.dumps(rules.view(after, viewer), allow_nan=False)
    assert state == before, "decide changed the state it was given"
    assert action == action_before, "decide changed the action it was given"


@pytest.mark.parametrize("slug", registry.slugs())
def test_decide_answers_any_input_with_events_or_illegal_action(slug: str) -> None:
    @fuzz_settings
    @given(fuzzed_input(slug))
    def run(case: tuple[dict[str, Any], Any, Any]) -> None:
        check_decide(slug, *case)

    run()


@pytest.mark.parametrize("slug", registry.slugs())
def test_every_listed_legal_action_is_accepted_on_states_reached_by_play(slug: str) -> None:
    """The other half of the contract: what legal-actions offers, decide takes."""
    rules = registry.get(slug)
    for state, legal in states_of(slug):
        for seat, actions in legal.items():
            for action in actions[:40]:
                before = copy.deepcopy(state)
                assert rules.decide(state, seat, action, random.Random(0)), (seat, action)
                assert state == before
