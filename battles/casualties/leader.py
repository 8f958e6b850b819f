"""The loss of a unit's leader (SG2 P.10 LOSS OF UNIT LEADER): his wound or death, the
unit's suppression and confidence test, and the successor's leadership."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.casualties.events import LeaderCasualtyResolved, TrooperCasualty
from battles.casualties.state import (
    DOWN,
    ROSTER_STATUS,
    acting_leader,
    figure_of,
    member,
    status_of,
    trooper_casualty,
)
from battles.models import Participant
from campaigns.events import dice_json
from eventlog.errors import CommandError, StateConflict
from rosters.models import Trooper, Unit
from rosters.vocabulary import TrooperRole, TrooperStatus
from rosters.wording import label
from rules.dice import DiceSource, Roll
from rules.sg2 import casualties as rules
from rules.sg2.casualties import FigureCasualty, FigureState
from rules.sg2.command import loss_of_unit_leader
from rules.sg2.morale import ConfidenceCircumstance
from rules.sg2.options import Environment
from rules.sg2.scales import Confidence, MissionMotivation
from rules.sg2.scales import Quality as SG2Quality


class LeaderCasualtyParams(Params):
    unit_id: uuid.UUID
    result: Literal["wounded", "killed"] | None = Field(
        default=None,
        description="What became of the leader; leave out if he already fell (to a casualties "
        "or vehicle_hit action) and only the loss of his command is to be resolved.",
    )
    successor_id: uuid.UUID | None = Field(
        default=None,
        description="Who takes over; default the next in seniority: the second in command, "
        "then roster order, among fit troopers.",
    )
    other_circumstances: list[ConfidenceCircumstance] = Field(
        default_factory=list,
        description="Whatever else the same event caused, for the one confidence test (P.20), "
        "e.g. casualties_from_fire. Untreated casualties are counted from the roster.",
    )


def _seniority(troopers: Sequence[Trooper]) -> list[Trooper]:
    seconds = [t for t in troopers if t.role == TrooperRole.SECOND_IN_COMMAND]
    return seconds + [t for t in troopers if t.role != TrooperRole.SECOND_IN_COMMAND]


def _require_leader_state(leader: Trooper, params: LeaderCasualtyParams) -> None:
    """The leader is fit and his fate is given, or already down and it is not."""
    status = status_of(leader)
    if status is TrooperStatus.FIT and params.result is None:
        raise CommandError(
            "action.invalid",
            f"{leader.name} is fit: say whether he was wounded or killed.",
            field="result",
        )
    if status in (TrooperStatus.WOUNDED, TrooperStatus.STABILISED, TrooperStatus.DEAD):
        if params.result is not None:
            raise StateConflict(
                "leader.already_down",
                f"{leader.name} is already {label(status)}: leave result out to resolve "
                "the loss of his command.",
                field="result",
            )
    elif status is not TrooperStatus.FIT:
        raise StateConflict(
            "leader.not_on_table",
            f"{leader.name} is {label(status)} and not leading the unit.",
            field="unit_id",
        )


def _successor(
    troopers: Sequence[Trooper], leader: Trooper, params: LeaderCasualtyParams
) -> Trooper:
    """The trooper named to take over, or the next fit one in seniority."""
    if params.successor_id is not None:
        successor = member(troopers, params.successor_id, "successor_id")
        if successor.id == leader.id:
            raise CommandError(
                "leader.successor_is_leader",
                "The fallen leader cannot succeed himself.",
                field="successor_id",
            )
        if status_of(successor) is not TrooperStatus.FIT:
            raise StateConflict(
                "leader.successor_unfit",
                f"{successor.name} is {label(successor.status)}: only a fit trooper can "
                "take command.",
                field="successor_id",
            )
        return successor
    next_in_line = next(
        (
            t
            for t in _seniority(troopers)
            if t.id != leader.id and status_of(t) is TrooperStatus.FIT
        ),
        None,
    )
    if next_in_line is None:
        raise StateConflict(
            "leader.no_successor",
            "No fit trooper is left to take command: record the leader's fate with "
            "the casualties action.",
            field="unit_id",
        )
    return next_in_line


def _leader_falls(
    leader: Trooper, params: LeaderCasualtyParams, dice: DiceSource, environment: Environment
) -> tuple[TrooperCasualty | None, FigureState, list[Roll]]:
    """The leader's casualty if this action makes him one, his figure's state, and the P.40
    die a power-armoured leader rolls at once, before anything else happens."""
    figure = figure_of(leader)
    if params.result is None:
        return None, figure.state, []
    wounds, kills = (0, 1) if params.result == "killed" else (1, 0)
    # P.57: in a vacuum the leader's wound is a kill too.
    after = rules.state_after_hits(
        figure.state, wounds=wounds, kills=kills, environment=environment
    )
    changes = [FigureCasualty(figure.id, figure.state, after, wounds, kills)]
    rolls = list(rules.settle_power_armour(dice, [figure], changes))
    return trooper_casualty(leader, changes[0], rolls), changes[0].after, rolls


@battle_action
class LeaderCasualty(BattleAction):
    """The unit's leader becomes a casualty (SG2 P.10 LOSS OF UNIT LEADER)."""

    action = "leader_casualty"
    Params = LeaderCasualtyParams

    def _state(
        self, ctx: BattleContext, params: LeaderCasualtyParams
    ) -> tuple[Participant, list[Trooper], Trooper, Trooper]:
        participant = ctx.participant(params.unit_id)
        troopers = ctx.troopers(params.unit_id)
        leader = acting_leader(ctx, params.unit_id, troopers)
        if leader is None:
            raise StateConflict("leader.none", "The unit has no leader to lose.", field="unit_id")
        _require_leader_state(leader, params)
        successor = _successor(troopers, leader, params)
        if not participant.confidence:
            raise StateConflict(
                "leader.no_confidence",
                "The unit has no confidence level to test.",
                field="unit_id",
            )
        if ConfidenceCircumstance.UNTREATED_CASUALTY in params.other_circumstances:
            raise CommandError(
                "action.invalid",
                "Untreated casualties are counted from the roster; leave them out.",
                field="other_circumstances",
            )
        return participant, troopers, leader, successor

    def check_action(self, ctx: BattleContext, params: LeaderCasualtyParams) -> None:
        self._state(ctx, params)

    def resolve(
        self, ctx: BattleContext, params: LeaderCasualtyParams, dice: DiceSource
    ) -> list[Any]:
        participant, troopers, leader, successor = self._state(ctx, params)
        unit = ctx.unit(params.unit_id)
        casualty, leader_state, rolls = _leader_falls(leader, params, dice, ctx.options.environment)
        leader_status = ROSTER_STATUS[leader_state]
        untreated = sum(
            1
            for t in troopers
            if (leader_status if t.id == leader.id else status_of(t)) is TrooperStatus.WOUNDED
        )
        leadership = unit.leadership or 3
        confidence = Confidence[participant.confidence.upper()]
        lost = leader_state in DOWN
        circumstances = [ConfidenceCircumstance.LEADER_CASUALTY, *params.other_circumstances]
        event = {
            "battle_id": ctx.battle.id,
            "unit_id": unit.id,
            "turn": ctx.battle.turn,
            "leader_id": leader.id,
            "leader_status": leader_status,
            "casualty": casualty,
            "lost": lost,
            "leadership_before": leadership,
            "suppression_before": participant.suppression,
            "circumstances": list(dict.fromkeys(c.value for c in circumstances)),
            "untreated_casualties": untreated,
            "confidence_before": confidence.name.lower(),
        }
        if not lost:
            # The suit put him back in action, or left him unhurt: he is no casualty (P.40).
            return [
                LeaderCasualtyResolved(
                    **event,
                    successor_id=None,
                    leadership_after=leadership,
                    suppression_after=participant.suppression,
                    threat_level=None,
                    passed=None,
                    confidence_after=confidence.name.lower(),
                    dice=dice_json(rolls),
                )
            ]
        return [self._loss(ctx, params, participant, unit, event, successor, rolls, dice)]

    @staticmethod
    def _loss(
        ctx: BattleContext,
        params: LeaderCasualtyParams,
        participant: Participant,
        unit: Unit,
        event: dict[str, Any],
        successor: Trooper,
        rolls: list[Roll],
        dice: DiceSource,
    ) -> LeaderCasualtyResolved:
        """The loss of his command: suppression, the confidence test and the successor's LV."""
        outcome = loss_of_unit_leader(
            dice=dice,
            quality=SG2Quality[unit.quality.upper()],
            leadership=event["leadership_before"],
            confidence=Confidence[event["confidence_before"].upper()],
            motivation=MissionMotivation[participant.mission_motivation.upper()],
            suppression_markers=participant.suppression,
            other_circumstances=params.other_circumstances,
            untreated_casualties=event["untreated_casualties"],
            artillery_attack_alone_triggers_test=ctx.options.artillery_attack_alone_triggers_test,
        )
        test = outcome.confidence_test
        return LeaderCasualtyResolved(
            **event,
            successor_id=successor.id,
            leadership_after=outcome.leadership,
            suppression_after=outcome.suppression_markers,
            threat_level=test.threat_level,
            passed=test.test.passed if test.test else None,
            confidence_after=outcome.confidence_after.name.lower(),
            dice=dice_json([*rolls, *outcome.rolls]),
        )
