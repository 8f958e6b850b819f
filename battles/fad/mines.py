"""Fast and Dirty mines in a battle (FaD p.31): ``fad_minefield``, an infantry unit coming
within 4" of a minefield marker.

The rules are :mod:`rules.fad.mines`. The unit halts and rolls 1d6 (an Engineer unit +2): 5 or
more passes through. Otherwise the placing player checks his record, which the umpire gives in
the parameters (``real``, ``minefield_type``): a dummy marker is removed from the game; a real
minefield attacks and stays. The casualties are recorded as ``battles.FadLossesRecorded`` with
cause ``mine``, so the rosters and the after-action fold them as for ``fad_losses``. The book
places no marker for mines.

What a marker turned out to be is read from the battle's own events: a dummy once revealed is
off the table, and a marker revealed real stays real. Vehicles in a minefield (p.31, Mines
versus Vehicles) are in :func:`rules.fad.mines.mines_versus_vehicle`; this action takes
infantry.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.after_action.fad_events import FadLossesRecorded, LostFigure
from battles.fad import state
from battles.fad.shooting import HitOnFigure, check_target_order, target_figures
from battles.projections import dice_text, log, unit_name
from battles.suppression import is_vehicle_unit
from campaigns.events import DieRoll, dice_json
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Trooper
from rosters.vocabulary import TrooperStatus
from rules.dice import DiceSource, Roll, rolling_for
from rules.errors import RuleError
from rules.fad.mines import (
    MinefieldType,
    MineWeapon,
    mine_weapon,
    minefield_encounter,
    mines_versus_infantry,
)
from rules.fad.weapons import Armour
from rules.fad.wounded import DamageEffect
from rules.rulesets import Ruleset

ENTERED_EVENT = "battles.FadMinefieldEntered"


class MinefieldParams(Params):
    unit_id: uuid.UUID = Field(description='The infantry unit that came within 4" (p.31).')
    minefield: str = Field(
        min_length=1, max_length=40, description="The marker's number, as placed (p.31)."
    )
    engineer: bool = Field(default=False, description="The unit has the Engineer trait: +2.")
    real: bool = Field(
        description="The placing player's record: this marker is the real minefield (else a "
        "dummy). Read only when the unit fails to pass through."
    )
    minefield_type: MinefieldType | None = Field(
        default=None, description="The record's type of a real minefield: light or heavy."
    )
    mine_weapon: MineWeapon | None = Field(
        default=None,
        description="With option mines_types = umpire: the mine weapon (p.70) the umpire rules "
        "the minefield holds.",
    )
    target_armour: Armour | None = Field(default=None)
    target_order: list[uuid.UUID] = Field(
        min_length=1,
        max_length=60,
        description="Every figure of the unit on the table, nearest the mine first: the first "
        "1d3 are hit.",
    )


@event_type(ENTERED_EVENT, stream="battle")
class FadMinefieldEntered(EventPayload):
    """An infantry unit came within 4" of a minefield marker (FaD p.31): the encounter roll,
    and if it failed what the marker was; a real minefield's 1d3 hits and their damage."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    minefield: str
    engineer: bool
    encounter_die: int
    encounter_total: int
    passed: bool
    revealed: Literal["dummy", "real"] | None = Field(
        default=None, description="None when the unit passed through: the marker stays hidden."
    )
    minefield_type: str | None = None
    mine_weapon: str | None = None
    damage_rating: int | None = None
    hits_die: int | None = None
    hits: int = Field(default=0, ge=0)
    recover_wounded: bool
    figures_hit: list[HitOnFigure] = Field(default_factory=list)
    dice: list[DieRoll] = Field(default_factory=list)


def _revealed(ctx: BattleContext, minefield: str) -> str | None:
    """What the marker was revealed to be earlier in the battle, if it was."""
    for event in state.battle_events(ctx, ENTERED_EVENT):
        p = event.payload
        if p["minefield"] == minefield and p["revealed"] is not None:
            return str(p["revealed"])
    return None


