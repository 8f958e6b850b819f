"""Stargrunt II replacement troops between battles (SG2 P.60-61 REPLACEMENT TROOPS).

Three steps, each an event on the platoon's stream:

1. ``rosters.ReplacementsRolled``: the umpire rolls the platoon's replacement die (option
   ``replacement_die``); the score is the number of new soldiers available to it.
2. ``rosters.ReplacementsAssigned``: the rolled men are shared among the platoon's squads, and
   each receiving squad takes the quality-drop check at once (its dice are in the event).
3. ``rosters.ReplacementsArrived``: after ``replacement_days`` (P.61: one day, in a safe area)
   the calendar enlists them (``rosters.TrooperEnlisted``), so the squad's strength rises then.

How many men are left to assign and who is still on the way are folds of the platoon's stream
(:func:`platoon_ledger`, :func:`pending_arrivals`), so nothing here needs a table of its own.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from django.contrib.auth.models import AbstractBaseUser
from pydantic import Field

from campaigns.calendar import calendar_step
from campaigns.events import DieRoll
from campaigns.models import Campaign
from campaigns.services import job_dice
from eventlog import jobs, store
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.models import Job
from eventlog.projections import Projection, Rows, register, voids
from eventlog.store import NewEvent, StoredEvent
from rosters import events as roster_events
from rosters.models import Trooper, Unit
from rosters.projections import service_record, unit_history
from rosters.vocabulary import TrooperRole, TrooperStatus, UnitKind, UnitStatus
from rules.dice import DiceError, DiceSource, Roll, TableDice
from rules.options import parse_options
from rules.rulesets import Ruleset
from rules.sg2.campaign import Location
from rules.sg2.replacements import (
    ReplacementError,
    SquadAssignment,
    check_quality_after_replacements,
    distribute_replacements,
    roll_platoon_replacements,
)
from rules.sg2.scales import Quality

ROLLED = "rosters.ReplacementsRolled"
ASSIGNED = "rosters.ReplacementsAssigned"
ARRIVED = "rosters.ReplacementsArrived"

REQUEST_JOB = "rosters.replacements_request"
ASSIGN_JOB = "rosters.replacements_assign"

DieFaces = Literal[4, 6, 8, 10, 12]

# --- Events ---------------------------------------------------------------------------------------


@event_type(ROLLED, stream="unit")
class ReplacementsRolled(EventPayload):
    """A platoon rolled for the replacements available to it (SG2 P.60): one die, whose score
    is the number of new soldiers. Men of an earlier roll still unassigned lapse."""

    platoon_id: uuid.UUID
    day: int = Field(ge=0)
    die: DieFaces
    roll: int = Field(ge=1, le=12)
    available: int = Field(ge=0)
    lapsed: int = Field(default=0, ge=0, description="Unassigned men of the previous roll.")
    dice: list[DieRoll] = Field(default_factory=list)


class QualityCheck(EventPayload):
    """A receiving squad's quality-drop check (SG2 P.60-61): the die nearest its members,
    rounded up; a score at or below the replacements drops it a level."""

    quality_before: str | None
    quality_after: str | None
    existing_members: int = Field(ge=0, description="Fit members never wounded.")
    returned_from_injury: int = Field(
        ge=0, description="Fit members back from a wound: they count toward strength (P.60)."
    )
    die: DieFaces | None = Field(description="The die the check used; None if none was needed.")
    dropped: bool
    dice: list[DieRoll] = Field(default_factory=list)


class SquadReplacements(EventPayload):
    unit_id: uuid.UUID
    count: int = Field(ge=1)
    check: QualityCheck


@event_type(ASSIGNED, stream="unit")
class ReplacementsAssigned(EventPayload):
    """Rolled replacements were shared among a platoon's squads (SG2 P.60); each receiving
    squad took its quality check, in the order given, so ``dice`` follows ``assignments``."""

    assignment_id: uuid.UUID
    platoon_id: uuid.UUID
    day: int = Field(ge=0)
    arrives_on_day: int = Field(ge=0)
    assignments: list[SquadReplacements] = Field(min_length=1)
    left: int = Field(ge=0, description="Rolled men still unassigned afterwards.")
    dice: list[DieRoll] = Field(default_factory=list)


@event_type(ARRIVED, stream="unit")
class ReplacementsArrived(EventPayload):
    """Assigned replacements joined their squad (SG2 P.61: a day after assignment); the
    ``rosters.TrooperEnlisted`` events of ``trooper_ids`` precede this one. No troopers means
    the squad was disbanded before they came."""

    assignment_id: uuid.UUID
    platoon_id: uuid.UUID
    unit_id: uuid.UUID
    day: int = Field(ge=0)
    trooper_ids: list[uuid.UUID]


# --- Reading the platoon's stream -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pending:
    """Replacements assigned to a squad and not yet arrived."""

    assignment_id: str
    platoon_id: str
    unit_id: str
    count: int
    arrives_on_day: int
    sequence: int


@dataclass
class PlatoonLedger:
    """What a platoon's replacement events add up to."""

    last_roll: dict[str, Any] | None = None
    assigned: int = 0  # from the last roll
    pending: list[Pending] = field(default_factory=list)
    # Replacements who have joined each squad so far, to number the next ones.
    arrived_in: Counter[str] = field(default_factory=Counter)

    @property
    def left(self) -> int:
        return self.last_roll["available"] - self.assigned if self.last_roll else 0


