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
    players = PlayerOutput(many=True)
    to_act = PendingOutput(many=True)
    result = serializers.JSONField(allow_null=True)


class GameOutput(GameSummaryOutput):
    your_seat = serializers.IntegerField(allow_null=True)
    state = serializers.JSONField(
        allow_null=True, help_text="The ruleset's view of the state for your seat."
    )


class EventOutput(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.CharField()
    actor = serializers.IntegerField(allow_null=True)
    automatic = serializers.BooleanField()
    payload = serializers.JSONField()
    created_at = serializers.DateTimeField()
    hash = serializers.CharField()


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


@extend_schema_serializer(component_name="Verification")
class VerifyOutput(serializers.Serializer):
    events = serializers.IntegerField()
    chain_ok = serializers.BooleanField()
    first_bad_seq = serializers.IntegerField(allow_null=True)
    projection_matches = serializers.BooleanField()
    last_hash = serializers.CharField()
