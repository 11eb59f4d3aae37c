"""Sending Celery tasks after the transaction that made them necessary commits.

Tasks never run inside an open transaction: a worker could otherwise read the
game before the write is visible. A broker that is down or loses the message
is not fatal: every piece of due work is also recorded in the database
(seat deadlines, ``Game.system_step_due_at``) and the beat sweep runs it.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

logger = logging.getLogger(__name__)


def send_task(name: str, *args: Any) -> None:
    """Replaced in tests by a queue that the test drains itself."""
    from config.celery import app

    app.send_task(name, args=list(args))


def send_after_commit(name: str, *args: Any) -> None:
    def _send() -> None:
        try:
            send_task(name, *args)
        except Exception:  # the sweep will pick the work up
            logger.warning("could not send %s%r; the sweep will run it", name, args, exc_info=True)

    transaction.on_commit(_send)
