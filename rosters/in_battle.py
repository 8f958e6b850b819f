"""What battles do to the rosters: casualties, leaders lost, vehicles hit, surrender, treatment,
casevac and regrouping, told in troopers' and units' states, service records and histories.

The battle events are named here by type and read as the payload dicts the log stores: the
rosters import nothing of ``battles`` (DESIGN §2, ownership). The battles' own projections fold
the same events into the battle log first (projections fold each event in the order of their
names, ``battles.*`` before ``rosters.*``); those only read names from the rows written here.
"""

from __future__ import annotations

from typing import Any

from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import RosterBattle, Trooper, Unit, Vehicle
from rosters.projections import (
    regroup_troopers,
    service_record,
    trooper_name,
    trooper_names,
    unit_history,
    unit_name,
)
from rosters.vocabulary import TrooperStatus
from rosters.wording import (
    TREATED,
    casualty_fate,
    label,
    surrender_captor,
    treatment_help,
    treatment_roll,
    vehicle_hit_effect,
)
from rules.sg2.casualties import FigureState

# --- Reading the rows -----------------------------------------------------------------------------


def battle_name(rows: Rows, battle_id: Any, missing: str = "the battle") -> str:
    battle = rows.get(RosterBattle, battle_id)
    return battle["name"] if battle else missing


def _casevac_aboard(rows: Rows, p: dict[str, Any]) -> dict[str, dict[str, str]] | None:
    """Who is aboard each side's casevac in the battle, or None if the battle or the side is
    unknown (a voided plan, say)."""
    battle = rows.get(RosterBattle, p["battle_id"])
    if battle is None or p["side"] not in battle["casevac_aboard"]:
        return None
    return battle["casevac_aboard"]


# --- Casualties -----------------------------------------------------------------------------------


def _apply_casualty(rows: Rows, event: StoredEvent, c: dict[str, Any], cause: str) -> str:
    """Set the trooper's status and write his service record; return 'Name fate'."""
    trooper = rows.get(Trooper, c["trooper_id"])
    if trooper is None:
        return ""
    changes: dict[str, Any] = {"status": c["status_after"]}
    newly_hurt = c["status_before"] == TrooperStatus.FIT and c["status_after"] in (
        TrooperStatus.WOUNDED,
        TrooperStatus.STABILISED,
    )
    if newly_hurt:
        changes["wounds"] = trooper["wounds"] + 1
    if c["figure_after"] == FigureState.SUIT_DISABLED.value:
        # P.40 roll 5: he is unhurt but his suit is wrecked until the after-action sends it
        # for repair and the calendar brings its day (option pa_suit_repair_days).
        changes["suit_wrecked"] = True
        changes["suit_repaired_on_day"] = None
    rows.update(Trooper, c["trooper_id"], **changes)
    p = event.payload
    fate = casualty_fate(c)
    service_record(
        rows,
        event,
        c["trooper_id"],
        f"{fate[0].upper()}{fate[1:]} {cause} at {battle_name(rows, p['battle_id'])}, "
        f"turn {p['turn']}.",
        battle_id=p["battle_id"],
        dice=c["dice"],
    )
    return f"{trooper['name']} {fate}"


def _apply_casualties(
    rows: Rows, event: StoredEvent, casualties: list[dict[str, Any]], cause: str
) -> dict[str, list[str]]:
    """Apply each casualty; the fates grouped by unit."""
    by_unit: dict[str, list[str]] = {}
    for c in casualties:
        fate = _apply_casualty(rows, event, c, cause)
        if fate:
            by_unit.setdefault(c["unit_id"], []).append(fate)
    return by_unit


def _unit_casualty_history(
    rows: Rows, event: StoredEvent, unit_id: Any, fates: list[str], casualties: list[dict]
) -> None:
    if rows.get(Unit, unit_id) is None:
        return
    p = event.payload
    unit_history(
        rows,
        event,
        unit_id,
        f"Casualties at {battle_name(rows, p['battle_id'])}, turn {p['turn']}: "
        + "; ".join(fates)
        + ".",
        {
            "casualties": [
                [c["trooper_id"], c["status_before"], c["status_after"]]
                for c in casualties
                if c["unit_id"] == unit_id
            ]
        },
        battle_id=p["battle_id"],
        dice=[d for c in casualties if c["unit_id"] == unit_id for d in c["dice"]],
    )


