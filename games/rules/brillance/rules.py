"""Brillance: carts, deliveries, gates, event cards and the brigands.

State layout (all JSON): ``carts`` is a list of the 30 company carts (id =
5 * company + n), ``brigands`` Pakius's cart, ``shops`` the 36 shops (one per
delivery space), ``hands``/``deck``/``discard`` the event cards (ids into
``cards.DECK``), ``turn`` what the current player has used this turn, and
``reaction`` an open Lucky Break window. ``evolve`` copies only the parts an
event changes, since a game runs to a few thousand events.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from ..base import Action, Event, IllegalAction, InvalidOptions, Rng, Seat, State, action_type
from .board import BOARD, CAMPS, CASTLE, COMPANIES, GATE, GUARD, NEIGHBOURS, SPACES, bfs, draw
from .cards import CARD_KINDS, DECK

ROUNDS = 10
CARTS_PER_COMPANY = 5
CART_CAPACITY = 3
ACTION_POINTS = 5
BRIGANDS = 30  # the id that names Pakius's cart in card targets
BRIGANDS_CAPACITY = 3
HAND_LIMIT = 4
OPENING_HAND = 2
ORDER_TOKENS = [2, 2, 2, 3, 3, 3]
WANDERING_SPACES = {2: 3, 3: 3, 4: 2, 5: 1}
SPEED_BONUS = {6: 6, 7: 4, 8: 3, 9: 2, 10: 1}
# Which companies play, for each player count: gates spread around the wall.
PLAYER_COMPANIES = {
    2: [0, 3],
    3: [0, 2, 4],
    4: [0, 1, 3, 4],
    5: [0, 1, 2, 3, 4],
    6: [0, 1, 2, 3, 4, 5],
}

OPTIONS: dict[str, Any] = {
    "wandering_competitors": {
        "type": "boolean",
        "default": False,
        "description": "After moving their carts, a player may move the non-player companies' "
        "carts 3 spaces (2-3 players), 2 (4 players) or 1 (5 players).",
    },
    "speed_bonus": {
        "type": "boolean",
        "default": False,
        "description": "4+ players: an empty cart leaving the city in turn 6/7/8/9/10 "
        "scores 6/4/3/2/1 extra points.",
    },
    "one_card_per_turn": {
        "type": "boolean",
        "default": False,
        "description": "Designer's variant: at most one event card per turn (Bribe excepted).",
    },
}

OUTSIDE_KINDS = ("start", "gate")


# ---------------------------------------------------------------- options, setup


def normalize_options(options: dict[str, Any], num_players: int) -> dict[str, Any]:
    if not isinstance(options, dict):
        raise InvalidOptions("options must be an object")
    unknown = set(options) - set(OPTIONS)
    if unknown:
        raise InvalidOptions(f"unknown options: {sorted(unknown)}")
    result = {}
    for name, spec in OPTIONS.items():
        value = options.get(name, spec["default"])
        if not isinstance(value, bool):
            raise InvalidOptions(f"{name} must be true or false")
        result[name] = value
    if not isinstance(num_players, int) or not 2 <= num_players <= 6:
        raise InvalidOptions("Brillance is for 2 to 6 players")
    if result["speed_bonus"] and num_players < 4:
        raise InvalidOptions("speed_bonus is an optional rule for 4 or more players")
    if result["wandering_competitors"] and num_players > 5:
        raise InvalidOptions("wandering_competitors needs non-player companies (2-5 players)")
    return result


def setup(num_players: int, options: dict[str, Any], rng: Rng) -> list[Event]:
    """Place carts and orders, shuffle the deck and deal two cards each."""
    options = normalize_options(options, num_players)
    companies = PLAYER_COMPANIES[num_players]
    orders: list[list[int]] = []
    for _ in companies:
        tokens = list(ORDER_TOKENS)
        rng.shuffle(tokens)
        orders.append(tokens)
    deck = list(range(len(DECK)))
    rng.shuffle(deck)
    events: list[Event] = [
        {
            "type": "game_started",
            "actor": None,
            "num_players": num_players,
            "options": options,
            "companies": [COMPANIES[c] for c in companies],
            "orders": orders,
        },
        {"type": "deck_shuffled", "actor": None, "order": deck},
    ]
    for seat in range(num_players):
        hand = deck[seat * OPENING_HAND : (seat + 1) * OPENING_HAND]
        events.append({"type": "cards_dealt", "actor": None, "seat": seat, "cards": hand})
    events.append({"type": "turn_started", "actor": 0, "seat": 0, "round": 1})
    return events


def _initial_state(event: Event) -> State:
    """The board after set-up: carts in camps or on non-player delivery spaces."""
    players = event["companies"]
    shops: list[dict[str, Any]] = []
    order_index: dict[str, int] = {}
    for sid in _shop_spaces():
        colour = SPACES[sid]["colour"]
        order = None
        if colour in players:
            n = order_index.get(colour, 0)
            order = event["orders"][players.index(colour)][n]
            order_index[colour] = n + 1
        shops.append(
            {
                "id": len(shops),
                "space": sid,
                "colour": colour,
                "order": order,
                "minus": False,
                "plus": False,
                "delivered": 0,
                "filled": False,
            }
        )
    carts = []
    for company, colour in enumerate(COMPANIES):
        if colour in players:
            owner: int | None = players.index(colour)
            places = CAMPS[colour]
            load = CART_CAPACITY
        else:
            owner = None
            places = [
                s["space"]
                for s in shops
                if s["colour"] == colour and not SPACES[s["space"]]["island"]
            ]
            load = 0
        for n in range(CARTS_PER_COMPANY):
            carts.append(
                {
                    "id": company * CARTS_PER_COMPANY + n,
                    "colour": colour,
                    "owner": owner,
                    "space": places[n],
                    "load": load,
                    "points": 0,
                    "entered": owner is None,
                    "out": False,
                    "immobile": False,
                    "stay": None,
                }
            )
    return {
        "num_players": event["num_players"],
        "options": event["options"],
        "companies": players,
        "round": 1,
        "current": 0,
        "phase": "main",
        "carts": carts,
        "brigands": {"space": CASTLE, "loot": 0, "active": False, "points": 0, "immobile": False},
        "shops": shops,
        "obstacles": [],
        "deck": [],
        "discard": [],
        "hands": [[] for _ in players],
        "reaction": None,
        "turn": _fresh_turn(event["num_players"], event["options"]),
        "exits": [],
        "card_plays": 0,
        "stolen": 0,
        "over": False,
    }


def _shop_spaces() -> list[int]:
    return [sp["id"] for sp in SPACES if sp["kind"] == "delivery"]


def _fresh_turn(num_players: int, options: dict[str, Any]) -> dict[str, Any]:
    wander = WANDERING_SPACES.get(num_players, 0) if options["wandering_competitors"] else 0
    return {
        "wander_left": wander,
        "cards_played": 0,
        "carts_done": False,
        "robbed": [],
        "after_brigands": "main",
    }


# ---------------------------------------------------------------- evolve


def evolve(state: State, event: Event) -> State:
    handler = _EVOLVERS.get(event["type"])
    if handler is None:
        raise ValueError(f"unknown event type {event['type']!r}")
    return handler(state, event)


def _with_cart(state: State, cart_id: int, **changes: Any) -> State:
    new = dict(state)
    carts = list(state["carts"])
    carts[cart_id] = {**carts[cart_id], **changes}
    new["carts"] = carts
    return new


def _with(state: State, key: str, **changes: Any) -> State:
    return {**state, key: {**state[key], **changes}}


def _ev_game_started(state: State, event: Event) -> State:
    return _initial_state(event)


def _ev_deck_shuffled(state: State, event: Event) -> State:
    return {**state, "deck": list(event["order"]), "discard": []}


def _ev_deck_reshuffled(state: State, event: Event) -> State:
    return {**state, "deck": list(event["order"]), "discard": []}


def _ev_cards_dealt(state: State, event: Event) -> State:
    cards = event["cards"]
    hands = list(state["hands"])
    hands[event["seat"]] = hands[event["seat"]] + list(cards)
    return {**state, "hands": hands, "deck": state["deck"][len(cards) :]}


def _ev_card_drawn(state: State, event: Event) -> State:
    return _ev_cards_dealt(state, {**event, "cards": [event["card"]]})


def _ev_turn_started(state: State, event: Event) -> State:
    seat, round_ = event["seat"], event["round"]
    points = min(seat + 1, ACTION_POINTS) if round_ == 1 else ACTION_POINTS
    carts = []
    for cart in state["carts"]:
        if cart["owner"] == seat and cart["space"] is not None:
            space = cart["space"]
            foreign = (
                SPACES[space]["kind"] == "delivery" and SPACES[space]["colour"] != cart["colour"]
            )
            cart = {**cart, "points": points, "stay": space if foreign else None}
        carts.append(cart)
    brigands = state["brigands"]
    phase = "main"
    if brigands["active"]:
        phase = "brigands"
        brigands = {**brigands, "points": ACTION_POINTS}
    return {
        **state,
        "round": round_,
        "current": seat,
        "phase": phase,
        "carts": carts,
        "brigands": brigands,
        "turn": _fresh_turn(state["num_players"], state["options"]),
    }


def _ev_brigands_stalled(state: State, event: Event) -> State:
    state = _with(state, "brigands", immobile=False, points=0)
    return {**state, "phase": "main"}


def _ev_cart_moved(state: State, event: Event) -> State:
    cart = state["carts"][event["cart"]]
    path = event["path"]
    entered = cart["entered"] or any(SPACES[s]["kind"] not in OUTSIDE_KINDS for s in path)
    return _with_cart(
        state, event["cart"], space=path[-1], points=cart["points"] - len(path), entered=entered
    )


def _ev_cart_left_city(state: State, event: Event) -> State:
    state = _with_cart(state, event["cart"], space=None, out=True, load=0, points=0)
    exit_record = {
        "seat": event["actor"],
        "cart": event["cart"],
        "round": state["round"],
        "bonus": event["bonus"],
        "load": event["load"],
    }
    return {**state, "exits": state["exits"] + [exit_record]}


def _ev_merchandise_unloaded(state: State, event: Event) -> State:
    cart = state["carts"][event["cart"]]
    count = event["count"]
    state = _with_cart(
        state, event["cart"], load=cart["load"] - count, points=cart["points"] - count
    )
    shops = list(state["shops"])
    shop = shops[event["shop"]]
    shops[event["shop"]] = {**shop, "delivered": shop["delivered"] + count}
    return {**state, "shops": shops}


def _ev_order_filled(state: State, event: Event) -> State:
    shops = list(state["shops"])
    shops[event["shop"]] = {**shops[event["shop"]], "filled": True}
    return {**state, "shops": shops}


def _ev_merchandise_transferred(state: State, event: Event) -> State:
    giver = state["carts"][event["from"]]
    taker = state["carts"][event["to"]]
    count = event["count"]
    state = _with_cart(
        state, giver["id"], load=giver["load"] - count, points=giver["points"] - count
    )
    return _with_cart(state, taker["id"], load=taker["load"] + count)


def _ev_card_played(state: State, event: Event) -> State:
    seat = event["actor"]
    hands = list(state["hands"])
    hands[seat] = [c for c in hands[seat] if c != event["card"]]
    turn = state["turn"]
    if event["kind"] != "bribe":
        turn = {**turn, "cards_played": turn["cards_played"] + 1}
    return {
        **state,
        "hands": hands,
        "turn": turn,
        "card_plays": state["card_plays"] + 1,
        "reaction": {
            "card": event["card"],
            "kind": event["kind"],
            "player": seat,
            "play": event["play"],
            "seats": [],
        },
    }


def _ev_reaction_window_opened(state: State, event: Event) -> State:
    return _with(state, "reaction", seats=list(event["seats"]))


def _ev_reaction_declined(state: State, event: Event) -> State:
    seats = [s for s in state["reaction"]["seats"] if s != event["actor"]]
    return _with(state, "reaction", seats=seats)


def _ev_card_cancelled(state: State, event: Event) -> State:
    seat = event["actor"]
    hands = list(state["hands"])
    hands[seat] = [c for c in hands[seat] if c != event["lucky_break"]]
    discard = state["discard"] + [state["reaction"]["card"], event["lucky_break"]]
    return {
        **state,
        "hands": hands,
        "discard": discard,
        "reaction": None,
        "card_plays": state["card_plays"] + 1,
    }


def _ev_card_resolved(state: State, event: Event) -> State:
    return {**state, "discard": state["discard"] + [state["reaction"]["card"]], "reaction": None}


def _ev_brigands_activated(state: State, event: Event) -> State:
    state = _with(state, "brigands", active=True, points=ACTION_POINTS)
    turn = {**state["turn"], "after_brigands": state["phase"]}
    return {**state, "phase": "brigands", "turn": turn}


def _ev_merchandise_stolen(state: State, event: Event) -> State:
    """One merchandise changes hands: brigands robbing, or Unfair Competition."""
    victim, thief = event["from"], event["to"]
    if victim == BRIGANDS:
        state = _with(state, "brigands", loot=state["brigands"]["loot"] - 1)
    else:
        state = _with_cart(state, victim, load=state["carts"][victim]["load"] - 1)
    if thief == BRIGANDS:
        brig = state["brigands"]
        state = _with(state, "brigands", loot=brig["loot"] + 1, points=brig["points"] - 1)
        state = _with(state, "turn", robbed=state["turn"]["robbed"] + [victim])
        return {**state, "stolen": state["stolen"] + 1}
    cart = state["carts"][thief]
    return _with_cart(state, thief, load=cart["load"] + 1, points=cart["points"] - 1)


def _ev_shop_marked(state: State, event: Event) -> State:
    shops = list(state["shops"])
    marker = "minus" if event["marker"] == -1 else "plus"
    shops[event["shop"]] = {**shops[event["shop"]], marker: True}
    return {**state, "shops": shops}


def _ev_cart_immobilised(state: State, event: Event) -> State:
    for cart_id in event["carts"]:
        if cart_id == BRIGANDS:
            state = _with(state, "brigands", immobile=True)
        else:
            state = _with_cart(state, cart_id, immobile=True)
    return state


def _ev_obstacle_placed(state: State, event: Event) -> State:
    return {**state, "obstacles": sorted(state["obstacles"] + [event["space"]])}


def _ev_obstacle_removed(state: State, event: Event) -> State:
    return {**state, "obstacles": [s for s in state["obstacles"] if s != event["space"]]}


def _ev_cart_bribed(state: State, event: Event) -> State:
    if event["cart"] == BRIGANDS:
        return _with(state, "brigands", space=event["space"])
    return _with_cart(state, event["cart"], space=event["space"])


def _ev_brigands_moved(state: State, event: Event) -> State:
    brig = state["brigands"]
    return _with(
        state, "brigands", space=event["path"][-1], points=brig["points"] - len(event["path"])
    )


def _ev_brigands_returned(state: State, event: Event) -> State:
    state = _with(state, "brigands", loot=0, active=False, points=0)
    return {**state, "phase": state["turn"]["after_brigands"]}


def _ev_brigands_done(state: State, event: Event) -> State:
    state = _with(state, "brigands", points=0)
    return {**state, "phase": state["turn"]["after_brigands"]}


def _ev_wandering_moved(state: State, event: Event) -> State:
    state = _with_cart(state, event["cart"], space=event["path"][-1])
    turn = state["turn"]
    return {
        **state,
        "turn": {
            **turn,
            "wander_left": turn["wander_left"] - len(event["path"]),
            "carts_done": True,
        },
    }


def _ev_turn_ended(state: State, event: Event) -> State:
    seat = event["actor"]
    carts = [
        {**cart, "immobile": False, "points": 0, "stay": None} if cart["owner"] == seat else cart
        for cart in state["carts"]
    ]
    return {**state, "carts": carts}


def _ev_game_ended(state: State, event: Event) -> State:
    return {**state, "over": True, "phase": "over"}


_EVOLVERS = {
    "game_started": _ev_game_started,
    "deck_shuffled": _ev_deck_shuffled,
    "deck_reshuffled": _ev_deck_reshuffled,
    "cards_dealt": _ev_cards_dealt,
    "card_drawn": _ev_card_drawn,
    "turn_started": _ev_turn_started,
    "brigands_stalled": _ev_brigands_stalled,
    "cart_moved": _ev_cart_moved,
    "cart_left_city": _ev_cart_left_city,
    "merchandise_unloaded": _ev_merchandise_unloaded,
    "order_filled": _ev_order_filled,
    "merchandise_transferred": _ev_merchandise_transferred,
    "card_played": _ev_card_played,
    "reaction_window_opened": _ev_reaction_window_opened,
    "reaction_declined": _ev_reaction_declined,
    "card_cancelled": _ev_card_cancelled,
    "card_resolved": _ev_card_resolved,
    "brigands_activated": _ev_brigands_activated,
    "merchandise_stolen": _ev_merchandise_stolen,
    "shop_marked": _ev_shop_marked,
    "cart_immobilised": _ev_cart_immobilised,
    "obstacle_placed": _ev_obstacle_placed,
    "obstacle_removed": _ev_obstacle_removed,
    "cart_bribed": _ev_cart_bribed,
    "brigands_moved": _ev_brigands_moved,
    "brigands_returned": _ev_brigands_returned,
    "brigands_done": _ev_brigands_done,
    "wandering_moved": _ev_wandering_moved,
    "turn_ended": _ev_turn_ended,
    "game_ended": _ev_game_ended,
}


# ---------------------------------------------------------------- board queries


def occupied_spaces(state: State) -> set[int]:
    """Spaces that block movement: carts, the brigands and drunken dwarfs."""
    taken = {cart["space"] for cart in state["carts"] if cart["space"] is not None}
    taken.add(state["brigands"]["space"])
    taken.update(state["obstacles"])
    return taken


def cart_at(state: State, space: int) -> int | None:
    for cart in state["carts"]:
        if cart["space"] == space:
            return cart["id"]
    if state["brigands"]["space"] == space:
        return BRIGANDS
    return None


def is_empty_space(state: State, space: int, taken: set[int] | None = None) -> bool:
    """'Empty' in the card sense: a free city space that is not a guard space."""
    kind = SPACES[space]["kind"]
    if kind in ("guard", "gate", "start", "castle"):
        return False
    return space not in (occupied_spaces(state) if taken is None else taken)


def shop_at(state: State, space: int) -> dict[str, Any] | None:
    index = _SHOP_BY_SPACE.get(space)
    return None if index is None else state["shops"][index]


def remaining_order(shop: dict[str, Any]) -> int:
    """Merchandise the shop still accepts (order token plus markers, minus deliveries)."""
    if shop["order"] is None or shop["filled"]:
        return 0
    need = shop["order"] - (1 if shop["minus"] else 0) + (1 if shop["plus"] else 0)
    return need - shop["delivered"]


def step_allowed(cart: dict[str, Any], here: int, there: int) -> bool:
    """May this company cart step from ``here`` to ``there`` (ignoring other carts)?

    Only its own camp and gate lie outside the city for it: it walks the camp and
    the gate to enter, and steps from its guard space back onto its gate only to
    leave the city for good."""
    target = SPACES[there]
    if target["kind"] == "castle":
        return False
    if cart["owner"] is None:
        return target["kind"] not in OUTSIDE_KINDS  # non-player carts stay in the city
    if target["kind"] in OUTSIDE_KINDS:
        if cart["owner"] is None or target["colour"] != cart["colour"]:
            return False
        if cart["entered"]:
            return here == GUARD[cart["colour"]] and there == GATE[cart["colour"]]
    return True


def may_stop(cart: dict[str, Any], space: int) -> bool:
    sp = SPACES[space]
    return not (sp["kind"] == "guard" and sp["colour"] != cart["colour"])


def is_exit_step(cart: dict[str, Any], here: int, there: int) -> bool:
    return cart["entered"] and here == GUARD[cart["colour"]] and there == GATE[cart["colour"]]


def reachable(
    state: State, cart: dict[str, Any], budget: int, taken: set[int] | None = None
) -> dict[int, list[int]]:
    """Every space where ``cart`` may end a move of at most ``budget`` steps, with
    one shortest path to it (BFS: no passing and no stopping on occupied spaces)."""
    taken = occupied_spaces(state) if taken is None else taken
    start = cart["space"]
    paths: dict[int, list[int]] = {start: []}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        path = paths[here]
        if len(path) >= budget or (cart["entered"] and here == GATE[cart["colour"]]):
            continue  # out of points, or the cart has just left the city
        for there in NEIGHBOURS[here]:
            if there in paths or there in taken or not step_allowed(cart, here, there):
                continue
            paths[there] = path + [there]
            queue.append(there)
    del paths[start]
    return {space: path for space, path in paths.items() if may_stop(cart, space)}


def castle_distances(state: State) -> dict[int, int]:
    """Distance of every space to the castle with today's traffic (for the brigands)."""
    taken = occupied_spaces(state) - {state["brigands"]["space"]}
    flags = [sp["kind"] not in OUTSIDE_KINDS and sp["id"] not in taken for sp in SPACES]
    flags[CASTLE] = True
    return bfs(CASTLE, NEIGHBOURS, flags)


