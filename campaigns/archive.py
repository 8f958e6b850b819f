"""Campaign archives: a whole campaign in one self-checking file, to move it to another
installation, keep it, or restore it (docs/adr/0015-export-import-and-caching.md).

An archive is JSON Lines in UTF-8, every line canonical JSON (keys sorted, no spaces) ending in a
newline. The first line is the manifest: the format, Muster's version, the campaign, the schema
version of every event type, the columns of the tables it carries, how many records of each kind
follow, and the hash that seals it all. Then one record a line, in this order:

- ``event``: every event of the campaign in sequence, as stored (its schema version and payload
  as they were written, never upcast), with its metadata and the time it was recorded;
- ``job``: the resolution jobs, whose numbers name the streams of the server's dice;
- ``command``: the command records (what was asked, by whom, with which dice);
- ``seed``: the secret dice seed of the current dice epoch, only when the umpire asks for it;
- ``user``: every user the records name, by id and username, so that the importing installation
  can map them to its own accounts.

Every record carries ``hash``: SHA-256 of the previous record's hash (for the first record, the
campaign's genesis hash) followed by the record's canonical JSON without ``hash``. The manifest's
``hash`` is SHA-256 of the last record's hash followed by the manifest's canonical JSON without
``hash``. An import checks every line, every hash and every count before it writes anything, so
one changed byte, a missing line or a file cut short is refused and nothing is loaded. The chain
proves that the file is whole and unchanged since it was written, not who wrote it: it has no
secret, so it is no signature.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import tempfile
import uuid
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import IO, Any, Protocol

from django.contrib.auth import get_user_model
from django.db import connection, models, transaction

from campaigns.members import API_CLIENT_PREFIX
from campaigns.models import Campaign, CampaignSeed
from eventlog import catalogue, projections, store
from eventlog.errors import CommandError, NotFound
from eventlog.models import CommandRecord, Job
from eventlog.store import NewEvent, StoredEvent

FORMAT = "muster-campaign-archive"
FORMAT_VERSION = 1
CONTENT_TYPE = "application/x-ndjson"
KINDS = ("event", "job", "command", "seed", "user")
# Events read from the log at a time: an export's memory does not grow with the campaign.
EXPORT_BATCH = 1000
# Records are hashed as they are read and kept in a temporary file, in memory up to this size
# and on disk beyond it, until the manifest (which needs the last hash) can be written first.
SPOOL_IN_MEMORY = 4 * 1024 * 1024
CHUNK = 64 * 1024

# Payload fields that hold a user's id, by event type. User ids belong to one installation: an
# import maps them to the accounts of its own (tests/campaigns/test_archive.py checks that
# every user-id field of the catalogue is named here).
USER_ID_FIELDS: dict[str, tuple[str, ...]] = {
    "campaigns.CampaignCreated": ("umpire_id",),
    "campaigns.MemberAdded": ("user_id",),
    "campaigns.MemberInvited": ("replaces_user_id",),
    "campaigns.MemberChanged": ("user_id",),
    "campaigns.MemberRemoved": ("user_id",),
    "campaigns.InvitationAccepted": ("user_id",),
    "campaigns.InvitationDeclined": ("user_id",),
}
ACTOR = "actor_id"  # the metadata key of the user who ran the command

# The write-side tables an archive carries besides the log, by record kind. Read models are not
# carried: the import folds them from the events, as ``rebuild_projections`` does.
TABLES: dict[str, type[models.Model]] = {"job": Job, "command": CommandRecord, "seed": CampaignSeed}
# The column of each table that names a user.
TABLE_USER_COLUMNS = {"job": "requested_by_id", "command": "actor_id"}


class ArchiveRefused(CommandError):
    """The file is not a whole, unchanged archive this installation can load: nothing was
    written."""

    status = 422


class Progress(Protocol):
    """Where a long export or import tells how far it got (a progress bar on the command line)."""

    def start(self, phase: str, total: int) -> None: ...

    def advance(self, count: int) -> None: ...


class BytesOut(Protocol):
    """Where an archive is written: anything with ``write(bytes)``."""

    def write(self, data: bytes, /) -> object: ...


class Silent:
    """No progress shown."""

    def start(self, phase: str, total: int) -> None:
        pass

    def advance(self, count: int) -> None:
        pass


def canonical(value: Any) -> bytes:
    """The one way an archive writes a value: keys sorted, no spaces, UTF-8."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode()


