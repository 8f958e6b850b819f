"""Scale benchmark: a campaign of 1k to 1M events, built through Muster's commands, then read.

For each size it builds one campaign the way a table would (two reinforced combat companies from
``examples/``, battles with casualties, medical treatment, casevac and after-action, rest and
replacements between them, journal notes as filler) through the real append path: every write
is a command with its inline projections. It then measures, beside a raw-driver baseline on the
same database in the same run:

- append latency: the median command, against ``executemany`` of as many event-shaped rows;
- reads through the API (Django's test client): a unit now, as of an early and a late point
  (``?as_of=``), a page of its history, against an indexed lookup on the same tables;
- ``manage.py rebuild_projections`` and ``manage.py export_campaign`` for the campaign, each in a
  subprocess, their time and peak memory, against a subprocess reading the campaign's events with
  the raw driver;
- throughput under gunicorn (locust, headless) at 1, 8 and 32 clients for the force roster, a
  unit and a unit as of a battle, as a share of ``/healthz`` in the same run.

Runs on whichever database is configured (``DATABASE_URL``), in a scratch database created for
the run and dropped afterwards.

    python -m bench.scale [--sizes 1000,10000] [--repeats 15] [--seconds 5] [--rounds 3]
                          [--workers 3] [--keep]
    python -m bench.scale --grow CAMPAIGN --sizes 1000000   # a kept campaign, grown by notes
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
# As served: DEBUG would also keep every query's text in memory and slow every command.
os.environ.setdefault("DEBUG", "false")
django.setup()

from celery import current_app as celery_app  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.cache import caches  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test import Client  # noqa: E402

from accounts.tokens import token_issue  # noqa: E402
from battles import services as battles  # noqa: E402
from battles.models import Battle  # noqa: E402
from campaigns import services  # noqa: E402
from campaigns.calendar import calendar_advance  # noqa: E402
from campaigns.events import NoteRecorded  # noqa: E402
from campaigns.models import Campaign  # noqa: E402
from demo.management.commands.demo import Command as Demo  # noqa: E402
from eventlog import commands, store  # noqa: E402
from eventlog.api.read_cache import READS_CACHE  # noqa: E402
from eventlog.errors import CommandError as Refused  # noqa: E402
from eventlog.models import Event  # noqa: E402
from eventlog.store import NewEvent  # noqa: E402
from rosters import services as rosters  # noqa: E402
from rosters.models import Force, Trooper, Unit, UnitHistoryEntry  # noqa: E402
from rosters.replacements import (  # noqa: E402
    platoon_ledger,
    replacements_assign,
    replacements_request,
)

ROOT = Path(__file__).resolve().parents[1]
COMPANY = ROOT / "examples" / "sg2-reinforced-combat-company.yaml"
CLIENTS = (1, 8, 32)
# Above this size the journal notes that fill the gaps between battles go a hundred to an
# append: one note per command would take hours at a million events, and the notes only make
# the log long (every battle, rest and refit is still a command of its own).
FILLER_BATCHED_ABOVE = 100_000
FILLER_BATCH = 100
# The issue's targets: as of a late point at 1M events under 50 ms and within 3x of now; a unit
# and a unit as of a battle at >= 0.7 of /healthz's throughput at 32 clients, the roster >= 0.5.
LATE_AS_OF_MS = 50.0
LATE_AS_OF_VS_NOW = 3.0
WORKER_MEMORY_MIB = 300.0  # ... with the web worker's memory under 300 MB
THROUGHPUT_TARGETS = {"unit": 0.7, "unit as of battle": 0.7, "force roster": 0.5}
NOTES = (
    "Patrol back at 0400; nothing moving on the ridge road.",
    "Resupply convoy in: ammunition, rations, two crates of plasma cells.",
    "Rain all day. The ford is up a metre; vehicles stay on this bank.",
    "Brigade asks for a prisoner. 2nd Platoon to try tonight.",
    "Mail came up with the water bowser. Morale better.",
    "Engineers report the culvert at grid 4471 wired for demolition.",
)


# --- Figures -------------------------------------------------------------------------------------


@dataclass
class Line:
    name: str
    ours: float
    baseline: float
    unit: str = "ms"
    target: str = ""
    verdict: str = ""
    # Where the ratio is the median of several measured ratios rather than ours / baseline.
    measured_ratio: float | None = None

    @property
    def ratio(self) -> float:
        if self.measured_ratio is not None:
            return self.measured_ratio
        return self.ours / self.baseline if self.baseline else float("inf")


@dataclass
class Built:
    campaign: Campaign
    size: int
    seconds: float
    battles: list[Battle]
    skipped_battles: int
    imported_at: int
    commands: list[tuple[float, int]] = field(default_factory=list)


def median_ms(work: Callable[[], object], repeats: int) -> float:
    """The median wall time of ``work`` in milliseconds, after one call to warm it."""
    work()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


# --- The raw driver baseline ---------------------------------------------------------------------


class Raw:
    """The baseline: the bare driver on the same database, no Django."""

    def __init__(self) -> None:
        self.postgres = connection.vendor == "postgresql"
        if self.postgres:
            import psycopg

            s = connection.settings_dict
            # Autocommit, as Django reads: a lookup is one round trip, with no COMMIT after it.
            self.conn: Any = psycopg.connect(
                host=s["HOST"] or None, port=s["PORT"] or None, user=s["USER"] or None,
                password=s["PASSWORD"] or None, dbname=s["NAME"], autocommit=True,
            )  # fmt: skip
            self.mark = "%s"
            kinds = "bigserial PRIMARY KEY", "uuid", "jsonb", "timestamptz"
        else:
            import sqlite3

            self.conn = sqlite3.connect(connection.settings_dict["NAME"], timeout=20)
            # Muster's own settings (config/settings/base.py): a commit does not wait for fsync.
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.mark = "?"
            kinds = "integer PRIMARY KEY AUTOINCREMENT", "char(32)", "text", "datetime"
        self.conn.execute(
            f"CREATE TABLE bench_scale_event (position {kinds[0]}, campaign_id {kinds[1]}, "
            f"sequence bigint, stream varchar(200), version integer, type varchar(100), "
            f"schema_version smallint, payload {kinds[2]}, metadata {kinds[2]}, "
            f"recorded_at {kinds[3]}, UNIQUE (campaign_id, sequence), "
            f"UNIQUE (campaign_id, stream, version))"
        )
        self.conn.commit()
        m = self.mark
        now = "now()" if self.postgres else "datetime('now')"
        self.insert = (
            "INSERT INTO bench_scale_event (campaign_id, sequence, stream, version, type, "
            f"schema_version, payload, metadata, recorded_at) VALUES ({m}, {m}, {m}, {m}, {m}, 1, "
            f"{m}, {m}, {now})"
        )
        self.campaign = uuid.uuid4()
        self.sequence = 0

    def key(self, value: uuid.UUID) -> Any:
        return value if self.postgres else value.hex

    def json(self, value: Any) -> Any:
        if self.postgres:
            from psycopg.types.json import Jsonb

            return Jsonb(value)
        return json.dumps(value)

    def append(self, count: int) -> None:
        """``count`` event-shaped rows in one transaction with ``executemany``."""
        rows = []
        for _ in range(count):
            self.sequence += 1
            rows.append((
                self.key(self.campaign), self.sequence, f"campaign:{self.campaign}",
                self.sequence, "campaigns.NoteRecorded", self.json({"text": NOTES[0]}),
                self.json({"actor_id": 1}),
            ))  # fmt: skip
        if self.postgres:
            with self.conn.transaction():
                self.conn.cursor().executemany(self.insert, rows)
        else:
            self.conn.executemany(self.insert, rows)
            self.conn.commit()

    def one(self, sql: str, params: list[Any]) -> list[Any]:
        cursor = self.conn.cursor()
        cursor.execute(sql, params)
        rows = cursor.fetchall()
        self.conn.commit()
        return rows

    def unit(self, unit_id: uuid.UUID) -> list[Any]:
        table = Unit._meta.db_table
        return self.one(f"SELECT * FROM {table} WHERE id = {self.mark}", [self.key(unit_id)])

    def history(self, unit_id: uuid.UUID, limit: int) -> list[Any]:
        table = UnitHistoryEntry._meta.db_table
        return self.one(
            f"SELECT * FROM {table} WHERE unit_id = {self.mark} AND sequence > 0 "
            f"ORDER BY sequence, key LIMIT {int(limit)}",
            [self.key(unit_id)],
        )

    def close(self) -> None:
        self.conn.execute("DROP TABLE bench_scale_event")
        self.conn.commit()
        self.conn.close()


# --- Building a campaign -------------------------------------------------------------------------


def record_commands(into: list[tuple[float, int]]) -> Callable[[], None]:
    """Time every command run (decide, append, project, record; an eager job included) and
    count its events; returns the function that stops it."""
    real = commands.run

    def timed(*args: Any, **kwargs: Any) -> commands.Outcome:
        started = time.perf_counter()
        outcome = real(*args, **kwargs)
        into.append((time.perf_counter() - started, len(outcome.events)))
        return outcome

    commands.run = timed

    def stop() -> None:
        commands.run = real

    return stop


def rest_and_refit(campaign: Campaign, force: Force, umpire: Any) -> None:
    """Tired squads go to a safe area, each platoon's replacements go to its own squads there,
    two days pass (the hospital gives some men back) and the squads return to the line."""
    fresh = Demo.fresh
    for unit in Unit.objects.filter(force_id=force.id, kind="squad").order_by("order"):
        if unit.status == "in_the_line" and unit.fatigue != "fresh":
            _try(rosters.unit_move, campaign=fresh(campaign), unit=unit, to="safe_area",
                 reason="rest", actor=umpire)  # fmt: skip
    for platoon in Unit.objects.filter(force_id=force.id, kind="platoon").order_by("order"):
        if not _try(replacements_request, campaign=fresh(campaign), platoon=platoon, dice=None,
                    actor=umpire):  # fmt: skip
            continue
        left = platoon_ledger(campaign.id, platoon.id).left
        assignments = []
        squads = Unit.objects.filter(parent_id=platoon.id, kind="squad", status="safe_area")
        for squad in squads.order_by("order"):
            present = Trooper.objects.filter(unit_id=squad.id, status="fit").count()
            count = min(max(squad.toe_strength - present, 0), left)
            if count and squad.quality != "elite":
                assignments.append({"unit_id": str(squad.id), "count": count})
                left -= count
        if assignments:
            _try(replacements_assign, campaign=fresh(campaign), platoon=platoon,
                 assignments=assignments, dice=None, actor=umpire)  # fmt: skip
    calendar_advance(campaign=fresh(campaign), days=2, actor=umpire)
    for unit in Unit.objects.filter(force_id=force.id, kind="squad", status="safe_area"):
        _try(rosters.unit_move, campaign=fresh(campaign), unit=unit, to="in_the_line",
             reason="back to the front", actor=umpire)  # fmt: skip


def note_batch(campaign: Campaign, umpire: Any, first: int, count: int) -> None:
    """``count`` journal notes in one append, through the same append and inline projections a
    command uses (one transaction), but without a command's decision and record per note."""
    stream = f"campaign:{campaign.id}"
    events = [
        NewEvent.of(NoteRecorded(text=NOTES[(first + n) % len(NOTES)]), stream=stream)
        for n in range(count)
    ]
    with transaction.atomic():
        store.append(campaign.id, events, actor_id=umpire.pk)


