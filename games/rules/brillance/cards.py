"""The 36 event cards: kinds, counts and what each one does (data)."""

from __future__ import annotations

from typing import Any

# kind -> (count, target description, effect). Counts are the project's design:
# the rules name ten cards and a deck of 36; see docs/rules/brillance.md.
CARD_KINDS: dict[str, dict[str, Any]] = {
    "brigands": {
        "count": 3,
        "name": "Brigands",
        "targets": [],
        "effect": "Wakes Pakius's cart: you move it 5 spaces now; after you, every player "
        "moves it 5 spaces before their own carts until it is back in the castle.",
    },
    "unfair_competition": {
        "count": 4,
        "name": "Unfair Competition",
        "targets": ["cart", "target"],
        "effect": "One of your carts (not full, 1 action point left) takes one merchandise "
        "from an adjacent opponent's cart or from the brigands; costs it 1 point.",
    },
    "bonus_gift": {
        "count": 4,
        "name": "Bonus Gift",
        "targets": ["shop"],
        "effect": "-1 marker on one of your shops not yet delivered to: it needs one "
        "merchandise less but still scores its order token.",
    },
    "delivery_error": {
        "count": 4,
        "name": "Delivery Error",
        "targets": ["shop"],
        "effect": "+1 marker on an opponent's shop not yet delivered to: it needs one "
        "merchandise more but still scores only its order token.",
    },
    "breakdown": {
        "count": 4,
        "name": "Breakdown",
        "targets": ["target"],
        "effect": "One opponent's cart (or the brigands) may not move on its next turn.",
    },
    "collision": {
        "count": 3,
        "name": "Collision",
        "targets": ["targets"],
        "effect": "Two adjacent carts of two different opponents may not move on their "
        "owners' next turns.",
    },
    "unexpected_obstacle": {
        "count": 4,
        "name": "Unexpected Obstacle",
        "targets": ["space"],
        "effect": "A drunken dwarf blocks an empty space until a Clear the Way removes it.",
    },
    "clear_the_way": {
        "count": 3,
        "name": "Clear the Way",
        "targets": ["space"],
        "effect": "Removes the drunken dwarf from a space.",
    },
    "bribe": {
        "count": 4,
        "name": "Bribe",
        "targets": ["target", "space"],
        "effect": "Move one cart that is not yours (an opponent's, a non-player company's "
        "or the brigands') one space to an adjacent empty space of the city.",
    },
    "lucky_break": {
        "count": 3,
        "name": "Lucky Break",
        "targets": [],
        "effect": "Played only when a card targets you: cancels that card.",
    },
}

# Card ids 0..35, grouped by kind in the order above.
DECK: list[str] = [kind for kind, info in CARD_KINDS.items() for _ in range(info["count"])]
