"""What the API and pages show of battle reports, as each reader may see them."""

from __future__ import annotations

from typing import Any

from battles.models import Battle, BattleReport
from battles.reports.reconciliation import Point, battle_sides, reconciliation
from campaigns.visibility import Judge
from rosters.models import Trooper


def report_json(report: BattleReport, names: dict[str, str] | None = None) -> dict[str, Any]:
    """A report with the umpire's decision on each point it made."""
    names = names or {}
    return {
        "report_id": str(report.report_id),
        "side": report.side,
        "filed_by": report.filed_by,
        "sequence": report.sequence,
        "troopers": [{**t, "name": names.get(str(t["trooper_id"]), "")} for t in report.troopers],
        "objectives": report.objectives,
        "notes": report.notes,
        "decisions": [
            {"point": point, **decision} for point, decision in sorted(report.decisions.items())
        ],
    }


def reports_seen(battle: Battle, judge: Judge) -> list[dict[str, Any]]:
    """The battle's reports the reader may read: every one for an umpire, their own side's for
    a player (a report is hidden from everyone else)."""
    found = list(BattleReport.objects.filter(battle_id=battle.id).order_by("side"))
    order = {s["side"]: n for n, s in enumerate(battle_sides(battle))}
    found.sort(key=lambda r: order.get(r.side, len(order)))
    seen = [r for r in found if judge.sees_row(r.sequence, battle_id=battle.id)]
    if not seen:
        return []
    ids = {t["trooper_id"] for r in seen for t in r.troopers}
    reader = judge.reader
    names = {
        str(trooper_id): name
        for trooper_id, name, force_id in Trooper.objects.filter(id__in=ids).values_list(
            "id", "name", "force_id"
        )
        if reader.sees_force(force_id)
    }
    return [report_json(r, names) for r in seen]


def point_json(point: Point) -> dict[str, Any]:
    return {
        "point": point.key,
        "kind": point.kind,
        "name": point.label,
        "side": point.side,
        "unit_id": point.unit_id,
        "unit_name": point.unit_name,
        "trooper_id": point.trooper_id,
        "logged": point.logged,
        "claims": [
            {
                "side": c.side,
                "report_id": c.report_id,
                "value": c.value,
                "implied": c.implied,
            }
            for c in point.claims
        ],
        "state": point.state,
        "disagreement": point.disagreement,
        "decision": {"point": point.key, **point.decision} if point.decision else None,
    }


def reconciliation_json(battle: Battle) -> dict[str, Any]:
    """The umpire's view: both reports and every point beside the log."""
    found = reconciliation(battle)
    names = {tid: t.name for tid, t in found.troopers.items()}
    return {
        "battle_id": str(battle.id),
        "name": battle.name,
        "status": battle.status,
        "reports": [
            report_json(found.reports[s["side"]], names)
            for s in found.sides
            if s["side"] in found.reports
        ],
        "points": [point_json(p) for p in found.points],
        "undecided": sum(1 for p in found.points if p.state in ("disagreement", "to_decide")),
    }