def _try(service: Callable[..., object], **params: Any) -> bool:
    """Run a service; False when the rules refuse it (a unit the battle left unable to move)."""
    try:
        service(**params)
    except Refused:
        return False
    return True


def build(size: int, umpire: Any) -> Built:
    """A campaign of at least ``size`` events: two companies, a battle every ``spacing`` events
    (at most a hundred), rest and replacements after each, journal notes in between."""
    demo = Demo()
    started = time.perf_counter()
    recorded: list[tuple[float, int]] = []
    stop = record_commands(recorded)
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    try:
        campaign = services.campaign_create(
            name=f"Scale {size:,}", seed=uuid.uuid4().hex * 2, actor=umpire
        )
        company = COMPANY.read_text(encoding="utf-8")
        enemy = company.replace("side: Blue", "side: Red").replace(
            "name: B Company, 3rd Battalion", "name: C Company, 4th Battalion"
        )
        for text in (company, enemy):
            rosters.force_import_text(
                campaign=campaign, text=text, source=COMPANY.name, actor=umpire
            )
        blue = Force.objects.get(campaign_id=campaign.id, side="Blue")
        red = Force.objects.get(campaign_id=campaign.id, side="Red")
        imported_at = store.last_sequence(campaign.id)
        spacing = max(1000, size // 100)
        fought: list[Battle] = []
        skipped = 0
        sequence = imported_at
        notes = 0
        while sequence < size or not fought:
            if sequence >= (len(fought) + skipped) * spacing + spacing // 2:
                winner = ("Blue", "Red")[len(fought) % 2]
                try:
                    battle = battles.battle_plan(
                        campaign=demo.fresh(campaign),
                        name=f"Battle {len(fought) + 1}",
                        day=demo.fresh(campaign).day,
                        attacker=winner,
                        sides=[
                            {"side": "Blue", "force_ids": [blue.id],
                             "casevac": {"on_call": True, "start_box": 1, "troop_capacity": 8}},
                            {"side": "Red", "force_ids": [red.id]},
                        ],
                        actor=umpire,
                    )  # fmt: skip
                    demo.fight(demo.fresh(campaign), battle, winner, umpire)
                    fought.append(Battle.objects.get(pk=battle.pk))
                except Refused:
                    skipped += 1
                for force in (blue, red):
                    rest_and_refit(demo.fresh(campaign), force, umpire)
            elif size > FILLER_BATCHED_ABOVE:
                gap = (len(fought) + skipped) * spacing + spacing // 2 - sequence
                count = max(1, min(FILLER_BATCH, gap, size - sequence))
                note_batch(campaign, umpire, notes, count)
                notes += count
            else:
                services.note_record(
                    campaign=campaign, text=NOTES[notes % len(NOTES)], actor=umpire
                )
                notes += 1
            sequence = store.last_sequence(campaign.id)
    finally:
        celery_app.conf.task_always_eager = eager
        stop()
    return Built(
        campaign=demo.fresh(campaign),
        size=sequence,
        seconds=time.perf_counter() - started,
        battles=fought,
        skipped_battles=skipped,
        imported_at=imported_at,
        commands=recorded,
    )


# --- Measuring -----------------------------------------------------------------------------------


def append_lines(built: Built, raw: Raw) -> list[Line]:
    if not built.commands:
        return []  # grown by notes (--grow): its commands were timed in the run that built it
    times = [seconds for seconds, _ in built.commands]
    counts = [max(1, events) for _, events in built.commands]
    # The baseline writes as many rows per transaction as each command appended (a sample of
    # them, spread over the whole build, for the largest campaigns).
    step = max(1, len(counts) // 1000)
    baseline = []
    for count in counts[::step]:
        started = time.perf_counter()
        raw.append(count)
        baseline.append(time.perf_counter() - started)
    return [
        Line(
            f"append, median command ({len(times):,}; p95 {_p95(times):.1f} ms)",
            statistics.median(times) * 1000,
            statistics.median(baseline) * 1000,
        )
    ]


def _p95(seconds: list[float]) -> float:
    return sorted(seconds)[int(len(seconds) * 0.95)] * 1000


def get(client: Client, path: str) -> Any:
    """The answer rendered afresh: nothing kept from an earlier read (ADR 27)."""
    caches[READS_CACHE].clear()
    return kept(client, path)


def kept(client: Client, path: str) -> Any:
    """The answer as a repeated read gets it, kept from the one before if the log has not moved."""
    response = client.get(path)
    if response.status_code != 200:
        raise SystemExit(f"GET {path}: {response.status_code} {response.content[:300]!r}")
    return response


def as_of_last_battle(built: Built) -> str:
    return f"as_of_battle={built.battles[-1].id}&side=before"


def read_lines(built: Built, unit: Unit, token: str, raw: Raw, repeats: int) -> list[Line]:
    client = Client(HTTP_AUTHORIZATION=f"Token {token}")
    last = built.size
    early = max(built.imported_at, last // 10)
    late = max(early, last * 9 // 10)
    base = f"/api/v1/units/{unit.id}/"
    pk_lookup = median_ms(lambda: raw.unit(unit.id), repeats)
    history_lookup = median_ms(lambda: raw.history(unit.id, 50), repeats)
    now = median_ms(lambda: get(client, base), repeats)
    at_late = median_ms(lambda: get(client, f"{base}?as_of={late}"), repeats)
    verdict_ms = "ok" if at_late < LATE_AS_OF_MS else "ABOVE"
    verdict_x = "ok" if at_late <= LATE_AS_OF_VS_NOW * now else "ABOVE"
    return [
        Line("GET unit now", now, pk_lookup),
        Line(
            "GET unit now, kept (ADR 27)", median_ms(lambda: kept(client, base), repeats), pk_lookup
        ),
        Line(
            f"GET unit as of {early:,} (early)",
            median_ms(lambda: get(client, f"{base}?as_of={early}"), repeats),
            pk_lookup,
        ),
        Line(
            f"GET unit as of {late:,} (late)",
            at_late,
            pk_lookup,
            target=f"< {LATE_AS_OF_MS:.0f} ms @1M",
            verdict=verdict_ms,
        ),
        Line(
            "  late as of / now",
            at_late / now,
            1.0,
            unit="x",
            target=f"<= {LATE_AS_OF_VS_NOW:.0f}x",
            verdict=verdict_x,
        ),
        Line(
            "GET unit as of the last battle (before)",
            median_ms(lambda: get(client, f"{base}?{as_of_last_battle(built)}"), repeats),
            pk_lookup,
        ),
        Line(
            "GET unit history, first page (50)",
            median_ms(lambda: get(client, f"{base}history/?limit=50"), repeats),
            history_lookup,
        ),
    ]


def database_url() -> str:
    """The scratch database as a ``DATABASE_URL`` for the subprocesses."""
    name = connection.settings_dict["NAME"]
    if connection.vendor == "sqlite":
        return f"sqlite:///{Path(name).resolve()}"
    given = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(given._replace(path=f"/{name}"))


def child_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "DATABASE_URL": database_url(), **extra}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.dev"
    return env


# Runs a script and, as it exits, writes its peak resident memory (VmHWM, in kB) to a file.
# Not getrusage: on Linux a child's ru_maxrss keeps the high-water mark of the process it was
# forked from (this one, with its campaign in memory) across exec.
PEAK_REPORTER = """
import atexit, os, runpy, sys

def report():
    with open("/proc/self/status") as status, open(os.environ["BENCH_PEAK_FILE"], "w") as out:
        out.write(next(line.split()[1] for line in status if line.startswith("VmHWM")))

atexit.register(report)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def measured_child(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Run a Python script to its end; its wall time in seconds and peak RSS in MiB."""
    with tempfile.TemporaryDirectory() as scratch:
        peak = Path(scratch) / "peak"
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", PEAK_REPORTER, *argv],
            env={**env, "BENCH_PEAK_FILE": str(peak)}, cwd=ROOT, stdout=subprocess.DEVNULL,
            check=False,
        )  # fmt: skip
        seconds = time.perf_counter() - started
        if done.returncode:
            raise SystemExit(f"{argv[:3]} exited with {done.returncode}")
        return seconds, int(peak.read_text()) / 1024


RAW_READ = """
import json, sys
url, campaign = sys.argv[1], sys.argv[2]
if url.startswith("sqlite"):
    import sqlite3
    conn = sqlite3.connect(url.removeprefix("sqlite:///"))
    cursor = conn.execute("SELECT * FROM {table} WHERE campaign_id = ? ORDER BY sequence",
                          [campaign.replace("-", "")])
    decode = True
else:
    import psycopg
    conn = psycopg.connect(url)
    cursor = conn.cursor(name="all_events")
    cursor.execute("SELECT * FROM {table} WHERE campaign_id = %s ORDER BY sequence", [campaign])
    decode = False
count = 0
while rows := cursor.fetchmany(2000):
    for row in rows:
        if decode:
            json.loads(row[{payload}])
        count += 1
print(count)
"""


def rebuild_lines(built: Built) -> list[Line]:
    env = child_env(LOG_LEVEL="WARNING")
    names = [f.column for f in Event._meta.concrete_fields]
    script = RAW_READ.format(table=Event._meta.db_table, payload=names.index("payload"))
    with tempfile.NamedTemporaryFile("w", suffix=".py") as reader:
        reader.write(script)
        reader.flush()
        raw_seconds, raw_peak = measured_child(
            [reader.name, database_url(), str(built.campaign.id)], env
        )
    seconds, peak = measured_child(
        ["manage.py", "rebuild_projections", "--campaign", str(built.campaign.id),
         "--no-progress"],
        env,
    )  # fmt: skip
    export_seconds, export_peak = measured_child(
        ["manage.py", "export_campaign", str(built.campaign.id), "--output", os.devnull,
         "--no-progress"],
        env,
    )  # fmt: skip
    return [
        Line("rebuild_projections (subprocess)", seconds, raw_seconds, unit="s"),
        Line("  its peak RSS", peak, raw_peak, unit="MiB"),
        Line("export_campaign (subprocess)", export_seconds, raw_seconds, unit="s"),
        Line("  its peak RSS", export_peak, raw_peak, unit="MiB"),
    ]


# --- Under load ----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(workers: int, **settings_env: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = child_env(DEBUG="false", LOG_LEVEL="WARNING", **settings_env)
    log = (Path(settings.VAR_DIR) / "bench-scale-gunicorn.log").open("ab")
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application",
         "--bind", f"127.0.0.1:{port}", "--workers", str(workers)],
        env=env, cwd=ROOT, stdout=log, stderr=log,
    )  # fmt: skip
    log.close()
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            with urllib.request.urlopen(f"{url}/livez", timeout=1) as answer:
                if answer.status == 200:
                    return server, url
        except OSError:
            time.sleep(0.1)
    server.terminate()
    raise SystemExit("gunicorn did not come up: see var/bench-scale-gunicorn.log")


