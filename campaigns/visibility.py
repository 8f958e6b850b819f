"""What a member of a campaign may see: the one visibility function, and what it sees by.

A campaign is a game between opponents refereed by an umpire, so every read path (the event log
and feed, battle logs and pages, jobs, histories and service records, hospital and casualty
lists, reviews) asks :func:`sight` the same question about each event or read-model row it is
about to show: does this reader see it **whole**, in **outline**, or **not at all**? The answer
comes from

- the reader (:class:`Reader`): their role, the forces a player commands, and the campaign's
  options: ``forces_visibility`` (``outline`` by default: a player sees other players' forces by
  name, side and number of units only; ``full``: everything, as the umpire sees it) and
  ``observers_see_hidden``;
- the subject (:class:`Subject`): the forces the event or row concerns, resolved from the unit,
  trooper, vehicle and force ids it names (``rosters.visibility`` resolves them and registers
  itself here with :func:`use_subject_resolver`: this app sits below the rosters), and what the
  umpire hid of it (``campaigns.secrets``) and whether that was revealed.

Umpires see everything whole. Something hidden is seen by nobody else until its reveal, but the
players it spares (and observers, if ``observers_see_hidden``); before the reveal, and in every
view *as of* a point before it, the others do not see it at all. Observers are not players:
``forces_visibility`` speaks of what *players* see of other players' forces, so observers see
every force whole. A player sees whole what concerns only the forces they command, or no force
at all (the campaign, a battle's turns and result); what concerns another force, in outline,
unless ``forces_visibility`` is ``full``.

An event seen in outline keeps its place in the sequence, its type, stream and time, and only the
payload fields its outline allows (:func:`outline_payload`: by default the battle, turn, day and
side; never a name, a weapon or a die). An event not seen at all is left out of the feed, whose
cursor and ``last_sequence`` still count it. Things a reader may not know exist are answered 404;
a force is listed with its outline to everyone, so its details are refused with 403
(:func:`require_force_whole` and :func:`require_entity_whole`). See
docs/adr/0014-visibility-and-hidden-information.md.
"""

from __future__ import annotations

import dataclasses
import enum
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from campaigns.models import Campaign, Membership
from campaigns.secrets import Secret, Secrets, may_see_secret, secrets_of
from campaigns.selectors import membership_get
from eventlog.api.serializers import JobSerializer, event_to_json
from eventlog.errors import NotFound, PermissionDenied
from eventlog.events import VOIDED
from eventlog.models import Job
from eventlog.store import StoredEvent
from rules.options import ForcesVisibility, parse_options

# The force of an id no roster row resolves (an entity whose creation was voided, say): no
# player commands it, so only those who see every force see what names it.
UNKNOWN_FORCE = "?"
# The event that carries the sides' mission cards, named as other apps name events they react to.
MISSION_CARDS = "battles.BattlePlanned"


class Sight(enum.StrEnum):
    """How much of an event or row a reader sees."""

    WHOLE = "whole"
    OUTLINE = "outline"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class Reader:
    """A member as the visibility function sees them."""

    campaign_id: uuid.UUID
    role: str
    force_ids: frozenset[str]
    forces_visibility: str
    observers_see_hidden: bool = False

    @property
    def is_umpire(self) -> bool:
        return self.role == Membership.Role.UMPIRE

    @property
    def sees_every_force(self) -> bool:
        """Umpires and observers see every force whole; players when the option is ``full``."""
        if self.role != Membership.Role.PLAYER:
            return True
        return self.forces_visibility == ForcesVisibility.FULL

    def sees_force(self, force_id: Any) -> bool:
        """Whether the reader sees this force (its units, troopers, vehicles) whole."""
        return self.sees_every_force or str(force_id) in self.force_ids

    def sees_secret(self, secret: Secret | None, at: int | None = None) -> bool:
        """Whether the reader sees what ``secret`` hides, at the point ``at`` (None: now)."""
        if secret is None or secret.revealed(at):
            return True
        return may_see_secret(
            self.role, self.force_ids, secret, observers=self.observers_see_hidden
        )


@dataclass(frozen=True, slots=True)
class Subject:
    """What an event or a row concerns: the forces it names (none: the campaign as a whole),
    what hides it, if anything, and the hidden mission cards it carries."""

    force_ids: frozenset[str] = frozenset()
    secret: Secret | None = None
    missions: tuple[Secret, ...] = ()

    @classmethod
    def of_forces(cls, *force_ids: Any) -> Subject:
        return cls(frozenset(str(force_id) for force_id in force_ids if force_id is not None))


def sight(reader: Reader, subject: Subject, *, at: int | None = None) -> Sight:
    """The visibility function: how much of something about ``subject`` the reader sees, now or
    in a view as of the point ``at`` of the log."""
    if reader.is_umpire:
        return Sight.WHOLE
    if not reader.sees_secret(subject.secret, at):
        return Sight.NONE
    if not all(reader.sees_force(force_id) for force_id in subject.force_ids):
        return Sight.OUTLINE
    if not all(reader.sees_secret(mission, at) for mission in subject.missions):
        return Sight.OUTLINE  # the plan without the mission cards it may not read
    return Sight.WHOLE


