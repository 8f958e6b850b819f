"""The events of medical treatment and casualty evacuation in battle (SG2 P.39, P.54)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from campaigns.events import DieRoll
from campaigns.visibility import outline
from eventlog.catalogue import EventPayload, event_type

TreatmentResult = Literal["dead", "stabilised", "fit"]


class Treatment(EventPayload):
    """One casualty's treatment: the modified total and what became of him."""

    trooper_id: uuid.UUID
    total: int
    result: TreatmentResult


@event_type("battles.CasualtiesTreated", stream="battle")
class CasualtiesTreated(EventPayload):
    """A unit treated its casualties in a Reorganise action (SG2 P.39): one D6 each, in roster
    order, so ``dice[i]`` is the die of ``treatments[i]``."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    medic: bool
    medical_unit_id: uuid.UUID | None
    modifier: int
    treatments: list[Treatment] = Field(min_length=1)
    dice: list[DieRoll] = Field(default_factory=list)


@event_type("battles.CasevacCalled", stream="battle")
class CasevacCalled(EventPayload):
    """A unit leader called the side's casevac (SG2 P.54): the communication roll, and the
    Inbound Chart box the flight starts from if it got through."""

    battle_id: uuid.UUID
    side: str
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    called: bool
    target: int
    jammed: bool
    box: int | None = Field(description="Inbound Chart box the casevac starts in, if called.")
    dice: list[DieRoll] = Field(default_factory=list)


class AirDefenceCheck(EventPayload):
    """The casevac's run through the enemy's Air Defence Environment (SG2 P.48; P.45 on the way
    out, one die type lower)."""

    ade: Literal["minimal", "low", "moderate", "high", "extreme"]
    leg: Literal["arrival", "departure"]
    die: int = Field(description="The ADE die rolled (faces).")
    acquired: bool = Field(description="The ADE beat the aircraft's ECM die.")
    pressed_on: bool | None = Field(description="Acquired, the pilot meant to press on.")
    reaction_target: int | None = Field(description="The pilot's reaction test: LV + 2 to beat.")
    reaction_passed: bool | None
    result: Literal["penetrated", "aborted", "shot_down"]


@event_type("battles.CasevacArrived", stream="battle")
class CasevacArrived(EventPayload):
    """The side's casevac reached the battle area and entered the table (SG2 P.44, P.54), through
    the enemy's air defences if it is airborne and they have any (P.48)."""

    battle_id: uuid.UUID
    side: str
    turn: int = Field(ge=0)
    air_defence: AirDefenceCheck | None = None
    dice: list[DieRoll] = Field(default_factory=list)


@event_type("battles.CasevacTurnedBack", stream="battle")
class CasevacTurnedBack(EventPayload):
    """The enemy's air defences acquired the side's casevac on its way in and it aborted: its
    counter left the Inbound Chart and it went back to base, its mission abandoned (SG2 P.48)."""

    battle_id: uuid.UUID
    side: str
    turn: int = Field(ge=0)
    air_defence: AirDefenceCheck
    dice: list[DieRoll] = Field(default_factory=list)


@event_type("battles.CasevacShotDown", stream="battle")
class CasevacShotDown(EventPayload):
    """The enemy's air defences shot the side's casevac down (SG2 P.48), on its way in or on its
    way out; everyone aboard was killed (P.49). ``trooper_ids``: the wounded it carried."""

    battle_id: uuid.UUID
    side: str
    turn: int = Field(ge=0)
    trooper_ids: list[uuid.UUID]
    air_defence: AirDefenceCheck
    dice: list[DieRoll] = Field(default_factory=list)


@outline("battles.CasevacShotDown")
def _shot_down_outline(payload: Mapping[str, Any]) -> dict[str, Any]:
    """How many died aboard the side's casevac, not who."""
    return {"killed": len(payload.get("trooper_ids", []))}


@event_type("battles.CasevacLoaded", stream="battle")
class CasevacLoaded(EventPayload):
    """A squad loaded its wounded aboard the side's casevac (SG2 P.54)."""

    battle_id: uuid.UUID
    side: str
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    trooper_ids: list[uuid.UUID] = Field(min_length=1)
    aboard: int
    capacity: int
    full: bool
    dice: list[DieRoll] = Field(default_factory=list)


@outline("battles.CasevacLoaded")
def _loaded_outline(payload: Mapping[str, Any]) -> dict[str, Any]:
    """How many are aboard the side's casevac, not who."""
    return {"aboard": payload.get("aboard")}


class CasevacRise(EventPayload):
    """One unit's confidence roll as the casevac leaves."""

    unit_id: uuid.UUID
    reason: Literal["loaded", "nearby"]
    eligible: bool
    confidence_before: str
    confidence_after: str
    dice: list[DieRoll] = Field(default_factory=list)


@event_type("battles.CasevacDeparted", stream="battle")
class CasevacDeparted(EventPayload):
    """The side's casevac left the table with its wounded (SG2 P.54): they go to the rear, and
    the squads it loaded and the friendly units nearby roll to gain confidence. ``dice`` holds
    every die: the air defence check's (P.48, P.45) first, then those of ``rises`` in order."""

    battle_id: uuid.UUID
    side: str
    turn: int = Field(ge=0)
    trooper_ids: list[uuid.UUID]
    rises: list[CasevacRise]
    air_defence: AirDefenceCheck | None = None
    dice: list[DieRoll] = Field(default_factory=list)


@outline("battles.CasevacDeparted")
def _departed_outline(payload: Mapping[str, Any]) -> dict[str, Any]:
    """How many the side's casevac flew out, not who."""
    return {"flown_out": len(payload.get("trooper_ids", []))}
