"""A bot for bot seats and timeouts: short routes, useful cards, sensible reactions.

It is stateless: every call looks at the state and returns one legal action.
Each action it returns either spends action points, plays a card or ends
something, so a turn always finishes.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from ..base import Action, IllegalAction, Rng, Seat, State
from .board import COMPANIES, GATE, NEIGHBOURS, SPACES
from .cards import DECK
from .rules import (
    _CARD_CHECKS,
    ACTION_POINTS,
    BRIGANDS,
    BRIGANDS_CAPACITY,
    ROUNDS,
    blocking_stays,
    brigands_reachable,
    castle_distances,
    occupied_spaces,
    pending,
    reachable,
    remaining_order,
    score_breakdown,
    shop_at,
)

FAR = 10**6


def auto_action(state: State, seat: Seat, rng: Rng) -> Action:
    if seat not in pending(state):
        return {"type": "end_turn"}
    if state["reaction"] is not None:
        # Every card that targets a player hurts that player: cancel it.
        return {"type": "react", "cancel": True}
    if state["phase"] == "brigands":
        return _brigands_action(state, seat)
    card = _useful_card(state, seat)
    if card is not None:
        return card
    claims = _claim_shops(state, seat)
    for cart in state["carts"]:
        if cart["owner"] == seat and not cart["out"] and cart["points"] > 0:
            action = _cart_action(state, cart, claims.get(cart["id"]), rng)
            if action is not None:
                return action
    for cart_id in blocking_stays(state, seat):
        cart = state["carts"][cart_id]
        options = reachable(state, cart, cart["points"])
        destination = min(options, key=lambda space: (len(options[space]), space))
        return {"type": "move", "cart": cart_id, "path": options[destination]}
    return {"type": "end_turn"}


# ---------------------------------------------------------------- carts


def _static_blocked(state: State) -> set[int]:
    """Spaces that will not clear by themselves: parked non-player carts, dwarfs."""
    blocked = {c["space"] for c in state["carts"] if c["owner"] is None and c["space"] is not None}
    return blocked | set(state["obstacles"])


def _usable_by(colour: str) -> list[bool]:
    """Spaces a cart of ``colour`` may ever use (no castle, no other company's camp)."""
    return [
        sp["kind"] != "castle" and not (sp["kind"] in ("start", "gate") and sp["colour"] != colour)
        for sp in SPACES
    ]


_USABLE = {colour: _usable_by(colour) for colour in COMPANIES}


def _distances_to(targets: list[int], colour: str, blocked: set[int]) -> list[int]:
    """Multi-source BFS from the targets over spaces a cart of ``colour`` may use;
    a list indexed by space (FAR where unreachable)."""
    free = list(_USABLE[colour])
    for space in blocked:
        free[space] = False
    dist = [FAR] * len(SPACES)
    for target in targets:
        dist[target] = 0
    queue = deque(targets)
    while queue:
        here = queue.popleft()
        step = dist[here] + 1
        for there in NEIGHBOURS[here]:
            if free[there] and dist[there] == FAR:
                dist[there] = step
                queue.append(there)
    return dist


def _claim_shops(state: State, seat: Seat) -> dict[int, int]:
    """Give each loaded cart its own open shop, nearest pairs first, so the carts
    spread out instead of queueing behind each other for the same shop."""
    blocked = _static_blocked(state)
    colour = state["companies"][seat]
    carts = [c for c in state["carts"] if c["owner"] == seat and not c["out"] and c["load"] > 0]
    pairs = []
    if carts:
        for shop in state["shops"]:
            if shop["colour"] == colour and remaining_order(shop) > 0:
                dist = _distances_to([shop["space"]], colour, blocked)
                pairs += [
                    (dist[c["space"]], c["id"], shop["space"])
                    for c in carts
                    if dist[c["space"]] < FAR
                ]
    claims: dict[int, int] = {}
    for _, cart_id, space in sorted(pairs):
        if cart_id not in claims and space not in claims.values():
            claims[cart_id] = space
    return claims


def _cart_targets(state: State, cart: dict[str, Any], claim: int | None) -> tuple[list[int], bool]:
    """Where this cart should head: its claimed shop (else any open shop), or its
    gate to leave."""
    colour = cart["colour"]
    claimed = shop_at(state, claim) if claim is not None else None
    last_round = state["round"] == ROUNDS
    if claimed is not None and not (last_round and remaining_order(claimed) > cart["load"]):
        return [claimed["space"]], False
    if cart["load"] > 0:
        shops = [
            shop
            for shop in state["shops"]
            if shop["colour"] == colour and remaining_order(shop) > 0
        ]
        if state["round"] == ROUNDS and cart["entered"]:
            shops = [shop for shop in shops if remaining_order(shop) <= cart["load"]]
        if shops:
            return [shop["space"] for shop in shops], False
    if not cart["entered"]:
        return [], False  # nothing to deliver and still outside: stay in camp
    return [GATE[colour]], True


def _cart_action(state: State, cart: dict[str, Any], claim: int | None, rng: Rng) -> Action | None:
    shop = shop_at(state, cart["space"])
    if shop is not None and shop["colour"] == cart["colour"] and cart["load"] > 0:
        count = min(cart["load"], remaining_order(shop), cart["points"])
        if count > 0:
            return {"type": "unload", "cart": cart["id"], "count": count}
    if cart["immobile"]:
        return None
    targets, leaving = _cart_targets(state, cart, claim)
    if not targets:
        return None
    options = reachable(state, cart, cart["points"])
    if not options:
        return None
    if state["round"] == ROUNDS and leaving is False and cart["entered"]:
        exit_space = GATE[cart["colour"]]
        in_reach = [t for t in targets if t in options]
        if not in_reach and exit_space in options:
            return {"type": "move", "cart": cart["id"], "path": options[exit_space]}
    blocked = _static_blocked(state) - {cart["space"]}
    static = _distances_to(targets, cart["colour"], blocked)
    if not leaving and cart["entered"] and static[cart["space"]] < FAR:
        # Late in the game a shop the cart cannot reach in the turns left is not
        # worth it: it goes home by its gate instead (1 point for the cart).
        budget = (ROUNDS - state["round"] + 1) * ACTION_POINTS
        to_gate = _distances_to([GATE[cart["colour"]]], cart["colour"], blocked)
        if static[cart["space"]] + cart["load"] > budget >= to_gate[cart["space"]]:
            targets, leaving = [GATE[cart["colour"]]], True
            static = to_gate
    live = _distances_to(targets, cart["colour"], occupied_spaces(state) - {cart["space"]})
    # Follow today's free route unless it is a long detour around carts that will
    # move anyway; otherwise wait in line along the usual route.
    dist = live if live[cart["space"]] <= static[cart["space"]] + 6 else static
    here = dist[cart["space"]]

    def badness(space: int) -> tuple[int, int, int]:
        sp = SPACES[space]
        foreign = sp["kind"] == "delivery" and sp["colour"] != cart["colour"]
        return (dist[space], int(foreign), len(options[space]))

    best = min(options, key=lambda space: (badness(space), space))
    if dist[best] < here:
        return {"type": "move", "cart": cart["id"], "path": options[best]}
    return _sidestep(state, cart, options, static, rng)


def _sidestep(
    state: State, cart: dict[str, Any], options: dict[int, list[int]], static: list[int], rng: Rng
) -> Action | None:
    """Two carts nose to nose in a lane wait forever unless one gives way: a cart
    that has not moved yet this turn sometimes steps aside to a nearby space that
    is not much further from its goal (rng, so not both carts do it together)."""
    if cart["points"] < ACTION_POINTS or rng.random() > 0.4:
        return None
    here = static[cart["space"]]
    near = sorted(
        space for space in options if static[space] <= here + 3 and len(options[space]) <= 3
    )
    if not near:
        return None
    return {"type": "move", "cart": cart["id"], "path": options[rng.choice(near)]}


# ---------------------------------------------------------------- brigands


def _brigands_action(state: State, seat: Seat) -> Action:
    options = brigands_reachable(state)
    brig = state["brigands"]
    if brig["loot"] >= BRIGANDS_CAPACITY:
        if options:
            to_castle = castle_distances(state)
            best = min(options, key=lambda s: (to_castle.get(s, FAR), s))
            return {"type": "brigands_move", "path": options[best]}
        return {"type": "brigands_end"}
    robbed = set(state["turn"]["robbed"])

    def gain(space: int) -> int:
        total = 0
        for cart in state["carts"]:
            if (
                cart["space"] in NEIGHBOURS[space]
                and cart["owner"] is not None
                and cart["load"] > 0
                and cart["id"] not in robbed
            ):
                total += -2 if cart["owner"] == seat else 1
        return total

    scored = [(gain(space), -len(path), space) for space, path in options.items()]
    if scored:
        value, _, space = max(scored)
        if value > 0:
            return {"type": "brigands_move", "path": options[space]}
    return {"type": "brigands_end"}


# ---------------------------------------------------------------- cards


def _leader(state: State, seat: Seat) -> int | None:
    """The strongest opponent (most points so far): the target of nasty cards."""
    others = [s for s in range(state["num_players"]) if s != seat]
    if not others:
        return None
    return max(others, key=lambda s: (sum(score_breakdown(state, s).values()), -s))


def _try(state: State, seat: Seat, card: int, **targets: Any) -> Action | None:
    action = {"type": "play_card", "card": card, **targets}
    try:
        _CARD_CHECKS[DECK[card]](state, seat, action)
    except IllegalAction:
        return None
    return action


def _useful_card(state: State, seat: Seat) -> Action | None:
    if state["options"]["one_card_per_turn"] and state["turn"]["cards_played"] >= 1:
        return None
    colour = state["companies"][seat]
    leader = _leader(state, seat)
    for card in state["hands"][seat]:
        action = _card_choice(state, seat, card, colour, leader)
        if action is not None:
            return action
    return None


def _card_choice(
    state: State, seat: Seat, card: int, colour: str, leader: int | None
) -> Action | None:
    kind = DECK[card]
    shops = state["shops"]
    if kind == "bonus_gift":
        for shop in sorted(shops, key=lambda s: -(s["order"] or 0)):
            if shop["colour"] == colour:
                action = _try(state, seat, card, shop=shop["id"])
                if action:
                    return action
    # The dwarf blocks a shop for good: keep it for the second half of the game,
    # when hindering rivals pays more than it costs them early on.
    late = state["round"] > ROUNDS // 2
    if kind == "unexpected_obstacle" and not late:
        return None
    if kind in ("delivery_error", "unexpected_obstacle") and leader is not None:
        rival = state["companies"][leader]
        for shop in shops:
            if shop["colour"] == rival and remaining_order(shop) > 0:
                action = (
                    _try(state, seat, card, shop=shop["id"])
                    if kind == "delivery_error"
                    else _try(state, seat, card, space=shop["space"])
                )
                if action:
                    return action
    if kind == "breakdown" and leader is not None:
        for cart in state["carts"]:
            if cart["owner"] == leader and cart["load"] > 0 and cart["entered"]:
                action = _try(state, seat, card, target=cart["id"])
                if action:
                    return action
    if kind == "unfair_competition":
        for cart in state["carts"]:
            if cart["owner"] != seat or cart["space"] is None:
                continue
            near = NEIGHBOURS[cart["space"]]
            victims = [c["id"] for c in state["carts"] if c["space"] in near and c["load"]]
            if state["brigands"]["space"] in near:
                victims.append(BRIGANDS)
            for victim in victims:
                action = _try(state, seat, card, cart=cart["id"], target=victim)
                if action:
                    return action
    if kind == "collision":
        others = [
            c for c in state["carts"] if c["owner"] not in (None, seat) and c["space"] is not None
        ]
        for a in others:
            for b in others:
                if a["id"] < b["id"] and b["space"] in NEIGHBOURS[a["space"]]:
                    action = _try(state, seat, card, targets=[a["id"], b["id"]])
                    if action:
                        return action
    if kind == "brigands" and not state["brigands"]["active"]:
        return _try(state, seat, card)
    if kind in ("clear_the_way", "bribe"):
        return _clear_own_shop(state, seat, card, colour)
    return None


def _clear_own_shop(state: State, seat: Seat, card: int, colour: str) -> Action | None:
    """Clear the Way or Bribe to free the delivery space of one of our open shops."""
    taken = occupied_spaces(state)
    for shop in state["shops"]:
        if shop["colour"] != colour or remaining_order(shop) == 0 or shop["space"] not in taken:
            continue
        if DECK[card] == "clear_the_way":
            action = _try(state, seat, card, space=shop["space"])
            if action:
                return action
            continue
        blocker = next((c["id"] for c in state["carts"] if c["space"] == shop["space"]), None)
        if blocker is None and state["brigands"]["space"] == shop["space"]:
            blocker = BRIGANDS
        if blocker is None:
            continue
        for there in NEIGHBOURS[shop["space"]]:
            action = _try(state, seat, card, target=blocker, space=there)
            if action:
                return action
    return None
