"""Tests for Stargrunt II suppression: markers, their effects and their removal (SG2 P.18)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Die, TableDice
from rules.sg2.fire import FireEffect
from rules.sg2.scales import Quality
from rules.sg2.suppression import (
    ACTIONS_PER_ACTIVATION,
    MAX_SUPPRESSION_MARKERS,
    SuppressionCause,
    SuppressionError,
    UnitAction,
    check_markers,
    final_defensive_fire_threat_level,
    fire_action_results,
    fire_suppresses,
    may_act,
    place_markers,
    remove_suppression,
    suppressed_may,
    vehicle_hit_suppresses,
)

# --- placing markers (P.18 MULTIPLE SUPPRESSIONS) -------------------------------------------------


def test_each_suppression_result_adds_a_marker_up_to_three_p18():
    assert place_markers(0) == place_markers(0, 1)
    first = place_markers(0)
    assert (first.before, first.after, first.ignored, first.placed) == (0, 1, 0, 1)
    assert place_markers(2).after == MAX_SUPPRESSION_MARKERS == 3
    # "any more over three are ignored"
    capped = place_markers(3)
    assert (capped.after, capped.ignored, capped.placed) == (3, 1, 0)
    assert place_markers(2, 3) == place_markers(2, 3)
    assert (place_markers(2, 3).after, place_markers(2, 3).ignored) == (3, 2)
    assert place_markers(1, 0).placed == 0


@pytest.mark.parametrize("markers", [-1, 4, True, 1.0, "1"])
def test_a_unit_carries_zero_to_three_markers(markers):
    with pytest.raises(SuppressionError, match="0 to 3 suppression markers") as raised:
        check_markers(markers)
    assert raised.value.code == "suppression.refused"


@pytest.mark.parametrize("results", [-1, True, 0.5])
def test_suppression_results_are_a_count(results):
    with pytest.raises(ValueError, match="Suppression results are 0 or more"):
        place_markers(0, results)
    with pytest.raises(ValueError, match="Suppression results are 0 or more"):
        fire_action_results(results, one_suppression_per_fire_action=False)


@given(
    markers=st.integers(0, 3),
    results=st.lists(st.integers(0, 5), max_size=12),
)
def test_markers_stay_between_zero_and_three_and_never_fall_by_fire(markers, results):
    for count in results:
        placed = place_markers(markers, count)
        assert 0 <= placed.after <= MAX_SUPPRESSION_MARKERS
        assert placed.after >= markers
        assert placed.placed + placed.ignored == count
        markers = placed.after


def test_suppression_and_fully_effective_fire_suppress_p35():
    """P.35 step 1: one die beating the range die is SUPPRESSION ONLY; two FULLY EFFECTIVE
    (suppression plus potential casualties); none NO EFFECT."""
    assert fire_suppresses(FireEffect.SUPPRESSION)
    assert fire_suppresses(FireEffect.EFFECTIVE)
    assert not fire_suppresses(FireEffect.NO_EFFECT)


def test_fired_on_in_travel_mode_the_unit_is_suppressed_whatever_the_result_p24():
    assert fire_suppresses(FireEffect.NO_EFFECT, travel_mode=True)
    assert fire_suppresses(FireEffect.EFFECTIVE, travel_mode=True)


def test_one_marker_per_result_by_the_book_one_per_action_with_goodalls_option():
    """P.18: every suppression result places a marker; SG2-C Multiple Support Weapons: "one
    fire action can result in only one suppression marker being placed"."""
    assert [fire_action_results(n, one_suppression_per_fire_action=False) for n in range(4)] == [
        0,
        1,
        2,
        3,
    ]
    assert [fire_action_results(n, one_suppression_per_fire_action=True) for n in range(4)] == [
        0,
        1,
        1,
        1,
    ]


def test_a_non_penetrating_hit_suppresses_a_vehicle_only_with_goodalls_option():
    """SG2-C Remaining in a Disabled Vehicle: "On a non-penetrating hit, the vehicle takes a
    suppression marker"; the book's support and heavy weapon hits have no suppression result."""
    assert not vehicle_hit_suppresses(penetrated=False, non_penetrating_hit_suppresses=False)
    assert vehicle_hit_suppresses(penetrated=False, non_penetrating_hit_suppresses=True)
    assert not vehicle_hit_suppresses(penetrated=True, non_penetrating_hit_suppresses=True)
    assert not vehicle_hit_suppresses(penetrated=True, non_penetrating_hit_suppresses=False)


