"""Morale in battle: confidence tests (SG2 P.20-21), reaction tests (P.21), rallying and
regrouping (P.17)."""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import Field, model_validator

from battles.actions import BattleAction, BattleContext, Params, battle_action, dice_json
from battles.models import Battle, Participant
from battles.projections import dice_text, label, log, participant_key, unit_name
from campaigns.events import DieRoll
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Trooper, Unit
from rosters.projections import service_record, unit_history
from rosters.vocabulary import TrooperStatus
from rules.dice import DiceSource, Die
from rules.rulesets import Ruleset
from rules.sg2.command import CommandLevel, RegroupingUnit, rally, rally_ceiling, regroup
from rules.sg2.morale import (
    REACTION_THREAT_LEVELS,
    ConfidenceCircumstance,
    ReactionCircumstance,
    confidence_test_for_event,
    reaction_test,
)
from rules.sg2.scales import Confidence, Fatigue, MissionMotivation
from rules.sg2.scales import Quality as SG2Quality


@event_type("battles.ConfidenceTested", stream="battle")
class ConfidenceTested(EventPayload):
    """A unit took a confidence test (SG2 P.20), or an event called for none."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    circumstances: list[str]
    threat_level: int | None
    passed: bool | None
    confidence_before: str
    confidence_after: str
    dice: list[DieRoll] = Field(default_factory=list)


def unit_morale(ctx: BattleContext, participant: Participant) -> tuple[Unit, SG2Quality, int]:
    unit = ctx.unit(participant.unit_id)
    return unit, SG2Quality[unit.quality.upper()], unit.leadership or 3


class ConfidenceTestParams(Params):
    unit_id: uuid.UUID
    circumstances: list[ConfidenceCircumstance]
    untreated_casualties: int = 0


@battle_action
class ConfidenceTest(BattleAction):
    """A confidence test for one event, at the threat level the P.20 table gives."""

    action = "confidence_test"
    Params = ConfidenceTestParams

    def check_action(self, ctx: BattleContext, params: ConfidenceTestParams) -> None:
        ctx.require_ruleset(Ruleset.SG2, "The confidence test")
        ctx.participant(params.unit_id)
        if not params.circumstances:
            raise CommandError(
                "action.invalid", "Say what calls for the test.", field="circumstances"
            )

    def resolve(
        self, ctx: BattleContext, params: ConfidenceTestParams, dice: DiceSource
    ) -> list[Any]:
        participant = ctx.participant(params.unit_id)
        unit, quality, leadership = unit_morale(ctx, participant)
        before = Confidence[participant.confidence.upper()]
        outcome = confidence_test_for_event(
            dice=dice,
            quality=quality,
            leadership=leadership,
            confidence=before,
            motivation=MissionMotivation[participant.mission_motivation.upper()],
            circumstances=params.circumstances,
            untreated_casualties=params.untreated_casualties,
            artillery_attack_alone_triggers_test=ctx.options.artillery_attack_alone_triggers_test,
        )
        return [
            ConfidenceTested(
                battle_id=ctx.battle.id,
                unit_id=unit.id,
                turn=ctx.battle.turn,
                circumstances=[c.value for c in params.circumstances],
                threat_level=outcome.threat_level,
                passed=outcome.test.passed if outcome.test else None,
                confidence_before=before.name.lower(),
                confidence_after=outcome.confidence_after.name.lower(),
                dice=dice_json(outcome.rolls),
            )
        ]


# --- Reaction tests (P.21) ------------------------------------------------------------------------


@event_type("battles.ReactionTested", stream="battle")
class ReactionTested(EventPayload):
    """A unit took a reaction test (SG2 P.21): whether it carries out the order. A failure
    never changes its confidence; the action is simply not carried out."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    circumstance: str | None
    threat_level: int
    target: int
    passed: bool
    dice: list[DieRoll] = Field(default_factory=list)


class ReactionTestParams(Params):
    unit_id: uuid.UUID
    circumstance: ReactionCircumstance | None = Field(
        default=None, description="A circumstance of the P.21 table, which gives the threat level."
    )
    threat_level: int | None = Field(
        default=None,
        ge=0,
        le=12,
        description="The umpire's threat level for a circumstance the table does not list "
        "(close assault P.41, final defensive fire P.43 and so on).",
    )

    @model_validator(mode="after")
    def _one_threat(self) -> ReactionTestParams:
        if (self.circumstance is None) == (self.threat_level is None):
            raise ValueError("give the circumstance or the threat level: one of them")
        return self


