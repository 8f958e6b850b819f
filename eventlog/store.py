"""Appending to and reading from the campaign event log.

Appends to one campaign are serialised by the row lock on its ``CampaignHead``: an append takes the
lock with its first statement and holds it until commit, so campaign sequences are handed out in
commit order and a reader following ``sequence`` never skips an event that commits late. Stream
versions are checked under the same lock, so an ``expected_version`` check cannot race.

The hot path is plain SQL on Django's connection (one statement each to lock the head, read the
stream versions and insert the rows); see docs/adr/0001-event-store.md for the figures.

One module on purpose, at a little over 500 lines: every statement that touches the event table
is here, where the guarantees they keep together can be read together.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, connections, transaction
from django.utils import timezone

from eventlog import catalogue, metrics
from eventlog.catalogue import EventPayload
from eventlog.errors import CommandError, ConcurrencyConflict

# The highest sequence a reader may ask about: beyond any log, within every database's integer.
MAX_SEQUENCE = 2**62
_INSERT_CHUNK = 500
_READ_CHUNK = 2000
_COLUMNS = (
    "position, campaign_id, sequence, stream, version, type, schema_version, payload, metadata, "
    "idempotency_key, job_id, recorded_at"
)

# What :func:`read` selects, for its decoder: the campaign's id is the one asked for, so the
# driver need not build it again for every row; on SQLite ``+recorded_at`` (the same text) has
# no declared type, so the driver leaves it to the decoder too, which parses each append's time
# once rather than once per event.
_READ_COLUMNS_POSTGRES = _COLUMNS.replace("campaign_id", "NULL AS campaign_id")
_READ_COLUMNS_SQLITE = _READ_COLUMNS_POSTGRES.replace("recorded_at", "+recorded_at")


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event about to be appended: its type, its payload in JSON form, and its stream."""

    type: str
    payload: dict[str, Any]
    stream: str
    schema_version: int

    @classmethod
    def of(cls, payload: EventPayload, *, stream: str) -> NewEvent:
        """An event from a validated payload model."""
        spec = catalogue.spec_of(payload)
        _check_stream(spec, stream)
        return cls(spec.name, payload.model_dump(mode="json"), stream, spec.schema_version)

    @classmethod
    def from_raw(cls, type_name: str, payload: object, *, stream: str) -> NewEvent:
        """An event from untrusted input: the type must exist and the payload must validate."""
        spec = catalogue.get(type_name)
        data = catalogue.validate_payload(type_name, payload)
        _check_stream(spec, stream)
        return cls(spec.name, data, stream, spec.schema_version)


def _check_stream(spec: catalogue.EventType, stream: str) -> None:
    category, _, entity = stream.partition(":")
    if category != spec.stream_category or not entity:
        raise CommandError(
            "event.wrong_stream",
            f"{spec.name} events belong to a '{spec.stream_category}:<id>' stream, not {stream!r}.",
            field="stream",
        )


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as it stands in the log, with its payload upcast to the current schema."""

    position: int
    campaign_id: uuid.UUID
    sequence: int
    stream: str
    version: int
    type: str
    schema_version: int
    payload: dict[str, Any]
    metadata: dict[str, Any]
    idempotency_key: str | None
    job_id: uuid.UUID | None
    recorded_at: dt.datetime

    @property
    def stream_id(self) -> str:
        return self.stream.partition(":")[2]


@dataclass(frozen=True, slots=True)
class AppendResult:
    events: list[StoredEvent]
    # True when the idempotency key had been used: nothing new was appended.
    replayed: bool = False
    fingerprint: str | None = field(default=None, compare=False)


def _is_postgres() -> bool:
    return connection.vendor == "postgresql"


def _uuid_param(value: uuid.UUID | str | None) -> uuid.UUID | str | None:
    if value is None:
        return None
    if not isinstance(value, uuid.UUID):
        value = uuid.UUID(str(value))
    return value if _is_postgres() else value.hex


def _as_uuid(value: object) -> uuid.UUID | None:
    if value is None or isinstance(value, uuid.UUID):
        return value
    return uuid.UUID(str(value))


def _as_required_uuid(value: object) -> uuid.UUID:
    """A UUID from a NOT NULL column."""
    return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))


def _as_datetime(value: object) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    return dt.datetime.fromisoformat(str(value)).replace(tzinfo=dt.UTC)


_loads = json.loads
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _parse(text: str) -> dt.datetime:
    """A time as SQLite holds it (UTC, with no offset), as the driver's converter reads it."""
    return dt.datetime.fromisoformat(text)


