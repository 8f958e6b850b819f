"""Rest and recovery (SG2 P.61 REST AND RECOVERY)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Die, TableDice
from rules.errors import RuleError
from rules.sg2.campaign import Location
from rules.sg2.recovery import (
    BattleCounterReset,
    FatigueDropAppliesTo,
    UnfitUnitFate,
    exhausted_withdrawal_test,
    fate_of_unfit_unit,
    fatigue_after_battle,
    injured_trooper_recovery,
    power_suit_repair,
    rest_and_recovery,
    vehicle_repair,
)
from rules.sg2.scales import Fatigue
from rules.sg2.vehicles import VehicleDamage

# --- fatigue after battle -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (Fatigue.FRESH, Fatigue.TIRED),
        (Fatigue.TIRED, Fatigue.EXHAUSTED),
        (Fatigue.EXHAUSTED, Fatigue.EXHAUSTED),
    ],
)
def test_every_battle_costs_one_fatigue_level_p61(before: Fatigue, after: Fatigue) -> None:
    assert fatigue_after_battle(fatigue=before) is after


def test_units_that_did_not_fight_keep_their_fatigue() -> None:
    assert fatigue_after_battle(fatigue=Fatigue.FRESH, fought=False) is Fatigue.FRESH


def test_the_drop_can_apply_to_the_whole_force() -> None:
    after = fatigue_after_battle(
        fatigue=Fatigue.FRESH,
        fought=False,
        fatigue_drop_applies_to=FatigueDropAppliesTo.WHOLE_FORCE,
    )
    assert after is Fatigue.TIRED


@given(start=st.sampled_from(Fatigue), battles=st.integers(0, 10))
def test_fatigue_never_passes_exhausted(start: Fatigue, battles: int) -> None:
    fatigue = start
    for _ in range(battles):
        fatigue = fatigue_after_battle(fatigue=fatigue)
    assert Fatigue.FRESH <= fatigue <= Fatigue.EXHAUSTED
    assert fatigue == min(start + battles, Fatigue.EXHAUSTED)


# --- rest and recovery ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "days", "after", "toward_next", "until_fresh"),
    [
        (Fatigue.EXHAUSTED, 0, Fatigue.EXHAUSTED, 0, 4),
        (Fatigue.EXHAUSTED, 1, Fatigue.EXHAUSTED, 1, 3),
        (Fatigue.EXHAUSTED, 2, Fatigue.TIRED, 0, 2),
        (Fatigue.EXHAUSTED, 3, Fatigue.TIRED, 1, 1),
        (Fatigue.EXHAUSTED, 4, Fatigue.FRESH, 0, 0),
        (Fatigue.EXHAUSTED, 9, Fatigue.FRESH, 0, 0),
        (Fatigue.TIRED, 1, Fatigue.TIRED, 1, 1),
        (Fatigue.TIRED, 2, Fatigue.FRESH, 0, 0),
        (Fatigue.FRESH, 3, Fatigue.FRESH, 0, 0),
    ],
)
def test_two_days_of_rest_recover_each_fatigue_level_in_a_safe_area_p61(
    before: Fatigue, days: int, after: Fatigue, toward_next: int, until_fresh: int
) -> None:
    outcome = rest_and_recovery(fatigue=before, days_rested=days, location=Location.SAFE_AREA)
    assert outcome.fatigue is after
    assert outcome.days_per_level == 2
    assert outcome.days_toward_next_level == toward_next
    assert outcome.days_until_fresh == until_fresh
    assert outcome.levels_recovered == before - after


@pytest.mark.parametrize(
    ("location", "supplied"),
    [(Location.FIELD, True), (Location.SAFE_AREA, False), (Location.FIELD, False)],
)
def test_rest_in_the_field_or_unsupplied_takes_twice_as_long_p61(
    location: Location, supplied: bool
) -> None:
    three = rest_and_recovery(
        fatigue=Fatigue.EXHAUSTED, days_rested=3, location=location, supplied=supplied
    )
    four = rest_and_recovery(
        fatigue=Fatigue.EXHAUSTED, days_rested=4, location=location, supplied=supplied
    )
    assert three.fatigue is Fatigue.EXHAUSTED
    assert four.fatigue is Fatigue.TIRED
    assert four.days_per_level == 4
    assert four.days_until_fresh == 4


def test_field_multiplier_and_days_per_level_are_options() -> None:
    outcome = rest_and_recovery(
        fatigue=Fatigue.EXHAUSTED,
        days_rested=3,
        location=Location.FIELD,
        rr_days_per_fatigue_step=1,
        field_time_multiplier=3,
    )
    assert outcome.days_per_level == 3
    assert outcome.fatigue is Fatigue.TIRED


def test_fatigue_can_be_left_out_of_the_field_doubling() -> None:
    outcome = rest_and_recovery(
        fatigue=Fatigue.TIRED,
        days_rested=2,
        location=Location.FIELD,
        field_doubling_applies_to=["repair", "injured_return"],
    )
    assert outcome.fatigue is Fatigue.FRESH


def test_combat_restarts_the_count_so_only_days_since_count_p61() -> None:
    """P.61: "2 days of R&R to recover ... from EXHAUSTED to TIRED, and a further 2 days to reach
    FRESH; any combat action during this time means the unit must start accruing R&R time from
    the beginning again". An EXHAUSTED unit rests three days, fights, then rests one more."""

    def rest(days: int) -> tuple[Fatigue, int, int]:
        outcome = rest_and_recovery(
            fatigue=Fatigue.EXHAUSTED, days_rested=days, location="safe_area"
        )
        return outcome.fatigue, outcome.days_toward_next_level, outcome.days_until_fresh

    # Before the skirmish: TIRED after two days, the third counts toward FRESH, one more to go.
    assert rest(3) == (Fatigue.TIRED, 1, 1)
    # Had it not fought, the fourth day would have made it FRESH.
    assert rest(3 + 1) == (Fatigue.FRESH, 0, 0)
    # It fought: the count starts again and only the day since counts: still EXHAUSTED, one
    # day of the two toward TIRED, three of the four to FRESH.
    assert rest(1) == (Fatigue.EXHAUSTED, 1, 3)