def _fold(events: Iterable[StoredEvent], voided: Mapping[int, StoredEvent]) -> PlatoonLedger:
    ledger = PlatoonLedger()
    pending: dict[tuple[str, str], Pending] = {}
    for event in events:
        if event.sequence in voided:
            continue
        p = event.payload
        if event.type == ROLLED:
            ledger.last_roll = {**p, "sequence": event.sequence}
            ledger.assigned = 0
        elif event.type == ASSIGNED:
            ledger.assigned += sum(a["count"] for a in p["assignments"])
            for a in p["assignments"]:
                pending[(p["assignment_id"], a["unit_id"])] = Pending(
                    assignment_id=p["assignment_id"],
                    platoon_id=p["platoon_id"],
                    unit_id=a["unit_id"],
                    count=a["count"],
                    arrives_on_day=p["arrives_on_day"],
                    sequence=event.sequence,
                )
        elif event.type == ARRIVED:
            pending.pop((p["assignment_id"], p["unit_id"]), None)
            ledger.arrived_in[p["unit_id"]] += len(p["trooper_ids"])
    ledger.pending = list(pending.values())
    return ledger


def platoon_ledger(campaign_id: uuid.UUID, platoon_id: uuid.UUID) -> PlatoonLedger:
    """The platoon's last roll, how many of it are assigned, and who is still on the way."""
    return _fold(
        store.read(campaign_id, stream=f"unit:{platoon_id}", types=[ROLLED, ASSIGNED, ARRIVED]),
        voids(campaign_id),
    )


def pending_arrivals(campaign_id: uuid.UUID) -> tuple[list[Pending], Counter[str]]:
    """Every assignment of the campaign still to arrive, oldest first, and how many
    replacements have already joined each squad."""
    ledger = _fold(store.read(campaign_id, types=[ASSIGNED, ARRIVED]), voids(campaign_id))
    return ledger.pending, ledger.arrived_in


# --- Checks ---------------------------------------------------------------------------------------

# Where a unit takes in replacements: a withdrawn unit recovers in a rear area, which is safe too.
LOCATIONS = {UnitStatus.SAFE_AREA: Location.SAFE_AREA, UnitStatus.WITHDRAWN: Location.REAR_AREA}
GONE = (TrooperStatus.DEAD, TrooperStatus.EVACUATED, TrooperStatus.CAPTURED)


def _location(unit: Unit) -> Location:
    return LOCATIONS.get(UnitStatus(unit.status), Location.FIELD)


def _dice_json(rolls: Sequence[Roll]) -> list[DieRoll]:
    # The same shape as battle dice (battles.actions.dice_json); rosters does not import battles.
    return [
        DieRoll(
            die=roll.die.value,
            result=roll.result,
            purpose=roll.purpose,
            source=roll.source.value,
            counter=roll.counter,
        )
        for roll in rolls
    ]


