"""Tests for the Stargrunt II Air Defence Environment (p.48, p.45, p.49)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Die, Roll, TableDice
from rules.errors import RuleError
from rules.sg2.air_defence import (
    AirDefence,
    AirDefenceOutcome,
    AirDefenceResult,
    ade_die,
    air_defence_check,
)
from rules.sg2.scales import Quality
from rules.sg2.vehicles import VehicleArmour

SOFTSKIN = VehicleArmour(0)
UNOPPOSED, PENETRATED, ABORTED, SHOT_DOWN = (
    AirDefenceResult.UNOPPOSED,
    AirDefenceResult.PENETRATED,
    AirDefenceResult.ABORTED,
    AirDefenceResult.SHOT_DOWN,
)


class _NeedMore(Exception):
    def __init__(self, die: Die) -> None:
        self.die = die


class _Prefix:
    """Dice that replay a prefix of faces and stop at the first die beyond it."""

    def __init__(self, faces: tuple[int, ...]) -> None:
        self.faces = faces
        self.used = 0

    def roll(self, die: Die, purpose: str) -> Roll:
        if self.used == len(self.faces):
            raise _NeedMore(die)
        face = self.faces[self.used]
        self.used += 1
        return Roll(die=die, result=face, purpose=purpose)


def distribution(**kwargs: Any) -> dict[AirDefenceResult, Fraction]:
    """The exact chance of each result, by enumerating every face of every die the check asks
    for (the number of dice depends on the faces already rolled)."""
    chances: dict[AirDefenceResult, Fraction] = {}
    pending: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    while pending:
        faces, chance = pending.pop()
        try:
            outcome = air_defence_check(dice=_Prefix(faces), **kwargs)
        except _NeedMore as need:
            pending += [
                ((*faces, face), chance / need.die.value) for face in range(1, need.die + 1)
            ]
            continue
        chances[outcome.result] = chances.get(outcome.result, Fraction(0)) + chance
    return chances


def check(faces: list[int], **kwargs: Any) -> AirDefenceOutcome:
    dice = TableDice(faces)
    outcome = air_defence_check(dice=dice, **kwargs)
    dice.ensure_all_used()
    return outcome


REGULAR_LV2: dict[str, Any] = {"pilot_quality": Quality.REGULAR, "pilot_leadership": 2}


# --- the ADE die (p.48, p.45) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ade", "arriving", "leaving"),
    [
        (AirDefence.NONE, None, None),
        (AirDefence.MINIMAL, Die.D4, Die.D4),
        (AirDefence.LOW, Die.D6, Die.D4),
        (AirDefence.MODERATE, Die.D8, Die.D6),
        (AirDefence.HIGH, Die.D10, Die.D8),
        (AirDefence.EXTREME, Die.D12, Die.D10),
    ],
)
def test_the_ade_die_and_one_type_lower_on_the_way_out(ade, arriving, leaving):
    """p.48: MINIMAL D4, LOW D6, MODERATE D8, HIGH D10, EXTREME D12; p.45: one type lower for
    aircraft leaving, a closed shift, so a MINIMAL ADE stays a D4."""
    assert ade.die is arriving
    assert ade_die(ade, leaving=False) is arriving
    assert ade_die(ade, leaving=True) is leaving


def test_no_ade_rolls_nothing():
    """p.48: with NO ADE (small arms only) there is no test."""
    outcome = check([], ade=AirDefence.NONE, leaving=False, armour=SOFTSKIN, **REGULAR_LV2)
    assert (outcome.result, outcome.die, outcome.rolls) == (UNOPPOSED, None, ())
    assert not outcome.aboard_killed


# --- one check, die by die (p.48) -----------------------------------------------------------------


def test_the_ade_must_beat_the_ecm_die_a_d4_without_ecm():
    """p.48: the ADE is the firer and must BEAT the ECM score; no ECM suite rolls a D4."""
    outcome = check([3, 3], ade=AirDefence.LOW, leaving=False, armour=SOFTSKIN, **REGULAR_LV2)
    assert (outcome.result, outcome.acquired, outcome.pressed_on) == (PENETRATED, False, None)
    assert [(r.die, r.result) for r in outcome.rolls] == [(Die.D6, 3), (Die.D4, 3)]
    assert outcome.rolls[0].purpose == "ADE against the aircraft's ECM"


def test_an_acquired_aircraft_may_abort_by_choice():
    outcome = check(
        [4, 3], ade=AirDefence.LOW, leaving=False, armour=SOFTSKIN, press_on=False, **REGULAR_LV2
    )
    assert (outcome.result, outcome.acquired, outcome.pressed_on) == (ABORTED, True, False)
    assert outcome.reaction_target is None
    assert not outcome.aboard_killed


def test_a_pilot_who_fails_his_reaction_test_at_tl_2_aborts():
    """p.48: pressing on, the pilot takes a reaction test at threat level +2: a Regular (D8)
    LV 2 pilot must beat 4."""
    outcome = check([6, 1, 4], ade=AirDefence.LOW, leaving=False, armour=SOFTSKIN, **REGULAR_LV2)
    assert (outcome.result, outcome.reaction_target, outcome.reaction_passed) == (
        ABORTED,
        4,
        False,
    )
    assert outcome.rolls[2].die is Die.D8


def test_pressing_on_the_ade_against_the_armour_shoots_it_down():
    """p.48: the ADE against the armour die (a softskin D6); the ADE must beat it."""
    outcome = check(
        [6, 1, 5, 6, 5], ade=AirDefence.LOW, leaving=False, armour=SOFTSKIN, **REGULAR_LV2
    )
    assert (outcome.result, outcome.reaction_passed) == (SHOT_DOWN, True)
    assert outcome.aboard_killed
    assert [r.die for r in outcome.rolls] == [Die.D6, Die.D4, Die.D8, Die.D6, Die.D6]
    tie = check([6, 1, 5, 5, 5], ade=AirDefence.LOW, leaving=False, armour=SOFTSKIN, **REGULAR_LV2)
    assert tie.result is PENETRATED


def test_armour_rolls_d12_times_its_class():
    """p.38: armour class 2 rolls D12 x 2: an EXTREME ADE's 12 does not beat 2 x 6."""
    outcome = check(
        [12, 1, 5, 12, 6],
        ade=AirDefence.EXTREME,
        leaving=False,
        armour=VehicleArmour(2),
        ecm_die=Die.D6,
        **REGULAR_LV2,
    )
    assert outcome.result is PENETRATED
    assert [r.die for r in outcome.rolls] == [Die.D12, Die.D6, Die.D8, Die.D12, Die.D12]
    assert (
        check(
            [12, 1, 5, 12, 5],
            ade=AirDefence.EXTREME,
            leaving=False,
            armour=VehicleArmour(2),
            ecm_die=Die.D6,
            **REGULAR_LV2,
        ).result
        is SHOT_DOWN
    )