def test_battle_counter_restarts_when_a_level_is_recovered() -> None:
    one_day = rest_and_recovery(fatigue=Fatigue.EXHAUSTED, days_rested=1, location="safe_area")
    two_days = rest_and_recovery(fatigue=Fatigue.EXHAUSTED, days_rested=2, location="safe_area")
    assert not one_day.battles_counter_reset
    assert two_days.battles_counter_reset


def test_battle_counter_can_restart_on_any_day_of_rest() -> None:
    def rest(days: int) -> bool:
        return rest_and_recovery(
            fatigue=Fatigue.EXHAUSTED,
            days_rested=days,
            location="safe_area",
            rr_counter_reset=BattleCounterReset.ON_ANY_RR_DAY,
        ).battles_counter_reset

    assert not rest(0)
    assert rest(1)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"days_rested": -1}, "at least 0"),
        ({"rr_days_per_fatigue_step": 0}, "at least 1"),
        ({"field_time_multiplier": 0}, "at least 1"),
        ({"field_time_multiplier": 1.5}, "whole number"),
        ({"field_doubling_applies_to": ["naps"]}, "naps"),
        ({"rr_counter_reset": "never"}, "never"),
    ],
)
def test_bad_rest_input_is_refused(arguments: dict[str, Any], message: str) -> None:
    base: dict[str, Any] = {
        "fatigue": Fatigue.TIRED,
        "days_rested": 1,
        "location": Location.FIELD,
    }
    with pytest.raises(ValueError, match=message):
        rest_and_recovery(**(base | arguments))


@given(
    fatigue=st.sampled_from(Fatigue),
    days=st.integers(0, 30),
    location=st.sampled_from(Location),
    supplied=st.booleans(),
)
def test_rest_never_worsens_fatigue_nor_goes_past_fresh_and_days_are_never_negative(
    fatigue: Fatigue, days: int, location: Location, supplied: bool
) -> None:
    outcome = rest_and_recovery(
        fatigue=fatigue, days_rested=days, location=location, supplied=supplied
    )
    more = rest_and_recovery(
        fatigue=fatigue, days_rested=days + 1, location=location, supplied=supplied
    )
    assert Fatigue.FRESH <= outcome.fatigue <= fatigue
    assert more.fatigue <= outcome.fatigue
    assert outcome.days_toward_next_level >= 0
    assert outcome.days_until_fresh >= 0
    assert more.days_until_fresh <= outcome.days_until_fresh


