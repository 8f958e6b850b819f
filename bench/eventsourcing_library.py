"""The ``eventsourcing`` library on Muster's event log benchmark, against the same raw baselines.

Measures the library's PostgreSQL persistence (``eventsourcing.postgres``) doing the work that
``bench.event_log`` measures for Muster, in a scratch database created and dropped the same way,
next to the same raw psycopg baselines (``RawPostgres``), interleaved round by round:

* one event per transaction: ``Application.save`` of an aggregate with one pending event (the
  library's normal path: JSON transcoding, exclusive table lock, NOTIFY, insert), and the bare
  ``PostgresApplicationRecorder.insert_events`` of one stored event; optimistic concurrency is
  always on, as the primary key ``(originator_id, originator_version)``;
* 100 events per transaction: one aggregate saved with 100 pending events, and ``insert_events``
  of 100 stored events;
* reading 100,000 events in order: ``ApplicationSubscription`` (how the library follows the
  application log: the recorder's subscription plus the mapper), the recorder's
  ``select_notifications`` paged and mapped by hand, and ``select_events`` of the one aggregate
  that holds them (the repository's read path, without folding into the aggregate).

Before timing, it checks that a stale save is refused and writes nothing, and reports whether the
refused insert left a gap in the notification ids.

    python -m bench.eventsourcing_library [--events 3000] [--batches 300] [--fold 100000]
                                          [--rounds 3]

PostgreSQL only (``DATABASE_URL=postgres://...``). Needs the library, which Muster itself does not
depend on: ``pip install "eventsourcing[postgres]==9.5.6"`` (the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import functools
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from django.db import connection

from bench.event_log import PAYLOAD, TARGETS, Figure, RawPostgres, interleaved, timed

LIBRARY_PIN = "eventsourcing[postgres]==9.5.6"
APPLICATION_NAME = "MusterBench"  # the library names its table "musterbench_events"
READ_PAGE = 500  # what the library's own subscription asks the recorder for at a time


@dataclass
class Library:
    """The pieces of the library the benchmark uses, imported on demand."""

    app: Any  # eventsourcing.application.Application
    campaign: type  # an eventsourcing.domain.Aggregate subclass
    stored_event: type  # eventsourcing.persistence.StoredEvent
    integrity_error: type[Exception]  # eventsourcing.persistence.IntegrityError
    subscription: type  # eventsourcing.projection.ApplicationSubscription
    version: str


def load_library(settings: dict[str, Any]) -> Library:
    """Import the library and open an application on the database in ``settings``; exits with an
    install hint when the library is missing."""
    try:
        from eventsourcing.application import Application
        from eventsourcing.domain import Aggregate, event
        from eventsourcing.persistence import IntegrityError, StoredEvent
        from eventsourcing.projection import ApplicationSubscription
    except ImportError as exc:
        raise SystemExit(
            f"bench.eventsourcing_library needs the eventsourcing library ({exc}).\n"
            f'Install it with: pip install "{LIBRARY_PIN}"  (or: pip install -e ".[bench]")'
        ) from exc

    class Campaign(Aggregate):
        """One campaign stream; the aggregate's version is the stream version."""

        def __init__(self) -> None:
            self.notes = 0

        @event("NoteRecorded")
        def record_note(self, text: str, references: list, actor_id: int) -> None:
            self.notes += 1

    class MusterBench(Application):
        name = APPLICATION_NAME

    app = MusterBench(
        env={
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": settings["NAME"],
            "POSTGRES_HOST": settings["HOST"] or "127.0.0.1",
            "POSTGRES_PORT": str(settings["PORT"] or 5432),
            "POSTGRES_USER": settings["USER"] or "postgres",
            "POSTGRES_PASSWORD": settings["PASSWORD"] or "",
        }
    )
    return Library(
        app=app,
        campaign=Campaign,
        stored_event=StoredEvent,
        integrity_error=IntegrityError,
        subscription=ApplicationSubscription,
        version=metadata.version("eventsourcing"),
    )


def note(campaign: Any) -> None:
    campaign.record_note(text=PAYLOAD["text"], references=PAYLOAD["references"], actor_id=1)


