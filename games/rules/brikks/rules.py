"""Brikks: the decider (``decide``) and the fold (``evolve``).

Flow of a game (``state["phase"]``):

* ``start``: one seat after the other (N-1, N-2, ..., 0) picks a block of
  column 1 and puts it on the bottom line (``start_block``).
* ``roll``: nobody is pending; ``system_step`` rolls the dice for the roller.
* ``choose_dice``: the roller keeps or rerolls once (skipped in solo play).
* ``place``: every seat still in acts at the same time (place, bomb, give up).
* ``mini_blocks`` (duel only): seats that earned mini-blocks place them on
  the opponent's field, one action per mini-block.
* ``over``.

Transitions that follow from an action (end of round, end of game, start of
the mini-block phase, forfeited mini-blocks) are explicit events appended by
``decide`` so that the stored history reads like the game.
"""

from __future__ import annotations

from typing import Any

from ..base import Action, Event, IllegalAction, InvalidOptions, Rng, Seat, State, action_type
from . import scoring
from .field import (
    MINI_SHAPE,
    Rows,
    add_squares,
    field_rows,
    fill,
    full_lines,
    resting_positions,
    shape_masks,
    shape_squares,
)
from .field import empty_field as _empty_field
from .sheet import (
    BOMB_VALUES,
    CIRCLES,
    COLOR_LETTERS,
    COLORS,
    COST_ANY_BLOCK,
    COST_PER_COLUMN,
    CROSSED_OUT_BY_PLAYERS,
    DEFAULT_LEVEL,
    ENERGY_BAR_LENGTH,
    FIELD_WIDTH,
    LEVELS,
    MAX_BONUS_CROSSES,
    MINI_BLOCK_LETTER,
    MULTI_LINE_CROSSES,
    NUM_COLUMNS,
    PINK_X_CIRCLES,
    PRINTED_ACTIVE_CIRCLES,
    SOLO_EXTRA_CIRCLES,
)

MIN_PLAYERS = 1
MAX_PLAYERS = 4

_PINK = frozenset(PINK_X_CIRCLES)
_CIRCLE_AT = {(c["x"], c["y"]): c["color"] for c in CIRCLES}

# Keys each action type must have, exactly.
_ACTION_KEYS: dict[str, frozenset[str]] = {
    "keep": frozenset({"type"}),
    "reroll": frozenset({"type"}),
    "start_block": frozenset({"type", "color", "x"}),
    "place": frozenset({"type", "color", "column", "x", "y"}),
    "bomb": frozenset({"type"}),
    "give_up": frozenset({"type"}),
    "mini_block": frozenset({"type", "x", "y"}),
}
_PHASE_ACTIONS: dict[str, frozenset[str]] = {
    "start": frozenset({"start_block"}),
    "choose_dice": frozenset({"keep", "reroll"}),
    "place": frozenset({"place", "bomb", "give_up"}),
    "mini_blocks": frozenset({"mini_block"}),
}


# --------------------------------------------------------------------------
# Options and setup


def normalize_options(options: dict[str, Any], num_players: int) -> dict[str, Any]:
    """``{"duel": bool, "levels": [1..4 per seat]}``; a single ``level`` is
    accepted and applied to every seat."""
    if not isinstance(options, dict):
        raise InvalidOptions("options must be an object")
    if type(num_players) is not int or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise InvalidOptions(f"Brikks is for {MIN_PLAYERS} to {MAX_PLAYERS} players")
    unknown = set(options) - {"duel", "levels", "level"}
    if unknown:
        raise InvalidOptions(f"unknown options: {sorted(unknown)}")
    duel = options.get("duel", False)
    if not isinstance(duel, bool):
        raise InvalidOptions("duel must be true or false")
    if duel and num_players != 2:
        raise InvalidOptions("the duel is for exactly 2 players")
    if "levels" in options and "level" in options:
        raise InvalidOptions("give either level or levels, not both")
    if "level" in options:
        levels = [options["level"]] * num_players
    else:
        levels = options.get("levels", [DEFAULT_LEVEL] * num_players)
    if not isinstance(levels, list) or len(levels) != num_players:
        raise InvalidOptions("levels must be a list with one level per seat")
    for level in levels:
        if type(level) is not int or level not in LEVELS:
            raise InvalidOptions("each level must be an integer from 1 to 4")
    return {"duel": duel, "levels": list(levels)}


def setup(num_players: int, options: dict[str, Any], rng: Rng) -> list[Event]:
    options = normalize_options(options, num_players)
    return [
        {
            "type": "game_started",
            "actor": None,
            "num_players": num_players,
            "duel": options["duel"],
            "levels": options["levels"],
        }
    ]


