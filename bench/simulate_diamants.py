"""Balance figures for Diamants: bot games per player count.

    python bench/simulate_diamants.py [--games 2000] [--players 2 3 4 5 6] [--seed 1]

Prints, per player count: the win rate of each turn position (first player
first; shared wins count as a fraction) against 1/N, the mean number of rounds
(turns per player), events per game, failures, steals, special cards used,
cards turned face down and the winning score.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.rules import diamants  # noqa: E402
from games.rules.base import play_bot_game  # noqa: E402


def simulate(num_players: int, games: int, seed: int) -> dict[str, float | list[float]]:
    rng = random.Random(seed * 1000 + num_players)
    wins_by_position = [0.0] * num_players
    counts: Counter[str] = Counter()
    for _ in range(games):
        final, events = play_bot_game(diamants, num_players, {}, rng)
        result = diamants.result(final)
        assert result is not None
        first = final["first_player"]
        for winner in result["winners"]:
            wins_by_position[(winner - first) % num_players] += 1 / len(result["winners"])
        counts["rounds"] += result["rounds"]
        counts["events"] += len(events)
        counts["shared"] += len(result["winners"]) > 1
        counts["winning_score"] += result["scores"][result["winners"][0]]
        counts["face_down"] += len(final["face_down"])
        for event in events:
            if event["type"] in ("failure", "special_used", "card_stolen", "card_taken"):
                counts[event["type"]] += 1
    return {
        "win_rate_by_position": [w / games for w in wins_by_position],
        **{key: value / games for key, value in counts.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5, 6])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    for num_players in args.players:
        figures = simulate(num_players, args.games, args.seed)
        rates = " ".join(f"{rate:.3f}" for rate in figures["win_rate_by_position"])
        print(
            f"{num_players}p  {args.games} games  first seat {figures['win_rate_by_position'][0]:.3f}"
            f" vs 1/N {1 / num_players:.3f}  by position [{rates}]"
        )
        print(
            f"     rounds {figures['rounds']:.1f}  events {figures['events']:.0f}"
            f"  takes {figures.get('card_taken', 0):.1f}  steals {figures.get('card_stolen', 0):.1f}"
            f"  failures {figures.get('failure', 0):.1f}  specials used"
            f" {figures.get('special_used', 0):.1f}  face down {figures['face_down']:.1f}"
            f"  winning score {figures['winning_score']:.1f}  shared wins {figures['shared']:.3f}"
        )
    print(f"total time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
