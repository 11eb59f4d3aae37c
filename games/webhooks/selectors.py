"""Reads for webhooks. Another user's webhook is simply not found (404),
never forbidden: its existence is nobody else's business."""

from __future__ import annotations

import uuid

from django.db.models import QuerySet

from accounts.models import User
from games.errors import NotFound
from games.locks import MAX_ID

from .models import Webhook, WebhookDelivery


def webhook_list(*, owner: User) -> QuerySet[Webhook]:
    return Webhook.objects.filter(owner=owner).order_by("pk")


def webhook_get(*, owner: User, webhook_id: int) -> Webhook:
    webhook = (
        Webhook.objects.filter(owner=owner, pk=webhook_id).first()
        if 0 < webhook_id <= MAX_ID
        else None
    )
    if webhook is None:
        raise NotFound(f"No webhook {webhook_id}.")
    return webhook


def delivery_list(*, webhook: Webhook, status: str | None = None) -> QuerySet[WebhookDelivery]:
    deliveries = WebhookDelivery.objects.filter(webhook=webhook)
    if status:
        deliveries = deliveries.filter(status=status)
    return deliveries.order_by("-created_at", "-pk")


def delivery_get(*, webhook: Webhook, delivery_id: uuid.UUID) -> WebhookDelivery:
    delivery = (
        WebhookDelivery.objects.select_related("webhook")
        .filter(webhook=webhook, delivery_id=delivery_id)
        .first()
    )
    if delivery is None:
        raise NotFound(f"No delivery {delivery_id} for this webhook.")
    return delivery
