"""The battle log of treatment and casevac, each side's casevac and the confidence it lifts.

What they do to troopers and units is the rosters' to fold (:mod:`rosters.in_battle`); these
steps only read their names.
"""

from __future__ import annotations

from typing import Any

from battles.models import BattleSide, Participant
from battles.projections import dice_text, log, participant_key, trooper_names, unit_name
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Trooper
from rosters.wording import TREATED, treatment_help, treatment_roll


def _side_key(p: dict[str, Any]) -> str:
    return f"{p['battle_id']}:{p['side']}"


def _casevac(rows: Rows, p: dict[str, Any]) -> dict[str, Any] | None:
    side = rows.get(BattleSide, _side_key(p))
    return dict(side["casevac"]) if side else None


def _air_defence_text(check: dict[str, Any]) -> str:
    """The casevac's run through the enemy's air defences (P.48), in words."""
    leaving = check["leg"] == "departure"
    way = "on its way out (one die type lower)" if leaving else "on its way in"
    head = f"the enemy's {check['ade']} ADE (d{check['die']}) {way}"
    if not check["acquired"]:
        return f"{head} did not acquire it"
    if not check["pressed_on"]:
        turned = "it turned away for home" if leaving else "it aborted"
        return f"{head} acquired it and {turned}"
    if not check["reaction_passed"]:
        turned = "it turned away for home" if leaving else "it aborted"
        return (
            f"{head} acquired it and the pilot's nerve failed (reaction test, needing more than "
            f"{check['reaction_target']}): {turned}"
        )
    if check["result"] == "shot_down":
        return f"{head} acquired it; the pilot pressed on and it was shot down"
    return f"{head} acquired it; the pilot pressed on and came through"


def _rise_text(rise: dict[str, Any]) -> str:
    """One unit's confidence roll as the casevac leaves, in words."""
    before, after = rise["confidence_before"], rise["confidence_after"]
    if not rise["eligible"]:
        return "has wounded of its own awaiting evacuation: no change"
    if not rise["dice"]:
        return f"already {after}"
    if after == before:
        return f"stays {after}"
    return f"rises from {before} to {after}"


