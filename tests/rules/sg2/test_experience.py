"""Quality improvement points and rises (SG2 P.60 IMPROVING TROOP QUALITY)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.sg2.experience import (
    BattleResult,
    QualityPointsOnRise,
    QualityProgression,
    apply_quality_points,
    quality_points_for_battle,
    rise_threshold,
)
from rules.sg2.scales import Quality


@pytest.mark.parametrize(
    ("result", "objective", "points"),
    [
        (BattleResult.WIN, False, 3),
        (BattleResult.WIN, True, 4),
        (BattleResult.LOSS, False, 1),
        (BattleResult.LOSS, True, 2),
        (BattleResult.DRAW, False, 1),
        (BattleResult.DRAW, True, 2),
    ],
)
def test_points_per_battle_follow_the_book_p60(
    result: BattleResult, objective: bool, points: int
) -> None:
    assert quality_points_for_battle(result=result, own_objective_achieved=objective) == points


def test_losers_who_took_their_own_objective_earn_the_extra_point_p60() -> None:
    assert quality_points_for_battle(result="loss", own_objective_achieved=True) == 2


def test_winners_can_be_denied_the_objective_bonus() -> None:
    points = quality_points_for_battle(
        result=BattleResult.WIN,
        own_objective_achieved=True,
        quality_points_objective_bonus_for_winners=False,
    )
    assert points == 3


def test_point_values_are_options() -> None:
    points = quality_points_for_battle(
        result=BattleResult.DRAW,
        own_objective_achieved=True,
        quality_points_draw=0,
        quality_points_objective_bonus=2,
    )
    assert points == 2


def test_negative_point_values_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 0"):
        quality_points_for_battle(
            result=BattleResult.WIN, own_objective_achieved=False, quality_points_win=-1
        )


def test_an_unknown_result_is_refused() -> None:
    with pytest.raises(ValueError, match="victory"):
        quality_points_for_battle(result="victory", own_objective_achieved=False)


@pytest.mark.parametrize(
    ("quality", "threshold"),
    [
        (Quality.UNTRAINED, None),
        (Quality.GREEN, 5),
        (Quality.REGULAR, 8),
        (Quality.VETERAN, None),
        (Quality.ELITE, None),
    ],
)
def test_thresholds_are_five_and_eight_on_the_ladder_only_p60(
    quality: Quality, threshold: int | None
) -> None:
    assert rise_threshold(quality) == threshold


def test_thresholds_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        rise_threshold(Quality.GREEN, quality_threshold_green_regular=0)


def test_green_unit_reaching_five_points_rises_to_regular_and_starts_afresh_p60() -> None:
    advance = apply_quality_points(quality=Quality.GREEN, points=2, points_gained=3)
    assert advance.rose
    assert advance.quality is Quality.REGULAR
    assert advance.points == 0
    assert advance.threshold == 5


def test_green_unit_short_of_five_points_stays_green_and_keeps_them() -> None:
    advance = apply_quality_points(quality=Quality.GREEN, points=1, points_gained=3)
    assert not advance.rose
    assert not advance.may_rise
    assert advance.quality is Quality.GREEN
    assert advance.points == 4


def test_regular_unit_needs_eight_points_for_veteran_p60() -> None:
    assert not apply_quality_points(quality=Quality.REGULAR, points=4, points_gained=3).rose
    advance = apply_quality_points(quality=Quality.REGULAR, points=5, points_gained=3)
    assert advance.quality is Quality.VETERAN
    assert advance.points == 0


def test_campaign_of_wins_takes_green_to_veteran() -> None:
    quality, points = Quality.GREEN, 0
    history = []
    for _ in range(5):
        advance = apply_quality_points(
            quality=quality,
            points=points,
            points_gained=quality_points_for_battle(
                result=BattleResult.WIN, own_objective_achieved=False
            ),
        )
        quality, points = advance.quality, advance.points
        history.append((quality, points))
    assert history == [
        (Quality.GREEN, 3),
        (Quality.REGULAR, 0),
        (Quality.REGULAR, 3),
        (Quality.REGULAR, 6),
        (Quality.VETERAN, 0),
    ]


@pytest.mark.parametrize("quality", [Quality.UNTRAINED, Quality.VETERAN, Quality.ELITE])
def test_untrained_veteran_and_elite_never_rise_by_points_p60(quality: Quality) -> None:
    advance = apply_quality_points(quality=quality, points=50, points_gained=3)
    assert advance.quality is quality
    assert not advance.may_rise
    assert advance.points == 53


def test_subtract_threshold_keeps_the_excess() -> None:
    advance = apply_quality_points(
        quality=Quality.GREEN,
        points=4,
        points_gained=4,
        quality_points_on_rise=QualityPointsOnRise.SUBTRACT_THRESHOLD,
    )
    assert advance.quality is Quality.REGULAR
    assert advance.points == 3


def test_only_one_level_per_battle_even_with_points_to_spare() -> None:
    advance = apply_quality_points(
        quality=Quality.GREEN,
        points=20,
        points_gained=0,
        quality_points_on_rise="subtract_threshold",
    )
    assert advance.quality is Quality.REGULAR
    assert advance.points == 15


def test_a_rise_that_is_not_automatic_waits_for_the_umpire() -> None:
    waiting = apply_quality_points(
        quality=Quality.GREEN, points=4, points_gained=1, quality_rise_automatic=False
    )
    assert waiting.may_rise
    assert not waiting.rose
    assert waiting.quality is Quality.GREEN
    assert waiting.points == 5
    allowed = apply_quality_points(
        quality=Quality.GREEN,
        points=4,
        points_gained=1,
        quality_rise_automatic=False,
        umpire_allows_rise=True,
    )
    assert allowed.rose
    assert allowed.quality is Quality.REGULAR


def test_umpire_progression_never_rises_by_points() -> None:
    advance = apply_quality_points(
        quality=Quality.GREEN,
        points=10,
        points_gained=3,
        quality_progression=QualityProgression.UMPIRE,
    )
    assert advance.quality is Quality.GREEN
    assert not advance.may_rise


def test_thresholds_are_options() -> None:
    advance = apply_quality_points(
        quality=Quality.REGULAR, points=3, points_gained=1, quality_threshold_regular_veteran=4
    )
    assert advance.quality is Quality.VETERAN


@pytest.mark.parametrize(("points", "gained"), [(-1, 0), (0, -1), (True, 0), (1.5, 0)])
def test_points_must_be_whole_and_not_negative(points: object, gained: object) -> None:
    with pytest.raises(ValueError, match=r"whole number|at least 0"):
        apply_quality_points(quality=Quality.GREEN, points=points, points_gained=gained)  # type: ignore[arg-type]  # the wrong types on purpose


@given(
    quality=st.sampled_from(Quality),
    points=st.integers(0, 40),
    gained=st.integers(0, 6),
    on_rise=st.sampled_from(QualityPointsOnRise),
    automatic=st.booleans(),
)
def test_quality_never_passes_elite_never_jumps_and_points_never_go_negative(
    quality: Quality, points: int, gained: int, on_rise: QualityPointsOnRise, automatic: bool
) -> None:
    advance = apply_quality_points(
        quality=quality,
        points=points,
        points_gained=gained,
        quality_points_on_rise=on_rise,
        quality_rise_automatic=automatic,
    )
    assert advance.quality <= Quality.ELITE
    assert advance.quality - quality in (0, 1)
    assert advance.points >= 0
    assert advance.quality is not Quality.ELITE or quality is Quality.ELITE


@given(quality=st.sampled_from(Quality), points=st.integers(0, 40), gained=st.integers(0, 6))
def test_more_points_never_make_a_rise_less_likely(
    quality: Quality, points: int, gained: int
) -> None:
    fewer = apply_quality_points(quality=quality, points=points, points_gained=gained)
    more = apply_quality_points(quality=quality, points=points + 1, points_gained=gained)
    assert more.quality >= fewer.quality