def test_the_causes_of_suppression_the_book_lists():
    assert {cause.value for cause in SuppressionCause} == {
        "fire",
        "travel_mode",
        "recon_by_fire",
        "sniper",
        "artillery_burst",
        "leader_casualty",
        "failed_assault",
        "non_penetrating_hit",
    }


# --- effects (P.18, P.43) -------------------------------------------------------------------------


def test_a_suppressed_infantry_unit_may_only_do_what_p18_lists():
    allowed = {action for action in UnitAction if may_act(action, markers=1, in_cover=True)}
    assert allowed == {
        UnitAction.DEFEND_IN_CLOSE_COMBAT,
        UnitAction.REORGANISE,
        UnitAction.OBSERVE,
        UnitAction.COMMUNICATE,
        UnitAction.REMOVE_SUPPRESSION,
    }
    assert set(suppressed_may()) == allowed
    assert not may_act(UnitAction.FIRE, markers=3)
    assert not may_act(UnitAction.MOVE, markers=1)
    assert not may_act(UnitAction.CLOSE_ASSAULT, markers=2)


def test_units_in_the_open_may_not_reorganise_while_suppressed_p18():
    assert not may_act(UnitAction.REORGANISE, markers=1)
    assert may_act(UnitAction.REORGANISE, markers=1, in_cover=True)
    assert may_act(UnitAction.REORGANISE, markers=0)


def test_an_unsuppressed_unit_may_do_anything():
    assert all(may_act(action, markers=0) for action in UnitAction)
    assert all(may_act(action, markers=0, vehicle=True) for action in UnitAction)


def test_a_suppressed_vehicle_moves_and_fires_but_nobody_leaves_it_p18():
    allowed = {action for action in UnitAction if may_act(action, markers=2, vehicle=True)}
    assert allowed == set(UnitAction) - {
        UnitAction.LEAVE_VEHICLE,
        UnitAction.FIRE_EXTERNAL_WEAPON,
    }
    assert set(suppressed_may(vehicle=True)) == allowed
    assert may_act(UnitAction.FIRE, markers=3, vehicle=True)


def test_may_act_refuses_impossible_markers():
    with pytest.raises(ValueError, match="suppression markers"):
        may_act(UnitAction.FIRE, markers=4)


def test_final_defensive_fire_tests_at_the_number_of_markers_p43():
    """P.43: a suppressed defender passes a reaction test at TL = its markers before firing."""
    assert [final_defensive_fire_threat_level(n) for n in range(4)] == [None, 1, 2, 3]


# --- removal (P.18) -------------------------------------------------------------------------------


def remove(faces, *, quality=Quality.REGULAR, leadership=2, markers=1, actions=1):
    dice = TableDice(faces)
    outcome = remove_suppression(
        dice=dice, quality=quality, leadership=leadership, markers=markers, actions=actions
    )
    dice.ensure_all_used()
    return outcome


def test_the_quality_die_must_score_more_than_the_leaders_lv_p18():
    """A Regular unit (D8) with an LV 2 leader: 3 or more removes the marker, 2 does not."""
    success = remove([3])
    assert (success.markers_before, success.markers_after, success.removed) == (1, 0, 1)
    assert success.target == 2
    assert success.rolls[0].die is Die.D8
    assert success.rolls[0].purpose == "suppression removal"
    assert success.actions_spent == 1
    failure = remove([2])
    assert (failure.markers_after, failure.removed) == (1, 0)
    assert [a.removed for a in failure.attempts] == [False]


def test_a_failed_first_roll_may_be_tried_again_with_the_second_action_p18():
    outcome = remove([1, 5], actions=2)
    assert [(a.roll.result, a.removed) for a in outcome.attempts] == [(1, False), (5, True)]
    assert (outcome.markers_after, outcome.actions_spent) == (0, 2)


def test_a_success_with_the_first_action_leaves_the_second_free_p18():
    """ "The suppression counter is removed and he may use his second action in any way
    desired": no second roll when no marker is left."""
    outcome = remove([6], actions=2)
    assert (outcome.markers_after, outcome.actions_spent) == (0, 1)


