"""Morale in battle: confidence tests (SG2 P.20-21)."""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action, dice_json
from battles.models import Participant
from battles.projections import dice_text, label, log, participant_key, unit_name
from campaigns.events import DieRoll
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Unit
from rules.dice import DiceSource
from rules.rulesets import Ruleset
from rules.sg2.morale import ConfidenceCircumstance, confidence_test_for_event
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

    name = "confidence_test"
    Params = ConfidenceTestParams

    def check(self, ctx: BattleContext, params: ConfidenceTestParams) -> None:
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


@register
class MoraleProjection(Projection):
    """Confidence and the log lines of morale actions (rows of the battles projection)."""

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