def _as_json(value: object) -> Any:
    return json.loads(value) if isinstance(value, str | bytes) else value


def _row_to_event(row: Sequence[Any], *, upcast: bool = True) -> StoredEvent:
    type_name, schema_version = row[5], row[6]
    payload = _as_json(row[7])
    return StoredEvent(
        position=row[0],
        campaign_id=_as_required_uuid(row[1]),
        sequence=row[2],
        stream=row[3],
        version=row[4],
        type=type_name,
        schema_version=schema_version,
        payload=catalogue.upcast(type_name, schema_version, payload) if upcast else payload,
        metadata=_as_json(row[8]),
        idempotency_key=row[9],
        job_id=_as_uuid(row[10]),
        recorded_at=_as_datetime(row[11]),
    )


class _Decoder:
    """:func:`_row_to_event` for the rows of one campaign's log, made for long reads: the events
    of one append share their time, so it is parsed once for them and they share the one
    ``datetime`` (as they did when appended), and every event shares the campaign's id."""

    def __init__(self, campaign_id: uuid.UUID, *, upcast: bool) -> None:
        self.campaign_id = _as_required_uuid(campaign_id)
        self.upcast = upcast
        self.recorded: tuple[object, dt.datetime] = (object(), dt.datetime.min)
        self.metadata: tuple[object, dict[str, Any] | None] = (object(), None)

    def _metadata(self, raw: object) -> dict[str, Any]:
        # The events of one append share their metadata. Each event gets a dict of its own, as
        # decoding gives it; a copy of the last one is the same dict when it holds no containers.
        last_raw, last = self.metadata
        if raw == last_raw and last is not None:
            return dict(last)
        metadata = _loads(raw) if type(raw) is str else _as_json(raw)
        flat = type(metadata) is dict and all(type(v) in _SCALARS for v in metadata.values())
        self.metadata = (raw, metadata if flat else None)
        return dict(metadata) if flat else metadata

    def __call__(self, row: Sequence[Any]) -> StoredEvent:
        raw_recorded_at = row[11]
        last_raw, last = self.recorded
        # The same text, or the same instant in the same zone: the same time in every way.
        if raw_recorded_at == last_raw and getattr(raw_recorded_at, "tzinfo", None) is getattr(
            last_raw, "tzinfo", None
        ):
            recorded_at = last
        else:
            recorded_at = _as_datetime(
                raw_recorded_at if type(raw_recorded_at) is not str else _parse(raw_recorded_at)
            )
            self.recorded = (raw_recorded_at, recorded_at)
        type_name, schema_version = row[5], row[6]
        payload = row[7]
        payload = _loads(payload) if type(payload) is str else _as_json(payload)
        if self.upcast:
            payload = catalogue.upcast(type_name, schema_version, payload)
        job_id = row[10]
        return _stored_event(
            (
                row[0],  # position
                self.campaign_id,
                row[2],  # sequence
                row[3],  # stream
                row[4],  # version
                type_name,
                schema_version,
                payload,
                self._metadata(row[8]),
                row[9],  # idempotency_key
                None if job_id is None else _as_uuid(job_id),
                recorded_at,
            )
        )


# A frozen dataclass's __init__ sets each field through ``object.__setattr__``, which a long
# read pays a dozen times an event; setting the slots directly builds the same event in half
# the time. In the order of the fields, as ``_stored_event`` takes the values.
_EVENT_SLOTS = tuple(getattr(StoredEvent, f.name).__set__ for f in dataclasses.fields(StoredEvent))


def _stored_event(values: tuple[Any, ...]) -> StoredEvent:
    event = object.__new__(StoredEvent)
    for set_slot, value in zip(_EVENT_SLOTS, values, strict=True):
        set_slot(event, value)
    return event


AppendListener = Callable[[uuid.UUID, Sequence[StoredEvent]], None]
_append_listeners: list[AppendListener] = []


