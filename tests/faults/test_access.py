"""Who may act, and who may see what, in a bot game of every ruleset.

* Nobody acts for another seat: there is no seat parameter, and a "seat" or
  "actor" smuggled into the body changes nothing; a player cannot act on a
  bot's turn.
* Nobody outside a game acts in it: every write is a 403 (401 anonymous).
* No view or event stream of one seat ever contains another seat's hidden
  information. "Hidden" is the ruleset's own word for it: whatever its
  ``redact_event`` takes out of an event for this seat. Two checks:
  - the API gives the player exactly ``view(state, seat)`` and
    ``redact_event(event, seat)`` at every seq (current state, ``state?at=N``,
    events), and spectators the ``None`` versions;
  - along the game's own log, swapping the hidden part of an event for the
    hidden part of another event of that type (a different draw, a different
    secret answer) never changes what the player's view shows.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from games.models import Event, Game
from games.rules import registry
from games.rules.base import Ruleset, fold
from games.store import as_rule_event
from tests.faults.support import is_error_shape
from tests.helpers import error_code, ok, open_table

pytestmark = pytest.mark.django_db(transaction=True)

MAX_REPLAYS_CHECKED = 40
MAX_SWAPS_PER_SEAT = 40


def seats_for(rules: Ruleset) -> int:
    return max(rules.MIN_PLAYERS, 2)


def raw_log(game_id: int) -> list[dict[str, Any]]:
    return [as_rule_event(row) for row in Event.objects.filter(game_id=game_id).order_by("seq")]


def public_form(
    rules: Ruleset, event: dict[str, Any], seat: int | None, finished: bool = False
) -> dict[str, Any]:
    """An event as ``seat`` should get it from the API (payload only). Once
    the game is finished everything is public: nothing is redacted."""
    hidden_part = "." not in event["type"] and not finished
    shown = rules.redact_event(copy.deepcopy(event), seat) if hidden_part else event
    return {k: v for k, v in shown.items() if k not in ("type", "actor")}


def assert_outsiders_cannot_write(game_id: int, outsider: Any, anon: Any, action: Any) -> None:
    writes = [
        ("actions", {"action": action}),
        ("resign", None),
        ("leave", None),
        ("bots", {}),
        ("start", None),
    ]
    before = Game.objects.get(pk=game_id).seq
    for path, body in writes:
        url = f"/api/v1/games/{game_id}/{path}"
        response = outsider.post(url, body, format="json")
        assert response.status_code in (403, 404), (path, response.status_code, response.content)
        assert is_error_shape(response.json())
        assert error_code(anon.post(url, body, format="json"), 401) == "not_authenticated"
    assert error_code(outsider.get(f"/api/v1/games/{game_id}/legal-actions"), 403) == "not_a_player"
    assert error_code(outsider.get(f"/api/v1/games/{game_id}/state?at=1"), 403) == "not_a_player"
    assert Game.objects.get(pk=game_id).seq == before


def act_with_a_smuggled_seat(ada: Any, game_id: int, action: dict[str, Any]) -> Any:
    """Post ada's action claiming to be another seat, in the body and in the
    action. Accepted or refused, it may never be another seat's move."""
    other = 1
    smuggled = {**action, "seat": other, "actor": other}
    body = {"action": smuggled, "seat": other, "actor": other, "user": "bot"}
    response = ada.post(f"/api/v1/games/{game_id}/actions", body, format="json")
    if response.status_code != 201:
        assert error_code(response, 422) == "illegal_action"  # the extra keys refused
        body = {"action": action, "seat": other, "actor": other}
        response = ada.post(f"/api/v1/games/{game_id}/actions", body, format="json")
    answer = ok(response, 201)
    assert answer["events"][0]["actor"] == 0, answer["events"][0]
    return answer


@pytest.mark.parametrize("slug", registry.slugs())
def test_bot_game_access_and_hidden_information(slug: str, client_for, anon, task_queue) -> None:
    rules = registry.get(slug)
    ada, outsider = client_for("ada"), client_for("eve")
    table = open_table(ada, ruleset=slug, num_seats=seats_for(rules))
    game_id = table["id"]
    ok(ada.post(f"/api/v1/games/{game_id}/bots"))
    checked_bot_turn = False

    for turn in range(3000):
        task_queue.drain()
        game = Game.objects.get(pk=game_id)
        if game.status == "finished":
            break
        if turn % 8 == 0:
            assert_player_gets_exactly_her_view(rules, game_id, ada)
        offered = ok(ada.get(f"/api/v1/games/{game_id}/legal-actions"))["actions"]
        if not offered:
            continue
        if turn < 12:
            assert_outsiders_cannot_write(game_id, outsider, anon, offered[0])
            answer = act_with_a_smuggled_seat(ada, game_id, offered[0])
        else:
            body = {"action": offered[0]}
            answer = ok(ada.post(f"/api/v1/games/{game_id}/actions", body, format="json"), 201)
        # The answer to an action is ada's view and her redaction too.
        game = Game.objects.get(pk=game_id)
        assert answer["game"]["state"] == rules.view(game.state, 0)
        log = raw_log(game_id)
        assert [e["payload"] for e in answer["events"]] == [
            public_form(rules, log[e["seq"] - 1], 0) for e in answer["events"]
        ]
        pending = rules.pending(game.state) if game.status == "active" else []
        if pending and 0 not in pending and not checked_bot_turn:
            # A bot must act (its task has not run yet): ada may not act for it.
            body = {"action": {"type": "pass"}, "seat": pending[0]}
            response = ada.post(f"/api/v1/games/{game_id}/actions", body, format="json")
            assert error_code(response, 409) == "not_your_turn"
            checked_bot_turn = True
    else:
        pytest.fail("the game did not finish")
    assert_player_gets_exactly_her_view(rules, game_id, ada)

    log = raw_log(game_id)
    assert_replays_show_each_seat_only_its_view(rules, game_id, log, ada, outsider, anon)
    assert_hidden_parts_never_reach_other_views(rules, log, Game.objects.get(pk=game_id).num_seats)


