"""The battle log of casualty actions, and the participants they change.

What casualties do to troopers, units and vehicles is the rosters' to fold
(:mod:`rosters.in_battle`); these steps only read their names.
"""

from __future__ import annotations

from typing import Any

from battles.casualties.events import LEADER_CASUALTY_EVENT, VEHICLE_HIT_EVENT
from battles.models import Participant
from battles.projections import (
    battle_name,
    dice_text,
    log,
    participant_key,
    trooper_name,
    unit_name,
)
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Trooper, Vehicle
from rosters.vocabulary import TrooperStatus
from rosters.wording import casualty_fate, surrender_captor, vehicle_hit_effect
from rules.sg2.casualties import HitResult


def _casualty_lines(rows: Rows, event: StoredEvent, casualties: list[dict[str, Any]]) -> list[str]:
    """Log a line for each casualty with its dice; the fates ('Name fate'), grouped by unit."""
    by_unit: dict[str, list[str]] = {}
    for index, c in enumerate(casualties, start=1):
        trooper = rows.get(Trooper, c["trooper_id"])
        if trooper is None:
            continue
        fate = f"{trooper['name']} {casualty_fate(c)}"
        by_unit.setdefault(c["unit_id"], []).append(fate)
        log(rows, event, f"{fate}.{dice_text(c['dice'])}", n=index, dice=c["dice"])
    return [fate for unit_fates in by_unit.values() for fate in unit_fates]


def _leaders_down_text(rows: Rows, ids: list[str]) -> str:
    names = [trooper_name(rows, i) for i in ids]
    if not names:
        return ""
    if len(names) == 1:
        return f" {names[0]} led his unit: resolve the loss of its leader (P.10)."
    return (
        f" {', '.join(names[:-1])} and {names[-1]} led their units: resolve the loss of each "
        "unit's leader (P.10)."
    )


def _confidence_test_text(p: dict[str, Any]) -> str:
    if p["threat_level"] is None:
        return "no confidence test due"
    verdict = "passed" if p["passed"] else "failed"
    change = (
        f"stays {p['confidence_after']}"
        if p["confidence_after"] == p["confidence_before"]
        else f"drops from {p['confidence_before']} to {p['confidence_after']}"
    )
    return f"{verdict} a confidence test at threat level {p['threat_level']}: {change}"


