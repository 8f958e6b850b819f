"""Tests for Fast and Dirty indirect artillery fire (FaD p.30) in rules.fad.artillery.

Exact probabilities are counted over every face of the dice the procedure rolls, fed in as table
dice; the expected fractions are worked out by hand in each docstring.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import TableDice
from rules.errors import RuleError
from rules.fad.artillery import (
    Timing,
    artillery_accuracy,
    artillery_timing,
    call_artillery,
    check_battery_call,
    strike_weapon,
)
from rules.fad.options import ModifierMode, ScatterMode, WeaponsDamageTable
from rules.fad.scales import Quality
from rules.fad.weapons import Weapon

FACES = range(1, 7)


def timing_odds(quality: Quality, **kwargs) -> dict[Timing, Fraction]:
    count = 2 if kwargs.get("recon") else 3
    outcomes = Counter(
        artillery_timing(dice=TableDice(faces), battery_quality=quality, **kwargs).result
        for faces in itertools.product(FACES, repeat=count)
    )
    total = 6**count
    return {result: Fraction(outcomes[result], total) for result in Timing}


@pytest.mark.parametrize(
    ("quality", "arrives", "garbled", "lost"),
    [
        # Rabble 5+: p = 1/3. Two or more of three: 3(1/9)(2/3) + 1/27 = 7/27; one: 3(1/3)(4/9)
        # = 12/27; none: (2/3)^3 = 8/27.
        (Quality.RABBLE, Fraction(7, 27), Fraction(12, 27), Fraction(8, 27)),
        # Conscript 4+: p = 1/2: 4/8, 3/8, 1/8.
        (Quality.CONSCRIPT, Fraction(1, 2), Fraction(3, 8), Fraction(1, 8)),
        # Regular 3+: p = 2/3: 3(4/9)(1/3) + 8/27 = 20/27; 3(2/3)(1/9) = 6/27; 1/27.
        (Quality.REGULAR, Fraction(20, 27), Fraction(6, 27), Fraction(1, 27)),
        # Elite 2+: p = 5/6: 3(25/36)(1/6) + 125/216 = 200/216; 3(5/6)(1/36) = 15/216; 1/216.
        (Quality.ELITE, Fraction(200, 216), Fraction(15, 216), Fraction(1, 216)),
    ],
)
def test_timing_odds_by_the_artillery_units_quality_p30(quality, arrives, garbled, lost):
    """p.30 Determine Timing: 3d6 against the artillery unit's Quality Level; two successes the
    strike arrives, one garbled, none out of contact."""
    assert timing_odds(quality) == {
        Timing.ARRIVES: arrives,
        Timing.GARBLED: garbled,
        Timing.OUT_OF_CONTACT: lost,
    }


def test_the_medium_cannon_of_regulars_the_scenario_gives_p30_p63():
    """The Interfere mission's artillery (p.63), a medium cannon crewed by Regulars: 3+ succeeds.
    Dice 3, 2, 5: two successes, the strike arrives; 2, 1, 3: one, garbled; 2, 1, 2: none, out
    of contact."""
    arrived = artillery_timing(dice=TableDice([3, 2, 5]), battery_quality=Quality.REGULAR)
    assert (arrived.successes, arrived.result, arrived.target_number) == (2, Timing.ARRIVES, 3)
    assert [r.purpose for r in arrived.rolls] == [
        "timing die 1 of 3",
        "timing die 2 of 3",
        "timing die 3 of 3",
    ]
    garbled = artillery_timing(dice=TableDice([2, 1, 3]), battery_quality=Quality.REGULAR)
    assert garbled.result is Timing.GARBLED
    lost = artillery_timing(dice=TableDice([2, 1, 2]), battery_quality=Quality.REGULAR)
    assert lost.result is Timing.OUT_OF_CONTACT


def test_recon_rolls_two_dice_and_adds_a_success_never_out_of_contact_p30_p41():
    """Recon trait: roll 2d6, one automatic success. Regular: arrives unless both dice fail,
    1 - (1/3)^2 = 8/9; garbled 1/9; never out of contact."""
    assert timing_odds(Quality.REGULAR, recon=True) == {
        Timing.ARRIVES: Fraction(8, 9),
        Timing.GARBLED: Fraction(1, 9),
        Timing.OUT_OF_CONTACT: 0,
    }
    test = artillery_timing(dice=TableDice([1, 3]), battery_quality=Quality.REGULAR, recon=True)
    assert (test.automatic_successes, test.successes, len(test.rolls)) == (1, 2, 2)


def test_comms_adds_one_to_each_die_by_default_p33():
    """Comms +1, option artillery_comms_bonus_mode per_die (default): Rabble dice succeed on
    4+ instead of 5+, the odds of a Conscript unit: 1/2, 3/8, 1/8."""
    assert timing_odds(Quality.RABBLE, comms=True) == {
        Timing.ARRIVES: Fraction(1, 2),
        Timing.GARBLED: Fraction(3, 8),
        Timing.OUT_OF_CONTACT: Fraction(1, 8),
    }
    test = artillery_timing(dice=TableDice([4, 4, 1]), battery_quality=Quality.RABBLE, comms=True)
    assert (test.die_modifier, test.bonus_successes, test.result) == (1, 0, Timing.ARRIVES)


def test_comms_as_one_more_success_with_the_option():
    """artillery_comms_bonus_mode successes: +1 success. Rabble (p = 1/3): arrives with one
    success of three, 1 - (2/3)^3 = 19/27; garbled 8/27; never out of contact."""
    odds = timing_odds(
        Quality.RABBLE, comms=True, artillery_comms_bonus_mode=ModifierMode.SUCCESSES
    )
    assert odds == {
        Timing.ARRIVES: Fraction(19, 27),
        Timing.GARBLED: Fraction(8, 27),
        Timing.OUT_OF_CONTACT: 0,
    }


def test_accuracy_on_target_when_both_dice_succeed_p30():
    """p.30 Determine Accuracy: 2d6 against the spotter's Quality Level. A Regular spotter (3+)
    is on target with (2/3)^2 = 4/9; nothing more is rolled then."""
    hits = sum(
        artillery_accuracy(
            dice=TableDice([*pair, 1, 1, 1]), spotter_quality=Quality.REGULAR
        ).on_target
        for pair in itertools.product(FACES, repeat=2)
    )
    assert Fraction(hits, 36) == Fraction(4, 9)
    pinpoint = artillery_accuracy(dice=TableDice([3, 6]), spotter_quality=Quality.REGULAR)
    assert (pinpoint.failed, pinpoint.legs, pinpoint.scatter_inches) == (0, (), 0)
    assert len(pinpoint.rolls) == 2


def test_each_failed_die_scatters_one_d6_in_one_direction_by_default():
    """Option scatter_mode one_direction_k_d6 (default): one direction (d12 clock face) and 1d6"
    per failed die, added. Conscript spotter (4+) rolls 2 and 1: both fail; 9 o'clock, 4 + 5 =
    9"."""
    accuracy = artillery_accuracy(
        dice=TableDice([2, 1, 9, 4, 5]), spotter_quality=Quality.CONSCRIPT
    )
    assert (accuracy.failed, accuracy.on_target, accuracy.scatter_inches) == (2, False, 9)
    (leg,) = accuracy.legs
    assert (leg.direction, leg.distance_dice, leg.distance) == (9, (4, 5), 9)
    assert [r.purpose for r in accuracy.rolls[2:]] == [
        "scatter direction (clock face)",
        "scatter inches 1 of 2",
        "scatter inches 2 of 2",
    ]
    assert accuracy.dice == (2, 1)