def _line(value: Any) -> bytes:
    return canonical(value) + b"\n"


def genesis_hash(campaign_id: uuid.UUID | str) -> str:
    """The hash the chain of a campaign's archive starts from."""
    return hashlib.sha256(f"{FORMAT}:{FORMAT_VERSION}:{campaign_id}".encode()).hexdigest()


def seal(previous: str, body: Mapping[str, Any]) -> str:
    """The hash of a record (or of the manifest) without its ``hash`` field, after ``previous``."""
    return hashlib.sha256(previous.encode("ascii") + canonical(body)).hexdigest()


def muster_version() -> str:
    try:
        return metadata.version("muster")
    except metadata.PackageNotFoundError:
        return "unknown"


def catalogue_versions() -> dict[str, int]:
    return {spec.name: spec.schema_version for spec in catalogue.all_types()}


def _columns(model: type[models.Model]) -> list[str]:
    return [model_field.attname for model_field in model._meta.concrete_fields]


# --- Export ---------------------------------------------------------------------------------


@dataclass
class Archive:
    """An archive ready to be sent: its manifest, and its records in a temporary file."""

    manifest: dict[str, Any]
    records: IO[bytes]

    def chunks(self) -> Iterator[bytes]:
        """The archive's bytes, manifest first, a chunk at a time; the file is closed after."""
        try:
            yield _line(self.manifest)
            self.records.seek(0)
            while chunk := self.records.read(CHUNK):
                yield chunk
        finally:
            self.records.close()

    def write_to(self, out: BytesOut) -> None:
        for chunk in self.chunks():
            out.write(chunk)

    @property
    def filename(self) -> str:
        campaign = self.manifest["campaign"]
        return f"campaign-{campaign['id']}-{campaign['last_sequence']}.muster.jsonl"


@contextlib.contextmanager
def _consistent_read() -> Iterator[None]:
    """One transaction for the whole export, so the events, jobs and commands it reads belong
    together. On PostgreSQL a repeatable-read snapshot: writers go on meanwhile. On SQLite the
    transaction holds the database's write lock (transaction_mode IMMEDIATE), so appends wait
    for the export to finish."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def _event_record(event: StoredEvent) -> dict[str, Any]:
    return {
        "kind": "event",
        "sequence": event.sequence,
        "stream": event.stream,
        "version": event.version,
        "type": event.type,
        "schema_version": event.schema_version,
        "payload": event.payload,
        "metadata": event.metadata,
        "idempotency_key": event.idempotency_key,
        "job_id": str(event.job_id) if event.job_id else None,
        "recorded_at": event.recorded_at.isoformat(),
    }


def _users_of_event(event_type: str, payload: Mapping[str, Any], meta: Mapping[str, Any]) -> set:
    named = {payload.get(name) for name in USER_ID_FIELDS.get(event_type, ())}
    named.add(meta.get(ACTOR))
    return {user_id for user_id in named if isinstance(user_id, int)}


def archive_export(
    campaign_id: uuid.UUID,
    *,
    include_seed: bool = False,
    exported_by: str | None = None,
    progress: Progress | None = None,
) -> Archive:
    """The campaign's archive. ``include_seed`` adds the secret seed of the current dice epoch,
    which an installation needs to go on rolling the server's dice verifiably; leave it out of
    an archive that anyone but the umpire may read. ``exported_by`` names the umpire who asked:
    an import over the API gives that umpire's place to whoever imports it."""
    progress = progress or Silent()
    # Not a ``with``: the file outlives this function, in the Archive, which closes it.
    records = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115
    try:
        with _consistent_read():
            manifest = _write_records(
                campaign_id, records, include_seed=include_seed, progress=progress
            )
    except BaseException:
        records.close()
        raise
    manifest["exported_by"] = exported_by
    manifest["hash"] = seal(manifest.pop("last_hash"), manifest)
    return Archive(manifest=manifest, records=records)