def save_one(lib: Library, count: int) -> None:
    """``count`` saves of one event each on one new aggregate (its Created event is the first)."""
    campaign = lib.campaign()
    lib.app.save(campaign)
    for _ in range(count - 1):
        note(campaign)
        lib.app.save(campaign)


def save_batches(lib: Library, batches: int, size: int) -> None:
    """``batches`` saves of ``size`` pending events each on one new aggregate."""
    campaign = lib.campaign()
    for b in range(batches):
        for _ in range(size - 1 if b == 0 else size):
            note(campaign)
        lib.app.save(campaign)


class RecorderWriter:
    """Stored events straight into the application's recorder, without aggregates or mapper: the
    floor under ``Application.save``."""

    def __init__(self, lib: Library) -> None:
        self.lib = lib
        self.recorder = lib.app.recorder
        probe = lib.campaign()
        note(probe)
        stored = lib.app.mapper.to_stored_event(probe.collect_events()[-1])
        self.topic, self.state = stored.topic, stored.state

    def events(self, originator_id: uuid.UUID, first: int, count: int) -> list:
        return [
            self.lib.stored_event(originator_id, version, self.topic, self.state)
            for version in range(first, first + count)
        ]

    def insert_one(self, count: int) -> None:
        originator_id = uuid.uuid4()
        for version in range(1, count + 1):
            self.recorder.insert_events(self.events(originator_id, version, 1))

    def insert_batches(self, batches: int, size: int) -> None:
        originator_id = uuid.uuid4()
        for b in range(batches):
            self.recorder.insert_events(self.events(originator_id, b * size + 1, size))


def write_fold_events(lib: Library, count: int) -> tuple[uuid.UUID, int]:
    """``count`` events on one aggregate, saved 1,000 at a time; returns the aggregate's id and
    the last notification id before them."""
    before = lib.app.recorder.max_notification_id() or 0
    campaign = lib.campaign()
    pending = 1
    for _ in range(count - 1):
        note(campaign)
        pending += 1
        if pending == 1000:
            lib.app.save(campaign)
            pending = 0
    lib.app.save(campaign)
    return campaign.id, before


def follow_log(lib: Library, after: int, count: int) -> int:
    """Follow the application log from ``after`` with the library's subscription until ``count``
    domain events have arrived."""
    seen = 0
    with lib.subscription(lib.app, gt=after) as subscription:
        for _event, _tracking in subscription:
            seen += 1
            if seen == count:
                break
    return seen


def select_notifications(lib: Library, after: int, count: int) -> int:
    """Page through the application log with the recorder, mapping each notification."""
    recorder, mapper = lib.app.recorder, lib.app.mapper
    events: list[object] = []
    last = after
    while len(events) < count:
        page = recorder.select_notifications(
            start=last, limit=min(READ_PAGE, count - len(events)), inclusive_of_start=False
        )
        if not page:
            break
        events.extend(map(mapper.to_domain_event, page))
        last = page[-1].id
    return len(events)


def select_stream(lib: Library, originator_id: uuid.UUID) -> int:
    """Read one aggregate's events in version order (what the repository does), mapped."""
    return len(list(lib.app.events.get(originator_id)))


def check_conflict(lib: Library) -> str:
    """A stale copy of an aggregate must be refused and write nothing; report the ids either side
    of the refusal, since a refused insert may still consume a notification id."""
    campaign = lib.campaign()
    lib.app.save(campaign)
    stale = lib.app.repository.get(campaign.id)
    note(campaign)
    lib.app.save(campaign)
    last_ok = lib.app.recorder.max_notification_id()
    note(stale)
    try:
        lib.app.save(stale)
    except lib.integrity_error:
        outcome = "stale save raised IntegrityError"
    else:
        raise AssertionError("a stale save was accepted")
    stored = len(list(lib.app.events.get(campaign.id)))
    if stored != 2:
        raise AssertionError(f"the refused save left {stored - 2} events behind")
    note(campaign)
    next_id = lib.app.save(campaign)[0].notification.id
    return (
        f"conflict check: {outcome}, nothing written; next notification id "
        f"{next_id} after {last_ok} (gap of {next_id - last_ok - 1})"
    )