def brigands_reachable(state: State) -> dict[int, list[int]]:
    """Where the brigands may stop now, one shortest path each. Full, they may only
    follow a most direct route to the castle."""
    brig = state["brigands"]
    taken = occupied_spaces(state)
    start = brig["space"]
    homing = brig["loot"] >= BRIGANDS_CAPACITY
    to_castle = castle_distances(state) if homing else {}
    paths: dict[int, list[int]] = {start: []}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        path = paths[here]
        if len(path) >= brig["points"] or (here == CASTLE and path):
            continue
        for there in NEIGHBOURS[here]:
            if there in paths or SPACES[there]["kind"] in OUTSIDE_KINDS:
                continue
            if there in taken and there != CASTLE:
                continue
            if homing and to_castle.get(there, 10**6) != to_castle.get(here, 10**6) - 1:
                continue
            paths[there] = path + [there]
            queue.append(there)
    del paths[start]
    return {s: p for s, p in paths.items() if SPACES[s]["kind"] != "guard"}


_SHOP_BY_SPACE = {sid: index for index, sid in enumerate(_shop_spaces())}


# ---------------------------------------------------------------- decide


class _Emitter:
    """Collects events while keeping a folded state, so later checks see earlier events."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)


def decide(state: State, seat: Seat, action: Action, rng: Rng) -> list[Event]:
    if state.get("over"):
        raise IllegalAction("game_finished", "the game is over")
    kind = action_type(action, _DECIDERS, "Brillance")
    handler = _DECIDERS[kind]
    if seat not in pending(state):
        raise IllegalAction("not_your_turn", "another player must act now")
    reaction = state["reaction"]
    if reaction is not None and kind != "react":
        raise IllegalAction("reaction_pending", "answer the card first: react")
    if reaction is None and kind == "react":
        raise IllegalAction("no_reaction_pending", "no card to react to")
    em = _Emitter(state)
    handler(em, seat, action, rng)
    return em.events


def _int(action: Action, key: str) -> int:
    value = action.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise IllegalAction("malformed_action", f"{key!r} must be an integer")
    return value


def _space_list(action: Action, key: str = "path") -> list[int]:
    value = action.get(key)
    if not isinstance(value, list) or not value:
        raise IllegalAction("malformed_action", f"{key!r} must be a non-empty list of spaces")
    for space in value:
        if not isinstance(space, int) or isinstance(space, bool) or not (0 <= space < len(SPACES)):
            raise IllegalAction("malformed_action", f"{space!r} is not a space id")
    return value


def _space(action: Action, key: str = "space") -> int:
    space = _int(action, key)
    if not 0 <= space < len(SPACES):
        raise IllegalAction("malformed_action", f"{space} is not a space id")
    return space


def _any_cart(state: State, cart_id: int) -> dict[str, Any]:
    if not 0 <= cart_id < len(state["carts"]):
        raise IllegalAction("unknown_cart", f"no cart {cart_id}")
    return state["carts"][cart_id]


def _own_cart(state: State, seat: Seat, action: Action, key: str = "cart") -> dict[str, Any]:
    cart = _any_cart(state, _int(action, key))
    if cart["owner"] != seat:
        raise IllegalAction("not_your_cart", f"cart {cart['id']} is not yours")
    if cart["out"]:
        raise IllegalAction("cart_out", f"cart {cart['id']} has left the city")
    return cart


def _require_main_phase(state: State) -> None:
    if state["phase"] == "brigands":
        raise IllegalAction("brigands_to_move", "move the brigands first (or brigands_end)")


def _require_cart_phase(state: State) -> None:
    _require_main_phase(state)
    if state["turn"]["carts_done"]:
        raise IllegalAction(
            "carts_already_done", "after moving wandering competitors your carts stay put"
        )


def _check_walk(cart: dict[str, Any], path: list[int], taken: set[int]) -> bool:
    """Validate a company cart's path step by step; True when it leaves the city."""
    here = cart["space"]
    for index, there in enumerate(path):
        if there not in NEIGHBOURS[here]:
            raise IllegalAction("not_adjacent", f"no street from {here} to {there}")
        if there in taken:
            raise IllegalAction("path_blocked", f"space {there} is occupied")
        if SPACES[there]["kind"] == "castle":
            raise IllegalAction("castle_space", "only the brigands enter the castle")
        if not step_allowed(cart, here, there):
            raise IllegalAction("outside_city", f"this cart may not go to space {there}")
        if is_exit_step(cart, here, there):
            if index != len(path) - 1:
                raise IllegalAction("path_after_exit", "a cart that leaves stops there")
            return True
        here = there
    if not may_stop(cart, path[-1]):
        raise IllegalAction("guard_space", "a cart may not stop on another company's guard")
    return False


