"""Exact probabilities of the vehicle procedures, by enumerating every face of their dice:
small arms against a vehicle (SG2 P.37), anti-vehicle mines (P.55) and an aircraft's emergency
landing (P.49). Every expected chance is counted by hand from the book, not by the rules code.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from rules.dice import Die, TableDice
from rules.sg2.casualties import Figure, FigureState
from rules.sg2.scales import Quality
from rules.sg2.vehicles import (
    LandingResult,
    SuspensionType,
    VehicleArmour,
    VehicleDamage,
    anti_vehicle_mine,
    crash_landing_result,
    emergency_landing,
    small_arms_against_vehicle,
    small_arms_occupant_result,
)

IMM = VehicleDamage.IMMOBILISED
DIS = VehicleDamage.DISABLED


# --- small arms against a vehicle (P.37) ------------------------------------------------------


# Chances by hand (SG2 P.37): penetrated when impact > armour, DISABLED when impact > 2 x armour,
# over every pair of faces. A D10 impact against a softskin's D6: 9+8+7+6+5+4 = 39 of the 60
# pairs beat it, 8+6+4+2 = 20 more than double it; a D12 against the D12 of armour class 1:
# 11+10+...+1 = 66 of 144, and 10+8+6+4+2 = 30; and so on. Class 2 or better: no effect.
SMALL_ARMS_CHANCES = [
    # (impact, armour class, penetrated, disabled)
    (Die.D8, 0, Fraction(27, 48), Fraction(12, 48)),
    (Die.D10, 0, Fraction(39, 60), Fraction(20, 60)),
    (Die.D12, 0, Fraction(51, 72), Fraction(30, 72)),
    (Die.D8, 1, Fraction(28, 96), Fraction(12, 96)),
    (Die.D10, 1, Fraction(45, 120), Fraction(20, 120)),
    (Die.D12, 1, Fraction(66, 144), Fraction(30, 144)),
]


@pytest.mark.parametrize(("impact", "armour_class", "penetrated", "disabled"), SMALL_ARMS_CHANCES)
def test_small_arms_exact_probabilities_of_penetrating_and_disabling_p37(
    impact, armour_class, penetrated, disabled
):
    armour = VehicleArmour(armour_class)
    outcomes = [
        small_arms_against_vehicle(
            dice=TableDice([(impact, i), (armour.die, a)]),
            impact=impact,
            armour=armour,
            occupants=[],
        )
        for i, a in itertools.product(range(1, impact.value + 1), range(1, armour.die.value + 1))
    ]
    total = len(outcomes)
    assert Fraction(sum(o.penetrated for o in outcomes), total) == penetrated
    assert Fraction(sum(o.damage is DIS for o in outcomes), total) == disabled


@pytest.mark.parametrize("armour_class", [2, 3, 4, 5])
def test_small_arms_never_hurt_armour_class_two_or_better_p37(armour_class):
    outcome = small_arms_against_vehicle(
        dice=TableDice([]),
        impact=Die.D12,
        armour=VehicleArmour(armour_class),
        occupants=[Figure("a")],
    )
    assert (outcome.penetrated, outcome.damage, outcome.occupants) == (False, None, ())


@pytest.mark.parametrize("armour", [Die.D4, Die.D6, Die.D8, Die.D10, Die.D12])
def test_small_arms_occupant_exact_probabilities_p37(armour):
    """P.37: each occupant of a penetrated vehicle rolls his own armour die: 1 DEAD, 2 WOUNDED."""
    tally = Counter(small_arms_occupant_result(face) for face in range(1, armour.value + 1))
    assert Fraction(tally[FigureState.DEAD], armour.value) == Fraction(1, armour.value)
    assert Fraction(tally[FigureState.UNTREATED], armour.value) == Fraction(1, armour.value)


def test_gauss_fire_on_a_jeep_kills_a_trooper_with_probability_17_in_144_p37():
    """The book's Gauss squad (impact D12) on a softskin jeep (D6): a trooper in D6 armour dies
    when the fire penetrates (51 of 72 pairs) and he rolls a 1: 51 of the 432 ways."""
    killed = 0
    faces = itertools.product(range(1, 13), range(1, 7), range(1, 7))
    for impact, armour, own in faces:
        outcome = small_arms_against_vehicle(
            dice=TableDice([(Die.D12, impact), (Die.D6, armour), (Die.D6, own)]),
            impact=Die.D12,
            armour=VehicleArmour(0),
            occupants=[Figure("t1")],
        )
        fates = [o.change.after for o in outcome.occupants if o.change is not None]
        killed += fates == [FigureState.DEAD]
    assert Fraction(killed, 12 * 6 * 6) == Fraction(17, 144)


# --- anti-vehicle mines (P.55) ----------------------------------------------------------------


# Chances by hand (SG2 P.55): the mine's D10 against the suspension die. IMMOBILISED when the
# mine is higher, DISABLED when it is more than twice as high. Against a D10: 45 of 100 pairs
# higher, of which 8+6+4+2 = 20 more than twice; a D6: 9+8+7+6+5+4 = 39 of 60, 20 more than
# twice; a D8: 44 of 80, 20; a D12: 45 of 120, 20.
MINE_CHANCES = [
    # (suspension, immobilised only, disabled, no effect)
    (SuspensionType.CIVILIAN_WHEELED, Fraction(19, 60), Fraction(20, 60), Fraction(21, 60)),
    (SuspensionType.MILITARY_WHEELED, Fraction(25, 100), Fraction(20, 100), Fraction(55, 100)),
    (SuspensionType.TRACKED, Fraction(25, 100), Fraction(20, 100), Fraction(55, 100)),
    (SuspensionType.HOVER, Fraction(24, 80), Fraction(20, 80), Fraction(36, 80)),
    (SuspensionType.GRAV, Fraction(25, 120), Fraction(20, 120), Fraction(75, 120)),
    (SuspensionType.WALKER, Fraction(25, 120), Fraction(20, 120), Fraction(75, 120)),
]


@pytest.mark.parametrize(("suspension", "immobilised", "disabled", "nothing"), MINE_CHANCES)
def test_av_mine_exact_probabilities_by_suspension_p55(suspension, immobilised, disabled, nothing):
    die = suspension.mine_die
    tally = Counter(
        anti_vehicle_mine(
            dice=TableDice([(Die.D10, mine), (die, held)]),
            suspension=suspension,
            softskin=False,
            occupants=[],
        ).damage
        for mine, held in itertools.product(range(1, 11), range(1, die.value + 1))
    )
    total = 10 * die.value
    assert Fraction(tally[IMM], total) == immobilised
    assert Fraction(tally[DIS], total) == disabled
    assert Fraction(tally[None], total) == nothing


@pytest.mark.parametrize(
    ("softskin", "armour", "dead", "wounded"),
    [
        # An AFV: casualty on an armour roll of 1-2 (size 2, minor hit), then D6 1-3 dead.
        (False, Die.D6, Fraction(1, 6), Fraction(1, 6)),
        (False, Die.D8, Fraction(1, 8), Fraction(1, 8)),
        # A softskin: casualty on 1-4 (major hit).
        (True, Die.D6, Fraction(2, 6), Fraction(2, 6)),
        (True, Die.D10, Fraction(2, 10), Fraction(2, 10)),
    ],
)
def test_av_mine_occupant_exact_probabilities_p55(softskin, armour, dead, wounded):
    """Given a disabling mine (D10 9 against a D10 4), each occupant's fate over every face of
    his armour die and of the casualty D6 (P.55, P.39)."""
    tally: Counter[str] = Counter()
    for own, severity in itertools.product(range(1, armour.value + 1), range(1, 7)):
        outcome = anti_vehicle_mine(
            dice=TableDice([(Die.D10, 9), (Die.D10, 4), (armour, own), (Die.D6, severity)]),
            suspension=SuspensionType.TRACKED,
            softskin=softskin,
            occupants=[Figure("a", armour=armour)],
        )
        assert outcome.damage is DIS
        assert outcome.occupants is not None
        tally["dead"] += outcome.occupants.killed == ("a",)
        tally["wounded"] += outcome.occupants.wounded == ("a",)
    total = armour.value * 6
    assert (Fraction(tally["dead"], total), Fraction(tally["wounded"], total)) == (dead, wounded)


def test_a_softskin_occupant_in_d4_armour_is_always_a_casualty_of_a_disabling_mine_p55():
    """Casualties on 1-4: a D4 cannot roll above it, so no armour die; the D6 decides."""
    killed = [
        anti_vehicle_mine(
            dice=TableDice([(Die.D10, 7), (Die.D6, 3), (Die.D6, severity)]),
            suspension=SuspensionType.CIVILIAN_WHEELED,
            softskin=True,
            occupants=[Figure("a", armour=Die.D4)],
        ).occupants.killed  # type: ignore[union-attr]  # disabled: occupants rolled
        == ("a",)
        for severity in range(1, 7)
    ]
    assert Fraction(sum(killed), 6) == Fraction(1, 2)


def test_a_tracked_afvs_passenger_dies_to_an_av_mine_one_time_in_thirty_p55():
    """The whole procedure over every face of the four dice: disabled 20 of 100, then a D6
    armour roll of 1-2 and a casualty D6 of 1-3: 20/100 x 2/6 x 3/6 = 1/30."""
    killed = 0
    for mine, held, own, severity in itertools.product(
        range(1, 11), range(1, 11), range(1, 7), range(1, 7)
    ):
        outcome = anti_vehicle_mine(
            dice=TableDice([(Die.D10, mine), (Die.D10, held), (Die.D6, own), (Die.D6, severity)]),
            suspension=SuspensionType.TRACKED,
            softskin=False,
            occupants=[Figure("a")],
        )
        killed += outcome.occupants is not None and outcome.occupants.killed == ("a",)
    assert Fraction(killed, 10 * 10 * 6 * 6) == Fraction(1, 30)


# --- air vehicles (P.49) ----------------------------------------------------------------------


# Chances by hand (SG2 P.49): the pilot's Quality die explodes on 1, crash-lands on 2-3, lands
# under control on 4 or more.
LANDING_CHANCES = [
    (Quality.UNTRAINED, Fraction(1, 4), Fraction(2, 4), Fraction(1, 4)),
    (Quality.GREEN, Fraction(1, 6), Fraction(2, 6), Fraction(3, 6)),
    (Quality.REGULAR, Fraction(1, 8), Fraction(2, 8), Fraction(5, 8)),
    (Quality.VETERAN, Fraction(1, 10), Fraction(2, 10), Fraction(7, 10)),
    (Quality.ELITE, Fraction(1, 12), Fraction(2, 12), Fraction(9, 12)),
]


@pytest.mark.parametrize(("quality", "exploded", "crashed", "controlled"), LANDING_CHANCES)
def test_emergency_landing_exact_probabilities_p49(quality, exploded, crashed, controlled):
    die = quality.die
    tally = Counter(
        emergency_landing(
            dice=TableDice([(die, face), (Die.D6, 4)]),
            pilot_quality=quality,
            occupants=[Figure("a")],
        ).result
        for face in range(1, die.value + 1)
    )
    assert Fraction(tally[LandingResult.EXPLODED], die.value) == exploded
    assert Fraction(tally[LandingResult.CRASH_LANDED], die.value) == crashed
    assert Fraction(tally[LandingResult.CONTROLLED], die.value) == controlled


def test_crash_landing_occupant_exact_probabilities_p49():
    """P.49: a D6 per occupant whatever his armour: 1 killed, 2-3 wounded, 4+ safe."""
    tally = Counter(crash_landing_result(face) for face in range(1, 7))
    assert Fraction(tally[FigureState.DEAD], 6) == Fraction(1, 6)
    assert Fraction(tally[FigureState.UNTREATED], 6) == Fraction(2, 6)
    assert Fraction(tally[None], 6) == Fraction(3, 6)


def test_a_passenger_of_a_regular_pilot_dies_one_time_in_six_p49():
    """Over the pilot's D8 and the passenger's D6: killed when the aircraft explodes (1 of 8) or
    crash-lands (2 of 8) and he rolls a 1: 1/8 + 2/8 x 1/6 = 1/6; wounded 2/8 x 2/6 = 1/12."""
    fates: Counter[object] = Counter()
    for pilot, own in itertools.product(range(1, 9), range(1, 7)):
        outcome = emergency_landing(
            dice=TableDice([(Die.D8, pilot), (Die.D6, own)]),
            pilot_quality=Quality.REGULAR,
            occupants=[Figure("a", armour=Die.D12)],
        )
        fates[outcome.casualties[0].after if outcome.casualties else None] += 1
    assert Fraction(fates[FigureState.DEAD], 48) == Fraction(1, 6)
    assert Fraction(fates[FigureState.UNTREATED], 48) == Fraction(1, 12)
    assert Fraction(fates[None], 48) == Fraction(3, 4)
