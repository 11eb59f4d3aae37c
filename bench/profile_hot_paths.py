"""Profile the hot paths under cProfile: submitting a move through the
service layer, and reading a game (GET /api/v1/games/{id}) through the whole
Django stack. Prints the top functions by own time and by cumulative time.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/facets_bench python -m bench.profile_hot_paths

Recreates the benchmark database, as scripts/bench does.
"""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (  # noqa: E402
    Driver,
    issue_token,
    make_user,
    open_game,
    recreate_database,
    setup_django,
    silence_broker,
)

MOVES = 300
READS = 300


def show(profile: cProfile.Profile, title: str, lines: int) -> None:
    for order in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(profile, stream=out).strip_dirs().sort_stats(order).print_stats(lines)
        print(f"==== {title}, by {order}\n{out.getvalue()}")


def main() -> None:
    os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/facets_bench")
    recreate_database()
    setup_django()
    silence_broker()
    from django.core.management import call_command
    from django.test.utils import setup_test_environment
    from rest_framework.test import APIClient

    call_command("migrate", interactive=False, verbosity=0)
    setup_test_environment()
    lines = int(os.environ.get("PROFILE_LINES", "30"))
    users = [make_user("prof_a"), make_user("prof_b")]
    drivers = [Driver(open_game("diamants", users), users, seed=1)]
    drivers[0].step()  # warm up
    profile = cProfile.Profile()
    profile.enable()
    while sum(d.moves for d in drivers) < MOVES:
        if not drivers[-1].step():
            profile.disable()
            drivers.append(Driver(open_game("diamants", users), users, seed=len(drivers)))
            profile.enable()
    profile.disable()
    show(profile, f"{MOVES} moves through services.action_submit", lines)

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issue_token('prof_a')}")
    path = f"/api/v1/games/{drivers[-1].game_id}"
    client.get(path)
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(READS):
        client.get(path)
    profile.disable()
    show(profile, f"{READS} GET {path}", lines)


if __name__ == "__main__":
    main()
