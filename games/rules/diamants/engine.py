"""Diamants rules: state, events, decisions.

The state is small (18 numbered cards, 10 special cards, a few dice), so
``evolve`` copies it with a cheap structural copy instead of ``deepcopy``.

Turn shape: the current player rolls (at most twice). A roll is *valid* when it
shows a 1, a 6 or a triple, and *playable* when it is valid and its sum lets
the player take a table card (value <= sum) or steal an opponent's top card
(value == sum). A playable roll "unlocks" the turn: the player may then use
special cards, take, steal, roll a second time (if this was the first roll)
or, when a special card spoiled the dice, stop and accept the failure.
"""

from __future__ import annotations

from typing import Any

from ..base import Event, IllegalAction, InvalidOptions, Rng, Seat, State, action_type
from . import cards

SLUG = "diamants"
NAME = "Diamants"
VERSION = 1
MIN_PLAYERS = 2
MAX_PLAYERS = 6
OPTIONS: dict[str, Any] = {}

MAX_ROLLS = 2
# Balance: playing first is worth about two diamonds in 2-player bot games and
# one with more players (the first seats pick the last cards of the table), so
# the first player gives them back at the final count.
FIRST_PLAYER_HANDICAP = {2: 2, 3: 1, 4: 1, 5: 1, 6: 1}
ACTION_TYPES = ("roll", "take", "steal", "use_special", "stop", "pass")


# --------------------------------------------------------------------------- setup


def normalize_options(options: dict[str, Any], num_players: int) -> dict[str, Any]:
    """Diamants has no options: anything given is refused."""
    if not isinstance(options, dict):
        raise InvalidOptions("options must be an object")
    if options:
        raise InvalidOptions(f"unknown options: {sorted(map(str, options))}")
    if not isinstance(num_players, int) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise InvalidOptions(f"Diamants is played by {MIN_PLAYERS} to {MAX_PLAYERS} players")
    return {}


def material() -> dict[str, Any]:
    return cards.material()


def setup(num_players: int, options: dict[str, Any], rng: Rng) -> list[Event]:
    """Every card on the table; the roll-off is left to ``system_step``."""
    normalize_options(options, num_players)
    return [
        {
            "type": "game_started",
            "actor": None,
            "num_players": num_players,
            "table": sorted(cards.NUMBERED_CARDS),
            "specials": {card_id: None for card_id in cards.SPECIAL_CARDS},
        }
    ]


# --------------------------------------------------------------------------- evolve


def _copy(value: Any) -> Any:
    """Structural copy of JSON data (faster than deepcopy: no memo)."""
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def evolve(state: State, event: Event) -> State:
    handler = _EVOLVERS.get(event["type"])
    if handler is None:
        raise ValueError(f"unknown event type {event['type']!r}")
    new_state = _copy(state)
    handler(new_state, event)
    return new_state


def _on_game_started(state: State, event: Event) -> None:
    num_players = event["num_players"]
    state.clear()
    state.update(
        {
            "num_players": num_players,
            "phase": "rolloff",
            "rolloff": {"contenders": list(range(num_players)), "last": {}},
            "first_player": None,
            "current": None,
            "round": 0,
            "turn": 0,
            "table": list(event["table"]),
            "face_down": [],
            "stacks": [[] for _ in range(num_players)],
            "specials": dict(event["specials"]),
            "dice": None,
            "rolls": 0,
            "bonus": 0,
            "unlocked": False,
            "final_round": False,
            "result": None,
        }
    )


def _on_rolloff_rolled(state: State, event: Event) -> None:
    state["rolloff"]["last"][str(event["actor"])] = list(event["dice"])


def _on_rolloff_tied(state: State, event: Event) -> None:
    state["rolloff"] = {"contenders": list(event["seats"]), "last": {}}


def _on_first_player_chosen(state: State, event: Event) -> None:
    state["first_player"] = event["seat"]
    state["phase"] = "playing"


