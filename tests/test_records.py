"""Game records, verification (server and standalone), the seed kept secret
until the end, import, the NDJSON export and spectators: all over HTTP."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import records
from games import verify_record as standalone
from games.models import Event, Game, ImportedRecord
from tests.helpers import act, error_code, game, legal, ok, open_table

pytestmark = pytest.mark.django_db(transaction=True)

VERIFIER = Path(__file__).resolve().parent.parent / "games" / "verify_record.py"
RULESETS = {
    "brilliant": (2, {}),
    "brikks": (2, {}),
    "brillance": (2, {}),
    "diamants": (2, {}),
}


def play_with_bots(
    client: Any,
    task_queue: Any,
    ruleset: str,
    *,
    num_seats: int = 2,
    options: dict[str, Any] | None = None,
    public: bool = True,
    after_each_move: Any = None,
) -> int:
    """One player and bots, to the end; ``after_each_move(game_id)`` runs
    between moves (while the game is still going)."""
    table = ok(
        client.post(
            "/api/v1/games",
            {
                "ruleset": ruleset,
                "num_seats": num_seats,
                "options": options or {},
                "public": public,
            },
            format="json",
        ),
        201,
    )
    game_id = table["id"]
    if num_seats > 1:
        ok(client.post(f"/api/v1/games/{game_id}/bots"))
    chooser = random.Random(5)
    for _ in range(5000):
        task_queue.drain()
        current = game(client, game_id)
        if current["status"] == "finished":
            return game_id
        if after_each_move is not None:
            after_each_move(game_id)
        if any(p["seat"] == 0 and p["must_act"] for p in current["players"]):
            ok(act(client, game_id, chooser.choice(legal(client, game_id))), 201)
    raise AssertionError("the game did not finish")


def record_of(client: Any, game_id: int) -> dict[str, Any]:
    return ok(client.get(f"/api/v1/games/{game_id}/record"))


def run_verifier(tmp_path: Path, record: Any, name: str = "record.json") -> tuple[int, str]:
    path = tmp_path / name
    path.write_text(record if isinstance(record, str) else json.dumps(record))
    done = subprocess.run(
        [sys.executable, "-I", str(VERIFIER), str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,  # away from the project: the verifier needs nothing of it
    )
    return done.returncode, done.stdout + done.stderr


def first_roll(record: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The index of the first event that drew something, and its cause."""
    for index, event in enumerate(record["events"]):
        if event["cause"] and event["cause"]["draws"]:
            return index, event["cause"]
    raise AssertionError("no draws in the record")


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_a_finished_game_verifies_on_the_server_and_standalone(
    client_for, task_queue, anon, tmp_path, ruleset
) -> None:
    ada = client_for("ada")
    num_seats, options = RULESETS[ruleset]
    game_id = play_with_bots(ada, task_queue, ruleset, num_seats=num_seats, options=options)

    report = ok(anon.get(f"/api/v1/games/{game_id}/verify"))
    assert report["ok"] and report["complete"] and report["provably_fair"], report
    assert [c["check"] for c in report["checks"]] == [
        "hash_chain",
        "seed_commitment",
        "draws",
        "reexecution",
    ]
    assert report["projection_matches"] and report["last_hash"]

    record = record_of(anon, game_id)
    stored = Game.objects.get(pk=game_id)
    assert record["complete"] and record["seed"] == stored.seed
    assert record["seed_commitment"] == ok(anon.get(f"/api/v1/games/{game_id}"))["seed_commitment"]
    assert record["rng_counter"] == stored.rng_counter > 0
    code, output = run_verifier(tmp_path, record)
    assert code == 0, output
    assert "VERIFIED" in output and "draws recomputed" in output


