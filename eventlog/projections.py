"""Projections: read models folded from the event log.

A projection is a set of fold steps, one per event type it handles. A step reads and writes rows
through a :class:`Rows` view and nothing else, so the same step serves three paths:

- inline, in the append's transaction, over :class:`DatabaseRows` (rows load lazily and are written
  back in bulk at the end of the append); ``rebuild_projections`` runs the same path over the log
  a batch of events at a time, so it holds a batch's rows, not the campaign's;
- the refold at a void, over :class:`MemoryRows`, then written over the tables;
- *as of* a sequence, over :class:`MemoryRows`, starting from a cached snapshot when there is one.

Rows are plain dicts of JSON-native values keyed by the model's primary key, so a fold never
depends on which path runs it, and rebuilding gives exactly the rows the inline path wrote.
Read-model primary keys must come from the events (ids in payloads, event positions), never from
database sequences.

One module on purpose, at a little over 500 lines: the three paths above share the same rows and
steps, and are only correct together.
"""

from __future__ import annotations

import datetime as dt
import decimal
import functools
import hashlib
import json
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, models, transaction

from eventlog import store
from eventlog.events import VOIDED
from eventlog.models import ProjectionSnapshot, RowVersion
from eventlog.store import StoredEvent

Row = dict[str, Any]
_Model = models.Model  # ``Projection.models`` hides the module in its class body
Step = Callable[["Rows", StoredEvent], None]
# A row a fold step will read by primary key: (table, key); and what names them for an event.
Read = tuple[type[models.Model], Any]
Reads = Callable[[StoredEvent], Iterable[Read]]

if TYPE_CHECKING:
    _StaticStep = staticmethod[["Rows", StoredEvent], None]
else:
    _StaticStep = staticmethod  # not subscriptable at run time


_ALREADY_NATIVE = frozenset({str, int, float, bool, type(None), list, dict})


# The last id and the last time converted, with their text: a fold converts the campaign's id
# and the time of an append's events over and over (the store hands them out as one object).
_last_id: tuple[object, str] = (None, "")
_last_time: tuple[object, str] = (None, "")


def native(value: Any) -> Any:
    """The JSON-native form rows hold: ids and dates as strings."""
    global _last_id, _last_time
    if type(value) in _ALREADY_NATIVE:
        return value
    if isinstance(value, uuid.UUID):
        last = _last_id
        if value is last[0]:
            return last[1]
        _last_id = (value, text := str(value))
        return text
    if isinstance(value, dt.datetime | dt.date):
        last = _last_time
        if value is last[0]:
            return last[1]
        _last_time = (value, text := value.isoformat())
        return text
    if isinstance(value, decimal.Decimal):
        return str(value)
    return value


class _KeyField(Protocol):
    @property
    def attname(self) -> str: ...


class _TableOptions(Protocol):
    @property
    def label_lower(self) -> str: ...

    @property
    def pk(self) -> _KeyField: ...


class Table(Protocol):
    """All :class:`MemoryRows` needs of a table: a label and a key column, read from ``_meta``
    as a model class gives them. A fold whose rows live only in memory can use a table that is
    no model."""

    @property
    def _meta(self) -> _TableOptions: ...


def _label(model: Table) -> str:
    return model._meta.label_lower


def _pk_name(model: Table) -> str:
    return model._meta.pk.attname


class Rows:
    """The rows a fold step may read and write."""

    # Kept while folding writes the versions of temporal tables (ADR 26); None otherwise.
    log: VersionLog | None = None

    def get(self, model: type[models.Model], pk: Any) -> Row | None:
        raise NotImplementedError

    def put(self, model: type[models.Model], row: Row) -> None:
        raise NotImplementedError

    def delete(self, model: type[models.Model], pk: Any) -> None:
        raise NotImplementedError

    def find(self, model: type[models.Model], **equal: Any) -> list[Row]:
        """Rows whose fields equal the given values, ordered by primary key."""
        raise NotImplementedError

    def preload(self, model: type[models.Model], pks: Iterable[Any]) -> None:
        """Load the rows of these keys together, ahead of the steps that will :meth:`get` them.
        Only where rows are slow to read one by one; it changes nothing a step sees."""

    def update(self, model: type[models.Model], pk: Any, **changes: Any) -> Row:
        row = self.get(model, pk)
        if row is None:
            raise LookupError(f"No {_label(model)} row {pk!r} to update.")
        row = {**row, **{name: native(value) for name, value in changes.items()}}
        self.put(model, row)
        return row


