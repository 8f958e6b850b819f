"""The events of battle reports: a side's report filed, and the umpire's decision on a point."""

from __future__ import annotations

import uuid
from typing import Literal

from pydantic import Field

from eventlog.catalogue import EventPayload, event_type

REPORT_FILED = "battles.BattleReportFiled"
POINT_DECIDED = "battles.ReportPointDecided"

# What a report may say of a trooper, least hurt first.
ReportedStatus = Literal["fit", "wounded", "killed"]
REPORTED_STATUSES: tuple[ReportedStatus, ...] = ("fit", "wounded", "killed")
ObjectiveValue = Literal["met", "not_met"]


class ReportedTrooper(EventPayload):
    trooper_id: uuid.UUID
    status: ReportedStatus


class ReportedObjective(EventPayload):
    side: str = Field(min_length=1, max_length=100, description="The side whose mission it is.")
    objective: str = Field(min_length=1, max_length=500)
    met: bool


@event_type(REPORT_FILED, stream="battle")
class BattleReportFiled(EventPayload):
    """A side's player filed their account of a battle that has ended: the troopers of either
    side they say were wounded or killed (their own side's troopers not named are fit), the
    objectives they say were met or not, and notes. It replaces the side's earlier report."""

    battle_id: uuid.UUID
    report_id: uuid.UUID
    side: str = Field(min_length=1, max_length=100)
    filed_by: str = Field(default="", max_length=150, description="The player's username.")
    troopers: list[ReportedTrooper] = Field(default_factory=list)
    objectives: list[ReportedObjective] = Field(default_factory=list)
    notes: str = Field(default="", max_length=5000)


@event_type(POINT_DECIDED, stream="battle")
class ReportPointDecided(EventPayload):
    """The umpire decided a point a side's report made: what the report claimed, what stands
    (``value``), how (``accepted`` a report's claim, ``corrected`` to their own value,
    ``rejected`` the reports and kept the log), whether this report's claim was upheld, and
    why. A loss the log did not hold follows as the ruleset's casualty event."""

    battle_id: uuid.UUID
    report_id: uuid.UUID
    side: str = Field(min_length=1, max_length=100)
    point: str = Field(
        min_length=1,
        max_length=600,
        description="'trooper:<id>' or 'objective:<side>:<the objective's words>'.",
    )
    claimed: str = Field(description="What this report said of the point.")
    logged: str = Field(description="What the log held when the point was decided.")
    value: str = Field(description="What stands now.")
    decision: Literal["accepted", "corrected", "rejected"]
    upheld: bool = Field(description="Whether this report's claim is what stands.")
    reason: str = Field(default="", max_length=500)