def test_each_marker_takes_its_own_successful_roll_p18():
    outcome = remove([7, 8], markers=3, actions=2)
    assert (outcome.markers_before, outcome.markers_after, outcome.removed) == (3, 1, 2)
    assert remove([4], markers=3).markers_after == 2


def test_independent_figures_roll_against_their_own_leadership_p26():
    """An Elite sniper (D12) of leadership 1 removes a marker on anything above 1."""
    assert remove([2], quality=Quality.ELITE, leadership=1).removed == 1
    assert remove([1], quality=Quality.ELITE, leadership=1).removed == 0


def test_nothing_to_remove_is_refused():
    with pytest.raises(SuppressionError, match="no marker to remove") as raised:
        remove([5], markers=0)
    assert raised.value.code == "suppression.none"


@pytest.mark.parametrize("actions", [0, 3, True, 1.5])
def test_a_leader_spends_one_or_two_actions(actions):
    with pytest.raises(SuppressionError, match="1 or 2 actions") as raised:
        remove([5], actions=actions)
    assert raised.value.code == "suppression.refused"
    assert ACTIONS_PER_ACTIVATION == 2


def test_removal_refuses_an_impossible_leadership():
    with pytest.raises(ValueError, match="leadership value of the unit leader"):
        remove([5], leadership=4)


# Chance that one action removes a marker: faces of the quality die above the LV.
REMOVAL_CHANCE = {
    (Quality.UNTRAINED, 3): Fraction(1, 4),
    (Quality.GREEN, 3): Fraction(1, 2),
    (Quality.REGULAR, 2): Fraction(3, 4),
    (Quality.VETERAN, 2): Fraction(4, 5),
    (Quality.ELITE, 1): Fraction(11, 12),
}


@pytest.mark.parametrize(("quality", "leadership"), list(REMOVAL_CHANCE))
def test_one_action_removes_a_marker_with_the_exact_probability(quality, leadership):
    faces = quality.die.value
    removed = sum(
        remove([face], quality=quality, leadership=leadership).removed
        for face in range(1, faces + 1)
    )
    assert Fraction(removed, faces) == REMOVAL_CHANCE[(quality, leadership)]


@pytest.mark.parametrize(("quality", "leadership"), list(REMOVAL_CHANCE))
def test_two_actions_on_one_marker_exact_probability(quality, leadership):
    """Both actions on one marker: it stays only if both rolls fail, (1 - p)^2."""
    faces = quality.die.value
    outcomes = [
        remove(
            [first] if first > leadership else [first, second],
            quality=quality,
            leadership=leadership,
            actions=2,
        )
        for first, second in itertools.product(range(1, faces + 1), repeat=2)
    ]
    cleared = Fraction(sum(o.markers_after == 0 for o in outcomes), faces * faces)
    assert cleared == 1 - (1 - REMOVAL_CHANCE[(quality, leadership)]) ** 2


def test_two_markers_two_actions_regular_lv2_exact_distribution():
    """D8 against LV 2, two markers, both actions: 0 left 9/16, 1 left 6/16, 2 left 1/16."""
    left = [0, 0, 0]
    for first, second in itertools.product(range(1, 9), repeat=2):
        left[remove([first, second], markers=2, actions=2).markers_after] += 1
    assert [Fraction(n, 64) for n in left] == [Fraction(9, 16), Fraction(6, 16), Fraction(1, 16)]


@given(
    quality=st.sampled_from(Quality),
    leadership=st.integers(1, 3),
    markers=st.integers(1, 3),
    actions=st.integers(1, 2),
    faces=st.lists(st.integers(1, 12), min_size=2, max_size=2),
)
def test_removal_never_leaves_more_markers_nor_takes_more_than_the_actions(
    quality, leadership, markers, actions, faces
):
    faces = [min(face, quality.die.value) for face in faces]
    outcome = remove_suppression(
        dice=TableDice(faces),
        quality=quality,
        leadership=leadership,
        markers=markers,
        actions=actions,
    )
    assert 0 <= outcome.markers_after <= outcome.markers_before == markers
    assert outcome.removed <= outcome.actions_spent <= actions
    assert outcome.removed == sum(face > leadership for face in outcome_faces(outcome))
    assert outcome.markers_after == 0 or outcome.actions_spent == actions


def outcome_faces(outcome):
    return [roll.result for roll in outcome.rolls]
