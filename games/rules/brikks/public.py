"""What seats see, the final result and the published material."""

from __future__ import annotations

import copy
from typing import Any

from ..base import Event, Seat, State
from . import scoring
from . import sheet as m
from .rules import is_over, pending


def view(state: State, seat: Seat | None) -> dict[str, Any]:
    """Brikks has no hidden information: every sheet is public, as at the
    table, and nothing random is stored ahead of time (dice are rolled when
    due). The view adds what a client would otherwise compute."""
    public = copy.deepcopy(state)
    public["viewer"] = seat
    public["pending"] = pending(state)
    for player in public.get("players", []):
        player["energy_available"] = scoring.energy_available(player)
        player["energy_bar"] = scoring.energy_bar(player, state["num_players"])
        player["score"] = scoring.score_breakdown(player, state["duel"])
    return public


def redact_event(event: Event, seat: Seat | None) -> Event:
    """Nothing in a Brikks event is secret."""
    return dict(event)


def result(state: State) -> dict[str, Any] | None:
    if not is_over(state):
        return None
    duel = state["duel"]
    players = state["players"]
    breakdowns = [scoring.score_breakdown(p, duel) for p in players]
    if duel:
        return _duel_result(state, breakdowns)
    totals = [b["total"] for b in breakdowns]
    ranking = sorted(range(len(players)), key=lambda s: (-totals[s], s))
    best = max(totals)
    outcome: dict[str, Any] = {
        "winners": [s for s in range(len(players)) if totals[s] == best],
        "scores": totals,
        "ranking": ranking,
        "breakdown": breakdowns,
        "out_round": [p["out_round"] for p in players],
    }
    if state["num_players"] == 1:
        outcome["rating"] = scoring.solo_rating(totals[0], players[0]["level"])
    return outcome


def _duel_result(state: State, breakdowns: list[dict[str, Any]]) -> dict[str, Any]:
    """The seat that stays in longer wins; going out in the same round, line
    points decide; equal line points share the win. ``scores`` are the line
    points, the only points the duel counts."""
    players = state["players"]
    last_round = state["round"] + 1  # still in when the game ended: beats any out_round
    survived = [p["out_round"] if p["out"] else last_round for p in players]
    lines = [b["lines"] for b in breakdowns]
    ranking = sorted(range(2), key=lambda s: (-survived[s], -lines[s], s))
    first = ranking[0]
    winners = [s for s in range(2) if (survived[s], lines[s]) == (survived[first], lines[first])]
    return {
        "winners": winners,
        "scores": lines,
        "ranking": ranking,
        "breakdown": breakdowns,
        "out_round": [p["out_round"] for p in players],
    }


def material() -> dict[str, Any]:
    """Everything a client needs to draw the sheet and the block overview."""
    return {
        "field": {"width": m.FIELD_WIDTH, "height": m.FIELD_HEIGHT, "origin": "bottom-left"},
        "colors": list(m.COLORS),
        "color_letters": dict(m.COLOR_LETTERS),
        "mini_block_letter": m.MINI_BLOCK_LETTER,
        "empty_letter": m.EMPTY,
        "blocks": [
            {"color": color, "column": column, "squares": [list(sq) for sq in squares]}
            for (color, column), squares in m.SHAPES.items()
        ],
        "circles": [dict(circle) for circle in m.CIRCLES],
        "energy_bar": {
            "length": m.ENERGY_BAR_LENGTH,
            "pink_x": list(m.PINK_X_CIRCLES),
            "printed_active": m.PRINTED_ACTIVE_CIRCLES,
            "crossed_out_by_players": {
                str(n): list(circles) for n, circles in m.CROSSED_OUT_BY_PLAYERS.items()
            },
            "solo_extra_active": m.SOLO_EXTRA_CIRCLES,
        },
        "energy_costs": {"per_column": m.COST_PER_COLUMN, "any_block": m.COST_ANY_BLOCK},
        "bonus_track": list(m.BONUS_TRACK),
        "multi_line_crosses": {str(k): v for k, v in m.MULTI_LINE_CROSSES.items()},
        "bombs": list(m.BOMB_VALUES),
        "line_points": {str(k): v for k, v in m.LINE_POINTS.items()},
        "line_multipliers": list(m.LINE_MULTIPLIERS),
        "levels": {str(k): dict(v) for k, v in m.LEVELS.items()},
        "solo_ratings": [{"minimum": minimum, "label": label} for minimum, label in m.SOLO_RATINGS],
        "solo_rating_step_per_level": m.SOLO_RATING_STEP_PER_LEVEL,
    }
