"""The contract every ruleset package fulfils, and small shared helpers.

A ruleset is a plain Python package under ``games/rules/<slug>/`` that imports
nothing from Django. Its ``__init__.py`` exposes the module-level names listed
in :class:`Ruleset`. The platform stores every event a ruleset emits, folds
``evolve`` over them to rebuild state, and never looks inside the state itself:
everything it needs to know (who must act, is it over, what may a seat see)
it asks the ruleset.

Conventions
-----------
* ``State``, ``Action`` and ``Event`` are JSON-serialisable dicts (str keys,
  lists not tuples) so they round-trip through PostgreSQL ``jsonb`` unchanged.
* An event is ``{"type": str, "actor": seat | None, ...payload}``. ``actor`` is
  the seat that caused it (the roller for a dice roll), ``None`` for the
  system. Event types never contain a dot: dotted types (``seat.resigned``)
  belong to the platform and are never passed to ``evolve``.
* ``evolve`` starts from the empty state ``{}`` and must not mutate its input.
* Randomness comes only from the ``rng`` argument (an object with the
  :class:`Rng` methods; in tests a seeded ``random.Random``). Dice results,
  shuffled deck orders and the like are written into events, so folding
  ``evolve`` over stored events never re-rolls.
* Seats are ints ``0 .. num_players-1`` in clockwise order.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, MutableSequence, Sequence
from typing import Any, Protocol, TypeVar

Seat = int
State = dict[str, Any]
Action = dict[str, Any]
Event = dict[str, Any]

T = TypeVar("T")


class IllegalAction(Exception):
    """A refused action. ``reason`` is a stable snake_case code for clients."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class InvalidOptions(Exception):
    """Options for a new game that the ruleset does not accept."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class Rng(Protocol):
    def randint(self, a: int, b: int) -> int: ...
    def shuffle(self, x: MutableSequence[Any]) -> None: ...
    def choice(self, seq: Sequence[T]) -> T: ...
    def random(self) -> float: ...


class Ruleset(Protocol):
    """What a ruleset package exposes at module level.

    SLUG, NAME: identifiers ("brilliant", "Brilliant").
    VERSION: int, bumped whenever a change would alter how stored events fold
        or what ``decide`` accepts. Old games keep the version they started
        with (see ``games/rules/registry.py``).
    MIN_PLAYERS, MAX_PLAYERS: seat counts.
    OPTIONS: JSON description of the options, for the API, e.g.
        ``{"level": {"type": "integer", "minimum": 1, "maximum": 4,
        "default": 1, "description": "..."}}``.
    """

    SLUG: str
    NAME: str
    VERSION: int
    MIN_PLAYERS: int
    MAX_PLAYERS: int
    OPTIONS: dict[str, Any]

    def normalize_options(self, options: dict[str, Any], num_players: int) -> dict[str, Any]:
        """Fill defaults and validate; raise InvalidOptions on bad input."""

    def material(self) -> dict[str, Any]:
        """Static data a client needs to draw the game (sheets, shapes, board)."""

    def setup(self, num_players: int, options: dict[str, Any], rng: Rng) -> list[Event]:
        """The opening events; folding them over ``{}`` gives the first state."""

    def evolve(self, state: State, event: Event) -> State:
        """Apply one event. Pure: returns a new state."""

    def decide(self, state: State, seat: Seat, action: Action, rng: Rng) -> list[Event]:
        """Events caused by ``seat`` taking ``action``; raises IllegalAction.

        The events may include consequences (end of a round, next turn, a
        dice roll the player asked for, game over)."""

    def system_step(self, state: State, rng: Rng) -> list[Event] | None:
        """Events the server must produce now without any player (an
        automatic dice roll, a roll-off), or None when nothing is due.
        The platform calls it from a Celery task after every commit until it
        returns None."""

    def pending(self, state: State) -> list[Seat]:
        """Seats that must act now (each gets a deadline). Empty when the
        game is over or waiting for a system step."""

    def legal_actions(self, state: State, seat: Seat) -> list[Action]:
        """Every action ``seat`` may take now, in the form ``decide`` accepts."""

    def auto_action(self, state: State, seat: Seat, rng: Rng) -> Action:
        """A reasonable legal action for ``seat``: bots and timeouts."""

    def view(self, state: State, seat: Seat | None) -> dict[str, Any]:
        """What ``seat`` may see (``None``: a spectator)."""

    def redact_event(self, event: Event, seat: Seat | None) -> Event:
        """The event as ``seat`` may see it (hidden payload removed)."""

    def is_over(self, state: State) -> bool: ...

    # Optional hooks (the platform uses them when a package defines them):
    #
    # def timeout_action(state, seat, rng) -> Action
    #     The move played when a human seat's deadline passes, where it should
    #     differ from the bot's choice (Brillance: a Lucky Break reaction
    #     window times out as "no", though the bot would cancel).
    #     Default: auto_action.
    #
    # def deadline_seconds(state, seat, turn_timeout) -> int
    #     How long ``seat`` has for what it must do now (a short reaction
    #     window). Default: the table's turn_timeout.
    #
    # LEGAL_ACTIONS_NOTE: str
    #     Shown with legal-actions where not every action can be listed.

    def result(self, state: State) -> dict[str, Any] | None:
        """When over: ``{"winners": [seats], "scores": [per seat], ...}``."""


def action_type(action: Any, known: Collection[str], game: str) -> str:
    """The type of a client's action, after the checks every ruleset makes
    first: a JSON object, with a string ``type`` that the game knows."""
    if not isinstance(action, dict):
        raise IllegalAction("malformed_action", "an action is a JSON object")
    kind = action.get("type")
    if not isinstance(kind, str):
        raise IllegalAction("malformed_action", "the action needs a string 'type'")
    if kind not in known:
        raise IllegalAction("unknown_action", f"{game} has no action {kind!r}")
    return kind


def fold(ruleset: Ruleset, events: Sequence[Event], state: State | None = None) -> State:
    """Rebuild state by folding ``evolve`` over ``events`` (platform events skipped)."""
    current: State = {} if state is None else state
    for event in events:
        if "." not in event["type"]:
            current = ruleset.evolve(current, event)
    return current


def play_bot_game(
    ruleset: Ruleset,
    num_players: int,
    options: dict[str, Any],
    rng: Rng,
    *,
    max_steps: int = 100_000,
    choose_action: Callable[[State, Seat, Rng], Action] | None = None,
) -> tuple[State, list[Event]]:
    """Play a whole game with ``auto_action`` for every seat, as the platform
    would (system steps first, then pending seats in order). Returns the final
    state and every event. Used by rules tests and balance simulations."""
    choose = choose_action or ruleset.auto_action
    options = ruleset.normalize_options(options, num_players)
    events = list(ruleset.setup(num_players, options, rng))
    state = fold(ruleset, events)
    for _ in range(max_steps):
        if ruleset.is_over(state):
            return state, events
        new_events = ruleset.system_step(state, rng)
        if not new_events:
            seats = ruleset.pending(state)
            if not seats:
                raise RuntimeError("game is stuck: nobody to act and no system step")
            seat = seats[0]
            new_events = ruleset.decide(state, seat, choose(state, seat, rng), rng)
        events.extend(new_events)
        state = fold(ruleset, new_events, state)
    raise RuntimeError(f"game did not end within {max_steps} steps")