def _require_platoon(campaign: Campaign, platoon: Unit) -> None:
    if campaign.ruleset != Ruleset.SG2:
        raise CommandError(
            "replacements.not_in_ruleset",
            "Replacement rolls per platoon are a Stargrunt II rule (P.60).",
            field="unit",
        )
    if platoon.kind != UnitKind.PLATOON:
        raise CommandError(
            "replacements.not_a_platoon",
            f"{platoon.name} is a {platoon.kind.replace('_', ' ')}: replacements are rolled "
            "per platoon (SG2 P.60).",
            field="unit",
        )
    if platoon.status == UnitStatus.DISBANDED:
        raise StateConflict("unit.disbanded", f"{platoon.name} has been disbanded.", field="unit")


def platoon_squads(platoon: Unit) -> list[Unit]:
    """The platoon's fighting units that can take replacements, in roster order: its squads and
    command unit (the digest's reading of AMBIG-23), looking through sections."""
    found: list[Unit] = []
    for child in Unit.objects.filter(parent_id=platoon.id).order_by("order"):
        if child.status == UnitStatus.DISBANDED:
            continue
        if child.kind == UnitKind.SECTION:
            found.extend(platoon_squads(child))
        elif not UnitKind(child.kind).is_formation:
            found.append(child)
    return found


def _check_request(campaign: Campaign, platoon: Unit, ledger: PlatoonLedger) -> None:
    _require_platoon(campaign, platoon)
    squads = platoon_squads(platoon)
    if not any(_location(s).is_safe for s in squads):
        raise StateConflict(
            "replacements.not_in_safe_area",
            f"None of {platoon.name}'s squads is in a safe area: pull them out of the line "
            "first; replacements are only received in a safe area (SG2 P.61).",
            field="unit",
        )
    if ledger.last_roll is not None and ledger.last_roll["day"] == campaign.day:
        raise StateConflict(
            "replacements.already_rolled",
            f"{platoon.name} already rolled for replacements on day {campaign.day}; the die is "
            "rolled once between battles (P.60).",
            field="unit",
        )


@dataclass(frozen=True)
class _Receiving:
    unit: Unit
    count: int
    members: list[Trooper]


def _members(unit: Unit) -> list[Trooper]:
    return list(Trooper.objects.filter(unit_id=unit.id).order_by("order"))


def _plan(
    campaign: Campaign,
    platoon: Unit,
    assignments: Sequence[Mapping[str, Any]],
    ledger: PlatoonLedger,
    options: Any,
) -> tuple[list[_Receiving], int]:
    """Check an assignment against the state and the rules before any die is rolled; returns
    the receiving squads and the days until the men arrive."""
    _require_platoon(campaign, platoon)
    squads = {s.id: s for s in platoon_squads(platoon)}
    receiving: list[_Receiving] = []
    seen: set[uuid.UUID] = set()
    for index, assignment in enumerate(assignments):
        where = f"assignments.{index}.unit_id"
        unit_id = uuid.UUID(str(assignment["unit_id"]))
        unit = Unit.objects.filter(campaign_id=campaign.id, id=unit_id).first()
        if unit is None:
            raise CommandError("unit.not_found", "No such unit in this campaign.", field=where)
        if unit_id in seen:
            raise CommandError(
                "replacements.duplicate_squad",
                f"{unit.name} is listed twice; give it one assignment.",
                field=where,
            )
        seen.add(unit_id)
        if unit.status == UnitStatus.DISBANDED:
            raise StateConflict("unit.disbanded", f"{unit.name} has been disbanded.", field=where)
        if unit_id not in squads:
            raise RuleViolation(
                "replacements.not_in_platoon",
                f"{unit.name} is not a squad of {platoon.name}: a platoon's replacements go to "
                "its own squads (P.60).",
                field=where,
            )
        if not _location(unit).is_safe:
            raise StateConflict(
                "replacements.not_in_safe_area",
                f"{unit.name} is {unit.status.replace('_', ' ')}: a unit must be pulled out of "
                "the line to a safe area before it can receive replacements (SG2 P.61).",
                field=where,
            )
        if unit.quality == Quality.ELITE.name.lower() and not (
            options.elite_accepts_ordinary_replacements
        ):
            raise RuleViolation(
                "replacements.elite_not_eligible",
                f"{unit.name} is Elite: Elite units get no ordinary replacements unless the "
                "umpire allows it (option elite_accepts_ordinary_replacements, P.61).",
                field=where,
            )
        receiving.append(_Receiving(unit, int(assignment["count"]), _members(unit)))

    wanted = sum(r.count for r in receiving)
    if wanted > ledger.left:
        if ledger.last_roll is None:
            message = f"No replacements have been rolled for {platoon.name}: request them first."
        else:
            message = (
                f"{wanted} replacements were assigned but only {ledger.left} of the "
                f"{ledger.last_roll['available']} rolled on day {ledger.last_roll['day']} are "
                "left."
            )
        raise RuleViolation("replacements.over_assigned", message, field="assignments")
    on_the_way = Counter[str]()
    for pending in ledger.pending:
        on_the_way[pending.unit_id] += pending.count
    try:
        distribution = distribute_replacements(
            available=ledger.left,
            assignments=[
                SquadAssignment(
                    squad=r.unit.name,
                    # Troopers in hospital keep their place; men on the way have taken theirs.
                    vacancies=max(
                        0,
                        r.unit.toe_strength
                        - sum(t.status not in GONE for t in r.members)
                        - on_the_way[str(r.unit.id)],
                    ),
                    assigned=r.count,
                    location=_location(r.unit),
                )
                for r in receiving
            ],
            allow_overstrength=options.allow_overstrength,
            replacement_days=options.replacement_days,
            field_time_multiplier=options.field_time_multiplier,
            field_doubling_applies_to=[str(item) for item in options.field_doubling_applies_to],
        )
    except ReplacementError as refusal:
        raise RuleViolation(refusal.code, str(refusal), field="assignments") from None
    return receiving, distribution.days


