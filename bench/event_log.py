"""Event log benchmark: Muster's append and fold against raw driver calls, in one run.

Runs on whichever database is configured (``DATABASE_URL``), in a scratch database created for
the run and dropped afterwards. For each operation it measures the raw driver on an equivalent
table first (the baseline), then Muster doing the same work with every guarantee in force
(campaign lock, stream versions, idempotency check, inline projection), and prints events per
second and the ratio to the baseline.

    python -m bench.event_log [--events 3000] [--batches 300] [--fold 100000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
django.setup()

from django.db import connection, transaction  # noqa: E402

from campaigns.events import NoteRecorded  # noqa: E402
from eventlog import commands, projections, store  # noqa: E402
from eventlog.store import NewEvent  # noqa: E402

TARGETS = {"append_one": 0.35, "command_one": 0.2, "append_batch": 0.5, "fold": 0.8}
PAYLOAD = {"text": "2nd Squad holds the ridge; two wounded, one stabilised.", "references": []}
METADATA = {"actor_id": 1}


@dataclass
class Figure:
    name: str
    events: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.events / self.seconds


def timed(name: str, events: int, work: Callable[[], object]) -> Figure:
    started = time.perf_counter()
    work()
    return Figure(name, events, time.perf_counter() - started)


class RawPostgres:
    """The baseline: psycopg on a table shaped like the event table, nothing else."""

    def __init__(self) -> None:
        import psycopg
        from psycopg.rows import dict_row
        from psycopg.types.json import Jsonb

        settings = connection.settings_dict
        self.jsonb = Jsonb
        self.dict_row = dict_row
        self.conn = psycopg.connect(
            host=settings["HOST"] or None,
            port=settings["PORT"] or None,
            user=settings["USER"] or None,
            password=settings["PASSWORD"] or None,
            dbname=settings["NAME"],
        )
        self.conn.execute(
            "CREATE TABLE bench_raw_event (position bigserial PRIMARY KEY, campaign_id uuid, "
            "sequence bigint, stream varchar(200), version integer, type varchar(100), "
            "schema_version smallint, payload jsonb, metadata jsonb, recorded_at timestamptz, "
            "UNIQUE (campaign_id, sequence), UNIQUE (campaign_id, stream, version))"
        )
        self.conn.commit()
        self.sql = (
            "INSERT INTO bench_raw_event (campaign_id, sequence, stream, version, type, "
            "schema_version, payload, metadata, recorded_at) "
            "VALUES (%s, %s, %s, %s, %s, 1, %s, %s, now())"
        )

    def row(self, campaign: uuid.UUID, n: int) -> tuple:
        return (campaign, n, f"campaign:{campaign}", n, "campaigns.NoteRecorded",
                self.jsonb(PAYLOAD), self.jsonb(METADATA))  # fmt: skip

    def insert_one(self, campaign: uuid.UUID, count: int) -> None:
        for n in range(1, count + 1):
            self.conn.execute(self.sql, self.row(campaign, n))
            self.conn.commit()

    def insert_batches(self, campaign: uuid.UUID, batches: int, size: int) -> None:
        for b in range(batches):
            with self.conn.cursor() as cursor:
                cursor.executemany(
                    self.sql, [self.row(campaign, b * size + i + 1) for i in range(size)]
                )
            self.conn.commit()

    def read_all(self, campaign: uuid.UUID) -> int:
        with self.conn.cursor(row_factory=self.dict_row) as cursor:
            cursor.execute(
                "SELECT * FROM bench_raw_event WHERE campaign_id = %s ORDER BY sequence",
                [campaign],
            )
            rows = cursor.fetchall()
        self.conn.commit()
        return len(rows)

    def close(self) -> None:
        self.conn.execute("DROP TABLE bench_raw_event")
        self.conn.commit()
        self.conn.close()


class RawSqlite:
    """The baseline on SQLite: the sqlite3 module on an equivalent table."""

    def __init__(self) -> None:
        import sqlite3

        self.conn = sqlite3.connect(connection.settings_dict["NAME"], isolation_level="IMMEDIATE")
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute(
            "CREATE TABLE bench_raw_event (position integer PRIMARY KEY AUTOINCREMENT, "
            "campaign_id char(32), sequence bigint, stream varchar(200), version integer, "
            "type varchar(100), schema_version smallint, payload text, metadata text, "
            "recorded_at datetime, UNIQUE (campaign_id, sequence), "
            "UNIQUE (campaign_id, stream, version))"
        )
        self.conn.commit()
        self.sql = (
            "INSERT INTO bench_raw_event (campaign_id, sequence, stream, version, type, "
            "schema_version, payload, metadata, recorded_at) "
            "VALUES (?, ?, ?, ?, ?, 1, ?, ?, datetime('now'))"
        )

    def row(self, campaign: uuid.UUID, n: int) -> tuple:
        return (campaign.hex, n, f"campaign:{campaign}", n, "campaigns.NoteRecorded",
                json.dumps(PAYLOAD), json.dumps(METADATA))  # fmt: skip

    def insert_one(self, campaign: uuid.UUID, count: int) -> None:
        for n in range(1, count + 1):
            self.conn.execute(self.sql, self.row(campaign, n))
            self.conn.commit()

    def insert_batches(self, campaign: uuid.UUID, batches: int, size: int) -> None:
        for b in range(batches):
            self.conn.executemany(
                self.sql, [self.row(campaign, b * size + i + 1) for i in range(size)]
            )
            self.conn.commit()

    def read_all(self, campaign: uuid.UUID) -> int:
        cursor = self.conn.execute(
            "SELECT * FROM bench_raw_event WHERE campaign_id = ? ORDER BY sequence", [campaign.hex]
        )
        names = [d[0] for d in cursor.description]
        rows = [
            {**dict(zip(names, r, strict=True)), "payload": json.loads(r[7]),
             "metadata": json.loads(r[8])}
            for r in cursor.fetchall()
        ]  # fmt: skip
        return len(rows)

    def close(self) -> None:
        self.conn.execute("DROP TABLE bench_raw_event")
        self.conn.commit()
        self.conn.close()


def muster_append_one(campaign: uuid.UUID, count: int, *, project: bool = True) -> None:
    stream = f"campaign:{campaign}"
    note = NoteRecorded(**PAYLOAD)
    for _ in range(count):
        store.append(campaign, [NewEvent.of(note, stream=stream)], actor_id=1, project=project)


def muster_command_one(count: int) -> None:
    """Notes recorded through the command runner: the durable transaction, the campaign lock
    taken first, the decision, the append, the inline projection and the command record."""
    campaign, umpire = uuid.uuid4(), _bench_user()
    commands.run(
        "campaigns.campaign_create",
        campaign_id=campaign,
        params={"name": "Bench", "ruleset": "sg2", "options": {}},
        actor_id=umpire,
    )
    for _ in range(count):
        commands.run("campaigns.note_record", campaign_id=campaign, params=PAYLOAD, actor_id=umpire)


def _bench_user() -> int:
    from django.contrib.auth import get_user_model

    user, _ = get_user_model().objects.get_or_create(username="bench")
    return user.pk


def muster_append_batches(
    campaign: uuid.UUID, batches: int, size: int, *, project: bool = True
) -> None:
    stream = f"campaign:{campaign}"
    note = NoteRecorded(**PAYLOAD)
    for _ in range(batches):
        events = [NewEvent.of(note, stream=stream) for _ in range(size)]
        store.append(campaign, events, actor_id=1, project=project)


def muster_fold(campaign: uuid.UUID) -> int:
    rows = projections.fold_events(store.read(campaign))
    return len(rows.tables.get("campaigns.journalnote", {}))


def interleaved(
    rounds: int, baseline: Callable[[], Figure], ours: Callable[[], Figure]
) -> tuple[Figure, Figure]:
    """Alternate the two measurements and keep each one's median round, so a slow moment of the
    machine does not land on one side only."""
    pairs = []
    for round_number in range(rounds):
        if round_number % 2:
            second, first = ours(), baseline()
        else:
            first, second = baseline(), ours()
        pairs.append((first, second))
    middle = rounds // 2
    return (
        sorted((p[0] for p in pairs), key=lambda f: f.rate)[middle],
        sorted((p[1] for p in pairs), key=lambda f: f.rate)[middle],
    )


def run(events: int, batches: int, fold: int, rounds: int) -> list[tuple[str, Figure, Figure]]:
    raw = RawPostgres() if connection.vendor == "postgresql" else RawSqlite()
    try:
        per_round = max(1, events // rounds)
        batches_per_round = max(1, batches // rounds)
        results = [
            (
                "append_one",
                *interleaved(
                    rounds,
                    lambda: timed("raw single-row insert per transaction", per_round,
                                  lambda: raw.insert_one(uuid.uuid4(), per_round)),
                    lambda: timed("Muster append, 1 event + journal row", per_round,
                                  lambda: muster_append_one(uuid.uuid4(), per_round)),
                ),
            ),
            (
                "append_one",
                *interleaved(
                    rounds,
                    lambda: timed("raw single-row insert per transaction", per_round,
                                  lambda: raw.insert_one(uuid.uuid4(), per_round)),
                    lambda: timed("Muster append, 1 event, log only", per_round,
                                  lambda: muster_append_one(uuid.uuid4(), per_round,
                                                            project=False)),
                ),
            ),
            (
                "command_one",
                *interleaved(
                    rounds,
                    lambda: timed("raw single-row insert per transaction", per_round,
                                  lambda: raw.insert_one(uuid.uuid4(), per_round)),
                    lambda: timed("Muster command, a note through the runner", per_round,
                                  lambda: muster_command_one(per_round)),
                ),
            ),
            (
                "append_batch",
                *interleaved(
                    rounds,
                    lambda: timed("raw executemany, 100 rows per transaction",
                                  batches_per_round * 100,
                                  lambda: raw.insert_batches(uuid.uuid4(), batches_per_round, 100)),
                    lambda: timed("Muster append, 100 events, log only", batches_per_round * 100,
                                  lambda: muster_append_batches(uuid.uuid4(), batches_per_round,
                                                                100, project=False)),
                ),
            ),
            (
                "append_batch",
                *interleaved(
                    rounds,
                    lambda: timed("raw executemany, 100 rows per transaction",
                                  batches_per_round * 100,
                                  lambda: raw.insert_batches(uuid.uuid4(), batches_per_round, 100)),
                    lambda: timed("Muster append, 100 events + journal rows",
                                  batches_per_round * 100,
                                  lambda: muster_append_batches(uuid.uuid4(), batches_per_round,
                                                                100)),
                ),
            ),
        ]  # fmt: skip
        a, b = uuid.uuid4(), uuid.uuid4()
        raw.insert_batches(a, fold // 1000, 1000)
        with transaction.atomic():
            for _ in range(fold // 1000):
                store.append(
                    b,
                    [NewEvent.of(NoteRecorded(**PAYLOAD), stream=f"campaign:{b}")] * 1000,
                    project=False,
                )
        results.append(
            (
                "fold",
                *interleaved(
                    rounds,
                    lambda: timed("raw ordered read into dicts", fold, lambda: raw.read_all(a)),
                    lambda: timed("Muster fold (read, upcast, project)", fold,
                                  lambda: muster_fold(b)),
                ),
            )
        )  # fmt: skip
        return results
    finally:
        raw.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=3000, help="one-event appends")
    parser.add_argument("--batches", type=int, default=300, help="100-event appends")
    parser.add_argument("--fold", type=int, default=100_000, help="events folded (x1000)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median kept)")
    args = parser.parse_args()

    creation = connection.creation
    original = connection.settings_dict["NAME"]
    scratch = creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        print(f"Event log benchmark on {connection.vendor} ({scratch}), scratch database")
        print(f"{'operation':44} {'events/s':>12}   ratio  target")
        for key, baseline, ours in run(args.events, args.batches, args.fold, args.rounds):
            ratio = ours.rate / baseline.rate
            verdict = "ok" if ratio >= TARGETS[key] else "BELOW"
            print(f"{baseline.name:44} {baseline.rate:12,.0f}")
            print(
                f"{ours.name:44} {ours.rate:12,.0f}   {ratio:5.2f}  >= {TARGETS[key]:.2f} {verdict}"
            )
    finally:
        creation.destroy_test_db(original, verbosity=0)


if __name__ == "__main__":
    main()
