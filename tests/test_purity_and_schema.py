"""Rules packages stay pure; the API documents itself offline."""

from __future__ import annotations

import subprocess
import sys

import pytest

from games.rules import registry


@pytest.mark.parametrize("slug", registry.slugs())
def test_rules_packages_import_without_django(slug: str) -> None:
    module = registry._RULESETS[slug][max(registry._RULESETS[slug])]
    code = (
        "import importlib, sys\n"
        f"importlib.import_module({module!r})\n"
        "assert 'django' not in sys.modules, 'a rules package imported django'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(_project_root()))


def _project_root():
    from pathlib import Path

    return Path(__file__).resolve().parent.parent


@pytest.mark.django_db
def test_openapi_schema_describes_every_endpoint(anon) -> None:
    response = anon.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    for path in [
        "/api/v1/games",
        "/api/v1/games/{game_id}/actions",
        "/api/v1/games/{game_id}/legal-actions",
        "/api/v1/games/{game_id}/events",
        "/api/v1/games/{game_id}/state",
        "/api/v1/rulesets",
        "/api/v1/games/{game_id}/record",
        "/api/v1/users/{username}/games",
        "/api/v1/records",
        "/api/v1/records/{record_id}/verify",
        "/api/v1/verifier.py",
        "/api/v1/auth/login",
        "/api/v1/me",
    ]:
        assert path in schema["paths"], path
    assert schema["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"


@pytest.mark.django_db
def test_interactive_docs_are_served_with_local_assets(anon) -> None:
    page = anon.get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "swagger-ui" in html
    assert "cdn." not in html and "unpkg" not in html


@pytest.mark.django_db
def test_browser_clients_on_other_sites_may_call_the_api(anon) -> None:
    response = anon.options(
        "/api/v1/rulesets",
        HTTP_ORIGIN="https://my-client.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type",
    )
    assert response["access-control-allow-origin"] == "*"
    assert "authorization" in response["access-control-allow-headers"].lower()
