"""The battle log of morale actions, and the confidence and state of the participants.

What regrouping does to units and troopers is the rosters' to fold (:mod:`rosters.in_battle`);
these steps only read their names.
"""

from __future__ import annotations

from battles.models import Participant
from battles.projections import (
    dice_text,
    label,
    log,
    participant_key,
    trooper_names,
    unit_name,
)
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Trooper, Unit
from rules.sg2.scales import Fatigue


@register
class MoraleProjection(Projection):
    """Confidence, the participants of regrouped units and the log lines of morale actions (rows
    of the battles projection)."""

    name = "battles.morale"
    version = 3

    @Projection.handles("battles.ConfidenceTested")
    def confidence_tested(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        key = participant_key(p["battle_id"], p["unit_id"])
        if rows.get(Participant, key) is None:
            return
        rows.update(Participant, key, confidence=p["confidence_after"])
        name = unit_name(rows, p["unit_id"])
        why = ", ".join(label(c) for c in p["circumstances"])
        if p["threat_level"] is None:
            summary = f"{name}: {why}; no confidence test needed."
        else:
            verdict = "passed" if p["passed"] else "failed"
            change = (
                f"stays {p['confidence_after']}"
                if p["confidence_after"] == p["confidence_before"]
                else f"drops from {p['confidence_before']} to {p['confidence_after']}"
            )
            summary = (
                f"{name} {verdict} a confidence test at threat level {p['threat_level']} "
                f"({why}): {change}.{dice_text(p['dice'])}"
            )
        log(rows, event, summary)

    @Projection.handles("battles.ReactionTested")
    def reaction_tested(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        why = label(p["circumstance"]) if p["circumstance"] else "a circumstance the umpire set"
        face = p["dice"][0]["result"] if p["dice"] else "?"
        if p["passed"]:
            verdict = f"passed: {face} beats {p['target']}, the order is carried out"
        else:
            verdict = f"failed: {face} does not beat {p['target']}, the action is not carried out"
        log(
            rows,
            event,
            f"{unit_name(rows, p['unit_id'])} took a reaction test at threat level "
            f"{p['threat_level']} ({why}) and {verdict}.{dice_text(p['dice'])}",
        )

    @Projection.handles("battles.RallyAttempted")
    def rally_attempted(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        key = participant_key(p["battle_id"], p["unit_id"])
        if rows.get(Participant, key) is None:
            return
        rows.update(Participant, key, confidence=p["confidence_after"])
        name, rallier = unit_name(rows, p["unit_id"]), unit_name(rows, p["rallier_unit_id"])
        if not p["communicated"]:
            why = "the message was jammed" if p["jammed"] else "the message did not get through"
            summary = (
                f"{rallier} tried to rally {name}, but {why}; it stays {p['confidence_after']}."
            )
        elif p["rallied"]:
            summary = (
                f"{rallier} rallied {name} (needing more than {p['target']}): "
                f"from {p['confidence_before']} to {p['confidence_after']}."
            )
        else:
            summary = (
                f"{rallier} failed to rally {name} (needing more than {p['target']}): "
                f"it stays {p['confidence_after']}."
            )
        log(rows, event, summary + dice_text(p["dice"]))

    @Projection.handles("battles.UnitsRegrouped")
    def units_regrouped(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        merged = rows.get(Unit, p["merged_unit_id"])
        if unit is None or merged is None:
            return
        key = participant_key(p["battle_id"], p["unit_id"])
        if rows.get(Participant, key) is not None:
            # The regrouped unit is a new unit (P.17): its fatigue, and so the level a rally can
            # take it back to (P.19), are those of the merger.
            rows.update(
                Participant,
                key,
                confidence=p["confidence"],
                fatigue=p["fatigue"],
                starting_confidence=Fatigue[p["fatigue"].upper()].starting_confidence.name.lower(),
            )
        merged_key = participant_key(p["battle_id"], p["merged_unit_id"])
        if rows.get(Participant, merged_key) is not None:
            rows.update(Participant, merged_key, status=Participant.Status.WITHDRAWN.value)
        joining = [rows.get(Trooper, trooper_id) for trooper_id in p["trooper_ids"]]
        names = [trooper["name"] for trooper in joining if trooper is not None]
        log(
            rows,
            event,
            f"{merged['name']} regrouped into {unit['name']} ({', '.join(names)} joined): "
            f"{p['strength']} strong, {label(p['quality'])}, leadership {p['leadership']}, "
            f"{p['confidence']} (from {p['confidence_before']} and "
            f"{p['merged_confidence_before']}).",
        )

    @Projection.handles("battles.RegroupsSettled")
    def regroups_settled(rows: Rows, event: StoredEvent) -> None:
        """A dissolved merger gives the joined unit back the fatigue it fought at, and the
        merged unit's participant the end its men met with the unit they joined, for the
        after-action (P.61); one log line per regroup."""
        p = event.payload
        decided = (
            "as the umpire decided"
            if p["regroup_persists"] == "umpire"
            else f"option regroup_persists = {p['regroup_persists']}"
        )
        for index, settled in enumerate(p["regroups"]):
            unit = unit_name(rows, settled["unit_id"])
            merged = unit_name(rows, settled["merged_unit_id"])
            if settled["persists"]:
                log(
                    rows,
                    event,
                    f"{merged} stays regrouped into {unit} after the battle ({decided}).",
                    n=index,
                )
                continue
            restored = settled["restored"]
            key = participant_key(p["battle_id"], settled["unit_id"])
            if restored is not None and rows.get(Participant, key) is not None:
                rows.update(
                    Participant,
                    key,
                    fatigue=restored["fatigue_in_battle"],
                    starting_confidence=restored["starting_confidence"],
                )
            merged_key = participant_key(p["battle_id"], settled["merged_unit_id"])
            if rows.get(Participant, merged_key) is not None:
                rows.update(Participant, merged_key, status=settled["merged_unit_ended"])
            men = [r["trooper_id"] for r in settled["returned"]]
            back = f": {trooper_names(rows, men)} went back to {merged}" if men else ""
            log(
                rows,
                event,
                f"The regrouping of {merged} into {unit} was dissolved as the battle ended "
                f"({decided}){back}.",
                n=index,
            )
