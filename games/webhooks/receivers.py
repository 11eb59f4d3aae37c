"""Signal receivers: connected in WebhooksConfig.ready()."""

from __future__ import annotations

from typing import Any

from games.notifications import Notification

from . import services


def deliveries_for_notifications(
    sender: Any, notifications: list[Notification], **kwargs: Any
) -> None:
    """Runs after the game's transaction committed (games.notifications);
    a failure here is logged by the sender and never undoes the move."""
    services.deliveries_create(notifications=notifications)
