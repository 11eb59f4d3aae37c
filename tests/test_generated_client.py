"""A client generated from the schema plays a game against a live server.

The schema is dumped as ``manage.py spectacular --file`` does it, a Python
client is generated from it with openapi-python-client (as a client author
would, docs/api.md "Generating a client"), imported, and used alone, with no
hand-written HTTP, to register, open and join a game, read legal actions,
play moves, and read the log, the state and the verification, asserting on
the typed results. Dice rolls and bot moves are run between moves from the
task queue, as a worker would.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from django.core.management import call_command

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)

PACKAGE = "facets_client"


@pytest.fixture(scope="module")
def client_package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """Generates the client once for this module and imports it."""
    root = tmp_path_factory.mktemp("generated")
    schema_file = root / "schema.yaml"
    call_command("spectacular", file=str(schema_file), validate=True, fail_on_warn=True)
    config = root / "config.yaml"
    # No post hooks: formatting the generated code (ruff) is not needed to run it.
    config.write_text("post_hooks: []\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "openapi_python_client",
            "generate",
            "--path",
            str(schema_file),
            "--meta",
            "none",
            "--output-path",
            str(root / PACKAGE),
            "--config",
            str(config),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def _module(package: ModuleType, name: str) -> Any:
    return importlib.import_module(f"{package.__name__}.{name}")


@pytest.fixture
def open_clients() -> Iterator[list[Any]]:
    """Generated clients to close after the test: a kept-alive connection
    would keep a server thread, and its database session, alive."""
    clients: list[Any] = []
    yield clients
    for client in clients:
        client.get_httpx_client().close()


def test_a_generated_client_plays_a_game(
    client_package: ModuleType, live_server: Any, task_queue: Any, open_clients: list[Any]
) -> None:
    api = lambda name: _module(client_package, f"api.{name}")  # noqa: E731
    models = _module(client_package, "models")
    anonymous = client_package.Client(base_url=live_server.url, raise_on_unexpected_status=True)
    open_clients.append(anonymous)

    def sign_up(username: str) -> Any:
        credentials = models.CredentialsRequest(username=username, password=PASSWORD)
        user = api("accounts.auth_register").sync(client=anonymous, body=credentials)
        assert isinstance(user, models.User) and user.username == username
        token = api("accounts.auth_login").sync(client=anonymous, body=credentials)
        assert isinstance(token, models.Token) and token.token_type == "Bearer"
        client = client_package.AuthenticatedClient(
            base_url=live_server.url, token=token.token, raise_on_unexpected_status=True
        )
        open_clients.append(client)
        return client

    ada, bob = sign_up("ada"), sign_up("bob")
    me = api("accounts.me_retrieve").sync(client=ada)
    assert isinstance(me, models.User) and me.username == "ada"

    rulesets = api("rulesets.rulesets_list").sync(client=anonymous)
    assert "diamants" in [r.slug for r in rulesets]

    table = api("games.games_create").sync(
        client=ada,
        body=models.GameCreateRequest(ruleset="diamants", num_seats=2, turn_timeout=3600),
    )
    assert isinstance(table, models.Game)
    assert table.status == models.GameStatus.OPEN and table.your_seat == 0
    listed = api("games.games_list").sync(client=bob, open_=True)
    assert isinstance(listed, models.PaginatedGameSummaryList)
    assert table.id in [g.id for g in listed.results]

    joined = api("lobby.games_join").sync(client=bob, game_id=table.id)
    assert isinstance(joined, models.Game) and joined.your_seat == 1
    assert joined.status == models.GameStatus.ACTIVE
    task_queue.drain()

    # A refused action comes back as the typed error, and writes nothing.
    refused = api("play.games_submit_action").sync(
        client=ada,
        game_id=table.id,
        body=models.ActionRequest(action=models.GameAction.from_dict({"type": "no_such_action"})),
    )
    assert isinstance(refused, models.ErrorResponse)
    assert refused.error.code in {"illegal_action", "not_your_turn"}

    moves = _play(api, models, {"ada": ada, "bob": bob}, table.id, task_queue, moves=6)
    assert moves >= 6

    game = api("games.games_retrieve").sync(client=ada, game_id=table.id)
    assert isinstance(game, models.Game) and game.seq > joined.seq
    page = api("history.games_events").sync(client=ada, game_id=table.id, after=0, limit=1000)
    assert isinstance(page, models.EventPage) and page.last_seq == game.seq
    assert [e.seq for e in page.events] == list(range(1, game.seq + 1))
    assert not page.has_more
    state = api("history.games_state").sync(client=ada, game_id=table.id, at=1)
    assert isinstance(state, models.State) and state.seq == 1 and state.your_seat == 0
    check = api("history.games_verify").sync(client=anonymous, game_id=table.id)
    assert isinstance(check, models.Verification)
    assert check.chain_ok and check.projection_matches and check.events == game.seq

    # The example in docs/api.md, as printed there, plays a move.
    mover = {0: ada, 1: bob}[game.to_act[0].seat]
    _run_docs_example(live_server.url, mover.token, table.id)
    task_queue.drain()
    after = api("games.games_retrieve").sync(client=ada, game_id=table.id)
    assert after.seq > game.seq

    # Polling with the ETag: an unchanged game answers 304 with no body.
    first = api("games.games_retrieve").sync_detailed(client=ada, game_id=table.id)
    again = api("games.games_retrieve").sync_detailed(
        client=ada, game_id=table.id, if_none_match=first.headers["ETag"]
    )
    assert first.status_code == 200 and again.status_code == 304 and again.parsed is None


def _run_docs_example(base_url: str, token: str, game_id: int) -> None:
    """Runs docs/api.md's "Playing a move" code with the test's server, token and game."""
    guide = (Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text()
    section = guide[guide.index("## Generating a client") :]
    code = section[section.index("```python\n") + len("```python\n") :]
    code = code[: code.index("```")]
    for printed, actual in [
        ('"http://127.0.0.1:8000"', repr(base_url)),
        ('"<your token>"', repr(token)),
        ("game_id = 1\n", f"game_id = {game_id}\n"),
    ]:
        assert printed in code, printed
        code = code.replace(printed, actual)
    namespace: dict[str, Any] = {}
    try:
        exec(compile(code, "docs/api.md", "exec"), namespace)
    finally:
        if "client" in namespace:
            namespace["client"].get_httpx_client().close()


def _play(
    api: Any, models: Any, players: dict[str, Any], game_id: int, task_queue: Any, *, moves: int
) -> int:
    """Whoever may act plays the first legal action, until ``moves`` were made
    or the game ended. Returns the number of moves made."""
    made = 0
    for _ in range(50):
        for client in players.values():
            legal = api("play.games_legal_actions").sync(client=client, game_id=game_id)
            assert isinstance(legal, models.LegalActions)
            if not legal.actions:
                continue
            result = api("play.games_submit_action").sync(
                client=client,
                game_id=game_id,
                body=models.ActionRequest(action=legal.actions[0], expected_seq=legal.seq),
            )
            assert isinstance(result, models.ActionResult), result
            assert result.seq > legal.seq and result.events
            assert all(isinstance(e, models.Event) for e in result.events)
            made += 1
            task_queue.drain()
        status = api("games.games_retrieve").sync(client=players["ada"], game_id=game_id).status
        if made >= moves or status == models.GameStatus.FINISHED:
            break
    return made