def on_append(listener: AppendListener) -> None:
    """Call ``listener(campaign_id, events)`` inside every append's transaction, once the events
    are in the log (and projected): what it writes commits with them or not at all, whoever
    appends (a command, a job, an import). An app above this one registers it when it starts
    (the webhooks' outbox); an error it raises refuses the append."""
    if listener not in _append_listeners:
        _append_listeners.append(listener)


class _Replay(Exception):
    def __init__(self, fingerprint: str | None) -> None:
        self.fingerprint = fingerprint


def append(
    campaign_id: uuid.UUID,
    events: Sequence[NewEvent],
    *,
    expected_versions: Mapping[str, int] | None = None,
    idempotency_key: str | None = None,
    fingerprint: str | None = None,
    actor_id: int | None = None,
    job_id: uuid.UUID | None = None,
    metadata: Mapping[str, Any] | None = None,
    project: bool = True,
    savepoint: bool = True,
    recorded_at: dt.datetime | None = None,
) -> AppendResult:
    """Append ``events`` to a campaign's log atomically, and project them inline.

    ``expected_versions`` maps a stream to the version the caller last saw (0: the stream must be
    new); a mismatch raises :class:`ConcurrencyConflict` and appends nothing. An
    ``idempotency_key`` already used in the campaign appends nothing and returns the events of the
    first append (``replayed=True``); ``fingerprint`` lets the caller detect a key reused for a
    different request. Runs inside the caller's transaction if there is one, in a savepoint so
    that a refused append leaves that transaction usable; a caller that rolls its whole
    transaction back on any error (a command) passes ``savepoint=False`` and saves the two round
    trips. ``recorded_at`` is for restoring an archived log only (``campaigns.archive``): the
    events keep the time they were first recorded.
    """
    if not events:
        raise ValueError("Nothing to append.")
    try:
        with transaction.atomic(savepoint=savepoint), metrics.APPEND_SECONDS.time():
            appended = _append_locked(
                campaign_id,
                events,
                expected_versions=expected_versions or {},
                idempotency_key=idempotency_key,
                fingerprint=fingerprint,
                actor_id=actor_id,
                job_id=job_id,
                metadata=dict(metadata or {}),
                project=project,
                recorded_at=recorded_at,
            )
        metrics.EVENTS_APPENDED.inc(len(appended.events))
        return appended
    except _Replay as replay:
        return AppendResult(
            events=list(read(campaign_id, idempotency_key=idempotency_key)),
            replayed=True,
            fingerprint=replay.fingerprint,
        )
    except IntegrityError as exc:
        # Appends are serialised per campaign, so this only happens if a stream is written from
        # outside the store; report it as the conflict it is rather than a server error.
        raise ConcurrencyConflict(
            "event.version_conflict", "The stream changed while appending; read it and retry."
        ) from exc


def _append_locked(
    campaign_id: uuid.UUID,
    events: Sequence[NewEvent],
    *,
    expected_versions: Mapping[str, int],
    idempotency_key: str | None,
    fingerprint: str | None,
    actor_id: int | None,
    job_id: uuid.UUID | None,
    metadata: dict[str, Any],
    project: bool,
    recorded_at: dt.datetime | None,
) -> AppendResult:
    campaign_param = _uuid_param(campaign_id)
    recorded_at = recorded_at or timezone.now()
    if actor_id is not None:
        metadata["actor_id"] = actor_id
    if fingerprint is not None:
        metadata["fingerprint"] = fingerprint
    batch = _Batch(
        campaign=campaign_param,
        events=events,
        metadata=json.dumps(metadata, separators=(",", ":")),
        idempotency_key=idempotency_key,
        job=_uuid_param(job_id),
        recorded_at=connection.ops.adapt_datetimefield_value(recorded_at),
    )
    with connection.cursor() as cursor:
        if idempotency_key is not None:
            _refuse_replay(cursor, campaign_id, idempotency_key)
        if _is_postgres():
            # The driver's own cursor binds parameters on the server, so PostgreSQL can keep the
            # append statement prepared instead of parsing and planning it on every append.
            with server_bound_cursor() as raw_cursor:
                inserted = _insert_in_one_statement(raw_cursor, batch)
        else:
            inserted = _insert_step_by_step(cursor, batch)

    _check_expected_versions(campaign_id, inserted, expected_versions)
    stored = [
        StoredEvent(
            position=position,
            campaign_id=campaign_id,
            sequence=sequence,
            stream=stream,
            version=version,
            type=event.type,
            schema_version=event.schema_version,
            payload=event.payload,
            metadata=dict(metadata),
            idempotency_key=idempotency_key,
            job_id=job_id,
            recorded_at=recorded_at,
        )
        for (position, sequence, stream, version), event in zip(inserted, events, strict=True)
    ]
    if project:
        from eventlog.projections import apply_inline

        apply_inline(campaign_id, stored)
    for listener in _append_listeners:
        listener(campaign_id, stored)
    return AppendResult(events=stored, fingerprint=fingerprint)


