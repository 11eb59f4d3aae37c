"""Accounts through HTTP: register, log in, /me, log out, token storage."""

from __future__ import annotations

import hashlib

import pytest
from rest_framework.test import APIClient

from accounts.models import ApiToken
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def register(client: APIClient, username: str, password: str = PASSWORD):
    return client.post(
        "/api/v1/auth/register", {"username": username, "password": password}, format="json"
    )


def login(client: APIClient, username: str, password: str = PASSWORD):
    return client.post(
        "/api/v1/auth/login", {"username": username, "password": password}, format="json"
    )


def test_register_login_me_logout_round_trip(anon: APIClient) -> None:
    assert register(anon, "ada").status_code == 201
    token = login(anon, "ada").json()["token"]
    anon.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    me = anon.get("/api/v1/me")
    assert me.status_code == 200 and me.json()["username"] == "ada"
    assert anon.post("/api/v1/auth/logout").status_code == 204
    after = anon.get("/api/v1/me")
    assert after.status_code == 401
    assert after.json()["error"]["code"] == "invalid_token"


def test_tokens_are_stored_only_as_hashes(anon: APIClient) -> None:
    register(anon, "grace")
    token = login(anon, "grace").json()["token"]
    stored = ApiToken.objects.get()
    assert stored.key_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in {stored.key_hash, stored.prefix}


@pytest.mark.parametrize("password", ["short", "password123", "12345678901"])
def test_weak_passwords_are_refused_with_the_validation_error_shape(
    anon: APIClient, password: str
) -> None:
    response = register(anon, "linus", password)
    assert response.status_code == 400
    body = response.json()["error"]
    assert body["code"] == "validation_error"
    assert "password" in body["details"]["fields"]


def test_duplicate_username_is_a_conflict_case_insensitively(anon: APIClient) -> None:
    register(anon, "Alan")
    response = register(anon, "alan")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "username_taken"


def test_wrong_password_is_refused(anon: APIClient) -> None:
    register(anon, "edsger")
    response = login(anon, "edsger", "not-the-password")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_credentials"


@pytest.mark.parametrize("header", ["Bearer", "Bearer a b", "Bearer nonsense"])
def test_bad_authorization_headers_get_401_not_500(anon: APIClient, header: str) -> None:
    response = anon.get("/api/v1/me", HTTP_AUTHORIZATION=header)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_token"


def test_me_without_a_token_says_not_authenticated(anon: APIClient) -> None:
    response = anon.get("/api/v1/me")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


def test_malformed_json_is_a_400_in_the_error_shape(anon: APIClient) -> None:
    response = anon.post("/api/v1/auth/register", "{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "malformed_request"


def test_unknown_url_gets_the_error_shape(anon: APIClient) -> None:
    response = anon.get("/api/v1/nothing-here")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_a_disallowed_host_gets_a_json_400(anon, settings) -> None:
    settings.ALLOWED_HOSTS = ["games.example.org"]
    response = anon.get("/api/v1/rulesets", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_request"
