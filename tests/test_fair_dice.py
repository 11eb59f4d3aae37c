"""Provably fair dice: the committed generator, without the database."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter

import pytest

from games import store
from games import verify_record as standalone
from games.randomness import FairRng, ReplayMismatch, ReplayRng, seed_commitment

SEED = "00" * 31 + "2a"


def test_randbelow_is_the_top_bits_of_hmac_sha256_over_the_decimal_counter() -> None:
    rng = FairRng(SEED)
    value = rng.randbelow(1 << 16)
    digest = hmac.new(bytes.fromhex(SEED), b"0", hashlib.sha256).digest()
    assert value == int.from_bytes(digest[:2], "big")
    assert rng.counter == 1 and rng.draws == [[1 << 16, value]]


def test_same_seed_and_counter_give_the_same_stream_and_it_can_be_resumed() -> None:
    first, second = FairRng(SEED), FairRng(SEED)
    assert [first.randint(1, 6) for _ in range(50)] == [second.randint(1, 6) for _ in range(50)]
    whole = FairRng(SEED)
    expected = [whole.randbelow(10) for _ in range(40)]
    head = FairRng(SEED)
    got = [head.randbelow(10) for _ in range(15)]
    resumed = FairRng(SEED, head.counter)
    got += [resumed.randbelow(10) for _ in range(25)]
    assert got == expected
    other = FairRng("11" * 32)
    assert [other.randbelow(1000) for _ in range(20)] != expected[:20]


def test_a_die_rejects_out_of_range_values_instead_of_reducing_modulo() -> None:
    rng = FairRng(SEED)
    rolls = [rng.randbelow(6) for _ in range(3000)]
    # Three bits give 0..7: about a quarter of the HMACs (6 and 7) are rejected.
    rejected = rng.counter - len(rolls)
    assert 500 < rejected < 1000
    assert set(rolls) == set(range(6))


@pytest.mark.parametrize("n", [6, 5, 12, 100])
def test_draws_are_uniform_by_a_chi_square_bound(n: int) -> None:
    rng = FairRng(hashlib.sha256(f"uniform-{n}".encode()).hexdigest())
    draws = 600 * n
    counts = Counter(rng.randbelow(n) for _ in range(draws))
    expected = draws / n
    chi_square = sum((counts[v] - expected) ** 2 / expected for v in range(n))
    # The 0.1% critical value of chi-square with n - 1 degrees of freedom is
    # below 2(n - 1) + 25 for these n; a biased generator (say modulo 8 -> 6)
    # lands in the hundreds.
    assert chi_square < 2 * (n - 1) + 25, (counts, chi_square)


def test_randint_choice_shuffle_and_random_are_built_on_recorded_draws() -> None:
    rng = FairRng(SEED)
    die = rng.randint(1, 6)
    card = rng.choice(["a", "b", "c"])
    deck = list(range(10))
    rng.shuffle(deck)
    fraction = rng.random()
    assert 1 <= die <= 6 and card in "abc" and sorted(deck) == list(range(10))
    assert 0 <= fraction < 1
    draws = rng.take_draws()
    assert [n for n, _ in draws] == [6, 3, *range(10, 1, -1), 1 << 53]
    # The same draws served back reproduce every result.
    replay = ReplayRng(draws)
    again = list(range(10))
    assert replay.randint(1, 6) == die and replay.choice(["a", "b", "c"]) == card
    replay.shuffle(again)
    assert again == deck and replay.random() == fraction and replay.exhausted


def test_replay_refuses_draws_the_record_does_not_hold() -> None:
    with pytest.raises(ReplayMismatch):
        ReplayRng([[6, 2]]).randbelow(5)
    with pytest.raises(ReplayMismatch):
        ReplayRng([[6, 7]]).randbelow(6)
    with pytest.raises(ReplayMismatch):
        ReplayRng([]).randbelow(6)


def test_the_generator_never_shows_its_seed() -> None:
    rng = FairRng(SEED)
    assert SEED not in repr(rng) and SEED not in str(rng)


def test_commitment_is_sha256_of_the_seed_bytes() -> None:
    assert seed_commitment(SEED) == hashlib.sha256(bytes.fromhex(SEED)).hexdigest()


@pytest.mark.parametrize(
    "payload",
    [
        {},
        {"dice": [3, 5], "note": "é ü 🎲", "nested": {"b": 1, "a": [None, True, 0.5]}},
        {"big": 2**70, "neg": -1, "text": 'quote " backslash \\ tab \t'},
    ],
)
def test_standalone_verifier_hashes_exactly_as_the_store(payload: dict) -> None:
    cause = {"by": "action", "seat": 1, "action": {"type": "roll"}, "draws": [[6, 2]]}
    for with_cause in (None, cause):
        event = {
            "seq": 3,
            "type": "rolled",
            "actor": 1,
            "automatic": False,
            "payload": payload,
            "created_at": "2026-11-30T10:00:00.123456+00:00",
            "cause": with_cause,
        }
        ours = store.event_hash(
            previous_hash="ab" * 32,
            game_id=7,
            seq=3,
            type="rolled",
            actor=1,
            automatic=False,
            payload=payload,
            created_at=event["created_at"],
            cause=with_cause,
        )
        assert standalone.event_hash("ab" * 32, 7, event) == ours
    assert standalone.canonical_json(payload) == store.canonical_json(payload)


def test_standalone_verifier_draws_like_the_server() -> None:
    rng = FairRng(SEED)
    for n in (6, 6, 52, 1, 2**53):
        rng.randbelow(n)
    record = {
        "seed": SEED,
        "rng_counter": rng.counter,
        "events": [{"seq": 1, "cause": {"by": "setup", "draws": rng.draws}}],
    }
    assert "5 draws" in standalone.check_draws(record)
    record["events"][0]["cause"]["draws"][2][1] ^= 1
    with pytest.raises(standalone.Failure, match="event seq 1, draw 2"):
        standalone.check_draws(record)
