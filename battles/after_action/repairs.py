"""Vehicle repairs on the campaign calendar (SG2 P.61).

The calendar step :func:`vehicles_repaired` finishes the repairs whose day has come, and starts
those of disabled vehicles once their unit reaches a safe rear area. Each ruleset that repairs
vehicles on the calendar registers its step in :data:`REPAIRS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from battles.after_action.events import VehicleRepaired, VehicleRepairStarted
from battles.after_action.sg2 import LOCATION_OF, REPAIRABLE
from campaigns.calendar import calendar_step
from campaigns.models import Campaign
from eventlog.store import NewEvent
from rosters.models import Unit, Vehicle
from rosters.vocabulary import UnitStatus, VehicleState
from rules.options import parse_options
from rules.rulesets import Ruleset
from rules.sg2.campaign import Location


def sg2_vehicles_repaired(campaign: Campaign, from_day: int, to_day: int) -> list[NewEvent]:
    """SG2 P.61: repairs end on their day; a disabled vehicle is repaired only in a rear area
    with engineering facilities, so one waiting in the line or the field starts its 3 days (the
    ``repair_days`` option) only once its unit is in a safe rear area."""
    options = parse_options(campaign.ruleset, campaign.options)
    damaged = list(
        Vehicle.objects.filter(
            campaign_id=campaign.id, state__in=[s.value for s in REPAIRABLE]
        ).order_by("force_id", "unit_id", "order")
    )
    units = dict(
        Unit.objects.filter(id__in={v.unit_id for v in damaged}).values_list("id", "status")
    )
    new: list[NewEvent] = []
    for vehicle in damaged:
        rear = LOCATION_OF.get(UnitStatus(units.get(vehicle.unit_id, ""))) is Location.REAR_AREA
        new.extend(_repair(vehicle, options, rear=rear, from_day=from_day, to_day=to_day))
    return new


def _repair(
    vehicle: Vehicle, options: Any, *, rear: bool, from_day: int, to_day: int
) -> list[NewEvent]:
    """What the days bring one damaged vehicle: its repair started, finished, or nothing."""
    stream = f"vehicle:{vehicle.id}"
    new = []
    if vehicle.repair_until_day is None:
        if vehicle.state != VehicleState.DISABLED or not rear:
            return []  # not queued (not recovered, or the umpire's), or still waiting
        until = from_day + options.repair_days.disabled
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
