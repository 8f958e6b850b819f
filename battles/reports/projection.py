"""Battle reports as read models: each side's report with the umpire's decisions on it, and the
lines they add to the battle log (seen, like the reports, by the umpires and the side)."""

from __future__ import annotations

from battles.models import BattleReport
from battles.projections import log, trooper_name
from battles.reports.events import POINT_DECIDED, REPORT_FILED
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent

_DECISIONS = {
    "accepted": "accepted",
    "corrected": "corrected",
    "rejected": "rejected, the log standing",
}
_VALUES = {"met": "met", "not_met": "not met"}


def _report_key(battle_id: str, side: str) -> str:
    return f"{battle_id}:{side}"


def point_label(rows: Rows, point: str) -> str:
    """A point in words: the trooper's name, or the objective."""
    kind, _, rest = point.partition(":")
    if kind == "trooper":
        return trooper_name(rows, rest)
    side, _, objective = rest.partition(":")
    return f"{side}'s objective {objective!r}"


@register
class BattleReportProjection(Projection):
    name = "battles.reports"
    models = (BattleReport,)

    @Projection.handles(REPORT_FILED)
    def report_filed(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        rows.put(
            BattleReport,
            {
                "key": _report_key(p["battle_id"], p["side"]),
                "campaign_id": event.campaign_id,
                "battle_id": p["battle_id"],
                "side": p["side"],
                "report_id": p["report_id"],
                "filed_by": p["filed_by"],
                "sequence": event.sequence,
                "troopers": p["troopers"],
                "objectives": p["objectives"],
                "notes": p["notes"],
                "decisions": {},
            },
        )
        hurt = sum(1 for t in p["troopers"] if t["status"] != "fit")
        by = f"{p['filed_by']} filed" if p["filed_by"] else "Filed:"
        log(
            rows,
            event,
            f"{by} {p['side']}'s battle report: {hurt} trooper{'s' if hurt != 1 else ''} "
            f"named wounded or killed, {len(p['objectives'])} objective"
            f"{'s' if len(p['objectives']) != 1 else ''} reported.",
        )

    @Projection.handles(POINT_DECIDED)
    def point_decided(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        key = _report_key(p["battle_id"], p["side"])
        report = rows.get(BattleReport, key)
        if report is None or report["report_id"] != p["report_id"]:
            return
        decisions = dict(report["decisions"])
        decisions[p["point"]] = {
            "claimed": p["claimed"],
            "logged": p["logged"],
            "value": p["value"],
            "decision": p["decision"],
            "upheld": p["upheld"],
            "reason": p["reason"],
            "sequence": event.sequence,
        }
        rows.update(BattleReport, key, decisions=decisions)
        what = point_label(rows, p["point"])
        value = _VALUES.get(p["value"], p["value"])
        claimed = _VALUES.get(p["claimed"], p["claimed"])
        verdict = "upheld" if p["upheld"] else "not upheld"
        because = f" Reason: {p['reason']}" if p["reason"] else ""
        log(
            rows,
            event,
            f"The umpire decided {what} in {p['side']}'s report: {value} "
            f"({_DECISIONS[p['decision']]}); the report's claim, {claimed}, {verdict}.{because}",
        )