def _new_player(level: int, num_players: int) -> dict[str, Any]:
    position = PRINTED_ACTIVE_CIRCLES + (SOLO_EXTRA_CIRCLES if num_players == 1 else 0)
    return {
        "level": level,
        "field": _empty_field(),
        # Circles of the energy bar used so far (activated or crossed out).
        "energy_position": position,
        "energy_activated": position - len(CROSSED_OUT_BY_PLAYERS[num_players]),
        "energy_spent": 0,
        "bonus_crosses": 0,
        "bonus_crosses_lost": 0,
        "bombs_used": 0,
        "out": False,
        "out_round": None,
        "acted": False,
        "start_color": None,
        "placements": [],
        # Duel: mini-blocks earned this round, still to place, and where the
        # ones of this round went on the opponent's field.
        "mini_blocks_earned": 0,
        "mini_blocks_owed": 0,
        "mini_blocks_placed": [],
    }


# --------------------------------------------------------------------------
# Placing a block: the one place that knows energy, circles and crosses


def placement_cost(dice: dict[str, Any], color: str, column: int) -> int:
    """Moving the chip costs 1 per column (no wrap-around); any other colour
    costs 5. The cheapest way is always charged."""
    if color == dice["color"]:
        return abs(column - dice["number"]) * COST_PER_COLUMN
    return COST_ANY_BLOCK


def block_summary(
    player: dict[str, Any], rows: Rows, color: str, column: int, x: int, y: int, cost: int
) -> dict[str, int]:
    """What drawing the block earns: energy activated and lost, lines
    completed, crosses. ``rows`` is the player's field before the block, as
    bitmasks (the bot calls this for every candidate, so it stays cheap).

    Order (the text is silent; see the docs): pay the cost, lose energy for
    wrong-colour circles (level 3/4, only energy activated before this
    block), activate energy for circles, then count full lines."""
    squares = shape_squares((color, column), x, y)
    rule = LEVELS[player["level"]]
    gains = losses = 0
    for square in squares:
        circle_color = _CIRCLE_AT.get(square)
        if circle_color is None:
            continue
        delta = rule["same_color"] if circle_color == color else rule["other_color"]
        if delta > 0:
            gains += delta
        else:
            losses -= delta
    lost = min(losses, max(0, scoring.energy_available(player) - cost))
    activated = min(gains, ENERGY_BAR_LENGTH - player["energy_position"])
    first = player["energy_position"] + 1
    pink = sum(1 for circle in range(first, first + activated) if circle in _PINK)
    new_lines = len(full_lines(add_squares(rows, squares))) - len(full_lines(rows))
    return {
        "cost": cost,
        "energy_activated": activated,
        "energy_lost": lost,
        "lines_completed": new_lines,
        "crosses": pink + MULTI_LINE_CROSSES[new_lines],
    }


def apply_block(
    player: dict[str, Any], color: str, column: int, x: int, y: int, cost: int, duel: bool
) -> tuple[dict[str, Any], dict[str, int]]:
    """The player after drawing the block, and the block's summary."""
    summary = block_summary(player, field_rows(player["field"]), color, column, x, y, cost)
    player = dict(player)
    squares = shape_squares((color, column), x, y)
    player["field"] = fill(player["field"], squares, COLOR_LETTERS[color])
    player["energy_spent"] += cost + summary["energy_lost"]
    player["energy_position"] += summary["energy_activated"]
    player["energy_activated"] += summary["energy_activated"]
    crosses = summary["crosses"]
    if duel:
        player["mini_blocks_earned"] += crosses
    else:
        room = MAX_BONUS_CROSSES - player["bonus_crosses"]
        player["bonus_crosses"] += min(crosses, room)
        player["bonus_crosses_lost"] += max(0, crosses - room)
    player["placements"] = [
        *player["placements"],
        {"color": color, "column": column, "x": x, "y": y},
    ]
    return player, summary


# --------------------------------------------------------------------------
# The fold