def _write_records(
    campaign_id: uuid.UUID, out: IO[bytes], *, include_seed: bool, progress: Progress
) -> dict[str, Any]:
    campaign = Campaign.objects.filter(id=campaign_id).first()
    if campaign is None:
        raise NotFound("campaign.not_found", "No such campaign.")
    last_sequence = store.last_sequence(campaign_id)
    chain = genesis_hash(campaign_id)
    counts: Counter[str] = Counter(dict.fromkeys(KINDS, 0))
    users: set[int] = set()

    def write(record: dict[str, Any]) -> None:
        nonlocal chain
        chain = seal(chain, record)
        out.write(_line({**record, "hash": chain}))
        counts[record["kind"]] += 1

    progress.start("export", last_sequence)
    after = 0
    while after < last_sequence:
        batch = list(
            store.read(
                campaign_id, after=after, upto=last_sequence, limit=EXPORT_BATCH, upcast=False
            )
        )
        if not batch:
            break
        for event in batch:
            users |= _users_of_event(event.type, event.payload, event.metadata)
            write(_event_record(event))
        after = batch[-1].sequence
        progress.advance(len(batch))
    orders = {"job": ("ordinal",), "command": ("recorded_at", "id"), "seed": ("campaign_id",)}
    for kind, model in TABLES.items():
        if kind == "seed" and not include_seed:
            continue
        rows = model._default_manager.filter(campaign_id=campaign_id).order_by(*orders[kind])
        for row in rows.values().iterator():
            user_column = TABLE_USER_COLUMNS.get(kind)
            if user_column and isinstance(row[user_column], int):
                users.add(row[user_column])
            write({"kind": kind, "row": {name: projections.native(v) for name, v in row.items()}})
    User = get_user_model()
    names = dict(User._default_manager.filter(pk__in=users).values_list("pk", User.USERNAME_FIELD))
    for user_id in sorted(users):
        username = names.get(user_id)
        api_client = bool(username and username.startswith(API_CLIENT_PREFIX))
        write({"kind": "user", "id": user_id, "username": username, "api_client": api_client})
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "muster_version": muster_version(),
        "exported_at": dt.datetime.now(dt.UTC).isoformat(),
        "campaign": {
            "id": str(campaign.id),
            "name": campaign.name,
            "ruleset": campaign.ruleset,
            "last_sequence": last_sequence,
        },
        "catalogue": catalogue_versions(),
        "tables": {kind: _columns(model) for kind, model in TABLES.items()},
        "counts": dict(counts),
        # Asked for, and there: a campaign imported without its seed has none to give.
        "seed_included": counts["seed"] > 0,
        "last_hash": chain,
    }


# --- Reading and checking an archive --------------------------------------------------------


def _cut_short(message: str) -> ArchiveRefused:
    return ArchiveRefused(
        "archive.truncated",
        f"The archive is cut short: {message}. Nothing was imported.",
        field="archive",
    )


def _changed(message: str) -> ArchiveRefused:
    return ArchiveRefused(
        "archive.tampered",
        f"The archive was changed after it was written: {message}. Nothing was imported.",
        field="archive",
    )


def _incompatible(message: str) -> ArchiveRefused:
    return ArchiveRefused(
        "archive.incompatible",
        f"This installation cannot load the archive: {message}. Nothing was imported.",
        field="archive",
    )


def invalid(message: str) -> ArchiveRefused:
    return ArchiveRefused("archive.invalid", f"{message}. Nothing was imported.", field="archive")


def _parse(raw: bytes, number: int) -> dict[str, Any]:
    """One line of an archive, which must be exactly as the export wrote it."""
    if not raw.endswith(b"\n"):
        raise _cut_short(f"line {number} is incomplete")
    try:
        value = json.loads(raw.decode())
        written = _line(value)
    except (UnicodeDecodeError, ValueError):
        raise _changed(f"line {number} is not valid JSON") from None
    if written != raw or not isinstance(value, dict):
        raise _changed(f"line {number} is not as Muster wrote it")
    return value


