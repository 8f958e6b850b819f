"""Shared campaign rules: field times and the between-battle order (SG2 P.60-61)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.sg2.campaign import (
    BETWEEN_BATTLE_ORDER,
    BOOK_ORDER_CONSTRAINTS,
    DEFAULT_FIELD_DOUBLING,
    BetweenBattleStep,
    CampaignRuleError,
    DoubledTime,
    Location,
    check_between_battle_order,
    readiness_for_battle,
    require_count,
    time_multiplier,
)
from rules.sg2.options import UnsuppliedEffect
from rules.sg2.scales import Confidence, Fatigue


@pytest.mark.parametrize(
    ("location", "supplied", "multiplier"),
    [
        (Location.SAFE_AREA, True, 1),
        (Location.REAR_AREA, True, 1),
        (Location.FIELD, True, 2),
        (Location.SAFE_AREA, False, 2),
        (Location.REAR_AREA, False, 2),
        (Location.FIELD, False, 2),
    ],
)
def test_times_double_in_the_field_or_short_of_supplies_p61(
    location: Location, supplied: bool, multiplier: int
) -> None:
    for task in (DoubledTime.FATIGUE, DoubledTime.REPAIR, DoubledTime.INJURED_RETURN):
        assert time_multiplier(task=task, location=location, supplied=supplied) == multiplier


def test_the_replacement_day_doubles_too_unless_the_umpire_leaves_it_out() -> None:
    """P.61: "DOUBLE all times given", the replacements' day included (the book, not the
    digest's AMBIG-25 default, which left it out)."""
    assert sorted(DEFAULT_FIELD_DOUBLING) == ["fatigue", "injured_return", "repair", "replacements"]
    doubled = time_multiplier(
        task=DoubledTime.REPLACEMENTS, location=Location.SAFE_AREA, supplied=False
    )
    left_out = time_multiplier(
        task=DoubledTime.REPLACEMENTS,
        location=Location.SAFE_AREA,
        supplied=False,
        field_doubling_applies_to=("fatigue", "repair", "injured_return"),
    )
    supplied = time_multiplier(
        task=DoubledTime.REPLACEMENTS, location=Location.SAFE_AREA, supplied=True
    )
    assert (doubled, left_out, supplied) == (2, 1, 1)


def test_a_task_left_out_of_the_doubling_is_not_doubled() -> None:
    multiplier = time_multiplier(
        task=DoubledTime.REPAIR,
        location=Location.FIELD,
        supplied=True,
        field_doubling_applies_to={"fatigue"},
    )
    assert multiplier == 1


def test_the_field_multiplier_is_an_option() -> None:
    multiplier = time_multiplier(
        task=DoubledTime.FATIGUE, location=Location.FIELD, supplied=True, field_time_multiplier=3
    )
    assert multiplier == 3


@pytest.mark.parametrize("value", [0, -1, True, 2.0])
def test_a_bad_field_multiplier_is_refused(value: object) -> None:
    with pytest.raises(ValueError, match="field time multiplier"):
        time_multiplier(
            task=DoubledTime.FATIGUE,
            location=Location.FIELD,
            supplied=True,
            field_time_multiplier=value,  # type: ignore[arg-type]  # the wrong type on purpose
        )


def test_an_unknown_doubled_time_is_refused() -> None:
    with pytest.raises(ValueError, match="lunch"):
        time_multiplier(
            task=DoubledTime.FATIGUE,
            location=Location.FIELD,
            supplied=True,
            field_doubling_applies_to=["lunch", "fatigue"],
        )


def test_only_the_field_is_unsafe() -> None:
    assert [location.is_safe for location in Location] == [False, True, True]


def test_counts_must_be_whole_numbers() -> None:
    assert require_count("Days", 3) == 3
    with pytest.raises(ValueError, match="Days must be a whole number"):
        require_count("Days", "3")  # type: ignore[arg-type]  # the wrong type on purpose
    with pytest.raises(ValueError, match="at least 2"):
        require_count("Days", 1, minimum=2)


def test_the_suggested_order_puts_quality_rises_before_replacements_p60() -> None:
    order = list(BETWEEN_BATTLE_ORDER)
    assert order.index(BetweenBattleStep.QUALITY_RISE) < order.index(BetweenBattleStep.REPLACEMENTS)
    assert check_between_battle_order(BETWEEN_BATTLE_ORDER) == BETWEEN_BATTLE_ORDER
    assert set(BETWEEN_BATTLE_ORDER) == set(BetweenBattleStep)
    assert BOOK_ORDER_CONSTRAINTS == (
        (BetweenBattleStep.QUALITY_RISE, BetweenBattleStep.REPLACEMENTS),
    )


