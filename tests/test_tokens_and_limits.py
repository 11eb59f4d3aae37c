"""Personal access tokens, scopes and rate limits, through HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.permissions import HasTokenScope
from accounts.throttling import AnonymousAddressThrottle, TokenThrottle
from games.models import Event, Game, Seat
from tests.conftest import PASSWORD
from tests.helpers import error_code, ok, open_table

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent


def create_token(client: APIClient, scopes: list[str], **extra: Any) -> Any:
    return client.post(
        "/api/v1/tokens", {"name": "my bot", "scopes": scopes, **extra}, format="json"
    )


def client_with(key: str, address: str = "127.0.0.1") -> APIClient:
    client = APIClient(REMOTE_ADDR=address)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def pat(session: APIClient, *scopes: str) -> APIClient:
    """A client using a new personal token with ``scopes``."""
    return client_with(ok(create_token(session, list(scopes)), 201)["token"])


def set_rates(settings: Any, **rates: str | None) -> None:
    """Use these rates, counting from zero (the setup's requests are forgotten)."""
    cache.clear()
    drf = settings.REST_FRAMEWORK
    settings.REST_FRAMEWORK = {
        **drf,
        "DEFAULT_THROTTLE_RATES": {**drf["DEFAULT_THROTTLE_RATES"], **rates},
    }


def login(client: APIClient, username: str, password: str = PASSWORD) -> Any:
    return client.post(
        "/api/v1/auth/login", {"username": username, "password": password}, format="json"
    )


# --- tokens -----------------------------------------------------------------


def test_create_list_and_revoke_a_personal_token(client_for) -> None:
    ada = client_for("ada")
    created = ok(create_token(ada, ["games:play", "games:read"]), 201)
    assert created["kind"] == "personal" and created["name"] == "my bot"
    assert created["scopes"] == ["games:read", "games:play"]
    assert created["token_type"] == "Bearer"
    assert created["token"].startswith(created["prefix"])
    assert created["last_used_at"] is None and created["expires_at"] is None

    listed = ok(ada.get("/api/v1/tokens"))
    assert [t["kind"] for t in listed] == ["personal", "session"]
    assert listed[0]["id"] == created["id"]
    assert all("token" not in t for t in listed)  # the key is shown once
    assert listed[1]["scopes"] == ["games:read", "games:play", "webhooks:manage", "tokens:manage"]
    assert [t["id"] for t in ok(ada.get("/api/v1/tokens?kind=personal"))] == [created["id"]]

    bot = client_with(created["token"])
    assert ok(bot.get("/api/v1/me"))["username"] == "ada"
    assert ada.delete(f"/api/v1/tokens/{created['id']}").status_code == 204
    assert error_code(bot.get("/api/v1/me"), 401) == "invalid_token"
    assert [t["kind"] for t in ok(ada.get("/api/v1/tokens"))] == ["session"]
    assert error_code(ada.delete(f"/api/v1/tokens/{created['id']}"), 404) == "not_found"


def test_last_used_is_recorded_when_the_token_is_used(client_for) -> None:
    ada = client_for("ada")
    created = ok(create_token(ada, ["games:read"]), 201)
    ok(client_with(created["token"]).get("/api/v1/games"))
    (listed,) = ok(ada.get("/api/v1/tokens?kind=personal"))
    assert listed["last_used_at"] is not None
    assert listed["last_used_at"] >= created["created_at"]


def test_someone_elses_token_is_not_found_and_keeps_working(client_for) -> None:
    ada, bob = client_for("ada"), client_for("bob")
    adas = ok(create_token(ada, ["games:read"]), 201)
    assert error_code(bob.delete(f"/api/v1/tokens/{adas['id']}"), 404) == "not_found"
    assert all(t["id"] != adas["id"] for t in ok(bob.get("/api/v1/tokens")))
    assert ok(client_with(adas["token"]).get("/api/v1/me"))["username"] == "ada"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "x", "scopes": ["games:write"]}, "scopes"),
        ({"name": "x", "scopes": ["tokens:manage"]}, "scopes"),  # never grantable
        ({"name": "x", "scopes": []}, "scopes"),
        ({"name": "x", "scopes": "games:read"}, "scopes"),
        ({"scopes": ["games:read"]}, "name"),
        (
            {"name": "x", "scopes": ["games:read"], "expires_at": "2001-01-01T00:00:00Z"},
            "expires_at",
        ),
        ({"name": "x", "scopes": ["games:read"], "expires_at": "tomorrow"}, "expires_at"),
    ],
)
def test_bad_token_requests_are_refused_and_store_nothing(client_for, body, field) -> None:
    ada = client_for("ada")
    response = ada.post("/api/v1/tokens", body, format="json")
    assert error_code(response, 400) == "validation_error"
    assert field in response.json()["error"]["details"]["fields"]
    assert ApiToken.objects.filter(kind="personal").count() == 0


