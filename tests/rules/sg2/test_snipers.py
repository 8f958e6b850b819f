"""Sniper fire (SG2 P.27): the doubled range band, the quality die rolled first, suppression even
on a miss, a random or an aimed figure hit, and impact against armour, with exact probabilities."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from rules.dice import Die, TableDice
from rules.sg2.casualties import AllocationPool, Cover, Figure, FigureState, HitResult
from rules.sg2.fire import FireError
from rules.sg2.options import Environment
from rules.sg2.scales import Quality
from rules.sg2.snipers import (
    SniperError,
    SniperHit,
    SniperWeapon,
    position_revealed,
    resolve_sniper_hit,
    sniper_hit,
    sniper_range_band,
    sniper_shot,
)


def faces(die: Die) -> range:
    return range(1, die.value + 1)


def test_a_veteran_sniper_has_a_20_inch_range_band_p27():
    """ "thus a VETERAN sniper would have a Range Band of 20" rather than the 10" of a normal
    Veteran trooper"."""
    assert sniper_range_band(Quality.VETERAN) == 20
    assert [sniper_range_band(q) for q in Quality] == [8, 12, 16, 20, 24]


@pytest.mark.parametrize(
    ("weapon", "firepower", "impact"),
    [
        (SniperWeapon.CONVENTIONAL, Die.D10, (Die.D10, 1)),
        (SniperWeapon.GAUSS, Die.D10, (Die.D12, 1)),
        (SniperWeapon.LASER, Die.D12, (Die.D8, 1)),
        (SniperWeapon.HEAVY_ANTI_MATERIAL, Die.D8, (Die.D12, 2)),
    ],
)
def test_sniper_weapon_types_p27(weapon, firepower, impact):
    assert (weapon.firepower, weapon.impact) == (firepower, impact)


@pytest.mark.parametrize(
    ("quality_roll", "weapon_roll", "hit"),
    [
        (3, 3, SniperHit.SUPPRESSION),
        (4, 2, SniperHit.RANDOM_FIGURE),
        (1, 9, SniperHit.RANDOM_FIGURE),
        (5, 4, SniperHit.AIMED_FIGURE),
    ],
)
def test_successes_against_the_range_die_p27(quality_roll, weapon_roll, hit):
    assert sniper_hit(quality_roll, weapon_roll, range_roll=3) is hit


def test_a_one_on_the_quality_die_gives_the_sniper_away_p27():
    assert [position_revealed(roll) for roll in (1, 2, 10)] == [True, False, False]


def test_the_shot_rolls_range_then_quality_first_then_the_weapon_p27():
    dice = TableDice([2, 1, 7])
    shot = sniper_shot(
        dice=dice, quality=Quality.VETERAN, weapon=SniperWeapon.CONVENTIONAL, bands=1
    )
    dice.ensure_all_used()
    assert [(r.die, r.result, r.purpose) for r in shot.rolls] == [
        (Die.D4, 2, "range die against the sniper"),
        (Die.D10, 1, "sniper's quality die"),
        (Die.D10, 7, "sniper's weapon die"),
    ]
    assert (shot.hit, shot.revealed, shot.suppresses) == (SniperHit.RANDOM_FIGURE, True, True)


def test_a_miss_still_suppresses_p27():
    shot = sniper_shot(
        dice=TableDice([8, 2, 8]),
        quality=Quality.REGULAR,
        weapon="laser",
        bands=2,
        cover=Cover.SOFT,
        in_position=True,
    )
    assert shot.range_die.die is Die.D10  # 2 bands D6, soft cover D8, in position D10
    assert (shot.hit, shot.suppresses, shot.revealed) == (SniperHit.SUPPRESSION, True, False)


def test_a_shot_beyond_a_d12_range_die_is_refused_before_any_die():
    dice = TableDice([])
    with pytest.raises(FireError):
        sniper_shot(dice=dice, quality=Quality.GREEN, weapon="gauss", bands=5, lone_figure=True)
    assert dice.used == 0


