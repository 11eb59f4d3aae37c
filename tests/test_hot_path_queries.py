"""Query counts of the hot write path, fixed by the profile in
docs/performance.md: a move that hands the turn over writes both seats'
deadlines in one UPDATE."""

from __future__ import annotations

import random
from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.models import Game
from games.rules import registry


def test_a_move_handing_the_turn_over_updates_the_seats_in_one_query(make_user: Any) -> None:
    ada, bob = make_user("ada"), make_user("bob")
    game = services.game_create(
        creator=ada, ruleset="diamants", options={}, num_seats=2, turn_timeout=3600
    )
    services.game_join(game_id=game.pk, user=bob)
    rules = registry.get("diamants")
    bot = random.Random(7)
    for _ in range(200):
        state = Game.objects.get(pk=game.pk).state
        before = rules.pending(state)
        if not before:  # a dice roll is due, as the worker would run it
            services.system_step_run(game_id=game.pk, seq=None)
            continue
        seat = before[0]
        with CaptureQueriesContext(connection) as queries:
            outcome = services.action_submit(
                game_id=game.pk,
                user=(ada, bob)[seat],
                action=rules.auto_action(state, seat, bot),
            )
        after = rules.pending(Game.objects.get(pk=game.pk).state)
        if after and after != before and outcome.game.status == "active":
            seat_updates = [
                q for q in queries.captured_queries if 'UPDATE "games_seat"' in q["sql"]
            ]
            assert len(seat_updates) == 1, seat_updates
            return
    raise AssertionError("no move handed the turn over in 200 moves")
