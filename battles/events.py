"""Event types of battles: the lifecycle, and every battle action with the dice behind it."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from campaigns.visibility import outline
from eventlog.catalogue import EventPayload, event_type

Motivation = Literal["low", "medium", "high"]


class CasevacPlan(EventPayload):
    """Whether a casevac flight is on call for a side, and where it waits (SG2 P.54, P.44)."""

    on_call: bool = False
    start_box: int = Field(default=2, ge=1, le=6, description="Inbound chart box it starts in.")
    troop_capacity: int = Field(
        default=0, ge=0, description="The casevac vehicle's troop capacity."
    )
    command_level: int = Field(default=2, ge=0, le=4, description="Level it is allocated at.")
    airborne: bool = Field(
        default=True,
        description="A VTOL runs through the enemy's air defences (P.48); a ground ambulance "
        "does not.",
    )
    ecm_die: Literal[4, 6, 8, 10, 12] | None = Field(
        default=None, description="The aircraft's ECM die; none rolls a D4 (P.48)."
    )
    armour_class: int = Field(
        default=0, ge=0, le=5, description="Armour class: D12 x class; 0 a softskin's D6 (P.38)."
    )
    crew_quality: Literal["untrained", "green", "regular", "veteran", "elite"] | None = Field(
        default=None,
        description="The pilot's quality, for his reaction test when the air defences acquire "
        "the aircraft (P.48). Needed when the side faces an ADE.",
    )
    crew_leadership: int | None = Field(
        default=None, ge=1, le=3, description="The pilot's leadership value (P.48)."
    )


AirDefenceLevel = Literal["none", "minimal", "low", "moderate", "high", "extreme"]


class SideMission(EventPayload):
    """One side's mission card (SG2 P.59 MISSION CARDS)."""

    side: str = Field(min_length=1, max_length=100)
    force_ids: list[uuid.UUID] = Field(min_length=1)
    mission_motivation: Motivation = "medium"
    objectives: list[str] = Field(default_factory=list)
    victory_conditions: str = ""
    casevac: CasevacPlan = Field(default_factory=CasevacPlan)
    hostile_ade: AirDefenceLevel = Field(
        default="none",
        description="The enemy's Air Defence Environment this side's aircraft run through "
        "(SG2 P.48; the mission card's ADE (hostile)): none, or minimal D4 to extreme D12.",
    )
    medical_unit_ids: list[uuid.UUID] = Field(
        default_factory=list, description="Specialised medical units attending (+2, P.39)."
    )
    support_chits: int = Field(
        default=0,
        ge=0,
        le=20,
        description="Support request counters the scenario gives this side (SG2 P.44). With the "
        "option support_chits = d6_per_player the side rolls a D6 instead.",
    )


# What a hidden mission card withholds: the card itself, not the side, its forces or its casevac.
MISSION_FIELDS = (
    "mission_motivation",
    "objectives",
    "victory_conditions",
    "medical_unit_ids",
    "hostile_ade",
    "support_chits",
)


@event_type("battles.BattlePlanned", stream="battle")
class BattlePlanned(EventPayload):
    """A battle was planned: its scenario, day, the two sides' missions, and in a linear or tree
    campaign the battles that follow an attacker's and a defender's win."""

    battle_id: uuid.UUID
    name: str = Field(min_length=1, max_length=200)
    scenario: str = ""
    day: int = Field(ge=0)
    sides: list[SideMission] = Field(min_length=2, max_length=2)
    attacker: str | None = None
    next_on_attacker_win: uuid.UUID | None = None
    next_on_defender_win: uuid.UUID | None = None


class CommittedUnit(EventPayload):
    unit_id: uuid.UUID
    side: str
    fatigue: Literal["fresh", "tired", "exhausted"] | None
    starting_confidence: Literal["confident", "steady", "shaken", "broken"] | None
    mission_motivation: Motivation
    unsupplied_effect: Literal["fatigue_one_worse", "confidence_one_lower"] | None = Field(
        default=None,
        description="Without suitable supplies the unit started worse (SG2 P.60): how.",
    )


@event_type("battles.UnitsCommitted", stream="battle")
class UnitsCommitted(EventPayload):
    """Units were committed to a battle; their fatigue set the confidence they start at."""

    battle_id: uuid.UUID
    units: list[CommittedUnit] = Field(min_length=1)


@outline("battles.BattlePlanned")
def _planned_outline(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A plan seen by a reader who may not read every mission card in it (campaigns.secrets):
    the battle, its sides and their casevac, without any side's mission card."""
    kept = ("name", "scenario", "attacker", "next_on_attacker_win", "next_on_defender_win")
    return {
        **{key: payload[key] for key in kept if key in payload},
        "sides": [
            {k: v for k, v in side.items() if k not in MISSION_FIELDS}
            for side in payload.get("sides", [])
        ],
    }


@outline("battles.UnitsCommitted")
def _committed_outline(payload: Mapping[str, Any]) -> dict[str, Any]:
    """How many units each side committed, not which."""
    per_side: dict[str, int] = {}
    for unit in payload.get("units", []):
        per_side[unit["side"]] = per_side.get(unit["side"], 0) + 1
    return {"units_per_side": per_side}


@event_type("battles.BattleStarted", stream="battle")
class BattleStarted(EventPayload):
    """The battle began, with the troopers of each committed unit who were on the table."""

    battle_id: uuid.UUID
    on_table: dict[uuid.UUID, list[uuid.UUID]] | None = Field(
        default=None,
        description="Unit id -> its troopers present (fit, wounded or stabilised) as the battle "
        "began: those who take part, not those in hospital. None in battles started before "
        "this was recorded.",
    )


@event_type("battles.TurnAdvanced", stream="battle")
class TurnAdvanced(EventPayload):
    """A new game turn began."""

    battle_id: uuid.UUID
    turn: int = Field(ge=1)


@event_type("battles.BattleEnded", stream="battle")
class BattleEnded(EventPayload):
    """The battle ended: who won, which units met their own objective, which units left the
    field and how, and (in a linear or tree campaign) the battle that comes next."""

    battle_id: uuid.UUID
    winner: str = Field(description="The winning side, or 'draw'.")
    objectives_met: list[uuid.UUID] = Field(default_factory=list)
    withdrawn: list[uuid.UUID] = Field(default_factory=list)
    routed: list[uuid.UUID] = Field(default_factory=list)
    surrendered: list[uuid.UUID] = Field(default_factory=list)
    next_battle_id: uuid.UUID | None = None
