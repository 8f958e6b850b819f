"""Tests for rules.scales: the correspondence between SG2 and FaD unit scales."""

from __future__ import annotations

import enum

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.fad.scales import Quality as FaDQuality
from rules.fad.scales import Resolve
from rules.rulesets import Ruleset
from rules.scales import (
    FAD_TO_SG2_QUALITY,
    SG2_TO_FAD_QUALITY,
    Correspondence,
    UnmappedScaleError,
    correspondence,
    counterpart,
    fad_quality_for,
    sg2_quality_for,
)
from rules.sg2.scales import Confidence, Fatigue, MissionMotivation
from rules.sg2.scales import Quality as SG2Quality


@pytest.mark.parametrize(
    ("sg2", "fad"),
    [
        (SG2Quality.UNTRAINED, FaDQuality.RABBLE),
        (SG2Quality.GREEN, FaDQuality.CONSCRIPT),
        (SG2Quality.REGULAR, FaDQuality.REGULAR),
        (SG2Quality.ELITE, FaDQuality.ELITE),
    ],
)
def test_quality_levels_correspond_by_order(sg2: SG2Quality, fad: FaDQuality):
    assert fad_quality_for(sg2) is fad
    assert sg2_quality_for(fad) is sg2
    assert counterpart(sg2, to=Ruleset.FAD) is fad
    assert counterpart(fad, to=Ruleset.SG2) is sg2


def test_an_sg2_veteran_has_no_fad_quality():
    assert fad_quality_for(SG2Quality.VETERAN) is None
    assert counterpart(SG2Quality.VETERAN, to="fad") is None


def test_every_level_of_both_quality_ladders_is_listed():
    assert set(SG2_TO_FAD_QUALITY) == set(SG2Quality)
    assert set(FAD_TO_SG2_QUALITY) == set(FaDQuality)
    with pytest.raises(TypeError):
        SG2_TO_FAD_QUALITY[SG2Quality.VETERAN] = FaDQuality.ELITE  # type: ignore[index]


@given(a=st.sampled_from(list(FaDQuality)), b=st.sampled_from(list(FaDQuality)))
def test_the_quality_crosswalk_keeps_the_order(a, b):
    assert (a < b) == (sg2_quality_for(a) < sg2_quality_for(b))


@given(quality=st.sampled_from(list(FaDQuality)))
def test_fad_quality_survives_a_round_trip(quality):
    assert fad_quality_for(sg2_quality_for(quality)) is quality


def test_a_quality_of_the_wrong_ruleset_is_refused_not_reinterpreted():
    # Both are integer enums: FaD Elite has rank 3, which is SG2 Veteran's rank.
    with pytest.raises(ValueError, match="Expected an SG2 quality"):
        fad_quality_for(FaDQuality.ELITE)  # type: ignore[arg-type]  # the wrong type on purpose
    with pytest.raises(ValueError, match="Expected a FaD quality"):
        sg2_quality_for(SG2Quality.VETERAN)  # type: ignore[arg-type]  # the wrong type on purpose
    with pytest.raises(ValueError, match="Expected an SG2 quality"):
        fad_quality_for(3)  # type: ignore[arg-type]  # the wrong type on purpose


def test_a_value_already_in_the_target_ruleset_is_returned_as_is():
    assert counterpart(SG2Quality.VETERAN, to=Ruleset.SG2) is SG2Quality.VETERAN
    assert counterpart(FaDQuality.RABBLE, to=Ruleset.FAD) is FaDQuality.RABBLE
    assert counterpart(Resolve.STEADY, to=Ruleset.FAD) is Resolve.STEADY
    assert counterpart(Confidence.STEADY, to=Ruleset.SG2) is Confidence.STEADY


@pytest.mark.parametrize(
    ("value", "to", "reason"),
    [
        (Resolve.STEADY, Ruleset.SG2, "FaD Resolve has no SG2 counterpart"),
        (Resolve.DETERMINED, Ruleset.SG2, "lasting unit rating"),
        (MissionMotivation.HIGH, Ruleset.FAD, "Mission Motivation has no FaD counterpart"),
        (Confidence.STEADY, Ruleset.FAD, "broken or unbroken"),
        (Fatigue.TIRED, Ruleset.FAD, "Fatigue has no FaD counterpart"),
    ],
)
def test_scales_that_do_not_map_raise_with_the_reason(value, to, reason):
    with pytest.raises(UnmappedScaleError, match=reason) as caught:
        counterpart(value, to=to)
    assert isinstance(caught.value, ValueError)
    assert value.name in str(caught.value)


def test_a_leadership_value_has_no_counterpart():
    with pytest.raises(UnmappedScaleError, match="leadership values"):
        counterpart(2, to=Ruleset.FAD)  # type: ignore[arg-type]  # the wrong type on purpose


def test_an_unknown_target_ruleset_is_refused():
    with pytest.raises(ValueError, match="not a valid Ruleset"):
        counterpart(SG2Quality.GREEN, to="dba")


@pytest.mark.parametrize(
    ("scale", "expected"),
    [
        (SG2Quality, Correspondence.PARTLY),
        (FaDQuality, Correspondence.PARTLY),
        (Resolve, Correspondence.NONE),
        (MissionMotivation, Correspondence.NONE),
        (Confidence, Correspondence.NONE),
        (Fatigue, Correspondence.NONE),
    ],
)
def test_each_scale_says_how_well_it_maps(scale, expected):
    assert correspondence(scale) is expected


def test_a_class_that_is_no_unit_scale_is_refused():
    class Colour(enum.Enum):
        RED = 1

    with pytest.raises(ValueError, match="'Colour' is not a unit scale"):
        correspondence(Colour)
