from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import DiceError, Die, SeededDice, TableDice
from rules.fad.replacements import (
    InfantryReplacementRow,
    NewSquad,
    PostBattleStep,
    UnitStrength,
    VehicleCondition,
    VehicleFate,
    assign_reinforcements,
    infantry_replacements,
    losses_for_replacement,
    post_battle_step_order,
    quality_loss,
    reinforcement_pool,
    resolve_change,
    vehicle_replacement,
)
from rules.fad.scales import Quality, Resolve

FACES = range(1, 7)


# --- step order ---------------------------------------------------------------------------------


def test_points_are_spent_before_the_reinforcement_pool_is_rolled_by_default() -> None:
    assert post_battle_step_order() == (
        PostBattleStep.INFANTRY_REPLACEMENTS,
        PostBattleStep.VEHICLE_REPLACEMENTS,
        PostBattleStep.QUALITY_LOSS,
        PostBattleStep.RESOLVE_LOSS,
        PostBattleStep.EXPERIENCE,
        PostBattleStep.REINFORCEMENTS,
    )


def test_as_printed_order_rolls_reinforcements_before_experience() -> None:
    order = post_battle_step_order(campaign_step_order="as_printed")
    assert order[-2:] == (PostBattleStep.REINFORCEMENTS, PostBattleStep.EXPERIENCE)


def test_unknown_step_order_is_refused() -> None:
    with pytest.raises(ValueError, match="campaign_step_order"):
        post_battle_step_order(campaign_step_order="random")


# --- losses of a routed unit ------------------------------------------------------------------


def test_a_routed_unit_counts_only_its_casualties_by_default() -> None:
    assert (
        losses_for_replacement(casualties=3, strength_at_battle_start=8, routed_or_surrendered=True)
        == 3
    )


def test_a_routed_unit_can_count_as_eliminated() -> None:
    kwargs: dict[str, Any] = {"casualties": 3, "strength_at_battle_start": 8}
    fate = "counts_as_eliminated"
    assert losses_for_replacement(**kwargs, campaign_routed_unit_fate=fate) == 3
    assert (
        losses_for_replacement(**kwargs, routed_or_surrendered=True, campaign_routed_unit_fate=fate)
        == 8
    )


def test_more_casualties_than_figures_is_refused() -> None:
    with pytest.raises(ValueError, match="more than"):
        losses_for_replacement(casualties=9, strength_at_battle_start=8)


def test_unknown_routed_unit_fate_is_refused() -> None:
    with pytest.raises(ValueError, match="campaign_routed_unit_fate"):
        losses_for_replacement(
            casualties=1, strength_at_battle_start=8, campaign_routed_unit_fate="lost"
        )


# --- infantry replacements, p.66 ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "row", "replaced"),
    [
        (1, InfantryReplacementRow.NONE, 0),
        (2, InfantryReplacementRow.NONE, 0),
        (3, InfantryReplacementRow.HALF, 3),
        (4, InfantryReplacementRow.HALF, 3),
        (5, InfantryReplacementRow.FULL, 5),
        (6, InfantryReplacementRow.FULL, 5),
    ],
)
def test_infantry_replacement_table_rows_for_five_losses(
    face: int, row: InfantryReplacementRow, replaced: int
) -> None:
    outcome = infantry_replacements(dice=TableDice([face]), losses=5)
    assert (outcome.row, outcome.replaced, outcome.losses) == (row, replaced, 5)
    assert [roll.result for roll in outcome.rolls] == [face]
    assert outcome.rolls[0].die is Die.D6


@pytest.mark.parametrize(("losses", "half"), [(1, 1), (2, 1), (3, 2), (4, 2), (7, 4), (10, 5)])
def test_half_the_losses_are_replaced_rounded_up(losses: int, half: int) -> None:
    assert infantry_replacements(dice=TableDice([3]), losses=losses).replaced == half


def test_an_eliminated_unit_rolls_too_and_can_return_to_full_strength() -> None:
    assert infantry_replacements(dice=TableDice([6]), losses=8).replaced == 8


def test_a_lone_figure_is_not_returned_on_half_replacements() -> None:
    outcome = infantry_replacements(dice=TableDice([4]), losses=1, lone_figure=True)
    assert (outcome.row, outcome.replaced) == (InfantryReplacementRow.HALF, 0)


def test_a_lone_figure_returns_on_full_strength() -> None:
    assert infantry_replacements(dice=TableDice([5]), losses=1, lone_figure=True).replaced == 1


def test_a_unit_without_losses_does_not_roll() -> None:
    dice = TableDice([])
    outcome = infantry_replacements(dice=dice, losses=0)
    assert (outcome.row, outcome.replaced, outcome.rolls) == (None, 0, ())
    assert dice.used == 0


@pytest.mark.parametrize("losses", [-1, 1.5, True])
def test_infantry_replacements_refuse_bad_losses(losses: object) -> None:
    with pytest.raises(ValueError, match=r"whole number|lone figure"):
        infantry_replacements(dice=TableDice([3]), losses=losses)  # type: ignore[arg-type]


def test_a_lone_figure_cannot_lose_more_than_itself() -> None:
    with pytest.raises(ValueError, match="lone figure"):
        infantry_replacements(dice=TableDice([3]), losses=2, lone_figure=True)


def test_infantry_replacement_probabilities_by_enumeration() -> None:
    counts = Counter(infantry_replacements(dice=TableDice([face]), losses=6).row for face in FACES)
    assert {row: Fraction(n, 6) for row, n in counts.items()} == {
        InfantryReplacementRow.NONE: Fraction(1, 3),
        InfantryReplacementRow.HALF: Fraction(1, 3),
        InfantryReplacementRow.FULL: Fraction(1, 3),
    }


@given(st.integers(min_value=1, max_value=30), st.sampled_from(list(FACES)))
def test_replacements_never_exceed_losses(losses: int, face: int) -> None:
    replaced = infantry_replacements(dice=TableDice([face]), losses=losses).replaced
    assert 0 <= replaced <= losses


# --- vehicle replacements, p.66 ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "condition", "fate", "after"),
    [
        (1, VehicleCondition.DAMAGED, VehicleFate.NOT_REPAIRED, VehicleCondition.DAMAGED),
        (2, VehicleCondition.DAMAGED, VehicleFate.NOT_REPAIRED, VehicleCondition.DAMAGED),
        (3, VehicleCondition.DAMAGED, VehicleFate.REPAIRED, VehicleCondition.OPERATIONAL),
        (4, VehicleCondition.DAMAGED, VehicleFate.REPAIRED, VehicleCondition.OPERATIONAL),
        (5, VehicleCondition.DAMAGED, VehicleFate.REPAIRED, VehicleCondition.OPERATIONAL),
        (6, VehicleCondition.DAMAGED, VehicleFate.REPAIRED, VehicleCondition.OPERATIONAL),
        (1, VehicleCondition.DESTROYED, VehicleFate.NOT_REPLACED, VehicleCondition.DESTROYED),
        (2, VehicleCondition.DESTROYED, VehicleFate.NOT_REPLACED, VehicleCondition.DESTROYED),
        (3, VehicleCondition.DESTROYED, VehicleFate.NOT_REPLACED, VehicleCondition.DESTROYED),
        (4, VehicleCondition.DESTROYED, VehicleFate.NOT_REPLACED, VehicleCondition.DESTROYED),
        (5, VehicleCondition.DESTROYED, VehicleFate.REPLACED, VehicleCondition.OPERATIONAL),
        (6, VehicleCondition.DESTROYED, VehicleFate.REPLACED, VehicleCondition.OPERATIONAL),
    ],
)
def test_vehicle_replacement_table_every_row(
    face: int, condition: VehicleCondition, fate: VehicleFate, after: VehicleCondition
) -> None:
    outcome = vehicle_replacement(dice=TableDice([face]), condition=condition)
    assert (outcome.before, outcome.fate, outcome.after) == (condition, fate, after)
    assert [roll.result for roll in outcome.rolls] == [face]


def test_an_operational_vehicle_does_not_roll_for_replacement() -> None:
    with pytest.raises(ValueError, match="damaged or destroyed"):
        vehicle_replacement(dice=TableDice([6]), condition=VehicleCondition.OPERATIONAL)


@pytest.mark.parametrize(
    ("fate", "face", "outcome"),
    [
        ("damaged", 3, VehicleFate.REPAIRED),
        ("destroyed", 3, VehicleFate.NOT_REPLACED),
        ("destroyed", 5, VehicleFate.REPLACED),
    ],
)
def test_an_abandoned_vehicle_rolls_as_the_option_says(
    fate: str, face: int, outcome: VehicleFate
) -> None:
    result = vehicle_replacement(
        dice=TableDice([face]),
        condition=VehicleCondition.ABANDONED,
        campaign_abandoned_vehicle_fate=fate,
    )
    assert result.fate is outcome
    assert result.before is VehicleCondition(fate)


