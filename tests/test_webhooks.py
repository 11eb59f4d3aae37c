"""Webhooks through HTTP: a real HTTP server in a thread receives signed
deliveries; retries, the sweep, redelivery and owners' isolation."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings as django_settings
from django.db import connection
from django.db.models import F
from django.utils import timezone
from rest_framework.test import APIClient

from games.webhooks.api import urls as webhook_urls
from games.webhooks.models import WebhookDelivery

from .helpers import error_code, ok, open_table
from .workers import celery_worker

pytestmark = pytest.mark.django_db(transaction=True)


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> dict[str, Any]:
        return json.loads(self.body)


@dataclass
class Receiver:
    """A webhook receiver on a free local port: records every request and
    answers with the statuses queued in ``answers`` (200 once they run out)."""

    url: str = ""
    requests: list[Received] = field(default_factory=list)
    answers: list[int] = field(default_factory=list)
    gate: threading.Event | None = None  # when set, requests wait for it


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            state.requests.append(Received(dict(self.headers.items()), body))
            if state.gate is not None:
                state.gate.wait(5)
            code = state.answers.pop(0) if state.answers else 200
            self.send_response(code)
            if 300 <= code < 400:
                self.send_header("Location", state.url + "elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hooks/facets"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


def register(client: APIClient, url: str, **extra: Any) -> dict[str, Any]:
    return ok(client.post("/api/v1/webhooks", {"url": url, **extra}, format="json"), 201)


def deliveries(client: APIClient, hook_id: int, **query: Any) -> list[dict[str, Any]]:
    return ok(client.get(f"/api/v1/webhooks/{hook_id}/deliveries", query))["results"]


def ping(client: APIClient, hook_id: int) -> dict[str, Any]:
    return ok(client.post(f"/api/v1/webhooks/{hook_id}/ping"), 202)


def verify_signature(secret: str, request: Received, tolerance: int = 300) -> None:
    """What a receiver does (docs/api.md#webhooks)."""
    parts = dict(item.split("=", 1) for item in request.headers["Facets-Signature"].split(","))
    timestamp = int(parts["t"])
    expected = hmac.new(
        secret.encode(), f"{timestamp}.".encode() + request.body, hashlib.sha256
    ).hexdigest()
    assert hmac.compare_digest(expected, parts["v1"])
    assert abs(time.time() - timestamp) < tolerance


def documented_verify() -> Callable[..., bool]:
    """The receiver example of docs/api.md, run as written."""
    guide = (Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text()
    section = guide[guide.index("## Webhooks") :]
    start = section.index("```python\n") + len("```python\n")
    namespace: dict[str, Any] = {}
    exec(section[start : section.index("```", start)], namespace)
    return namespace["verify"]


def time_passes(seconds: float) -> None:
    """Move every delivery's clock back instead of sleeping."""
    delta = timedelta(seconds=seconds)
    WebhookDelivery.objects.update(
        next_attempt_at=F("next_attempt_at") - delta,
        last_attempt_at=F("last_attempt_at") - delta,
        dispatched_at=F("dispatched_at") - delta,
    )


def sweep(task_queue: Any) -> None:
    task_queue.send("webhooks.tasks.sweep_deliveries")
    task_queue.drain()


def start_diamants(alice: APIClient, bob: APIClient, task_queue: Any) -> int:
    game_id = open_table(alice, ruleset="diamants", num_seats=2)["id"]
    ok(bob.post(f"/api/v1/games/{game_id}/join"))
    task_queue.drain()
    return game_id


def test_a_game_start_reaches_the_receiver_signed_with_the_webhook_secret(
    client_for: Any, task_queue: Any, receiver: Receiver
) -> None:
    alice, bob = client_for("alice"), client_for("bob")
    hook = register(alice, receiver.url)
    assert hook["secret"].startswith("whsec_") and hook["kinds"] == [
        "your_turn",
        "game_started",
        "game_finished",
    ]
    game_id = start_diamants(alice, bob, task_queue)

    assert receiver.requests, "nothing was delivered"
    logged = {d["id"]: d for d in deliveries(alice, hook["id"])}
    assert len(logged) == len(receiver.requests)
    for request in receiver.requests:
        verify_signature(hook["secret"], request)
        body = request.json
        assert set(body) == {"id", "kind", "created_at", "game_id", "ruleset", "seq", "data"}
        assert body["game_id"] == game_id and body["ruleset"] == "diamants"
        assert request.headers["Facets-Delivery"] == body["id"]
        assert request.headers["Facets-Event"] == body["kind"]
        assert request.headers["Content-Type"] == "application/json"
        assert logged[body["id"]]["payload"] == body
        assert logged[body["id"]]["status"] == "succeeded"
        assert logged[body["id"]]["last_status_code"] == 200
    started = [r.json for r in receiver.requests if r.json["kind"] == "game_started"]
    assert [b["data"] for b in started] == [{"seat": 0}]  # alice's, never bob's

    # A tampered body or a wrong secret does not verify.
    first = receiver.requests[0]
    verify = documented_verify()
    assert verify(hook["secret"], first.headers["Facets-Signature"], first.body)
    assert not verify(hook["secret"], first.headers["Facets-Signature"], first.body + b" ")
    assert not verify(hook["secret"], first.headers["Facets-Signature"], first.body, -1)
    with pytest.raises(AssertionError):
        verify_signature(hook["secret"], Received(first.headers, first.body + b" "))
    with pytest.raises(AssertionError):
        verify_signature("whsec_wrong", first)


def test_a_failing_receiver_is_retried_with_doubling_delays_until_it_answers(
    client_for: Any, task_queue: Any, receiver: Receiver
) -> None:
    alice = client_for("alice")
    hook = register(alice, receiver.url)
    receiver.answers = [500, 503, 500]
    delivery_id = ping(alice, hook["id"])["id"]
    task_queue.drain()

    delays = []
    for attempt in (1, 2, 3):
        (logged,) = deliveries(alice, hook["id"])
        assert (logged["status"], logged["attempts"]) == ("pending", attempt)
        assert logged["last_status_code"] in (500, 503)
        row = WebhookDelivery.objects.get(delivery_id=delivery_id)
        assert row.next_attempt_at is not None and row.last_attempt_at is not None
        # The delay counts from the end of the attempt, a moment after it began.
        delays.append(round((row.next_attempt_at - row.last_attempt_at).total_seconds()))
        sweep(task_queue)  # not due yet: nothing is sent
        assert len(receiver.requests) == attempt
        time_passes(delays[-1])
        sweep(task_queue)
    assert delays == [10, 20, 40]

    (logged,) = deliveries(alice, hook["id"])
    assert (logged["status"], logged["attempts"], logged["last_status_code"]) == (
        "succeeded",
        4,
        200,
    )
    assert logged["next_attempt_at"] is None and logged["last_error"] == ""
    assert {r.headers["Facets-Delivery"] for r in receiver.requests} == {delivery_id}
    assert len({r.body for r in receiver.requests}) == 1  # the same body each time


def test_a_delivery_fails_for_good_after_the_last_attempt(
    client_for: Any, task_queue: Any, receiver: Receiver, settings: Any
) -> None:
    settings.FACETS_WEBHOOK_MAX_ATTEMPTS = 3
    alice = client_for("alice")
    hook = register(alice, receiver.url)
    receiver.answers = [500] * 10
    ping(alice, hook["id"])
    task_queue.drain()
    for _ in range(5):
        time_passes(3600)
        sweep(task_queue)
    assert len(receiver.requests) == 3
    (logged,) = deliveries(alice, hook["id"])
    assert (logged["status"], logged["attempts"], logged["next_attempt_at"]) == (
        "failed",
        3,
        None,
    )
    assert logged["last_error"] == "HTTP 500"
    assert deliveries(alice, hook["id"], status="failed") == [logged]
    assert deliveries(alice, hook["id"], status="succeeded") == []


def test_an_unreachable_receiver_or_a_redirect_is_a_failure(
    client_for: Any, task_queue: Any, receiver: Receiver
) -> None:
    alice = client_for("alice")
    receiver.answers = [302]
    hook = register(alice, receiver.url)
    ping(alice, hook["id"])
    task_queue.drain()
    assert len(receiver.requests) == 1  # the redirect was not followed
    (logged,) = deliveries(alice, hook["id"])
    assert (logged["status"], logged["last_status_code"]) == ("pending", 302)

    closed = register(alice, "http://127.0.0.1:9/nobody-listens")
    ping(alice, closed["id"])
    task_queue.drain()
    (logged,) = deliveries(alice, closed["id"])
    assert logged["status"] == "pending" and logged["last_status_code"] is None
    assert "refused" in logged["last_error"].lower()


def test_the_sweep_sends_a_delivery_whose_message_was_lost(
    client_for: Any, task_queue: Any, receiver: Receiver, settings: Any
) -> None:
    alice = client_for("alice")
    hook = register(alice, receiver.url)
    ping(alice, hook["id"])
    task_queue.drain(drop="webhooks.tasks.deliver")
    assert receiver.requests == []

    sweep(task_queue)  # its task may still be on its way: left alone for now
    assert receiver.requests == []
    time_passes(settings.FACETS_TASK_GRACE_SECONDS)
    task_queue.send("webhooks.tasks.sweep_deliveries")
    task_queue.drain(drop="webhooks.tasks.deliver")  # the sweep's message is lost too
    task_queue.send("webhooks.tasks.sweep_deliveries")
    assert task_queue.drain() == 1  # the sweep alone: no message again within the grace
    assert receiver.requests == []
    time_passes(settings.FACETS_TASK_GRACE_SECONDS)
    sweep(task_queue)
    assert len(receiver.requests) == 1
    assert deliveries(alice, hook["id"])[0]["status"] == "succeeded"


def test_a_delivery_is_sent_once_however_many_times_its_task_runs(
    client_for: Any, task_queue: Any, receiver: Receiver
) -> None:
    alice = client_for("alice")
    hook = register(alice, receiver.url)
    delivery_id = ping(alice, hook["id"])["id"]
    task_queue.sent.append(task_queue.sent[0])  # the broker delivers the message twice
    task_queue.drain()
    assert len(receiver.requests) == 1
    assert deliveries(alice, hook["id"])[0]["attempts"] == 1

    # Two workers holding the same message at the same moment.
    from games.webhooks import tasks

    WebhookDelivery.objects.update(status="pending", next_attempt_at=timezone.now())
    barrier = threading.Barrier(2)
    results: list[bool] = []

    def worker() -> None:
        try:
            barrier.wait(5)
            results.append(tasks.deliver(delivery_id))
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert sorted(results) == [False, True]
    assert len(receiver.requests) == 2


def test_redeliver_sends_the_same_delivery_again_now(
    client_for: Any, task_queue: Any, receiver: Receiver, settings: Any
) -> None:
    settings.FACETS_WEBHOOK_MAX_ATTEMPTS = 1
    alice = client_for("alice")
    hook = register(alice, receiver.url)
    receiver.answers = [500]
    delivery_id = ping(alice, hook["id"])["id"]
    task_queue.drain()
    assert deliveries(alice, hook["id"])[0]["status"] == "failed"

    url = f"/api/v1/webhooks/{hook['id']}/deliveries/{delivery_id}/redeliver"
    again = ok(alice.post(url), 202)
    assert again["id"] == delivery_id and again["status"] == "pending"
    task_queue.drain()
    (logged,) = deliveries(alice, hook["id"])
    assert (logged["status"], logged["attempts"]) == ("succeeded", 2)
    first, second = receiver.requests
    assert first.body == second.body
    assert first.headers["Facets-Delivery"] == second.headers["Facets-Delivery"] == delivery_id
    verify_signature(hook["secret"], second)

    unknown = (
        f"/api/v1/webhooks/{hook['id']}/deliveries/{'0' * 8}-0000-0000-0000-{'0' * 12}/redeliver"
    )
    assert error_code(alice.post(unknown), 404) == "not_found"


def test_deliveries_are_listed_newest_first_a_page_at_a_time(
    client_for: Any, task_queue: Any, receiver: Receiver
) -> None:
    alice = client_for("alice")
    hook = register(alice, receiver.url)
    sent = [ping(alice, hook["id"])["id"] for _ in range(3)]
    task_queue.drain()
    assert [d["id"] for d in deliveries(alice, hook["id"])] == sent[::-1]
    page = ok(alice.get(f"/api/v1/webhooks/{hook['id']}/deliveries", {"page_size": 2}))
    assert page["count"] == 3 and len(page["results"]) == 2 and page["next"]
    assert error_code(
        alice.get(f"/api/v1/webhooks/{hook['id']}/deliveries", {"status": "lost"}), 400
    ) == ("validation_error")


def test_webhooks_are_their_owners_alone(
    client_for: Any, task_queue: Any, receiver: Receiver
) -> None:
    alice, bob = client_for("alice"), client_for("bob")
    hook = register(alice, receiver.url)
    delivery_id = ping(alice, hook["id"])["id"]
    task_queue.drain()
    base = f"/api/v1/webhooks/{hook['id']}"
    assert ok(bob.get("/api/v1/webhooks")) == []
    for response in [
        bob.get(base),
        bob.patch(base, {"active": False}, format="json"),
        bob.delete(base),
        bob.post(f"{base}/rotate-secret"),
        bob.post(f"{base}/ping"),
        bob.get(f"{base}/deliveries"),
        bob.post(f"{base}/deliveries/{delivery_id}/redeliver"),
    ]:
        assert error_code(response, 404) == "not_found"
    assert error_code(APIClient().get("/api/v1/webhooks"), 401) == "not_authenticated"
    assert ok(alice.get(base))["active"] is True
    assert len(receiver.requests) == 1

    # bob's games notify bob's webhooks only.
    carol = client_for("carol")
    start_diamants(bob, carol, task_queue)
    assert len(receiver.requests) == 1


def test_the_secret_is_shown_at_creation_and_rotation_only(
    client_for: Any, task_queue: Any, receiver: Receiver
) -> None:
    alice = client_for("alice")
    hook = register(alice, receiver.url)
    shown = ok(alice.get(f"/api/v1/webhooks/{hook['id']}"))
    assert "secret" not in shown and hook["secret"].startswith(shown["secret_hint"][:-1])
    assert "secret" not in ok(alice.get("/api/v1/webhooks"))[0]

    rotated = ok(alice.post(f"/api/v1/webhooks/{hook['id']}/rotate-secret"))
    assert rotated["secret"] != hook["secret"]
    ping(alice, hook["id"])
    task_queue.drain()
    verify_signature(rotated["secret"], receiver.requests[0])
    with pytest.raises(AssertionError):
        verify_signature(hook["secret"], receiver.requests[0])


def test_kinds_and_active_decide_what_is_sent(
    client_for: Any, task_queue: Any, receiver: Receiver
) -> None:
    alice, bob = client_for("alice"), client_for("bob")
    hook = register(alice, receiver.url, kinds=["game_finished"])
    assert hook["kinds"] == ["game_finished"]
    game_id = start_diamants(alice, bob, task_queue)
    assert receiver.requests == []
    ok(alice.post(f"/api/v1/games/{game_id}/resign"))
    task_queue.drain()
    (finished,) = [r.json for r in receiver.requests]
    assert finished["kind"] == "game_finished"
    assert finished["data"]["result"]["reason"] == "resignation"

    ok(alice.patch(f"/api/v1/webhooks/{hook['id']}", {"active": False}, format="json"))
    assert error_code(alice.post(f"/api/v1/webhooks/{hook['id']}/ping"), 409) == (
        "webhook_inactive"
    )
    start_diamants(alice, bob, task_queue)
    assert len(receiver.requests) == 1

    assert alice.delete(f"/api/v1/webhooks/{hook['id']}").status_code == 204
    assert not WebhookDelivery.objects.exists()  # gone with their webhook


@pytest.mark.parametrize(
    "body",
    [
        {"url": "ftp://example.com/hook"},
        {"url": "not a url"},
        {"url": "https://example.com/hook", "kinds": ["chat"]},
        {"url": "https://example.com/hook", "kinds": []},
        {"url": "https://example.com/hook", "active": "maybe"},
        {},
    ],
)
def test_bad_registrations_are_refused_and_write_nothing(client_for: Any, body: Any) -> None:
    alice = client_for("alice")
    response = alice.post("/api/v1/webhooks", body, format="json")
    assert error_code(response, 400) == "validation_error"
    assert ok(alice.get("/api/v1/webhooks")) == []


def test_private_addresses_can_be_forbidden(client_for: Any, settings: Any) -> None:
    settings.FACETS_WEBHOOK_ALLOW_PRIVATE = False
    alice = client_for("alice")
    for url in ["http://127.0.0.1:8000/hook", "http://10.1.2.3/hook", "http://localhost/x"]:
        response = alice.post("/api/v1/webhooks", {"url": url}, format="json")
        assert error_code(response, 400) == "validation_error", url
        assert "url" in response.json()["error"]["details"]["fields"]


def test_a_user_has_a_limited_number_of_webhooks(client_for: Any, settings: Any) -> None:
    settings.FACETS_WEBHOOK_MAX_PER_USER = 2
    alice = client_for("alice")
    for n in range(2):
        register(alice, f"https://example.com/{n}")
    response = alice.post("/api/v1/webhooks", {"url": "https://example.com/3"}, format="json")
    assert error_code(response, 409) == "webhook_limit_reached"


def test_every_webhook_view_requires_the_webhooks_scope() -> None:
    ours = [pattern.callback.view_class for pattern in webhook_urls.urlpatterns]
    assert len(ours) == 6
    assert {getattr(v, "required_scope", None) for v in ours} == {"webhooks:manage"}


def test_the_openapi_schema_describes_the_webhook_endpoints(anon: APIClient) -> None:
    schema = anon.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    paths = schema["paths"]
    base = "/api/v1/webhooks/{webhook_id}"
    assert set(paths["/api/v1/webhooks"]) >= {"get", "post"}
    assert set(paths[base]) >= {"get", "patch", "delete"}
    redeliver = paths[base + "/deliveries/{delivery_id}/redeliver"]["post"]
    assert {"202", "404", "409"} <= set(redeliver["responses"])
    listed = paths[base + "/deliveries"]["get"]
    assert {p["name"] for p in listed["parameters"]} >= {"status", "page", "page_size"}
    created = paths["/api/v1/webhooks"]["post"]["responses"]["201"]
    ref = created["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    assert "secret" in schema["components"]["schemas"][ref]["required"]


# --- with a real Celery worker and beat ------------------------------------------


@pytest.fixture
def worker(tmp_path: Path, transactional_db: None) -> Iterator[subprocess.Popen]:
    """A worker with beat (as in test_worker.py), retrying webhooks after 1 s."""
    if not django_settings.REDIS_URL:
        pytest.fail("REDIS_URL must point at a real Redis for worker tests (scripts/test sets it)")
    redis.Redis.from_url(django_settings.REDIS_URL).flushdb()
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "REDIS_URL": django_settings.REDIS_URL,
        "FACETS_SWEEP_SECONDS": "1",
        "FACETS_TASK_GRACE_SECONDS": "2",
        "FACETS_WEBHOOK_BACKOFF_SECONDS": "1",
        "FACETS_VAR_DIR": str(tmp_path),
    }
    with celery_worker(env, tmp_path) as process:
        yield process


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.25)
    pytest.fail(f"timed out waiting for {what}")


@pytest.mark.worker
def test_a_worker_delivers_a_game_start_and_retries_a_failure(
    client_for: Any, receiver: Receiver, worker: Any
) -> None:
    alice, bob = client_for("alice"), client_for("bob")
    hook = register(alice, receiver.url, kinds=["game_started"])
    receiver.answers = [500]
    game_id = open_table(alice, ruleset="diamants", num_seats=2)["id"]
    ok(bob.post(f"/api/v1/games/{game_id}/join"))

    # The first attempt gets a 500; beat's sweep sends the retry a second later.
    wait_for(lambda: WebhookDelivery.objects.filter(status="succeeded").exists(), 60, "the retry")
    (logged,) = deliveries(alice, hook["id"])
    assert (logged["kind"], logged["attempts"], logged["last_status_code"]) == (
        "game_started",
        2,
        200,
    )
    failed, succeeded = receiver.requests
    assert failed.body == succeeded.body
    verify_signature(hook["secret"], succeeded)
    assert succeeded.json["game_id"] == game_id and succeeded.json["data"] == {"seat": 0}


def test_a_delivery_costs_three_queries_and_a_commit_without_webhooks_one(
    client_for: Any, task_queue: Any, receiver: Receiver, django_assert_num_queries: Any
) -> None:
    from games.notifications import Notification
    from games.webhooks import services, tasks

    alice = client_for("alice")
    hook = register(alice, receiver.url)
    delivery_id = ping(alice, hook["id"])["id"]
    task_queue.sent.clear()
    with django_assert_num_queries(3):  # read, claim, record
        assert tasks.deliver(delivery_id)
    with django_assert_num_queries(1):  # read only: already delivered
        assert not tasks.deliver(delivery_id)
    bob_id = ok(client_for("bob").get("/api/v1/me"))["id"]
    note = Notification("your_turn", bob_id, 1, "diamants", 3, {"seat": 0})
    with django_assert_num_queries(1):  # a user with no webhooks: one indexed read
        assert services.deliveries_create(notifications=[note]) == []
