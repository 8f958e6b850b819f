"""Tests for Fast and Dirty initiative, Checking Resolve, Morale Tests, Losing Heart, markers and
Command Response (FaD p.12-14, p.24-25) in rules.fad.morale.

Probabilities are worked out by hand from the book's tables and checked by enumerating every
face of the dice the procedure asks for."""

from __future__ import annotations

import enum
import itertools
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import DiceError, Die, Roll, TableDice
from rules.errors import RuleError
from rules.fad.morale import (
    ArmyUnit,
    AutoSuccess,
    MoraleResult,
    check_infantry_resolve,
    check_vehicle_resolve,
    command_response,
    command_response_due,
    grizzled,
    initiative,
    losing_heart,
    losing_heart_levels,
    marker_after,
    morale_test,
    original_size,
    resolve_after_losing_heart,
)
from rules.fad.options import GrizzledMode, ModifierMode, OfficerBonusMode, OriginalSize
from rules.fad.scales import Quality, Resolve, SquadLeaderExperience

FACES = range(1, 7)
MARKERS = ("", "under_fire", "pinned")


class _NeedDie(Exception):
    pass


class _PathDice:
    """Dice that follow a path of faces and stop where the path ends, to explore every way a
    procedure can roll."""

    def __init__(self, path: tuple[int, ...]) -> None:
        self.path = path
        self.used = 0

    def roll(self, die: Die, purpose: str) -> Roll:
        if self.used == len(self.path):
            raise _NeedDie
        self.used += 1
        return Roll(die=die, result=self.path[self.used - 1], purpose=purpose)


def exact(run, predicate) -> Fraction:
    """The exact probability that ``predicate`` holds of ``run(dice)``, over every sequence of
    d6 faces the procedure can ask for, however many dice each branch rolls."""
    total = Fraction(0)
    paths: list[tuple[int, ...]] = [()]
    while paths:
        path = paths.pop()
        try:
            outcome = run(_PathDice(path))
        except _NeedDie:
            paths.extend((*path, face) for face in FACES)
            continue
        if predicate(outcome):
            total += Fraction(1, 6 ** len(path))
    return total


class Marker(enum.StrEnum):
    """A caller's own marker enum, as the shooting rules keep one."""

    NONE = ""
    UNDER_FIRE = "under_fire"
    PINNED = "pinned"


# --- markers (p.24) -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("current", "placed", "after"),
    [
        ("", "under_fire", "under_fire"),
        ("", "pinned", "pinned"),
        ("under_fire", "pinned", "pinned"),  # "Replace any Under Fire marker with a Pinned"
        ("pinned", "under_fire", "pinned"),  # never stacks, never lowers
        ("under_fire", "under_fire", "under_fire"),  # no cumulative effect
        ("pinned", "pinned", "pinned"),
        ("under_fire", "", "under_fire"),
    ],
)
def test_marker_after_pinned_replaces_under_fire_and_nothing_stacks(current, placed, after):
    assert marker_after(current, placed) == after


def test_marker_after_keeps_the_callers_enum():
    after = marker_after(Marker.UNDER_FIRE, Marker.PINNED)
    assert after is Marker.PINNED


@pytest.mark.parametrize("current", ["", "under_fire"])
def test_vehicles_are_never_pinned(current):
    assert marker_after(current, "pinned", vehicle=True) == "under_fire"
    assert marker_after(Marker(current), Marker.PINNED, vehicle=True) is Marker.UNDER_FIRE


@pytest.mark.parametrize(("current", "placed"), [("suppressed", ""), ("", "broken")])
def test_marker_after_refuses_unknown_markers(current, placed):
    with pytest.raises(RuleError) as error:
        marker_after(current, placed)
    assert error.value.code == "marker.unknown"


@given(st.sampled_from(MARKERS), st.sampled_from(MARKERS))
def test_marker_after_is_the_worse_of_the_two_whatever_the_order(first, second):
    after = marker_after(first, second)
    assert after == marker_after(second, first)
    assert after in (first, second)
    assert marker_after(after, first) == after
    assert MARKERS.index(after) == max(MARKERS.index(first), MARKERS.index(second))


# --- Checking Resolve (p.13) ----------------------------------------------------------------------


