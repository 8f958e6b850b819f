"""Direct fire by infantry (SG2 P.33-36): range die, firepower dice, fire effect, potential hits
and the quick-and-dirty option."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import DIE_LADDER, Die, SeededDice, TableDice
from rules.sg2.casualties import Cover, Figure, FigureState, resolve_fire_casualties
from rules.sg2.fire import (
    FireEffect,
    FireError,
    FireOrder,
    fire_effect,
    firer_dice,
    potential_hits,
    quick_and_dirty_casualties,
    quick_and_dirty_divisor,
    range_band,
    range_bands,
    range_die,
    resolve_fire,
    small_arms_firepower_die,
)
from rules.sg2.options import Environment, FireMethod
from rules.sg2.scales import Quality

# --- range bands and the range die (P.33, P.35) ---------------------------------------------------


@pytest.mark.parametrize(
    ("quality", "inches"),
    [
        (Quality.UNTRAINED, 4),
        (Quality.GREEN, 6),
        (Quality.REGULAR, 8),
        (Quality.VETERAN, 10),
        (Quality.ELITE, 12),
    ],
)
def test_range_band_is_the_quality_die(quality, inches):
    assert range_band(quality) == inches


@pytest.mark.parametrize(
    ("distance", "bands"), [(0, 1), (3.5, 1), (8, 1), (8.5, 2), (16, 2), (16.1, 3), (40, 5)]
)
def test_up_to_one_band_is_the_first_band(distance, bands):
    assert range_bands(distance, 8) == bands


@pytest.mark.parametrize(("distance", "band"), [(-1, 8), (True, 8), ("8", 8), (8, 0), (8, False)])
def test_range_bands_refuses_nonsense(distance, band):
    with pytest.raises(FireError):
        range_bands(distance, band)


def test_p33_maximum_ranges_of_a_regular_unit():
    """P.33 example: a REGULAR unit reaches 40" in the open, 32" in soft cover, 24" in hard."""
    band = range_band(Quality.REGULAR)
    for cover, limit in ((Cover.OPEN, 40), (Cover.SOFT, 32), (Cover.HARD, 24)):
        assert range_die(bands=range_bands(limit, band), cover=cover).die is Die.D12
        with pytest.raises(FireError) as refused:
            range_die(bands=range_bands(limit + 0.5, band), cover=cover)
        assert refused.value.code == "fire.out_of_range"


def test_p35_example_range_die_is_d8_in_the_second_band_in_soft_cover():
    die = range_die(bands=2, cover=Cover.SOFT)
    assert (die.die, die.band_steps, die.cover_steps, die.position_steps) == (Die.D8, 1, 1, 0)


def test_in_position_lone_figure_and_travel_mode_shift_the_range_die():
    assert range_die(bands=1, in_position=True).die is Die.D6
    assert range_die(bands=1, in_position=True, lone_figure=True).die is Die.D8
    assert range_die(bands=2, travel_mode=True).die is Die.D4
    # A closed shift: travel mode in the first band cannot go below a D4.
    assert range_die(bands=1, travel_mode=True).die is Die.D4
    assert range_die(bands=1, cover=Cover.HARD, in_position=True).die is Die.D10


def test_close_range_weapons_reach_one_band_only():
    assert range_die(bands=1, cover=Cover.SOFT, close_range_only=True).die is Die.D6
    with pytest.raises(FireError) as refused:
        range_die(bands=2, close_range_only=True)
    assert refused.value.code == "fire.out_of_range"


@pytest.mark.parametrize("bands", [0, True, 1.5])
def test_range_die_refuses_bands_that_are_not_a_count(bands):
    with pytest.raises(FireError):
        range_die(bands=bands)


@given(
    bands=st.integers(1, 8),
    cover=st.sampled_from(Cover),
    in_position=st.booleans(),
    lone=st.booleans(),
    travel=st.booleans(),
)
def test_range_die_is_d4_shifted_by_every_step_or_refused(bands, cover, in_position, lone, travel):
    steps = bands - 1 + cover.value + in_position + lone - travel
    if steps > 4:
        with pytest.raises(FireError):
            range_die(
                bands=bands,
                cover=cover,
                in_position=in_position,
                lone_figure=lone,
                travel_mode=travel,
            )
        return
    die = range_die(
        bands=bands, cover=cover, in_position=in_position, lone_figure=lone, travel_mode=travel
    )
    assert die.die is DIE_LADDER[max(steps, 0)]