def _decide_move(em: _Emitter, seat: Seat, action: Action, rng: Rng) -> None:
    state = em.state
    _require_cart_phase(state)
    cart = _own_cart(state, seat, action)
    path = _space_list(action)
    if cart["immobile"]:
        raise IllegalAction("cart_immobilised", "this cart is broken down this turn")
    if len(path) > cart["points"]:
        raise IllegalAction("no_action_points", f"the cart has {cart['points']} points left")
    leaves = _check_walk(cart, path, occupied_spaces(state))
    em.emit({"type": "cart_moved", "actor": seat, "cart": cart["id"], "path": path})
    if leaves:
        load = em.state["carts"][cart["id"]]["load"]
        bonus = 0
        if state["options"]["speed_bonus"] and load == 0:
            bonus = SPEED_BONUS.get(state["round"], 0)
        em.emit(
            {
                "type": "cart_left_city",
                "actor": seat,
                "cart": cart["id"],
                "load": load,
                "bonus": bonus,
            }
        )


def _decide_unload(em: _Emitter, seat: Seat, action: Action, rng: Rng) -> None:
    state = em.state
    _require_cart_phase(state)
    cart = _own_cart(state, seat, action)
    count = _int(action, "count")
    shop = shop_at(state, cart["space"])
    if shop is None or shop["colour"] != cart["colour"]:
        raise IllegalAction("not_on_own_delivery_space", "unload only at your own shops")
    if shop["filled"]:
        raise IllegalAction("order_filled", "this shop has all it ordered")
    if count < 1:
        raise IllegalAction("malformed_action", "count must be at least 1")
    if count > cart["load"]:
        raise IllegalAction("nothing_to_unload", f"the cart carries {cart['load']}")
    if count > remaining_order(shop):
        raise IllegalAction("exceeds_order", f"the shop wants only {remaining_order(shop)}")
    if count > cart["points"]:
        raise IllegalAction("no_action_points", "one action point per merchandise")
    em.emit(
        {
            "type": "merchandise_unloaded",
            "actor": seat,
            "cart": cart["id"],
            "shop": shop["id"],
            "count": count,
        }
    )
    if remaining_order(em.state["shops"][shop["id"]]) == 0:
        em.emit(
            {"type": "order_filled", "actor": seat, "shop": shop["id"], "points": shop["order"]}
        )