@pytest.mark.parametrize(("size", "break_point"), [(8, 4), (6, 3), (10, 5)])
def test_the_tutorials_steady_break_values(size, break_point):
    """p.45: Steady squads of 8, 6 and 10 break at 4, 3 and 5 casualties."""
    just_short = check_infantry_resolve(
        resolve=Resolve.STEADY, original_size=size, casualties=break_point - 1
    )
    at = check_infantry_resolve(resolve=Resolve.STEADY, original_size=size, casualties=break_point)
    assert (just_short.break_point, just_short.broken) == (break_point, False)
    assert (at.break_point, at.broken, at.losses, at.original_size) == (
        break_point,
        True,
        break_point,
        size,
    )
    assert at.checked
    assert not at.vehicle


@pytest.mark.parametrize(
    ("resolve", "break_point"),
    [
        (Resolve.RELUCTANT, 1),  # 1 casualty
        (Resolve.UNCERTAIN, 2),  # 25% of 7 = 1.75: two casualties equal or exceed it
        (Resolve.STEADY, 4),  # 50% of 7 = 3.5
        (Resolve.DETERMINED, 6),  # 75% of 7 = 5.25
    ],
)
def test_infantry_resolve_table_for_a_squad_of_seven(resolve, break_point):
    checks = [
        check_infantry_resolve(resolve=resolve, original_size=7, casualties=n).broken
        for n in range(8)
    ]
    assert checks == [n >= break_point for n in range(8)]


def test_an_attached_officer_adds_one_to_the_squads_size_by_default():
    """p.32: strength raised by 1. A Steady squad of 7 breaks at 4; with an officer, 8 -> 4;
    an Uncertain squad of 8 breaks at 2, with an officer 9 -> 3."""
    plain = check_infantry_resolve(resolve=Resolve.UNCERTAIN, original_size=8, casualties=2)
    led = check_infantry_resolve(
        resolve=Resolve.UNCERTAIN, original_size=8, casualties=2, officer_attached=True
    )
    assert (plain.break_point, plain.broken) == (2, True)
    assert (led.break_point, led.broken, led.original_size) == (3, False, 9)


def test_the_officer_bonus_may_subtract_a_casualty_instead():
    """Option resolve_officer_bonus_mode = subtract_from_casualties: a Reluctant squad with an
    officer survives its first casualty, and a casualty count never goes below 0."""
    mode = OfficerBonusMode.SUBTRACT_FROM_CASUALTIES
    one = check_infantry_resolve(
        resolve=Resolve.RELUCTANT,
        original_size=5,
        casualties=1,
        officer_attached=True,
        resolve_officer_bonus_mode=mode,
    )
    none = check_infantry_resolve(
        resolve=Resolve.RELUCTANT,
        original_size=5,
        casualties=0,
        officer_attached=True,
        resolve_officer_bonus_mode=mode.value,
    )
    assert (one.losses, one.broken, one.original_size) == (0, False, 5)
    assert none.losses == 0


@pytest.mark.parametrize("bad", [True, 2.5, "3", -1])
def test_check_resolve_refuses_counts_that_are_not_whole_numbers(bad):
    with pytest.raises(RuleError) as error:
        check_infantry_resolve(resolve=Resolve.STEADY, original_size=8, casualties=bad)
    assert error.value.code == "resolve.refused"


def test_a_unit_has_at_least_one_figure():
    with pytest.raises(RuleError):
        check_infantry_resolve(resolve=Resolve.STEADY, original_size=0, casualties=0)


def test_original_size_by_option():
    """Option resolve_original_size: the figures brought to this battle (default), or the
    strength the unit was raised with."""
    assert original_size(strength_at_battle_start=6, initial_strength=10) == 6
    assert (
        original_size(
            strength_at_battle_start=6,
            initial_strength=10,
            resolve_original_size=OriginalSize.INITIAL_STRENGTH,
        )
        == 10
    )
    assert (
        original_size(
            strength_at_battle_start=6, initial_strength=10, resolve_original_size="battle_start"
        )
        == 6
    )