def test_veteran_conventional_rifle_at_one_band_exact_distribution():
    """D10 and D10 against a D4: both beat it (81+64+49+36)/400 = 23/40, neither 3/40."""
    counts = dict.fromkeys(SniperHit, 0)
    revealed = 0
    for rng, quality, weapon in itertools.product(faces(Die.D4), faces(Die.D10), faces(Die.D10)):
        shot = sniper_shot(
            dice=TableDice([rng, quality, weapon]),
            quality=Quality.VETERAN,
            weapon=SniperWeapon.CONVENTIONAL,
            bands=1,
        )
        counts[shot.hit] += 1
        revealed += shot.revealed
    assert {hit: Fraction(n, 400) for hit, n in counts.items()} == {
        SniperHit.SUPPRESSION: Fraction(3, 40),
        SniperHit.RANDOM_FIGURE: Fraction(7, 20),
        SniperHit.AIMED_FIGURE: Fraction(23, 40),
    }
    assert Fraction(revealed, 400) == Fraction(1, 10)


SQUAD = [Figure("leader"), Figure("gunner"), Figure("rifleman"), Figure("medic")]


def test_an_aimed_hit_strikes_the_chosen_figure_without_an_allocation_die_p27():
    dice = TableDice([9, 4])
    outcome = resolve_sniper_hit(
        dice=dice,
        hit=SniperHit.AIMED_FIGURE,
        figures=SQUAD,
        aimed_at="gunner",
        weapon=SniperWeapon.CONVENTIONAL,
    )
    dice.ensure_all_used()
    assert (outcome.figure_id, outcome.allocation_roll, outcome.result) == (
        "gunner",
        None,
        HitResult.KILL,
    )
    assert [(c.figure_id, c.after) for c in outcome.casualties] == [("gunner", FigureState.DEAD)]
    assert outcome.pool == ("leader", "gunner", "rifleman", "medic")


def test_a_random_hit_is_allocated_in_the_usual_way_p27_p36():
    """One success: the D4 over four figures picks the third, whoever the sniper aimed at."""
    dice = TableDice([3, 5, 4])
    outcome = resolve_sniper_hit(
        dice=dice,
        hit="random_figure",
        figures=SQUAD,
        aimed_at="leader",
        weapon=SniperWeapon.CONVENTIONAL,
    )
    dice.ensure_all_used()
    assert (outcome.figure_id, outcome.allocation_roll) == ("rifleman", 3)
    assert [(r.die, r.result) for r in outcome.rolls] == [(Die.D4, 3), (Die.D10, 5), (Die.D6, 4)]
    assert [(c.figure_id, c.after) for c in outcome.casualties] == [
        ("rifleman", FigureState.UNTREATED)
    ]


def test_a_random_hit_on_a_lone_figure_needs_no_allocation_die():
    outcome = resolve_sniper_hit(
        dice=TableDice([2, 5]),
        hit=SniperHit.RANDOM_FIGURE,
        figures=[Figure("alone")],
        aimed_at="alone",
        weapon="gauss",
    )
    assert (outcome.allocation_roll, outcome.result, outcome.casualties) == (
        None,
        HitResult.NO_EFFECT,
        (),
    )


def test_cover_shifts_the_armour_die_unless_the_option_is_off():
    hard = resolve_sniper_hit(
        dice=TableDice([9, 1]),
        hit=SniperHit.AIMED_FIGURE,
        figures=SQUAD,
        aimed_at="leader",
        weapon="conventional",
        cover=Cover.HARD,
    )
    assert (hard.impact_die, hard.armour_die) == (Die.D10, Die.D10)
    plain = resolve_sniper_hit(
        dice=TableDice([9, 1]),
        hit=SniperHit.AIMED_FIGURE,
        figures=SQUAD,
        aimed_at="leader",
        weapon="conventional",
        cover=Cover.HARD,
        cover_shifts_armour_vs_direct_fire=False,
    )
    assert plain.armour_die is Die.D6


