"""Figures about stored history: bytes on disk per event and per game, replay
speed next to the peer, and whether reading a game grows with its history.

Finished games of every ruleset are played first, through the service layer
(every seat played by the ruleset's bot, dice rolled by the system step as
the Celery task would), into the benchmark database.
"""

from __future__ import annotations

import uuid
from typing import Any

from .common import (
    Driver,
    Figure,
    Results,
    make_user,
    median,
    open_game,
    raw_connection,
    test_environment,
)

TARGET_BYTES_PER_EVENT = 300


def play_finished_games(games_per_ruleset: int) -> dict[str, list[int]]:
    from games.rules import registry

    tag = "h" + uuid.uuid4().hex[:6]
    users = [make_user(f"{tag}a"), make_user(f"{tag}b")]
    played: dict[str, list[int]] = {}
    for slug in registry.slugs():
        played[slug] = []
        for number in range(games_per_ruleset):
            game_id = open_game(slug, users)
            Driver(game_id, users, seed=number).play_to_end()
            played[slug].append(game_id)
    return played


# --- storage -----------------------------------------------------------------------


def storage(results: Results, played: dict[str, list[int]], *, rows_wanted: int = 20_000) -> None:
    """Each ruleset's events copied into a fresh table like games_event (same
    columns and indexes), repeated under other game ids until it holds
    ``rows_wanted`` rows (so a table's first, fixed pages do not dominate),
    vacuumed, then measured whole: heap, TOAST and every index."""
    columns = "seq, type, actor, automatic, payload, created_at, hash"
    with raw_connection() as conn:
        for slug, game_ids in played.items():
            table = f"bench_size_{slug}"
            conn.execute(f"DROP TABLE IF EXISTS {table}")
            conn.execute(f"CREATE TABLE {table} (LIKE games_event INCLUDING ALL)")
            per_copy = conn.execute(
                "SELECT count(*) FROM games_event WHERE game_id = ANY(%s)", [game_ids]
            ).fetchone()[0]
            copies = -(-rows_wanted // per_copy)
            for copy in range(copies):
                conn.execute(
                    f"INSERT INTO {table} (game_id, {columns}) SELECT game_id + %s, {columns}"
                    " FROM games_event WHERE game_id = ANY(%s) ORDER BY game_id, seq",
                    [copy * 10_000_000, game_ids],
                )
            conn.execute(f"VACUUM ANALYZE {table}")
            size, rows = conn.execute(
                f"SELECT pg_total_relation_size('{table}'), (SELECT count(*) FROM {table})"
            ).fetchone()
            conn.execute(f"DROP TABLE {table}")
            per_event = size / rows
            events_per_game = per_copy / len(game_ids)
            results.add(
                Figure(
                    "storage",
                    f"{slug}: bytes per event ({events_per_game:.0f} events a game)",
                    per_event,
                    "B",
                    target=f"< {TARGET_BYTES_PER_EVENT} B",
                    met=per_event < TARGET_BYTES_PER_EVENT,
                )
            )
            results.add(
                Figure(
                    "storage",
                    f"{slug}: bytes per finished game (events, indexes included)",
                    per_event * events_per_game,
                    "B",
                )
            )


# --- replay ------------------------------------------------------------------------


def replay(results: Results, played: dict[str, list[int]], *, repeats: int) -> None:
    from .peer import peer_app

    app = peer_app()
    for slug, game_ids in played.items():
        ours, theirs, total_events = _replays(app, slug, game_ids)
        our_rate = total_events / median(_seconds(ours, repeats))
        peer_rate = total_events / median(_seconds(theirs, repeats))
        results.add(Figure("replay", f"peer: {slug} aggregate replay", peer_rate, "events/s"))
        results.add(
            Figure(
                "replay",
                f"ours: {slug} fold of stored games",
                our_rate,
                "events/s",
                ratio=our_rate / peer_rate,
                ratio_of="peer",
                target=">= 2x peer",
                met=our_rate >= 2 * peer_rate,
            )
        )


def _replays(app: Any, slug: str, game_ids: list[int]) -> tuple[Any, Any, int]:
    """Copy the games into the peer; return both replays and the event count.
    Ours is the project's own replay (``selectors.rule_events`` folded, as GET state?at= does)."""
    from games.models import Event, Game

    from .peer import PeerGame

    peer_ids = []
    total_events = 0
    for game_id in game_ids:
        rows = list(Event.objects.filter(game_id=game_id).order_by("seq"))
        total_events += len(rows)
        peer = PeerGame(ruleset=slug)
        for row in rows:
            peer.happen(
                type=row.type, actor=row.actor, automatic=row.automatic, payload=row.payload
            )
        app.save(peer)
        peer_ids.append(peer.id)
        # Both replays must rebuild what the game row holds.
        assert peer.state == Game.objects.get(pk=game_id).state

    def ours() -> None:
        for game_id in game_ids:
            replayed_state(game_id)

    def theirs() -> None:
        for peer_id in peer_ids:
            app.repository.get(peer_id)

    return ours, theirs, total_events


def replayed_state(game_id: int) -> dict[str, Any]:
    """The project's replay of a whole stored game, as GET /state?at= does it."""
    from games import selectors, store
    from games.models import Event, Game
    from games.rules import registry
    from games.rules.base import fold

    game = Game.objects.get(pk=game_id)
    rules = registry.get(game.ruleset, game.ruleset_version)
    if hasattr(selectors, "rule_events"):
        return fold(rules, selectors.rule_events(game=game))
    rows = Event.objects.filter(game=game).order_by("seq")  # before the fix
    return fold(rules, [store.as_rule_event(r) for r in rows])


def _seconds(operation: Any, repeats: int) -> list[float]:
    import time

    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        operation()
        samples.append(time.perf_counter() - start)
    return samples


# --- reads do not grow with history --------------------------------------------------


def reads(results: Results, *, long_events: int, repeats: int) -> None:
    """GET /api/v1/games/{id} (state, who must act, the caller's view) through
    the whole Django stack (test client, no network) on a game at move ~10
    and on one whose log holds 10,000 more events (platform events appended
    through the store, as a long game's would be: the hash chain included)."""
    from django.utils import timezone
    from rest_framework.test import APIClient

    from games import store
    from games.models import Game

    from .common import issue_token

    test_environment()
    tag = "r" + uuid.uuid4().hex[:6]
    users = [make_user(f"{tag}a"), make_user(f"{tag}b")]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issue_token(f'{tag}a')}")
    ids = []
    for seed in range(2):
        game_id = open_game("diamants", users)
        driver = Driver(game_id, users, seed=seed)
        while Game.objects.get(pk=game_id).seq < 10 and driver.step():
            pass
        ids.append(game_id)
    short, long = ids
    game = Game.objects.get(pk=long)
    for start in range(0, long_events, 1000):
        batch = [
            store.NewEvent(type="bench.filler", actor=None, payload={"n": n})
            for n in range(start, min(long_events, start + 1000))
        ]
        store.append(game=game, events=batch, now=timezone.now())
    game.save()
    seqs = {g: Game.objects.get(pk=g).seq for g in ids}
    for game_id in ids:  # warm up
        for _ in range(20):
            assert client.get(f"/api/v1/games/{game_id}").status_code == 200
    samples: dict[int, list[float]] = {short: [], long: []}
    for _ in range(repeats):  # interleaved, so load changes hit both alike
        for game_id in ids:
            samples[game_id] += _seconds(lambda g=game_id: client.get(f"/api/v1/games/{g}"), 1)
    at_short, at_long = median(samples[short]) * 1000, median(samples[long]) * 1000
    results.add(Figure("reads", f"GET game at seq {seqs[short]} (median)", at_short, "ms"))
    results.add(
        Figure(
            "reads",
            f"GET game at seq {seqs[long]} (median)",
            at_long,
            "ms",
            ratio=at_long / at_short,
            ratio_of=f"seq {seqs[short]}",
            target="<= 1.3x",
            met=at_long / at_short <= 1.3,
        )
    )
