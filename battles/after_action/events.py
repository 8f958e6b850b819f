"""Event types of the after-action resolution (SG2 P.60-61) and of vehicle repairs."""

from __future__ import annotations

import uuid
from typing import Literal

from pydantic import Field

from campaigns.events import DieRoll
from eventlog.catalogue import EventPayload, event_type
from rosters.vocabulary import TrooperStatus, VehicleState


@event_type("battles.QualityPointsAwarded", stream="battle")
class QualityPointsAwarded(EventPayload):
    """A unit's improvement points for a battle it took part in, and any rise they bought
    (SG2 P.60 IMPROVING TROOP QUALITY)."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    result: Literal["win", "loss", "draw"]
    objective_met: bool
    points_gained: int = Field(ge=0)
    points_before: int = Field(ge=0)
    points_total: int = Field(ge=0, description="Before a rise used them up.")
    points_after: int = Field(ge=0)
    quality_before: str
    quality_after: str
    threshold: int | None
    may_rise: bool
    rose: bool


@event_type("battles.UnitFatigueDropped", stream="battle")
class UnitFatigueDropped(EventPayload):
    """After a battle a unit that fought drops one fatigue level and its R&R count restarts
    (SG2 P.61); every trooper who fought has one more battle to his name. With
    ``fatigue_drop_applies_to = whole_force`` a unit of the force that did not fight drops too
    (``fought`` false): its battles since rest and its R&R days stand, as it saw no action."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    fatigue_before: Literal["fresh", "tired", "exhausted"] | None
    fatigue_after: Literal["fresh", "tired", "exhausted"] | None
    battles_since_rest: int = Field(ge=0)
    trooper_ids: list[uuid.UUID] = Field(default_factory=list)
    fought: bool = True


@event_type("battles.WithdrawalTested", stream="battle")
class WithdrawalTested(EventPayload):
    """A unit that fought Exhausted tested whether it can stay in the line (SG2 P.61): a D6
    up to the battles fought since its last R&R makes it unfit, and it is withdrawn."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    battles_since_rest: int = Field(ge=1)
    needed: int | None = Field(description="The lowest passing face; None: it cannot pass.")
    unfit: bool
    dice: list[DieRoll] = Field(default_factory=list)


class Recovery(EventPayload):
    """One injured trooper after the battle: the field treatment of an untreated casualty if
    due, then the recovery roll (P.39, P.61), if he was recovered from the battle."""

    trooper_id: uuid.UUID
    status_before: TrooperStatus
    treatment_total: int | None = None
    outcome: Literal[
        "dead", "fit", "evacuated", "in_hospital", "left_for_umpire", "left_with_enemy"
    ]
    left_because: Literal["surrendered", "withdrawn", "routed", "abandoned"] | None = Field(
        default=None,
        description="Why a casualty left with the enemy was: his unit surrendered, withdrew or "
        "routed, or abandoned him during the battle (P.20, P.53). Not recovered, he is taken "
        "prisoner.",
    )
    days: int | None = None
    returns_on_day: int | None = None
    dice: list[DieRoll] = Field(default_factory=list)


@event_type("battles.CasualtiesRecovered", stream="battle")
class CasualtiesRecovered(EventPayload):
    """The injured of a unit recovered from the battle (SG2 P.61): one D6 each, 1-2 evacuated
    for good, 3-6 back on duty after that many days. ``dice`` holds every die, in order."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    troopers: list[Recovery] = Field(min_length=1)
    dice: list[DieRoll] = Field(default_factory=list)


class Repair(EventPayload):
    """One damaged vehicle after the battle."""

    vehicle_id: uuid.UUID
    state: VehicleState
    recovered: bool
    days: int | None = None
    repair_until_day: int | None = None
    needs_rear_area: bool = False


@event_type("battles.VehiclesRecovered", stream="battle")
class VehiclesRecovered(EventPayload):
    """A unit's damaged vehicles after the battle (SG2 P.60-61): recovered ones are queued for
    repair; a disabled one waits for a rear area; unrecovered ones are lost."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    vehicles: list[Repair] = Field(min_length=1)


class SuitRepair(EventPayload):
    """One trooper's power-armour suit wrecked in the battle (P.40 roll 5), under repair."""

    trooper_id: uuid.UUID
    repair_days: int = Field(ge=0, description="Option pa_suit_repair_days.")
    days: int = Field(ge=0, description="The days it takes here: doubled if ``doubled``.")
    doubled: bool = Field(description="In the field and/or short of supplies (P.61).")
    repaired_on_day: int = Field(ge=0, description="The battle's day plus ``days``.")


@event_type("battles.PowerSuitsSentForRepair", stream="battle")
class PowerSuitsSentForRepair(EventPayload):
    """A unit's power-armour suits wrecked in the battle went for repair (SG2 P.40 roll 5; the
    book is silent on the campaign, digest AMBIG-09): ``pa_suit_repair_days`` from the battle's
    day, doubled where its unit is in the field or short of supplies (P.61). Until then each
    wearer fights unarmoured."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    location: str = Field(description="Where the unit is: field, safe_area or rear_area.")
    supplied: bool
    suits: list[SuitRepair] = Field(min_length=1)


@event_type("battles.AfterActionResolved", stream="battle")
class AfterActionResolved(EventPayload):
    """The after-action resolution of a battle is complete; the battle is resolved."""

    battle_id: uuid.UUID
    ruleset: str
    winner: str
    day: int = Field(ge=0)


@event_type("battles.VehicleRepairStarted", stream="vehicle")
class VehicleRepairStarted(EventPayload):
    """A disabled vehicle reached a rear area with engineering facilities: its repair began
    (SG2 P.61)."""

    vehicle_id: uuid.UUID
    day: int = Field(ge=0)
    repair_until_day: int = Field(ge=0)


@event_type("battles.VehicleRepaired", stream="vehicle")
class VehicleRepaired(EventPayload):
    """A vehicle's repair was finished: it is operational again (SG2 P.61)."""

    vehicle_id: uuid.UUID
    day: int = Field(ge=0)
    state_before: VehicleState
