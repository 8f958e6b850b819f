"""What the after-action resolution (SG2 P.60-61) and repairs do to the rosters: units' quality
points, fatigue and withdrawal, the injured's recovery, the vehicles' repairs and wrecked power
suits' (P.40), told in units', troopers' and vehicles' rows, histories and service records.

The after-action events are named here by type and read as the payload dicts the log stores: the
rosters import nothing of ``battles`` (DESIGN §2, ownership). Battle names come from the rosters'
own record of each battle (:class:`~rosters.models.RosterBattle`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from eventlog.projections import Projection, Read, Rows, register
from eventlog.store import StoredEvent
from rosters.in_battle import battle_name
from rosters.models import RosterBattle, Trooper, Unit, Vehicle
from rosters.projections import service_record, unit_history
from rosters.vocabulary import TrooperStatus, UnitStatus, VehicleState
from rosters.wording import capitalised, faces

_RESULT_WORDS = {"win": "won", "loss": "lost", "draw": "drawn"}


def _quality_summary(rows: Rows, p: dict[str, Any]) -> str:
    how = _RESULT_WORDS[p["result"]] + (", objective met" if p["objective_met"] else "")
    summary = (
        f"After {battle_name(rows, p['battle_id'])} ({how}): +{p['points_gained']} quality "
        f"points ({p['points_total']})"
    )
    before, after = capitalised(p["quality_before"]), capitalised(p["quality_after"])
    if p["rose"]:
        return summary + f", {before} to {after}."
    if p["may_rise"]:
        return summary + f": enough to rise from {before} if the umpire allows."
    return summary + "."


def _fatigue_words(p: dict[str, Any]) -> str:
    battles = p["battles_since_rest"]
    counted = f"{battles} battle{'s' if battles != 1 else ''} since its last rest"
    before, after = p["fatigue_before"], p["fatigue_after"]
    if before and after and before != after:
        return f"fatigue {before} to {after}, {counted}"
    if after:
        return f"still {after}, {counted}"
    return counted


_LEFT_BEHIND = {
    "surrendered": "given up with his unit's surrender",
    "withdrawn": "left behind when his unit withdrew",
    "routed": "left behind when his unit routed",
    "abandoned": "abandoned by his unit during the battle",
    None: "left on the field",
}


def _recovered(rows: Rows, r: dict[str, Any], trooper: dict[str, Any]) -> str:
    """Set an injured trooper's row after his recovery; his fate, in words."""
    treated = (
        f"field treatment {r['dice'][0]['result']} (total {r['treatment_total']}), "
        if r["treatment_total"] is not None and r["dice"]
        else ""
    )
    recovery_die = r["dice"][-1]["result"] if r["dice"] else None
    outcome = r["outcome"]
    if outcome == "dead":
        rows.update(Trooper, r["trooper_id"], status=TrooperStatus.DEAD.value)
        return f"{treated}died of his wounds"
    if outcome == "fit":
        rows.update(Trooper, r["trooper_id"], status=TrooperStatus.FIT.value)
        return f"{treated}back in action"
    if outcome == "evacuated":
        rows.update(Trooper, r["trooper_id"], status=TrooperStatus.EVACUATED.value)
        return f"{treated}recovery d6 {recovery_die}: evacuated for good"
    if outcome == "in_hospital":
        rows.update(
            Trooper,
            r["trooper_id"],
            status=TrooperStatus.IN_HOSPITAL.value,
            hospital_until_day=r["returns_on_day"],
            days_in_hospital=trooper["days_in_hospital"] + r["days"],
        )
        return (
            f"{treated}recovery d6 {recovery_die}: in hospital for {r['days']} days, "
            f"back on day {r['returns_on_day']}"
        )
    if outcome == "left_with_enemy":
        # Not recovered from the battle (SG2 P.61 with P.20, P.53): a prisoner of the enemy.
        rows.update(Trooper, r["trooper_id"], status=TrooperStatus.CAPTURED.value)
        return f"{_LEFT_BEHIND[r.get('left_because')]}, in enemy hands: taken prisoner"
    return "left where he fell: the umpire decides"