def _refuse_replay(cursor: Any, campaign_id: uuid.UUID, idempotency_key: str) -> None:
    """Raise :class:`_Replay` if the key was used in the campaign already. The campaign is
    locked before looking, so two requests carrying the same key cannot both miss it."""
    lock_campaign(campaign_id)
    cursor.execute(
        "SELECT metadata FROM eventlog_event WHERE campaign_id = %s "
        "AND idempotency_key = %s ORDER BY sequence LIMIT 1",
        [_uuid_param(campaign_id), idempotency_key],
    )
    found = cursor.fetchone()
    if found is not None:
        raise _Replay(_as_json(found[0]).get("fingerprint"))


def _check_expected_versions(
    campaign_id: uuid.UUID, inserted: Inserted, expected_versions: Mapping[str, int]
) -> None:
    """Refuse the append if a stream was not at the version its caller expected. Raising rolls
    the whole append back: nothing of it is kept."""
    first_version: dict[str, int] = {}
    for _, _, stream, version in inserted:
        first_version.setdefault(stream, version)
    for stream, expected in expected_versions.items():
        found_at = first_version[stream] - 1 if stream in first_version else None
        if found_at is None:
            found_at = stream_version(campaign_id, stream)
        if found_at != expected:
            raise ConcurrencyConflict(
                "event.version_conflict",
                f"Stream {stream} is at version {found_at}, not {expected}: someone else "
                "changed it first. Read it again and retry.",
                field="expected_version",
            )


def server_bound_cursor() -> Any:
    """A psycopg cursor on Django's connection (so in its transaction) that binds parameters on
    the server: PostgreSQL then keeps the append statement prepared."""
    import psycopg

    connection.ensure_connection()
    return psycopg.Cursor(connection.connection)