@pytest.mark.parametrize(
    ("resolve", "hits"),
    [(Resolve.RELUCTANT, 1), (Resolve.UNCERTAIN, 2), (Resolve.STEADY, 3), (Resolve.DETERMINED, 4)],
)
def test_vehicle_resolve_table_only_under_fire(resolve, hits):
    """p.13 VEHICLE RESOLVE TABLE: 1-4 penetrating hits break the crew, checked only when the
    vehicle activates Under Fire."""
    short = check_vehicle_resolve(resolve=resolve, penetrating_hits=hits - 1, under_fire=True)
    at = check_vehicle_resolve(resolve=resolve, penetrating_hits=hits, under_fire=True)
    unmarked = check_vehicle_resolve(resolve=resolve, penetrating_hits=hits + 3, under_fire=False)
    assert (short.broken, at.broken, at.break_point) == (False, True, hits)
    assert at.vehicle
    assert at.checked
    assert at.original_size is None
    assert (unmarked.checked, unmarked.broken) == (False, False)


# --- Morale Tests (p.13) --------------------------------------------------------------------------


def _test(faces, **kwargs):
    dice = TableDice(faces)
    outcome = morale_test(dice=dice, **kwargs)
    dice.ensure_all_used()
    return outcome


def _rally_probability(quality, count, **kwargs) -> Fraction:
    rallies = sum(
        _test(faces, quality=quality, **kwargs).result is MoraleResult.RALLIED
        for faces in itertools.product(FACES, repeat=count)
    )
    return Fraction(rallies, 6**count)


# P(at least 2 of 3 dice succeed) with p = (7 - TN) / 6: 3p^2(1-p) + p^3.
RALLY_3D6 = {
    Quality.RABBLE: Fraction(7, 27),  # 5+: p = 1/3
    Quality.CONSCRIPT: Fraction(1, 2),  # 4+: p = 1/2
    Quality.REGULAR: Fraction(20, 27),  # 3+: p = 2/3
    Quality.ELITE: Fraction(25, 27),  # 2+: p = 5/6
}
# P(no die succeeds) = (1 - p)^3: the unit routs or surrenders.
ROUT_3D6 = {
    Quality.RABBLE: Fraction(8, 27),
    Quality.CONSCRIPT: Fraction(1, 8),
    Quality.REGULAR: Fraction(1, 27),
    Quality.ELITE: Fraction(1, 216),
}


@pytest.mark.parametrize("quality", list(Quality))
def test_rally_and_rout_probabilities_by_enumeration(quality):
    outcomes = [
        _test(faces, quality=quality).result for faces in itertools.product(FACES, repeat=3)
    ]
    assert Fraction(outcomes.count(MoraleResult.RALLIED), 216) == RALLY_3D6[quality]
    assert Fraction(outcomes.count(MoraleResult.REMOVED), 216) == ROUT_3D6[quality]
    stays = 1 - RALLY_3D6[quality] - ROUT_3D6[quality]
    assert Fraction(outcomes.count(MoraleResult.STAYS_BROKEN), 216) == stays


def test_a_regular_squad_rolls_3_1_1_and_stays_broken():
    outcome = _test([3, 1, 1], quality=Quality.REGULAR)
    assert (outcome.target_number, outcome.successes, outcome.result) == (
        3,
        1,
        MoraleResult.STAYS_BROKEN,
    )
    assert [roll.purpose for roll in outcome.rolls] == ["morale test"] * 3
    assert [roll.die for roll in outcome.rolls] == [Die.D6] * 3


def test_armour_nearby_is_one_success_and_two_dice():
    """p.13: a squad within 8" of a tank rolls 2d6 and adds one success: a Conscript squad then
    rallies unless both dice fail, 1 - (1/2)^2 = 3/4, and can never rout."""
    assert _rally_probability(Quality.CONSCRIPT, 2, auto_successes=[AutoSuccess.ARMOUR_NEARBY]) == (
        Fraction(3, 4)
    )
    outcome = _test([1, 1], quality=Quality.CONSCRIPT, auto_successes=["armour_nearby"])
    assert (outcome.dice_rolled, outcome.auto_successes, outcome.successes) == (2, 1, 1)
    assert outcome.result is MoraleResult.STAYS_BROKEN