def _vehicle_recovered(rows: Rows, v: dict[str, Any], vehicle: dict[str, Any]) -> str:
    """Set a damaged vehicle's row after the recovery roll; its fate, in words."""
    state = capitalised(v["state"]).lower()
    if not v["recovered"]:
        rows.update(
            Vehicle, v["vehicle_id"], state=VehicleState.DESTROYED.value, repair_until_day=None
        )
        return f"{vehicle['name']} ({state}) not recovered: lost to the enemy"
    if v["repair_until_day"] is None:
        rows.update(Vehicle, v["vehicle_id"], repair_until_day=None)
        return f"{vehicle['name']} ({state}) waits for a rear area to be repaired"
    rows.update(Vehicle, v["vehicle_id"], repair_until_day=v["repair_until_day"])
    return (
        f"{vehicle['name']} ({state}) under repair for {v['days']} "
        f"day{'s' if v['days'] != 1 else ''}, ready on day {v['repair_until_day']}"
    )


def _suit_repair_time(p: dict[str, Any], suit: dict[str, Any]) -> str:
    """``3 days`` or ``3 days, doubled in the field: 6`` (P.61)."""
    days = f"{suit['repair_days']} day{'s' if suit['repair_days'] != 1 else ''}"
    if not suit["doubled"]:
        return days
    where = []
    if p["location"] == "field":
        where.append("in the field")
    if not p["supplied"]:
        where.append("short of supplies")
    return f"{days}, doubled {' and '.join(where)}: {suit['days']}"


# What the steps read, named so that the rows of a whole after-action (a company's units, its
# troopers, its vehicles) load in one query per table (``Projection.handles``, ``reads``).


def _unit_in_battle(event: StoredEvent) -> Iterator[Read]:
    yield Unit, event.payload["unit_id"]
    yield RosterBattle, event.payload["battle_id"]


def _unit_and_its_men(event: StoredEvent) -> Iterator[Read]:
    yield from _unit_in_battle(event)
    yield from ((Trooper, t) for t in event.payload.get("trooper_ids", ()))


def _unit_and_the_recovered(event: StoredEvent) -> Iterator[Read]:
    yield from _unit_in_battle(event)
    yield from ((Trooper, r["trooper_id"]) for r in event.payload["troopers"])


def _unit_and_its_vehicles(event: StoredEvent) -> Iterator[Read]:
    yield from _unit_in_battle(event)
    yield from ((Vehicle, v["vehicle_id"]) for v in event.payload["vehicles"])


def _unit_and_the_suits(event: StoredEvent) -> Iterator[Read]:
    yield from _unit_in_battle(event)
    yield from ((Trooper, suit["trooper_id"]) for suit in event.payload["suits"])


def _the_vehicle(event: StoredEvent) -> Iterator[Read]:
    yield Vehicle, event.payload["vehicle_id"]


def _the_trooper(event: StoredEvent) -> Iterator[Read]:
    yield Trooper, event.payload["trooper_id"]