# --- firepower (P.34-35) --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("firepower", "men", "die"),
    [
        (1, 7, Die.D8),  # P.34 example
        (2, 5, Die.D10),  # P.34 example
        (1, 3, Die.D4),
        (0.5, 7, Die.D4),  # 3.5 rounds up to 4
        (0.5, 9, Die.D6),  # 4.5 rounds up to 5
        (3, 4, Die.D12),
        (3, 8, Die.D12),  # no bonus above 12
    ],
)
def test_small_arms_firepower_die(firepower, men, die):
    assert small_arms_firepower_die(firepower, men) is die


@pytest.mark.parametrize(("firepower", "men"), [(0, 5), (-1, 5), (True, 5), (2, 0), (2, True)])
def test_small_arms_firepower_refuses_nonsense(firepower, men):
    with pytest.raises(FireError):
        small_arms_firepower_die(firepower, men)


def test_firer_dice_add_a_die_per_support_weapon():
    """P.35 example: a plasma gun (D6) added to the squad's small arms."""
    order = FireOrder(Quality.REGULAR, bands=1, firepower=2, men_firing=5, support_dice=(Die.D6,))
    assert firer_dice(order) == (Die.D8, Die.D10, Die.D6)


def test_a_support_weapon_firing_alone_rolls_quality_and_its_own_die():
    order = FireOrder(Quality.GREEN, bands=1, support_dice=(Die.D8,))
    assert firer_dice(order) == (Die.D6, Die.D8)
    for support in ((), (Die.D8, Die.D6)):
        with pytest.raises(FireError) as refused:
            firer_dice(FireOrder(Quality.GREEN, bands=1, support_dice=support))
        assert refused.value.code == "fire.no_firepower"


# --- fire effect (P.35 STEP 1) --------------------------------------------------------------------


def test_fire_effect_counts_firer_dice_above_the_range_roll():
    assert fire_effect([3, 2], 3) is FireEffect.NO_EFFECT  # equal does not beat
    assert fire_effect([4, 3], 3) is FireEffect.SUPPRESSION
    assert fire_effect([4, 5, 1], 3) is FireEffect.EFFECTIVE


def test_fire_effect_probabilities_regular_squad_d10_small_arms_against_d6():
    """Enumerated: quality D8 and firepower D10 against a range D6."""
    counts = dict.fromkeys(FireEffect, 0)
    for quality, firepower, target in itertools.product(range(1, 9), range(1, 11), range(1, 7)):
        counts[fire_effect([quality, firepower], target)] += 1
    space = 8 * 10 * 6
    # P(no die beats t) = sum_t (t/8)(t/10)/6; P(both) = sum_t ((8-t)/8)((10-t)/10)/6.
    none = sum(Fraction(t, 8) * Fraction(t, 10) for t in range(1, 7)) / 6
    both = sum(Fraction(8 - t, 8) * Fraction(10 - t, 10) for t in range(1, 7)) / 6
    assert Fraction(counts[FireEffect.NO_EFFECT], space) == none == Fraction(91, 480)
    assert Fraction(counts[FireEffect.EFFECTIVE], space) == both == Fraction(193, 480)
    assert Fraction(counts[FireEffect.SUPPRESSION], space) == 1 - none - both


# --- potential hits (P.35 STEP 2) -----------------------------------------------------------------


def test_p35_example_18_against_d8_is_two_hits_and_a_possible_third():
    """P.35: 18 against a D8 is two hits with 2 left over; the target must roll above 2."""
    third = potential_hits(dice=TableDice([2]), total=18, divisor=Die.D8)
    assert (third.whole, third.left_over, third.left_over_roll, third.count) == (2, 2, 2, 3)
    assert third.extra_hit
    assert third.rolls[0].die is Die.D8
    saved = potential_hits(dice=TableDice([3]), total=18, divisor=Die.D8)
    assert (saved.count, saved.extra_hit) == (2, False)


