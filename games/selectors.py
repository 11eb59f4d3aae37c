"""Reads (HackSoft styleguide: selectors). Nothing here writes."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet

from accounts.models import User

from . import store
from .errors import NotAPlayer, NotFound, ValidationFailed
from .locks import MAX_ID
from .models import Event, Game, GameStatus, Seat
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


def game_access(*, game_id: int, user: User | None) -> GameAccess:
    if not 0 < game_id <= MAX_ID:
        raise NotFound(f"No game {game_id}.")
    game = Game.objects.select_related("created_by").filter(pk=game_id).first()
    if game is None:
        raise NotFound(f"No game {game_id}.")
    seats = list(game.seats.select_related("user"))
    seat = next((s for s in seats if user is not None and s.user_id == user.pk and user.pk), None)
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


def event_list(*, access: GameAccess, after: int = 0, limit: int = 100) -> list[dict[str, Any]]:
    rows = Event.objects.filter(game=access.game, seq__gt=after).order_by("seq")[:limit]
    return [event_for(access, row) for row in rows]


def event_for(access: GameAccess, row: Event) -> dict[str, Any]:
    """An event as the caller may see it."""
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
        "created_at": row.created_at,
        "hash": row.hash,
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


def replay_check(*, game: Game) -> dict[str, Any]:
    """Verify the hash chain and that folding the log gives the projection."""
    rows = list(Event.objects.filter(game=game).order_by("seq"))
    chain_ok, bad_seq = store.verify_chain(rows, head=(game.seq, game.last_hash))
    return {
        "events": len(rows),
        "chain_ok": chain_ok,
        "first_bad_seq": bad_seq,
        "projection_matches": _replays_to_projection(game, rows),
        "last_hash": game.last_hash,
    }


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
