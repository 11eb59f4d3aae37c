"""Writes for webhooks: registration, the deliveries a notification creates,
one delivery attempt, redelivery, and the sweep of due deliveries.

An attempt is claimed with a conditional UPDATE (compare-and-swap on the
attempt counter) that also pushes ``next_attempt_at`` a lease ahead, so two
workers holding the same message never both send, and the HTTP request runs
outside any transaction. If the worker dies mid-attempt, the lease expires
and the sweep sends the delivery again: delivery is at least once, and
receivers deduplicate on ``Facets-Delivery``.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from accounts.models import User
from games import dispatch
from games.errors import ValidationFailed
from games.notifications import KINDS, Notification

from . import sending, signing
from .errors import WebhookInactive, WebhookLimitReached
from .models import DeliveryStatus, Webhook, WebhookDelivery

logger = logging.getLogger(__name__)

TASK_DELIVER = "webhooks.tasks.deliver"
PING = "ping"


# --- registration ------------------------------------------------------------


def webhook_create(
    *, owner: User, url: str, kinds: list[str] | None = None, active: bool = True
) -> Webhook:
    _check_url(url)
    # A guard against runaway scripts, not a security boundary: two
    # simultaneous creations may both pass it, which is harmless.
    limit = settings.FACETS_WEBHOOK_MAX_PER_USER
    if Webhook.objects.filter(owner=owner).count() >= limit:
        raise WebhookLimitReached(f"At most {limit} webhooks per user.", details={"limit": limit})
    return Webhook.objects.create(
        owner=owner, url=url, kinds=_kinds(kinds), active=active, secret=signing.new_secret()
    )


def webhook_update(
    *,
    webhook: Webhook,
    url: str | None = None,
    kinds: list[str] | None = None,
    active: bool | None = None,
) -> Webhook:
    if url is not None:
        _check_url(url)
        webhook.url = url
    if kinds is not None:
        webhook.kinds = _kinds(kinds)
    if active is not None:
        webhook.active = active
    webhook.save()
    return webhook


def webhook_rotate_secret(*, webhook: Webhook) -> Webhook:
    """A new secret at once; the old one stops signing immediately."""
    webhook.secret = signing.new_secret()
    webhook.save(update_fields=["secret", "updated_at"])
    return webhook


def webhook_delete(*, webhook: Webhook) -> None:
    webhook.delete()  # its deliveries go with it


# --- deliveries ---------------------------------------------------------------


def deliveries_create(*, notifications: Iterable[Notification]) -> list[WebhookDelivery]:
    """One delivery per notification and active webhook of its user that
    subscribes to its kind; each is sent once the transaction commits."""
    notes = list(notifications)
    hooks_by_owner: dict[int, list[Webhook]] = {}
    for hook in Webhook.objects.filter(owner_id__in={n.user_id for n in notes}, active=True):
        hooks_by_owner.setdefault(hook.owner_id, []).append(hook)
    now = timezone.now()
    deliveries = [
        _new_delivery(hook, note.kind, note.as_json(), now)
        for note in notes
        for hook in hooks_by_owner.get(note.user_id, [])
        if note.kind in hook.kinds
    ]
    if not deliveries:
        return []
    with transaction.atomic():
        WebhookDelivery.objects.bulk_create(deliveries)
        for delivery in deliveries:
            dispatch.send_after_commit(TASK_DELIVER, str(delivery.delivery_id))
    return deliveries


def delivery_ping(*, webhook: Webhook) -> WebhookDelivery:
    """A test delivery (kind ``ping``), sent at once."""
    _require_active(webhook)
    data = {"webhook_id": webhook.pk}
    delivery = _new_delivery(
        webhook, PING, {"game_id": None, "ruleset": None, "seq": None, "data": data}, timezone.now()
    )
    with transaction.atomic():
        delivery.save()
        dispatch.send_after_commit(TASK_DELIVER, str(delivery.delivery_id))
    return delivery


def delivery_redeliver(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """Send a delivery again now, whatever its status, with a fresh retry
    budget. Same id and same body: receivers that already processed it can
    tell it is a duplicate."""
    _require_active(delivery.webhook)
    now = timezone.now()
    with transaction.atomic():
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            status=DeliveryStatus.PENDING, round_attempts=0, next_attempt_at=now, dispatched_at=now
        )
        dispatch.send_after_commit(TASK_DELIVER, str(delivery.delivery_id))
    delivery.refresh_from_db()
    return delivery


def delivery_attempt(*, delivery_id: str) -> bool:
    """Make one attempt at a due, pending delivery; do nothing (and return
    False) if it is not due any more: already sent, being sent by another
    worker, or waiting for its next retry."""
    now = timezone.now()
    try:
        key = uuid.UUID(str(delivery_id))
    except ValueError:
        return False
    delivery = (
        WebhookDelivery.objects.select_related("webhook")
        .filter(delivery_id=key, status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
        .first()
    )
    if delivery is None or not _claim(delivery, now):
        return False
    webhook = delivery.webhook
    if not webhook.active:  # deactivated since: give up at once
        inactive = sending.Outcome(False, None, "The webhook is inactive.", 0)
        _record(delivery, inactive, now, give_up=True)
        return True
    outcome = _send(webhook, delivery, now)
    _record(delivery, outcome, timezone.now())
    return True


def deliveries_sweep(*, now: datetime | None = None, limit: int = 500) -> int:
    """Send a task for every pending delivery whose time has come: retries
    after their backoff, and deliveries whose task was sent more than the
    grace period ago and never ran (a lost message)."""
    now = now or timezone.now()
    grace = timedelta(seconds=settings.FACETS_TASK_GRACE_SECONDS)
    due = list(
        WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
        .filter(Q(dispatched_at__isnull=True) | Q(dispatched_at__lte=now - grace))
        .order_by("next_attempt_at")
        .values_list("pk", "delivery_id")[:limit]
    )
    # Marked first: if the broker is down, the next sweep after the grace
    # period tries again.
    WebhookDelivery.objects.filter(pk__in=[pk for pk, _ in due]).update(dispatched_at=now)
    sent = 0
    for _, delivery_id in due:
        try:
            dispatch.send_task(TASK_DELIVER, str(delivery_id))
        except Exception:
            logger.warning("could not send webhook deliveries", exc_info=True)
            break
        sent += 1
    return sent


def backoff(round_attempts: int) -> timedelta:
    """Delay after the ``round_attempts``-th failed attempt: base, 2 base, 4 base, ... capped."""
    base = settings.FACETS_WEBHOOK_BACKOFF_SECONDS
    seconds = min(base * 2 ** (round_attempts - 1), settings.FACETS_WEBHOOK_MAX_BACKOFF_SECONDS)
    return timedelta(seconds=seconds)


# --- internals ------------------------------------------------------------------


# An attempt cannot outlive the task's hard time limit; past this lease the
# attempt is surely dead and the sweep may send the delivery again.
def _lease() -> timedelta:
    return timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)


def _claim(delivery: WebhookDelivery, now: datetime) -> bool:
    claimed = WebhookDelivery.objects.filter(
        pk=delivery.pk,
        status=DeliveryStatus.PENDING,
        attempts=delivery.attempts,
        round_attempts=delivery.round_attempts,
        next_attempt_at__lte=now,
    ).update(
        attempts=F("attempts") + 1,
        round_attempts=F("round_attempts") + 1,
        last_attempt_at=now,
        next_attempt_at=now + _lease(),
        dispatched_at=None,
    )
    delivery.attempts += 1
    delivery.round_attempts += 1
    return claimed == 1


def _send(webhook: Webhook, delivery: WebhookDelivery, now: datetime) -> sending.Outcome:
    if not settings.FACETS_WEBHOOK_ALLOW_PRIVATE:
        # Checked again at send time: the name may resolve elsewhere today.
        try:
            sending.check_url(webhook.url, allow_private=False)
        except sending.UnacceptableUrl as exc:
            return sending.Outcome(False, None, str(exc), 0)
    body = signing.body_bytes(delivery.payload)
    headers = {
        signing.SIGNATURE_HEADER: signing.signature_header(
            webhook.secret, int(now.timestamp()), body
        ),
        signing.DELIVERY_HEADER: str(delivery.delivery_id),
        signing.EVENT_HEADER: delivery.kind,
    }
    return sending.post(webhook.url, body, headers, timeout=settings.FACETS_WEBHOOK_TIMEOUT_SECONDS)


def _record(
    delivery: WebhookDelivery, outcome: sending.Outcome, now: datetime, *, give_up: bool = False
) -> None:
    if outcome.delivered:
        status, next_at = DeliveryStatus.SUCCEEDED, None
    elif give_up or delivery.round_attempts >= settings.FACETS_WEBHOOK_MAX_ATTEMPTS:
        status, next_at = DeliveryStatus.FAILED, None
    else:
        status, next_at = DeliveryStatus.PENDING, now + backoff(delivery.round_attempts)
    logger.info(
        "webhook delivery %s attempt %d to webhook %d: %s (%s) -> %s",
        delivery.delivery_id,
        delivery.attempts,
        delivery.webhook_id,
        outcome.status_code,
        outcome.error or "ok",
        status,
    )
    # Only if nobody redelivered it meanwhile (that resets the round).
    WebhookDelivery.objects.filter(
        pk=delivery.pk, attempts=delivery.attempts, round_attempts=delivery.round_attempts
    ).update(
        status=status,
        next_attempt_at=next_at,
        last_status_code=outcome.status_code,
        last_error=outcome.error,
        last_duration_ms=outcome.duration_ms,
    )


def _new_delivery(
    webhook: Webhook, kind: str, body: dict[str, Any], now: datetime
) -> WebhookDelivery:
    delivery_id = uuid.uuid4()
    payload = {"id": str(delivery_id), "kind": kind, "created_at": now.isoformat(), **body}
    return WebhookDelivery(
        webhook=webhook,
        delivery_id=delivery_id,
        kind=kind,
        payload=payload,
        next_attempt_at=now,
        dispatched_at=now,  # its task is sent on commit
    )


def _kinds(kinds: list[str] | None) -> list[str]:
    if kinds is None:
        return list(KINDS)
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown or not kinds:
        raise ValidationFailed(
            "Unknown or no notification kinds.",
            details={"fields": {"kinds": [f"a non-empty list of {list(KINDS)}"]}},
        )
    return [k for k in KINDS if k in kinds]


def _check_url(url: str) -> None:
    try:
        sending.check_url(url, allow_private=settings.FACETS_WEBHOOK_ALLOW_PRIVATE)
    except sending.UnacceptableUrl as exc:
        raise ValidationFailed(str(exc), details={"fields": {"url": [str(exc)]}}) from exc


def _require_active(webhook: Webhook) -> None:
    if not webhook.active:
        raise WebhookInactive("The webhook is inactive: activate it first.")
