"""Replacement troops (SG2 P.60-61 REPLACEMENT TROOPS; timing P.61 REST AND RECOVERY)."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Die, RollSource, TableDice
from rules.sg2.campaign import CampaignRuleError, Location
from rules.sg2.replacements import (
    EarlierCheck,
    ReplacementAvailability,
    ReplacementError,
    SquadAssignment,
    check_quality_after_replacements,
    distribute_replacements,
    roll_platoon_replacements,
    strength_die,
)
from rules.sg2.scales import Quality

# --- the number available -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("availability", "die"),
    [
        (ReplacementAvailability.FEW, Die.D6),
        (ReplacementAvailability.AVERAGE, Die.D8),
        (ReplacementAvailability.GOOD, Die.D10),
        (ReplacementAvailability.PLENTY, Die.D12),
    ],
)
def test_availability_sets_the_platoon_die_p60(
    availability: ReplacementAvailability, die: Die
) -> None:
    dice = TableDice([(die, 5)])
    outcome = roll_platoon_replacements(dice=dice, platoon="1st", replacement_die=availability)
    assert outcome.die is die
    assert outcome.available == 5
    assert [roll.die for roll in outcome.rolls] == [die]
    dice.ensure_all_used()


def test_the_default_die_is_a_d8_for_average_availability() -> None:
    outcome = roll_platoon_replacements(dice=TableDice([(Die.D8, 7)]), platoon="2nd")
    assert outcome.die is Die.D8
    assert outcome.available == 7
    assert outcome.rolls[0].source is RollSource.TABLE
    assert "2nd" in outcome.rolls[0].purpose


def test_the_die_may_be_given_as_its_number_of_faces() -> None:
    outcome = roll_platoon_replacements(dice=TableDice([12]), platoon="3rd", replacement_die=12)
    assert outcome.die is Die.D12


def test_an_impossible_die_is_refused() -> None:
    with pytest.raises(ValueError, match="no d7"):
        roll_platoon_replacements(dice=TableDice([1]), platoon="1st", replacement_die=7)


@pytest.mark.parametrize("die", [Die.D6, Die.D8, Die.D10, Die.D12])
def test_every_number_of_replacements_is_equally_likely(die: Die) -> None:
    counts: dict[int, int] = {}
    for (face,) in itertools.product(range(1, die.value + 1), repeat=1):
        available = roll_platoon_replacements(
            dice=TableDice([face]), platoon="1st", replacement_die=die
        ).available
        counts[available] = counts.get(available, 0) + 1
    expected = {
        Die.D6: Fraction(1, 6),
        Die.D8: Fraction(1, 8),
        Die.D10: Fraction(1, 10),
        Die.D12: Fraction(1, 12),
    }[die]
    assert set(counts) == set(range(1, die.value + 1))
    assert all(Fraction(count, die.value) == expected for count in counts.values())


# --- distribution ---------------------------------------------------------------------------


def squad(name: str, vacancies: int, assigned: int, location: Location = Location.SAFE_AREA):
    return SquadAssignment(squad=name, vacancies=vacancies, assigned=assigned, location=location)


def test_the_player_distributes_as_he_likes_and_it_takes_one_day_p61() -> None:
    distribution = distribute_replacements(
        available=5, assignments=[squad("A", 2, 2), squad("B", 3, 1), squad("C", 0, 0)]
    )
    assert distribution.assigned == 3
    assert distribution.unassigned == 2
    assert distribution.days == 1
    assert [item.squad for item in distribution.assignments] == ["A", "B", "C"]


def test_the_day_doubles_short_of_supplies_unless_the_umpire_leaves_it_out() -> None:
    """P.61: without suitable supplies "DOUBLE all times given"."""
    doubled = distribute_replacements(available=2, assignments=[squad("A", 2, 2)], supplied=False)
    left_out = distribute_replacements(
        available=2,
        assignments=[squad("A", 2, 2)],
        supplied=False,
        field_doubling_applies_to=["fatigue", "repair", "injured_return"],
    )
    assert (doubled.days, left_out.days) == (2, 1)


def test_assigning_nobody_takes_no_time() -> None:
    distribution = distribute_replacements(available=3, assignments=[squad("A", 2, 0)])
    assert distribution.days == 0
    assert distribution.unassigned == 3


def test_more_assigned_than_rolled_is_refused() -> None:
    with pytest.raises(ReplacementError) as raised:
        distribute_replacements(available=3, assignments=[squad("A", 2, 2), squad("B", 3, 2)])
    assert raised.value.code == "replacements.over_assigned"
    assert isinstance(raised.value, CampaignRuleError)
    assert isinstance(raised.value, ValueError)
    assert "only 3" in str(raised.value)


def test_extra_troops_may_reinforce_a_full_unit_p61() -> None:
    distribution = distribute_replacements(available=4, assignments=[squad("A", 0, 2)])
    assert distribution.assigned == 2


def test_reinforced_units_can_be_forbidden() -> None:
    with pytest.raises(ReplacementError) as raised:
        distribute_replacements(
            available=4, assignments=[squad("A", 1, 2)], allow_overstrength=False
        )
    assert raised.value.code == "replacements.over_strength"


def test_filling_exactly_the_vacancies_is_fine_without_reinforcement() -> None:
    distribution = distribute_replacements(
        available=4, assignments=[squad("A", 2, 2)], allow_overstrength=False
    )
    assert distribution.assigned == 2


def test_a_unit_still_in_the_line_cannot_receive_replacements_p61() -> None:
    with pytest.raises(ReplacementError) as raised:
        distribute_replacements(available=4, assignments=[squad("A", 2, 1, Location.FIELD)])
    assert raised.value.code == "replacements.not_in_safe_area"


def test_a_unit_in_the_field_that_receives_nobody_is_fine() -> None:
    distribution = distribute_replacements(
        available=4, assignments=[squad("A", 2, 0, Location.FIELD), squad("B", 2, 2)]
    )
    assert distribution.assigned == 2


def test_a_rear_area_is_a_safe_area() -> None:
    distribution = distribute_replacements(
        available=4, assignments=[squad("A", 2, 2, Location.REAR_AREA)]
    )
    assert distribution.assigned == 2


def test_a_squad_listed_twice_is_refused() -> None:
    with pytest.raises(ReplacementError) as raised:
        distribute_replacements(available=4, assignments=[squad("A", 2, 1), squad("A", 2, 1)])
    assert raised.value.code == "replacements.duplicate_squad"


def test_negative_assignments_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 0"):
        distribute_replacements(available=4, assignments=[squad("A", 2, -1)])


# --- the quality-drop check -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("existing", "die"),
    [
        (1, Die.D4),
        (2, Die.D4),
        (3, Die.D4),
        (4, Die.D4),
        (5, Die.D6),
        (6, Die.D6),
        (7, Die.D8),
        (8, Die.D8),
        (9, Die.D10),
        (10, Die.D10),
        (11, Die.D12),
        (12, Die.D12),
        (15, Die.D12),
    ],
)
def test_the_nearest_die_to_the_existing_strength_rounded_up_p60(existing: int, die: Die) -> None:
    assert strength_die(existing) is die


def test_a_unit_with_no_members_has_no_strength_die() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        strength_die(0)


def check(quality: Quality, existing: int, replacements: int, dice: list[int], **options):
    return check_quality_after_replacements(
        dice=TableDice(dice),
        quality=quality,
        existing_members=existing,
        replacements=replacements,
        **options,
    )


@pytest.mark.parametrize(
    ("face", "quality"),
    [(1, Quality.REGULAR), (2, Quality.REGULAR)]
    + [(face, Quality.VETERAN) for face in (3, 4, 5, 6)],
)
def test_book_example_veteran_squad_with_two_replacements_p60(face: int, quality: Quality) -> None:
    """P.60: 8-man VETERAN unit, 3 lost, 1 recovered: 6 members, 2 Fungs, D6 needs 3+."""
    dice = TableDice([(Die.D6, face)])
    outcome = check_quality_after_replacements(
        dice=dice,
        quality=Quality.VETERAN,
        existing_members=8 - 3,
        returned_from_injury=1,
        replacements=2,
    )
    assert outcome.existing_members == 6
    assert outcome.die is Die.D6
    assert outcome.quality is quality
    assert outcome.dropped is (quality is Quality.REGULAR)
    assert [(roll.die, roll.result) for roll in outcome.rolls] == [(Die.D6, face)]
    dice.ensure_all_used()


def test_book_example_drops_with_probability_one_third_p60() -> None:
    drops = sum(
        check(Quality.VETERAN, 6, 2, [face]).dropped
        for (face,) in itertools.product(range(1, 7), repeat=1)
    )
    assert Fraction(drops, 6) == Fraction(1, 3)


def test_returning_injured_do_not_count_as_replacements_p60() -> None:
    # Four serving plus one back from hospital make five (a D6, where four alone roll a D4), and
    # the returning man does not add to the two replacements: a 3 still beats them.
    outcome = check(Quality.REGULAR, 4, 2, [3], returned_from_injury=1)
    assert outcome.existing_members == 5
    assert outcome.die is Die.D6
    assert not outcome.dropped


def test_roll_equal_to_the_replacements_drops_one_level() -> None:
    outcome = check(Quality.REGULAR, 8, 3, [3])
    assert outcome.quality is Quality.GREEN
    assert outcome.die is Die.D8


def test_roll_exceeding_the_replacements_keeps_the_quality() -> None:
    assert check(Quality.REGULAR, 8, 3, [4]).quality is Quality.REGULAR


@pytest.mark.parametrize(
    ("existing", "replacements", "expected"),
    [
        (1, 1, Fraction(1, 4)),
        (3, 2, Fraction(2, 4)),
        (4, 3, Fraction(3, 4)),
        (5, 1, Fraction(1, 6)),
        (6, 2, Fraction(2, 6)),
        (6, 5, Fraction(5, 6)),
        (7, 3, Fraction(3, 8)),
        (8, 7, Fraction(7, 8)),
        (9, 4, Fraction(4, 10)),
        (10, 9, Fraction(9, 10)),
        (11, 5, Fraction(5, 12)),
        (12, 11, Fraction(11, 12)),
    ],
)
def test_exact_probability_of_a_quality_drop(
    existing: int, replacements: int, expected: Fraction
) -> None:
    faces = strength_die(existing).value
    drops = sum(
        check(Quality.VETERAN, existing, replacements, [face]).dropped
        for (face,) in itertools.product(range(1, faces + 1), repeat=1)
    )
    assert Fraction(drops, faces) == expected


@pytest.mark.parametrize(("existing", "replacements"), [(4, 4), (3, 6), (6, 6), (12, 12)])
def test_replacements_at_least_the_die_drop_the_unit_without_a_roll(
    existing: int, replacements: int
) -> None:
    outcome = check(Quality.VETERAN, existing, replacements, [])
    assert outcome.quality is Quality.REGULAR
    assert outcome.rolls == ()


def test_no_replacements_no_roll() -> None:
    outcome = check(Quality.VETERAN, 5, 0, [])
    assert outcome.quality is Quality.VETERAN
    assert not outcome.dropped
    assert outcome.die is None


def test_a_green_unit_does_not_drop_to_untrained_p61() -> None:
    outcome = check(Quality.GREEN, 2, 3, [])
    assert outcome.quality is Quality.GREEN
    assert outcome.rolls == ()


@pytest.mark.parametrize(
    ("quality", "existing", "replacements", "after"),
    [(Quality.GREEN, 2, 1, Quality.GREEN), (Quality.VETERAN, 4, 4, Quality.REGULAR)],
)
def test_the_books_die_may_be_rolled_when_it_cannot_matter_p60(
    quality: Quality, existing: int, replacements: int, after: Quality
) -> None:
    """A Green squad (which cannot drop) and a certain drop: the table may roll the d4 as the
    book says; whatever it shows, the outcome is the same, and the face is recorded as moot."""
    for face in range(1, 5):
        outcome = check_quality_after_replacements(
            dice=TableDice([face], moot=True),
            quality=quality,
            existing_members=existing,
            replacements=replacements,
        )
        assert outcome.quality is after
        assert outcome.die is Die.D4
        assert [(r.result, r.moot) for r in outcome.rolls] == [(face, True)]


def test_the_umpire_may_let_green_units_drop_to_untrained() -> None:
    outcome = check(Quality.GREEN, 4, 1, [1], green_never_drops_to_untrained=False)
    assert outcome.quality is Quality.UNTRAINED


def test_an_untrained_unit_cannot_drop_further() -> None:
    outcome = check(Quality.UNTRAINED, 4, 1, [], green_never_drops_to_untrained=False)
    assert outcome.quality is Quality.UNTRAINED
    assert outcome.rolls == ()


def test_elite_units_normally_get_no_ordinary_replacements_p61() -> None:
    with pytest.raises(ReplacementError) as raised:
        check(Quality.ELITE, 6, 1, [])
    assert raised.value.code == "replacements.elite_not_eligible"


def test_elite_units_given_replacements_are_checked_like_any_other_p61() -> None:
    dropped = check(Quality.ELITE, 6, 1, [1], elite_accepts_ordinary_replacements=True)
    kept = check(Quality.ELITE, 6, 1, [2], elite_accepts_ordinary_replacements=True)
    assert dropped.quality is Quality.VETERAN
    assert kept.quality is Quality.ELITE


def test_elite_units_receiving_nobody_need_no_permission() -> None:
    assert check(Quality.ELITE, 6, 0, []).quality is Quality.ELITE


def test_a_unit_rebuilt_from_nothing_is_green_at_best() -> None:
    assert check(Quality.VETERAN, 0, 6, []).quality is Quality.GREEN
    assert check(Quality.UNTRAINED, 0, 6, []).quality is Quality.UNTRAINED


def test_a_rise_undone_by_replacements_still_uses_up_the_points_p60() -> None:
    outcome = check(Quality.REGULAR, 6, 2, [1], improvement_points=3, rose_this_round=True)
    assert outcome.quality is Quality.GREEN
    assert outcome.improvement_points == 0


def test_points_are_kept_when_the_quality_holds_or_there_was_no_rise() -> None:
    held = check(Quality.REGULAR, 6, 2, [5], improvement_points=3, rose_this_round=True)
    no_rise = check(Quality.REGULAR, 6, 2, [1], improvement_points=3)
    assert held.improvement_points == 3
    assert no_rise.improvement_points == 3


@pytest.mark.parametrize(
    "counts", [{"existing_members": -1}, {"replacements": -2}, {"returned_from_injury": -1}]
)
def test_negative_counts_are_refused(counts: dict[str, int]) -> None:
    arguments: dict[str, Any] = {
        "existing_members": 5,
        "replacements": 1,
        "returned_from_injury": 0,
    } | counts
    with pytest.raises(ValueError, match="at least 0"):
        check_quality_after_replacements(dice=TableDice([3]), quality=Quality.REGULAR, **arguments)


@given(
    quality=st.sampled_from([Quality.UNTRAINED, Quality.GREEN, Quality.REGULAR, Quality.VETERAN]),
    existing=st.integers(0, 16),
    replacements=st.integers(0, 14),
    face=st.integers(1, 12),
)
def test_quality_never_rises_drops_at_most_one_level_and_green_holds(
    quality: Quality, existing: int, replacements: int, face: int
) -> None:
    faces = strength_die(existing).value if existing else Die.D12.value
    dice = TableDice([min(face, faces)])
    outcome = check_quality_after_replacements(
        dice=dice, quality=quality, existing_members=existing, replacements=replacements
    )
    assert outcome.quality <= quality
    assert outcome.quality >= Quality.UNTRAINED
    if existing:
        assert quality - outcome.quality in (0, 1)
    if quality >= Quality.GREEN:
        assert outcome.quality >= Quality.GREEN
    assert len(outcome.rolls) <= 1


@given(existing=st.integers(1, 16), replacements=st.integers(0, 13), face=st.integers(1, 4))
def test_more_replacements_never_make_a_drop_less_likely(
    existing: int, replacements: int, face: int
) -> None:
    fewer = check(Quality.VETERAN, existing, replacements, [face])
    more = check(Quality.VETERAN, existing, replacements + 1, [face])
    assert more.quality <= fewer.quality


# --- one check for all the men a unit receives between battles (P.60) ---------------------------


def earlier(
    replacements: int, roll: int | None, *, dropped: bool = False, die: Die | None = Die.D6
) -> EarlierCheck:
    return EarlierCheck(
        replacements=replacements, existing_members=6, die=die, roll=roll, dropped=dropped
    )


def test_two_single_man_assignments_drop_the_book_squad_once_p60() -> None:
    """P.60's Veteran squad (six members, a D6): the first man's check rolled 1 and dropped it
    to Regular. The second man is counted by that check: no die, no second drop."""
    first = check(Quality.VETERAN, 5, 1, [1], returned_from_injury=1)
    assert (first.quality, first.roll, first.replacements) == (Quality.REGULAR, 1, 1)
    dice = TableDice([])
    second = check_quality_after_replacements(
        dice=dice,
        quality=first.quality,
        existing_members=7,
        replacements=1,
        earlier=earlier(1, 1, dropped=True),
    )
    assert (second.quality, second.dropped, second.rolls) == (Quality.REGULAR, False, ())
    assert (second.die, second.roll, second.replacements, second.existing_members) == (
        Die.D6,
        1,
        2,
        6,
    )
    dice.ensure_all_used()


@pytest.mark.parametrize(
    ("face", "quality"), [(2, Quality.REGULAR)] + [(f, Quality.VETERAN) for f in (3, 4, 5, 6)]
)
def test_split_assignments_give_the_book_example_outcome_p60(face: int, quality: Quality) -> None:
    """P.60: two Fungs for the six-man Veteran squad drop it on 1-2 of a D6, given together or
    one at a time: a 2 kept it for the first man and drops it with the second."""
    second = check(Quality.VETERAN, 7, 1, [], earlier=earlier(1, face))
    assert second.quality is quality
    assert second.dropped is (quality is Quality.REGULAR)
    assert second.rolls == ()


@pytest.mark.parametrize(
    ("before", "dropped", "die"),
    [
        (earlier(1, None, die=None), False, None),  # Green, or re-formed: nothing was rolled
        (earlier(9, None, dropped=True, die=Die.D8), False, Die.D8),  # a certain drop
    ],
)
def test_an_earlier_check_that_rolled_nothing_decides_the_later_men_too(
    before: EarlierCheck, dropped: bool, die: Die | None
) -> None:
    later = check(Quality.REGULAR, 8, 5, [], earlier=before)
    assert (later.quality, later.dropped, later.die, later.roll) == (
        Quality.REGULAR,
        dropped,
        die,
        None,
    )


def test_an_earlier_score_does_not_take_a_green_unit_below_green_p61() -> None:
    later = check(Quality.GREEN, 6, 3, [], earlier=earlier(1, 2))
    assert (later.quality, later.dropped) == (Quality.GREEN, False)
    allowed = check(
        Quality.GREEN, 6, 3, [], earlier=earlier(1, 2), green_never_drops_to_untrained=False
    )
    assert allowed.quality is Quality.UNTRAINED


def test_a_rise_undone_by_later_men_uses_the_points_up_p60() -> None:
    later = check(
        Quality.VETERAN, 6, 1, [], earlier=earlier(1, 2), improvement_points=2, rose_this_round=True
    )
    assert (later.quality, later.improvement_points) == (Quality.REGULAR, 0)