def _on_turn_started(state: State, event: Event) -> None:
    state.update(
        current=event["seat"],
        round=event["round"],
        turn=state["turn"] + 1,
        dice=None,
        rolls=0,
        bonus=0,
        unlocked=False,
    )


def _on_dice_rolled(state: State, event: Event) -> None:
    state.update(dice=list(event["dice"]), rolls=event["roll"], bonus=0, unlocked=event["playable"])


def _on_special_gained(state: State, event: Event) -> None:
    state["specials"][event["special"]] = event["actor"]


def _on_card_taken(state: State, event: Event) -> None:
    state["table"].remove(event["card"])
    state["stacks"][event["actor"]].append(event["card"])


def _on_card_stolen(state: State, event: Event) -> None:
    state["stacks"][event["from"]].pop()
    state["stacks"][event["actor"]].append(event["card"])


def _on_special_used(state: State, event: Event) -> None:
    """The card goes back to the table; the effect, if it is not a separate
    take/steal event, is applied here from the outcome written in the event."""
    special = event["special"]
    state["specials"][special] = None
    kind = cards.SPECIAL_CARDS[special]["kind"]
    stacks = state["stacks"]
    if kind == "white_die":
        state["bonus"] += event["white"]
    elif kind in ("reroll", "flip"):
        state["dice"][event["die"]] = event["value"]
    elif kind == "safe":
        stack = stacks[event["actor"]]
        stack.insert(0, stack.pop())
    elif kind == "bomb":
        state["face_down"] = sorted(state["face_down"] + [stacks[event["seat"]].pop()])
    elif kind == "swap":
        mine, theirs = stacks[event["actor"]], stacks[event["seat"]]
        mine[-1], theirs[-1] = theirs[-1], mine[-1]
    elif kind == "magnet":
        state["face_down"].remove(event["value"])
        state["table"] = sorted(state["table"] + [event["value"]])


def _on_failure(state: State, event: Event) -> None:
    if event["flipped"] is not None:
        state["table"].remove(event["flipped"])
        state["face_down"] = sorted(state["face_down"] + [event["flipped"]])
    if event["returned"] is not None:
        state["stacks"][event["actor"]].pop()
        state["table"] = sorted(state["table"] + [event["returned"]])
    state["unlocked"] = False


def _on_turn_passed(state: State, event: Event) -> None:
    """Nothing changes: the next turn_started moves play on."""


def _on_final_round_started(state: State, event: Event) -> None:
    state["final_round"] = True


def _on_game_ended(state: State, event: Event) -> None:
    state.update(phase="over", current=None, unlocked=False, result=event["result"])


_EVOLVERS = {
    "game_started": _on_game_started,
    "rolloff_rolled": _on_rolloff_rolled,
    "rolloff_tied": _on_rolloff_tied,
    "first_player_chosen": _on_first_player_chosen,
    "turn_started": _on_turn_started,
    "dice_rolled": _on_dice_rolled,
    "special_gained": _on_special_gained,
    "card_taken": _on_card_taken,
    "card_stolen": _on_card_stolen,
    "special_used": _on_special_used,
    "failure": _on_failure,
    "turn_passed": _on_turn_passed,
    "final_round_started": _on_final_round_started,
    "game_ended": _on_game_ended,
}


# --------------------------------------------------------------------------- queries


def is_valid_roll(dice: list[int]) -> bool:
    """Rule [2]: at least one 1, at least one 6, or three identical dice."""
    return 1 in dice or 6 in dice or len(set(dice)) == 1


def is_triple(dice: list[int]) -> bool:
    return len(set(dice)) == 1


def current_sum(state: State) -> int:
    return sum(state["dice"] or []) + state["bonus"]


def takeable_cards(state: State, total: int) -> list[int]:
    return [value for value in state["table"] if value <= total]


