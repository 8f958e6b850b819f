"""Fast and Dirty after a battle in the read models: troopers, vehicles and units after the
losses, the post-battle steps, campaign points and reinforcements, and their histories."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from battles.after_action.fad_events import (
    INFANTRY_REPLACED,
    LOSSES_RECORDED,
    POINTS_AWARDED,
    POINTS_SPENT,
    QUALITY_LOSS,
    REINFORCEMENTS_ROLLED,
    RESOLVE_LOSS,
    VEHICLE_REPLACED,
)
from battles.models import Battle
from battles.projections import dice_text, log, unit_name
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Force, Trooper, Unit, Vehicle
from rosters.projections import service_record, unit_history
from rosters.vocabulary import TrooperStatus, VehicleState

# Wounded figures count as losses (option campaign_wounded_at_end, default): they leave the
# platoon, so they are evacuated rather than dead; figures of a routed unit counted as
# eliminated (option campaign_routed_unit_fate) are lost the same way.
_LOST_STATUS = {
    "killed": TrooperStatus.DEAD,
    "wounded": TrooperStatus.EVACUATED,
    "eliminated": TrooperStatus.EVACUATED,
}


def _label(value: str | None) -> str:
    return (value or "").replace("_", " ").capitalize()


def _battle_name(rows: Rows, battle_id: Any) -> str:
    battle = rows.get(Battle, battle_id)
    return battle["name"] if battle else "the battle"


def _trooper_name(rows: Rows, trooper_id: Any) -> str:
    trooper = rows.get(Trooper, trooper_id)
    return trooper["name"] if trooper else "a trooper"


def _faces(dice: list[dict[str, Any]]) -> str:
    return ", ".join(f"d{d['die']} {d['result']}" for d in dice)


_ROW_WORDS = {
    "none": "no replacements",
    "half": "half the losses replaced",
    "full": "back to full strength",
}
_VEHICLE_FATE_WORDS = {
    "not_repaired": "not repaired",
    "not_replaced": "not replaced",
    "repaired": "repaired",
    "replaced": "replaced",
}


def _join_trooper(rows: Rows, event: StoredEvent, unit: dict[str, Any], t: dict[str, Any]) -> None:
    """The same row a ``rosters.TrooperEnlisted`` gives, for a replacement who joined with a
    battle event."""
    rows.put(
        Trooper,
        {
            "id": t["trooper_id"],
            "campaign_id": event.campaign_id,
            "force_id": unit["force_id"],
            "unit_id": unit["id"],
            "order": t["order"],
            "name": t["name"],
            "role": t["role"],
            "weapon": t["weapon"],
            "armour": t["armour"],
            "armour_die": t["armour_die"],
            "power_armour": t["power_armour"],
            "specialism": t["specialism"],
            "status": TrooperStatus.FIT.value,
            "hospital_until_day": None,
            "battles_fought": 0,
            "wounds": 0,
            "days_in_hospital": 0,
        },
    )


def _cost(points: int) -> str:
    return f"{points} campaign point{'s' if points != 1 else ''}"


def _step_bought(rows: Rows, event: StoredEvent, b: dict[str, Any], when: str) -> None:
    """A unit's quality or resolve raised a level."""
    column = "quality" if b["kind"] == "quality_step" else "resolve"
    target = b["target"]
    if rows.get(Unit, target) is None:
        return
    rows.update(Unit, target, **{column: b["after"]})
    unit_history(
        rows,
        event,
        target,
        f"{_label(column)} raised from {_label(b['before'])} to {_label(b['after'])} for "
        f"{when} (FaD p.66).",
        {column: [b["before"], b["after"]]},
        battle_id=event.payload["battle_id"],
    )


def _vehicle_bought(rows: Rows, event: StoredEvent, b: dict[str, Any], when: str) -> None:
    """A vehicle repaired or replaced."""
    target = b["target"]
    vehicle = rows.get(Vehicle, target)
    if vehicle is None:
        return
    rows.update(Vehicle, target, state=b["after"], repair_until_day=None)
    done = "repaired" if b["kind"] == "repair_vehicle" else "replaced"
    unit_history(
        rows,
        event,
        vehicle["unit_id"],
        f"{vehicle['name']} {done} for {when} (FaD p.66).",
        {"vehicle": [target, b["before"], b["after"]]},
        battle_id=event.payload["battle_id"],
    )


def _figure_returned(rows: Rows, event: StoredEvent, b: dict[str, Any], when: str) -> None:
    """An eliminated lone figure back on duty."""
    trooper = rows.get(Trooper, b["trooper_id"])
    if trooper is None:
        return
    battle_id = event.payload["battle_id"]
    rows.update(Trooper, b["trooper_id"], status=TrooperStatus.FIT.value)
    service_record(
        rows, event, b["trooper_id"], f"Returned to duty for {when}.", battle_id=battle_id
    )
    unit_history(
        rows,
        event,
        b["target"],
        f"{trooper['name']} returned to duty for {when} (FaD p.66).",
        {"strength": 1},
        battle_id=battle_id,
    )


