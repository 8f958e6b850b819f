"""How webhooks and their deliveries look over HTTP."""

from __future__ import annotations

from rest_framework import serializers

from webhooks.models import Delivery, DeliveryAttempt, Webhook
from webhooks.services import MAX_EVENT_TYPES
from webhooks.targets import MAX_URL_LENGTH


class WebhookInputSerializer(serializers.Serializer):
    url = serializers.CharField(
        max_length=MAX_URL_LENGTH,
        help_text="Where to POST each event: an http(s) URL, to a public address.",
    )
    event_types = serializers.ListField(
        child=serializers.CharField(max_length=100),
        max_length=MAX_EVENT_TYPES,
        required=False,
        default=list,
        help_text="The event types to send (GET /api/v1/event-types/ lists them); empty or left "
        "out: every type.",
    )


class WebhookSerializer(serializers.ModelSerializer):
    created_by = serializers.IntegerField(
        source="created_by_id", allow_null=True, help_text="The user id of who registered it."
    )

    class Meta:
        model = Webhook
        fields = [
            "id",
            "campaign_id",
            "url",
            "event_types",
            "active",
            "disabled_reason",
            "starts_after",
            "created_by",
            "created_at",
        ]
        read_only_fields = fields


class WebhookCreatedSerializer(WebhookSerializer):
    secret = serializers.CharField(
        help_text="The signing secret (docs/webhooks.md). Shown only in this answer: keep it."
    )

    class Meta(WebhookSerializer.Meta):
        fields = [*WebhookSerializer.Meta.fields, "secret"]
        read_only_fields = fields


class DeliveryAttemptSerializer(serializers.ModelSerializer):
    class Meta:
        model = DeliveryAttempt
        fields = [
            "number",
            "started_at",
            "duration_ms",
            "status_code",
            "error",
            "response_excerpt",
        ]
        read_only_fields = fields


class DeliverySerializer(serializers.ModelSerializer):
    attempts = DeliveryAttemptSerializer(
        source="attempt_log", many=True, help_text="Every try, the first first."
    )
    attempt_count = serializers.IntegerField(source="attempts")
    redelivery_of = serializers.IntegerField(source="redelivery_of_id", allow_null=True)
    requested_by = serializers.IntegerField(source="requested_by_id", allow_null=True)

    class Meta:
        model = Delivery
        fields = [
            "id",
            "sequence",
            "event_type",
            "status",
            "attempt_count",
            "next_attempt_at",
            "created_at",
            "delivered_at",
            "redelivery_of",
            "requested_by",
            "attempts",
        ]
        read_only_fields = fields