@dataclass(frozen=True)
class ArchivedUser:
    id: int
    username: str | None
    api_client: bool


@dataclass(frozen=True)
class Checked:
    """What a whole, unchanged archive holds, as far as the import needs to know before
    writing."""

    manifest: dict[str, Any]
    campaign_id: uuid.UUID
    creator_id: int
    users: list[ArchivedUser]


class Records:
    """Reads an archive's records in order, checking each line's form and hash."""

    def __init__(self, source: IO[bytes], campaign_id: uuid.UUID, counts: Mapping[str, int]):
        self.source = source
        self.last = genesis_hash(campaign_id)
        self.expected = sum(counts.values())

    def records(self) -> Iterator[tuple[int, dict[str, Any]]]:
        read = 0
        for number, raw in enumerate(self.source, start=2):
            if read == self.expected:
                raise _changed(f"line {number} is beyond the {self.expected} records it holds")
            record = _parse(raw, number)
            given = record.pop("hash", None)
            self.last = seal(self.last, record)
            if given != self.last:
                raise _changed(f"line {number} does not match its hash")
            read += 1
            yield number, record
        if read < self.expected:
            raise _cut_short(f"it ends after {read} of the {self.expected} records it announces")


def _manifest(source: IO[bytes]) -> tuple[dict[str, Any], uuid.UUID]:
    first = source.readline()
    if not first:
        raise ArchiveRefused(
            "archive.empty", "The file is empty: it is not a campaign archive.", field="archive"
        )
    try:
        manifest = json.loads(first.decode())
    except (UnicodeDecodeError, ValueError):
        manifest = None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        if not first.endswith(b"\n"):
            raise _cut_short("its first line is incomplete")
        raise ArchiveRefused(
            "archive.not_an_archive",
            "This is not a Muster campaign archive (its first line is no archive manifest).",
            field="archive",
        )
    manifest = _parse(first, 1)
    if manifest.get("format_version") != FORMAT_VERSION:
        raise _incompatible(f"it is in format version {manifest.get('format_version')!r}")
    try:
        campaign_id = uuid.UUID(str(manifest["campaign"]["id"]))
        counts = manifest["counts"]
        if set(counts) != set(KINDS) or not all(
            isinstance(n, int) and n >= 0 for n in counts.values()
        ):
            raise ValueError
        columns = manifest["tables"]
        for kind, model in TABLES.items():
            unknown = set(columns[kind]) - set(_columns(model))
            if unknown:
                raise _incompatible(
                    f"its {kind} records have columns this Muster does not know "
                    f"({', '.join(sorted(unknown))}); it was written by Muster "
                    f"{manifest.get('muster_version')}, this is {muster_version()}"
                )
    except (KeyError, TypeError, ValueError, AttributeError):
        raise _changed("its manifest lacks what every archive has") from None
    return manifest, campaign_id