def test_a_token_past_its_expiry_is_refused(client_for) -> None:
    ada = client_for("ada")
    soon = (timezone.now() + timedelta(hours=1)).isoformat()
    created = ok(create_token(ada, ["games:read"], expires_at=soon), 201)
    assert created["expires_at"] is not None
    bot = client_with(created["token"])
    assert ok(bot.get("/api/v1/me"))["username"] == "ada"
    ApiToken.objects.filter(pk=created["id"]).update(expires_at=timezone.now())
    response = bot.get("/api/v1/me")
    assert error_code(response, 401) == "invalid_token"
    assert "expired" in response.json()["error"]["message"]


def test_a_personal_token_cannot_manage_tokens(client_for) -> None:
    ada = client_for("ada")
    strongest = pat(ada, "games:read", "games:play", "webhooks:manage")
    for response in [
        create_token(strongest, ["games:play"]),
        strongest.get("/api/v1/tokens"),
        strongest.delete(f"/api/v1/tokens/{ApiToken.objects.get(kind='session').pk}"),
    ]:
        assert error_code(response, 403) == "insufficient_scope"
        assert response.json()["error"]["details"] == {"required_scope": "tokens:manage"}
    assert ApiToken.objects.filter(kind="personal").count() == 1
    assert ApiToken.objects.filter(revoked_at__isnull=False).count() == 0


def test_managing_tokens_needs_a_user(anon) -> None:
    assert error_code(anon.get("/api/v1/tokens"), 401) == "not_authenticated"
    assert error_code(create_token(anon, ["games:read"]), 401) == "not_authenticated"


# --- scopes -----------------------------------------------------------------


def test_a_read_only_token_reads_but_cannot_act(client_for) -> None:
    ada = client_for("ada")
    table = open_table(ada, num_seats=2)
    ok(ada.post(f"/api/v1/games/{table['id']}/bots", {}, format="json"))
    reader = pat(ada, "games:read")
    assert ok(reader.get(f"/api/v1/games/{table['id']}"))["your_seat"] == 0
    assert {"type": "setup", "stars": True} in ok(
        reader.get(f"/api/v1/games/{table['id']}/legal-actions")
    )["actions"]
    events_before, seq_before = Event.objects.count(), Game.objects.get().seq

    refusals = [
        reader.post(
            f"/api/v1/games/{table['id']}/actions",
            {"action": {"type": "setup", "stars": True}},
            format="json",
        ),
        reader.post(f"/api/v1/games/{table['id']}/resign"),
        reader.post("/api/v1/games", {"ruleset": "brilliant", "num_seats": 2}, format="json"),
    ]
    for response in refusals:
        assert error_code(response, 403) == "insufficient_scope"
        assert response.json()["error"]["details"] == {"required_scope": "games:play"}
    assert Event.objects.count() == events_before
    assert Game.objects.count() == 1 and Game.objects.get().seq == seq_before
    assert not Seat.objects.filter(resigned=True).exists()
    # The same action with a token that may play is accepted.
    player = pat(ada, "games:read", "games:play")
    ok(
        player.post(
            f"/api/v1/games/{table['id']}/actions",
            {"action": {"type": "setup", "stars": True}},
            format="json",
        ),
        201,
    )


