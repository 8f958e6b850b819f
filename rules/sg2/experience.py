"""Stargrunt II campaign experience: quality improvement points and the rises they buy.

SG2 P.60 IMPROVING TROOP QUALITY. The ladder is GREEN -> REGULAR -> VETERAN; UNTRAINED and ELITE
stand outside it and change only by the umpire's decision (P.60 introduction).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from rules.sg2.campaign import require_count
from rules.sg2.scales import Quality


class BattleResult(enum.StrEnum):
    """How a battle ended for the side a unit fought on."""

    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"


class QualityProgression(enum.StrEnum):
    """How quality rises: the book's points scheme, or the umpire judging each unit (P.60)."""

    POINTS = "points"
    UMPIRE = "umpire"


class QualityPointsOnRise(enum.StrEnum):
    """What a rise does to the points: all used up (the book's reading) or only the threshold."""

    RESET_TO_ZERO = "reset_to_zero"
    SUBTRACT_THRESHOLD = "subtract_threshold"


def quality_points_for_battle(
    *,
    result: BattleResult | str,
    own_objective_achieved: bool,
    quality_points_win: int = 3,
    quality_points_lose: int = 1,
    quality_points_draw: int = 1,
    quality_points_objective_bonus: int = 1,
    quality_points_objective_bonus_for_winners: bool = True,
) -> int:
    """The improvement points a unit earns for one battle it took part in.

    SG2 P.60 IMPROVING TROOP QUALITY: 3 for being on the winning side, 1 for losing ("even a bad
    result gives experience"), and maybe an extra 1 for achieving its own limited objective even if
    its side loses overall. The book gives nothing for a draw; options ``quality_points_win`` (3),
    ``quality_points_lose`` (1), ``quality_points_draw`` (1, the digest's reading),
    ``quality_points_objective_bonus`` (1) and ``quality_points_objective_bonus_for_winners``
    (true: "even if their side loses" implies winners earn it too).
    """
    for name, value in (
        ("Points for a win", quality_points_win),
        ("Points for a loss", quality_points_lose),
        ("Points for a draw", quality_points_draw),
        ("The objective bonus", quality_points_objective_bonus),
    ):
        require_count(name, value)
    result = BattleResult(result)
    base = {
        BattleResult.WIN: quality_points_win,
        BattleResult.LOSS: quality_points_lose,
        BattleResult.DRAW: quality_points_draw,
    }[result]
    bonus_allowed = result is not BattleResult.WIN or quality_points_objective_bonus_for_winners
    bonus = quality_points_objective_bonus if own_objective_achieved and bonus_allowed else 0
    return base + bonus


def rise_threshold(
    quality: Quality,
    *,
    quality_threshold_green_regular: int = 5,
    quality_threshold_regular_veteran: int = 8,
) -> int | None:
    """Points a unit of ``quality`` needs to rise one level, or None if points cannot raise it.

    SG2 P.60: 5 points from GREEN to REGULAR, 8 from REGULAR to VETERAN (options
    ``quality_threshold_green_regular`` and ``quality_threshold_regular_veteran``). UNTRAINED,
    VETERAN and ELITE do not rise by points.
    """
    require_count("The GREEN to REGULAR threshold", quality_threshold_green_regular, minimum=1)
    require_count("The REGULAR to VETERAN threshold", quality_threshold_regular_veteran, minimum=1)
    if quality is Quality.GREEN:
        return quality_threshold_green_regular
    if quality is Quality.REGULAR:
        return quality_threshold_regular_veteran
    return None


@dataclass(frozen=True, slots=True)
class QualityAdvance:
    """A unit's quality and points after a battle's points were added."""

    quality_before: Quality
    quality: Quality
    points: int
    threshold: int | None
    # Enough points to rise; when rises are not automatic the umpire decides.
    may_rise: bool
    rose: bool


def apply_quality_points(
    *,
    quality: Quality,
    points: int,
    points_gained: int,
    umpire_allows_rise: bool = False,
    quality_progression: QualityProgression = QualityProgression.POINTS,
    quality_threshold_green_regular: int = 5,
    quality_threshold_regular_veteran: int = 8,
    quality_rise_automatic: bool = True,
    quality_points_on_rise: QualityPointsOnRise | str = QualityPointsOnRise.RESET_TO_ZERO,
) -> QualityAdvance:
    """Add a battle's improvement points and decide whether the unit rises one quality level.

    SG2 P.60 IMPROVING TROOP QUALITY: points are kept from game to game, and when a unit accrues
    enough it MAY rise to the next level (GREEN 5 -> REGULAR, REGULAR 8 -> VETERAN). A rise uses
    the points up and the unit starts gaining them afresh. At most one level per battle.
    Options: ``quality_progression`` (points; ``umpire`` turns the scheme off),
    ``quality_threshold_green_regular`` (5), ``quality_threshold_regular_veteran`` (8),
    ``quality_rise_automatic`` (true; when false the rise needs ``umpire_allows_rise``) and
    ``quality_points_on_rise`` (reset_to_zero; ``subtract_threshold`` keeps the excess).
    """
    quality = Quality(quality)
    require_count("Improvement points", points)
    require_count("Points gained", points_gained)
    quality_progression = QualityProgression(quality_progression)
    quality_points_on_rise = QualityPointsOnRise(quality_points_on_rise)
    threshold = rise_threshold(
        quality,
        quality_threshold_green_regular=quality_threshold_green_regular,
        quality_threshold_regular_veteran=quality_threshold_regular_veteran,
    )
    total = points + points_gained
    if quality_progression is QualityProgression.UMPIRE or threshold is None or total < threshold:
        return QualityAdvance(quality, quality, total, threshold, may_rise=False, rose=False)
    if not (quality_rise_automatic or umpire_allows_rise):
        return QualityAdvance(quality, quality, total, threshold, may_rise=True, rose=False)
    left = 0 if quality_points_on_rise is QualityPointsOnRise.RESET_TO_ZERO else total - threshold
    return QualityAdvance(quality, Quality(quality + 1), left, threshold, may_rise=True, rose=True)
