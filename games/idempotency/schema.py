"""What the OpenAPI schema says about ``Idempotency-Key`` on every POST
(used by ``config.schema.FacetsAutoSchema``)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter

from .middleware import HEADER, KEY_PATTERN
from .models import MAX_KEY_LENGTH

IDEMPOTENCY_KEY = OpenApiParameter(
    HEADER,
    {
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_KEY_LENGTH,
        "pattern": f"^{KEY_PATTERN}$",
    },
    location=OpenApiParameter.HEADER,
    required=False,
    description=(
        f"Any unique string (1-{MAX_KEY_LENGTH} printable ASCII characters; a UUID is ideal). "
        "A retry with the same key and body gets the first answer again (with "
        "`Idempotent-Replayed: true`) and writes nothing new. Keys are kept at least 24 hours."
    ),
)

IDEMPOTENCY_ERRORS = {
    "400": "`invalid_idempotency_key`: the key is empty, too long or not printable ASCII.",
    "409": "`idempotency_key_in_use`: a request with this key is still running; retry later.",
    "422": "`idempotency_key_reused`: this key was used for another request.",
}
