"""The HTTP side of a delivery: which URLs are accepted, and one POST.

Standard library only. Redirects are not followed (a 3xx is a failure: a
webhook URL should be the final one, and following redirects would let a
receiver bounce signed requests elsewhere). Only a 2xx answer counts as
delivered.
"""

from __future__ import annotations

import ipaddress
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from urllib.parse import urlsplit

USER_AGENT = "Facets-Webhooks/1"
MAX_ERROR_LENGTH = 500


class UnacceptableUrl(ValueError):
    pass


def check_url(url: str, *, allow_private: bool) -> None:
    """Raise UnacceptableUrl unless ``url`` may receive deliveries."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise UnacceptableUrl("Only http and https URLs are accepted.")
    if not parts.hostname:
        raise UnacceptableUrl("The URL has no host.")
    if not allow_private:
        _check_public(parts.hostname, parts.port)


def _check_public(host: str, port: int | None) -> None:
    try:
        infos = socket.getaddrinfo(host, port or 443, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError) as exc:
        raise UnacceptableUrl(f"The host {host!r} does not resolve.") from exc
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        if not address.is_global:
            raise UnacceptableUrl(
                f"The host {host!r} resolves to a private address ({address}); "
                "this server only sends webhooks to public addresses."
            )


@dataclass(frozen=True)
class Outcome:
    delivered: bool
    status_code: int | None
    error: str
    duration_ms: int


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # urllib then raises HTTPError with the 3xx


_opener = urllib.request.build_opener(_NoRedirects)


def post(url: str, body: bytes, headers: dict[str, str], *, timeout: float) -> Outcome:
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", "User-Agent": USER_AGENT, **headers},
    )
    started = time.monotonic()

    def outcome(status: int | None, error: str = "") -> Outcome:
        elapsed = int((time.monotonic() - started) * 1000)
        delivered = status is not None and 200 <= status < 300
        return Outcome(delivered, status, error[:MAX_ERROR_LENGTH], elapsed)

    try:
        with _opener.open(request, timeout=timeout) as response:
            response.read(64 * 1024)  # let the receiver finish; the body is not used
            return outcome(response.status)
    except urllib.error.HTTPError as exc:
        exc.close()
        return outcome(exc.code, f"HTTP {exc.code}")
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return outcome(None, f"{type(exc).__name__}: {reason}")
