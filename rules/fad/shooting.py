"""Fast and Dirty shooting: Fire Effect, hits, damage, markers, vehicles and blast weapons.

FaD p.17-21 SHOOTING (at infantry p.18-19, at a vehicle p.19-21, destroying a vehicle p.21, blast
weapons p.21), p.24 UNDER FIRE and PINNING, p.35 Wounding (Recover Wounded). The weapons tables
are :mod:`rules.fad.weapons`; wounds and kills come from :func:`rules.fad.wounded.wound_or_kill`.
Every die is returned in the outcome, in the order it was rolled.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from rules.dice import DiceSource, Die, Roll
from rules.errors import RuleError
from rules.fad.options import BaseRangeBand
from rules.fad.scales import Quality
from rules.fad.weapons import WEAPONS, Weapon
from rules.fad.wounded import (
    DamageEffect,
    MedicalState,
    WoundOrKill,
    squad_based_damage_casualties,
    wound_or_kill,
)

# FaD p.18 FIRE EFFECT MODIFIERS VERSUS INFANTRY (p.19 VERSUS VEHICLES keeps the range, shooter
# quality, shooter Under Fire or Broken, trait and weapon lines).
RANGE_MODIFIER_BASE = 2
RANGE_MODIFIER_MEDIUM = -2
RANGE_MODIFIER_LONG = -4
TARGET_MARKED = -1
TARGET_BUNCHED_UP = 2
TARGET_NON_COMBATANT = 2
TARGET_RABBLE_IN_OPEN = 1
TARGET_CONCEALED_SNIPER = -2
RIFLEMEN_PER_POINT = 3
SAW_BONUS = 2
SHOOTER_UNDER_FIRE_OR_BROKEN = -3
SHOOTER_QUALITY_BONUS = {
    Quality.RABBLE: 0,
    Quality.CONSCRIPT: 0,
    Quality.REGULAR: 1,
    Quality.ELITE: 2,
}

# p.19: a squad reduced to one or two models takes -1 on its damage roll.
SMALL_SQUAD_FIGURES = 2
SMALL_SQUAD_DAMAGE = -1

# p.24: power armour adds +2 to the pinning level.
POWER_ARMOUR_PINNING = 2

# p.20 Determine Damage (vehicles): three or more points ahead rolls twice on the table.
PENETRATION_TWICE_MARGIN = 3

# p.21 Ranging In: a d6 showing this or more lands on target.
RANGING_IN_AT = 5


class RangeBand(enum.StrEnum):
    """Where the target is, as the Fire Effect modifiers read it (FaD p.17-18)."""

    BASE = "base"
    CLOSE = "close"
    MEDIUM = "medium"
    LONG = "long"

    @property
    def modifier(self) -> int:
        return {
            RangeBand.BASE: RANGE_MODIFIER_BASE,
            RangeBand.CLOSE: 0,
            RangeBand.MEDIUM: RANGE_MODIFIER_MEDIUM,
            RangeBand.LONG: RANGE_MODIFIER_LONG,
        }[self]


def range_band(
    *,
    distance_inches: Fraction | int,
    quality: Quality,
    range_multiplier: int,
    fire_base_range_band: BaseRangeBand | str = BaseRangeBand.WITHIN_BASE_RANGE,
) -> RangeBand:
    """The range band of a target ``distance_inches`` away (FaD p.17 Range).

    Close range is the unit's Base Range (Rabble 2" to Elite 5") times the weapon's range
    multiplier; Medium up to double, Long up to triple close range: a Regular squad with assault
    rifles (x5) is at close range to 20", medium 21-40", long 41-60" (the book's example).
    Beyond Long range the target cannot be shot (``fire.out_of_range``).

    Option ``fire_base_range_band`` (p.18 "Target at Base Range +2" is unclear):
    ``within_base_range`` (default) gives the +2 to a target no further than the unit's Base Range
    itself (4" for Regulars); ``close_range`` gives it to any target at close range.
    """
    quality = Quality(quality)
    if distance_inches < 0 or range_multiplier < 1:
        raise RuleError("fire.invalid", 'A distance is 0" or more and a multiplier 1 or more.')
    close = quality.base_range_inches * range_multiplier
    if distance_inches > 3 * close:
        raise RuleError(
            "fire.out_of_range",
            f'The target is {distance_inches}" away: beyond long range ({3 * close}") it cannot '
            "be shot (p.17).",
        )
    if distance_inches > 2 * close:
        return RangeBand.LONG
    if distance_inches > close:
        return RangeBand.MEDIUM
    within_base = distance_inches <= quality.base_range_inches
    if within_base or BaseRangeBand(fire_base_range_band) is BaseRangeBand.CLOSE_RANGE:
        return RangeBand.BASE
    return RangeBand.CLOSE


@dataclass(frozen=True, slots=True)
class Shooter:
    """The firing unit as the Fire Effect reads it.

    ``squad`` rolls 2d6 and keeps the highest; an individual figure, a team or a vehicle's weapon
    rolls 1d6 (p.18). ``riflemen`` are the figures firing the squad basic weapon; ``saws`` the
    Squad Automatic Weapons firing; ``support`` the other support weapons in range; ``heavy`` a
    heavy or vehicle weapon fired, whose Fire Effect is added. ``infantry``: the shooter
    modifiers marked * apply only to infantry.
    """

    quality: Quality
    squad: bool = True
    infantry: bool = True
    riflemen: int = 0
    saws: int = 0
    support: tuple[Weapon, ...] = ()
    heavy: Weapon | None = None
    under_fire_or_broken: bool = False
    other_modifier: int = 0


@dataclass(frozen=True, slots=True)
class TargetConditions:
    """What the target gives the Fire Effect against infantry (p.18); against a vehicle only the
    range counts (p.19)."""

    marked: bool = False
    bunched_up: bool = False
    non_combatant: bool = False
    rabble_in_open: bool = False
    concealed_sniper: bool = False


@dataclass(frozen=True, slots=True)
class FireEffect:
    """A Fire Effect roll: the dice kept and rolled, each modifier by name, and the total."""

    dice: tuple[int, ...]
    best: int
    support_dice: tuple[int, ...]
    modifiers: tuple[tuple[str, int], ...]
    total: int
    rolls: tuple[Roll, ...]


def fire_effect(
    *,
    dice: DiceSource,
    shooter: Shooter,
    band: RangeBand,
    target: TargetConditions = TargetConditions(),
    target_vehicle: bool = False,
    fire_saw_double_count: bool = False,
) -> FireEffect:
    """Roll the Fire Effect (FaD p.18 at infantry, p.19 at a vehicle).

    Roll 2d6 for a squad (1d6 for an individual, a team or a vehicle weapon), keep the highest, do
    not add them, and add the modifiers: range (Base Range +2, Medium -2, Long -4; never for beam
    weapons, p.69 *), shooter Regular +1 / Elite +2, infantry shooter Under Fire or Broken -3;
    against infantry also target Under Fire or Pinned -1, Bunched Up +2, Non-Combatant +2, Rabble
    in open terrain +1, concealed sniper -2, and (infantry shooter) +1 per full 3 riflemen and +2
    per SAW. Weapon bonus: each support weapon's Fire Effect (+1, or +1d6 for a Flamethrower or
    Grenade Launcher, p.69) and a heavy weapon's Fire Effect.

    Option ``fire_saw_double_count`` (default false): the SAW's +2 is both a shooter modifier and
    its Fire Effect in the p.69 table; by default it counts once, with the option twice. Against
    a vehicle the p.19 table has no SAW line: its table Fire Effect counts, once.
    """
    heavy = WEAPONS[shooter.heavy] if shooter.heavy is not None else None
    count = 2 if shooter.squad else 1
    rolls = [dice.roll(Die.D6, f"Fire Effect die {n + 1} of {count}") for n in range(count)]
    support_rolls = [
        dice.roll(Die.D6, f"Fire Effect of the {weapon.label}")
        for weapon in shooter.support
        if WEAPONS[weapon].fire_effect_d6
    ]
    modifiers: list[tuple[str, int]] = []
    if heavy is None or not heavy.no_range_modifiers:
        modifiers.append((f"{band.value} range", band.modifier))
    modifiers.append(
        (
            f"shooter {Quality(shooter.quality).name.lower()}",
            SHOOTER_QUALITY_BONUS[Quality(shooter.quality)],
        )
    )
    if shooter.infantry and shooter.under_fire_or_broken:
        modifiers.append(("shooter Under Fire or Broken", SHOOTER_UNDER_FIRE_OR_BROKEN))
    if not target_vehicle:
        for applies, name, value in (
            (target.marked, "target Under Fire or Pinned", TARGET_MARKED),
            (target.bunched_up, "target Bunched Up", TARGET_BUNCHED_UP),
            (target.non_combatant, "target Non-Combatant", TARGET_NON_COMBATANT),
            (target.rabble_in_open, "target Rabble in open terrain", TARGET_RABBLE_IN_OPEN),
            (target.concealed_sniper, "target concealed sniper", TARGET_CONCEALED_SNIPER),
        ):
            if applies:
                modifiers.append((name, value))
        if shooter.infantry:
            modifiers.append(("riflemen", shooter.riflemen // RIFLEMEN_PER_POINT))
    saw_each = SAW_BONUS
    if not target_vehicle and shooter.infantry and fire_saw_double_count:
        saw_each += WEAPONS[Weapon.SQUAD_AUTOMATIC_WEAPON].fire_effect
    if shooter.saws:
        modifiers.append(("SAWs", saw_each * shooter.saws))
    support_d6 = iter(support_rolls)
    for weapon in shooter.support:
        stats = WEAPONS[weapon]
        value = next(support_d6).result if stats.fire_effect_d6 else stats.fire_effect
        modifiers.append((weapon.label, value))
    if shooter.heavy is not None and WEAPONS[shooter.heavy].fire_effect:
        modifiers.append((shooter.heavy.label, WEAPONS[shooter.heavy].fire_effect))
    if shooter.other_modifier:
        modifiers.append(("traits and other modifiers", shooter.other_modifier))
    best = max(roll.result for roll in rolls)
    kept = tuple((name, value) for name, value in modifiers if value)
    return FireEffect(
        dice=tuple(roll.result for roll in rolls),
        best=best,
        support_dice=tuple(roll.result for roll in support_rolls),
        modifiers=kept,
        total=best + sum(value for _, value in kept),
        rolls=(*rolls, *support_rolls),
    )


class Concealment(enum.StrEnum):
    """The target's concealment (p.18 FIRE EFFECT TO HIT): at least half the unit counts."""

    NOT_CONCEALED = "not_concealed"
    PARTIALLY_CONCEALED = "partially_concealed"
    HARD_COVER = "hard_cover"

    @property
    def points_per_hit(self) -> int:
        return {
            Concealment.NOT_CONCEALED: 3,
            Concealment.PARTIALLY_CONCEALED: 4,
            Concealment.HARD_COVER: 5,
        }[self]