def test_the_suggested_order_follows_the_digest() -> None:
    assert [step.value for step in BETWEEN_BATTLE_ORDER] == [
        "after_action",
        "quality_points",
        "fatigue_drop",
        "exhausted_withdrawal_test",
        "injured_recovery",
        "quality_rise",
        "replacements",
        "rest_and_repair",
    ]


def test_replacements_before_quality_rises_are_refused_p60() -> None:
    with pytest.raises(CampaignRuleError) as raised:
        check_between_battle_order(["replacements", "quality_rise"])
    assert raised.value.code == "campaign.order"


def test_other_steps_may_be_reordered_or_left_out() -> None:
    order = check_between_battle_order(["injured_recovery", "fatigue_drop", "replacements"])
    assert order == (
        BetweenBattleStep.INJURED_RECOVERY,
        BetweenBattleStep.FATIGUE_DROP,
        BetweenBattleStep.REPLACEMENTS,
    )


def test_unknown_and_repeated_steps_are_refused() -> None:
    with pytest.raises(CampaignRuleError) as unknown:
        check_between_battle_order(["parade"])
    assert unknown.value.code == "campaign.unknown_step"
    with pytest.raises(CampaignRuleError) as repeated:
        check_between_battle_order(["fatigue_drop", "fatigue_drop"])
    assert repeated.value.code == "campaign.repeated_step"


@given(st.permutations(list(BetweenBattleStep)))
def test_any_order_is_accepted_exactly_when_rises_precede_replacements(
    order: list[BetweenBattleStep],
) -> None:
    book_order = order.index(BetweenBattleStep.QUALITY_RISE) < order.index(
        BetweenBattleStep.REPLACEMENTS
    )
    if book_order:
        assert check_between_battle_order(order) == tuple(order)
    else:
        with pytest.raises(CampaignRuleError):
            check_between_battle_order(order)


# --- an unsupplied unit's start (P.60) ---------------------------------------------------------

_ONE_LOWER = UnsuppliedEffect.CONFIDENCE_ONE_LOWER
_ONE_WORSE = UnsuppliedEffect.FATIGUE_ONE_WORSE


@pytest.mark.parametrize(
    ("fatigue", "effect", "fights_at", "confidence"),
    [
        (Fatigue.FRESH, _ONE_LOWER, Fatigue.FRESH, Confidence.STEADY),
        (Fatigue.TIRED, _ONE_LOWER, Fatigue.TIRED, Confidence.SHAKEN),
        (Fatigue.EXHAUSTED, _ONE_LOWER, Fatigue.EXHAUSTED, Confidence.BROKEN),
        (Fatigue.FRESH, _ONE_WORSE, Fatigue.TIRED, Confidence.STEADY),
        (Fatigue.TIRED, _ONE_WORSE, Fatigue.EXHAUSTED, Confidence.SHAKEN),
        (Fatigue.EXHAUSTED, _ONE_WORSE, Fatigue.EXHAUSTED, Confidence.SHAKEN),
        (Fatigue.FRESH, UnsuppliedEffect.NONE, Fatigue.FRESH, Confidence.CONFIDENT),
    ],
)
def test_an_unsupplied_unit_starts_worse_as_the_option_says_p60(
    fatigue: Fatigue, effect: UnsuppliedEffect, fights_at: Fatigue, confidence: Confidence
) -> None:
    ready = readiness_for_battle(fatigue=fatigue, supplied=False, unsupplied_effect=effect)
    assert (ready.fatigue, ready.confidence) == (fights_at, confidence)
    assert ready.unsupplied_effect is (None if effect is UnsuppliedEffect.NONE else effect)


@given(st.sampled_from(Fatigue), st.sampled_from(UnsuppliedEffect))
def test_a_supplied_unit_starts_at_the_confidence_its_fatigue_gives_p19(
    fatigue: Fatigue, effect: UnsuppliedEffect
) -> None:
    ready = readiness_for_battle(fatigue=fatigue, supplied=True, unsupplied_effect=effect)
    assert (ready.fatigue, ready.confidence, ready.unsupplied_effect) == (
        fatigue,
        fatigue.starting_confidence,
        None,
    )


def test_a_unit_with_no_fatigue_has_nothing_to_lower() -> None:
    ready = readiness_for_battle(fatigue=None, supplied=False)
    assert (ready.fatigue, ready.confidence, ready.unsupplied_effect) == (None, None, None)
