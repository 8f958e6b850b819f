"""Many writers appending to one campaign at once, on PostgreSQL."""

from __future__ import annotations

import threading
import uuid
from collections import Counter

import pytest
from django.db import connection

from campaigns.events import NoteRecorded
from eventlog import store
from eventlog.errors import ConcurrencyConflict
from eventlog.store import NewEvent
from tests.integration.conftest import run_threads

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

WRITERS = 8
APPENDS = 250


def test_concurrent_writers_get_a_gap_free_sequence_and_lose_nothing():
    campaign_id = uuid.uuid4()
    stream = f"campaign:{campaign_id}"

    def work(index: int) -> None:
        for n in range(APPENDS):
            note = NoteRecorded(text=f"writer {index} note {n}")
            store.append(campaign_id, [NewEvent.of(note, stream=stream)])

    assert run_threads(work, WRITERS) == []

    events = list(store.read(campaign_id))
    assert [e.sequence for e in events] == list(range(1, WRITERS * APPENDS + 1))
    assert [e.version for e in events] == list(range(1, WRITERS * APPENDS + 1))
    texts = Counter(e.payload["text"] for e in events)
    assert len(texts) == WRITERS * APPENDS
    for index in range(WRITERS):
        mine = [
            e.payload["text"] for e in events if e.payload["text"].startswith(f"writer {index} ")
        ]
        # Each writer's events are all there, in the order it appended them.
        assert mine == [f"writer {index} note {n}" for n in range(APPENDS)]


def test_with_expected_versions_every_loser_conflicts_and_writes_nothing():
    campaign_id = uuid.uuid4()
    stream = f"campaign:{campaign_id}"
    won: Counter[int] = Counter()
    lost: Counter[int] = Counter()

    def work(index: int) -> None:
        for n in range(APPENDS):
            seen = store.stream_version(campaign_id, stream)
            batch = [
                NewEvent.of(NoteRecorded(text=f"writer {index} note {n} part {p}"), stream=stream)
                for p in range(2)
            ]
            try:
                store.append(campaign_id, batch, expected_versions={stream: seen})
            except ConcurrencyConflict:
                lost[index] += 1
            else:
                won[index] += 1

    assert run_threads(work, WRITERS) == []

    events = list(store.read(campaign_id))
    assert sum(won.values()) + sum(lost.values()) == WRITERS * APPENDS
    assert sum(lost.values()) > 0, "the writers never raced; the test proved nothing"
    assert len(events) == 2 * sum(won.values())
    assert [e.sequence for e in events] == list(range(1, len(events) + 1))
    # No half-written batch: every accepted batch has both of its parts, next to each other.
    for first, second in zip(events[::2], events[1::2], strict=True):
        assert first.payload["text"].removesuffix(" part 0") == second.payload["text"].removesuffix(
            " part 1"
        )
    for index in range(WRITERS):
        mine = {
            e.payload["text"] for e in events if e.payload["text"].startswith(f"writer {index} ")
        }
        assert len(mine) == 2 * won[index]


def test_a_reader_following_the_sequence_never_skips_a_late_commit():
    campaign_id = uuid.uuid4()
    stream = f"campaign:{campaign_id}"
    seen: list[int] = []
    done = threading.Event()

    def follow() -> None:
        try:
            after = 0
            while not done.is_set() or after < store.last_sequence(campaign_id):
                for event in store.read(campaign_id, after=after):
                    seen.append(event.sequence)
                    after = event.sequence
        finally:
            connection.close()

    reader = threading.Thread(target=follow)
    reader.start()

    def work(index: int) -> None:
        for n in range(60):
            store.append(
                campaign_id, [NewEvent.of(NoteRecorded(text=f"{index}/{n}"), stream=stream)]
            )

    errors = run_threads(work, WRITERS)
    done.set()
    reader.join()
    assert errors == []
    assert seen == list(range(1, WRITERS * 60 + 1))
