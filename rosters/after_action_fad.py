"""What Fast and Dirty's after-battle steps (FaD p.64-66) do to the rosters: the losses the umpire
names, the replacements and the quality and resolve they cost, campaign points spent and the
reinforcement pool, told in troopers', vehicles' and units' rows, histories and service records.

The Fast and Dirty events are named here by type and read as the payload dicts the log stores: the
rosters import nothing of ``battles`` (DESIGN §2, ownership). Battle names come from the rosters'
own record of each battle (:class:`~rosters.models.RosterBattle`). The battle log's lines for the
same events are written by ``battles.after_action_fad``, which folds each event first and reads
only names from these rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from eventlog.projections import Projection, Read, Rows, register
from eventlog.store import StoredEvent
from rosters.in_battle import battle_name, trooper_name
from rosters.models import RosterBattle, Trooper, Unit, Vehicle
from rosters.projections import service_record, unit_history
from rosters.vocabulary import TrooperStatus, UnitStatus, VehicleState
from rosters.wording import (
    capitalised,
    faces,
    fad_infantry_replacements,
    fad_losses,
    fad_quality_loss,
    fad_resolve_loss,
    fad_vehicle_replacement,
)

# Wounded figures count as losses (option campaign_wounded_at_end, default): they leave the
# platoon, so they are evacuated rather than dead; figures of a routed unit counted as
# eliminated (option campaign_routed_unit_fate) are lost the same way.
_LOST_STATUS = {
    "killed": TrooperStatus.DEAD,
    "wounded": TrooperStatus.EVACUATED,
    "eliminated": TrooperStatus.EVACUATED,
}


def _join_trooper(rows: Rows, event: StoredEvent, unit: dict[str, Any], t: dict[str, Any]) -> None:
    """The same row a ``rosters.TrooperEnlisted`` gives, for a replacement who joined with a
    battle event (version 1 of the replacement events; from version 2 he is enlisted on his own
    stream)."""
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
            "suit_wrecked": False,
            "suit_repaired_on_day": None,
            "specialism": t["specialism"],
            # A replacement leader's experience is read from option
            # leaders_replacement_experience when it is needed (FaD p.25 is silent).
            "experience": "",
            "status": TrooperStatus.FIT.value,
            "hospital_until_day": None,
            "battles_fought": 0,
            "wounds": 0,
            "days_in_hospital": 0,
        },
    )


def _cost(points: int) -> str:
    return f"{points} campaign point{'s' if points != 1 else ''}"


# --- Losses ---------------------------------------------------------------------------------------


def _troopers_lost(rows: Rows, event: StoredEvent, battle: str) -> dict[str, str]:
    """Set the named troopers' states and write their service records; their names by id."""
    p = event.payload
    names = {}
    for loss in p["troopers"]:
        trooper = rows.get(Trooper, loss["trooper_id"])
        if trooper is None:
            continue
        status = TrooperStatus.DEAD if loss["result"] == "killed" else TrooperStatus.WOUNDED
        rows.update(Trooper, loss["trooper_id"], status=status.value)
        if loss["result"] == "wounded":
            rows.update(Trooper, loss["trooper_id"], wounds=trooper["wounds"] + 1)
        names[loss["trooper_id"]] = trooper["name"]
        service_record(
            rows,
            event,
            loss["trooper_id"],
            f"{capitalised(loss['result'])} at {battle}, turn {p['turn']}.",
            battle_id=p["battle_id"],
        )
    return names


def _vehicles_lost(rows: Rows, p: dict[str, Any]) -> dict[str, str]:
    """Set the hit vehicles' states; their names by id."""
    names = {}
    for hit in p["vehicles"]:
        vehicle = rows.get(Vehicle, hit["vehicle_id"])
        if vehicle is None:
            continue
        destroyed = hit["condition"] == "destroyed"
        state = VehicleState.DESTROYED if destroyed else VehicleState.DISABLED
        rows.update(Vehicle, hit["vehicle_id"], state=state.value)
        names[hit["vehicle_id"]] = vehicle["name"]
    return names


def _replaced_losses(
    rows: Rows, event: StoredEvent, unit: dict[str, Any], battle: str
) -> list[str]:
    """Count the unit's losses out of it; their names."""
    p = event.payload
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
    return names


