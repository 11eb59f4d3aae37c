"""The first answer to each ``Idempotency-Key``, kept so a retry gets it again.

A row is written in the same database transaction as the request's own
writes (see ``middleware.py``): either both are stored or neither is, so a
retry after a crash or a dropped connection runs the request exactly once.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

MAX_KEY_LENGTH = 255


class IdempotencyRecord(models.Model):
    # "user:<id>" for a token's user, "anon:<address>" for anonymous callers:
    # two callers never share a key space.
    owner = models.CharField(max_length=80)
    key = models.CharField(max_length=MAX_KEY_LENGTH)
    # SHA-256 of method, path and body: the same key with another request is refused.
    fingerprint = models.CharField(max_length=64)
    status = models.PositiveSmallIntegerField()
    headers = models.JSONField(default=dict)
    body = models.BinaryField()
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "key"], name="idempotency_unique_owner_key")
        ]

    def __str__(self) -> str:
        return f"{self.owner} {self.key!r} → {self.status}"
