"""Tests for Fast and Dirty mines (FaD p.31, the mine weapons of p.70) in rules.fad.mines.

Exact probabilities are counted over every face of the dice the procedure rolls, fed in as table
dice; the expected fractions are worked out by hand in each docstring.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from rules.dice import TableDice
from rules.errors import RuleError
from rules.fad.mines import (
    MinefieldType,
    MineWeapon,
    mine_weapon,
    minefield_encounter,
    mines_versus_infantry,
    mines_versus_vehicle,
    roll_d3,
)
from rules.fad.options import MinesTypes
from rules.fad.shooting import TargetFigure, VehicleCondition, VehicleDamageEffect
from rules.fad.weapons import Armour
from rules.fad.wounded import DamageEffect, MedicalState

FACES = range(1, 7)


@pytest.mark.parametrize(("engineer", "odds"), [(False, Fraction(1, 3)), (True, Fraction(2, 3))])
def test_a_unit_passes_through_on_five_or_more_engineers_plus_two_p31(engineer, odds):
    """p.31: 1d6, 5+ passes (2/6); Engineer +2 passes on 3+ (4/6)."""
    passed = [minefield_encounter(dice=TableDice([f]), engineer=engineer).passed for f in FACES]
    assert Fraction(sum(passed), 6) == odds
    four = minefield_encounter(dice=TableDice([4]), engineer=engineer)
    assert (four.die, four.total) == (4, 6 if engineer else 4)


def test_light_minefields_are_anti_personnel_heavy_anti_vehicle_by_default_p31_p70():
    """Option mines_types light_ap_heavy_av: light = Anti-Personnel (Damage +4, no Anti-Tank),
    heavy = Anti-Vehicle (Damage +6, Anti-Tank +5)."""
    light = mine_weapon(MinefieldType.LIGHT)
    heavy = mine_weapon("heavy")
    assert (light, light.damage, light.anti_tank) == (MineWeapon.ANTI_PERSONNEL, 4, None)
    assert (heavy, heavy.damage, heavy.anti_tank) == (MineWeapon.ANTI_VEHICLE, 6, 5)


def test_the_umpire_names_the_mine_weapon_with_the_option():
    """mines_types umpire: the weapon named, whatever the type; refused unnamed."""
    named = mine_weapon("light", mines_types=MinesTypes.UMPIRE, named="anti_vehicle")
    assert named is MineWeapon.ANTI_VEHICLE
    with pytest.raises(RuleError) as refused:
        mine_weapon("light", mines_types=MinesTypes.UMPIRE)
    assert refused.value.code == "mines.weapon_needed"


def test_d3_is_a_d6_halved_rounded_up():
    assert [roll_d3(dice=TableDice([f]), purpose="x").result for f in FACES] == [1, 1, 2, 2, 3, 3]


def squad(n: int, armour: Armour = Armour.LIGHT) -> list[TargetFigure]:
    return [TargetFigure(f"f{i}", armour_rating=armour.rating) for i in range(n)]


def test_anti_personnel_mines_against_light_armour_exact_odds_p31_p19_p35():
    """p.31: each figure hit, 1d6 + 4 against 1d6 + 0 (light armour). With Recover Wounded
    (p.35) a margin of 3 or more kills: attacker die - defender die >= -1, 26 of 36 pairs; 0 to
    2 wounds: difference -4 to -2, 2 + 3 + 4 = 9 pairs; below 0 nothing: 1 pair (1 against 6)."""
    effects = Counter(
        mines_versus_infantry(
            dice=TableDice([1, a, d]), weapon=MineWeapon.ANTI_PERSONNEL, figures=squad(3)
        )
        .figures_hit[0]
        .effect
        for a, d in itertools.product(FACES, repeat=2)
    )
    assert effects == Counter(
        {DamageEffect.KILLED: 26, DamageEffect.WOUNDED: 9, DamageEffect.NO_EFFECT: 1}
    )


def test_one_to_three_figures_are_hit_in_the_order_given_p31():
    """1d3 figures: a 5 hits three, the first three in the order given. With two figures on the
    table only two can be hit. Basic game: every figure reached is removed."""
    result = mines_versus_infantry(
        dice=TableDice([5, 1, 6, 6, 1, 3, 3]),
        weapon=MineWeapon.ANTI_PERSONNEL,
        figures=squad(4),
        adv_recover_wounded=False,
    )
    assert (result.hits_die, result.hits) == (5, 3)
    assert [h.figure_id for h in result.figures_hit] == ["f0", "f1", "f2"]
    assert [h.effect for h in result.figures_hit] == [
        DamageEffect.NO_EFFECT,
        DamageEffect.KILLED,
        DamageEffect.KILLED,
    ]
    assert len(result.rolls) == 7
    two = mines_versus_infantry(
        dice=TableDice([6, 6, 1, 6, 1]), weapon=MineWeapon.ANTI_VEHICLE, figures=squad(2)
    )
    assert (two.hits, len(two.figures_hit)) == (3, 2)


def test_wounded_figures_are_passed_over_with_the_option():
    figures = [TargetFigure("w", state=MedicalState.WOUNDED), TargetFigure("h")]
    result = mines_versus_infantry(
        dice=TableDice([1, 6, 1]),
        weapon=MineWeapon.ANTI_PERSONNEL,
        figures=figures,
        fire_allocation_includes_wounded=False,
    )
    assert [h.figure_id for h in result.figures_hit] == ["h"]


def test_anti_personnel_mines_cannot_harm_a_vehicle_p70():
    """No Anti-Tank rating (a dash, p.70): nothing is rolled."""
    result = mines_versus_vehicle(
        dice=TableDice([]),
        weapon=MineWeapon.ANTI_PERSONNEL,
        bottom_armour=1,
        vehicle=VehicleCondition(),
    )
    assert (result.hits, result.on_vehicle, result.rolls, result.destroyed) == (0, (), (), False)


def test_anti_vehicle_mines_against_the_underside_p31_p20():
    """1d3 hits: 6 gives three. Each: 1d6 + 5 against 1d6 + underside armour 2.
    Hit 1: 1+5 = 6 against 6+2 = 8: no effect. Hit 2: 2+5 = 7 against 5+2 = 7: penetrates,
    one damage roll 1: a crewman killed. Hit 3: 6+5 = 11 against 1+2 = 3: three ahead, two
    rolls 4 and 5: immobilised preferred (p.20)."""
    result = mines_versus_vehicle(
        dice=TableDice([6, 1, 6, 2, 5, 1, 6, 1, 4, 5]),
        weapon=MineWeapon.ANTI_VEHICLE,
        bottom_armour=2,
        vehicle=VehicleCondition(crew=2, operable_weapons=1),
    )
    assert result.hits == 3
    assert [h.damage.effect for h in result.on_vehicle] == [
        VehicleDamageEffect.NONE,
        VehicleDamageEffect.CREW_KILLED,
        VehicleDamageEffect.IMMOBILISED,
    ]
    assert result.destroyed is False


def test_a_vehicle_destroyed_by_the_first_hit_takes_no_more_p20():
    """Two hits (d3 from a 3): the first penetrates (6+5 against 1+0) twice, 6 and 2:
    destroyed; the second is not rolled. A weapon lost earlier makes the next 5 a miss."""
    result = mines_versus_vehicle(
        dice=TableDice([3, 6, 1, 6, 2]),
        weapon="anti_vehicle",
        bottom_armour=0,
        vehicle=VehicleCondition(),
    )
    assert (result.hits, len(result.on_vehicle), result.destroyed) == (2, 1, True)
    weapons = mines_versus_vehicle(
        dice=TableDice([3, 1, 6, 5, 1, 6, 5]),
        weapon="anti_vehicle",
        bottom_armour=0,
        vehicle=VehicleCondition(operable_weapons=1),
    )
    assert [h.damage.effect for h in weapons.on_vehicle] == [
        VehicleDamageEffect.WEAPON_INOPERABLE,
        VehicleDamageEffect.NONE,
    ]
