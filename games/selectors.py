"""Reads (HackSoft styleguide: selectors). Nothing here writes."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any

from django.db import connection, transaction
from django.db.models import Q, QuerySet

from accounts.models import User

from . import records, store
from .errors import NotAPlayer, NotFound, ValidationFailed
from .locks import MAX_ID
from .models import Event, Game, GameStatus, ImportedRecord, Seat
from .rules import registry
from .rules.base import Ruleset, fold

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class GameAccess:
    """A game with the caller's seat (None for a spectator)."""

    game: Game
    seats: list[Seat]
    seat: Seat | None

    @property
    def seat_index(self) -> int | None:
        return None if self.seat is None else self.seat.index

    @property
    def rules(self) -> Ruleset:
        return registry.get(self.game.ruleset, self.game.ruleset_version)

    @property
    def finished(self) -> bool:
        """A finished game is fully public to whoever may read it: events
        unredacted, hashes, causes and the seed shown."""
        return self.game.status == GameStatus.FINISHED


def game_access(*, game_id: int, user: User | None) -> GameAccess:
    """The game and the caller's seat. A private game does not exist for
    anyone without a seat in it (404, so its existence does not leak)."""
    if not 0 < game_id <= MAX_ID:
        raise NotFound(f"No game {game_id}.")
    game = Game.objects.select_related("created_by").filter(pk=game_id).first()
    if game is None:
        raise NotFound(f"No game {game_id}.")
    seats = list(game.seats.select_related("user"))
    seat = next((s for s in seats if user is not None and s.user_id == user.pk and user.pk), None)
    if seat is None and not game.public:
        raise NotFound(f"No game {game_id}.")
    return GameAccess(game=game, seats=seats, seat=seat)


def game_pending_seats(access: GameAccess) -> list[int]:
    if access.game.status != GameStatus.ACTIVE:
        return []
    return list(access.rules.pending(access.game.state))


def game_view(access: GameAccess) -> dict[str, Any] | None:
    if access.game.status in (GameStatus.OPEN, GameStatus.ABORTED):
        return None
    return access.rules.view(access.game.state, access.seat_index)


def game_legal_actions(access: GameAccess) -> list[dict[str, Any]]:
    if access.seat is None:
        raise NotAPlayer("You have no seat in this game.")
    if access.game.status != GameStatus.ACTIVE or access.seat.resigned:
        return []
    rules = access.rules
    if access.seat.index not in rules.pending(access.game.state):
        return []
    return rules.legal_actions(access.game.state, access.seat.index)


def game_list(
    *,
    user: User | None,
    status: str | None = None,
    ruleset: str | None = None,
    mine: bool = False,
    waiting_for_me: bool = False,
) -> QuerySet[Game]:
    games = Game.objects.select_related("created_by").prefetch_related("seats__user")
    games = games.filter(_readable_by(user))
    if status:
        games = games.filter(status=status)
    if ruleset:
        games = games.filter(ruleset=ruleset)
    if mine or waiting_for_me:
        if user is None:
            return games.none()
        games = games.filter(seats__user=user)
    if waiting_for_me:
        # A deadline is set exactly while a seat must act.
        games = games.filter(
            status=GameStatus.ACTIVE,
            seats__user=user,
            seats__deadline__isnull=False,
            seats__resigned=False,
        )
    return games.distinct().order_by("-id")


def open_games_filter() -> Q:
    return Q(status=GameStatus.OPEN)


def _readable_by(user: User | None) -> Q:
    if user is None:
        return Q(public=True)
    return Q(public=True) | Q(pk__in=Seat.objects.filter(user=user).values("game_id"))


def event_list(*, access: GameAccess, after: int = 0, limit: int = 100) -> list[dict[str, Any]]:
    rows = Event.objects.filter(game=access.game, seq__gt=after).order_by("seq")[:limit]
    return [event_for(access, row) for row in rows]


