"""Surrender (SG2 P.53): a unit's living troopers on the table are taken prisoner."""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.casualties.events import CapturedTrooper, UnitSurrendered
from battles.casualties.state import FIGURE_STATE, status_of
from eventlog.errors import CommandError
from rosters.vocabulary import TrooperStatus
from rules.dice import DiceSource
from rules.sg2 import casualties as rules
from rules.sg2.casualties import FigureState
from rules.sg2.morale import escort_guards_needed


class SurrenderParams(Params):
    unit_id: uuid.UUID
    prisoners_taken_by: str | None = Field(
        default=None, max_length=100, description="The side that takes the prisoners."
    )


@battle_action
class Surrender(BattleAction):
    """A unit surrenders: its living troopers on the table are captured (SG2 P.53)."""

    action = "surrender"
    Params = SurrenderParams

    def check_action(self, ctx: BattleContext, params: SurrenderParams) -> None:
        participant = ctx.participant(params.unit_id)
        captor = params.prisoners_taken_by
        if captor is not None and (captor not in ctx.sides or captor == participant.side):
            raise CommandError(
                "surrender.bad_captor",
                f"Prisoners are taken by the other side: {captor!r} is not it.",
                field="prisoners_taken_by",
            )

    def resolve(self, ctx: BattleContext, params: SurrenderParams, dice: DiceSource) -> list[Any]:
        participant = ctx.participant(params.unit_id)
        captured = []
        for trooper in ctx.troopers(params.unit_id):
            status = status_of(trooper)
            if status is TrooperStatus.DEAD or status not in FIGURE_STATE:
                continue
            # Fit, wounded and stabilised men alike are taken (P.53, P.42).
            rules.transition(FIGURE_STATE[status], FigureState.CAPTURED)
            captured.append(CapturedTrooper(trooper_id=trooper.id, status_before=status))
        return [
            UnitSurrendered(
                battle_id=ctx.battle.id,
                unit_id=params.unit_id,
                turn=ctx.battle.turn,
                side=participant.side,
                prisoners_taken_by=params.prisoners_taken_by,
                captured=captured,
                escort_guards=escort_guards_needed(len(captured)),
            )
        ]
