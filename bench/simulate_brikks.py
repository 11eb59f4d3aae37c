"""Play Brikks bot games and print balance figures for docs/rules/brikks.md.

Usage: python bench/simulate_brikks.py [--solo-games N] [--games N] [--seed S]

Solo: average score per level (the rules' rating table says 60-90 is a decent
human at level 1). 2/3/4 players and the duel: rounds played, scores, the
round each seat went out and who won.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.rules import brikks  # noqa: E402
from games.rules.base import play_bot_game  # noqa: E402


def solo_figures(games: int, rng: random.Random) -> None:
    print(f"Solo, {games} games per level")
    print()
    print("| level | mean | median | min | max | rounds | bonus points | most frequent rating |")
    print("|---|---|---|---|---|---|---|---|")
    for level in (1, 2, 3, 4):
        scores, rounds, bonus, ratings = [], [], [], Counter()
        for _ in range(games):
            final, _events = play_bot_game(brikks, 1, {"level": level}, rng)
            outcome = brikks.result(final)
            scores.append(outcome["scores"][0])
            rounds.append(final["round"])
            bonus.append(outcome["breakdown"][0]["bonus"])
            ratings[outcome["rating"]] += 1
        label, count = ratings.most_common(1)[0]
        print(
            f"| {level} | {statistics.mean(scores):.1f} | {statistics.median(scores):.0f} | "
            f"{min(scores)} | {max(scores)} | {statistics.mean(rounds):.1f} | "
            f"{statistics.mean(bonus):.1f} | {label} ({100 * count // games}%) |"
        )


def table_figures(num_players: int, options: dict, games: int, rng: random.Random) -> None:
    label = "duel" if options.get("duel") else f"{num_players} players"
    rounds, scores, winner_scores, wins = [], [], [], Counter()
    first_out, last_out, shared = [], [], 0
    for _ in range(games):
        final, _events = play_bot_game(brikks, num_players, options, rng)
        outcome = brikks.result(final)
        rounds.append(final["round"])
        scores.extend(outcome["scores"])
        winner_scores.append(max(outcome["scores"]))
        shared += len(outcome["winners"]) > 1
        for seat in outcome["winners"]:
            wins[seat] += 1
        out = sorted(r for r in outcome["out_round"] if r is not None)
        first_out.append(out[0])
        last_out.append(out[-1])
    share = ", ".join(f"{100 * wins[s] / games:.0f}%" for s in range(num_players))
    print(
        f"| {label} | {games} | {statistics.mean(rounds):.1f} ({min(rounds)}-{max(rounds)}) | "
        f"{statistics.mean(first_out):.1f} | {statistics.mean(last_out):.1f} | "
        f"{statistics.mean(scores):.1f} ({min(scores)}-{max(scores)}) | "
        f"{statistics.mean(winner_scores):.1f} | {100 * shared / games:.0f}% | {share} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--solo-games", type=int, default=300)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    started = time.perf_counter()
    solo_figures(args.solo_games, rng)
    print()
    print(
        "| table | games | rounds (range) | first out, round | last out, round | "
        "score per seat (range) | winner score | shared wins | wins by seat 0,1,.. |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for num_players, options in ((2, {}), (3, {}), (4, {}), (2, {"duel": True})):
        table_figures(num_players, options, args.games, rng)
    print(f"took {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
