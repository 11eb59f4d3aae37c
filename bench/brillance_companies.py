"""Brillance board balance between companies, independent of seat.

Usage: python bench/brillance_companies.py [--games N] [--seed S] [--players 2,3,4,5,6]
[--workers W]. Defaults: 120 games per player count, seed 1, 2 worker processes.

The rules give the seats fixed companies (``rules.PLAYER_COMPANIES``: seat 0 is
always yellow). To separate the board from the seat order, this script rotates
the assignment: game i with n players gives seat k the company
``companies[(k + i) % n]``, so over n consecutive games every company of that
player count sits once in every seat. It does this by patching
``rules.PLAYER_COMPANIES`` in memory, in this process only, as a measurement
device: the rules package has no such option and the game is unchanged (set-up
reads the list, everything after reads the companies from the state).

Every game is a bot game (``auto_action`` for every seat through
``games.rules.base.play_bot_game``) with its own seeded ``random.Random``
(``seed * 1_000_000 + players * 10_000 + i``), default rules. For each player
count it prints one Markdown row per company (mean score, its spread as a
deviation from the table mean, win rate; fair is 1/players) and one per seat
(the same, whatever company the seat had). A shared win counts 1/k to each of
the k winners. Use a multiple of 60 games (the default, 120, takes about 2 minutes on two cores) so that every rotation appears
equally often at every player count.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.rules import brillance  # noqa: E402
from games.rules.base import play_bot_game  # noqa: E402
from games.rules.brillance import rules  # noqa: E402

BASE = {n: list(c) for n, c in rules.PLAYER_COMPANIES.items()}


def play_one(job: tuple[int, int, int]) -> tuple[list[str], list[int], list[float]]:
    """One rotated bot game: (companies by seat, scores by seat, win shares by seat)."""
    players, index, seed = job
    base = BASE[players]
    shift = index % players
    rules.PLAYER_COMPANIES[players] = base[shift:] + base[:shift]
    try:
        rng = random.Random(seed * 1_000_000 + players * 10_000 + index)
        state, _ = play_bot_game(brillance, players, {}, rng)
    finally:
        rules.PLAYER_COMPANIES[players] = list(base)
    result = brillance.result(state)
    winners = result["winners"]
    shares = [1 / len(winners) if seat in winners else 0.0 for seat in range(players)]
    return list(state["companies"]), list(result["scores"]), shares


def report(players: int, games: list[tuple[list[str], list[int], list[float]]]) -> None:
    by_company: dict[str, list[int]] = defaultdict(list)
    wins_company: dict[str, float] = defaultdict(float)
    by_seat: dict[int, list[int]] = defaultdict(list)
    wins_seat: dict[int, float] = defaultdict(float)
    for companies, scores, shares in games:
        for seat, colour in enumerate(companies):
            by_company[colour].append(scores[seat])
            wins_company[colour] += shares[seat]
            by_seat[seat].append(scores[seat])
            wins_seat[seat] += shares[seat]
    table = statistics.mean(s for _, scores, _ in games for s in scores)
    fair = 100 / players
    print(f"\n{players} players, {len(games)} games, mean score {table:.2f}, fair win {fair:.0f}%")
    print("\n| company | games | mean score | vs table | win rate |")
    print("|---|---|---|---|---|")
    order = [brillance.board.COMPANIES[c] for c in BASE[players]]
    for colour in order:
        scores = by_company[colour]
        mean = statistics.mean(scores)
        print(
            f"| {colour} | {len(scores)} | {mean:.2f} | {mean - table:+.2f} "
            f"| {100 * wins_company[colour] / len(scores):.0f}% |"
        )
    print("\n| seat | games | mean score | vs table | win rate |")
    print("|---|---|---|---|---|")
    for seat in range(players):
        scores = by_seat[seat]
        mean = statistics.mean(scores)
        print(
            f"| {seat} | {len(scores)} | {mean:.2f} | {mean - table:+.2f} "
            f"| {100 * wins_seat[seat] / len(scores):.0f}% |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=120)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", default="2,3,4,5,6")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    counts = [int(p) for p in args.players.split(",")]
    started = time.monotonic()
    print(
        f"Brillance companies: {args.games} rotated bot games per player count, "
        f"seed {args.seed}, default rules"
    )
    jobs = [(n, i, args.seed) for n in counts for i in range(args.games)]
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        results = list(pool.map(play_one, jobs, chunksize=4))
    for n in counts:
        report(n, [r for (p, _, _), r in zip(jobs, results, strict=True) if p == n])
    print(f"\n{time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