@register
class CasualtiesProjection(Projection):
    """The log lines of casualty actions and the participants they change (rows of the battles
    projection)."""

    name = "battles.casualties"
    version = 5

    @Projection.handles("battles.CasualtiesResolved")
    def casualties_resolved(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        fates = _casualty_lines(rows, event, p["casualties"])
        name = unit_name(rows, p["unit_id"])
        told = "; ".join(fates) if fates else "no casualties"
        if p["mode"] == "allocate":
            missed = sum(1 for hit in p["hits"] if hit["result"] == HitResult.NO_EFFECT)
            hits = p["potential_hits"]
            summary = (
                f"{name} took {hits} potential hit{'s' if hits != 1 else ''} (impact "
                f"d{p['impact_die']}, {p['cover']} cover, {missed} without effect): {told}."
            )
        elif p["mode"] == "quick_and_dirty":
            hits = p["potential_hits"]
            summary = (
                f"{name} took {hits} hit{'s' if hits != 1 else ''} of quick-and-dirty fire, each "
                f"figure hit wounded until a medic checks him (P.36): {told}."
            )
        elif p["mode"] == "close_combat":
            summary = f"{name}, the fates of its figures downed in the close assault: {told}."
        elif p["mode"] in ("mine", "sniper"):
            by = "a mine or booby trap" if p["mode"] == "mine" else "a sniper"
            summary = f"{name}, hit by {by} (impact d{p['impact_die']}): {told}."
        elif p["mode"] == "artillery":
            summary = f"{name}, casualties of the fire mission (impact d{p['impact_die']}): {told}."
        elif p["mode"] == "reported":
            summary = (
                f"{name}, casualties from a player's battle report, decided by the umpire: {told}."
            )
        else:
            summary = f"{name}, casualties named by the umpire: {told}."
        summary += _leaders_down_text(rows, p["leaders_down"])
        log(rows, event, summary + dice_text(p["dice"]))

    @Projection.handles(LEADER_CASUALTY_EVENT)
    def leader_casualty(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        leader = trooper_name(rows, p["leader_id"])
        name = unit_name(rows, p["unit_id"])
        if not p["lost"]:
            fate = casualty_fate(p["casualty"])
            log(rows, event, f"{leader}, leading {name}, {fate}.{dice_text(p['dice'])}")
            return
        fell = "was killed" if p["leader_status"] == TrooperStatus.DEAD else "was wounded"
        successor = trooper_name(rows, p["successor_id"])
        key = participant_key(p["battle_id"], p["unit_id"])
        if rows.get(Participant, key) is not None:
            rows.update(
                Participant,
                key,
                confidence=p["confidence_after"],
                suppression=p["suppression_after"],
            )
        markers = p["suppression_after"]
        log(
            rows,
            event,
            f"{leader}, leading {name}, {fell}: the unit is suppressed "
            f"({markers} marker{'s' if markers != 1 else ''}), {_confidence_test_text(p)}; "
            f"{successor} takes over with leadership {p['leadership_after']} "
            f"(was {p['leadership_before']}).{dice_text(p['dice'])}",
        )

    @Projection.handles(VEHICLE_HIT_EVENT)
    def vehicle_hit(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        vehicle = rows.get(Vehicle, p["vehicle_id"])
        if vehicle is None:
            return
        fates = _casualty_lines(rows, event, p["casualties"])
        battle = battle_name(rows, p["battle_id"])
        line = f"{vehicle['name']} hit at {battle}, turn {p['turn']}: {vehicle_hit_effect(p)}."
        if p["save_above"] is not None:
            told = "; ".join(fates) if fates else "nobody hurt"
            line += f" Occupants needed armour above {p['save_above']}: {told}."
        if p["bail_out"]:
            line += f" {p['bail_out'][0].upper()}{p['bail_out'][1:]}."
        before, after = p.get("suppression_before"), p.get("suppression_after")
        if after is not None:
            key = participant_key(p["battle_id"], p["unit_id"])
            if rows.get(Participant, key) is not None:
                rows.update(Participant, key, suppression=after)
            if after > before:
                line += (
                    f" {vehicle['name']} is suppressed ({after} marker{'s' if after != 1 else ''}"
                    "): nobody may leave it nor fire an external weapon (P.18)."
                )
            elif p.get("suppression_results") and after >= 3:
                line += (
                    f" {vehicle['name']} already has {after} suppression markers, the most "
                    "it can carry (P.18)."
                )
            elif p.get("suppression_results"):
                line += (
                    " No further suppression marker: one per fire action (option "
                    "one_suppression_per_fire_action, SG2-C)."
                )
        line += _leaders_down_text(rows, p["leaders_down"])
        log(rows, event, line + dice_text(p["dice"]))

    @Projection.handles("battles.UnitSurrendered")
    def unit_surrendered(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        key = participant_key(p["battle_id"], p["unit_id"])
        if rows.get(Participant, key) is not None:
            rows.update(Participant, key, status=Participant.Status.SURRENDERED.value)
        captives = [rows.get(Trooper, c["trooper_id"]) for c in p["captured"]]
        names = [trooper["name"] for trooper in captives if trooper is not None]
        taken = ", ".join(names) if names else "nobody left to take"
        guards = p["escort_guards"]
        escort = (
            f" Escorting them to the rear takes {guards} guard{'s' if guards != 1 else ''} "
            "(1 per 6 prisoners, P.53)."
            if guards
            else ""
        )
        log(
            rows,
            event,
            f"{unit_name(rows, p['unit_id'])} surrendered{surrender_captor(p)}: {taken} taken "
            f"prisoner.{escort}",
        )
