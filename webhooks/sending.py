"""Sending a webhook's deliveries: by one sender at a time, in sequence order, with retries.

A webhook's pending deliveries are a queue ordered by the events' sequences. One sender at a time
holds the webhook (a PostgreSQL advisory lock, released by the database if the sender dies; a
lease on the webhook's row elsewhere) and sends the head of the queue: on a 2xx answer the
delivery is marked delivered, in the same transaction as its attempt's record, and the next is
sent; on anything else the attempt is recorded and the delivery is tried again after an
exponential backoff, and nothing behind it is sent meanwhile. After
``MUSTER_WEBHOOK_MAX_ATTEMPTS`` failures the delivery is given up and the webhook paused until the
umpire redelivers it: a later event is never sent before an earlier one.

So a delivery is sent at least once and, unless the sender dies (or loses the database) between
the receiver's answer and that commit, exactly once; when it does, the next sender sends the same
delivery again, with the same ``Muster-Delivery-Id``. docs/adr/0016-event-feed-and-webhooks.md.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone

from campaigns.visibility import Sight, event_as_seen
from eventlog import store
from webhooks import outbox, signing, targets
from webhooks.models import Delivery, DeliveryAttempt, Webhook

logger = logging.getLogger(__name__)

# The advisory-lock namespace of webhook senders (the first of PostgreSQL's two lock keys).
_LOCK_CLASS = 0x6D757768  # "muwh"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one attempt came to."""

    started_at: dt.datetime
    duration_ms: int
    status_code: int | None = None
    error: str = ""
    excerpt: str = ""

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def deliver_pending(webhook_id: uuid.UUID, *, now: dt.datetime | None = None) -> int:
    """Send the webhook's due deliveries in order, unless another sender holds it; returns how
    many were delivered. ``now`` (for tests) fixes the clock that says what is due."""
    delivered = 0
    while True:
        with _sending(webhook_id) as lease:
            if not lease.held:
                # The holder looks at the queue again once it lets go (below), so a delivery
                # queued while it held the webhook is not left waiting for the sweep.
                return delivered
            sent, stopped = _send_due(webhook_id, lease, now)
            delivered += sent
        if stopped or not _head_is_due(webhook_id, now):
            return delivered


def _send_due(webhook_id: uuid.UUID, lease: _Lease, now: dt.datetime | None) -> tuple[int, bool]:
    """Send the queue's head while it is due. Returns how many were delivered, and whether it
    stopped on a failure (or a webhook gone or paused) rather than an empty queue."""
    sent = 0
    while True:
        webhook = Webhook.objects.filter(pk=webhook_id).first()
        if webhook is None or not webhook.active:
            return sent, True
        delivery = _head(webhook_id)
        clock = now or timezone.now()
        if delivery is None or delivery.next_attempt_at > clock:
            return sent, False
        lease.renew()
        outcome = _attempt(webhook, delivery)
        if not _record(webhook, delivery, outcome, now or timezone.now()):
            return sent, True
        sent += 1


def _head(webhook_id: uuid.UUID) -> Delivery | None:
    return (
        Delivery.objects.filter(webhook_id=webhook_id, status=Delivery.Status.PENDING)
        .order_by("sequence")
        .first()
    )


def _head_is_due(webhook_id: uuid.UUID, now: dt.datetime | None) -> bool:
    head = _head(webhook_id)
    return head is not None and head.next_attempt_at <= (now or timezone.now())


def delivery_body(webhook: Webhook, delivery: Delivery) -> bytes:
    """What is POSTed: the delivery's ids and its event whole, as the umpire sees it."""
    found = store.read_sequences(webhook.campaign_id, [delivery.sequence])
    if not found:
        raise targets.DeliveryFailed(f"Event {delivery.sequence} is not in the log.")
    body = {
        "delivery": delivery.id,
        "webhook": str(webhook.id),
        "campaign": str(webhook.campaign_id),
        "event": event_as_seen(found[0], Sight.WHOLE),
    }
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


def delivery_headers(webhook: Webhook, delivery: Delivery, body: bytes) -> dict[str, str]:
    return {
        "Muster-Signature": signing.signature_header(webhook.secret, body),
        "Muster-Event-Id": f"{webhook.campaign_id}:{delivery.sequence}",
        "Muster-Event-Type": delivery.event_type,
        "Muster-Delivery-Id": str(delivery.id),
        "Muster-Delivery-Attempt": str(delivery.attempts + 1),
    }


def _attempt(webhook: Webhook, delivery: Delivery) -> Outcome:
    started_at = timezone.now()
    started = time.perf_counter()

    def took() -> int:
        return round((time.perf_counter() - started) * 1000)

    try:
        body = delivery_body(webhook, delivery)
        target = targets.resolve(targets.parse(webhook.url))
        answer = targets.post(target, body, delivery_headers(webhook, delivery, body))
    except targets.DeliveryFailed as failed:
        return Outcome(started_at, took(), error=str(failed)[:500])
    return Outcome(started_at, took(), status_code=answer.status_code, excerpt=answer.excerpt)


def backoff(attempts: int) -> dt.timedelta:
    """How long to wait after the ``attempts``-th failure before the next try."""
    seconds = settings.MUSTER_WEBHOOK_RETRY_BASE_SECONDS * 2 ** (attempts - 1)
    return dt.timedelta(seconds=min(seconds, settings.MUSTER_WEBHOOK_RETRY_MAX_SECONDS))


