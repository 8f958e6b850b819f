from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Die, SeededDice, TableDice
from rules.sg2.casualties import CasualtyError, Figure, FigureRole, FigureState
from rules.sg2.medical import (
    TreatmentRefused,
    treat_casualty,
    treat_unit_casualties,
    treatment_modifier,
    treatment_result,
    unit_has_medic,
)

WOUNDED = Figure("w", state=FigureState.UNTREATED)
MEDIC = Figure("doc", role=FigureRole.MEDIC)


@pytest.mark.parametrize(
    ("total", "state"),
    [
        (1, FigureState.DEAD),
        (2, FigureState.DEAD),
        (3, FigureState.STABILISED),
        (4, FigureState.STABILISED),
        (5, FigureState.STABILISED),
        (6, FigureState.FIT),
        (7, FigureState.FIT),
        (9, FigureState.FIT),
    ],
)
def test_treatment_table_p39(total, state):
    assert treatment_result(total) is state


def test_medic_adds_one_to_the_treatment_roll():
    outcome = treat_casualty(dice=TableDice([(Die.D6, 5)]), casualty=WOUNDED, medic=True)
    assert (outcome.modifier, outcome.total, outcome.state) == (1, 6, FigureState.FIT)


def test_medical_unit_adds_two():
    outcome = treat_casualty(dice=TableDice([2]), casualty=WOUNDED, medical_unit=True)
    assert (outcome.total, outcome.state) == (4, FigureState.STABILISED)


def test_medic_and_medical_unit_use_the_larger_unless_they_stack():
    assert treatment_modifier(medic=True, medical_unit=True) == 2
    assert treatment_modifier(medic=True, medical_unit=True, medical_modifiers_stack=True) == 3
    assert treatment_modifier(medic=False, medical_unit=False) == 0
    assert treatment_modifier(medic=True, medical_unit=False, medical_modifiers_stack=True) == 1


def test_unaided_treatment_uses_one_d6():
    outcome = treat_casualty(dice=TableDice([(Die.D6, 2)]), casualty=WOUNDED)
    assert outcome.state is FigureState.DEAD
    assert len(outcome.rolls) == 1
    assert outcome.rolls[0].die is Die.D6
    assert outcome.figure_id == "w"


@pytest.mark.parametrize(
    ("medic", "unit", "stack", "dead", "stabilised", "fit"),
    [
        (False, False, False, Fraction(2, 6), Fraction(3, 6), Fraction(1, 6)),
        (True, False, False, Fraction(1, 6), Fraction(3, 6), Fraction(2, 6)),
        (False, True, False, Fraction(0), Fraction(3, 6), Fraction(3, 6)),
        (True, True, False, Fraction(0), Fraction(3, 6), Fraction(3, 6)),
        (True, True, True, Fraction(0), Fraction(2, 6), Fraction(4, 6)),
    ],
)
def test_treatment_exact_probabilities(medic, unit, stack, dead, stabilised, fit):
    counts = Counter(
        treat_casualty(
            dice=TableDice([roll]),
            casualty=WOUNDED,
            medic=medic,
            medical_unit=unit,
            medical_modifiers_stack=stack,
        ).state
        for roll in range(1, 7)
    )
    assert Fraction(counts[FigureState.DEAD], 6) == dead
    assert Fraction(counts[FigureState.STABILISED], 6) == stabilised
    assert Fraction(counts[FigureState.FIT], 6) == fit


def test_treating_a_dead_figure_is_refused():
    with pytest.raises(TreatmentRefused) as error:
        treat_casualty(dice=TableDice([]), casualty=Figure("x", state=FigureState.DEAD))
    assert error.value.code == "treatment.not_wounded"
    assert isinstance(error.value, ValueError)
    assert isinstance(error.value, CasualtyError)


def test_treating_a_fit_figure_is_refused():
    with pytest.raises(TreatmentRefused) as error:
        treat_casualty(dice=TableDice([]), casualty=Figure("x"))
    assert error.value.code == "treatment.not_wounded"