def _trait_bought(rows: Rows, event: StoredEvent, b: dict[str, Any], when: str) -> None:
    """A personality or trait given to a unit."""
    kind, target = b["kind"], b["target"]
    if rows.get(Unit, target) is None:
        return
    unit_history(
        rows,
        event,
        target,
        f"Given the {kind} {b['detail']} for {when} (FaD p.66).",
        {kind: b["detail"]},
        battle_id=event.payload["battle_id"],
    )


# A purchase's kind -> how the read models tell it; reinforcement dice show in the pool's roll.
_PURCHASES: dict[str, Callable[[Rows, StoredEvent, dict[str, Any], str], None]] = {
    "quality_step": _step_bought,
    "resolve_step": _step_bought,
    "repair_vehicle": _vehicle_bought,
    "replace_vehicle": _vehicle_bought,
    "return_lone_figure": _figure_returned,
    "personality": _trait_bought,
    "trait": _trait_bought,
}


@register
class FadAfterActionProjection(Projection):
    """Troopers, vehicles and units after a Fast and Dirty battle, and their histories (rows of
    the rosters and battles projections)."""

    name = "battles.after_action_fad"

    @Projection.handles(LOSSES_RECORDED)
    def losses_recorded(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if unit is None:
            return
        battle = _battle_name(rows, p["battle_id"])
        fates = []
        for loss in p["troopers"]:
            trooper = rows.get(Trooper, loss["trooper_id"])
            if trooper is None:
                continue
            status = TrooperStatus.DEAD if loss["result"] == "killed" else TrooperStatus.WOUNDED
            rows.update(Trooper, loss["trooper_id"], status=status.value)
            if loss["result"] == "wounded":
                rows.update(Trooper, loss["trooper_id"], wounds=trooper["wounds"] + 1)
            fates.append(f"{trooper['name']} {loss['result']}")
            service_record(
                rows,
                event,
                loss["trooper_id"],
                f"{_label(loss['result'])} at {battle}, turn {p['turn']}.",
                battle_id=p["battle_id"],
            )
        for hit in p["vehicles"]:
            vehicle = rows.get(Vehicle, hit["vehicle_id"])
            if vehicle is None:
                continue
            state = (
                VehicleState.DESTROYED if hit["condition"] == "destroyed" else VehicleState.DISABLED
            )
            rows.update(Vehicle, hit["vehicle_id"], state=state.value)
            fates.append(f"{vehicle['name']} {hit['condition']}")
        summary = f"Losses at {battle}, turn {p['turn']}: {'; '.join(fates)}."
        unit_history(
            rows,
            event,
            p["unit_id"],
            summary,
            {
                "casualties": [
                    [x["trooper_id"], x["status_before"], x["result"]] for x in p["troopers"]
                ],
                "vehicles": [
                    [x["vehicle_id"], x["state_before"], x["condition"]] for x in p["vehicles"]
                ],
            },
            battle_id=p["battle_id"],
        )
        log(rows, event, f"{unit['name']}, losses named by the umpire: {'; '.join(fates)}.")

    @Projection.handles(INFANTRY_REPLACED)
    def infantry_replaced(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if unit is None:
            return
        battle = _battle_name(rows, p["battle_id"])
        names = []
        for lost in p["lost"]:
            trooper = rows.get(Trooper, lost["trooper_id"])
            if trooper is None:
                continue
            names.append(trooper["name"])
            status = _LOST_STATUS[lost["fate"]]
            if trooper["status"] != status:
                rows.update(Trooper, lost["trooper_id"], status=status.value)
            if status is TrooperStatus.EVACUATED:
                service_record(
                    rows,
                    event,
                    lost["trooper_id"],
                    f"Left {unit['name']} after {battle}: counted among its losses (FaD p.66).",
                    battle_id=p["battle_id"],
                )
        for t in p["enlisted"]:
            _join_trooper(rows, event, unit, t)
            service_record(
                rows,
                event,
                t["trooper_id"],
                f"Joined {unit['name']} as a replacement after {battle}.",
                battle_id=p["battle_id"],
                dice=p["dice"],
            )
        losses = p["losses"]
        summary = f"After {battle}: {losses} loss{'es' if losses != 1 else ''} ({', '.join(names)})"
        if p["row"] is None:
            summary += "."
        else:
            summary += (
                f"; infantry replacements {_faces(p['dice'])}: {_ROW_WORDS[p['row']]}, "
                f"{p['replaced']} replacement{'s' if p['replaced'] != 1 else ''} joined"
            )
            if p["row"] == "half" and p["lone_figure"]:
                summary += " (a lone figure is not returned on 3-4)"
            summary += "."
        unit_history(
            rows,
            event,
            p["unit_id"],
            summary,
            {"strength": p["replaced"] - len(p["lost"]), "replaced": p["replaced"]},
            battle_id=p["battle_id"],
            dice=p["dice"],
        )
        log(rows, event, f"{unit['name']}: {summary}{dice_text(p['dice'])}")

    @Projection.handles(VEHICLE_REPLACED)
    def vehicle_replaced(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        vehicle = rows.get(Vehicle, p["vehicle_id"])
        if vehicle is None:
            return
        rows.update(Vehicle, p["vehicle_id"], state=p["state_after"], repair_until_day=None)
        rolled = (
            p["rolled_as"]
            if p["rolled_as"] == p["condition"]
            else (f"{p['condition']}, counted as {p['rolled_as']}")
        )
        summary = (
            f"After {_battle_name(rows, p['battle_id'])}: {vehicle['name']} ({rolled}), "
            f"vehicle replacements {_faces(p['dice'])}: {_VEHICLE_FATE_WORDS[p['fate']]}."
        )
        unit_history(
            rows,
            event,
            p["unit_id"],
            summary,
            {"vehicle": [p["vehicle_id"], p["state_before"], p["state_after"]]},
            battle_id=p["battle_id"],
            dice=p["dice"],
        )
        log(rows, event, summary + dice_text(p["dice"]))

    @Projection.handles(QUALITY_LOSS)
    def quality_loss(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        if rows.get(Unit, p["unit_id"]) is None:
            return
        rows.update(Unit, p["unit_id"], quality=p["quality_after"])
        before, after = _label(p["quality_before"]), _label(p["quality_after"])
        verdict = f"drops from {before} to {after}" if before != after else f"stays {before}"
        summary = (
            f"After {_battle_name(rows, p['battle_id'])}: {p['replacements']} replacements of "
            f"{p['measured_against']}, quality loss {_faces(p['dice'])}: {verdict}."
        )
        unit_history(
            rows,
            event,
            p["unit_id"],
            summary,
            {"quality": [p["quality_before"], p["quality_after"]]},
            battle_id=p["battle_id"],
            dice=p["dice"],
        )
        log(rows, event, f"{unit_name(rows, p['unit_id'])}: {summary}{dice_text(p['dice'])}")

    @Projection.handles(RESOLVE_LOSS)
    def resolve_loss(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        if rows.get(Unit, p["unit_id"]) is None:
            return
        rows.update(Unit, p["unit_id"], resolve=p["resolve_after"])
        before, after = _label(p["resolve_before"]), _label(p["resolve_after"])
        verdict = f"from {before} to {after}" if before != after else f"stays {before}"
        summary = (
            f"After {_battle_name(rows, p['battle_id'])}: resolve loss {_faces(p['dice'])}, "
            f"{verdict}."
        )
        unit_history(
            rows,
            event,
            p["unit_id"],
            summary,
            {"resolve": [p["resolve_before"], p["resolve_after"]]},
            battle_id=p["battle_id"],
            dice=p["dice"],
        )
        log(rows, event, f"{unit_name(rows, p['unit_id'])}: {summary}{dice_text(p['dice'])}")

    @Projection.handles(POINTS_AWARDED)
    def points_awarded(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        force = rows.get(Force, p["force_id"])
        name = force["name"] if force else "A force"
        lapsed = f" ({p['lapsed']} unspent lapsed)" if p["lapsed"] else ""
        log(
            rows,
            event,
            f"{name} receives {p['points']} campaign points for {p['reinforced_platoons']} "
            f"reinforced platoon{'s' if p['reinforced_platoons'] != 1 else ''}{lapsed}: "
            f"{p['balance']} to spend.",
        )

    @Projection.handles(POINTS_SPENT)
    def points_spent(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        battle = _battle_name(rows, p["battle_id"])
        for bought in p["purchases"]:
            told = _PURCHASES.get(bought["kind"])
            if told is not None:
                told(rows, event, bought, f"{_cost(bought['cost'])} after {battle}")

    @Projection.handles(REINFORCEMENTS_ROLLED)
    def reinforcements_rolled(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        battle = _battle_name(rows, p["battle_id"])
        extra = f" + {p['extra_dice']} bought" if p["extra_dice"] else ""
        pool = f"reinforcement pool 2d6{extra} ({_faces(p['dice'])}) = {p['pool']}"
        for placed in p["units"]:
            if rows.get(Unit, placed["unit_id"]) is None:
                continue
            count = len(placed["trooper_ids"])
            names = ", ".join(_trooper_name(rows, t) for t in placed["trooper_ids"])
            unit_history(
                rows,
                event,
                placed["unit_id"],
                f"After {battle}: {count} reinforcement{'s' if count != 1 else ''} joined "
                f"({names}) from the {pool}.",
                {"strength": count},
                battle_id=p["battle_id"],
                dice=p["dice"],
            )
            for trooper_id in placed["trooper_ids"]:
                service_record(
                    rows,
                    event,
                    trooper_id,
                    f"Joined as a reinforcement after {battle}.",
                    battle_id=p["battle_id"],
                )
        squad = p["new_squad"]
        if squad is not None and rows.get(Unit, squad["unit_id"]) is not None:
            unit_history(
                rows,
                event,
                squad["unit_id"],
                f"Formed after {battle} from {squad['size']} troopers of the {pool}: "
                f"{_label(squad['quality'])}, {_label(squad['resolve'])}, squad leader "
                f"{squad['squad_leader_experience']} (FaD p.66).",
                {"strength": squad["size"]},
                battle_id=p["battle_id"],
                dice=p["dice"],
            )