class MemoryRows(Rows):
    """Rows held in memory: used for rebuilds, as-of views and snapshots."""

    def __init__(self, tables: dict[str, dict[str, Row]] | None = None) -> None:
        self.tables: dict[str, dict[str, Row]] = tables if tables is not None else {}

    def _table(self, model: Table) -> dict[str, Row]:
        return self.tables.setdefault(_label(model), {})

    def get(self, model: Table, pk: Any) -> Row | None:
        row = self._table(model).get(str(native(pk)))
        return dict(row) if row is not None else None

    def put(self, model: Table, row: Row) -> None:
        # native() inlined for the values already native: a fold puts a row or two per event.
        row = {n: v if type(v) in _ALREADY_NATIVE else native(v) for n, v in row.items()}
        meta = model._meta
        key = str(row[meta.pk.attname])
        table = self.tables.get(meta.label_lower)
        if table is None:
            table = self.tables[meta.label_lower] = {}
        table[key] = row
        if self.log is not None:
            self.log.note(model, key, row)

    def delete(self, model: Table, pk: Any) -> None:
        key = str(native(pk))
        self._table(model).pop(key, None)
        if self.log is not None:
            self.log.note(model, key, None)

    def find(self, model: Table, **equal: Any) -> list[Row]:
        wanted = {name: native(value) for name, value in equal.items()}
        table = self._table(model)
        return [
            dict(table[key])
            for key in sorted(table, key=_sort_key)
            if all(table[key].get(name) == value for name, value in wanted.items())
        ]

    def all(self, model: Table) -> list[Row]:
        table = self._table(model)
        return [dict(table[key]) for key in sorted(table, key=_sort_key)]


def _sort_key(key: str) -> tuple[int, Any]:
    return (0, int(key)) if key.isdigit() else (1, key)


# Keys per preload query: within SQLite's 999 parameters, and one query for a company.
_PRELOAD_CHUNK = 500


class DatabaseRows(Rows):
    """Rows of the read-model tables, loaded on first use and written back by :meth:`flush`."""

    def __init__(self) -> None:
        self._loaded: dict[str, dict[str, Row | None]] = {}
        self._dirty: dict[str, dict[str, Row]] = {}
        self._deleted: dict[str, set[str]] = {}
        self._models: dict[str, type[models.Model]] = {}

    def _remember(self, model: type[models.Model]) -> str:
        label = _label(model)
        self._models[label] = model
        return label

    def get(self, model: type[models.Model], pk: Any) -> Row | None:
        label = self._remember(model)
        key = str(native(pk))
        cache = self._loaded.setdefault(label, {})
        if key not in cache:
            found = model._default_manager.filter(pk=pk).values().first()
            cache[key] = {n: native(v) for n, v in found.items()} if found else None
        row = cache[key]
        return dict(row) if row is not None else None

    def put(self, model: type[models.Model], row: Row) -> None:
        label = self._remember(model)
        row = {name: native(value) for name, value in row.items()}
        key = str(row[_pk_name(model)])
        self._loaded.setdefault(label, {})[key] = row
        self._dirty.setdefault(label, {})[key] = row
        self._deleted.get(label, set()).discard(key)
        if self.log is not None:
            self.log.note(model, key, row)

    def delete(self, model: type[models.Model], pk: Any) -> None:
        label = self._remember(model)
        key = str(native(pk))
        self._loaded.setdefault(label, {})[key] = None
        self._dirty.get(label, {}).pop(key, None)
        self._deleted.setdefault(label, set()).add(key)
        if self.log is not None:
            self.log.note(model, key, None)

    def preload(self, model: type[models.Model], pks: Iterable[Any]) -> None:
        """One query per 500 keys instead of one per key; each key is then cached as :meth:`get`
        would have cached it, missing rows as None. Keys already read or written are left as
        they are, and a key not in its canonical form is left to :meth:`get`."""
        label = self._remember(model)
        cache = self._loaded.setdefault(label, {})
        wanted: dict[str, Any] = {}
        for pk in pks:
            key = str(native(pk))
            if key in cache or key in wanted:
                continue
            try:
                canonical = str(native(model._meta.pk.to_python(pk)))
            except ValidationError:
                continue  # :meth:`get` raises as it always has, if a step reads it
            if canonical == key:
                wanted[key] = pk
        keys = list(wanted)
        for start in range(0, len(keys), _PRELOAD_CHUNK):
            chunk = keys[start : start + _PRELOAD_CHUNK]
            found = {
                str(native(row[_pk_name(model)])): row
                for row in model._default_manager.filter(pk__in=chunk).values()
            }
            for key in chunk:
                row = found.get(key)
                cache[key] = {n: native(v) for n, v in row.items()} if row else None

    def find(self, model: type[models.Model], **equal: Any) -> list[Row]:
        label = self._remember(model)
        cache = self._loaded.setdefault(label, {})
        for found in model._default_manager.filter(**equal).values():
            row = {n: native(v) for n, v in found.items()}
            cache.setdefault(str(row[_pk_name(model)]), row)
        wanted = {name: native(value) for name, value in equal.items()}
        return [
            dict(row)
            for key, row in sorted(cache.items(), key=lambda item: _sort_key(item[0]))
            if row is not None and all(row.get(n) == v for n, v in wanted.items())
        ]

    def flush(self) -> None:
        for label, keys in self._deleted.items():
            if keys:
                model = self._models[label]
                model._default_manager.filter(pk__in=list(keys)).delete()
        for label, rows in self._dirty.items():
            if rows:
                write_rows(self._models[label], rows.values(), upsert=True)
        self._dirty.clear()
        self._deleted.clear()
        if self.log is not None:
            self.log.write(close_open=True)
            self.log.clear()