@battle_action
class ReactionTest(BattleAction):
    """A reaction test (SG2 P.21): the unit's quality die must beat LV + TL. Mission motivation
    does not change reaction threat levels. Dice: the quality die."""

    action = "reaction_test"
    Params = ReactionTestParams

    def check_action(self, ctx: BattleContext, params: ReactionTestParams) -> None:
        ctx.require_ruleset(Ruleset.SG2, "The reaction test")
        ctx.participant(params.unit_id)

    def resolve(
        self, ctx: BattleContext, params: ReactionTestParams, dice: DiceSource
    ) -> list[Any]:
        participant = ctx.participant(params.unit_id)
        unit, quality, leadership = unit_morale(ctx, participant)
        threat_level = (
            REACTION_THREAT_LEVELS[params.circumstance]
            if params.circumstance is not None
            else params.threat_level
        )
        outcome = reaction_test(
            dice=dice, quality=quality, leadership=leadership, threat_level=threat_level
        )
        return [
            ReactionTested(
                battle_id=ctx.battle.id,
                unit_id=unit.id,
                turn=ctx.battle.turn,
                circumstance=params.circumstance.value if params.circumstance else None,
                threat_level=threat_level,
                target=outcome.target,
                passed=outcome.passed,
                dice=dice_json(outcome.rolls),
            )
        ]


# --- Rallying (P.17) ------------------------------------------------------------------------------


def command_level(unit: Unit) -> CommandLevel:
    # Rosters give a level to command units only; every other unit is led at squad level (P.8).
    return CommandLevel(unit.level) if unit.level is not None else CommandLevel.SQUAD


def fatigue_of(participant: Participant) -> Fatigue:
    """The fatigue behind the confidence a unit started the battle at (P.19); the rally
    ceiling follows from it."""
    for fatigue in Fatigue:
        if fatigue.starting_confidence.name.lower() == participant.starting_confidence:
            return fatigue
    return Fatigue.FRESH