def hits_from_effect(effect: int, concealment: Concealment | str) -> int:
    """Hits from a Fire (or Strike) Effect: one per 3, 4 or 5 points (p.18, p.19, p.21).

    The book gives only the points needed per hit; whole hits are counted (floor division) and a
    Fire Effect of 0 or less scores none.
    """
    return max(0, effect) // Concealment(concealment).points_per_hit


class Marker(enum.StrEnum):
    """The marker a unit carries (p.24): none, Under Fire or Pinned."""

    NONE = ""
    UNDER_FIRE = "under_fire"
    PINNED = "pinned"


def pinning_level(quality: Quality, *, power_armour: bool = False) -> int:
    """The Fire Effect a squad can take without being pinned (p.24 PINNING FIRE EFFECT TABLE):
    Rabble 10, Conscript 12, Regular 14, Elite 16; power armour adds +2."""
    return Quality(quality).pinning_threshold + (POWER_ARMOUR_PINNING if power_armour else 0)


def marker_from_fire(
    *,
    effect: int,
    quality: Quality,
    power_armour: bool = False,
    vehicle: bool = False,
    pinning_weapon: bool = False,
) -> Marker:
    """The marker fire places on its target (p.24; p.69 **).

    Any unit shot at is marked Under Fire. An infantry squad is Pinned instead when the Fire
    Effect *exceeds* its pinning level (equalling it is not enough), or when the weapon is a
    Medium or Heavy Cannon or a Heavy Mortar. Vehicles are never pinned.
    """
    if vehicle:
        return Marker.UNDER_FIRE
    if pinning_weapon or effect > pinning_level(quality, power_armour=power_armour):
        return Marker.PINNED
    return Marker.UNDER_FIRE


@dataclass(frozen=True, slots=True)
class TargetFigure:
    """A figure of the target unit, in the order hits reach it, and its medical state."""

    figure_id: str
    state: MedicalState = MedicalState.HEALTHY
    armour_rating: int = 0
    name: str = ""

    @property
    def label(self) -> str:
        """How the dice prompt names the figure: its name, or its id."""
        return self.name or self.figure_id


def allocate_hits(
    *,
    hits: int,
    figures: Sequence[TargetFigure],
    fire_allocation_includes_wounded: bool = True,
) -> tuple[TargetFigure, ...]:
    """The figures that take the hits, one hit each, in the order given (p.18 Allocate Hits).

    Hits go to the enemy figures closest to the shooters: ``figures`` is their order (by
    distance; under option ``fire_hit_allocation`` random or the target's choice, the order the
    table made). Dead figures are off the table. Option ``fire_allocation_includes_wounded``
    (default true): a wounded figure lies where it fell and can be hit again, dying (p.35);
    false skips the wounded and stabilised. Hits beyond the figures left are lost.
    """
    if hits < 0:
        raise RuleError("fire.invalid", "Hits cannot be negative.")
    eligible = [
        figure
        for figure in figures
        if MedicalState(figure.state) is not MedicalState.DEAD
        and (fire_allocation_includes_wounded or MedicalState(figure.state).is_fit)
    ]
    return tuple(eligible[:hits])


@dataclass(frozen=True, slots=True)
class HitDamage:
    """One hit's Determine Damage roll and its effect on the figure."""

    figure_id: str
    attacker_die: int
    defender_die: int
    attacker_score: int
    defender_score: int
    outcome: WoundOrKill
    rolls: tuple[Roll, ...]

    @property
    def effect(self) -> DamageEffect:
        return self.outcome.effect


def small_squad_penalty(firing_figures: int) -> int:
    """p.19: a squad reduced to one or two models takes -1 on its damage roll."""
    return SMALL_SQUAD_DAMAGE if firing_figures <= SMALL_SQUAD_FIGURES else 0


def determine_damage(
    *,
    dice: DiceSource,
    figures_hit: Sequence[TargetFigure],
    damage_rating: int,
    damage_modifier: int = 0,
    adv_recover_wounded: bool = True,
    wounds_recovered_second_wound_kills: bool = False,
) -> tuple[HitDamage, ...]:
    """Determine Damage for each hit (p.19; p.35 Wounding): attacker 1d6 + the highest Damage
    rating of the firing weapons (+ ``damage_modifier``: -1 for a squad down to one or two
    models, traits) against defender 1d6 + the figure's armour rating.

    Basic game (option ``adv_recover_wounded`` off): equal or more removes the figure. With
    Recover Wounded: 0-2 ahead wounds (a figure already wounded dies), 3 or more kills. Rolls the
    attacker's then the defender's d6 for each hit, in the order of ``figures_hit``.
    """
    results = []
    for figure in figures_hit:
        attack = dice.roll(Die.D6, f"damage roll for the hit on {figure.label}")
        defence = dice.roll(Die.D6, f"armour roll for {figure.label}")
        attacker_score = attack.result + damage_rating + damage_modifier
        defender_score = defence.result + figure.armour_rating
        outcome = wound_or_kill(
            attacker_score=attacker_score,
            defender_score=defender_score,
            target_state=figure.state,
            adv_recover_wounded=adv_recover_wounded,
            wounds_recovered_second_wound_kills=wounds_recovered_second_wound_kills,
        )
        results.append(
            HitDamage(
                figure_id=figure.figure_id,
                attacker_die=attack.result,
                defender_die=defence.result,
                attacker_score=attacker_score,
                defender_score=defender_score,
                outcome=outcome,
                rolls=(attack, defence),
            )
        )
    return tuple(results)


@dataclass(frozen=True, slots=True)
class FigureResult:
    """What happened to one figure hit under Squad-Based Damage."""

    figure_id: str
    effect: DamageEffect
    state_before: MedicalState
    state_after: MedicalState


