"""Play Brikks bot games and print balance figures for docs/rules/brikks.md.

Usage: python bench/simulate_brikks.py [--solo-games N] [--games N] [--seed S] [--jobs J]

Solo: average score per level (the rules' rating table says 60-90 is a decent
human at level 1). 2/3/4 players and the duel: rounds played, scores, the
round each seat went out and who won. Every game gets its own seed drawn
from ``--seed``, so the figures do not depend on ``--jobs`` (worker
processes). The time the bot takes per decision is measured too.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.rules import brikks  # noqa: E402
from games.rules.base import play_bot_game  # noqa: E402


def _play(job: tuple[int, dict[str, Any], int]) -> tuple[Any, int, list[float]]:
    """One game: the result, the last round, the time of each bot decision."""
    num_players, options, seed = job
    times: list[float] = []

    def timed(state: Any, seat: int, rng: Any) -> Any:
        started = time.perf_counter()
        action = brikks.auto_action(state, seat, rng)
        times.append(time.perf_counter() - started)
        return action

    final, _events = play_bot_game(
        brikks, num_players, options, random.Random(seed), choose_action=timed
    )
    return brikks.result(final), final["round"], times


def solo_figures(games: int, rng: random.Random, pool: Any, times: list[float]) -> None:
    print(f"Solo, {games} games per level")
    print()
    print("| level | mean | median | min | max | rounds | bonus points | most frequent rating |")
    print("|---|---|---|---|---|---|---|---|")
    for level in (1, 2, 3, 4):
        jobs = [(1, {"level": level}, rng.randrange(2**32)) for _ in range(games)]
        scores, rounds, bonus = [], [], []
        ratings: Counter[str] = Counter()
        for outcome, last_round, game_times in pool.map(_play, jobs):
            scores.append(outcome["scores"][0])
            rounds.append(last_round)
            bonus.append(outcome["breakdown"][0]["bonus"])
            ratings[outcome["rating"]] += 1
            times.extend(game_times)
        label, count = ratings.most_common(1)[0]
        print(
            f"| {level} | {statistics.mean(scores):.1f} | {statistics.median(scores):.0f} | "
            f"{min(scores)} | {max(scores)} | {statistics.mean(rounds):.1f} | "
            f"{statistics.mean(bonus):.1f} | {label} ({100 * count // games}%) |"
        )


def table_figures(
    num_players: int,
    options: dict,
    games: int,
    rng: random.Random,
    pool: Any,
    times: list[float],
) -> None:
    label = "duel" if options.get("duel") else f"{num_players} players"
    rounds, scores, winner_scores = [], [], []
    wins: Counter[int] = Counter()
    first_out, last_out, shared = [], [], 0
    jobs = [(num_players, options, rng.randrange(2**32)) for _ in range(games)]
    for outcome, last_round, game_times in pool.map(_play, jobs):
        times.extend(game_times)
        rounds.append(last_round)
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
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    started = time.perf_counter()
    times: list[float] = []
    with Pool(args.jobs) as pool:
        solo_figures(args.solo_games, rng, pool, times)
        print()
        print(
            "| table | games | rounds (range) | first out, round | last out, round | "
            "score per seat (range) | winner score | shared wins | wins by seat 0,1,.. |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        for num_players, options in ((2, {}), (3, {}), (4, {}), (2, {"duel": True})):
            table_figures(num_players, options, args.games, rng, pool, times)
    times.sort()
    print()
    print(
        f"bot decisions: {len(times)}, mean {1000 * statistics.mean(times):.1f} ms, "
        f"median {1000 * times[len(times) // 2]:.1f} ms, "
        f"99th percentile {1000 * times[len(times) * 99 // 100]:.1f} ms, "
        f"max {1000 * times[-1]:.1f} ms"
    )
    print(f"took {time.perf_counter() - started:.0f} s wall clock with {args.jobs} jobs")


if __name__ == "__main__":
    main()