def write_rows(
    model: type[models.Model], rows: Iterable[Row], *, upsert: bool, numbered: bool = False
) -> None:
    """Insert rows (or, with ``upsert``, insert or replace them by primary key); ``numbered``:
    the table numbers its rows itself, and the rows carry no primary key.

    Plain SQL rather than ``bulk_create``: this runs inside every append, where building model
    instances and compiling a query each time costs more than the database round trip. On
    PostgreSQL the statement is bound on the server and prepared once per connection.
    """
    rows = list(rows)
    if not rows:
        return
    statements = _statements(model, upsert, connection.vendor, numbered)
    fields = _written_fields(model, numbered)
    if connection.vendor == "postgresql":
        columns = [
            [_postgres_param(field, row, is_json) for row in rows]
            for field, is_json in zip(fields, statements.json_columns, strict=True)
        ]
        with store.server_bound_cursor() as cursor:
            if len(rows) == 1:
                cursor.execute(statements.one_row, [c[0] for c in columns], prepare=True)
            else:
                cursor.execute(statements.many_rows, columns, prepare=True)
        return
    with connection.cursor() as cursor:
        for start in range(0, len(rows), 500):
            chunk = rows[start : start + 500]
            cursor.execute(
                statements.many_rows.format(rows=", ".join([statements.one_row] * len(chunk))),
                [_portable_param(field, row) for row in chunk for field in fields],
            )


@dataclass(frozen=True)
class _Statements:
    one_row: str
    many_rows: str
    json_columns: tuple[bool, ...] = ()


def _written_fields(model: type[models.Model], numbered: bool) -> list[models.Field]:
    fields = model._meta.concrete_fields
    return [f for f in fields if not f.primary_key] if numbered else list(fields)


