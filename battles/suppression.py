"""Removing suppression markers (SG2 P.18): the unit leader's actions, one quality die each.

The rules are :mod:`rules.sg2.suppression`. Markers are placed by the actions that cause them
(``direct_fire``, ``leader_casualty``, ``vehicle_hit`` with the option
``non_penetrating_hit_suppresses``) and counted on the participant; this action takes them off
and tells the battle log what the unit may do meanwhile.
"""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.models import Participant
from battles.morale.confidence import unit_morale
from battles.projections import dice_text, log, participant_key, unit_name
from campaigns.events import DieRoll, dice_json
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import StateConflict
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Unit
from rules.dice import DiceSource
from rules.sg2.suppression import (
    ACTIONS_PER_ACTIVATION,
    remove_suppression,
    suppressed_may,
)

# A unit of its own with a vehicle: a suppression marker on it is the vehicle's (P.18).
VEHICLE_UNIT_KIND = "vehicle_crew"


def is_vehicle_unit(unit: Unit) -> bool:
    return unit.kind == VEHICLE_UNIT_KIND


def markers_text(markers: int) -> str:
    if markers == 0:
        return "no suppression marker"
    return f"{markers} suppression marker{'s' if markers != 1 else ''}"


def suppressed_may_text(*, vehicle: bool) -> str:
    """What a suppressed unit may still do, in words (P.18)."""
    if vehicle:
        return "it may move and fire, but nobody may leave it nor fire an external weapon"
    return (
        "until they are removed it may only defend itself in close combat, reorganise in "
        "cover, observe, communicate and try to remove suppression"
    )


@event_type("battles.SuppressionRemovalAttempted", stream="battle")
class SuppressionRemovalAttempted(EventPayload):
    """A unit's leader spent actions trying to remove its suppression markers (SG2 P.18): one
    quality die per action, each above his leadership value removing one marker."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    quality_die: int
    leadership: int = Field(description="The leader's LV: a quality die above it succeeds.")
    actions: int = Field(ge=1, le=2, description="The actions the leader was ready to spend.")
    actions_spent: int = Field(ge=1, le=2)
    removed: list[bool] = Field(description="Each action's roll: whether it removed a marker.")
    suppression_before: int = Field(ge=1, le=3)
    suppression_after: int = Field(ge=0, le=3)
    vehicle: bool = Field(description="The unit is a vehicle (P.18: its commander's action).")
    dice: list[DieRoll] = Field(default_factory=list)


class RemoveSuppressionParams(Params):
    unit_id: uuid.UUID = Field(description="The suppressed unit (or vehicle crew).")
    actions: int = Field(
        default=1,
        ge=1,
        le=ACTIONS_PER_ACTIVATION,
        description="How many of the leader's two actions (P.15) he will spend: one roll each, "
        "stopping when no marker is left; a failed first roll may be tried again with the "
        "second action (P.18).",
    )


@battle_action
class RemoveSuppression(BattleAction):
    """The unit is activated and its leader (a vehicle's commander) spends actions to remove
    suppression markers (SG2 P.18): per action, the unit's quality die must score more than
    the leader's LV to remove one marker. Up to two actions (P.15); both spent, the unit may do
    nothing else this turn.

    Dice: one quality die per action spent.
    """

    action = "remove_suppression"
    Params = RemoveSuppressionParams

    def check_action(self, ctx: BattleContext, params: RemoveSuppressionParams) -> None:
        participant = ctx.participant(params.unit_id)
        if participant.suppression == 0:
            raise StateConflict(
                "suppression.none",
                f"{ctx.unit(participant.unit_id).name} is not suppressed: it has no marker "
                "to remove (P.18).",
                field="unit_id",
            )

    def resolve(
        self, ctx: BattleContext, params: RemoveSuppressionParams, dice: DiceSource
    ) -> list[Any]:
        participant = ctx.participant(params.unit_id)
        unit, quality, leadership = unit_morale(ctx, participant)
        outcome = remove_suppression(
            dice=dice,
            quality=quality,
            leadership=leadership,
            markers=participant.suppression,
            actions=params.actions,
        )
        return [
            SuppressionRemovalAttempted(
                battle_id=ctx.battle.id,
                unit_id=unit.id,
                turn=ctx.battle.turn,
                quality_die=quality.die.value,
                leadership=outcome.target,
                actions=params.actions,
                actions_spent=outcome.actions_spent,
                removed=[attempt.removed for attempt in outcome.attempts],
                suppression_before=outcome.markers_before,
                suppression_after=outcome.markers_after,
                vehicle=is_vehicle_unit(unit),
                dice=dice_json(outcome.rolls),
            )
        ]


def suppression_effects(markers: int, *, vehicle: bool) -> list[str]:
    """What a unit with ``markers`` may still do (P.18), for the battle's participants: empty
    when it is not suppressed."""
    if markers == 0:
        return []
    return [action.value for action in suppressed_may(vehicle=vehicle)]


@register
class SuppressionProjection(Projection):
    """The markers a removal leaves on the participant, and its line in the battle log (rows of
    the battles projection)."""

    name = "battles.suppression"
    version = 1

    @Projection.handles("battles.SuppressionRemovalAttempted")
    def removal_attempted(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        key = participant_key(p["battle_id"], p["unit_id"])
        if rows.get(Participant, key) is not None:
            rows.update(Participant, key, suppression=p["suppression_after"])
        name = unit_name(rows, p["unit_id"])
        who = "commander" if p["vehicle"] else "leader"
        faces = [d["result"] for d in p["dice"]]
        tries = ", then ".join(
            f"{face} {'removed a marker' if removed else 'failed'}"
            for face, removed in zip(faces, p["removed"], strict=True)
        )
        spent = "one action" if p["actions_spent"] == 1 else "both actions"
        after = p["suppression_after"]
        if after:
            left = f"{markers_text(after)} left: {suppressed_may_text(vehicle=p['vehicle'])}"
        elif p["actions_spent"] == 1:
            left = "no marker left: the unit may act again"
        else:
            left = "no marker left: the unit may act again from its next activation"
        log(
            rows,
            event,
            f"{name}'s {who} spent {spent} trying to remove suppression (d{p['quality_die']} "
            f"above {p['leadership']}): {tries}; {left}.{dice_text(p['dice'])}",
        )