def test_a_play_only_token_cannot_read_games(client_for) -> None:
    ada = client_for("ada")
    table = open_table(ada, num_seats=2)
    player = pat(ada, "games:play")
    for path in [
        f"/api/v1/games/{table['id']}",
        "/api/v1/games",
        f"/api/v1/games/{table['id']}/events",
    ]:
        response = player.get(path)
        assert error_code(response, 403) == "insufficient_scope"
        assert response.json()["error"]["details"] == {"required_scope": "games:read"}
    # Public material and "who am I" need no particular scope.
    ok(player.get("/api/v1/rulesets"))
    assert ok(player.get("/api/v1/me"))["username"] == "ada"


def test_anonymous_requests_are_not_scope_checked(client_for, anon) -> None:
    table = open_table(client_for("ada"), num_seats=2)
    ok(anon.get(f"/api/v1/games/{table['id']}"))
    assert error_code(anon.post(f"/api/v1/games/{table['id']}/join"), 401) == "not_authenticated"


def test_a_view_declaring_webhooks_manage_needs_that_scope(client_for, anon, settings) -> None:
    settings.ROOT_URLCONF = "tests.scope_probe_urls"
    probe = "/api/v1/test-probe/webhooks"
    ada = client_for("ada")
    games_only = pat(ada, "games:read", "games:play")
    for response in [games_only.get(probe), games_only.post(probe)]:
        assert error_code(response, 403) == "insufficient_scope"
        assert response.json()["error"]["details"] == {"required_scope": "webhooks:manage"}
    hooks = pat(ada, "webhooks:manage")
    assert ok(hooks.get(probe)) == {"ok": True}
    ok(hooks.post(probe), 201)
    ok(ada.get(probe))  # a login session holds every scope
    assert error_code(anon.get(probe), 401) == "not_authenticated"
    # ...and the webhooks scope alone does not open the games.
    assert error_code(hooks.get("/api/v1/games"), 403) == "insufficient_scope"


def test_logout_with_a_personal_token_revokes_only_that_token(client_for) -> None:
    ada = client_for("ada")
    reader = pat(ada, "games:read")
    assert reader.post("/api/v1/auth/logout").status_code == 204
    assert error_code(reader.get("/api/v1/me"), 401) == "invalid_token"
    ok(ada.get("/api/v1/me"))


def _api_views() -> list[Any]:
    views = []

    def walk(patterns: list[Any], prefix: str) -> None:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern) and (prefix + str(entry.pattern)).startswith(
                "api/v1/"
            ):
                views.append(entry.callback.view_class)  # type: ignore[attr-defined]

    walk(get_resolver().url_patterns, "")
    return views


def test_every_api_view_checks_scopes_and_rate_limits() -> None:
    # A view that overrides permission_classes or throttle_classes must keep
    # the scope check and the default limits (a guard for views added later).
    views = _api_views()
    assert len(views) > 15
    for view in views:
        assert HasTokenScope in view.permission_classes, view
        assert TokenThrottle in view.throttle_classes, view
        assert AnonymousAddressThrottle in view.throttle_classes, view


# --- rate limits ------------------------------------------------------------


@pytest.fixture(autouse=True)
def _not_at_the_end_of_a_minute() -> None:
    """Windows start on whole minutes: a test that crosses one would see its
    count start again. Begin each test with at least 15 s of the window left."""
    into_the_minute = time.time() % 60
    if into_the_minute > 45:
        time.sleep(60.5 - into_the_minute)