def stealable_seats(state: State, seat: Seat, total: int) -> list[Seat]:
    """Opponents whose top card equals ``total`` exactly (rule [6])."""
    return [
        other
        for other, stack in enumerate(state["stacks"])
        if other != seat and stack and stack[-1] == total
    ]


def can_take_or_steal(state: State, seat: Seat, total: int) -> bool:
    return bool(takeable_cards(state, total) or stealable_seats(state, seat, total))


def is_over(state: State) -> bool:
    return state.get("phase") == "over"


def pending(state: State) -> list[Seat]:
    if state.get("phase") != "playing":
        return []
    return [state["current"]]


def scores(state: State) -> list[int]:
    """Diamonds of every stack, plus the end values of the special cards
    held, minus the first player's handicap."""
    totals = [sum(cards.diamonds(value) for value in stack) for stack in state["stacks"]]
    for special, holder in state["specials"].items():
        if holder is not None:
            totals[holder] += cards.end_value(special)
    if state["first_player"] is not None:
        totals[state["first_player"]] -= FIRST_PLAYER_HANDICAP[state["num_players"]]
    return totals


def final_result(state: State) -> dict[str, Any]:
    """Most diamonds wins; ties go to the longer stack, then are shared."""
    totals = scores(state)
    counts = [len(stack) for stack in state["stacks"]]
    seats = list(range(state["num_players"]))
    ranking = sorted(seats, key=lambda seat: (-totals[seat], -counts[seat], seat))
    best = (totals[ranking[0]], counts[ranking[0]])
    winners = [seat for seat in ranking if (totals[seat], counts[seat]) == best]
    return {
        "winners": winners,
        "scores": totals,
        "ranking": ranking,
        "cards": counts,
        "card_diamonds": [
            sum(cards.diamonds(value) for value in stack) for stack in state["stacks"]
        ],
        "specials": {
            str(seat): sorted(c for c, holder in state["specials"].items() if holder == seat)
            for seat in seats
        },
        "first_player": state["first_player"],
        "first_player_handicap": FIRST_PLAYER_HANDICAP[state["num_players"]],
        "rounds": state["round"],
    }


def result(state: State) -> dict[str, Any] | None:
    return state["result"] if is_over(state) else None


def view(state: State, seat: Seat | None) -> dict[str, Any]:
    """Nothing in Diamants is hidden: everyone sees everything, plus the
    current sum and running scores for convenience."""
    public = _copy(state)
    if state.get("phase") is not None:
        public["sum"] = current_sum(state) if state["dice"] else None
        public["scores_now"] = scores(state)
    return public


def redact_event(event: Event, seat: Seat | None) -> Event:
    return event


# --------------------------------------------------------------------------- system step


def system_step(state: State, rng: Rng) -> list[Event] | None:
    """The first-player roll-off (rule [1]): every contender rolls three dice,
    the highest total starts; tied leaders roll again."""
    if state.get("phase") != "rolloff":
        return None
    contenders = state["rolloff"]["contenders"]
    events: list[Event] = []
    totals: dict[int, int] = {}
    for seat in contenders:
        dice = [rng.randint(1, 6) for _ in range(3)]
        totals[seat] = sum(dice)
        events.append({"type": "rolloff_rolled", "actor": seat, "dice": dice})
    best = max(totals.values())
    leaders = [seat for seat in contenders if totals[seat] == best]
    if len(leaders) > 1:
        events.append({"type": "rolloff_tied", "actor": None, "seats": leaders})
    else:
        events.append({"type": "first_player_chosen", "actor": None, "seat": leaders[0]})
        events.append({"type": "turn_started", "actor": None, "seat": leaders[0], "round": 1})
    return events


# --------------------------------------------------------------------------- legal actions


