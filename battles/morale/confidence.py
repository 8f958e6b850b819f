"""Confidence tests (SG2 P.20-21) and reaction tests (P.21)."""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import Field, model_validator

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.models import Participant
from campaigns.events import DieRoll, dice_json
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError
from rosters.models import Unit
from rules.dice import DiceSource
from rules.sg2.morale import (
    REACTION_THREAT_LEVELS,
    ConfidenceCircumstance,
    ReactionCircumstance,
    confidence_test_for_event,
    confidence_threat_level,
    reaction_test,
)
from rules.sg2.scales import Confidence, MissionMotivation
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


def test_called_for(
    ctx: BattleContext, participant: Participant, circumstances: list[ConfidenceCircumstance]
) -> list[str]:
    """The circumstances of an event that call for the unit's confidence test, or none when the
    P.20 table gives no test at the unit's mission motivation (NTR; being under artillery or
    aerospace attack alone only with the option ``artillery_attack_alone_triggers_test``)."""
    level = confidence_threat_level(
        motivation=MissionMotivation[participant.mission_motivation.upper()],
        circumstances=circumstances,
        artillery_attack_alone_triggers_test=ctx.options.artillery_attack_alone_triggers_test,
    )
    return [c.value for c in circumstances] if level is not None else []


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
        ctx.participant(params.unit_id)

    def resolve(
        self, ctx: BattleContext, params: ReactionTestParams, dice: DiceSource
    ) -> list[Any]:
        participant = ctx.participant(params.unit_id)
        unit, quality, leadership = unit_morale(ctx, participant)
        if params.circumstance is not None:
            threat_level = REACTION_THREAT_LEVELS[params.circumstance]
        else:
            assert params.threat_level is not None  # the params give one or the other
            threat_level = params.threat_level
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
