"""Balance figures for Brilliant: bot games for every level and player count.

Usage: python bench/simulate_brilliant.py [games_per_case] [seed] [levels]
(default 200 games per case, seed 1, levels 1,2,3,4). Prints one Markdown table
row per level and player count: mean, median and range of rolls, share of games
ended by the score threshold, mean winner score, share of games with a shared
win, and share of games seat 0 won alone (fair: (100% - shared) / players).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.rules import brilliant  # noqa: E402
from games.rules.base import play_bot_game  # noqa: E402


def simulate(level: int, players: int, games: int, rng: random.Random) -> dict[str, float]:
    rolls, by_threshold, winner_scores, shared, first_seat_wins = [], 0, [], 0, 0
    for _ in range(games):
        state, _ = play_bot_game(brilliant, players, {"level": level}, rng)
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
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    levels = [int(x) for x in sys.argv[3].split(",")] if len(sys.argv) > 3 else [1, 2, 3, 4]
    rng = random.Random(seed)
    started = time.perf_counter()
    print(f"{games} bot games per case, seed {seed}")
    print(
        "| level | players | mean rolls | median | min-max | ended by threshold "
        "| mean winner score | shared wins | seat 0 sole wins |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for level in levels:
        for players in range(brilliant.MIN_PLAYERS, brilliant.MAX_PLAYERS + 1):
            f = simulate(level, players, games, rng)
            print(
                f"| {level} | {players} | {f['mean_rolls']:.1f} | {f['median_rolls']:.0f} "
                f"| {f['min_rolls']}-{f['max_rolls']} | {f['threshold_pct']:.0f}% "
                f"| {f['winner_score']:.1f} | {f['shared_pct']:.0f}% "
                f"| {f['seat0_win_pct']:.0f}% |"
            )
    print(f"took {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
