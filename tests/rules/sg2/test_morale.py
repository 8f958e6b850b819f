"""Tests for Stargrunt II morale: confidence and reaction tests, panic, last stand, surrender."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Die, TableDice
from rules.sg2.morale import (
    CONFIDENCE_THREAT_LEVELS,
    LAST_STAND_ENDS_AT,
    REACTION_THREAT_LEVELS,
    ConfidenceCircumstance,
    LastStandResult,
    PanicTrigger,
    ReactionCircumstance,
    RoutedFate,
    ThreatKind,
    check_leadership,
    confidence_test,
    confidence_test_for_event,
    confidence_threat_level,
    escort_guards_needed,
    last_stand,
    lower_confidence,
    panic_test,
    panic_test_required,
    raise_confidence,
    reaction_test,
    remove_panic,
    routed_unit_fate,
)
from rules.sg2.scales import Confidence, MissionMotivation, Quality

C = ConfidenceCircumstance
LOW, MEDIUM, HIGH = MissionMotivation.LOW, MissionMotivation.MEDIUM, MissionMotivation.HIGH
CO, ST, SH, BR, RO = (
    Confidence.CONFIDENT,
    Confidence.STEADY,
    Confidence.SHAKEN,
    Confidence.BROKEN,
    Confidence.ROUTED,
)


# --- confidence changes ---------------------------------------------------------------------------


def test_a_drop_below_routed_stays_routed():
    assert lower_confidence(BR, 2) is RO
    assert lower_confidence(RO, 1) is RO
    assert lower_confidence(ST, 2) is BR


def test_a_rise_stops_at_the_ceiling_and_never_lowers():
    assert raise_confidence(SH, 2) is CO
    assert raise_confidence(ST, 2) is CO
    assert raise_confidence(BR, 2, ceiling=ST) is ST
    assert raise_confidence(CO, 1, ceiling=ST) is CO


@pytest.mark.parametrize("function", [lower_confidence, raise_confidence])
def test_a_negative_change_is_refused(function):
    with pytest.raises(ValueError, match="negative"):
        function(ST, -1)


@pytest.mark.parametrize("leadership", [0, 4, True, 2.0, "2"])
def test_leadership_outside_one_to_three_is_refused(leadership):
    with pytest.raises(ValueError, match="leadership value"):
        check_leadership(leadership)


@given(st.sampled_from(Confidence), st.integers(0, 10), st.sampled_from(Confidence))
def test_confidence_changes_stay_between_routed_and_confident(level, steps, ceiling):
    assert RO <= lower_confidence(level, steps) <= level
    raised = raise_confidence(level, steps, ceiling=ceiling)
    assert level <= raised <= CO
    assert raised <= max(level, ceiling)


# --- the threat level table (p.20) ----------------------------------------------------------------

# Every row of the p.20 table as printed: LOW, MEDIUM, HIGH; None is NTR.
BOOK_THREAT_TABLE = {
    C.FIRST_SUPPRESSED_BY_FIRE: ("basic", 2, 1, None),
    C.CASUALTIES_FROM_FIRE: ("basic", 2, 1, None),
    C.MORE_CASUALTIES_THAN_SURVIVORS: ("basic", 4, 3, 1),
    C.LEADER_CASUALTY: ("basic", 4, 3, 2),
    C.ARTILLERY_OR_AEROSPACE_ATTACK: ("cumulative", 2, 1, 0),
    C.UNTREATED_CASUALTY: ("cumulative", 1, 0, None),
    C.ABANDON_WOUNDED: ("cumulative", 3, 2, 1),
}


@pytest.mark.parametrize("circumstance", list(C))
def test_threat_table_rows_match_page_20(circumstance):
    kind, low, medium, high = BOOK_THREAT_TABLE[circumstance]
    row = CONFIDENCE_THREAT_LEVELS[circumstance]
    assert row.kind is ThreatKind(kind)
    assert (row.level(LOW), row.level(MEDIUM), row.level(HIGH)) == (low, medium, high)


@pytest.mark.parametrize(
    ("circumstance", "motivation", "expected"),
    [
        (C.FIRST_SUPPRESSED_BY_FIRE, LOW, 2),
        (C.FIRST_SUPPRESSED_BY_FIRE, MEDIUM, 1),
        (C.FIRST_SUPPRESSED_BY_FIRE, HIGH, None),
        (C.CASUALTIES_FROM_FIRE, LOW, 2),
        (C.CASUALTIES_FROM_FIRE, MEDIUM, 1),
        (C.CASUALTIES_FROM_FIRE, HIGH, None),
        (C.MORE_CASUALTIES_THAN_SURVIVORS, LOW, 4),
        (C.MORE_CASUALTIES_THAN_SURVIVORS, MEDIUM, 3),
        (C.MORE_CASUALTIES_THAN_SURVIVORS, HIGH, 1),
        (C.LEADER_CASUALTY, LOW, 4),
        (C.LEADER_CASUALTY, MEDIUM, 3),
        (C.LEADER_CASUALTY, HIGH, 2),
        (C.ABANDON_WOUNDED, LOW, 3),
        (C.ABANDON_WOUNDED, MEDIUM, 2),
        (C.ABANDON_WOUNDED, HIGH, 1),
        (C.ARTILLERY_OR_AEROSPACE_ATTACK, LOW, None),
        (C.ARTILLERY_OR_AEROSPACE_ATTACK, HIGH, None),
    ],
)
def test_each_circumstance_alone_gives_its_threat_level_or_no_test(
    circumstance, motivation, expected
):
    assert confidence_threat_level(motivation=motivation, circumstances=[circumstance]) == expected


def test_only_the_highest_basic_level_counts_and_plus_levels_add():
    # LOW: casualties 2 and leader 4 -> 4; artillery +2; two untreated casualties +1 each.
    assert (
        confidence_threat_level(
            motivation=LOW,
            circumstances=[
                C.CASUALTIES_FROM_FIRE,
                C.LEADER_CASUALTY,
                C.ARTILLERY_OR_AEROSPACE_ATTACK,
            ],
            untreated_casualties=2,
        )
        == 8
    )
    assert (
        confidence_threat_level(
            motivation=MEDIUM,
            circumstances=[C.LEADER_CASUALTY, C.MORE_CASUALTIES_THAN_SURVIVORS, C.ABANDON_WOUNDED],
        )
        == 5
    )


def test_untreated_casualties_add_nothing_at_medium_and_high_motivation():
    for motivation, expected in ((MEDIUM, 1), (HIGH, 2)):
        circumstance = C.CASUALTIES_FROM_FIRE if motivation is MEDIUM else C.LEADER_CASUALTY
        assert (
            confidence_threat_level(
                motivation=motivation, circumstances=[circumstance], untreated_casualties=5
            )
            == expected
        )


def test_untreated_casualties_alone_call_for_no_test():
    assert confidence_threat_level(motivation=LOW, circumstances=[], untreated_casualties=3) is None


def test_ntr_circumstances_at_high_motivation_call_for_no_test_even_under_artillery():
    assert (
        confidence_threat_level(
            motivation=HIGH,
            circumstances=[C.CASUALTIES_FROM_FIRE, C.ARTILLERY_OR_AEROSPACE_ATTACK],
            untreated_casualties=2,
        )
        is None
    )


def test_artillery_attack_alone_calls_for_a_test_only_with_the_option():
    for motivation, expected in ((LOW, 2), (MEDIUM, 1), (HIGH, 0)):
        assert (
            confidence_threat_level(
                motivation=motivation,
                circumstances=[C.ARTILLERY_OR_AEROSPACE_ATTACK],
                artillery_attack_alone_triggers_test=True,
            )
            == expected
        )


def test_untreated_casualty_must_be_given_as_a_count():
    with pytest.raises(ValueError, match="untreated_casualties"):
        confidence_threat_level(motivation=LOW, circumstances=[C.UNTREATED_CASUALTY])


@pytest.mark.parametrize("count", [-1, True])
def test_an_impossible_untreated_count_is_refused(count):
    with pytest.raises(ValueError, match="untreated"):
        confidence_threat_level(
            motivation=LOW, circumstances=[C.LEADER_CASUALTY], untreated_casualties=count
        )


# --- the confidence test (p.20) -------------------------------------------------------------------


def run_confidence(face, *, quality=Quality.REGULAR, leadership=2, threat_level=2, confidence=ST):
    return confidence_test(
        dice=TableDice([face]),
        quality=quality,
        leadership=leadership,
        threat_level=threat_level,
        confidence=confidence,
    )


@pytest.mark.parametrize(
    ("face", "expected"), [(1, BR), (2, BR), (3, SH), (4, SH), (5, ST), (6, ST), (7, ST), (8, ST)]
)
def test_page_20_worked_example_regular_lv2_steady_threat_two(face, expected):
    """P.20: Regular, LV2, ST, TL +2: 5+ stays ST, 3-4 drops to SH, 1-2 drops to BR."""
    outcome = run_confidence(face)
    assert outcome.target == 4
    assert outcome.confidence_after is expected
    assert outcome.passed is (expected is ST)
    assert outcome.rolls[0].die is Die.D8
    assert outcome.rolls[0].purpose == "confidence test"


def test_page_20_example_by_the_table_uses_threat_level_one_for_medium_casualties():
    """P.20 table: a MEDIUM unit taking casualties from fire tests at TL 1, not the example's 2."""
    results = {}
    for face in range(1, 9):
        outcome = confidence_test_for_event(
            dice=TableDice([face]),
            quality=Quality.REGULAR,
            leadership=2,
            confidence=ST,
            motivation=MEDIUM,
            circumstances=[C.CASUALTIES_FROM_FIRE],
        )
        assert outcome.threat_level == 1
        results[face] = outcome.confidence_after
    assert results == {1: BR, 2: SH, 3: SH, 4: ST, 5: ST, 6: ST, 7: ST, 8: ST}


