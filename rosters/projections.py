"""Folds from roster events into forces, units, troopers, vehicles and their histories.

One module on purpose, at a little over 500 lines: beside the folds of the rosters' own events it
holds the helpers every rosters projection writes histories and service records through, so
their keys and shapes are defined once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import (
    Force,
    RosterBattle,
    Trooper,
    TrooperRecordEntry,
    Unit,
    UnitHistoryEntry,
    Vehicle,
)
from rosters.vocabulary import TrooperStatus, UnitStatus
from rosters.wording import joined


def _label(value: str | None) -> str:
    return (value or "").replace("_", " ").capitalize()


def unit_history(
    rows: Rows,
    event: StoredEvent,
    unit_id: Any,
    summary: str,
    changes: dict[str, Any] | None = None,
    *,
    battle_id: Any = None,
    dice: list[dict[str, Any]] | None = None,
    part: int = 0,
) -> None:
    """Add a line to a unit's history. An event that tells one unit several things gives each
    line after the first its ``part`` number, so none replaces another."""
    rows.put(
        UnitHistoryEntry,
        {
            "key": f"{event.position}:{unit_id}" + (f":{part}" if part else ""),
            "campaign_id": event.campaign_id,
            "unit_id": unit_id,
            "sequence": event.sequence,
            "event_type": event.type,
            "summary": summary,
            "changes": changes or {},
            "battle_id": battle_id,
            "dice": dice or [],
            "recorded_at": event.recorded_at,
        },
    )


def service_record(
    rows: Rows,
    event: StoredEvent,
    trooper_id: Any,
    summary: str,
    *,
    battle_id: Any = None,
    dice: list[dict[str, Any]] | None = None,
) -> None:
    """Add a line to a trooper's service record."""
    rows.put(
        TrooperRecordEntry,
        {
            "key": f"{event.position}:{trooper_id}",
            "campaign_id": event.campaign_id,
            "trooper_id": trooper_id,
            "sequence": event.sequence,
            "event_type": event.type,
            "summary": summary,
            "battle_id": battle_id,
            "dice": dice or [],
            "recorded_at": event.recorded_at,
        },
    )


def unit_name(rows: Rows, unit_id: Any) -> str:
    unit = rows.get(Unit, unit_id)
    return unit["name"] if unit else "a unit"


def trooper_name(rows: Rows, trooper_id: Any) -> str:
    trooper = rows.get(Trooper, trooper_id)
    return trooper["name"] if trooper else "a trooper"


def trooper_names(rows: Rows, trooper_ids: list[Any]) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    return joined([trooper_name(rows, trooper_id) for trooper_id in trooper_ids])


Row = dict[str, Any]


def regroup_troopers(
    rows: Rows,
    event: StoredEvent,
    record: Callable[[Row, Row], str],
    *,
    battle_id: Any = None,
) -> tuple[Row, Row, list[str]] | None:
    """SG2 P.17 regrouping: the unit takes its new ratings and the merged unit's troopers, each
    of whom gets the service-record line ``record(merged, unit)``. The two units as they stood
    before, and the names of the troopers who moved; None if either unit is unknown."""
    p = event.payload
    unit = rows.get(Unit, p["unit_id"])
    merged = rows.get(Unit, p["merged_unit_id"])
    if unit is None or merged is None:
        return None
    rows.update(
        Unit, p["unit_id"], quality=p["quality"], leadership=p["leadership"], fatigue=p["fatigue"]
    )
    order = next_order(rows, unit["id"])
    names = []
    for offset, trooper_id in enumerate(p["trooper_ids"]):
        trooper = rows.get(Trooper, trooper_id)
        if trooper is None:
            continue
        names.append(trooper["name"])
        rows.update(Trooper, trooper_id, unit_id=unit["id"], order=order + offset)
        service_record(rows, event, trooper_id, record(merged, unit), battle_id=battle_id)
    return unit, merged, names


def _joined(rows: Rows, p: dict[str, Any], unit: str) -> str:
    """The first line of a trooper's service record: the unit he joined, in what role, and the
    battle whose after-action brought him, if one did (a Fast and Dirty newcomer, FaD p.66)."""
    role = "" if p["role"] == "line" else f" as {_label(p['role']).lower()}"
    joined_as = p.get("joined_as", "")
    if p.get("battle_id") is None:
        return f"Joined {unit}{role}."
    battle = rows.get(RosterBattle, p["battle_id"])
    after = f"after {battle['name'] if battle else 'the battle'}"
    if not joined_as:
        return f"Joined {unit}{role} {after}."
    if role:
        return f"Joined {unit}{role} {after} (a {joined_as})."
    return f"Joined {unit} as a {joined_as} {after}."


