"""Webhook deliveries on real Celery workers and beat, with PostgreSQL and Redis."""

from __future__ import annotations

import time
import uuid

import pytest

from campaigns.events import NoteRecorded
from eventlog import store
from eventlog.store import NewEvent
from tests.factories import campaign_for
from tests.integration.conftest import wait_for
from tests.webhooks.receiver import Receiver, running
from webhooks import services
from webhooks.models import Delivery

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

WORKER_SETTINGS = {
    "MUSTER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "true",
    "MUSTER_WEBHOOK_RETRY_BASE_SECONDS": "0.2",
    "MUSTER_WEBHOOK_SWEEP_INTERVAL": "0.5",
}


def append_note(campaign_id: uuid.UUID, text: str) -> int:
    event = NewEvent.of(NoteRecorded(text=text), stream=f"campaign:{campaign_id}")
    return store.append(campaign_id, [event]).events[0].sequence


def test_a_worker_killed_mid_delivery_leaves_nothing_skipped_or_out_of_order(
    celery_processes, umpire, settings
):
    settings.MUSTER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    campaign = campaign_for(umpire)
    # The receiver fails the first delivery twice, then holds the third event's delivery open
    # until the worker sending it has been killed.
    with running(Receiver([500, 500])) as receiver:
        registered = services.webhook_create(
            campaign_id=campaign.id, url=receiver.url, event_types=[], actor=umpire
        )
        receiver.secret = registered.secret
        first = celery_processes.worker(**WORKER_SETTINGS)
        celery_processes.beat(**WORKER_SETTINGS)

        sequences = [append_note(campaign.id, f"Sitrep {n}.") for n in range(1, 6)]
        receiver.hold_sequence = sequences[2]
        assert receiver.holding.wait(timeout=60), "the third event was never sent"
        first.kill()
        # The receiver processes the delivery and answers, but its sender is gone: nothing
        # recorded that it was delivered.
        receiver.release.set()
        assert Delivery.objects.get(sequence=sequences[2]).status == "pending"

        celery_processes.worker(**WORKER_SETTINGS)
        wait_for(
            lambda: receiver.sequences(receiver.processed) == sequences,
            timeout=60,
            what="every event to be processed",
        )
        time.sleep(1)  # anything sent twice would arrive now

    # What the receiver acted on: every event once, in order, each signed.
    assert receiver.sequences(receiver.processed) == sequences
    assert all(r.signed for r in receiver.requests)
    # What came over the wire: two failed tries of the first event, then one request per event,
    # but for the delivery in flight when its worker died, which came again after it.
    assert [(r.sequence, r.status) for r in receiver.requests] == [
        (sequences[0], 500),
        (sequences[0], 500),
        (sequences[0], 200),
        (sequences[1], 200),
        (sequences[2], 200),
        (sequences[2], 200),
        (sequences[3], 200),
        (sequences[4], 200),
    ]
    in_flight, again = (r for r in receiver.requests if r.sequence == sequences[2])
    assert in_flight.delivery_id == again.delivery_id  # so the receiver could tell it apart
    deliveries = Delivery.objects.filter(webhook_id=registered.webhook.id).order_by("sequence")
    assert [(d.sequence, d.status) for d in deliveries] == [(s, "delivered") for s in sequences]
    assert [d.attempts for d in deliveries] == [3, 1, 1, 1, 1]  # a killed try leaves no record
