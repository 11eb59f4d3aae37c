"""Input validation and output shapes of the games API (also the OpenAPI schema)."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from config.schema import ErrorSerializer as ErrorOutput  # noqa: F401  (the one error shape)
from games.models import GameStatus


@extend_schema_field({"$ref": "#/components/schemas/GameAction"})
class GameActionField(serializers.DictField):
    """One action: ``{"type": ..., ...the ruleset's fields}``. Described once in
    the schema (the ``GameAction`` component, SPECTACULAR_SETTINGS) so a
    generated client passes what legal-actions lists straight to actions."""


class GameCreateInput(serializers.Serializer):
    ruleset = serializers.CharField(max_length=32)
    options = serializers.DictField(required=False, default=dict)
    num_seats = serializers.IntegerField(min_value=1, max_value=12)
    turn_timeout = serializers.IntegerField(
        min_value=settings.FACETS_MIN_TURN_TIMEOUT,
        max_value=settings.FACETS_MAX_TURN_TIMEOUT,
        default=settings.FACETS_DEFAULT_TURN_TIMEOUT,
        help_text="Seconds each pending player has to act (10 s to 14 days).",
    )
    public = serializers.BooleanField(
        default=True,
        help_text="Anyone may watch a public game; a private one exists only for its players.",
    )


class BotsInput(serializers.Serializer):
    count = serializers.IntegerField(
        min_value=1, max_value=12, required=False, allow_null=True, default=None
    )


class ActionInput(serializers.Serializer):
    action = GameActionField(help_text="The action, exactly as listed by legal-actions.")
    expected_seq = serializers.IntegerField(
        min_value=0,
        required=False,
        allow_null=True,
        default=None,
        help_text="If given, the action is refused with 409 stale_seq unless the game is at this seq.",
    )

    def validate_action(self, value: dict) -> dict:
        if not isinstance(value.get("type"), str):
            raise serializers.ValidationError('An action needs a string "type".')
        return value


class GameListQuery(serializers.Serializer):
    status = serializers.ChoiceField(choices=GameStatus.values, required=False)
    ruleset = serializers.CharField(required=False, max_length=32)
    mine = serializers.BooleanField(required=False, default=False)
    waiting_for_me = serializers.BooleanField(required=False, default=False)
    open = serializers.BooleanField(
        required=False, default=False, help_text="Only tables open to join."
    )


class EventsQuery(serializers.Serializer):
    after = serializers.IntegerField(min_value=0, required=False, default=0)
    limit = serializers.IntegerField(min_value=1, max_value=1000, required=False, default=100)
    wait = serializers.IntegerField(
        min_value=0,
        max_value=settings.FACETS_LONG_POLL_MAX_WAIT,
        required=False,
        default=0,
        help_text=(
            "Long-poll: if nothing is newer than `after`, wait up to this many seconds "
            "for an event before answering (the empty page if none came)."
        ),
    )


class StateQuery(serializers.Serializer):
    at = serializers.IntegerField(min_value=0, required=False, allow_null=True, default=None)


class PlayerOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    username = serializers.CharField(allow_null=True)
    bot = serializers.BooleanField()
    resigned = serializers.BooleanField()
    zombie = serializers.BooleanField(help_text="Played by the bot after repeated timeouts.")
    must_act = serializers.BooleanField()
    deadline = serializers.DateTimeField(allow_null=True)


@extend_schema_serializer(component_name="PendingSeat")
class PendingOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    deadline = serializers.DateTimeField(allow_null=True)


class GameSummaryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    ruleset = serializers.CharField()
    ruleset_version = serializers.IntegerField()
    options = serializers.JSONField()
    status = serializers.ChoiceField(choices=GameStatus.values)
    seq = serializers.IntegerField()
    num_seats = serializers.IntegerField()
    turn_timeout = serializers.IntegerField()
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    public = serializers.BooleanField(help_text="Anyone may watch it (spectators).")
    seed_commitment = serializers.CharField(
        allow_null=True,
        help_text="SHA-256 (hex) of the secret dice seed, published at creation "
        "(null for games older than provably fair dice).",
    )
    players = PlayerOutput(many=True)
    to_act = PendingOutput(many=True)
    result = serializers.JSONField(allow_null=True)


class GameOutput(GameSummaryOutput):
    your_seat = serializers.IntegerField(allow_null=True)
    state = serializers.JSONField(
        allow_null=True, help_text="The ruleset's view of the state for your seat."
    )
    seed = serializers.CharField(
        allow_null=True,
        help_text="The dice seed (64 hex digits), revealed once the game is finished; null before.",
    )


class CauseOutput(serializers.Serializer):
    by = serializers.ChoiceField(choices=["setup", "action", "auto", "forced", "system"])
    seat = serializers.IntegerField(required=False)
    action = serializers.JSONField(required=False)
    draws = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2),
        help_text="Each accepted draw [n, value]: randbelow(n) gave value.",
    )


class EventOutput(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.CharField()
    actor = serializers.IntegerField(allow_null=True)
    automatic = serializers.BooleanField()
    payload = serializers.JSONField()
    created_at = serializers.DateTimeField()
    hash = serializers.CharField(
        allow_null=True, help_text="Shown once the game is finished; null during play."
    )
    cause = CauseOutput(
        allow_null=True,
        help_text="What produced this event and the dice it drew; shown once the game is "
        "finished, on the first event of each ruleset call.",
    )


class EventPageOutput(serializers.Serializer):
    events = EventOutput(many=True)
    last_seq = serializers.IntegerField(help_text="The game's current seq.")
    has_more = serializers.BooleanField()


@extend_schema_serializer(component_name="ActionResult")
class ActionOutput(serializers.Serializer):
    seq = serializers.IntegerField()
    events = EventOutput(many=True)
    game = GameOutput()


class LegalActionsOutput(serializers.Serializer):
    seq = serializers.IntegerField()
    your_seat = serializers.IntegerField()
    actions = serializers.ListField(child=GameActionField())
    note = serializers.CharField(allow_blank=True)


class StateOutput(serializers.Serializer):
    seq = serializers.IntegerField()
    your_seat = serializers.IntegerField(allow_null=True)
    state = serializers.JSONField()


class RulesetOutput(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    version = serializers.IntegerField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    options = serializers.JSONField()


class RulesetDetailOutput(RulesetOutput):
    material = serializers.JSONField()


class CheckOutput(serializers.Serializer):
    check = serializers.ChoiceField(
        choices=["hash_chain", "seed_commitment", "draws", "reexecution"]
    )
    ok = serializers.BooleanField()
    seq = serializers.IntegerField(allow_null=True, help_text="The first event that failed.")
    message = serializers.CharField()


@extend_schema_serializer(component_name="Verification")
class VerifyOutput(serializers.Serializer):
    ok = serializers.BooleanField(help_text="Every check passed.")
    complete = serializers.BooleanField(
        help_text="The game is finished and every check could run; during play only the "
        "hash chain and the projection are checked."
    )
    provably_fair = serializers.BooleanField(help_text="The game's dice come from a seed.")
    events = serializers.IntegerField()
    chain_ok = serializers.BooleanField()
    first_bad_seq = serializers.IntegerField(
        allow_null=True, help_text="The first event whose hash does not match."
    )
    projection_matches = serializers.BooleanField(
        allow_null=True, help_text="Folding the log gives the stored state (null for records)."
    )
    last_hash = serializers.CharField(allow_null=True, help_text="Null during play.")
    checks = CheckOutput(many=True)


class RecordPlayerOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    username = serializers.CharField(allow_null=True)
    bot = serializers.BooleanField()
    resigned = serializers.BooleanField()


class RecordOutput(serializers.Serializer):
    format = serializers.ChoiceField(choices=["facets-record"])
    version = serializers.IntegerField()
    complete = serializers.BooleanField(
        help_text="True once the game is finished: every event with hash and cause, and "
        "the seed. False during play: your redacted view only."
    )
    id = serializers.IntegerField(help_text="The game's id (part of every event's hash).")
    ruleset = serializers.CharField()
    rules_version = serializers.IntegerField()
    options = serializers.JSONField()
    num_seats = serializers.IntegerField()
    public = serializers.BooleanField()
    players = RecordPlayerOutput(many=True)
    status = serializers.ChoiceField(choices=GameStatus.values)
    result = serializers.JSONField(allow_null=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    seed_commitment = serializers.CharField(allow_null=True)
    seed = serializers.CharField(allow_null=True, help_text="Null until the game is finished.")
    rng_counter = serializers.IntegerField(
        allow_null=True, help_text="HMAC counters used; null until the game is finished."
    )
    your_seat = serializers.IntegerField(allow_null=True)
    events = EventOutput(many=True)


class RecordInput(serializers.Serializer):
    """Documents the body of POST /records: a complete record, as GET
    /games/{id}/record returns it for a finished game."""

    format = serializers.CharField()
    version = serializers.IntegerField()
    complete = serializers.BooleanField()
    id = serializers.IntegerField()
    ruleset = serializers.CharField()
    rules_version = serializers.IntegerField()
    options = serializers.JSONField()
    players = RecordPlayerOutput(many=True)
    seed_commitment = serializers.CharField(allow_null=True)
    seed = serializers.CharField(allow_null=True)
    rng_counter = serializers.IntegerField(allow_null=True, required=False)
    events = EventOutput(many=True)


class ImportedRecordOutput(serializers.Serializer):
    id = serializers.IntegerField()
    ruleset = serializers.CharField()
    uploaded_by = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    verification = VerifyOutput()
    record = RecordOutput()


class UserGamesQuery(serializers.Serializer):
    since = serializers.DateTimeField(
        required=False, help_text="Only games finished at or after this time (ISO 8601)."
    )
    max = serializers.IntegerField(
        required=False, min_value=1, max_value=10_000, help_text="At most this many games."
    )