def next_order(rows: Rows, unit_id: Any) -> int:
    members = rows.find(Trooper, unit_id=unit_id)
    return max((m["order"] for m in members), default=-1) + 1


@register
class RosterProjection(Projection):
    name = "rosters"
    # 3: a FaD squad leader's experience is kept on his row; 4: an enlistment after a battle
    # (a FaD replacement or reinforcement) names it
    version = 4
    models = (Force, Unit, Trooper, Vehicle, UnitHistoryEntry, TrooperRecordEntry)
    # The roster read *as of* any point (rosters.selectors.TemporalRoster); the history tables
    # only ever gain lines, so their rows as of a point are those written by then.
    temporal = (Force, Unit, Trooper, Vehicle)

    @Projection.handles("rosters.ForceRaised")
    def force_raised(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        rows.put(
            Force,
            {
                "id": p["force_id"],
                "campaign_id": event.campaign_id,
                "name": p["name"],
                "side": p["side"],
                "description": p["description"],
                "source": p["source"],
                "raised_sequence": event.sequence,
            },
        )

    @Projection.handles("rosters.UnitRaised")
    def unit_raised(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        force = rows.get(Force, p["force_id"])
        if force is None:
            return
        rows.put(
            Unit,
            {
                "id": p["unit_id"],
                "campaign_id": event.campaign_id,
                "force_id": p["force_id"],
                "parent_id": p["parent_id"],
                "order": p["order"],
                "name": p["name"],
                "kind": p["kind"],
                "level": p["level"],
                "quality": p["quality"] or "",
                "leadership": p["leadership"],
                "resolve": p["resolve"] or "",
                "fatigue": p["fatigue"] or "",
                "mission_motivation": p["mission_motivation"] or "",
                "toe_strength": p["toe_strength"],
                "specialists": p["specialists"],
                "status": p["status"],
                "attached_to": p["attached_to"],
                "merged_into": None,
                "experience_points": 0,
                "rest_days": 0,
                "battles_since_rest": 0,
                # A roster file's withdrawn unit is unfit for combat until rested (SG2 P.61).
                "unfit": p["status"] == UnitStatus.WITHDRAWN,
                "supplied": True,
            },
        )
        facts = [f"{_label(p['kind'])} raised in {force['name']}"]
        if p["quality"]:
            facts.append(f"quality {_label(p['quality'])}")
        if p["leadership"]:
            facts.append(f"leadership {p['leadership']}")
        if p["resolve"]:
            facts.append(f"resolve {_label(p['resolve'])}")
        if p["fatigue"]:
            facts.append(_label(p["fatigue"]).lower())
        if p["toe_strength"]:
            facts.append(f"TO&E strength {p['toe_strength']}")
        unit_history(rows, event, p["unit_id"], ", ".join(facts) + ".")

    @Projection.handles("rosters.TrooperEnlisted")
    def trooper_enlisted(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if unit is None:
            return
        rows.put(
            Trooper,
            {
                "id": p["trooper_id"],
                "campaign_id": event.campaign_id,
                "force_id": p["force_id"],
                "unit_id": p["unit_id"],
                "order": p["order"],
                "name": p["name"],
                "role": p["role"],
                "weapon": p["weapon"],
                "armour": p["armour"],
                "armour_die": p["armour_die"],
                "power_armour": p["power_armour"],
                "suit_wrecked": False,
                "suit_repaired_on_day": None,
                "specialism": p["specialism"],
                # Kept since FaD squad leaders' experience is (p.11); older events have none.
                "experience": p.get("experience", ""),
                "status": TrooperStatus.FIT.value,
                "hospital_until_day": None,
                "battles_fought": 0,
                "wounds": 0,
                "days_in_hospital": 0,
            },
        )
        service_record(
            rows,
            event,
            p["trooper_id"],
            _joined(rows, p, unit["name"]),
            battle_id=p.get("battle_id"),
        )

    @Projection.handles("rosters.VehicleCommissioned")
    def vehicle_commissioned(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if unit is None:
            return
        rows.put(
            Vehicle,
            {
                "id": p["vehicle_id"],
                "campaign_id": event.campaign_id,
                "force_id": p["force_id"],
                "unit_id": p["unit_id"],
                "order": p["order"],
                "name": p["name"],
                "vehicle_class": p["vehicle_class"],
                "size": p["size"],
                "capacity": p["capacity"],
                "armour": p["armour"],
                "state": p["state"],
                "repair_until_day": None,
            },
        )

    @Projection.handles("rosters.UnitQualitySet")
    def unit_quality_set(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if unit is None:
            return
        rows.update(Unit, p["unit_id"], quality=p["quality"])
        unit_history(
            rows,
            event,
            p["unit_id"],
            f"Quality set from {_label(unit['quality'])} to {_label(p['quality'])} by the "
            f"umpire: {p['reason']}",
            {"quality": [unit["quality"], p["quality"]]},
        )

    @Projection.handles("rosters.UnitLeadershipSet")
    def unit_leadership_set(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if unit is None:
            return
        rows.update(Unit, p["unit_id"], leadership=p["leadership"])
        unit_history(
            rows,
            event,
            p["unit_id"],
            f"Leadership set from {unit['leadership']} to {p['leadership']} by the umpire: "
            f"{p['reason']}",
            {"leadership": [unit["leadership"], p["leadership"]]},
        )

    @Projection.handles("rosters.TrooperRenamed")
    def trooper_renamed(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        trooper = rows.get(Trooper, p["trooper_id"])
        if trooper is None:
            return
        rows.update(Trooper, p["trooper_id"], name=p["name"])
        summary = f"Renamed from {trooper['name']} to {p['name']}: {p['reason']}"
        service_record(rows, event, p["trooper_id"], summary)
        unit_history(rows, event, trooper["unit_id"], summary)

    @Projection.handles("rosters.TrooperTransferred")
    def trooper_transferred(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        trooper = rows.get(Trooper, p["trooper_id"])
        target = rows.get(Unit, p["to_unit_id"])
        if trooper is None or target is None:
            return
        source = rows.get(Unit, trooper["unit_id"])
        source_name = source["name"] if source else "a disbanded unit"
        rows.update(
            Trooper, p["trooper_id"], unit_id=p["to_unit_id"], order=next_order(rows, target["id"])
        )
        service_record(
            rows,
            event,
            p["trooper_id"],
            f"Transferred from {source_name} to {target['name']}: {p['reason']}",
        )
        unit_history(
            rows,
            event,
            trooper["unit_id"],
            f"{trooper['name']} transferred to {target['name']}: {p['reason']}",
            {"strength": -1},
        )
        unit_history(
            rows,
            event,
            target["id"],
            f"{trooper['name']} joined from {source_name}: {p['reason']}",
            {"strength": 1},
        )

    @Projection.handles("rosters.UnitAttached")
    def unit_attached(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        target = rows.get(Unit, p["to_unit_id"])
        if unit is None or target is None:
            return
        rows.update(Unit, p["unit_id"], attached_to=p["to_unit_id"])
        unit_history(
            rows,
            event,
            p["unit_id"],
            f"Attached to {target['name']}: {p['reason']}",
            {"attached_to": [unit["attached_to"], p["to_unit_id"]]},
        )
        unit_history(rows, event, target["id"], f"{unit['name']} attached: {p['reason']}")

    @Projection.handles("rosters.UnitDetached")
    def unit_detached(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if unit is None:
            return
        rows.update(Unit, p["unit_id"], attached_to=None)
        former = rows.get(Unit, unit["attached_to"]) if unit["attached_to"] else None
        where = f" from {former['name']}" if former else ""
        unit_history(
            rows,
            event,
            p["unit_id"],
            f"Detached{where}: {p['reason']}",
            {"attached_to": [unit["attached_to"], None]},
        )
        if former is not None:
            unit_history(rows, event, former["id"], f"{unit['name']} detached: {p['reason']}")

    @Projection.handles("rosters.UnitsRegrouped")
    def units_regrouped(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        regrouped = regroup_troopers(
            rows,
            event,
            lambda merged, unit: (
                f"Regrouped from {merged['name']} into {unit['name']}: {p['reason']}"
            ),
        )
        if regrouped is None:
            return
        unit, merged, _ = regrouped
        rows.update(
            Unit,
            merged["id"],
            status=UnitStatus.DISBANDED.value,
            merged_into=unit["id"],
        )
        changes = {
            "quality": [unit["quality"], p["quality"]],
            "leadership": [unit["leadership"], p["leadership"]],
            "fatigue": [unit["fatigue"], p["fatigue"]],
            "strength": len(p["trooper_ids"]),
        }
        unit_history(
            rows,
            event,
            unit["id"],
            f"Regrouped with {merged['name']} ({len(p['trooper_ids'])} troopers joined): now "
            f"{_label(p['quality'])}, leadership {p['leadership']}, {p['fatigue']}. "
            f"{p['reason']}",
            changes,
        )
        unit_history(
            rows,
            event,
            merged["id"],
            f"Merged into {unit['name']} by regrouping: {p['reason']}",
            {"status": [merged["status"], UnitStatus.DISBANDED.value]},
        )

    @Projection.handles("rosters.UnitDisbanded")
    def unit_disbanded(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if unit is None:
            return
        rows.update(Unit, p["unit_id"], status=UnitStatus.DISBANDED.value)
        unit_history(
            rows,
            event,
            p["unit_id"],
            f"Disbanded: {p['reason']}",
            {"status": [unit["status"], UnitStatus.DISBANDED.value]},
        )

    def record_void(self, rows: Rows, event: StoredEvent, void: StoredEvent) -> None:
        """Keep a line in the history of the unit or trooper a voided event was about, so the
        history shows what was voided and why."""
        describe = VOIDED_DESCRIPTIONS.get(event.type)
        if describe is None:
            return
        p = event.payload
        summary = (
            f"Voided: {describe(p)} (event #{event.sequence}). Reason: {void.payload['reason']}"
        )
        if "unit_id" in p and rows.get(Unit, p["unit_id"]) is not None:
            unit_history(rows, void, p["unit_id"], summary, {"voided": event.sequence})
        if "trooper_id" in p and rows.get(Trooper, p["trooper_id"]) is not None:
            service_record(rows, void, p["trooper_id"], summary)


VOIDED_DESCRIPTIONS = {
    "rosters.UnitQualitySet": lambda p: f"quality set to {_label(p['quality'])}",
    "rosters.UnitLeadershipSet": lambda p: f"leadership set to {p['leadership']}",
    "rosters.TrooperRenamed": lambda p: f"renamed {p['name']}",
    "rosters.TrooperTransferred": lambda p: "transfer to another unit",
    "rosters.UnitAttached": lambda p: "attachment",
    "rosters.UnitDetached": lambda p: "detachment",
    "rosters.UnitsRegrouped": lambda p: "regrouping",
    "rosters.UnitDisbanded": lambda p: "disbanding",
}


@register
class BetweenBattlesProjection(Projection):
    """Where units are, and what the calendar brings them (rows of the rosters projection)."""

    name = "rosters.calendar"
    version = 3

    @Projection.handles("rosters.UnitMoved")
    def unit_moved(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if unit is None:
            return
        # Moving restarts nothing, but a unit sent back into the line stops resting.
        rest = 0 if p["to"] == UnitStatus.IN_THE_LINE else unit["rest_days"]
        rows.update(Unit, p["unit_id"], status=p["to"], rest_days=rest)
        reason = f": {p['reason']}" if p["reason"] else ""
        unit_history(
            rows,
            event,
            p["unit_id"],
            f"Day {p['day']}: moved from {_label(unit['status']).lower()} to "
            f"{_label(p['to']).lower()}{reason}.",
            {"status": [unit["status"], p["to"]]},
        )

    @Projection.handles("rosters.UnitRested", reads=lambda e: [(Unit, e.payload["unit_id"])])
    def unit_rested(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if unit is None:
            return
        changes: dict[str, Any] = {
            "fatigue": p["fatigue_after"],
            "rest_days": p["rest_days"],
        }
        if p["battles_counter_reset"]:
            changes["battles_since_rest"] = 0
        if p["back_from_withdrawal"]:
            # Fit for combat again (P.61); a unit still standing withdrawn is in a rear area.
            changes["unfit"] = False
            if unit["status"] == UnitStatus.WITHDRAWN:
                changes["status"] = UnitStatus.REAR_AREA.value
        rows.update(Unit, p["unit_id"], **changes)
        if p["fatigue_after"] != p["fatigue_before"]:
            summary = (
                f"Day {p['day']}: rest and recovery, {p['fatigue_before']} to {p['fatigue_after']}."
            )
            if p["back_from_withdrawal"]:
                summary += " Fit for combat again."
            unit_history(
                rows,
                event,
                p["unit_id"],
                summary,
                {"fatigue": [p["fatigue_before"], p["fatigue_after"]]},
            )

    @Projection.handles(
        "rosters.TrooperReturnedToDuty", reads=lambda e: [(Trooper, e.payload["trooper_id"])]
    )
    def trooper_returned(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        trooper = rows.get(Trooper, p["trooper_id"])
        if trooper is None:
            return
        rows.update(
            Trooper, p["trooper_id"], status=TrooperStatus.FIT.value, hospital_until_day=None
        )
        service_record(rows, event, p["trooper_id"], f"Day {p['day']}: back on duty from hospital.")
        unit_history(
            rows,
            event,
            trooper["unit_id"],
            f"Day {p['day']}: {trooper['name']} back on duty from hospital.",
            {"strength": 1},
        )
        restored = p.get("leadership_restored")
        if restored is not None and rows.get(Unit, trooper["unit_id"]) is not None:
            # Option returning_leader = restore_original (SG2 P.10 is silent).
            rows.update(Unit, trooper["unit_id"], leadership=restored)
            unit_history(
                rows,
                event,
                trooper["unit_id"],
                f"Day {p['day']}: {trooper['name']} back on duty from hospital takes command "
                f"again: leadership {p['leadership_before']} -> {restored}.",
                {"leadership": [p["leadership_before"], restored]},
            )