def assert_rate_limited(response: Any, window: int = 60) -> int:
    assert error_code(response, 429) == "rate_limited"
    retry_after = int(response["Retry-After"])
    assert 1 <= retry_after <= window
    assert response.json()["error"]["details"] == {"retry_after": retry_after}
    return retry_after


def test_each_token_has_its_own_limit(client_for, settings) -> None:
    ada, bob = client_for("ada"), client_for("bob")
    adas_second = pat(ada, "games:read")
    set_rates(settings, token="3/minute")
    for _ in range(3):
        ok(ada.get("/api/v1/games"))
    assert_rate_limited(ada.get("/api/v1/games"))
    assert_rate_limited(ada.post("/api/v1/games", {}, format="json"))  # every endpoint
    assert_rate_limited(ada.get("/api/v1/tokens"))
    ok(bob.get("/api/v1/games"))  # bob's token has its own count
    ok(adas_second.get("/api/v1/games"))  # and so has each of ada's tokens


def test_anonymous_callers_are_limited_per_address_and_players_are_not(
    client_for, settings
) -> None:
    ada = client_for("ada")  # also from 127.0.0.1
    set_rates(settings, anon="2/minute")
    here, elsewhere = APIClient(REMOTE_ADDR="127.0.0.1"), APIClient(REMOTE_ADDR="10.1.2.3")
    ok(here.get("/api/v1/rulesets"))
    ok(here.get("/api/v1/games"))
    assert_rate_limited(here.get("/api/v1/games"))
    # A forged X-Forwarded-For does not make a new client (no proxy trusted).
    assert_rate_limited(here.get("/api/v1/games", HTTP_X_FORWARDED_FOR="203.0.113.9"))
    ok(elsewhere.get("/api/v1/games"))
    for _ in range(5):
        ok(ada.get("/api/v1/games"))  # authenticated: counted per token instead


def test_ipv6_callers_are_counted_by_their_64_block(settings) -> None:
    set_rates(settings, anon="2/minute")
    ok(APIClient(REMOTE_ADDR="2001:db8:1:2::1").get("/api/v1/rulesets"))
    ok(APIClient(REMOTE_ADDR="2001:db8:1:2::ffff").get("/api/v1/rulesets"))
    assert_rate_limited(APIClient(REMOTE_ADDR="2001:db8:1:2:abcd::1").get("/api/v1/rulesets"))
    ok(APIClient(REMOTE_ADDR="2001:db8:1:3::1").get("/api/v1/rulesets"))


def test_guessing_one_accounts_password_is_limited_from_any_address(client_for, settings) -> None:
    client_for("ada")
    set_rates(settings, login_username="3/minute")
    for n in range(3):
        guesser = APIClient(REMOTE_ADDR=f"198.51.100.{n}")
        assert error_code(login(guesser, "ada", f"guess-{n}"), 401) == "invalid_credentials"
    # Now even the right password waits, from a new address, in any case.
    assert_rate_limited(login(APIClient(REMOTE_ADDR="198.51.100.99"), "ADA"))
    assert ApiToken.objects.count() == 1  # only the login client_for made
    # Other accounts are unaffected.
    client_for("bob")


def test_guessing_many_accounts_from_one_address_is_limited(client_for, settings) -> None:
    for name in ["ada", "bob", "cyd", "dan"]:
        client_for(name)
    set_rates(settings, login="3/minute")
    guesser = APIClient(REMOTE_ADDR="192.0.2.7")
    for name in ["ada", "bob", "cyd"]:
        assert error_code(login(guesser, name, "guess"), 401) == "invalid_credentials"
    assert_rate_limited(login(guesser, "dan", "guess"))
    assert login(APIClient(REMOTE_ADDR="192.0.2.8"), "dan").status_code == 201


