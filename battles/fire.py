"""Direct fire by an infantry unit at an infantry unit (SG2 P.33-36).

The rules are :mod:`rules.sg2.fire` (range die, firepower dice, fire effect, potential hits) and
:func:`rules.sg2.casualties.resolve_fire_casualties` (impact against armour, who takes each hit).
The action records the fire as ``battles.FireResolved`` and, when the fire scored potential hits,
the casualties as the ``battles.CasualtiesResolved`` the ``casualties`` action records: the same
code turns hits into wounds and kills, and the rosters fold them the same way. With the campaign
option ``fire_method = quick_and_dirty`` (P.36) the total is divided by the target's armour die
and every figure hit is wounded, recorded as ``CasualtiesResolved`` in mode ``quick_and_dirty``.

The confidence test the fire calls for (P.20) is not rolled here: the fire's event names the
circumstances, and the umpire records the ``confidence_test`` action next, as after the
``casualties`` action.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import Field, model_validator

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.casualties.events import CasualtiesResolved
from battles.casualties.fire import Casualties
from battles.casualties.state import (
    DieFaces,
    Rolls,
    battle_events,
    figure_of,
    leaders_down,
    trooper_casualty,
)
from battles.models import Participant
from battles.morale.confidence import test_called_for
from battles.projections import dice_text, log, participant_key, unit_name
from battles.suppression import is_vehicle_unit, markers_text
from campaigns.events import DieRoll, dice_json
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rules.dice import DiceSource, Die, Roll, rolling_for
from rules.sg2.casualties import (
    AllocationOverflow,
    AllocationPool,
    Cover,
    Figure,
    allocation_pool,
)
from rules.sg2.fire import (
    FireEffect,
    FireOrder,
    FireOutcome,
    firer_dice,
    quick_and_dirty_casualties,
    range_band,
    range_bands,
    range_die,
    resolve_fire,
)
from rules.sg2.morale import ConfidenceCircumstance
from rules.sg2.options import FireMethod
from rules.sg2.scales import Quality
from rules.sg2.suppression import UnitAction, fire_suppresses, may_act, place_markers

MAX_SUPPORT_WEAPONS = 10
FIRE_RESOLVED_EVENT = "battles.FireResolved"
FIRE_MISSION_STRUCK_EVENT = "battles.FireMissionStruck"
SNIPER_FIRED_EVENT = "battles.SniperFired"  # battles.snipers


class SupportWeapon(Params):
    name: str = Field(default="", max_length=100, description="The weapon, for the log.")
    firepower_die: DieFaces = Field(
        description="Its support firepower die against dispersed targets (P.34 table)."
    )


class DirectFireParams(Params):
    unit_id: uuid.UUID = Field(description="The firing infantry unit.")
    target_id: uuid.UUID = Field(description="The infantry unit fired at.")
    distance: float | None = Field(
        default=None,
        ge=0,
        le=1000,
        description="Inches from firer to target; the firer's quality gives the range band "
        "(P.33). Give this or range_bands.",
    )
    range_bands: int | None = Field(
        default=None, ge=1, le=10, description="The range in range bands (1: up to one band)."
    )
    cover: Literal["open", "soft", "hard"] = Field(
        default="open", description="The target's cover as seen from the firer (P.12)."
    )
    in_position: bool = Field(default=False, description="Target in position (P.13).")
    lone_figure: bool = Field(default=False, description="Target a lone independent figure (P.26).")
    travel_mode: bool = Field(default=False, description="Target in travel mode (P.24).")
    men_firing: int = Field(
        ge=0,
        le=60,
        description="Troopers firing small arms (P.34); 0 for one support weapon firing alone.",
    )
    small_arms_firepower: float = Field(
        default=0,
        ge=0,
        le=4,
        multiple_of=0.5,
        description="Firepower of the squad's small-arms type (P.34 table; +1 for a launcher).",
    )
    close_range_only: bool = Field(
        default=False, description="Close-range weapons: effective to one range band (P.33)."
    )
    support_weapons: list[SupportWeapon] = Field(
        default_factory=list,
        max_length=MAX_SUPPORT_WEAPONS,
        description="Support weapons added to the fire, one die each (P.35).",
    )
    impact_die: DieFaces | None = Field(
        default=None,
        description="Full fire: impact of the small arms, or of the support weapon firing alone "
        "(P.35-36). Quick-and-dirty fire rolls no impact: leave it out.",
    )
    counting_order: list[uuid.UUID] = Field(
        default_factory=list,
        description="Target troopers counted first for hits, from the most exposed (P.36).",
    )

    @model_validator(mode="after")
    def _one_range(self) -> DirectFireParams:
        if (self.distance is None) == (self.range_bands is None):
            raise ValueError("give the distance or the range in range bands: one of them")
        if self.men_firing and not self.small_arms_firepower:
            raise ValueError("small_arms_firepower is needed when men fire small arms")
        return self


@event_type(FIRE_RESOLVED_EVENT, stream="battle")
class FireResolved(EventPayload):
    """An infantry unit fired at an infantry unit: range die, firer's dice, effect and potential
    hits (SG2 P.33-36). Casualties follow in ``battles.CasualtiesResolved``."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    target_id: uuid.UUID
    turn: int = Field(ge=0)
    method: Literal["full", "quick_and_dirty"]
    distance: float | None
    range_bands: int = Field(ge=1)
    cover: str
    in_position: bool
    lone_figure: bool
    travel_mode: bool
    range_die: int
    range_roll: int
    firer_dice: list[int]
    firer_rolls: list[int]
    effect: Literal["no_effect", "suppression", "effective"]
    total: int
    potential_hits: int = Field(ge=0)
    left_over: int | None
    left_over_roll: int | None
    impact_die: int | None
    hits_divisor_die: int | None = Field(
        description="The die type the total was divided by: the range die, or in quick-and-dirty "
        "fire the armour die raised for cover (P.36)."
    )
    suppression_before: int = Field(ge=0)
    suppression_after: int = Field(ge=0)
    confidence_test_for: list[str] = Field(
        default_factory=list, description="What calls for the target's confidence test (P.20)."
    )
    dice: list[DieRoll] = Field(default_factory=list)


