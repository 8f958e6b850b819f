"""Stargrunt II scales against the book's tables (P.9, P.19, P.20)."""

from __future__ import annotations

import pytest

from rules.dice import Die
from rules.sg2.scales import (
    LEADERSHIP_BEST,
    LEADERSHIP_WORST,
    Confidence,
    Fatigue,
    MissionMotivation,
    Quality,
)


@pytest.mark.parametrize(
    ("quality", "die"),
    [
        (Quality.UNTRAINED, Die.D4),
        (Quality.GREEN, Die.D6),
        (Quality.REGULAR, Die.D8),
        (Quality.VETERAN, Die.D10),
        (Quality.ELITE, Die.D12),
    ],
)
def test_each_quality_rolls_its_die_p9(quality, die):
    assert quality.die is die


def test_qualities_are_ordered_worst_to_best():
    assert sorted(Quality) == [
        Quality.UNTRAINED,
        Quality.GREEN,
        Quality.REGULAR,
        Quality.VETERAN,
        Quality.ELITE,
    ]


@pytest.mark.parametrize(
    ("confidence", "abbreviation"),
    [
        (Confidence.CONFIDENT, "CO"),
        (Confidence.STEADY, "ST"),
        (Confidence.SHAKEN, "SH"),
        (Confidence.BROKEN, "BR"),
        (Confidence.ROUTED, "RO"),
    ],
)
def test_confidence_levels_carry_the_books_marker_letters_p20(confidence, abbreviation):
    assert confidence.abbreviation == abbreviation


@pytest.mark.parametrize(
    ("fatigue", "start"),
    [
        (Fatigue.FRESH, Confidence.CONFIDENT),
        (Fatigue.TIRED, Confidence.STEADY),
        (Fatigue.EXHAUSTED, Confidence.SHAKEN),
    ],
)
def test_fatigue_sets_the_confidence_a_unit_starts_a_battle_at_p19(fatigue, start):
    assert fatigue.starting_confidence is start


def test_leadership_runs_from_one_best_to_three_worst_p9():
    assert (LEADERSHIP_BEST, LEADERSHIP_WORST) == (1, 3)


def test_mission_motivation_has_three_levels_p19():
    assert [m.name for m in MissionMotivation] == ["LOW", "MEDIUM", "HIGH"]