def test_an_unpassable_test_is_still_rolled_to_tell_one_level_from_two():
    """P.20 IMPORTANT NOTE: a Green unit at total 6 or more cannot pass, but still rolls."""
    drops = [
        run_confidence(face, quality=Quality.GREEN, leadership=2, threat_level=4).levels_lost
        for face in range(1, 7)
    ]
    assert drops == [2, 2, 2, 1, 1, 1]


def test_a_drop_from_broken_by_two_ends_at_routed():
    assert run_confidence(1, confidence=BR).confidence_after is RO


# (pass, drop one, drop two) faces of each die for targets 1..9, derived by hand from p.20:
# pass above the target; drop two at half the target or less; drop one otherwise.
CONFIDENCE_FACES = {
    4: [(3, 1, 0), (2, 1, 1), (1, 2, 1), (0, 2, 2), (0, 2, 2), (0, 1, 3), (0, 1, 3), (0, 0, 4),
        (0, 0, 4)],
    6: [(5, 1, 0), (4, 1, 1), (3, 2, 1), (2, 2, 2), (1, 3, 2), (0, 3, 3), (0, 3, 3), (0, 2, 4),
        (0, 2, 4)],
    8: [(7, 1, 0), (6, 1, 1), (5, 2, 1), (4, 2, 2), (3, 3, 2), (2, 3, 3), (1, 4, 3), (0, 4, 4),
        (0, 4, 4)],
    10: [(9, 1, 0), (8, 1, 1), (7, 2, 1), (6, 2, 2), (5, 3, 2), (4, 3, 3), (3, 4, 3), (2, 4, 4),
         (1, 5, 4)],
    12: [(11, 1, 0), (10, 1, 1), (9, 2, 1), (8, 2, 2), (7, 3, 2), (6, 3, 3), (5, 4, 3), (4, 4, 4),
         (3, 5, 4)],
}  # fmt: skip


