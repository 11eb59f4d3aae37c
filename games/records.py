"""Game records: their shape, and the checks that verify one.

A record (``GET /games/{id}/record``) is one JSON document holding a game's
ruleset and rules version, options, players, the whole event log with hashes
and causes, the seed commitment and, once the game is finished, the seed. The
same checks run on a live game's record and on an uploaded one:

1. ``hash_chain``: every event's SHA-256 over the previous hash and its
   canonical JSON (``store.event_hash``);
2. ``seed_commitment``: SHA-256 of the revealed seed is the commitment the
   game published at creation;
3. ``draws``: every recorded draw recomputed from the seed and the HMAC
   counter, counters consecutive from 0, rejections included;
4. ``reexecution`` (server only): each recorded ruleset call (setup, an
   action, an automatic step) re-run on the state before it with its
   recorded draws must produce exactly the stored events, which ties every
   roll in a payload to the seed.

``games/verify_record.py`` re-implements 1-3 with the standard library alone.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from typing import Any

from . import store
from .randomness import ReplayMismatch, ReplayRng, hmac_bits
from .rules import registry
from .rules.base import Event as RuleEvent
from .rules.base import Ruleset, fold

RECORD_FORMAT = "facets-record"
RECORD_VERSION = 1
MAX_EVENTS = 200_000
MAX_PLAYERS = 12
CAUSES = ("setup", "action", "auto", "forced", "system")
_HEX64 = re.compile(r"[0-9a-f]{64}")


class RecordInvalid(ValueError):
    """A record that is not a well-formed facets-record; ``errors`` maps
    a JSON path to what is wrong there."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors


# --- shape ----------------------------------------------------------------------


def _is_int(value: Any) -> bool:
    """A JSON integer (``True`` is an int to Python, not to JSON)."""
    return isinstance(value, int) and not isinstance(value, bool)