def test_automatic_successes_do_not_stack_by_default():
    """Option morale_auto_success_stacking off: Brave in a trench next to a tank still rolls
    2d6 with one automatic success."""
    sources = [AutoSuccess.BRAVE, AutoSuccess.FORTIFIED, AutoSuccess.ARMOUR_NEARBY]
    outcome = _test([1, 1], quality=Quality.RABBLE, auto_successes=sources)
    assert (outcome.dice_rolled, outcome.auto_successes, outcome.successes) == (2, 1, 1)


def test_stacked_automatic_successes_each_replace_a_die():
    two = _test(
        [1],
        quality=Quality.RABBLE,
        auto_successes=[AutoSuccess.BRAVE, AutoSuccess.FORTIFIED],
        morale_auto_success_stacking=True,
    )
    three = _test(
        [],
        quality=Quality.RABBLE,
        auto_successes=list(AutoSuccess),
        morale_auto_success_stacking=True,
    )
    assert (two.dice_rolled, two.successes, two.result) == (1, 2, MoraleResult.RALLIED)
    assert (three.dice_rolled, three.successes, three.rolls) == (0, 3, ())


def test_shaky_is_one_automatic_failure_and_two_dice():
    """p.41: a Shaky Regular squad needs both of its two dice at 3+: (2/3)^2 = 4/9."""
    assert _rally_probability(Quality.REGULAR, 2, shaky=True) == Fraction(4, 9)
    outcome = _test([3, 1], quality=Quality.REGULAR, shaky=True)
    assert (outcome.auto_failures, outcome.successes) == (1, 1)


def test_shaky_leaves_room_for_at_most_two_automatic_successes():
    outcome = _test(
        [],
        quality=Quality.RABBLE,
        shaky=True,
        auto_successes=list(AutoSuccess),
        morale_auto_success_stacking=True,
    )
    assert (outcome.auto_successes, outcome.auto_failures, outcome.successes) == (2, 1, 2)


def test_an_officer_rerolls_failed_dice_up_to_his_leadership():
    """p.32: an Experienced officer (+1) re-rolls one failed die. Rabble 5+ rolls 1, 2, 6:
    the 1 is re-rolled to a 5, so two successes; the 2 stays."""
    outcome = _test([1, 2, 6, 5], quality=Quality.RABBLE, officer_leadership=1)
    assert outcome.attempts[0].faces == (5, 2, 6)
    assert outcome.attempts[0].rerolled == 1
    assert outcome.result is MoraleResult.RALLIED
    assert outcome.rolls[-1].purpose == "morale test: officer's re-roll"


def test_an_officer_rerolls_no_die_once_the_squad_has_rallied():
    """A Heroic officer (+3): Rabble 5+ rolls 6, 1, 2; the 1 re-rolled to a 5 rallies the
    squad, so the 2 is not re-rolled."""
    outcome = _test([6, 1, 2, 5], quality=Quality.RABBLE, officer_leadership=3)
    assert (outcome.attempts[0].faces, outcome.attempts[0].rerolled) == ((6, 5, 2), 1)
    assert _test([6, 6, 1], quality=Quality.RABBLE, officer_leadership=3).attempts[0].rerolled == 0


def test_a_failed_reroll_is_not_rerolled_again():
    outcome = _test([1, 5, 1, 1, 6], quality=Quality.RABBLE, officer_leadership=3)
    assert (outcome.attempts[0].faces, outcome.attempts[0].rerolled) == ((1, 5, 6), 2)
    hopeless = _test([1, 1, 1, 1, 1, 1], quality=Quality.RABBLE, officer_leadership=3)
    assert (hopeless.attempts[0].rerolled, hopeless.result) == (3, MoraleResult.REMOVED)


def test_officer_rerolls_raise_a_conscript_squads_chance_to_rally():
    """Conscript 4+ with an Inspiring officer (+2), worked out by hand: all three pass 1/8;
    one fails 3/8 (rallied, no re-roll); two fail 3/8, both re-rollable, one of two at 1/2 is
    enough: 3/4; three fail 1/8, two re-rolled, both needed: 1/4. In all 13/16."""
    expected = Fraction(1, 8) + Fraction(3, 8) * 1 + Fraction(3, 8) * Fraction(3, 4)
    expected += Fraction(1, 8) * Fraction(1, 4)
    assert expected == Fraction(13, 16)
    rallies = exact(
        lambda dice: morale_test(dice=dice, quality=Quality.CONSCRIPT, officer_leadership=2),
        lambda outcome: outcome.result is MoraleResult.RALLIED,
    )
    assert rallies == expected


