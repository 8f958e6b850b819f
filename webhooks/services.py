"""Registering and deleting webhooks, and redelivering a delivery: the umpire's use cases.

None of them appends to the campaign's log: a webhook is the installation's configuration for
one campaign, not something that happened in the campaign (a URL means nothing in another
installation an archive is restored to, and players have no business seeing it). Each is kept
in ``WebhookAudit`` instead, and logged. docs/adr/0016-event-feed-and-webhooks.md.
"""

from __future__ import annotations

import functools
import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from eventlog import catalogue, store
from eventlog.errors import InvalidInput, StateConflict
from webhooks import outbox, signing, targets
from webhooks.models import Delivery, Webhook, WebhookAudit

logger = logging.getLogger(__name__)

MAX_EVENT_TYPES = 200
UNKNOWN_EVENT_TYPE = "webhook.unknown_event_type"


@dataclass(frozen=True, slots=True)
class Registered:
    """A new webhook and its secret, which is shown this once."""

    webhook: Webhook
    secret: str


def _event_types(names: Sequence[str]) -> list[str]:
    known = {spec.name for spec in catalogue.all_types()}
    unknown = [index for index, name in enumerate(names) if name not in known]
    if unknown:
        problems: list[dict[str, str | None]] = [
            {
                "code": UNKNOWN_EVENT_TYPE,
                "message": f"There is no event type called {names[index]!r}.",
                "field": f"event_types.{index}",
            }
            for index in unknown
        ]
        first = problems[0]
        raise InvalidInput(
            UNKNOWN_EVENT_TYPE, str(first["message"]), field=first["field"], problems=problems
        )
    return sorted(set(names))


def webhook_create(
    *, campaign_id: uuid.UUID, url: str, event_types: Sequence[str], actor: AbstractBaseUser
) -> Registered:
    """Register a webhook: every event appended from now on (of ``event_types``, or all) is
    sent to ``url``, signed with a new secret."""
    url = targets.check_for_registration(url)
    wanted = _event_types(event_types)
    with transaction.atomic():
        # The append lock: an append in progress commits before this reads the last sequence,
        # and every later append sees the webhook (webhooks.outbox).
        store.lock_campaign(campaign_id)
        if Webhook.objects.filter(campaign_id=campaign_id).count() >= (
            limit := settings.MUSTER_WEBHOOKS_PER_CAMPAIGN
        ):
            raise StateConflict(
                "webhook.too_many", f"A campaign has at most {limit} webhooks; delete one first."
            )
        secret = signing.new_secret()
        webhook = Webhook.objects.create(
            campaign_id=campaign_id,
            url=url,
            event_types=wanted,
            secret=secret,
            starts_after=store.last_sequence(campaign_id),
            created_by_id=actor.pk,
            created_at=timezone.now(),
        )
        _audit(webhook, WebhookAudit.Action.REGISTERED, actor, url=url, event_types=wanted)
    return Registered(webhook, secret)


def webhook_delete(*, webhook: Webhook, actor: AbstractBaseUser) -> None:
    """Delete a webhook and its deliveries: nothing more is sent to it."""
    with transaction.atomic():
        _audit(webhook, WebhookAudit.Action.DELETED, actor, url=webhook.url)
        webhook.delete()


def delivery_redeliver(*, delivery: Delivery, actor: AbstractBaseUser) -> Delivery:
    """Send a delivery's event again, as a new delivery in its place in the queue (before any
    later event still waiting). A paused webhook resumes: this is how a delivery that failed
    every attempt is tried again once its receiver is fixed."""
    with transaction.atomic():
        webhook = Webhook.objects.select_for_update().get(pk=delivery.webhook_id)
        if Delivery.objects.filter(
            webhook=webhook, sequence=delivery.sequence, status=Delivery.Status.PENDING
        ).exists():
            raise StateConflict(
                "delivery.already_queued",
                f"Event {delivery.sequence} is waiting to be sent to this webhook already.",
            )
        now = timezone.now()
        again = Delivery.objects.create(
            webhook=webhook,
            sequence=delivery.sequence,
            event_type=delivery.event_type,
            next_attempt_at=now,
            created_at=now,
            redelivery_of=delivery,
            requested_by_id=actor.pk,
        )
        if not webhook.active:
            webhook.active = True
            webhook.disabled_reason = ""
            webhook.save(update_fields=["active", "disabled_reason"])
        _audit(
            webhook,
            WebhookAudit.Action.REDELIVERED,
            actor,
            delivery=delivery.id,
            redelivery=again.id,
            sequence=delivery.sequence,
        )
        transaction.on_commit(functools.partial(outbox.dispatch, webhook.id), robust=True)
    return again


def _audit(
    webhook: Webhook, action: WebhookAudit.Action, actor: AbstractBaseUser, **details: object
) -> None:
    WebhookAudit.objects.create(
        campaign_id=webhook.campaign_id,
        webhook_id=webhook.id,
        action=action,
        actor_id=actor.pk,
        at=timezone.now(),
        details=details,
    )
    # The URL stays out of the log line: receivers' URLs often carry a token of their own.
    logger.info(
        "Webhook %s %s.",
        webhook.id,
        action,
        extra={"campaign_id": str(webhook.campaign_id), "actor_id": actor.pk},
    )
