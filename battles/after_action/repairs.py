"""Vehicle repairs on the campaign calendar (SG2 P.61).

The calendar step :func:`vehicles_repaired` finishes the repairs whose day has come, and starts
those of disabled vehicles once their unit reaches a rear area with full engineering facilities
(doubled without supplies). Each ruleset that repairs vehicles on the calendar registers its
step in :data:`REPAIRS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import F

from battles.after_action.events import VehicleRepaired, VehicleRepairStarted
from battles.after_action.sg2 import REPAIRABLE
from campaigns.calendar import calendar_step
from campaigns.models import Campaign
from eventlog.store import NewEvent
from rosters.fitness import location_of
from rosters.models import Unit, Vehicle
from rosters.ordering import ranked
from rosters.vocabulary import VehicleState
from rules.options import parse_options
from rules.rulesets import Ruleset
from rules.sg2.campaign import Location
from rules.sg2.recovery import vehicle_repair
from rules.sg2.vehicles import VehicleDamage


def sg2_vehicles_repaired(campaign: Campaign, from_day: int, to_day: int) -> list[NewEvent]:
    """SG2 P.61: repairs end on their day; a disabled vehicle is repaired only in a rear area
    with full engineering facilities, so one waiting in the line, the field or a safe area starts
    its 3 days (the ``repair_days`` option; doubled without supplies) only once its unit is in a
    rear area."""
    options = parse_options(campaign.ruleset, campaign.options)
    damaged = list(
        ranked(
            Vehicle.objects.filter(campaign_id=campaign.id, state__in=[s.value for s in REPAIRABLE])
        ).order_by(F("force_rank"), F("unit_rank"), "order")
    )
    units = {u.id: u for u in Unit.objects.filter(id__in={v.unit_id for v in damaged})}
    new: list[NewEvent] = []
    for vehicle in damaged:
        unit = units.get(vehicle.unit_id)
        new.extend(_repair(vehicle, options, unit, from_day=from_day, to_day=to_day))
    return new


def _repair(
    vehicle: Vehicle, options: Any, unit: Unit | None, *, from_day: int, to_day: int
) -> list[NewEvent]:
    """What the days bring one damaged vehicle: its repair started, finished, or nothing."""
    stream = f"vehicle:{vehicle.id}"
    rear = unit is not None and location_of(unit.status) is Location.REAR_AREA
    new = []
    if vehicle.repair_until_day is None:
        if vehicle.state != VehicleState.DISABLED or not rear:
            return []  # not queued (not recovered, or the umpire's), or still waiting
        assert unit is not None  # a rear area is where a unit is
        repair = vehicle_repair(
            damage=VehicleDamage.DISABLED,
            location=Location.REAR_AREA,
            supplied=unit.supplied,
            repair_days=options.repair_days,
            field_time_multiplier=options.field_time_multiplier,
            field_doubling_applies_to=[t.value for t in options.field_doubling_applies_to],
        )
        assert repair.days is not None  # a rear area repairs a disabled vehicle
        until = from_day + repair.days
        started = VehicleRepairStarted(vehicle_id=vehicle.id, day=from_day, repair_until_day=until)
        new.append(NewEvent.of(started, stream=stream))
    else:
        until = vehicle.repair_until_day
        if vehicle.state == VehicleState.DISABLED and not rear:
            return []  # P.61: only in a rear area; it waits for its unit to get there
    if until > to_day:
        return new
    repaired = VehicleRepaired(
        vehicle_id=vehicle.id, day=max(until, from_day), state_before=VehicleState(vehicle.state)
    )
    return [*new, NewEvent.of(repaired, stream=stream)]


# The campaign's ruleset (its value) -> its calendar step for vehicle repairs.
REPAIRS: dict[str, Callable[[Campaign, int, int], list[NewEvent]]] = {
    Ruleset.SG2.value: sg2_vehicles_repaired,
}


@calendar_step(order=20)
def vehicles_repaired(campaign: Campaign, from_day: int, to_day: int) -> list[NewEvent]:
    """The repairs the days bring, by the campaign's ruleset; none in a ruleset without any."""
    step = REPAIRS.get(str(campaign.ruleset))
    return step(campaign, from_day, to_day) if step is not None else []