def test_a_motivator_retakes_a_failed_test_and_the_second_stands():
    outcome = _test([1, 1, 1, 1, 2, 3], quality=Quality.CONSCRIPT, motivator=True)
    assert [a.faces for a in outcome.attempts] == [(1, 1, 1), (1, 2, 3)]
    assert (outcome.successes, outcome.result) == (0, MoraleResult.REMOVED)
    assert outcome.rolls[3].purpose == "morale test: Motivator's re-roll"
    passed = _test([4, 4, 1], quality=Quality.CONSCRIPT, motivator=True)
    assert len(passed.attempts) == 1
    assert passed.result is MoraleResult.RALLIED


def test_a_motivator_gives_a_rabble_squad_two_chances():
    """1 - (20/27)^2 = 329/729."""
    rallies = exact(
        lambda dice: morale_test(dice=dice, quality=Quality.RABBLE, motivator=True),
        lambda outcome: outcome.result is MoraleResult.RALLIED,
    )
    assert rallies == 1 - Fraction(20, 27) ** 2 == Fraction(329, 729)


def test_squad_leader_experience_per_die_by_default():
    """p.11: a Veteran leader's +1 on each die makes a Conscript squad roll as a Regular one;
    an Inexperienced leader's -1 as a Rabble one."""
    veteran = SquadLeaderExperience.VETERAN
    inexperienced = SquadLeaderExperience.INEXPERIENCED
    assert _rally_probability(Quality.CONSCRIPT, 3, leader_experience=veteran) == Fraction(20, 27)
    assert _rally_probability(Quality.CONSCRIPT, 3, leader_experience=inexperienced) == Fraction(
        7, 27
    )
    outcome = _test([3, 3, 1], quality=Quality.CONSCRIPT, leader_experience=veteran)
    assert (outcome.leader_modifier, outcome.successes) == (1, 2)


def test_squad_leader_experience_as_a_success_with_the_option():
    """Option morale_leader_modifier_mode = successes: a Veteran adds one success (one die at
    4+ of three then rallies: 1 - (1/2)^3 = 7/8), an Inexperienced leader takes one away."""
    mode = ModifierMode.SUCCESSES
    veteran = SquadLeaderExperience.VETERAN
    assert _rally_probability(
        Quality.CONSCRIPT, 3, leader_experience=veteran, morale_leader_modifier_mode=mode
    ) == Fraction(7, 8)
    down = _test(
        [1, 1, 1],
        quality=Quality.CONSCRIPT,
        leader_experience=SquadLeaderExperience.INEXPERIENCED,
        morale_leader_modifier_mode="successes",
    )
    assert (down.successes, down.result) == (0, MoraleResult.REMOVED)
    experienced = _test(
        [4, 1, 1], quality=Quality.CONSCRIPT, leader_experience=SquadLeaderExperience.EXPERIENCED
    )
    assert (experienced.leader_modifier, experienced.successes) == (0, 1)


def test_a_vehicle_crew_that_stays_broken_falls_back_or_bails_out_if_immobilised():
    mobile = _test([4, 1, 1], quality=Quality.CONSCRIPT, vehicle=True)
    stuck = _test([4, 1, 1], quality=Quality.CONSCRIPT, vehicle=True, immobilised=True)
    routed = _test([1, 1, 1], quality=Quality.CONSCRIPT, vehicle=True, immobilised=True)
    rallied = _test([4, 4, 1], quality=Quality.CONSCRIPT, vehicle=True, immobilised=True)
    assert (mobile.result, mobile.crew_bailed_out) == (MoraleResult.STAYS_BROKEN, False)
    assert (stuck.result, stuck.crew_bailed_out) == (MoraleResult.REMOVED, True)
    assert (routed.result, routed.crew_bailed_out) == (MoraleResult.REMOVED, False)
    assert rallied.result is MoraleResult.RALLIED


