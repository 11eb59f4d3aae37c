"""Static material of Diamants: the 18 numbered cards and the 10 special cards.

The rule text gives only the counts; the diamond values, the special card
named on each numbered card, the special effects and their end-game values are
project decisions, explained in ``docs/rules/diamants.md``.
"""

from __future__ import annotations

from typing import Any

# value -> (diamonds, special kind named on the card or None).
# Diamonds grow with the value because high cards need high sums (a sum of 16+
# comes up on 10/216 rolls) and are the first to be turned face down on failures.
NUMBERED_CARDS: dict[int, tuple[int, str | None]] = {
    1: (1, None),
    2: (1, None),
    3: (1, "reroll"),
    4: (2, "bomb"),
    5: (2, "thief"),
    6: (2, "white_die"),
    7: (3, None),
    8: (3, "flip"),
    9: (3, "swap"),
    10: (4, "thief"),
    11: (4, "safe"),
    12: (4, "magnet"),
    13: (5, None),
    14: (5, "white_die"),
    15: (5, "bomb"),
    16: (6, None),
    17: (6, "treasure"),
    18: (6, None),
}

# card id -> description. ``kind`` is what numbered cards name (the two Thieves
# share one kind); ``end_value`` is added to (or taken from) the holder's
# diamonds at the end; ``targets`` are the keys ``use_special`` needs.
SPECIAL_CARDS: dict[str, dict[str, Any]] = {
    "thief_1": {
        "kind": "thief",
        "name": "Voleur",
        "end_value": 1,
        "targets": ["seat"],
        "effect": "Steal an opponent's top card of value at most the sum. Ends the turn.",
    },
    "thief_2": {
        "kind": "thief",
        "name": "Voleur",
        "end_value": 1,
        "targets": ["seat"],
        "effect": "Steal an opponent's top card of value at most the sum. Ends the turn.",
    },
    "treasure": {
        "kind": "treasure",
        "name": "Trésor",
        "end_value": 3,
        "targets": [],
        "effect": "Take the highest card on the table whatever the sum. Ends the turn.",
    },
    "white_die": {
        "kind": "white_die",
        "name": "Dé blanc",
        "end_value": -1,
        "targets": [],
        "effect": "The server rolls the white die; its value is added to the sum.",
    },
    "reroll": {
        "kind": "reroll",
        "name": "Relance",
        "end_value": 1,
        "targets": ["die"],
        "effect": "The server rerolls one blue die of your choice.",
    },
    "flip": {
        "kind": "flip",
        "name": "Retournement",
        "end_value": 1,
        "targets": ["die"],
        "effect": "Turn one blue die of your choice to its opposite face (7 minus it).",
    },
    "safe": {
        "kind": "safe",
        "name": "Coffre",
        "end_value": 2,
        "targets": [],
        "effect": "Slide your top card to the bottom of your stack, out of reach.",
    },
    "bomb": {
        "kind": "bomb",
        "name": "Bombe",
        "end_value": -2,
        "targets": ["seat"],
        "effect": "An opponent's top card is turned face down for good.",
    },
    "swap": {
        "kind": "swap",
        "name": "Échange",
        "end_value": -1,
        "targets": ["seat"],
        "effect": "Exchange your top card with an opponent's top card.",
    },
    "magnet": {
        "kind": "magnet",
        "name": "Aimant",
        "end_value": -1,
        "targets": ["value"],
        "effect": "Turn a face-down numbered card face up on the table again.",
    },
}

SPECIALS_BY_KIND: dict[str, list[str]] = {}
for _card_id, _card in SPECIAL_CARDS.items():
    SPECIALS_BY_KIND.setdefault(_card["kind"], []).append(_card_id)


def diamonds(value: int) -> int:
    return NUMBERED_CARDS[value][0]


def named_special(value: int) -> str | None:
    return NUMBERED_CARDS[value][1]


def end_value(card_id: str) -> int:
    return int(SPECIAL_CARDS[card_id]["end_value"])


def material() -> dict[str, Any]:
    """JSON description of the cards and dice, for clients."""
    return {
        "dice": {"blue": 3, "white": 1, "faces": 6},
        "numbered_cards": [
            {"value": value, "diamonds": gems, "special": special}
            for value, (gems, special) in NUMBERED_CARDS.items()
        ],
        "special_cards": [{"id": card_id, **card} for card_id, card in SPECIAL_CARDS.items()],
    }
