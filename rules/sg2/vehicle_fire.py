"""Stargrunt II fire at vehicles: from the weapon and the range to a minor or major hit (P.37-40).

Heavy weapons (SG2 P.37 HEAVY WEAPONS RANGE BANDS, P.38 HEAVY WEAPON FIRE AT POINT TARGETS),
guided missiles (P.40 GUIDED MISSILE FIRE), unguided rockets (P.40 UNGUIDED ROCKETS), support
weapons fired alone like heavy weapons (P.36-37) and squad small arms (P.37 FIRING SMALL ARMS AT
POINT TARGETS). A hit goes on to :func:`rules.sg2.vehicles.resolve_vehicle_hit` (penetration,
damage) and :func:`rules.sg2.vehicles.occupant_casualties`; a fully effective small-arms fire to
:func:`rules.sg2.vehicles.small_arms_against_vehicle`.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from rules.dice import DiceSource, Die, OpposedOutcome, Roll, multiple_opposed, shift_die
from rules.sg2.casualties import Cover, Figure
from rules.sg2.fire import FireEffect, FireError, FireOrder, fire_effect, firer_dice, range_die
from rules.sg2.options import Environment
from rules.sg2.scales import Quality
from rules.sg2.vehicles import (
    SmallArmsVehicleOutcome,
    SuspensionType,
    VehicleArmour,
    VehicleHitOutcome,
    VehicleStatus,
    resolve_vehicle_hit,
    small_arms_against_vehicle,
)

HEAVY_WEAPON_BASE_BAND = 12  # inches against a size 1 target (P.37)
UNGUIDED_ROCKET_FIREPOWER = Die.D8  # P.40
_UNDAMAGED = VehicleStatus()


class PointFire(enum.StrEnum):
    """How a weapon fires at a point target, which sets the firer's and the target's dice."""

    HEAVY_WEAPON = "heavy_weapon"  # quality + fire control against the range die (P.38)
    GUIDED_MISSILE = "guided_missile"  # quality + guidance against the ECM die (P.40)
    UNGUIDED_ROCKET = "unguided_rocket"  # quality + D8 against the range die (P.40)
    SUPPORT_WEAPON = "support_weapon"  # quality + its firepower die against the range die (P.36)


class SystemLevel(enum.IntEnum):
    """Fire control and ECM levels (SG2 P.32 FIRE CONTROL SYSTEMS, ECM): none is a D4."""

    NONE = 0  # fire control: manually operated
    BASIC = 1
    ENHANCED = 2
    SUPERIOR = 3

    @property
    def die(self) -> Die:
        """BASIC D6, ENHANCED D8, SUPERIOR D10; without the system a D4 (P.32, P.38, P.40)."""
        return (Die.D4, Die.D6, Die.D8, Die.D10)[self.value]


class HeavyWeapon(enum.StrEnum):
    """Heavy weapon types, their base impact and sizes (SG2 P.29-30 HEAVY WEAPONS SYSTEMS)."""

    RFAC = "rfac"
    HVC = "hvc"
    HKP = "hkp"
    GAC = "gac"
    MDC = "mdc"
    HEL = "hel"
    DFFG = "dffg"
    GMS = "gms"  # GMS/L is size 1, GMS/H size 2

    @property
    def base_impact(self) -> Die:
        return {"rfac": Die.D10, "hvc": Die.D10, "hel": Die.D8}.get(self.value, Die.D12)

    @property
    def sizes(self) -> tuple[int, ...]:
        return {
            "rfac": (1, 2),
            "gac": (1, 2),
            "gms": (1, 2),
            "hvc": (3, 4, 5),
            "hkp": (3, 4, 5),
            "mdc": (3, 4, 5),
        }.get(self.value, (1, 2, 3, 4, 5))

    def impact_multiplier(self, size: int) -> int:
        """The listed impact multiplier of a weapon of this size (P.30, P.38): the size class;
        DFFGs and GMS/L, GMS/H double it."""
        if size not in self.sizes:
            raise FireError(
                "fire.refused",
                f"A {self.value.upper()} comes in size {', '.join(map(str, self.sizes))}, "
                f"not {size!r} (P.29-30).",
            )
        return size * (2 if self in (HeavyWeapon.DFFG, HeavyWeapon.GMS) else 1)

    @property
    def fire(self) -> PointFire:
        return PointFire.GUIDED_MISSILE if self is HeavyWeapon.GMS else PointFire.HEAVY_WEAPON


def _check_size(size: int) -> None:
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= 5:
        raise FireError("fire.refused", f"A target size class is 1 to 5, not {size!r}.")


def heavy_weapon_range_band(target_size: int) -> int:
    """The range band of a vehicle or groundmount weapon in inches: 12" x target size (P.37).

    "Against a size 3 vehicle one Range Band is 36", and against a size 5 target it is 60"."
    """
    _check_size(target_size)
    return HEAVY_WEAPON_BASE_BAND * target_size


def point_fire_range_band(
    fire: PointFire, *, quality: Quality, target_size: int, mounted: bool = False
) -> int | None:
    """The range band of a fire at a point target, None for a guided missile (no range, P.40).

    Heavy weapons, and support weapons on a groundmount or vehicle, 12" x target size (P.37,
    P.36); unguided rockets and man-carried support weapons the small-arms band of the
    operator's quality whatever the target's size (P.40, P.37).
    """
    _check_size(target_size)
    fire = PointFire(fire)
    if fire is PointFire.GUIDED_MISSILE:
        return None
    if fire is PointFire.HEAVY_WEAPON or (fire is PointFire.SUPPORT_WEAPON and mounted):
        return heavy_weapon_range_band(target_size)
    return Quality(quality).die.value


def ecm_die(ecm: SystemLevel, cover: Cover = Cover.OPEN) -> Die:
    """The die a vehicle rolls against a guided missile (P.40): its ECM die (none D4), shifted
    up one type if the target is in any kind of cover."""
    return shift_die(SystemLevel(ecm).die, 1 if Cover(cover) is not Cover.OPEN else 0)


class HitResult(enum.StrEnum):
    """The result of a point-target fire (P.38)."""

    MISS = "miss"
    MINOR = "minor"
    MAJOR = "major"


_HIT_OF = {
    OpposedOutcome.FAILURE: HitResult.MISS,
    OpposedOutcome.MINOR_SUCCESS: HitResult.MINOR,
    OpposedOutcome.MAJOR_SUCCESS: HitResult.MAJOR,
}


def hit_result(firer_rolls: Sequence[Roll | int], target_roll: Roll | int) -> HitResult:
    """A multiple opposed roll (P.38): no firer die above the target's roll a miss, one a MINOR
    hit, two or more a MAJOR hit."""
    return _HIT_OF[multiple_opposed(firer_rolls, target_roll)]


@dataclass(frozen=True, slots=True)
class PointFireOrder:
    """One weapon's fire at a point target: everything its to-hit dice depend on.

    ``bands`` is the range in range bands (:func:`point_fire_range_band`); a guided missile
    ignores it. ``fire_control`` is read by heavy weapons, ``guidance`` by guided missiles,
    ``firepower`` (the point-target firepower die) by support weapons, ``ecm`` by missiles.
    """

    fire: PointFire
    quality: Quality
    bands: int = 1
    cover: Cover = Cover.OPEN
    in_position: bool = False
    fire_control: SystemLevel = SystemLevel.NONE
    guidance: Die = Die.D8
    firepower: Die = Die.D8
    ecm: SystemLevel = SystemLevel.NONE


@dataclass(frozen=True, slots=True)
class TargetDie:
    die: Die
    ecm: bool  # True: the ECM die of a guided-missile target; False: the range die


def target_die(order: PointFireOrder) -> TargetDie:
    """The target's die (P.33, P.38, P.40): the ECM die against a guided missile, otherwise the
    range die (D4 up to one band, one type up for each further band and for cover, P.35);
    a range die above D12 is refused, as for small arms."""
    if PointFire(order.fire) is PointFire.GUIDED_MISSILE:
        return TargetDie(ecm_die(order.ecm, order.cover), ecm=True)
    return TargetDie(
        range_die(bands=order.bands, cover=order.cover, in_position=order.in_position).die,
        ecm=False,
    )


def point_firer_dice(order: PointFireOrder) -> tuple[Die, Die]:
    """The firer's two dice: his quality die and the fire control die (manual D4, P.38), the
    missile's guidance die (P.40), a rocket's D8 (P.40) or the support weapon's firepower die
    (P.36)."""
    fire = PointFire(order.fire)
    second = {
        PointFire.HEAVY_WEAPON: SystemLevel(order.fire_control).die,
        PointFire.GUIDED_MISSILE: Die(order.guidance),
        PointFire.UNGUIDED_ROCKET: UNGUIDED_ROCKET_FIREPOWER,
        PointFire.SUPPORT_WEAPON: Die(order.firepower),
    }[fire]
    return Quality(order.quality).die, second


_SECOND_DIE_NAME = {
    PointFire.HEAVY_WEAPON: "fire control die",
    PointFire.GUIDED_MISSILE: "guidance die",
    PointFire.UNGUIDED_ROCKET: "rocket firepower die",
    PointFire.SUPPORT_WEAPON: "support firepower die",
}


@dataclass(frozen=True, slots=True)
class PointFireOutcome:
    """The to-hit roll of one weapon at a point target."""

    target_die: TargetDie
    target_roll: int
    firer_dice: tuple[Die, Die]
    firer_rolls: tuple[int, int]
    result: HitResult
    rolls: tuple[Roll, ...]

    @property
    def hit(self) -> bool:
        return self.result is not HitResult.MISS

    @property
    def major(self) -> bool:
        return self.result is HitResult.MAJOR


def resolve_point_fire(*, dice: DiceSource, order: PointFireOrder) -> PointFireOutcome:
    """Whether one weapon hits a point target, and how well (SG2 P.38, P.40).

    SG2 P.38 HEAVY WEAPON FIRE AT POINT TARGETS: the target rolls one die (:func:`target_die`),
    the firer two (:func:`point_firer_dice`); none of them above the target's roll a miss, one a
    MINOR hit, two a MAJOR hit (:func:`hit_result`). P.38's example: an RFAC/1 with a Regular
    crew and BASIC fire control (D8, D6) at a size 3 APC 40" away (over one 36" band: D6) rolls
    7 and 5 against 4, a MAJOR hit.

    Dice: the target's die, then the quality die, then the second firer die.
    """
    target = target_die(order)
    firing = point_firer_dice(order)
    target_roll = dice.roll(target.die, "ECM die" if target.ecm else "range die")
    quality = dice.roll(firing[0], "quality die")
    second = dice.roll(firing[1], _SECOND_DIE_NAME[PointFire(order.fire)])
    return PointFireOutcome(
        target_die=target,
        target_roll=target_roll.result,
        firer_dice=firing,
        firer_rolls=(quality.result, second.result),
        result=hit_result((quality, second), target_roll),
        rolls=(target_roll, quality, second),
    )


@dataclass(frozen=True, slots=True)
class VehicleFireOutcome:
    """A weapon's fire at a vehicle: the to-hit roll and, on a hit, its effect."""

    fire: PointFireOutcome
    hit: VehicleHitOutcome | None
    rolls: tuple[Roll, ...]


def resolve_vehicle_fire(
    *,
    dice: DiceSource,
    order: PointFireOrder,
    impact: Die,
    impact_multiplier: int,
    armour: VehicleArmour,
    suspension: SuspensionType,
    status: VehicleStatus = _UNDAMAGED,
    double_disabled_is_destroyed: bool = False,
) -> VehicleFireOutcome:
    """One weapon's fire at a vehicle, to the damage (SG2 P.38-39).

    The to-hit roll (:func:`resolve_point_fire`); a MINOR or MAJOR hit then goes to
    :func:`rules.sg2.vehicles.resolve_vehicle_hit` with the weapon's impact die and listed
    multiplier (a MAJOR hit doubles it there). Occupants' casualties follow from the damage
    (:func:`rules.sg2.vehicles.occupant_casualties`). Option ``double_disabled_is_destroyed``
    as there.

    Dice: the to-hit dice, then on a hit the penetration dice.
    """
    fired = resolve_point_fire(dice=dice, order=order)
    if not fired.hit:
        return VehicleFireOutcome(fired, None, fired.rolls)
    hit = resolve_vehicle_hit(
        dice=dice,
        impact=impact,
        armour=armour,
        suspension=suspension,
        major_hit=fired.major,
        impact_multiplier=impact_multiplier,
        status=status,
        double_disabled_is_destroyed=double_disabled_is_destroyed,
    )
    return VehicleFireOutcome(fired, hit, fired.rolls + hit.rolls)


@dataclass(frozen=True, slots=True)
class SmallArmsEffect:
    """The effect roll of a squad's small arms at a point target (P.37)."""

    range_die: Die
    range_roll: int
    firer_dice: tuple[Die, ...]
    firer_rolls: tuple[int, ...]
    effect: FireEffect
    rolls: tuple[Roll, ...]


def small_arms_fire_effect(*, dice: DiceSource, order: FireOrder) -> SmallArmsEffect:
    """The effect roll of small arms fired at a point target (SG2 P.37).

    "The fire is rolled for in the usual way": the squad's range band and range die, its
    quality, small-arms firepower and support dice (:mod:`rules.sg2.fire`); one die above the
    range roll is suppression only, two or more a possibly effective fire. No potential hits
    are counted.

    Dice: the range die, then quality, small-arms firepower and support weapons in order.
    """
    die = range_die(
        bands=order.bands,
        cover=order.cover,
        in_position=order.in_position,
        close_range_only=order.close_range_only,
    ).die
    firing = firer_dice(order)
    range_roll = dice.roll(die, "range die")
    names = ["quality", "small-arms firepower" if order.men_firing else "support firepower"]
    names += [f"support weapon {n}" for n in range(1, len(firing) - 1)]
    rolled = [dice.roll(d, f"{name} die") for d, name in zip(firing, names, strict=True)]
    return SmallArmsEffect(
        range_die=die,
        range_roll=range_roll.result,
        firer_dice=firing,
        firer_rolls=tuple(r.result for r in rolled),
        effect=fire_effect(rolled, range_roll),
        rolls=(range_roll, *rolled),
    )


