"""Loading a campaign archive (campaigns/archive.py) into this installation: checked whole, then
appended through the store in one transaction, with its users mapped to this installation's
accounts (docs/adr/0015-export-import-and-caching.md)."""

from __future__ import annotations

import dataclasses
import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction

from campaigns.archive import (
    ACTOR,
    TABLE_USER_COLUMNS,
    TABLES,
    USER_ID_FIELDS,
    ArchivedUser,
    ArchiveRefused,
    Checked,
    Progress,
    Records,
    Silent,
    archive_check,
    canonical,
    invalid,
    stored_event,
)
from campaigns.models import Campaign, Membership
from eventlog import projections, store
from eventlog.errors import CommandError, StateConflict
from eventlog.models import CampaignHead, Job
from eventlog.store import NewEvent, StoredEvent

logger = logging.getLogger(__name__)

ROWS_AT_ONCE = 500  # jobs or commands an import writes in one statement
# The username an event gives beside a user's id: it becomes the name of the account the user is
# mapped to, except for a placeholder, which keeps the name of the person it stands for.
USERNAME_BESIDE = {
    ("campaigns.CampaignCreated", "umpire_id"): "umpire_username",
    ("campaigns.MemberAdded", "user_id"): "username",
}

# A member whose username has no account in the importing installation is given a placeholder:
# an account that cannot log in, named after them with this suffix (a character Django's
# username rules refuse, so no person can register it), until the umpire hands their place over.
PLACEHOLDER_SUFFIX = "~imported"


def placeholders(user_ids: list[int]) -> set[int]:
    """Which of these users are placeholders an import made (no account was theirs)."""
    User = get_user_model()
    return set(
        User._default_manager.filter(
            pk__in=user_ids,
            is_active=False,
            **{f"{User.USERNAME_FIELD}__endswith": PLACEHOLDER_SUFFIX},
        ).values_list("pk", flat=True)
    )


@dataclass(frozen=True)
class MappedUser:
    """An archive's user and the account that stands for them here."""

    archived: ArchivedUser
    user_id: int
    username: str
    how: str  # "username", "named", "importer", "api client" or "placeholder"

    @property
    def placeholder(self) -> bool:
        return self.how == "placeholder"


@dataclass(frozen=True)
class Imported:
    campaign_id: uuid.UUID
    name: str
    events: int
    seed_included: bool
    users: list[MappedUser]


def archive_import(
    source: IO[bytes],
    *,
    importer: AbstractBaseUser | None = None,
    user_map: Mapping[str, str] | None = None,
    progress: Progress | None = None,
) -> Imported:
    """Load a campaign from an archive (a seekable binary file), in one transaction.

    The archive is checked whole first (:func:`archive_check`). Its campaign keeps its id, so an
    installation that has it already refuses it (409 ``archive.campaign_exists``). Users are
    mapped to this installation's accounts: with ``importer`` (an import over the API), the
    umpire who exported the campaign becomes the importer and every other person a
    placeholder, since nobody is made a member by someone else naming them; without it (an
    operator on the command line), users are mapped by username, or as ``user_map`` says
    (archive username -> username here). API clients become new API clients, whose tokens the
    umpire renews. Whoever has no account here gets a placeholder account that cannot log in,
    whose place the umpire hands over to someone (``campaigns.member_hand_over``). The user ids
    in the events become the mapped accounts' ids, and the usernames beside them their names
    (a placeholder keeps the name of the person it stands for).
    """
    progress = progress or Silent()
    checked = archive_check(source, progress=progress)
    manifest, campaign_id = checked.manifest, checked.campaign_id
    with transaction.atomic():
        # Locked before looking, so two imports of one campaign cannot both find it missing.
        store.lock_campaign(campaign_id)
        if _exists(campaign_id):
            raise StateConflict(
                "archive.campaign_exists",
                f"Campaign {campaign_id} is here already: an archive is loaded into an "
                "installation that does not have its campaign.",
                field="archive",
            )
        users = _map_users(checked, importer=importer, user_map=user_map or {})
        source.seek(0)
        source.readline()
        progress.start("import", sum(manifest["counts"].values()))
        try:
            _load(source, campaign_id, manifest, users, progress)
        except IntegrityError:
            raise invalid("The archive's jobs or commands clash with rows here") from None
        except (ValidationError, ValueError, TypeError):
            raise invalid("The archive's jobs, commands or seed do not fit their tables") from None
        try:
            projections.rebuild(campaign_id)
        except (LookupError, ValueError, TypeError):
            # Every event is valid on its own (checked), but a log nobody's commands wrote can
            # still make no sense as a whole: it is refused, not half loaded.
            logger.warning("An archive's events do not fold.", exc_info=True)
            raise invalid(
                "The archive's events do not make a campaign this Muster can read"
            ) from None
        if (
            importer is not None
            and not Membership.objects.filter(
                campaign_id=campaign_id, user_id=importer.pk, role=Membership.Role.UMPIRE
            ).exists()
        ):
            raise ArchiveRefused(
                "archive.not_umpire",
                "You would not be an umpire of the imported campaign: the umpire who exported "
                "it is no longer one. Export it again as an umpire.",
                field="archive",
            )
    return Imported(
        campaign_id=campaign_id,
        name=manifest["campaign"]["name"],
        events=manifest["counts"]["event"],
        seed_included=bool(manifest.get("seed_included")),
        users=sorted(users.values(), key=lambda mapped: mapped.archived.id),
    )