@pytest.mark.parametrize("quality", list(Quality))
@pytest.mark.parametrize(
    ("leadership", "threat_level"),
    [(1, 0), (2, 0), (3, 0), (1, 3), (2, 2), (3, 1), (2, 4), (3, 4), (3, 5), (3, 6)],
)
def test_confidence_test_exact_probabilities(quality, leadership, threat_level):
    faces = quality.die.value
    counts = [0, 0, 0]
    for face in range(1, faces + 1):
        outcome = run_confidence(
            face, quality=quality, leadership=leadership, threat_level=threat_level
        )
        counts[outcome.levels_lost] += 1
    expected = CONFIDENCE_FACES[faces][leadership + threat_level - 1]
    assert [Fraction(n, faces) for n in counts] == [Fraction(n, faces) for n in expected]


def test_regular_lv2_threat_two_probabilities_by_hand():
    """D8 against 4: pass 1/2, one level 1/4, two levels 1/4."""
    counts = [run_confidence(face).levels_lost for face in range(1, 9)]
    assert Fraction(counts.count(0), 8) == Fraction(1, 2)
    assert Fraction(counts.count(1), 8) == Fraction(1, 4)
    assert Fraction(counts.count(2), 8) == Fraction(1, 4)


@pytest.mark.parametrize("threat_level", [1.5, True, "2"])
def test_a_threat_level_must_be_a_whole_number(threat_level):
    with pytest.raises(ValueError, match="threat level"):
        run_confidence(3, threat_level=threat_level)