@dataclass(frozen=True, slots=True)
class SquadDamageRoll:
    """Optional Squad-Based Damage: the one opposed roll and what it did to the figures hit."""

    attacker_die: int
    defender_die: int
    attacker_score: int
    defender_score: int
    saved: int
    figures: tuple[FigureResult, ...]
    rolls: tuple[Roll, ...]


def squad_based_damage(
    *,
    dice: DiceSource,
    figures_hit: Sequence[TargetFigure],
    damage_rating: int,
    armour_rating: int,
    damage_modifier: int = 0,
    adv_recover_wounded: bool = True,
    wounds_recovered_second_wound_kills: bool = False,
) -> SquadDamageRoll:
    """Optional Squad-Based Damage (p.19), option ``fire_squad_based_damage``.

    One roll for the volley: attacker 1d6 + highest Damage against defender 1d6 + the squad's
    armour; each point the defender wins by saves a hit; unsaved hits are kills, and with Recover
    Wounded half of them (rounded up) are wounds instead
    (:func:`rules.fad.wounded.squad_based_damage_casualties`). The book does not say which figures
    the saves spare: the hits furthest down the allocation order are saved, and of the unsaved
    hits the first are the wounds (a figure already wounded dies of it), the rest kills.
    """
    attack = dice.roll(Die.D6, "squad-based damage roll")
    defence = dice.roll(Die.D6, "squad-based armour roll")
    attacker_score = attack.result + damage_rating + damage_modifier
    defender_score = defence.result + armour_rating
    split = squad_based_damage_casualties(
        hits=len(figures_hit),
        attacker_score=attacker_score,
        defender_score=defender_score,
        adv_recover_wounded=adv_recover_wounded,
    )
    unsaved = figures_hit[: len(figures_hit) - split.saved]
    results = []
    for index, figure in enumerate(unsaved):
        # wound_or_kill at margin 0 wounds (or kills the already wounded); at margin 3 kills.
        outcome = wound_or_kill(
            attacker_score=0 if index < split.wounded else 3,
            defender_score=0,
            target_state=figure.state,
            adv_recover_wounded=adv_recover_wounded,
            wounds_recovered_second_wound_kills=wounds_recovered_second_wound_kills,
        )
        results.append(
            FigureResult(
                figure.figure_id, outcome.effect, outcome.state_before, outcome.state_after
            )
        )
    return SquadDamageRoll(
        attacker_die=attack.result,
        defender_die=defence.result,
        attacker_score=attacker_score,
        defender_score=defender_score,
        saved=split.saved,
        figures=tuple(results),
        rolls=(attack, defence),
    )


# --- vehicles ---------------------------------------------------------------------------------


class PenetrationResult(enum.StrEnum):
    """p.20 Determine Damage: no effect, one roll on the Vehicle Damage table, or two."""

    NO_EFFECT = "no_effect"
    PENETRATED = "penetrated"
    PENETRATED_TWICE = "penetrated_twice"

    @property
    def damage_rolls(self) -> int:
        return {self.NO_EFFECT: 0, self.PENETRATED: 1, self.PENETRATED_TWICE: 2}[self]


@dataclass(frozen=True, slots=True)
class Penetration:
    attacker_die: int
    defender_dice: tuple[int, ...]
    attacker_score: int
    defender_score: int
    result: PenetrationResult
    rolls: tuple[Roll, ...]


def penetration(
    *, dice: DiceSource, anti_tank: int, armour: int, reactive_armour: bool = False
) -> Penetration:
    """Determine Penetration for one hit on a vehicle (p.20).

    Attacker 1d6 + the highest Anti-Tank rating of the firing weapons; defender 1d6 + the armour
    of the facing hit (Reactive Armour against the weapons it works on, p.43: 2d6, keep the
    highest). Less: no effect; equal or 1-2 ahead: one roll on the Vehicle Damage table; 3 or
    more ahead: two rolls, the attacker chooses.
    """
    attack = dice.roll(Die.D6, "penetration roll")
    count = 2 if reactive_armour else 1
    defence = [dice.roll(Die.D6, f"vehicle armour roll {n + 1} of {count}") for n in range(count)]
    attacker_score = attack.result + anti_tank
    defender_score = max(roll.result for roll in defence) + armour
    margin = attacker_score - defender_score
    if margin < 0:
        result = PenetrationResult.NO_EFFECT
    elif margin < PENETRATION_TWICE_MARGIN:
        result = PenetrationResult.PENETRATED
    else:
        result = PenetrationResult.PENETRATED_TWICE
    return Penetration(
        attacker_die=attack.result,
        defender_dice=tuple(roll.result for roll in defence),
        attacker_score=attacker_score,
        defender_score=defender_score,
        result=result,
        rolls=(attack, *defence),
    )


