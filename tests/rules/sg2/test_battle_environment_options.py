"""The SG2 options that change what a hit does: vacuum (P.57), a treated casualty wounded again
(SG2-C, option ``rewound_reverts_to_untreated``), the test to stay in a disabled vehicle and a
vehicle disabled twice (SG2-C Remaining in a Disabled Vehicle). Each is flipped here and seen to
change the outcome, with exact probabilities where dice decide it."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Die, TableDice
from rules.sg2.casualties import (
    BurstExposure,
    Figure,
    FigureState,
    allowed_transitions,
    artillery_casualties,
    close_combat_casualties,
    resolve_fire_casualties,
    state_after_hits,
    transition,
)
from rules.sg2.options import DisabledVehicleStayTest, Environment
from rules.sg2.scales import MissionMotivation, Quality
from rules.sg2.vehicles import (
    SuspensionType,
    VehicleArmour,
    VehicleDamage,
    VehicleStatus,
    anti_vehicle_mine,
    emergency_landing,
    occupant_casualties,
    occupants_after_hit,
    resolve_vehicle_hit,
    small_arms_against_vehicle,
)

VACUUM = Environment.VACUUM
DIS = VehicleDamage.DISABLED
DES = VehicleDamage.DESTROYED

# --- vacuum: every wound is a kill (SG2 P.57) ---------------------------------------------------


def test_in_a_vacuum_a_wound_kills_p57():
    """P.57: "All WOUND effects should be considered as KILLS when fighting in vacuum"."""
    assert state_after_hits(FigureState.FIT, wounds=1, kills=0) is FigureState.UNTREATED
    assert state_after_hits(FigureState.FIT, wounds=1, kills=0, environment=VACUUM) is (
        FigureState.DEAD
    )
    for casualty in (FigureState.UNTREATED, FigureState.STABILISED, FigureState.SUIT_DISABLED):
        assert state_after_hits(casualty, wounds=1, kills=0, environment=VACUUM) is (
            FigureState.DEAD
        )
    # No wound, no change; the dead stay dead.
    assert state_after_hits(FigureState.FIT, wounds=0, kills=0, environment=VACUUM) is (
        FigureState.FIT
    )
    assert state_after_hits(FigureState.DEAD, wounds=1, kills=0, environment=VACUUM) is (
        FigureState.DEAD
    )


def test_fire_in_a_vacuum_kills_with_every_hit_that_wounds_exact_probability_p57():
    """One D10 potential hit against D6 armour: 9+8+7+6+5+4 = 39 of 60 face pairs beat the
    armour (P.36), of which 8+6+4+2 = 20 more than double it. In a vacuum all 39 kill; in
    normal air only 20 do."""
    killed = {Environment.NORMAL: 0, VACUUM: 0}
    for environment, impact, armour in itertools.product(killed, range(1, 11), range(1, 7)):
        outcome = resolve_fire_casualties(
            dice=TableDice([(Die.D10, impact), (Die.D6, armour)]),
            figures=[Figure("lone")],
            potential_hits=1,
            impact=Die.D10,
            environment=environment,
        )
        killed[environment] += len(outcome.killed)
        assert not outcome.wounded or environment is Environment.NORMAL
    assert Fraction(killed[Environment.NORMAL], 60) == Fraction(20, 60)
    assert Fraction(killed[VACUUM], 60) == Fraction(39, 60)


def test_a_power_armoured_trooper_wounded_in_a_vacuum_is_killed_and_rolls_no_p40_die():
    dice = TableDice([(Die.D10, 7), (Die.D10, 5)])
    outcome = resolve_fire_casualties(
        dice=dice,
        figures=[Figure("pa", armour=Die.D10, power_armour=True)],
        potential_hits=1,
        impact=Die.D10,
        environment=VACUUM,
    )
    dice.ensure_all_used()
    assert outcome.killed == ("pa",)
    assert outcome.casualties[0].power_armour_roll is None


def test_artillery_in_a_vacuum_kills_the_wounded():
    """GPE D8 against D6 armour: 5 against 3 wounds (P.47); in a vacuum it kills."""
    exposure = [BurstExposure(figure=Figure("f"))]
    normal = artillery_casualties(dice=TableDice([5, 3]), exposures=exposure)
    vacuum = artillery_casualties(dice=TableDice([5, 3]), exposures=exposure, environment=VACUUM)
    assert normal.casualties[0].after is FigureState.UNTREATED
    assert vacuum.casualties[0].after is FigureState.DEAD


def test_close_combat_wounded_die_in_a_vacuum_exact_probability_p42_p57():
    """P.42: D6 1-2 dead, 3-4 wounded, 5-6 stunned. In a vacuum 3-4 kill too: 4 in 6."""
    for environment, dead in ((Environment.NORMAL, Fraction(2, 6)), (VACUUM, Fraction(4, 6))):
        tally = Counter(
            close_combat_casualties(
                dice=TableDice([face]),
                down=[Figure("f", state=FigureState.DOWN)],
                side_won=True,
                environment=environment,
            )
            .casualties[0]
            .state
            for face in range(1, 7)
        )
        assert Fraction(tally[FigureState.DEAD], 6) == dead
        assert tally[FigureState.FIT] == 2  # stunned, back in the fight either way


def test_vehicle_occupants_in_a_vacuum_are_killed_with_no_severity_die():
    """P.39: a casualty rolls D6, 1-3 dead, 4-6 wounded. In a vacuum the wound is a kill, so
    that die cannot matter and is not asked for."""
    occupants = [Figure("a"), Figure("b")]
    normal = TableDice([(Die.D6, 1), (Die.D6, 6), (Die.D6, 5)])
    outcome = occupant_casualties(dice=normal, occupants=occupants, damage=DIS, weapon_size_class=3)
    normal.ensure_all_used()
    assert outcome.wounded == ("a",)
    vacuum = TableDice([(Die.D6, 1), (Die.D6, 6)])
    outcome = occupant_casualties(
        dice=vacuum, occupants=occupants, damage=DIS, weapon_size_class=3, environment=VACUUM
    )
    vacuum.ensure_all_used()
    assert outcome.killed == ("a",)
    assert outcome.occupants[0].severity_roll is None
    assert outcome.occupants[1].change is None


def test_small_arms_mines_and_crash_landings_kill_the_wounded_in_a_vacuum():
    jeep = VehicleArmour(0)
    # P.37: impact 9 against softskin D6 3 penetrates; occupant armour 2 is a wound.
    small_arms = small_arms_against_vehicle(
        dice=TableDice([(Die.D10, 9), (Die.D6, 3), (Die.D6, 2)]),
        impact=Die.D10,
        armour=jeep,
        occupants=[Figure("a")],
        environment=VACUUM,
    )
    assert small_arms.occupants[0].change is not None
    assert small_arms.occupants[0].change.after is FigureState.DEAD
    # P.55: a disabling mine, occupant casualty on 1-2, no severity die in a vacuum.
    dice = TableDice([(Die.D10, 9), (Die.D10, 4), (Die.D6, 2)])
    mine = anti_vehicle_mine(
        dice=dice,
        suspension=SuspensionType.TRACKED,
        softskin=False,
        occupants=[Figure("a")],
        environment=VACUUM,
    )
    dice.ensure_all_used()
    assert mine.occupants is not None
    assert mine.occupants.killed == ("a",)
    # P.49: a crash landing wounds on 2-3; in a vacuum those kill.
    landing = emergency_landing(
        dice=TableDice([(Die.D8, 2), (Die.D6, 3), (Die.D6, 5)]),
        pilot_quality=Quality.REGULAR,
        occupants=[Figure("a"), Figure("b")],
        environment=VACUUM,
    )
    assert [(c.figure_id, c.after) for c in landing.casualties] == [("a", FigureState.DEAD)]


# --- a treated casualty wounded again (SG2-C, gap) -----------------------------------------------


def test_a_stabilised_casualty_wounded_again_stays_stabilised_unless_the_option_says():
    """SG2-C Allocating Casualties: one new wound on a casualty leaves him "still just wounded";
    whether a treated casualty needs treatment again is a gap, option
    ``rewound_reverts_to_untreated`` (default false)."""
    assert state_after_hits(FigureState.STABILISED, wounds=1, kills=0) is FigureState.STABILISED
    reverted = state_after_hits(
        FigureState.STABILISED, wounds=1, kills=0, rewound_reverts_to_untreated=True
    )
    assert reverted is FigureState.UNTREATED
    assert transition(FigureState.STABILISED, reverted) is reverted
    # An untreated casualty is untreated already; rewound_kills takes precedence.
    assert state_after_hits(
        FigureState.UNTREATED, wounds=1, kills=0, rewound_reverts_to_untreated=True
    ) is (FigureState.UNTREATED)
    assert state_after_hits(
        FigureState.STABILISED,
        wounds=1,
        kills=0,
        rewound_kills=True,
        rewound_reverts_to_untreated=True,
    ) is (FigureState.DEAD)


def test_fire_and_artillery_pass_the_reverting_option_through():
    stabilised = Figure("s", state=FigureState.STABILISED)
    fire = resolve_fire_casualties(
        dice=TableDice([(Die.D10, 5), (Die.D6, 3)]),
        figures=[stabilised],
        potential_hits=1,
        impact=Die.D10,
        rewound_reverts_to_untreated=True,
    )
    assert fire.casualties[0].after is FigureState.UNTREATED
    burst = artillery_casualties(
        dice=TableDice([5, 3]),
        exposures=[BurstExposure(figure=stabilised)],
        rewound_reverts_to_untreated=True,
    )
    assert burst.casualties[0].after is FigureState.UNTREATED


@given(
    st.sampled_from([s for s in FigureState if s.on_table_alive or s is FigureState.DEAD]),
    st.integers(0, 3),
    st.integers(0, 3),
    st.booleans(),
    st.booleans(),
    st.sampled_from(list(Environment)),
)
def test_hits_never_heal_whatever_the_options(state, wounds, kills, rewound, reverts, where):
    after = state_after_hits(
        state,
        wounds=wounds,
        kills=kills,
        rewound_kills=rewound,
        rewound_reverts_to_untreated=reverts,
        environment=where,
    )
    assert after is state or after in allowed_transitions(state)
    assert after is not FigureState.FIT or state is FigureState.FIT
    if where is VACUUM and wounds and state is not FigureState.DEAD:
        assert after is FigureState.DEAD


# --- the test to stay aboard a disabled vehicle (SG2-C, AMBIG) ----------------------------------


def test_the_stay_aboard_test_is_a_confidence_test_unless_the_option_makes_it_a_reaction_test():
    default = occupants_after_hit(damage=DIS, mission_motivation=MissionMotivation.LOW)
    assert (default.stay_test, default.stay_test_threat_level) == (
        DisabledVehicleStayTest.CONFIDENCE,
        4,
    )
    reaction = occupants_after_hit(
        damage=DIS,
        mission_motivation=MissionMotivation.LOW,
        disabled_vehicle_stay_test=DisabledVehicleStayTest.REACTION,
    )
    assert (reaction.stay_test, reaction.stay_test_threat_level) == (
        DisabledVehicleStayTest.REACTION,
        4,
    )
    # P.39: an immobilised vehicle's test is the book's confidence test whatever the option.
    immobilised = occupants_after_hit(
        damage=VehicleDamage.IMMOBILISED,
        disabled_vehicle_stay_test=DisabledVehicleStayTest.REACTION,
    )
    assert immobilised.stay_test is DisabledVehicleStayTest.CONFIDENCE


# --- a vehicle disabled twice (SG2-C, gap) -------------------------------------------------------


@pytest.mark.parametrize(("option", "after"), [(False, {DIS}), (True, {DES})])
def test_a_vehicle_disabled_twice_is_destroyed_only_with_the_option(option, after):
    disabled = VehicleStatus(frozenset({DIS}))
    assert disabled.apply(DIS, double_disabled_is_destroyed=option).damage == after
    # The first disabling hit is a disabling hit either way, and IMM/SYS never destroy.
    assert VehicleStatus().apply(DIS, double_disabled_is_destroyed=option).damage == {DIS}
    assert disabled.apply(
        VehicleDamage.IMMOBILISED, double_disabled_is_destroyed=option
    ).damage == {DIS}
    # P.38: impact 6 x 3 = 18 against armour 5 x 2 = 10 disables (not above twice).
    hit = resolve_vehicle_hit(
        dice=TableDice([(Die.D12, 6), (Die.D12, 5)]),
        impact=Die.D12,
        armour=VehicleArmour(2),
        suspension=SuspensionType.TRACKED,
        impact_multiplier=3,
        status=disabled,
        double_disabled_is_destroyed=option,
    )
    assert (hit.damage, hit.status_after.damage) == (DIS, after)


@pytest.mark.parametrize(("option", "after"), [(False, {DIS}), (True, {DES})])
def test_mines_and_small_arms_disabling_a_disabled_vehicle_follow_the_option(option, after):
    disabled = VehicleStatus(frozenset({DIS}))
    mine = anti_vehicle_mine(
        dice=TableDice([(Die.D10, 9), (Die.D10, 4)]),
        suspension=SuspensionType.TRACKED,
        softskin=False,
        occupants=[],
        status=disabled,
        double_disabled_is_destroyed=option,
    )
    assert mine.status_after.damage == after
    small_arms = small_arms_against_vehicle(
        dice=TableDice([(Die.D10, 9), (Die.D6, 2)]),
        impact=Die.D10,
        armour=VehicleArmour(0),
        occupants=[],
        status=disabled,
        double_disabled_is_destroyed=option,
    )
    assert (small_arms.damage, small_arms.status_after.damage) == (DIS, after)