@dataclass(frozen=True, slots=True)
class SmallArmsPointFire:
    """A squad's small-arms fire at a vehicle: the effect roll and, on full effect, the
    penetration and the occupants."""

    effect: SmallArmsEffect
    vehicle: SmallArmsVehicleOutcome | None
    rolls: tuple[Roll, ...]


def small_arms_point_fire(
    *,
    dice: DiceSource,
    order: FireOrder,
    impact: Die,
    armour: VehicleArmour,
    occupants: Sequence[Figure],
    status: VehicleStatus = _UNDAMAGED,
    environment: Environment = Environment.NORMAL,
    double_disabled_is_destroyed: bool = False,
) -> SmallArmsPointFire:
    """Squad small arms (and support weapons added) fired at a vehicle (SG2 P.37).

    SG2 P.37 FIRING SMALL ARMS AT POINT TARGETS: the effect roll
    (:func:`small_arms_fire_effect`); two or more dice above the range roll go to one
    penetration roll as a MINOR hit with the small-arms impact
    (:func:`rules.sg2.vehicles.small_arms_against_vehicle`). P.37's example: a Gauss squad
    beats the range roll with two of its three dice; impact D12 rolls 9 against a jeep's D6 4,
    so the jeep is DISABLED; the driver (D4) rolls 3, unhurt; the troopers (D6) roll 4 unhurt,
    2 WOUNDED, 1 KILLED. Options as :func:`rules.sg2.vehicles.small_arms_against_vehicle`.

    Dice: those of :func:`small_arms_fire_effect`; on full effect those of
    :func:`rules.sg2.vehicles.small_arms_against_vehicle`.
    """
    effect = small_arms_fire_effect(dice=dice, order=order)
    if effect.effect is not FireEffect.EFFECTIVE:
        return SmallArmsPointFire(effect, None, effect.rolls)
    vehicle = small_arms_against_vehicle(
        dice=dice,
        impact=impact,
        armour=armour,
        occupants=occupants,
        status=status,
        environment=environment,
        double_disabled_is_destroyed=double_disabled_is_destroyed,
    )
    return SmallArmsPointFire(effect, vehicle, effect.rolls + vehicle.rolls)
