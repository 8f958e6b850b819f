"""Stargrunt II unit attribute scales (P.9, P.19-21).

Each scale is an ordered enum whose value is its rank, so comparisons read naturally
(``Quality.VETERAN > Quality.REGULAR``) and shifting by a step is arithmetic on the rank.
"""

from __future__ import annotations

import enum

from rules.dice import Die


class Quality(enum.IntEnum):
    """Unit quality, worst to best (P.9 UNIT QUALITY AND LEADERSHIP VALUE)."""

    UNTRAINED = 0
    GREEN = 1
    REGULAR = 2
    VETERAN = 3
    ELITE = 4

    @property
    def die(self) -> Die:
        """The quality die: D4 for Untrained up to D12 for Elite (P.9)."""
        return (Die.D4, Die.D6, Die.D8, Die.D10, Die.D12)[self.value]


class Confidence(enum.IntEnum):
    """Confidence level, worst to best (P.20 CONFIDENCE LEVELS)."""

    ROUTED = 0
    BROKEN = 1
    SHAKEN = 2
    STEADY = 3
    CONFIDENT = 4

    @property
    def abbreviation(self) -> str:
        return {0: "RO", 1: "BR", 2: "SH", 3: "ST", 4: "CO"}[self.value]


class Fatigue(enum.IntEnum):
    """Fatigue level, best to worst (P.19 FATIGUE LEVEL)."""

    FRESH = 0
    TIRED = 1
    EXHAUSTED = 2

    @property
    def starting_confidence(self) -> Confidence:
        """Confidence a unit starts a battle at for its fatigue (P.19): CO, ST, SH."""
        return (Confidence.CONFIDENT, Confidence.STEADY, Confidence.SHAKEN)[self.value]


class MissionMotivation(enum.IntEnum):
    """Mission motivation (P.19); it only changes confidence-test threat levels."""

    LOW = 0
    MEDIUM = 1
    HIGH = 2


LEADERSHIP_BEST = 1
LEADERSHIP_WORST = 3
