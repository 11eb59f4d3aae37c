"""A bot for bot seats and timeouts: short routes, useful cards, sensible reactions.

It is stateless: every call looks at the state and returns one legal action.
Each action it returns either spends action points, plays a card or ends
something, so a turn always finishes.
"""

from __future__ import annotations

import heapq
from collections import deque
from functools import lru_cache
from typing import Any

from ..base import Action, IllegalAction, Rng, Seat, State
from .board import COMPANIES, GATE, GUARD, NEIGHBOURS, SPACES
from .cards import DECK
from .rules import (
    _CARD_CHECKS,
    ACTION_POINTS,
    BRIGANDS,
    BRIGANDS_CAPACITY,
    CART_CAPACITY,
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
    wander_actions,
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
    plan = _Plan(state, seat)
    if not state["turn"]["carts_done"]:
        order = _cart_order(plan)
        # Hand merchandise over before anyone drives off.
        for cart in order:
            transfer = _transfer(state, cart, plan)
            if transfer is not None:
                return transfer
        for cart in order:
            if cart["points"] > 0:
                action = _cart_action(state, cart, plan, rng)
                if action is not None:
                    return action
    for cart_id in blocking_stays(state, seat):
        # Made to leave another company's delivery space: the best place for
        # the cart's own plan, not just the nearest free square.
        cart = state["carts"][cart_id]
        options = reachable(state, cart, cart["points"])
        target, field = plan.target_field(cart)
        if field is None or target is None:
            field, target = plan.gate_field, GATE[cart["colour"]]
        return {
            "type": "move",
            "cart": cart_id,
            "path": options[_best_stop(options, field, cart, target)],
        }
    wander = _wander(state, plan)
    if wander is not None:
        return wander
    return {"type": "end_turn"}


# ---------------------------------------------------------------- carts

# Route costs. A space held by a cart costs extra steps rather than being a
# wall: the cart may move on, but a route through a crowd is slower than a
# short detour. Parked non-player carts and dwarfs do not move: walls.
OWN_CART = 2.0
OTHER_CART = 7.0
STOPPED_CART = 10.0
BRIGANDS_COST = 3.0
# Where a cart should not end its move: a bridge or an island lane's
# one-cart passage blocks everybody, a foreign delivery space must be left
# next turn, and one of our own open shops is better kept clear.
STOP_BRIDGE = 1.5
STOP_FOREIGN_SHOP = 1.0
STOP_OWN_SHOP = 0.8
WALL = float("inf")
# Static distances times this, for the time a route really takes in traffic.
SLACK = 1.3
# From this round on the planner allows for traffic (before it, every cart
# still has time to spare).
LATE_ROUND = 5
# How often a cart that is stuck at the start of its move steps aside.
SIDESTEP = 0.8


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
    return list(_static_field(tuple(sorted(targets)), colour, frozenset(blocked)))


@lru_cache(maxsize=4096)
def _static_field(
    targets: tuple[int, ...], colour: str, blocked: frozenset[int]
) -> tuple[int, ...]:
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
    return tuple(dist)


def _penalties(state: State, seat: Seat) -> list[float]:
    """Extra cost of passing through each space with today's traffic."""
    pen = [0.0] * len(SPACES)
    for space in _static_blocked(state):
        pen[space] = WALL
    for cart in state["carts"]:
        space = cart["space"]
        if space is None or cart["owner"] is None:
            continue
        if cart["immobile"]:
            pen[space] = STOPPED_CART
        else:
            pen[space] = OWN_CART if cart["owner"] == seat else OTHER_CART
    brig = state["brigands"]["space"]
    if SPACES[brig]["kind"] != "castle":
        pen[brig] = BRIGANDS_COST
    return pen


def _field(targets: list[int], colour: str, pen: list[float]) -> list[float]:
    """Dijkstra from the targets: the cost of reaching one of them from every
    space (each step 1, plus the traffic penalty of every space entered)."""
    usable = _USABLE[colour]
    dist = [float(FAR)] * len(SPACES)
    heap = []
    for target in targets:
        dist[target] = 0.0
        heap.append((0.0, target))
    heapq.heapify(heap)
    while heap:
        d, here = heapq.heappop(heap)
        if d > dist[here]:
            continue
        step = d + 1.0 + pen[here]
        for there in NEIGHBOURS[here]:
            if step < dist[there] and usable[there] and pen[there] != WALL:
                dist[there] = step
                heapq.heappush(heap, (step, there))
    return dist


class _Plan:
    """Which of our open shops are worth filling, and which cart serves which."""

    def __init__(self, state: State, seat: Seat) -> None:
        self.colour = state["companies"][seat]
        self.pen = _penalties(state, seat)
        self.blocked = frozenset(_static_blocked(state))
        self.carts = [c for c in state["carts"] if c["owner"] == seat and not c["out"]]
        shops = [s for s in state["shops"] if s["colour"] == self.colour and remaining_order(s) > 0]
        self.fields = {s["space"]: _field([s["space"]], self.colour, self.pen) for s in shops}
        rounds_left = ROUNDS - state["round"]
        static = {
            s["space"]: _static_field((s["space"],), self.colour, frozenset(self.blocked))
            for s in shops
        }

        def in_time(cart: dict[str, Any], shop: dict[str, Any]) -> bool:
            budget = cart["points"] + ACTION_POINTS * rounds_left
            if cart["immobile"]:
                budget -= cart["points"]
            need = min(cart["load"], remaining_order(shop))
            slack = SLACK if state["round"] >= LATE_ROUND else 1.0
            return slack * static[shop["space"]][cart["space"]] + need <= budget

        # Fill the orders our merchandise can still complete: half-delivered
        # shops first, then the best points per merchandise, nearest first.
        total = sum(c["load"] for c in self.carts)
        reach = {
            s["id"]: min(
                (
                    self.fields[s["space"]][c["space"]]
                    for c in self.carts
                    if c["load"] and in_time(c, s)
                ),
                default=FAR,
            )
            for s in shops
        }
        self.viable: set[int] = set()
        for shop in sorted(
            shops,
            key=lambda s: (-(s["delivered"] > 0), -s["order"] / remaining_order(s), reach[s["id"]]),
        ):
            need = remaining_order(shop)
            if need <= total and reach[shop["id"]] < FAR:
                self.viable.add(shop["id"])
                total -= need
        pairs = []
        for shop in shops:
            if shop["id"] not in self.viable:
                continue
            need = remaining_order(shop)
            field = self.fields[shop["space"]]
            for cart in self.carts:
                if cart["load"] == 0 or not in_time(cart, shop):
                    continue
                cost = field[cart["space"]]
                if cart["load"] == need:
                    cost -= 3  # an exact fill leaves no odd merchandise behind
                elif cart["load"] < need:
                    cost += 6  # another cart will have to bring the rest
                pairs.append((cost, cart["id"], shop["id"]))
        pairs.sort()
        need_left = {sid: remaining_order(state["shops"][sid]) for sid in self.viable}
        self.claims: dict[int, int] = {}
        loads = {c["id"]: c["load"] for c in self.carts}
        for _, cart_id, shop_id in pairs:
            if cart_id in self.claims or need_left[shop_id] <= 0:
                continue
            self.claims[cart_id] = state["shops"][shop_id]["space"]
            need_left[shop_id] -= loads[cart_id]
        self.gate_field = _field([GATE[self.colour]], self.colour, self.pen)

    def target_field(self, cart: dict[str, Any]) -> tuple[int | None, list[float] | None]:
        claim = self.claims.get(cart["id"])
        if claim is not None:
            return claim, self.fields[claim]
        if not cart["entered"]:
            # Nothing to deliver and still outside: in by the gate and out again
            # scores the cart like any other that left.
            guard = GUARD[cart["colour"]]
            return guard, _field([guard], cart["colour"], self.pen)
        return GATE[cart["colour"]], self.gate_field


def _transfer(state: State, cart: dict[str, Any], plan: _Plan) -> Action | None:
    """Pass merchandise to an adjacent cart of ours that needs it for its shop:
    a cart with no shop of its own, or one of two carts bringing parts of the
    same order (the one further away hands over), saves itself the trip."""
    if cart["load"] == 0 or cart["points"] == 0:
        return None
    mine = plan.claims.get(cart["id"])
    for other in plan.carts:
        if other["id"] == cart["id"] or other["space"] not in NEIGHBOURS[cart["space"]]:
            continue
        claim = plan.claims.get(other["id"])
        if claim is None:
            continue
        field = plan.fields[claim]
        if mine is not None and (mine != claim or field[other["space"]] >= field[cart["space"]]):
            continue
        shop = shop_at(state, claim)
        if shop is None:
            continue
        want = remaining_order(shop) - other["load"]
        count = min(cart["load"], want, CART_CAPACITY - other["load"], cart["points"])
        if count > 0:
            return {"type": "transfer", "from": cart["id"], "to": other["id"], "count": count}
    return None


def _cart_order(plan: _Plan) -> list[dict[str, Any]]:
    """Carts nearest their goal move first, so the ones behind find the lane open."""

    def key(cart: dict[str, Any]) -> tuple[float, int]:
        _, field = plan.target_field(cart)
        return (field[cart["space"]] if field else FAR, cart["id"])

    return sorted(plan.carts, key=key)


def _stop_cost(space: int, cart: dict[str, Any], target: int) -> float:
    if space == target:
        return 0.0
    sp = SPACES[space]
    if sp["kind"] == "bridge":
        return STOP_BRIDGE
    if sp["kind"] == "delivery":
        return STOP_OWN_SHOP if sp["colour"] == cart["colour"] else STOP_FOREIGN_SHOP
    return 0.0


def _best_stop(
    options: dict[int, list[int]], field: list[float], cart: dict[str, Any], target: int
) -> int:
    """The reachable space nearest the goal (then the shorter path)."""
    return min(
        options,
        key=lambda space: (
            field[space] + _stop_cost(space, cart, target),
            len(options[space]),
            space,
        ),
    )


def _cart_action(state: State, cart: dict[str, Any], plan: _Plan, rng: Rng) -> Action | None:
    shop = shop_at(state, cart["space"])
    if (
        shop is not None
        and shop["colour"] == cart["colour"]
        and cart["load"] > 0
        and shop["id"] in plan.viable
    ):
        count = min(cart["load"], remaining_order(shop), cart["points"])
        if count > 0:
            return {"type": "unload", "cart": cart["id"], "count": count}
    if cart["immobile"]:
        return None
    target, field = plan.target_field(cart)
    if target is None or field is None:
        return None
    options = reachable(state, cart, cart["points"])
    if not options:
        return None
    if target in options:
        return {"type": "move", "cart": cart["id"], "path": options[target]}
    here = field[cart["space"]]

    def score(space: int) -> tuple[float, int, int]:
        return (field[space] + _stop_cost(space, cart, target), len(options[space]), space)

    best = min(options, key=score)
    if score(best)[0] < here:
        return {"type": "move", "cart": cart["id"], "path": options[best]}
    # Stuck behind traffic: take a route that is free today, however long,
    # rather than wait (a cart in a jam rarely frees itself).
    walls = list(plan.pen)
    for space in occupied_spaces(state) - {cart["space"]}:
        walls[space] = WALL
    live = _field([target], cart["colour"], walls)
    if live[cart["space"]] < FAR:
        best = min(
            options, key=lambda s: (live[s] + _stop_cost(s, cart, target), len(options[s]), s)
        )
        if live[best] + _stop_cost(best, cart, target) < live[cart["space"]]:
            return {"type": "move", "cart": cart["id"], "path": options[best]}
    return _sidestep(state, cart, options, field, rng)


def _sidestep(
    state: State, cart: dict[str, Any], options: dict[int, list[int]], field: list[float], rng: Rng
) -> Action | None:
    """Two carts nose to nose in a lane wait forever unless one gives way: a cart
    that has not moved yet this turn sometimes steps aside to a nearby space that
    is not much further from its goal (rng, so not both carts do it together)."""
    if cart["points"] < ACTION_POINTS or rng.random() > SIDESTEP:
        return None
    here = field[cart["space"]]
    near = sorted(
        space for space in options if field[space] <= here + 3 and len(options[space]) <= 3
    )
    if not near:
        return None
    return {"type": "move", "cart": cart["id"], "path": options[rng.choice(near)]}


def _wander(state: State, plan: _Plan) -> Action | None:
    """Wandering Competitors, once our carts are done: move a parked non-player
    cart off our carts' shortest routes (to their shops, or home for empty ones)
    when that shortens them, to the place that shortens them most."""
    if state["turn"]["wander_left"] <= 0 or not state["options"]["wandering_competitors"]:
        return None
    goals: dict[int, list[int]] = {}
    for cart in plan.carts:
        if cart["space"] is None or (cart["load"] == 0 and not cart["entered"]):
            continue
        target, _ = plan.target_field(cart)
        if target is not None:
            goals.setdefault(target, []).append(cart["space"])
    if not goals:
        return None

    def total(blocked: frozenset[int]) -> int:
        return sum(
            min(_static_field((target,), plan.colour, blocked)[space], 99)
            for target, spaces in goals.items()
            for space in spaces
        )

    now = total(plan.blocked)
    best, best_gain = None, 0
    options = wander_actions(state)
    for cart_id in sorted({a["cart"] for a in options}):
        where = state["carts"][cart_id]["space"]
        freed = plan.blocked - {where}
        if total(freed) >= now:
            continue  # this cart is not in our way
        for action in options:
            if action["cart"] != cart_id:
                continue
            gain = now - total(freed | {action["path"][-1]})
            if gain > best_gain:
                best, best_gain = action, gain
    return best


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
    """The strongest opponent, the target of nasty cards: most points so far,
    counting half a point per merchandise in shops not yet filled. Ties go to
    the next player in turn order, so that early in the game (everybody at 0)
    the tables do not all gang up on the first seat."""
    players = state["num_players"]
    others = [s for s in range(players) if s != seat]
    if not others:
        return None
    progress = [0.0] * players
    for shop in state["shops"]:
        if shop["order"] is not None and not shop["filled"] and shop["delivered"]:
            progress[state["companies"].index(shop["colour"])] += shop["delivered"] / 2
    return max(
        others,
        key=lambda s: (
            sum(score_breakdown(state, s).values()) + progress[s],
            -((s - seat) % players),
        ),
    )


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
