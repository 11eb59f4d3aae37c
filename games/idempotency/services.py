from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.utils import timezone

from .models import IdempotencyRecord


def expired_records_purge(*, now: datetime | None = None) -> int:
    """Forget keys older than FACETS_IDEMPOTENCY_KEY_TTL (never less than a day)."""
    cutoff = (now or timezone.now()) - settings.FACETS_IDEMPOTENCY_KEY_TTL
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted
