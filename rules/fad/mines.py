"""Fast and Dirty mines (FaD p.31; the mine weapons of p.70).

A minefield is three numbered markers, one real and two dummies; the placing player records the
real one's number and type (light or heavy). A unit coming within 4" of a marker halts and rolls
1d6 (an Engineer unit +2, p.39-41): 5 or more passes through unharmed. Otherwise the marker is
revealed: a dummy is removed; a real minefield attacks and stays, to be triggered again.

- Infantry: 1d3 figures hit; each: 1d6 + the mine's Damage against 1d6 + armour, then Determine
  Damage for infantry (p.19; wounds with Recover Wounded, p.35).
- Vehicle: 1d3 hits; each: 1d6 + the mine's Anti-Tank against 1d6 + the underside armour, then
  Determine Damage for vehicles (p.20).

1d3 is rolled as a d6 halved, rounded up. Every die is returned, in the order rolled.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace

from rules.dice import DiceSource, Die, Roll
from rules.errors import RuleError
from rules.fad.options import MinesTypes
from rules.fad.shooting import (
    HitDamage,
    Penetration,
    TargetFigure,
    VehicleCondition,
    VehicleDamage,
    VehicleDamageEffect,
    allocate_hits,
    determine_damage,
    penetration,
    vehicle_damage,
)

# p.31: 5 or more on 1d6 passes through the minefield; an Engineer adds +2 (p.39-41).
PASSES_AT = 5
ENGINEER_BONUS = 2


class MinefieldType(enum.StrEnum):
    """The type the placing player records for a real minefield (p.31)."""

    LIGHT = "light"
    HEAVY = "heavy"


class MineWeapon(enum.StrEnum):
    """The mine weapons of the p.70 table."""

    ANTI_PERSONNEL = "anti_personnel"
    ANTI_VEHICLE = "anti_vehicle"

    @property
    def damage(self) -> int:
        """Damage rating: Anti-Personnel +4, Anti-Vehicle +6 (p.70)."""
        return {MineWeapon.ANTI_PERSONNEL: 4, MineWeapon.ANTI_VEHICLE: 6}[self]

    @property
    def anti_tank(self) -> int | None:
        """Anti-Tank rating: Anti-Vehicle +5; Anti-Personnel has none (a dash, p.70)."""
        return {MineWeapon.ANTI_PERSONNEL: None, MineWeapon.ANTI_VEHICLE: 5}[self]


def mine_weapon(
    minefield: MinefieldType | str,
    *,
    mines_types: MinesTypes | str = MinesTypes.LIGHT_AP_HEAVY_AV,
    named: MineWeapon | str | None = None,
) -> MineWeapon:
    """The mine weapon of a real minefield (p.31, p.70): the text speaks of light and heavy
    minefields, the weapons table of Anti-Personnel and Anti-Vehicle mines.

    Option ``mines_types``: ``light_ap_heavy_av`` (default) reads a light minefield as
    Anti-Personnel and a heavy one as Anti-Vehicle; ``umpire``: the umpire names the weapon
    (``named``), refused without it (``mines.weapon_needed``).
    """
    if MinesTypes(mines_types) is MinesTypes.UMPIRE:
        if named is None:
            raise RuleError(
                "mines.weapon_needed",
                "In this campaign the umpire says which mine weapon (anti-personnel or "
                "anti-vehicle, p.70) a minefield holds: name it.",
                field="mine_weapon",
            )
        return MineWeapon(named)
    if MinefieldType(minefield) is MinefieldType.LIGHT:
        return MineWeapon.ANTI_PERSONNEL
    return MineWeapon.ANTI_VEHICLE


@dataclass(frozen=True, slots=True)
class Encounter:
    """The 1d6 a unit rolls on coming within 4" of a minefield marker."""

    die: int
    modifier: int
    total: int
    passed: bool
    rolls: tuple[Roll, ...]


def minefield_encounter(*, dice: DiceSource, engineer: bool = False) -> Encounter:
    """p.31: 1d6 (+2 for an Engineer unit); 5 or more passes through without incident."""
    roll = dice.roll(Die.D6, "minefield encounter")
    modifier = ENGINEER_BONUS if engineer else 0
    total = roll.result + modifier
    return Encounter(roll.result, modifier, total, total >= PASSES_AT, (roll,))