@given(
    quality=st.sampled_from(Quality),
    leadership=st.integers(1, 3),
    threat_level=st.integers(0, 12),
    confidence=st.sampled_from(Confidence),
    data=st.data(),
)
def test_confidence_never_leaves_routed_to_confident_and_a_higher_roll_never_does_worse(
    quality, leadership, threat_level, confidence, data
):
    face = data.draw(st.integers(1, quality.die.value))
    outcome = run_confidence(
        face,
        quality=quality,
        leadership=leadership,
        threat_level=threat_level,
        confidence=confidence,
    )
    assert RO <= outcome.confidence_after <= confidence <= CO
    assert outcome.levels_lost in (0, 1, 2)
    if face < quality.die.value:
        better = run_confidence(
            face + 1,
            quality=quality,
            leadership=leadership,
            threat_level=threat_level,
            confidence=confidence,
        )
        assert better.levels_lost <= outcome.levels_lost
        harder = run_confidence(
            face,
            quality=quality,
            leadership=leadership,
            threat_level=threat_level + 1,
            confidence=confidence,
        )
        assert harder.levels_lost >= outcome.levels_lost


def test_an_event_that_needs_no_test_rolls_no_die():
    dice = TableDice([])
    outcome = confidence_test_for_event(
        dice=dice,
        quality=Quality.GREEN,
        leadership=3,
        confidence=SH,
        motivation=HIGH,
        circumstances=[C.CASUALTIES_FROM_FIRE],
    )
    assert outcome.required is False
    assert outcome.test is None
    assert outcome.confidence_after is SH
    assert outcome.rolls == ()


def test_an_event_test_carries_its_roll():
    outcome = confidence_test_for_event(
        dice=TableDice([3]),
        quality=Quality.VETERAN,
        leadership=1,
        confidence=CO,
        motivation=LOW,
        circumstances=[C.ABANDON_WOUNDED],
    )
    # LV1 + TL3 = 4: a 3 is more than half of 4, so one level.
    assert outcome.threat_level == 3
    assert outcome.confidence_after is ST
    assert outcome.test is not None
    assert outcome.rolls == outcome.test.rolls


# --- reaction tests (p.21) ------------------------------------------------------------------------


def test_reaction_table_matches_page_21():
    assert dict(REACTION_THREAT_LEVELS) == {
        ReactionCircumstance.IN_POSITION_IN_OPEN: 2,
        ReactionCircumstance.IN_POSITION_IN_COVER: 0,
        ReactionCircumstance.MOVE_WITHOUT_REMOVING_IN_POSITION: 2,
        ReactionCircumstance.SHAKEN_LEAVES_COVER_AND_ADVANCES: 2,
        ReactionCircumstance.PANIC: 0,
    }