@battle_action
class DirectFire(BattleAction):
    """Small-arms and support-weapon fire at an infantry unit (SG2 P.33-36), by the campaign's
    option ``fire_method``: the full procedure, or the quick-and-dirty option (P.36).

    Dice: the range die, the quality, small-arms firepower and support dice, the left-over roll;
    then, full: the casualties' dice as the ``casualties`` action rolls them; quick-and-dirty: one
    allocation die per hit and a D6 per new power-armour casualty.
    """

    action = "direct_fire"
    Params = DirectFireParams

    def check_action(self, ctx: BattleContext, params: DirectFireParams) -> None:
        firer = ctx.participant(params.unit_id, field="unit_id")
        target = ctx.participant(params.target_id, field="target_id")
        if firer.unit_id == target.unit_id:
            raise CommandError("action.invalid", "A unit cannot fire at itself.", field="target_id")
        firing = ctx.unit(firer.unit_id)
        if not may_act(UnitAction.FIRE, markers=firer.suppression, vehicle=is_vehicle_unit(firing)):
            raise RuleViolation(
                "suppression.suppressed",
                f"{firing.name} is suppressed ({markers_text(firer.suppression)}): it may not "
                "fire until its leader removes them (P.18).",
                field="unit_id",
            )
        quick = _method(ctx) is FireMethod.QUICK_AND_DIRTY
        if not quick and params.impact_die is None:
            raise CommandError(
                "action.invalid", "Give the impact die of the weapons fired.", field="impact_die"
            )
        if quick and params.impact_die is not None:
            raise CommandError(
                "action.invalid",
                "This campaign fires quick-and-dirty (P.36): no impact is rolled.",
                field="impact_die",
            )
        # The counting order and the target's armour dice, as the casualties action checks them
        # (it reads no impact).
        Casualties().check_action(
            ctx, self._casualties_params(params, hits=0, impact=params.impact_die or 4)
        )
        # Refuses a fire out of range, or mixed armour in quick-and-dirty fire, before any die.
        self._order(ctx, params)

    @staticmethod
    def _target_armour(ctx: BattleContext, params: DirectFireParams) -> Die:
        """The armour die quick-and-dirty fire divides by: one for the whole target (P.36)."""
        figures = DirectFire._target_figures(ctx, params)
        pool = allocation_pool(
            figures, allocation_pool=AllocationPool(ctx.options.allocation_pool.value)
        )
        armours = {figure.armour for figure in pool}
        if len(armours) != 1:
            raise StateConflict(
                "fire.mixed_armour" if armours else "fire.no_target_figures",
                "Quick-and-dirty fire divides by one armour die: the target's figures wear "
                "different armour."
                if armours
                else "The target has no figure that fire can hit.",
                field="target_id",
            )
        return armours.pop()

    @staticmethod
    def _target_figures(ctx: BattleContext, params: DirectFireParams) -> list[Figure]:
        troopers = Casualties._figures(
            ctx, DirectFire._casualties_params(params, hits=0), ctx.troopers(params.target_id)
        )
        return [figure_of(trooper) for trooper in troopers]

    @staticmethod
    def _quality(ctx: BattleContext, unit_id: uuid.UUID) -> Quality:
        unit = ctx.unit(unit_id)
        try:
            return Quality[unit.quality.upper()]
        except KeyError:
            raise StateConflict(
                "fire.no_quality",
                f"{unit.name} has no quality on the roster: it sets the range band (P.33).",
                field="unit_id",
            ) from None

    def _order(self, ctx: BattleContext, params: DirectFireParams) -> FireOrder:
        quality = self._quality(ctx, params.unit_id)
        bands = (
            params.range_bands
            if params.range_bands is not None
            else range_bands(params.distance or 0, range_band(quality))
        )
        order = FireOrder(
            quality=quality,
            bands=bands,
            firepower=params.small_arms_firepower,
            men_firing=params.men_firing,
            support_dice=tuple(Die(w.firepower_die) for w in params.support_weapons),
            cover=Cover[params.cover.upper()],
            in_position=params.in_position,
            lone_figure=params.lone_figure,
            travel_mode=params.travel_mode,
            close_range_only=params.close_range_only,
            target_armour=(
                self._target_armour(ctx, params)
                if _method(ctx) is FireMethod.QUICK_AND_DIRTY
                else Die.D6  # not read by the full procedure
            ),
        )
        range_die(
            bands=order.bands,
            cover=order.cover,
            in_position=order.in_position,
            lone_figure=order.lone_figure,
            travel_mode=order.travel_mode,
            close_range_only=order.close_range_only,
        )
        firer_dice(order)
        return order

    @staticmethod
    def _casualties_params(
        params: DirectFireParams, *, hits: int, impact: int | None = None
    ) -> Any:
        return Casualties.Params.model_validate(
            {
                "battle_id": uuid.uuid4(),  # not read: the casualties are in the fire's battle
                "unit_id": params.target_id,
                "mode": "allocate",
                "hits": hits,
                "impact_die": impact or params.impact_die,
                "cover": params.cover,
                "counting_order": params.counting_order,
            }
        )

    def resolve(self, ctx: BattleContext, params: DirectFireParams, dice: DiceSource) -> list[Any]:
        method = _method(ctx)
        order = self._order(ctx, params)
        outcome = resolve_fire(
            dice=dice,
            order=order,
            fire_method=method,
            qd_leftover_roll=ctx.options.qd_leftover_roll,
        )
        events: list[Any] = []
        casualties: CasualtiesResolved | None = None
        if outcome.potential_hits:
            # The target's armour and the allocation dice are rolled for the target.
            with rolling_for(dice, str(params.target_id)):
                if method is FireMethod.QUICK_AND_DIRTY:
                    casualties = self._quick_and_dirty(ctx, params, outcome.potential_hits, dice)
                else:
                    casualties = Casualties()._allocate(
                        ctx,
                        self._casualties_params(params, hits=outcome.potential_hits),
                        ctx.troopers(params.target_id),
                        dice,
                    )
        target = ctx.participant(params.target_id, field="target_id")
        events.append(self._fire_event(ctx, params, order, outcome, target, casualties))
        if casualties is not None:
            events.append(casualties)
        return events

    @staticmethod
    def _quick_and_dirty(
        ctx: BattleContext, params: DirectFireParams, hits: int, dice: DiceSource
    ) -> CasualtiesResolved:
        troopers = Casualties._figures(
            ctx, DirectFire._casualties_params(params, hits=hits), ctx.troopers(params.target_id)
        )
        options = ctx.options
        outcome = quick_and_dirty_casualties(
            dice=dice,
            figures=[figure_of(trooper) for trooper in troopers],
            hits=hits,
            allocation_pool=AllocationPool(options.allocation_pool.value),
            allocation_overflow=AllocationOverflow(options.allocation_overflow.value),
            rewound_kills=options.rewound_kills,
            rewound_reverts_to_untreated=options.rewound_reverts_to_untreated,
            environment=options.environment,
        )
        allocation = outcome.allocation
        # Each casualty's own dice: the allocation dice that picked him (none when he was the
        # only figure), then his power-armour roll.
        picked: dict[str, list[Roll]] = {}
        if allocation.die is not None:
            for placed, roll in zip(allocation.allocations, allocation.rolls, strict=True):
                picked.setdefault(placed.figure_id, []).append(roll)
        power_rolls = Rolls(outcome.rolls[len(allocation.rolls) :])
        by_id = {str(trooper.id): trooper for trooper in troopers}
        casualties = [
            trooper_casualty(
                by_id[change.figure_id],
                change,
                picked.get(change.figure_id, [])
                + ([power_rolls.take()] if change.power_armour_roll is not None else []),
            )
            for change in outcome.casualties
        ]
        return CasualtiesResolved(
            battle_id=ctx.battle.id,
            unit_id=params.target_id,
            turn=ctx.battle.turn,
            mode="quick_and_dirty",
            potential_hits=hits,
            cover=params.cover,
            pool=[uuid.UUID(figure_id) for figure_id in allocation.pool],
            casualties=casualties,
            leaders_down=leaders_down(ctx, casualties),
            dice=dice_json(outcome.rolls),
        )

    @staticmethod
    def _fire_event(
        ctx: BattleContext,
        params: DirectFireParams,
        order: FireOrder,
        outcome: FireOutcome,
        target: Participant,
        casualties: CasualtiesResolved | None,
    ) -> FireResolved:
        suppresses = fire_suppresses(outcome.effect, travel_mode=params.travel_mode)
        markers = place_markers(target.suppression, int(suppresses))
        # P.20: casualties from fire, or being suppressed by fire for the first time in the
        # battle (a marker from a fallen leader, or one removed since, does not count).
        due: list[ConfidenceCircumstance] = []
        if casualties is not None and casualties.casualties:
            due.append(ConfidenceCircumstance.CASUALTIES_FROM_FIRE)
        elif suppresses and not suppressed_by_fire_before(ctx, params.target_id):
            due.append(ConfidenceCircumstance.FIRST_SUPPRESSED_BY_FIRE)
        return FireResolved(
            battle_id=ctx.battle.id,
            unit_id=params.unit_id,
            target_id=params.target_id,
            turn=ctx.battle.turn,
            method=outcome.method.value,
            distance=params.distance,
            range_bands=order.bands,
            cover=params.cover,
            in_position=params.in_position,
            lone_figure=params.lone_figure,
            travel_mode=params.travel_mode,
            range_die=outcome.range_die.die.value,
            range_roll=outcome.range_roll,
            firer_dice=[die.value for die in outcome.firer_dice],
            firer_rolls=list(outcome.firer_rolls),
            effect=outcome.effect.value,
            total=outcome.total,
            potential_hits=outcome.potential_hits,
            left_over=outcome.hits.left_over if outcome.hits else None,
            left_over_roll=outcome.hits.left_over_roll if outcome.hits else None,
            impact_die=params.impact_die,
            hits_divisor_die=outcome.hits.divisor.value if outcome.hits else None,
            suppression_before=markers.before,
            suppression_after=markers.after,
            confidence_test_for=test_called_for(ctx, target, due),
            dice=dice_json(outcome.rolls),
        )