def hot_read_one(sql: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
    """The first row of a small query asked on nearly every request (a token, a campaign's last
    sequence), or None. On PostgreSQL its parameters are bound on the server, so the statement is
    prepared after a few uses (``prepare_threshold``) rather than parsed and planned each time;
    its row comes in the binary format (a timestamp is not parsed from text), on one cursor the
    connection keeps for such reads; its errors are Django's, as from any cursor."""
    # The connection of this thread, looked up once: each use of django.db.connection looks it up.
    db = connections[DEFAULT_DB_ALIAS]
    if db.vendor != "postgresql" or db.queries_logged or db.execute_wrappers:
        # Where queries are logged (DEBUG, a test counting them) or wrapped, Django's own cursor
        # is used: a prepared statement would be logged without its text.
        with db.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchone()
    db.ensure_connection()
    db.validate_no_broken_transaction()
    with db.wrap_database_errors:
        cursor = _hot_cursor(db.connection)
        cursor.execute(sql, params, binary=True)
        row: tuple[Any, ...] | None = cursor.fetchone()
    return row


_hot_cursors = threading.local()


def _hot_cursor(raw: Any) -> Any:
    # Django's connections are per thread, and a connection that was closed and opened again
    # is another psycopg connection: its cursor is made anew.
    kept = getattr(_hot_cursors, "kept", None)
    if kept is None or kept[0] is not raw or kept[1].closed:
        kept = (raw, server_bound_cursor())
        _hot_cursors.kept = kept
    return kept[1]


@dataclass(frozen=True, slots=True)
class _Batch:
    campaign: object
    events: Sequence[NewEvent]
    metadata: str
    idempotency_key: str | None
    job: object
    recorded_at: object

    def stream_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for event in self.events:
            counts[event.stream] = counts.get(event.stream, 0) + 1
        return counts


Inserted = list[tuple[int, int, str, int]]  # position, sequence, stream, version


_APPEND_STATEMENT = (
    "WITH head AS ("
    " INSERT INTO eventlog_campaignhead AS h (campaign_id, last_sequence) VALUES (%s, %s)"
    " ON CONFLICT (campaign_id) DO UPDATE"
    " SET last_sequence = h.last_sequence + excluded.last_sequence"
    " RETURNING last_sequence"
    "), streams AS ("
    " INSERT INTO eventlog_streamhead AS s (campaign_id, stream, version)"
    " SELECT %s, v.stream, v.n FROM head, unnest(%b::varchar[], %b::integer[]) AS v(stream, n)"
    " ON CONFLICT (campaign_id, stream) DO UPDATE SET version = s.version + excluded.version"
    " RETURNING stream, version"
    ") "
    "INSERT INTO eventlog_event (campaign_id, sequence, stream, version, type, schema_version,"
    " payload, metadata, idempotency_key, job_id, recorded_at)"
    " SELECT %s, head.last_sequence - %s + e.k, e.stream, streams.version - e.later, e.type,"
    " e.schema_version, e.payload, %s::jsonb, %s, %s::uuid, %s::timestamptz"
    " FROM head, unnest(%b::integer[], %b::varchar[], %b::integer[], %b::varchar[],"
    " %b::smallint[], %b::jsonb[]) AS e(k, stream, later, type, schema_version, payload)"
    " JOIN streams ON streams.stream = e.stream"
    " ORDER BY e.k RETURNING position, sequence, stream, version"
)  # %b: the arrays travel in binary, which spares the driver escaping every element


# The same statement for the most common case, one event, with plain parameters: cheaper to send
# than one-element arrays.
_APPEND_ONE_STATEMENT = _APPEND_STATEMENT.replace(
    "unnest(%b::varchar[], %b::integer[]) AS v(stream, n)",
    "(VALUES (%s::varchar, %s::integer)) AS v(stream, n)",
).replace(
    "unnest(%b::integer[], %b::varchar[], %b::integer[], %b::varchar[],"
    " %b::smallint[], %b::jsonb[])",
    "(VALUES (%s::integer, %s::varchar, %s::integer, %s::varchar, %s::smallint, %s::jsonb))",
)


def _insert_in_one_statement(cursor: Any, batch: _Batch) -> Inserted:
    """PostgreSQL: lock the campaign, bump the stream versions and insert the events in one
    prepared statement, whatever the batch size (the events travel as arrays).

    The campaign head upsert takes the campaign's row lock first (the stream upsert reads from
    it, so it runs after), and ``ON CONFLICT DO UPDATE`` always works on the latest committed
    row, so the sequence and versions are current even when the statement waited for the lock.
    """
    if len(batch.events) == 1:
        (event,) = batch.events
        cursor.execute(
            _APPEND_ONE_STATEMENT,
            [
                batch.campaign, 1, batch.campaign, event.stream, 1, batch.campaign, 1,
                batch.metadata, batch.idempotency_key, batch.job, batch.recorded_at,
                1, event.stream, 0, event.type, event.schema_version,
                json.dumps(event.payload, separators=(",", ":")),
            ],
            prepare=True,
        )  # fmt: skip
        return cursor.fetchall()
    counts = batch.stream_counts()
    remaining = dict(counts)
    later = []
    for event in batch.events:
        remaining[event.stream] -= 1
        later.append(remaining[event.stream])
    size = len(batch.events)
    cursor.execute(
        _APPEND_STATEMENT,
        [
            batch.campaign,
            size,
            batch.campaign,
            list(counts),
            list(counts.values()),
            batch.campaign,
            size,
            batch.metadata,
            batch.idempotency_key,
            batch.job,
            batch.recorded_at,
            list(range(1, size + 1)),
            [event.stream for event in batch.events],
            later,
            [event.type for event in batch.events],
            [event.schema_version for event in batch.events],
            [json.dumps(event.payload, separators=(",", ":")) for event in batch.events],
        ],
        prepare=True,
    )
    return sorted(cursor.fetchall(), key=lambda row: row[1])


def _insert_step_by_step(cursor: Any, batch: _Batch) -> Inserted:
    """Any database with upserts and RETURNING (SQLite): the same work in three statements.

    SQLite allows one writer at a time, so the transaction already holds the database's write
    lock and every statement sees the latest data.
    """
    counts = batch.stream_counts()
    cursor.execute(
        "INSERT INTO eventlog_campaignhead AS h (campaign_id, last_sequence) VALUES (%s, %s) "
        "ON CONFLICT (campaign_id) DO UPDATE "
        "SET last_sequence = h.last_sequence + excluded.last_sequence RETURNING last_sequence",
        [batch.campaign, len(batch.events)],
    )
    first_sequence = cursor.fetchone()[0] - len(batch.events) + 1
    cursor.execute(
        "INSERT INTO eventlog_streamhead AS s (campaign_id, stream, version) VALUES "
        + ", ".join(["(%s, %s, %s)"] * len(counts))
        + " ON CONFLICT (campaign_id, stream) DO UPDATE SET version = s.version + excluded.version"
        " RETURNING stream, version",
        [value for stream, count in counts.items() for value in (batch.campaign, stream, count)],
    )
    next_version = {stream: version - counts[stream] for stream, version in cursor.fetchall()}
    rows: list[tuple[Any, ...]] = []
    for offset, event in enumerate(batch.events):
        next_version[event.stream] += 1
        rows.append(
            (batch.campaign, first_sequence + offset, event.stream, next_version[event.stream],
             event.type, event.schema_version, json.dumps(event.payload, separators=(",", ":")),
             batch.metadata, batch.idempotency_key, batch.job, batch.recorded_at)
        )  # fmt: skip
    inserted: Inserted = []
    for start in range(0, len(rows), _INSERT_CHUNK):
        chunk = rows[start : start + _INSERT_CHUNK]
        cursor.execute(
            "INSERT INTO eventlog_event (campaign_id, sequence, stream, version, type, "
            "schema_version, payload, metadata, idempotency_key, job_id, recorded_at) VALUES "
            + ", ".join(["(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"] * len(chunk))
            + " RETURNING position, sequence, stream, version",
            [value for row in chunk for value in row],
        )
        inserted.extend(sorted(cursor.fetchall(), key=lambda row: row[1]))
    return inserted


def lock_campaign(campaign_id: uuid.UUID) -> None:
    """Take the campaign's append lock for the rest of the caller's transaction, as an append
    does: for commands that number things per campaign."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO eventlog_campaignhead AS h (campaign_id, last_sequence) VALUES (%s, 0) "
            "ON CONFLICT (campaign_id) DO UPDATE SET last_sequence = h.last_sequence",
            [_uuid_param(campaign_id)],
        )


def read(
    campaign_id: uuid.UUID,
    *,
    after: int = 0,
    upto: int | None = None,
    types: Sequence[str] | None = None,
    stream: str | None = None,
    idempotency_key: str | None = None,
    job_id: uuid.UUID | None = None,
    limit: int | None = None,
    upcast: bool = True,
    chunked: bool = False,
) -> Iterator[StoredEvent]:
    """Yield a campaign's events in sequence order, filtered as asked, payloads upcast (or, with
    ``upcast=False``, as they were stored: an archive keeps them so). ``chunked``: the reader
    reads the whole of a long stretch, in one transaction, and memory should not grow with it
    (a rebuild, a refold)."""
    clauses = ["campaign_id = %s", "sequence > %s"]
    params: list[Any] = [_uuid_param(campaign_id), after]
    if upto is not None:
        clauses.append("sequence <= %s")
        params.append(upto)
    if types:
        clauses.append(f"type IN ({', '.join(['%s'] * len(types))})")
        params.extend(types)
    if stream is not None:
        clauses.append("stream = %s")
        params.append(stream)
    if idempotency_key is not None:
        clauses.append("idempotency_key = %s")
        params.append(idempotency_key)
    if job_id is not None:
        clauses.append("job_id = %s")
        params.append(_uuid_param(job_id))
    columns = _READ_COLUMNS_POSTGRES if _is_postgres() else _READ_COLUMNS_SQLITE
    sql = f"SELECT {columns} FROM eventlog_event WHERE {' AND '.join(clauses)} ORDER BY sequence"
    if limit is not None:
        sql += " LIMIT %s"
        params.append(limit)
    # ``chunked``: from a server-side cursor on PostgreSQL, a chunk at a time, rather than whole
    # into memory as the driver's plain cursor reads it (SQLite's steps through its rows anyway).
    # Only for a reader that reads to the end in its transaction: a server-side cursor left
    # open would be closed whenever the generator is collected, maybe in another transaction.
    with connection.chunked_cursor() if chunked else connection.cursor() as cursor:
        cursor.execute(sql, params)
        decode = _Decoder(campaign_id, upcast=upcast)
        while rows := cursor.fetchmany(_READ_CHUNK):
            for row in rows:
                yield decode(row)


def read_sequences(campaign_id: uuid.UUID, sequences: Iterable[int]) -> list[StoredEvent]:
    """The campaign's events at the given sequences, in sequence order (the events behind a
    page of read-model rows, say)."""
    wanted = sorted(set(sequences))
    found: list[StoredEvent] = []
    with connection.cursor() as cursor:
        for start in range(0, len(wanted), _INSERT_CHUNK):
            chunk = wanted[start : start + _INSERT_CHUNK]
            cursor.execute(
                f"SELECT {_COLUMNS} FROM eventlog_event WHERE campaign_id = %s "
                f"AND sequence IN ({', '.join(['%s'] * len(chunk))}) ORDER BY sequence",
                [_uuid_param(campaign_id), *chunk],
            )
            found.extend(_row_to_event(row) for row in cursor.fetchall())
    return found


def events_of_job(job_id: uuid.UUID) -> list[StoredEvent]:
    """The events a resolution job appended, in order."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {_COLUMNS} FROM eventlog_event WHERE job_id = %s ORDER BY position",
            [_uuid_param(job_id)],
        )
        return [_row_to_event(row) for row in cursor.fetchall()]