@event_type("battles.RallyAttempted", stream="battle")
class RallyAttempted(EventPayload):
    """A superior command unit tried to rally a unit (SG2 P.17): the communication, then the
    rallied unit's own test against the sum of both LVs."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    rallier_unit_id: uuid.UUID
    turn: int = Field(ge=0)
    direct_contact: bool
    communicated: bool
    jammed: bool
    rallied: bool
    target: int | None
    confidence_before: str
    confidence_after: str
    dice: list[DieRoll] = Field(default_factory=list)


class RallyParams(Params):
    unit_id: uuid.UUID = Field(description="The unit rallied.")
    rallier_unit_id: uuid.UUID = Field(description="The superior command unit rallying it.")
    direct_contact: bool = Field(
        default=False, description="The rallier is within 6 inches: no communication roll."
    )
    jamming_die: Literal[6, 8, 10, 12] | None = Field(
        default=None, description="The enemy EW die, if the enemy jams the communication (P.52)."
    )


@battle_action
class Rally(BattleAction):
    """A superior command unit's leader rallies a unit (SG2 P.17): a communication roll unless in
    direct contact, then the rallied unit's quality die must beat the sum of both LVs. Success
    raises its confidence one level, never above the level its fatigue started it at (P.19).

    Dice: the communication die (and the jamming die), then the rally die.
    """

    action = "rally"
    Params = RallyParams

    def check_action(self, ctx: BattleContext, params: RallyParams) -> None:
        ctx.require_ruleset(Ruleset.SG2, "Rallying")
        if params.direct_contact and params.jamming_die is not None:
            raise CommandError(
                "action.invalid",
                "Units in direct contact talk face to face: there is no radio to jam.",
                field="jamming_die",
            )
        rallied = ctx.participant(params.unit_id)
        rallier = ctx.participant(params.rallier_unit_id, field="rallier_unit_id")
        if rallier.side != rallied.side:
            raise RuleViolation(
                "rally.other_side", "A unit is rallied by its own side.", field="rallier_unit_id"
            )
        if command_level(ctx.unit(rallier.unit_id)) <= command_level(ctx.unit(rallied.unit_id)):
            raise RuleViolation(
                "rally.not_superior",
                "Only a superior command unit can rally a unit (P.17).",
                field="rallier_unit_id",
            )
        ceiling = rally_ceiling(fatigue_of(rallied))
        if Confidence[rallied.confidence.upper()] >= ceiling:
            raise RuleViolation(
                "rally.at_ceiling",
                f"The unit is {rallied.confidence} and started the battle "
                f"{ceiling.name.lower()}: a rally cannot take it higher (P.19).",
                field="unit_id",
            )

    def resolve(self, ctx: BattleContext, params: RallyParams, dice: DiceSource) -> list[Any]:
        rallied = ctx.participant(params.unit_id)
        rallier = ctx.participant(params.rallier_unit_id, field="rallier_unit_id")
        unit, quality, leadership = unit_morale(ctx, rallied)
        rallier_unit, rallier_quality, rallier_leadership = unit_morale(ctx, rallier)
        outcome = rally(
            dice=dice,
            rallied_quality=quality,
            rallied_leadership=leadership,
            rallied_confidence=Confidence[rallied.confidence.upper()],
            rallied_level=command_level(unit),
            rallier_quality=rallier_quality,
            rallier_leadership=rallier_leadership,
            rallier_level=command_level(rallier_unit),
            rallied_fatigue=fatigue_of(rallied),
            direct_contact=params.direct_contact,
            jamming_die=Die(params.jamming_die) if params.jamming_die else None,
        )
        return [
            RallyAttempted(
                battle_id=ctx.battle.id,
                unit_id=unit.id,
                rallier_unit_id=rallier_unit.id,
                turn=ctx.battle.turn,
                direct_contact=params.direct_contact,
                communicated=outcome.communication.success,
                jammed=outcome.communication.jammed,
                rallied=outcome.rallied,
                target=outcome.target,
                confidence_before=outcome.confidence_before.name.lower(),
                confidence_after=outcome.confidence_after.name.lower(),
                dice=dice_json(outcome.rolls),
            )
        ]


# --- Regrouping (P.17) ----------------------------------------------------------------------------


@event_type("battles.UnitsRegrouped", stream="battle")
class UnitsRegrouped(EventPayload):
    """Two depleted units regrouped into one in battle (SG2 P.17): ``merged_unit_id``'s men
    joined ``unit_id``, which takes the better LV, the larger unit's quality and the average
    confidence rounded up; the merged unit leaves the battle as a unit of its own."""

    battle_id: uuid.UUID
    turn: int = Field(ge=0)
    unit_id: uuid.UUID
    merged_unit_id: uuid.UUID
    trooper_ids: list[uuid.UUID] = Field(min_length=1)
    strength: int
    quality: str
    leadership: int
    fatigue: str
    confidence_before: str
    merged_confidence_before: str
    confidence: str
    dice: list[DieRoll] = Field(default_factory=list)


class RegroupParams(Params):
    unit_id: uuid.UUID = Field(description="The unit joined: the regrouped unit keeps its name.")
    other_unit_id: uuid.UUID = Field(description="The unit that joins it.")


def _present(ctx: BattleContext, unit_id: uuid.UUID) -> list[Trooper]:
    return [t for t in ctx.troopers(unit_id) if TrooperStatus(t.status).is_present]


@battle_action
class Regroup(BattleAction):
    """Two depleted units of a side regroup into one (SG2 P.17; no dice). The options
    ``regroup_quality_tie`` and ``regroup_fatigue`` settle what the book leaves open."""

    action = "regroup"
    Params = RegroupParams

    def check_action(self, ctx: BattleContext, params: RegroupParams) -> None:
        ctx.require_ruleset(Ruleset.SG2, "Regrouping")
        self._parts(ctx, params)

    def _parts(self, ctx: BattleContext, params: RegroupParams):
        if params.unit_id == params.other_unit_id:
            raise CommandError(
                "regroup.same_unit", "A unit cannot regroup with itself.", field="other_unit_id"
            )
        parts = [
            ctx.participant(params.unit_id),
            ctx.participant(params.other_unit_id, field="other_unit_id"),
        ]
        if parts[0].side != parts[1].side:
            raise RuleViolation(
                "regroup.other_side",
                "Only units of the same side can regroup.",
                field="other_unit_id",
            )
        members = []
        for participant, field in zip(parts, ("unit_id", "other_unit_id"), strict=True):
            unit = ctx.unit(participant.unit_id)
            present = _present(ctx, unit.id)
            if not present:
                raise StateConflict(
                    "regroup.empty", f"{unit.name} has nobody left to regroup.", field=field
                )
            if len(present) >= unit.toe_strength:
                raise StateConflict(
                    "regroup.not_depleted",
                    f"{unit.name} is at full strength; only depleted units regroup (P.17).",
                    field=field,
                )
            members.append((participant, unit, present))
        return members

    def resolve(self, ctx: BattleContext, params: RegroupParams, dice: DiceSource) -> list[Any]:
        parts = self._parts(ctx, params)
        outcome = regroup(
            units=[
                RegroupingUnit(
                    strength=len(present),
                    quality=SG2Quality[unit.quality.upper()],
                    leadership=unit.leadership or 3,
                    confidence=Confidence[participant.confidence.upper()],
                    fatigue=(
                        Fatigue[participant.fatigue.upper()]
                        if participant.fatigue
                        else fatigue_of(participant)
                    ),
                )
                for participant, unit, present in parts
            ],
            regroup_quality_tie=ctx.options.regroup_quality_tie.value,
            regroup_fatigue=ctx.options.regroup_fatigue.value,
        )
        (kept, unit, _), (merged, other, joining) = parts
        return [
            UnitsRegrouped(
                battle_id=ctx.battle.id,
                turn=ctx.battle.turn,
                unit_id=unit.id,
                merged_unit_id=other.id,
                trooper_ids=[t.id for t in joining],
                strength=outcome.strength,
                quality=outcome.quality.name.lower(),
                leadership=outcome.leadership,
                fatigue=outcome.fatigue.name.lower(),
                confidence_before=kept.confidence,
                merged_confidence_before=merged.confidence,
                confidence=outcome.confidence.name.lower(),
            )
        ]


def _next_order(rows: Rows, unit_id: Any) -> int:
    return max((m["order"] for m in rows.find(Trooper, unit_id=unit_id)), default=-1) + 1


@register
class MoraleProjection(Projection):
    """Confidence, regrouped units and the log lines of morale actions (rows of the battles and
    rosters projections)."""

    name = "battles.morale"

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
        battle = rows.get(Battle, p["battle_id"])
        where = battle["name"] if battle else "battle"
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
        rows.update(
            Unit,
            p["unit_id"],
            quality=p["quality"],
            leadership=p["leadership"],
            fatigue=p["fatigue"],
        )
        order = _next_order(rows, unit["id"])
        names = []
        for offset, trooper_id in enumerate(p["trooper_ids"]):
            trooper = rows.get(Trooper, trooper_id)
            if trooper is None:
                continue
            names.append(trooper["name"])
            rows.update(Trooper, trooper_id, unit_id=unit["id"], order=order + offset)
            service_record(
                rows,
                event,
                trooper_id,
                f"Regrouped from {merged['name']} into {unit['name']} in {where}.",
                battle_id=p["battle_id"],
            )
        joined = len(p["trooper_ids"])
        unit_history(
            rows,
            event,
            unit["id"],
            f"Regrouped with {merged['name']} in {where} ({joined} joined): now "
            f"{label(p['quality'])}, leadership {p['leadership']}, {p['fatigue']}, "
            f"{p['confidence']}.",
            {
                "quality": [unit["quality"], p["quality"]],
                "leadership": [unit["leadership"], p["leadership"]],
                "fatigue": [unit["fatigue"], p["fatigue"]],
                "strength": joined,
            },
            battle_id=p["battle_id"],
        )
        unit_history(
            rows,
            event,
            merged["id"],
            f"Regrouped into {unit['name']} in {where}: {', '.join(names)} joined it.",
            {"strength": -joined},
            battle_id=p["battle_id"],
        )
        log(
            rows,
            event,
            f"{merged['name']} regrouped into {unit['name']} ({', '.join(names)} joined): "
            f"{p['strength']} strong, {label(p['quality'])}, leadership {p['leadership']}, "
            f"{p['confidence']} (from {p['confidence_before']} and "
            f"{p['merged_confidence_before']}).",
        )