def evolve(state: State, event: Event) -> State:
    kind = event["type"]
    if kind == "game_started":
        return _started(event)
    new = dict(state)
    players = list(state["players"])
    new["players"] = players
    actor: Any = event.get("actor")  # a seat for every per-player event below
    if kind == "start_block_placed":
        player, _ = apply_block(players[actor], event["color"], 1, event["x"], 0, 0, state["duel"])
        player["start_color"] = event["color"]
        players[actor] = player
        new["start_index"] = state["start_index"] + 1
        if new["start_index"] == len(state["start_order"]):
            new["phase"] = "roll"
            new["round"] = 1
    elif kind == "dice_rolled":
        new["dice"] = {"color": event["color"], "number": event["number"]}
        new["rerolled"] = False
        new["phase"] = "place" if state["num_players"] == 1 else "choose_dice"
    elif kind == "dice_kept":
        new["phase"] = "place"
    elif kind == "dice_rerolled":
        new["dice"] = {"color": event["color"], "number": event["number"]}
        new["rerolled"] = True
        new["phase"] = "place"
    elif kind == "block_placed":
        player, _ = apply_block(
            players[actor],
            event["color"],
            event["column"],
            event["x"],
            event["y"],
            event["cost"],
            state["duel"],
        )
        player["acted"] = True
        players[actor] = player
    elif kind == "bomb_used":
        players[actor] = {**players[actor], "bombs_used": event["bomb"] + 1, "acted": True}
    elif kind == "player_out":
        players[actor] = {
            **players[actor],
            "out": True,
            "out_round": state["round"],
            "acted": True,
        }
    elif kind == "mini_blocks_due":
        for seat, owed in enumerate(event["owed"]):
            players[seat] = {**players[seat], "mini_blocks_owed": owed}
        new["phase"] = "mini_blocks"
    elif kind == "mini_block_placed":
        target = event["target"]
        square = (event["x"], event["y"])
        players[target] = {
            **players[target],
            "field": fill(players[target]["field"], [square], MINI_BLOCK_LETTER),
        }
        mover = players[actor]
        players[actor] = {
            **mover,
            "mini_blocks_owed": mover["mini_blocks_owed"] - 1,
            "mini_blocks_placed": [*mover["mini_blocks_placed"], [event["x"], event["y"]]],
        }
    elif kind == "mini_blocks_forfeited":
        players[actor] = {**players[actor], "mini_blocks_owed": 0}
    elif kind == "round_ended":
        for seat, player in enumerate(players):
            players[seat] = {
                **player,
                "acted": False,
                "mini_blocks_earned": 0,
                "mini_blocks_owed": 0,
                "mini_blocks_placed": [],
            }
        new["round"] = state["round"] + 1
        new["roller"] = event["next_roller"]
        new["dice"] = None
        new["rerolled"] = False
        new["phase"] = "roll"
    elif kind == "game_ended":
        new["phase"] = "over"
    else:
        raise ValueError(f"unknown Brikks event type {kind!r}")
    return new


def _started(event: Event) -> State:
    num_players = event["num_players"]
    return {
        "num_players": num_players,
        "duel": event["duel"],
        "phase": "start",
        "round": 0,
        "roller": 0,
        # The seat to the right of the start player (seat 0) first, then
        # counter-clockwise: N-1, N-2, ..., 0.
        "start_order": list(range(num_players - 1, -1, -1)),
        "start_index": 0,
        "dice": None,
        "rerolled": False,
        "players": [_new_player(level, num_players) for level in event["levels"]],
    }


# --------------------------------------------------------------------------
# Who acts, what may they do


def is_over(state: State) -> bool:
    return state.get("phase") == "over"


def pending(state: State) -> list[Seat]:
    phase = state.get("phase")
    players = state.get("players", [])
    if phase == "start":
        return [state["start_order"][state["start_index"]]]
    if phase == "choose_dice":
        return [state["roller"]]
    if phase == "place":
        return [s for s, p in enumerate(players) if not p["out"] and not p["acted"]]
    if phase == "mini_blocks":
        return [s for s, p in enumerate(players) if p["mini_blocks_owed"] > 0]
    return []


def system_step(state: State, rng: Rng) -> list[Event] | None:
    """The only automatic step is the roll of both dice for the roller."""
    if state.get("phase") != "roll":
        return None
    color, number = _roll(rng)
    return [
        {
            "type": "dice_rolled",
            "actor": state["roller"],
            "round": state["round"],
            "color": color,
            "number": number,
        }
    ]


def _roll(rng: Rng) -> tuple[str, int]:
    color = COLORS[rng.randint(0, 5)]
    number = rng.randint(1, NUM_COLUMNS)
    return color, number


def affordable_blocks(state: State, seat: Seat) -> list[tuple[str, int, int]]:
    """(colour, column, cost) of every block the seat can pay for, cheapest
    first, the rolled block first of all."""
    dice = state["dice"]
    energy = scoring.energy_available(state["players"][seat])
    options = [
        (color, column, placement_cost(dice, color, column))
        for color in COLORS
        for column in range(1, NUM_COLUMNS + 1)
    ]
    options = [option for option in options if option[2] <= energy]
    options.sort(key=lambda option: option[2])
    return options