def _leader_lost(rows: Rows, event: StoredEvent, leader: str, name: str) -> None:
    """The successor's new leadership on the unit and in its history, and his record."""
    p = event.payload
    fell = "was killed" if p["leader_status"] == TrooperStatus.DEAD else "was wounded"
    successor = trooper_name(rows, p["successor_id"])
    if rows.get(Unit, p["unit_id"]) is not None:
        rows.update(Unit, p["unit_id"], leadership=p["leadership_after"])
        unit_history(
            rows,
            event,
            p["unit_id"],
            f"Leadership {p['leadership_before']} -> {p['leadership_after']}: {successor} "
            f"took over after {leader} {fell}.",
            {"leadership": [p["leadership_before"], p["leadership_after"]]},
            battle_id=p["battle_id"],
            dice=p["dice"],
        )
    service_record(
        rows,
        event,
        p["successor_id"],
        f"Took command of {name} at {battle_name(rows, p['battle_id'])} after {leader} "
        f"{fell} (leadership {p['leadership_after']}).",
        battle_id=p["battle_id"],
        dice=p["dice"],
    )


def _captured(rows: Rows, event: StoredEvent, name: str, captor: str, battle: str) -> list[str]:
    """Take the surrendered unit's men prisoner; their names."""
    p = event.payload
    names = []
    for captive in p["captured"]:
        trooper = rows.get(Trooper, captive["trooper_id"])
        if trooper is None:
            continue
        rows.update(Trooper, captive["trooper_id"], status=TrooperStatus.CAPTURED.value)
        names.append(trooper["name"])
        state = "" if captive["status_before"] == "fit" else f" ({label(captive['status_before'])})"
        service_record(
            rows,
            event,
            captive["trooper_id"],
            f"Captured{state} when {name} surrendered{captor} at {battle}, turn {p['turn']}.",
            battle_id=p["battle_id"],
        )
    return names


# --- Casevac --------------------------------------------------------------------------------------


def _flown_out(rows: Rows, event: StoredEvent, from_unit: dict[str, str]) -> dict[str, list[str]]:
    """Send the troopers aboard a departing casevac to the rear; their ids by the unit that
    loaded them."""
    p = event.payload
    where = battle_name(rows, p["battle_id"], "battle")
    flown: dict[str, list[str]] = {}
    for trooper_id in p["trooper_ids"]:
        if rows.get(Trooper, trooper_id) is None:
            continue
        rows.update(Trooper, trooper_id, status=TrooperStatus.CASEVACED.value)
        service_record(
            rows,
            event,
            trooper_id,
            f"Flown out of {where} by casevac, to the rear.",
            battle_id=p["battle_id"],
        )
        flown.setdefault(from_unit.get(trooper_id, ""), []).append(trooper_id)
    return flown


def _casevac_histories(rows: Rows, event: StoredEvent, flown: dict[str, list[str]]) -> None:
    """One line per unit the departing casevac touched: its men flown out, its confidence."""
    p = event.payload
    history: dict[str, tuple[list[str], dict[str, Any], list[Any]]] = {
        unit_id: (
            [f"{trooper_names(rows, ids)} flown out by casevac"],
            {"strength": -len(ids)},
            [],
        )
        for unit_id, ids in flown.items()
        if unit_id
    }
    for rise in p["rises"]:
        before, after = rise["confidence_before"], rise["confidence_after"]
        lines, changes, dice = history.setdefault(rise["unit_id"], ([], {}, []))
        if after != before:
            lines.append(f"confidence {before} to {after} as the casevac left")
            changes["confidence"] = [before, after]
        dice.extend(rise["dice"])
    where = battle_name(rows, p["battle_id"], "battle")
    for unit_id, (lines, changes, dice) in sorted(history.items()):
        if lines:
            unit_history(
                rows,
                event,
                unit_id,
                f"{where}: {'; '.join(lines)}.",
                changes,
                battle_id=p["battle_id"],
                dice=dice,
            )