def test_each_failed_die_its_own_direction_with_the_option():
    """scatter_mode per_failed_die: each failed die its own direction and 1d6"."""
    accuracy = artillery_accuracy(
        dice=TableDice([2, 1, 9, 4, 3, 5]),
        spotter_quality=Quality.CONSCRIPT,
        scatter_mode=ScatterMode.PER_FAILED_DIE,
    )
    assert [(leg.direction, leg.distance) for leg in accuracy.legs] == [(9, 4), (3, 5)]
    assert accuracy.scatter_inches == 9


@given(st.sampled_from(list(Quality)), st.sampled_from(list(ScatterMode)))
def test_one_failed_die_scatters_one_to_six_inches(quality, mode):
    """Whatever the mode, one failed die scatters 1d6": each distance equally likely."""
    if quality is Quality.ELITE:
        failing, passing = 1, 2
    else:
        failing, passing = 1, 6
    distances = Counter(
        artillery_accuracy(
            dice=TableDice([failing, passing, 12, face]), spotter_quality=quality, scatter_mode=mode
        ).scatter_inches
        for face in FACES
    )
    assert distances == Counter(dict.fromkeys(FACES, 1))


def test_a_call_rolls_accuracy_only_when_the_strike_arrives():
    """p.30: a garbled call fires nothing (three dice only); one that arrives rolls accuracy."""
    garbled = call_artillery(
        dice=TableDice([3, 1, 1]),
        battery_quality=Quality.REGULAR,
        spotter_quality=Quality.REGULAR,
    )
    assert (garbled.timing.result, garbled.accuracy, len(garbled.rolls)) == (
        Timing.GARBLED,
        None,
        3,
    )
    arrived = call_artillery(
        dice=TableDice([3, 3, 1, 2, 5, 7, 4]),
        battery_quality=Quality.REGULAR,
        spotter_quality=Quality.CONSCRIPT,
    )
    assert arrived.accuracy is not None
    assert (arrived.accuracy.failed, arrived.accuracy.scatter_inches) == (1, 4)
    assert [r.result for r in arrived.rolls] == [3, 3, 1, 2, 5, 7, 4]


@pytest.mark.parametrize(
    ("out", "called", "code"),
    [
        (True, False, "artillery.out_of_contact"),
        (True, True, "artillery.out_of_contact"),
        (False, True, "artillery.already_called"),
    ],
)
def test_an_artillery_unit_takes_one_call_a_turn_while_in_contact_p30(out, called, code):
    with pytest.raises(RuleError) as refused:
        check_battery_call(out_of_contact=out, called_this_turn=called)
    assert refused.value.code == code
    check_battery_call(out_of_contact=False, called_this_turn=False)


def test_strike_weapons_blast_damage_and_pinning_p21_p69():
    """p.21 blast radius, p.69 Damage: Medium Cannon 3", +3, always pins; Light Mortar 2", +2
    (+1 in the p.19 table); a sniper rifle is no artillery."""
    cannon = strike_weapon(Weapon.CANNON_MEDIUM)
    assert (cannon.blast_inches, cannon.damage, cannon.always_pins) == (3, 3, True)
    mortar = strike_weapon("mortar_light")
    assert (mortar.blast_inches, mortar.damage, mortar.always_pins) == (2, 2, False)
    assert (
        strike_weapon(Weapon.MORTAR_LIGHT, weapons_damage_table=WeaponsDamageTable.SHOOTING_TABLE)
    ).damage == 1
    with pytest.raises(RuleError) as refused:
        strike_weapon(Weapon.SNIPER_RIFLE)
    assert refused.value.code == "artillery.not_a_blast_weapon"
