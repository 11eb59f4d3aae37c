"""Celery tasks for webhooks: thin, idempotent by delivery id."""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(name="webhooks.tasks.deliver", acks_late=True)
def deliver(delivery_id: str) -> bool:
    return services.delivery_attempt(delivery_id=delivery_id)


@shared_task(name="webhooks.tasks.sweep_deliveries", acks_late=True, expires=60)
def sweep_deliveries() -> int:
    return services.deliveries_sweep()
