"""Fast and Dirty shooting in a battle: ``fad_shoot`` (at infantry, FaD p.17-19),
``fad_blast`` (a blast weapon at infantry, p.21) and ``fad_shoot_vehicle`` (p.19-21).

The rules are :mod:`rules.fad.shooting` and :mod:`rules.fad.weapons`. The firing weapons are
given in the parameters, not read from the troopers: the book counts only the figures that can
see and reach the target (p.17-18), a support weapon adds its Fire Effect only within its own
range, and a roster names weapons in free text ("rifle"); the umpire names what fires, and the
service checks it against the unit's figures on the table. The target's figures come in the
order hits reach them (nearest first, p.18), as the table measures them.

Each action records its own event with every die, and the casualties as the
``battles.FadLossesRecorded`` the ``fad_losses`` action records, so the rosters and the
after-action fold them the same way. The target's marker (Under Fire or Pinned, p.24) goes on
its :class:`battles.models.Participant`. Fire priority and line of sight are the table's to
judge; the service checks range, markers and the figures.

One module on purpose, though long: the three actions share the Fire Effect, the checks of the
firer and its weapons, and the hits on infantry (a blast's too), and one projection logs them.
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from fractions import Fraction
from typing import Any, Literal

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.after_action.fad_events import DamagedVehicle, FadLossesRecorded, LostFigure
from battles.fad import activation
from battles.fad import state as fad_state
from battles.fad.state import wound_result
from battles.models import Participant
from battles.projections import dice_text, log, participant_key, unit_name
from battles.suppression import is_vehicle_unit
from campaigns.events import DieRoll, dice_json
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Trooper, Vehicle
from rosters.vocabulary import TrooperRole, TrooperStatus, VehicleState
from rules.dice import DiceSource, Roll, rolling_for
from rules.errors import RuleError
from rules.fad import morale
from rules.fad.activation import UnitAction
from rules.fad.options import ReactiveArmourWeapon, UnderFireOnMiss, VehicleType
from rules.fad.scales import Quality
from rules.fad.shooting import (
    Concealment,
    Marker,
    PenetrationResult,
    RangeBand,
    Shooter,
    TargetConditions,
    TargetFigure,
    VehicleCondition,
    VehicleDamageEffect,
    allocate_hits,
    crossfire_pinning_test,
    destroyed_vehicle_passengers,
    determine_damage,
    fire_effect,
    hits_from_effect,
    marker_from_fire,
    penetration,
    pinning_level,
    range_band,
    ranging_in,
    small_squad_penalty,
    squad_based_damage,
    strike_effect,
    vehicle_damage,
)
from rules.fad.weapons import WEAPONS, Armour, Weapon, WeaponClass, armour_named, weapon_damage
from rules.fad.wounded import DamageEffect, MedicalEvent, MedicalState, next_medical_state
from rules.rulesets import Ruleset

SHOT_EVENT = "battles.FadShotResolved"
BLAST_EVENT = "battles.FadBlastResolved"
VEHICLE_SHOT_EVENT = "battles.FadVehicleShotResolved"

# A trooper's roster status as a medical state (FaD p.35); other statuses are off the table.
_ON_TABLE = {
    TrooperStatus.FIT: MedicalState.HEALTHY,
    TrooperStatus.WOUNDED: MedicalState.WOUNDED,
    TrooperStatus.STABILISED: MedicalState.STABILISED,
}


def marker_after(current: str, placed: Marker, *, vehicle: bool = False) -> Marker:
    """The target's marker once the shot places ``placed`` (FaD p.24): never stacks, Pinned
    replaces Under Fire, vehicles are never pinned (:func:`rules.fad.morale.marker_after`)."""
    return Marker(morale.marker_after(current, placed.value, vehicle=vehicle))


# --- parameters ---------------------------------------------------------------------------------


# What the table says of a firer that ignores its marker, beyond the traits the service knows.
IgnoresMarker = Literal["relentless", "hardened", "last_stand"]
_IGNORES_MARKER_TEXT = (
    "The firer ignores its Under Fire or Pinned marker (p.24): relentless (p.41), hardened "
    "(Under Fire only, until its first casualty, p.40) or last_stand (p.31). Relentless and "
    "Hardened are read from the unit's traits and the mission bonuses given in this battle too."
)


class FiringWeapons(Params):
    """What fires: the squad's basic weapon and how many carry it, its support weapons, or one
    heavy weapon (a team, a sniper, a vehicle's gun)."""

    basic_weapon: Weapon | None = Field(
        default=None, description="The squad basic weapon (p.69), if riflemen fire."
    )
    riflemen: int = Field(
        default=0,
        ge=0,
        le=60,
        description="Figures firing the basic weapon that can see and reach the target (p.18: "
        "+1 per full three).",
    )
    support_weapons: list[Weapon] = Field(
        default_factory=list,
        max_length=10,
        description="Support weapons firing (p.69), one entry each; those out of their own "
        "range add nothing.",
    )
    heavy_weapon: Weapon | None = Field(
        default=None,
        description="A heavy or special weapon fired by a team, an individual or a vehicle "
        "(p.69-70); it rolls 1d6.",
    )
    individual: bool = Field(
        default=False,
        description="An individual figure firing: 1d6 instead of a squad's 2d6 (p.18). A heavy "
        "weapon always rolls 1d6.",
    )
    other_modifier: int = Field(
        default=0,
        ge=-10,
        le=10,
        description="Traits, personalities, officers and psionics the table applies (p.18).",
    )
    firer_ignores_marker: IgnoresMarker | None = Field(
        default=None, description=_IGNORES_MARKER_TEXT
    )


class ShootParams(FiringWeapons):
    unit_id: uuid.UUID = Field(description="The firing unit.")
    target_id: uuid.UUID = Field(description="The infantry unit shot at.")
    distance: float = Field(ge=0, le=1000, description="Inches to the target (p.17 Range).")
    concealment: Concealment = Field(
        default=Concealment.NOT_CONCEALED, description="At least half the target unit (p.18)."
    )
    bunched_up: bool = Field(default=False, description="Target Bunched Up (p.18): +2.")
    non_combatant: bool = Field(default=False, description="Target Non-Combatant: +2.")
    rabble_in_open: bool = Field(default=False, description="Target Rabble in open terrain: +1.")
    concealed_sniper: bool = Field(default=False, description="Target a concealed sniper: -2.")
    crossfire: bool = Field(
        default=False,
        description="The target was shot at this turn by another enemy unit about 180 degrees "
        "away: with option fire_crossfire it takes a Pinning Test (p.24).",
    )
    target_armour: Armour | None = Field(
        default=None,
        description="The target squad's armour (p.19); by default each figure's armour on the "
        "roster.",
    )
    target_order: list[uuid.UUID] = Field(
        min_length=1,
        max_length=60,
        description="Every figure of the target on the table, in the order hits reach them: "
        "nearest the firers first (p.18), or as option fire_hit_allocation says (randomised at "
        "the table, or chosen by the target's player).",
    )


# --- events -------------------------------------------------------------------------------------


class Modifier(EventPayload):
    name: str
    value: int


class HitOnFigure(EventPayload):
    trooper_id: uuid.UUID
    attacker_die: int | None = Field(description="None under squad-based damage (one roll).")
    defender_die: int | None
    attacker_score: int | None
    defender_score: int | None
    effect: Literal["no_effect", "wounded", "killed"]
    state_before: str
    state_after: str


class SquadDamage(EventPayload):
    attacker_die: int
    defender_die: int
    attacker_score: int
    defender_score: int
    saved: int = Field(ge=0)


class InfantryDamage(EventPayload):
    """The part of a shot at infantry after the hits: who is hit and what it does."""

    hits: int = Field(ge=0)
    damage_rating: int
    damage_modifier: int
    squad_based: bool
    squad_damage: SquadDamage | None = None
    recover_wounded: bool
    hit_order: str = Field(description="What the order of the figures means (p.18).")
    figures_hit: list[HitOnFigure] = Field(default_factory=list)
    pinning_level: int
    leader_lost: bool = Field(
        default=False,
        description="The shot took the squad leader out of action: with option "
        "adv_command_disruption the squad is Pinned (p.25).",
    )
    marker_before: str
    marker_after: str


@event_type(SHOT_EVENT, stream="battle")
class FadShotResolved(InfantryDamage):
    """A unit shot at an infantry unit (FaD p.17-19, p.24, p.35): Fire Effect, hits on the
    closest figures, Determine Damage for each, and the Under Fire or Pinned marker."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    target_id: uuid.UUID
    turn: int = Field(ge=0)
    distance: float
    range_band: str
    shooter_dice: list[int]
    support_dice: list[int]
    modifiers: list[Modifier]
    fire_effect: int
    concealment: str
    support_out_of_range: list[str] = Field(default_factory=list)
    crossfire_die: int | None = Field(
        default=None, description="The Crossfire Pinning Test (p.24), when one was taken."
    )
    dice: list[DieRoll] = Field(default_factory=list)


# --- shared checks and steps --------------------------------------------------------------------


def _refused(error: RuleError, field: str) -> RuleViolation:
    return RuleViolation(error.code, error.message, field=error.field or field)


def _quality(ctx: BattleContext, unit_id: uuid.UUID, field: str) -> Quality:
    unit = ctx.unit(unit_id)
    try:
        return Quality[unit.quality.upper()]
    except KeyError:
        raise StateConflict(
            "fire.no_quality",
            f"{unit.name} has no Fast and Dirty quality on the roster (p.6).",
            field=field,
        ) from None


def check_firer(
    ctx: BattleContext,
    unit_id: uuid.UUID,
    target_id: uuid.UUID,
    *,
    ignores_marker: str | None = None,
) -> Participant:
    """The firing unit may shoot at the target: both fight, on opposite sides, and the firer is
    not pinned (p.24: a pinned squad cannot Shoot; unless Relentless, p.41, or making a Last
    Stand, p.31) nor a broken vehicle (p.13: it falls back at Standard speed and may not
    Shoot)."""
    firer = ctx.participant(unit_id, field="unit_id")
    target = ctx.participant(target_id, field="target_id")
    if firer.side == target.side:
        raise CommandError(
            "fire.own_side", "A unit cannot shoot at its own side.", field="target_id"
        )
    unit = ctx.unit(unit_id)
    if fad_state.marker_in_effect(ctx, firer, unit, declared=ignores_marker) == Marker.PINNED:
        raise RuleViolation(
            "fire.pinned", f"{unit.name} is Pinned: it cannot Shoot (p.24).", field="unit_id"
        )
    if firer.broken and is_vehicle_unit(unit):
        raise RuleViolation(
            "fire.broken_vehicle",
            f"{unit.name} is broken: its crew falls back at Standard speed and may not Shoot "
            "(p.13).",
            field="unit_id",
        )
    return firer


def _on_table(ctx: BattleContext, unit_id: uuid.UUID) -> list[Trooper]:
    return [t for t in ctx.troopers(unit_id) if TrooperStatus(t.status) in _ON_TABLE]


def _check_class(weapon: Weapon | None, weapon_class: WeaponClass, field: str) -> None:
    if weapon is not None and WEAPONS[weapon].weapon_class is not weapon_class:
        raise CommandError(
            "fire.wrong_weapon_class",
            f"The {weapon.label} is not a {weapon_class.value} weapon (p.69-70).",
            field=field,
        )


def check_weapons(ctx: BattleContext, params: Any) -> None:
    """The weapons named can fire together and the unit has the figures to fire them."""
    _check_class(params.basic_weapon, WeaponClass.BASIC, "basic_weapon")
    for index, weapon in enumerate(params.support_weapons):
        _check_class(weapon, WeaponClass.SUPPORT, f"support_weapons.{index}")
    _check_class(params.heavy_weapon, WeaponClass.HEAVY, "heavy_weapon")
    if params.riflemen and params.basic_weapon is None:
        raise CommandError(
            "fire.no_basic_weapon", "Name the basic weapon the riflemen fire.", field="basic_weapon"
        )
    if not params.riflemen and not params.support_weapons and params.heavy_weapon is None:
        raise CommandError("fire.no_weapons", "Name the weapons that fire.", field="riflemen")
    if params.heavy_weapon is not None and (params.riflemen or params.support_weapons):
        raise CommandError(
            "fire.heavy_fires_alone",
            "A heavy weapon fires individually (p.17): shoot with it in its own action.",
            field="heavy_weapon",
        )
    fit = sum(1 for t in _on_table(ctx, params.unit_id) if t.status == TrooperStatus.FIT)
    firing = params.riflemen + len(params.support_weapons)
    if not is_vehicle_unit(ctx.unit(params.unit_id)) and firing > fit:
        raise RuleViolation(
            "fire.not_enough_figures",
            f"{firing} figures fire, but the unit has {fit} fit on the table.",
            field="riflemen",
        )


def _shooter(ctx: BattleContext, params: Any, firer: Participant, *, saws: int) -> Shooter:
    unit = ctx.unit(params.unit_id)
    return Shooter(
        quality=_quality(ctx, params.unit_id, "unit_id"),
        squad=params.heavy_weapon is None and not params.individual,
        infantry=not is_vehicle_unit(unit),
        riflemen=params.riflemen,
        saws=saws,
        support=tuple(
            Weapon(w) for w in params.support_weapons if w != Weapon.SQUAD_AUTOMATIC_WEAPON
        ),
        heavy=Weapon(params.heavy_weapon) if params.heavy_weapon else None,
        # Under Fire's -3 (p.24), unless the unit ignores its marker (p.31, p.40, p.41).
        under_fire_or_broken=fad_state.marker_in_effect(
            ctx, firer, unit, declared=params.firer_ignores_marker
        )
        == Marker.UNDER_FIRE
        or firer.broken,
        other_modifier=params.other_modifier,
    )


def _band(ctx: BattleContext, params: Any) -> RangeBand:
    """The range band of the weapon that sets the squad's range: its basic weapon, or the heavy
    weapon, or (support weapons firing alone) the longest-ranged of them (p.17)."""
    if params.heavy_weapon is not None:
        multiplier = WEAPONS[Weapon(params.heavy_weapon)].range_multiplier
    elif params.basic_weapon is not None and params.riflemen:
        multiplier = WEAPONS[Weapon(params.basic_weapon)].range_multiplier
    else:
        multiplier = max(WEAPONS[Weapon(w)].range_multiplier for w in params.support_weapons)
    try:
        return range_band(
            distance_inches=_inches(params.distance),
            quality=_quality(ctx, params.unit_id, "unit_id"),
            range_multiplier=multiplier,
            fire_base_range_band=ctx.options.fire_base_range_band,
        )
    except RuleError as error:
        raise _refused(error, "distance") from None


def _inches(distance: float) -> Fraction:
    return Fraction(distance).limit_denominator(1000)


def _support_in_range(ctx: BattleContext, params: Any) -> tuple[list[Weapon], list[Weapon]]:
    """Support weapons within their own long range add their Fire Effect; the rest do not. The
    book is silent; each weapon has its own range multiplier (p.69), which the force sheet of the
    tutorial (p.44-47) records weapon by weapon."""
    quality = _quality(ctx, params.unit_id, "unit_id")
    reach: list[Weapon] = []
    out: list[Weapon] = []
    for name in params.support_weapons:
        long_range = 3 * quality.base_range_inches * WEAPONS[Weapon(name)].range_multiplier
        (reach if _inches(params.distance) <= long_range else out).append(name)
    return reach, out


def _damage_rating(ctx: BattleContext, params: Any) -> int:
    """The highest Damage of the firing weapons (p.19); support weapons have none."""
    mounted = is_vehicle_unit(ctx.unit(params.unit_id))
    ratings = [
        weapon_damage(
            Weapon(name),
            vehicle_mounted=mounted,
            weapons_damage_table=ctx.options.weapons_damage_table,
        )
        for name in (params.basic_weapon if params.riflemen else None, params.heavy_weapon)
        if name is not None
    ]
    found = [rating for rating in ratings if rating is not None]
    if not found:
        raise RuleViolation(
            "fire.no_damage_weapon",
            "Support weapons have no Damage rating (p.69): the basic weapon or a heavy weapon "
            "must fire to roll damage.",
            field="support_weapons",
        )
    return max(found)


def check_target_order(ctx: BattleContext, target_id: uuid.UUID, order: list[uuid.UUID]) -> None:
    """The order names every figure of the target on the table, once each."""
    on_table = {t.id for t in _on_table(ctx, target_id)}
    if not on_table:
        raise StateConflict(
            "fire.no_target_figures", "The target has no figure on the table.", field="target_id"
        )
    for index, trooper_id in enumerate(order):
        if trooper_id not in on_table:
            raise CommandError(
                "fire.not_on_table",
                "That trooper is not a figure of the target on the table.",
                field=f"target_order.{index}",
            )
    if len(set(order)) != len(order):
        raise CommandError("fire.named_twice", "A figure is named twice.", field="target_order")
    if set(order) != on_table:
        raise CommandError(
            "fire.order_incomplete",
            f"Name all {len(on_table)} figures of the target on the table, in the order hits "
            "reach them.",
            field="target_order",
        )


def target_figures(
    ctx: BattleContext, target_id: uuid.UUID, order: list[uuid.UUID], armour: Armour | None
) -> tuple[list[TargetFigure], dict[str, Trooper]]:
    by_id = {str(t.id): t for t in _on_table(ctx, target_id)}
    figures = []
    for index, trooper_id in enumerate(order):
        trooper = by_id[str(trooper_id)]
        try:
            worn = armour if armour is not None else armour_named(trooper.armour)
        except RuleError as error:
            raise RuleViolation(
                error.code,
                f"{trooper.name}: {error.message} Give the target's armour.",
                field=f"target_order.{index}",
            ) from None
        figures.append(
            TargetFigure(
                figure_id=str(trooper.id),
                state=_ON_TABLE[TrooperStatus(trooper.status)],
                armour_rating=worn.rating,
                name=trooper.name,
            )
        )
    return figures, by_id


def _power_armour(ctx: BattleContext, target_id: uuid.UUID, armour: Armour | None) -> bool:
    """p.24: a unit wearing power armour; every figure on the table wears it."""
    troopers = _on_table(ctx, target_id)
    if armour is not None:
        return armour.is_power_armour
    return all(
        t.power_armour or t.armour.strip().lower().replace(" ", "_").endswith("power")
        for t in troopers
    )


def infantry_damage(
    ctx: BattleContext,
    *,
    dice: DiceSource,
    params: Any,
    effect: int,
    damage_rating: int,
    damage_modifier: int,
    pinning_weapon: bool,
) -> tuple[dict[str, Any], list[Roll], FadLossesRecorded | None]:
    """Hits on the target's figures, damage, and the marker (p.18-19, p.24, p.35): the fields of
    :class:`InfantryDamage`, the dice, and the losses to record."""
    options = ctx.options
    target = ctx.participant(params.target_id, field="target_id")
    quality = _quality(ctx, params.target_id, "target_id")
    figures, by_id = target_figures(
        ctx, params.target_id, params.target_order, params.target_armour
    )
    hits = hits_from_effect(effect, params.concealment)
    hit = allocate_hits(
        hits=hits,
        figures=figures,
        fire_allocation_includes_wounded=options.fire_allocation_includes_wounded,
    )
    rolls: list[Roll] = []
    figures_hit: list[HitOnFigure] = []
    squad: SquadDamage | None = None
    with rolling_for(dice, str(params.target_id)):
        if options.fire_squad_based_damage and hit:
            armour = {figure.armour_rating for figure in hit}
            if len(armour) != 1:
                raise RuleViolation(
                    "fire.mixed_armour",
                    "Squad-based damage rolls once against the squad's armour: the figures hit "
                    "wear different armour; give the target's armour.",
                    field="target_armour",
                )
            roll = squad_based_damage(
                dice=dice,
                figures_hit=hit,
                damage_rating=damage_rating,
                armour_rating=armour.pop(),
                damage_modifier=damage_modifier,
                adv_recover_wounded=options.adv_recover_wounded,
            )
            rolls.extend(roll.rolls)
            squad = SquadDamage(
                attacker_die=roll.attacker_die,
                defender_die=roll.defender_die,
                attacker_score=roll.attacker_score,
                defender_score=roll.defender_score,
                saved=roll.saved,
            )
            results = {r.figure_id: r for r in roll.figures}
            for figure in hit:
                result = results.get(figure.figure_id)
                figures_hit.append(
                    HitOnFigure(
                        trooper_id=uuid.UUID(figure.figure_id),
                        attacker_die=None,
                        defender_die=None,
                        attacker_score=None,
                        defender_score=None,
                        effect=result.effect.value if result else DamageEffect.NO_EFFECT.value,
                        state_before=figure.state.value,
                        state_after=(result.state_after if result else figure.state).value,
                    )
                )
        else:
            for damage in determine_damage(
                dice=dice,
                figures_hit=hit,
                damage_rating=damage_rating,
                damage_modifier=damage_modifier,
                adv_recover_wounded=options.adv_recover_wounded,
            ):
                rolls.extend(damage.rolls)
                figures_hit.append(
                    HitOnFigure(
                        trooper_id=uuid.UUID(damage.figure_id),
                        attacker_die=damage.attacker_die,
                        defender_die=damage.defender_die,
                        attacker_score=damage.attacker_score,
                        defender_score=damage.defender_score,
                        effect=damage.effect.value,
                        state_before=damage.outcome.state_before.value,
                        state_after=damage.outcome.state_after.value,
                    )
                )
    power = _power_armour(ctx, params.target_id, params.target_armour)
    placed = marker_from_fire(
        effect=effect, quality=quality, power_armour=power, pinning_weapon=pinning_weapon
    )
    # p.25 Command Disruption (option adv_command_disruption): a squad whose leader this fire
    # takes out of action is Pinned instead of Under Fire.
    leader_lost = any(
        by_id[str(h.trooper_id)].role == TrooperRole.LEADER
        and h.effect != DamageEffect.NO_EFFECT
        and MedicalState(h.state_before).is_fit
        for h in figures_hit
    )
    if leader_lost and options.adv_command_disruption:
        placed = Marker.PINNED
    fields = {
        "hits": hits,
        "damage_rating": damage_rating,
        "damage_modifier": damage_modifier,
        "squad_based": bool(options.fire_squad_based_damage),
        "squad_damage": squad,
        "recover_wounded": bool(options.adv_recover_wounded),
        "hit_order": str(options.fire_hit_allocation),
        "figures_hit": figures_hit,
        "pinning_level": pinning_level(quality, power_armour=power),
        "marker_before": target.marker,
        "marker_after": marker_after(target.marker, placed).value,
        "leader_lost": leader_lost,
    }
    lost = [
        LostFigure(
            trooper_id=h.trooper_id,
            result=wound_result(ctx, h.trooper_id, "killed" if h.effect == "killed" else "wounded"),
            status_before=TrooperStatus(by_id[str(h.trooper_id)].status),
        )
        for h in figures_hit
        if h.effect != DamageEffect.NO_EFFECT
    ]
    losses = (
        FadLossesRecorded(
            battle_id=ctx.battle.id,
            unit_id=params.target_id,
            turn=ctx.battle.turn,
            troopers=lost,
            cause="fire",
        )
        if lost
        else None
    )
    return fields, rolls, losses


def _small_squad(ctx: BattleContext, params: Any) -> int:
    """p.19: -1 to damage when the firing squad is down to one or two models."""
    if params.heavy_weapon is not None or params.individual:
        return 0
    fit = sum(1 for t in _on_table(ctx, params.unit_id) if t.status == TrooperStatus.FIT)
    return small_squad_penalty(fit)


# --- fad_shoot ----------------------------------------------------------------------------------


@battle_action
class FadShoot(BattleAction):
    """A unit shoots at an infantry unit (FaD p.17-19): Fire Effect (2d6 keep the highest for a
    squad, 1d6 for an individual or a heavy weapon, plus a d6 per Flamethrower or Grenade
    Launcher), then two dice per hit (damage, armour), or two for the volley under squad-based
    damage."""

    action = "fad_shoot"
    rulesets = (Ruleset.FAD.value,)
    Params = ShootParams

    def check_action(self, ctx: BattleContext, params: ShootParams) -> None:
        check_firer(
            ctx, params.unit_id, params.target_id, ignores_marker=params.firer_ignores_marker
        )
        check_weapons(ctx, params)
        if params.crossfire and not ctx.options.fire_crossfire:
            raise RuleViolation(
                "fire.crossfire_off",
                "This campaign does not play the optional Crossfire rule (p.24).",
                field="crossfire",
            )
        if (
            params.heavy_weapon is not None
            and WEAPONS[Weapon(params.heavy_weapon)].hard_targets_only
        ):
            raise RuleViolation(
                "fire.hard_targets_only",
                "An RPG may only fire at hard targets: vehicles, buildings, bridges (p.69).",
                field="heavy_weapon",
            )
        if is_vehicle_unit(ctx.unit(params.target_id)):
            raise CommandError(
                "fire.target_is_vehicle",
                "Shoot at a vehicle with fad_shoot_vehicle (p.19).",
                field="target_id",
            )
        check_target_order(ctx, params.target_id, params.target_order)
        target_figures(ctx, params.target_id, params.target_order, params.target_armour)
        _band(ctx, params)
        _damage_rating(ctx, params)
        _quality(ctx, params.target_id, "target_id")
        activation.check_unit_action(ctx, params.unit_id, UnitAction.SHOOT)

    def resolve(self, ctx: BattleContext, params: ShootParams, dice: DiceSource) -> list[Any]:
        firer = ctx.participant(params.unit_id)
        target = ctx.participant(params.target_id, field="target_id")
        band = _band(ctx, params)
        reach, out = _support_in_range(ctx, params)
        saws = sum(1 for w in reach if w == Weapon.SQUAD_AUTOMATIC_WEAPON)
        shooter = _shooter(
            ctx, params.model_copy(update={"support_weapons": reach}), firer, saws=saws
        )
        rolled = fire_effect(
            dice=dice,
            shooter=shooter,
            band=band,
            target=TargetConditions(
                marked=bool(target.marker),
                bunched_up=params.bunched_up,
                non_combatant=params.non_combatant,
                rabble_in_open=params.rabble_in_open,
                concealed_sniper=params.concealed_sniper,
            ),
            fire_saw_double_count=ctx.options.fire_saw_double_count,
        )
        heavy = WEAPONS[Weapon(params.heavy_weapon)] if params.heavy_weapon else None
        fields, rolls, losses = infantry_damage(
            ctx,
            dice=dice,
            params=params,
            effect=rolled.total,
            damage_rating=_damage_rating(ctx, params),
            damage_modifier=_small_squad(ctx, params),
            pinning_weapon=bool(heavy and heavy.always_pins),
        )
        crossfire = None
        if params.crossfire and fields["marker_after"] != Marker.PINNED:
            with rolling_for(dice, str(params.target_id)):
                crossfire = crossfire_pinning_test(
                    dice=dice, quality=_quality(ctx, params.target_id, "target_id")
                )
            rolls.extend(crossfire.rolls)
            if crossfire.pinned:
                fields["marker_after"] = Marker.PINNED.value
        shot = FadShotResolved(
            battle_id=ctx.battle.id,
            unit_id=params.unit_id,
            target_id=params.target_id,
            turn=ctx.battle.turn,
            distance=params.distance,
            range_band=band.value,
            shooter_dice=list(rolled.dice),
            support_dice=list(rolled.support_dice),
            modifiers=[Modifier(name=n, value=v) for n, v in rolled.modifiers],
            fire_effect=rolled.total,
            concealment=Concealment(params.concealment).value,
            support_out_of_range=out,
            crossfire_die=crossfire.die if crossfire else None,
            dice=dice_json([*rolled.rolls, *rolls]),
            **fields,
        )
        return [shot] if losses is None else [shot, losses]


# --- fad_blast ----------------------------------------------------------------------------------


class BlastParams(Params):
    unit_id: uuid.UUID = Field(description="The unit firing the blast weapon.")
    target_id: uuid.UUID = Field(description="An infantry unit with figures in the blast.")
    weapon: Weapon = Field(
        description="Cannon, mortar or missile launcher firing high explosive (p.21)."
    )
    distance: float = Field(ge=0, le=1000, description="Inches to the target point (p.17).")
    concealment: Concealment = Field(default=Concealment.NOT_CONCEALED)
    bunched_up: bool = Field(default=False, description="Target Bunched Up (p.21): +2.")
    non_combatant: bool = Field(default=False, description="Target Non-Combatant: +2.")
    rabble_in_open: bool = Field(default=False, description="Target Rabble in open terrain: +1.")
    target_armour: Armour | None = Field(default=None)
    firer_ignores_marker: IgnoresMarker | None = Field(
        default=None, description=_IGNORES_MARKER_TEXT
    )
    target_order: list[uuid.UUID] = Field(
        min_length=1,
        max_length=60,
        description="Every figure of the target on the table: those inside the blast radius "
        "first (p.21), each group nearest first.",
    )


@event_type(BLAST_EVENT, stream="battle")
class FadBlastResolved(InfantryDamage):
    """A blast weapon fired at an infantry unit (FaD p.21): Ranging In, then the Strike Effect
    (2d6 added), hits, damage and the marker. A round that misses its mark hits nothing."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    target_id: uuid.UUID
    turn: int = Field(ge=0)
    weapon: str
    distance: float
    blast_inches: int
    ranging_in_die: int
    on_target: bool
    strike_dice: list[int] = Field(default_factory=list)
    modifiers: list[Modifier] = Field(default_factory=list)
    strike_effect: int | None = None
    concealment: str
    dice: list[DieRoll] = Field(default_factory=list)


@battle_action
class FadBlast(BattleAction):
    """A blast weapon fired directly at infantry (FaD p.21): d6 Ranging In (5+), then 2d6 Strike
    Effect and two dice per hit (damage, armour). Option ``fire_under_fire_on_miss`` decides
    whether a round that misses its mark still marks the target Under Fire."""

    action = "fad_blast"
    rulesets = (Ruleset.FAD.value,)
    Params = BlastParams

    def check_action(self, ctx: BattleContext, params: BlastParams) -> None:
        check_firer(
            ctx, params.unit_id, params.target_id, ignores_marker=params.firer_ignores_marker
        )
        if not WEAPONS[params.weapon].blast_inches:
            raise CommandError(
                "fire.not_a_blast_weapon",
                f"The {params.weapon.label} has no blast radius (p.21).",
                field="weapon",
            )
        if is_vehicle_unit(ctx.unit(params.target_id)):
            raise CommandError(
                "fire.target_is_vehicle",
                "Armoured vehicles in a blast are not affected (p.21).",
                field="target_id",
            )
        check_target_order(ctx, params.target_id, params.target_order)
        target_figures(ctx, params.target_id, params.target_order, params.target_armour)
        _band(ctx, self._as_heavy(params))
        _quality(ctx, params.target_id, "target_id")
        # One round hits every unit in its radius (p.21): a record for each is one Shoot.
        activation.check_unit_action(
            ctx, params.unit_id, UnitAction.SHOOT, blast_weapon=Weapon(params.weapon).value
        )

    @staticmethod
    def _as_heavy(params: BlastParams) -> Any:
        return ShootParams.model_validate(
            {
                "unit_id": params.unit_id,
                "target_id": params.target_id,
                "distance": params.distance,
                "heavy_weapon": params.weapon,
                "target_order": params.target_order,
                "target_armour": params.target_armour,
                "concealment": params.concealment,
            }
        )

    def resolve(self, ctx: BattleContext, params: BlastParams, dice: DiceSource) -> list[Any]:
        target = ctx.participant(params.target_id, field="target_id")
        weapon = WEAPONS[Weapon(params.weapon)]
        ranged = ranging_in(dice=dice)
        common = {
            "battle_id": ctx.battle.id,
            "unit_id": params.unit_id,
            "target_id": params.target_id,
            "turn": ctx.battle.turn,
            "weapon": params.weapon,
            "distance": params.distance,
            "blast_inches": weapon.blast_inches,
            "ranging_in_die": ranged.die,
            "on_target": ranged.on_target,
            "concealment": Concealment(params.concealment).value,
        }
        if not ranged.on_target:
            # Direct fire that misses its mark: the target was still shot at (p.24), unless
            # option fire_under_fire_on_miss says never.
            marked = (
                UnderFireOnMiss(ctx.options.fire_under_fire_on_miss) is not UnderFireOnMiss.NEVER
            )
            quality = _quality(ctx, params.target_id, "target_id")
            power = _power_armour(ctx, params.target_id, params.target_armour)
            after = (
                marker_after(target.marker, Marker.UNDER_FIRE) if marked else Marker(target.marker)
            )
            return [
                FadBlastResolved(
                    **common,
                    hits=0,
                    damage_rating=0,
                    damage_modifier=0,
                    squad_based=bool(ctx.options.fire_squad_based_damage),
                    recover_wounded=bool(ctx.options.adv_recover_wounded),
                    hit_order=str(ctx.options.fire_hit_allocation),
                    pinning_level=pinning_level(quality, power_armour=power),
                    marker_before=target.marker,
                    marker_after=after.value,
                    dice=dice_json(ranged.rolls),
                )
            ]
        struck = strike_effect(
            dice=dice,
            target_under_fire=bool(target.marker),
            rabble_in_open=params.rabble_in_open,
            bunched_up=params.bunched_up,
            non_combatant=params.non_combatant,
        )
        damage = weapon_damage(
            Weapon(params.weapon),
            vehicle_mounted=is_vehicle_unit(ctx.unit(params.unit_id)),
            weapons_damage_table=ctx.options.weapons_damage_table,
        )
        fields, rolls, losses = infantry_damage(
            ctx,
            dice=dice,
            params=params,
            effect=struck.total,
            damage_rating=damage or 0,
            damage_modifier=0,
            pinning_weapon=weapon.always_pins,
        )
        blast = FadBlastResolved(
            **common,
            strike_dice=list(struck.dice),
            modifiers=[Modifier(name=n, value=v) for n, v in struck.modifiers],
            strike_effect=struck.total,
            dice=dice_json([*ranged.rolls, *struck.rolls, *rolls]),
            **fields,
        )
        return [blast] if losses is None else [blast, losses]


# --- fad_shoot_vehicle --------------------------------------------------------------------------


class ShootVehicleParams(FiringWeapons):
    unit_id: uuid.UUID = Field(description="The firing unit.")
    target_id: uuid.UUID = Field(description="The unit the vehicle belongs to.")
    vehicle_id: uuid.UUID = Field(description="The vehicle shot at.")
    distance: float = Field(ge=0, le=1000, description="Inches to the vehicle (p.17 Range).")
    concealment: Concealment = Field(default=Concealment.NOT_CONCEALED)
    armour: int | None = Field(
        default=None,
        ge=0,
        le=12,
        description="Armour of the facing hit (p.20, p.70); by default the roster's rating.",
    )
    crew: int = Field(default=1, ge=0, le=10, description="Crew left (0: an unmanned drone).")
    operable_weapons: int = Field(default=1, ge=0, le=10)
    immobilised: bool = False
    flyer: bool = False
    light_transport: bool = False
    moved_last_activation: bool = Field(
        default=False, description="A light transport losing its driver crashes if so (p.20)."
    )
    reactive_armour: bool = Field(
        default=False,
        description="The vehicle has Reactive Armour (p.43): 2d6 keep the highest against the "
        "weapons of option vehicle_reactive_armour_weapons.",
    )
    passengers_unit_id: uuid.UUID | None = Field(
        default=None,
        description="The unit the vehicle carries: if it is destroyed, each of its figures rolls "
        "1d6 to survive and the survivors are Pinned (p.21).",
    )
    passengers_power_armour: bool | None = Field(
        default=None,
        description="The passengers wear power armour (p.21, with Recover Wounded: wounded on 5, "
        "killed on 6); by default when every one of them does on the roster.",
    )
    within_4_unit_ids: list[uuid.UUID] = Field(
        default_factory=list,
        max_length=20,
        description='Units within 4" of the vehicle: if it is destroyed they are Pinned when it '
        "is large (option vehicle_large_types), Under Fire when small (p.21).",
    )
    vehicle_type: VehicleType | None = Field(
        default=None,
        description="The vehicle's type (p.42), which says whether it is large; by default its "
        "class on the roster.",
    )


class PassengerRoll(EventPayload):
    """One passenger of a destroyed vehicle: his survival d6 and its effect (p.21)."""

    trooper_id: uuid.UUID
    die: int
    effect: Literal["no_effect", "wounded", "killed"]
    state_before: str
    state_after: str


class NearbyUnit(EventPayload):
    """A unit within 4" of a destroyed vehicle (p.21)."""

    unit_id: uuid.UUID
    marker_before: str
    marker_after: str


class HitOnVehicle(EventPayload):
    attacker_die: int
    defender_dice: list[int]
    attacker_score: int
    defender_score: int
    penetration: Literal["no_effect", "penetrated", "penetrated_twice"]
    damage_faces: list[int] = Field(default_factory=list)
    damage_effects: list[str] = Field(default_factory=list)
    effect: str


@event_type(VEHICLE_SHOT_EVENT, stream="battle")
class FadVehicleShotResolved(EventPayload):
    """A unit shot at a vehicle (FaD p.19-21): Fire Effect, hits, penetration and the Vehicle
    Damage table for each hit; the vehicle's unit is marked Under Fire (p.24)."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    target_id: uuid.UUID
    vehicle_id: uuid.UUID
    turn: int = Field(ge=0)
    distance: float
    range_band: str
    shooter_dice: list[int]
    support_dice: list[int]
    modifiers: list[Modifier]
    fire_effect: int
    concealment: str
    hits: int = Field(ge=0)
    anti_tank: int
    armour: int
    reactive_armour_used: bool
    hits_on_vehicle: list[HitOnVehicle] = Field(default_factory=list)
    penetrating_hits: int = Field(ge=0, description="Counted when the crew Checks Resolve (p.13).")
    destroyed: bool
    marker_before: str
    marker_after: str
    dice: list[DieRoll] = Field(default_factory=list)
    passengers_unit_id: uuid.UUID | None = Field(
        default=None, description="The unit carried (p.21), if one was named."
    )
    passengers: list[PassengerRoll] = Field(
        default_factory=list,
        description="The passengers' survival rolls when the vehicle was destroyed (p.21).",
    )
    passengers_marker_before: str = ""
    passengers_marker_after: str = Field(
        default="", description="Pinned if any passenger survived (p.21, p.24)."
    )
    large: bool | None = Field(
        default=None, description="Whether the destroyed vehicle counts as large (p.21)."
    )
    nearby: list[NearbyUnit] = Field(
        default_factory=list,
        description='Units within 4" of the destroyed vehicle and the marker it put on them.',
    )


@battle_action
class FadShootVehicle(BattleAction):
    """A unit shoots at a vehicle (FaD p.19-21): Fire Effect, then for each hit a penetration
    roll (d6 against d6, or 2d6 keep the highest for Reactive Armour) and one or two rolls on the
    Vehicle Damage table. Hits after the vehicle is destroyed are not rolled."""

    action = "fad_shoot_vehicle"
    rulesets = (Ruleset.FAD.value,)
    Params = ShootVehicleParams

    def check_action(self, ctx: BattleContext, params: ShootVehicleParams) -> None:
        check_firer(
            ctx, params.unit_id, params.target_id, ignores_marker=params.firer_ignores_marker
        )
        check_weapons(ctx, params)
        self._vehicle(ctx, params)
        self._armour(ctx, params)
        _band(ctx, params)
        _passengers(ctx, params)
        if params.within_4_unit_ids:
            self._large(ctx, params)
            for index, unit_id in enumerate(params.within_4_unit_ids):
                ctx.participant(unit_id, field=f"within_4_unit_ids.{index}")
        activation.check_unit_action(ctx, params.unit_id, UnitAction.SHOOT)

    def _large(self, ctx: BattleContext, params: ShootVehicleParams) -> bool:
        """Whether the vehicle is large (p.21 does not say which are: option
        vehicle_large_types), by its type given or its class on the roster."""
        kind = params.vehicle_type
        if kind is None:
            vehicle = self._vehicle(ctx, params)
            try:
                kind = VehicleType(vehicle.vehicle_class.strip().lower().replace(" ", "_"))
            except ValueError:
                raise CommandError(
                    "fire.vehicle_type_needed",
                    f"{vehicle.name}'s class ({vehicle.vehicle_class or 'none'}) is not a vehicle "
                    "type of p.42: give vehicle_type, which says whether it is large (p.21).",
                    field="vehicle_type",
                ) from None
        return kind in {VehicleType(t) for t in ctx.options.vehicle_large_types}

    @staticmethod
    def _vehicle(ctx: BattleContext, params: ShootVehicleParams) -> Vehicle:
        found = {v.id: v for v in ctx.vehicles(params.target_id)}.get(params.vehicle_id)
        if found is None:
            raise CommandError(
                "vehicles.not_in_unit", "That vehicle is not in the unit.", field="vehicle_id"
            )
        if found.state == VehicleState.DESTROYED:
            raise StateConflict(
                "vehicles.already_out", f"{found.name} is destroyed already.", field="vehicle_id"
            )
        return found

    def _armour(self, ctx: BattleContext, params: ShootVehicleParams) -> int:
        if params.armour is not None:
            return params.armour
        vehicle = self._vehicle(ctx, params)
        if vehicle.armour is None:
            raise CommandError(
                "fire.no_vehicle_armour",
                f"{vehicle.name} has no armour rating on the roster: give the facing's armour.",
                field="armour",
            )
        return vehicle.armour

    def resolve(
        self, ctx: BattleContext, params: ShootVehicleParams, dice: DiceSource
    ) -> list[Any]:
        firer = ctx.participant(params.unit_id)
        target = ctx.participant(params.target_id, field="target_id")
        vehicle = self._vehicle(ctx, params)
        band = _band(ctx, params)
        reach, _ = _support_in_range(ctx, params)
        saws = sum(1 for w in reach if w == Weapon.SQUAD_AUTOMATIC_WEAPON)
        shooter = _shooter(
            ctx, params.model_copy(update={"support_weapons": reach}), firer, saws=saws
        )
        rolled = fire_effect(dice=dice, shooter=shooter, band=band, target_vehicle=True)
        hits = hits_from_effect(rolled.total, params.concealment)
        anti_tank = max(
            [WEAPONS[Weapon(n)].anti_tank or 0 for n in [*reach, params.heavy_weapon] if n],
            default=0,
        )
        reactive_weapons = {
            ReactiveArmourWeapon(w).value for w in ctx.options.vehicle_reactive_armour_weapons
        }
        reactive = params.reactive_armour and any(
            n in reactive_weapons for n in [*reach, params.heavy_weapon] if n
        )
        armour = self._armour(ctx, params)
        condition = VehicleCondition(
            crew=params.crew,
            operable_weapons=params.operable_weapons,
            immobilised=params.immobilised,
            flyer=params.flyer,
            light_transport=params.light_transport,
            moved_last_activation=params.moved_last_activation,
        )
        rolls: list[Roll] = [*rolled.rolls]
        on_vehicle: list[HitOnVehicle] = []
        destroyed = False
        with rolling_for(dice, str(params.vehicle_id)):
            for _ in range(hits):
                pen = penetration(
                    dice=dice, anti_tank=anti_tank, armour=armour, reactive_armour=reactive
                )
                damage = vehicle_damage(dice=dice, result=pen.result, vehicle=condition)
                rolls.extend([*pen.rolls, *damage.rolls])
                on_vehicle.append(
                    HitOnVehicle(
                        attacker_die=pen.attacker_die,
                        defender_dice=list(pen.defender_dice),
                        attacker_score=pen.attacker_score,
                        defender_score=pen.defender_score,
                        penetration=pen.result.value,
                        damage_faces=list(damage.faces),
                        damage_effects=[e.value for e in damage.effects],
                        effect=damage.effect.value,
                    )
                )
                condition = _after(condition, damage.effect)
                if damage.effect is VehicleDamageEffect.DESTROYED:
                    destroyed = True
                    break
        penetrating = sum(1 for h in on_vehicle if h.penetration != PenetrationResult.NO_EFFECT)
        carried, passengers, passenger_losses = _passengers_fate(ctx, params, dice, destroyed)
        large = self._large(ctx, params) if destroyed and params.within_4_unit_ids else None
        nearby = [
            NearbyUnit(
                unit_id=unit_id,
                marker_before=ctx.participants[unit_id].marker,
                marker_after=marker_after(
                    ctx.participants[unit_id].marker,
                    Marker.PINNED if large else Marker.UNDER_FIRE,
                    vehicle=is_vehicle_unit(ctx.unit(unit_id)),
                ).value,
            )
            for unit_id in (params.within_4_unit_ids if destroyed else [])
        ]
        rolls.extend(roll for passenger in passengers for roll in passenger[1])
        shot = FadVehicleShotResolved(
            battle_id=ctx.battle.id,
            unit_id=params.unit_id,
            target_id=params.target_id,
            vehicle_id=params.vehicle_id,
            turn=ctx.battle.turn,
            distance=params.distance,
            range_band=band.value,
            shooter_dice=list(rolled.dice),
            support_dice=list(rolled.support_dice),
            modifiers=[Modifier(name=n, value=v) for n, v in rolled.modifiers],
            fire_effect=rolled.total,
            concealment=Concealment(params.concealment).value,
            hits=hits,
            anti_tank=anti_tank,
            armour=armour,
            reactive_armour_used=reactive,
            hits_on_vehicle=on_vehicle,
            penetrating_hits=penetrating,
            destroyed=destroyed,
            marker_before=target.marker,
            marker_after=marker_after(target.marker, Marker.UNDER_FIRE, vehicle=True).value,
            dice=dice_json(rolls),
            passengers_unit_id=params.passengers_unit_id,
            passengers=[passenger for passenger, _ in passengers],
            passengers_marker_before=carried.marker if carried else "",
            passengers_marker_after=(
                marker_after(carried.marker, Marker.PINNED).value
                if carried and any(p.effect != "killed" for p, _ in passengers)
                else (carried.marker if carried else "")
            ),
            large=large,
            nearby=nearby,
        )
        damaged = any(h.effect != VehicleDamageEffect.NONE for h in on_vehicle)
        if destroyed or (damaged and vehicle.state == VehicleState.OPERATIONAL):
            return [
                shot,
                FadLossesRecorded(
                    battle_id=ctx.battle.id,
                    unit_id=params.target_id,
                    turn=ctx.battle.turn,
                    cause="fire",
                    vehicles=[
                        DamagedVehicle(
                            vehicle_id=vehicle.id,
                            condition="destroyed" if destroyed else "damaged",
                            state_before=VehicleState(vehicle.state),
                        )
                    ],
                ),
                *passenger_losses,
            ]
        return [shot]


def _passengers(ctx: BattleContext, params: ShootVehicleParams) -> Participant | None:
    """The unit the vehicle carries, of the vehicle's side and not its crew (p.21)."""
    if params.passengers_unit_id is None:
        return None
    carried = ctx.participant(params.passengers_unit_id, field="passengers_unit_id")
    owner = ctx.participant(params.target_id, field="target_id")
    if params.passengers_unit_id == params.target_id or carried.side != owner.side:
        raise CommandError(
            "fire.not_passengers",
            "The passengers are another unit of the vehicle's side.",
            field="passengers_unit_id",
        )
    return carried


def _passengers_fate(
    ctx: BattleContext, params: ShootVehicleParams, dice: DiceSource, destroyed: bool
) -> tuple[Participant | None, list[tuple[PassengerRoll, tuple[Roll, ...]]], list[Any]]:
    """p.21 Destroying a Vehicle: each passenger rolls 1d6 (basic game 4+ killed; with Recover
    Wounded 3-4 wounded and 5+ killed, in power armour 5 wounded and 6 killed); a figure already
    wounded who is wounded again dies (p.35). The passengers' unit, each roll, and their losses
    as the ``battles.FadLossesRecorded`` of fire."""
    carried = _passengers(ctx, params)
    if carried is None or not destroyed:
        return carried, [], []
    aboard = _on_table(ctx, carried.unit_id)
    power = (
        params.passengers_power_armour
        if params.passengers_power_armour is not None
        else _power_armour(ctx, carried.unit_id, None)
    )
    options = ctx.options
    with rolling_for(dice, str(carried.unit_id)):
        fates = destroyed_vehicle_passengers(
            dice=dice,
            passengers=[(trooper.name, power) for trooper in aboard],
            adv_recover_wounded=options.adv_recover_wounded,
        )
    rolled = []
    lost = []
    for trooper, fate in zip(aboard, fates, strict=True):
        before = _ON_TABLE[TrooperStatus(trooper.status)]
        after = before
        if fate.effect is not DamageEffect.NO_EFFECT:
            after = next_medical_state(state=before, event=MedicalEvent(fate.effect.value))
        effect = fate.effect
        if after is MedicalState.DEAD:
            effect = DamageEffect.KILLED
        rolled.append(
            (
                PassengerRoll(
                    trooper_id=trooper.id,
                    die=fate.die,
                    effect=effect.value,
                    state_before=before.value,
                    state_after=after.value,
                ),
                fate.rolls,
            )
        )
        if effect is not DamageEffect.NO_EFFECT:
            lost.append(
                LostFigure(
                    trooper_id=trooper.id,
                    result=wound_result(ctx, trooper.id, effect.value),
                    status_before=TrooperStatus(trooper.status),
                )
            )
    losses = (
        [
            FadLossesRecorded(
                battle_id=ctx.battle.id,
                unit_id=carried.unit_id,
                turn=ctx.battle.turn,
                cause="fire",
                troopers=lost,
            )
        ]
        if lost
        else []
    )
    return carried, rolled, losses


def _after(vehicle: VehicleCondition, effect: VehicleDamageEffect) -> VehicleCondition:
    """The vehicle after one damage result, for the next hit's roll."""
    if effect is VehicleDamageEffect.CREW_KILLED:
        return replace(vehicle, crew=vehicle.crew - 1)
    if effect is VehicleDamageEffect.IMMOBILISED:
        return replace(vehicle, immobilised=True)
    if effect is VehicleDamageEffect.WEAPON_INOPERABLE:
        return replace(vehicle, operable_weapons=vehicle.operable_weapons - 1)
    return vehicle


# --- log ----------------------------------------------------------------------------------------

_MARKER_TEXT = {"": "no marker", "under_fire": "Under Fire", "pinned": "Pinned"}


def _modifiers_text(p: dict[str, Any]) -> str:
    return "".join(
        f" {'+' if m['value'] > 0 else '-'} {abs(m['value'])} {m['name']}" for m in p["modifiers"]
    )


def damage_text(rows: Rows, p: dict[str, Any]) -> str:
    hits = p["hits"]
    text = f"{hits} hit{'s' if hits != 1 else ''}"
    parts = []
    for h in p["figures_hit"]:
        trooper = rows.get(Trooper, h["trooper_id"])
        name = trooper["name"] if trooper else "a figure"
        if h["attacker_score"] is None:
            parts.append(f"{name} {h['effect'].replace('_', ' ')}")
        else:
            parts.append(
                f"{name} {h['attacker_score']} against {h['defender_score']}: "
                f"{h['effect'].replace('_', ' ')}"
            )
    if p["squad_damage"]:
        s = p["squad_damage"]
        text += (
            f" (squad-based damage {s['attacker_score']} against {s['defender_score']}, "
            f"{s['saved']} saved)"
        )
    if parts:
        text += " on " + "; ".join(parts)
    if not p["recover_wounded"]:
        text += " (basic game: a figure hit and not saved is removed)"
    return text


def marker_text(target: str, p: dict[str, Any]) -> str:
    if p.get("leader_lost") and p["marker_after"] == "pinned":
        return f"{target} lost its squad leader and is Pinned (Command Disruption)"
    if p["marker_after"] == p["marker_before"]:
        return f"{target} stays {_MARKER_TEXT[p['marker_after']]}"
    return f"{target} is {_MARKER_TEXT[p['marker_after']]}"


def _nearby_text(rows: Rows, p: dict[str, Any]) -> str:
    """The units within 4" of a destroyed vehicle (p.21); marks them."""
    told = []
    for unit in p["nearby"]:
        key = participant_key(p["battle_id"], unit["unit_id"])
        if rows.get(Participant, key) is not None:
            rows.update(Participant, key, marker=unit["marker_after"])
        told.append(f"{unit_name(rows, unit['unit_id'])} {_MARKER_TEXT[unit['marker_after']]}")
    size = "a large vehicle" if p["large"] else "a small vehicle"
    return f'within 4" of {size} destroyed: {", ".join(told)}'


def _passengers_text(rows: Rows, p: dict[str, Any]) -> str:
    """The passengers of a destroyed vehicle, and their unit Pinned (p.21); marks the unit."""
    carried = unit_name(rows, p["passengers_unit_id"])
    fates = []
    for roll in p["passengers"]:
        trooper = rows.get(Trooper, roll["trooper_id"])
        name = trooper["name"] if trooper else "a figure"
        effect = "survives" if roll["effect"] == "no_effect" else roll["effect"]
        fates.append(f"{name} {roll['die']} {effect}")
    text = f"passengers of {carried}: {', '.join(fates)}"
    if p["passengers_marker_after"] != p["passengers_marker_before"]:
        key = participant_key(p["battle_id"], p["passengers_unit_id"])
        if rows.get(Participant, key) is not None:
            rows.update(Participant, key, marker=p["passengers_marker_after"])
    if p["passengers_marker_after"] == "pinned":
        text += f"; the survivors are placed where it was and {carried} is Pinned"
    return text


@register
class FadShootingProjection(Projection):
    """The marker FaD shooting places on its target, and the battle-log lines (rows of the
    battles projection)."""

    name = "battles.fad_shooting"
    version = 1

    @staticmethod
    def _mark(rows: Rows, p: dict[str, Any]) -> None:
        key = participant_key(p["battle_id"], p["target_id"])
        if rows.get(Participant, key) is not None:
            rows.update(Participant, key, marker=p["marker_after"])

    @Projection.handles(SHOT_EVENT)
    def shot(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        FadShootingProjection._mark(rows, p)
        firer, target = unit_name(rows, p["unit_id"]), unit_name(rows, p["target_id"])
        kept = ", ".join(str(d) for d in p["shooter_dice"])
        line = (
            f'{firer} shot at {target} ({p["distance"]:g}", {p["range_band"]} range, '
            f"{p['concealment'].replace('_', ' ')}): kept the best of {kept}"
            f"{_modifiers_text(p)} = Fire Effect {p['fire_effect']}, {damage_text(rows, p)}; "
            f"{marker_text(target, p)} (pinned above {p['pinning_level']})"
        )
        if p["crossfire_die"] is not None:
            line += f"; crossfire Pinning Test {p['crossfire_die']}"
        if p["support_out_of_range"]:
            line += f"; out of range: {', '.join(p['support_out_of_range'])}"
        log(rows, event, line + "." + dice_text(p["dice"]))

    @Projection.handles(BLAST_EVENT)
    def blast(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        FadShootingProjection._mark(rows, p)
        firer, target = unit_name(rows, p["unit_id"]), unit_name(rows, p["target_id"])
        weapon = p["weapon"].replace("_", " ")
        if not p["on_target"]:
            line = (
                f"{firer} fired a {weapon} at {target}: Ranging In {p['ranging_in_die']}, the "
                f"round missed its mark; {marker_text(target, p)}"
            )
        else:
            dice = " + ".join(str(d) for d in p["strike_dice"])
            line = (
                f'{firer} fired a {weapon} at {target} ({p["blast_inches"]}" blast): Ranging '
                f"In {p['ranging_in_die']}, on target; Strike Effect {dice}{_modifiers_text(p)} "
                f"= {p['strike_effect']}, {damage_text(rows, p)}; {marker_text(target, p)}"
            )
        log(rows, event, line + "." + dice_text(p["dice"]))

    @Projection.handles(VEHICLE_SHOT_EVENT)
    def vehicle_shot(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        FadShootingProjection._mark(rows, p)
        firer, target = unit_name(rows, p["unit_id"]), unit_name(rows, p["target_id"])
        vehicle = rows.get(Vehicle, p["vehicle_id"])
        name = vehicle["name"] if vehicle else "a vehicle"
        kept = ", ".join(str(d) for d in p["shooter_dice"])
        results = [
            f"{h['attacker_score']} against {h['defender_score']}: "
            + (
                "no effect"
                if h["penetration"] == "no_effect"
                else f"penetrated, damage {'/'.join(map(str, h['damage_faces']))} "
                f"{h['effect'].replace('_', ' ')}"
            )
            for h in p["hits_on_vehicle"]
        ]
        hits = p["hits"]
        line = (
            f'{firer} shot at {name} of {target} ({p["distance"]:g}", {p["range_band"]} '
            f"range): kept the best of {kept}{_modifiers_text(p)} = Fire Effect "
            f"{p['fire_effect']}, {hits} hit{'s' if hits != 1 else ''}"
        )
        if results:
            line += f" (anti-tank +{p['anti_tank']} against armour {p['armour']}: "
            line += "; ".join(results) + ")"
        if p["destroyed"]:
            line += f"; {name} is destroyed"
        line += f"; {marker_text(target, p)}"
        if p.get("passengers"):
            line += "; " + _passengers_text(rows, p)
        if p.get("nearby"):
            line += "; " + _nearby_text(rows, p)
        log(rows, event, line + "." + dice_text(p["dice"]))