def test_leaving_rolls_the_lower_die():
    outcome = check(
        [4, 3, 5, 4, 3], ade=AirDefence.LOW, leaving=True, armour=SOFTSKIN, **REGULAR_LV2
    )
    assert (outcome.result, outcome.die, outcome.leaving) == (SHOT_DOWN, Die.D4, True)


def test_refusals():
    with pytest.raises(RuleError):
        check(
            [],
            ade=AirDefence.LOW,
            leaving=False,
            armour=SOFTSKIN,
            pilot_quality=Quality.GREEN,
            pilot_leadership=4,
        )
    with pytest.raises(RuleError) as refused:
        check([], ade=AirDefence.LOW, leaving=False, armour=SOFTSKIN, ecm_die=6, **REGULAR_LV2)
    assert refused.value.code == "air_defence.refused"


# --- exact chances, by enumeration ----------------------------------------------------------------


def test_low_ade_against_a_softskin_vtol_without_ecm():
    """LOW ADE (D6) against no ECM (D4): acquired 14/24 = 7/12; a Regular LV 2 pilot presses on
    1/2 of the time; D6 beats the softskin's D6 15/36 = 5/12. Shot down 7/12 x 1/2 x 5/12."""
    chances = distribution(ade=AirDefence.LOW, leaving=False, armour=SOFTSKIN, **REGULAR_LV2)
    assert chances == {
        SHOT_DOWN: Fraction(35, 288),
        ABORTED: Fraction(7, 24),
        PENETRATED: Fraction(169, 288),
    }