def _decide_transfer(em: _Emitter, seat: Seat, action: Action, rng: Rng) -> None:
    state = em.state
    _require_cart_phase(state)
    giver = _own_cart(state, seat, action, "from")
    taker = _own_cart(state, seat, action, "to")
    count = _int(action, "count")
    if giver["id"] == taker["id"] or taker["space"] not in NEIGHBOURS[giver["space"]]:
        raise IllegalAction("carts_not_adjacent", "transfers are between adjacent carts")
    if count < 1:
        raise IllegalAction("malformed_action", "count must be at least 1")
    if count > giver["load"]:
        raise IllegalAction("nothing_to_unload", f"the cart carries {giver['load']}")
    if taker["load"] + count > CART_CAPACITY:
        raise IllegalAction("cart_full", "a cart carries at most 3 merchandise")
    if count > giver["points"]:
        raise IllegalAction("no_action_points", "one action point per merchandise given")
    em.emit(
        {
            "type": "merchandise_transferred",
            "actor": seat,
            "from": giver["id"],
            "to": taker["id"],
            "count": count,
        }
    )


def _decide_wander(em: _Emitter, seat: Seat, action: Action, rng: Rng) -> None:
    state = em.state
    _require_main_phase(state)
    if not state["options"]["wandering_competitors"]:
        raise IllegalAction("no_wandering", "the Wandering Competitors rule is not in play")
    cart = _any_cart(state, _int(action, "cart"))
    if cart["owner"] is not None:
        raise IllegalAction("not_wandering_cart", "only non-player companies' carts wander")
    path = _space_list(action)
    if len(path) > state["turn"]["wander_left"]:
        raise IllegalAction(
            "no_action_points", f"{state['turn']['wander_left']} wandering spaces left"
        )
    _check_walk(cart, path, occupied_spaces(state))
    em.emit({"type": "wandering_moved", "actor": seat, "cart": cart["id"], "path": path})