@dataclass(frozen=True, slots=True)
class D3:
    die: int
    result: int
    rolls: tuple[Roll, ...]


def roll_d3(*, dice: DiceSource, purpose: str) -> D3:
    """1d3: a d6 halved, rounded up (1-2: 1, 3-4: 2, 5-6: 3)."""
    roll = dice.roll(Die.D6, f"{purpose} (d3: a d6 halved, rounded up)")
    return D3(roll.result, (roll.result + 1) // 2, (roll,))


@dataclass(frozen=True, slots=True)
class MinesOnInfantry:
    hits_die: int
    hits: int
    figures_hit: tuple[HitDamage, ...]
    rolls: tuple[Roll, ...]


def mines_versus_infantry(
    *,
    dice: DiceSource,
    weapon: MineWeapon | str,
    figures: Sequence[TargetFigure],
    adv_recover_wounded: bool = True,
    fire_allocation_includes_wounded: bool = True,
) -> MinesOnInfantry:
    """p.31 Mines versus Infantry: 1d3 figures hit, in the order ``figures`` gives (nearest the
    mine first); for each, 1d6 + the mine's Damage against 1d6 + the figure's armour, then
    Determine Damage for infantry (:func:`rules.fad.shooting.determine_damage`, p.19, p.35)."""
    count = roll_d3(dice=dice, purpose="figures hit by the mines")
    hit = allocate_hits(
        hits=count.result,
        figures=figures,
        fire_allocation_includes_wounded=fire_allocation_includes_wounded,
    )
    damage = determine_damage(
        dice=dice,
        figures_hit=hit,
        damage_rating=MineWeapon(weapon).damage,
        adv_recover_wounded=adv_recover_wounded,
    )
    rolls = (*count.rolls, *(r for d in damage for r in d.rolls))
    return MinesOnInfantry(count.die, count.result, damage, rolls)


@dataclass(frozen=True, slots=True)
class MineHitOnVehicle:
    penetration: Penetration
    damage: VehicleDamage


@dataclass(frozen=True, slots=True)
class MinesOnVehicle:
    hits_die: int | None
    hits: int
    on_vehicle: tuple[MineHitOnVehicle, ...]
    destroyed: bool
    rolls: tuple[Roll, ...]


def mines_versus_vehicle(
    *,
    dice: DiceSource,
    weapon: MineWeapon | str,
    bottom_armour: int,
    vehicle: VehicleCondition,
) -> MinesOnVehicle:
    """p.31 Mines versus Vehicles: 1d3 hits; for each, 1d6 + the mine's Anti-Tank against 1d6 +
    the vehicle's underside armour, then Determine Damage for vehicles (p.20). An Anti-Personnel
    minefield has no Anti-Tank rating (p.70): it cannot harm a vehicle and nothing is rolled.
    Hits after the vehicle is destroyed are not rolled."""
    anti_tank = MineWeapon(weapon).anti_tank
    if anti_tank is None:
        return MinesOnVehicle(None, 0, (), False, ())
    count = roll_d3(dice=dice, purpose="hits on the vehicle by the mines")
    rolls: list[Roll] = [*count.rolls]
    hits: list[MineHitOnVehicle] = []
    destroyed = False
    condition = vehicle
    for _ in range(count.result):
        pen = penetration(dice=dice, anti_tank=anti_tank, armour=bottom_armour)
        damage = vehicle_damage(dice=dice, result=pen.result, vehicle=condition)
        rolls += [*pen.rolls, *damage.rolls]
        hits.append(MineHitOnVehicle(pen, damage))
        condition = _after(condition, damage.effect)
        if damage.effect is VehicleDamageEffect.DESTROYED:
            destroyed = True
            break
    return MinesOnVehicle(count.die, count.result, tuple(hits), destroyed, tuple(rolls))


def _after(vehicle: VehicleCondition, effect: VehicleDamageEffect) -> VehicleCondition:
    """The vehicle after one damage result, for the next hit's roll."""
    if effect is VehicleDamageEffect.CREW_KILLED:
        return replace(vehicle, crew=vehicle.crew - 1)
    if effect is VehicleDamageEffect.IMMOBILISED:
        return replace(vehicle, immobilised=True)
    if effect is VehicleDamageEffect.WEAPON_INOPERABLE:
        return replace(vehicle, operable_weapons=vehicle.operable_weapons - 1)
    return vehicle
