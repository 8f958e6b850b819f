"""Event types of the rosters app: raising forces and the umpire's adjustments to them."""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from eventlog.catalogue import EventPayload, event_type
from rosters.vocabulary import TrooperRole, UnitKind, UnitStatus, VehicleState

Reason = Field(min_length=1, max_length=500, description="Why the umpire made the change.")


@event_type("rosters.ForceRaised", stream="force")
class ForceRaised(EventPayload):
    """A force joined the campaign (its units, troopers and vehicles follow)."""

    force_id: uuid.UUID
    name: str = Field(min_length=1, max_length=200)
    side: str = Field(min_length=1, max_length=100)
    description: str = ""
    source: str = Field(default="", description="The roster file it was loaded from.")


@event_type("rosters.UnitRaised", stream="unit")
class UnitRaised(EventPayload):
    """A unit was formed in a force, with its quality, leadership and TO&E strength."""

    unit_id: uuid.UUID
    force_id: uuid.UUID
    parent_id: uuid.UUID | None = None
    order: int = Field(ge=0, description="Position among its siblings in the roster.")
    name: str = Field(min_length=1, max_length=200)
    kind: UnitKind
    level: int | None = Field(default=None, ge=0, le=4)
    quality: str | None = None
    leadership: int | None = Field(default=None, ge=1, le=3)
    resolve: str | None = None
    fatigue: Literal["fresh", "tired", "exhausted"] | None = None
    mission_motivation: Literal["low", "medium", "high"] | None = None
    toe_strength: int = Field(ge=0)
    specialists: list[str] = Field(default_factory=list)
    status: UnitStatus = UnitStatus.IN_THE_LINE
    attached_to: uuid.UUID | None = None


@event_type("rosters.TrooperEnlisted", stream="trooper")
class TrooperEnlisted(EventPayload):
    """A trooper joined a unit."""

    trooper_id: uuid.UUID
    unit_id: uuid.UUID
    force_id: uuid.UUID
    order: int = Field(ge=0)
    name: str = Field(min_length=1, max_length=200)
    role: TrooperRole = TrooperRole.LINE
    weapon: str = ""
    armour: str = ""
    armour_die: Literal[4, 6, 8, 10, 12] | None = None
    power_armour: bool = False
    specialism: str = ""
    experience: str = Field(
        default="",
        description="A Fast and Dirty squad leader's experience (FaD p.11): inexperienced, "
        "experienced or veteran; empty for anyone else.",
    )
    battle_id: uuid.UUID | None = Field(
        default=None,
        description="The battle whose after-action brought him: a Fast and Dirty replacement "
        "or reinforcement (FaD p.66); None for anyone else.",
    )
    joined_as: Literal["", "replacement", "reinforcement"] = Field(
        default="",
        description="What brought him after ``battle_id``: a post-battle replacement (crew "
        "back with a repaired vehicle among them) or the reinforcement pool (FaD p.66).",
    )

    @model_serializer(mode="wrap")
    def _without_battle_when_none(self, handler: SerializerFunctionWrapHandler) -> Any:
        # An enlistment no battle brought is stored as it always was: a ``battle_id`` of None
        # would stand in its outline to the other side (``campaigns.visibility``).
        data = handler(self)
        if self.battle_id is None and isinstance(data, dict):
            data.pop("battle_id", None)
            data.pop("joined_as", None)
        return data


@event_type("rosters.VehicleCommissioned", stream="vehicle")
class VehicleCommissioned(EventPayload):
    """A vehicle joined a unit."""

    vehicle_id: uuid.UUID
    unit_id: uuid.UUID
    force_id: uuid.UUID
    order: int = Field(ge=0)
    name: str = Field(min_length=1, max_length=200)
    vehicle_class: str = ""
    size: int = Field(ge=1, le=5)
    capacity: int = Field(ge=0)
    armour: int | None = Field(default=None, ge=0, le=5)
    state: VehicleState = VehicleState.OPERATIONAL


@event_type("rosters.UnitQualitySet", stream="unit")
class UnitQualitySet(EventPayload):
    """The umpire set a unit's quality (the book's alternative to improvement points)."""

    unit_id: uuid.UUID
    quality: str
    reason: str = Reason


@event_type("rosters.UnitLeadershipSet", stream="unit")
class UnitLeadershipSet(EventPayload):
    """The umpire set a unit's leadership value."""

    unit_id: uuid.UUID
    leadership: int = Field(ge=1, le=3)
    reason: str = Reason


@event_type("rosters.TrooperRenamed", stream="trooper")
class TrooperRenamed(EventPayload):
    """The umpire renamed a trooper."""

    trooper_id: uuid.UUID
    name: str = Field(min_length=1, max_length=200)
    reason: str = Reason


