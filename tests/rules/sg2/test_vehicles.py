from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Die, SeededDice, TableDice
from rules.sg2.casualties import CasualtyError, Figure, FigureState
from rules.sg2.scales import MissionMotivation, Quality
from rules.sg2.vehicles import (
    LandingResult,
    NonPenetratingLocation,
    SuspensionType,
    VehicleArmour,
    VehicleDamage,
    VehicleStatus,
    anti_vehicle_mine,
    crash_landing_result,
    emergency_landing,
    everyone_aboard_killed,
    occupant_casualties,
    occupant_save_number,
    occupants_after_hit,
    penetration_result,
    resolve_vehicle_hit,
    restore_systems,
    small_arms_against_vehicle,
    small_arms_occupant_result,
)

OK = VehicleStatus()
IMM = VehicleDamage.IMMOBILISED
SYS = VehicleDamage.SYSTEMS_DAMAGED
DIS = VehicleDamage.DISABLED
DES = VehicleDamage.DESTROYED


# --- damage states ----------------------------------------------------------------------------


def test_damage_markers_and_effects():
    assert [d.marker for d in VehicleDamage] == ["IMM", "SYS", "DIS", "smoke"]
    assert DIS.occupant_size_multiplier == 1
    assert DES.occupant_size_multiplier == 2
    assert IMM.occupant_size_multiplier is None
    assert IMM.occupant_confidence_threat_level == 3
    assert SYS.occupant_confidence_threat_level is None


def test_immobilised_and_systems_damaged_add_up():
    status = OK.apply(IMM).apply(SYS)
    assert status.damage == {IMM, SYS}
    assert not status.can_move
    assert not status.can_fire
    assert not status.knocked_out


def test_systems_damage_stops_fire_but_not_movement_p39():
    status = OK.apply(SYS)
    assert status.can_move
    assert not status.can_fire


def test_disabled_vehicle_can_still_be_destroyed_but_never_repaired_in_battle():
    disabled = OK.apply(IMM).apply(DIS)
    assert disabled.damage == {DIS}
    assert disabled.knocked_out
    assert not disabled.can_move
    assert disabled.apply(SYS) == disabled
    assert disabled.apply(DIS) == disabled
    destroyed = disabled.apply(DES)
    assert destroyed.destroyed
    assert not destroyed.can_fire
    for damage in VehicleDamage:
        assert destroyed.apply(damage) == destroyed


@given(st.lists(st.sampled_from(list(VehicleDamage)), max_size=6))
def test_damage_never_heals_by_further_hits(damages):
    status = OK
    for damage in damages:
        after = status.apply(damage)
        assert not (status.knocked_out and not after.knocked_out)
        assert not (status.destroyed and not after.destroyed)
        status = after


# --- penetration and hit effects (P.38-39) ----------------------------------------------------


def test_penetration_thresholds():
    assert penetration_result(8, 8) is None
    assert penetration_result(9, 8) is DIS
    assert penetration_result(16, 8) is DIS
    assert penetration_result(17, 8) is DES


def test_armour_values_p38():
    assert (VehicleArmour(0).die, VehicleArmour(0).multiplier) == (Die.D6, 1)
    assert (VehicleArmour(2).die, VehicleArmour(2).multiplier) == (Die.D12, 2)
    for bad in (-1, 6, True, 1.5):
        with pytest.raises(ValueError, match="Armour class"):
            VehicleArmour(bad)  # type: ignore[arg-type]  # the wrong type on purpose


def test_rfac_major_hit_disables_the_apc_p38():
    dice = TableDice([(Die.D10, 7), (Die.D12, 4)])
    outcome = resolve_vehicle_hit(
        dice=dice,
        impact=Die.D10,
        armour=VehicleArmour(2),
        suspension=SuspensionType.TRACKED,
        major_hit=True,
    )
    assert (outcome.impact_score, outcome.armour_score) == (14, 8)
    assert outcome.damage is DIS
    assert outcome.penetrated
    assert outcome.status_after.damage == {DIS}


