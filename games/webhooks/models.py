"""Webhooks: URLs a user registers to hear about their games, and the log of
every delivery made to them."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class Webhook(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhooks"
    )
    url = models.URLField(max_length=2000)
    # Kept in clear: signing needs the secret itself (a hash would not do).
    secret = models.CharField(max_length=100)
    # Notification kinds this webhook receives (a subset of notifications.KINDS).
    kinds = models.JSONField(default=list)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["owner", "active"], name="webhook_owner_active")]

    def __str__(self) -> str:
        return f"{self.url} ({self.owner_id})"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class WebhookDelivery(models.Model):
    """One notification for one webhook, with the outcome of its last
    attempt. ``next_attempt_at`` is the deadline the beat sweep reads: a
    pending delivery is (re)sent once it has passed, so a lost broker message
    only delays a delivery."""

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    delivery_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    kind = models.CharField(max_length=32)
    payload = models.JSONField()
    status = models.CharField(
        max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    # Every attempt ever made, and those made since the delivery was created
    # or last redelivered (the retry budget and the backoff count these).
    attempts = models.PositiveIntegerField(default=0)
    round_attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    # When a task was last sent for it; the sweep leaves it alone for a grace
    # period after that, so a busy worker's backlog is not sent over and over.
    dispatched_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True, default="")
    last_duration_ms = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            models.Index(fields=["webhook", "-created_at"], name="delivery_webhook_created"),
            models.Index(
                fields=["next_attempt_at"],
                name="delivery_due",
                condition=models.Q(status="pending"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.delivery_id} ({self.status})"