def _check_quality(receiving: _Receiving, dice: DiceSource, options: Any) -> QualityCheck:
    fit = [t for t in receiving.members if t.status == TrooperStatus.FIT]
    returned = sum(t.wounds > 0 for t in fit)
    if not receiving.unit.quality:
        return QualityCheck(
            quality_before=None,
            quality_after=None,
            existing_members=len(fit) - returned,
            returned_from_injury=returned,
            die=None,
            dropped=False,
        )
    outcome = check_quality_after_replacements(
        dice=dice,
        quality=Quality[receiving.unit.quality.upper()],
        existing_members=len(fit) - returned,
        returned_from_injury=returned,
        replacements=receiving.count,
        green_never_drops_to_untrained=options.green_never_drops_to_untrained,
        elite_accepts_ordinary_replacements=options.elite_accepts_ordinary_replacements,
    )
    return QualityCheck(
        quality_before=outcome.quality_before.name.lower(),
        quality_after=outcome.quality.name.lower(),
        existing_members=len(fit) - returned,
        returned_from_injury=returned,
        die=outcome.die.value if outcome.die is not None else None,
        dropped=outcome.dropped,
        dice=_dice_json(outcome.rolls),
    )


def _dice_refused(exc: DiceError) -> CommandError:
    return CommandError(exc.code, exc.message, field=f"dice.{exc.index}")


# --- Requesting -----------------------------------------------------------------------------------


def _roll(campaign: Campaign, platoon: Unit, dice: DiceSource) -> tuple[list[NewEvent], int]:
    name = f"unit:{platoon.id}"
    version = store.stream_version(campaign.id, name)
    ledger = platoon_ledger(campaign.id, platoon.id)
    _check_request(campaign, platoon, ledger)
    options = parse_options(campaign.ruleset, campaign.options)
    outcome = roll_platoon_replacements(
        dice=dice, platoon=platoon.name, replacement_die=options.replacement_die
    )
    payload = ReplacementsRolled(
        platoon_id=platoon.id,
        day=campaign.day,
        die=outcome.die.value,
        roll=outcome.rolls[0].result,
        available=outcome.available,
        lapsed=ledger.left,
        dice=_dice_json(outcome.rolls),
    )
    return [NewEvent.of(payload, stream=name)], version


