"""``Idempotency-Key`` on POST: a retry gets the first answer and writes nothing new.

For a POST to an API view that carries the header:

1. The key must be 1-255 printable ASCII characters (else 400
   ``invalid_idempotency_key``). Keys are scoped to an owner: the user of the
   request's token, or the caller's address when anonymous. A token that does
   not authenticate gets no idempotency: the view answers 401 as usual.
2. ``BEGIN``. On PostgreSQL a transaction-scoped advisory lock on (owner, key)
   is taken without waiting; if another request with that key holds it, the
   answer is 409 ``idempotency_key_in_use`` (retry later). On SQLite,
   ``BEGIN IMMEDIATE`` already queues writers, so the second request waits
   for the first and then replays its answer.
3. A stored record for (owner, key): the same request (fingerprint) is
   answered with the stored response plus ``Idempotent-Replayed: true``;
   another request gets 422 ``idempotency_key_reused``. Nothing is written.
4. Otherwise the view runs inside this transaction (the services' own atomic
   blocks become savepoints, and their ``on_commit`` tasks wait for our
   commit) and the record is inserted before ``COMMIT``. The record and the
   request's writes are committed together or not at all: a crash or a
   dropped database connection loses both, and the retry runs once.
   Answers that are not replayed (5xx, 401, 429, 409 ``conflict``) roll the
   transaction back instead, so a retry runs the request afresh.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.utils.deprecation import MiddlewareMixin
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.views import APIView

from config.errors import error_body

from .models import MAX_KEY_LENGTH, IdempotencyRecord

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
# Printable ASCII, spaces allowed inside but not at the ends (HTTP strips them).
KEY_PATTERN = rf"[!-~](?:[ -~]{{0,{MAX_KEY_LENGTH - 2}}}[!-~])?"
VALID_KEY = re.compile(KEY_PATTERN)

# Answers that say "this request was not carried out, try again" are not
# stored: replaying them for a day would turn a passing condition into a
# permanent one. (Nor are 5xx: their writes are rolled back too.)
NOT_REPLAYED_STATUSES = frozenset({401, 429})
NOT_REPLAYED_CODES = frozenset({"conflict"})
# Headers never stored with a response: recomputed or per-request.
UNSTORED_HEADERS = frozenset({"content-length", "set-cookie", "date"})


class IdempotencyMiddleware(MiddlewareMixin):
    """Place it last in MIDDLEWARE: it calls the view itself, inside its transaction."""

    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., HttpResponseBase],
        view_args: tuple[Any, ...],
        view_kwargs: dict[str, Any],
    ) -> HttpResponseBase | None:
        if request.method != "POST" or HEADER not in request.headers:
            return None
        view_class = getattr(view_func, "cls", None)
        if not (isinstance(view_class, type) and issubclass(view_class, APIView)):
            return None  # the admin and other non-API pages
        if getattr(view_class, "idempotency_exempt", False):
            return None
        key = request.headers[HEADER]
        if not VALID_KEY.fullmatch(key):
            return _error(
                400,
                "invalid_idempotency_key",
                f"{HEADER} must be 1 to {MAX_KEY_LENGTH} printable ASCII characters, "
                "with no space at either end.",
            )
        owner = _owner(request, view_class)
        if owner is None:
            return None
        return _run_once(
            owner=owner,
            key=key,
            fingerprint=request_fingerprint(request),
            call_view=lambda: view_func(request, *view_args, **view_kwargs),
        )


def request_fingerprint(request: HttpRequest) -> str:
    """SHA-256 of method, path (with query) and body. A JSON body is taken in
    canonical form, so a client re-serialising the same object (another key
    order, other spacing) is still sending the same request."""
    body = request.body
    with contextlib.suppress(ValueError):  # not JSON (or empty): the bytes as sent
        body = json.dumps(
            json.loads(body), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        ).encode()
    digest = hashlib.sha256()
    for part in (request.method or "", request.get_full_path()):
        digest.update(part.encode() + b"\0")
    digest.update(body)
    return digest.hexdigest()


def _owner(request: HttpRequest, view_class: type[APIView]) -> str | None:
    """Who the key belongs to, authenticated the way the view will authenticate."""
    drf_request = Request(request, authenticators=[a() for a in view_class.authentication_classes])
    try:
        user = drf_request.user
    except APIException:
        return None
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    return f"anon:{request.META.get('REMOTE_ADDR', '')}"


def _run_once(
    *, owner: str, key: str, fingerprint: str, call_view: Callable[[], HttpResponseBase]
) -> HttpResponseBase:
    with transaction.atomic():
        if not _try_lock(owner, key):
            return _error(
                409,
                "idempotency_key_in_use",
                f"A request with this {HEADER} is still being processed; retry later.",
            )
        stored = IdempotencyRecord.objects.filter(owner=owner, key=key).first()
        if stored is not None:
            if stored.fingerprint != fingerprint:
                return _error(
                    422,
                    "idempotency_key_reused",
                    f"This {HEADER} was used for another request; use a new key.",
                )
            return _replay(stored)
        response = call_view()
        render = getattr(response, "render", None)
        if callable(render):
            render()  # a DRF Response: its bytes are what we store
        if not _replayable(response):
            transaction.set_rollback(True)
            return response
        assert isinstance(response, HttpResponse)  # _replayable refuses streaming answers
        IdempotencyRecord.objects.create(
            owner=owner,
            key=key,
            fingerprint=fingerprint,
            status=response.status_code,
            headers={
                name: value
                for name, value in response.items()
                if name.lower() not in UNSTORED_HEADERS
            },
            body=response.content,
        )
        return response


def _try_lock(owner: str, key: str) -> bool:
    """On PostgreSQL, lock (owner, key) for this transaction if nobody holds it."""
    if connection.vendor != "postgresql":
        return True  # SQLite: BEGIN IMMEDIATE has already serialised writers
    lock_id = int.from_bytes(
        hashlib.sha256(f"idempotency\0{owner}\0{key}".encode()).digest()[:8], "big", signed=True
    )
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [lock_id])
        row = cursor.fetchone()
    return bool(row and row[0])


def _replayable(response: HttpResponseBase) -> bool:
    status = response.status_code
    if not isinstance(response, HttpResponse) or status >= 500:
        return False
    if status in NOT_REPLAYED_STATUSES:
        return False
    if status == 409:
        return _error_code(response) not in NOT_REPLAYED_CODES
    return True


def _error_code(response: HttpResponse) -> str | None:
    try:
        return json.loads(response.content)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None


def _replay(record: IdempotencyRecord) -> HttpResponse:
    response = HttpResponse(bytes(record.body), status=record.status)
    for name, value in record.headers.items():
        response[name] = value
    response[REPLAYED_HEADER] = "true"
    return response


def _error(status: int, code: str, message: str) -> JsonResponse:
    return JsonResponse(error_body(code, message), status=status)