def special_actions(state: State, seat: Seat) -> list[dict[str, Any]]:
    """Every use of a held special card that would be accepted now."""
    if not state["unlocked"]:
        return []
    total = current_sum(state)
    stacks = state["stacks"]
    opponents = [other for other in range(state["num_players"]) if other != seat]
    actions: list[dict[str, Any]] = []
    for special in sorted(c for c, holder in state["specials"].items() if holder == seat):
        kind = cards.SPECIAL_CARDS[special]["kind"]
        base = {"type": "use_special", "card": special}
        if kind == "thief":
            targets = [o for o in opponents if stacks[o] and stacks[o][-1] <= total]
            actions += [{**base, "seat": o} for o in targets]
        elif kind == "treasure":
            if state["table"]:
                actions.append(base)
        elif kind == "white_die":
            actions.append(base)
        elif kind in ("reroll", "flip"):
            actions += [{**base, "die": die} for die in range(3)]
        elif kind == "safe":
            if len(stacks[seat]) >= 2:
                actions.append(base)
        elif kind == "bomb":
            actions += [{**base, "seat": o} for o in opponents if stacks[o]]
        elif kind == "swap":
            if stacks[seat]:
                actions += [{**base, "seat": o} for o in opponents if stacks[o]]
        elif kind == "magnet":
            actions += [{**base, "value": value} for value in state["face_down"]]
    return actions


def _thief_holders(state: State, seat: Seat) -> list[Seat]:
    """Opponents a Thief would be taken from (only when none is on the table)."""
    holders = [state["specials"][c] for c in cards.SPECIALS_BY_KIND["thief"]]
    if None in holders:
        return []
    n = state["num_players"]
    return sorted({h for h in holders if h != seat}, key=lambda h: (h - seat) % n)


def take_actions(state: State, seat: Seat) -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = []
    for value in takeable_cards(state, current_sum(state)):
        holders = _thief_holders(state, seat) if cards.named_special(value) == "thief" else []
        if len(holders) > 1:
            actions += [{"type": "take", "card": value, "thief_from": h} for h in holders]
        else:
            actions.append({"type": "take", "card": value})
    return actions


def may_pass(state: State) -> bool:
    """In the final round a player may keep their stack and not roll at all."""
    return state["final_round"] and state["rolls"] == 0


def legal_actions(state: State, seat: Seat) -> list[dict[str, Any]]:
    if state.get("phase") != "playing" or seat != state["current"]:
        return []
    if not state["unlocked"]:
        if may_pass(state):
            return [{"type": "roll"}, {"type": "pass"}]
        return [{"type": "roll"}]
    total = current_sum(state)
    actions = take_actions(state, seat)
    actions += [{"type": "steal", "seat": o} for o in stealable_seats(state, seat, total)]
    can_play = bool(actions)
    actions += special_actions(state, seat)
    if state["rolls"] < MAX_ROLLS:
        actions.append({"type": "roll"})
    if not can_play:
        actions.append({"type": "stop"})
    return actions


# --------------------------------------------------------------------------- decide


