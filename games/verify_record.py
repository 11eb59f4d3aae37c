#!/usr/bin/env python3
"""Verify a Facets game record without the server.

Usage::

    python verify_record.py record.json        # one record (GET /api/v1/games/{id}/record)
    python verify_record.py games.ndjson       # or one record per line (the NDJSON export)

Needs only the Python standard library (3.9+). Exit code 0 when every record
verifies, 1 when one does not (or cannot be read). For each record it checks:

1. the hash chain: each event's ``hash`` is SHA-256 over the previous hash
   (empty for the first event) and the event's canonical JSON (sorted keys,
   no spaces, UTF-8) of ``{game, seq, type, actor, automatic, payload,
   created_at}`` plus ``cause`` when the event has one;
2. the seed commitment: SHA-256 of the revealed seed's 32 bytes is the
   ``seed_commitment`` the game published when it was created;
3. every draw: ``randbelow(n)`` is HMAC-SHA256(key=seed, msg=the counter in
   ASCII decimal), top ``k`` bits (``k`` = bit length of ``n - 1``), accepted
   when below ``n``, else the next counter; counters run from 0 over the
   whole game, in event order, rejections included.

A payload altered together with recomputed hashes is caught by the server's
fourth check (re-running the rules on the recorded draws): import the record
with ``POST /api/v1/records`` for it. This file imports nothing from Facets.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from typing import Any

RECORD_FORMAT = "facets-record"


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def event_hash(previous_hash: str, game_id: int, event: dict) -> str:
    body = {
        "game": game_id,
        "seq": event["seq"],
        "type": event["type"],
        "actor": event["actor"],
        "automatic": event["automatic"],
        "payload": event["payload"],
        "created_at": event["created_at"],
    }
    if event.get("cause") is not None:
        body["cause"] = event["cause"]
    return hashlib.sha256((previous_hash + canonical_json(body)).encode("utf-8")).hexdigest()


def hmac_bits(seed: bytes, counter: int, bits: int) -> int:
    digest = hmac.new(seed, str(counter).encode("ascii"), hashlib.sha256).digest()
    return int.from_bytes(digest, "big") >> (256 - bits)


class Failure(Exception):
    pass


def check_chain(record: dict) -> str:
    previous = ""
    for expected_seq, event in enumerate(record["events"], start=1):
        if event["seq"] != expected_seq:
            raise Failure(f"hash chain: expected seq {expected_seq}, found seq {event['seq']}")
        digest = event_hash(previous, record["id"], event)
        if digest != event["hash"]:
            raise Failure(f"hash chain: event seq {event['seq']}: hash does not match")
        previous = digest
    return f"hash chain: {len(record['events'])} events chained"


def check_commitment(record: dict) -> str:
    seed = record.get("seed")
    if not seed:
        raise Failure("seed: the record holds no seed (is the game finished?)")
    if hashlib.sha256(bytes.fromhex(seed)).hexdigest() != record["seed_commitment"]:
        raise Failure("seed: sha256(seed) is not the published commitment")
    return "seed: sha256(seed) matches the commitment"


def check_draws(record: dict) -> str:
    seed = bytes.fromhex(record["seed"])
    counter = 0
    total = 0
    for event in record["events"]:
        cause = event.get("cause")
        if not cause:
            continue
        for index, (n, value) in enumerate(cause["draws"]):
            bits = (n - 1).bit_length()
            while True:
                drawn = hmac_bits(seed, counter, bits)
                counter += 1
                if drawn < n:
                    break
            if drawn != value:
                raise Failure(
                    f"draws: event seq {event['seq']}, draw {index}: the seed gives "
                    f"{drawn} (below {n}), the record says {value}"
                )
            total += 1
    expected = record.get("rng_counter")
    if expected != counter:
        raise Failure(f"draws: the draws use {counter} counters, the record says {expected}")
    return f"draws: {total} draws recomputed from the seed ({counter} HMAC counters)"


def verify(record: dict) -> list[str]:
    """Lines describing what was checked; raises Failure at the first failure."""
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise Failure(f"not a {RECORD_FORMAT} document")
    if record.get("complete") is not True:
        raise Failure("incomplete record: only a finished game's record can be verified")
    lines = [f"game {record['id']} ({record['ruleset']} v{record['rules_version']})"]
    try:
        lines.append(check_chain(record))
        if record.get("seed_commitment") is None:
            lines.append("no seed commitment: this game predates provably fair dice")
            return lines
        lines.append(check_commitment(record))
        lines.append(check_draws(record))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise Failure(f"malformed record: {exc!r}") from exc
    return lines


def read_records(path: str) -> list[Any]:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: python verify_record.py RECORD.json|GAMES.ndjson", file=sys.stderr)
        return 2
    try:
        records = read_records(argv[1])
    except (OSError, ValueError) as exc:
        print(f"FAILED: cannot read {argv[1]}: {exc}")
        return 1
    failed = 0
    for record in records:
        try:
            for line in verify(record):
                print(f"  ok  {line}")
            print("VERIFIED")
        except Failure as exc:
            print(f"FAILED: {exc}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
