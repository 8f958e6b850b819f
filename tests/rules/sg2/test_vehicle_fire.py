"""Fire at vehicles (SG2 P.37-40): range bands, the to-hit dice, minor and major hits, and the
book's examples carried through to the damage."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import DIE_LADDER, Die, SeededDice, TableDice
from rules.sg2.casualties import Cover, Figure, FigureState
from rules.sg2.fire import FireEffect, FireError, FireOrder
from rules.sg2.scales import Quality
from rules.sg2.vehicle_fire import (
    HeavyWeapon,
    HitResult,
    PointFire,
    PointFireOrder,
    SystemLevel,
    ecm_die,
    heavy_weapon_range_band,
    hit_result,
    point_fire_range_band,
    point_firer_dice,
    resolve_point_fire,
    resolve_vehicle_fire,
    small_arms_point_fire,
    target_die,
)
from rules.sg2.vehicles import SuspensionType, VehicleArmour, VehicleDamage

# --- range bands --------------------------------------------------------------------------------


def test_heavy_weapon_range_band_is_12_inches_times_target_size_p37():
    assert [heavy_weapon_range_band(size) for size in range(1, 6)] == [12, 24, 36, 48, 60]


@pytest.mark.parametrize("size", [0, 6, True, 2.0])
def test_a_target_size_is_1_to_5(size):
    with pytest.raises(FireError):
        heavy_weapon_range_band(size)


def test_range_band_by_kind_of_fire_p37_p40():
    regular = Quality.REGULAR
    band = point_fire_range_band
    assert band(PointFire.HEAVY_WEAPON, quality=regular, target_size=3) == 36
    assert band(PointFire.GUIDED_MISSILE, quality=regular, target_size=3) is None
    # P.40: a rocket's band is the operator's small-arms band, never multiplied by size.
    assert band(PointFire.UNGUIDED_ROCKET, quality=regular, target_size=5) == 8
    # P.37: man-carried support weapons keep their band; on a mount they fire as heavy weapons.
    assert band(PointFire.SUPPORT_WEAPON, quality=Quality.VETERAN, target_size=4) == 10
    assert band(PointFire.SUPPORT_WEAPON, quality=regular, target_size=4, mounted=True) == 48
    with pytest.raises(FireError):
        band(PointFire.HEAVY_WEAPON, quality=regular, target_size=0)


# --- the dice -----------------------------------------------------------------------------------


def test_fire_control_and_ecm_dice_p32():
    assert [level.die for level in SystemLevel] == [Die.D4, Die.D6, Die.D8, Die.D10]


def test_ecm_die_goes_up_one_type_in_any_cover_p40():
    assert ecm_die(SystemLevel.NONE) is Die.D4
    assert ecm_die(SystemLevel.BASIC, Cover.SOFT) is Die.D8
    assert ecm_die(SystemLevel.SUPERIOR, Cover.HARD) is Die.D12


def test_firer_dice_for_each_kind_of_fire_p38_p40():
    def order(fire, **kw):
        return PointFireOrder(fire=fire, quality=Quality.REGULAR, **kw)

    heavy = order(PointFire.HEAVY_WEAPON, fire_control=SystemLevel.BASIC)
    assert point_firer_dice(heavy) == (Die.D8, Die.D6)
    assert point_firer_dice(order(PointFire.HEAVY_WEAPON)) == (Die.D8, Die.D4)  # manual
    assert point_firer_dice(order(PointFire.GUIDED_MISSILE, guidance=Die.D10)) == (Die.D8, Die.D10)
    assert point_firer_dice(order(PointFire.UNGUIDED_ROCKET)) == (Die.D8, Die.D8)
    assert point_firer_dice(order(PointFire.SUPPORT_WEAPON, firepower=Die.D12)) == (Die.D8, Die.D12)


def test_target_die_is_the_range_die_or_the_ecm_die_p38_p40():
    heavy = PointFireOrder(PointFire.HEAVY_WEAPON, Quality.REGULAR, bands=2, cover=Cover.SOFT)
    assert target_die(heavy).die is Die.D8
    assert not target_die(heavy).ecm
    # Range does not matter to a missile: ten bands away, a vehicle with enhanced ECM rolls D8.
    missile = PointFireOrder(
        PointFire.GUIDED_MISSILE, Quality.REGULAR, bands=10, ecm=SystemLevel.ENHANCED
    )
    assert target_die(missile).die is Die.D8
    assert target_die(missile).ecm
    with pytest.raises(FireError):
        target_die(
            PointFireOrder(PointFire.HEAVY_WEAPON, Quality.REGULAR, bands=4, cover=Cover.HARD)
        )


@pytest.mark.parametrize(
    ("rolls", "target", "result"),
    [((4, 4), 4, HitResult.MISS), ((5, 1), 4, HitResult.MINOR), ((7, 5), 4, HitResult.MAJOR)],
)
def test_no_die_above_the_target_misses_one_is_minor_two_major_p38(rolls, target, result):
    assert hit_result(rolls, target) is result


# --- the book's examples ------------------------------------------------------------------------

RFAC_ORDER = PointFireOrder(
    fire=PointFire.HEAVY_WEAPON,
    quality=Quality.REGULAR,
    bands=2,  # 40" is over one 36" band (12" x size 3)
    fire_control=SystemLevel.BASIC,
)


def test_rfac_against_an_apc_is_a_major_hit_and_disables_it_p38():
    """P.38: target D6 rolls 4; the Regular crew's D8 7 and BASIC fire control's D6 5 both beat
    it: a MAJOR hit. The APC's armour 2 rolls D12 4 = 8; the RFAC/1's D10 rolls 7, doubled to
    14: penetrating, not above 16, so DISABLED."""
    assert HeavyWeapon.RFAC.impact_multiplier(1) == 1
    dice = TableDice([(Die.D6, 4), (Die.D8, 7), (Die.D6, 5), (Die.D10, 7), (Die.D12, 4)])
    outcome = resolve_vehicle_fire(
        dice=dice,
        order=RFAC_ORDER,
        impact=HeavyWeapon.RFAC.base_impact,
        impact_multiplier=1,
        armour=VehicleArmour(2),
        suspension=SuspensionType.TRACKED,
    )
    dice.ensure_all_used()
    assert outcome.fire.target_die.die is Die.D6
    assert outcome.fire.result is HitResult.MAJOR
    assert outcome.hit is not None
    assert (outcome.hit.impact_score, outcome.hit.armour_score) == (14, 8)
    assert outcome.hit.damage is VehicleDamage.DISABLED
    assert [r.purpose for r in outcome.rolls] == [
        "range die",
        "quality die",
        "fire control die",
        "impact against vehicle armour",
        "vehicle armour",
    ]


def test_rfac_nine_would_destroy_the_apc_on_a_major_hit_p38():
    dice = TableDice([4, 7, 5, 9, 4])
    outcome = resolve_vehicle_fire(
        dice=dice,
        order=RFAC_ORDER,
        impact=Die.D10,
        impact_multiplier=1,
        armour=VehicleArmour(2),
        suspension=SuspensionType.TRACKED,
    )
    assert outcome.hit is not None
    assert outcome.hit.impact_score == 18
    assert outcome.hit.damage is VehicleDamage.DESTROYED


def test_a_miss_rolls_no_penetration():
    dice = TableDice([6, 6, 3])
    outcome = resolve_vehicle_fire(
        dice=dice,
        order=RFAC_ORDER,
        impact=Die.D10,
        impact_multiplier=1,
        armour=VehicleArmour(2),
        suspension=SuspensionType.TRACKED,
    )
    dice.ensure_all_used()
    assert outcome.fire.result is HitResult.MISS
    assert outcome.hit is None
    assert len(outcome.rolls) == 3


def test_gauss_squad_against_a_jeep_p37():
    """P.37: the squad beats the range roll with two of its three dice; Gauss impact D12 rolls 9
    against the jeep's D6 4: more than twice, DISABLED; the driver (D4) rolls 3, unhurt; the
    troopers (D6) roll 4 (safe), 2 (WOUNDED), 1 (KILLED)."""
    occupants = [Figure("driver", armour=Die.D4)] + [Figure(f"t{n}") for n in (1, 2, 3)]
    order = FireOrder(
        quality=Quality.REGULAR,
        bands=1,
        firepower=2,
        men_firing=5,
        support_dice=(Die.D10,),
    )
    # range D4 3; quality D8 5, firepower D10 2, SAW D10 6: two of three dice beat it.
    dice = TableDice([3, 5, 2, 6, 9, 4, 3, 4, 2, 1])
    outcome = small_arms_point_fire(
        dice=dice, order=order, impact=Die.D12, armour=VehicleArmour(0), occupants=occupants
    )
    dice.ensure_all_used()
    assert (outcome.effect.range_die, outcome.effect.firer_dice) == (
        Die.D4,
        (Die.D8, Die.D10, Die.D10),
    )
    assert outcome.effect.effect is FireEffect.EFFECTIVE
    assert outcome.vehicle is not None
    assert (outcome.vehicle.impact_score, outcome.vehicle.armour_score) == (9, 4)
    assert outcome.vehicle.damage is VehicleDamage.DISABLED
    after = [o.change.after if o.change else None for o in outcome.vehicle.occupants]
    assert after == [None, None, FigureState.UNTREATED, FigureState.DEAD]
    assert [r.purpose for r in outcome.rolls][:4] == [
        "range die",
        "quality die",
        "small-arms firepower die",
        "support weapon 1 die",
    ]


def test_small_arms_with_one_die_over_only_suppress_p37():
    order = FireOrder(quality=Quality.REGULAR, bands=1, firepower=2, men_firing=5)
    dice = TableDice([3, 5, 2])
    outcome = small_arms_point_fire(
        dice=dice, order=order, impact=Die.D12, armour=VehicleArmour(0), occupants=()
    )
    dice.ensure_all_used()
    assert outcome.effect.effect is FireEffect.SUPPRESSION
    assert outcome.vehicle is None


def test_a_support_weapon_alone_fires_with_its_own_firepower_die():
    order = FireOrder(quality=Quality.GREEN, bands=1, men_firing=0, support_dice=(Die.D12,))
    dice = TableDice([1, 2, 3])
    outcome = small_arms_point_fire(
        dice=dice, order=order, impact=Die.D10, armour=VehicleArmour(2), occupants=()
    )
    dice.ensure_all_used()
    assert outcome.effect.effect is FireEffect.EFFECTIVE
    assert outcome.vehicle is not None
    assert not outcome.vehicle.penetrated  # armour class 2: no effect
    assert [r.purpose for r in outcome.rolls] == [
        "range die",
        "quality die",
        "support firepower die",
    ]


# --- the heavy weapons table --------------------------------------------------------------------


def test_heavy_weapon_impacts_and_sizes_p29_p30():
    assert HeavyWeapon.HKP.base_impact is Die.D12
    assert HeavyWeapon.HKP.impact_multiplier(3) == 3  # D12x3 (P.38)
    assert HeavyWeapon.HEL.base_impact is Die.D8
    assert HeavyWeapon.DFFG.impact_multiplier(2) == 4  # D12x4
    assert HeavyWeapon.DFFG.impact_multiplier(4) == 8
    assert HeavyWeapon.GMS.impact_multiplier(2) == 4  # GMS/H D12x4
    assert HeavyWeapon.GMS.fire is PointFire.GUIDED_MISSILE
    assert HeavyWeapon.MDC.fire is PointFire.HEAVY_WEAPON
    assert HeavyWeapon.HVC.sizes == (3, 4, 5)
    with pytest.raises(FireError, match="RFAC comes in size 1, 2"):
        HeavyWeapon.RFAC.impact_multiplier(3)


# --- exact probabilities ------------------------------------------------------------------------


def _exact(firer: tuple[Die, Die], target: Die) -> dict[HitResult, Fraction]:
    counts: Counter[HitResult] = Counter()
    for a, b, t in itertools.product(
        range(1, firer[0] + 1), range(1, firer[1] + 1), range(1, target + 1)
    ):
        counts[hit_result((a, b), t)] += 1
    total = firer[0] * firer[1] * target
    return {result: Fraction(counts[result], total) for result in HitResult}


def test_rfac_example_exact_probabilities_p38():
    """Regular crew (D8), basic fire control (D6) against a D6 range die: the miss is
    sum over t of (t/8)(t/6)/6, the major hit sum of ((8-t)/8)((6-t)/6)/6."""
    exact = _exact((Die.D8, Die.D6), Die.D6)
    assert exact[HitResult.MISS] == Fraction(91, 288)
    assert exact[HitResult.MAJOR] == Fraction(85, 288)
    assert exact[HitResult.MINOR] == Fraction(112, 288)


def test_seeded_dice_follow_the_exact_probabilities_roughly():
    counts: Counter[HitResult] = Counter()
    dice = SeededDice(b"vehicle fire", "odds")
    for _ in range(4000):
        counts[resolve_point_fire(dice=dice, order=RFAC_ORDER).result] += 1
    assert abs(counts[HitResult.MISS] / 4000 - 91 / 288) < 0.03


DICE = st.sampled_from(DIE_LADDER)


@given(first=DICE, second=DICE, target=DICE, data=st.data())
def test_to_hit_agrees_with_counting_the_dice_above_the_target(first, second, target, data):
    a = data.draw(st.integers(1, first.value))
    b = data.draw(st.integers(1, second.value))
    t = data.draw(st.integers(1, target.value))
    above = (a > t) + (b > t)
    assert hit_result((a, b), t) is [HitResult.MISS, HitResult.MINOR, HitResult.MAJOR][above]
    probabilities = _exact((first, second), target)
    assert sum(probabilities.values()) == 1
    # A better second die never makes a miss likelier.
    better = DIE_LADDER[min(DIE_LADDER.index(second) + 1, len(DIE_LADDER) - 1)]
    assert _exact((first, better), target)[HitResult.MISS] <= probabilities[HitResult.MISS]


@given(
    fire=st.sampled_from(list(PointFire)),
    quality=st.sampled_from(list(Quality)),
    ecm=st.sampled_from(list(SystemLevel)),
    cover=st.sampled_from(list(Cover)),
    bands=st.integers(1, 3),
    seed=st.binary(min_size=1, max_size=8),
)
def test_point_fire_rolls_the_target_die_then_the_two_firer_dice(
    fire, quality, ecm, cover, bands, seed
):
    order = PointFireOrder(fire=fire, quality=quality, bands=bands, cover=cover, ecm=ecm)
    try:
        expected_target = target_die(order)
    except FireError:
        return
    outcome = resolve_point_fire(dice=SeededDice(seed, "p"), order=order)
    assert [r.die for r in outcome.rolls] == [expected_target.die, *point_firer_dice(order)]
    assert outcome.result is hit_result(outcome.firer_rolls, outcome.target_roll)
    assert outcome.hit == (outcome.result is not HitResult.MISS)
    assert outcome.major == (outcome.result is HitResult.MAJOR)