def _unit_removed(rows: Rows, event: StoredEvent, unit: dict[str, Any], battle: str) -> None:
    """A unit wiped out with no replacements leaves the roster (campaign_empty_units =
    removed; FaD p.66 leaves it open)."""
    rows.update(Unit, unit["id"], status=UnitStatus.DISBANDED.value)
    unit_history(
        rows,
        event,
        unit["id"],
        f"Removed from the roster after {battle}: wiped out, with no replacements "
        "(campaign option, FaD p.66).",
        {"status": [unit["status"], UnitStatus.DISBANDED.value]},
        battle_id=event.payload["battle_id"],
        part=1,
    )


def _crew_back(rows: Rows, event: StoredEvent, unit: dict[str, Any], battle: str) -> str:
    """Crew killed on a vehicle that survived, counted as damage (campaign_vehicle_crew_losses
    = counts_as_damaged): counted out of the unit, and back with a repair. What the history
    adds."""
    p = event.payload
    names = _replaced_losses(rows, event, unit, battle)
    for t in p["enlisted"]:
        _join_trooper(rows, event, unit, t)
        service_record(
            rows,
            event,
            t["trooper_id"],
            f"Joined {unit['name']} as crew after {battle}.",
            battle_id=p["battle_id"],
            dice=p["dice"],
        )
    back = len(p["trooper_ids"])
    return (
        f" Crew lost ({', '.join(names)}) counted as damage: "
        f"{f'{back} back with the repair' if back else 'none back'}."
    )


# --- Campaign points ------------------------------------------------------------------------------


def _step_bought(rows: Rows, event: StoredEvent, b: dict[str, Any], when: str, part: int) -> None:
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
        f"{capitalised(column)} raised from {capitalised(b['before'])} to "
        f"{capitalised(b['after'])} for {when} (FaD p.66).",
        {column: [b["before"], b["after"]]},
        battle_id=event.payload["battle_id"],
        part=part,
    )


def _vehicle_bought(
    rows: Rows, event: StoredEvent, b: dict[str, Any], when: str, part: int
) -> None:
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
        part=part,
    )


def _figure_returned(
    rows: Rows, event: StoredEvent, b: dict[str, Any], when: str, part: int
) -> None:
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
        part=part,
    )


def _leader_improved(
    rows: Rows, event: StoredEvent, b: dict[str, Any], when: str, part: int
) -> None:
    """A squad leader's experience raised a level (campaign option, FaD p.11, p.66)."""
    trooper = rows.get(Trooper, b["trooper_id"])
    if trooper is None:
        return
    battle_id = event.payload["battle_id"]
    rows.update(Trooper, b["trooper_id"], experience=b["after"])
    raised = f"from {capitalised(b['before'])} to {capitalised(b['after'])} for {when}"
    service_record(
        rows, event, b["trooper_id"], f"Experience raised {raised}.", battle_id=battle_id
    )
    unit_history(
        rows,
        event,
        b["target"],
        f"Squad leader {trooper['name']} raised {raised} (campaign option, FaD p.66).",
        {"squad_leader_experience": [b["before"], b["after"]]},
        battle_id=battle_id,
        part=part,
    )


def _trait_bought(rows: Rows, event: StoredEvent, b: dict[str, Any], when: str, part: int) -> None:
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
        part=part,
    )


def _rating_lost(
    rows: Rows, event: StoredEvent, column: str, told: Callable[[dict[str, Any], str], str]
) -> None:
    """A unit's quality or resolve after its loss roll (FaD p.66 steps 3 and 4)."""
    p = event.payload
    if rows.get(Unit, p["unit_id"]) is None:
        return
    rows.update(Unit, p["unit_id"], **{column: p[f"{column}_after"]})
    unit_history(
        rows,
        event,
        p["unit_id"],
        told(p, battle_name(rows, p["battle_id"])),
        {column: [p[f"{column}_before"], p[f"{column}_after"]]},
        battle_id=p["battle_id"],
        dice=p["dice"],
    )


# A purchase's kind -> how the rosters tell it; reinforcement dice show in the pool's roll.
_PURCHASES: dict[str, Callable[[Rows, StoredEvent, dict[str, Any], str, int], None]] = {
    "quality_step": _step_bought,
    "resolve_step": _step_bought,
    "repair_vehicle": _vehicle_bought,
    "replace_vehicle": _vehicle_bought,
    "return_lone_figure": _figure_returned,
    "personality": _trait_bought,
    "trait": _trait_bought,
    "squad_leader_step": _leader_improved,
}