def test_a_stabilised_casualty_is_not_rolled_again():
    with pytest.raises(TreatmentRefused) as error:
        treat_casualty(dice=TableDice([]), casualty=Figure("x", state=FigureState.STABILISED))
    assert error.value.code == "treatment.already_treated"


def test_all_current_casualties_are_treated_in_one_reorganise_p39():
    figures = [
        MEDIC,
        Figure("a", state=FigureState.UNTREATED),
        Figure("b", state=FigureState.DEAD),
        Figure("c", state=FigureState.STABILISED),
        Figure("d", state=FigureState.UNTREATED),
        Figure("e"),
    ]
    dice = TableDice([(Die.D6, 1), (Die.D6, 5)])
    outcome = treat_unit_casualties(dice=dice, figures=figures)
    dice.ensure_all_used()
    assert outcome.medic
    assert outcome.modifier == 1
    assert outcome.state_of("a") is FigureState.DEAD  # 1 + 1 = 2
    assert outcome.state_of("d") is FigureState.FIT  # 5 + 1 = 6
    assert outcome.state_of("b") is None
    assert outcome.state_of("c") is None
    assert len(outcome.rolls) == 2


def test_a_unit_with_no_casualties_rolls_nothing():
    outcome = treat_unit_casualties(dice=TableDice([]), figures=[MEDIC, Figure("a")])
    assert outcome.treatments == ()
    assert outcome.rolls == ()


def test_a_wounded_medic_helps_only_when_the_option_allows():
    hurt_medic = Figure("doc", role=FigureRole.MEDIC, state=FigureState.UNTREATED)
    dead_medic = Figure("doc", role=FigureRole.MEDIC, state=FigureState.DEAD)
    assert not unit_has_medic([hurt_medic])
    assert unit_has_medic([hurt_medic], medic_must_be_fit=False)
    assert not unit_has_medic([dead_medic], medic_must_be_fit=False)
    assert unit_has_medic([MEDIC])
    outcome = treat_unit_casualties(
        dice=TableDice([5]), figures=[hurt_medic], medic_must_be_fit=False
    )
    assert outcome.state_of("doc") is FigureState.FIT


def test_medical_unit_attends_the_whole_unit():
    outcome = treat_unit_casualties(dice=TableDice([1]), figures=[WOUNDED], medical_unit=True)
    assert outcome.modifier == 2
    assert outcome.state_of("w") is FigureState.STABILISED


def test_unit_treatment_refuses_duplicate_figures():
    with pytest.raises(ValueError, match="once"):
        treat_unit_casualties(dice=TableDice([]), figures=[WOUNDED, WOUNDED])


_RANK = {FigureState.DEAD: 0, FigureState.STABILISED: 1, FigureState.FIT: 2}


@given(st.integers(1, 6), st.booleans(), st.booleans(), st.booleans())
def test_help_never_makes_treatment_worse(roll, medic, unit, stack):
    unaided = treat_casualty(dice=TableDice([roll]), casualty=WOUNDED).state
    aided = treat_casualty(
        dice=TableDice([roll]),
        casualty=WOUNDED,
        medic=medic,
        medical_unit=unit,
        medical_modifiers_stack=stack,
    ).state
    assert _RANK[aided] >= _RANK[unaided]


@given(st.integers(1, 12), st.integers(1, 12))
def test_treatment_is_monotonic_in_the_total(low, high):
    low, high = sorted((low, high))
    assert _RANK[treatment_result(low)] <= _RANK[treatment_result(high)]


@given(st.binary(min_size=1, max_size=8), st.integers(0, 6))
def test_unit_treatment_is_deterministic_and_never_revives_the_dead(seed, wounded):
    figures = [Figure(f"w{n}", state=FigureState.UNTREATED) for n in range(wounded)] + [
        Figure("dead", state=FigureState.DEAD)
    ]
    first = treat_unit_casualties(dice=SeededDice(seed, "med"), figures=figures)
    again = treat_unit_casualties(dice=SeededDice(seed, "med"), figures=figures)
    assert first == again
    assert first.state_of("dead") is None
    assert len(first.rolls) == wounded