@functools.cache
def _statements(
    model: type[models.Model], upsert: bool, vendor: str, numbered: bool = False
) -> _Statements:
    """The SQL that writes rows of ``model``, built once per model."""
    fields = _written_fields(model, numbered)
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    columns = ", ".join(quote(_column(f)) for f in fields)
    pk = model._meta.pk
    conflict = ""
    if upsert:
        updates = ", ".join(
            f"{quote(_column(f))} = excluded.{quote(_column(f))}" for f in fields if f is not pk
        )
        conflict = f" ON CONFLICT ({quote(_column(pk))}) DO " + (
            f"UPDATE SET {updates}" if updates else "NOTHING"
        )
    if vendor == "postgresql":
        # Many rows travel as one binary array per column: one short statement whatever the
        # number of rows, which PostgreSQL keeps prepared.
        types = [f.db_type(connection) for f in fields]
        values = ", ".join(f"%s::{t}" for t in types)
        arrays = ", ".join(f"%b::{t}[]" for t in types)
        return _Statements(
            one_row=f"INSERT INTO {table} ({columns}) VALUES ({values}){conflict}",
            many_rows=f"INSERT INTO {table} ({columns}) SELECT * FROM unnest({arrays}){conflict}",
            json_columns=tuple(isinstance(f, models.JSONField) for f in fields),
        )
    return _Statements(
        one_row="(" + ", ".join(["%s"] * len(fields)) + ")",
        many_rows=f"INSERT INTO {table} ({columns}) VALUES {{rows}}{conflict}",
    )


def _column(field: models.Field) -> str:
    # Django calls a field concrete exactly when it has a column, and only concrete fields
    # (the primary key among them) get here.
    assert field.column is not None, f"{field} has no column"
    return field.column


def _value(field: models.Field, row: Row) -> Any:
    return row[field.attname] if field.attname in row else field.get_default()


def _postgres_param(field: models.Field, row: Row, is_json: bool) -> Any:
    # Rows hold JSON-native values; PostgreSQL casts the text forms of ids and dates itself.
    value = row[field.attname] if field.attname in row else field.get_default()
    if is_json and value is not None:
        return json.dumps(value, separators=(",", ":"))
    return value


def _portable_param(field: models.Field, row: Row) -> Any:
    return field.get_db_prep_save(field.to_python(_value(field, row)), connection)


# --- Row versions (ADR 26) ----------------------------------------------------------------------


def version_data(model: Table, row: Row) -> Row:
    """A row as its version keeps it: every column, in the JSON-native form the table gives
    back, so the inline path and a rebuild write the same data whatever a step left out."""
    fields = model._meta.concrete_fields  # type: ignore[attr-defined]
    return {f.attname: native(f.to_python(_value(f, row))) for f in fields}


def temporal_models() -> dict[str, type[models.Model]]:
    """The tables some projection declares temporal, by label."""
    return {_label(m): m for p in registered() for m in p.temporal}


# Rows per statement that ends versions on SQLite (three parameters a row).
_CLOSE_CHUNK = 500


class VersionLog:
    """What a fold did to the rows of temporal tables, event by event: each row's changes, at
    the sequence of the event that made them (an event that wrote a row twice leaves its last
    write), a deletion as None. :meth:`write` turns them into :class:`RowVersion` rows."""

    def __init__(self, campaign_id: uuid.UUID) -> None:
        self.campaign_id = campaign_id
        self.models = temporal_models()
        self.sequence = 0
        self.changes: dict[tuple[str, str], list[tuple[int, Row | None]]] = {}

    def note(self, model: Table, key: str, row: Row | None) -> None:
        label = _label(model)
        if label in self.models:
            self._change(label, key, None if row is None else version_data(model, row))

    def _change(self, label: str, key: str, data: Row | None) -> None:
        changes = self.changes.setdefault((label, key), [])
        if changes and changes[-1][0] == self.sequence:
            changes[-1] = (self.sequence, data)
        else:
            changes.append((self.sequence, data))

    def replace(self, before: dict[tuple[str, str], Row], after: MemoryRows) -> None:
        """Note, at the current sequence, every temporal row that differs between ``before``
        (version data by label and key) and the rows of ``after``: what a void's refold did."""
        now = {
            (label, key): version_data(model, row)
            for label, model in self.models.items()
            for key, row in after.tables.get(label, {}).items()
        }
        for label_key in sorted(before.keys() | now.keys()):
            if before.get(label_key) != now.get(label_key):
                self._change(*label_key, now.get(label_key))

    def clear(self) -> None:
        self.changes.clear()

    def versions(self) -> Iterator[Row]:
        for (label, key), changes in self.changes.items():
            for place, (sequence, data) in enumerate(changes):
                if data is None:
                    continue
                following = changes[place + 1][0] if place + 1 < len(changes) else None
                yield {
                    "campaign_id": str(self.campaign_id),
                    "table": label,
                    "row_key": key,
                    "valid_from": sequence,
                    "valid_to": following,
                    "data": data,
                }

    def write(self, *, close_open: bool) -> None:
        """Insert the versions; with ``close_open``, first end the versions in the table that
        held until each changed row's first change."""
        if not self.changes:
            return
        if close_open:
            _end_versions(
                self.campaign_id,
                [(label, key, changes[0][0]) for (label, key), changes in self.changes.items()],
            )
        write_rows(RowVersion, self.versions(), upsert=False, numbered=True)