def event_for(access: GameAccess, row: Event) -> dict[str, Any]:
    """An event as the caller may see it. During play: redacted for the
    caller's seat, without its hash (a hash over a small hidden payload, such
    as one card, could be brute-forced) and without its cause (the draws).
    Once the game is finished: everything."""
    if access.finished:
        return event_record(row)
    if "." in row.type:
        shown = store.as_rule_event(row)
    else:
        shown = access.rules.redact_event(store.as_rule_event(row), access.seat_index)
    payload = {k: v for k, v in shown.items() if k not in ("type", "actor")}
    return {
        "seq": row.seq,
        "type": row.type,
        "actor": row.actor,
        "automatic": row.automatic,
        "payload": payload,
        "created_at": row.created_at.isoformat(),
        "hash": None,
        "cause": None,
    }


def event_record(row: Event) -> dict[str, Any]:
    """The whole stored event, ``created_at`` exactly as it was hashed."""
    return {
        "seq": row.seq,
        "type": row.type,
        "actor": row.actor,
        "automatic": row.automatic,
        "payload": row.payload,
        "created_at": row.created_at.isoformat(),
        "hash": row.hash,
        "cause": row.cause,
    }


def state_at(*, access: GameAccess, seq: int) -> dict[str, Any]:
    """Replay: the caller's view of the state right after event ``seq``."""
    state_check_readable(access=access, seq=seq)
    state = fold(access.rules, rule_events(game=access.game, upto=seq))
    return access.rules.view(state, access.seat_index) if state else {}


def state_check_readable(*, access: GameAccess, seq: int) -> None:
    """Raise unless the caller may see the state at ``seq`` (no query)."""
    game = access.game
    if access.seat is None and game.status != GameStatus.FINISHED:
        raise NotAPlayer(
            "Only players may replay a game in progress; anyone may once it is finished."
        )
    if not 0 <= seq <= game.seq:
        raise ValidationFailed(
            f"seq must be between 0 and {game.seq}.", details={"fields": {"at": ["out of range"]}}
        )


def rule_events(*, game: Game, upto: int | None = None) -> list[dict[str, Any]]:
    """Events 1..upto (all by default) as the ruleset folds them. Read as
    plain tuples: building an Event instance per row cost more than the fold
    itself (docs/performance.md)."""
    rows = Event.objects.filter(game=game)
    if upto is not None:
        rows = rows.filter(seq__lte=upto)
    fields = rows.order_by("seq").values_list(*store.RULE_EVENT_FIELDS)
    return [store.rule_event(*values) for values in fields]


def game_record(*, access: GameAccess, rows: list[Event] | None = None) -> dict[str, Any]:
    """The game as one document. Finished: complete (every event with its hash
    and cause, and the seed). Otherwise: the caller's redacted view only."""
    game = access.game
    if rows is None:
        rows = list(Event.objects.filter(game=game).order_by("seq"))
    complete = access.finished
    return {
        "format": records.RECORD_FORMAT,
        "version": records.RECORD_VERSION,
        "complete": complete,
        "id": game.pk,
        "ruleset": game.ruleset,
        "rules_version": game.ruleset_version,
        "options": game.options,
        "num_seats": game.num_seats,
        "public": game.public,
        "players": [
            {
                "seat": seat.index,
                "username": seat.user.username if seat.user is not None else None,
                "bot": seat.is_bot,
                "resigned": seat.resigned,
            }
            for seat in access.seats
        ],
        "status": game.status,
        "result": game.result,
        "created_at": game.created_at.isoformat(),
        "started_at": game.started_at.isoformat() if game.started_at else None,
        "finished_at": game.finished_at.isoformat() if game.finished_at else None,
        "seed_commitment": game.seed_commitment or None,
        "seed": game_seed(access),
        "rng_counter": game.rng_counter if complete and game.seed else None,
        "your_seat": access.seat_index,
        "events": [event_for(access, row) for row in rows],
    }


