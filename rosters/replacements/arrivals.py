"""Assigned replacements joining their squad (SG2 P.61: a day after assignment, in a safe area):
the calendar enlists them when their day comes."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from campaigns.calendar import calendar_step
from campaigns.models import Campaign
from eventlog import commands
from eventlog.store import NewEvent
from rosters import events as roster_events
from rosters.models import Trooper, Unit
from rosters.replacements.events import ReplacementsArrived
from rosters.replacements.ledger import Pending, pending_arrivals
from rosters.vocabulary import TrooperRole, UnitStatus
from rules.rulesets import definition

NewId = Callable[[str], uuid.UUID]


def _usual(values: Iterable[Any], default: Any) -> Any:
    """The most common value, the first seen on a tie."""
    counts = Counter(values)
    return counts.most_common(1)[0][0] if counts else default


def enlist(
    pending: Pending,
    day: int,
    arrived: Counter[str],
    *,
    unit: Unit | None,
    members: list[Trooper],
    new_id: NewId,
) -> list[NewEvent]:
    """The enlistment of one squad's replacements, numbered on from the squad's earlier ones,
    in the kit its ``members`` usually carry. A squad gone (``unit`` None or disbanded) gets
    nobody, and the arrival says so."""
    platoon_stream = f"unit:{pending.platoon_id}"
    if unit is None or unit.status == UnitStatus.DISBANDED:
        lapse = ReplacementsArrived(
            assignment_id=pending.assignment_id,
            platoon_id=pending.platoon_id,
            unit_id=pending.unit_id,
            day=day,
            trooper_ids=[],
        )
        return [NewEvent.of(lapse, stream=platoon_stream)]
    armour, armour_die, power_armour = _usual(
        ((t.armour, t.armour_die, t.power_armour) for t in members), ("", None, False)
    )
    weapon = _usual((t.weapon for t in members if t.role == TrooperRole.LINE), "")
    order = max((t.order for t in members), default=-1) + 1
    new: list[NewEvent] = []
    trooper_ids = []
    for offset in range(pending.count):
        trooper_id = new_id(f"replacement:{pending.assignment_id}:{unit.id}:{offset}")
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
    if not definition(campaign.ruleset).has("platoon_replacements"):
        return []
    pending, arrived = pending_arrivals(campaign.id)
    due = sorted(
        (p for p in pending if p.arrives_on_day <= to_day),
        key=lambda p: (p.arrives_on_day, p.sequence),
    )
    # The squads' rows and men, read for all the arrivals at once.
    squad_ids = {item.unit_id for item in due}
    units = {str(u.id): u for u in Unit.objects.filter(pk__in=squad_ids)} if due else {}
    members: dict[str, list[Trooper]] = {}
    if due:
        for trooper in Trooper.objects.filter(unit_id__in=squad_ids).order_by("order"):
            members.setdefault(str(trooper.unit_id), []).append(trooper)
    new: list[NewEvent] = []
    for item in due:
        new.extend(
            enlist(
                item,
                max(item.arrives_on_day, from_day),
                arrived,
                unit=units.get(str(item.unit_id)),
                members=members.get(str(item.unit_id), []),
                new_id=commands.new_id,
            )
        )
    return new