def replacements_request(
    *, campaign: Campaign, platoon: Unit, dice: Sequence[int] | None, actor: AbstractBaseUser
) -> list[StoredEvent] | Job:
    """Roll a platoon's replacement die (SG2 P.60; option ``replacement_die``).

    With ``dice`` rolled at the table the roll is recorded now; without, a resolution job rolls
    the server's die. Refused for anything but a platoon, for a platoon none of whose squads is
    in a safe area (P.61), and for a second roll on the same campaign day.
    """
    if dice is None:
        _check_request(campaign, platoon, platoon_ledger(campaign.id, platoon.id))
        return jobs.job_request(
            campaign_id=campaign.id,
            kind=REQUEST_JOB,
            params={"platoon_id": str(platoon.id)},
            requested_by_id=actor.pk,
        )
    table = TableDice(dice)
    try:
        new, version = _roll(campaign, platoon, table)
        table.ensure_all_used()
    except DiceError as exc:
        raise _dice_refused(exc) from None
    result = store.append(
        campaign.id, new, expected_versions={new[0].stream: version}, actor_id=actor.pk
    )
    return result.events


@jobs.handler(REQUEST_JOB)
def _request_with_server_dice(job: Job) -> jobs.JobOutcome:
    campaign = Campaign.objects.get(pk=job.campaign_id)
    platoon = Unit.objects.get(pk=job.params["platoon_id"])
    new, version = _roll(campaign, platoon, job_dice(job))
    return jobs.JobOutcome(events=new, expected_versions={new[0].stream: version})


# --- Assigning ------------------------------------------------------------------------------------


def _assign(
    campaign: Campaign,
    platoon: Unit,
    assignments: Sequence[Mapping[str, Any]],
    dice: DiceSource,
) -> tuple[list[NewEvent], int]:
    name = f"unit:{platoon.id}"
    version = store.stream_version(campaign.id, name)
    ledger = platoon_ledger(campaign.id, platoon.id)
    options = parse_options(campaign.ruleset, campaign.options)
    receiving, days = _plan(campaign, platoon, assignments, ledger, options)
    try:
        checks = [_check_quality(r, dice, options) for r in receiving]
    except ReplacementError as refusal:
        raise RuleViolation(refusal.code, str(refusal), field="assignments") from None
    payload = ReplacementsAssigned(
        assignment_id=uuid.uuid4(),
        platoon_id=platoon.id,
        day=campaign.day,
        arrives_on_day=campaign.day + days,
        assignments=[
            SquadReplacements(unit_id=r.unit.id, count=r.count, check=check)
            for r, check in zip(receiving, checks, strict=True)
        ],
        left=ledger.left - sum(r.count for r in receiving),
        dice=[roll for check in checks for roll in check.dice],
    )
    new = [NewEvent.of(payload, stream=name)]
    if days == 0:
        # With no time to take them in (option replacement_days 0) they join at once.
        arrived = Counter(ledger.arrived_in)
        for r in receiving:
            pending = Pending(
                assignment_id=str(payload.assignment_id),
                platoon_id=str(platoon.id),
                unit_id=str(r.unit.id),
                count=r.count,
                arrives_on_day=campaign.day,
                sequence=0,
            )
            new.extend(_arrival(pending, campaign.day, arrived))
    return new, version


def replacements_assign(
    *,
    campaign: Campaign,
    platoon: Unit,
    assignments: Sequence[Mapping[str, Any]],
    dice: Sequence[int] | None,
    actor: AbstractBaseUser,
) -> list[StoredEvent] | Job:
    """Share a platoon's rolled replacements among its squads (SG2 P.60-61).

    ``assignments`` is a list of ``{"unit_id", "count"}``. Refused: more than were rolled and
    are left, a unit outside the platoon, a squad not in a safe area, an Elite squad (unless the
    option allows), more than a squad's TO&E vacancies if option ``allow_overstrength`` is off.
    Each receiving squad then takes the quality-drop check, with ``dice`` from the table in
    order or, without them, in a resolution job; a drop is applied at once, the men arrive after
    ``replacement_days``.
    """
    if dice is None:
        options = parse_options(campaign.ruleset, campaign.options)
        _plan(campaign, platoon, assignments, platoon_ledger(campaign.id, platoon.id), options)
        return jobs.job_request(
            campaign_id=campaign.id,
            kind=ASSIGN_JOB,
            params={
                "platoon_id": str(platoon.id),
                "assignments": [
                    {"unit_id": str(a["unit_id"]), "count": int(a["count"])} for a in assignments
                ],
            },
            requested_by_id=actor.pk,
        )
    table = TableDice(dice)
    try:
        new, version = _assign(campaign, platoon, assignments, table)
        table.ensure_all_used()
    except DiceError as exc:
        raise _dice_refused(exc) from None
    result = store.append(
        campaign.id, new, expected_versions={new[0].stream: version}, actor_id=actor.pk
    )
    return result.events


