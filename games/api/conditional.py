"""ETags for a game's reads, computed from what the answer is made of rather
than from the rendered answer.

A game's detail and its state are fully determined by the game row (its seq,
status and ``updated_at``), its seats and the caller's seat. The tag hashes
exactly those, so it changes whenever the game changes and differs between
seats (each seat sees its own hidden information), and a matching
``If-None-Match`` is answered 304 from the rows ``game_access`` already
loaded: no ruleset view, no replay, no JSON. The seq alone would not do: a
seat joining or leaving an open table writes no event.
"""

from __future__ import annotations

import hashlib
import json

from django.http import HttpRequest, HttpResponseNotModified
from django.utils.http import parse_etags
from rest_framework.request import Request
from rest_framework.response import Response

from games import selectors

# Bump when these answers change shape, so clients do not keep an old body.
REPRESENTATION_VERSION = 1


def game_etag(access: selectors.GameAccess, *extra: object) -> str:
    game = access.game
    basis = [
        REPRESENTATION_VERSION,
        game.pk,
        game.seq,
        game.status,
        game.updated_at.isoformat(),
        game.created_by.username,
        access.seat_index,
        [
            [
                seat.index,
                seat.user.username if seat.user is not None else None,
                seat.is_bot,
                seat.resigned,
                seat.zombie,
                seat.deadline.isoformat() if seat.deadline else None,
            ]
            for seat in access.seats
        ],
        *extra,
    ]
    digest = hashlib.sha256(json.dumps(basis, default=str).encode()).hexdigest()[:32]
    # Weak: the same (game, seq, seat) is the same answer, not the same bytes
    # across versions of the server.
    return f'W/"{digest}"'


def not_modified(request: Request | HttpRequest, etag: str) -> HttpResponseNotModified | None:
    """304 when ``If-None-Match`` matches ``etag`` (weak comparison, RFC 9110)."""
    header = request.META.get("HTTP_IF_NONE_MATCH")
    if not header:
        return None
    candidates = {_opaque(tag) for tag in parse_etags(header)}
    if "*" not in candidates and _opaque(etag) not in candidates:
        return None
    response = HttpResponseNotModified()
    response["ETag"] = etag
    return response


def tagged(response: Response, etag: str) -> Response:
    response["ETag"] = etag
    return response


def _opaque(tag: str) -> str:
    return tag.removeprefix("W/")