def test_altering_one_roll_fails_both_verifiers_and_names_the_seq(
    client_for, task_queue, anon, tmp_path
) -> None:
    ada = client_for("ada")
    game_id = play_with_bots(ada, task_queue, "diamants")
    record = record_of(anon, game_id)
    index, cause = first_roll(record)
    seq = record["events"][index]["seq"]

    # A draw changed: the chain breaks there and the seed no longer gives it.
    altered = copy.deepcopy(record)
    n, value = altered["events"][index]["cause"]["draws"][0]
    altered["events"][index]["cause"]["draws"][0][1] = (value + 1) % n
    code, output = run_verifier(tmp_path, altered)
    assert code == 1 and f"seq {seq}" in output, output

    # A die in a payload changed, hashes recomputed to hide it: the chain and
    # the draws still hold, but re-running the rules on the draws does not
    # give the stored event (server-side check, on import).
    forged = copy.deepcopy(record)
    rolled = next(
        e for e in forged["events"][index:] if e["type"] == "dice_rolled" and e["payload"]["dice"]
    )
    rolled["payload"]["dice"][0] = rolled["payload"]["dice"][0] % 6 + 1
    rehash(forged)
    code, output = run_verifier(tmp_path, forged)
    assert code == 0, "the standalone verifier has no rules: chain, seed and draws hold"
    imported = ok(ada.post("/api/v1/records", forged, format="json"), 201)
    verification = imported["verification"]
    assert not verification["ok"]
    failed = [c for c in verification["checks"] if not c["ok"]]
    assert [c["check"] for c in failed] == ["reexecution"]
    assert failed[0]["seq"] <= rolled["seq"]

    # The same roll changed without rehashing: the chain names the seq.
    tampered = copy.deepcopy(record)
    next(e for e in tampered["events"] if e["seq"] == rolled["seq"])["payload"]["dice"][0] = 9
    code, output = run_verifier(tmp_path, tampered)
    assert code == 1 and f"seq {rolled['seq']}" in output


def rehash(record: dict[str, Any]) -> None:
    from games import verify_record

    previous = ""
    for event in record["events"]:
        event["hash"] = previous = verify_record.event_hash(previous, record["id"], event)


def test_nothing_reveals_the_seed_draws_or_hashes_before_the_end(
    client_for, task_queue, anon
) -> None:
    ada = client_for("ada")
    seen: list[str] = []

    def every_read(game_id: int) -> None:
        if len(seen) % 7:  # every seventh step is enough and keeps the test short
            seen.append("")
            return
        for client in (ada, anon):
            for path in ("", "/state", "/events?limit=1000", "/record", "/verify"):
                response = client.get(f"/api/v1/games/{game_id}{path}")
                assert response.status_code in (200, 403), response.content
                seen.append(response.content.decode())
            seen.append(client.get("/api/v1/games?page_size=200").content.decode())
        seen.append(ada.get(f"/api/v1/games/{game_id}/legal-actions").content.decode())
        stored = Game.objects.get(pk=game_id)
        hashes = set(Event.objects.filter(game_id=game_id).values_list("hash", flat=True))
        for body in seen:
            assert stored.seed not in body
            assert '"draws"' not in body
            assert not any(h in body for h in hashes)
        seen[:] = [""] * len(seen)

    game_id = play_with_bots(ada, task_queue, "brillance", after_each_move=every_read)
    assert len(seen) > 10
    stored = Game.objects.get(pk=game_id)
    after = ok(anon.get(f"/api/v1/games/{game_id}"))
    assert after["seed"] == stored.seed
    events = ok(anon.get(f"/api/v1/games/{game_id}/events?limit=1000"))["events"]
    assert events[0]["hash"] and events[0]["cause"]["by"] == "setup"


def test_a_game_in_progress_gives_only_the_callers_view_as_record(client_for, task_queue) -> None:
    ada, bob = client_for("ada"), client_for("bob")
    table = open_table(ada, ruleset="brillance", num_seats=2)
    ok(bob.post(f"/api/v1/games/{table['id']}/join"))
    task_queue.drain()
    record = record_of(ada, table["id"])
    assert record["complete"] is False and record["seed"] is None and record["your_seat"] == 0
    assert record["seed_commitment"] and record["rng_counter"] is None
    assert all(e["hash"] is None and e["cause"] is None for e in record["events"])
    dealt = [e for e in record["events"] if e["type"] == "cards_dealt"]
    assert dealt and all("cards" not in e["payload"] for e in dealt if e["payload"]["seat"] == 1)
    report = ok(ada.get(f"/api/v1/games/{table['id']}/verify"))
    assert report["complete"] is False and report["ok"] and report["last_hash"] is None
    assert [c["check"] for c in report["checks"]] == ["hash_chain"]