# --- the exhausted-withdrawal test ----------------------------------------------------------


def withdrawal(battles: int, faces: list[int], fatigue: Fatigue = Fatigue.EXHAUSTED, **options):
    dice = TableDice([(Die.D6, face) for face in faces])
    outcome = exhausted_withdrawal_test(
        dice=dice, fatigue_in_battle=fatigue, battles_since_rest=battles, **options
    )
    dice.ensure_all_used()
    return outcome


def test_book_example_unit_pushed_through_battle_after_battle_p61() -> None:
    """P.61: FRESH, two battles to EXHAUSTED, then tested after the third and every later one."""
    fatigue = Fatigue.FRESH
    battles = 0
    for _ in range(2):
        fatigue = fatigue_after_battle(fatigue=fatigue)
        battles += 1
    assert fatigue is Fatigue.EXHAUSTED
    # Battle 3 is fought as EXHAUSTED: 4+ to carry on, 1-3 unfit.
    battles += 1
    assert [withdrawal(battles, [face]).unfit for face in range(1, 7)] == [True] * 3 + [False] * 3
    # Kept in for battle 4: now 5 or better is needed.
    battles += 1
    assert [withdrawal(battles, [face]).unfit for face in range(1, 7)] == [True] * 4 + [False] * 2
    battles += 1
    assert [withdrawal(battles, [face]).unfit for face in range(1, 7)] == [True] * 5 + [False]
    # After SIX consecutive battles it can no longer pass: no die is needed.
    battles += 1
    sixth = withdrawal(battles, [])
    assert sixth.tested
    assert sixth.unfit
    assert sixth.rolls == ()
    assert sixth.needed is None
    # The table may roll the die all the same: no face passes, and it is kept as moot.
    for face in range(1, 7):
        rolled = exhausted_withdrawal_test(
            dice=TableDice([face], moot=True),
            fatigue_in_battle=Fatigue.EXHAUSTED,
            battles_since_rest=battles,
        )
        assert rolled.unfit
        assert [(r.result, r.moot) for r in rolled.rolls] == [(face, True)]


def test_a_unit_that_did_not_fight_exhausted_is_not_tested() -> None:
    # After battle 2 of the book's example the unit has just become EXHAUSTED: no test yet.
    outcome = withdrawal(2, [], fatigue=Fatigue.TIRED)
    assert not outcome.tested
    assert not outcome.unfit
    assert outcome.needed is None
    assert withdrawal(3, [4]).needed == 4


def test_the_withdrawal_test_can_be_switched_off() -> None:
    outcome = withdrawal(5, [], exhausted_withdrawal_test=False)
    assert not outcome.tested
    assert not outcome.unfit


@pytest.mark.parametrize(
    ("battles", "expected"),
    [
        (1, Fraction(1, 6)),
        (2, Fraction(2, 6)),
        (3, Fraction(3, 6)),
        (4, Fraction(4, 6)),
        (5, Fraction(5, 6)),
    ],
)
def test_exact_probability_of_becoming_unfit(battles: int, expected: Fraction) -> None:
    unfit = sum(withdrawal(battles, [face]).unfit for (face,) in itertools.product(range(1, 7)))
    assert Fraction(unfit, 6) == expected


def test_the_roll_is_a_d6_with_a_plain_purpose() -> None:
    outcome = withdrawal(3, [4])
    assert outcome.rolls[0].die is Die.D6
    assert "exhausted" in outcome.rolls[0].purpose


def test_a_count_of_no_battles_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        withdrawal(0, [])


@given(battles=st.integers(1, 12), face=st.integers(1, 6))
def test_more_battles_never_make_a_unit_fitter(battles: int, face: int) -> None:
    def unfit(count: int) -> bool:
        return exhausted_withdrawal_test(
            dice=TableDice([face]), fatigue_in_battle=Fatigue.EXHAUSTED, battles_since_rest=count
        ).unfit

    assert unfit(battles + 1) >= unfit(battles)


