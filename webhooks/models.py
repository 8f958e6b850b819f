"""Webhooks: where a campaign's events are sent, the deliveries waiting or done, and their log.

None of these is a read model: they are configuration and the state of sending, written by the
services here and by the outbox in the append's transaction, never rebuilt from the log. They
name the campaign by id (as every table does), not by a foreign key to the campaign read model,
which a rebuild drops and writes again.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class Webhook(models.Model):
    """An umpire's request that a campaign's events be sent to a URL, signed with a secret."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    campaign_id = models.UUIDField()
    url = models.CharField(
        max_length=2000, help_text="Checked by webhooks.targets: http(s), public."
    )
    event_types = models.JSONField(
        default=list, blank=True, help_text="The event types sent; empty: every type."
    )
    # Kept as given, because signing needs it; shown once, when the webhook is created.
    secret = models.CharField(max_length=100)
    active = models.BooleanField(
        default=True,
        help_text="Deliveries are sent. Off once a delivery has failed every attempt, until it is "
        "redelivered; events go on being queued meanwhile.",
    )
    disabled_reason = models.CharField(max_length=300, blank=True, default="")
    starts_after = models.PositiveBigIntegerField(
        help_text="The campaign's last sequence when the webhook was made: every later event is "
        "sent, none before."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField()
    # On databases without advisory locks (SQLite), who is sending this webhook's deliveries is
    # a lease held until this time; PostgreSQL uses an advisory lock instead (webhooks.sending).
    sending_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["campaign_id"], name="webhooks_webhook_campaign")]
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.url} ({self.campaign_id})"


class Delivery(models.Model):
    """One event to send to one webhook, queued in the transaction that appended the event.

    A webhook's pending deliveries are sent one at a time in sequence order; the ``id`` is the
    ``Muster-Delivery-Id`` a receiver sees on every attempt of it.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        DELIVERED = "delivered"
        FAILED = "failed"

    id = models.BigAutoField(primary_key=True)
    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    sequence = models.PositiveBigIntegerField(help_text="The event's sequence in its campaign.")
    event_type = models.CharField(max_length=100)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    created_at = models.DateTimeField()
    delivered_at = models.DateTimeField(null=True, blank=True)
    redelivery_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="redeliveries"
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        help_text="Who asked for a redelivery; none for a delivery the log queued.",
    )

    class Meta:
        constraints = [
            # One event is queued once per webhook: a redelivery waits for none of its own.
            models.UniqueConstraint(
                fields=["webhook", "sequence"],
                condition=models.Q(status="pending"),
                name="webhooks_delivery_pending_once",
            )
        ]
        indexes = [
            models.Index(fields=["webhook", "status", "sequence"], name="webhooks_delivery_queue"),
            models.Index(fields=["status", "next_attempt_at"], name="webhooks_delivery_due"),
        ]
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.event_type} #{self.sequence} to {self.webhook_id} ({self.status})"


class DeliveryAttempt(models.Model):
    """One try at sending a delivery: what the receiver answered, or what went wrong."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True, default="")
    response_excerpt = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["delivery", "number"], name="webhooks_attempt_number_once"
            )
        ]
        ordering = ["delivery_id", "number"]

    def __str__(self) -> str:
        return f"attempt {self.number} of delivery {self.delivery_id}: {self.status_code}"


class WebhookAudit(models.Model):
    """Who registered, deleted or redelivered what, and when: kept after the webhook is gone."""

    class Action(models.TextChoices):
        REGISTERED = "registered"
        DELETED = "deleted"
        REDELIVERED = "redelivered"

    campaign_id = models.UUIDField()
    webhook_id = models.UUIDField()
    action = models.CharField(max_length=20, choices=Action.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    at = models.DateTimeField()
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        indexes = [models.Index(fields=["campaign_id", "at"], name="webhooks_audit_campaign")]
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"{self.action} {self.webhook_id} at {self.at:%Y-%m-%d %H:%M}"