class VehicleDamageEffect(enum.StrEnum):
    """p.20 VEHICLE DAMAGE TABLE, plus the miss of a result that cannot apply."""

    NONE = "none"
    CREW_KILLED = "crew_killed"
    IMMOBILISED = "immobilised"
    WEAPON_INOPERABLE = "weapon_inoperable"
    DESTROYED = "destroyed"


# The attacker's preference when he rolls twice (p.20: "choose the result preferred"): the worst
# for the vehicle first.
_PREFERENCE = (
    VehicleDamageEffect.DESTROYED,
    VehicleDamageEffect.IMMOBILISED,
    VehicleDamageEffect.WEAPON_INOPERABLE,
    VehicleDamageEffect.CREW_KILLED,
    VehicleDamageEffect.NONE,
)


@dataclass(frozen=True, slots=True)
class VehicleCondition:
    """What the Vehicle Damage table needs to know about the vehicle hit."""

    crew: int = 1
    operable_weapons: int = 1
    immobilised: bool = False
    flyer: bool = False
    light_transport: bool = False
    moved_last_activation: bool = False


def vehicle_damage_effect(face: int, vehicle: VehicleCondition) -> VehicleDamageEffect:
    """One roll on the Vehicle Damage table (p.20), for this vehicle.

    1-2 one crew killed (a light transport loses its driver and crashes, destroyed, if it moved
    at all in its last activation); 3-4 immobilised (a flyer crashes, destroyed); 5 one weapon
    inoperable; 6 destroyed. A result that does not apply (no crew, already immobilised, no
    weapon left) is a miss.
    """
    if face <= 2:
        if vehicle.crew < 1:
            return VehicleDamageEffect.NONE
        if vehicle.light_transport and vehicle.moved_last_activation:
            return VehicleDamageEffect.DESTROYED
        return VehicleDamageEffect.CREW_KILLED
    if face <= 4:
        if vehicle.flyer:
            return VehicleDamageEffect.DESTROYED
        return VehicleDamageEffect.NONE if vehicle.immobilised else VehicleDamageEffect.IMMOBILISED
    if face == 5:
        if vehicle.operable_weapons < 1:
            return VehicleDamageEffect.NONE
        return VehicleDamageEffect.WEAPON_INOPERABLE
    return VehicleDamageEffect.DESTROYED


@dataclass(frozen=True, slots=True)
class VehicleDamage:
    """The Vehicle Damage rolls of one penetrating hit and the result kept."""

    faces: tuple[int, ...]
    effects: tuple[VehicleDamageEffect, ...]
    effect: VehicleDamageEffect
    rolls: tuple[Roll, ...]


def vehicle_damage(
    *, dice: DiceSource, result: PenetrationResult, vehicle: VehicleCondition
) -> VehicleDamage:
    """Roll on the Vehicle Damage table once, or twice keeping the attacker's choice (p.20).

    The attacker is taken to prefer the result worst for the vehicle: destroyed, immobilised,
    weapon inoperable, crew killed. No roll when the hit did not penetrate.
    """
    rolls = tuple(
        dice.roll(Die.D6, f"vehicle damage roll {n + 1} of {result.damage_rolls}")
        for n in range(result.damage_rolls)
    )
    effects = tuple(vehicle_damage_effect(roll.result, vehicle) for roll in rolls)
    kept = min(effects, key=_PREFERENCE.index, default=VehicleDamageEffect.NONE)
    return VehicleDamage(
        faces=tuple(roll.result for roll in rolls), effects=effects, effect=kept, rolls=rolls
    )


