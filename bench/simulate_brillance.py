"""Balance figures for Brillance: bot games for every player count.

Usage: python bench/simulate_brillance.py [--games N] [--seed S] [--players 2,3,4,5,6]
[--wandering] [--speed-bonus] [--one-card]. Defaults: 200 games per player count,
seed 1, no optional rule.

First prints the route balance of the board: for each company, the sum of the
distances from its guard space to its six shops on the empty board, and with
the non-player companies' carts parked for each player count. Then one
Markdown table row per player count: mean score, merchandise delivered per
player (unloaded, and order points of completed shops), carts out per player,
card plays and brigand thefts per game, share of shared wins, how often seat 0
wins (alone or shared; fair is 1/players), mean score per company, and the
time the bot takes per call (mean and slowest).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.rules import brillance  # noqa: E402
from games.rules.base import fold, play_bot_game  # noqa: E402
from games.rules.brillance import board, rules  # noqa: E402


def route_balance() -> None:
    print("Route balance: sum of guard-to-shop distances per company")
    print("(empty board, then with non-player carts parked for 2..5 players)\n")
    header = "| players | " + " | ".join(board.COMPANIES) + " |"
    print(header)
    print("|" + "---|" * (len(board.COMPANIES) + 1))
    cells = []
    for colour in board.COMPANIES:
        dist = board.bfs(board.GUARD[colour], board.NEIGHBOURS)
        cells.append(
            str(sum(dist[s] for s in board.SHOP_SPACES if board.SPACES[s]["colour"] == colour))
        )
    print("| empty | " + " | ".join(cells) + " |")
    for players in range(2, 6):
        state = fold(brillance, brillance.setup(players, {}, random.Random(0)))
        parked = {c["space"] for c in state["carts"] if c["owner"] is None}
        row = []
        for colour in board.COMPANIES:
            if colour not in state["companies"]:
                row.append("-")
                continue
            flags = [s["id"] not in parked for s in board.SPACES]
            dist = board.bfs(board.GUARD[colour], board.NEIGHBOURS, flags)
            row.append(
                str(
                    sum(
                        dist.get(s, 99)
                        for s in board.SHOP_SPACES
                        if board.SPACES[s]["colour"] == colour
                    )
                )
            )
        print(f"| {players} | " + " | ".join(row) + " |")
    print()


def timed_bot(times: list[float]):
    """``auto_action`` with a stopwatch (the bench's clock, not the bot's)."""

    def choose(state, seat, rng):
        started = time.perf_counter()
        action = brillance.auto_action(state, seat, rng)
        times.append(time.perf_counter() - started)
        return action

    return choose


def simulate(players: int, games: int, seed: int, options: dict[str, bool]) -> str:
    rng = random.Random(seed * 1000 + players)
    times: list[float] = []
    scores, unloaded, points, outs, plays, stolen = [], [], [], [], [], []
    shared = seat0 = 0
    by_company: dict[str, list[int]] = defaultdict(list)
    opts = dict(options)
    if players < 4:
        opts["speed_bonus"] = False
    if players == 6:
        opts["wandering_competitors"] = False
    for _ in range(games):
        state, events = play_bot_game(brillance, players, opts, rng, choose_action=timed_bot(times))
        result = brillance.result(state)
        scores += result["scores"]
        for seat, detail in enumerate(result["details"]):
            points.append(detail["delivered"])
            outs.append(detail["carts_out"])
            by_company[state["companies"][seat]].append(result["scores"][seat])
        per_seat = defaultdict(int)
        for event in events:
            if event["type"] == "merchandise_unloaded":
                per_seat[event["actor"]] += event["count"]
        unloaded += [per_seat[s] for s in range(players)]
        plays.append(state["card_plays"])
        stolen.append(state["stolen"])
        shared += len(result["winners"]) > 1
        seat0 += 0 in result["winners"]
    company = ", ".join(f"{c} {statistics.mean(v):.1f}" for c, v in by_company.items())
    return (
        f"| {players} | {statistics.mean(scores):.1f} | {statistics.mean(unloaded):.1f} | "
        f"{statistics.mean(points):.1f} | {statistics.mean(outs):.2f} | "
        f"{statistics.mean(plays):.1f} | {statistics.mean(stolen):.1f} | "
        f"{100 * shared / games:.0f}% | {100 * seat0 / games:.0f}% "
        f"(fair {100 / players:.0f}%) | {company} | "
        f"{1000 * statistics.mean(times):.1f} / {1000 * max(times):.0f} ms |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", default="2,3,4,5,6")
    parser.add_argument("--wandering", action="store_true")
    parser.add_argument("--speed-bonus", action="store_true")
    parser.add_argument("--one-card", action="store_true")
    args = parser.parse_args()
    options = {
        "wandering_competitors": args.wandering,
        "speed_bonus": args.speed_bonus,
        "one_card_per_turn": args.one_card,
    }
    started = time.monotonic()
    route_balance()
    print(f"{args.games} bot games per player count, seed {args.seed}, options {options}\n")
    print(
        "| players | score | merchandise unloaded | order points | carts out | card plays "
        "| stolen by brigands | shared wins | seat 0 wins | score by company "
        "| bot call mean / max |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for players in (int(p) for p in args.players.split(",")):
        print(simulate(players, args.games, args.seed, options), flush=True)
    print(f"\n{time.monotonic() - started:.0f} s")
    _ = rules  # the rules module is part of what this measures


if __name__ == "__main__":
    main()
