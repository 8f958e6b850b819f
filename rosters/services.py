"""Roster use cases: loading a force, and the umpire's adjustments. Validate, decide, append."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

from django.contrib.auth.models import AbstractBaseUser

from campaigns.models import Campaign
from eventlog import store
from eventlog.errors import CommandError, StateConflict
from eventlog.store import NewEvent, StoredEvent
from rosters import events
from rosters.models import Force, Trooper, Unit
from rosters.roster_file import (
    ForceSpec,
    RosterFileError,
    RosterProblem,
    UnitSpec,
    parse_roster,
)
from rosters.vocabulary import TrooperStatus, UnitKind, UnitStatus
from rules.fad.scales import Quality as FaDQuality
from rules.options import parse_options
from rules.rulesets import Ruleset
from rules.sg2.command import RegroupingUnit, regroup
from rules.sg2.scales import Fatigue
from rules.sg2.scales import Quality as SG2Quality


def stream(kind: str, entity_id: Any) -> str:
    return f"{kind}:{entity_id}"


def _require_reason(reason: str) -> str:
    if not reason or not reason.strip():
        raise CommandError("adjustment.reason_required", "Say why.", field="reason")
    return reason.strip()


# --- Loading a force -----------------------------------------------------------------------------


def force_import_text(
    *, campaign: Campaign, text: str, source: str, actor: AbstractBaseUser
) -> Force:
    """Parse a roster file (YAML or JSON) and raise its force in the campaign.

    A malformed file raises :class:`RosterFileError` listing every problem; nothing is appended.
    """
    spec = parse_roster(text, ruleset=campaign.ruleset, source=source)
    return force_import(campaign=campaign, spec=spec, source=source, actor=actor)


def _walk(
    units: list[UnitSpec], parent_id: uuid.UUID | None, ids: dict[int, uuid.UUID]
) -> Iterator[tuple[UnitSpec, uuid.UUID | None, int]]:
    for order, unit in enumerate(units):
        ids[id(unit)] = uuid.uuid4()
        yield unit, parent_id, order
        yield from _walk(unit.units, ids[id(unit)], ids)


def force_import(
    *, campaign: Campaign, spec: ForceSpec, source: str, actor: AbstractBaseUser
) -> Force:
    """Raise a force from a parsed roster: one event for the force, then one per unit,
    trooper and vehicle, all appended together."""
    if spec.ruleset is not None and spec.ruleset != campaign.ruleset:
        problem = RosterProblem(
            path="ruleset",
            line=None,
            field="ruleset",
            code="roster.wrong_ruleset",
            message=f"The file is for {spec.ruleset}; the campaign plays {campaign.ruleset}.",
        )
        raise RosterFileError([problem], source=source)
    sg2 = campaign.ruleset == Ruleset.SG2
    force_id = uuid.uuid4()
    ids: dict[int, uuid.UUID] = {}
    walked = list(_walk(spec.units, None, ids))
    by_key = {unit.key: ids[id(unit)] for unit, _, _ in walked if unit.key}

    new: list[NewEvent] = [
        NewEvent.of(
            events.ForceRaised(
                force_id=force_id,
                name=spec.name,
                side=spec.side,
                description=spec.description,
                source=source[:200],
            ),
            stream=stream("force", force_id),
        )
    ]
    for unit, parent_id, order in walked:
        unit_id = ids[id(unit)]
        formation = UnitKind(unit.kind).is_formation
        new.append(
            NewEvent.of(
                events.UnitRaised(
                    unit_id=unit_id,
                    force_id=force_id,
                    parent_id=parent_id,
                    order=order,
                    name=unit.name,
                    kind=unit.kind,
                    level=int(unit.level) if unit.level is not None else None,
                    quality=unit.quality,
                    leadership=unit.leadership if sg2 else None,
                    resolve=None if sg2 else unit.resolve,
                    fatigue=unit.fatigue if sg2 and not formation else None,
                    mission_motivation=unit.mission_motivation if sg2 and not formation else None,
                    toe_strength=(
                        unit.toe_strength if unit.toe_strength is not None else len(unit.troopers)
                    ),
                    specialists=list(unit.specialists),
                    status=unit.status,
                    attached_to=by_key.get(unit.attached_to) if unit.attached_to else None,
                ),
                stream=stream("unit", unit_id),
            )
        )
        for t_order, trooper in enumerate(unit.troopers):
            trooper_id = uuid.uuid4()
            new.append(
                NewEvent.of(
                    events.TrooperEnlisted(
                        trooper_id=trooper_id,
                        unit_id=unit_id,
                        force_id=force_id,
                        order=t_order,
                        name=trooper.name,
                        role=trooper.role,
                        weapon=trooper.weapon,
                        armour=trooper.armour,
                        armour_die=trooper.armour_die,
                        power_armour=trooper.power_armour,
                        specialism=trooper.specialism,
                    ),
                    stream=stream("trooper", trooper_id),
                )
            )
        for v_order, vehicle in enumerate(unit.vehicles):
            vehicle_id = uuid.uuid4()
            new.append(
                NewEvent.of(
                    events.VehicleCommissioned(
                        vehicle_id=vehicle_id,
                        unit_id=unit_id,
                        force_id=force_id,
                        order=v_order,
                        name=vehicle.name,
                        vehicle_class=vehicle.vehicle_class,
                        size=vehicle.size,
                        capacity=vehicle.capacity,
                        armour=vehicle.armour,
                        state=vehicle.state,
                    ),
                    stream=stream("vehicle", vehicle_id),
                )
            )
    store.append(
        campaign.id,
        new,
        expected_versions={event.stream: 0 for event in new},
        actor_id=actor.pk,
    )
    return Force.objects.get(pk=force_id)


# --- Umpire adjustments --------------------------------------------------------------------------


def _quality_names(ruleset: str) -> list[str]:
    scale = SG2Quality if ruleset == Ruleset.SG2 else FaDQuality
    return [q.name.lower() for q in scale]


def _live_unit(unit: Unit, *, field: str = "unit") -> None:
    if unit.status == UnitStatus.DISBANDED:
        raise StateConflict("unit.disbanded", f"{unit.name} has been disbanded.", field=field)


def _fighting_unit(unit: Unit, *, field: str = "unit") -> None:
    _live_unit(unit, field=field)
    if UnitKind(unit.kind).is_formation:
        raise CommandError(
            "unit.is_formation",
            f"{unit.name} is a {unit.kind}: it has no quality or troopers of its own.",
            field=field,
        )


def _append(campaign: Campaign, payload: Any, kind: str, entity_id: Any, actor) -> StoredEvent:
    name = stream(kind, entity_id)
    result = store.append(
        campaign.id,
        [NewEvent.of(payload, stream=name)],
        expected_versions={name: store.stream_version(campaign.id, name)},
        actor_id=actor.pk,
    )
    return result.events[0]


def unit_quality_set(
    *, campaign: Campaign, unit: Unit, quality: str, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    """Set a unit's quality by the umpire's judgement (SG2 P.60's alternative to points)."""
    reason = _require_reason(reason)
    _fighting_unit(unit)
    allowed = _quality_names(campaign.ruleset)
    if quality not in allowed:
        raise CommandError(
            "unit.unknown_quality",
            f"{quality!r} is not a quality in this ruleset: choose one of {', '.join(allowed)}.",
            field="quality",
        )
    if quality == unit.quality:
        raise CommandError("unit.unchanged", f"{unit.name} is already {quality}.", field="quality")
    payload = events.UnitQualitySet(unit_id=unit.id, quality=quality, reason=reason)
    return _append(campaign, payload, "unit", unit.id, actor)


def unit_leadership_set(
    *, campaign: Campaign, unit: Unit, leadership: int, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    """Set a unit's leadership value (1 best, 3 worst; SG2 P.9)."""
    reason = _require_reason(reason)
    _fighting_unit(unit)
    if campaign.ruleset != Ruleset.SG2:
        raise CommandError(
            "unit.no_leadership",
            "Fast and Dirty units have no leadership value.",
            field="leadership",
        )
    if not isinstance(leadership, int) or not 1 <= leadership <= 3:
        raise CommandError(
            "unit.leadership_range", "Leadership runs from 1 (best) to 3.", field="leadership"
        )
    if leadership == unit.leadership:
        raise CommandError(
            "unit.unchanged",
            f"{unit.name} already has leadership {leadership}.",
            field="leadership",
        )
    payload = events.UnitLeadershipSet(unit_id=unit.id, leadership=leadership, reason=reason)
    return _append(campaign, payload, "unit", unit.id, actor)


def trooper_rename(
    *, campaign: Campaign, trooper: Trooper, name: str, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    reason = _require_reason(reason)
    name = (name or "").strip()
    if not name or len(name) > 200:
        raise CommandError("trooper.name", "A name has 1 to 200 characters.", field="name")
    if name == trooper.name:
        raise CommandError("trooper.unchanged", f"The trooper is already {name}.", field="name")
    payload = events.TrooperRenamed(trooper_id=trooper.id, name=name, reason=reason)
    return _append(campaign, payload, "trooper", trooper.id, actor)


def trooper_transfer(
    *, campaign: Campaign, trooper: Trooper, to_unit: Unit, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    """Move a trooper to another unit of the same force."""
    reason = _require_reason(reason)
    if to_unit.force_id != trooper.force_id:
        raise CommandError(
            "trooper.other_force",
            f"{to_unit.name} belongs to another force.",
            field="to_unit_id",
        )
    _fighting_unit(to_unit, field="to_unit_id")
    if to_unit.id == trooper.unit_id:
        raise CommandError(
            "trooper.unchanged", f"{trooper.name} is already in {to_unit.name}.", field="to_unit_id"
        )
    if trooper.status in (TrooperStatus.DEAD, TrooperStatus.EVACUATED, TrooperStatus.CAPTURED):
        raise StateConflict(
            "trooper.gone",
            f"{trooper.name} is {trooper.status} and cannot be transferred.",
            field="trooper",
        )
    payload = events.TrooperTransferred(trooper_id=trooper.id, to_unit_id=to_unit.id, reason=reason)
    return _append(campaign, payload, "trooper", trooper.id, actor)


def unit_attach(
    *, campaign: Campaign, unit: Unit, to_unit: Unit, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    """Attach a unit to another unit of its force (a section to a platoon, say)."""
    reason = _require_reason(reason)
    _live_unit(unit)
    _live_unit(to_unit, field="to_unit_id")
    if to_unit.force_id != unit.force_id:
        raise CommandError(
            "unit.other_force", f"{to_unit.name} belongs to another force.", field="to_unit_id"
        )
    if to_unit.id == unit.id:
        raise CommandError(
            "unit.attach_self", "A unit cannot attach to itself.", field="to_unit_id"
        )
    if unit.attached_to == to_unit.id:
        raise CommandError(
            "unit.unchanged", f"{unit.name} is already attached to {to_unit.name}.",
            field="to_unit_id",
        )  # fmt: skip
    attachments = dict(
        Unit.objects.filter(force_id=unit.force_id, attached_to__isnull=False).values_list(
            "id", "attached_to"
        )
    )
    cursor: uuid.UUID | None = to_unit.id
    while cursor is not None:
        if cursor == unit.id:
            raise CommandError(
                "unit.attach_cycle",
                f"{to_unit.name} is already attached, directly or not, to {unit.name}.",
                field="to_unit_id",
            )
        cursor = attachments.get(cursor)
    payload = events.UnitAttached(unit_id=unit.id, to_unit_id=to_unit.id, reason=reason)
    return _append(campaign, payload, "unit", unit.id, actor)


def unit_detach(
    *, campaign: Campaign, unit: Unit, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    reason = _require_reason(reason)
    _live_unit(unit)
    if unit.attached_to is None:
        raise StateConflict("unit.not_attached", f"{unit.name} is not attached.", field="unit")
    payload = events.UnitDetached(unit_id=unit.id, reason=reason)
    return _append(campaign, payload, "unit", unit.id, actor)


def _present(unit: Unit) -> list[Trooper]:
    return [
        t
        for t in Trooper.objects.filter(unit_id=unit.id).order_by("order")
        if TrooperStatus(t.status).is_present
    ]


def units_regroup(
    *, campaign: Campaign, unit: Unit, other: Unit, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    """Merge two depleted units into ``unit`` (SG2 P.17 REGROUPING).

    The merged unit keeps the better leader's LV and the quality of the larger unit; the book is
    silent on ties and fatigue, which the campaign's ``regroup_quality_tie`` and
    ``regroup_fatigue`` options decide. ``other`` is disbanded into ``unit``.
    """
    reason = _require_reason(reason)
    if campaign.ruleset != Ruleset.SG2:
        raise CommandError(
            "regroup.not_in_ruleset", "Regrouping is a Stargrunt II rule.", field="with_unit_id"
        )
    _fighting_unit(unit)
    _fighting_unit(other, field="with_unit_id")
    if other.force_id != unit.force_id:
        raise CommandError(
            "unit.other_force", f"{other.name} belongs to another force.", field="with_unit_id"
        )
    if other.id == unit.id:
        raise CommandError(
            "regroup.same_unit", "A unit cannot regroup with itself.", field="with_unit_id"
        )
    members = {u.id: _present(u) for u in (unit, other)}
    for candidate, field in ((unit, "unit"), (other, "with_unit_id")):
        if not members[candidate.id]:
            raise StateConflict(
                "regroup.empty", f"{candidate.name} has nobody left to regroup.", field=field
            )
        if len(members[candidate.id]) >= candidate.toe_strength:
            raise StateConflict(
                "regroup.not_depleted",
                f"{candidate.name} is at full strength; only depleted units regroup (P.17).",
                field=field,
            )
    options = parse_options(campaign.ruleset, campaign.options)
    outcome = regroup(
        units=[
            RegroupingUnit(
                strength=len(members[u.id]),
                quality=SG2Quality[u.quality.upper()],
                leadership=u.leadership or 2,
                confidence=Fatigue[(u.fatigue or "fresh").upper()].starting_confidence,
                fatigue=Fatigue[(u.fatigue or "fresh").upper()],
            )
            for u in (unit, other)
        ],
        regroup_quality_tie=options.regroup_quality_tie,
        regroup_fatigue=options.regroup_fatigue,
    )
    payload = events.UnitsRegrouped(
        unit_id=unit.id,
        merged_unit_id=other.id,
        quality=outcome.quality.name.lower(),
        leadership=outcome.leadership,
        fatigue=outcome.fatigue.name.lower(),
        trooper_ids=[t.id for t in members[other.id]],
        reason=reason,
    )
    return _append(campaign, payload, "unit", unit.id, actor)


def unit_disband(
    *, campaign: Campaign, unit: Unit, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    reason = _require_reason(reason)
    _live_unit(unit)
    payload = events.UnitDisbanded(unit_id=unit.id, reason=reason)
    return _append(campaign, payload, "unit", unit.id, actor)


# Other apps say whether a unit is busy (fighting a battle, say) and so cannot move.
UnitBusyCheck = Callable[[Unit], str | None]
UNIT_BUSY_CHECKS: list[UnitBusyCheck] = []

LOCATIONS = (UnitStatus.IN_THE_LINE, UnitStatus.SAFE_AREA, UnitStatus.IN_THE_FIELD)


def unit_move(
    *, campaign: Campaign, unit: Unit, to: str, reason: str = "", actor: AbstractBaseUser
) -> StoredEvent:
    """Move a unit between the line, a safe rear area and the field (SG2 P.61: only units out
    of the line rest, and only those in a safe area take replacements)."""
    if to not in LOCATIONS:
        raise CommandError(
            "unit.bad_location",
            "A unit goes to in_the_line, safe_area or in_the_field.",
            field="to",
        )
    _fighting_unit(unit)
    if unit.status == to:
        raise CommandError("unit.unchanged", f"{unit.name} is already there.", field="to")
    if unit.status == UnitStatus.WITHDRAWN and to == UnitStatus.IN_THE_LINE:
        raise StateConflict(
            "unit.withdrawn",
            f"{unit.name} is unfit for combat until rest and recovery restores it (P.61).",
            field="to",
        )
    for check in UNIT_BUSY_CHECKS:
        busy = check(unit)
        if busy:
            raise StateConflict("unit.busy", busy, field="unit")
    payload = events.UnitMoved(unit_id=unit.id, to=to, day=campaign.day, reason=reason.strip())
    return _append(campaign, payload, "unit", unit.id, actor)