# --- Reinforcements -------------------------------------------------------------------------------


def _reinforced(rows: Rows, event: StoredEvent, placed: dict[str, Any], joined: str) -> None:
    """One unit's share of the reinforcement pool, in its history and the men's records."""
    p = event.payload
    count = len(placed["trooper_ids"])
    names = ", ".join(trooper_name(rows, t) for t in placed["trooper_ids"])
    unit_history(
        rows,
        event,
        placed["unit_id"],
        f"After {battle_name(rows, p['battle_id'])}: {count} reinforcement"
        f"{'s' if count != 1 else ''} joined ({names}) from the {joined}.",
        {"strength": count},
        battle_id=p["battle_id"],
        dice=p["dice"],
    )
    if p["enlistments_name_battle"]:
        return  # each one's enlistment opened his service record with the battle
    for trooper_id in placed["trooper_ids"]:
        service_record(
            rows,
            event,
            trooper_id,
            f"Joined as a reinforcement after {battle_name(rows, p['battle_id'])}.",
            battle_id=p["battle_id"],
        )


def _squad_formed(rows: Rows, event: StoredEvent, squad: dict[str, Any], pool: str) -> None:
    p = event.payload
    unit_history(
        rows,
        event,
        squad["unit_id"],
        f"Formed after {battle_name(rows, p['battle_id'])} from {squad['size']} troopers of the "
        f"{pool}: {capitalised(squad['quality'])}, {capitalised(squad['resolve'])}, squad leader "
        f"{squad['squad_leader_experience']} (FaD p.66).",
        {"strength": squad["size"]},
        battle_id=p["battle_id"],
        dice=p["dice"],
    )


# --- What the steps read --------------------------------------------------------------------------
# Named so that the rows of a whole after-action (every unit that lost men, its losses, its
# vehicles) load in one query per table, whatever the force's size (``Projection.handles``,
# ``reads``; ADR 20). The battle log's projection of the same events reads the same rows.


def _unit_in_battle(event: StoredEvent) -> Iterator[Read]:
    yield Unit, event.payload["unit_id"]
    yield RosterBattle, event.payload["battle_id"]


def losses_read(event: StoredEvent) -> Iterator[Read]:
    """A unit's losses as the umpire names them: the unit, its men and vehicles hit."""
    p = event.payload
    yield from _unit_in_battle(event)
    yield from ((Trooper, loss["trooper_id"]) for loss in p["troopers"])
    yield from ((Vehicle, hit["vehicle_id"]) for hit in p["vehicles"])


def replacements_read(event: StoredEvent) -> Iterator[Read]:
    """A unit's replacements roll (FaD p.66 step 1): the unit and the losses it counts out."""
    yield from _unit_in_battle(event)
    yield from ((Trooper, lost["trooper_id"]) for lost in event.payload["lost"])


def vehicle_replacement_read(event: StoredEvent) -> Iterator[Read]:
    """A vehicle's replacement roll (step 2): the vehicle, its unit and any crew lost on it."""
    yield Vehicle, event.payload["vehicle_id"]
    yield from _unit_in_battle(event)
    yield from ((Trooper, lost["trooper_id"]) for lost in event.payload.get("lost", ()))


def rating_loss_read(event: StoredEvent) -> Iterator[Read]:
    """A unit's quality or resolve loss roll (steps 3 and 4)."""
    yield from _unit_in_battle(event)


_PURCHASE_READS: dict[str, tuple[tuple[Any, str], ...]] = {
    "quality_step": ((Unit, "target"),),
    "resolve_step": ((Unit, "target"),),
    "personality": ((Unit, "target"),),
    "trait": ((Unit, "target"),),
    "repair_vehicle": ((Vehicle, "target"),),
    "replace_vehicle": ((Vehicle, "target"),),
    "return_lone_figure": ((Trooper, "trooper_id"),),
    "squad_leader_step": ((Trooper, "trooper_id"),),
}


def purchases_read(event: StoredEvent) -> Iterator[Read]:
    """Campaign points spent: what each purchase is for."""
    yield RosterBattle, event.payload["battle_id"]
    for bought in event.payload["purchases"]:
        for model, key in _PURCHASE_READS.get(bought["kind"], ()):
            if bought.get(key):
                yield model, bought[key]