# One statement ends the open versions of the given (table, key) at the given sequences: on
# PostgreSQL the rows travel as arrays (one prepared statement, as in :func:`write_rows`), on
# SQLite as a VALUES list (UPDATE ... FROM needs SQLite 3.33).
_END_VERSIONS_POSTGRES = (
    "UPDATE eventlog_rowversion AS v SET valid_to = c.at "
    "FROM unnest(%b::varchar[], %b::varchar[], %b::bigint[]) AS c(label, row_key, at) "
    'WHERE v.campaign_id = %s::uuid AND v."table" = c.label AND v.row_key = c.row_key '
    "AND v.valid_to IS NULL"
)
_END_VERSIONS_PORTABLE = (
    "UPDATE eventlog_rowversion SET valid_to = c.column3 FROM (VALUES {rows}) AS c "
    'WHERE eventlog_rowversion.campaign_id = %s AND eventlog_rowversion."table" = c.column1 '
    "AND eventlog_rowversion.row_key = c.column2 AND eventlog_rowversion.valid_to IS NULL"
)


def _end_versions(campaign_id: uuid.UUID, ends: list[tuple[str, str, int]]) -> None:
    if connection.vendor == "postgresql":
        labels, keys, sequences = (list(column) for column in zip(*ends, strict=True))
        with store.server_bound_cursor() as cursor:
            cursor.execute(
                _END_VERSIONS_POSTGRES, [labels, keys, sequences, campaign_id], prepare=True
            )
        return
    campaign = RowVersion._meta.get_field("campaign_id").get_db_prep_value(campaign_id, connection)
    with connection.cursor() as cursor:
        for start in range(0, len(ends), _CLOSE_CHUNK):
            chunk = ends[start : start + _CLOSE_CHUNK]
            cursor.execute(
                _END_VERSIONS_PORTABLE.format(rows=", ".join(["(%s, %s, %s)"] * len(chunk))),
                [value for end in chunk for value in end] + [campaign],
            )


def open_versions(campaign_id: uuid.UUID) -> dict[tuple[str, str], Row]:
    """The versions of a campaign's temporal rows that still hold: its temporal tables now."""
    found = RowVersion.objects.filter(
        campaign_id=campaign_id, table__in=list(temporal_models()), valid_to__isnull=True
    )
    return {(t, k): data for t, k, data in found.values_list("table", "row_key", "data")}


def dump_versions(campaign_id: uuid.UUID | None = None) -> list[Row]:
    """Every row version (of one campaign, or all) in a stable order, for comparison."""
    queryset = RowVersion.objects.all()
    if campaign_id is not None:
        queryset = queryset.filter(campaign_id=campaign_id)
    ordered = queryset.order_by("campaign_id", "table", "row_key", "valid_from")
    return [
        {n: native(v) for n, v in row.items()}
        for row in ordered.values(
            "campaign_id", "table", "row_key", "valid_from", "valid_to", "data"
        )
    ]


class FoldStep(_StaticStep):
    """A fold step as it sits in a projection's class body: a static method (steps take no
    ``self``) that also knows the event types it handles. Made by :meth:`Projection.handles`."""

    def __init__(
        self, function: Step, type_names: tuple[str, ...], reads: Reads | None = None
    ) -> None:
        super().__init__(function)
        self.type_names = type_names
        self.reads = reads


