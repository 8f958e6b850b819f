"""The events of casualties in battle (SG2 P.10, P.35-40, P.53): what each resolution did to
troopers, leaders and vehicles, with the dice that decided it."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from campaigns.events import DieRoll
from campaigns.visibility import outline
from eventlog.catalogue import EventPayload, event_type
from rosters.vocabulary import TrooperStatus, VehicleState

LEADER_CASUALTY_EVENT = "battles.LeaderCasualtyResolved"
VEHICLE_HIT_EVENT = "battles.VehicleHit"


class TrooperCasualty(EventPayload):
    """What one resolution did to one trooper, with the dice that decided it."""

    trooper_id: uuid.UUID
    unit_id: uuid.UUID
    status_before: TrooperStatus
    status_after: TrooperStatus
    figure_after: str = Field(description="The figure's state (suit_disabled shows here only).")
    wounds: int = Field(ge=0)
    kills: int = Field(ge=0)
    power_armour_roll: int | None = Field(default=None, ge=1, le=6)
    dice: list[DieRoll] = Field(default_factory=list)


class PotentialHitRecord(EventPayload):
    """One potential hit of a fire: impact against armour, its result and who took it (P.36)."""

    hit_number: int = Field(ge=1)
    impact_die: int
    armour_die: int
    impact_roll: int
    armour_roll: int
    result: Literal["no_effect", "wound", "kill"]
    trooper_id: uuid.UUID | None
    allocation_roll: int | None


@event_type("battles.CasualtiesResolved", stream="battle")
class CasualtiesResolved(EventPayload):
    """Hits on a unit were turned into wounds and kills: allocated by the rules (SG2 P.35-36),
    named by the umpire, the hits of quick-and-dirty fire, each figure hit wounded (P.36), the
    fates of figures downed in a close assault (P.42), or the figures an artillery burst wounded
    or killed (P.47), or the hits of a mine, booby trap (P.55-56) or sniper (P.27), each already
    on its figure; power-armoured casualties rolled at once (P.40). ``reported``: a loss from a
    player's battle report the umpire decided after the battle, final as reported."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    mode: Literal[
        "allocate",
        "named",
        "quick_and_dirty",
        "close_combat",
        "artillery",
        "mine",
        "sniper",
        "reported",
    ]
    potential_hits: int | None = None
    impact_die: int | None = None
    cover: str | None = None
    allocated_first: bool | None = None
    pool: list[uuid.UUID] = Field(default_factory=list)
    hits: list[PotentialHitRecord] = Field(default_factory=list)
    casualties: list[TrooperCasualty] = Field(default_factory=list)
    leaders_down: list[uuid.UUID] = Field(
        default_factory=list, description="Acting unit leaders made casualties (P.10 follows)."
    )
    dice: list[DieRoll] = Field(default_factory=list)
    report_id: uuid.UUID | None = Field(
        default=None,
        description="reported: the player's battle report the umpire accepted it from.",
    )


@outline("battles.CasualtiesResolved")
def _casualties_outline(payload: Mapping[str, Any]) -> dict[str, Any]:
    """How many casualties, not who, nor the dice."""
    return {"casualties": len(payload.get("casualties", []))}


@event_type(LEADER_CASUALTY_EVENT, stream="battle")
class LeaderCasualtyResolved(EventPayload):
    """A unit's leader became a casualty: suppression, a confidence test and a successor with
    a new leadership value (SG2 P.10 LOSS OF UNIT LEADER)."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    leader_id: uuid.UUID
    leader_status: TrooperStatus = Field(description="The leader's status after this event.")
    casualty: TrooperCasualty | None = Field(
        default=None, description="His wound or death, if this event caused it."
    )
    lost: bool = Field(description="False when his power armour put him back in action (P.40).")
    successor_id: uuid.UUID | None
    leadership_before: int
    leadership_after: int
    suppression_before: int
    suppression_after: int
    circumstances: list[str]
    untreated_casualties: int = Field(ge=0)
    threat_level: int | None
    passed: bool | None
    confidence_before: str
    confidence_after: str
    dice: list[DieRoll] = Field(default_factory=list)


class OccupantRecord(EventPayload):
    """One occupant's rolls against a penetrating hit on his vehicle (P.39)."""

    trooper_id: uuid.UUID
    armour_roll: int | None = Field(description="None: his armour could not save him.")
    casualty: bool
    severity_roll: int | None


@event_type(VEHICLE_HIT_EVENT, stream="battle")
class VehicleHit(EventPayload):
    """A vehicle was hit: its damage (SG2 P.38-39) and its occupants' casualties (P.39)."""

    battle_id: uuid.UUID
    turn: int = Field(ge=0)
    vehicle_id: uuid.UUID
    unit_id: uuid.UUID
    impact_die: int
    impact_multiplier: int
    major_hit: bool
    armour_class: int
    suspension: str
    impact_score: int
    armour_score: int
    location: str | None
    suspension_impact_score: int | None
    suspension_score: int | None
    damage: str | None
    damage_before: list[str]
    damage_after: list[str]
    state_before: VehicleState
    state_after: VehicleState
    save_above: int | None
    occupants: list[OccupantRecord] = Field(default_factory=list)
    casualties: list[TrooperCasualty] = Field(default_factory=list)
    leaders_down: list[uuid.UUID] = Field(default_factory=list)
    bail_out: str = ""
    same_fire_action: bool = Field(
        default=False,
        description="Another weapon of a fire action that already hit this vehicle (SG2-C).",
    )
    suppression_results: int = Field(
        default=0, ge=0, description="Suppression results of this hit (P.18; SG2-C options)."
    )
    suppression_before: int | None = Field(
        default=None, description="The vehicle's unit's markers before the hit (None: not kept)."
    )
    suppression_after: int | None = None
    dice: list[DieRoll] = Field(default_factory=list)


class CapturedTrooper(EventPayload):
    trooper_id: uuid.UUID
    status_before: TrooperStatus


@event_type("battles.UnitSurrendered", stream="battle")
class UnitSurrendered(EventPayload):
    """A unit surrendered: its living troopers on the table were taken prisoner (SG2 P.53)."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    side: str
    prisoners_taken_by: str | None
    captured: list[CapturedTrooper]
    escort_guards: int = Field(ge=0, description="Guards the captor detaches: 1 per 6 (P.53).")
    dice: list[DieRoll] = Field(default_factory=list)