def _record(webhook: Webhook, delivery: Delivery, outcome: Outcome, clock: dt.datetime) -> bool:
    """Record the attempt and what it makes of the delivery, in one transaction. True if the
    delivery was delivered (the queue may go on)."""
    with transaction.atomic():
        current = (
            Delivery.objects.select_for_update()
            .filter(pk=delivery.pk, status=Delivery.Status.PENDING)
            .first()
        )
        if current is None:  # its webhook was deleted meanwhile
            return False
        current.attempts += 1
        DeliveryAttempt.objects.create(
            delivery=current,
            number=current.attempts,
            started_at=outcome.started_at,
            duration_ms=outcome.duration_ms,
            status_code=outcome.status_code,
            error=outcome.error,
            response_excerpt=outcome.excerpt,
        )
        if outcome.succeeded:
            current.status = Delivery.Status.DELIVERED
            current.delivered_at = timezone.now()
        elif current.attempts >= settings.MUSTER_WEBHOOK_MAX_ATTEMPTS:
            current.status = Delivery.Status.FAILED
            Webhook.objects.filter(pk=webhook.pk).update(
                active=False,
                disabled_reason=f"Delivery {current.id} (event {current.sequence}) failed "
                f"{current.attempts} times; redeliver it to resume.",
            )
        else:
            current.next_attempt_at = clock + backoff(current.attempts)
        current.save(update_fields=["attempts", "status", "delivered_at", "next_attempt_at"])
    _log(webhook, current, outcome)
    return outcome.succeeded


def _log(webhook: Webhook, delivery: Delivery, outcome: Outcome) -> None:
    failed = not outcome.succeeded
    logger.log(
        logging.WARNING if failed else logging.INFO,
        "Webhook delivery %s %s.",
        delivery.id,
        "failed" if failed else "delivered",
        extra={
            "campaign_id": str(webhook.campaign_id),
            "webhook_id": str(webhook.id),
            "sequence": delivery.sequence,
            "attempt": delivery.attempts,
            "status_code": outcome.status_code,
            "duration_ms": outcome.duration_ms,
            **({"error": outcome.error} if outcome.error else {}),
        },
    )


# --- One sender per webhook ---------------------------------------------------------------------


class _Lease:
    """Whether this process is the webhook's sender, and how to keep on being it."""

    def __init__(self, webhook_id: uuid.UUID, held: bool) -> None:
        self.webhook_id = webhook_id
        self.held = held

    def renew(self) -> None:
        """Before each request: a lease (not an advisory lock) runs out unless renewed."""
        if connection.vendor != "postgresql":
            Webhook.objects.filter(pk=self.webhook_id).update(sending_until=_lease_end())


def _lease_end() -> dt.datetime:
    # Longer than one request can take (connect and read timeouts, and some).
    return timezone.now() + dt.timedelta(seconds=3 * settings.MUSTER_WEBHOOK_TIMEOUT_SECONDS + 30)


@contextlib.contextmanager
def _sending(webhook_id: uuid.UUID) -> Iterator[_Lease]:
    """Hold the webhook as its one sender, if no one else does. On PostgreSQL a session advisory
    lock, which the server drops with the connection of a sender that dies; elsewhere (SQLite) a
    lease on the webhook's row, which a dead sender's successor takes once it has run out."""
    if connection.vendor == "postgresql":
        key = [_LOCK_CLASS, _lock_object(webhook_id)]
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", key)
            held = bool(cursor.fetchone()[0])
        try:
            yield _Lease(webhook_id, held)
        finally:
            if held:
                _unlock(key)
        return
    now = timezone.now()
    held = (
        Webhook.objects.filter(pk=webhook_id)
        .filter(Q(sending_until__isnull=True) | Q(sending_until__lt=now))
        .update(sending_until=_lease_end())
        == 1
    )
    try:
        yield _Lease(webhook_id, held)
    finally:
        if held:
            Webhook.objects.filter(pk=webhook_id).update(sending_until=None)


def _lock_object(webhook_id: uuid.UUID) -> int:
    """The second key of the webhook's advisory lock: 32 bits of its id. Two webhooks that
    share them only take turns."""
    return int.from_bytes(webhook_id.bytes[:4], "big", signed=True)


def _unlock(key: list[int]) -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", key)
    except DatabaseError:
        # The connection is gone, and the lock with it.
        logger.warning("Could not release a webhook's lock; its connection is gone.")


# --- The sweep ----------------------------------------------------------------------------------


def webhooks_due(now: dt.datetime | None = None) -> list[uuid.UUID]:
    """Active webhooks whose next delivery is due: new, or its retry's time has come."""
    head = (
        Delivery.objects.filter(webhook=OuterRef("pk"), status=Delivery.Status.PENDING)
        .order_by("sequence")
        .values("next_attempt_at")[:1]
    )
    due = Webhook.objects.filter(active=True).annotate(head_at=Subquery(head))
    return list(due.filter(head_at__lte=now or timezone.now()).values_list("id", flat=True))


def dispatch_due(now: dt.datetime | None = None) -> int:
    """Ask the workers to send every webhook whose next delivery is due (retries, and
    deliveries whose message was lost); returns how many were asked for."""
    asked = 0
    for webhook_id in webhooks_due(now):
        try:
            outbox.dispatch(webhook_id)
        except Exception:
            logger.exception("Could not dispatch webhook %s; the next sweep will.", webhook_id)
        else:
            asked += 1
    return asked