class Projection:
    """A read model folded from events. Subclasses set ``name``, ``models`` and ``version``,
    and declare fold steps with :meth:`handles`.

    Every model must have a ``campaign_id`` field so a campaign's rows can be rebuilt alone.
    Steps must not depend on the order of keys in payload objects: PostgreSQL's jsonb returns
    them in an order of its own, so an inline fold and a rebuild would see different orders.
    Bump ``version`` whenever a step changes, so cached snapshots of the old fold are ignored.
    """

    name: str = ""
    version: int = 1
    # Projections fold each event in turn, by ``order`` then name: one that reads the rows
    # others write for the same event (a review of them) sets a higher order.
    order: int = 0
    models: tuple[type[models.Model], ...] = ()
    # Those of ``models`` whose every change is kept as a :class:`RowVersion` (ADR 26): the
    # tables read *as of* a point.
    temporal: tuple[type[_Model], ...] = ()
    steps: dict[str, Step]
    readers: dict[str, Reads]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.steps = {}
        cls.readers = {}
        for attribute in vars(cls).values():
            if isinstance(attribute, FoldStep):
                for type_name in attribute.type_names:
                    cls.steps[type_name] = attribute.__func__
                    if attribute.reads is not None:
                        cls.readers[type_name] = attribute.reads

    @staticmethod
    def handles(*type_names: str, reads: Reads | None = None) -> Callable[[Step], FoldStep]:
        """Declares a fold step for events of the given types, written without ``self``::

            @Projection.handles("rosters.UnitRaised")
            def unit_raised(rows: Rows, event: StoredEvent) -> None: ...

        The step becomes a :class:`FoldStep`, a static method, so it is typed as the plain
        function it is. ``reads(event)``, if given, names the rows (table, primary key) the
        step will read for the event, so the inline path loads those of all the events it
        appends in one query per table rather than one per row (:meth:`Rows.preload`). A row
        the step reads without naming it is still read, on its own.
        """

        def mark(step: Step) -> FoldStep:
            return FoldStep(step, type_names, reads)

        return mark

    def apply(self, rows: Rows, event: StoredEvent) -> None:
        step = self.steps.get(event.type)
        if step is not None:
            step(rows, event)

    def reads(self, event: StoredEvent) -> Iterable[Read]:
        """The rows its step for ``event`` declares it will read (see :meth:`handles`)."""
        reader = self.readers.get(event.type)
        return reader(event) if reader is not None else ()

    def record_void(self, rows: Rows, event: StoredEvent, void: StoredEvent) -> None:
        """Called instead of :meth:`apply` for a voided event, so a projection that keeps a
        history can say what was voided and why. The default records nothing."""


_PROJECTIONS: dict[str, Projection] = {}


def register(projection_class: type[Projection]) -> type[Projection]:
    projection = projection_class()
    if not projection.name:
        raise ValueError(f"{projection_class.__name__} needs a name.")
    _PROJECTIONS[projection.name] = projection
    return projection_class


def registered() -> list[Projection]:
    """The projections in the order they fold each event: by ``order``, then by name."""
    return sorted(_PROJECTIONS.values(), key=lambda p: (p.order, p.name))


def get(name: str) -> Projection:
    return _PROJECTIONS[name]


def apply_inline(campaign_id: uuid.UUID, events: Sequence[StoredEvent]) -> None:
    """Fold freshly appended events into the read-model tables, in the append's transaction.

    A voided event changes everything that followed it, so appending a void refolds the
    campaign's read models instead, skipping every event voided so far (:func:`_refold_at`).
    """
    pending: list[StoredEvent] = []
    for event in events:
        if event.type == VOIDED:
            _apply_events(campaign_id, pending)
            pending = []
            _refold_at(campaign_id, event.sequence)
        else:
            pending.append(event)
    _apply_events(campaign_id, pending)


def _apply_events(campaign_id: uuid.UUID, events: Sequence[StoredEvent]) -> None:
    interested = [p for p in registered() if any(event.type in p.steps for event in events)]
    if not interested:
        return
    rows = DatabaseRows()
    rows.log = VersionLog(campaign_id)
    _preload(rows, interested, events)
    for event in events:
        rows.log.sequence = event.sequence
        for projection in interested:
            projection.apply(rows, event)
    rows.flush()