def test_rfac_nine_penetrates_as_a_minor_hit_and_destroys_as_a_major_p38():
    minor = resolve_vehicle_hit(
        dice=TableDice([9, 4]),
        impact=Die.D10,
        armour=VehicleArmour(2),
        suspension=SuspensionType.TRACKED,
    )
    assert minor.damage is DIS
    major = resolve_vehicle_hit(
        dice=TableDice([9, 4]),
        impact=Die.D10,
        armour=VehicleArmour(2),
        suspension=SuspensionType.TRACKED,
        major_hit=True,
    )
    assert major.impact_score == 18
    assert major.damage is DES


def test_impact_multiplier_for_weapon_size_p38():
    outcome = resolve_vehicle_hit(
        dice=TableDice([(Die.D12, 5), (Die.D12, 4)]),
        impact=Die.D12,
        impact_multiplier=3,
        armour=VehicleArmour(3),
        suspension=SuspensionType.GRAV,
    )
    assert outcome.impact_score == 15
    assert outcome.damage is DIS
    with pytest.raises(ValueError, match="multiplier"):
        resolve_vehicle_hit(
            dice=TableDice([]),
            impact=Die.D12,
            impact_multiplier=0,
            armour=VehicleArmour(3),
            suspension=SuspensionType.GRAV,
        )


@pytest.mark.parametrize(
    ("roll", "location"),
    [
        (1, NonPenetratingLocation.SUSPENSION),
        (2, NonPenetratingLocation.SUSPENSION),
        (3, NonPenetratingLocation.HULL),
        (5, NonPenetratingLocation.HULL),
        (6, NonPenetratingLocation.SYSTEMS),
    ],
)
def test_non_penetrating_location_table_p39(roll, location):
    assert NonPenetratingLocation.from_roll(roll) is location


def test_systems_hit_is_automatic():
    outcome = resolve_vehicle_hit(
        dice=TableDice([1, 12, 6]),
        impact=Die.D6,
        armour=VehicleArmour(1),
        suspension=SuspensionType.TRACKED,
    )
    assert outcome.location is NonPenetratingLocation.SYSTEMS
    assert outcome.damage is SYS
    assert not outcome.penetrated


def test_hull_hit_does_nothing():
    outcome = resolve_vehicle_hit(
        dice=TableDice([1, 12, 4]),
        impact=Die.D6,
        armour=VehicleArmour(1),
        suspension=SuspensionType.TRACKED,
    )
    assert outcome.damage is None
    assert outcome.status_after == OK


def test_suspension_hit_immobilises_when_impact_beats_the_suspension_die():
    dice = TableDice([(Die.D8, 2), (Die.D12, 5), (Die.D6, 1), (Die.D8, 5), (Die.D8, 4)])
    outcome = resolve_vehicle_hit(
        dice=dice, impact=Die.D8, armour=VehicleArmour(1), suspension=SuspensionType.HOVER
    )
    dice.ensure_all_used()
    assert outcome.damage is IMM
    assert (outcome.suspension_impact_score, outcome.suspension_score) == (5, 4)


def test_suspension_holds_on_a_tie():
    outcome = resolve_vehicle_hit(
        dice=TableDice([2, 5, 2, 4, 4]),
        impact=Die.D8,
        armour=VehicleArmour(1),
        suspension=SuspensionType.CIVILIAN_WHEELED,
    )
    assert outcome.location is NonPenetratingLocation.SUSPENSION
    assert outcome.damage is None


@pytest.mark.parametrize("suspension", [SuspensionType.GRAV, SuspensionType.WALKER])
def test_grav_and_walker_suspension_cannot_be_hit_p39(suspension):
    dice = TableDice([1, 12, 1])
    outcome = resolve_vehicle_hit(
        dice=dice, impact=Die.D6, armour=VehicleArmour(1), suspension=suspension
    )
    dice.ensure_all_used()
    assert outcome.location is NonPenetratingLocation.SUSPENSION
    assert outcome.damage is None


