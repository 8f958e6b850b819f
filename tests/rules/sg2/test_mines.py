"""Mines and booby traps against infantry (SG2 P.55-56): who a minefield catches, the mine's D10
against armour, command-detonated mines and booby traps, with exact probabilities."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from rules.dice import Die, TableDice
from rules.sg2.casualties import Figure, FigureState, HitResult
from rules.sg2.mines import (
    BOOBY_TRAP_DIE,
    BOOBY_TRAP_IMPACT,
    MINE_IMPACT,
    Minefield,
    MinesError,
    booby_trap,
    booby_trap_detonates,
    caught_by_mine,
    command_detonated_mine,
    minefield_attack,
)
from rules.sg2.options import Environment
from rules.sg2.scales import Quality


def faces(die: Die) -> range:
    return range(1, die.value + 1)


def test_the_book_dice_p55_p56():
    assert (MINE_IMPACT, BOOBY_TRAP_DIE, BOOBY_TRAP_IMPACT) == (Die.D10, Die.D8, Die.D8)


@pytest.mark.parametrize(
    ("minefield", "caught_on"),
    [(Minefield.ANTI_PERSONNEL, {1, 2, 3}), (Minefield.MIXED, {1, 2}), ("mixed", {1, 2})],
)
def test_ap_fields_catch_on_1_to_3_mixed_fields_on_1_or_2_p55(minefield, caught_on):
    assert {roll for roll in range(1, 13) if caught_by_mine(roll, minefield)} == caught_on


def test_infantry_never_set_off_anti_vehicle_mines_p55():
    with pytest.raises(MinesError) as refused:
        caught_by_mine(1, Minefield.ANTI_VEHICLE)
    assert refused.value.code == "mines.infantry_ignore_av"
    dice = TableDice([])
    with pytest.raises(MinesError):
        minefield_attack(
            dice=dice, figures=[Figure("a")], quality=Quality.REGULAR, minefield="anti_vehicle"
        )
    assert dice.used == 0


def test_each_figure_rolls_the_quality_die_then_each_caught_figure_faces_a_d10():
    """A Regular (D8) unit, three figures in an AP field: 3 caught, 4 safe, 1 caught. The first
    caught: mine 9 against armour D6 4 (9 > 8): DEAD; the last: mine 5 against 4: WOUNDED."""
    figures = [Figure("a"), Figure("b"), Figure("c")]
    dice = TableDice([3, 4, 1, 9, 4, 5, 4])
    outcome = minefield_attack(
        dice=dice, figures=figures, quality=Quality.REGULAR, minefield=Minefield.ANTI_PERSONNEL
    )
    dice.ensure_all_used()
    assert outcome.quality_die is Die.D8
    assert [(c.figure_id, c.roll, c.caught) for c in outcome.checks] == [
        ("a", 3, True),
        ("b", 4, False),
        ("c", 1, True),
    ]
    assert [(a.figure_id, a.impact_roll, a.armour_roll, a.result) for a in outcome.attacks] == [
        ("a", 9, 4, HitResult.KILL),
        ("c", 5, 4, HitResult.WOUND),
    ]
    assert [(c.figure_id, c.after) for c in outcome.casualties] == [
        ("a", FigureState.DEAD),
        ("c", FigureState.UNTREATED),
    ]
    assert [(r.die, r.result) for r in outcome.rolls] == [
        (Die.D8, 3),
        (Die.D8, 4),
        (Die.D8, 1),
        (Die.D10, 9),
        (Die.D6, 4),
        (Die.D10, 5),
        (Die.D6, 4),
    ]


def test_a_mixed_field_does_not_catch_a_three_and_nobody_caught_rolls_no_d10():
    dice = TableDice([3, 6])
    outcome = minefield_attack(
        dice=dice, figures=[Figure("a"), Figure("b")], quality=Quality.GREEN, minefield="mixed"
    )
    dice.ensure_all_used()
    assert (outcome.attacks, outcome.casualties) == ((), ())


def test_a_mine_that_does_not_beat_armour_does_nothing_and_power_armour_rolls_p40():
    figures = [Figure("a", armour=Die.D10), Figure("pa", armour=Die.D10, power_armour=True)]
    # Both caught (1, 2 on a D6); a: mine 3 against 7, nothing; pa: 9 against 5 wounds him,
    # and his suit's D6 of 6 puts him back in action (P.40).
    dice = TableDice([1, 2, 3, 7, 9, 5, 6])
    outcome = minefield_attack(
        dice=dice, figures=figures, quality=Quality.GREEN, minefield=Minefield.ANTI_PERSONNEL
    )
    dice.ensure_all_used()
    assert [a.result for a in outcome.attacks] == [HitResult.NO_EFFECT, HitResult.WOUND]
    (change,) = outcome.casualties
    assert (change.figure_id, change.after, change.power_armour_roll) == ("pa", FigureState.FIT, 6)


def test_in_a_vacuum_a_mine_wound_kills_p57():
    dice = TableDice([1, 5, 4])
    outcome = minefield_attack(
        dice=dice,
        figures=[Figure("a")],
        quality=Quality.REGULAR,
        minefield=Minefield.ANTI_PERSONNEL,
        environment=Environment.VACUUM,
    )
    assert outcome.casualties[0].after is FigureState.DEAD


def test_a_wound_on_a_casualty_follows_the_rewound_option():
    wounded = Figure("a", state=FigureState.UNTREATED)
    for rewound_kills, after in ((False, FigureState.UNTREATED), (True, FigureState.DEAD)):
        outcome = command_detonated_mine(
            dice=TableDice([5, 4]), figures=[wounded], rewound_kills=rewound_kills
        )
        assert outcome.casualties[0].after is after


@pytest.mark.parametrize(
    ("figures", "code"),
    [
        ([], "mines.no_figures"),
        ([Figure("a"), Figure("a")], "mines.figure_twice"),
        ([Figure("a", state=FigureState.DEAD)], "mines.not_on_table"),
        ([Figure("a", state=FigureState.CAPTURED)], "mines.not_on_table"),
    ],
)
def test_the_figures_caught_must_be_named_once_and_on_the_table(figures, code):
    dice = TableDice([])
    with pytest.raises(MinesError) as refused:
        command_detonated_mine(dice=dice, figures=figures)
    assert refused.value.code == code
    assert dice.used == 0


def _attack_distribution(armour: Die) -> dict[HitResult, Fraction]:
    counts: dict[HitResult, int] = dict.fromkeys(HitResult, 0)
    for impact, save in itertools.product(faces(Die.D10), faces(armour)):
        outcome = command_detonated_mine(
            dice=TableDice([impact, save]), figures=[Figure("a", armour=armour)]
        )
        counts[outcome.attacks[0].result] += 1
    total = Die.D10.value * armour.value
    return {result: Fraction(n, total) for result, n in counts.items()}


def test_a_d10_mine_against_d6_armour_exact_probabilities_p55():
    """D10 > D6 in 39 of 60 pairs; D10 > twice the D6 in 20 (8+6+4+2): kill 1/3, wound 19/60."""
    assert _attack_distribution(Die.D6) == {
        HitResult.NO_EFFECT: Fraction(21, 60),
        HitResult.WOUND: Fraction(19, 60),
        HitResult.KILL: Fraction(1, 3),
    }


def test_a_figure_in_an_ap_field_regular_unit_d6_armour_exact_casualty_chance():
    """Caught 3 in 8 (Regular D8), then hurt 39 in 60: a casualty 117 in 480 (39/160)."""
    down = Fraction(0)
    for check, impact, save in itertools.product(faces(Die.D8), faces(Die.D10), faces(Die.D6)):
        entered = [check, impact, save] if check <= 3 else [check]
        outcome = minefield_attack(
            dice=TableDice(entered),
            figures=[Figure("a")],
            quality=Quality.REGULAR,
            minefield=Minefield.ANTI_PERSONNEL,
        )
        # Each (quality, D10, D6) triple weighs 1/480; the D10 and D6 are rolled only for a
        # figure caught.
        if outcome.casualties:
            down += Fraction(1, 8 * 10 * 6)
    assert down == Fraction(39, 160)


def test_a_command_detonated_mine_attacks_every_figure_named_p55():
    figures = [Figure("a"), Figure("b", armour=Die.D8)]
    dice = TableDice([10, 4, 2, 1])
    outcome = command_detonated_mine(dice=dice, figures=figures)
    dice.ensure_all_used()
    assert [(a.figure_id, a.impact_die, a.armour_die, a.result) for a in outcome.attacks] == [
        ("a", Die.D10, Die.D6, HitResult.KILL),
        ("b", Die.D10, Die.D8, HitResult.WOUND),
    ]


@pytest.mark.parametrize(
    ("unit", "trap", "detonates"), [(3, 4, True), (4, 4, False), (5, 4, False)]
)
def test_the_trap_must_beat_the_units_roll_p56(unit, trap, detonates):
    assert booby_trap_detonates(unit, trap) is detonates


def test_a_discovered_trap_hurts_nobody_p56():
    dice = TableDice([6, 6])
    outcome = booby_trap(dice=dice, quality=Quality.REGULAR, closest=Figure("a"))
    dice.ensure_all_used()
    assert (outcome.detonated, outcome.attacks, outcome.casualties) == (False, (), ())
    assert [(r.die, r.result) for r in outcome.rolls] == [(Die.D8, 6), (Die.D8, 6)]


def test_a_trap_that_goes_off_hits_the_closest_figure_d8_and_those_in_contact_d6_p56():
    closest, buddy = Figure("a"), Figure("b")
    # Unit D8 2, trap D8 5: it goes off. a: D8 8 against 3 (8 > 6): DEAD;
    # b: D6 4 against 3: WOUNDED.
    dice = TableDice([2, 5, 8, 3, 4, 3])
    outcome = booby_trap(dice=dice, quality=Quality.REGULAR, closest=closest, in_contact=[buddy])
    dice.ensure_all_used()
    assert outcome.detonated
    assert [(a.figure_id, a.impact_die, a.result) for a in outcome.attacks] == [
        ("a", Die.D8, HitResult.KILL),
        ("b", Die.D6, HitResult.WOUND),
    ]
    assert [c.after for c in outcome.casualties] == [FigureState.DEAD, FigureState.UNTREATED]


def test_a_more_powerful_trap_and_a_d4_trap_whose_lower_impact_stays_d4():
    dice = TableDice([1, 2, 12, 1, 4, 1])
    outcome = booby_trap(
        dice=dice,
        quality=Quality.GREEN,
        closest=Figure("a"),
        in_contact=[Figure("b")],
        trap_die=Die.D4,
        impact=Die.D12,
    )
    dice.ensure_all_used()
    assert [a.impact_die for a in outcome.attacks] == [Die.D12, Die.D10]
    weak = booby_trap(
        dice=TableDice([1, 2, 4, 1, 4, 1]),
        quality=Quality.GREEN,
        closest=Figure("a"),
        in_contact=[Figure("b")],
        trap_die=Die.D4,
        impact=Die.D4,
    )
    assert [a.impact_die for a in weak.attacks] == [Die.D4, Die.D4]


@pytest.mark.parametrize(
    ("quality", "chance"),
    [(Quality.GREEN, Fraction(27, 48)), (Quality.REGULAR, Fraction(28, 64))],
)
def test_a_trap_goes_off_exact_probability_by_quality_p56(quality, chance):
    """A D8 trap beats a Green D6 in 27 of 48 pairs (7+6+5+4+3+2), a Regular D8 in 28 of 64."""
    went_off = 0
    unit_die = quality.die
    for unit, trap in itertools.product(faces(unit_die), faces(Die.D8)):
        entered = [unit, trap] + ([1, 6] if trap > unit else [])
        outcome = booby_trap(dice=TableDice(entered), quality=quality, closest=Figure("a"))
        went_off += outcome.detonated
    assert Fraction(went_off, unit_die.value * 8) == chance
