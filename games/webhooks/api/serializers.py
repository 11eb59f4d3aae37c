from __future__ import annotations

from rest_framework import serializers

from config.schema import ErrorSerializer as ErrorOutput  # noqa: F401  (the one error shape)
from games.notifications import KINDS

from ..models import DeliveryStatus, Webhook
from ..services import PING
from ..signing import secret_hint


class WebhookCreateInput(serializers.Serializer):
    url = serializers.URLField(max_length=2000)
    kinds = serializers.ListField(
        child=serializers.ChoiceField(choices=KINDS),
        allow_empty=False,
        required=False,
        help_text="Notification kinds to receive; all of them if left out.",
    )
    active = serializers.BooleanField(default=True)


class WebhookUpdateInput(serializers.Serializer):
    url = serializers.URLField(max_length=2000, required=False)
    kinds = serializers.ListField(
        child=serializers.ChoiceField(choices=KINDS), allow_empty=False, required=False
    )
    active = serializers.BooleanField(required=False)


class WebhookOutput(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.URLField()
    kinds = serializers.ListField(child=serializers.ChoiceField(choices=KINDS))
    active = serializers.BooleanField()
    secret_hint = serializers.SerializerMethodField(
        help_text="The secret's first characters, to tell secrets apart."
    )
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()

    def get_secret_hint(self, webhook: Webhook) -> str:
        return secret_hint(webhook.secret)


class WebhookWithSecretOutput(WebhookOutput):
    secret = serializers.CharField(
        help_text="The signing secret. Shown only here (at creation and rotation): keep it."
    )


class DeliveryOutput(serializers.Serializer):
    id = serializers.UUIDField(source="delivery_id", help_text="Also sent as Facets-Delivery.")
    kind = serializers.ChoiceField(choices=[*KINDS, PING])
    status = serializers.ChoiceField(choices=DeliveryStatus.choices)
    attempts = serializers.IntegerField(help_text="Attempts made so far, redeliveries included.")
    next_attempt_at = serializers.DateTimeField(
        allow_null=True, help_text="When a pending delivery is tried next; null once settled."
    )
    last_attempt_at = serializers.DateTimeField(allow_null=True)
    last_status_code = serializers.IntegerField(
        allow_null=True, help_text="The receiver's HTTP status; null if no answer came."
    )
    last_error = serializers.CharField(
        help_text="Why the last attempt failed; empty if it did not."
    )
    last_duration_ms = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    payload = serializers.JSONField(help_text="The JSON body sent.")


class DeliveryListQuery(serializers.Serializer):
    status = serializers.ChoiceField(choices=DeliveryStatus.choices, required=False)
    page = serializers.IntegerField(min_value=1, required=False)
    page_size = serializers.IntegerField(min_value=1, max_value=200, required=False)


class DeliveryPageOutput(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = DeliveryOutput(many=True)