def reader_of(membership: Membership, campaign: Campaign | None = None) -> Reader:
    """The reader a membership makes, with its campaign's options."""
    if campaign is None:
        campaign = Campaign.objects.get(pk=membership.campaign_id)
    options = parse_options(campaign.ruleset, campaign.options)
    # A ruleset without these options (one registered by a third party) keeps Muster's defaults.
    return Reader(
        campaign_id=campaign.id,
        role=membership.role,
        force_ids=frozenset(str(force_id) for force_id in membership.force_ids),
        forces_visibility=str(getattr(options, "forces_visibility", ForcesVisibility.OUTLINE)),
        observers_see_hidden=bool(getattr(options, "observers_see_hidden", False)),
    )


def reader_get(*, user: AbstractBaseUser | AnonymousUser, campaign_id: uuid.UUID) -> Reader:
    """The reader a user is in a campaign; anyone who is not a member: 404."""
    return reader_of(membership_get(user=user, campaign_id=campaign_id))


def require_force_whole(reader: Reader, force_id: Any) -> None:
    """Refuse a force's details to a reader who sees it in outline only: 403, because every
    member is shown the force's name, side and size (``GET /campaigns/{id}/forces/``)."""
    if not reader.sees_force(force_id):
        raise PermissionDenied(
            "force.not_yours",
            "This force belongs to another player; you can see its name, side and size only.",
        )


def require_entity_whole(reader: Reader, force_id: Any, kind: str) -> None:
    """Refuse a unit, trooper or vehicle of a force the reader sees in outline only: 404, as for
    an id that does not exist, because nothing shown to the reader says it does."""
    if not reader.sees_force(force_id):
        raise NotFound(f"{kind}.not_found", f"No such {kind}.")


# --- Subjects ------------------------------------------------------------------------------------

# (stream, payload) of each event or row, to the forces each concerns.
Items = Sequence[tuple[str, Mapping[str, Any]]]
SubjectResolver = Callable[[uuid.UUID, Items], list[frozenset[str]]]
_resolvers: list[SubjectResolver] = []


def use_subject_resolver(resolver: SubjectResolver) -> None:
    """Name what resolves the ids an event names to forces (the rosters app, when it starts)."""
    _resolvers[:] = [resolver]


def subjects(campaign_id: uuid.UUID, items: Items) -> list[Subject]:
    """The forces each ``(stream, payload)`` concerns, in order, resolved in a fixed number of
    queries whatever their number."""
    if not items:
        return []
    if not _resolvers:
        raise RuntimeError("No subject resolver: the rosters app was not loaded.")
    return [Subject(forces) for forces in _resolvers[0](campaign_id, items)]


class Judge:
    """The visibility function for one reader over many events and rows, now or as of ``at``:
    reads the campaign's secrets once, and only for a reader who is not an umpire."""

    def __init__(self, reader: Reader, *, at: int | None = None) -> None:
        self.reader = reader
        self.at = at

    @cached_property
    def secrets(self) -> Secrets:
        return secrets_of(self.reader.campaign_id)

    def events(self, events: Sequence[StoredEvent]) -> list[Sight]:
        """How much of each event the reader sees."""
        if self.reader.is_umpire:
            return [Sight.WHOLE for _ in events]
        found = subjects(self.reader.campaign_id, [(e.stream, e.payload) for e in events])
        return [
            sight(self.reader, self._with_secrets(subject, event), at=self.at)
            for event, subject in zip(events, found, strict=True)
        ]

    def _with_secrets(self, subject: Subject, event: StoredEvent) -> Subject:
        missions: tuple[Secret, ...] = ()
        if event.type == MISSION_CARDS:
            battle_id = str(event.payload.get("battle_id"))
            missions = tuple(s for (b, _), s in self.secrets.missions.items() if b == battle_id)
        secret = self.secrets.of_event(event)
        if event.type == VOIDED and secret is None:
            # A void's reason tells what it voided: it is as hidden as the event it voids.
            secret = self.secrets.of(event.payload["sequence"])
        return dataclasses.replace(subject, secret=secret, missions=missions)

    def row(self, sequence: int, *, battle_id: Any = None, force_ids: Iterable[Any] = ()) -> Sight:
        """How much of a read-model row the reader sees: the row told the event at
        ``sequence`` (of the battle ``battle_id``) and concerns ``force_ids``."""
        if self.reader.is_umpire:
            return Sight.WHOLE
        subject = Subject(
            frozenset(str(f) for f in force_ids), secret=self.secrets.of(sequence, battle_id)
        )
        return sight(self.reader, subject, at=self.at)

    def sees_row(self, sequence: int, *, battle_id: Any = None) -> bool:
        """Whether a row about a force the reader sees whole is shown at all (it is, unless
        what it tells is hidden from the reader)."""
        return self.row(sequence, battle_id=battle_id) != Sight.NONE

    def unseen_events(self) -> list[int]:
        """The sequences of the events hidden from the reader (up to ``at``, as of it): those a
        row without a battle is left out for. Few, as hidings are, and none for an umpire."""
        if self.reader.is_umpire:
            return []
        return sorted(
            sequence
            for sequence, secret in self.secrets.by_sequence.items()
            if (self.at is None or sequence <= self.at)
            and not self.reader.sees_secret(secret, self.at)
        )

    def shown(self, rows: Iterable[Mapping[str, Any]]) -> list[Any]:
        """Of rows about a force the reader sees whole (a unit's history, a trooper's service
        record, a unit's progression), those that tell nothing hidden from the reader: each
        row has the ``sequence`` of the event it tells and, if any, its ``battle_id``."""
        rows = list(rows)
        if self.reader.is_umpire:
            return rows
        return [r for r in rows if self.sees_row(r["sequence"], battle_id=r.get("battle_id"))]

    def sees_battle(self, battle_id: Any) -> bool:
        """Whether the reader may know of the battle: a battle hidden whole is not shown."""
        if self.reader.is_umpire:
            return True
        return self.reader.sees_secret(self.secrets.battles.get(str(battle_id)), self.at)

    def mission_secret(self, battle_id: Any, side: str) -> Secret | None:
        """What hides a side's mission card from the reader, if anything does."""
        if self.reader.is_umpire:
            return None
        secret = self.secrets.mission(battle_id, side)
        return None if self.reader.sees_secret(secret, self.at) else secret


