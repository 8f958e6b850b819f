"""What a platoon's replacement events add up to, and which of its units can take replacements.

How many men are left to assign and who is still on the way are folds of the platoon's stream,
so nothing here needs a table of its own.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from eventlog import store
from eventlog.projections import voids
from eventlog.store import StoredEvent
from rosters.models import Unit
from rosters.replacements.events import ARRIVED, ASSIGNED, ROLLED
from rosters.vocabulary import TrooperStatus, UnitKind, UnitStatus
from rules.dice import Die
from rules.sg2.campaign import Location
from rules.sg2.replacements import EarlierCheck


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


@dataclass(frozen=True, slots=True)
class CheckMade:
    """The quality check a squad took for the replacements it received since its last battle
    (SG2 P.60: one check for all its new men), and every man it has counted so far."""

    existing_members: int
    returned_from_injury: int
    die: int | None
    roll: int | None
    replacements: int
    dropped: bool

    def as_rules(self) -> EarlierCheck:
        return EarlierCheck(
            replacements=self.replacements,
            existing_members=self.existing_members + self.returned_from_injury,
            die=Die(self.die) if self.die is not None else None,
            roll=self.roll,
            dropped=self.dropped,
        )


def _score(check: Mapping[str, Any]) -> int | None:
    if check.get("roll") is not None:
        return int(check["roll"])
    return int(check["dice"][0]["result"]) if check["dice"] else None


def checks_since(
    campaign_id: uuid.UUID, since: Mapping[uuid.UUID, int]
) -> dict[uuid.UUID, CheckMade]:
    """The check each unit of ``since`` took after the sequence given for it (the end of its
    last battle), with all the men assigned to it since; units with none are left out."""
    made: dict[uuid.UUID, CheckMade] = {}
    if not since:
        return made
    wanted = {str(unit_id): unit_id for unit_id in since}
    voided = voids(campaign_id)
    for event in store.read(campaign_id, types=[ASSIGNED], after=min(since.values())):
        if event.sequence in voided:
            continue
        for a in event.payload["assignments"]:
            unit_id = wanted.get(str(a["unit_id"]))
            if unit_id is None or event.sequence <= since[unit_id]:
                continue
            check, first = a["check"], made.get(unit_id)
            if first is None:
                made[unit_id] = CheckMade(
                    existing_members=check["existing_members"],
                    returned_from_injury=check["returned_from_injury"],
                    die=check["die"],
                    roll=_score(check),
                    replacements=a["count"],
                    dropped=check["dropped"],
                )
            else:
                made[unit_id] = replace(
                    first,
                    replacements=first.replacements + a["count"],
                    dropped=first.dropped or check["dropped"],
                )
    return made


# Where a unit takes in replacements: a rear area is safe too, and a withdrawn unit recovers in
# one (SG2 P.61).
LOCATIONS = {
    UnitStatus.SAFE_AREA: Location.SAFE_AREA,
    UnitStatus.REAR_AREA: Location.REAR_AREA,
    UnitStatus.WITHDRAWN: Location.REAR_AREA,
}
GONE = (TrooperStatus.DEAD, TrooperStatus.EVACUATED, TrooperStatus.CAPTURED)


def location(unit: Unit) -> Location:
    return LOCATIONS.get(UnitStatus(unit.status), Location.FIELD)


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


def _company_of(unit: Unit) -> Unit | None:
    """The company a unit belongs to, looking up through sections and platoons."""
    parent = Unit.objects.filter(pk=unit.parent_id).first() if unit.parent_id else None
    while parent is not None and parent.kind != UnitKind.COMPANY:
        parent = Unit.objects.filter(pk=parent.parent_id).first() if parent.parent_id else None
    return parent


def _outside_platoons(formation: Unit) -> list[Unit]:
    found: list[Unit] = []
    for child in Unit.objects.filter(parent_id=formation.id).order_by("order"):
        if child.status == UnitStatus.DISBANDED or child.kind == UnitKind.PLATOON:
            continue
        if UnitKind(child.kind).is_formation:
            found.extend(_outside_platoons(child))
        else:
            found.append(child)
    return found


def company_units(platoon: Unit) -> list[Unit]:
    """The company-level units of the platoon's company: its own units (HQ, attached armour,
    weapon teams) under no platoon, in roster order; none when the platoon is in no company.
    With option ``company_replacements = share_platoon_roll`` they may take a share of the
    platoon's roll (SG2 P.60 rolls per platoon only; digest AMBIG-23)."""
    company = _company_of(platoon)
    return _outside_platoons(company) if company is not None else []