def assert_player_gets_exactly_her_view(rules: Ruleset, game_id: int, ada: Any) -> None:
    """Now: the game's state is seat 0's view, the log seat 0's redaction."""
    game = Game.objects.get(pk=game_id)
    assert ok(ada.get(f"/api/v1/games/{game_id}"))["state"] == rules.view(game.state, 0)
    page = ok(ada.get(f"/api/v1/games/{game_id}/events?limit=1000"))
    finished = game.status == "finished"
    assert [e["payload"] for e in page["events"]] == [
        public_form(rules, e, 0, finished) for e in raw_log(game_id)
    ]


def assert_replays_show_each_seat_only_its_view(
    rules: Ruleset, game_id: int, log: list[dict[str, Any]], ada: Any, outsider: Any, anon: Any
) -> None:
    """``state?at=N`` for the player is her view after event N; for anyone
    else (now that the game is over) the spectator's view; and the finished
    game's log is public in full."""
    step = max(1, len(log) // MAX_REPLAYS_CHECKED)
    hidden_seqs = [n + 1 for n, e in enumerate(log) if hidden_keys(rules, e, 0)]
    hidden_step = max(1, len(hidden_seqs) // MAX_REPLAYS_CHECKED)
    for at in sorted(set(range(0, len(log) + 1, step)) | set(hidden_seqs[::hidden_step])):
        state = fold(rules, log[:at])
        mine = ok(ada.get(f"/api/v1/games/{game_id}/state?at={at}"))["state"]
        assert mine == (rules.view(state, 0) if state else {}), at
        if at % (step * 4) == 0:
            public = rules.view(state, None) if state else {}
            assert ok(outsider.get(f"/api/v1/games/{game_id}/state?at={at}"))["state"] == public
            assert ok(anon.get(f"/api/v1/games/{game_id}/state?at={at}"))["state"] == public
    # Finished: the whole log is public (the seed is revealed too).
    events = ok(anon.get(f"/api/v1/games/{game_id}/events?limit=1000"))["events"]
    assert [e["payload"] for e in events] == [public_form(rules, e, None, True) for e in log]


def hidden_keys(rules: Ruleset, event: dict[str, Any], seat: int | None) -> list[str]:
    """The keys of ``event`` whose value ``seat`` does not get as it is."""
    if "." in event["type"]:
        return []
    shown = rules.redact_event(copy.deepcopy(event), seat)
    return sorted(k for k in event if k not in ("type", "actor") and shown.get(k) != event[k])


def assert_hidden_parts_never_reach_other_views(
    rules: Ruleset, log: list[dict[str, Any]], num_seats: int
) -> None:
    """Non-interference along the log: for each event with parts hidden from
    a seat, put in the hidden parts of another event of the same type; the
    seat's view right after it must not change."""
    states = [{}]
    for event in log:
        states.append(states[-1] if "." in event["type"] else rules.evolve(states[-1], event))
    swaps = 0
    for seat in range(num_seats):
        hidden = [hidden_keys(rules, event, seat) for event in log]
        secret = [n for n, keys in enumerate(hidden) if keys]
        for n in secret[:: max(1, len(secret) // MAX_SWAPS_PER_SEAT)]:
            event, keys = log[n], hidden[n]
            expected = rules.view(states[n + 1], seat)
            same_kind = [
                e
                for e, k in zip(log, hidden, strict=True)
                if k == keys and e["type"] == event["type"]
            ]
            for values in alternatives(same_kind, event, keys)[:3]:
                swapped = {**event, **values}
                try:
                    after = rules.evolve(states[n], swapped)
                    seen = rules.view(after, seat)
                except Exception:  # not a state the rules could reach: no evidence
                    continue
                assert seen == expected, (
                    f"seat {seat}'s view depends on {keys} of {event['type']} at seq {n + 1}"
                )
                swaps += 1
    if any(hidden_keys(rules, e, s) for e in log for s in range(num_seats)):
        assert swaps, "the ruleset hides things, yet no swap could be checked"


def alternatives(
    same_kind: list[dict[str, Any]], event: dict[str, Any], keys: list[str]
) -> list[dict[str, Any]]:
    """Other values the hidden keys could have held, of the same shape: the
    same lists in another order (another shuffle), and the hidden parts of
    other events of the same type that hide the same keys (another card
    drawn, another answer)."""
    mine = {k: event[k] for k in keys}
    found = [{k: rotated(v) for k, v in mine.items()}]
    found += [{k: copy.deepcopy(other[k]) for k in keys} for other in same_kind]
    return [alt for alt in found if alt != mine and shape(alt) == shape(mine)]


def rotated(value: Any) -> Any:
    return value[1:] + value[:1] if isinstance(value, list) else value


def shape(value: Any) -> Any:
    """Lengths and types, not contents: an alternative must look the same
    from outside (the same number of cards, say)."""
    if isinstance(value, list):
        return ["list", [shape(v) for v in value]]
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    return type(value).__name__