def test_p35_example_chance_of_the_third_hit_is_two_in_eight():
    thirds = [
        potential_hits(dice=TableDice([face]), total=18, divisor=Die.D8).count == 3
        for face in range(1, 9)
    ]
    assert Fraction(sum(thirds), 8) == Fraction(1, 4)


def test_no_left_over_roll_on_an_exact_multiple_or_when_declined():
    exact = potential_hits(dice=TableDice([]), total=16, divisor=Die.D8)
    assert (exact.count, exact.left_over_roll, exact.rolls) == (2, None, ())
    declined = potential_hits(dice=TableDice([]), total=18, divisor=Die.D8, left_over_roll=False)
    assert (declined.count, declined.extra_hit) == (2, False)


def test_a_total_below_one_hit_still_rolls_for_one():
    """P.35: a single roll with the range die type gives one hit unless it beats the total."""
    assert potential_hits(dice=TableDice([5]), total=5, divisor=Die.D10).count == 1
    assert potential_hits(dice=TableDice([6]), total=5, divisor=Die.D10).count == 0


@pytest.mark.parametrize("total", [-1, True, 2.5])
def test_potential_hits_refuse_a_total_that_is_not_a_score(total):
    with pytest.raises(FireError):
        potential_hits(dice=TableDice([]), total=total, divisor=Die.D6)


@given(total=st.integers(0, 100), divisor=st.sampled_from(DIE_LADDER), seed=st.binary(min_size=1))
def test_expected_potential_hits_are_total_over_die_type(total, divisor, seed):
    """Averaged over the left-over roll, the hits are exactly total / die type."""
    expected = Fraction(0)
    for face in range(1, divisor.value + 1):
        outcome = potential_hits(
            dice=TableDice([face] * (1 if total % divisor.value else 0)),
            total=total,
            divisor=divisor,
        )
        expected += Fraction(outcome.count, divisor.value)
    assert expected == Fraction(total, divisor.value)
    served = potential_hits(dice=SeededDice(seed, "fire"), total=total, divisor=divisor)
    assert total // divisor.value <= served.count <= total // divisor.value + 1


# --- the whole of steps 1-2 -----------------------------------------------------------------------


def test_p35_fire_regular_squad_with_a_saw_at_soft_cover_in_the_second_band():
    """P.35: three dice (small arms and a SAW) total 18 against a D8; a left-over 2 gives the
    third hit."""
    order = FireOrder(
        Quality.REGULAR,
        bands=range_bands(12, range_band(Quality.REGULAR)),
        firepower=2,
        men_firing=5,
        support_dice=(Die.D8,),
        cover=Cover.SOFT,
    )
    dice = TableDice([3, 6, 7, 5, 2])  # range D8 3; D8 6, D10 7, D8 5 = 18; left-over 2
    outcome = resolve_fire(dice=dice, order=order)
    dice.ensure_all_used()
    assert outcome.range_die.die is Die.D8
    assert outcome.firer_dice == (Die.D8, Die.D10, Die.D8)
    assert (outcome.effect, outcome.suppressed, outcome.total) == (FireEffect.EFFECTIVE, True, 18)
    assert outcome.hits is not None
    assert (outcome.hits.whole, outcome.hits.left_over, outcome.potential_hits) == (2, 2, 3)
    assert [roll.purpose for roll in outcome.rolls] == [
        "range die",
        "quality die",
        "small-arms firepower die",
        "support weapon 1 die",
        "left-over 2 against a possible extra hit",
    ]


def test_suppression_and_no_effect_end_the_fire_without_hits():
    order = FireOrder(Quality.GREEN, bands=1, firepower=1, men_firing=4)
    suppressed = resolve_fire(dice=TableDice([3, 4, 2]), order=order)
    assert (suppressed.effect, suppressed.suppressed, suppressed.potential_hits) == (
        FireEffect.SUPPRESSION,
        True,
        0,
    )
    assert suppressed.hits is None
    missed = resolve_fire(dice=TableDice([4, 4, 1]), order=order)
    assert (missed.effect, missed.suppressed, len(missed.rolls)) == (FireEffect.NO_EFFECT, False, 3)


