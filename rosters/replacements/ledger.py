"""What a platoon's replacement events add up to, and which of its units can take replacements.

How many men are left to assign and who is still on the way are folds of the platoon's stream,
so nothing here needs a table of its own.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from eventlog import store
from eventlog.projections import voids
from eventlog.store import StoredEvent
from rosters.models import Unit
from rosters.replacements.events import ARRIVED, ASSIGNED, ROLLED
from rosters.vocabulary import TrooperStatus, UnitKind, UnitStatus
from rules.sg2.campaign import Location


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


# Where a unit takes in replacements: a withdrawn unit recovers in a rear area, which is safe too.
LOCATIONS = {UnitStatus.SAFE_AREA: Location.SAFE_AREA, UnitStatus.WITHDRAWN: Location.REAR_AREA}
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
