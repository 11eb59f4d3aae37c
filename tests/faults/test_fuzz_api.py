"""Random and malformed requests to every POST endpoint, through HTTP.

The answer is always a 4xx in the one error shape (or, where the random
body happens to be valid, a success), never a 500; and a refused action
leaves the game exactly as it was (seq, event count, projection)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import Event, Game
from games.rules import registry
from tests.faults.support import is_error_shape
from tests.faults.test_fuzz_rules import junk_json, mutated
from tests.helpers import ok, open_table

# Transactional: the tasks services send on commit (dice, bots) must run.
pytestmark = pytest.mark.django_db(transaction=True)

api_settings = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def assert_refused_properly(response: Any) -> dict[str, Any]:
    assert response.status_code != 500, response.content[:500]
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:500])
    body = response.json()
    assert is_error_shape(body), body
    return body


def snapshot(game_id: int) -> tuple[Any, ...]:
    game = Game.objects.get(pk=game_id)
    return game.seq, Event.objects.filter(game_id=game_id).count(), game.state, game.last_hash


def game_where_ada_must_act(ada: Any, slug: str, task_queue: Any) -> int:
    rules = registry.get(slug)
    table = open_table(ada, ruleset=slug, num_seats=min(2, rules.MAX_PLAYERS))
    if rules.MAX_PLAYERS > 1:
        ok(ada.post(f"/api/v1/games/{table['id']}/bots"))
    task_queue.drain()  # rolls and bot moves until it is ada's turn
    assert ok(ada.get(f"/api/v1/games/{table['id']}/legal-actions"))["actions"]
    return table["id"]


@pytest.mark.parametrize("slug", registry.slugs())
def test_random_action_bodies_are_refused_cleanly_and_write_nothing(
    slug: str, client_for, task_queue
) -> None:
    ada = client_for("ada")
    game_id = game_where_ada_must_act(ada, slug, task_queue)
    offered = ok(ada.get(f"/api/v1/games/{game_id}/legal-actions"))["actions"]
    seq = Game.objects.get(pk=game_id).seq
    actions = junk_json | st.sampled_from(offered).flatmap(mutated)
    bodies = (
        st.fixed_dictionaries(
            {"action": actions},
            optional={"expected_seq": st.sampled_from([seq, seq - 1, -1, 2**70]) | junk_json},
        )
        | junk_json
    )

    @api_settings
    @given(bodies)
    def post(body: Any) -> None:
        before = snapshot(game_id)
        response = ada.post(f"/api/v1/games/{game_id}/actions", body, format="json")
        if response.status_code == 201:  # a mutated action that is legal after all
            assert Game.objects.get(pk=game_id).seq > before[0]
            return
        assert_refused_properly(response)
        assert snapshot(game_id) == before

    post()


MALFORMED_BODIES: list[tuple[bytes, str]] = [
    (b"{", "application/json"),
    (b"", "application/json"),
    (b"null", "application/json"),
    (b"[]", "application/json"),
    (b'"setup"', "application/json"),
    (b'{"action": NaN}', "application/json"),
    (b'{"action": {"type": "setup", "stars": Infinity}}', "application/json"),
    (
        b'{"action": {"type": "setup", "stars": true}, "expected_seq": 1e999}',
        "application/json",
    ),
    (b'{"action": {"type": "setup"' + b', "x": 1' * 5000 + b"}}", "application/json"),
    (b'{"action": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "application/json"),
    (b'{"action": ' + b'{"a":' * 5000 + b"1" + b"}" * 5000 + b"}", "application/json"),
    (b'{"action": {"type": "\xff\xfe"}}', "application/json"),
    (b'{"action": {"type": "\\ud800"}}', "application/json"),
    (b'{"action": {"type": "setup", "stars": "\\u0000"}}', "application/json"),
    (b"action=setup", "application/x-www-form-urlencoded"),
    (b"<action/>", "application/xml"),
    (b"\x00\x01\x02", "application/octet-stream"),
]


def test_malformed_bytes_are_refused_cleanly_and_write_nothing(client_for, task_queue) -> None:
    """Broken JSON, JSON nested deeper than Python's decoder goes (a 500
    before ``config/parsers.py``), non-JSON content types."""
    ada = client_for("ada")
    game_id = game_where_ada_must_act(ada, "brilliant", task_queue)
    before = snapshot(game_id)
    for raw, content_type in MALFORMED_BODIES:
        response = ada.generic("POST", f"/api/v1/games/{game_id}/actions", raw, content_type)
        assert response.status_code != 500, raw[:60]
        assert_refused_properly(response)
        assert snapshot(game_id) == before


def test_game_ids_out_of_range_or_not_numbers_are_404(client_for) -> None:
    ada = client_for("ada")
    body = {"action": {"type": "pass"}}  # valid, so only the id can be wrong
    for game_id in ("0", "99999999999999999999999", "-1", "1e3", "%00"):
        for path in ("actions", "join", "resign", "events", "state", "verify", "legal-actions"):
            response = ada.post(f"/api/v1/games/{game_id}/{path}", body, format="json")
            assert response.status_code in (404, 405), (game_id, path, response.status_code)
            assert is_error_shape(response.json())


def test_random_bodies_to_every_other_post_endpoint_are_never_a_500(
    client_for, anon, task_queue
) -> None:
    ada, outsider = client_for("ada"), client_for("outsider")
    game_id = game_where_ada_must_act(ada, "brilliant", task_queue)
    # Each endpoint with a caller for whom no body can succeed (the game has
    # started; the outsider has no seat), so every answer must be a refusal.
    refused_whatever_the_body = [
        (ada, f"/api/v1/games/{game_id}/join"),
        (ada, f"/api/v1/games/{game_id}/leave"),
        (ada, f"/api/v1/games/{game_id}/bots"),
        (ada, f"/api/v1/games/{game_id}/start"),
        (outsider, f"/api/v1/games/{game_id}/resign"),
        (outsider, f"/api/v1/games/{game_id}/actions"),
        (anon, f"/api/v1/games/{game_id}/actions"),
        (anon, "/api/v1/games"),
        (anon, "/api/v1/auth/logout"),
    ]
    may_succeed = [
        (ada, "/api/v1/games"),
        (anon, "/api/v1/auth/register"),
        (anon, "/api/v1/auth/login"),
    ]
    game_fields = st.fixed_dictionaries(
        {},
        optional={
            "ruleset": st.sampled_from(registry.slugs()) | junk_json,
            "num_seats": st.integers(-2, 14) | junk_json,
            "options": junk_json,
            "turn_timeout": st.sampled_from([0, 9, 10, 10**12]) | junk_json,
            "username": st.text(max_size=40) | junk_json,
            "password": st.text(max_size=40) | junk_json,
            "count": st.integers(-1, 13) | junk_json,
        },
    )

    @api_settings
    @given(
        st.integers(0, len(refused_whatever_the_body) + len(may_succeed) - 1),
        game_fields | junk_json,
    )
    def post(which: int, body: Any) -> None:
        before = snapshot(game_id)
        if which < len(refused_whatever_the_body):
            client, path = refused_whatever_the_body[which]
            assert_refused_properly(client.post(path, body, format="json"))
            assert snapshot(game_id) == before
        else:
            client, path = may_succeed[which - len(refused_whatever_the_body)]
            response = client.post(path, body, format="json")
            if response.status_code >= 300:
                assert_refused_properly(response)

    post()
