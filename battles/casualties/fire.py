"""Wounds and kills on a unit (SG2 P.35-36, P.40): the hits of a fire allocated by the rules,
or the casualties named by the umpire."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.casualties.events import CasualtiesResolved, PotentialHitRecord, TrooperCasualty
from battles.casualties.state import (
    FIGURE_STATE,
    DieFaces,
    Rolls,
    died_here,
    figure_of,
    leaders_down,
    member,
    no_repeats,
    require_armour_die,
    require_on_table,
    status_of,
    trooper_casualty,
)
from battles.reports.losses import reported_loss_recorder
from campaigns.events import dice_json
from eventlog.errors import CommandError
from rosters.models import Trooper
from rosters.vocabulary import TrooperStatus
from rules.dice import DiceSource, Die, Roll
from rules.rulesets import Ruleset
from rules.sg2 import casualties as rules
from rules.sg2.casualties import FigureCasualty, FigureState, HitResult


class NamedCasualty(Params):
    trooper_id: uuid.UUID
    result: Literal["wounded", "killed"]


class CasualtiesParams(Params):
    unit_id: uuid.UUID
    mode: Literal["allocate", "named"] = Field(
        description="allocate: the rules place the hits (P.36); named: the umpire names them."
    )
    hits: int | None = Field(
        default=None,
        ge=0,
        le=60,
        description="allocate: potential hits of the fully effective fire (P.35-36, steps 1-2).",
    )
    impact_die: DieFaces | None = Field(
        default=None,
        description="allocate: the fire's impact die (small arms type, the support weapon's "
        "own, D8 for heavy weapons; P.37, P.40).",
    )
    cover: Literal["open", "soft", "hard"] = Field(
        default="open", description="allocate: the target's cover as seen from the firer (P.12)."
    )
    counting_order: list[uuid.UUID] = Field(
        default_factory=list,
        description="allocate: troopers counted first, from the most exposed (P.36); the rest "
        "of the unit follows in roster order.",
    )
    casualties: list[NamedCasualty] = Field(
        default_factory=list, description="named: each trooper hit and whether wounded or killed."
    )


@battle_action
class Casualties(BattleAction):
    """Wounds and kills on a unit, placed by the rules or named by the umpire."""

    action = "casualties"
    Params = CasualtiesParams

    def check_action(self, ctx: BattleContext, params: CasualtiesParams) -> None:
        ctx.participant(params.unit_id)
        troopers = ctx.troopers(params.unit_id)
        if params.mode == "allocate":
            self._check_allocate(ctx, params, troopers)
        else:
            self._check_named(params, troopers)

    def _check_allocate(
        self, ctx: BattleContext, params: CasualtiesParams, troopers: Sequence[Trooper]
    ) -> None:
        if params.casualties:
            raise CommandError(
                "action.invalid", "Name casualties only in named mode.", field="casualties"
            )
        for field in ("hits", "impact_die"):
            if getattr(params, field) is None:
                raise CommandError("action.invalid", f"Allocating hits needs {field}.", field=field)
        no_repeats(params.counting_order, "counting_order")
        figures = self._figures(ctx, params, troopers)
        on_table = {t.id for t in figures}
        for index, trooper_id in enumerate(params.counting_order):
            field = f"counting_order.{index}"
            trooper = member(troopers, trooper_id, field)
            if trooper.id not in on_table:
                require_on_table(trooper, field)
        require_armour_die(
            (t for t in figures if status_of(t) is not TrooperStatus.DEAD), "unit_id"
        )

    def _check_named(self, params: CasualtiesParams, troopers: Sequence[Trooper]) -> None:
        given = [name for name in ("hits", "impact_die") if getattr(params, name) is not None] + (
            ["counting_order"] if params.counting_order else []
        )
        if given:
            raise CommandError(
                "action.invalid", f"{given[0]} is for allocate mode.", field=given[0]
            )
        if not params.casualties:
            raise CommandError("action.invalid", "Name at least one casualty.", field="casualties")
        no_repeats([c.trooper_id for c in params.casualties], "casualties")
        for index, named in enumerate(params.casualties):
            field = f"casualties.{index}.trooper_id"
            require_on_table(member(troopers, named.trooper_id, field), field)

    @staticmethod
    def _figures(
        ctx: BattleContext, params: CasualtiesParams, troopers: Sequence[Trooper]
    ) -> list[Trooper]:
        """The unit's figures on the table in counting order: those named first, then the rest
        in roster order."""
        dead_here = died_here(ctx, troopers)
        present = [
            t
            for t in troopers
            if status_of(t) in FIGURE_STATE
            and (status_of(t) is not TrooperStatus.DEAD or t.id in dead_here)
        ]
        by_id = {t.id: t for t in present}
        first = [by_id[i] for i in params.counting_order if i in by_id]
        return first + [t for t in present if t.id not in params.counting_order]

    def resolve(self, ctx: BattleContext, params: CasualtiesParams, dice: DiceSource) -> list[Any]:
        troopers = ctx.troopers(params.unit_id)
        if params.mode == "allocate":
            event = self._allocate(ctx, params, troopers, dice)
        else:
            event = self._named(ctx, params, troopers, dice)
        return [event]

    def _allocate(
        self,
        ctx: BattleContext,
        params: CasualtiesParams,
        troopers: Sequence[Trooper],
        dice: DiceSource,
    ) -> CasualtiesResolved:
        # Checked before any decision: allocating refuses params without them.
        assert params.hits is not None
        assert params.impact_die is not None
        figures = self._figures(ctx, params, troopers)
        options = ctx.options
        outcome = rules.resolve_fire_casualties(
            dice=dice,
            figures=[figure_of(t) for t in figures],
            potential_hits=params.hits,
            impact=Die(params.impact_die),
            cover=rules.Cover[params.cover.upper()],
            allocation_pool=rules.AllocationPool(options.allocation_pool.value),
            allocation_overflow=rules.AllocationOverflow(options.allocation_overflow.value),
            allocate_before_penetration=rules.AllocationOrder(
                options.allocate_before_penetration.value
            ),
            rewound_kills=options.rewound_kills,
            cover_shifts_armour_vs_direct_fire=options.cover_shifts_armour_vs_direct_fire,
            rewound_reverts_to_untreated=options.rewound_reverts_to_untreated,
            environment=options.environment,
        )
        changes = _fire_casualties(outcome, figures)
        return CasualtiesResolved(
            battle_id=ctx.battle.id,
            unit_id=params.unit_id,
            turn=ctx.battle.turn,
            mode="allocate",
            potential_hits=params.hits,
            impact_die=params.impact_die,
            cover=params.cover,
            allocated_first=outcome.allocated_first,
            pool=[uuid.UUID(i) for i in outcome.pool],
            hits=[_hit_record(hit) for hit in outcome.hits],
            casualties=changes,
            leaders_down=leaders_down(ctx, changes),
            dice=dice_json(outcome.rolls),
        )

    def _named(
        self,
        ctx: BattleContext,
        params: CasualtiesParams,
        troopers: Sequence[Trooper],
        dice: DiceSource,
    ) -> CasualtiesResolved:
        by_id = {t.id: t for t in troopers}
        named = [(by_id[c.trooper_id], c.result) for c in params.casualties]
        figures = [figure_of(t) for t, _ in named]
        changes: list[FigureCasualty] = []
        for figure, (_, result) in zip(figures, named, strict=True):
            wounds, kills = (0, 1) if result == "killed" else (1, 0)
            after = rules.state_after_hits(
                figure.state,
                wounds=wounds,
                kills=kills,
                rewound_kills=ctx.options.rewound_kills,
                rewound_reverts_to_untreated=ctx.options.rewound_reverts_to_untreated,
                environment=ctx.options.environment,  # P.57: in a vacuum a wound kills
            )
            changes.append(FigureCasualty(figure.id, figure.state, after, wounds, kills))
        pa_rolls = Rolls(rules.settle_power_armour(dice, figures, changes))
        casualties = [
            trooper_casualty(
                trooper,
                change,
                [pa_rolls.take()] if change.power_armour_roll is not None else [],
            )
            for (trooper, _), change in zip(named, changes, strict=True)
        ]
        return CasualtiesResolved(
            battle_id=ctx.battle.id,
            unit_id=params.unit_id,
            turn=ctx.battle.turn,
            mode="named",
            casualties=casualties,
            leaders_down=leaders_down(ctx, casualties),
            dice=[roll for c in casualties for roll in c.dice],
        )


@reported_loss_recorder(Ruleset.SG2.value)
def reported_casualty(
    ctx: BattleContext, trooper: Trooper, result: str, report_id: uuid.UUID
) -> CasualtiesResolved:
    """A loss from a player's battle report, decided by the umpire after the battle: final as
    reported, so no power armour roll (P.40 was rolled at the table)."""
    figure = figure_of(trooper)
    killed = result == "killed"
    change = FigureCasualty(
        figure.id,
        figure.state,
        FigureState.DEAD if killed else FigureState.UNTREATED,
        wounds=0 if killed else 1,
        kills=1 if killed else 0,
    )
    casualties = [trooper_casualty(trooper, change, [])]
    return CasualtiesResolved(
        battle_id=ctx.battle.id,
        unit_id=trooper.unit_id,
        turn=ctx.battle.turn,
        mode="reported",
        casualties=casualties,
        leaders_down=leaders_down(ctx, casualties),
        report_id=report_id,
    )


def _fire_casualties(
    outcome: rules.FireCasualtiesOutcome, figures: Sequence[Trooper]
) -> list[TrooperCasualty]:
    """Each casualty of a fire with the rolls that made him one: the rolls split by hit, in the
    order :func:`rules.sg2.casualties.resolve_fire_casualties` documents."""
    several = len(outcome.pool) > 1
    rolls = Rolls(outcome.rolls)
    per_hit: dict[int, list[Roll]] = {hit.hit_number: [] for hit in outcome.hits}
    for hit in outcome.hits:
        if outcome.allocated_first and several:
            per_hit[hit.hit_number].append(rolls.take())
        per_hit[hit.hit_number] += [rolls.take(), rolls.take()]
    if not outcome.allocated_first and several:
        for hit in outcome.hits:
            if hit.result is not HitResult.NO_EFFECT:
                per_hit[hit.hit_number].append(rolls.take())
    by_id = {str(t.id): t for t in figures}
    changes: list[TrooperCasualty] = []
    for change in outcome.casualties:
        own = [
            roll
            for hit in outcome.hits
            if hit.figure_id == change.figure_id and hit.result is not HitResult.NO_EFFECT
            for roll in per_hit[hit.hit_number]
        ]
        if change.power_armour_roll is not None:
            own.append(rolls.take())
        changes.append(trooper_casualty(by_id[change.figure_id], change, own))
    return changes


def _hit_record(hit: rules.PotentialHit) -> PotentialHitRecord:
    return PotentialHitRecord(
        hit_number=hit.hit_number,
        impact_die=hit.impact_die.value,
        armour_die=hit.armour_die.value,
        impact_roll=hit.impact_roll,
        armour_roll=hit.armour_roll,
        result=hit.result.value,
        trooper_id=uuid.UUID(hit.figure_id) if hit.figure_id else None,
        allocation_roll=hit.allocation_roll,
    )