def test_suspension_dice_p39_p55():
    assert [s.fire_die for s in SuspensionType] == [Die.D6, Die.D10, Die.D10, Die.D8, None, None]
    assert [s.mine_die for s in SuspensionType] == [Die.D6, Die.D10, Die.D10, Die.D8] + [
        Die.D12
    ] * 2


def test_non_penetrating_location_exact_probabilities():
    counts = Counter(NonPenetratingLocation.from_roll(r) for r in range(1, 7))
    assert Fraction(counts[NonPenetratingLocation.SUSPENSION], 6) == Fraction(1, 3)
    assert Fraction(counts[NonPenetratingLocation.HULL], 6) == Fraction(1, 2)
    assert Fraction(counts[NonPenetratingLocation.SYSTEMS], 6) == Fraction(1, 6)


# --- systems repair ---------------------------------------------------------------------------


@pytest.mark.parametrize(("roll", "restored"), [(1, False), (4, False), (5, True), (6, True)])
def test_backup_systems_come_on_line_on_5_or_6_p39(roll, restored):
    status = OK.apply(SYS).apply(IMM)
    outcome = restore_systems(dice=TableDice([roll]), status=status)
    assert outcome.restored is restored
    assert (SYS in outcome.status_after.damage) is not restored
    assert IMM in outcome.status_after.damage


def test_systems_repair_exact_probability():
    restored = sum(
        restore_systems(dice=TableDice([r]), status=OK.apply(SYS)).restored for r in range(1, 7)
    )
    assert Fraction(restored, 6) == Fraction(1, 3)


def test_systems_repair_needs_a_sys_marker():
    for status in (OK, OK.apply(SYS).apply(DIS)):
        with pytest.raises(CasualtyError) as error:
            restore_systems(dice=TableDice([]), status=status)
        assert error.value.code == "vehicle.no_systems_damage"


# --- occupants of a penetrated vehicle (P.39) -------------------------------------------------


def test_mdc3_disabled_needs_four_and_destroyed_needs_seven_p39():
    assert occupant_save_number(damage=DIS, weapon_size_class=3) == 3
    assert occupant_save_number(damage=DES, weapon_size_class=3) == 6
    assert occupant_save_number(damage=DIS, weapon_size_class=None) == 1
    assert (
        occupant_save_number(damage=DES, weapon_size_class=None, support_weapon_size_class=2) == 4
    )
    with pytest.raises(CasualtyError):
        occupant_save_number(damage=IMM, weapon_size_class=3)
    with pytest.raises(ValueError, match="size class"):
        occupant_save_number(damage=DIS, weapon_size_class=0)


def test_destroyed_by_mdc3_anyone_under_d8_armour_is_a_casualty_without_rolling_p39():
    occupants = [Figure("crew", armour=Die.D4), Figure("trooper", armour=Die.D6)]
    occupants.append(Figure("heavy", armour=Die.D8))
    dice = TableDice([(Die.D8, 7), (Die.D6, 3), (Die.D6, 4)])
    outcome = occupant_casualties(dice=dice, occupants=occupants, damage=DES, weapon_size_class=3)
    dice.ensure_all_used()
    assert outcome.save_above == 6
    assert [o.casualty for o in outcome.occupants] == [True, True, False]
    assert outcome.occupants[0].armour_roll is None
    assert outcome.killed == ("crew",)
    assert outcome.wounded == ("trooper",)


def test_disabled_occupant_must_exceed_the_size_class():
    dice = TableDice([(Die.D6, 3), (Die.D6, 4), (Die.D6, 6)])
    outcome = occupant_casualties(
        dice=dice, occupants=[Figure("a"), Figure("b")], damage=DIS, weapon_size_class=3
    )
    assert [o.casualty for o in outcome.occupants] == [True, False]
    assert outcome.wounded == ("a",)