def test_an_unfit_unit_kept_fighting_disintegrates_p61() -> None:
    assert fate_of_unfit_unit(kept_in_combat=True) is UnfitUnitFate.DISINTEGRATED
    assert fate_of_unfit_unit(kept_in_combat=False) is UnfitUnitFate.WITHDRAWN


# --- injured troopers -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "permanent", "days"),
    [(1, True, None), (2, True, None), (3, False, 3), (4, False, 4), (5, False, 5), (6, False, 6)],
)
def test_injured_trooper_table_p61(face: int, permanent: bool, days: int | None) -> None:
    dice = TableDice([(Die.D6, face)])
    outcome = injured_trooper_recovery(dice=dice, battle_day=10)
    assert outcome.permanently_evacuated is permanent
    assert outcome.days_until_return == days
    assert outcome.returns_on_day == (None if days is None else 10 + days)
    dice.ensure_all_used()


def test_exact_probabilities_of_recovery() -> None:
    tally: dict[int | None, int] = {}
    for (face,) in itertools.product(range(1, 7)):
        days = injured_trooper_recovery(dice=TableDice([face])).days_until_return
        tally[days] = tally.get(days, 0) + 1
    probabilities = {days: Fraction(count, 6) for days, count in tally.items()}
    assert probabilities == {
        None: Fraction(1, 3),
        3: Fraction(1, 6),
        4: Fraction(1, 6),
        5: Fraction(1, 6),
        6: Fraction(1, 6),
    }


def test_without_a_battle_day_there_is_no_return_day() -> None:
    assert injured_trooper_recovery(dice=TableDice([4])).returns_on_day is None


def test_recovery_in_the_field_takes_twice_as_long_p61() -> None:
    outcome = injured_trooper_recovery(dice=TableDice([5]), location=Location.FIELD, battle_day=3)
    assert outcome.days_until_return == 10
    assert outcome.returns_on_day == 13


def test_recovery_doubling_can_be_turned_off() -> None:
    outcome = injured_trooper_recovery(
        dice=TableDice([5]), supplied=False, field_doubling_applies_to=["fatigue"]
    )
    assert outcome.days_until_return == 5


def test_the_permanent_evacuation_band_is_an_option() -> None:
    assert (
        injured_trooper_recovery(dice=TableDice([2]), injured_permanent_on=1).days_until_return == 2
    )
    assert injured_trooper_recovery(
        dice=TableDice([3]), injured_permanent_on=3
    ).permanently_evacuated


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"injured_permanent_on": 7}, "at most 6"),
        ({"injured_permanent_on": -1}, "at least 0"),
        ({"battle_day": -2}, "at least 0"),
    ],
)
def test_bad_recovery_input_is_refused(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        injured_trooper_recovery(dice=TableDice([3]), **arguments)


@given(
    face=st.integers(1, 6),
    location=st.sampled_from(Location),
    supplied=st.booleans(),
    day=st.integers(0, 500),
)
def test_recovery_days_are_never_negative(
    face: int, location: Location, supplied: bool, day: int
) -> None:
    outcome = injured_trooper_recovery(
        dice=TableDice([face]), location=location, supplied=supplied, battle_day=day
    )
    if outcome.days_until_return is not None:
        assert 3 <= outcome.days_until_return <= 12
        assert outcome.returns_on_day is not None
        assert outcome.returns_on_day > day


# --- vehicle repair -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("damage", "location", "supplied", "days"),
    [
        (VehicleDamage.IMMOBILISED, Location.SAFE_AREA, True, 1),
        (VehicleDamage.SYSTEMS_DAMAGED, Location.SAFE_AREA, True, 1),
        (VehicleDamage.IMMOBILISED, Location.FIELD, True, 2),
        (VehicleDamage.SYSTEMS_DAMAGED, Location.REAR_AREA, False, 2),
        (VehicleDamage.DISABLED, Location.REAR_AREA, True, 3),
        (VehicleDamage.DISABLED, Location.REAR_AREA, False, 6),
    ],
)
def test_repair_days_by_damage_state_p61(
    damage: VehicleDamage, location: Location, supplied: bool, days: int
) -> None:
    repair = vehicle_repair(damage=damage, location=location, supplied=supplied)
    assert repair.repairable
    assert repair.days == days