def test_the_same_flight_leaving():
    """On the way out the LOW ADE rolls a D4: acquired (D4 beats D4) 6/16; D4 beats D6 6/24."""
    chances = distribution(ade=AirDefence.LOW, leaving=True, armour=SOFTSKIN, **REGULAR_LV2)
    assert chances[SHOT_DOWN] == Fraction(3, 8) * Fraction(1, 2) * Fraction(1, 4)
    assert chances[ABORTED] == Fraction(3, 16)
    assert sum(chances.values()) == 1


def test_high_ade_against_an_armoured_vtol_with_ecm():
    """HIGH ADE (D10) against ECM D8: acquired 44/80; an Elite LV 1 pilot beats 3 on a D12 9/12;
    D10 beats D12 x 2 20/120."""
    chances = distribution(
        ade=AirDefence.HIGH,
        leaving=False,
        armour=VehicleArmour(2),
        ecm_die=Die.D8,
        pilot_quality=Quality.ELITE,
        pilot_leadership=1,
    )
    assert chances[SHOT_DOWN] == Fraction(44, 80) * Fraction(9, 12) * Fraction(20, 120)
    assert chances[ABORTED] == Fraction(44, 80) * Fraction(3, 12)


def test_choosing_to_abort_when_acquired_is_never_shot_down():
    chances = distribution(
        ade=AirDefence.EXTREME, leaving=False, armour=SOFTSKIN, press_on=False, **REGULAR_LV2
    )
    # D12 beats D4: (8 + 9 + 10 + 11) / 48.
    assert chances == {ABORTED: Fraction(38, 48), PENETRATED: Fraction(10, 48)}


# --- every input ----------------------------------------------------------------------------------


@given(
    ade=st.sampled_from(list(AirDefence)),
    leaving=st.booleans(),
    armour_class=st.integers(0, 5),
    ecm=st.sampled_from([None, *Die]),
    quality=st.sampled_from(list(Quality)),
    leadership=st.integers(1, 3),
    press_on=st.booleans(),
    data=st.data(),
)
def test_the_check_follows_the_book_for_any_input(
    ade, leaving, armour_class, ecm, quality, leadership, press_on, data
):
    armour = VehicleArmour(armour_class)
    faces: list[int] = []

    class Drawn:
        def roll(self, die: Die, purpose: str) -> Roll:
            face = data.draw(st.integers(1, die.value))
            faces.append(face)
            return Roll(die=die, result=face, purpose=purpose)

    outcome = air_defence_check(
        dice=Drawn(),
        ade=ade,
        leaving=leaving,
        armour=armour,
        pilot_quality=quality,
        pilot_leadership=leadership,
        ecm_die=ecm,
        press_on=press_on,
    )
    rolls = outcome.rolls
    assert [r.result for r in rolls] == faces
    assert outcome.aboard_killed == (outcome.result is SHOT_DOWN)
    if ade is AirDefence.NONE:
        assert (outcome.result, rolls) == (UNOPPOSED, ())
        return
    assert outcome.die is not None
    assert outcome.die <= ade.die
    assert [r.die for r in rolls[:2]] == [outcome.die, ecm or Die.D4]
    assert outcome.acquired == (rolls[0].result > rolls[1].result)
    if not outcome.acquired:
        assert (outcome.result, len(rolls)) == (PENETRATED, 2)
    elif not press_on:
        assert (outcome.result, len(rolls)) == (ABORTED, 2)
    elif rolls[2].result <= leadership + 2:
        assert (outcome.result, outcome.reaction_passed, len(rolls)) == (ABORTED, False, 3)
        assert rolls[2].die is quality.die
    else:
        assert len(rolls) == 5
        assert rolls[4].die is armour.die
        shot = rolls[3].result > rolls[4].result * armour.multiplier
        assert outcome.result is (SHOT_DOWN if shot else PENETRATED)
