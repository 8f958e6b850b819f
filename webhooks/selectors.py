"""Reading webhooks and their deliveries, for the umpire of their campaign."""

from __future__ import annotations

import uuid

from django.db.models import QuerySet

from eventlog.errors import NotFound
from webhooks.models import Delivery, Webhook


def webhooks_list(*, campaign_id: uuid.UUID) -> QuerySet[Webhook]:
    return Webhook.objects.filter(campaign_id=campaign_id).order_by("created_at", "id")


def webhook_get(*, campaign_id: uuid.UUID, webhook_id: uuid.UUID) -> Webhook:
    webhook = Webhook.objects.filter(campaign_id=campaign_id, pk=webhook_id).first()
    if webhook is None:
        raise NotFound("webhook.not_found", "No such webhook.")
    return webhook


def deliveries_after(
    *, webhook: Webhook, after: int, limit: int, status: str | None = None
) -> list[Delivery]:
    """The webhook's deliveries in the order they were queued, from after the ``after``-th id,
    each with its attempts."""
    deliveries = Delivery.objects.filter(webhook=webhook, id__gt=after)
    if status:
        deliveries = deliveries.filter(status=status)
    return list(deliveries.order_by("id").prefetch_related("attempt_log")[:limit])


def delivery_get(*, webhook: Webhook, delivery_id: int) -> Delivery:
    delivery = Delivery.objects.filter(webhook=webhook, pk=delivery_id).first()
    if delivery is None:
        raise NotFound("delivery.not_found", "No such delivery.")
    return delivery