@jobs.handler(ASSIGN_JOB)
def _assign_with_server_dice(job: Job) -> jobs.JobOutcome:
    campaign = Campaign.objects.get(pk=job.campaign_id)
    platoon = Unit.objects.get(pk=job.params["platoon_id"])
    new, version = _assign(campaign, platoon, job.params["assignments"], job_dice(job))
    return jobs.JobOutcome(events=new, expected_versions={new[0].stream: version})


# --- Arriving -------------------------------------------------------------------------------------


def _usual(values: Iterable[Any], default: Any) -> Any:
    """The most common value, the first seen on a tie."""
    counts = Counter(values)
    return counts.most_common(1)[0][0] if counts else default


def _arrival(pending: Pending, day: int, arrived: Counter[str]) -> list[NewEvent]:
    """The enlistment of one squad's replacements, numbered on from the squad's earlier ones,
    in the kit its other troopers usually carry."""
    platoon_stream = f"unit:{pending.platoon_id}"
    unit = Unit.objects.filter(pk=pending.unit_id).first()
    if unit is None or unit.status == UnitStatus.DISBANDED:
        lapse = ReplacementsArrived(
            assignment_id=pending.assignment_id,
            platoon_id=pending.platoon_id,
            unit_id=pending.unit_id,
            day=day,
            trooper_ids=[],
        )
        return [NewEvent.of(lapse, stream=platoon_stream)]
    members = _members(unit)
    armour, armour_die, power_armour = _usual(
        ((t.armour, t.armour_die, t.power_armour) for t in members), ("", None, False)
    )
    weapon = _usual((t.weapon for t in members if t.role == TrooperRole.LINE), "")
    order = max((t.order for t in members), default=-1) + 1
    new: list[NewEvent] = []
    trooper_ids = []
    for offset in range(pending.count):
        trooper_id = uuid.uuid4()
        trooper_ids.append(trooper_id)
        number = arrived[pending.unit_id] + offset + 1
        enlisted = roster_events.TrooperEnlisted(
            trooper_id=trooper_id,
            unit_id=unit.id,
            force_id=unit.force_id,
            order=order + offset,
            name=f"Replacement {number} ({unit.name})"[:200],
            role=TrooperRole.LINE,
            weapon=weapon,
            armour=armour,
            armour_die=armour_die,
            power_armour=power_armour,
        )
        new.append(NewEvent.of(enlisted, stream=f"trooper:{trooper_id}"))
    arrived[pending.unit_id] += pending.count
    payload = ReplacementsArrived(
        assignment_id=pending.assignment_id,
        platoon_id=pending.platoon_id,
        unit_id=unit.id,
        day=day,
        trooper_ids=trooper_ids,
    )
    new.append(NewEvent.of(payload, stream=platoon_stream))
    return new


@calendar_step(order=5)
def replacements_arrive(campaign: Campaign, from_day: int, to_day: int) -> list[NewEvent]:
    """SG2 P.61: assigned replacements join their squad once their day comes, before anything
    else the day brings, so they rest with the squad from then on."""
    if campaign.ruleset != Ruleset.SG2:
        return []
    pending, arrived = pending_arrivals(campaign.id)
    due = sorted(
        (p for p in pending if p.arrives_on_day <= to_day),
        key=lambda p: (p.arrives_on_day, p.sequence),
    )
    new: list[NewEvent] = []
    for item in due:
        new.extend(_arrival(item, max(item.arrives_on_day, from_day), arrived))
    return new


# --- Histories ------------------------------------------------------------------------------------