class _Turn:
    """Accumulates the events of one decision and the state they lead to."""

    def __init__(self, state: State, seat: Seat) -> None:
        self.state = state
        self.seat = seat
        self.events: list[Event] = []

    def emit(self, event_type: str, **payload: Any) -> None:
        event = {"type": event_type, "actor": self.seat, **payload}
        self.events.append(event)
        self.state = evolve(self.state, event)

    def emit_system(self, event_type: str, **payload: Any) -> None:
        event = {"type": event_type, "actor": None, **payload}
        self.events.append(event)
        self.state = evolve(self.state, event)

    def gain_special(self, kind: str, reason: str, thief_from: Seat | None = None) -> None:
        """Give the seat the special card of ``kind``: from the table first
        (the Thief priority rule), else from the opponent holding it."""
        specials = self.state["specials"]
        ids = cards.SPECIALS_BY_KIND[kind]
        on_table = [c for c in ids if specials[c] is None]
        if on_table:
            self.emit("special_gained", special=on_table[0], **{"from": None}, reason=reason)
            return
        if thief_from is not None:
            chosen = [c for c in ids if specials[c] == thief_from][0]
        else:
            holders = [c for c in ids if specials[c] != self.seat]
            if not holders:
                return
            n = self.state["num_players"]
            chosen = min(holders, key=lambda c: (specials[c] - self.seat) % n)
        self.emit("special_gained", special=chosen, **{"from": specials[chosen]}, reason=reason)

    def fail(self) -> None:
        """Rules [4] and [7]: the highest table card is turned face down,
        the player's top card goes back to the table."""
        table = self.state["table"]
        stack = self.state["stacks"][self.seat]
        self.emit(
            "failure",
            flipped=max(table) if table else None,
            returned=stack[-1] if stack else None,
        )
        self.end_turn()

    def end_turn(self) -> None:
        """Next seat clockwise. The game ends when a round is complete (so
        everyone had as many turns) and no numbered card is left on the table."""
        state = self.state
        nxt = (self.seat + 1) % state["num_players"]
        new_round = nxt == state["first_player"]
        if not state["table"] and not state["final_round"]:
            self.emit_system("final_round_started")
        if new_round and self.state["final_round"]:
            self.emit_system("game_ended", result=final_result(self.state))
            return
        self.emit_system("turn_started", seat=nxt, round=state["round"] + (1 if new_round else 0))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _require_keys(action: dict[str, Any], allowed: set[str], required: set[str]) -> None:
    extra = set(action) - allowed
    if extra:
        raise IllegalAction("malformed_action", f"unexpected keys {sorted(map(str, extra))}")
    missing = required - set(action)
    if missing:
        raise IllegalAction("malformed_action", f"missing keys {sorted(missing)}")


def _require_int(action: dict[str, Any], key: str) -> int:
    value = action[key]
    if not _is_int(value):
        raise IllegalAction("malformed_action", f"{key!r} must be an integer")
    return value


def _require_opponent(state: State, seat: Seat, target: int) -> None:
    if not 0 <= target < state["num_players"] or target == seat:
        raise IllegalAction("invalid_target", f"seat {target} is not an opponent")


def decide(state: State, seat: Seat, action: Any, rng: Rng) -> list[Event]:
    kind = action_type(action, ACTION_TYPES, "Diamants")
    if not state or "phase" not in state:
        raise IllegalAction("not_started", "the game has not started")
    if state["phase"] == "over":
        raise IllegalAction("game_finished", "the game is over")
    if state["phase"] != "playing" or seat != state["current"]:
        raise IllegalAction("not_your_turn", "another seat must act")
    turn = _Turn(state, seat)
    _DECIDERS[kind](turn, action, rng)
    return turn.events


def _decide_roll(turn: _Turn, action: dict[str, Any], rng: Rng) -> None:
    _require_keys(action, {"type"}, {"type"})
    state = turn.state
    if state["rolls"] >= MAX_ROLLS:
        raise IllegalAction("no_rolls_left", "two rolls per turn at most")
    dice = [rng.randint(1, 6) for _ in range(3)]
    roll = state["rolls"] + 1
    valid = is_valid_roll(dice)
    playable = valid and can_take_or_steal(state, turn.seat, sum(dice))
    turn.emit("dice_rolled", dice=dice, roll=roll, valid=valid, playable=playable)
    if is_triple(dice):
        turn.gain_special("treasure", reason="triple")
    if not playable and roll == MAX_ROLLS:
        turn.fail()


def _require_unlocked(turn: _Turn) -> None:
    if not turn.state["unlocked"]:
        raise IllegalAction("no_valid_roll_yet", "roll a valid, playable roll first")