def test_an_immobilised_infantry_flag_changes_nothing():
    outcome = _test([4, 1, 1], quality=Quality.CONSCRIPT, immobilised=True)
    assert outcome.result is MoraleResult.STAYS_BROKEN


def test_a_negative_leadership_is_refused():
    with pytest.raises(RuleError):
        morale_test(dice=TableDice([]), quality=Quality.REGULAR, officer_leadership=-1)


@given(
    st.sampled_from(list(Quality)),
    st.lists(st.sampled_from(list(AutoSuccess)), max_size=3),
    st.booleans(),
    st.booleans(),
    st.lists(st.integers(1, 6), min_size=6, max_size=6),
)
def test_morale_successes_never_exceed_three_and_decide_the_result(
    quality, sources, shaky, stacking, faces
):
    dice = TableDice(faces)
    outcome = morale_test(
        dice=dice,
        quality=quality,
        auto_successes=sources,
        shaky=shaky,
        morale_auto_success_stacking=stacking,
    )
    assert 0 <= outcome.successes <= 3
    assert outcome.dice_rolled + outcome.auto_successes + outcome.auto_failures == 3
    assert len(outcome.rolls) == outcome.dice_rolled == dice.used
    expected = (
        MoraleResult.RALLIED
        if outcome.successes >= 2
        else MoraleResult.STAYS_BROKEN
        if outcome.successes == 1
        else MoraleResult.REMOVED
    )
    assert outcome.result is expected


# --- Losing Heart (p.14) --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "eliminated", "levels"),
    [(8, 3, 0), (8, 4, 1), (8, 5, 1), (8, 6, 2), (8, 8, 2), (5, 2, 0), (5, 3, 1), (5, 4, 2)],
)
def test_losing_heart_levels_at_half_and_three_quarters(size, eliminated, levels):
    assert losing_heart_levels(army_size=size, eliminated=eliminated) == levels


def test_an_army_cannot_lose_more_units_than_it_has():
    with pytest.raises(RuleError):
        losing_heart_levels(army_size=3, eliminated=4)


@pytest.mark.parametrize(
    ("resolve", "levels", "after"),
    [
        (Resolve.DETERMINED, 1, Resolve.STEADY),
        (Resolve.DETERMINED, 2, Resolve.UNCERTAIN),
        (Resolve.UNCERTAIN, 1, Resolve.RELUCTANT),
        (Resolve.UNCERTAIN, 2, None),
        (Resolve.RELUCTANT, 1, None),
        (Resolve.STEADY, 0, Resolve.STEADY),
    ],
)
def test_a_reluctant_unit_that_must_drop_is_eliminated(resolve, levels, after):
    assert resolve_after_losing_heart(resolve, levels) == after


def _army(*resolves: Resolve, eliminated: int) -> list[ArmyUnit]:
    return [
        ArmyUnit(unit_id=f"u{i}", resolve=r, eliminated=i < eliminated)
        for i, r in enumerate(resolves)
    ]


def test_an_army_that_lost_half_its_units_loses_a_level_of_resolve():
    army = _army(
        Resolve.STEADY, Resolve.STEADY, Resolve.DETERMINED, Resolve.RELUCTANT, eliminated=2
    )
    outcome = losing_heart(army=army)
    assert (outcome.army_size, outcome.eliminated, outcome.levels_due) == (4, 2, 1)
    assert outcome.new_levels == 1
    assert [(s.unit_id, s.before, s.after) for s in outcome.shifts] == [
        ("u2", Resolve.DETERMINED, Resolve.STEADY),
        ("u3", Resolve.RELUCTANT, None),
    ]
    assert outcome.shifts[1].eliminated
    assert not outcome.shifts[0].eliminated


def test_only_the_new_level_is_taken_at_three_quarters():
    army = _army(*[Resolve.STEADY] * 4, eliminated=3)
    outcome = losing_heart(army=army, levels_already_lost=1)
    assert (outcome.levels_due, outcome.new_levels) == (2, 1)
    assert [(s.before, s.after) for s in outcome.shifts] == [(Resolve.STEADY, Resolve.UNCERTAIN)]