@pytest.mark.parametrize(
    ("circumstance", "passes_from"),
    [
        (ReactionCircumstance.IN_POSITION_IN_COVER, 3),
        (ReactionCircumstance.IN_POSITION_IN_OPEN, 5),
    ],
)
def test_page_13_in_position_example_regular_lv2(circumstance, passes_from):
    """P.13: a Regular LV2 unit needs D8 > 2 to go in position in cover, > 4 in the open."""
    for face in range(1, 9):
        outcome = reaction_test(
            dice=TableDice([face]),
            quality=Quality.REGULAR,
            leadership=2,
            threat_level=REACTION_THREAT_LEVELS[circumstance],
        )
        assert outcome.passed is (face >= passes_from)


# Chance of passing for targets 1..5, by hand: (faces above the target) / faces.
REACTION_PASS = {
    Quality.UNTRAINED: [Fraction(3, 4), Fraction(1, 2), Fraction(1, 4), Fraction(0), Fraction(0)],
    Quality.GREEN: [Fraction(5, 6), Fraction(2, 3), Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)],
    Quality.REGULAR: [Fraction(7, 8), Fraction(3, 4), Fraction(5, 8), Fraction(1, 2),
                      Fraction(3, 8)],
    Quality.VETERAN: [Fraction(9, 10), Fraction(4, 5), Fraction(7, 10), Fraction(3, 5),
                      Fraction(1, 2)],
    Quality.ELITE: [Fraction(11, 12), Fraction(5, 6), Fraction(3, 4), Fraction(2, 3),
                    Fraction(7, 12)],
}  # fmt: skip


@pytest.mark.parametrize("quality", list(Quality))
@pytest.mark.parametrize(("leadership", "threat_level"), [(1, 0), (2, 0), (1, 2), (2, 2), (3, 2)])
def test_reaction_test_exact_probabilities(quality, leadership, threat_level):
    faces = quality.die.value
    passes = sum(
        reaction_test(
            dice=TableDice([face]),
            quality=quality,
            leadership=leadership,
            threat_level=threat_level,
        ).passed
        for face in range(1, faces + 1)
    )
    assert Fraction(passes, faces) == REACTION_PASS[quality][leadership + threat_level - 1]


def test_reaction_test_rolls_the_quality_die():
    outcome = reaction_test(
        dice=TableDice([(Die.D12, 12)]), quality=Quality.ELITE, leadership=3, threat_level=2
    )
    assert outcome.passed
    assert outcome.target == 5
    assert outcome.rolls[0].purpose == "reaction test"


# --- panic (p.21) ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("quality", "trigger", "required"),
    [
        (Quality.UNTRAINED, PanicTrigger.FIRST_SIGHT_OF_ENEMY, True),
        (Quality.UNTRAINED, PanicTrigger.FIRST_FIRED_ON, False),
        (Quality.GREEN, PanicTrigger.FIRST_FIRED_ON, True),
        (Quality.GREEN, PanicTrigger.FIRST_SIGHT_OF_ARMOUR_OR_POWER_ARMOUR, True),
        (Quality.GREEN, PanicTrigger.FIRST_SIGHT_OF_ENEMY, False),
        (Quality.REGULAR, PanicTrigger.FIRST_TERROR_ATTACK, True),
        (Quality.REGULAR, PanicTrigger.FIRST_FIRED_ON, False),
        (Quality.VETERAN, PanicTrigger.FIRST_TERROR_ATTACK, False),
        (Quality.ELITE, PanicTrigger.FIRST_SIGHT_OF_ENEMY, False),
    ],
)
def test_who_tests_for_panic(quality, trigger, required):
    assert panic_test_required(quality=quality, trigger=trigger) is required


def test_a_unit_immune_to_panic_never_tests_again():
    assert not panic_test_required(
        quality=Quality.UNTRAINED, trigger=PanicTrigger.FIRST_SIGHT_OF_ENEMY, immune_to_panic=True
    )


def test_panic_test_is_a_reaction_test_at_threat_zero():
    """Green LV2: D6 must beat 2, so 3+ passes (probability 2/3) and makes the unit immune."""
    results = [
        panic_test(dice=TableDice([face]), quality=Quality.GREEN, leadership=2)
        for face in range(1, 7)
    ]
    assert [r.panicked for r in results] == [True, True, False, False, False, False]
    assert all(r.immune_to_panic is not r.panicked for r in results)
    assert Fraction(sum(not r.panicked for r in results), 6) == Fraction(2, 3)