def test_power_armoured_occupant_rolls_p40_when_wounded():
    dice = TableDice([(Die.D10, 1), (Die.D6, 5), (Die.D6, 5)])
    outcome = occupant_casualties(
        dice=dice,
        occupants=[Figure("p", armour=Die.D10, power_armour=True)],
        damage=DIS,
        weapon_size_class=2,
    )
    change = outcome.occupants[0].change
    assert change is not None
    assert change.after is FigureState.SUIT_DISABLED


def test_occupant_severity_exact_probability():
    deaths = Counter(
        occupant_casualties(
            dice=TableDice([severity]),
            occupants=[Figure("a", armour=Die.D4)],
            damage=DES,
            weapon_size_class=3,
        ).killed
        == ("a",)
        for severity in range(1, 7)
    )
    assert Fraction(deaths[True], 6) == Fraction(1, 2)


def test_occupants_must_be_aboard_and_unique():
    with pytest.raises(CasualtyError):
        occupant_casualties(
            dice=TableDice([]),
            occupants=[Figure("a", state=FigureState.EVACUATED)],
            damage=DIS,
            weapon_size_class=1,
        )
    with pytest.raises(ValueError, match="once"):
        occupant_casualties(
            dice=TableDice([]), occupants=[Figure("a")] * 2, damage=DIS, weapon_size_class=1
        )


# --- small arms against a vehicle (P.37) ------------------------------------------------------


@pytest.mark.parametrize(
    ("roll", "state"), [(1, FigureState.DEAD), (2, FigureState.UNTREATED), (3, None), (6, None)]
)
def test_small_arms_occupant_table_p37(roll, state):
    assert small_arms_occupant_result(roll) is state


def test_gauss_squad_against_a_jeep_p37():
    occupants = [Figure("driver", armour=Die.D4)] + [Figure(f"t{n}") for n in (1, 2, 3)]
    dice = TableDice(
        [(Die.D12, 9), (Die.D6, 4), (Die.D4, 3), (Die.D6, 4), (Die.D6, 2), (Die.D6, 1)]
    )
    outcome = small_arms_against_vehicle(
        dice=dice, impact=Die.D12, armour=VehicleArmour(0), occupants=occupants
    )
    dice.ensure_all_used()
    assert outcome.damage is DIS
    assert outcome.status_after.damage == {DIS}
    states = {o.figure_id: (o.change.after if o.change else None) for o in outcome.occupants}
    assert states == {
        "driver": None,
        "t1": None,
        "t2": FigureState.UNTREATED,
        "t3": FigureState.DEAD,
    }


def test_small_arms_penetration_without_disabling():
    dice = TableDice([(Die.D10, 7), (Die.D12, 5), (Die.D6, 3)])
    outcome = small_arms_against_vehicle(
        dice=dice, impact=Die.D10, armour=VehicleArmour(1), occupants=[Figure("a")]
    )
    assert outcome.penetrated
    assert outcome.damage is None
    assert outcome.status_after == OK


def test_small_arms_stopped_by_armour_rolls_no_occupants():
    dice = TableDice([(Die.D10, 5), (Die.D12, 5)])
    outcome = small_arms_against_vehicle(
        dice=dice, impact=Die.D10, armour=VehicleArmour(1), occupants=[Figure("a")]
    )
    dice.ensure_all_used()
    assert not outcome.penetrated
    assert outcome.occupants == ()


def test_small_arms_cannot_hurt_armour_class_two():
    outcome = small_arms_against_vehicle(
        dice=TableDice([]), impact=Die.D12, armour=VehicleArmour(2), occupants=[Figure("a")]
    )
    assert outcome.rolls == ()
    assert outcome.damage is None