def test_an_abandoned_vehicle_rolls_as_damaged_by_default() -> None:
    result = vehicle_replacement(dice=TableDice([4]), condition=VehicleCondition.ABANDONED)
    assert result.after is VehicleCondition.OPERATIONAL


def test_unknown_abandoned_vehicle_fate_is_refused() -> None:
    with pytest.raises(ValueError, match="campaign_abandoned_vehicle_fate"):
        vehicle_replacement(
            dice=TableDice([4]),
            condition=VehicleCondition.ABANDONED,
            campaign_abandoned_vehicle_fate="lost",
        )


def test_vehicle_back_in_service_probabilities_by_enumeration() -> None:
    for condition, expected in (
        (VehicleCondition.DAMAGED, Fraction(2, 3)),
        (VehicleCondition.DESTROYED, Fraction(1, 3)),
    ):
        back = sum(
            vehicle_replacement(dice=TableDice([face]), condition=condition).after
            is VehicleCondition.OPERATIONAL
            for face in FACES
        )
        assert Fraction(back, 6) == expected


# --- quality loss, p.66 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "after"),
    [
        (1, Quality.CONSCRIPT),
        (2, Quality.CONSCRIPT),
        (3, Quality.REGULAR),
        (4, Quality.REGULAR),
        (5, Quality.REGULAR),
        (6, Quality.REGULAR),
    ],
)
def test_quality_loss_table_every_row(face: int, after: Quality) -> None:
    outcome = quality_loss(
        dice=TableDice([face]),
        quality=Quality.REGULAR,
        replacements_received=4,
        initial_strength=8,
    )
    assert (outcome.before, outcome.after, outcome.rolled) == (Quality.REGULAR, after, True)
    assert [roll.result for roll in outcome.rolls] == [face]


def test_fewer_than_half_strength_in_replacements_does_not_roll() -> None:
    dice = TableDice([])
    outcome = quality_loss(
        dice=dice, quality=Quality.ELITE, replacements_received=3, initial_strength=8
    )
    assert (outcome.after, outcome.rolled, outcome.rolls) == (Quality.ELITE, False, ())


def test_half_of_an_odd_strength_needs_the_rounded_up_half() -> None:
    # "at least half of their strength": 3 of 7 is less than half, 4 of 7 is more.
    assert not quality_loss(
        dice=TableDice([]), quality=Quality.REGULAR, replacements_received=3, initial_strength=7
    ).rolled
    assert quality_loss(
        dice=TableDice([1]), quality=Quality.REGULAR, replacements_received=4, initial_strength=7
    ).rolled


def test_rabble_cannot_drop_so_it_does_not_roll() -> None:
    outcome = quality_loss(
        dice=TableDice([]), quality=Quality.RABBLE, replacements_received=8, initial_strength=8
    )
    assert (outcome.after, outcome.rolled) == (Quality.RABBLE, False)


@pytest.mark.parametrize("face", range(1, 7))
def test_a_rabble_units_die_rolled_as_the_book_says_is_recorded_as_moot(face: int) -> None:
    outcome = quality_loss(
        dice=TableDice([face], moot=True),
        quality=Quality.RABBLE,
        replacements_received=4,
        initial_strength=8,
    )
    assert (outcome.after, outcome.rolled) == (Quality.RABBLE, False)
    assert [(r.result, r.moot) for r in outcome.rolls] == [(face, True)]


def test_elite_drops_to_regular() -> None:
    outcome = quality_loss(
        dice=TableDice([2]), quality=Quality.ELITE, replacements_received=5, initial_strength=10
    )
    assert outcome.after is Quality.REGULAR


def test_half_strength_can_be_measured_against_the_survivors() -> None:
    kwargs: dict[str, Any] = {
        "quality": Quality.REGULAR,
        "replacements_received": 3,
        "initial_strength": 10,
    }
    assert not quality_loss(dice=TableDice([]), **kwargs).rolled
    assert quality_loss(
        dice=TableDice([1]),
        strength_after_battle=6,
        campaign_half_strength_basis="strength_after_battle",
        **kwargs,
    ).rolled


def test_survivor_basis_needs_the_strength_after_the_battle() -> None:
    with pytest.raises(ValueError, match="after the battle"):
        quality_loss(
            dice=TableDice([1]),
            quality=Quality.REGULAR,
            replacements_received=3,
            initial_strength=10,
            campaign_half_strength_basis="strength_after_battle",
        )


