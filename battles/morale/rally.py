"""Rallying and regrouping (SG2 P.17)."""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.models import Participant
from battles.morale.confidence import unit_morale
from battles.regroups import JoinedUnitBefore
from campaigns.events import DieRoll, dice_json
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, RuleViolation, StateConflict
from rosters.models import Trooper, Unit
from rosters.vocabulary import TrooperStatus
from rules.dice import DiceSource, Die
from rules.sg2.command import CommandLevel, RegroupingUnit, rally, rally_ceiling, regroup
from rules.sg2.scales import Confidence, Fatigue
from rules.sg2.scales import Quality as SG2Quality


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


def _v1_to_v2(payload: dict[str, Any]) -> dict[str, Any]:
    # Regroups recorded before the merger could be dissolved kept no record of what it replaced.
    return {**payload, "joined_before": None, "trooper_orders": None}


@event_type("battles.UnitsRegrouped", stream="battle", version=2, upcasters={1: _v1_to_v2})
class UnitsRegrouped(EventPayload):
    """Two depleted units regrouped into one in battle (SG2 P.17): ``merged_unit_id``'s men
    joined ``unit_id``, which takes the better LV, the larger unit's quality and the average
    confidence rounded up; the merged unit leaves the battle as a unit of its own.

    Version 2 adds what the merger replaced (``joined_before``, ``trooper_orders``), so the end
    of the battle can hand each man back to his own unit (option ``regroup_persists``)."""

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
    joined_before: JoinedUnitBefore | None = Field(
        default=None, description="The joined unit before the regroup (None before version 2)."
    )
    trooper_orders: list[int] | None = Field(
        default=None,
        description="Each joining trooper's place on his own unit's roll, as ``trooper_ids`` "
        "lists them (None before version 2).",
    )


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
                joined_before=JoinedUnitBefore(
                    quality=unit.quality,
                    leadership=unit.leadership,
                    fatigue=unit.fatigue,
                    fatigue_in_battle=kept.fatigue,
                    starting_confidence=kept.starting_confidence,
                ),
                trooper_orders=[t.order for t in joining],
            )
        ]