def test_import_round_trip_and_verify(client_for, task_queue, anon) -> None:
    ada = client_for("ada")
    game_id = play_with_bots(ada, task_queue, "brikks")
    record = record_of(anon, game_id)
    imported = ok(ada.post("/api/v1/records", record, format="json"), 201)
    assert imported["verification"]["ok"], imported["verification"]
    assert imported["uploaded_by"] == "ada" and imported["record"] == record
    again = ok(anon.get(f"/api/v1/records/{imported['id']}"))
    assert again["record"] == record
    assert ok(anon.get(f"/api/v1/records/{imported['id']}/verify"))["ok"]
    # It is a record, not a game: nothing new to play.
    assert Game.objects.count() == 1
    assert error_code(anon.post("/api/v1/records", record, format="json"), 401)


@pytest.mark.parametrize(
    "body",
    [
        [],
        "text",
        {},
        {"format": "facets-record", "version": 1},
        {"format": "facets-record", "version": 1, "complete": False, "events": []},
    ],
)
def test_malformed_records_are_refused_with_details(client_for, body: Any) -> None:
    ada = client_for("ada")
    response = ada.post("/api/v1/records", body, format="json")
    assert error_code(response, 400) == "validation_error"
    assert response.json()["error"]["details"]["fields"]
    assert not ImportedRecord.objects.exists()


def test_the_verifier_is_downloadable_and_needs_only_the_standard_library(anon) -> None:
    response = anon.get("/api/v1/verifier.py")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/x-python")
    source = response.content.decode()
    assert source == VERIFIER.read_text()
    imported = {
        line.split()[1].split(".")[0]
        for line in source.splitlines()
        if line.startswith(("import ", "from "))
    }
    assert imported <= {"__future__", "hashlib", "hmac", "json", "sys", "typing"}


def test_the_ndjson_export_streams_a_users_finished_games_newest_first(
    client_for, task_queue, anon, tmp_path
) -> None:
    ada, bob = client_for("ada"), client_for("bob")
    first = play_with_bots(ada, task_queue, "diamants")
    second = play_with_bots(ada, task_queue, "brikks")
    private = play_with_bots(ada, task_queue, "diamants", public=False)
    open_table(ada, ruleset="brilliant", num_seats=2)  # not finished: not exported
    play_with_bots(bob, task_queue, "diamants")  # bob's, not ada's

    response = anon.get("/api/v1/users/ada/games")
    assert response.status_code == 200 and response["Content-Type"] == "application/x-ndjson"
    body = b"".join(response.streaming_content).decode()
    lines = [json.loads(line) for line in body.splitlines()]
    assert [r["id"] for r in lines] == [second, first]  # the private one is ada's business
    assert all(r["complete"] and r["seed"] for r in lines)
    mine = b"".join(ada.get("/api/v1/users/ada/games").streaming_content).decode()
    assert [json.loads(line)["id"] for line in mine.splitlines()] == [private, second, first]
    limited = b"".join(anon.get("/api/v1/users/ada/games?max=1").streaming_content)
    assert [json.loads(line)["id"] for line in limited.decode().splitlines()] == [second]
    later = Game.objects.get(pk=second).finished_at.isoformat().replace("+00:00", "Z")
    since = anon.get("/api/v1/users/ada/games", {"since": later})
    assert [json.loads(x)["id"] for x in b"".join(since.streaming_content).splitlines()] == [second]
    code, output = run_verifier(tmp_path, body, name="games.ndjson")
    assert code == 0 and output.count("VERIFIED") == 2, output
    assert error_code(anon.get("/api/v1/users/nobody/games"), 404) == "not_found"


def test_spectators_see_public_games_without_hidden_information(client_for, anon) -> None:
    ada, bob = client_for("ada"), client_for("bob")
    table = open_table(ada, ruleset="brillance", num_seats=2)
    ok(bob.post(f"/api/v1/games/{table['id']}/join"))
    watched = ok(anon.get(f"/api/v1/games/{table['id']}"))
    assert watched["your_seat"] is None and watched["public"] is True
    assert "hand" not in watched["state"] and watched["seed"] is None
    for event in ok(anon.get(f"/api/v1/games/{table['id']}/events"))["events"]:
        if event["type"] == "cards_dealt":
            assert "cards" not in event["payload"]
    assert ok(anon.get(f"/api/v1/games/{table['id']}/record"))["your_seat"] is None
    assert any(g["id"] == table["id"] for g in ok(anon.get("/api/v1/games"))["results"])