def test_failing_to_remove_panic_on_a_one_costs_a_confidence_level():
    """Regular LV2: removed 3/4 (3-8), fail keeping confidence 1/8 (2), fail losing one 1/8 (1)."""
    results = [
        remove_panic(dice=TableDice([face]), quality=Quality.REGULAR, leadership=2, confidence=SH)
        for face in range(1, 9)
    ]
    assert Fraction(sum(r.removed for r in results), 8) == Fraction(3, 4)
    assert Fraction(sum(r.levels_lost for r in results), 8) == Fraction(1, 8)
    assert results[0].confidence_after is BR
    assert results[1].confidence_after is SH
    assert not results[1].removed
    assert results[2].removed


# --- the last stand and surrender (p.53) ----------------------------------------------------------


def stand(face, **overrides):
    arguments: dict[str, Any] = {
        "confidence": SH,
        "in_cover_or_in_position": True,
        "friendly_units_within_12": 0,
        "qualifying_enemy_units_in_sight": 3,
        "enemy_within_12": True,
    }
    arguments.update(overrides)
    return last_stand(dice=TableDice([face]), **arguments)


def test_last_stand_succeeds_only_on_a_six():
    results = [stand(face).result for face in range(1, 7)]
    assert results == [LastStandResult.SURRENDERS] * 5 + [LastStandResult.LAST_STAND]
    assert Fraction(results.count(LastStandResult.LAST_STAND), 6) == Fraction(1, 6)
    assert stand(6).stands
    assert LAST_STAND_ENDS_AT is ST


def test_a_failed_last_stand_flees_without_enemy_near_or_without_surrender():
    assert stand(3, enemy_within_12=False).result is LastStandResult.FLED
    assert stand(3, surrender_applies=False).result is LastStandResult.FLED


def test_the_umpire_can_change_the_last_stand_odds():
    results = [stand(face, last_stand_success_on=4).stands for face in range(1, 7)]
    assert Fraction(sum(results), 6) == Fraction(1, 2)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"confidence": BR}, "SHAKEN or better"),
        ({"in_cover_or_in_position": False}, "cover"),
        ({"friendly_units_within_12": 1}, "friendly"),
        ({"qualifying_enemy_units_in_sight": 2}, "three enemy"),
        ({"last_stand_enabled": False}, "not in use"),
        ({"last_stand_success_on": 7}, "1 to 6"),
        ({"last_stand_success_on": True}, "1 to 6"),
    ],
)
def test_last_stand_conditions_are_enforced(overrides, message):
    with pytest.raises(ValueError, match=message):
        stand(6, **overrides)


@pytest.mark.parametrize(
    ("can_withdraw", "enemy_near", "takes_prisoners", "fate"),
    [
        (True, True, True, RoutedFate.WITHDRAWS),
        (False, True, True, RoutedFate.SURRENDERS),
        (False, False, True, RoutedFate.DISINTEGRATES),
        (False, True, False, RoutedFate.DISINTEGRATES),
    ],
)
def test_routed_unit_fate(can_withdraw, enemy_near, takes_prisoners, fate):
    assert (
        routed_unit_fate(
            confidence=RO,
            can_withdraw_without_approaching_enemy=can_withdraw,
            enemy_within_12=enemy_near,
            enemy_takes_prisoners=takes_prisoners,
        )
        is fate
    )


def test_only_routed_units_surrender():
    with pytest.raises(ValueError, match="ROUTED"):
        routed_unit_fate(
            confidence=BR, can_withdraw_without_approaching_enemy=False, enemy_within_12=True
        )


@pytest.mark.parametrize(("prisoners", "guards"), [(0, 0), (1, 1), (6, 1), (7, 2), (12, 2)])
def test_one_guard_per_six_prisoners(prisoners, guards):
    assert escort_guards_needed(prisoners) == guards


@pytest.mark.parametrize("prisoners", [-1, True, 1.5])
def test_an_impossible_number_of_prisoners_is_refused(prisoners):
    with pytest.raises(ValueError, match="prisoners"):
        escort_guards_needed(prisoners)