def load(url: str, path: str, token: str, clients: int, seconds: int) -> float:
    """Requests per second locust saw ``clients`` clients get, none of them failed."""
    with tempfile.TemporaryDirectory() as scratch:
        prefix = str(Path(scratch) / "run")
        subprocess.run(
            [sys.executable, "-m", "locust", "-f", str(ROOT / "bench" / "scale_locustfile.py"),
             "--headless", "--only-summary", "--reset-stats", "--loglevel", "ERROR",
             "-u", str(clients), "-r", str(clients), "-t", f"{seconds}s", "--host", url,
             "--csv", prefix],
            env={**os.environ, "BENCH_PATH": path, "BENCH_TOKEN": token}, cwd=ROOT, check=False,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        with open(f"{prefix}_stats.csv", encoding="utf-8") as stats:
            header, *rows = (line.rstrip("\n").split(",") for line in stats)
    total = dict(zip(header, rows[-1], strict=True))
    if int(total["Failure Count"]):
        raise SystemExit(f"GET {path}: {total['Failure Count']} failed under load")
    # Requests still queued when locust stopped would eat into the next measurement: a probe
    # sent now is answered once the workers have got through them.
    with urllib.request.urlopen(f"{url}/livez", timeout=300):
        pass
    return float(total["Requests/s"])


def load_lines(
    built: Built, unit: Unit, token: str, workers: int, seconds: int, rounds: int
) -> list[Line]:
    force = Force.objects.get(campaign_id=built.campaign.id, side="Blue")
    paths = {
        "force roster": f"/api/v1/forces/{force.id}/",
        "unit": f"/api/v1/units/{unit.id}/",
        "unit as of battle": f"/api/v1/units/{unit.id}/?{as_of_last_battle(built)}",
    }
    lines = load_points(paths, token, workers, seconds, rounds, CLIENTS, checked=True)
    # The same reads with nothing kept (ADR 27): what a read that follows an append costs.
    rendered = load_points(
        {f"{name}, rendered": path for name, path in paths.items()},
        token, workers, seconds, rounds, CLIENTS[-1:], checked=False,
        MUSTER_READ_CACHE_ENTRIES="0",
    )  # fmt: skip
    return lines + rendered


def load_points(
    paths: dict[str, str],
    token: str,
    workers: int,
    seconds: int,
    rounds: int,
    clients_list: tuple[int, ...],
    *,
    checked: bool,
    **settings_env: str,
) -> list[Line]:
    server, url = serve(workers, **settings_env)
    lines = []
    try:
        for clients in clients_list:
            # Rounds of the reads, each between two measurements of /healthz: a read's ratio in
            # a round is to the mean of the /healthz just before and just after it, so that a
            # busy moment of the machine (it is shared, and locust runs on it too) weighs on both
            # sides; the median round's figures are shown.
            health = [load(url, "/healthz", "", clients, seconds)]
            rates: dict[str, list[float]] = {name: [] for name in paths}
            for _ in range(rounds):
                for name, path in paths.items():
                    rates[name].append(load(url, path, token, clients, seconds))
                health.append(load(url, "/healthz", "", clients, seconds))
            around = [(before + after) / 2 for before, after in itertools.pairwise(health)]
            for name, measured in rates.items():
                shares = [rate / h if h else 0.0 for rate, h in zip(measured, around, strict=True)]
                ratio = statistics.median(shares)
                target = THROUGHPUT_TARGETS[name] if checked and clients == CLIENTS[-1] else None
                lines.append(Line(
                    f"{name}, {clients} client{'s' if clients > 1 else ''}",
                    statistics.median(measured), statistics.median(around), unit="req/s",
                    target=f">= {target:.1f}" if target else "",
                    verdict=verdict_of(ratio, target), measured_ratio=ratio,
                ))  # fmt: skip
            lines.append(Line(
                f"  /healthz ({', '.join(f'{rate:,.0f}' for rate in health)})",
                statistics.median(around), statistics.median(around), unit="req/s",
            ))  # fmt: skip
        workers_peak = max((peak_mib(pid) for pid in children(server.pid)), default=0.0)
        verdict = "ok" if workers_peak < WORKER_MEMORY_MIB else "ABOVE"
        lines.append(Line(
            "  a web worker's peak RSS", workers_peak, WORKER_MEMORY_MIB, unit="MiB",
            target=f"< {WORKER_MEMORY_MIB:.0f} MiB", verdict=verdict,
        ))  # fmt: skip
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    return lines


def verdict_of(ratio: float, target: float | None) -> str:
    """Whether a share of ``/healthz``'s throughput reaches ``target`` (none asked: blank)."""
    if not target:
        return ""
    return "ok" if ratio >= target else "BELOW"


def children(pid: int) -> list[int]:
    """A process's children, where Linux lists them (none found elsewhere: reported as 0)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as found:
            return [int(child) for child in found.read().split()]
    except OSError:
        return []


def peak_mib(pid: int) -> float:
    """A live process's peak resident memory (VmHWM), in MiB; 0 where it cannot be read."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


# --- Running it ----------------------------------------------------------------------------------


def show(lines: list[Line]) -> None:
    for line in lines:
        figures = f"{line.ours:10,.2f} {line.baseline:10,.2f} {line.unit:5}"
        print(f"  {line.name:44} {figures} {line.ratio:8.2f}  {line.target} {line.verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", default="1000,10000", help="events per campaign, e.g. 1000,10000,100000,1000000"
    )
    parser.add_argument("--repeats", type=int, default=15, help="timed reads (median kept)")
    parser.add_argument("--seconds", type=int, default=5, help="seconds of load per point")
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds of load per point (median kept)"
    )
    parser.add_argument("--workers", type=int, default=3, help="gunicorn workers")
    parser.add_argument("--no-load", action="store_true", help="skip the gunicorn throughput")
    parser.add_argument(
        "--keep", action="store_true", help="keep the scratch database (to measure again later)"
    )
    parser.add_argument(
        "--grow",
        metavar="CAMPAIGN",
        help="reuse the kept scratch database: grow this campaign of it to the (one) size asked "
        "with journal notes, and measure it",
    )
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    # A log line per command and per request would drown the figures (and slow the build).
    logging.disable(logging.WARNING)

    creation = connection.creation
    original = connection.settings_dict["NAME"]
    # A file, not SQLite's in-memory default, since gunicorn and the rebuild open it too; on
    # PostgreSQL a name of its own, not the test suite's.
    connection.settings_dict.setdefault("TEST", {})["NAME"] = (
        str(Path(settings.VAR_DIR) / "bench-scale.sqlite3")
        if connection.vendor == "sqlite"
        else f"{original}_bench_scale"
    )
    # Not serialized: that copy of the database, for tests that roll back by reloading it, would
    # hold a kept campaign's whole log in memory.
    scratch = creation.create_test_db(
        verbosity=0, autoclobber=True, keepdb=bool(args.grow), serialize=False
    )
    raw = Raw()
    started = time.perf_counter()
    try:
        umpire, _ = get_user_model().objects.get_or_create(username="bench-umpire")
        token = token_issue(user=umpire, name="bench").secret
        print(f"Scale benchmark on {connection.vendor} ({scratch}), scratch database")
        for size in sizes:
            built = grow(uuid.UUID(args.grow), size, umpire) if args.grow else build(size, umpire)
            unit = _first_blue_squad(built)
            print(
                f"\n{built.size:,} events ({size:,} asked): {len(built.battles)} battles "
                f"({built.skipped_battles} refused), {len(built.commands):,} commands, "
                f"built in {built.seconds:,.0f} s; campaign {built.campaign.id}"
            )
            print(f"  {'':44} {'Muster':>10} {'baseline':>10} {'':5} {'ratio':>8}  target")
            show(append_lines(built, raw))
            show(read_lines(built, unit, token, raw, args.repeats))
            show(rebuild_lines(built))
            if not args.no_load:
                show(load_lines(built, unit, token, args.workers, args.seconds, args.rounds))
        print(f"\nWhole run: {time.perf_counter() - started:,.0f} s")
    finally:
        raw.close()
        connection.close()
        if args.keep:
            print(f"Scratch database kept: {scratch}")
        else:
            creation.destroy_test_db(original, verbosity=0)


