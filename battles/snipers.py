"""Sniper fire in battle (SG2 P.25-27).

The ``sniper_fire`` action is a sniper firing with an action of his own at an infantry unit: an
independent figure, or a sniper attached to a squad who fires separately (P.27). The rules are
:mod:`rules.sg2.snipers`. The shot is recorded as ``battles.SniperFired``: the range die, the
sniper's quality die (rolled first: a ONE gives his position away) and rifle die, the suppression
marker every shot places, and the figure hit. A hit is checked with impact against armour and its
wound or kill recorded as the ``battles.CasualtiesResolved`` direct fire records (mode
``allocate``, one potential hit on the figure struck), so the rosters fold it the same way.

The confidence test the shot calls for (P.20: casualties from fire, or the first suppression by
fire) is named in the event, and the umpire records ``confidence_test`` next, as after direct
fire.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import Field, model_validator

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.casualties.events import CasualtiesResolved, PotentialHitRecord
from battles.casualties.fire import Casualties
from battles.casualties.state import (
    figure_of,
    leaders_down,
    member,
    require_armour_die,
    require_on_table,
    trooper_casualty,
)
from battles.fire import SNIPER_FIRED_EVENT, suppressed_by_fire_before
from battles.mines import unit_quality
from battles.models import Participant
from battles.morale.confidence import test_called_for
from battles.projections import dice_text, log, participant_key, trooper_name, unit_name
from battles.suppression import is_vehicle_unit, markers_text
from campaigns.events import DieRoll, dice_json
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Trooper
from rosters.vocabulary import TrooperStatus
from rules.dice import DiceSource, rolling_for
from rules.errors import RuleError
from rules.sg2.casualties import AllocationOverflow, AllocationPool, Cover, allocation_pool
from rules.sg2.fire import range_bands, range_die
from rules.sg2.morale import ConfidenceCircumstance
from rules.sg2.snipers import (
    SniperHit,
    SniperShot,
    SniperWeapon,
    resolve_sniper_hit,
    sniper_range_band,
    sniper_shot,
)
from rules.sg2.suppression import UnitAction, may_act, place_markers


class SniperFireParams(Params):
    unit_id: uuid.UUID = Field(description="The sniper's unit: his own, or the squad he is with.")
    sniper_id: uuid.UUID = Field(description="The sniper, a trooper of that unit.")
    target_id: uuid.UUID = Field(description="The infantry unit fired at.")
    weapon: Literal["conventional", "gauss", "laser", "heavy_anti_material"] = Field(
        description="The sniping weapon (P.27 SNIPER WEAPON TYPES)."
    )
    distance: float | None = Field(
        default=None,
        ge=0,
        le=1000,
        description="Inches from the sniper to the target; the range band is twice his "
        "quality's (P.27). Give this or range_bands.",
    )
    range_bands: int | None = Field(
        default=None, ge=1, le=10, description="The range in sniper range bands."
    )
    cover: Literal["open", "soft", "hard"] = Field(
        default="open", description="The target's cover as seen from the sniper (P.12)."
    )
    in_position: bool = Field(default=False, description="Target in position (P.13).")
    lone_figure: bool = Field(default=False, description="Target a lone independent figure (P.26).")
    aimed_at: uuid.UUID = Field(
        description="The target's trooper the sniper picks out: hit if both his dice succeed."
    )
    counting_order: list[uuid.UUID] = Field(
        default_factory=list,
        description="Target troopers counted first for a random hit, from the most exposed (P.36).",
    )

    @model_validator(mode="after")
    def _one_range(self) -> SniperFireParams:
        if (self.distance is None) == (self.range_bands is None):
            raise ValueError("give the distance or the range in range bands: one of them")
        return self


@event_type(SNIPER_FIRED_EVENT, stream="battle")
class SniperFired(EventPayload):
    """A sniper fired at an infantry unit (SG2 P.27): the range die, his quality and weapon
    dice, the suppression it always places, whom he hit and whether he gave himself away. A
    hit's wound or kill follows in ``battles.CasualtiesResolved``."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    sniper_id: uuid.UUID
    target_id: uuid.UUID
    turn: int = Field(ge=0)
    weapon: str
    distance: float | None
    range_bands: int = Field(ge=1)
    cover: str
    in_position: bool
    lone_figure: bool
    range_die: int
    range_roll: int
    quality_die: int
    quality_roll: int
    weapon_die: int
    weapon_roll: int
    hit: Literal["suppression", "random_figure", "aimed_figure"]
    revealed: bool = Field(description="A ONE on his quality die: his figure goes on the table.")
    aimed_at: uuid.UUID
    struck_id: uuid.UUID | None = Field(description="The trooper the shot hit, if any.")
    impact_die: int | None
    impact_multiplier: int | None
    suppression_before: int = Field(ge=0)
    suppression_after: int = Field(ge=0)
    confidence_test_for: list[str] = Field(default_factory=list)
    dice: list[DieRoll] = Field(default_factory=list)


