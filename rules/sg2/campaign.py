"""Stargrunt II campaign games: where a unit is, how long things take, and the between-battle order.

SG2 chapter 22 CAMPAIGN GAMES (P.60-61). The procedures themselves live in
:mod:`rules.sg2.experience` (quality points), :mod:`rules.sg2.replacements` (replacement troops)
and :mod:`rules.sg2.recovery` (fatigue, rest and recovery, injured troopers, vehicle repair);
this module holds what they share.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from rules.errors import RuleError
from rules.sg2.options import UnsuppliedEffect
from rules.sg2.scales import Confidence, Fatigue


class CampaignRuleError(RuleError):
    """A campaign rule refused its input; ``code`` names the rule broken (``replacements.x``)."""


class Location(enum.StrEnum):
    """Where a unit rests, refits or repairs between battles (SG2 P.61 REST AND RECOVERY).

    ``FIELD`` is anywhere that is not a safe area, including the battle line. ``REAR_AREA`` is a
    rear area with full engineering facilities; it is also a safe area.
    """

    FIELD = "field"
    SAFE_AREA = "safe_area"
    REAR_AREA = "rear_area"

    @property
    def is_safe(self) -> bool:
        return self is not Location.FIELD


class DoubledTime(enum.StrEnum):
    """The campaign times that the field or a shortage of supplies doubles (SG2 P.61)."""

    FATIGUE = "fatigue"
    REPAIR = "repair"
    INJURED_RETURN = "injured_return"
    REPLACEMENTS = "replacements"


# The book doubles "all times given" (P.61), replacements' day included: received only in a safe
# area, it doubles there without suitable supplies. The digest's suggested default (its AMBIG-25)
# leaves replacements out; the book wins.
DEFAULT_FIELD_DOUBLING: frozenset[DoubledTime] = frozenset(DoubledTime)


def time_multiplier(
    *,
    task: DoubledTime,
    location: Location,
    supplied: bool,
    field_time_multiplier: int = 2,
    field_doubling_applies_to: Collection[str] = DEFAULT_FIELD_DOUBLING,
) -> int:
    """How many times longer a campaign task takes here than in a supplied safe area.

    SG2 P.61 REST AND RECOVERY: all times assume a safe area with adequate supplies and proper
    engineering backup; "in the field" and/or without suitable supplies, DOUBLE all times.
    Options: ``field_time_multiplier`` (default 2) and ``field_doubling_applies_to`` (default
    every time: fatigue, repair, injured_return and replacements).
    """
    if isinstance(field_time_multiplier, bool) or not isinstance(field_time_multiplier, int):
        raise RuleError(
            "campaign.refused",
            f"The field time multiplier must be a whole number, not {field_time_multiplier!r}.",
        )
    if field_time_multiplier < 1:
        raise RuleError(
            "campaign.refused",
            f"The field time multiplier must be at least 1, not {field_time_multiplier}.",
        )
    known = {item.value for item in DoubledTime}
    unknown = sorted(str(item) for item in field_doubling_applies_to if item not in known)
    if unknown:
        raise RuleError(
            "campaign.refused",
            f"Unknown campaign time(s) to double: {', '.join(unknown)}; "
            f"choose from {', '.join(sorted(known))}.",
        )
    doubled = (not location.is_safe or not supplied) and task in field_doubling_applies_to
    return field_time_multiplier if doubled else 1


def require_count(name: str, value: int, *, minimum: int = 0) -> int:
    """Refuse a count that is not a whole number at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError("campaign.refused", f"{name} must be a whole number, not {value!r}.")
    if value < minimum:
        raise RuleError("campaign.refused", f"{name} must be at least {minimum}, not {value}.")
    return value


class BetweenBattleStep(enum.StrEnum):
    """One step of the processing between two battles of a campaign."""

    AFTER_ACTION = "after_action"
    QUALITY_POINTS = "quality_points"
    FATIGUE_DROP = "fatigue_drop"
    EXHAUSTED_WITHDRAWAL_TEST = "exhausted_withdrawal_test"
    INJURED_RECOVERY = "injured_recovery"
    QUALITY_RISE = "quality_rise"
    REPLACEMENTS = "replacements"
    REST_AND_REPAIR = "rest_and_repair"


