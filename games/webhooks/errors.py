"""Webhook errors; rendered by config/errors.py like every ApplicationError."""

from games.errors import Conflict


class WebhookInactive(Conflict):
    code = "webhook_inactive"


class WebhookLimitReached(Conflict):
    code = "webhook_limit_reached"
