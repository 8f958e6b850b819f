"""The event log's guarantees, on whichever database the suite runs against."""

from __future__ import annotations

import uuid

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from campaigns.events import NoteRecorded
from eventlog import catalogue, store
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, ConcurrencyConflict
from eventlog.models import Event
from eventlog.store import NewEvent

pytestmark = pytest.mark.django_db


def note(text: str, campaign_id: uuid.UUID) -> NewEvent:
    return NewEvent.of(NoteRecorded(text=text), stream=f"campaign:{campaign_id}")


@pytest.fixture
def campaign_id() -> uuid.UUID:
    return uuid.uuid4()


def test_sequence_and_stream_version_count_up_from_one(campaign_id):
    first = store.append(campaign_id, [note("a", campaign_id)]).events
    rest = store.append(campaign_id, [note("b", campaign_id), note("c", campaign_id)]).events
    assert [e.sequence for e in first + rest] == [1, 2, 3]
    assert [e.version for e in first + rest] == [1, 2, 3]
    assert store.last_sequence(campaign_id) == 3
    assert store.stream_version(campaign_id, f"campaign:{campaign_id}") == 3


def test_each_campaign_has_its_own_gap_free_sequence(campaign_id):
    other = uuid.uuid4()
    store.append(campaign_id, [note("a", campaign_id)])
    store.append(other, [note("x", other)])
    store.append(campaign_id, [note("b", campaign_id)])
    assert [e.sequence for e in store.read(campaign_id)] == [1, 2]
    assert [e.sequence for e in store.read(other)] == [1]


def test_events_read_back_exactly_as_appended(campaign_id):
    appended = store.append(
        campaign_id, [note("Rain all night", campaign_id)], actor_id=7, metadata={"why": "test"}
    ).events[0]
    (read,) = store.read(campaign_id)
    assert read == appended
    assert read.payload == {"text": "Rain all night", "references": []}
    assert read.metadata == {"why": "test", "actor_id": 7}


def test_a_wrong_expected_version_conflicts_and_appends_nothing(campaign_id):
    stream = f"campaign:{campaign_id}"
    store.append(campaign_id, [note("a", campaign_id)])
    with pytest.raises(ConcurrencyConflict) as refused:
        store.append(campaign_id, [note("b", campaign_id)], expected_versions={stream: 0})
    assert refused.value.code == "event.version_conflict"
    assert refused.value.status == 409
    assert [e.payload["text"] for e in store.read(campaign_id)] == ["a"]
    assert store.last_sequence(campaign_id) == 1


def test_the_right_expected_version_appends(campaign_id):
    stream = f"campaign:{campaign_id}"
    store.append(campaign_id, [note("a", campaign_id)], expected_versions={stream: 0})
    store.append(campaign_id, [note("b", campaign_id)], expected_versions={stream: 1})
    assert store.stream_version(campaign_id, stream) == 2


def test_an_idempotency_key_used_twice_appends_once(campaign_id):
    first = store.append(campaign_id, [note("a", campaign_id)], idempotency_key="k1")
    again = store.append(campaign_id, [note("a", campaign_id)], idempotency_key="k1")
    assert not first.replayed
    assert again.replayed
    assert again.events == first.events
    assert store.last_sequence(campaign_id) == 1
    # The key belongs to the campaign: another campaign may use it.
    other = uuid.uuid4()
    assert not store.append(other, [note("a", other)], idempotency_key="k1").replayed


def test_a_replayed_batch_returns_every_event_of_the_first_append(campaign_id):
    batch = [note(str(i), campaign_id) for i in range(3)]
    first = store.append(campaign_id, batch, idempotency_key="batch")
    again = store.append(campaign_id, batch, idempotency_key="batch")
    assert [e.sequence for e in again.events] == [e.sequence for e in first.events] == [1, 2, 3]


def test_an_event_in_the_wrong_stream_category_is_refused(campaign_id):
    with pytest.raises(CommandError) as refused:
        NewEvent.of(NoteRecorded(text="a"), stream=f"unit:{campaign_id}")
    assert refused.value.code == "event.wrong_stream"


