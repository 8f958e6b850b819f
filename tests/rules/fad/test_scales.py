from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.fad.scales import (
    QUALITY_BEST,
    QUALITY_WORST,
    RESOLVE_BEST,
    RESOLVE_WORST,
    Quality,
    Resolve,
    SquadLeaderExperience,
)


def test_quality_runs_rabble_to_elite_in_four_levels() -> None:
    assert list(Quality) == [Quality.RABBLE, Quality.CONSCRIPT, Quality.REGULAR, Quality.ELITE]
    assert (QUALITY_WORST, QUALITY_BEST) == (Quality.RABBLE, Quality.ELITE)
    assert Quality.ELITE > Quality.REGULAR > Quality.CONSCRIPT > Quality.RABBLE


@pytest.mark.parametrize(
    ("quality", "target", "coherency", "priority", "base_range", "pin", "points"),
    [
        (Quality.RABBLE, 5, 2, 1, 2, 10, Fraction(7, 10)),
        (Quality.CONSCRIPT, 4, 3, 2, 3, 12, Fraction(1)),
        (Quality.REGULAR, 3, 4, 3, 4, 14, Fraction(13, 10)),
        (Quality.ELITE, 2, 5, 4, 5, 16, Fraction(16, 10)),
    ],
)
def test_quality_tables_p13_p16_p17_p24_p53(
    quality: Quality,
    target: int,
    coherency: int,
    priority: int,
    base_range: int,
    pin: int,
    points: Fraction,
) -> None:
    assert quality.target_number == target
    assert quality.coherency_inches == coherency
    assert quality.fire_priority == priority
    assert quality.base_range_inches == base_range
    assert quality.pinning_threshold == pin
    assert quality.points_multiplier == points


@pytest.mark.parametrize(
    ("experience", "morale", "points"),
    [
        (SquadLeaderExperience.INEXPERIENCED, -1, 0),
        (SquadLeaderExperience.EXPERIENCED, 0, 3),
        (SquadLeaderExperience.VETERAN, 1, 8),
    ],
)
def test_squad_leader_experience_tables_p11_p53(
    experience: SquadLeaderExperience, morale: int, points: int
) -> None:
    assert list(SquadLeaderExperience) == sorted(SquadLeaderExperience)
    assert min(SquadLeaderExperience) is SquadLeaderExperience.INEXPERIENCED
    assert experience.morale_modifier == morale
    assert experience.points_adjustment == points


def test_resolve_runs_reluctant_to_determined_in_four_levels() -> None:
    assert list(Resolve) == [
        Resolve.RELUCTANT,
        Resolve.UNCERTAIN,
        Resolve.STEADY,
        Resolve.DETERMINED,
    ]
    assert (RESOLVE_WORST, RESOLVE_BEST) == (Resolve.RELUCTANT, Resolve.DETERMINED)


@pytest.mark.parametrize(
    ("resolve", "fraction", "vehicle_hits", "points"),
    [
        (Resolve.RELUCTANT, None, 1, Fraction(-1, 2)),
        (Resolve.UNCERTAIN, Fraction(1, 4), 2, Fraction(-3, 10)),
        (Resolve.STEADY, Fraction(1, 2), 3, Fraction(0)),
        (Resolve.DETERMINED, Fraction(3, 4), 4, Fraction(3, 10)),
    ],
)
def test_resolve_tables_p13_p53(
    resolve: Resolve, fraction: Fraction | None, vehicle_hits: int, points: Fraction
) -> None:
    assert resolve.infantry_break_fraction == fraction
    assert resolve.vehicle_break_hits == vehicle_hits
    assert resolve.points_adjustment == points


@pytest.mark.parametrize(
    ("resolve", "size", "break_point"),
    [
        # Tutorial force sheet, p.44-47: Steady squads of 8, 6 and 10 break at 4, 3 and 5.
        (Resolve.STEADY, 8, 4),
        (Resolve.STEADY, 6, 3),
        (Resolve.STEADY, 10, 5),
        (Resolve.STEADY, 7, 4),
        (Resolve.RELUCTANT, 10, 1),
        (Resolve.UNCERTAIN, 10, 3),
        (Resolve.UNCERTAIN, 8, 2),
        (Resolve.DETERMINED, 10, 8),
        (Resolve.DETERMINED, 8, 6),
        (Resolve.UNCERTAIN, 1, 1),
    ],
)
def test_infantry_break_point_is_the_fraction_rounded_up(
    resolve: Resolve, size: int, break_point: int
) -> None:
    assert resolve.infantry_break_point(size) == break_point


@pytest.mark.parametrize("size", [0, -3, 2.5, True, "8"])
def test_infantry_break_point_refuses_a_size_that_is_not_a_positive_whole_number(
    size: object,
) -> None:
    with pytest.raises(ValueError, match=r"whole number|at least one figure"):
        Resolve.STEADY.infantry_break_point(size)  # type: ignore[arg-type]


@given(st.sampled_from(list(Resolve)), st.integers(min_value=1, max_value=60))
def test_break_point_is_the_smallest_casualty_count_reaching_the_fraction(
    resolve: Resolve, size: int
) -> None:
    point = resolve.infantry_break_point(size)
    assert 1 <= point <= size
    fraction = resolve.infantry_break_fraction
    if fraction is not None:
        assert point >= fraction * size > point - 1


@given(st.sampled_from(list(Resolve)), st.integers(min_value=1, max_value=60))
def test_better_resolve_never_breaks_sooner(resolve: Resolve, size: int) -> None:
    if resolve < Resolve.DETERMINED:
        better = Resolve(resolve + 1)
        assert better.infantry_break_point(size) >= resolve.infantry_break_point(size)
        assert better.vehicle_break_hits > resolve.vehicle_break_hits