@battle_action
class FadMinefield(BattleAction):
    """An infantry unit comes within 4" of a minefield marker (FaD p.31). Dice: the encounter
    d6; if it fails and the minefield is real, a d6 halved for the figures hit (1d3), then two
    dice per figure hit (the mine's damage, the figure's armour)."""

    action = "fad_minefield"
    rulesets = (Ruleset.FAD.value,)
    Params = MinefieldParams

    def check_action(self, ctx: BattleContext, params: MinefieldParams) -> None:
        ctx.participant(params.unit_id)
        if is_vehicle_unit(ctx.unit(params.unit_id)):
            raise CommandError(
                "mines.vehicle",
                "This action takes infantry; record a vehicle's losses to mines with fad_losses.",
                field="unit_id",
            )
        before = _revealed(ctx, params.minefield)
        if before == "dummy":
            raise StateConflict(
                "mines.dummy_removed",
                f"Marker {params.minefield} was a dummy and has been removed (p.31).",
                field="minefield",
            )
        if before == "real" and not params.real:
            raise StateConflict(
                "mines.record_changed",
                f"Marker {params.minefield} was revealed as the real minefield: it stays (p.31).",
                field="real",
            )
        if params.real:
            if params.minefield_type is None:
                raise CommandError(
                    "mines.type_needed",
                    "Give the recorded type of the real minefield: light or heavy (p.31).",
                    field="minefield_type",
                )
            self._weapon(ctx, params)
        check_target_order(ctx, params.unit_id, params.target_order)
        target_figures(ctx, params.unit_id, params.target_order, params.target_armour)

    @staticmethod
    def _weapon(ctx: BattleContext, params: MinefieldParams) -> MineWeapon:
        assert params.minefield_type is not None
        try:
            return mine_weapon(
                params.minefield_type,
                mines_types=ctx.options.mines_types,
                named=params.mine_weapon,
            )
        except RuleError as error:
            raise RuleViolation(error.code, error.message, field="mine_weapon") from None

    def resolve(self, ctx: BattleContext, params: MinefieldParams, dice: DiceSource) -> list[Any]:
        options = ctx.options
        with rolling_for(dice, str(params.unit_id)):
            encounter = minefield_encounter(dice=dice, engineer=params.engineer)
        rolls: list[Roll] = [*encounter.rolls]
        common: dict[str, Any] = {
            "battle_id": ctx.battle.id,
            "unit_id": params.unit_id,
            "turn": ctx.battle.turn,
            "minefield": params.minefield,
            "engineer": params.engineer,
            "encounter_die": encounter.die,
            "encounter_total": encounter.total,
            "passed": encounter.passed,
            "recover_wounded": bool(options.adv_recover_wounded),
        }
        if encounter.passed:
            return [FadMinefieldEntered(**common, dice=dice_json(rolls))]
        if not params.real:
            return [FadMinefieldEntered(**common, revealed="dummy", dice=dice_json(rolls))]
        weapon = self._weapon(ctx, params)
        figures, by_id = target_figures(
            ctx, params.unit_id, params.target_order, params.target_armour
        )
        with rolling_for(dice, str(params.unit_id)):
            attack = mines_versus_infantry(
                dice=dice,
                weapon=weapon,
                figures=figures,
                adv_recover_wounded=options.adv_recover_wounded,
                fire_allocation_includes_wounded=options.fire_allocation_includes_wounded,
            )
        rolls += attack.rolls
        hit = [
            HitOnFigure(
                trooper_id=uuid.UUID(d.figure_id),
                attacker_die=d.attacker_die,
                defender_die=d.defender_die,
                attacker_score=d.attacker_score,
                defender_score=d.defender_score,
                effect=d.effect.value,
                state_before=d.outcome.state_before.value,
                state_after=d.outcome.state_after.value,
            )
            for d in attack.figures_hit
        ]
        entered = FadMinefieldEntered(
            **common,
            revealed="real",
            minefield_type=str(params.minefield_type),
            mine_weapon=weapon.value,
            damage_rating=weapon.damage,
            hits_die=attack.hits_die,
            hits=attack.hits,
            figures_hit=hit,
            dice=dice_json(rolls),
        )
        lost = [
            LostFigure(
                trooper_id=h.trooper_id,
                result=state.wound_result(
                    ctx, h.trooper_id, "killed" if h.effect == DamageEffect.KILLED else "wounded"
                ),
                status_before=TrooperStatus(by_id[str(h.trooper_id)].status),
            )
            for h in hit
            if h.effect != DamageEffect.NO_EFFECT
        ]
        if not lost:
            return [entered]
        return [
            entered,
            FadLossesRecorded(
                battle_id=ctx.battle.id,
                unit_id=params.unit_id,
                turn=ctx.battle.turn,
                troopers=lost,
                cause="mine",
            ),
        ]


@register
class FadMinesProjection(Projection):
    """The battle-log line of a unit in a minefield."""

    name = "battles.fad_mines"
    version = 1

    @Projection.handles(ENTERED_EVENT)
    def entered(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        name = unit_name(rows, p["unit_id"])
        engineer = f" + 2 Engineer = {p['encounter_total']}" if p["engineer"] else ""
        line = (
            f'{name} came within 4" of minefield marker {p["minefield"]}: encounter '
            f"{p['encounter_die']}{engineer}, "
        )
        if p["passed"]:
            line += "passed through without incident"
        elif p["revealed"] == "dummy":
            line += "failed; the marker was a dummy and is removed"
        else:
            parts = []
            for h in p["figures_hit"]:
                trooper = rows.get(Trooper, h["trooper_id"])
                who = trooper["name"] if trooper else "a figure"
                parts.append(
                    f"{who} {h['attacker_score']} against {h['defender_score']}: "
                    f"{h['effect'].replace('_', ' ')}"
                )
            weapon = str(p["mine_weapon"]).replace("_", "-")
            line += (
                f"failed; a real {p['minefield_type']} minefield ({weapon}, Damage "
                f"+{p['damage_rating']}) hit {p['hits']} figure{'s' if p['hits'] != 1 else ''} "
                f"(d3 from {p['hits_die']})"
            )
            if parts:
                line += ": " + "; ".join(parts)
            line += ", and stays"
        log(rows, event, line + "." + dice_text(p["dice"]))