@register
class AfterActionProjection(Projection):
    """Units, troopers and vehicles after the action and during repairs, and their histories
    (rows of the rosters projection)."""

    name = "rosters.after_action"
    # 4: wrecked power suits sent for repair and repaired (P.40, option pa_suit_repair_days)
    version = 4

    @Projection.handles("battles.QualityPointsAwarded", reads=_unit_in_battle)
    def quality_points(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        if rows.get(Unit, p["unit_id"]) is None:
            return
        rows.update(
            Unit, p["unit_id"], experience_points=p["points_after"], quality=p["quality_after"]
        )
        changes: dict[str, Any] = {
            "experience_points": [p["points_before"], p["points_after"]],
            "quality": [p["quality_before"], p["quality_after"]],
        }
        summary = _quality_summary(rows, p)
        unit_history(rows, event, p["unit_id"], summary, changes, battle_id=p["battle_id"])

    @Projection.handles("battles.UnitFatigueDropped", reads=_unit_and_its_men)
    def fatigue_dropped(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        if rows.get(Unit, p["unit_id"]) is None:
            return
        if not p.get("fought", True):
            # SG2 P.61 with fatigue_drop_applies_to = whole_force: the unit did not fight, so
            # only its fatigue drops; no action fought, its R&R time and count stand.
            rows.update(Unit, p["unit_id"], fatigue=p["fatigue_after"] or "")
            unit_history(
                rows,
                event,
                p["unit_id"],
                f"After {battle_name(rows, p['battle_id'])}, which it did not fight: "
                f"fatigue {p['fatigue_before']} to {p['fatigue_after']}.",
                {"fatigue": [p["fatigue_before"], p["fatigue_after"]]},
                battle_id=p["battle_id"],
            )
            return
        rows.update(
            Unit,
            p["unit_id"],
            fatigue=p["fatigue_after"] or "",
            rest_days=0,
            battles_since_rest=p["battles_since_rest"],
        )
        for trooper_id in p["trooper_ids"]:
            trooper = rows.get(Trooper, trooper_id)
            if trooper is not None:
                rows.update(Trooper, trooper_id, battles_fought=trooper["battles_fought"] + 1)
        unit_history(
            rows,
            event,
            p["unit_id"],
            f"After {battle_name(rows, p['battle_id'])}: {_fatigue_words(p)}.",
            {
                "fatigue": [p["fatigue_before"], p["fatigue_after"]],
                "battles_since_rest": p["battles_since_rest"],
                "rest_days": 0,
            },
            battle_id=p["battle_id"],
        )

    @Projection.handles("battles.WithdrawalTested", reads=_unit_in_battle)
    def withdrawal_tested(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if unit is None:
            return
        if p["needed"] is None and p["dice"]:
            test = f"cannot pass the withdrawal test ({faces(p['dice'])} rolled all the same)"
        elif p["needed"] is None:
            test = "cannot pass the withdrawal test (no die)"
        else:
            test = f"withdrawal test {faces(p['dice'])} needed {p['needed']}+"
        changes: dict[str, Any] = {}
        if p["unfit"]:
            # P.61: it MUST be withdrawn until R&R restores it; kept in combat, it disintegrates.
            rows.update(Unit, p["unit_id"], status=UnitStatus.WITHDRAWN.value, unfit=True)
            changes["status"] = [unit["status"], UnitStatus.WITHDRAWN.value]
            changes["unfit"] = True
            verdict = "withdrawn, unfit for combat"
        else:
            verdict = "passed, it stays in the line"
        unit_history(
            rows,
            event,
            p["unit_id"],
            f"Exhausted after battle {p['battles_since_rest']}: {test}: {verdict}.",
            changes,
            battle_id=p["battle_id"],
            dice=p["dice"],
        )

    @Projection.handles("battles.CasualtiesRecovered", reads=_unit_and_the_recovered)
    def casualties_recovered(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        where = battle_name(rows, p["battle_id"])
        lines = []
        lost = 0
        for r in p["troopers"]:
            trooper = rows.get(Trooper, r["trooper_id"])
            if trooper is None:
                continue
            fate = _recovered(rows, r, trooper)
            was_present = TrooperStatus(r["status_before"]).is_present
            now = TrooperStatus((rows.get(Trooper, r["trooper_id"]) or trooper)["status"])
            lost += was_present and not now.is_present
            service_record(
                rows,
                event,
                r["trooper_id"],
                f"After {where}: {fate}.",
                battle_id=p["battle_id"],
                dice=r["dice"],
            )
            lines.append(f"{trooper['name']} {fate}")
        if lines and rows.get(Unit, p["unit_id"]) is not None:
            unit_history(
                rows,
                event,
                p["unit_id"],
                f"Injured recovered from {where}: {'; '.join(lines)}.",
                {"strength": -lost} if lost else {},
                battle_id=p["battle_id"],
                dice=p["dice"],
            )

    @Projection.handles("battles.VehiclesRecovered", reads=_unit_and_its_vehicles)
    def vehicles_recovered(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        lines = []
        for v in p["vehicles"]:
            vehicle = rows.get(Vehicle, v["vehicle_id"])
            if vehicle is not None:
                lines.append(_vehicle_recovered(rows, v, vehicle))
        if lines and rows.get(Unit, p["unit_id"]) is not None:
            unit_history(
                rows,
                event,
                p["unit_id"],
                f"Vehicles after {battle_name(rows, p['battle_id'])}: {'; '.join(lines)}.",
                {
                    "vehicles": [
                        [v["vehicle_id"], v["state"], v["repair_until_day"]] for v in p["vehicles"]
                    ]
                },
                battle_id=p["battle_id"],
            )

    @Projection.handles("battles.VehicleRepairStarted", reads=_the_vehicle)
    def repair_started(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        vehicle = rows.get(Vehicle, p["vehicle_id"])
        if vehicle is None:
            return
        rows.update(Vehicle, p["vehicle_id"], repair_until_day=p["repair_until_day"])
        unit_history(
            rows,
            event,
            vehicle["unit_id"],
            f"Day {p['day']}: repair of {vehicle['name']} (disabled) began in the rear area, "
            f"ready on day {p['repair_until_day']}.",
            {"vehicle": [p["vehicle_id"], vehicle["state"], p["repair_until_day"]]},
        )

    @Projection.handles("battles.VehicleRepaired", reads=_the_vehicle)
    def repaired(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        vehicle = rows.get(Vehicle, p["vehicle_id"])
        if vehicle is None:
            return
        rows.update(
            Vehicle, p["vehicle_id"], state=VehicleState.OPERATIONAL.value, repair_until_day=None
        )
        before = capitalised(p["state_before"]).lower()
        unit_history(
            rows,
            event,
            vehicle["unit_id"],
            f"Day {p['day']}: {vehicle['name']} repaired ({before} to operational).",
            {"vehicle": [p["vehicle_id"], p["state_before"], VehicleState.OPERATIONAL.value]},
        )

    @Projection.handles("battles.PowerSuitsSentForRepair", reads=_unit_and_the_suits)
    def suits_sent_for_repair(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        where = battle_name(rows, p["battle_id"])
        lines = []
        for suit in p["suits"]:
            trooper = rows.get(Trooper, suit["trooper_id"])
            if trooper is None:
                continue
            day = suit["repaired_on_day"]
            rows.update(Trooper, suit["trooper_id"], suit_repaired_on_day=day)
            time = _suit_repair_time(p, suit)
            service_record(
                rows,
                event,
                suit["trooper_id"],
                f"After {where}: suit wrecked; repaired on day {day} ({time}).",
                battle_id=p["battle_id"],
            )
            lines.append(f"{trooper['name']}'s suit wrecked; repaired on day {day} ({time})")
        if lines and rows.get(Unit, p["unit_id"]) is not None:
            unit_history(
                rows,
                event,
                p["unit_id"],
                f"Power suits after {where}: {'; '.join(lines)}.",
                {"suits": [[s["trooper_id"], s["repaired_on_day"]] for s in p["suits"]]},
                battle_id=p["battle_id"],
            )

    @Projection.handles("rosters.PowerSuitRepaired", reads=_the_trooper)
    def suit_repaired(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        trooper = rows.get(Trooper, p["trooper_id"])
        if trooper is None:
            return
        rows.update(Trooper, p["trooper_id"], suit_wrecked=False, suit_repaired_on_day=None)
        service_record(rows, event, p["trooper_id"], f"Day {p['day']}: his power suit repaired.")
        unit_history(
            rows,
            event,
            trooper["unit_id"],
            f"Day {p['day']}: {trooper['name']}'s power suit repaired; he is power-armoured again.",
            {"suit_repaired": p["trooper_id"]},
        )
