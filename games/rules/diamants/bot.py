"""A greedy but sensible Diamants bot, used for bot seats and timeouts.

It scores every way to end the turn with a cheap formula (diamonds won, plus
what the special card gained is worth, plus half the diamonds an opponent
loses), compares the best of them with the exact expected value of a second
roll over the 216 outcomes, and uses special cards whose effect beats keeping
them. No search through ``decide``: bench games must stay fast.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from ..base import Action, Rng, Seat, State
from . import cards
from .engine import current_sum, is_valid_roll, legal_actions, scores

# What holding each special card is worth to the bot (its end value for the
# cards it keeps, the expected profit of using it for the ones it spends).
SPECIAL_WORTH = {
    "thief": 2.0,
    "treasure": 4.0,
    "white_die": 1.0,
    "reroll": 1.5,
    "flip": 1.5,
    "safe": 2.0,
    "bomb": 1.5,
    "swap": 0.5,
    "magnet": 0.5,
}

ROLL_OUTCOMES = [list(dice) for dice in itertools.product(range(1, 7), repeat=3)]
REROLL_MARGIN = 0.25


class _Eval:
    """Cached gains for one decision of one seat."""

    def __init__(self, state: State, seat: Seat) -> None:
        self.state = state
        self.seat = seat
        self.n = state["num_players"]
        self.stacks = state["stacks"]
        self.my_top = self.stacks[seat][-1] if self.stacks[seat] else None
        self._best: dict[int, float | None] = {}

    def special_gain(self, value: int) -> float:
        """What the special named on table card ``value`` brings me."""
        kind = cards.named_special(value)
        if kind is None:
            return 0.0
        holders = [self.state["specials"][c] for c in cards.SPECIALS_BY_KIND[kind]]
        if all(holder == self.seat for holder in holders):
            return 0.0
        gain = SPECIAL_WORTH[kind]
        if None not in holders:  # taken from an opponent: they lose it too
            gain += 0.5 * SPECIAL_WORTH[kind]
        return gain

    def take_gain(self, value: int) -> float:
        return cards.diamonds(value) + self.special_gain(value) + 0.1 * value / 18

    def steal_gain(self, value: int) -> float:
        return cards.diamonds(value) * (1 + 1 / (self.n - 1))

    def best_gain(self, total: int) -> float | None:
        """Best take or exact steal at ``total``; None when nothing fits."""
        if total not in self._best:
            gains = [self.take_gain(v) for v in self.state["table"] if v <= total]
            gains += [
                self.steal_gain(stack[-1])
                for o, stack in enumerate(self.stacks)
                if o != self.seat and stack and stack[-1] == total
            ]
            self._best[total] = max(gains) if gains else None
        return self._best[total]

    def failure_loss(self) -> float:
        return float(cards.diamonds(self.my_top)) if self.my_top is not None else 0.0

    def turn_value(self) -> float:
        """Expected gain of a whole turn played greedily (reroll when the
        first roll fails), compared with passing (0) in the final round."""
        second = self.second_roll_value()
        total_value = 0.0
        for dice in ROLL_OUTCOMES:
            gain = self.best_gain(sum(dice)) if is_valid_roll(dice) else None
            total_value += second if gain is None else max(gain, second)
        return total_value / len(ROLL_OUTCOMES)

    def second_roll_value(self) -> float:
        """Exact expectation of rolling again (a failed second roll fails the turn)."""
        total_value = 0.0
        for dice in ROLL_OUTCOMES:
            gain = self.best_gain(sum(dice)) if is_valid_roll(dice) else None
            total_value += -self.failure_loss() if gain is None else gain
        return total_value / len(ROLL_OUTCOMES)


def auto_action(state: State, seat: Seat, rng: Rng) -> Action:
    legal = legal_actions(state, seat)
    if not legal:
        raise ValueError("auto_action called for a seat that cannot act")
    if legal == [{"type": "roll"}]:
        return legal[0]
    if {"type": "pass"} in legal:
        return {"type": "roll"} if _Eval(state, seat).turn_value() > 0 else {"type": "pass"}
    ev = _Eval(state, seat)
    total = current_sum(state)
    special = _special_to_use(state, ev, total, legal)
    if special is not None:
        return special
    finish = _best_finish(ev, total, legal)
    roll = {"type": "roll"}
    if roll in legal:
        now = finish[0] if finish else -ev.failure_loss()
        if finish is None or ev.second_roll_value() > now + REROLL_MARGIN:
            return roll
    if finish is not None:
        return finish[1]
    return {"type": "stop"}


def _best_finish(ev: _Eval, total: int, legal: list[Action]) -> tuple[float, Action] | None:
    """The best action that ends the turn with a card."""
    best: tuple[float, Action] | None = None
    for action in legal:
        gain = _finish_gain(ev, action)
        if gain is not None and (best is None or gain > best[0]):
            best = (gain, action)
    return best


def _finish_gain(ev: _Eval, action: Action) -> float | None:
    stacks = ev.stacks
    if action["type"] == "take":
        return ev.take_gain(action["card"])
    if action["type"] == "steal":
        return ev.steal_gain(stacks[action["seat"]][-1])
    if action["type"] != "use_special":
        return None
    kind = cards.SPECIAL_CARDS[action["card"]]["kind"]
    if kind == "thief":
        return ev.steal_gain(stacks[action["seat"]][-1]) - SPECIAL_WORTH["thief"]
    if kind == "treasure":
        top = max(ev.state["table"])
        return ev.take_gain(top) - cards.end_value("treasure") - 0.5
    return None


def _special_to_use(state: State, ev: _Eval, total: int, legal: list[Action]) -> Action | None:
    """A special card whose effect is worth more than keeping it, used before
    the turn ends (they modify the dice or hurt an opponent)."""
    uses = [a for a in legal if a["type"] == "use_special"]
    if not uses:
        return None
    now = ev.best_gain(total)
    now_value = now if now is not None else -ev.failure_loss()
    by_kind: dict[str, list[Action]] = {}
    for action in uses:
        by_kind.setdefault(cards.SPECIAL_CARDS[action["card"]]["kind"], []).append(action)
    totals = scores(state)
    for kind, choose in _PRE_TURN_CHOICES:
        if kind in by_kind:
            chosen = choose(ev, total, now_value, by_kind[kind], totals)
            if chosen is not None:
                return chosen
    return None


def _choose_bomb(
    ev: _Eval, total: int, now: float, uses: list[Action], totals: list[int]
) -> Action | None:
    # Always worth it (the card itself costs 2 at the end): hit the leader's top.
    return max(uses, key=lambda a: (totals[a["seat"]], ev.stacks[a["seat"]][-1]))


def _choose_swap(
    ev: _Eval, total: int, now: float, uses: list[Action], totals: list[int]
) -> Action | None:
    mine = cards.diamonds(ev.my_top) if ev.my_top is not None else 0
    best = max(uses, key=lambda a: cards.diamonds(ev.stacks[a["seat"]][-1]))
    if cards.diamonds(ev.stacks[best["seat"]][-1]) >= mine + 2:
        return best
    return None


def _choose_magnet(
    ev: _Eval, total: int, now: float, uses: list[Action], totals: list[int]
) -> Action | None:
    fits = [a for a in uses if a["value"] <= total and ev.take_gain(a["value"]) > now]
    return max(fits, key=lambda a: a["value"]) if fits else None


def _choose_white_die(
    ev: _Eval, total: int, now: float, uses: list[Action], totals: list[int]
) -> Action | None:
    expected = sum(ev.best_gain(total + w) or -ev.failure_loss() for w in range(1, 7)) / 6
    return uses[0] if expected >= now else None


def _choose_flip(
    ev: _Eval, total: int, now: float, uses: list[Action], totals: list[int]
) -> Action | None:
    dice = ev.state["dice"]
    best, best_value = None, now + SPECIAL_WORTH["flip"]
    for action in uses:
        gain = ev.best_gain(total - dice[action["die"]] + 7 - dice[action["die"]])
        if gain is not None and gain > best_value:
            best, best_value = action, gain
    return best


def _choose_reroll(
    ev: _Eval, total: int, now: float, uses: list[Action], totals: list[int]
) -> Action | None:
    dice = ev.state["dice"]
    best, best_value = None, now + SPECIAL_WORTH["reroll"]
    for action in uses:
        rest = total - dice[action["die"]]
        gains = [ev.best_gain(rest + face) for face in range(1, 7)]
        expected = sum(g if g is not None else -ev.failure_loss() for g in gains) / 6
        if expected > best_value:
            best, best_value = action, expected
    return best


def _choose_safe(
    ev: _Eval, total: int, now: float, uses: list[Action], totals: list[int]
) -> Action | None:
    if ev.my_top is not None and cards.diamonds(ev.my_top) >= 5:
        return uses[0]
    return None


_Chooser = Callable[[_Eval, int, float, list[Action], list[int]], Action | None]

_PRE_TURN_CHOICES: list[tuple[str, _Chooser]] = [
    ("bomb", _choose_bomb),
    ("magnet", _choose_magnet),
    ("swap", _choose_swap),
    ("flip", _choose_flip),
    ("white_die", _choose_white_die),
    ("reroll", _choose_reroll),
    ("safe", _choose_safe),
]