def _refold_at(campaign_id: uuid.UUID, sequence: int) -> None:
    """The read models after the void at ``sequence``: the log up to it folded again without
    the events voided so far. Rows of temporal tables that come out different get a version
    from the void on, exactly as :func:`rebuild` gives them."""
    projections = registered()
    # The fold as of the void, which leaves out what it voids: from the latest snapshot before
    # the first event it changes, not from the start of the log, when there is one.
    refolded = fold_as_of(campaign_id, sequence, projections, chunked=True)
    log = VersionLog(campaign_id)
    log.sequence = sequence
    log.replace(open_versions(campaign_id), refolded)
    _replace_rows(campaign_id, projections, refolded)
    log.write(close_open=True)


def _preload(rows: Rows, projections: Sequence[Projection], events: Sequence[StoredEvent]) -> None:
    """Load the rows the steps declare they will read for these events, a table at a time."""
    wanted: dict[type[models.Model], list[Any]] = {}
    for event in events:
        for projection in projections:
            for model, pk in projection.reads(event):
                wanted.setdefault(model, []).append(pk)
    for model, pks in wanted.items():
        rows.preload(model, pks)


def fold_events(
    events: Iterable[StoredEvent],
    projections: Sequence[Projection] | None = None,
    rows: MemoryRows | None = None,
    *,
    voided: dict[int, StoredEvent] | None = None,
) -> MemoryRows:
    """Fold events into memory rows, from ``rows`` if given, leaving out voided events."""
    apply = _Dispatch(list(projections or registered()))
    rows = rows if rows is not None else MemoryRows()
    voided = voided or {}
    for event in events:
        apply(rows, event, voided)
    return rows


class _Dispatch:
    """Folds one event into rows through each projection in turn, as :meth:`Projection.apply`
    (or :meth:`Projection.record_void`, for a voided event) would, with the steps for each
    event type looked up once per type rather than once per event and projection: a fold of a
    long log spends most of its time choosing steps otherwise."""

    def __init__(self, projections: Sequence[Projection]) -> None:
        self.projections = list(projections)
        self.steps: dict[str, tuple[Callable[[Rows, StoredEvent], None], ...]] = {}

    def _steps(self, type_name: str) -> tuple[Callable[[Rows, StoredEvent], None], ...]:
        steps = []
        for projection in self.projections:
            if type(projection).apply is Projection.apply:
                step = projection.steps.get(type_name)
                if step is not None:
                    steps.append(step)
            else:  # a projection of its own kind decides per event
                steps.append(projection.apply)
        self.steps[type_name] = found = tuple(steps)
        return found

    def __call__(self, rows: Rows, event: StoredEvent, voided: dict[int, StoredEvent]) -> None:
        if voided and (void := voided.get(event.sequence)) is not None:
            for projection in self.projections:
                projection.record_void(rows, event, void)
            return
        steps = self.steps.get(event.type)
        if steps is None:
            steps = self._steps(event.type)
        for step in steps:
            step(rows, event)


def voids(campaign_id: uuid.UUID, upto: int | None = None) -> dict[int, StoredEvent]:
    """The campaign's voids up to ``upto``: voided sequence -> the void event."""
    return {
        event.payload["sequence"]: event
        for event in store.read(campaign_id, types=[VOIDED], upto=upto)
    }


def snapshot_key(projections: Sequence[Projection]) -> str:
    """Names a fold by its projections and their versions (hashed: the list can be long)."""
    names = ",".join(f"{p.name}@{p.version}" for p in projections)
    return hashlib.sha256(names.encode()).hexdigest()


