"""The points of a battle's reports, beside what the log holds: what the umpire reconciles.

A point is a trooper who was on the table (when the log or a report has him hurt, or a report
names him) or an objective of a side's mission. For each point: what the log holds, each
report's claim (a report's own side's troopers it does not name are claimed fit), whether they
disagree, and the decision once the umpire has made one.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from battles.models import Battle, BattleReport, BattleSide, Participant
from battles.reports.events import REPORTED_STATUSES
from battles.services import battle_stream
from eventlog import store
from rosters.models import Trooper, Unit
from rosters.vocabulary import TrooperStatus

BATTLE_STARTED = "battles.BattleStarted"
UNRECORDED = "unrecorded"

# A trooper's roster status as a report would put it; the other statuses (captured, evacuated,
# in hospital) stand as themselves and no report changes them.
_AS_REPORTED = {
    TrooperStatus.FIT.value: "fit",
    TrooperStatus.WOUNDED.value: "wounded",
    TrooperStatus.STABILISED.value: "wounded",
    TrooperStatus.CASEVACED.value: "wounded",
    TrooperStatus.DEAD.value: "killed",
}


def trooper_point(trooper_id: Any) -> str:
    return f"trooper:{trooper_id}"


def objective_point(side: str, objective: str) -> str:
    return f"objective:{side}:{objective}"


def severity(value: str) -> int:
    """How badly hurt a reported status is: fit 0, wounded 1, killed 2."""
    return [str(v) for v in REPORTED_STATUSES].index(value)


@dataclass
class Claim:
    side: str
    report_id: str
    value: str
    implied: bool = False  # the report's own trooper, not named: fit


@dataclass
class Point:
    key: str
    kind: str  # "trooper" or "objective"
    label: str
    side: str  # the trooper's side, or the side whose mission the objective is
    logged: str
    claims: list[Claim] = field(default_factory=list)
    decision: dict[str, Any] | None = None
    trooper_id: str | None = None
    unit_id: str | None = None
    unit_name: str = ""
    force_id: str | None = None

    @property
    def values(self) -> set[str]:
        said = {claim.value for claim in self.claims}
        return said | ({self.logged} if self.logged != UNRECORDED else set())

    @property
    def disagreement(self) -> bool:
        return len(self.values) > 1

    @property
    def state(self) -> str:
        """``decided``, ``disagreement``, ``to_decide`` (a claim the log does not hold yet),
        ``agreed``."""
        if self.decision is not None:
            return "decided"
        if self.disagreement:
            return "disagreement"
        if self.claims and self.logged == UNRECORDED:
            return "to_decide"
        return "agreed"

    def claim_of(self, report_id: str) -> Claim | None:
        return next((c for c in self.claims if c.report_id == report_id), None)


@dataclass
class Reconciliation:
    battle: Battle
    sides: list[dict[str, Any]]
    reports: dict[str, BattleReport]
    points: list[Point]
    troopers: dict[str, Trooper]  # those on the table, by id

    def point(self, key: str) -> Point | None:
        return next((p for p in self.points if p.key == key), None)


def on_table(battle: Battle) -> dict[str, list[str]]:
    """The troopers each unit brought to the battle (``battles.BattleStarted``), by unit id."""
    for event in store.read(
        battle.campaign_id, stream=battle_stream(battle.id), types=[BATTLE_STARTED]
    ):
        brought = event.payload.get("on_table") or {}
        return {str(unit): [str(t) for t in troopers] for unit, troopers in brought.items()}
    return {}


def battle_sides(battle: Battle) -> list[dict[str, Any]]:
    """The battle's sides in order: name, forces and mission card."""
    return [
        dict(row)
        for row in BattleSide.objects.filter(battle_id=battle.id)
        .order_by("order")
        .values("side", "force_ids", "mission")
    ]


def logged_status(trooper: Trooper) -> str:
    return _AS_REPORTED.get(trooper.status, trooper.status)


def reconciliation(battle: Battle) -> Reconciliation:
    """The battle's reports point by point beside the log (the umpire's view: everything)."""
    sides = battle_sides(battle)
    side_of_unit = {
        str(unit_id): side
        for unit_id, side in Participant.objects.filter(battle_id=battle.id).values_list(
            "unit_id", "side"
        )
    }
    brought = on_table(battle)
    trooper_ids = [t for troopers in brought.values() for t in troopers]
    troopers = {str(t.id): t for t in Trooper.objects.filter(id__in=trooper_ids)}
    units = {str(u.id): u for u in Unit.objects.filter(id__in=[uuid.UUID(u) for u in brought])}
    reports = {r.side: r for r in BattleReport.objects.filter(battle_id=battle.id)}
    decisions: dict[str, dict[str, Any]] = {}
    for report in reports.values():
        decisions.update(report.decisions)
    points: list[Point] = []
    side_order = [s["side"] for s in sides]
    for unit_id in sorted(
        brought,
        key=lambda u: (
            side_order.index(side_of_unit[u]) if side_of_unit.get(u) in side_order else 99,
            units[u].order if u in units else 0,
            u,
        ),
    ):
        side = side_of_unit.get(unit_id, "")
        unit = units.get(unit_id)
        for trooper_id in brought[unit_id]:
            trooper = troopers.get(trooper_id)
            if trooper is None:
                continue
            point = _trooper_point(trooper, side, unit, reports)
            point.decision = decisions.get(point.key)
            if (
                point.logged != "fit"
                or any(not c.implied for c in point.claims)
                or (point.disagreement)
            ):
                points.append(point)
    for mission_side in sides:
        for objective in mission_side["mission"].get("objectives", []):
            points.append(_objective_point(mission_side["side"], objective, reports, decisions))
    return Reconciliation(battle, sides, reports, points, troopers)


def _trooper_point(
    trooper: Trooper, side: str, unit: Unit | None, reports: Mapping[str, BattleReport]
) -> Point:
    point = Point(
        key=trooper_point(trooper.id),
        kind="trooper",
        label=trooper.name,
        side=side,
        logged=logged_status(trooper),
        trooper_id=str(trooper.id),
        unit_id=str(trooper.unit_id),
        unit_name=unit.name if unit else "",
        force_id=str(trooper.force_id),
    )
    for report_side, report in reports.items():
        named = {str(t["trooper_id"]): t["status"] for t in report.troopers}
        if str(trooper.id) in named:
            point.claims.append(Claim(report_side, str(report.report_id), named[str(trooper.id)]))
        elif report_side == side:
            point.claims.append(Claim(report_side, str(report.report_id), "fit", implied=True))
    return point


def _objective_point(
    side: str,
    objective: str,
    reports: Mapping[str, BattleReport],
    decisions: Mapping[str, dict[str, Any]],
) -> Point:
    key = objective_point(side, objective)
    decided = decisions.get(key)
    point = Point(
        key=key,
        kind="objective",
        label=objective,
        side=side,
        logged=decided["value"] if decided else UNRECORDED,
        decision=decided,
    )
    for report_side, report in reports.items():
        for said in report.objectives:
            if said["side"] == side and said["objective"] == objective:
                point.claims.append(
                    Claim(report_side, str(report.report_id), "met" if said["met"] else "not_met")
                )
    return point