def _shot_down(rows: Rows, event: StoredEvent, from_unit: dict[str, str]) -> None:
    """The wounded aboard a casevac the enemy's air defences shot down are killed (SG2 P.48,
    P.49): their status, their records, and a line in each loading unit's history."""
    p = event.payload
    where = battle_name(rows, p["battle_id"], "battle")
    killed: dict[str, list[str]] = {}
    before: dict[str, str] = {}
    for trooper_id in p["trooper_ids"]:
        trooper = rows.get(Trooper, trooper_id)
        if trooper is None:
            continue
        before[trooper_id] = trooper["status"]
        rows.update(Trooper, trooper_id, status=TrooperStatus.DEAD.value)
        service_record(
            rows,
            event,
            trooper_id,
            f"Killed at {where} when the casevac flying him out was shot down.",
            battle_id=p["battle_id"],
            dice=p["dice"],
        )
        killed.setdefault(from_unit.get(trooper_id, ""), []).append(trooper_id)
    for unit_id, ids in sorted(killed.items()):
        if unit_id and rows.get(Unit, unit_id) is not None:
            unit_history(
                rows,
                event,
                unit_id,
                f"{where}: {trooper_names(rows, ids)} killed when the casevac flying "
                f"{'him' if len(ids) == 1 else 'them'} out was shot down.",
                {
                    "strength": -len(ids),
                    "casualties": [[t, before[t], TrooperStatus.DEAD.value] for t in ids],
                },
                battle_id=p["battle_id"],
                dice=p["dice"],
            )


# --- Regrouping -----------------------------------------------------------------------------------


def _regroup_histories(
    rows: Rows, event: StoredEvent, unit: dict, merged: dict, names: list[str]
) -> None:
    p = event.payload
    where = battle_name(rows, p["battle_id"], "battle")
    joined_count = len(p["trooper_ids"])
    unit_history(
        rows,
        event,
        unit["id"],
        f"Regrouped with {merged['name']} in {where} ({joined_count} joined): now "
        f"{label(p['quality'])}, leadership {p['leadership']}, {p['fatigue']}, "
        f"{p['confidence']}.",
        {
            "quality": [unit["quality"], p["quality"]],
            "leadership": [unit["leadership"], p["leadership"]],
            "fatigue": [unit["fatigue"], p["fatigue"]],
            "strength": joined_count,
        },
        battle_id=p["battle_id"],
    )
    unit_history(
        rows,
        event,
        merged["id"],
        f"Regrouped into {unit['name']} in {where}: {', '.join(names)} joined it.",
        {"strength": -joined_count},
        battle_id=p["battle_id"],
    )


# --- The projection -------------------------------------------------------------------------------