def _decide_take(turn: _Turn, action: dict[str, Any], rng: Rng) -> None:
    _require_keys(action, {"type", "card", "thief_from"}, {"type", "card"})
    value = _require_int(action, "card")
    thief_from = action.get("thief_from")
    if thief_from is not None and not _is_int(thief_from):
        raise IllegalAction("malformed_action", "'thief_from' must be a seat")
    _require_unlocked(turn)
    state = turn.state
    if value not in state["table"]:
        raise IllegalAction("card_not_on_table", f"card {value} is not on the table")
    total = current_sum(state)
    if value > total:
        raise IllegalAction("sum_too_low", f"card {value} needs a sum of {value}, not {total}")
    kind = cards.named_special(value)
    if thief_from is not None:
        _check_thief_from(state, turn.seat, kind, thief_from)
    turn.emit("card_taken", card=value, by="dice")
    if kind is not None:
        turn.gain_special(kind, reason="card", thief_from=thief_from)
    turn.end_turn()


def _check_thief_from(state: State, seat: Seat, kind: str | None, thief_from: int) -> None:
    if kind != "thief":
        raise IllegalAction("invalid_target", "'thief_from' only applies to cards naming a Thief")
    thieves = cards.SPECIALS_BY_KIND["thief"]
    if any(state["specials"][c] is None for c in thieves):
        raise IllegalAction("thief_on_table", "a Thief on the table must be taken first")
    if thief_from == seat or all(state["specials"][c] != thief_from for c in thieves):
        raise IllegalAction("invalid_target", f"seat {thief_from} holds no Thief to take")


def _decide_steal(turn: _Turn, action: dict[str, Any], rng: Rng) -> None:
    _require_keys(action, {"type", "seat"}, {"type", "seat"})
    target = _require_int(action, "seat")
    _require_unlocked(turn)
    state = turn.state
    _require_opponent(state, turn.seat, target)
    stack = state["stacks"][target]
    if not stack:
        raise IllegalAction("empty_stack", f"seat {target} has no card")
    total = current_sum(state)
    if stack[-1] != total:
        raise IllegalAction(
            "steal_sum_mismatch", f"stealing card {stack[-1]} needs a sum of exactly {stack[-1]}"
        )
    turn.emit("card_stolen", card=stack[-1], **{"from": target}, by="dice")
    turn.end_turn()


def _decide_stop(turn: _Turn, action: dict[str, Any], rng: Rng) -> None:
    _require_keys(action, {"type"}, {"type"})
    _require_unlocked(turn)
    if can_take_or_steal(turn.state, turn.seat, current_sum(turn.state)):
        raise IllegalAction("take_available", "a card can be taken: stopping is refused")
    turn.fail()


def _decide_pass(turn: _Turn, action: dict[str, Any], rng: Rng) -> None:
    _require_keys(action, {"type"}, {"type"})
    if not may_pass(turn.state):
        raise IllegalAction("pass_not_allowed", "passing is only allowed in the final round")
    turn.emit("turn_passed")
    turn.end_turn()


def _decide_use_special(turn: _Turn, action: dict[str, Any], rng: Rng) -> None:
    special = action.get("card")
    if not isinstance(special, str):
        raise IllegalAction("malformed_action", "'card' must be a special card id")
    if special not in cards.SPECIAL_CARDS:
        raise IllegalAction("unknown_special", f"no special card {special!r}")
    targets = set(cards.SPECIAL_CARDS[special]["targets"])
    _require_keys(action, {"type", "card"} | targets, {"type", "card"} | targets)
    for key in targets:
        _require_int(action, key)
    _require_unlocked(turn)
    if turn.state["specials"][special] != turn.seat:
        raise IllegalAction("special_not_held", f"you do not hold {special!r}")
    kind = cards.SPECIAL_CARDS[special]["kind"]
    _SPECIAL_EFFECTS[kind](turn, special, action, rng)
    _fail_if_stuck(turn)


def _fail_if_stuck(turn: _Turn) -> None:
    """After a special card, if the turn is still open but the only thing
    left would be to stop, the failure is applied at once."""
    state = turn.state
    if state.get("phase") != "playing" or state["current"] != turn.seat:
        return
    if legal_actions(state, turn.seat) == [{"type": "stop"}]:
        turn.fail()