def reinforcements_read(event: StoredEvent) -> Iterator[Read]:
    """The reinforcement pool: the units it fills. The men who join them, and a new squad, are
    enlisted and raised just before it in the same append, and so already in hand."""
    yield RosterBattle, event.payload["battle_id"]
    yield from ((Unit, placed["unit_id"]) for placed in event.payload["units"])


# --- The projection -------------------------------------------------------------------------------


@register
class FadAfterActionProjection(Projection):
    """Troopers, vehicles and units after a Fast and Dirty battle, and their histories (rows of
    the rosters projection)."""

    name = "rosters.after_action_fad"
    # 4: a wiped-out unit with no replacements may leave the roster; crew lost on a vehicle
    # that survived come back with its repair. 5: squad leader experience bought with points.
    # 6: replacements and reinforcements are enlisted on their own streams, naming the battle
    version = 6

    @Projection.handles("battles.FadLossesRecorded", reads=losses_read)
    def losses_recorded(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        if rows.get(Unit, p["unit_id"]) is None:
            return
        battle = battle_name(rows, p["battle_id"])
        troopers = _troopers_lost(rows, event, battle)
        fates = fad_losses(p, troopers, _vehicles_lost(rows, p))
        unit_history(
            rows,
            event,
            p["unit_id"],
            f"Losses at {battle}, turn {p['turn']}: {'; '.join(fates)}.",
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

    @Projection.handles("battles.FadInfantryReplacementsRolled", reads=replacements_read)
    def infantry_replaced(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if unit is None:
            return
        battle = battle_name(rows, p["battle_id"])
        names = _replaced_losses(rows, event, unit, battle)
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
        unit_history(
            rows,
            event,
            p["unit_id"],
            fad_infantry_replacements(p, battle, names),
            {"strength": p["replaced"] - len(p["lost"]), "replaced": p["replaced"]},
            battle_id=p["battle_id"],
            dice=p["dice"],
        )
        if p.get("removed"):
            _unit_removed(rows, event, unit, battle)

    @Projection.handles("battles.FadVehicleReplacementRolled", reads=vehicle_replacement_read)
    def vehicle_replaced(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        vehicle = rows.get(Vehicle, p["vehicle_id"])
        if vehicle is None:
            return
        rows.update(Vehicle, p["vehicle_id"], state=p["state_after"], repair_until_day=None)
        battle = battle_name(rows, p["battle_id"])
        summary = fad_vehicle_replacement(p, battle, vehicle["name"])
        unit = rows.get(Unit, p["unit_id"])
        if p.get("crew_losses") and unit is not None:
            summary += _crew_back(rows, event, unit, battle)
        unit_history(
            rows,
            event,
            p["unit_id"],
            summary,
            {"vehicle": [p["vehicle_id"], p["state_before"], p["state_after"]]},
            battle_id=p["battle_id"],
            dice=p["dice"],
        )

    @Projection.handles("battles.FadQualityLossRolled", reads=rating_loss_read)
    def quality_loss(rows: Rows, event: StoredEvent) -> None:
        _rating_lost(rows, event, "quality", fad_quality_loss)

    @Projection.handles("battles.FadResolveLossRolled", reads=rating_loss_read)
    def resolve_loss(rows: Rows, event: StoredEvent) -> None:
        _rating_lost(rows, event, "resolve", fad_resolve_loss)

    @Projection.handles("battles.FadCampaignPointsSpent", reads=purchases_read)
    def points_spent(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        battle = battle_name(rows, p["battle_id"])
        for part, bought in enumerate(p["purchases"]):
            told = _PURCHASES.get(bought["kind"])
            if told is not None:
                told(rows, event, bought, f"{_cost(bought['cost'])} after {battle}", part)

    @Projection.handles("battles.FadReinforcementsRolled", reads=reinforcements_read)
    def reinforcements_rolled(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        extra = f" + {p['extra_dice']} bought" if p["extra_dice"] else ""
        pool = f"reinforcement pool 2d6{extra} ({faces(p['dice'])}) = {p['pool']}"
        if p.get("banked"):
            pool += f", with {p['banked']} banked from the last pool"
        for placed in p["units"]:
            if rows.get(Unit, placed["unit_id"]) is not None:
                _reinforced(rows, event, placed, pool)
        squad = p["new_squad"]
        if squad is not None and rows.get(Unit, squad["unit_id"]) is not None:
            _squad_formed(rows, event, squad, pool)