def run(
    lib: Library, events: int, batches: int, fold: int, rounds: int
) -> list[tuple[str, Figure, Figure]]:
    raw = RawPostgres()
    writer = RecorderWriter(lib)
    try:
        per_round = max(1, events // rounds)
        batch_events = max(1, batches // rounds) * 100
        batches_per_round = batch_events // 100
        results = [
            (
                "append_one",
                *interleaved(
                    rounds,
                    lambda: timed("raw single-row insert per transaction", per_round,
                                  lambda: raw.insert_one(uuid.uuid4(), per_round)),
                    lambda: timed("es Application.save, 1 event", per_round,
                                  lambda: save_one(lib, per_round)),
                ),
            ),
            (
                "append_one",
                *interleaved(
                    rounds,
                    lambda: timed("raw single-row insert per transaction", per_round,
                                  lambda: raw.insert_one(uuid.uuid4(), per_round)),
                    lambda: timed("es recorder.insert_events, 1 event", per_round,
                                  lambda: writer.insert_one(per_round)),
                ),
            ),
            (
                "append_batch",
                *interleaved(
                    rounds,
                    lambda: timed("raw executemany, 100 rows per transaction", batch_events,
                                  lambda: raw.insert_batches(uuid.uuid4(), batches_per_round, 100)),
                    lambda: timed("es Application.save, 100 events", batch_events,
                                  lambda: save_batches(lib, batches_per_round, 100)),
                ),
            ),
            (
                "append_batch",
                *interleaved(
                    rounds,
                    lambda: timed("raw executemany, 100 rows per transaction", batch_events,
                                  lambda: raw.insert_batches(uuid.uuid4(), batches_per_round, 100)),
                    lambda: timed("es recorder.insert_events, 100 events", batch_events,
                                  lambda: writer.insert_batches(batches_per_round, 100)),
                ),
            ),
        ]  # fmt: skip
        campaign = uuid.uuid4()
        raw.insert_batches(campaign, fold // 1000, 1000)
        originator_id, after = write_fold_events(lib, fold)
        readers: list[tuple[str, Callable[[], int]]] = [
            ("es ApplicationSubscription (follow log)", lambda: follow_log(lib, after, fold)),
            ("es select_notifications + mapper", lambda: select_notifications(lib, after, fold)),
            ("es select_events (1 aggregate) + mapper", lambda: select_stream(lib, originator_id)),
        ]
        for name, read in readers:
            results.append(
                (
                    "fold",
                    *interleaved(
                        rounds,
                        lambda: timed("raw ordered read into dicts", fold,
                                      lambda: raw.read_all(campaign)),
                        functools.partial(timed, name, fold,
                                          functools.partial(_expect, read, fold)),
                    ),
                )
            )  # fmt: skip
        return results
    finally:
        raw.close()


def _expect(read: Callable[[], int], count: int) -> None:
    got = read()
    if got != count:
        raise AssertionError(f"read {got} events, expected {count}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=3000, help="one-event appends")
    parser.add_argument("--batches", type=int, default=300, help="100-event appends")
    parser.add_argument("--fold", type=int, default=100_000, help="events read (x1000)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median kept)")
    args = parser.parse_args()

    if connection.vendor != "postgresql":
        raise SystemExit("bench.eventsourcing_library needs PostgreSQL: set DATABASE_URL.")
    creation = connection.creation
    original = connection.settings_dict["NAME"]
    scratch = creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    lib = None
    try:
        lib = load_library(connection.settings_dict)
        print(f"eventsourcing {lib.version} benchmark on {connection.vendor} ({scratch}), "
              "scratch database; targets are Muster's")  # fmt: skip
        print(check_conflict(lib))
        print(f"{'operation':44} {'events/s':>12}   ratio  target")
        for key, baseline, ours in run(lib, args.events, args.batches, args.fold, args.rounds):
            ratio = ours.rate / baseline.rate
            verdict = "ok" if ratio >= TARGETS[key] else "BELOW"
            print(f"{baseline.name:44} {baseline.rate:12,.0f}")
            print(
                f"{ours.name:44} {ours.rate:12,.0f}   {ratio:5.2f}  >= {TARGETS[key]:.2f} {verdict}"
            )
    finally:
        if lib is not None:
            lib.app.close()
        creation.destroy_test_db(original, verbosity=0)


if __name__ == "__main__":
    main()
