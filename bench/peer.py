"""The peer: the ``eventsourcing`` library (PostgreSQL persistence) storing
the same game events, one aggregate per game.

Its aggregate applies each event with the ruleset's own ``evolve`` (platform
events, with a dot in their type, are skipped as in ``games.rules.base.fold``),
so replaying it does the same domain work as our fold: what differs is the
storage, the mapping and the aggregate machinery.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

from games.rules import registry

from .common import connection_kwargs


class PeerGame(Aggregate):
    @event("Started")
    def __init__(self, ruleset: str) -> None:
        self.ruleset = ruleset
        self.state: dict[str, Any] = {}

    @event("Happened")
    def happen(
        self, type: str, actor: int | None, automatic: bool, payload: dict[str, Any]
    ) -> None:
        if "." not in type:
            rules = registry.get(self.ruleset)
            self.state = rules.evolve(self.state, {"type": type, "actor": actor, **payload})


class PeerApp(Application[UUID]):
    """An application with nothing but its repository: append and replay."""


def peer_app(*, create_tables: bool = True) -> PeerApp:
    db = connection_kwargs()
    return PeerApp(
        env={
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": db["dbname"],
            "POSTGRES_HOST": db["host"],
            "POSTGRES_PORT": str(db["port"]),
            "POSTGRES_USER": db["user"],
            "POSTGRES_PASSWORD": db["password"] or "unused-with-trust",
            "POSTGRES_POOL_SIZE": "2",
            "CREATE_TABLE": "y" if create_tables else "n",
        }
    )