def placements(state: State, seat: Seat) -> list[Action]:
    """Every affordable block at every reachable resting position."""
    rows = field_rows(state["players"][seat]["field"])
    actions = []
    for color, column, _cost in affordable_blocks(state, seat):
        for x, y in sorted(resting_positions(rows, (color, column))):
            actions.append({"type": "place", "color": color, "column": column, "x": x, "y": y})
    return actions


def _anything_fits(state: State, seat: Seat) -> bool:
    rows = field_rows(state["players"][seat]["field"])
    return any(
        resting_positions(rows, (color, column))
        for color, column, _cost in affordable_blocks(state, seat)
    )


def mini_block_positions(state: State, seat: Seat) -> list[tuple[int, int]]:
    """Where ``seat`` may drop its next mini-block on the opponent's field:
    reachable resting squares not edge-adjacent to its mini-blocks of this
    round (they may touch only at corners)."""
    target = _opponent(seat)
    rows = field_rows(state["players"][target]["field"])
    placed = {tuple(square) for square in state["players"][seat]["mini_blocks_placed"]}
    positions = []
    for x, y in sorted(resting_positions(rows, MINI_SHAPE)):
        neighbours = {(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)}
        if not neighbours & placed:
            positions.append((x, y))
    return positions


def _opponent(seat: Seat) -> Seat:
    return 1 - seat


def start_block_actions(state: State) -> list[Action]:
    taken = {p["start_color"] for p in state["players"]}
    actions = []
    for color in COLORS:
        if color in taken:
            continue
        width = shape_masks((color, 1)).width
        for x in range(FIELD_WIDTH - width + 1):
            actions.append({"type": "start_block", "color": color, "x": x})
    return actions


def legal_actions(state: State, seat: Seat) -> list[Action]:
    if type(seat) is not int or seat not in pending(state):
        return []
    phase = state["phase"]
    if phase == "start":
        return start_block_actions(state)
    if phase == "choose_dice":
        return [{"type": "keep"}, {"type": "reroll"}]
    if phase == "mini_blocks":
        return [
            {"type": "mini_block", "x": x, "y": y} for x, y in mini_block_positions(state, seat)
        ]
    actions = placements(state, seat)
    if state["players"][seat]["bombs_used"] < len(BOMB_VALUES):
        actions.append({"type": "bomb"})
    if not actions or actions == [{"type": "bomb"}]:
        actions.append({"type": "give_up"})
    return actions


# --------------------------------------------------------------------------
# The decider


def decide(state: State, seat: Seat, action: Action, rng: Rng) -> list[Event]:
    if is_over(state):
        raise IllegalAction("game_finished", "the game is over")
    if type(seat) is not int or seat not in pending(state):
        raise IllegalAction("not_your_turn", "nothing to do for this seat now")
    kind = _check_shape(action)
    if kind not in _PHASE_ACTIONS[state["phase"]]:
        raise IllegalAction("wrong_phase", f"{kind} is not possible in phase {state['phase']}")
    events = _HANDLERS[kind](state, seat, action, rng)
    return events + _follow_ups(_fold(state, events))


def _check_shape(action: Any) -> str:
    """The action's type, after checking keys and value types."""
    kind = action_type(action, _ACTION_KEYS, "Brikks")
    if set(action) != _ACTION_KEYS[kind]:
        raise IllegalAction(
            "malformed_action", f"{kind} takes exactly the keys {sorted(_ACTION_KEYS[kind])}"
        )
    for key in ("x", "y", "column"):
        if key in action and type(action[key]) is not int:
            raise IllegalAction("malformed_action", f"{key} must be an integer")
    if "color" in action and action["color"] not in COLORS:
        raise IllegalAction("malformed_action", f"color must be one of {COLORS}")
    if "column" in action and not 1 <= action["column"] <= NUM_COLUMNS:
        raise IllegalAction("malformed_action", "column must be 1 to 4")
    return kind


def _fold(state: State, events: list[Event]) -> State:
    for event in events:
        state = evolve(state, event)
    return state


def _keep(state: State, seat: Seat, action: Action, rng: Rng) -> list[Event]:
    return [{"type": "dice_kept", "actor": seat, **state["dice"]}]


def _reroll(state: State, seat: Seat, action: Action, rng: Rng) -> list[Event]:
    color, number = _roll(rng)
    return [{"type": "dice_rerolled", "actor": seat, "color": color, "number": number}]