def game_seed(access: GameAccess) -> str | None:
    """The dice seed: revealed only once the game is finished."""
    if not access.finished or not access.game.seed:
        return None
    return access.game.seed


def replay_check(*, access: GameAccess) -> dict[str, Any]:
    """Verify a game. Always: the hash chain and that folding the log gives
    the projection. Once finished (and provably fair): also the seed against
    its commitment, every draw, and the re-execution of every ruleset call.
    During play nothing secret is shown (no hash, no seed)."""
    game, rows = _game_and_log_in_one_snapshot(access.game.pk)
    access = replace(access, game=game)
    chain_ok, bad_seq = store.verify_chain(rows, head=(game.seq, game.last_hash))
    projection_matches = _replays_to_projection(game, rows)
    if not access.finished:
        chain = {
            "check": "hash_chain",
            "ok": chain_ok,
            "seq": bad_seq,
            "message": f"{len(rows)} events chained" if chain_ok else f"event {bad_seq}: broken",
        }
        return records.summary(
            [chain],
            events=len(rows),
            complete=False,
            fair=bool(game.seed),
            last_hash=None,
            projection_matches=projection_matches,
        )
    report = records.verify(game_record(access=access, rows=rows))
    report["projection_matches"] = projection_matches
    report["ok"] = report["ok"] and projection_matches
    return report


def finished_records_of(
    *, username: str, viewer: User | None, since: Any = None, max_games: int | None = None
) -> Any:
    """Records of a user's finished games, newest first, that ``viewer`` may
    read (public ones, and private ones the viewer played in). A generator:
    the export streams them one by one."""
    owner = User.objects.filter(username__iexact=username).first()
    if owner is None:
        raise NotFound(f"No user {username!r}.")
    games = (
        Game.objects.filter(status=GameStatus.FINISHED, seats__user=owner)
        .filter(_readable_by(viewer))
        .distinct()
        .order_by("-finished_at", "-id")
    )
    if since is not None:
        games = games.filter(finished_at__gte=since)
    if max_games is not None:
        games = games[:max_games]
    ids = list(games.values_list("pk", flat=True))

    def generate() -> Any:
        for game_id in ids:
            access = game_access(game_id=game_id, user=viewer)
            yield game_record(access=access)

    return generate()


def imported_record_get(*, record_id: int) -> ImportedRecord:
    record = (
        ImportedRecord.objects.filter(pk=record_id).first() if 0 < record_id <= MAX_ID else None
    )
    if record is None:
        raise NotFound(f"No imported record {record_id}.")
    return record


def imported_record_verify(*, imported: ImportedRecord) -> dict[str, Any]:
    """Verify an imported record again, from what is stored."""
    return records.verify(records.validate(imported.record))


def _game_and_log_in_one_snapshot(game_id: int) -> tuple[Game, list[Event]]:
    """The game row and its log as of one moment. Read one after the other
    under READ COMMITTED, a move committing in between would look like an
    event appended behind the service's back (or a missing one)."""
    # Inside an outer atomic block (a test's, say) the isolation level is
    # already fixed; SQLite's transactions are serializable anyway.
    own_transaction = not connection.in_atomic_block
    with transaction.atomic():
        if connection.vendor == "postgresql" and own_transaction:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        game = Game.objects.get(pk=game_id)
        rows = list(Event.objects.filter(game_id=game_id).order_by("seq"))
    return game, rows


def _replays_to_projection(game: Game, rows: list[Event]) -> bool:
    rules = registry.get(game.ruleset, game.ruleset_version)
    try:
        replayed = fold(rules, [store.as_rule_event(r) for r in rows])
    except Exception:
        # A log edited behind the database's triggers may hold events the
        # reducer cannot fold: that is a failed check, not a server error.
        logger.warning("game %s: its log does not replay", game.pk, exc_info=True)
        return False
    return replayed == game.state