def test_unknown_half_strength_basis_is_refused() -> None:
    with pytest.raises(ValueError, match="campaign_half_strength_basis"):
        quality_loss(
            dice=TableDice([1]),
            quality=Quality.REGULAR,
            replacements_received=3,
            initial_strength=10,
            campaign_half_strength_basis="current",
        )


def test_reinforcements_count_toward_quality_loss_only_with_the_option() -> None:
    kwargs: dict[str, Any] = {
        "quality": Quality.REGULAR,
        "replacements_received": 2,
        "reinforcements_received": 2,
        "initial_strength": 8,
    }
    assert not quality_loss(dice=TableDice([]), **kwargs).rolled
    assert quality_loss(
        dice=TableDice([1]), campaign_quality_loss_counts_reinforcements=True, **kwargs
    ).rolled


def test_vehicles_roll_quality_loss_only_with_the_option() -> None:
    kwargs: dict[str, Any] = {
        "quality": Quality.REGULAR,
        "replacements_received": 1,
        "initial_strength": 1,
        "is_vehicle": True,
    }
    assert not quality_loss(dice=TableDice([]), **kwargs).rolled
    assert (
        quality_loss(dice=TableDice([2]), campaign_quality_loss_vehicles=True, **kwargs).after
        is Quality.CONSCRIPT
    )


@pytest.mark.parametrize(("replacements", "strength"), [(-1, 8), (2, 0), (True, 8)])
def test_quality_loss_refuses_bad_counts(replacements: object, strength: int) -> None:
    with pytest.raises(ValueError, match=r"whole number|from 1 up"):
        quality_loss(
            dice=TableDice([1]),
            quality=Quality.REGULAR,
            replacements_received=replacements,  # type: ignore[arg-type]
            initial_strength=strength,
        )


def test_quality_loss_probability_by_enumeration() -> None:
    drops = sum(
        quality_loss(
            dice=TableDice([face]),
            quality=Quality.CONSCRIPT,
            replacements_received=5,
            initial_strength=10,
        ).after
        is Quality.RABBLE
        for face in FACES
    )
    assert Fraction(drops, 6) == Fraction(1, 3)


@given(
    st.sampled_from(list(Quality)),
    st.integers(min_value=0, max_value=20),
    st.integers(min_value=1, max_value=20),
    st.binary(min_size=1, max_size=8),
)
def test_quality_loss_never_leaves_rabble_to_elite_and_drops_at_most_one(
    quality: Quality, replacements: int, strength: int, seed: bytes
) -> None:
    outcome = quality_loss(
        dice=SeededDice(seed, "quality"),
        quality=quality,
        replacements_received=replacements,
        initial_strength=strength,
    )
    assert Quality.RABBLE <= outcome.after <= outcome.before <= Quality.ELITE
    assert outcome.before - outcome.after <= 1
    assert len(outcome.rolls) == int(outcome.rolled)


# --- resolve loss, p.66 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "after"),
    [
        (1, Resolve.UNCERTAIN),
        (2, Resolve.UNCERTAIN),
        (3, Resolve.STEADY),
        (4, Resolve.STEADY),
        (5, Resolve.DETERMINED),
        (6, Resolve.DETERMINED),
    ],
)
def test_resolve_loss_table_every_row(face: int, after: Resolve) -> None:
    outcome = resolve_change(dice=TableDice([face]), resolve=Resolve.STEADY, suffered_losses=True)
    assert (outcome.before, outcome.after, outcome.rolled) == (Resolve.STEADY, after, True)
    assert [roll.result for roll in outcome.rolls] == [face]


def test_resolve_never_drops_below_reluctant() -> None:
    outcome = resolve_change(dice=TableDice([1]), resolve=Resolve.RELUCTANT, suffered_losses=True)
    assert outcome.after is Resolve.RELUCTANT


def test_determined_stays_determined_on_an_improvement() -> None:
    outcome = resolve_change(dice=TableDice([6]), resolve=Resolve.DETERMINED, suffered_losses=True)
    assert outcome.after is Resolve.DETERMINED


def test_a_unit_without_losses_does_not_roll_for_resolve() -> None:
    outcome = resolve_change(dice=TableDice([]), resolve=Resolve.STEADY, suffered_losses=False)
    assert (outcome.after, outcome.rolled, outcome.rolls) == (Resolve.STEADY, False, ())