@register
class InBattleProjection(Projection):
    """Troopers', units' and vehicles' states and histories as battles change them (rows of the
    rosters projection), and the rosters' own record of each battle."""

    name = "rosters.in_battle"
    # 2: a wrecked power suit (P.40 roll 5) is kept on its wearer's row
    # 3: casualties of artillery, mines and snipers are told as such
    version = 3
    models = (RosterBattle,)

    @Projection.handles("battles.BattlePlanned")
    def battle_planned(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        rows.put(
            RosterBattle,
            {
                "id": p["battle_id"],
                "campaign_id": event.campaign_id,
                "name": p["name"],
                "casevac_aboard": {side["side"]: {} for side in p["sides"]},
            },
        )

    @Projection.handles("battles.CasualtiesResolved")
    def casualties_resolved(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        cause = {
            "allocate": "by fire",
            "quick_and_dirty": "by fire",
            "close_combat": "in close combat",
            "artillery": "by artillery fire",
            "mine": "by a mine",
            "sniper": "by a sniper",
        }.get(p["mode"], "in action")
        by_unit = _apply_casualties(rows, event, p["casualties"], cause)
        for unit_id, fates in by_unit.items():
            _unit_casualty_history(rows, event, unit_id, fates, p["casualties"])

    @Projection.handles("battles.LeaderCasualtyResolved")
    def leader_casualty(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        leader = trooper_name(rows, p["leader_id"])
        name = unit_name(rows, p["unit_id"])
        if p["casualty"] is not None:
            _apply_casualty(rows, event, p["casualty"], f"leading {name}")
        if p["lost"]:
            _leader_lost(rows, event, leader, name)

    @Projection.handles("battles.VehicleHit")
    def vehicle_hit(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        vehicle = rows.get(Vehicle, p["vehicle_id"])
        if vehicle is None:
            return
        rows.update(Vehicle, p["vehicle_id"], state=p["state_after"])
        by_unit = _apply_casualties(rows, event, p["casualties"], f"aboard {vehicle['name']}")
        battle = battle_name(rows, p["battle_id"])
        line = f"{vehicle['name']} hit at {battle}, turn {p['turn']}: {vehicle_hit_effect(p)}."
        if p["state_after"] != p["state_before"] or p["unit_id"] in by_unit:
            own = by_unit.pop(p["unit_id"], [])
            unit_history(
                rows,
                event,
                p["unit_id"],
                line + (f" Casualties: {'; '.join(own)}." if own else ""),
                {"vehicle": [p["vehicle_id"], p["state_before"], p["state_after"]]},
                battle_id=p["battle_id"],
                dice=p["dice"],
            )
        for unit_id, unit_fates in by_unit.items():
            _unit_casualty_history(rows, event, unit_id, unit_fates, p["casualties"])

    @Projection.handles("battles.UnitSurrendered")
    def unit_surrendered(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        battle = battle_name(rows, p["battle_id"])
        captor = surrender_captor(p)
        names = _captured(rows, event, unit_name(rows, p["unit_id"]), captor, battle)
        taken = ", ".join(names) if names else "nobody left to take"
        if rows.get(Unit, p["unit_id"]) is not None:
            unit_history(
                rows,
                event,
                p["unit_id"],
                f"Surrendered{captor} at {battle}, turn {p['turn']}: {taken} taken prisoner.",
                {"captured": [c["trooper_id"] for c in p["captured"]]},
                battle_id=p["battle_id"],
            )

    @Projection.handles("battles.CasualtiesTreated")
    def casualties_treated(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        medical_unit = unit_name(rows, p["medical_unit_id"]) if p["medical_unit_id"] else ""
        how = treatment_help(p, medical_unit)
        where = battle_name(rows, p["battle_id"], "battle")
        outcomes = []
        dead = 0
        for index, treatment in enumerate(p["treatments"]):
            trooper = rows.get(Trooper, treatment["trooper_id"])
            if trooper is None:
                continue
            die = p["dice"][index : index + 1]
            result = TREATED[treatment["result"]]
            rows.update(Trooper, treatment["trooper_id"], status=treatment["result"])
            dead += treatment["result"] == "dead"
            roll = treatment_roll(die, p["modifier"], treatment["total"])
            service_record(
                rows,
                event,
                treatment["trooper_id"],
                f"Treated for wounds in {where}{how}: {roll}, {result}.",
                battle_id=p["battle_id"],
                dice=die,
            )
            outcomes.append(f"{trooper['name']} {result}")
        unit_history(
            rows,
            event,
            p["unit_id"],
            f"Casualties treated in {where}{how}: {'; '.join(outcomes)}.",
            {"strength": -dead} if dead else {},
            battle_id=p["battle_id"],
            dice=p["dice"],
        )

    @Projection.handles("battles.CasevacCalled")
    def casevac_called(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        aboard = _casevac_aboard(rows, p)
        if aboard is not None and p["called"]:
            rows.update(RosterBattle, p["battle_id"], casevac_aboard={**aboard, p["side"]: {}})

    @Projection.handles("battles.CasevacLoaded")
    def casevac_loaded(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        aboard = _casevac_aboard(rows, p)
        if aboard is None:
            return
        loaded = dict.fromkeys(p["trooper_ids"], p["unit_id"])
        side = {**aboard[p["side"]], **loaded}
        rows.update(RosterBattle, p["battle_id"], casevac_aboard={**aboard, p["side"]: side})
        unit = unit_name(rows, p["unit_id"])
        where = battle_name(rows, p["battle_id"], "battle")
        for trooper_id in p["trooper_ids"]:
            service_record(
                rows,
                event,
                trooper_id,
                f"Loaded aboard the casevac by {unit} in {where}.",
                battle_id=p["battle_id"],
            )

    @Projection.handles("battles.CasevacDeparted")
    def casevac_departed(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        aboard = _casevac_aboard(rows, p)
        if aboard is None:
            return
        rows.update(RosterBattle, p["battle_id"], casevac_aboard={**aboard, p["side"]: {}})
        flown = _flown_out(rows, event, aboard[p["side"]])
        _casevac_histories(rows, event, flown)

    @Projection.handles("battles.CasevacShotDown")
    def casevac_shot_down(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        aboard = _casevac_aboard(rows, p)
        if aboard is None:
            return
        rows.update(RosterBattle, p["battle_id"], casevac_aboard={**aboard, p["side"]: {}})
        _shot_down(rows, event, aboard[p["side"]])

    @Projection.handles("battles.UnitsRegrouped")
    def units_regrouped(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        where = battle_name(rows, p["battle_id"], "battle")
        regrouped = regroup_troopers(
            rows,
            event,
            lambda merged, unit: f"Regrouped from {merged['name']} into {unit['name']} in {where}.",
            battle_id=p["battle_id"],
        )
        if regrouped is None:
            return
        unit, merged, names = regrouped
        _regroup_histories(rows, event, unit, merged, names)