@battle_action
class SniperFire(BattleAction):
    """A sniper fires with an action of his own at an infantry unit (SG2 P.27).

    Dice: the target's range die, the sniper's quality die, his weapon's firepower die; on a hit,
    the allocation die (a random hit on more than one figure), the impact and armour dice, and a
    D6 for a new power-armour casualty (P.40).
    """

    action = "sniper_fire"
    Params = SniperFireParams

    def check_action(self, ctx: BattleContext, params: SniperFireParams) -> None:
        firer = ctx.participant(params.unit_id)
        ctx.participant(params.target_id, field="target_id")
        if params.unit_id == params.target_id:
            raise CommandError(
                "action.invalid", "A sniper does not fire at his own unit.", field="target_id"
            )
        unit = ctx.unit(firer.unit_id)
        if not may_act(UnitAction.FIRE, markers=firer.suppression, vehicle=is_vehicle_unit(unit)):
            raise RuleViolation(
                "suppression.suppressed",
                f"{unit.name} is suppressed ({markers_text(firer.suppression)}): its sniper may "
                "not fire until the markers are removed (P.18).",
                field="unit_id",
            )
        sniper = member(ctx.troopers(params.unit_id), params.sniper_id, "sniper_id")
        if sniper.status != TrooperStatus.FIT:
            raise StateConflict(
                "sniper.not_fit", f"{sniper.name} is not fit to fire.", field="sniper_id"
            )
        target_troopers = ctx.troopers(params.target_id)
        aimed = member(target_troopers, params.aimed_at, "aimed_at")
        require_on_table(aimed, "aimed_at")
        for index, trooper_id in enumerate(params.counting_order):
            member(target_troopers, trooper_id, f"counting_order.{index}")
        figures = self._figures(ctx, params)
        require_armour_die((t for t in figures if t.status != TrooperStatus.DEAD), "target_id")
        pool = allocation_pool(
            [figure_of(t) for t in figures],
            allocation_pool=AllocationPool(ctx.options.allocation_pool.value),
        )
        if str(params.aimed_at) not in {figure.id for figure in pool}:
            raise StateConflict(
                "sniper.aimed_at_not_in_target",
                f"{aimed.name} is not among the figures of the target that fire can hit (P.36).",
                field="aimed_at",
            )
        self._range(ctx, params)

    @staticmethod
    def _figures(ctx: BattleContext, params: SniperFireParams) -> list[Trooper]:
        """The target's figures on the table, in counting order, as direct fire counts them."""
        casualties_params = Casualties.Params.model_validate(
            {
                "battle_id": uuid.uuid4(),  # not read: the casualties are in the shot's battle
                "unit_id": params.target_id,
                "mode": "allocate",
                "hits": 1,
                "impact_die": 10,
                "cover": params.cover,
                "counting_order": params.counting_order,
            }
        )
        return Casualties._figures(ctx, casualties_params, ctx.troopers(params.target_id))

    @staticmethod
    def _range(ctx: BattleContext, params: SniperFireParams) -> int:
        quality = unit_quality(ctx, params.unit_id)
        bands = (
            params.range_bands
            if params.range_bands is not None
            else range_bands(params.distance or 0, sniper_range_band(quality))
        )
        try:
            range_die(
                bands=bands,
                cover=Cover[params.cover.upper()],
                in_position=params.in_position,
                lone_figure=params.lone_figure,
            )
        except RuleError as refused:
            raise RuleViolation(refused.code, refused.message, field="range_bands") from None
        return bands

    def resolve(self, ctx: BattleContext, params: SniperFireParams, dice: DiceSource) -> list[Any]:
        bands = self._range(ctx, params)
        cover = Cover[params.cover.upper()]
        shot = sniper_shot(
            dice=dice,
            quality=unit_quality(ctx, params.unit_id),
            weapon=params.weapon,
            bands=bands,
            cover=cover,
            in_position=params.in_position,
            lone_figure=params.lone_figure,
        )
        casualties: CasualtiesResolved | None = None
        struck: tuple[uuid.UUID, int, int] | None = None
        if shot.hit is not SniperHit.SUPPRESSION:
            # The allocation and the target's armour are rolled for the target.
            with rolling_for(dice, str(params.target_id)):
                casualties, struck = self._hit(ctx, params, shot, cover, dice)
        target = ctx.participant(params.target_id, field="target_id")
        return [self._fired(ctx, params, bands, shot, target, casualties, struck)] + (
            [casualties] if casualties is not None else []
        )

    def _hit(
        self,
        ctx: BattleContext,
        params: SniperFireParams,
        shot: SniperShot,
        cover: Cover,
        dice: DiceSource,
    ) -> tuple[CasualtiesResolved, tuple[uuid.UUID, int, int]]:
        troopers = self._figures(ctx, params)
        options = ctx.options
        outcome = resolve_sniper_hit(
            dice=dice,
            hit=shot.hit,
            figures=[figure_of(t) for t in troopers],
            aimed_at=str(params.aimed_at),
            weapon=params.weapon,
            cover=cover,
            allocation_pool=AllocationPool(options.allocation_pool.value),
            allocation_overflow=AllocationOverflow(options.allocation_overflow.value),
            cover_shifts_armour_vs_direct_fire=options.cover_shifts_armour_vs_direct_fire,
            rewound_kills=options.rewound_kills,
            rewound_reverts_to_untreated=options.rewound_reverts_to_untreated,
            environment=options.environment,
        )
        by_id = {str(t.id): t for t in troopers}
        changes = [
            trooper_casualty(by_id[change.figure_id], change, outcome.rolls)
            for change in outcome.casualties
        ]
        casualties = CasualtiesResolved(
            battle_id=ctx.battle.id,
            unit_id=params.target_id,
            turn=ctx.battle.turn,
            mode="sniper",
            potential_hits=1,
            impact_die=outcome.impact_die.value,
            cover=params.cover,
            allocated_first=True,
            pool=[uuid.UUID(i) for i in outcome.pool],
            hits=[
                PotentialHitRecord(
                    hit_number=1,
                    impact_die=outcome.impact_die.value,
                    armour_die=outcome.armour_die.value,
                    # The score the armour was compared with: the HAMR's D12 doubled (P.27).
                    impact_roll=outcome.impact_score,
                    armour_roll=outcome.armour_roll,
                    result=outcome.result.value,
                    trooper_id=uuid.UUID(outcome.figure_id),
                    allocation_roll=outcome.allocation_roll,
                )
            ],
            casualties=changes,
            leaders_down=leaders_down(ctx, changes),
            dice=dice_json(outcome.rolls),
        )
        return casualties, (
            uuid.UUID(outcome.figure_id),
            outcome.impact_die.value,
            outcome.impact_multiplier,
        )

    @staticmethod
    def _fired(
        ctx: BattleContext,
        params: SniperFireParams,
        bands: int,
        shot: SniperShot,
        target: Participant,
        casualties: CasualtiesResolved | None,
        struck: tuple[uuid.UUID, int, int] | None,
    ) -> SniperFired:
        markers = place_markers(target.suppression, int(shot.suppresses))
        due: list[ConfidenceCircumstance] = []
        if casualties is not None and casualties.casualties:
            due.append(ConfidenceCircumstance.CASUALTIES_FROM_FIRE)
        elif not suppressed_by_fire_before(ctx, params.target_id):
            due.append(ConfidenceCircumstance.FIRST_SUPPRESSED_BY_FIRE)
        return SniperFired(
            battle_id=ctx.battle.id,
            unit_id=params.unit_id,
            sniper_id=params.sniper_id,
            target_id=params.target_id,
            turn=ctx.battle.turn,
            weapon=SniperWeapon(params.weapon).value,
            distance=params.distance,
            range_bands=bands,
            cover=params.cover,
            in_position=params.in_position,
            lone_figure=params.lone_figure,
            range_die=shot.range_die.die.value,
            range_roll=shot.range_roll,
            quality_die=shot.quality_die.value,
            quality_roll=shot.quality_roll,
            weapon_die=shot.weapon_die.value,
            weapon_roll=shot.weapon_roll,
            hit=shot.hit.value,
            revealed=shot.revealed,
            aimed_at=params.aimed_at,
            struck_id=struck[0] if struck else None,
            impact_die=struck[1] if struck else None,
            impact_multiplier=struck[2] if struck else None,
            suppression_before=markers.before,
            suppression_after=markers.after,
            confidence_test_for=test_called_for(ctx, target, due),
            dice=dice_json(shot.rolls),
        )