def test_a_locked_resolve_unit_skips_the_roll_by_default() -> None:
    outcome = resolve_change(
        dice=TableDice([]), resolve=Resolve.STEADY, suffered_losses=True, resolve_locked=True
    )
    assert (outcome.after, outcome.rolled) == (Resolve.STEADY, False)


def test_a_locked_resolve_unit_rolls_when_the_option_is_off() -> None:
    outcome = resolve_change(
        dice=TableDice([1]),
        resolve=Resolve.STEADY,
        suffered_losses=True,
        resolve_locked=True,
        campaign_locked_resolve_skips_roll=False,
    )
    assert outcome.after is Resolve.UNCERTAIN


def test_resolve_change_probabilities_by_enumeration() -> None:
    counts = Counter(
        resolve_change(
            dice=TableDice([face]), resolve=Resolve.UNCERTAIN, suffered_losses=True
        ).after
        for face in FACES
    )
    assert {level: Fraction(n, 6) for level, n in counts.items()} == {
        Resolve.RELUCTANT: Fraction(1, 3),
        Resolve.UNCERTAIN: Fraction(1, 3),
        Resolve.STEADY: Fraction(1, 3),
    }


@given(st.sampled_from(list(Resolve)), st.booleans(), st.binary(min_size=1, max_size=8))
def test_resolve_stays_in_range_and_moves_at_most_one_level(
    resolve: Resolve, losses: bool, seed: bytes
) -> None:
    outcome = resolve_change(
        dice=SeededDice(seed, "resolve"), resolve=resolve, suffered_losses=losses
    )
    assert Resolve.RELUCTANT <= outcome.after <= Resolve.DETERMINED
    assert abs(outcome.after - outcome.before) <= 1


# --- reinforcements, p.66 ----------------------------------------------------------------------


def test_reinforcements_are_two_dice_added() -> None:
    pool = reinforcement_pool(dice=TableDice([4, 5]))
    assert pool.troopers == 9
    assert [roll.result for roll in pool.rolls] == [4, 5]
    assert all(roll.die is Die.D6 for roll in pool.rolls)


def test_each_bought_die_adds_one_more_d6() -> None:
    assert reinforcement_pool(dice=TableDice([1, 2, 6, 3]), extra_dice=2).troopers == 12


def test_reinforcements_roll_no_more_dice_than_the_pool_needs() -> None:
    dice = TableDice([1, 1, 1])
    reinforcement_pool(dice=dice)
    with pytest.raises(DiceError):
        dice.ensure_all_used()


@pytest.mark.parametrize("extra", [-1, True, 1.0])
def test_reinforcement_pool_refuses_bad_extra_dice(extra: object) -> None:
    with pytest.raises(ValueError, match="whole number"):
        reinforcement_pool(dice=TableDice([1, 1]), extra_dice=extra)  # type: ignore[arg-type]


def test_two_d6_reinforcement_distribution_by_enumeration() -> None:
    counts = Counter(
        reinforcement_pool(dice=TableDice(list(faces))).troopers
        for faces in itertools.product(FACES, repeat=2)
    )
    distribution = {total: Fraction(n, 36) for total, n in counts.items()}
    assert distribution == {
        2: Fraction(1, 36),
        3: Fraction(2, 36),
        4: Fraction(3, 36),
        5: Fraction(4, 36),
        6: Fraction(5, 36),
        7: Fraction(6, 36),
        8: Fraction(5, 36),
        9: Fraction(4, 36),
        10: Fraction(3, 36),
        11: Fraction(2, 36),
        12: Fraction(1, 36),
    }


def test_chance_of_enough_reinforcements_for_a_new_squad() -> None:
    enough = sum(
        reinforcement_pool(dice=TableDice(list(faces))).troopers >= 5
        for faces in itertools.product(FACES, repeat=2)
    )
    assert Fraction(enough, 36) == Fraction(5, 6)


@given(st.integers(min_value=0, max_value=6), st.binary(min_size=1, max_size=8))
def test_pool_lies_between_one_and_six_per_die(extra: int, seed: bytes) -> None:
    pool = reinforcement_pool(dice=SeededDice(seed, "reinforcements"), extra_dice=extra)
    assert len(pool.rolls) == 2 + extra
    assert 2 + extra <= pool.troopers <= 6 * (2 + extra)


# --- assigning reinforcements and the new squad, p.66 -----------------------------------------

SQUADS = (
    UnitStrength(unit_id="alpha", strength=5, initial_strength=8),
    UnitStrength(unit_id="bravo", strength=8, initial_strength=8),
)