def _exists(campaign_id: uuid.UUID) -> bool:
    return (
        CampaignHead.objects.filter(campaign_id=campaign_id, last_sequence__gt=0).exists()
        or Campaign.objects.filter(id=campaign_id).exists()
    )


def _map_users(
    checked: Checked, *, importer: AbstractBaseUser | None, user_map: Mapping[str, str]
) -> dict[int, MappedUser]:
    User = get_user_model()
    by_name = User._default_manager
    exporter = checked.manifest.get("exported_by") or next(
        (user.username for user in checked.users if user.id == checked.creator_id), None
    )
    mapped: dict[int, MappedUser] = {}
    for archived in checked.users:
        name = archived.username
        local: AbstractBaseUser | None = None
        how = "placeholder"
        if name is not None and name in user_map:
            local = by_name.filter(**{User.USERNAME_FIELD: user_map[name]}).first()
            if local is None:
                raise CommandError(
                    "archive.unknown_user",
                    f"There is no user called {user_map[name]!r} here to stand for {name}.",
                    field="user_map",
                )
            how = "named"
        elif importer is not None and name is not None and name == exporter:
            local, how = importer, "importer"
        elif archived.api_client and name:
            local, how = _new_account(name, active=True), "api client"
        elif importer is None and name is not None:
            local = by_name.filter(**{User.USERNAME_FIELD: name}).first()
            how = "username"
        if local is None:
            local = _new_account(f"{name or f'user-{archived.id}'}{PLACEHOLDER_SUFFIX}")
            how = "placeholder"
        mapped[archived.id] = MappedUser(archived, local.pk, local.get_username(), how)
    stands_for: dict[int, MappedUser] = {}
    for one in mapped.values():
        other = stands_for.setdefault(one.user_id, one)
        if other is not one:
            raise StateConflict(
                "archive.user_clash",
                f"{one.username} would stand for both {other.archived.username} and "
                f"{one.archived.username} of the archive: one account cannot be two members.",
                field="user_map",
            )
    return mapped


def _new_account(username: str, *, active: bool = False) -> AbstractBaseUser:
    """A new account with no password (it cannot log in with one): an API client, or an inactive
    placeholder. A taken name gets a number."""
    User = get_user_model()
    max_length = getattr(User._meta.get_field(User.USERNAME_FIELD), "max_length", None) or 150
    candidate, number = username[:max_length], 1
    while User._default_manager.filter(**{User.USERNAME_FIELD: candidate}).exists():
        number += 1
        suffix = f"-{number}"
        candidate = username[: max_length - len(suffix)] + suffix
    return User._default_manager.create_user(
        **{User.USERNAME_FIELD: candidate}, password=None, is_active=active
    )


