"""Every write to games goes through here (HackSoft styleguide: services).

Each command is one short ``transaction.atomic``: lock the game row, check,
ask the ruleset to decide, append the events, update the projection and the
seats' deadlines, and schedule follow-up tasks with ``transaction.on_commit``.
A refused command raises before anything is written, so the transaction
rolls back and nothing is stored.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import User

from . import dispatch, notifications, records, store
from .errors import (
    GameFinished,
    GameNotActive,
    GameNotOpen,
    IllegalActionError,
    NotAPlayer,
    NotYourTurn,
    PermissionDenied,
    StaleSeq,
    ValidationFailed,
)
from .locks import lock_game
from .models import Event, Game, GameStatus, ImportedRecord, Seat
from .randomness import FairRng, new_game_seed, platform_rng, seed_commitment
from .rules import registry
from .rules.base import Event as RuleEvent
from .rules.base import IllegalAction, InvalidOptions, Rng, Ruleset

logger = logging.getLogger(__name__)

# How many automatic actions one seat may chain in one transaction (a bot or a
# timed-out player finishing a multi-action turn). A safety net against a
# ruleset whose auto_action never ends the turn.
MAX_CHAINED_AUTOMATIC_ACTIONS = 200
MAX_CHAINED_SYSTEM_STEPS = 50

# The action every ruleset uses for "I do nothing this time", where it has one.
PASS = {"type": "pass"}

TASK_SYSTEM_STEP = "games.tasks.run_system_step"
TASK_BOT_MOVE = "games.tasks.play_bot_move"


@dataclass(frozen=True)
class ActionOutcome:
    game: Game
    seat: int
    events: list[Event]


# --- lobby --------------------------------------------------------------------


def game_create(
    *,
    creator: User,
    ruleset: str,
    options: dict[str, Any],
    num_seats: int,
    turn_timeout: int,
    public: bool = True,
) -> Game:
    rules = _ruleset_or_error(ruleset)
    if not rules.MIN_PLAYERS <= num_seats <= rules.MAX_PLAYERS:
        raise ValidationFailed(
            f"{rules.NAME} takes {rules.MIN_PLAYERS} to {rules.MAX_PLAYERS} players.",
            details={
                "fields": {"num_seats": [f"between {rules.MIN_PLAYERS} and {rules.MAX_PLAYERS}"]}
            },
        )
    normalized = _normalized_options(rules, options, num_seats)
    seed = new_game_seed()
    with transaction.atomic():
        game = Game.objects.create(
            ruleset=rules.SLUG,
            ruleset_version=rules.VERSION,
            options=normalized,
            num_seats=num_seats,
            turn_timeout=turn_timeout,
            created_by=creator,
            public=public,
            seed=seed,
            seed_commitment=seed_commitment(seed),
        )
        Seat.objects.create(game=game, index=0, user=creator)
        if num_seats == 1:
            _start(game, list(game.seats.all()), rules)
    return game


def game_join(*, game_id: int, user: User) -> Game:
    with transaction.atomic():
        game = lock_game(game_id)
        seats = _open_game_seats(game)
        if any(seat.user_id == user.pk for seat in seats):
            raise GameNotOpen("You already have a seat at this table.")
        seats.append(Seat.objects.create(game=game, index=len(seats), user=user))
        _start_if_full(game, seats)
    return game


def game_leave(*, game_id: int, user: User) -> Game:
    """Leave a table before it starts. The creator leaving closes the table."""
    with transaction.atomic():
        game = lock_game(game_id)
        seats = list(game.seats.all())
        mine = _seat_of(user, seats)  # who has no seat here is told so, whatever the status
        _require_open(game)
        if game.created_by_id == user.pk:
            game.status = GameStatus.ABORTED
            game.finished_at = timezone.now()
            game.save(update_fields=["status", "finished_at", "updated_at"])
            return game
        mine.delete()
        # Keep seat numbers contiguous: everyone after the leaver moves up one.
        for seat in seats:
            if seat.index > mine.index:
                seat.index -= 1
                seat.save(update_fields=["index"])
    return game


def game_add_bots(*, game_id: int, user: User, count: int | None = None) -> Game:
    with transaction.atomic():
        game = lock_game(game_id)
        _require_creator(game, user)  # permission before status: outsiders get a 403
        seats = _open_game_seats(game)
        free = game.num_seats - len(seats)
        wanted = free if count is None else count
        if not 1 <= wanted <= free:
            raise ValidationFailed(
                f"There are {free} free seats.",
                details={"fields": {"count": [f"between 1 and {free}"]}},
            )
        for _ in range(wanted):
            seats.append(Seat.objects.create(game=game, index=len(seats), is_bot=True))
        _start_if_full(game, seats)
    return game


def game_start(*, game_id: int, user: User) -> Game:
    """Start now with the seats taken so far (at least the ruleset's minimum)."""
    with transaction.atomic():
        game = lock_game(game_id)
        _require_creator(game, user)  # permission before status: outsiders get a 403
        seats = _open_game_seats(game)
        rules = registry.get(game.ruleset, game.ruleset_version)
        if len(seats) < rules.MIN_PLAYERS:
            raise ValidationFailed(f"{rules.NAME} needs at least {rules.MIN_PLAYERS} players.")
        _start(game, seats, rules)
    return game


def game_resign(*, game_id: int, user: User) -> Game:
    """Give up. The seat is played by the bot from now on and ranks last; when
    no human (or only one seat) is left in, the game ends at once."""
    with transaction.atomic():
        game = lock_game(game_id)
        seats = list(game.seats.all())
        seat = _seat_of(user, seats)
        _require_active(game)
        if seat.resigned:
            raise GameNotActive("You have already resigned from this game.")
        rules = registry.get(game.ruleset, game.ruleset_version)
        seat.resigned = True
        seat.save(update_fields=["resigned"])
        resigned = store.NewEvent(type="seat.resigned", actor=seat.index, payload={})
        still_in = [s for s in seats if not s.resigned]
        rng = _game_rng(game)
        if len(still_in) <= 1 or all(s.is_bot for s in still_in):
            _commit(
                game,
                seats,
                rules,
                [resigned],
                rng,
                ended_by={
                    "reason": "resignation",
                    "winners": [s.index for s in still_in],
                },
            )
        else:
            _commit(game, seats, rules, [resigned], rng)
    return game


# --- play ---------------------------------------------------------------------


def action_submit(
    *, game_id: int, user: User, action: dict[str, Any], expected_seq: int | None = None
) -> ActionOutcome:
    with transaction.atomic():
        game = lock_game(game_id)
        seats = list(game.seats.all())
        seat = _seat_of(user, seats)
        _require_active(game)
        if expected_seq is not None and expected_seq != game.seq:
            raise StaleSeq(
                f"The game is at seq {game.seq}, not {expected_seq}.", details={"seq": game.seq}
            )
        if seat.resigned:
            raise PermissionDenied("You resigned from this game.")
        rules = registry.get(game.ruleset, game.ruleset_version)
        if seat.index not in rules.pending(game.state):
            raise NotYourTurn("It is not your turn to act.", details={"seq": game.seq})
        rng = _game_rng(game)
        rule_events = _decide(rules, game.state, seat.index, action, rng)
        platform_events = []
        if seat.zombie:
            platform_events.append(
                store.NewEvent(type="seat.reclaimed", actor=seat.index, payload={})
            )
        if seat.zombie or seat.auto_moves_in_row:
            seat.zombie = False
            seat.auto_moves_in_row = 0
            seat.save(update_fields=["zombie", "auto_moves_in_row"])
        rows = _commit(game, seats, rules, rule_events + platform_events, rng)
    return ActionOutcome(game=game, seat=seat.index, events=rows)


def system_step_run(*, game_id: int, seq: int | None) -> bool:
    """Perform the ruleset's automatic steps (dice rolls) that are due.

    Idempotent: ``seq`` is the game's seq when the task was scheduled; if the
    game has moved on, or nothing is due, it does nothing."""
    with transaction.atomic():
        game = lock_game(game_id)
        if game.status != GameStatus.ACTIVE or game.system_step_due_at is None:
            return False
        if seq is not None and game.seq != seq:
            return False
        seats = list(game.seats.all())
        rules = registry.get(game.ruleset, game.ruleset_version)
        rng = _game_rng(game)
        new_events: list[store.NewEvent] = []
        state = game.state
        for _ in range(MAX_CHAINED_SYSTEM_STEPS):
            if rules.is_over(state) or rules.pending(state):
                break
            step = _recorded_call(rng, partial(rules.system_step, state), cause={"by": "system"})
            if not step:
                break
            new_events += step
            state = _fold(rules, state, [e.as_rule_event() for e in step])
        if not new_events:
            logger.error("game %s has nobody to act and no system step: stuck", game.pk)
            game.system_step_due_at = None
            game.save(update_fields=["system_step_due_at", "updated_at"])
            return False
        _commit(game, seats, rules, new_events, rng)
    return True


def automatic_move_play(
    *, game_id: int, seat_index: int, seq: int | None, now: datetime | None = None
) -> bool:
    """Play the ruleset's automatic move for a seat: a bot's turn (``seq``
    given, from the task sent when the seat became pending) or an expired
    deadline (``seq`` None, from the sweep). Idempotent either way."""
    now = now or timezone.now()
    with transaction.atomic():
        game = lock_game(game_id)
        if game.status != GameStatus.ACTIVE or (seq is not None and game.seq != seq):
            return False
        seats = list(game.seats.all())
        seat = seats[seat_index]
        rules = registry.get(game.ruleset, game.ruleset_version)
        if seat.index not in rules.pending(game.state):
            return False
        if seq is None and (seat.deadline is None or seat.deadline > now):
            return False
        if seq is not None and not seat.played_by_bot:
            return False
        timed_out = seq is None and not seat.played_by_bot
        # A bot's own moves are its moves; anything played on a player's
        # behalf is flagged as automatic.
        automatic = not seat.is_bot
        rng = _game_rng(game)
        new_events = _automatic_turn(
            rules, game.state, seat.index, rng, timed_out=timed_out, automatic=automatic
        )
        if automatic and not seat.played_by_bot:
            seat.auto_moves_in_row += 1
            if seat.auto_moves_in_row >= settings.FACETS_ZOMBIE_AFTER:
                seat.zombie = True
                new_events.append(
                    store.NewEvent(
                        type="seat.zombie",
                        actor=seat.index,
                        payload={"after_automatic_moves": seat.auto_moves_in_row},
                    )
                )
            seat.save(update_fields=["auto_moves_in_row", "zombie"])
        _commit(game, seats, rules, new_events, rng)
    return True


def due_work_sweep(*, now: datetime | None = None, limit: int = 500) -> dict[str, int]:
    """Run everything whose time has come: expired deadlines (automatic moves),
    bot moves and dice rolls whose task message was lost. Each piece of work
    is its own short transaction."""
    now = now or timezone.now()
    expired = list(
        Seat.objects.filter(deadline__lte=now, game__status=GameStatus.ACTIVE)
        .order_by("deadline")
        .values_list("game_id", "index")[:limit]
    )
    moved = sum(automatic_move_play(game_id=g, seat_index=i, seq=None, now=now) for g, i in expired)
    overdue = list(
        Game.objects.filter(status=GameStatus.ACTIVE, system_step_due_at__lte=now)
        .order_by("system_step_due_at")
        .values_list("pk", flat=True)[:limit]
    )
    stepped = sum(system_step_run(game_id=g, seq=None) for g in overdue)
    return {"automatic_moves": moved, "system_steps": stepped}


# --- records ------------------------------------------------------------------


def record_import(*, user: User | None, record: Any) -> ImportedRecord:
    """Store an uploaded game record to be viewed and verified. It never
    becomes a live game. A malformed record is refused (400) with what is
    wrong where; a well-formed one is stored with its verification, passed
    or failed (a failed one is worth keeping: it shows what was altered)."""
    try:
        valid = records.validate(record)
    except records.RecordInvalid as exc:
        raise ValidationFailed(
            "This is not a complete facets-record.", details={"fields": exc.errors}
        ) from exc
    verification = records.verify(valid)
    return ImportedRecord.objects.create(
        uploaded_by=user, ruleset=valid["ruleset"], record=valid, verification=verification
    )


# --- internals ------------------------------------------------------------------


def _ruleset_or_error(slug: str) -> Ruleset:
    try:
        return registry.get(slug)
    except registry.UnknownRuleset as exc:
        raise ValidationFailed(
            f"Unknown ruleset {slug!r}.",
            details={"fields": {"ruleset": [f"one of {registry.slugs()}"]}},
        ) from exc


def _normalized_options(
    rules: Ruleset, options: dict[str, Any], num_players: int
) -> dict[str, Any]:
    try:
        return rules.normalize_options(dict(options), num_players)
    except InvalidOptions as exc:
        raise ValidationFailed(
            f"Invalid options: {exc.detail}", details={"fields": {"options": [exc.detail]}}
        ) from exc


def _open_game_seats(game: Game) -> list[Seat]:
    _require_open(game)
    return list(game.seats.all())


def _require_open(game: Game) -> None:
    if game.status != GameStatus.OPEN:
        raise GameNotOpen("This table is not open: it has started, finished or been closed.")


def _require_creator(game: Game, user: User) -> None:
    if game.created_by_id != user.pk:
        raise PermissionDenied("Only the player who opened the table may do this.")


def _require_active(game: Game) -> None:
    if game.status == GameStatus.FINISHED:
        raise GameFinished("The game is over.")
    if game.status != GameStatus.ACTIVE:
        raise GameNotActive("The game has not started.")


def _seat_of(user: User, seats: list[Seat]) -> Seat:
    for seat in seats:
        if seat.user_id is not None and seat.user_id == user.pk:
            return seat
    raise NotAPlayer("You have no seat in this game.")


def _start_if_full(game: Game, seats: list[Seat]) -> None:
    if len(seats) == game.num_seats:
        _start(game, seats, registry.get(game.ruleset, game.ruleset_version))


def _start(game: Game, seats: list[Seat], rules: Ruleset) -> None:
    if len(seats) != game.num_seats:
        game.options = _normalized_options(rules, game.options, len(seats))
        game.num_seats = len(seats)
    rng = _game_rng(game)
    setup_events = _recorded_call(
        rng, lambda r: rules.setup(game.num_seats, game.options, r), cause={"by": "setup"}
    )
    game.status = GameStatus.ACTIVE
    game.started_at = timezone.now()
    _commit(game, seats, rules, setup_events, rng)


def _game_rng(game: Game) -> Rng:
    """The game's own randomness: its committed stream, from where the last
    command left it. Games created before provably fair dice have no seed
    and keep the operating system's generator."""
    if not game.seed:
        return platform_rng()
    return FairRng(game.seed, game.rng_counter)


def _recorded_call(
    rng: Rng,
    call: Callable[[Rng], list[RuleEvent] | None],
    *,
    cause: dict[str, Any],
    automatic: bool = False,
) -> list[store.NewEvent]:
    """Run one ruleset call on the game's generator. With a committed
    generator, the call's ``cause`` and the draws it made go on the first
    event it produced, which is what verification re-executes. A call that
    produced nothing consumed nothing: its unseen draws are given back."""
    start = rng.counter if isinstance(rng, FairRng) else 0
    events = [store.normalize(e) for e in call(rng) or []]
    if not isinstance(rng, FairRng):
        return _from_rules(events, automatic=automatic)
    if not events:
        rng.rewind(start)
        return []
    new = _from_rules(events, automatic=automatic)
    new[0].cause = {**cause, "draws": rng.take_draws()}
    return new


def _decide(
    rules: Ruleset, state: dict[str, Any], seat: int, action: dict[str, Any], rng: Rng
) -> list[store.NewEvent]:
    action = store.normalize(action)
    try:
        return _recorded_call(
            rng,
            lambda r: rules.decide(state, seat, action, r),
            cause={"by": "action", "seat": seat, "action": action},
        )
    except IllegalAction as exc:
        if exc.reason == "not_your_turn":
            raise NotYourTurn(exc.detail or "It is not your turn to act.") from exc
        if exc.reason == "game_finished":
            raise GameFinished(exc.detail or "The game is over.") from exc
        raise IllegalActionError(exc.detail or exc.reason, reason=exc.reason) from exc
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        # A ruleset should have refused this input itself; never answer a
        # client's malformed action with a 500.
        logger.exception("ruleset %s crashed on action %r", rules.SLUG, action)
        raise IllegalActionError("The action is malformed.", reason="malformed_action") from exc


def _automatic_turn(
    rules: Ruleset,
    state: dict[str, Any],
    seat: int,
    rng: Rng,
    *,
    timed_out: bool = False,
    automatic: bool = True,
) -> list[store.NewEvent]:
    """The automatic move, continued until the seat no longer has to act
    (a multi-action turn is finished as a whole). A timed-out human gets the
    ruleset's timeout move first, where it has one. The bot's strategy draws
    from its own generator; only the rules' consequences use the game's."""
    strategy_rng = platform_rng()
    events: list[store.NewEvent] = []
    choose = getattr(rules, "timeout_action", rules.auto_action) if timed_out else rules.auto_action
    for _ in range(MAX_CHAINED_AUTOMATIC_ACTIONS):
        if rules.is_over(state) or seat not in rules.pending(state):
            break
        action = store.normalize(choose(state, seat, strategy_rng))
        choose = rules.auto_action
        step = _recorded_call(
            rng,
            partial(rules.decide, state, seat, action),
            cause={"by": "auto", "seat": seat, "action": action},
            automatic=automatic,
        )
        events += step
        state = _fold(rules, state, [e.as_rule_event() for e in step])
    return events


def _fold(rules: Ruleset, state: dict[str, Any], events: list[RuleEvent]) -> dict[str, Any]:
    for event in events:
        state = rules.evolve(state, event)
    return state


def _from_rules(events: list[RuleEvent], *, automatic: bool = False) -> list[store.NewEvent]:
    return [store.NewEvent.from_rules(store.normalize(e), automatic=automatic) for e in events]


def _commit(
    game: Game,
    seats: list[Seat],
    rules: Ruleset,
    events: list[store.NewEvent],
    rng: Rng,
    *,
    ended_by: dict[str, Any] | None = None,
) -> list[Event]:
    """Append, update the projection, reschedule, announce. Caller holds the
    row lock; ``rng`` is the game's generator, as the command left it."""
    now = timezone.now()
    state = game.state
    first_seq = game.seq + 1
    pending_before = _pending_seats(rules, game)
    for new in events:
        if "." not in new.type:
            state = rules.evolve(state, new.as_rule_event())
    if ended_by is None and game.status == GameStatus.ACTIVE:
        forced = _forced_passes(rules, state, rng)
        events = [*events, *forced]
        state = _fold(rules, state, [e.as_rule_event() for e in forced])
    if ended_by is not None:
        events = [*events, store.NewEvent(type="game.ended", actor=None, payload=ended_by)]
    rows = store.append(game=game, events=events, now=now)
    game.state = state
    if isinstance(rng, FairRng):
        game.rng_counter = rng.counter
    if ended_by is not None:
        _finish(game, seats, {**(rules.result(state) or {}), **ended_by}, now)
    elif rules.is_over(state):
        _finish(game, seats, _platform_result(rules.result(state) or {}, seats), now)
    _reschedule(game, seats, rules, now)
    game.save()
    _announce(game, seats, rules, first_seq=first_seq, pending_before=pending_before)
    return rows


def _pending_seats(rules: Ruleset, game: Game) -> set[int]:
    if game.seq == 0 or game.status != GameStatus.ACTIVE:
        return set()
    return set(rules.pending(game.state))


def _announce(
    game: Game, seats: list[Seat], rules: Ruleset, *, first_seq: int, pending_before: set[int]
) -> None:
    """Tell streams, long-polls and webhooks once the transaction commits."""
    notes = notifications.notifications_for(
        game_id=game.pk,
        ruleset=game.ruleset,
        seq=game.seq,
        seats=[notifications.SeatSnapshot(s.index, s.user_id, s.resigned) for s in seats],
        started=first_seq == 1,
        finished=game.status == GameStatus.FINISHED,
        newly_pending=_pending_seats(rules, game) - pending_before,
        result=game.result,
    )
    notifications.announce_after_commit(
        game_id=game.pk,
        first_seq=first_seq,
        last_seq=game.seq,
        status=game.status,
        notifications=notes,
    )


def _forced_passes(rules: Ruleset, state: dict[str, Any], rng: Rng) -> list[store.NewEvent]:
    """Answer for every pending seat whose only legal action is to pass, as
    Board Game Arena skips a player with no choice: nobody waits a whole
    turn timeout for a decision that does not exist. Flagged automatic, but
    not counted as a timeout."""
    events: list[store.NewEvent] = []
    for _ in range(MAX_CHAINED_AUTOMATIC_ACTIONS):
        if rules.is_over(state):
            break
        forced = next(
            (seat for seat in rules.pending(state) if rules.legal_actions(state, seat) == [PASS]),
            None,
        )
        if forced is None:
            break
        step = _recorded_call(
            rng,
            partial(rules.decide, state, forced, dict(PASS)),
            cause={"by": "forced", "seat": forced, "action": dict(PASS)},
            automatic=True,
        )
        events += step
        state = _fold(rules, state, [e.as_rule_event() for e in step])
    return events


def _platform_result(result: dict[str, Any], seats: list[Seat]) -> dict[str, Any]:
    """Resigned seats never win and rank last (Board Game Arena's rule)."""
    resigned = {s.index for s in seats if s.resigned}
    if not resigned:
        return {**result, "reason": result.get("reason", "rules")}
    ranking = result.get("ranking", [s.index for s in seats])
    ranking = [i for i in ranking if i not in resigned] + [i for i in ranking if i in resigned]
    winners = [i for i in result.get("winners", []) if i not in resigned] or ranking[:1]
    return {**result, "winners": winners, "ranking": ranking, "resigned": sorted(resigned)}


def _finish(game: Game, seats: list[Seat], result: dict[str, Any], now: datetime) -> None:
    game.status = GameStatus.FINISHED
    game.result = result
    game.finished_at = now


def _deadline_seconds(rules: Ruleset, game: Game, seat: int) -> int:
    hook = getattr(rules, "deadline_seconds", None)
    if hook is None:
        return game.turn_timeout
    return max(
        settings.FACETS_MIN_TURN_TIMEOUT,
        min(game.turn_timeout, hook(game.state, seat, game.turn_timeout)),
    )


def _reschedule(game: Game, seats: list[Seat], rules: Ruleset, now: datetime) -> None:
    """Deadlines for pending seats, tasks for bots and system steps."""
    active = game.status == GameStatus.ACTIVE
    pending = set(rules.pending(game.state)) if active else set()
    grace = timedelta(seconds=settings.FACETS_TASK_GRACE_SECONDS)
    changed = []
    for seat in seats:
        before = seat.deadline
        if seat.index not in pending:
            seat.deadline = None
        elif seat.played_by_bot:
            seat.deadline = now + grace
            dispatch.send_after_commit(TASK_BOT_MOVE, game.pk, seat.index, game.seq)
        elif seat.deadline is None:
            # A human keeps one deadline for the whole time they are pending
            # (a multi-action turn does not extend it).
            seat.deadline = now + timedelta(seconds=_deadline_seconds(rules, game, seat.index))
        if seat.deadline != before:
            changed.append(seat)
    # One UPDATE for all of them: a turn passing changes two seats.
    Seat.objects.bulk_update(changed, ["deadline"])
    if active and not pending:
        game.system_step_due_at = now + grace
        dispatch.send_after_commit(TASK_SYSTEM_STEP, game.pk, game.seq)
    else:
        game.system_step_due_at = None
