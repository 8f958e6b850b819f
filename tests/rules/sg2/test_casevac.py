"""Tests for Stargrunt II casualty evacuation and the Inbound Chart."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import DiceError, Die, TableDice
from rules.sg2.casevac import (
    CASEVAC_TURNAROUND_BOX,
    CasevacError,
    InboundBox,
    casevac_call,
    casevac_capacity,
    casevac_rise_for_loaded_unit,
    casevac_rise_for_nearby_unit,
    inbound_turn_end,
    load_casevac,
    outbound_turn_end,
    random_inbound_box,
)
from rules.sg2.command import CommandLevel
from rules.sg2.scales import Confidence, Fatigue, Quality

CO, ST, SH, BR, RO = (
    Confidence.CONFIDENT,
    Confidence.STEADY,
    Confidence.SHAKEN,
    Confidence.BROKEN,
    Confidence.ROUTED,
)
SQUAD, PLATOON, COMPANY = CommandLevel.SQUAD, CommandLevel.PLATOON, CommandLevel.COMPANY


# --- the Inbound Chart (p.44-45) ------------------------------------------------------------------


def test_counters_move_one_box_toward_the_battle_area_each_turn_end():
    assert inbound_turn_end(InboundBox.BOX_3) is InboundBox.BOX_2
    assert inbound_turn_end(InboundBox.BOX_2) is InboundBox.BOX_1
    assert inbound_turn_end(InboundBox.BOX_1) is InboundBox.BATTLE_AREA
    assert inbound_turn_end(InboundBox.BOX_1, is_unit=False) is InboundBox.BATTLE_AREA


def test_a_unit_in_box_1_may_loiter_and_stays_there():
    assert inbound_turn_end(InboundBox.BOX_1, to_loiter=True) is InboundBox.LOITER
    assert inbound_turn_end(InboundBox.LOITER) is InboundBox.LOITER


@pytest.mark.parametrize(
    ("position", "is_unit"), [(InboundBox.BOX_1, False), (InboundBox.BOX_2, True)]
)
def test_only_units_in_box_1_may_go_to_loiter(position, is_unit):
    with pytest.raises(ValueError, match="LOITER"):
        inbound_turn_end(position, is_unit=is_unit, to_loiter=True)


def test_a_counter_in_the_battle_area_does_not_move_inward():
    with pytest.raises(ValueError, match="already reached"):
        inbound_turn_end(InboundBox.BATTLE_AREA)


def test_a_leaving_casevac_travels_out_to_box_3():
    """P.54: unless the scenario says otherwise it goes out to box 3 before it turns back."""
    position = InboundBox.BATTLE_AREA
    path = []
    while position is not CASEVAC_TURNAROUND_BOX:
        position = outbound_turn_end(position)
        path.append(position)
    assert path == [InboundBox.BOX_1, InboundBox.BOX_2, InboundBox.BOX_3]


@pytest.mark.parametrize("position", [InboundBox.BOX_3, InboundBox.LOITER])
def test_no_further_out_than_box_3(position):
    with pytest.raises(ValueError, match="further out"):
        outbound_turn_end(position)


@pytest.mark.parametrize(
    ("face", "box"),
    [
        (1, InboundBox.BOX_1),
        (2, InboundBox.BOX_1),
        (3, InboundBox.BOX_2),
        (4, InboundBox.BOX_2),
        (5, InboundBox.BOX_3),
        (6, InboundBox.BOX_3),
    ],
)
def test_random_arrival_halves_a_d6_rounding_up(face, box):
    outcome = random_inbound_box(dice=TableDice([face]))
    assert outcome.box is box
    assert outcome.rolls[0].die is Die.D6


def test_random_arrival_exact_probabilities():
    boxes = [random_inbound_box(dice=TableDice([f])).box for f in range(1, 7)]
    for box in (InboundBox.BOX_1, InboundBox.BOX_2, InboundBox.BOX_3):
        assert Fraction(boxes.count(box), 6) == Fraction(1, 3)


# --- calling the casevac (p.54) -------------------------------------------------------------------


def call(faces, **overrides):
    arguments: dict[str, Any] = {
        "caller_quality": Quality.REGULAR,
        "caller_leadership": 2,
        "caller_level": PLATOON,
        "highest_level_on_table": PLATOON,
    }
    arguments.update(overrides)
    return casevac_call(dice=TableDice(faces), **arguments)


def test_page_54_the_highest_commander_calls_without_penalty():
    """P.54: with a platoon commander the highest on table, he calls at no penalty (D8)."""
    outcome = call([(Die.D8, 3)])
    assert outcome.called
    assert outcome.communication.die is Die.D8
    assert outcome.position_after is InboundBox.BATTLE_AREA
    assert not outcome.may_activate_this_turn


def test_page_54_a_squad_leader_calls_one_die_type_down():
    """P.54: a squad leader under a platoon commander calls at a one-level penalty (D6)."""
    outcome = call([(Die.D6, 3)], caller_level=SQUAD)
    assert outcome.communication.die is Die.D6
    with pytest.raises(DiceError):
        call([(Die.D8, 3)], caller_level=SQUAD)


def test_a_squad_leader_under_a_company_commander_calls_two_types_down():
    outcome = call([(Die.D4, 3)], caller_level=SQUAD, highest_level_on_table=COMPANY)
    assert outcome.communication.die is Die.D4
    assert outcome.called


def test_the_poorer_lv_of_caller_and_crew_must_be_beaten():
    assert not call([3], casevac_crew_leadership=3).called
    assert call([4], casevac_crew_leadership=3).called
    assert call([2], caller_leadership=1, casevac_crew_leadership=1).called


def test_a_failed_call_leaves_the_casevac_in_loiter():
    outcome = call([2])
    assert not outcome.called
    assert outcome.position_after is InboundBox.LOITER


def test_the_casevac_enters_next_turn_unless_the_option_says_same_turn():
    assert call([5], casevac_enters="same_turn").may_activate_this_turn
    assert not call([5]).may_activate_this_turn


def test_a_casevac_called_from_a_distance_starts_in_the_call_box():
    assert call([5], casevac_in_loiter=False).position_after is InboundBox.BOX_2
    assert call([5], casevac_in_loiter=False, casevac_call_box=3).position_after is InboundBox.BOX_3
    far = call([1], casevac_in_loiter=False)
    assert far.position_after is None
    assert not call([5], casevac_in_loiter=False, casevac_enters="same_turn").may_activate_this_turn


def test_a_casevac_call_can_be_jammed():
    outcome = call([5, 6], jamming_die=Die.D6)
    assert outcome.communication.jammed
    assert not outcome.called
    assert len(outcome.rolls) == 2


@pytest.mark.parametrize(
    ("caller_level", "highest", "crew", "chance"),
    [
        (PLATOON, PLATOON, None, Fraction(3, 4)),  # D8 > 2
        (SQUAD, PLATOON, None, Fraction(2, 3)),  # D6 > 2
        (SQUAD, COMPANY, None, Fraction(1, 2)),  # D4 > 2
        (PLATOON, PLATOON, 3, Fraction(5, 8)),  # D8 > 3
        (COMPANY, COMPANY, 1, Fraction(3, 4)),  # D8 > 2
    ],
)
def test_casevac_call_exact_probabilities(caller_level, highest, crew, chance):
    die = {PLATOON: Die.D8, COMPANY: Die.D8}.get(caller_level, Die.D6)
    if highest is COMPANY and caller_level is SQUAD:
        die = Die.D4
    calls = [
        call(
            [face],
            caller_level=caller_level,
            highest_level_on_table=highest,
            casevac_crew_leadership=crew,
        ).called
        for face in range(1, die.value + 1)
    ]
    assert Fraction(sum(calls), die.value) == chance


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"caller_level": COMPANY}, "highest command level"),
        ({"casevac_call_box": 4}, "casevac_call_box"),
        ({"casevac_enters": "never"}, "casevac_enters"),
        ({"casevac_crew_leadership": 0}, "casevac crew"),
    ],
)
def test_casevac_call_refuses_bad_input(overrides, message):
    with pytest.raises(ValueError, match=message):
        call([5], **overrides)


# --- capacity and loading (p.54) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("troops", "down", "up"), [(0, 0, 0), (1, 0, 1), (7, 3, 4), (8, 4, 4), (12, 6, 6)]
)
def test_casevac_capacity_is_half_the_troop_complement(troops, down, up):
    assert casevac_capacity(troop_capacity=troops) == down
    assert casevac_capacity(troop_capacity=troops, casevac_capacity_rounding="up") == up


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"troop_capacity": -1}, "negative"),
        ({"troop_capacity": True}, "whole number"),
        ({"troop_capacity": 8, "casevac_capacity_rounding": "nearest"}, "rounding"),
    ],
)
def test_casevac_capacity_refuses_bad_input(arguments, message):
    with pytest.raises(ValueError, match=message):
        casevac_capacity(**arguments)


def test_loading_up_to_half_the_complement_fills_the_vehicle():
    first = load_casevac(troop_capacity=8, aboard=0, stabilised=2)
    assert (first.aboard, first.capacity, first.full) == (2, 4, False)
    second = load_casevac(troop_capacity=8, aboard=first.aboard, stabilised=2)
    assert second.full


def test_loading_beyond_half_the_complement_is_refused():
    with pytest.raises(CasevacError) as refused:
        load_casevac(troop_capacity=8, aboard=2, stabilised=3)
    assert refused.value.code == "casevac.over_capacity"
    assert isinstance(refused.value, ValueError)
    with pytest.raises(CasevacError) as already:
        load_casevac(troop_capacity=8, aboard=5, stabilised=1)
    assert already.value.code == "casevac.over_capacity"


def test_untreated_casualties_load_only_with_the_option():
    with pytest.raises(CasevacError) as refused:
        load_casevac(troop_capacity=8, aboard=0, stabilised=1, untreated=1)
    assert refused.value.code == "casevac.untreated"
    loaded = load_casevac(
        troop_capacity=8, aboard=0, stabilised=1, untreated=1, casevac_loads_untreated=True
    )
    assert loaded.aboard == 2


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"aboard": 0, "stabilised": 0}, "at least one"),
        ({"aboard": -1, "stabilised": 1}, "aboard"),
        ({"aboard": 0, "stabilised": True}, "stabilised"),
    ],
)
def test_loading_refuses_bad_counts(arguments, message):
    with pytest.raises(ValueError, match=message):
        load_casevac(troop_capacity=8, **arguments)


# --- confidence rises on departure (p.54) ---------------------------------------------------------


@pytest.mark.parametrize(("face", "gained"), [(1, 0), (2, 0), (3, 1), (4, 1), (5, 1), (6, 2)])
def test_the_loaded_squad_rises_one_level_on_3_and_two_on_6(face, gained):
    outcome = casevac_rise_for_loaded_unit(dice=TableDice([face]), confidence=BR)
    assert outcome.levels_gained == gained
    assert outcome.confidence_after == BR + gained
    assert outcome.rolls[0].die is Die.D6


def test_loaded_squad_exact_probabilities():
    """P.54: none 1/3, one level 1/2, two levels 1/6."""
    gains = [
        casevac_rise_for_loaded_unit(dice=TableDice([f]), confidence=SH).levels_gained
        for f in range(1, 7)
    ]
    assert Fraction(gains.count(0), 6) == Fraction(1, 3)
    assert Fraction(gains.count(1), 6) == Fraction(1, 2)
    assert Fraction(gains.count(2), 6) == Fraction(1, 6)


def test_casevac_lifts_an_exhausted_unit_above_its_fatigue_start_up_to_confident():
    """P.54 important note: unlike rallying, casevac may raise fatigued troops up to CO."""
    assert Fatigue.EXHAUSTED.starting_confidence is SH
    assert casevac_rise_for_loaded_unit(dice=TableDice([6]), confidence=SH).confidence_after is CO


def test_casevac_never_raises_above_confident():
    outcome = casevac_rise_for_loaded_unit(dice=TableDice([6]), confidence=ST)
    assert outcome.confidence_after is CO
    assert outcome.levels_gained == 1


def test_a_confident_unit_does_not_roll():
    outcome = casevac_rise_for_loaded_unit(dice=TableDice([]), confidence=CO)
    assert outcome.confidence_after is CO
    assert outcome.rolls == ()


def nearby(faces, **overrides):
    arguments: dict[str, Any] = {
        "confidence": SH,
        "within_12_inches": True,
        "has_wounded_awaiting_evacuation": False,
    }
    arguments.update(overrides)
    return casevac_rise_for_nearby_unit(dice=TableDice(faces), **arguments)


def test_nearby_units_rise_one_level_on_5_or_6():
    gains = [nearby([face]).levels_gained for face in range(1, 7)]
    assert gains == [0, 0, 0, 0, 1, 1]
    assert Fraction(sum(gains), 6) == Fraction(1, 3)
    assert nearby([6], confidence=ST).confidence_after is CO


@pytest.mark.parametrize(
    "overrides",
    [
        {"within_12_inches": False},
        {"has_wounded_awaiting_evacuation": True},
        {"in_sight": False, "casevac_nearby_requires_los": True},
    ],
)
def test_units_that_do_not_qualify_roll_nothing(overrides):
    outcome = nearby([], **overrides)
    assert not outcome.eligible
    assert outcome.confidence_after is SH
    assert outcome.rolls == ()


def test_a_unit_out_of_sight_still_rolls_by_default():
    outcome = nearby([5], in_sight=False)
    assert outcome.eligible
    assert outcome.confidence_after is ST


def test_a_confident_nearby_unit_does_not_roll():
    outcome = nearby([], confidence=CO)
    assert outcome.eligible
    assert outcome.rolls == ()


@given(st.sampled_from(Confidence), st.integers(1, 6))
def test_casevac_rises_stay_within_routed_to_confident(confidence, face):
    for outcome in (
        casevac_rise_for_loaded_unit(dice=TableDice([face]), confidence=confidence),
        nearby([face], confidence=confidence),
    ):
        assert confidence <= outcome.confidence_after <= CO
        assert outcome.levels_gained == outcome.confidence_after - confidence


def test_two_loaded_squads_each_roll_once():
    rolls = TableDice([3, 6])
    first = casevac_rise_for_loaded_unit(dice=rolls, confidence=BR)
    second = casevac_rise_for_loaded_unit(dice=rolls, confidence=BR)
    rolls.ensure_all_used()
    assert (first.confidence_after, second.confidence_after) == (SH, ST)
    assert list(itertools.chain(first.rolls, second.rolls))[1].result == 6