def test_an_unknown_type_and_an_invalid_payload_are_refused(campaign_id):
    with pytest.raises(CommandError) as unknown:
        NewEvent.from_raw("campaigns.NoSuchThing", {}, stream=f"campaign:{campaign_id}")
    assert unknown.value.code == "event.unknown_type"
    with pytest.raises(CommandError) as invalid:
        NewEvent.from_raw("campaigns.NoteRecorded", {"text": ""}, stream=f"campaign:{campaign_id}")
    assert invalid.value.code == "event.invalid_payload"
    assert invalid.value.field == "payload.text"


def test_appending_nothing_is_a_programming_error(campaign_id):
    with pytest.raises(ValueError, match="Nothing to append"):
        store.append(campaign_id, [])


def test_large_batches_are_inserted_in_chunks(campaign_id):
    events = store.append(campaign_id, [note(str(i), campaign_id) for i in range(1201)]).events
    assert [e.sequence for e in events] == list(range(1, 1202))
    assert len({e.position for e in events}) == 1201


@pytest.mark.parametrize(
    "statement", ["UPDATE eventlog_event SET type = 'x'", "DELETE FROM eventlog_event"]
)
def test_raw_sql_cannot_change_or_remove_events(campaign_id, statement):
    store.append(campaign_id, [note("a", campaign_id)])
    with (
        pytest.raises((IntegrityError, DatabaseError), match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(statement)
    assert Event.objects.filter(campaign_id=campaign_id).count() == 1


def test_the_orm_cannot_change_or_remove_events_either(campaign_id):
    store.append(campaign_id, [note("a", campaign_id)])
    with pytest.raises((IntegrityError, DatabaseError)), transaction.atomic():
        Event.objects.filter(campaign_id=campaign_id).update(type="x")
    with pytest.raises((IntegrityError, DatabaseError)), transaction.atomic():
        Event.objects.filter(campaign_id=campaign_id).delete()
    assert Event.objects.get(campaign_id=campaign_id).type == "campaigns.NoteRecorded"


class TestUpcasting:
    """Old payloads are brought up to date when read; the stored row never changes."""

    @pytest.fixture
    def versioned_type(self):
        @event_type(
            "tests.SquadRenamed",
            stream="campaign",
            version=3,
            upcasters={
                1: lambda p: {"new_name": p["name"]},
                2: lambda p: {**p, "reason": "not recorded"},
            },
        )
        class SquadRenamed(EventPayload):
            new_name: str
            reason: str

        yield SquadRenamed
        catalogue.unregister("tests.SquadRenamed")

    def test_a_version_one_payload_is_read_as_the_current_version(
        self, versioned_type, campaign_id
    ):
        stored = NewEvent("tests.SquadRenamed", {"name": "2nd Squad"}, f"campaign:{campaign_id}", 1)
        store.append(campaign_id, [stored], project=False)
        (read,) = store.read(campaign_id)
        assert read.schema_version == 1
        assert read.payload == {"new_name": "2nd Squad", "reason": "not recorded"}
        assert Event.objects.get(campaign_id=campaign_id).payload == {"name": "2nd Squad"}

    def test_a_current_payload_is_read_unchanged(self, versioned_type, campaign_id):
        current = versioned_type(new_name="Hammer", reason="battle honour")
        store.append(campaign_id, [NewEvent.of(current, stream=f"campaign:{campaign_id}")])
        (read,) = store.read(campaign_id)
        assert read.schema_version == 3
        assert read.payload == {"new_name": "Hammer", "reason": "battle honour"}

    def test_a_type_without_its_upcasters_is_refused_at_declaration(self):
        with pytest.raises(ValueError, match="needs upcasters from versions \\[2\\]"):
            event_type("tests.Broken", stream="campaign", version=3, upcasters={1: dict})

    def test_type_names_must_be_app_and_past_tense_verb(self):
        with pytest.raises(ValueError, match=r"app\.PastTenseVerb"):
            event_type("renamed", stream="campaign")


def test_read_filters_by_type_stream_and_range(campaign_id):
    store.append(campaign_id, [note(str(i), campaign_id) for i in range(5)])
    assert [e.sequence for e in store.read(campaign_id, after=1, upto=3)] == [2, 3]
    assert [e.sequence for e in store.read(campaign_id, limit=2)] == [1, 2]
    assert list(store.read(campaign_id, types=["campaigns.DiceRolled"])) == []
    assert len(list(store.read(campaign_id, stream=f"campaign:{campaign_id}"))) == 5