def fold_as_of(
    campaign_id: uuid.UUID,
    upto: int | None,
    projections: Sequence[Projection] | None = None,
    *,
    chunked: bool = False,
) -> MemoryRows:
    """The read models of a campaign as they stood after event ``upto`` (all events if None).

    Events voided by a void at or before ``upto`` are left out; a void that came later had not
    happened yet at that point. Starts from the latest cached snapshot it can trust, and caches
    the state at the last multiple of ``MUSTER_SNAPSHOT_INTERVAL`` it passes. ``chunked``: read
    the log as :func:`store.read` does with it, for a caller in a transaction.
    """
    projections = list(projections or registered())
    key = snapshot_key(projections)
    target = store.last_sequence(campaign_id) if upto is None else upto
    voided = voids(campaign_id, target)

    def trustworthy(at: int) -> bool:
        # A snapshot at ``at`` folded the events up to ``at`` with the voids known then; it is
        # wrong for this fold if a later void (still within ``target``) voided one of them.
        return not any(seq <= at < void.sequence for seq, void in voided.items())

    snapshot = next(
        (
            s
            for s in ProjectionSnapshot.objects.filter(
                campaign_id=campaign_id, projection_key=key, sequence__lte=target
            ).order_by("-sequence")
            if trustworthy(s.sequence)
        ),
        None,
    )
    start = snapshot.sequence if snapshot else 0
    rows = MemoryRows(snapshot.state if snapshot else None)
    interval = settings.MUSTER_SNAPSHOT_INTERVAL
    last_boundary = target - target % interval
    boundary: tuple[int, str] | None = None
    apply = _Dispatch(projections)
    for event in store.read(campaign_id, after=start, upto=target, chunked=chunked):
        apply(rows, event, voided)
        if event.sequence == last_boundary and trustworthy(last_boundary):
            boundary = (event.sequence, json.dumps(rows.tables))
    if boundary is not None:
        try:
            with transaction.atomic():
                ProjectionSnapshot.objects.create(
                    campaign_id=campaign_id,
                    projection_key=key,
                    sequence=boundary[0],
                    state=json.loads(boundary[1]),
                )
        except IntegrityError:
            pass  # another request cached the same snapshot first
    return rows


def campaign_ids() -> list[uuid.UUID]:
    from eventlog.models import CampaignHead

    return list(CampaignHead.objects.order_by("campaign_id").values_list("campaign_id", flat=True))


# Events a rebuild folds at a time: it holds the rows one batch touches, whatever the length of
# the log, and writes them back before it reads the next batch.
REBUILD_BATCH = 2000


def rebuild(campaign_id: uuid.UUID, *, progress: Callable[[int], None] | None = None) -> None:
    """Drop a campaign's read-model rows and their versions, and fold them again from its log.

    The log is folded as the inline path folded it when it was appended (:func:`apply_inline`),
    a batch of ``REBUILD_BATCH`` events at a time streamed from the log, each over the rows the
    batches before it left in the tables: so a row's versions are those the inline path wrote,
    and at each void the log up to it is folded again without the events voided so far, so the
    versions before a void keep what was then believed. The rows that remain are those of the
    fold without every voided event.
    """
    projections = registered()
    with transaction.atomic():
        RowVersion.objects.filter(campaign_id=campaign_id).delete()
        _delete_rows(campaign_id, projections)
        batch: list[StoredEvent] = []
        for event in store.read(campaign_id, chunked=True):
            batch.append(event)
            if len(batch) >= REBUILD_BATCH:
                apply_inline(campaign_id, batch)
                if progress is not None:
                    progress(len(batch))
                batch = []
        if batch:
            apply_inline(campaign_id, batch)
            if progress is not None:
                progress(len(batch))


def _delete_rows(campaign_id: uuid.UUID, projections: Sequence[Projection]) -> None:
    for projection in projections:
        for model in projection.models:
            model._default_manager.filter(campaign_id=campaign_id).delete()
    ProjectionSnapshot.objects.filter(campaign_id=campaign_id).delete()


def _replace_rows(
    campaign_id: uuid.UUID, projections: Sequence[Projection], rows: MemoryRows
) -> None:
    _delete_rows(campaign_id, projections)
    for projection in projections:
        for model in projection.models:
            write_rows(model, rows.all(model), upsert=False)


def dump_rows(campaign_id: uuid.UUID | None = None) -> dict[str, list[Row]]:
    """Every read-model row (of one campaign, or all), and the row versions, in a stable
    order, for comparison."""
    result: dict[str, list[Row]] = {"eventlog.rowversion": dump_versions(campaign_id)}
    for projection in registered():
        for model in projection.models:
            queryset = model._default_manager.all()
            if campaign_id is not None:
                queryset = queryset.filter(campaign_id=campaign_id)
            result[_label(model)] = [
                {n: native(v) for n, v in row.items()} for row in queryset.order_by("pk").values()
            ]
    return result


def iter_models() -> Iterator[type[models.Model]]:
    for projection in registered():
        yield from projection.models