def archive_check(source: IO[bytes], *, progress: Progress | None = None) -> Checked:
    """Read a whole archive and check it: every line as written, every hash, the counts, and
    that this installation knows every event it holds, in the form it holds it. Raises
    :class:`ArchiveRefused` with the first problem."""
    progress = progress or Silent()
    manifest, campaign_id = _manifest(source)
    counts: Mapping[str, int] = manifest["counts"]
    progress.start("check", sum(counts.values()))
    known = catalogue_versions()
    streams: dict[str, int] = {}
    found: Counter[str] = Counter()
    named: set[int] = set()
    users: list[ArchivedUser] = []
    creator_id: int | None = None
    chain = Records(source, campaign_id, counts)
    rank = 0
    for number, record in chain.records():
        kind = record.get("kind")
        if kind not in KINDS or KINDS.index(kind) < rank:
            raise invalid(f"Line {number} holds a {kind!r} record out of place")
        rank = KINDS.index(kind)
        found[kind] += 1
        if found[kind] > counts[kind]:
            raise _changed(f"it holds more {kind} records than its manifest says")
        if kind == "event":
            event = _checked_event(record, number, found["event"], streams, known)
            if event.sequence == 1:
                creator_id = _checked_creation(event, campaign_id, number)
            named |= _users_of_event(event.type, event.payload, event.metadata)
        elif kind == "user":
            users.append(_checked_user(record, number))
        else:
            row = record.get("row")
            if not isinstance(row, dict) or row.get("campaign_id") != str(campaign_id):
                raise invalid(f"Line {number} holds a {kind} of another campaign")
            user_column = TABLE_USER_COLUMNS.get(kind)
            if user_column and isinstance(row.get(user_column), int):
                named.add(row[user_column])
        progress.advance(1)
    if found != Counter(counts):
        raise _changed("its records do not match the counts of its manifest")
    if seal(chain.last, {k: v for k, v in manifest.items() if k != "hash"}) != manifest["hash"]:
        raise _changed("its manifest does not match its hash")
    if counts["event"] != manifest["campaign"].get("last_sequence") or creator_id is None:
        raise invalid("The archive does not hold the campaign's whole log")
    if counts["seed"] != (1 if manifest.get("seed_included") else 0):
        raise invalid("The archive's seed does not match its manifest")
    missing = named - {user.id for user in users}
    if missing:
        raise invalid(f"The archive names users it does not list ({sorted(missing)})")
    return Checked(manifest=manifest, campaign_id=campaign_id, creator_id=creator_id, users=users)


def _checked_event(
    record: dict[str, Any],
    number: int,
    expected_sequence: int,
    streams: dict[str, int],
    known: Mapping[str, int],
) -> StoredEvent:
    """An event record, checked as the store would check it: its place in the campaign's
    sequence and in its stream, its type and schema version, and its payload."""
    try:
        event = stored_event(record, uuid.UUID(int=0))
    except (KeyError, TypeError, ValueError):
        raise invalid(f"Line {number} is not a whole event") from None
    if event.sequence != expected_sequence:
        raise invalid(f"Line {number} is event {event.sequence}, not {expected_sequence}")
    if event.version != streams.get(event.stream, 0) + 1:
        raise invalid(f"Line {number} is not the next event of stream {event.stream}")
    streams[event.stream] = event.version
    if event.type not in known:
        raise _incompatible(f"it holds {event.type} events, which this Muster does not know")
    if event.schema_version > known[event.type]:
        raise _incompatible(
            f"its {event.type} events are in schema version {event.schema_version}, newer than "
            f"this Muster's {known[event.type]}"
        )
    try:
        upcast = catalogue.upcast(event.type, event.schema_version, event.payload)
        NewEvent.from_raw(event.type, upcast, stream=event.stream)
    except CommandError as refusal:
        raise invalid(f"Line {number}: {refusal.message}") from None
    return event


def _checked_creation(event: StoredEvent, campaign_id: uuid.UUID, number: int) -> int:
    if event.type != "campaigns.CampaignCreated" or event.payload.get("campaign_id") != str(
        campaign_id
    ):
        raise invalid(f"Line {number}: the log does not begin with the campaign's creation")
    return int(event.payload["umpire_id"])


def _checked_user(record: dict[str, Any], number: int) -> ArchivedUser:
    user_id, username = record.get("id"), record.get("username")
    if not isinstance(user_id, int) or not (username is None or isinstance(username, str)):
        raise invalid(f"Line {number} is not a whole user")
    return ArchivedUser(id=user_id, username=username, api_client=bool(record.get("api_client")))


def stored_event(record: Mapping[str, Any], campaign_id: uuid.UUID) -> StoredEvent:
    return StoredEvent(
        position=0,
        campaign_id=campaign_id,
        sequence=int(record["sequence"]),
        stream=str(record["stream"]),
        version=int(record["version"]),
        type=str(record["type"]),
        schema_version=int(record["schema_version"]),
        payload=dict(record["payload"]),
        metadata=dict(record["metadata"]),
        idempotency_key=record["idempotency_key"],
        job_id=uuid.UUID(record["job_id"]) if record["job_id"] else None,
        recorded_at=dt.datetime.fromisoformat(record["recorded_at"]),
    )
