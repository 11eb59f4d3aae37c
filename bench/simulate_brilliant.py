"""Balance figures for Brilliant: bot games for every level and player count.

Usage: python bench/simulate_brilliant.py [--games N] [--seed S] [--levels 1,2,3,4]
[--free-setups]. Defaults: 200 games per case, seed 1, all levels, every bot
starting on the star fields (``auto_action``). With ``--free-setups`` each bot
instead writes 1..6 into six random fields of six random areas, which is how
players who know the game start and gives more varied sheets.

Prints one Markdown table row per level and player count: mean, median and
range of rolls, share of games ended by the score threshold, mean winner score,
share of games with a shared win, and share of games seat 0 won alone (fair:
(100% - shared) / players).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.rules import brilliant  # noqa: E402
from games.rules.base import play_bot_game  # noqa: E402
from games.rules.brilliant.sheets import sheet  # noqa: E402


def free_setup_bot(state: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """Random free setup (six random areas, one random field each), then the usual bot."""
    if state["phase"] != "setup":
        return brilliant.auto_action(state, seat, rng)
    areas = rng.sample(sheet(state["level"]).areas, 6)
    values = [1, 2, 3, 4, 5, 6]
    rng.shuffle(values)
    cells = [[*rng.choice(area.fields), value] for area, value in zip(areas, values, strict=True)]
    return {"type": "setup", "cells": cells}


def simulate(
    level: int, players: int, games: int, rng: random.Random, free_setups: bool
) -> dict[str, float]:
    rolls, by_threshold, winner_scores, shared, first_seat_wins = [], 0, [], 0, 0
    chooser = free_setup_bot if free_setups else None
    for _ in range(games):
        state, _ = play_bot_game(brilliant, players, {"level": level}, rng, choose_action=chooser)
        outcome = brilliant.result(state)
        assert outcome is not None
        rolls.append(state["roll"])
        by_threshold += outcome["reason"] == "threshold"
        winner_scores.append(max(outcome["scores"]))
        shared += len(outcome["winners"]) > 1
        first_seat_wins += outcome["winners"] == [0]
    return {
        "mean_rolls": statistics.mean(rolls),
        "median_rolls": statistics.median(rolls),
        "min_rolls": min(rolls),
        "max_rolls": max(rolls),
        "threshold_pct": 100 * by_threshold / games,
        "winner_score": statistics.mean(winner_scores),
        "shared_pct": 100 * shared / games,
        "seat0_win_pct": 100 * first_seat_wins / games,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--levels", default="1,2,3,4")
    parser.add_argument("--free-setups", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    started = time.perf_counter()
    setups = "random free setups" if args.free_setups else "star setups"
    print(f"{args.games} bot games per case, seed {args.seed}, {setups}")
    print(
        "| level | players | mean rolls | median | min-max | ended by threshold "
        "| mean winner score | shared wins | seat 0 sole wins |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for level in [int(part) for part in args.levels.split(",")]:
        for players in range(brilliant.MIN_PLAYERS, brilliant.MAX_PLAYERS + 1):
            f = simulate(level, players, args.games, rng, args.free_setups)
            print(
                f"| {level} | {players} | {f['mean_rolls']:.1f} | {f['median_rolls']:.0f} "
                f"| {f['min_rolls']}-{f['max_rolls']} | {f['threshold_pct']:.0f}% "
                f"| {f['winner_score']:.1f} | {f['shared_pct']:.0f}% "
                f"| {f['seat0_win_pct']:.0f}% |"
            )
    print(f"took {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