def _load(
    source: IO[bytes],
    campaign_id: uuid.UUID,
    manifest: Mapping[str, Any],
    users: Mapping[int, MappedUser],
    progress: Progress,
) -> None:
    """Append the archive's events through the store, as they were first appended (one append
    per command, with its metadata and time), then write its jobs, commands and seed. The
    lines are checked again as they are read: the file may have changed since it was checked."""
    pending: list[StoredEvent] = []
    rows: dict[str, list[models.Model]] = {kind: [] for kind in TABLES}
    for _, record in Records(source, campaign_id, manifest["counts"]).records():
        kind = record["kind"]
        if kind == "event":
            event = _mapped(stored_event(record, campaign_id), users)
            if pending and _append_key(pending[-1]) != _append_key(event):
                _append(campaign_id, pending)
                pending = []
            pending.append(event)
        elif kind in TABLES:
            rows[kind].append(_row(kind, record["row"], users))
            if len(rows[kind]) == ROWS_AT_ONCE:
                TABLES[kind]._default_manager.bulk_create(rows[kind])
                rows[kind] = []
        progress.advance(1)
    if pending:
        _append(campaign_id, pending)
    for kind, model in TABLES.items():
        model._default_manager.bulk_create(rows[kind])
    if store.last_sequence(campaign_id) != manifest["counts"]["event"]:
        raise invalid("The log did not come out as the archive has it")


def _mapped(event: StoredEvent, users: Mapping[int, MappedUser]) -> StoredEvent:
    payload = dict(event.payload)
    for name in USER_ID_FIELDS.get(event.type, ()):
        if isinstance(payload.get(name), int):
            mapped = users[payload[name]]
            payload[name] = mapped.user_id
            username = USERNAME_BESIDE.get((event.type, name))
            if username in payload and not mapped.placeholder:
                payload[username] = mapped.username
    meta = dict(event.metadata)
    if isinstance(meta.get(ACTOR), int):
        meta[ACTOR] = users[meta[ACTOR]].user_id
    return dataclasses.replace(event, payload=payload, metadata=meta)


def _append_key(event: StoredEvent) -> tuple[Any, ...]:
    """What the events of one append share."""
    return (event.recorded_at, canonical(event.metadata), event.idempotency_key, event.job_id)


def _append(campaign_id: uuid.UUID, events: list[StoredEvent]) -> None:
    first = events[0]
    appended = store.append(
        campaign_id,
        [NewEvent(e.type, e.payload, e.stream, e.schema_version) for e in events],
        metadata=first.metadata,
        idempotency_key=first.idempotency_key,
        job_id=first.job_id,
        recorded_at=first.recorded_at,
        project=False,
        savepoint=False,
    )
    placed = [(e.sequence, e.version) for e in appended.events]
    if appended.replayed or placed != [(e.sequence, e.version) for e in events]:
        raise invalid(f"Event {first.sequence} did not land where the archive has it")


def _row(kind: str, row: Mapping[str, Any], users: Mapping[int, MappedUser]) -> models.Model:
    model = TABLES[kind]
    values = {
        model_field.attname: model_field.to_python(row[model_field.attname])
        for model_field in model._meta.concrete_fields
        if model_field.attname in row
    }
    user_column = TABLE_USER_COLUMNS.get(kind)
    if user_column and isinstance(values.get(user_column), int):
        values[user_column] = users[values[user_column]].user_id
    if kind == "job" and values.get("status") in (Job.Status.PENDING, Job.Status.RUNNING):
        # A job still to run when the campaign left runs here: the sweep dispatches it, with the
        # same seed and dice stream it would have rolled there.
        values.update(status=Job.Status.PENDING, dispatched_at=None, started_at=None)
    return model(**values)