# --- Outlines ------------------------------------------------------------------------------------

# Payload fields that name nothing of a force: kept in every outline.
OUTLINE_FIELDS = ("battle_id", "turn", "day", "side")

Outline = Callable[[Mapping[str, Any]], dict[str, Any]]
_OUTLINES: dict[str, Outline] = {}


def outline(*type_names: str) -> Callable[[Outline], Outline]:
    """Declare what an event type's outline adds to the common fields (counts, never names,
    weapons or dice). Types without one show the common fields only."""

    def register(function: Outline) -> Outline:
        for type_name in type_names:
            _OUTLINES[type_name] = function
        return function

    return register


def outline_payload(type_name: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    common = {key: payload[key] for key in OUTLINE_FIELDS if key in payload}
    extra = _OUTLINES.get(type_name)
    return {**common, **(extra(payload) if extra else {})}


def event_as_seen(event: StoredEvent, seen: Sight) -> dict[str, Any] | None:
    """An event as the reader sees it: whole, in outline (its place, type and stream, the
    outline's fields, no metadata), or None."""
    if seen == Sight.NONE:
        return None
    shown = event_to_json(event)
    if seen == Sight.OUTLINE:
        shown.update(payload=outline_payload(event.type, event.payload), metadata={}, job=None)
    shown["sight"] = seen.value
    return shown


def events_as_seen(
    reader: Reader, events: Sequence[StoredEvent], *, at: int | None = None
) -> list[tuple[StoredEvent, dict[str, Any]]]:
    """The events the reader sees, each as they see it, in order."""
    shown = []
    for event, seen in zip(events, Judge(reader, at=at).events(events), strict=True):
        as_seen = event_as_seen(event, seen)
        if as_seen is not None:
            shown.append((event, as_seen))
    return shown


# --- Jobs ----------------------------------------------------------------------------------------


def job_as_seen(reader: Reader, job: Job) -> dict[str, Any]:
    """A resolution job as the reader sees it: its events each as :func:`sight` allows; its
    parameters and error whole only to a reader who sees whole what the parameters name (an
    after-action names a battle: everyone; a platoon's replacement roll names the platoon)."""
    shown = dict(
        JobSerializer(
            job,
            context={
                "events_as_seen": lambda events: [s for _, s in events_as_seen(reader, events)]
            },
        ).data
    )
    if not _job_seen_whole(reader, job):
        shown["params"] = outline_payload(job.kind, job.params or {})
    shown["error"] = job_error_as_seen(reader, job)
    return shown


def job_error_as_seen(reader: Reader, job: Job) -> dict[str, Any] | None:
    """A failed job's error: its message may name what the job was about, so a reader who sees
    that in outline gets the code alone."""
    if not job.error or _job_seen_whole(reader, job):
        return job.error
    return {"code": job.error.get("code"), "message": "", "field": None}


def _job_seen_whole(reader: Reader, job: Job) -> bool:
    if reader.is_umpire:
        return True
    params = job.params or {}
    if params.get("hidden") is not None:
        return False  # a hidden command's job: what it names is the umpire's until revealed
    (subject,) = subjects(reader.campaign_id, [("job", params)])
    if params.get("battle_id") and not Judge(reader).sees_battle(params["battle_id"]):
        return False
    return sight(reader, subject) == Sight.WHOLE