def _start_block(state: State, seat: Seat, action: Action, rng: Rng) -> list[Event]:
    color, x = action["color"], action["x"]
    if any(p["start_color"] == color for p in state["players"]):
        raise IllegalAction("block_taken", f"another player already starts with {color}")
    width = shape_masks((color, 1)).width
    if not 0 <= x <= FIELD_WIDTH - width:
        raise IllegalAction("not_reachable", f"x must be 0 to {FIELD_WIDTH - width}")
    return [
        {"type": "start_block_placed", "actor": seat, "color": color, "column": 1, "x": x, "y": 0}
    ]


def _place(state: State, seat: Seat, action: Action, rng: Rng) -> list[Event]:
    color, column, x, y = action["color"], action["column"], action["x"], action["y"]
    player = state["players"][seat]
    cost = placement_cost(state["dice"], color, column)
    if cost > scoring.energy_available(player):
        raise IllegalAction(
            "not_enough_energy",
            f"{color} {column} costs {cost} energy, {scoring.energy_available(player)} available",
        )
    rows = field_rows(player["field"])
    if (x, y) not in resting_positions(rows, (color, column)):
        raise IllegalAction("not_reachable", f"the block cannot come to rest at ({x}, {y})")
    summary = block_summary(player, rows, color, column, x, y, cost)
    return [
        {"type": "block_placed", "actor": seat, "color": color, "column": column, "x": x, "y": y}
        | summary
    ]


def _bomb(state: State, seat: Seat, action: Action, rng: Rng) -> list[Event]:
    used = state["players"][seat]["bombs_used"]
    if used >= len(BOMB_VALUES):
        raise IllegalAction("no_bombs_left", "all three bombs are used")
    return [{"type": "bomb_used", "actor": seat, "bomb": used}]


def _give_up(state: State, seat: Seat, action: Action, rng: Rng) -> list[Event]:
    if _anything_fits(state, seat):
        raise IllegalAction("cannot_give_up", "a block you can afford still fits")
    return [{"type": "player_out", "actor": seat, "round": state["round"]}]


def _mini_block(state: State, seat: Seat, action: Action, rng: Rng) -> list[Event]:
    x, y = action["x"], action["y"]
    target = _opponent(seat)
    rows = field_rows(state["players"][target]["field"])
    if (x, y) not in resting_positions(rows, MINI_SHAPE):
        raise IllegalAction("not_reachable", f"a mini-block cannot come to rest at ({x}, {y})")
    if (x, y) not in mini_block_positions(state, seat):
        raise IllegalAction(
            "mini_blocks_adjacent", "mini-blocks of one round may touch only at corners"
        )
    return [{"type": "mini_block_placed", "actor": seat, "target": target, "x": x, "y": y}]


_HANDLERS = {
    "keep": _keep,
    "reroll": _reroll,
    "start_block": _start_block,
    "place": _place,
    "bomb": _bomb,
    "give_up": _give_up,
    "mini_block": _mini_block,
}


def _follow_ups(state: State) -> list[Event]:
    """Consequences due once the acting seat is done: close the round, start
    the duel's mini-block phase, forfeit mini-blocks that no longer fit, end
    the game."""
    events: list[Event] = []
    while True:
        event = _next_follow_up(state)
        if event is None:
            return events
        events.append(event)
        state = evolve(state, event)


def _next_follow_up(state: State) -> Event | None:
    phase = state["phase"]
    players = state["players"]
    if phase == "place" and not pending(state):
        still_in = [s for s, p in enumerate(players) if not p["out"]]
        if not still_in or (state["duel"] and len(still_in) < len(players)):
            return {"type": "game_ended", "actor": None, "round": state["round"]}
        owed = [p["mini_blocks_earned"] for p in players]
        if state["duel"] and any(owed):
            return {"type": "mini_blocks_due", "actor": None, "owed": owed}
        return _round_ended(state)
    if phase == "mini_blocks":
        for seat, player in enumerate(players):
            if player["mini_blocks_owed"] > 0 and not mini_block_positions(state, seat):
                return {
                    "type": "mini_blocks_forfeited",
                    "actor": seat,
                    "count": player["mini_blocks_owed"],
                }
        if not pending(state):
            return _round_ended(state)
    return None


def _round_ended(state: State) -> Event:
    """The roll passes clockwise to the next seat still in the game."""
    players = state["players"]
    count = len(players)
    roller = state["roller"]
    next_roller = next(
        (roller + step) % count
        for step in range(1, count + 1)
        if not players[(roller + step) % count]["out"]
    )
    return {
        "type": "round_ended",
        "actor": None,
        "round": state["round"],
        "next_roller": next_roller,
    }