@event_type("rosters.TrooperTransferred", stream="trooper")
class TrooperTransferred(EventPayload):
    """A trooper moved to another unit of the same force."""

    trooper_id: uuid.UUID
    to_unit_id: uuid.UUID
    reason: str = Reason


@event_type("rosters.UnitAttached", stream="unit")
class UnitAttached(EventPayload):
    """A unit was attached to another unit of its force."""

    unit_id: uuid.UUID
    to_unit_id: uuid.UUID
    reason: str = Reason


@event_type("rosters.UnitDetached", stream="unit")
class UnitDetached(EventPayload):
    """A unit's attachment ended."""

    unit_id: uuid.UUID
    reason: str = Reason


@event_type("rosters.UnitsRegrouped", stream="unit")
class UnitsRegrouped(EventPayload):
    """Two depleted units were merged into one (SG2 P.17 REGROUPING)."""

    unit_id: uuid.UUID
    merged_unit_id: uuid.UUID
    quality: str
    leadership: int = Field(ge=1, le=3)
    fatigue: Literal["fresh", "tired", "exhausted"]
    trooper_ids: list[uuid.UUID] = Field(description="Troopers who moved into the unit.")
    reason: str = Reason


@event_type("rosters.UnitDisbanded", stream="unit")
class UnitDisbanded(EventPayload):
    """A unit was disbanded; its remaining troopers leave the roster with it."""

    unit_id: uuid.UUID
    reason: str = Reason


@event_type("rosters.UnitMoved", stream="unit")
class UnitMoved(EventPayload):
    """A unit moved between the line, a safe area, a rear area and the field."""

    unit_id: uuid.UUID
    to: Literal["in_the_line", "safe_area", "rear_area", "in_the_field"]
    day: int = Field(ge=0)
    reason: str = ""


@event_type("rosters.UnitRested", stream="unit")
class UnitRested(EventPayload):
    """Days of rest and recovery passed for a unit (SG2 P.61)."""

    unit_id: uuid.UUID
    day: int = Field(ge=1, description="The day the rest reached.")
    days: int = Field(ge=1)
    fatigue_before: Literal["fresh", "tired", "exhausted"]
    fatigue_after: Literal["fresh", "tired", "exhausted"]
    rest_days: int = Field(ge=0, description="Days now accrued toward the next level.")
    battles_counter_reset: bool
    back_from_withdrawal: bool = False


@event_type("rosters.TrooperReturnedToDuty", stream="trooper")
class TrooperReturnedToDuty(EventPayload):
    """A trooper came back from hospital to his unit; an original unit leader takes command
    back, and the unit's LV is his again, when option ``returning_leader`` is
    ``restore_original`` (SG2 P.10 is silent; digest AMBIG-04)."""

    trooper_id: uuid.UUID
    day: int = Field(ge=0)
    leadership_before: int | None = Field(
        default=None, ge=1, le=3, description="The unit's LV under the successor."
    )
    leadership_restored: int | None = Field(
        default=None,
        ge=1,
        le=3,
        description="His LV when he fell, the unit's again; None: he does not take command.",
    )


@event_type("rosters.PowerSuitRepaired", stream="trooper")
class PowerSuitRepaired(EventPayload):
    """A trooper's power-armour suit, wrecked in battle (SG2 P.40 roll 5), is repaired on the
    day the after-action set (option ``pa_suit_repair_days``): he is power-armoured again."""

    trooper_id: uuid.UUID
    day: int = Field(ge=0)


@event_type("rosters.SuppliesSet", stream="force")
class SuppliesSet(EventPayload):
    """The umpire said a force, or a unit and the units under it, has suitable supplies or is
    short of them; short of them, every between-battle time doubles (SG2 P.61)."""

    force_id: uuid.UUID
    unit_id: uuid.UUID | None = Field(default=None, description="None: the whole force.")
    unit_ids: list[uuid.UUID] = Field(description="The units whose supplies it sets.")
    supplied: bool
    day: int = Field(ge=0)
    reason: str = Reason


@event_type("rosters.UnitDisintegrated", stream="unit")
class UnitDisintegrated(EventPayload):
    """A unit found unfit for battle was kept in combat instead of withdrawn: it disintegrated
    and is lost for the rest of the campaign (SG2 P.61 REST AND RECOVERY)."""

    unit_id: uuid.UUID
    day: int = Field(ge=0)
    cause: Literal["sent_back_into_the_line", "committed_to_battle"]
    battle_id: uuid.UUID | None = Field(
        default=None, description="The battle it was committed to, when that was the cause."
    )
    reason: str = Field(default="", max_length=500, description="The umpire's words, if any.")
