"""The events of SG2 replacement troops (P.60-61): rolled, assigned, arrived; each on the
platoon's stream."""

from __future__ import annotations

import uuid
from typing import Literal

from pydantic import Field

from campaigns.events import DieRoll
from eventlog.catalogue import EventPayload, event_type

ROLLED = "rosters.ReplacementsRolled"
ASSIGNED = "rosters.ReplacementsAssigned"
ARRIVED = "rosters.ReplacementsArrived"

DieFaces = Literal[4, 6, 8, 10, 12]


@event_type(ROLLED, stream="unit")
class ReplacementsRolled(EventPayload):
    """A platoon rolled for the replacements available to it (SG2 P.60): one die, whose score
    is the number of new soldiers. Men of an earlier roll still unassigned lapse."""

    platoon_id: uuid.UUID
    day: int = Field(ge=0)
    die: DieFaces
    roll: int = Field(ge=1, le=12)
    available: int = Field(ge=0)
    lapsed: int = Field(default=0, ge=0, description="Unassigned men of the previous roll.")
    dice: list[DieRoll] = Field(default_factory=list)


class QualityCheck(EventPayload):
    """A receiving squad's quality-drop check (SG2 P.60-61): the die nearest its members,
    rounded up; a score at or below the replacements drops it a level."""

    quality_before: str | None
    quality_after: str | None
    existing_members: int = Field(ge=0, description="Fit members never wounded.")
    returned_from_injury: int = Field(
        ge=0, description="Fit members back from a wound: they count toward strength (P.60)."
    )
    die: DieFaces | None = Field(description="The die the check used; None if none was needed.")
    dropped: bool
    dice: list[DieRoll] = Field(default_factory=list)
    counted: int | None = Field(
        default=None,
        ge=1,
        description="Every replacement the squad's one check between battles has counted, "
        "these and any assigned to it earlier since its last battle (P.60).",
    )
    roll: int | None = Field(
        default=None,
        ge=1,
        le=12,
        description="The score the check rests on: rolled now, or by the squad's earlier check "
        "since its last battle (then ``dice`` is empty).",
    )
    dropped_earlier: bool | None = Field(
        default=None, description="The squad's earlier check since its last battle dropped it."
    )
    points_before: int | None = Field(default=None, ge=0, description="Improvement points.")
    points_after: int | None = Field(
        default=None,
        ge=0,
        description="A rise this round undone by the drop uses the points up (P.60).",
    )


class SquadReplacements(EventPayload):
    unit_id: uuid.UUID
    count: int = Field(ge=1)
    check: QualityCheck


@event_type(ASSIGNED, stream="unit")
class ReplacementsAssigned(EventPayload):
    """Rolled replacements were shared among a platoon's squads (SG2 P.60); each receiving
    squad took its quality check, in the order given, so ``dice`` follows ``assignments``."""

    assignment_id: uuid.UUID
    platoon_id: uuid.UUID
    day: int = Field(ge=0)
    arrives_on_day: int = Field(ge=0)
    assignments: list[SquadReplacements] = Field(min_length=1)
    left: int = Field(ge=0, description="Rolled men still unassigned afterwards.")
    dice: list[DieRoll] = Field(default_factory=list)


@event_type(ARRIVED, stream="unit")
class ReplacementsArrived(EventPayload):
    """Assigned replacements joined their squad (SG2 P.61: a day after assignment); the
    ``rosters.TrooperEnlisted`` events of ``trooper_ids`` precede this one. No troopers means
    the squad was disbanded before they came."""

    assignment_id: uuid.UUID
    platoon_id: uuid.UUID
    unit_id: uuid.UUID
    day: int = Field(ge=0)
    trooper_ids: list[uuid.UUID]
