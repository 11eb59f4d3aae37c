"""A reasonable player for bot seats and timeouts.

It scores each legal placement by the field it leaves behind (Tetris-style
features: covered holes, height, bumpiness, how full the lines are), plus the
energy it gains or spends and the bonus crosses it earns. Blocks never
vanish in Brikks, so holes are permanent unless something can slide under an
overhang later: the bot avoids them and keeps the field smooth. The few
placements that look best on their own are compared by the expected value
of the next round over the 24 rolls (``lookahead.py``), which also decides
when a bomb is better than a bad block.
"""

from __future__ import annotations

from typing import Any

from ..base import Action, Rng, Seat, State
from . import scoring
from .field import (
    FULL_LINE,
    MINI_SHAPE,
    Rows,
    add_squares,
    field_rows,
    resting_positions,
    shape_squares,
)
from .lookahead import SHAPE_BY_KEY, drop_summary, expected_next_value
from .rules import (
    apply_block,
    block_summary,
    legal_actions,
    mini_block_positions,
    placement_cost,
    start_block_actions,
)
from .sheet import (
    BOMB_VALUES,
    BONUS_TRACK,
    COLORS,
    FIELD_HEIGHT,
    FIELD_WIDTH,
    LINE_MULTIPLIERS,
    LINE_POINTS,
    MAX_BONUS_CROSSES,
    NUM_COLUMNS,
)

HOLE_PENALTY = 3.5
# A covered hole in a line also costs part of what the line could still
# score (a line with a hole can reach 9 crosses at best), more in the
# doubled and quadrupled lines.
HOLE_LINE_PENALTY = 0.0
LINE_POTENTIAL = 0.05
HEIGHT_PENALTY = 0.6
ROW_TRANSITION_PENALTY = 0.25
COLUMN_TRANSITION_PENALTY = 0.25
WELL_PENALTY = 0.5
WALLED_MASK = (1 << (FIELD_WIDTH + 1)) - 1
RIGHT_WALL_BIT = 1 << (FIELD_WIDTH - 1)
# Activating energy moves along the bar towards the next pink X (one in
# three circles) and is worth half a point if never spent; spending it only
# loses that half point. So activation is worth much more than it costs to
# spend, and the bot rotates or swaps blocks freely.
ACTIVATION_VALUE = 3.0
SPENDING_COST = 3.0
# A bonus cross earned now raises the value of every later one (the track
# grows faster and faster): value it at least this much while the track
# has room.
CROSS_VALUE = 6.0
# In a duel a cross is a mini-block dropped on the opponent.
DUEL_CROSS_VALUE = 4.0
# A placement this bad is worse than spending a bomb (if more than the last
# bomb is left).
BOMB_THRESHOLD = -40.0
# Look-ahead: how many placements (the best on their own) get the expected
# value of the next round; 0 turns the look-ahead off.
LOOKAHEAD_CANDIDATES = 5
# A roll for which nothing fits costs a bomb or ends the game.
NO_FIT_PENALTY = 10.0
# Bomb a fitting block only when skipping it looks this much better.
BOMB_MARGIN = 2.0
# Roughly what one more placed block adds to the final score late in a game.
EXPECTED_GAIN_OF_A_ROUND = 4.0


