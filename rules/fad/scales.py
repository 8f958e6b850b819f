"""Fast and Dirty unit attribute scales: Quality and Resolve (FaD p.6, p.13), and a squad
leader's experience (p.11).

Each scale is an ordered enum whose value is its rank, worst to best, so comparisons read naturally
(``Quality.ELITE > Quality.REGULAR``) and shifting by a step is arithmetic on the rank. These are
the Fast and Dirty scales; they share some names with Stargrunt II (Regular, Elite, Steady) but not
their meaning, so they live in their own module and are never converted silently.
"""

from __future__ import annotations

import enum
import math
from fractions import Fraction

from rules.errors import RuleError


class Quality(enum.IntEnum):
    """Unit quality, worst to best (FaD p.6 FORCE PROFILES, Quality).

    A unit's quality sets the target number of its one-die tests (p.13 QUALITY LEVEL), its
    coherency (p.16), fire priority and base range (p.17), and the Fire Effect it can take before
    it is pinned (p.24).
    """

    RABBLE = 0
    CONSCRIPT = 1
    REGULAR = 2
    ELITE = 3

    @property
    def target_number(self) -> int:
        """The Quality Level: a d6 showing this or more succeeds (p.13): 5+, 4+, 3+, 2+."""
        return 5 - self.value

    @property
    def coherency_inches(self) -> int:
        """Largest gap between squad members (p.16 COHERENCY TABLE): 2" to 5"."""
        return 2 + self.value

    @property
    def fire_priority(self) -> int:
        """How many of the closest enemy units may be chosen as a target (p.17): 1 to 4."""
        return 1 + self.value

    @property
    def base_range_inches(self) -> int:
        """Base Range, multiplied by a weapon's range multiplier (p.17): 2" to 5"."""
        return 2 + self.value

    @property
    def pinning_threshold(self) -> int:
        """A Fire Effect that exceeds this pins an infantry unit (p.24): 10, 12, 14, 16."""
        return 10 + 2 * self.value

    @property
    def points_multiplier(self) -> Fraction:
        """Points multiplier for a trooper of this quality (p.53): 0.7, 1.0, 1.3, 1.6."""
        return (Fraction(7, 10), Fraction(1), Fraction(13, 10), Fraction(16, 10))[self.value]


class Resolve(enum.IntEnum):
    """A unit's dedication to the day's mission, worst to best (FaD p.6 FORCE PROFILES, Resolve).

    Resolve sets how much punishment a unit takes before it breaks (p.13 CHECKING RESOLVE). It
    persists on the unit between battles and changes in the post-battle steps (p.66).
    """

    RELUCTANT = 0
    UNCERTAIN = 1
    STEADY = 2
    DETERMINED = 3

    @property
    def infantry_break_fraction(self) -> Fraction | None:
        """Fraction of original size at which infantry break (p.13 INFANTRY RESOLVE TABLE).

        ``None`` for Reluctant, which breaks at one casualty whatever its size.
        """
        return (None, Fraction(1, 4), Fraction(1, 2), Fraction(3, 4))[self.value]

    def infantry_break_point(self, original_size: int) -> int:
        """Casualties at which an infantry unit of ``original_size`` is Broken (p.13).

        Reluctant: 1 casualty; Uncertain 25%, Steady 50%, Determined 75% of original size. The
        unit breaks when casualties *equal or exceed* the level, so the break point is the
        fraction rounded up (Steady 8 -> 4, 6 -> 3, as in the tutorial, p.45).
        """
        if isinstance(original_size, bool) or not isinstance(original_size, int):
            raise RuleError(
                "scales.refused", f"Original size must be a whole number, not {original_size!r}."
            )
        if original_size < 1:
            raise RuleError(
                "scales.refused", f"A unit has at least one figure; original size {original_size}."
            )
        fraction = self.infantry_break_fraction
        if fraction is None:
            return 1
        return math.ceil(fraction * original_size)

    @property
    def vehicle_break_hits(self) -> int:
        """Penetrating hits at which a vehicle crew is Broken (p.13 VEHICLE RESOLVE TABLE): 1-4."""
        return 1 + self.value

    @property
    def points_adjustment(self) -> Fraction:
        """Added to the quality multiplier when pricing a trooper (p.53): -0.5, -0.3, 0, +0.3."""
        return (Fraction(-5, 10), Fraction(-3, 10), Fraction(0), Fraction(3, 10))[self.value]


class SquadLeaderExperience(enum.IntEnum):
    """A squad leader's experience, worst to best (FaD p.11 GREATER VARIETY, Squad Leaders).

    The book rolls it with Greater Variety (d6: 1-2 Inexperienced, 3-4 Experienced, 5-6 Veteran)
    and starts every squad leader Inexperienced in Advanced Force Generation (p.51), raising it a
    level per Training success. It stays with the leader between battles.
    """

    INEXPERIENCED = 0
    EXPERIENCED = 1
    VETERAN = 2

    @property
    def morale_modifier(self) -> int:
        """What the leader gives his squad's Morale Tests (p.11): -1, 0, +1."""
        return self.value - 1

    @property
    def points_adjustment(self) -> int:
        """Added to the squad leader's base cost (p.53 SQUAD LEADER RATING): +0, +3, +8."""
        return (0, 3, 8)[self.value]


QUALITY_WORST = Quality.RABBLE
QUALITY_BEST = Quality.ELITE
RESOLVE_WORST = Resolve.RELUCTANT
RESOLVE_BEST = Resolve.DETERMINED
