"""Scoring of a Brikks sheet, and the energy bar as a client would draw it."""

from __future__ import annotations

from typing import Any

from .field import field_rows
from .sheet import (
    BOMB_VALUES,
    BONUS_TRACK,
    CROSSED_OUT_BY_PLAYERS,
    ENERGY_BAR_LENGTH,
    LINE_MULTIPLIERS,
    LINE_POINTS,
    SOLO_RATING_STEP_PER_LEVEL,
    SOLO_RATINGS,
)


def line_points(field: list[str]) -> list[int]:
    """Points per line, bottom first: 10/9/8 crosses = 5/2/1, times the
    line's multiplier (lines 6-10 doubled, the top line quadrupled)."""
    points = []
    for y, mask in enumerate(field_rows(field)):
        crosses = mask.bit_count()
        points.append(LINE_POINTS.get(crosses, 0) * LINE_MULTIPLIERS[y])
    return points


def energy_available(player: dict[str, Any]) -> int:
    return player["energy_activated"] - player["energy_spent"]


def unused_bomb_points(bombs_used: int) -> int:
    """Bombs are used from the top, so the unused ones are the last values."""
    return sum(BOMB_VALUES[bombs_used:])


def score_breakdown(player: dict[str, Any], duel: bool) -> dict[str, Any]:
    """The sheet's victory points. In a duel the bonus track is not used."""
    per_line = line_points(player["field"])
    lines = sum(per_line)
    bonus = 0 if duel else BONUS_TRACK[player["bonus_crosses"]]
    bombs = unused_bomb_points(player["bombs_used"])
    energy = energy_available(player) // 2
    return {
        "per_line": per_line,
        "lines": lines,
        "bonus": bonus,
        "bombs": bombs,
        "energy": energy,
        "total": lines + bonus + bombs + energy,
    }


def solo_rating(score: int, level: int) -> str:
    """The rules' table is for level 1; each level above adds 5 points to
    every threshold, so we compare the score minus that handicap."""
    adjusted = score - SOLO_RATING_STEP_PER_LEVEL * (level - 1)
    for minimum, label in SOLO_RATINGS:
        if adjusted >= minimum:
            return label
    return SOLO_RATINGS[-1][1]


def energy_bar(player: dict[str, Any], num_players: int) -> list[str]:
    """Each of the 28 circles: "crossed_out" (deactivated for this player
    count), "spent", "available" or "free". Activated circles are spent in
    order from the first."""
    crossed = set(CROSSED_OUT_BY_PLAYERS[num_players])
    statuses = []
    spent_left = player["energy_spent"]
    for circle in range(1, ENERGY_BAR_LENGTH + 1):
        if circle in crossed:
            statuses.append("crossed_out")
        elif circle > player["energy_position"]:
            statuses.append("free")
        elif spent_left > 0:
            spent_left -= 1
            statuses.append("spent")
        else:
            statuses.append("available")
    return statuses