@pytest.mark.parametrize("location", [Location.SAFE_AREA, Location.FIELD])
def test_disabled_vehicles_are_repaired_only_in_a_rear_area_p61(location: Location) -> None:
    repair = vehicle_repair(damage=VehicleDamage.DISABLED, location=location)
    assert repair.repairable
    assert repair.needs_rear_area
    assert repair.days is None


@pytest.mark.parametrize("location", list(Location))
def test_destroyed_vehicles_may_not_be_repaired_p61(location: Location) -> None:
    repair = vehicle_repair(damage="destroyed", location=location)
    assert not repair.repairable
    assert repair.days is None


def test_repair_days_are_an_option() -> None:
    repair = vehicle_repair(
        damage=VehicleDamage.DISABLED, location=Location.REAR_AREA, repair_days={"disabled": 5}
    )
    assert repair.days == 5
    kept = vehicle_repair(
        damage=VehicleDamage.IMMOBILISED, location=Location.FIELD, repair_days={"disabled": 5}
    )
    assert kept.days == 2


@pytest.mark.parametrize(
    ("repair_days", "message"),
    [
        ({"scratched": 1}, "scratched"),
        ({"destroyed": 9}, "DESTROYED"),
        ({"immobilised": -1}, "at least 0"),
    ],
)
def test_bad_repair_days_are_refused(repair_days: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        vehicle_repair(
            damage=VehicleDamage.IMMOBILISED, location=Location.SAFE_AREA, repair_days=repair_days
        )


@dataclass(frozen=True)
class CampaignRepairDays:
    immobilised: int = 1
    system_damaged: int = 1
    disabled: int = 3


@pytest.mark.parametrize(
    ("damage", "days"),
    [
        (VehicleDamage.IMMOBILISED, 2),
        (VehicleDamage.SYSTEMS_DAMAGED, 4),
        (VehicleDamage.DISABLED, 6),
    ],
)
def test_repair_days_can_come_from_a_campaigns_options(damage: VehicleDamage, days: int) -> None:
    table = CampaignRepairDays(immobilised=2, system_damaged=4, disabled=6)
    repair = vehicle_repair(damage=damage, location=Location.REAR_AREA, repair_days=table)
    assert repair.days == days


def test_the_systems_state_may_be_spelt_as_the_book_does() -> None:
    repair = vehicle_repair(
        damage=VehicleDamage.SYSTEMS_DAMAGED,
        location=Location.SAFE_AREA,
        repair_days={"system_damaged": 2},
    )
    assert repair.days == 2


# --- wrecked power-armour suits ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("location", "supplied", "days", "doubled"),
    [
        (Location.SAFE_AREA, True, 3, False),
        (Location.REAR_AREA, True, 3, False),
        (Location.FIELD, True, 6, True),
        (Location.SAFE_AREA, False, 6, True),
        (Location.FIELD, False, 6, True),
    ],
)
def test_a_wrecked_suit_takes_three_days_doubled_in_the_field_or_unsupplied(
    location: Location, supplied: bool, days: int, doubled: bool
) -> None:
    """P.40 roll 5 wrecks the suit; the campaign time is the digest's (AMBIG-09: 3 days, like
    a disabled vehicle), doubled as every time of P.61; no rear area is needed."""
    repair = power_suit_repair(location=location, supplied=supplied)
    assert (repair.days, repair.doubled) == (days, doubled)


def test_the_suit_repair_days_are_an_option() -> None:
    assert power_suit_repair(location=Location.FIELD, pa_suit_repair_days=1).days == 2
    assert power_suit_repair(location=Location.SAFE_AREA, pa_suit_repair_days=0).days == 0
    field_only_fatigue = power_suit_repair(
        location=Location.FIELD, field_doubling_applies_to=["fatigue"]
    )
    assert (field_only_fatigue.days, field_only_fatigue.doubled) == (3, False)


def test_negative_suit_repair_days_are_refused() -> None:
    with pytest.raises(RuleError):
        power_suit_repair(location=Location.SAFE_AREA, pa_suit_repair_days=-1)
