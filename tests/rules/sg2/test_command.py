"""Tests for Stargrunt II command: communications, rally, regrouping and the unit leader."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import DiceError, Die, TableDice, shift_die
from rules.sg2.command import (
    UNDER_STRENGTH_DIE,
    CommandLevel,
    EwSystem,
    RegroupingUnit,
    bypassed_levels,
    communicate,
    ew_jamming_die,
    loss_of_unit_leader,
    rally,
    rally_ceiling,
    regroup,
    regroup_persists_after_battle,
    successor_leadership,
    under_strength,
)
from rules.sg2.morale import ConfidenceCircumstance
from rules.sg2.scales import Confidence, Fatigue, MissionMotivation, Quality

CO, ST, SH, BR, RO = (
    Confidence.CONFIDENT,
    Confidence.STEADY,
    Confidence.SHAKEN,
    Confidence.BROKEN,
    Confidence.ROUTED,
)
SQUAD, PLATOON, COMPANY, BATTALION, REGIMENT = list(CommandLevel)


# --- die shifts, command levels, EW ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("die", "steps", "expected"),
    [
        (Die.D8, -1, Die.D6),
        (Die.D8, -2, Die.D4),
        (Die.D6, -3, Die.D4),
        (Die.D10, 1, Die.D12),
        (Die.D12, 2, Die.D12),
        (Die.D4, 0, Die.D4),
    ],
)
def test_die_shifts_stop_at_d4_and_d12(die, steps, expected):
    assert shift_die(die, steps) is expected


@pytest.mark.parametrize(
    ("first", "second", "bypassed"),
    [
        (COMPANY, PLATOON, 0),
        (COMPANY, SQUAD, 1),
        (SQUAD, COMPANY, 1),
        (PLATOON, PLATOON, 0),
        (REGIMENT, SQUAD, 3),
    ],
)
def test_bypassed_command_levels(first, second, bypassed):
    """P.16: company to platoon is the normal chain; company to squad bypasses one level."""
    assert bypassed_levels(first, second) == bypassed


@pytest.mark.parametrize(
    ("system", "markers", "die"),
    [
        (EwSystem.BASIC, 1, Die.D6),
        (EwSystem.BASIC, 2, Die.D8),
        (EwSystem.BASIC, 3, Die.D10),
        (EwSystem.ENHANCED, 1, Die.D8),
        (EwSystem.SUPERIOR, 1, Die.D10),
        (EwSystem.SUPERIOR, 2, Die.D12),
        (EwSystem.SUPERIOR, 3, Die.D12),
    ],
)
def test_ew_jamming_die_is_boosted_one_type_per_extra_marker(system, markers, die):
    """P.52: BASIC D6, ENHANCED D8, SUPERIOR D10, +1 type per extra marker, never above D12."""
    assert ew_jamming_die(system=system, markers=markers) is die


@pytest.mark.parametrize("markers", [0, 4, True])
def test_ew_task_uses_one_to_three_markers(markers):
    with pytest.raises(ValueError, match="EW markers"):
        ew_jamming_die(system=EwSystem.BASIC, markers=markers)


# --- communications (p.16) ------------------------------------------------------------------------


def talk(faces, **overrides):
    arguments: dict[str, Any] = {
        "sender_quality": Quality.REGULAR,
        "sender_leadership": 1,
        "receiver_leadership": 2,
        "sender_level": PLATOON,
        "receiver_level": SQUAD,
    }
    arguments.update(overrides)
    return communicate(dice=TableDice(faces), **arguments)


@pytest.mark.parametrize(("face", "success"), [(1, False), (2, False), (3, True), (8, True)])
def test_page_16_example_regular_lv1_platoon_to_green_lv2_squad(face, success):
    """P.16: a D8 is rolled, 3 or better needed."""
    outcome = talk([face])
    assert outcome.die is Die.D8
    assert outcome.target == 2
    assert outcome.success is success


@pytest.mark.parametrize(("face", "success"), [(3, False), (4, True), (6, True)])
def test_page_16_example_green_lv3_to_veteran_lv2(face, success):
    """P.16: a D6 is rolled, 4 or better needed (the poorer LV is the sender's 3)."""
    outcome = talk(
        [face],
        sender_quality=Quality.GREEN,
        sender_leadership=3,
        receiver_leadership=2,
        sender_level=SQUAD,
        receiver_level=PLATOON,
    )
    assert outcome.die is Die.D6
    assert outcome.target == 3
    assert outcome.success is success


def test_company_talking_to_a_squad_drops_one_die_type():
    """P.16 TRANSFERRING ACTIONS: company activating a squad directly drops one die type."""
    outcome = talk([(Die.D6, 3)], sender_level=COMPANY, receiver_level=SQUAD)
    assert outcome.die is Die.D6
    with pytest.raises(DiceError):
        talk([(Die.D8, 3)], sender_level=COMPANY, receiver_level=SQUAD)


def test_direct_contact_needs_no_roll():
    outcome = talk([], direct_contact=True)
    assert outcome.success
    assert outcome.direct_contact
    assert outcome.rolls == ()


def test_direct_contact_cannot_be_jammed():
    with pytest.raises(ValueError, match="direct contact"):
        talk([], direct_contact=True, jamming_die=Die.D6)


def test_jamming_beats_a_successful_message_only_when_higher():
    jammed = talk([7, 8], jamming_die=Die.D10)
    assert jammed.jammed
    assert not jammed.success
    tied = talk([7, 7], jamming_die=Die.D10)
    assert not tied.jammed
    assert tied.success
    assert [roll.purpose for roll in tied.rolls] == [
        "communication",
        "EW jamming of the communication",
    ]


# Success chance by hand: the shifted die must beat the poorer LV.
COMMUNICATION_CASES = [
    # quality, sender level, receiver level, poorer LV, chance
    (Quality.UNTRAINED, PLATOON, SQUAD, 1, Fraction(3, 4)),
    (Quality.UNTRAINED, COMPANY, SQUAD, 3, Fraction(1, 4)),
    (Quality.GREEN, PLATOON, SQUAD, 2, Fraction(2, 3)),
    (Quality.GREEN, COMPANY, SQUAD, 2, Fraction(1, 2)),
    (Quality.REGULAR, PLATOON, SQUAD, 2, Fraction(3, 4)),
    (Quality.REGULAR, COMPANY, SQUAD, 2, Fraction(2, 3)),
    (Quality.REGULAR, BATTALION, SQUAD, 2, Fraction(1, 2)),
    (Quality.VETERAN, COMPANY, PLATOON, 3, Fraction(7, 10)),
    (Quality.VETERAN, BATTALION, SQUAD, 1, Fraction(5, 6)),
    (Quality.ELITE, PLATOON, SQUAD, 3, Fraction(3, 4)),
    (Quality.ELITE, REGIMENT, SQUAD, 1, Fraction(5, 6)),
]


@pytest.mark.parametrize(
    ("quality", "sender", "receiver", "leadership", "chance"), COMMUNICATION_CASES
)
def test_communication_exact_probabilities(quality, sender, receiver, leadership, chance):
    die = shift_die(quality.die, -bypassed_levels(sender, receiver))
    successes = sum(
        talk(
            [face],
            sender_quality=quality,
            sender_leadership=1,
            receiver_leadership=leadership,
            sender_level=sender,
            receiver_level=receiver,
        ).success
        for face in range(1, die.value + 1)
    )
    assert Fraction(successes, die.value) == chance


def test_jammed_communication_exact_probabilities():
    """Regular LV2 D8 needing 3+ against a BASIC D6 jammer: 30 of 48 get through, 15 jammed."""
    outcomes = [
        talk([c, j], jamming_die=Die.D6) for c, j in itertools.product(range(1, 9), range(1, 7))
    ]
    assert Fraction(sum(o.success for o in outcomes), 48) == Fraction(5, 8)
    assert Fraction(sum(o.jammed for o in outcomes), 48) == Fraction(5, 16)


# --- rally (p.17, p.19) ---------------------------------------------------------------------------


def rally_unit(faces, **overrides):
    arguments: dict[str, Any] = {
        "rallied_quality": Quality.REGULAR,
        "rallied_leadership": 2,
        "rallied_confidence": BR,
        "rallied_level": SQUAD,
        "rallier_quality": Quality.VETERAN,
        "rallier_leadership": 1,
        "rallier_level": PLATOON,
    }
    arguments.update(overrides)
    return rally(dice=TableDice(faces), **arguments)


@pytest.mark.parametrize(("face", "expected"), [(1, BR), (3, BR), (4, SH), (8, SH)])
def test_page_17_example_regular_2_at_broken_rallied_by_veteran_1(face, expected):
    """P.17: LVs 2 + 1 = 3, the rallied unit rolls its D8, 4 or higher raises it to SH."""
    outcome = rally_unit([face], direct_contact=True)
    assert outcome.target == 3
    assert outcome.confidence_after is expected
    assert outcome.rallied is (expected is SH)
    assert outcome.rolls[0].die is Die.D8


def test_rally_rolls_the_communication_then_the_rally_die():
    outcome = rally_unit([(Die.D10, 3), (Die.D8, 4)])
    assert outcome.communication.success
    assert outcome.confidence_after is SH
    assert [roll.purpose for roll in outcome.rolls] == ["communication", "rally test"]


def test_a_failed_communication_means_no_rally_roll():
    outcome = rally_unit([(Die.D10, 2)])
    assert not outcome.communication.success
    assert not outcome.rallied
    assert outcome.target is None
    assert outcome.confidence_after is BR
    assert len(outcome.rolls) == 1


def test_rally_exact_probabilities_with_the_communication():
    """Veteran-1 platoon to Regular-2 squad: D10 > 2 (4/5), then D8 > 3 (5/8): 1/2 overall."""
    rallied = 0
    for comm, test in itertools.product(range(1, 11), range(1, 9)):
        dice = TableDice([comm, test])
        outcome = rally(
            dice=dice,
            rallied_quality=Quality.REGULAR,
            rallied_leadership=2,
            rallied_confidence=BR,
            rallied_level=SQUAD,
            rallier_quality=Quality.VETERAN,
            rallier_leadership=1,
            rallier_level=PLATOON,
        )
        rallied += outcome.rallied
    assert Fraction(rallied, 80) == Fraction(1, 2)


@pytest.mark.parametrize(
    ("quality", "rallied_lv", "rallier_lv", "chance"),
    [
        (Quality.UNTRAINED, 1, 1, Fraction(1, 2)),
        (Quality.UNTRAINED, 2, 2, Fraction(0)),
        (Quality.GREEN, 3, 3, Fraction(0)),
        (Quality.GREEN, 2, 1, Fraction(1, 2)),
        (Quality.REGULAR, 3, 3, Fraction(1, 4)),
        (Quality.VETERAN, 2, 2, Fraction(3, 5)),
        (Quality.ELITE, 3, 2, Fraction(7, 12)),
    ],
)
def test_rally_test_exact_probabilities(quality, rallied_lv, rallier_lv, chance):
    faces = quality.die.value
    rallied = sum(
        rally_unit(
            [face],
            rallied_quality=quality,
            rallied_leadership=rallied_lv,
            rallier_leadership=rallier_lv,
            direct_contact=True,
        ).rallied
        for face in range(1, faces + 1)
    )
    assert Fraction(rallied, faces) == chance


def test_a_tired_unit_cannot_be_rallied_above_steady():
    """P.19: a unit that started at ST because of fatigue cannot be rallied above ST."""
    outcome = rally_unit(
        [8], rallied_confidence=SH, rallied_fatigue=Fatigue.TIRED, direct_contact=True
    )
    assert outcome.confidence_after is ST
    with pytest.raises(ValueError, match="cannot be rallied any higher"):
        rally_unit([8], rallied_confidence=ST, rallied_fatigue=Fatigue.TIRED, direct_contact=True)


def test_an_exhausted_unit_cannot_be_rallied_above_shaken():
    outcome = rally_unit(
        [8], rallied_confidence=BR, rallied_fatigue=Fatigue.EXHAUSTED, direct_contact=True
    )
    assert outcome.confidence_after is SH
    with pytest.raises(ValueError, match="stops at SHAKEN"):
        rally_unit(
            [8], rallied_confidence=SH, rallied_fatigue=Fatigue.EXHAUSTED, direct_contact=True
        )


def test_a_confident_fresh_unit_cannot_be_rallied():
    with pytest.raises(ValueError, match="cannot be rallied"):
        rally_unit([8], rallied_confidence=CO, direct_contact=True)


@pytest.mark.parametrize("rallier_level", [SQUAD, PLATOON])
def test_only_a_superior_command_unit_can_rally(rallier_level):
    with pytest.raises(ValueError, match="superior"):
        rally_unit([8], rallied_level=PLATOON, rallier_level=rallier_level, direct_contact=True)


def test_rally_ceilings_follow_fatigue():
    assert [rally_ceiling(f) for f in Fatigue] == [CO, ST, SH]


@given(
    fatigue=st.sampled_from(Fatigue),
    confidence=st.sampled_from(Confidence),
    face=st.integers(1, 8),
)
def test_rally_never_exceeds_the_fatigue_ceiling(fatigue, confidence, face):
    ceiling = rally_ceiling(fatigue)
    if confidence >= ceiling:
        with pytest.raises(ValueError, match="cannot be rallied"):
            rally_unit(
                [face], rallied_confidence=confidence, rallied_fatigue=fatigue, direct_contact=True
            )
        return
    outcome = rally_unit(
        [face], rallied_confidence=confidence, rallied_fatigue=fatigue, direct_contact=True
    )
    assert confidence <= outcome.confidence_after <= ceiling
    assert outcome.confidence_after - confidence == (1 if face > 3 else 0)


# --- regrouping (p.17) ----------------------------------------------------------------------------


def unit(strength, quality, leadership, confidence, fatigue=Fatigue.FRESH):
    return RegroupingUnit(strength, quality, leadership, confidence, fatigue)


def test_regroup_takes_best_leader_quality_of_the_larger_unit_and_average_confidence():
    outcome = regroup(units=[unit(3, Quality.VETERAN, 2, CO), unit(4, Quality.REGULAR, 1, SH)])
    assert outcome.strength == 7
    assert outcome.leadership == 1
    assert outcome.quality is Quality.REGULAR
    assert outcome.confidence is ST
    assert outcome.rolls == ()


@pytest.mark.parametrize(
    ("first", "second", "average"),
    [(CO, SH, ST), (CO, ST, CO), (ST, SH, ST), (BR, RO, BR), (SH, RO, BR), (RO, RO, RO)],
)
def test_regroup_confidence_average_rounds_up_toward_confident(first, second, average):
    outcome = regroup(units=[unit(2, Quality.GREEN, 2, first), unit(2, Quality.GREEN, 2, second)])
    assert outcome.confidence is average


def test_regroup_of_three_units_averages_all_three():
    outcome = regroup(
        units=[
            unit(2, Quality.GREEN, 3, CO),
            unit(1, Quality.ELITE, 3, BR),
            unit(5, Quality.GREEN, 2, BR),
        ]
    )
    # (4 + 1 + 1) / 3 = 2 -> SH
    assert outcome.confidence is SH
    assert outcome.quality is Quality.GREEN
    assert outcome.strength == 8


def test_regroup_tie_in_numbers_follows_the_option():
    units = [unit(3, Quality.VETERAN, 2, ST), unit(3, Quality.GREEN, 2, ST)]
    assert regroup(units=units).quality is Quality.GREEN
    assert regroup(units=units, regroup_quality_tie="higher").quality is Quality.VETERAN


def test_regroup_fatigue_follows_the_option():
    units = [
        unit(3, Quality.GREEN, 2, ST, Fatigue.TIRED),
        unit(2, Quality.GREEN, 2, SH, Fatigue.EXHAUSTED),
    ]
    assert regroup(units=units).fatigue is Fatigue.EXHAUSTED
    assert regroup(units=units, regroup_fatigue="better").fatigue is Fatigue.TIRED


@pytest.mark.parametrize(
    ("units", "options", "message"),
    [
        ([unit(3, Quality.GREEN, 2, ST)], {}, "at least two"),
        (
            [unit(3, Quality.GREEN, 2, ST)] * 2,
            {"regroup_quality_tie": "best"},
            "regroup_quality_tie",
        ),
        ([unit(3, Quality.GREEN, 2, ST)] * 2, {"regroup_fatigue": "fresh"}, "regroup_fatigue"),
        ([unit(0, Quality.GREEN, 2, ST), unit(3, Quality.GREEN, 2, ST)], {}, "at least one man"),
        ([unit(2, Quality.GREEN, 4, ST), unit(3, Quality.GREEN, 2, ST)], {}, "leadership"),
    ],
)
def test_regroup_refuses_bad_input(units, options, message):
    with pytest.raises(ValueError, match=message):
        regroup(units=units, **options)


@pytest.mark.parametrize(
    ("option", "kept_by_umpire", "persists"),
    [
        ("umpire", True, True),
        ("umpire", False, False),
        ("persists", False, True),
        ("persists", True, True),
        ("dissolves", True, False),
        ("dissolves", False, False),
    ],
)
def test_whether_a_regroup_outlasts_the_battle_follows_the_option(option, kept_by_umpire, persists):
    """P.17 is silent (AMBIG-19): the option, or with ``umpire`` the umpire's word, decides."""
    assert (
        regroup_persists_after_battle(regroup_persists=option, kept_by_umpire=kept_by_umpire)
        is persists
    )


def test_regroup_persistence_refuses_an_unknown_option():
    with pytest.raises(ValueError, match="regroup_persists"):
        regroup_persists_after_battle(regroup_persists="sometimes")  # type: ignore[arg-type]


# --- the new leader (p.10) ------------------------------------------------------------------------

SUCCESSOR_TABLE = {
    # P.10: 1-2 worse, 3-5 same, 6 better, kept within 1..3.
    1: [2, 2, 1, 1, 1, 1],
    2: [3, 3, 2, 2, 2, 1],
    3: [3, 3, 3, 3, 3, 2],
}


@pytest.mark.parametrize("leadership", [1, 2, 3])
@pytest.mark.parametrize("face", range(1, 7))
def test_successor_leadership_table(leadership, face):
    outcome = successor_leadership(dice=TableDice([face]), leadership=leadership)
    assert outcome.leadership == SUCCESSOR_TABLE[leadership][face - 1]
    assert outcome.leadership_before == leadership
    assert outcome.rolls[0].die is Die.D6


def test_page_10_second_in_command_to_a_level_3_leader():
    """P.10: the second to a level 3 leader is a level 3 on 1-5 and a level 2 on a 6."""
    results = [
        successor_leadership(dice=TableDice([f]), leadership=3).leadership for f in range(1, 7)
    ]
    assert results == [3, 3, 3, 3, 3, 2]


@pytest.mark.parametrize(
    ("leadership", "chances"),
    [
        (1, {1: Fraction(2, 3), 2: Fraction(1, 3)}),
        (2, {1: Fraction(1, 6), 2: Fraction(1, 2), 3: Fraction(1, 3)}),
        (3, {2: Fraction(1, 6), 3: Fraction(5, 6)}),
    ],
)
def test_successor_leadership_exact_probabilities(leadership, chances):
    results = [
        successor_leadership(dice=TableDice([face]), leadership=leadership).leadership
        for face in range(1, 7)
    ]
    assert {lv: Fraction(results.count(lv), 6) for lv in set(results)} == chances


@given(st.integers(1, 3), st.integers(1, 6))
def test_successor_leadership_stays_one_to_three_and_moves_at_most_one(leadership, face):
    new = successor_leadership(dice=TableDice([face]), leadership=leadership).leadership
    assert 1 <= new <= 3
    assert abs(new - leadership) <= 1


def lose_leader(faces, **overrides):
    arguments: dict[str, Any] = {
        "quality": Quality.REGULAR,
        "leadership": 2,
        "confidence": ST,
        "motivation": MissionMotivation.MEDIUM,
    }
    arguments.update(overrides)
    return loss_of_unit_leader(dice=TableDice(faces), **arguments)


def test_losing_the_leader_suppresses_tests_confidence_and_rolls_the_successor():
    """P.10: one suppression marker, a confidence test at TL 3 (MEDIUM), then the new LV."""
    outcome = lose_leader([6, 6])
    assert outcome.suppression_markers == 1
    assert outcome.confidence_test.threat_level == 3
    assert outcome.confidence_test.test.target == 5
    assert outcome.confidence_after is ST
    assert outcome.leadership == 1
    assert [roll.purpose for roll in outcome.rolls] == [
        "confidence test",
        "leadership of the new unit leader",
    ]


def test_losing_the_leader_at_high_motivation_still_suppresses_and_tests_at_two():
    outcome = lose_leader([2, 1], motivation=MissionMotivation.HIGH, suppression_markers=2)
    assert outcome.suppression_markers == 3
    assert outcome.confidence_test.threat_level == 2
    # D8 2 against LV2 + TL2 = 4: half or less, two levels.
    assert outcome.confidence_after is BR
    assert outcome.leadership == 3


def test_leader_loss_suppression_is_capped_at_three():
    assert lose_leader([8, 4], suppression_markers=3).suppression_markers == 3


def test_leader_loss_combines_with_other_circumstances_of_the_same_event():
    outcome = lose_leader(
        [8, 4],
        motivation=MissionMotivation.LOW,
        other_circumstances=[
            ConfidenceCircumstance.CASUALTIES_FROM_FIRE,
            ConfidenceCircumstance.ARTILLERY_OR_AEROSPACE_ATTACK,
        ],
        untreated_casualties=1,
    )
    # LOW: leader 4 (highest basic), artillery +2, one untreated +1 -> 7; LV2 -> target 9.
    assert outcome.confidence_test.threat_level == 7
    assert outcome.confidence_after is SH


@pytest.mark.parametrize("markers", [-1, 4, True])
def test_leader_loss_refuses_impossible_suppression(markers):
    with pytest.raises(ValueError, match="suppression"):
        lose_leader([8, 4], suppression_markers=markers)


# --- under-strength units (p.10) ------------------------------------------------------------------

SQUAD_FIGURES = ("leader", "saw", "gms", "r1", "r2", "r3")


def test_under_strength_die_by_fatigue():
    assert UNDER_STRENGTH_DIE == {
        Fatigue.FRESH: Die.D10,
        Fatigue.TIRED: Die.D8,
        Fatigue.EXHAUSTED: Die.D6,
    }


def test_figures_rolling_one_are_absent():
    outcome = under_strength(
        dice=TableDice([(Die.D10, 5), (Die.D10, 1), 10, 1, 2, 3]),
        fatigue=Fatigue.FRESH,
        figures=SQUAD_FIGURES,
        leader="leader",
        leadership=2,
    )
    assert outcome.applied
    assert outcome.absent == ("saw", "r1")
    assert outcome.present == ("leader", "gms", "r2", "r3")
    assert not outcome.leader_absent
    assert outcome.successor is None
    assert outcome.leadership == 2
    assert len(outcome.rolls) == 6


def test_an_absent_leader_is_replaced_by_the_successor_roll():
    outcome = under_strength(
        dice=TableDice([(Die.D6, 1), 2, 2, 2, 2, 2, (Die.D6, 1)]),
        fatigue=Fatigue.EXHAUSTED,
        figures=SQUAD_FIGURES,
        leader="leader",
        leadership=2,
    )
    assert outcome.leader_absent
    assert outcome.leadership == 3
    assert outcome.rolls[-1].purpose == "leadership of the new unit leader"


def test_a_unit_without_a_leader_figure_rolls_no_successor():
    outcome = under_strength(
        dice=TableDice([1, 1]),
        fatigue=Fatigue.TIRED,
        figures=("a", "b"),
        leader=None,
        leadership=1,
    )
    assert outcome.absent == ("a", "b")
    assert outcome.successor is None


def test_no_under_strength_roll_in_a_campaign_unless_the_option_is_on():
    off = under_strength(
        dice=TableDice([]),
        fatigue=Fatigue.FRESH,
        figures=SQUAD_FIGURES,
        leader="leader",
        leadership=2,
        campaign_game=True,
    )
    assert not off.applied
    assert off.present == SQUAD_FIGURES
    assert off.rolls == ()
    on = under_strength(
        dice=TableDice([2] * 6),
        fatigue=Fatigue.FRESH,
        figures=SQUAD_FIGURES,
        leader="leader",
        leadership=2,
        campaign_game=True,
        understrength_roll_in_campaign=True,
    )
    assert on.applied
    assert len(on.rolls) == 6


@pytest.mark.parametrize(
    ("fatigue", "chance_absent"),
    [
        (Fatigue.FRESH, Fraction(1, 10)),
        (Fatigue.TIRED, Fraction(1, 8)),
        (Fatigue.EXHAUSTED, Fraction(1, 6)),
    ],
)
def test_under_strength_exact_probabilities(fatigue, chance_absent):
    faces = UNDER_STRENGTH_DIE[fatigue].value
    counts = {0: 0, 1: 0, 2: 0}
    for first, second in itertools.product(range(1, faces + 1), repeat=2):
        outcome = under_strength(
            dice=TableDice([first, second]),
            fatigue=fatigue,
            figures=("a", "b"),
            leader=None,
            leadership=2,
        )
        counts[len(outcome.absent)] += 1
    total = faces * faces
    assert Fraction(counts[2], total) == chance_absent**2
    assert Fraction(counts[0], total) == (1 - chance_absent) ** 2


@pytest.mark.parametrize(
    ("figures", "leader", "message"),
    [(("a", "a"), None, "once"), (("a", "b"), "c", "not one of")],
)
def test_under_strength_refuses_bad_rosters(figures, leader, message):
    with pytest.raises(ValueError, match=message):
        under_strength(
            dice=TableDice([]), fatigue=Fatigue.FRESH, figures=figures, leader=leader, leadership=2
        )
