"""Turning games into the API's JSON. Pure reads: no writes, no decisions."""

from __future__ import annotations

from typing import Any

from games import selectors
from games.models import Game, ImportedRecord, Seat
from games.rules.base import Ruleset


def players(game: Game, seats: list[Seat], pending: list[int]) -> list[dict[str, Any]]:
    return [
        {
            "seat": seat.index,
            "username": seat.user.username if seat.user is not None else None,
            "bot": seat.is_bot,
            "resigned": seat.resigned,
            "zombie": seat.zombie,
            "must_act": seat.index in pending,
            "deadline": seat.deadline if seat.index in pending else None,
        }
        for seat in seats
    ]


def game_summary(game: Game, seats: list[Seat], pending: list[int]) -> dict[str, Any]:
    by_index = {seat.index: seat for seat in seats}
    return {
        "id": game.pk,
        "ruleset": game.ruleset,
        "ruleset_version": game.ruleset_version,
        "options": game.options,
        "status": game.status,
        "seq": game.seq,
        "num_seats": game.num_seats,
        "turn_timeout": game.turn_timeout,
        "created_by": game.created_by.username,
        "created_at": game.created_at,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
        "public": game.public,
        "seed_commitment": game.seed_commitment or None,
        "players": players(game, seats, pending),
        "to_act": [
            {"seat": i, "deadline": by_index[i].deadline if i in by_index else None}
            for i in pending
        ],
        "result": game.result,
    }


def game_detail(access: selectors.GameAccess) -> dict[str, Any]:
    pending = selectors.game_pending_seats(access)
    return {
        **game_summary(access.game, access.seats, pending),
        "your_seat": access.seat_index,
        "state": selectors.game_view(access),
        "seed": selectors.game_seed(access),
    }


def event_page(
    access: selectors.GameAccess, events: list[dict[str, Any]], after: int
) -> dict[str, Any]:
    """The answer of the events endpoint (and of its long-poll)."""
    last_shown = events[-1]["seq"] if events else after
    return {"events": events, "last_seq": access.game.seq, "has_more": last_shown < access.game.seq}


def game_list_item(game: Game) -> dict[str, Any]:
    seats = list(game.seats.all())
    pending = [s.index for s in seats if s.deadline is not None]
    return game_summary(game, seats, pending)


def ruleset_summary(rules: Ruleset) -> dict[str, Any]:
    return {
        "slug": rules.SLUG,
        "name": rules.NAME,
        "version": rules.VERSION,
        "min_players": rules.MIN_PLAYERS,
        "max_players": rules.MAX_PLAYERS,
        "options": rules.OPTIONS,
    }


def imported_record(imported: ImportedRecord) -> dict[str, Any]:
    return {
        "id": imported.pk,
        "ruleset": imported.ruleset,
        "uploaded_by": imported.uploaded_by.username if imported.uploaded_by else None,
        "created_at": imported.created_at,
        "verification": imported.verification,
        "record": imported.record,
    }