def _method(ctx: BattleContext) -> FireMethod:
    return FireMethod(ctx.options.fire_method)


def suppressed_by_fire_before(ctx: BattleContext, target_id: uuid.UUID) -> bool:
    """Whether fire has suppressed the unit earlier in this battle (P.20 "FIRST time"): direct
    fire, a sniper's shot (P.27), or a fire mission's burst catching one of its figures (P.47)."""
    direct = any(
        event.payload["target_id"] == str(target_id)
        and (event.payload["effect"] != FireEffect.NO_EFFECT.value or event.payload["travel_mode"])
        for event in battle_events(ctx, FIRE_RESOLVED_EVENT)
    )
    # Every sniper shot suppresses its target, even one that misses (P.27).
    sniped = any(
        event.payload["target_id"] == str(target_id)
        for event in battle_events(ctx, SNIPER_FIRED_EVENT)
    )
    struck = any(
        unit["unit_id"] == str(target_id)
        for event in battle_events(ctx, FIRE_MISSION_STRUCK_EVENT)
        for unit in event.payload["units"]
    )
    return direct or sniped or struck


def _hits_text(p: dict[str, Any]) -> str:
    hits = p["potential_hits"]
    told = f"{hits} potential hit{'s' if hits != 1 else ''}"
    if p["method"] == "quick_and_dirty":
        told = f"{hits} hit{'s' if hits != 1 else ''} against armour d{p['hits_divisor_die']}"
    if p["left_over_roll"] is None:
        return told
    scored = "scored" if p["left_over_roll"] <= p["left_over"] else "saved"
    return (
        f"{told} (left-over {p['left_over']}: the target rolled {p['left_over_roll']}, "
        f"extra hit {scored})"
    )