def test_small_arms_power_armour_occupant_rolls_p40():
    dice = TableDice([(Die.D12, 12), (Die.D6, 1), (Die.D12, 2), (Die.D6, 6)])
    outcome = small_arms_against_vehicle(
        dice=dice,
        impact=Die.D12,
        armour=VehicleArmour(0),
        occupants=[Figure("p", armour=Die.D12, power_armour=True)],
    )
    change = outcome.occupants[0].change
    assert change is not None
    assert change.after is FigureState.FIT


# --- anti-vehicle mines (P.55) ----------------------------------------------------------------


def test_mine_immobilises_when_it_beats_the_suspension():
    outcome = anti_vehicle_mine(
        dice=TableDice([(Die.D10, 7), (Die.D10, 4)]),
        suspension=SuspensionType.TRACKED,
        softskin=False,
        occupants=[Figure("a")],
    )
    assert outcome.damage is IMM
    assert outcome.occupants is None


def test_mine_does_nothing_on_a_tie():
    outcome = anti_vehicle_mine(
        dice=TableDice([(Die.D10, 4), (Die.D12, 4)]),
        suspension=SuspensionType.GRAV,
        softskin=False,
        occupants=[],
    )
    assert outcome.damage is None
    assert outcome.status_after == OK


def test_mine_disabling_an_afv_hurts_occupants_on_one_or_two():
    dice = TableDice([(Die.D10, 9), (Die.D10, 4), (Die.D6, 2), (Die.D6, 3), (Die.D6, 5)])
    outcome = anti_vehicle_mine(
        dice=dice,
        suspension=SuspensionType.MILITARY_WHEELED,
        softskin=False,
        occupants=[Figure("a"), Figure("b")],
    )
    dice.ensure_all_used()
    assert outcome.damage is DIS
    assert outcome.occupants is not None
    assert outcome.occupants.save_above == 2
    assert outcome.occupants.wounded == ("a",)


def test_mine_disabling_a_softskin_hurts_occupants_on_one_to_four():
    dice = TableDice([(Die.D10, 5), (Die.D6, 2), (Die.D6, 4), (Die.D6, 1)])
    outcome = anti_vehicle_mine(
        dice=dice,
        suspension=SuspensionType.CIVILIAN_WHEELED,
        softskin=True,
        occupants=[Figure("a")],
    )
    assert outcome.occupants is not None
    assert outcome.occupants.save_above == 4
    assert outcome.occupants.killed == ("a",)


# --- air vehicles (P.49) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("roll", "state"),
    [(1, FigureState.DEAD), (2, FigureState.UNTREATED), (3, FigureState.UNTREATED), (4, None)],
)
def test_crash_landing_table_p49(roll, state):
    assert crash_landing_result(roll) is state


def test_pilot_rolling_one_explodes_and_kills_all_aboard():
    outcome = emergency_landing(
        dice=TableDice([(Die.D8, 1)]), pilot_quality=Quality.REGULAR, occupants=[Figure("a")]
    )
    assert outcome.result is LandingResult.EXPLODED
    assert [c.after for c in outcome.casualties] == [FigureState.DEAD]


def test_pilot_rolling_four_or_more_lands_safely():
    outcome = emergency_landing(
        dice=TableDice([(Die.D6, 4)]), pilot_quality=Quality.GREEN, occupants=[Figure("a")]
    )
    assert outcome.result is LandingResult.CONTROLLED
    assert outcome.casualties == ()


def test_crash_landing_rolls_a_d6_per_occupant_regardless_of_armour():
    occupants = [Figure("a", armour=Die.D12), Figure("b"), Figure("c", power_armour=True)]
    dice = TableDice([(Die.D8, 3), (Die.D6, 1), (Die.D6, 4), (Die.D6, 2), (Die.D6, 6)])
    outcome = emergency_landing(dice=dice, pilot_quality=Quality.REGULAR, occupants=occupants)
    dice.ensure_all_used()
    assert outcome.result is LandingResult.CRASH_LANDED
    assert [(c.figure_id, c.after) for c in outcome.casualties] == [
        ("a", FigureState.DEAD),
        ("c", FigureState.FIT),
    ]


