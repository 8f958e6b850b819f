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
        log(rows, event, f"{p['side']}'s casevac reached the battle area.")

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
            f"with {flown}." if p["trooper_ids"] else "empty."
        )
        log(rows, event, summary, dice=[])
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
