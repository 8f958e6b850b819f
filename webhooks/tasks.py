"""Celery tasks of webhooks: sending a webhook's deliveries, and the sweep that sends them again."""

from __future__ import annotations

import uuid

from celery import shared_task
from django.db import InterfaceError, OperationalError

from webhooks import sending


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=8,
)
def deliver_webhook(webhook_id: str) -> int:
    """Send the webhook's due deliveries in order. Sent twice, or to a second worker while the
    first is sending, it does nothing more: one sender holds a webhook at a time."""
    return sending.deliver_pending(uuid.UUID(webhook_id))


@shared_task
def sweep_webhook_deliveries() -> int:
    return sending.dispatch_due()