def _decide_brigands_move(em: _Emitter, seat: Seat, action: Action, rng: Rng) -> None:
    state = em.state
    if state["phase"] != "brigands":
        raise IllegalAction("not_brigands_phase", "the brigands are not yours to move now")
    path = _space_list(action)
    brig = state["brigands"]
    if len(path) > brig["points"]:
        raise IllegalAction("no_action_points", f"the brigands have {brig['points']} left")
    taken = occupied_spaces(state)
    homing = brig["loot"] >= BRIGANDS_CAPACITY
    to_castle = castle_distances(state) if homing else {}
    here = brig["space"]
    for index, there in enumerate(path):
        if there not in NEIGHBOURS[here]:
            raise IllegalAction("not_adjacent", f"no street from {here} to {there}")
        if SPACES[there]["kind"] in OUTSIDE_KINDS:
            raise IllegalAction("outside_city", "the brigands stay in the city")
        if there in taken:
            raise IllegalAction("path_blocked", f"space {there} is occupied")
        if there == CASTLE and index != len(path) - 1:
            raise IllegalAction("path_after_exit", "the brigands stop at the castle")
        if homing and to_castle.get(there, -1) != to_castle.get(here, -2) - 1:
            raise IllegalAction("brigands_must_return", "full, they go straight home")
        here = there
    if SPACES[here]["kind"] == "guard":
        raise IllegalAction("guard_space", "the brigands may not stop on a guard space")
    em.emit({"type": "brigands_moved", "actor": seat, "path": path})
    if here == CASTLE:
        em.emit({"type": "brigands_returned", "actor": seat, "loot": em.state["brigands"]["loot"]})
        return
    _brigands_rob(em, seat)
    brig = em.state["brigands"]
    if brig["points"] <= 0:
        em.emit({"type": "brigands_done", "actor": seat})


def _brigands_rob(em: _Emitter, seat: Seat) -> None:
    """Stopping beside loaded carts, the brigands take one from each (1 point each):
    opponents' carts of the mover first, then the mover's own, by cart id."""
    here = em.state["brigands"]["space"]
    victims = [
        cart
        for cart in em.state["carts"]
        if cart["space"] in NEIGHBOURS[here]
        and cart["owner"] is not None
        and cart["load"] > 0
        and cart["id"] not in em.state["turn"]["robbed"]
    ]
    victims.sort(key=lambda cart: (cart["owner"] == seat, cart["id"]))
    for cart in victims:
        brig = em.state["brigands"]
        if brig["points"] <= 0 or brig["loot"] >= BRIGANDS_CAPACITY:
            break
        em.emit({"type": "merchandise_stolen", "actor": seat, "from": cart["id"], "to": BRIGANDS})


def _decide_brigands_end(em: _Emitter, seat: Seat, action: Action, rng: Rng) -> None:
    state = em.state
    if state["phase"] != "brigands":
        raise IllegalAction("not_brigands_phase", "the brigands are not yours to move now")
    brig = state["brigands"]
    if brig["loot"] >= BRIGANDS_CAPACITY and brig["points"] > 0 and brigands_reachable(state):
        raise IllegalAction("brigands_must_return", "full, the brigands must head home")
    em.emit({"type": "brigands_done", "actor": seat})


def _decide_end_turn(em: _Emitter, seat: Seat, action: Action, rng: Rng) -> None:
    state = em.state
    _require_main_phase(state)
    for cart in state["carts"]:
        if (
            cart["owner"] == seat
            and cart["stay"] is not None
            and cart["space"] == cart["stay"]
            and not cart["immobile"]
            and reachable(state, cart, cart["points"])
        ):
            raise IllegalAction(
                "must_leave_delivery_space",
                f"cart {cart['id']} may not stay a second turn on another company's delivery space",
            )
    _finish_turn(em, seat, rng)