_EFFECT_TEXT = {
    "no_effect": "no effect",
    "suppression": "the target is suppressed",
    "effective": "fully effective",
}


@register
class FireProjection(Projection):
    """The log lines of direct fire and the suppression it puts on targets (rows of the battles
    projection)."""

    name = "battles.fire"
    version = 2

    @Projection.handles("battles.FireResolved")
    def fire_resolved(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        key = participant_key(p["battle_id"], p["target_id"])
        if rows.get(Participant, key) is not None:
            rows.update(Participant, key, suppression=p["suppression_after"])
        firer = unit_name(rows, p["unit_id"])
        target = unit_name(rows, p["target_id"])
        bands = p["range_bands"]
        where = f"{bands} range band{'s' if bands != 1 else ''}, {p['cover']} cover"
        if p["in_position"]:
            where += ", in position"
        scores = " + ".join(
            f"d{die} {face}" for die, face in zip(p["firer_dice"], p["firer_rolls"], strict=True)
        )
        line = (
            f"{firer} fired on {target} ({where}): range d{p['range_die']} rolled "
            f"{p['range_roll']} against {scores}: {_EFFECT_TEXT[p['effect']]}"
        )
        if p["effect"] == "effective":
            line += f", total {p['total']} for {_hits_text(p)}"
        if p["travel_mode"]:
            line += f"; fired on in travel mode, {target} is suppressed whatever the result (P.24)"
        if p["suppression_after"] > p["suppression_before"]:
            markers = p["suppression_after"]
            line += f"; {target} now has {markers} suppression marker{'s' if markers != 1 else ''}"
        elif (p["effect"] != "no_effect" or p["travel_mode"]) and p["suppression_after"] >= 3:
            line += (
                f"; {target} already has {p['suppression_after']} suppression markers, the most "
                "a unit carries (P.18)"
            )
        line += "."
        if p["confidence_test_for"]:
            why = " and ".join(c.replace("_", " ") for c in p["confidence_test_for"])
            line += f" {target} must take a confidence test ({why}, P.20)."
        log(rows, event, line + dice_text(p["dice"]))