def test_landing_on_a_solid_object_kills_all_without_a_roll():
    outcome = emergency_landing(
        dice=TableDice([]),
        pilot_quality=Quality.ELITE,
        occupants=[Figure("a")],
        hits_solid_object=True,
    )
    assert outcome.rolls == ()
    assert outcome.casualties[0].after is FigureState.DEAD
    assert [c.after for c in everyone_aboard_killed([Figure("b")])] == [FigureState.DEAD]


# --- bailing out (P.39; SG2-C) ----------------------------------------------------------------


def test_immobilised_crew_test_at_threat_three_p39():
    bail = occupants_after_hit(damage=IMM)
    assert (bail.must_bail_out, bail.stay_test_threat_level, bail.test_compulsory) == (
        False,
        3,
        True,
    )


def test_systems_damage_leaves_occupants_alone():
    bail = occupants_after_hit(damage=SYS)
    assert not bail.must_bail_out
    assert bail.stay_test_threat_level is None


def test_destroyed_vehicle_must_be_left_and_they_are_suppressed():
    bail = occupants_after_hit(damage=DES)
    assert bail.must_bail_out
    assert bail.suppressed


@pytest.mark.parametrize(
    ("motivation", "threat"),
    [(MissionMotivation.LOW, 4), (MissionMotivation.MEDIUM, 2), (MissionMotivation.HIGH, 1)],
)
def test_staying_in_a_disabled_vehicle_needs_a_confidence_test(motivation, threat):
    bail = occupants_after_hit(damage=DIS, mission_motivation=motivation)
    assert not bail.must_bail_out
    assert bail.stay_test_threat_level == threat
    assert bail.suppressed
    assert not bail.test_compulsory


def test_second_disabling_hit_forces_them_out():
    assert occupants_after_hit(damage=DIS, already_disabled=True).must_bail_out


def test_without_the_house_rule_only_the_hulk_must_be_left():
    assert occupants_after_hit(damage=DES, disabled_vehicle_bailout=False).must_bail_out
    bail = occupants_after_hit(damage=DIS, disabled_vehicle_bailout=False)
    assert not bail.must_bail_out
    assert not bail.suppressed


# --- properties -------------------------------------------------------------------------------


@given(
    st.binary(min_size=1, max_size=8),
    st.sampled_from([Die.D6, Die.D8, Die.D10, Die.D12]),
    st.integers(0, 5),
    st.booleans(),
)
def test_vehicle_hit_is_deterministic(seed, impact, armour_class, major):
    kwargs = {
        "impact": impact,
        "armour": VehicleArmour(armour_class),
        "suspension": SuspensionType.TRACKED,
        "major_hit": major,
    }
    first = resolve_vehicle_hit(dice=SeededDice(seed, "v"), **kwargs)
    assert first == resolve_vehicle_hit(dice=SeededDice(seed, "v"), **kwargs)
    assert (first.damage in (DIS, DES)) == first.penetrated


def test_penetration_exact_probability_d10_minor_against_class_one():
    counts = Counter(
        penetration_result(i, a) for i, a in itertools.product(range(1, 11), range(1, 13))
    )
    # By hand: disabled when a < i <= 2a; destroyed when i > 2a (a = 1..4: 8+6+4+2 = 20).
    # Not penetrated when i <= a: 1+2+...+10 for a <= 10, plus 10 + 10 for a = 11, 12 = 75.
    assert Fraction(counts[DES], 120) == Fraction(20, 120)
    assert Fraction(counts[None], 120) == Fraction(75, 120)
    assert Fraction(counts[DIS], 120) == Fraction(25, 120)