def _finish_turn(em: _Emitter, seat: Seat, rng: Rng) -> None:
    """End of turn: draw a card (hand limit 4), then the next player or the end."""
    em.emit({"type": "turn_ended", "actor": seat})
    state = em.state
    if len(state["hands"][seat]) < HAND_LIMIT:
        if not state["deck"] and state["discard"]:
            order = list(state["discard"])
            rng.shuffle(order)
            em.emit({"type": "deck_reshuffled", "actor": None, "order": order})
        if em.state["deck"]:
            em.emit(
                {"type": "card_drawn", "actor": seat, "seat": seat, "card": em.state["deck"][0]}
            )
    next_seat = (seat + 1) % state["num_players"]
    next_round = state["round"] + (1 if next_seat == 0 else 0)
    if next_round > ROUNDS:
        em.emit({"type": "game_ended", "actor": None, "scores": _scores(em.state)})
        return
    em.emit({"type": "turn_started", "actor": next_seat, "seat": next_seat, "round": next_round})
    brig = em.state["brigands"]
    if brig["active"] and brig["immobile"]:
        em.emit({"type": "brigands_stalled", "actor": next_seat})


# ---------------------------------------------------------------- event cards


def _decide_play_card(em: _Emitter, seat: Seat, action: Action, rng: Rng) -> None:
    state = em.state
    _require_main_phase(state)
    card = _int(action, "card")
    if card not in state["hands"][seat]:
        raise IllegalAction("card_not_in_hand", f"card {card} is not in your hand")
    kind = DECK[card]
    if kind == "lucky_break":
        raise IllegalAction("only_as_reaction", "Lucky Break is played when a card hits you")
    if (
        state["options"]["one_card_per_turn"]
        and kind != "bribe"
        and state["turn"]["cards_played"] >= 1
    ):
        raise IllegalAction("one_card_per_turn", "one event card per turn (Bribe excepted)")
    play, targets = _CARD_CHECKS[kind](state, seat, action)
    em.emit({"type": "card_played", "actor": seat, "card": card, "kind": kind, "play": play})
    reactors = [s for s in sorted(set(targets)) if s != seat and _lucky_break_in(state, s)]
    if reactors:
        em.emit({"type": "reaction_window_opened", "actor": None, "seats": reactors})
    else:
        _resolve_card(em, seat)


def _lucky_break_in(state: State, seat: Seat) -> int | None:
    for card in state["hands"][seat]:
        if DECK[card] == "lucky_break":
            return card
    return None


def _resolve_card(em: _Emitter, seat: Seat) -> None:
    """The played card takes effect (no Lucky Break, or every target declined)."""
    reaction = em.state["reaction"]
    kind, play = reaction["kind"], reaction["play"]
    player = reaction["player"]
    em.emit({"type": "card_resolved", "actor": player, "card": reaction["card"], "kind": kind})
    if kind == "brigands":
        em.emit({"type": "brigands_activated", "actor": player})
    elif kind == "unfair_competition":
        em.emit(
            {
                "type": "merchandise_stolen",
                "actor": player,
                "from": play["target"],
                "to": play["cart"],
            }
        )
    elif kind in ("bonus_gift", "delivery_error"):
        em.emit(
            {
                "type": "shop_marked",
                "actor": player,
                "shop": play["shop"],
                "marker": -1 if kind == "bonus_gift" else 1,
            }
        )
    elif kind == "breakdown":
        em.emit({"type": "cart_immobilised", "actor": player, "carts": [play["target"]]})
    elif kind == "collision":
        em.emit({"type": "cart_immobilised", "actor": player, "carts": play["targets"]})
    elif kind == "unexpected_obstacle":
        em.emit({"type": "obstacle_placed", "actor": player, "space": play["space"]})
    elif kind == "clear_the_way":
        em.emit({"type": "obstacle_removed", "actor": player, "space": play["space"]})
    elif kind == "bribe":
        em.emit(
            {"type": "cart_bribed", "actor": player, "cart": play["target"], "space": play["space"]}
        )


def _decide_react(em: _Emitter, seat: Seat, action: Action, rng: Rng) -> None:
    cancel = action.get("cancel")
    if not isinstance(cancel, bool):
        raise IllegalAction("malformed_action", "'cancel' must be true or false")
    state = em.state
    if cancel:
        lucky = _lucky_break_in(state, seat)
        if lucky is None:
            raise IllegalAction("no_lucky_break", "you hold no Lucky Break")
        em.emit(
            {
                "type": "card_cancelled",
                "actor": seat,
                "card": state["reaction"]["card"],
                "kind": state["reaction"]["kind"],
                "lucky_break": lucky,
            }
        )
        return
    em.emit({"type": "reaction_declined", "actor": seat})
    if not em.state["reaction"]["seats"]:
        _resolve_card(em, seat)


def _opponent_cart(state: State, seat: Seat, cart_id: int) -> dict[str, Any]:
    """A cart of another player, on the board."""
    cart = _any_cart(state, cart_id)
    if cart["owner"] is None or cart["owner"] == seat or cart["space"] is None:
        raise IllegalAction("invalid_target", "target an opponent's cart on the board")
    return cart


def _check_brigands_card(
    state: State, seat: Seat, action: Action
) -> tuple[dict[str, Any], list[int]]:
    if state["brigands"]["immobile"]:
        raise IllegalAction("brigands_immobilised", "the brigands are broken down")
    return {}, []


def _check_unfair_competition(
    state: State, seat: Seat, action: Action
) -> tuple[dict[str, Any], list[int]]:
    cart = _own_cart(state, seat, action)
    target = _int(action, "target")
    if cart["load"] >= CART_CAPACITY:
        raise IllegalAction("cart_full", "your cart has no room")
    if cart["points"] < 1:
        raise IllegalAction("no_action_points", "stealing costs your cart 1 action point")
    if target == BRIGANDS:
        victim_space, victim_load, owners = (
            state["brigands"]["space"],
            state["brigands"]["loot"],
            [],
        )
    else:
        victim = _opponent_cart(state, seat, target)
        victim_space, victim_load, owners = victim["space"], victim["load"], [victim["owner"]]
    if victim_space not in NEIGHBOURS[cart["space"]]:
        raise IllegalAction("carts_not_adjacent", "steal only from an adjacent cart")
    if victim_load < 1:
        raise IllegalAction("nothing_to_steal", "that cart is empty")
    return {"cart": cart["id"], "target": target}, owners


def _check_shop(state: State, seat: Seat, action: Action, own: bool) -> dict[str, Any]:
    index = _int(action, "shop")
    if not 0 <= index < len(state["shops"]):
        raise IllegalAction("malformed_action", f"no shop {index}")
    shop = state["shops"][index]
    colour = state["companies"][seat]
    if shop["order"] is None or (shop["colour"] == colour) != own:
        raise IllegalAction(
            "invalid_target", "Bonus Gift on your shops, Delivery Error on an opponent's"
        )
    if shop["delivered"] > 0 or shop["filled"]:
        raise IllegalAction("shop_already_delivered", "markers go on untouched orders only")
    if shop["minus" if own else "plus"]:
        raise IllegalAction("marker_already_placed", "the same card twice on one shop")
    return shop