def test_nothing_new_is_due_twice():
    outcome = losing_heart(army=_army(*[Resolve.STEADY] * 4, eliminated=2), levels_already_lost=1)
    assert (outcome.new_levels, outcome.shifts) == (0, ())


def test_hard_points_count_only_with_the_option():
    army = _army(*[Resolve.STEADY] * 3, eliminated=1)
    assert losing_heart(army=army).levels_due == 0
    with pytest.raises(RuleError) as error:
        losing_heart(army=army, hard_points=1, hard_points_destroyed=1)
    assert error.value.code == "losing_heart.hard_points_off"
    counted = losing_heart(
        army=army, hard_points=1, hard_points_destroyed=1, morale_losing_heart_hard_points=True
    )
    assert (counted.army_size, counted.eliminated, counted.levels_due) == (4, 2, 1)
    with pytest.raises(RuleError):
        losing_heart(
            army=army, hard_points=1, hard_points_destroyed=2, morale_losing_heart_hard_points=True
        )


# --- Command Response (p.25) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("marker", "within", "due"),
    [
        ("under_fire", None, True),
        ("pinned", 30, True),
        ("", 10, True),
        ("", 10.5, False),
        ("", None, False),
    ],
)
def test_command_response_is_due_when_marked_or_near_the_enemy(marker, within, due):
    assert command_response_due(marker=marker, enemy_within_inches=within) is due


@pytest.mark.parametrize("quality", list(Quality))
def test_command_response_passes_at_the_quality_level(quality):
    passes = [command_response(dice=TableDice([face]), quality=quality).passed for face in FACES]
    assert passes == [face >= quality.target_number for face in FACES]


def test_command_response_modifiers():
    """A Regular squad (3+) that took casualties last turn, has untreated wounded and lost its
    leader (-3) with an officer (+1): a 5 makes 3, a pass; a 4 makes 2, a fail."""
    kwargs: dict[str, Any] = {
        "quality": Quality.REGULAR,
        "took_casualties_last_turn": True,
        "untreated_wounded": True,
        "squad_leader_lost": True,
        "officer_present": True,
    }
    passed = command_response(dice=TableDice([5]), **kwargs)
    failed = command_response(dice=TableDice([4]), **kwargs)
    assert passed.modifiers == (
        ("took casualties last turn", -1),
        ("untreated wounded", -1),
        ("squad leader lost", -1),
        ("officer present", 1),
    )
    assert (passed.total, passed.passed, failed.total, failed.passed) == (3, True, 2, False)
    comms = command_response(dice=TableDice([1]), quality=Quality.ELITE, comms=True)
    assert (comms.modifiers, comms.total, comms.passed) == ((("comms", 1),), 2, True)


def test_the_hq_reroll_is_used_only_on_a_failure():
    dice = TableDice([2, 5])
    rerolled = command_response(dice=dice, quality=Quality.CONSCRIPT, reroll_available=True)
    dice.ensure_all_used()
    assert (rerolled.faces, rerolled.passed, rerolled.rerolled) == ((2, 5), True, True)
    assert rerolled.rolls[1].purpose == "command response: HQ re-roll"
    first = command_response(dice=TableDice([4]), quality=Quality.CONSCRIPT, reroll_available=True)
    assert (first.faces, first.rerolled) == ((4,), False)


def test_p_pass_a_conscript_with_the_hq_reroll_is_three_quarters():
    passes = 0
    for first, second in itertools.product(FACES, repeat=2):
        dice = TableDice([first, second])
        if command_response(dice=dice, quality=Quality.CONSCRIPT, reroll_available=True).passed:
            passes += 1
    assert Fraction(passes, 36) == Fraction(3, 4)


# --- Initiative (p.12) ----------------------------------------------------------------------------

SIDES = ("Federation", "Insurgents")


def test_the_highest_roll_goes_first():
    outcome = initiative(dice=TableDice([2, 5]), sides=SIDES)
    assert (outcome.first, outcome.by_tie) == ("Insurgents", False)
    assert [r.purpose for r in outcome.rolls] == [
        "initiative: Federation",
        "initiative: Insurgents",
    ]


def test_a_draw_goes_to_the_side_that_lost_last_turn():
    outcome = initiative(dice=TableDice([4, 4]), sides=SIDES, lost_last_turn="Federation")
    assert (outcome.first, outcome.by_tie, len(outcome.throws)) == ("Federation", True, 1)