@register
class MedicalProjection(Projection):
    """Treatment and casevac: the side's casevac, confidence and the battle log (rows of the
    battles projection)."""

    name = "battles.medical"
    version = 2

    @Projection.handles("battles.CasualtiesTreated")
    def casualties_treated(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = unit_name(rows, p["unit_id"])
        medical_unit = unit_name(rows, p["medical_unit_id"]) if p["medical_unit_id"] else ""
        how = treatment_help(p, medical_unit)
        for index, treatment in enumerate(p["treatments"]):
            trooper = rows.get(Trooper, treatment["trooper_id"])
            if trooper is None:
                continue
            die = p["dice"][index : index + 1]
            result = TREATED[treatment["result"]]
            roll = treatment_roll(die, p["modifier"], treatment["total"])
            log(
                rows,
                event,
                f"{trooper['name']} of {unit} treated{how}: {roll}, {result}.{dice_text(die)}",
                n=index,
                dice=die,
            )

    @Projection.handles("battles.CasevacCalled")
    def casevac_called(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        state = _casevac(rows, p)
        if state is None:
            return
        caller = unit_name(rows, p["unit_id"])
        face = p["dice"][0]["result"] if p["dice"] else "?"
        if p["called"]:
            state.update(status="called", box=p["box"], called_turn=p["turn"], aboard=[])
            rows.update(BattleSide, _side_key(p), casevac=state)
            summary = (
                f"{caller} called {p['side']}'s casevac: {face} beats {p['target']}; it is "
                f"inbound in box {p['box']}, due in the battle area in turn "
                f"{p['turn'] + p['box']}."
            )
        else:
            why = "jammed" if p["jammed"] else f"{face} does not beat {p['target']}"
            summary = f"{caller} called {p['side']}'s casevac but the call failed: {why}."
        log(rows, event, summary + dice_text(p["dice"]))

    @Projection.handles("battles.CasevacArrived")
    def casevac_arrived(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        state = _casevac(rows, p)
        if state is None:
            return
        state.update(status="arrived", box=None, arrived_turn=p["turn"])
        rows.update(BattleSide, _side_key(p), casevac=state)
        check = p.get("air_defence")
        through = f": {_air_defence_text(check)}" if check else ""
        log(
            rows,
            event,
            f"{p['side']}'s casevac reached the battle area{through}.{dice_text(p['dice'])}",
        )

    @Projection.handles("battles.CasevacTurnedBack")
    def casevac_turned_back(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        state = _casevac(rows, p)
        if state is None:
            return
        state.update(status="turned_back", box=None, aboard=[], full=False)
        rows.update(BattleSide, _side_key(p), casevac=state)
        log(
            rows,
            event,
            f"{p['side']}'s casevac went back to base, its mission abandoned: "
            f"{_air_defence_text(p['air_defence'])}.{dice_text(p['dice'])}",
        )

    @Projection.handles("battles.CasevacShotDown")
    def casevac_shot_down(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        state = _casevac(rows, p)
        if state is None:
            return
        state.update(status="lost", box=None, aboard=[], full=False)
        rows.update(BattleSide, _side_key(p), casevac=state)
        check = p["air_defence"]
        if check["leg"] == "departure":
            carried = trooper_names(rows, p["trooper_ids"])
            left = f" with {carried}" if p["trooper_ids"] else " empty"
            summary = f"{p['side']}'s casevac left the table{left}, but "
        else:
            summary = f"{p['side']}'s casevac never reached the battle area: "
        summary += f"{_air_defence_text(check)}."
        if p["trooper_ids"]:
            were = "was" if len(p["trooper_ids"]) == 1 else "were"
            summary += f" {trooper_names(rows, p['trooper_ids'])} aboard {were} killed."
        log(rows, event, summary + dice_text(p["dice"]))

    @Projection.handles("battles.CasevacLoaded")
    def casevac_loaded(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        state = _casevac(rows, p)
        if state is None:
            return
        state["aboard"] = [
            *state.get("aboard", []),
            *({"trooper_id": t, "unit_id": p["unit_id"]} for t in p["trooper_ids"]),
        ]
        state["full"] = p["full"]
        rows.update(BattleSide, _side_key(p), casevac=state)
        full = ": full, it must leave at once" if p["full"] else ""
        log(
            rows,
            event,
            f"{unit_name(rows, p['unit_id'])} loaded {trooper_names(rows, p['trooper_ids'])} "
            f"aboard {p['side']}'s casevac ({p['aboard']} of {p['capacity']} aboard{full}).",
        )

    @Projection.handles("battles.CasevacDeparted")
    def casevac_departed(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        state = _casevac(rows, p)
        if state is None:
            return
        state.update(status="departed", aboard=[], full=False, departed_turn=p["turn"])
        rows.update(BattleSide, _side_key(p), casevac=state)
        flown = trooper_names(rows, p["trooper_ids"])
        summary = f"{p['side']}'s casevac left the table " + (
            f"with {flown}" if p["trooper_ids"] else "empty"
        )
        check = p.get("air_defence")
        if check:
            ade_dice = p["dice"][: len(p["dice"]) - sum(len(r["dice"]) for r in p["rises"])]
            summary += f"; {_air_defence_text(check)}.{dice_text(ade_dice)}"
            log(rows, event, summary, dice=ade_dice)
        else:
            log(rows, event, summary + ".", dice=[])
        for index, rise in enumerate(p["rises"], start=1):
            key = participant_key(p["battle_id"], rise["unit_id"])
            if rows.get(Participant, key) is not None:
                rows.update(Participant, key, confidence=rise["confidence_after"])
            why = "its wounded flown out" if rise["reason"] == "loaded" else "comrades evacuated"
            log(
                rows,
                event,
                f"{unit_name(rows, rise['unit_id'])} ({why}): {_rise_text(rise)}."
                f"{dice_text(rise['dice'])}",
                n=index,
                dice=rise["dice"],
            )