def grow(campaign_id: uuid.UUID, size: int, umpire: Any) -> Built:
    """A campaign built by an earlier run, grown to ``size`` events by journal notes a hundred
    to an append: its battles, losses and roster changes all lie in the log's first part."""
    started = time.perf_counter()
    campaign = Campaign.objects.get(pk=campaign_id)
    sequence = store.last_sequence(campaign_id)
    notes = 0
    while sequence < size:
        count = min(FILLER_BATCH, size - sequence)
        note_batch(campaign, umpire, notes, count)
        notes += count
        sequence += count
    blue, red = (Force.objects.get(campaign_id=campaign_id, side=side) for side in ("Blue", "Red"))
    return Built(
        campaign=Campaign.objects.get(pk=campaign_id),
        size=store.last_sequence(campaign_id),
        seconds=time.perf_counter() - started,
        battles=list(Battle.objects.filter(campaign_id=campaign_id).order_by("planned_sequence")),
        skipped_battles=0,
        imported_at=max(blue.raised_sequence, red.raised_sequence),
    )


def _first_blue_squad(built: Built) -> Unit:
    blue = Force.objects.get(campaign_id=built.campaign.id, side="Blue")
    unit = Unit.objects.filter(force_id=blue.id, kind="squad").order_by("order").first()
    assert unit is not None  # the company has squads
    return unit


if __name__ == "__main__":
    main()
