"""Beat sends ``purge_expired_records`` hourly; running it twice is harmless."""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(name="idempotency.tasks.purge_expired_records", acks_late=True, expires=3600)
def purge_expired_records() -> int:
    return services.expired_records_purge()