def test_registrations_are_limited_per_address(anon, settings) -> None:
    set_rates(settings, register="2/minute")
    for name in ["ada", "bob"]:
        ok(
            anon.post(
                "/api/v1/auth/register", {"username": name, "password": PASSWORD}, format="json"
            ),
            201,
        )
    response = anon.post(
        "/api/v1/auth/register", {"username": "cyd", "password": PASSWORD}, format="json"
    )
    assert_rate_limited(response)
    ok(
        APIClient(REMOTE_ADDR="10.9.9.9").post(
            "/api/v1/auth/register", {"username": "cyd", "password": PASSWORD}, format="json"
        ),
        201,
    )


def test_limits_hold_on_the_embedded_file_cache(client_for, settings, tmp_path) -> None:
    ada = client_for("ada")
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(tmp_path / "cache"),
        }
    }
    set_rates(settings, token="2/minute")
    ok(ada.get("/api/v1/me"))
    ok(ada.get("/api/v1/me"))
    assert_rate_limited(ada.get("/api/v1/me"))


def test_a_cache_outage_lifts_the_limits_instead_of_failing_requests(client_for, settings) -> None:
    ada = client_for("ada")
    set_rates(settings, token="1/minute")
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens there
        }
    }
    for _ in range(3):
        ok(ada.get("/api/v1/me"))


def test_a_limit_set_to_none_is_lifted(client_for, settings) -> None:
    ada = client_for("ada")
    set_rates(settings, token=None)
    for _ in range(50):
        ok(ada.get("/api/v1/me"))


@pytest.mark.parametrize(
    ("environment", "expected"),
    [
        ({}, {"token": "30000/minute", "login_username": "20/minute", "login": "600/minute"}),
        (
            {"FACETS_RATE_TOKEN": "5/second", "FACETS_RATE_ANON": "off"},
            {"token": "5/second", "anon": None},
        ),
        (
            {"FACETS_RATE_LIMITS": "off"},
            dict.fromkeys(["token", "anon", "login", "login_username", "register"]),
        ),
    ],
)
def test_rates_come_from_the_environment(environment, expected) -> None:
    code = (
        "import json, django; django.setup()\n"
        "from django.conf import settings\n"
        "print(json.dumps(settings.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']))\n"
    )
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("FACETS_RATE", "AUTH_THROTTLE"))
    }
    env = {**clean, "DJANGO_SETTINGS_MODULE": "config.settings", **environment}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    rates = json.loads(out.stdout)
    for scope, rate in expected.items():
        assert rates[scope] == rate, scope


def test_a_malformed_rate_stops_the_start_up() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "FACETS_RATE_TOKEN": "lots"}
    run = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode != 0
    assert "FACETS_RATE_TOKEN='lots'" in run.stderr


# --- the schema -------------------------------------------------------------


def test_schema_describes_tokens_scopes_and_rate_limits(anon) -> None:
    schema = ok(anon.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json"))
    paths = schema["paths"]
    assert {"get", "post"} <= set(paths["/api/v1/tokens"])
    assert "204" in paths["/api/v1/tokens/{token_id}"]["delete"]["responses"]
    act = paths["/api/v1/games/{game_id}/actions"]["post"]
    assert "games:play" in act["description"]
    assert {"401", "403", "429"} <= set(act["responses"])
    assert "Retry-After" in act["responses"]["429"]["headers"]
    assert "tokens:manage" in paths["/api/v1/tokens"]["post"]["description"]
    login_responses = paths["/api/v1/auth/login"]["post"]["responses"]
    assert "429" in login_responses and "403" not in login_responses
    created = schema["components"]["schemas"]["TokenCreated"]
    assert "token" in created["properties"]
    scopes = schema["components"]["schemas"]["TokenCreateRequest"]["properties"]["scopes"]
    grantable = scopes["items"]["$ref"].rsplit("/", 1)[-1]
    assert schema["components"]["schemas"][grantable]["enum"] == [
        "games:read",
        "games:play",
        "webhooks:manage",
    ]
