"""Fast and Dirty after a battle in the battle log: the losses the umpire names, the post-battle
steps and campaign points.

What the same events do to troopers, vehicles and units, and their histories, is the rosters' to
fold (``rosters.after_action_fad``, DESIGN §2, ownership); the lines they share are worded in
:mod:`rosters.wording`. This projection folds each event before the rosters' (``battles.*``
before ``rosters.*``) and reads only names from the roster rows, which those events leave as
they are.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Model

from battles.after_action.fad_events import (
    INFANTRY_REPLACED,
    LOSSES_RECORDED,
    POINTS_AWARDED,
    QUALITY_LOSS,
    RESOLVE_LOSS,
    VEHICLE_REPLACED,
)
from battles.projections import battle_name, dice_text, log, unit_name
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.after_action_fad import (
    losses_read,
    rating_loss_read,
    replacements_read,
    vehicle_replacement_read,
)
from rosters.models import Force, Trooper, Unit, Vehicle
from rosters.wording import (
    fad_infantry_replacements,
    fad_losses,
    fad_quality_loss,
    fad_resolve_loss,
    fad_vehicle_replacement,
)


def _names(rows: Rows, model: type[Model], ids: list[Any]) -> dict[str, str]:
    """The names of those of ``ids`` still on the rosters, by id."""
    found = {}
    for row_id in ids:
        row = rows.get(model, row_id)
        if row is not None:
            found[row_id] = row["name"]
    return found


_LOSS_CAUSES = {
    "named": "losses named by the umpire",
    "fire": "losses to fire",
    "close_assault": "losses in the close assault",
    "morale": "abandoned by its broken crew",
    "recon_ambush": "lost in the recon ambush",
    "mine": "losses to mines",
    "reported": "losses from a player's battle report, decided by the umpire",
}


@register
class FadAfterActionProjection(Projection):
    """The battle log after a Fast and Dirty battle (rows of the battles projection)."""

    name = "battles.after_action_fad"
    # 3: losses say what caused them; 4: losses from battle reports
    version = 4

    @Projection.handles(LOSSES_RECORDED, reads=losses_read)
    def losses_recorded(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if unit is None:
            return
        troopers = _names(rows, Trooper, [loss["trooper_id"] for loss in p["troopers"]])
        vehicles = _names(rows, Vehicle, [hit["vehicle_id"] for hit in p["vehicles"]])
        fates = fad_losses(p, troopers, vehicles)
        cause = _LOSS_CAUSES[p.get("cause", "named")]
        log(rows, event, f"{unit['name']}, {cause}: {'; '.join(fates)}.")

    @Projection.handles(INFANTRY_REPLACED, reads=replacements_read)
    def infantry_replaced(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if unit is None:
            return
        lost = _names(rows, Trooper, [lost["trooper_id"] for lost in p["lost"]])
        names = [lost[x["trooper_id"]] for x in p["lost"] if x["trooper_id"] in lost]
        summary = fad_infantry_replacements(p, battle_name(rows, p["battle_id"]), names)
        log(rows, event, f"{unit['name']}: {summary}{dice_text(p['dice'])}")

    @Projection.handles(VEHICLE_REPLACED, reads=vehicle_replacement_read)
    def vehicle_replaced(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        vehicle = rows.get(Vehicle, p["vehicle_id"])
        if vehicle is None:
            return
        battle = battle_name(rows, p["battle_id"])
        summary = fad_vehicle_replacement(p, battle, vehicle["name"])
        log(rows, event, summary + dice_text(p["dice"]))

    @Projection.handles(QUALITY_LOSS, reads=rating_loss_read)
    def quality_loss(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        if rows.get(Unit, p["unit_id"]) is None:
            return
        summary = fad_quality_loss(p, battle_name(rows, p["battle_id"]))
        log(rows, event, f"{unit_name(rows, p['unit_id'])}: {summary}{dice_text(p['dice'])}")

    @Projection.handles(RESOLVE_LOSS, reads=rating_loss_read)
    def resolve_loss(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        if rows.get(Unit, p["unit_id"]) is None:
            return
        summary = fad_resolve_loss(p, battle_name(rows, p["battle_id"]))
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
