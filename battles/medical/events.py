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


@event_type("battles.CasevacArrived", stream="battle")
class CasevacArrived(EventPayload):
    """The side's casevac reached the battle area and entered the table (SG2 P.44, P.54)."""

    battle_id: uuid.UUID
    side: str
    turn: int = Field(ge=0)
    dice: list[DieRoll] = Field(default_factory=list)


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
    every die, in the order of ``rises``."""

    battle_id: uuid.UUID
    side: str
    turn: int = Field(ge=0)
    trooper_ids: list[uuid.UUID]
    rises: list[CasevacRise]
    dice: list[DieRoll] = Field(default_factory=list)


@outline("battles.CasevacDeparted")
def _departed_outline(payload: Mapping[str, Any]) -> dict[str, Any]:
    """How many the side's casevac flew out, not who."""
    return {"flown_out": len(payload.get("trooper_ids", []))}