def test_the_hamr_doubles_its_d12_impact_p27():
    """D12x2 against D6 armour: 5 x 2 = 10 is above twice 4: DEAD, where a plain 5 would wound."""
    outcome = resolve_sniper_hit(
        dice=TableDice([5, 4]),
        hit=SniperHit.AIMED_FIGURE,
        figures=SQUAD,
        aimed_at="medic",
        weapon=SniperWeapon.HEAVY_ANTI_MATERIAL,
    )
    assert (outcome.impact_die, outcome.impact_multiplier, outcome.impact_score) == (
        Die.D12,
        2,
        10,
    )
    assert outcome.result is HitResult.KILL


@pytest.mark.parametrize(
    ("weapon", "wound", "kill"),
    [
        # D10 > D6: 39/60; D10 > 2 x D6: 20/60.
        (SniperWeapon.CONVENTIONAL, Fraction(19, 60), Fraction(20, 60)),
        # 2 x D12 > 2 x D6 (D12 > D6) kills in 51/72; a/2 < D12 <= a wounds in 12/72.
        (SniperWeapon.HEAVY_ANTI_MATERIAL, Fraction(12, 72), Fraction(51, 72)),
    ],
)
def test_impact_against_d6_armour_exact_probabilities(weapon, wound, kill):
    impact_die = weapon.impact[0]
    counts = dict.fromkeys(HitResult, 0)
    for impact, save in itertools.product(faces(impact_die), faces(Die.D6)):
        outcome = resolve_sniper_hit(
            dice=TableDice([impact, save]),
            hit=SniperHit.AIMED_FIGURE,
            figures=SQUAD,
            aimed_at="leader",
            weapon=weapon,
        )
        counts[outcome.result] += 1
    total = impact_die.value * 6
    assert (Fraction(counts[HitResult.WOUND], total), Fraction(counts[HitResult.KILL], total)) == (
        wound,
        kill,
    )


def test_power_armour_rolls_at_once_and_a_vacuum_makes_a_wound_a_kill():
    suited = [Figure("pa", armour=Die.D10, power_armour=True)]
    outcome = resolve_sniper_hit(
        dice=TableDice([12, 7, 3]),
        hit=SniperHit.AIMED_FIGURE,
        figures=suited,
        aimed_at="pa",
        weapon="gauss",
    )
    (change,) = outcome.casualties
    assert (change.after, change.power_armour_roll) == (FigureState.STABILISED, 3)
    vacuum = resolve_sniper_hit(
        dice=TableDice([5, 4]),
        hit=SniperHit.AIMED_FIGURE,
        figures=SQUAD,
        aimed_at="leader",
        weapon="conventional",
        environment=Environment.VACUUM,
    )
    assert vacuum.casualties[0].after is FigureState.DEAD


def test_a_wound_on_a_casualty_follows_the_rewound_option():
    wounded = [Figure("w", state=FigureState.UNTREATED)]
    kept = resolve_sniper_hit(
        dice=TableDice([5, 4]),
        hit="aimed_figure",
        figures=wounded,
        aimed_at="w",
        weapon="conventional",
    )
    assert kept.casualties[0].after is FigureState.UNTREATED
    killed = resolve_sniper_hit(
        dice=TableDice([5, 4]),
        hit="aimed_figure",
        figures=wounded,
        aimed_at="w",
        weapon="conventional",
        rewound_kills=True,
    )
    assert killed.casualties[0].after is FigureState.DEAD


def test_a_miss_hits_nobody_and_the_aimed_figure_must_be_in_the_target():
    dice = TableDice([])
    with pytest.raises(SniperError) as refused:
        resolve_sniper_hit(
            dice=dice, hit=SniperHit.SUPPRESSION, figures=SQUAD, aimed_at="leader", weapon="laser"
        )
    assert refused.value.code == "sniper.no_hit"
    with pytest.raises(SniperError) as refused:
        resolve_sniper_hit(
            dice=dice,
            hit=SniperHit.AIMED_FIGURE,
            figures=[*SQUAD, Figure("dead", state=FigureState.DEAD)],
            aimed_at="dead",
            weapon="laser",
            allocation_pool=AllocationPool.LIVING,
        )
    assert refused.value.code == "sniper.aimed_at_not_in_target"
    assert dice.used == 0