@dataclass(frozen=True, slots=True)
class PassengerFate:
    figure_id: str
    die: int
    effect: DamageEffect
    rolls: tuple[Roll, ...]


def destroyed_vehicle_passengers(
    *,
    dice: DiceSource,
    passengers: Sequence[tuple[str, bool]],
    adv_recover_wounded: bool = True,
) -> tuple[PassengerFate, ...]:
    """Each passenger of a destroyed vehicle rolls 1d6 (p.21 Destroying a Vehicle).

    ``passengers``: (figure, wears power armour). Basic game: 4+ killed. With Recover Wounded:
    3-4 wounded, 5+ killed; in power armour 5 wounded, 6 killed (the basic game gives power
    armour nothing). Survivors are placed where the vehicle was and marked Pinned.
    """
    fates = []
    for figure_id, power_armour in passengers:
        roll = dice.roll(Die.D6, f"survival roll for passenger {figure_id}")
        face = roll.result
        if not adv_recover_wounded:
            effect = DamageEffect.KILLED if face >= 4 else DamageEffect.NO_EFFECT
        else:
            wounded_from, killed_from = (5, 6) if power_armour else (3, 5)
            if face >= killed_from:
                effect = DamageEffect.KILLED
            elif face >= wounded_from:
                effect = DamageEffect.WOUNDED
            else:
                effect = DamageEffect.NO_EFFECT
        fates.append(PassengerFate(figure_id, face, effect, (roll,)))
    return tuple(fates)


# --- blast weapons ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RangingIn:
    on_target: bool
    die: int
    rolls: tuple[Roll, ...]


def ranging_in(*, dice: DiceSource) -> RangingIn:
    """p.21 Ranging In: 1d6, 5 or more lands on target; otherwise the shells are ineffective."""
    roll = dice.roll(Die.D6, "Ranging In")
    return RangingIn(roll.result >= RANGING_IN_AT, roll.result, (roll,))


@dataclass(frozen=True, slots=True)
class StrikeEffect:
    dice: tuple[int, ...]
    modifiers: tuple[tuple[str, int], ...]
    total: int
    rolls: tuple[Roll, ...] = field(default=())


def strike_effect(
    *,
    dice: DiceSource,
    target_under_fire: bool = False,
    rabble_in_open: bool = False,
    bunched_up: bool = False,
    non_combatant: bool = False,
) -> StrikeEffect:
    """p.21 Determine Strike Effect, for one unit in the blast: roll 2d6 and ADD them, then
    target Under Fire -1, Rabble in open terrain +1, Bunched Up +2, Non-Combatant +2. No range or
    shooter modifiers. Hits, pinning and damage then follow as for a Fire Effect."""
    rolls = (
        dice.roll(Die.D6, "Strike Effect die 1 of 2"),
        dice.roll(Die.D6, "Strike Effect die 2 of 2"),
    )
    candidates = (
        (target_under_fire, "target Under Fire", TARGET_MARKED),
        (rabble_in_open, "target Rabble in open terrain", TARGET_RABBLE_IN_OPEN),
        (bunched_up, "target Bunched Up", TARGET_BUNCHED_UP),
        (non_combatant, "target Non-Combatant", TARGET_NON_COMBATANT),
    )
    modifiers = tuple((name, value) for applies, name, value in candidates if applies)
    faces = tuple(roll.result for roll in rolls)
    return StrikeEffect(
        dice=faces,
        modifiers=modifiers,
        total=sum(faces) + sum(value for _, value in modifiers),
        rolls=rolls,
    )


# --- crossfire ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CrossfireTest:
    die: int
    pinned: bool
    rolls: tuple[Roll, ...]


def crossfire_pinning_test(*, dice: DiceSource, quality: Quality) -> CrossfireTest:
    """p.24 Optional - Crossfire Rule (option ``fire_crossfire``): a squad fired on in the same
    turn by two enemy units about 180 degrees apart takes an immediate Pinning Test: 1d6 equal to
    or above its Quality Level (Rabble 5+ to Elite 2+) stays Under Fire, below it is Pinned."""
    roll = dice.roll(Die.D6, "Crossfire Pinning Test")
    return CrossfireTest(roll.result, roll.result < Quality(quality).target_number, (roll,))