def field_value(rows: Rows) -> float:
    """How good a field is to keep playing on (higher is better).

    The line points as they stand, a bonus for fuller lines, and penalties
    in the spirit of Dellacherie's Tetris player: covered holes (permanent:
    lines never vanish in Brikks), row and column transitions (a ragged
    field leaves gaps no block fits), open wells (cumulative depth: only the
    standing I fills a deep one) and the height of the stack."""
    covered = 0
    holes = 0.0
    row_transitions = 0
    column_transitions = 0
    wells = 0
    well_run = [0] * FIELD_WIDTH
    running = 0  # columns with a well run going on
    height_sum = 0
    above = 0  # the line above, for column transitions
    for y in range(FIELD_HEIGHT - 1, -1, -1):
        row = rows[y]
        hole_bits = covered & ~row
        if hole_bits:
            count = hole_bits.bit_count()
            holes += count * (HOLE_PENALTY + HOLE_LINE_PENALTY * LINE_MULTIPLIERS[y])
        column_transitions += ((row ^ above) & covered).bit_count()
        above = row
        newly_topped = row & ~covered
        covered |= row
        if newly_topped:
            height_sum += newly_topped.bit_count() * (y + 1)
        if covered:
            walled = (row << 1) | 1 | (1 << (FIELD_WIDTH + 1))
            row_transitions += ((walled ^ (walled >> 1)) & WALLED_MASK).bit_count()
        well_bits = ~covered & FULL_LINE & ((row << 1) | 1) & ((row >> 1) | RIGHT_WALL_BIT)
        if well_bits or running:
            for x in range(FIELD_WIDTH):
                if well_bits >> x & 1:
                    well_run[x] += 1
                    wells += well_run[x]
                else:
                    well_run[x] = 0
            running = well_bits
    column_transitions += (~rows[0] & covered).bit_count()
    value = -holes
    for y, row in enumerate(rows):
        crosses = row.bit_count()
        value += LINE_POINTS.get(crosses, 0) * LINE_MULTIPLIERS[y]
        value += LINE_POTENTIAL * crosses * crosses * LINE_MULTIPLIERS[y]
    value -= HEIGHT_PENALTY * height_sum / FIELD_WIDTH * 3
    value -= ROW_TRANSITION_PENALTY * row_transitions
    value -= COLUMN_TRANSITION_PENALTY * column_transitions
    value -= WELL_PENALTY * wells
    return value


def _placement_value(
    player: dict[str, Any],
    rows: Rows,
    color: str,
    column: int,
    x: int,
    y: int,
    cost: int,
    duel: bool,
) -> float:
    summary = block_summary(player, rows, color, column, x, y, cost)
    value = field_value(add_squares(rows, shape_squares((color, column), x, y)))
    return value + _energy_and_crosses_value(player, summary, cost, duel)


def _energy_and_crosses_value(
    player: dict[str, Any], summary: dict[str, int], cost: int, duel: bool
) -> float:
    return _reward(
        player,
        summary["energy_activated"],
        summary["energy_lost"],
        summary["crosses"],
        cost,
        duel,
    )


def _reward(
    player: dict[str, Any], activated: int, lost: int, crosses: int, cost: int, duel: bool
) -> float:
    """What a block earns besides the field: energy and bonus crosses."""
    value = ACTIVATION_VALUE * activated - SPENDING_COST * (lost + cost)
    if duel:
        return value + DUEL_CROSS_VALUE * crosses
    before = player["bonus_crosses"]
    gained = min(MAX_BONUS_CROSSES, before + crosses)
    track = BONUS_TRACK[gained] - BONUS_TRACK[before]
    return value + max(track, CROSS_VALUE * (gained - before))


def _expected_next(rows: Rows, player: dict[str, Any], energy: int, duel: bool) -> float:
    def reward(p: dict[str, Any], activated: int, lost: int, crosses: int, cost: int) -> float:
        return _reward(p, activated, lost, crosses, cost, duel)

    return expected_next_value(
        rows, player, energy, field_value, reward, NO_FIT_PENALTY, SPENDING_COST
    )


def best_placement(state: State, seat: Seat, actions: list[Action]) -> tuple[Action | None, float]:
    """The best placement and its value: what it earns now plus the expected
    value of the next round (the best affordable block of each of the 24
    rolls) for the few placements that look best on their own."""
    player = state["players"][seat]
    rows = field_rows(player["field"])
    duel = state["duel"]
    energy = scoring.energy_available(player)
    level = player["level"]
    position = player["energy_position"]
    scored = []
    for action in actions:
        if action["type"] != "place":
            continue
        color, column = action["color"], action["column"]
        cost = placement_cost(state["dice"], color, column)
        after, activated, losses, crosses = drop_summary(
            rows, SHAPE_BY_KEY[(color, column)], action["x"], action["y"], level, position
        )
        lost = min(losses, max(0, energy - cost))
        reward = _reward(player, activated, lost, crosses, cost, duel)
        scored.append(
            (field_value(after) + reward, reward, after, activated, lost, crosses, cost, action)
        )
    if not scored:
        return None, float("-inf")
    scored.sort(key=lambda item: -item[0])
    if LOOKAHEAD_CANDIDATES <= 0:
        return scored[0][-1], scored[0][0]
    best: Action | None = None
    best_value = float("-inf")
    for _, reward, after, activated, lost, crosses, cost, action in scored[:LOOKAHEAD_CANDIDATES]:
        future = {
            "level": level,
            "energy_position": position + activated,
            "bonus_crosses": min(MAX_BONUS_CROSSES, player["bonus_crosses"] + crosses),
        }
        left = energy - cost - lost + activated
        value = reward + _expected_next(after, future, left, duel)
        if value > best_value:
            best, best_value = action, value
    return best, best_value