def last_sequence(campaign_id: uuid.UUID) -> int:
    row = hot_read_one(*last_sequence_query(campaign_id))
    return row[0] if row else 0


def last_sequence_query(campaign_id: uuid.UUID) -> tuple[str, list[Any]]:
    """The statement that reads a campaign's last sequence (no row for a campaign with no
    events), and its parameters: for a caller that asks it inside a statement of its own."""
    return (
        "SELECT last_sequence FROM eventlog_campaignhead WHERE campaign_id = %s",
        [_uuid_param(campaign_id)],
    )


def stream_version(campaign_id: uuid.UUID, stream: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT version FROM eventlog_streamhead WHERE campaign_id = %s AND stream = %s",
            [_uuid_param(campaign_id), stream],
        )
        row = cursor.fetchone()
    return row[0] if row else 0


def campaign_of_stream(stream: str) -> uuid.UUID | None:
    """The campaign a stream (``unit:<id>``, ``battle:<id>``...) belongs to, if it exists."""
    row = hot_read_one("SELECT campaign_id FROM eventlog_streamhead WHERE stream = %s", [stream])
    return _as_uuid(row[0]) if row else None


def stream_position(stream: str) -> tuple[uuid.UUID, int] | None:
    """The campaign a stream belongs to and that campaign's last sequence, in one lookup."""
    row = hot_read_one(
        "SELECT s.campaign_id, h.last_sequence FROM eventlog_streamhead s "
        "JOIN eventlog_campaignhead h ON h.campaign_id = s.campaign_id WHERE s.stream = %s",
        [stream],
    )
    return (_as_required_uuid(row[0]), row[1]) if row else None


def stream_bounds(campaign_id: uuid.UUID, stream: str) -> tuple[int, int] | None:
    """The first and last campaign sequence of a stream's events, if it has any."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT MIN(sequence), MAX(sequence) FROM eventlog_event "
            "WHERE campaign_id = %s AND stream = %s",
            [_uuid_param(campaign_id), stream],
        )
        row = cursor.fetchone()
    return (row[0], row[1]) if row and row[0] is not None else None