_HIT_TEXT = {
    "suppression": "both missed, but the target is suppressed all the same",
    "random_figure": "one die succeeded: a figure hit at random",
    "aimed_figure": "both dice succeeded: he hit the figure he picked out",
}


@register
class SniperProjection(Projection):
    """The log line of sniper fire and the suppression it places (rows of the battles
    projection)."""

    name = "battles.snipers"
    version = 1

    @Projection.handles(SNIPER_FIRED_EVENT)
    def sniper_fired(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        key = participant_key(p["battle_id"], p["target_id"])
        if rows.get(Participant, key) is not None:
            rows.update(Participant, key, suppression=p["suppression_after"])
        sniper = trooper_name(rows, p["sniper_id"])
        target = unit_name(rows, p["target_id"])
        bands = p["range_bands"]
        where = f"{bands} sniper range band{'s' if bands != 1 else ''}, {p['cover']} cover"
        if p["in_position"]:
            where += ", in position"
        line = (
            f"{sniper} sniped at {target} ({where}), aiming at "
            f"{trooper_name(rows, p['aimed_at'])}: range d{p['range_die']} rolled "
            f"{p['range_roll']} against quality d{p['quality_die']} {p['quality_roll']} + "
            f"{p['weapon'].replace('_', ' ')} rifle d{p['weapon_die']} {p['weapon_roll']}: "
            f"{_HIT_TEXT[p['hit']]}"
        )
        if p["struck_id"]:
            impact = f"d{p['impact_die']}" + (
                f"x{p['impact_multiplier']}" if p["impact_multiplier"] != 1 else ""
            )
            line += f" ({trooper_name(rows, p['struck_id'])}, impact {impact} against armour)"
        if p["suppression_after"] > p["suppression_before"]:
            markers = p["suppression_after"]
            line += f"; {target} now has {markers} suppression marker{'s' if markers != 1 else ''}"
        else:
            line += f"; {target} already has 3 suppression markers, the most a unit carries (P.18)"
        line += "."
        if p["revealed"]:
            line += f" A 1 on his quality die gave {sniper}'s position away: his figure is placed."
        if p["confidence_test_for"]:
            why = " and ".join(c.replace("_", " ") for c in p["confidence_test_for"])
            line += f" {target} must take a confidence test ({why}, P.20)."
        log(rows, event, line + dice_text(p["dice"]))