def _check_bonus_gift(state: State, seat: Seat, action: Action) -> tuple[dict[str, Any], list[int]]:
    shop = _check_shop(state, seat, action, own=True)
    return {"shop": shop["id"]}, []


def _check_delivery_error(
    state: State, seat: Seat, action: Action
) -> tuple[dict[str, Any], list[int]]:
    shop = _check_shop(state, seat, action, own=False)
    return {"shop": shop["id"]}, [state["companies"].index(shop["colour"])]


def _check_breakdown(state: State, seat: Seat, action: Action) -> tuple[dict[str, Any], list[int]]:
    target = _int(action, "target")
    if target == BRIGANDS:
        if not state["brigands"]["active"]:
            raise IllegalAction("invalid_target", "the brigands are asleep in their castle")
        if state["brigands"]["immobile"]:
            raise IllegalAction("already_immobilised", "the brigands are already stopped")
        return {"target": BRIGANDS}, []
    cart = _opponent_cart(state, seat, target)
    if cart["immobile"]:
        raise IllegalAction("already_immobilised", "that cart is already stopped")
    return {"target": target}, [cart["owner"]]


def _check_collision(state: State, seat: Seat, action: Action) -> tuple[dict[str, Any], list[int]]:
    targets = action.get("targets")
    if (
        not isinstance(targets, list)
        or len(targets) != 2
        or not all(isinstance(t, int) and not isinstance(t, bool) for t in targets)
    ):
        raise IllegalAction("malformed_action", "'targets' must be two cart ids")
    first, second = (_opponent_cart(state, seat, t) for t in targets)
    if first["owner"] == second["owner"]:
        raise IllegalAction("invalid_target", "a collision needs carts of two opponents")
    if second["space"] not in NEIGHBOURS[first["space"]]:
        raise IllegalAction("carts_not_adjacent", "colliding carts must be adjacent")
    if first["immobile"] or second["immobile"]:
        raise IllegalAction("already_immobilised", "one of the carts is already stopped")
    return {"targets": sorted(targets)}, [first["owner"], second["owner"]]


def _check_unexpected_obstacle(
    state: State, seat: Seat, action: Action
) -> tuple[dict[str, Any], list[int]]:
    space = _space(action)
    if not is_empty_space(state, space):
        raise IllegalAction("not_empty_space", "the dwarf needs an empty city space")
    return {"space": space}, []


def _check_clear_the_way(
    state: State, seat: Seat, action: Action
) -> tuple[dict[str, Any], list[int]]:
    space = _space(action)
    if space not in state["obstacles"]:
        raise IllegalAction("no_obstacle", "no drunken dwarf there")
    return {"space": space}, []


def _check_bribe(state: State, seat: Seat, action: Action) -> tuple[dict[str, Any], list[int]]:
    target = _int(action, "target")
    space = _space(action)
    if target == BRIGANDS:
        where, owners = state["brigands"]["space"], []
    else:
        cart = _any_cart(state, target)
        if cart["owner"] == seat or cart["space"] is None:
            raise IllegalAction("invalid_target", "bribe the driver of a cart not yours")
        where = cart["space"]
        owners = [] if cart["owner"] is None else [cart["owner"]]
    if SPACES[where]["kind"] in ("start", "gate", "castle"):
        raise IllegalAction("invalid_target", "only carts inside the city can be moved")
    if space not in NEIGHBOURS[where]:
        raise IllegalAction("not_adjacent", "a bribed cart moves one space")
    if not is_empty_space(state, space):
        raise IllegalAction("not_empty_space", "the bribed cart needs an empty space")
    return {"target": target, "space": space}, owners


_CARD_CHECKS = {
    "brigands": _check_brigands_card,
    "unfair_competition": _check_unfair_competition,
    "bonus_gift": _check_bonus_gift,
    "delivery_error": _check_delivery_error,
    "breakdown": _check_breakdown,
    "collision": _check_collision,
    "unexpected_obstacle": _check_unexpected_obstacle,
    "clear_the_way": _check_clear_the_way,
    "bribe": _check_bribe,
}

_DECIDERS = {
    "move": _decide_move,
    "unload": _decide_unload,
    "transfer": _decide_transfer,
    "play_card": _decide_play_card,
    "react": _decide_react,
    "brigands_move": _decide_brigands_move,
    "brigands_end": _decide_brigands_end,
    "wander": _decide_wander,
    "end_turn": _decide_end_turn,
}


# ---------------------------------------------------------------- queries


def system_step(state: State, rng: Rng) -> list[Event] | None:
    """Brillance has no automatic steps: draws read the stored deck order, and the
    rare reshuffle happens inside ``decide``."""
    return None


def pending(state: State) -> list[Seat]:
    if not state or state.get("over"):
        return []
    if state["reaction"] is not None:
        return state["reaction"]["seats"][:1]
    return [state["current"]]


def is_over(state: State) -> bool:
    return bool(state.get("over"))


def legal_actions(state: State, seat: Seat) -> list[Action]:
    if seat not in pending(state):
        return []
    if state["reaction"] is not None:
        return [{"type": "react", "cancel": True}, {"type": "react", "cancel": False}]
    if state["phase"] == "brigands":
        actions: list[Action] = [
            {"type": "brigands_move", "path": path} for path in brigands_reachable(state).values()
        ]
        brig = state["brigands"]
        if not (brig["loot"] >= BRIGANDS_CAPACITY and brig["points"] > 0 and actions):
            actions.append({"type": "brigands_end"})
        return actions
    actions = cart_actions(state, seat) + card_actions(state, seat)
    actions += wander_actions(state)
    if not blocking_stays(state, seat):
        actions.append({"type": "end_turn"})
    return actions


def blocking_stays(state: State, seat: Seat) -> list[int]:
    """Carts that must still leave another company's delivery space this turn."""
    return [
        cart["id"]
        for cart in state["carts"]
        if cart["owner"] == seat
        and cart["stay"] is not None
        and cart["space"] == cart["stay"]
        and not cart["immobile"]
        and reachable(state, cart, cart["points"])
    ]


def cart_actions(state: State, seat: Seat) -> list[Action]:
    """Moves (one shortest path per destination), unloads and transfers."""
    if state["turn"]["carts_done"]:
        return []
    actions: list[Action] = []
    taken = occupied_spaces(state)
    for cart in state["carts"]:
        if cart["owner"] != seat or cart["out"] or cart["points"] <= 0:
            continue
        if not cart["immobile"]:
            for path in reachable(state, cart, cart["points"], taken).values():
                actions.append({"type": "move", "cart": cart["id"], "path": path})
        shop = shop_at(state, cart["space"])
        if shop is not None and shop["colour"] == cart["colour"]:
            for count in range(1, min(cart["load"], remaining_order(shop), cart["points"]) + 1):
                actions.append({"type": "unload", "cart": cart["id"], "count": count})
        for other in state["carts"]:
            if other["owner"] == seat and other["space"] in NEIGHBOURS[cart["space"]]:
                room = min(cart["load"], CART_CAPACITY - other["load"], cart["points"])
                for count in range(1, room + 1):
                    actions.append(
                        {"type": "transfer", "from": cart["id"], "to": other["id"], "count": count}
                    )
    return actions