def _use_thief(turn: _Turn, special: str, action: dict[str, Any], rng: Rng) -> None:
    state = turn.state
    target = action["seat"]
    _require_opponent(state, turn.seat, target)
    stack = state["stacks"][target]
    if not stack:
        raise IllegalAction("empty_stack", f"seat {target} has no card")
    total = current_sum(state)
    if stack[-1] > total:
        raise IllegalAction("sum_too_low", f"card {stack[-1]} is above the sum {total}")
    turn.emit("special_used", special=special, seat=target)
    turn.emit("card_stolen", card=stack[-1], **{"from": target}, by=special)
    turn.end_turn()


def _use_treasure(turn: _Turn, special: str, action: dict[str, Any], rng: Rng) -> None:
    table = turn.state["table"]
    if not table:
        raise IllegalAction("table_empty", "no card on the table to take")
    value = max(table)
    turn.emit("special_used", special=special)
    turn.emit("card_taken", card=value, by=special)
    kind = cards.named_special(value)
    if kind is not None:
        turn.gain_special(kind, reason="card")
    turn.end_turn()


def _use_white_die(turn: _Turn, special: str, action: dict[str, Any], rng: Rng) -> None:
    turn.emit("special_used", special=special, white=rng.randint(1, 6))


def _require_die(action: dict[str, Any]) -> int:
    die = action["die"]
    if not 0 <= die < 3:
        raise IllegalAction("invalid_target", "'die' is 0, 1 or 2")
    return die


def _use_reroll(turn: _Turn, special: str, action: dict[str, Any], rng: Rng) -> None:
    die = _require_die(action)
    turn.emit("special_used", special=special, die=die, value=rng.randint(1, 6))


def _use_flip(turn: _Turn, special: str, action: dict[str, Any], rng: Rng) -> None:
    die = _require_die(action)
    turn.emit("special_used", special=special, die=die, value=7 - turn.state["dice"][die])


def _use_safe(turn: _Turn, special: str, action: dict[str, Any], rng: Rng) -> None:
    if len(turn.state["stacks"][turn.seat]) < 2:
        raise IllegalAction("stack_too_small", "the Safe needs at least two cards in your stack")
    turn.emit("special_used", special=special, card=turn.state["stacks"][turn.seat][-1])


def _use_bomb(turn: _Turn, special: str, action: dict[str, Any], rng: Rng) -> None:
    target = action["seat"]
    _require_opponent(turn.state, turn.seat, target)
    stack = turn.state["stacks"][target]
    if not stack:
        raise IllegalAction("empty_stack", f"seat {target} has no card")
    turn.emit("special_used", special=special, seat=target, card=stack[-1])


def _use_swap(turn: _Turn, special: str, action: dict[str, Any], rng: Rng) -> None:
    target = action["seat"]
    _require_opponent(turn.state, turn.seat, target)
    stacks = turn.state["stacks"]
    if not stacks[target] or not stacks[turn.seat]:
        raise IllegalAction("empty_stack", "both stacks need a top card to swap")
    turn.emit(
        "special_used",
        special=special,
        seat=target,
        cards=[stacks[turn.seat][-1], stacks[target][-1]],
    )


def _use_magnet(turn: _Turn, special: str, action: dict[str, Any], rng: Rng) -> None:
    value = action["value"]
    if value not in turn.state["face_down"]:
        raise IllegalAction("card_not_face_down", f"card {value} is not face down")
    turn.emit("special_used", special=special, value=value)


_SPECIAL_EFFECTS = {
    "thief": _use_thief,
    "treasure": _use_treasure,
    "white_die": _use_white_die,
    "reroll": _use_reroll,
    "flip": _use_flip,
    "safe": _use_safe,
    "bomb": _use_bomb,
    "swap": _use_swap,
    "magnet": _use_magnet,
}

_DECIDERS = {
    "roll": _decide_roll,
    "take": _decide_take,
    "steal": _decide_steal,
    "use_special": _decide_use_special,
    "stop": _decide_stop,
    "pass": _decide_pass,
}
