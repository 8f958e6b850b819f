"""Deliveries to a real receiver on 127.0.0.1: in order, signed, retried, never skipped.

On the embedded default a delivery is sent by the web process once the append commits; retries
are sent by the sweep (``webhooks.sending.dispatch_due``), which the tests call themselves.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from django.db import connection, transaction
from django.utils import timezone

from campaigns.events import NoteRecorded
from eventlog import store
from eventlog.store import NewEvent
from tests.webhooks.conftest import note
from tests.webhooks.receiver import Receiver, running
from webhooks import sending
from webhooks.models import Delivery, DeliveryAttempt, Webhook

pytestmark = pytest.mark.django_db

LATER = dt.timedelta(days=1)


def webhook_of(created: dict) -> Webhook:
    return Webhook.objects.get(pk=created["id"])


def test_each_event_is_delivered_in_order_signed_and_whole(
    umpire_api, campaign, register, receiver
):
    created = register()
    appended = [note(umpire_api, campaign, f"Day {day}: quiet.") for day in (1, 2, 3)]

    assert [r.status for r in receiver.requests] == [200, 200, 200]
    assert all(r.signed for r in receiver.requests)
    assert receiver.sequences(receiver.processed) == [e["sequence"] for e in appended]
    first = receiver.requests[0]
    assert first.event == {**appended[0], "sight": "whole"}
    assert first.headers["Muster-Event-Id"] == f"{campaign['id']}:{appended[0]['sequence']}"
    assert first.headers["Muster-Event-Type"] == "campaigns.NoteRecorded"
    assert first.headers["Muster-Delivery-Attempt"] == "1"
    assert first.headers["Content-Type"] == "application/json"
    body = first.body.decode()
    assert f'"webhook":"{created["id"]}"' in body
    assert f'"campaign":"{campaign["id"]}"' in body
    assert set(Delivery.objects.values_list("status", flat=True)) == {"delivered"}


def test_a_receiver_that_fails_twice_then_succeeds_gets_every_event_once_in_order_signed(
    umpire_api, campaign, register, receiver, settings, django_capture_on_commit_callbacks
):
    settings.MUSTER_WEBHOOK_RETRY_BASE_SECONDS = 0  # due again at once: the sweep retries now
    created = register()
    receiver.script = [500, 503]
    campaign_id = uuid.UUID(campaign["id"])
    reports = [
        NewEvent.of(NoteRecorded(text=f"Report {n}."), stream=f"campaign:{campaign_id}")
        for n in range(1, 4)
    ]
    with django_capture_on_commit_callbacks(execute=True):
        sequences = [e.sequence for e in store.append(campaign_id, reports).events]

    # The first event failed once; the two after it wait behind it, unsent.
    assert [(r.sequence, r.status) for r in receiver.requests] == [(sequences[0], 500)]
    assert sending.dispatch_due() == 1  # the sweep: the second try fails too
    assert sending.dispatch_due() == 1  # the third succeeds, and the queue behind it follows
    assert sending.dispatch_due() == 0

    assert [(r.sequence, r.status) for r in receiver.requests] == [
        (sequences[0], 500),
        (sequences[0], 503),
        (sequences[0], 200),
        (sequences[1], 200),
        (sequences[2], 200),
    ]
    assert all(r.signed for r in receiver.requests)
    assert receiver.sequences(receiver.processed) == sequences
    first_tries = [r for r in receiver.requests if r.sequence == sequences[0]]
    assert len({r.delivery_id for r in first_tries}) == 1  # retries keep the delivery's id
    assert [r.headers["Muster-Delivery-Attempt"] for r in first_tries] == ["1", "2", "3"]
    log = umpire_api.get(f"/api/v1/campaigns/{campaign['id']}/webhooks/{created['id']}/deliveries/")
    first = log.json()["results"][0]
    assert (first["status"], first["attempt_count"]) == ("delivered", 3)
    assert [a["status_code"] for a in first["attempts"]] == [500, 503, 200]


def test_a_failed_delivery_waits_out_its_backoff_and_holds_the_queue(
    umpire_api, campaign, register, receiver
):
    created = register()
    receiver.script = [500]
    before = timezone.now()
    note(umpire_api, campaign, "Refused.")
    note(umpire_api, campaign, "Waits.")
    head = Delivery.objects.order_by("sequence").first()
    assert head is not None
    assert head.attempts == 1
    assert before + dt.timedelta(seconds=10) <= head.next_attempt_at
    assert head.next_attempt_at <= timezone.now() + dt.timedelta(seconds=10)

    assert sending.deliver_pending(uuid.UUID(created["id"])) == 0  # not due yet
    assert sending.webhooks_due() == []
    assert len(receiver.requests) == 1

    due_at = head.next_attempt_at + dt.timedelta(seconds=1)
    assert sending.webhooks_due(due_at) == [uuid.UUID(created["id"])]
    assert sending.deliver_pending(uuid.UUID(created["id"]), now=due_at) == 2
    assert receiver.sequences(receiver.processed) == [2, 3]


def test_the_backoff_doubles_up_to_its_cap(settings):
    settings.MUSTER_WEBHOOK_RETRY_BASE_SECONDS = 10
    settings.MUSTER_WEBHOOK_RETRY_MAX_SECONDS = 3600
    delays = [sending.backoff(n).total_seconds() for n in (1, 2, 3, 9, 10, 30)]
    assert delays == [10, 20, 40, 2560, 3600, 3600]


def test_a_delivery_that_fails_every_attempt_pauses_its_webhook_until_redelivered(
    umpire_api, campaign, register, receiver, settings
):
    settings.MUSTER_WEBHOOK_MAX_ATTEMPTS = 2
    created = register()
    receiver.script = [500, 500]
    first = note(umpire_api, campaign, "Lost in the post.")
    sending.deliver_pending(uuid.UUID(created["id"]), now=timezone.now() + LATER)
    later = [note(umpire_api, campaign, f"Queued {n}.") for n in (1, 2)]
    sending.deliver_pending(uuid.UUID(created["id"]), now=timezone.now() + LATER)

    webhook = webhook_of(created)
    failed = Delivery.objects.get(sequence=first["sequence"])
    assert failed.status == "failed"
    assert webhook.active is False
    assert f"Delivery {failed.id}" in webhook.disabled_reason
    assert [r.sequence for r in receiver.requests] == [first["sequence"]] * 2
    assert list(Delivery.objects.filter(status="pending").values_list("sequence", flat=True)) == [
        e["sequence"] for e in later
    ]  # queued while paused, not sent
    assert sending.webhooks_due(timezone.now() + LATER) == []

    url = f"/api/v1/campaigns/{campaign['id']}/webhooks/{created['id']}/deliveries/"
    response = umpire_api.post(f"{url}{failed.id}/redeliver/")

    assert response.status_code == 202
    assert webhook_of(created).active is True
    assert receiver.sequences(receiver.processed) == [first["sequence"]] + [
        e["sequence"] for e in later
    ]


def test_a_webhook_gets_only_the_types_it_asked_for(umpire_api, campaign, register, receiver):
    register(event_types=["campaigns.DiceRolled"])
    note(umpire_api, campaign, "Not wanted.")
    rolled = umpire_api.post(
        f"/api/v1/campaigns/{campaign['id']}/dice/",
        {"die": 6, "purpose": "spotting", "results": [4, 2]},
    )
    assert rolled.status_code == 201, rolled.json()
    assert [r.event["type"] for r in receiver.requests] == ["campaigns.DiceRolled"]
    assert Delivery.objects.count() == 1


def test_events_before_the_webhook_was_made_are_not_sent(umpire_api, campaign, register, receiver):
    note(umpire_api, campaign, "Before.")
    created = register()
    after = note(umpire_api, campaign, "After.")
    assert created["starts_after"] == after["sequence"] - 1
    assert receiver.sequences(receiver.processed) == [after["sequence"]]


def test_a_hidden_event_is_sent_whole_as_the_umpire_sees_it(
    umpire_api, campaign, register, receiver
):
    register()
    hidden = umpire_api.post(
        f"/api/v1/campaigns/{campaign['id']}/journal/",
        {"text": "The ford is mined.", "hidden": {}},
    )
    assert hidden.status_code == 201, hidden.json()
    (received,) = [r for r in receiver.processed if r.sequence == hidden.json()["sequence"]]
    assert received.event["payload"]["text"] == "The ford is mined."
    assert received.event["sight"] == "whole"


def test_the_outbox_commits_with_the_append_or_not_at_all(campaign, register, receiver):
    register()
    campaign_id = uuid.UUID(campaign["id"])
    queued_in_the_transaction = []

    def append_then_fail() -> None:
        with transaction.atomic():
            store.append(campaign_id, [NewEvent("tests.ForceMustered", {}, "force:f1", 1)])
            queued_in_the_transaction.append(Delivery.objects.count())
            raise RuntimeError("the caller's transaction fails after the append")

    with pytest.raises(RuntimeError):
        append_then_fail()
    assert queued_in_the_transaction == [1]  # written by the append itself
    assert Delivery.objects.count() == 0
    assert receiver.requests == []


def test_a_refused_command_queues_nothing(umpire_api, campaign, register, receiver):
    register()
    refused = umpire_api.post(
        f"/api/v1/campaigns/{campaign['id']}/events/",
        {"type": "campaigns.NoteRecorded", "payload": {"text": ""}},
    )
    assert refused.status_code == 400
    assert not Delivery.objects.exists()
    assert receiver.requests == []


def test_a_jobs_events_are_delivered_too(umpire_api, campaign, register, receiver):
    register()
    asked = umpire_api.post(
        f"/api/v1/campaigns/{campaign['id']}/dice/", {"die": 6, "count": 2, "purpose": "ammo"}
    )
    assert asked.status_code == 202, asked.json()
    (received,) = receiver.processed
    assert received.event["job"] == asked.json()["id"]
    assert received.event["type"] == "campaigns.DiceRolled"


def test_two_webhooks_each_get_every_event_and_one_failing_does_not_hold_the_other(
    umpire_api, campaign, webhooks_url, register, receiver
):
    register()
    with running(Receiver([500])) as failing:
        other = umpire_api.post(webhooks_url, {"url": failing.url}).json()
        failing.secret = other["secret"]
        appended = [note(umpire_api, campaign, f"N{n}.") for n in (1, 2)]
    assert receiver.sequences(receiver.processed) == [e["sequence"] for e in appended]
    assert [r.status for r in failing.requests] == [500]
    assert Delivery.objects.filter(webhook_id=other["id"], status="pending").count() == 2


@contextlib.contextmanager
def held_by_another_sender(webhook_id: uuid.UUID) -> Iterator[None]:
    """Another process sending the webhook: its advisory lock on PostgreSQL (from a connection of
    its own), its lease elsewhere."""
    if connection.vendor != "postgresql":
        Webhook.objects.filter(pk=webhook_id).update(
            sending_until=timezone.now() + dt.timedelta(minutes=5)
        )
        yield
        Webhook.objects.filter(pk=webhook_id).update(sending_until=None)
        return
    database = connection.settings_dict
    with psycopg.connect(
        host=database["HOST"], port=database["PORT"], user=database["USER"], dbname=database["NAME"]
    ) as other:
        key = [sending._LOCK_CLASS, sending._lock_object(webhook_id)]
        other.execute("SELECT pg_advisory_lock(%s, %s)", key)
        yield
        other.execute("SELECT pg_advisory_unlock(%s, %s)", key)


def test_a_second_sender_leaves_a_held_webhook_to_its_holder(
    umpire_api, campaign, register, receiver
):
    created = register()
    webhook_id = uuid.UUID(created["id"])
    receiver.script = [500]
    note(umpire_api, campaign, "Fails, to stay queued.")
    with held_by_another_sender(webhook_id):
        assert sending.deliver_pending(webhook_id, now=timezone.now() + LATER) == 0
    assert len(receiver.requests) == 1
    assert sending.deliver_pending(webhook_id, now=timezone.now() + LATER) == 1


def test_the_lease_of_a_sender_that_died_runs_out(umpire_api, campaign, register, receiver):
    if connection.vendor == "postgresql":
        pytest.skip("PostgreSQL's advisory lock goes with a dead sender's connection (test_worker)")
    created = register()
    webhook_id = uuid.UUID(created["id"])
    receiver.script = [500]
    note(umpire_api, campaign, "Queued.")
    # A sender that died holding the webhook: its lease ran out a moment ago.
    Webhook.objects.filter(pk=webhook_id).update(
        sending_until=timezone.now() - dt.timedelta(seconds=1)
    )
    assert sending.deliver_pending(webhook_id, now=timezone.now() + LATER) == 1
    assert webhook_of(created).sending_until is None


def test_a_receiver_that_does_not_answer_in_time_is_a_failed_attempt(
    umpire_api, campaign, register, receiver, settings
):
    settings.MUSTER_WEBHOOK_TIMEOUT_SECONDS = 0.3
    register()
    receiver.hold_sequence = 2
    note(umpire_api, campaign, "Slow.")
    receiver.release.set()
    (attempt,) = DeliveryAttempt.objects.all()
    assert attempt.status_code is None
    assert "timed out" in attempt.error.lower()
    assert Delivery.objects.get().status == "pending"


def test_a_delivery_whose_webhook_was_deleted_meanwhile_is_dropped(
    umpire_api, campaign, register, receiver
):
    created = register()
    receiver.script = [500]
    note(umpire_api, campaign, "Queued.")
    webhook = webhook_of(created)
    delivery = Delivery.objects.get()
    webhook.delete()
    outcome = sending.Outcome(timezone.now(), 5, status_code=200)
    assert sending._record(webhook, delivery, outcome, timezone.now()) is False
    assert not DeliveryAttempt.objects.exists()