def test_a_private_game_does_not_exist_for_others(client_for, task_queue) -> None:
    ada, bob, eve = client_for("ada"), client_for("bob"), client_for("eve")
    response = ada.post(
        "/api/v1/games",
        {"ruleset": "diamants", "num_seats": 2, "public": False},
        format="json",
    )
    game_id = ok(response, 201)["id"]
    ok(bob.post(f"/api/v1/games/{game_id}/join"))  # whoever has the id is invited
    assert ok(bob.get(f"/api/v1/games/{game_id}"))["public"] is False
    for client in (eve, type(eve)()):
        for path in ("", "/state", "/events", "/record", "/verify", "/legal-actions"):
            response = client.get(f"/api/v1/games/{game_id}{path}")
            assert response.status_code in (401, 404), (path, response.status_code)
            if response.status_code == 404:
                assert response.json()["error"]["code"] == "not_found"
        listed = ok(client.get("/api/v1/games?page_size=200"))["results"]
        assert all(g["id"] != game_id for g in listed)
    assert any(g["id"] == game_id for g in ok(bob.get("/api/v1/games?mine=true"))["results"])


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63)
    | st.floats()
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def mutated(draw: Any, record: dict[str, Any]) -> Any:
    """The record with one value somewhere replaced, removed or nudged (or,
    now and then, any JSON value at all instead of a record)."""
    if draw(st.integers(0, 9)) == 0:
        return draw(JSON_VALUES)
    changed = copy.deepcopy(record)
    parent: Any = None
    key: Any = None
    node: Any = changed
    while isinstance(node, (dict, list)) and node and (parent is None or draw(st.booleans())):
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        parent, key = node, draw(st.sampled_from(keys))
        node = parent[key]
    if parent is None:
        return draw(JSON_VALUES)
    how = draw(st.sampled_from(["replace", "remove", "nudge"]))
    if how == "remove" and isinstance(parent, dict):
        del parent[key]
    elif how == "nudge" and isinstance(node, int) and not isinstance(node, bool):
        parent[key] = node + draw(st.sampled_from([-1, 1, 2**64]))
    else:
        parent[key] = draw(JSON_VALUES)
    return changed


def _same_meaning(value: Any) -> Any:
    """``value`` with every event's missing ``cause`` spelled out as null."""
    if isinstance(value, list) and all(isinstance(e, dict) and "seq" in e for e in value):
        return [{"cause": None, **event} for event in value]
    return value


def test_any_altered_record_is_refused_or_fails_verification_never_crashes(
    client_for, task_queue, anon
) -> None:
    ada = client_for("ada")
    record = record_of(anon, play_with_bots(ada, task_queue, "diamants"))
    assert records.verify(records.validate(copy.deepcopy(record)))["ok"]

    @settings(max_examples=300, deadline=None, database=None)
    @given(st.data())
    def in_process(data: st.DataObject) -> None:
        candidate = data.draw(mutated(record))
        try:
            valid = records.validate(candidate)
        except records.RecordInvalid as exc:
            assert exc.errors
            return
        report = records.verify(valid)
        assert isinstance(report["ok"], bool) and report["checks"]
        # The standalone verifier agrees with the server's first three checks.
        try:
            standalone.verify(copy.deepcopy(valid))
            standalone_ok = True
        except standalone.Failure:
            standalone_ok = False
        assert standalone_ok == all(
            c["ok"] for c in report["checks"] if c["check"] != "reexecution"
        ), report
        # Everything the hashes and the seed cover is tamper-evident.
        # (An event without "cause" means what "cause": null means.)
        covered = ("id", "events", "seed", "seed_commitment", "rng_counter")
        if any(_same_meaning(candidate.get(key)) != _same_meaning(record[key]) for key in covered):
            assert not report["ok"], report

    @settings(max_examples=40, deadline=None, database=None)
    @given(st.data())
    def over_http(data: st.DataObject) -> None:
        candidate = data.draw(mutated(record))
        body = json.dumps(candidate)  # NaN and infinities go as JSON's extensions
        response = ada.post("/api/v1/records", body, content_type="application/json")
        assert response.status_code in (201, 400), response.content[:500]
        if response.status_code == 400:
            error = response.json()["error"]
            assert error["code"] in ("validation_error", "malformed_request")

    in_process()
    over_http()