def auto_action(state: State, seat: Seat, rng: Rng) -> Action:
    phase = state["phase"]
    if phase == "start":
        return _choose_start_block(state, seat)
    if phase == "choose_dice":
        return {"type": "reroll"} if _wants_reroll(state, seat) else {"type": "keep"}
    if phase == "mini_blocks":
        return _choose_mini_block(state, seat)
    actions = legal_actions(state, seat)
    best, value = best_placement(state, seat, actions)
    player = state["players"][seat]
    bombs_left = len(BOMB_VALUES) - player["bombs_used"]
    if best is not None:
        if bombs_left and LOOKAHEAD_CANDIDATES > 0:
            # A bomb skips this block: worth the next round on the field as
            # it is, minus the bomb's points (and keep a margin: the
            # look-ahead is only an estimate).
            rows = field_rows(player["field"])
            skip = _expected_next(rows, player, scoring.energy_available(player), state["duel"])
            if skip - BOMB_VALUES[player["bombs_used"]] - BOMB_MARGIN > value:
                return {"type": "bomb"}
        elif value <= BOMB_THRESHOLD and bombs_left >= 2:
            return {"type": "bomb"}
        return best
    if bombs_left and _worth_a_bomb(state, seat):
        return {"type": "bomb"}
    return {"type": "give_up"}


def _worth_a_bomb(state: State, seat: Seat) -> bool:
    """Nothing fits: a bomb costs its points on the sheet and only buys the
    next roll. Spend it when the next roll is likely enough to fit (share of
    the 24 dice results for which something affordable fits)."""
    player = state["players"][seat]
    rows = field_rows(player["field"])
    energy = scoring.energy_available(player)
    fitting = 0
    for color in COLORS:
        for number in range(1, NUM_COLUMNS + 1):
            dice = {"color": color, "number": number}
            fitting += any(
                resting_positions(rows, (c, k))
                for c in COLORS
                for k in range(1, NUM_COLUMNS + 1)
                if placement_cost(dice, c, k) <= energy
            )
    chance = fitting / (len(COLORS) * NUM_COLUMNS)
    bomb_value = BOMB_VALUES[player["bombs_used"]]
    return chance * EXPECTED_GAIN_OF_A_ROUND >= bomb_value


def _choose_start_block(state: State, seat: Seat) -> Action:
    player = state["players"][seat]
    best, best_value = None, float("-inf")
    for action in start_block_actions(state):
        squares = shape_squares((action["color"], 1), action["x"], 0)
        after, _ = apply_block(player, action["color"], 1, action["x"], 0, 0, state["duel"])
        value = field_value(field_rows(after["field"])) - 0.01 * len(squares)
        if value > best_value:
            best, best_value = action, value
    assert best is not None  # six colours, at most four players
    return best


def _wants_reroll(state: State, seat: Seat) -> bool:
    """Reroll when the rolled block, unrotated, is worse for this seat than
    the average block would be."""
    player = state["players"][seat]
    rows = field_rows(player["field"])
    dice = state["dice"]

    def best_free(color: str, column: int) -> float:
        best = float("-inf")
        for x, y in resting_positions(rows, (color, column)):
            value = _placement_value(player, rows, color, column, x, y, 0, state["duel"])
            best = max(best, value)
        return best

    values = [best_free(c, k) for c in COLORS for k in range(1, NUM_COLUMNS + 1)]
    finite = [v for v in values if v != float("-inf")]
    if not finite:
        return True
    current = best_free(dice["color"], dice["number"])
    return current < sum(finite) / len(finite)


def _choose_mini_block(state: State, seat: Seat) -> Action:
    """Do the most harm: the square that leaves the opponent's field worst."""
    target = 1 - seat
    rows = list(field_rows(state["players"][target]["field"]))
    best, best_value = None, float("inf")
    for x, y in mini_block_positions(state, seat):
        trial = list(rows)
        trial[y] |= 1 << x
        value = field_value(tuple(trial))
        if value < best_value:
            best, best_value = (x, y), value
    assert best is not None  # forfeited automatically when nothing fits
    assert (best[0], best[1]) in resting_positions(tuple(rows), MINI_SHAPE)
    return {"type": "mini_block", "x": best[0], "y": best[1]}
