"""How a delivery is signed (the receiver's side is in docs/api.md).

``Facets-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>``,
as Stripe does: the timestamp is signed with the body, so a captured request
cannot be replayed later than the receiver's tolerance.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import Any

SECRET_PREFIX = "whsec_"
SIGNATURE_HEADER = "Facets-Signature"
DELIVERY_HEADER = "Facets-Delivery"
EVENT_HEADER = "Facets-Event"


def new_secret() -> str:
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def secret_hint(secret: str) -> str:
    """Enough of a secret to tell two apart, not enough to use it."""
    return secret[: len(SECRET_PREFIX) + 4] + "…"


def body_bytes(payload: dict[str, Any]) -> bytes:
    """The exact bytes sent (and signed): compact JSON, sorted keys, UTF-8."""
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()


def signature(secret: str, timestamp: int, body: bytes) -> str:
    signed = f"{timestamp}.".encode() + body
    return hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


def signature_header(secret: str, timestamp: int, body: bytes) -> str:
    return f"t={timestamp},v1={signature(secret, timestamp, body)}"