def _label(value: str | None) -> str:
    return (value or "").replace("_", " ").capitalize()


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _names(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def check_text(check: Mapping[str, Any], count: int) -> str:
    """A quality check in plain words: "quality check d6 2 with 2 replacements: Veteran to
    Regular"."""
    before, after = _label(check["quality_before"]), _label(check["quality_after"])
    members = check["existing_members"] + check["returned_from_injury"]
    if check["quality_before"] is None:
        return "no quality to check"
    if check["dice"]:
        face = check["dice"][0]["result"]
        outcome = f"{before} to {after}" if check["dropped"] else f"stays {before}"
        return (
            f"quality check d{check['die']} {face} with {_plural(count, 'replacement')}: {outcome}"
        )
    if check["die"] is not None:
        return (
            f"{_plural(count, 'replacement')} against a d{check['die']} drop it without a roll: "
            f"{before} to {after}"
        )
    if members == 0:
        return f"no one left to absorb them, so the squad is re-formed: {before} to {after}"
    return f"no quality check: {before} units do not drop further"


@register
class ReplacementsProjection(Projection):
    """Replacements in the histories of platoons and squads; quality drops and arrivals on the
    rosters projection's rows."""

    name = "rosters.replacements"

    @Projection.handles(ROLLED)
    def rolled(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        if rows.get(Unit, p["platoon_id"]) is None:
            return
        summary = (
            f"Day {p['day']}: replacements rolled, d{p['die']} {p['roll']}: "
            f"{_plural(p['available'], 'replacement')} available."
        )
        if p["lapsed"]:
            summary += (
                f" {_plural(p['lapsed'], 'replacement')} of the last roll, never assigned, lapsed."
            )
        unit_history(
            rows,
            event,
            p["platoon_id"],
            summary,
            {"replacements_available": p["available"]},
            dice=p["dice"],
        )

    @Projection.handles(ASSIGNED)
    def assigned(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        platoon = rows.get(Unit, p["platoon_id"])
        if platoon is None:
            return
        when = f"They arrive on day {p['arrives_on_day']}."
        shares = []
        for a in p["assignments"]:
            unit = rows.get(Unit, a["unit_id"])
            if unit is None:
                continue
            shares.append(f"{unit['name']} {a['count']}")
            check = a["check"]
            changes: dict[str, Any] = {"replacements_assigned": a["count"]}
            if check["quality_after"] != check["quality_before"]:
                rows.update(Unit, a["unit_id"], quality=check["quality_after"])
                changes["quality"] = [check["quality_before"], check["quality_after"]]
            members = _plural(check["existing_members"] + check["returned_from_injury"], "member")
            if check["returned_from_injury"]:
                members += f", {check['returned_from_injury']} back from injury"
            unit_history(
                rows,
                event,
                a["unit_id"],
                f"Day {p['day']}: {_plural(a['count'], 'replacement')} assigned: "
                f"{check_text(check, a['count'])} ({members}). {when}",
                changes,
                dice=check["dice"],
            )
        total = sum(a["count"] for a in p["assignments"])
        unit_history(
            rows,
            event,
            p["platoon_id"],
            f"Day {p['day']}: {_plural(total, 'replacement')} assigned ({', '.join(shares)}); "
            f"{p['left']} left. {when}",
            {"replacements_available": p["left"]},
            dice=p["dice"],
        )

    @Projection.handles(ARRIVED)
    def arrived(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if not p["trooper_ids"]:
            if rows.get(Unit, p["platoon_id"]) is not None:
                name = unit["name"] if unit else "a unit"
                unit_history(
                    rows,
                    event,
                    p["platoon_id"],
                    f"Day {p['day']}: replacements for {name} did not arrive: it was disbanded.",
                )
            return
        if unit is None:
            return
        names = []
        for trooper_id in p["trooper_ids"]:
            trooper = rows.get(Trooper, trooper_id)
            if trooper is None:
                continue
            names.append(trooper["name"])
            service_record(rows, event, trooper_id, f"Day {p['day']}: arrived as a replacement.")
        unit_history(
            rows,
            event,
            p["unit_id"],
            f"Day {p['day']}: {_plural(len(names), 'replacement')} arrived: {_names(names)}.",
            {"strength": len(names)},
        )
