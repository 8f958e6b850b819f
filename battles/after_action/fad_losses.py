"""Losses in a Fast and Dirty battle, named by the umpire: the battle action ``fad_losses``.

The SG2 ``casualties`` action refuses other rulesets, and FaD has no casualty allocation of its
own: the umpire names the figures killed or wounded (p.19-20, p.35) and the vehicles damaged,
destroyed or abandoned (p.13, p.27), which the after-action steps then read.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import Field

from battles.actions import BattleAction, BattleContext, battle_action
from battles.actions import Params as ActionParams
from battles.after_action.fad_events import DamagedVehicle, FadLossesRecorded, LostFigure
from battles.models import Battle
from battles.reports.losses import reported_loss_recorder
from eventlog.errors import CommandError, StateConflict
from rosters.models import Trooper
from rosters.vocabulary import TrooperStatus, VehicleState
from rules.dice import DiceSource
from rules.rulesets import Ruleset


class NamedLoss(ActionParams):
    trooper_id: uuid.UUID
    result: Literal["killed", "wounded"] = "killed"


class VehicleLoss(ActionParams):
    vehicle_id: uuid.UUID
    condition: Literal["damaged", "destroyed", "abandoned"]


class FadLossesParams(ActionParams):
    unit_id: uuid.UUID
    casualties: list[NamedLoss] = Field(default_factory=list)
    vehicles: list[VehicleLoss] = Field(default_factory=list)


@battle_action
class FadLosses(BattleAction):
    """A unit's losses in a Fast and Dirty battle, named by the umpire; no dice. Recorded
    during the battle or after it ends, before its after-action resolution."""

    action = "fad_losses"
    rulesets = (Ruleset.FAD.value,)
    Params = FadLossesParams
    statuses = (Battle.Status.IN_PROGRESS, Battle.Status.ENDED)

    def check_action(self, ctx: BattleContext, params: FadLossesParams) -> None:
        if params.unit_id not in ctx.participants:
            raise CommandError(
                "battle.not_a_participant", "That unit did not fight this battle.", field="unit_id"
            )
        if not params.casualties and not params.vehicles:
            raise CommandError(
                "action.invalid", "Name at least one casualty or vehicle.", field="casualties"
            )
        _check_troopers(ctx, params)
        _check_vehicles(ctx, params)

    def resolve(self, ctx: BattleContext, params: FadLossesParams, dice: DiceSource) -> list[Any]:
        troopers = {t.id: t for t in ctx.troopers(params.unit_id)}
        vehicles = {v.id: v for v in ctx.vehicles(params.unit_id)}
        return [
            FadLossesRecorded(
                battle_id=ctx.battle.id,
                unit_id=params.unit_id,
                turn=ctx.battle.turn,
                troopers=[
                    LostFigure(
                        trooper_id=loss.trooper_id,
                        result=loss.result,
                        status_before=troopers[loss.trooper_id].status,
                    )
                    for loss in params.casualties
                ],
                vehicles=[
                    DamagedVehicle(
                        vehicle_id=loss.vehicle_id,
                        condition=loss.condition,
                        state_before=vehicles[loss.vehicle_id].state,
                    )
                    for loss in params.vehicles
                ],
            )
        ]


@reported_loss_recorder(Ruleset.FAD.value)
def reported_loss(
    ctx: BattleContext, trooper: Trooper, result: str, report_id: uuid.UUID
) -> FadLossesRecorded:
    """A loss from a player's battle report, decided by the umpire after the battle."""
    return FadLossesRecorded(
        battle_id=ctx.battle.id,
        unit_id=trooper.unit_id,
        turn=ctx.battle.turn,
        troopers=[
            LostFigure(
                trooper_id=trooper.id,
                result="killed" if result == "killed" else "wounded",
                status_before=trooper.status,
            )
        ],
        cause="reported",
        report_id=report_id,
    )


def _check_troopers(ctx: BattleContext, params: FadLossesParams) -> None:
    """Each named figure is the unit's, named once, and still on the table."""
    troopers = {t.id: t for t in ctx.troopers(params.unit_id)}
    seen: set[uuid.UUID] = set()
    for index, loss in enumerate(params.casualties):
        where = f"casualties.{index}.trooper_id"
        trooper = troopers.get(loss.trooper_id)
        if trooper is None:
            raise CommandError(
                "casualties.not_in_unit", "That trooper is not in the unit.", field=where
            )
        if loss.trooper_id in seen:
            raise CommandError("casualties.named_twice", "A trooper is named twice.", field=where)
        seen.add(loss.trooper_id)
        if trooper.status != TrooperStatus.FIT:
            raise StateConflict(
                "casualties.not_on_table",
                f"{trooper.name} is {trooper.status.replace('_', ' ')}, not on the table.",
                field=where,
            )


def _check_vehicles(ctx: BattleContext, params: FadLossesParams) -> None:
    """Each named vehicle is the unit's, named once, and still in action."""
    vehicles = {v.id: v for v in ctx.vehicles(params.unit_id)}
    seen: set[uuid.UUID] = set()
    for index, loss in enumerate(params.vehicles):
        where = f"vehicles.{index}.vehicle_id"
        vehicle = vehicles.get(loss.vehicle_id)
        if vehicle is None:
            raise CommandError(
                "vehicles.not_in_unit", "That vehicle is not in the unit.", field=where
            )
        if loss.vehicle_id in seen:
            raise CommandError("vehicles.named_twice", "A vehicle is named twice.", field=where)
        seen.add(loss.vehicle_id)
        if vehicle.state != VehicleState.OPERATIONAL:
            raise StateConflict(
                "vehicles.already_out",
                f"{vehicle.name} is {vehicle.state.replace('_', ' ')} already.",
                field=where,
            )