def test_reinforcements_fill_units_up_to_their_initial_strength() -> None:
    outcome = assign_reinforcements(pool=7, units=SQUADS, assignment={"alpha": 3})
    assert outcome.units == (
        UnitStrength(unit_id="alpha", strength=8, initial_strength=8),
        SQUADS[1],
    )
    assert (outcome.new_squad, outcome.unused) == (None, 4)


def test_no_unit_may_be_raised_above_its_initial_strength() -> None:
    with pytest.raises(ValueError, match="initial"):
        assign_reinforcements(pool=7, units=SQUADS, assignment={"alpha": 4})


def test_assigning_more_than_the_pool_is_refused() -> None:
    with pytest.raises(ValueError, match="pool"):
        assign_reinforcements(pool=2, units=SQUADS, assignment={"alpha": 3})


def test_assigning_to_an_unknown_unit_is_refused() -> None:
    with pytest.raises(ValueError, match="charlie"):
        assign_reinforcements(pool=7, units=SQUADS, assignment={"charlie": 1})


def test_assigning_a_negative_number_is_refused() -> None:
    with pytest.raises(ValueError, match="whole number"):
        assign_reinforcements(pool=7, units=SQUADS, assignment={"alpha": -1})


def test_a_unit_listed_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="once"):
        assign_reinforcements(pool=7, units=(SQUADS[0], SQUADS[0]), assignment={})


@pytest.mark.parametrize("size", [5, 6, 7, 8])
def test_a_new_squad_of_five_to_eight_is_conscript_and_uncertain(size: int) -> None:
    outcome = assign_reinforcements(
        pool=11, units=SQUADS, assignment={"alpha": 3}, new_squad_size=size
    )
    assert outcome.new_squad == NewSquad(
        size=size,
        quality=Quality.CONSCRIPT,
        resolve=Resolve.UNCERTAIN,
        squad_leader_experience="inexperienced",
    )
    assert outcome.unused == 11 - 3 - size


@pytest.mark.parametrize("size", [1, 4, 9, -1])
def test_a_new_squad_outside_five_to_eight_is_refused(size: int) -> None:
    with pytest.raises(ValueError, match=r"new squad takes|whole number"):
        assign_reinforcements(pool=12, units=SQUADS, assignment={}, new_squad_size=size)


def test_the_new_squad_leader_experience_follows_the_option() -> None:
    outcome = assign_reinforcements(
        pool=6,
        units=(),
        assignment={},
        new_squad_size=6,
        leaders_replacement_experience="veteran",
    )
    assert outcome.new_squad is not None
    assert outcome.new_squad.squad_leader_experience == "veteran"


def test_unknown_squad_leader_experience_is_refused() -> None:
    with pytest.raises(ValueError, match="leaders_replacement_experience"):
        assign_reinforcements(
            pool=6, units=(), assignment={}, leaders_replacement_experience="heroic"
        )


def test_the_new_squad_and_the_units_share_one_pool() -> None:
    with pytest.raises(ValueError, match="pool"):
        assign_reinforcements(pool=7, units=SQUADS, assignment={"alpha": 3}, new_squad_size=5)


@pytest.mark.parametrize(("strength", "initial"), [(-1, 8), (3, 0), (9, 8)])
def test_unit_strength_refuses_impossible_strengths(strength: int, initial: int) -> None:
    with pytest.raises(ValueError, match=r"whole number|more than its initial"):
        UnitStrength(unit_id="x", strength=strength, initial_strength=initial)


@given(
    st.lists(st.tuples(st.integers(0, 10), st.integers(1, 10)), max_size=5),
    st.integers(0, 24),
    st.data(),
)
def test_assignment_never_exceeds_caps_or_pool(
    raw: list[tuple[int, int]], pool: int, data: st.DataObject
) -> None:
    units = tuple(
        UnitStrength(unit_id=f"u{i}", strength=min(s, cap), initial_strength=cap)
        for i, (s, cap) in enumerate(raw)
    )
    assignment = {unit.unit_id: data.draw(st.integers(0, 6)) for unit in units}
    try:
        outcome = assign_reinforcements(pool=pool, units=units, assignment=assignment)
    except ValueError:
        return
    assert outcome.unused >= 0
    for unit in outcome.units:
        assert unit.strength <= unit.initial_strength
    assert (
        sum(u.strength for u in outcome.units) - sum(u.strength for u in units) + outcome.unused
        == pool
    )