def wander_actions(state: State) -> list[Action]:
    budget = state["turn"]["wander_left"]
    if not state["options"]["wandering_competitors"] or budget <= 0:
        return []
    taken = occupied_spaces(state)
    return [
        {"type": "wander", "cart": cart["id"], "path": path}
        for cart in state["carts"]
        if cart["owner"] is None
        for path in reachable(state, cart, budget, taken).values()
    ]


def card_actions(state: State, seat: Seat) -> list[Action]:
    """Every card in hand with every valid target (found by asking the checkers)."""
    actions: list[Action] = []
    if state["options"]["one_card_per_turn"] and state["turn"]["cards_played"] >= 1:
        allowed = {"bribe"}
    else:
        allowed = set(CARD_KINDS) - {"lucky_break"}
    seen: set[str] = set()
    for card in state["hands"][seat]:
        kind = DECK[card]
        if kind not in allowed or kind in seen:
            continue
        seen.add(kind)
        for candidate in _card_candidates(state, seat, kind):
            action = {"type": "play_card", "card": card, **candidate}
            try:
                _CARD_CHECKS[kind](state, seat, action)
            except IllegalAction:
                continue
            actions.append(action)
    return actions


def _card_candidates(state: State, seat: Seat, kind: str) -> list[dict[str, Any]]:
    """Plausible targets for a card kind; the checkers filter the invalid ones."""
    carts = state["carts"]
    opponents = [c for c in carts if c["owner"] not in (None, seat) and c["space"] is not None]
    if kind == "brigands":
        return [{}]
    if kind == "unfair_competition":
        mine = [c for c in carts if c["owner"] == seat and c["space"] is not None]
        brig_space = state["brigands"]["space"]
        result = []
        for cart in mine:
            for victim in opponents:
                if victim["space"] in NEIGHBOURS[cart["space"]]:
                    result.append({"cart": cart["id"], "target": victim["id"]})
            if brig_space in NEIGHBOURS[cart["space"]]:
                result.append({"cart": cart["id"], "target": BRIGANDS})
        return result
    if kind in ("bonus_gift", "delivery_error"):
        return [{"shop": shop["id"]} for shop in state["shops"] if shop["order"] is not None]
    if kind == "breakdown":
        return [{"target": c["id"]} for c in opponents] + [{"target": BRIGANDS}]
    if kind == "collision":
        return [
            {"targets": [a["id"], b["id"]]}
            for a in opponents
            for b in opponents
            if a["id"] < b["id"] and b["space"] in NEIGHBOURS[a["space"]]
        ]
    if kind == "unexpected_obstacle":
        taken = occupied_spaces(state)
        return [{"space": sp["id"]} for sp in SPACES if is_empty_space(state, sp["id"], taken)]
    if kind == "clear_the_way":
        return [{"space": space} for space in state["obstacles"]]
    if kind == "bribe":
        taken = occupied_spaces(state)
        movable = [
            (c["id"], c["space"]) for c in carts if c["owner"] != seat and c["space"] is not None
        ]
        movable.append((BRIGANDS, state["brigands"]["space"]))
        return [
            {"target": cart_id, "space": there}
            for cart_id, where in movable
            for there in NEIGHBOURS[where]
            if is_empty_space(state, there, taken)
        ]
    return []


def _scores(state: State) -> list[int]:
    return [sum(score_breakdown(state, seat).values()) for seat in range(state["num_players"])]


def score_breakdown(state: State, seat: Seat) -> dict[str, int]:
    """Order tokens of completely delivered shops, carts out, speed bonuses."""
    colour = state["companies"][seat]
    delivered = sum(
        shop["order"] for shop in state["shops"] if shop["colour"] == colour and shop["filled"]
    )
    exits = [e for e in state["exits"] if e["seat"] == seat]
    return {
        "delivered": delivered,
        "carts_out": len(exits),
        "speed_bonus": sum(e["bonus"] for e in exits),
    }


def result(state: State) -> dict[str, Any] | None:
    if not state.get("over"):
        return None
    scores = _scores(state)
    first_exit: dict[int, int] = {}
    for index, record in enumerate(state["exits"]):
        first_exit.setdefault(record["seat"], index)
    never = len(state["exits"])

    def rank_key(seat: int) -> tuple[int, int]:
        return (-scores[seat], first_exit.get(seat, never))

    ranking = sorted(range(state["num_players"]), key=lambda s: (rank_key(s), s))
    best = rank_key(ranking[0])
    winners = [seat for seat in ranking if rank_key(seat) == best]
    return {
        "winners": winners,
        "scores": scores,
        "ranking": ranking,
        "details": [score_breakdown(state, seat) for seat in range(state["num_players"])],
        "first_exit": [first_exit.get(seat) for seat in range(state["num_players"])],
        "companies": state["companies"],
    }


# ---------------------------------------------------------------- hidden information


def view(state: State, seat: Seat | None) -> dict[str, Any]:
    """Everything public, plus the seat's own hand: never other hands or the deck."""
    if not state:
        return {}
    public = {key: value for key, value in state.items() if key not in ("hands", "deck")}
    public["hand_counts"] = [len(hand) for hand in state["hands"]]
    public["deck_count"] = len(state["deck"])
    if seat is not None and 0 <= seat < len(state["hands"]):
        public["hand"] = list(state["hands"][seat])
    return public


def redact_event(event: Event, seat: Seat | None) -> Event:
    kind = event["type"]
    if kind in ("deck_shuffled", "deck_reshuffled"):
        return {key: value for key, value in event.items() if key != "order"} | {
            "count": len(event["order"])
        }
    if kind == "cards_dealt" and event["seat"] != seat:
        return {key: value for key, value in event.items() if key != "cards"} | {
            "count": len(event["cards"])
        }
    if kind == "card_drawn" and event["seat"] != seat:
        return {key: value for key, value in event.items() if key != "card"} | {"count": 1}
    return event


def material() -> dict[str, Any]:
    return {
        "board": BOARD,
        "drawing": draw(),
        "companies": COMPANIES,
        "player_companies": {
            str(n): [COMPANIES[c] for c in cs] for n, cs in PLAYER_COMPANIES.items()
        },
        "cards": CARD_KINDS,
        "deck": DECK,
        "order_tokens": ORDER_TOKENS,
        "rounds": ROUNDS,
        "brigands_id": BRIGANDS,
        "wandering_spaces": {str(k): v for k, v in WANDERING_SPACES.items()},
        "speed_bonus": {str(k): v for k, v in SPEED_BONUS.items()},
    }