def validate(record: Any) -> dict[str, Any]:
    """Check a complete record's shape (not its truth); raise RecordInvalid."""
    errors: dict[str, str] = {}
    if not isinstance(record, dict):
        raise RecordInvalid({"": "a record is a JSON object"})
    try:
        # Strict JSON: no NaN or infinity (1e400 parses as one) anywhere.
        text = json.dumps(record, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (ValueError, TypeError, RecursionError) as exc:
        raise RecordInvalid({"": f"not storable as strict JSON: {exc}"}) from exc
    if "\\u0000" in text:
        # No stored JSON (PostgreSQL jsonb) can hold a NUL character.
        raise RecordInvalid({"": "a record holds no NUL character"})
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise RecordInvalid({"": "a record is valid UTF-8 (no lone surrogates)"}) from exc
    if record.get("format") != RECORD_FORMAT:
        errors["format"] = f"must be {RECORD_FORMAT!r}"
    if record.get("version") != RECORD_VERSION:
        errors["version"] = f"must be {RECORD_VERSION}"
    if record.get("complete") is not True:
        errors["complete"] = "only a finished game's complete record can be verified"
    if not _is_int(record.get("id")):
        errors["id"] = "the game's id, an integer"
    ruleset, version = record.get("ruleset"), record.get("rules_version")
    if not isinstance(ruleset, str) or not _is_int(version):
        errors["ruleset"] = "a ruleset slug and an integer rules_version"
    else:
        try:
            registry.get(ruleset, version)
        except (registry.UnknownRuleset, ImportError):
            errors["ruleset"] = f"unknown ruleset {ruleset!r} version {version}"
    if not isinstance(record.get("options"), dict):
        errors["options"] = "an object"
    players = record.get("players")
    if not isinstance(players, list) or not 1 <= len(players) <= MAX_PLAYERS:
        errors["players"] = f"a list of 1 to {MAX_PLAYERS} players"
    else:
        for i, player in enumerate(players):
            if not isinstance(player, dict) or player.get("seat") != i:
                errors[f"players[{i}]"] = f"an object with seat {i}"
    for key in ("seed_commitment", "seed"):
        value = record.get(key)
        if value is not None and not (isinstance(value, str) and _HEX64.fullmatch(value)):
            errors[key] = "null or 64 lowercase hex digits"
    if record.get("seed") is not None and record.get("seed_commitment") is None:
        errors["seed_commitment"] = "a record with a seed needs its commitment"
    counter = record.get("rng_counter")
    if record.get("seed") is not None and not (
        isinstance(counter, int) and not isinstance(counter, bool) and counter >= 0
    ):
        errors["rng_counter"] = "with a seed: the number of HMAC counters used"
    elif counter is not None and not _is_int(counter):
        errors["rng_counter"] = "null or an integer"
    events = record.get("events")
    if not isinstance(events, list):
        errors["events"] = "a list"
    elif len(events) > MAX_EVENTS:
        errors["events"] = f"at most {MAX_EVENTS} events"
    else:
        for i, event in enumerate(events):
            problem = _event_problem(event)
            if problem:
                errors[f"events[{i}]"] = problem
                break
    if errors:
        raise RecordInvalid(errors)
    return record


def _event_problem(event: Any) -> str | None:
    if not isinstance(event, dict):
        return "an object"
    if not _is_int(event.get("seq")):
        return "seq: an integer"
    if not isinstance(event.get("type"), str):
        return "type: a string"
    if event.get("actor") is not None and not _is_int(event.get("actor")):
        return "actor: null or an integer"
    if not isinstance(event.get("automatic"), bool):
        return "automatic: a boolean"
    if not isinstance(event.get("payload"), dict):
        return "payload: an object"
    if not isinstance(event.get("created_at"), str) or not isinstance(event.get("hash"), str):
        return "created_at and hash: strings"
    cause = event.get("cause")
    if cause is None:
        return None
    if not isinstance(cause, dict) or cause.get("by") not in CAUSES:
        return f"cause: null or an object with 'by' in {list(CAUSES)}"
    draws = cause.get("draws")
    if not isinstance(draws, list) or not all(
        isinstance(d, list)
        and len(d) == 2
        and all(_is_int(x) for x in d)
        and d[0] >= 1
        and d[1] >= 0
        and d[0] < 1 << 256
        for d in draws
    ):
        return "cause.draws: a list of [n >= 1, value >= 0] integer pairs"
    if cause["by"] in ("action", "auto", "forced") and not (
        _is_int(cause.get("seat")) and isinstance(cause.get("action"), dict)
    ):
        return "cause: an integer seat and an action object"
    return None


# --- checks ---------------------------------------------------------------------


def _check(name: str, ok: bool, seq: int | None = None, message: str = "") -> dict[str, Any]:
    return {"check": name, "ok": ok, "seq": seq, "message": message or ("ok" if ok else "")}


def check_chain(record: dict[str, Any]) -> dict[str, Any]:
    previous = store.GENESIS_HASH
    for expected_seq, event in enumerate(record["events"], start=1):
        if event["seq"] != expected_seq:
            return _check("hash_chain", False, event["seq"], f"expected seq {expected_seq} here")
        digest = store.event_hash(
            previous_hash=previous,
            game_id=record["id"],
            seq=event["seq"],
            type=event["type"],
            actor=event["actor"],
            automatic=event["automatic"],
            payload=event["payload"],
            created_at=event["created_at"],
            cause=event.get("cause"),
        )
        if digest != event["hash"]:
            return _check(
                "hash_chain", False, event["seq"], f"event {event['seq']}: hash does not match"
            )
        previous = digest
    return _check("hash_chain", True, message=f"{len(record['events'])} events chained")


def check_commitment(record: dict[str, Any]) -> dict[str, Any]:
    seed, commitment = record.get("seed"), record.get("seed_commitment")
    if seed is None or commitment is None:
        return _check("seed_commitment", False, message="the record holds no seed")
    if not hmac.compare_digest(hashlib.sha256(bytes.fromhex(seed)).hexdigest(), commitment):
        return _check("seed_commitment", False, message="sha256(seed) is not the commitment")
    return _check("seed_commitment", True, message="sha256(seed) matches the commitment")


def check_draws(record: dict[str, Any]) -> dict[str, Any]:
    seed = bytes.fromhex(record["seed"])
    counter = 0
    total = 0
    for event in record["events"]:
        cause = event.get("cause")
        if cause is None:
            continue
        for index, (n, value) in enumerate(cause["draws"]):
            bits = (n - 1).bit_length()
            while True:
                drawn = hmac_bits(seed, counter, bits)
                counter += 1
                if drawn < n:
                    break
            if drawn != value:
                return _check(
                    "draws",
                    False,
                    event["seq"],
                    f"event {event['seq']}, draw {index}: the seed gives {drawn} below {n}, "
                    f"the record says {value}",
                )
            total += 1
    expected = record.get("rng_counter")
    if expected is not None and expected != counter:
        return _check(
            "draws", False, None, f"the draws use {counter} counters, the record says {expected}"
        )
    return _check("draws", True, message=f"{total} draws recomputed from the seed")


def check_reexecution(record: dict[str, Any]) -> dict[str, Any]:
    rules = registry.get(record["ruleset"], record["rules_version"])
    num_players = len(record["players"])
    try:
        accepted = (
            rules.MIN_PLAYERS <= num_players <= rules.MAX_PLAYERS
            and rules.normalize_options(dict(record["options"]), num_players) == record["options"]
        )
    except Exception:  # the ruleset refusing options any way at all
        accepted = False
    if not accepted:
        return _check("reexecution", False, None, "the options or players are not a game's")
    events = record["events"]
    state: dict[str, Any] = {}
    calls = 0
    i = 0
    while i < len(events):
        event = events[i]
        if "." in event["type"]:
            i += 1  # the platform's own events (resignations...): no ruleset call
            continue
        cause = event.get("cause")
        if cause is None:
            return _check("reexecution", False, event["seq"], "no recorded call produced it")
        try:
            produced = _rerun(rules, record, state, cause, first=i == 0)
        except ReplayMismatch as exc:
            return _check("reexecution", False, event["seq"], f"event {event['seq']}: {exc}")
        except Exception as exc:  # a tampered record can make the rules fail any way
            return _check(
                "reexecution",
                False,
                event["seq"],
                f"event {event['seq']}: the rules refused the recorded call ({exc!r:.200})",
            )
        stored = events[i : i + len(produced)]
        if len(stored) != len(produced) or any(
            store.normalize(_as_rule_event(s)) != p or (k and s.get("cause") is not None)
            for k, (s, p) in enumerate(zip(stored, produced, strict=True))
        ):
            return _check(
                "reexecution",
                False,
                event["seq"],
                f"event {event['seq']}: re-running the recorded {cause['by']} call "
                "does not give the stored events",
            )
        state = fold(rules, produced, state)
        i += len(produced)
        calls += 1
    return _check("reexecution", True, message=f"{calls} ruleset calls re-executed")


def _as_rule_event(event: dict[str, Any]) -> RuleEvent:
    return {"type": event["type"], "actor": event["actor"], **event["payload"]}


def _rerun(
    rules: Ruleset,
    record: dict[str, Any],
    state: dict[str, Any],
    cause: dict[str, Any],
    *,
    first: bool,
) -> list[RuleEvent]:
    rng = ReplayRng(cause["draws"])
    by = cause["by"]
    if by == "setup":
        if not first:
            raise ReplayMismatch("setup is only the first call")
        produced = rules.setup(len(record["players"]), dict(record["options"]), rng)
    elif by == "system":
        produced = rules.system_step(state, rng) or []
    else:
        produced = rules.decide(state, cause["seat"], dict(cause["action"]), rng)
    if not rng.exhausted:
        raise ReplayMismatch("the call drew fewer than its recorded draws")
    if not produced:
        raise ReplayMismatch("the call produced no event")
    return [store.normalize(e) for e in produced]


def verify(record: dict[str, Any], *, reexecute: bool = True) -> dict[str, Any]:
    """Run every check on a validated, complete record."""
    checks = [check_chain(record)]
    fair = record.get("seed_commitment") is not None
    if fair:
        checks.append(check_commitment(record))
        if checks[-1]["ok"]:
            checks.append(check_draws(record))
        if reexecute:
            checks.append(check_reexecution(record))
    events = record["events"]
    return summary(
        checks,
        events=len(events),
        complete=True,
        fair=fair,
        last_hash=events[-1]["hash"] if events else "",
    )


def summary(
    checks: list[dict[str, Any]],
    *,
    events: int,
    complete: bool,
    fair: bool,
    last_hash: str | None,
    projection_matches: bool | None = None,
) -> dict[str, Any]:
    chain = next(c for c in checks if c["check"] == "hash_chain")
    return {
        "ok": all(c["ok"] for c in checks) and projection_matches is not False,
        "complete": complete,
        "provably_fair": fair,
        "events": events,
        "chain_ok": chain["ok"],
        "first_bad_seq": chain["seq"],
        "projection_matches": projection_matches,
        "last_hash": last_hash,
        "checks": checks,
    }