def test_a_first_turn_draw_is_rolled_again():
    dice = TableDice([3, 3, 6, 1])
    outcome = initiative(dice=dice, sides=SIDES)
    dice.ensure_all_used()
    assert (outcome.first, outcome.by_tie, len(outcome.throws)) == ("Federation", False, 2)


def test_improved_intel_adds_one_until_a_natural_one():
    """p.11: +1 turns a 4 against a 4 into a win; the natural 1 ends the bonus at once."""
    won = initiative(dice=TableDice([4, 4]), sides=SIDES, improved_intel=["Insurgents"])
    assert (won.first, won.throws[0][1].total, won.throws[0][1].bonus) == ("Insurgents", 5, 1)
    lost = initiative(dice=TableDice([1, 1, 2, 1]), sides=SIDES, improved_intel=["Federation"])
    assert lost.throws[0][0].intel_lost
    assert lost.throws[0][0].total == 1
    assert lost.throws[1][0].bonus == 0
    assert lost.first == "Federation"


def test_p_first_with_improved_intel_on_the_first_turn():
    """A d6+1 (a natural 1 adds nothing and ends the bonus) against a d6, first-turn draws
    rolled again. Of the 36 pairs the intel side wins 20 (face f of 2-6 beats f others; a 1
    none) and loses 11 (3+2+1 with f of 2-4, 5 with a 1); 5 are draws. Rolled again until
    decided, and with the bonus gone after a natural 1 (then even, 1/2): 20/36 won outright,
    4/36 draws at +1 replayed, 1/36 a draw of ones replayed at evens:
    P = 20/36 + 4/36 P + 1/36 x 1/2, so P = (20 + 1/2) / 32 = 41/64."""
    won = lost = 0
    draws: list[tuple[int, int]] = []
    for federation, insurgents in itertools.product(FACES, repeat=2):
        try:
            outcome = initiative(
                dice=TableDice([federation, insurgents]),
                sides=SIDES,
                improved_intel=["Insurgents"],
            )
        except DiceError:  # a first-turn draw: both roll again
            draws.append((federation, insurgents))
            continue
        won += outcome.first == "Insurgents"
        lost += outcome.first == "Federation"
    assert (won, lost) == (20, 11)
    assert draws == [(1, 1), (3, 2), (4, 3), (5, 4), (6, 5)]
    # The draw of ones ends the bonus: the throws after it are even.
    after_ones = initiative(
        dice=TableDice([1, 1, 4, 4, 2, 1]), sides=SIDES, improved_intel=["Insurgents"]
    )
    assert [t.bonus for throw in after_ones.throws for t in throw] == [0, 0, 0, 0, 0, 0]
    p = (Fraction(won, 36) + Fraction(1, 36) * Fraction(1, 2)) / (1 - Fraction(4, 36))
    assert p == Fraction(41, 64)


def test_initiative_refuses_odd_sides():
    with pytest.raises(RuleError):
        initiative(dice=TableDice([]), sides=("A", "A"))
    with pytest.raises(RuleError):
        initiative(dice=TableDice([]), sides=SIDES, lost_last_turn="Martians")


@pytest.mark.parametrize(
    ("mode", "resolve", "quality", "expected"),
    [
        (
            "resolve_plus_one",
            Resolve.STEADY,
            Quality.REGULAR,
            (Resolve.DETERMINED, Quality.REGULAR),
        ),
        (
            "resolve_plus_one",
            Resolve.DETERMINED,
            Quality.REGULAR,
            (Resolve.DETERMINED, Quality.REGULAR),
        ),
        ("quality_plus_one", Resolve.STEADY, Quality.REGULAR, (Resolve.STEADY, Quality.ELITE)),
        ("quality_plus_one", Resolve.STEADY, Quality.ELITE, (Resolve.STEADY, Quality.ELITE)),
    ],
)
def test_grizzled_improves_resolve_or_quality_by_the_option_p40(mode, resolve, quality, expected):
    assert grizzled(resolve, quality, traits_grizzled_mode=GrizzledMode(mode)) == expected