def test_support_weapon_firing_alone_names_its_die():
    order = FireOrder(Quality.VETERAN, bands=1, support_dice=(Die.D8,))
    outcome = resolve_fire(dice=TableDice([1, 9, 7]), order=order)
    assert [roll.purpose for roll in outcome.rolls] == [
        "range die",
        "quality die",
        "support firepower die",
    ]
    assert (outcome.total, outcome.potential_hits) == (16, 4)  # 16 / 4 exactly
    assert outcome.hits is not None
    assert outcome.hits.left_over_roll is None  # no face left over


def test_quick_and_dirty_divides_by_the_armour_die_raised_for_cover():
    """P.36: D6 armour in soft cover divides by 8; the left-over roll is made with a D8."""
    assert quick_and_dirty_divisor(Die.D6) is Die.D6
    assert quick_and_dirty_divisor(Die.D6, Cover.HARD) is Die.D10
    assert quick_and_dirty_divisor(Die.D12, Cover.HARD) is Die.D12
    order = FireOrder(
        Quality.REGULAR,
        bands=1,
        firepower=2,
        men_firing=5,
        cover=Cover.SOFT,
        target_armour=Die.D6,
    )
    outcome = resolve_fire(
        dice=TableDice([2, 8, 10, 1]), order=order, fire_method=FireMethod.QUICK_AND_DIRTY
    )
    assert outcome.range_die.die is Die.D6
    assert outcome.hits is not None
    assert (outcome.hits.divisor, outcome.potential_hits) == (Die.D8, 3)  # 18 / 8, 1 <= 2
    declined = resolve_fire(
        dice=TableDice([2, 8, 10]),
        order=order,
        fire_method=FireMethod.QUICK_AND_DIRTY,
        qd_leftover_roll=False,
    )
    assert declined.potential_hits == 2


# --- the P.36 impact example through the existing casualty procedure ------------------------------


def test_p36_impact_example_advanced_assault_rifles_against_partial_light_armour():
    """P.36: D10 against D6: 3 v 5 no effect, 6 v 5 a WOUND, 9 v 4 a KILL."""
    squad = [Figure(f"m{i}", armour=Die.D6) for i in range(1, 7)]
    outcome = resolve_fire_casualties(
        dice=TableDice([3, 5, 6, 5, 9, 4, 2, 5]),
        figures=squad,
        potential_hits=3,
        impact=Die.D10,
    )
    assert [hit.result.value for hit in outcome.hits] == ["no_effect", "wound", "kill"]
    assert (outcome.wounded, outcome.killed) == (("m2",), ("m5",))


# --- quick-and-dirty casualties (P.36) ------------------------------------------------------------


def test_quick_and_dirty_hits_wound_each_figure_hit_once():
    squad = [Figure(f"m{i}", armour=Die.D6) for i in range(1, 6)]
    outcome = quick_and_dirty_casualties(dice=TableDice([2, 2, 5]), figures=squad, hits=3)
    assert [a.figure_id for a in outcome.allocation.allocations] == ["m2", "m2", "m5"]
    assert [(c.figure_id, c.after, c.wounds) for c in outcome.casualties] == [
        ("m2", FigureState.UNTREATED, 1),
        ("m5", FigureState.UNTREATED, 1),
    ]
    assert len(outcome.rolls) == 3


def test_quick_and_dirty_power_armour_rolls_and_vacuum_kills():
    lone = [Figure("pa", armour=Die.D10, power_armour=True)]
    outcome = quick_and_dirty_casualties(dice=TableDice([1]), figures=lone, hits=2)
    assert outcome.casualties[0].power_armour_roll == 1
    assert [roll.die for roll in outcome.rolls] == [Die.D6]
    vacuum = quick_and_dirty_casualties(
        dice=TableDice([]), figures=[Figure("x")], hits=1, environment=Environment.VACUUM
    )
    assert vacuum.casualties[0].after is FigureState.DEAD
