"""Off-table fire support: the request roll (SG2 P.44), the Inbound Chart timing (P.45-46) and
where a mission lands (P.46)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Die, TableDice
from rules.errors import RuleError
from rules.sg2.command import CommandLevel
from rules.sg2.fire_support import (
    SupportKind,
    accuracy_target,
    available_turn,
    fire_mission_landing,
    request_die,
    request_factor,
    request_support,
    starting_box,
)
from rules.sg2.options import FireMissionArrival, InboundStart, SupportFactors
from rules.sg2.scales import Quality


def test_a_platoon_commander_calling_a_company_battery_rolls_a_d8_p44():
    # "if a Platoon Commander was trying to call for support from a battery organised at Company
    # level, there would be no die shift for this"
    outcome = request_support(
        dice=TableDice([5]),
        kind=SupportKind.ARTILLERY,
        caller_leadership=2,
        caller_level=CommandLevel.PLATOON,
        asset_level=CommandLevel.COMPANY,
    )
    assert (outcome.die, outcome.bypassed, outcome.target, outcome.granted) == (Die.D8, 0, 4, True)


def test_a_squad_leader_shifts_down_and_two_counters_raise_it_to_a_d10_p44():
    # "if a SQUAD leader was calling for fire from the same battery he would shift down one die
    # (to a D6) ... spending two of his counters to boost the die type from a D6 up to a D10."
    assert request_die(bypassed=1, chits=0) is Die.D6
    outcome = request_support(
        dice=TableDice([(10, 4)]),
        kind=SupportKind.ARTILLERY,
        caller_leadership=2,
        caller_level=CommandLevel.SQUAD,
        asset_level=CommandLevel.COMPANY,
        chits=2,
    )
    assert outcome.die is Die.D10
    # LV 2 + 2 (no forward observer): a 4 does not exceed 4.
    assert (outcome.target, outcome.granted) == (4, False)


def test_a_dedicated_observer_ignores_the_command_levels_and_needs_less_p44():
    # "this element may then call fire with a D8 roll rather than the D6 that the Platoon
    # commander himself would have to use (plus the dedicated observer gets a lower score)"
    commander = request_support(
        dice=TableDice([3]),
        kind=SupportKind.ARTILLERY,
        caller_leadership=2,
        caller_level=CommandLevel.PLATOON,
        asset_level=CommandLevel.BATTALION,
    )
    observer = request_support(
        dice=TableDice([3]),
        kind=SupportKind.ARTILLERY,
        caller_leadership=2,
        caller_level=CommandLevel.PLATOON,
        asset_level=CommandLevel.BATTALION,
        dedicated=True,
    )
    assert (commander.die, commander.target, commander.granted) == (Die.D6, 4, False)
    assert (observer.die, observer.target, observer.granted) == (Die.D8, 2, True)


@pytest.mark.parametrize(
    ("kind", "dedicated", "factor"),
    [
        (SupportKind.ARTILLERY, True, 0),
        (SupportKind.ARTILLERY, False, 2),
        (SupportKind.ORBITAL, True, 3),
        (SupportKind.ORBITAL, False, 6),
        (SupportKind.AIR, True, 2),
        (SupportKind.AIR, False, 4),
    ],
)
def test_the_factors_added_to_the_lv_p44(kind, dedicated, factor):
    assert request_factor(kind, dedicated=dedicated, factors=SupportFactors()) == factor


def test_the_umpire_may_change_the_factors_p44():
    harder = SupportFactors(artillery=4)
    outcome = request_support(
        dice=TableDice([6]),
        kind=SupportKind.ARTILLERY,
        caller_leadership=1,
        caller_level=CommandLevel.PLATOON,
        asset_level=CommandLevel.COMPANY,
        factors=harder,
    )
    assert (outcome.target, outcome.granted) == (5, True)


def test_orbital_support_without_a_liaison_needs_more_than_a_d8_can_give_an_lv_3():
    # LV 3 + 6 = 9: only counters raising the die to a D10 or D12 give any chance.
    for chits, chance in ((0, Fraction(0)), (1, Fraction(1, 10)), (2, Fraction(3, 12))):
        die = request_die(bypassed=0, chits=chits)
        wins = sum(1 for face in range(1, die + 1) if face > 3 + 6)
        assert Fraction(wins, die) == chance


def test_exact_chance_of_a_squad_leader_getting_company_mortars():
    # D6 against LV 1 + 2 = 3: faces 4, 5, 6 of 6.
    granted = 0
    for face in range(1, 7):
        outcome = request_support(
            dice=TableDice([face]),
            kind=SupportKind.ARTILLERY,
            caller_leadership=1,
            caller_level=CommandLevel.SQUAD,
            asset_level=CommandLevel.COMPANY,
        )
        granted += outcome.granted
    assert Fraction(granted, 6) == Fraction(1, 2)


@given(bypassed=st.integers(0, 6), chits=st.integers(0, 6))
def test_the_request_die_is_a_closed_shift_of_a_d8(bypassed, chits):
    die = request_die(bypassed=bypassed, chits=chits)
    assert Die.D4 <= die <= Die.D12
    ladder = [Die.D4, Die.D6, Die.D8, Die.D10, Die.D12]
    assert die is ladder[min(max(2 + chits - bypassed, 0), 4)]


def test_negative_shifts_are_refused():
    with pytest.raises(RuleError):
        request_die(bypassed=-1, chits=0)
    with pytest.raises(RuleError):
        request_die(bypassed=0, chits=-1)


@pytest.mark.parametrize(
    ("kind", "level", "box"),
    [
        (SupportKind.ARTILLERY, CommandLevel.PLATOON, 1),
        (SupportKind.ARTILLERY, CommandLevel.COMPANY, 1),
        (SupportKind.ARTILLERY, CommandLevel.BATTALION, 2),
        (SupportKind.ARTILLERY, CommandLevel.REGIMENT, 3),
        (SupportKind.ORBITAL, CommandLevel.COMPANY, 3),
    ],
)
def test_starting_boxes_p45(kind, level, box):
    assert starting_box(kind, asset_level=level) == box


def test_the_campaign_may_set_other_starting_boxes():
    start = InboundStart(company=2, battalion=3, regiment=3, orbital=2)
    assert starting_box(SupportKind.ARTILLERY, asset_level=CommandLevel.COMPANY, start=start) == 2
    assert starting_box(SupportKind.ORBITAL, asset_level=CommandLevel.COMPANY, start=start) == 2


def test_a_mission_in_box_1_arrives_the_same_turn_as_printed_p46():
    # "If the counter is placed in box 1 to start with ... will arrive during the SAME game-turn
    # it was requested; if it starts at box 2 or 3 then it moves up one box per Turn End Phase"
    same = FireMissionArrival.BOX1_SAME_TURN
    assert available_turn(3, 1, arrival=same) == 3
    assert available_turn(3, 2, arrival=same) == 4
    assert available_turn(3, 3, arrival=same) == 5


def test_read_as_the_clarifications_read_it_a_mission_first_reaches_the_battle_area():
    later = FireMissionArrival.BATTLE_AREA_NEXT_TURN
    assert available_turn(3, 1, arrival=later) == 4
    assert available_turn(3, 3, arrival=later) == 6


def test_there_is_no_box_0():
    with pytest.raises(RuleError):
        available_turn(1, 0, arrival=FireMissionArrival.BOX1_SAME_TURN)


def test_accuracy_needs_more_than_the_lv_with_a_guided_specialist_else_twice_p46():
    assert accuracy_target(2, guided=True) == 2
    assert accuracy_target(2, guided=False) == 4


def test_a_failed_accuracy_roll_multiplies_the_deviation_distance_p46():
    # "if a unit with LV 2 scored a 2 for the fire accuracy roll - not enough, as 3+ would be
    # needed for success - then the Distance die score is multiplied by 2."
    landing = fire_mission_landing(
        dice=TableDice([2, (12, 7), (8, 5)]),
        quality=Quality.REGULAR,
        leadership=2,
        guided=True,
        rounds=1,
    )
    assert not landing.accurate
    assert (landing.deviation_direction, landing.deviation_distance) == (7, 10)
    assert [r.purpose for r in landing.rolls] == [
        "fire mission accuracy",
        "deviation direction",
        "deviation distance",
    ]


def test_an_lv_3_rolling_a_6_without_a_specialist_deviates_six_times_the_d8_p46():
    # "if fire is called by a unit with an LV of 3 and the player rolls a 6 (not enough for
    # accuracy - he wants 7 or better) then his distance of deviation roll will be multiplied by
    # SIX"
    landing = fire_mission_landing(
        dice=TableDice([(10, 6), 6, 8]),
        quality=Quality.VETERAN,
        leadership=3,
        guided=False,
        rounds=1,
    )
    assert (landing.target, landing.accurate, landing.deviation_distance) == (6, False, 48)


def test_the_three_round_salvo_example_p46():
    # "the results are 9 on the D12 and 4 on the D6, so the second round impacts 4" left of the
    # first, then 6 and 2 giving the last projectile an impact 2" short of the first round."
    landing = fire_mission_landing(
        dice=TableDice([8, (12, 9), (6, 4), (12, 6), (6, 2)]),
        quality=Quality.REGULAR,
        leadership=1,
        guided=True,
        rounds=3,
    )
    assert landing.accurate
    assert landing.deviation_direction is None
    assert [(r.round, r.direction, r.distance) for r in landing.rounds] == [
        (1, None, 0),
        (2, 9, 4),
        (3, 6, 2),
    ]


def test_exact_chance_of_landing_on_the_marker():
    # Regular (D8), LV 2: a guided specialist needs 3+ (6 of 8), otherwise 5+ (4 of 8).
    for guided, chance in ((True, Fraction(6, 8)), (False, Fraction(4, 8))):
        on_target = 0
        for face in range(1, 9):
            landing = fire_mission_landing(
                dice=TableDice([face, 1, 1]),
                quality=Quality.REGULAR,
                leadership=2,
                guided=guided,
                rounds=1,
            )
            on_target += landing.accurate
        assert Fraction(on_target, 8) == chance


def test_exact_distribution_of_the_deviation_of_a_failed_roll():
    # A Green (D6) unit, LV 3, unguided: every face fails (needs 7+); the distance is D8 x face.
    counts: dict[int, int] = {}
    for face, d8 in product(range(1, 7), range(1, 9)):
        landing = fire_mission_landing(
            dice=TableDice([face, 12, d8]),
            quality=Quality.GREEN,
            leadership=3,
            guided=False,
            rounds=1,
        )
        counts[landing.deviation_distance] = counts.get(landing.deviation_distance, 0) + 1
    assert sum(counts.values()) == 48
    assert max(counts) == 48
    # 8 inches: 1 x 8, 2 x 4 or 4 x 2.
    assert Fraction(counts[8], 48) == Fraction(3, 48)


@pytest.mark.parametrize("rounds", [0, 13])
def test_a_salvo_has_at_least_one_round_and_at_most_twelve(rounds):
    with pytest.raises(RuleError):
        fire_mission_landing(
            dice=TableDice([]), quality=Quality.REGULAR, leadership=1, guided=True, rounds=rounds
        )


def test_a_large_terrain_feature_places_the_marker_before_accuracy_goodall():
    # SG2-C: "Place the impact marker in the centre of the terrain feature. Immediately roll a
    # D12 and a D8 for deviation ... Resolve artillery fire as normal, including deviation due
    # to failing the Fire Support Accuracy roll".
    landing = fire_mission_landing(
        dice=TableDice([(12, 3), (8, 6), 5]),
        quality=Quality.REGULAR,
        leadership=2,
        guided=True,
        rounds=1,
        in_large_feature=True,
    )
    assert (landing.feature_direction, landing.feature_distance, landing.accurate) == (3, 6, True)
    assert [r.purpose for r in landing.rolls] == [
        "placement in the terrain feature, direction",
        "placement in the terrain feature, distance",
        "fire mission accuracy",
    ]