# The digest's suggested order (stargrunt2.md §6.7); only one constraint is the book's own.
BETWEEN_BATTLE_ORDER: tuple[BetweenBattleStep, ...] = (
    BetweenBattleStep.AFTER_ACTION,
    BetweenBattleStep.QUALITY_POINTS,
    BetweenBattleStep.FATIGUE_DROP,
    BetweenBattleStep.EXHAUSTED_WITHDRAWAL_TEST,
    BetweenBattleStep.INJURED_RECOVERY,
    BetweenBattleStep.QUALITY_RISE,
    BetweenBattleStep.REPLACEMENTS,
    BetweenBattleStep.REST_AND_REPAIR,
)

# SG2 P.60 IMPROVING TROOP QUALITY: a rise from points is taken into account BEFORE allocating
# replacements, because the new troops may then drop the quality again.
BOOK_ORDER_CONSTRAINTS: tuple[tuple[BetweenBattleStep, BetweenBattleStep], ...] = (
    (BetweenBattleStep.QUALITY_RISE, BetweenBattleStep.REPLACEMENTS),
)


def check_between_battle_order(order: Sequence[str]) -> tuple[BetweenBattleStep, ...]:
    """Check an umpire's between-battle order against the book; return it as steps.

    SG2 P.60 IMPROVING TROOP QUALITY: quality rises come before replacements. Every step must be
    known and appear at most once; steps may be left out.
    """
    steps: list[BetweenBattleStep] = []
    for name in order:
        try:
            step = BetweenBattleStep(name)
        except ValueError:
            raise CampaignRuleError(
                "campaign.unknown_step",
                f"{name!r} is not a between-battle step; choose from "
                f"{', '.join(step.value for step in BetweenBattleStep)}.",
            ) from None
        if step in steps:
            raise CampaignRuleError(
                "campaign.repeated_step", f"The step {step.value!r} appears more than once."
            )
        steps.append(step)
    for earlier, later in BOOK_ORDER_CONSTRAINTS:
        if earlier in steps and later in steps and steps.index(earlier) > steps.index(later):
            raise CampaignRuleError(
                "campaign.order",
                f"{earlier.value!r} must come before {later.value!r} (SG2 P.60: a quality rise "
                "is taken into account before replacements are allocated).",
            )
    return tuple(steps)


@dataclass(frozen=True, slots=True)
class BattleReadiness:
    """How a unit starts a battle: the fatigue it fights at and its starting confidence, and
    the effect of being unsupplied it suffers, if any."""

    fatigue: Fatigue | None
    confidence: Confidence | None
    unsupplied_effect: UnsuppliedEffect | None


def readiness_for_battle(
    *,
    fatigue: Fatigue | None,
    supplied: bool = True,
    unsupplied_effect: UnsuppliedEffect = UnsuppliedEffect.CONFIDENCE_ONE_LOWER,
) -> BattleReadiness:
    """The fatigue and confidence a unit starts a battle at.

    SG2 P.19: a Fresh unit starts Confident, a Tired one Steady, an Exhausted one Shaken. P.60
    CAMPAIGN GAMES: a force whose logistic support is not provided suffers "VERY greatly" in
    its Confidence and combat efficiency in the next and subsequent battles, with no mechanism;
    option ``unsupplied_effect`` gives one: ``confidence_one_lower`` (default) starts it one
    level lower (Shaken to Broken at worst), ``fatigue_one_worse`` makes it fight one fatigue
    level worse (Exhausted at worst, with the confidence that gives), ``none`` leaves it to the
    umpire. A unit with no fatigue recorded has no starting confidence, and nothing to lower.
    """
    if fatigue is None:
        return BattleReadiness(None, None, None)
    fatigue = Fatigue(fatigue)
    effect = None if supplied or unsupplied_effect is UnsuppliedEffect.NONE else unsupplied_effect
    if effect is UnsuppliedEffect.FATIGUE_ONE_WORSE:
        fatigue = Fatigue(min(fatigue + 1, Fatigue.EXHAUSTED))
    confidence = fatigue.starting_confidence
    if effect is UnsuppliedEffect.CONFIDENCE_ONE_LOWER:
        confidence = Confidence(max(confidence - 1, Confidence.BROKEN))
    return BattleReadiness(fatigue, confidence, effect)
