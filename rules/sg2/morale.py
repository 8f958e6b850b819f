"""Stargrunt II morale: confidence and reaction tests, panic, the last stand and surrender.

SG2 p.19-21 (MISSION MOTIVATION, FATIGUE LEVEL, CONFIDENCE LEVELS, CONFIDENCE TESTS, THREAT LEVEL
TABLE FOR CONFIDENCE TESTS, REACTION TESTS, THREAT LEVEL TABLE FOR REACTION TESTS, PANIC) and p.53
(THE LAST STAND, SURRENDER AND TAKING PRISONERS).

Every test here is one roll of the unit's quality die, which must EXCEED the unit's leadership value
(LV) plus a threat level (TL); equal is a failure (p.6).

One module on purpose, though long: the threat-level tables and the tests that read them are one
chapter of the book; about half of its lines are the tables and the book's text.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from rules.dice import DiceSource, Die, Roll
from rules.errors import RuleError
from rules.sg2.scales import (
    LEADERSHIP_BEST,
    LEADERSHIP_WORST,
    Confidence,
    MissionMotivation,
    Quality,
)


def check_leadership(leadership: int, *, who: str = "the unit") -> None:
    """Refuse a leadership value outside 1 (best) to 3 (worst) (p.9)."""
    if (
        isinstance(leadership, bool)
        or not isinstance(leadership, int)
        or not LEADERSHIP_BEST <= leadership <= LEADERSHIP_WORST
    ):
        raise RuleError(
            "morale.refused",
            f"The leadership value of {who} must be {LEADERSHIP_BEST} (best) to "
            f"{LEADERSHIP_WORST} (worst), not {leadership!r}.",
        )


def _check_threat_level(threat_level: int) -> None:
    if isinstance(threat_level, bool) or not isinstance(threat_level, int):
        raise RuleError(
            "morale.refused", f"A threat level is a whole number, not {threat_level!r}."
        )


def lower_confidence(confidence: Confidence, levels: int) -> Confidence:
    """Drop a confidence level by ``levels``, never below ROUTED.

    The book never says what a drop below ROUTED means (digest AMBIG-02); the unit stays ROUTED.
    """
    if levels < 0:
        raise RuleError("morale.refused", f"A confidence drop cannot be negative ({levels}).")
    return Confidence(max(Confidence.ROUTED, confidence - levels))


def raise_confidence(
    confidence: Confidence, levels: int, *, ceiling: Confidence = Confidence.CONFIDENT
) -> Confidence:
    """Raise a confidence level by ``levels``, never above ``ceiling`` (CONFIDENT at most, p.54).

    A unit already at or above the ceiling keeps its level: a rise never lowers it.
    """
    if levels < 0:
        raise RuleError("morale.refused", f"A confidence rise cannot be negative ({levels}).")
    if confidence >= ceiling:
        return confidence
    return Confidence(min(ceiling, confidence + levels))


# --- Threat levels for confidence tests (p.20) ---------------------------------------------------


class ThreatKind(enum.Enum):
    """Whether a threat level is basic (highest one applies) or a cumulative "+" modifier (p.20)."""

    BASIC = "basic"
    CUMULATIVE = "cumulative"


@dataclass(frozen=True, slots=True)
class ThreatLevelRow:
    """One row of the confidence threat level table: the level for each mission motivation.

    ``None`` is the book's NTR, "no test required".
    """

    kind: ThreatKind
    low: int | None
    medium: int | None
    high: int | None

    def level(self, motivation: MissionMotivation) -> int | None:
        return (self.low, self.medium, self.high)[motivation]


class ConfidenceCircumstance(enum.Enum):
    """The circumstances that call for a confidence test (p.20 THREAT LEVEL TABLE)."""

    FIRST_SUPPRESSED_BY_FIRE = "first_suppressed_by_fire"
    CASUALTIES_FROM_FIRE = "casualties_from_fire"
    MORE_CASUALTIES_THAN_SURVIVORS = "more_casualties_than_survivors"
    LEADER_CASUALTY = "leader_casualty"
    ARTILLERY_OR_AEROSPACE_ATTACK = "artillery_or_aerospace_attack"
    UNTREATED_CASUALTY = "untreated_casualty"
    ABANDON_WOUNDED = "abandon_wounded"


_BASIC = ThreatKind.BASIC
_PLUS = ThreatKind.CUMULATIVE

CONFIDENCE_THREAT_LEVELS: Mapping[ConfidenceCircumstance, ThreatLevelRow] = MappingProxyType(
    {
        ConfidenceCircumstance.FIRST_SUPPRESSED_BY_FIRE: ThreatLevelRow(_BASIC, 2, 1, None),
        ConfidenceCircumstance.CASUALTIES_FROM_FIRE: ThreatLevelRow(_BASIC, 2, 1, None),
        ConfidenceCircumstance.MORE_CASUALTIES_THAN_SURVIVORS: ThreatLevelRow(_BASIC, 4, 3, 1),
        ConfidenceCircumstance.LEADER_CASUALTY: ThreatLevelRow(_BASIC, 4, 3, 2),
        ConfidenceCircumstance.ARTILLERY_OR_AEROSPACE_ATTACK: ThreatLevelRow(_PLUS, 2, 1, 0),
        ConfidenceCircumstance.UNTREATED_CASUALTY: ThreatLevelRow(_PLUS, 1, 0, None),
        ConfidenceCircumstance.ABANDON_WOUNDED: ThreatLevelRow(_PLUS, 3, 2, 1),
    }
)


def confidence_threat_level(
    *,
    motivation: MissionMotivation,
    circumstances: Iterable[ConfidenceCircumstance],
    untreated_casualties: int = 0,
    artillery_attack_alone_triggers_test: bool = False,
) -> int | None:
    """The threat level of the confidence test one event calls for, or None if no test is due.

    SG2 p.20 THREAT LEVEL TABLE FOR CONFIDENCE TESTS. Of the basic (plain number) levels that
    apply, only the highest counts; every "+" level that applies is added to it, the untreated
    casualty "+" once per untreated casualty in the unit after this event's casualties. NTR rows
    neither trigger a test nor add to one.

    A test is due when a basic circumstance applies that is not NTR for the unit's motivation, or
    when the unit is forced to abandon wounded. Whether being under artillery or aerospace attack
    calls for a test by itself is the option ``artillery_attack_alone_triggers_test`` (default
    False: it only adds to a test something else calls for).
    """
    chosen = frozenset(circumstances)
    if ConfidenceCircumstance.UNTREATED_CASUALTY in chosen:
        raise RuleError(
            "morale.refused",
            "Give the number of untreated casualties as untreated_casualties rather than as a "
            "circumstance: the threat is added once per casualty.",
        )
    if isinstance(untreated_casualties, bool) or untreated_casualties < 0:
        raise RuleError(
            "morale.refused",
            f"The number of untreated casualties cannot be {untreated_casualties!r}.",
        )
    basic_levels = [
        level
        for circumstance in chosen
        if CONFIDENCE_THREAT_LEVELS[circumstance].kind is ThreatKind.BASIC
        and (level := CONFIDENCE_THREAT_LEVELS[circumstance].level(motivation)) is not None
    ]
    triggered = (
        bool(basic_levels)
        or ConfidenceCircumstance.ABANDON_WOUNDED in chosen
        or (
            artillery_attack_alone_triggers_test
            and ConfidenceCircumstance.ARTILLERY_OR_AEROSPACE_ATTACK in chosen
        )
    )
    if not triggered:
        return None
    modifiers = sum(
        CONFIDENCE_THREAT_LEVELS[circumstance].level(motivation) or 0
        for circumstance in chosen
        if CONFIDENCE_THREAT_LEVELS[circumstance].kind is ThreatKind.CUMULATIVE
    )
    per_untreated = (
        CONFIDENCE_THREAT_LEVELS[ConfidenceCircumstance.UNTREATED_CASUALTY].level(motivation) or 0
    )
    return max(basic_levels, default=0) + modifiers + per_untreated * untreated_casualties


# --- Confidence tests (p.20) ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ConfidenceTestOutcome:
    """The result of one confidence test."""

    passed: bool
    levels_lost: int
    target: int
    confidence_before: Confidence
    confidence_after: Confidence
    rolls: tuple[Roll, ...]


def confidence_test(
    *,
    dice: DiceSource,
    quality: Quality,
    leadership: int,
    threat_level: int,
    confidence: Confidence,
) -> ConfidenceTestOutcome:
    """Decide whether a unit keeps its nerve, or loses one or two confidence levels.

    SG2 p.20 CONFIDENCE TESTS. Roll the quality die once against LV + TL:
    higher passes; equal or lower drops one level; half the target or less drops two levels.
    A test that cannot be passed is still rolled, to tell one level from two. The result never
    goes below ROUTED (digest AMBIG-02).
    """
    check_leadership(leadership)
    _check_threat_level(threat_level)
    target = leadership + threat_level
    roll = dice.roll(quality.die, "confidence test")
    if roll.result > target:
        levels_lost = 0
    elif 2 * roll.result <= target:
        levels_lost = 2
    else:
        levels_lost = 1
    return ConfidenceTestOutcome(
        passed=levels_lost == 0,
        levels_lost=levels_lost,
        target=target,
        confidence_before=confidence,
        confidence_after=lower_confidence(confidence, levels_lost),
        rolls=(roll,),
    )


@dataclass(frozen=True, slots=True)
class ConfidenceEventOutcome:
    """Whether an event called for a confidence test, and the test if it did."""

    required: bool
    threat_level: int | None
    test: ConfidenceTestOutcome | None
    confidence_after: Confidence
    rolls: tuple[Roll, ...]


def confidence_test_for_event(
    *,
    dice: DiceSource,
    quality: Quality,
    leadership: int,
    confidence: Confidence,
    motivation: MissionMotivation,
    circumstances: Iterable[ConfidenceCircumstance],
    untreated_casualties: int = 0,
    artillery_attack_alone_triggers_test: bool = False,
) -> ConfidenceEventOutcome:
    """Decide whether one event shakes a unit: the threat level, then the test if one is due.

    SG2 p.20 CONFIDENCE TESTS and THREAT LEVEL TABLE. One event (one fire resolution, one
    artillery strike, one withdrawal) gives one test combining everything it caused; see
    :func:`confidence_threat_level` for the table and the option
    ``artillery_attack_alone_triggers_test``. No die is rolled when no test is due.
    """
    check_leadership(leadership)
    threat_level = confidence_threat_level(
        motivation=motivation,
        circumstances=circumstances,
        untreated_casualties=untreated_casualties,
        artillery_attack_alone_triggers_test=artillery_attack_alone_triggers_test,
    )
    if threat_level is None:
        return ConfidenceEventOutcome(
            required=False,
            threat_level=None,
            test=None,
            confidence_after=confidence,
            rolls=(),
        )
    test = confidence_test(
        dice=dice,
        quality=quality,
        leadership=leadership,
        threat_level=threat_level,
        confidence=confidence,
    )
    return ConfidenceEventOutcome(
        required=True,
        threat_level=threat_level,
        test=test,
        confidence_after=test.confidence_after,
        rolls=test.rolls,
    )


# --- Reaction tests (p.21) ------------------------------------------------------------------------


class ReactionCircumstance(enum.Enum):
    """The reaction test circumstances of the p.21 table, and the panic test (p.21 PANIC)."""

    IN_POSITION_IN_OPEN = "in_position_in_open"
    IN_POSITION_IN_COVER = "in_position_in_cover"
    MOVE_WITHOUT_REMOVING_IN_POSITION = "move_without_removing_in_position"
    SHAKEN_LEAVES_COVER_AND_ADVANCES = "shaken_leaves_cover_and_advances"
    PANIC = "panic"


REACTION_THREAT_LEVELS: Mapping[ReactionCircumstance, int] = MappingProxyType(
    {
        ReactionCircumstance.IN_POSITION_IN_OPEN: 2,
        ReactionCircumstance.IN_POSITION_IN_COVER: 0,
        ReactionCircumstance.MOVE_WITHOUT_REMOVING_IN_POSITION: 2,
        ReactionCircumstance.SHAKEN_LEAVES_COVER_AND_ADVANCES: 2,
        ReactionCircumstance.PANIC: 0,
    }
)


@dataclass(frozen=True, slots=True)
class ReactionTestOutcome:
    """The result of one reaction test: whether the unit carries out the order."""

    passed: bool
    target: int
    rolls: tuple[Roll, ...]


def reaction_test(
    *, dice: DiceSource, quality: Quality, leadership: int, threat_level: int
) -> ReactionTestOutcome:
    """Decide whether a unit carries out an order it may not have the nerve for.

    SG2 p.21 REACTION TESTS. Roll the quality die against LV + TL: higher passes; failing never
    changes the confidence level, the action is simply not carried out. Mission motivation does
    not change reaction threat levels. The p.21 table is :data:`REACTION_THREAT_LEVELS`; the umpire
    may set others (close assault p.41, p.43 and so on).
    """
    check_leadership(leadership)
    _check_threat_level(threat_level)
    target = leadership + threat_level
    roll = dice.roll(quality.die, "reaction test")
    return ReactionTestOutcome(passed=roll.result > target, target=target, rolls=(roll,))


# --- Panic (p.21) ---------------------------------------------------------------------------------


class PanicTrigger(enum.Enum):
    """The first-contact events that can make low-quality troops panic (p.21 PANIC)."""

    FIRST_SIGHT_OF_ENEMY = "first_sight_of_enemy"
    FIRST_FIRED_ON = "first_fired_on"
    FIRST_SIGHT_OF_ARMOUR_OR_POWER_ARMOUR = "first_sight_of_armour_or_power_armour"
    FIRST_TERROR_ATTACK = "first_terror_attack"


PANIC_TRIGGERS: Mapping[Quality, frozenset[PanicTrigger]] = MappingProxyType(
    {
        Quality.UNTRAINED: frozenset({PanicTrigger.FIRST_SIGHT_OF_ENEMY}),
        Quality.GREEN: frozenset(
            {PanicTrigger.FIRST_FIRED_ON, PanicTrigger.FIRST_SIGHT_OF_ARMOUR_OR_POWER_ARMOUR}
        ),
        Quality.REGULAR: frozenset({PanicTrigger.FIRST_TERROR_ATTACK}),
        Quality.VETERAN: frozenset(),
        Quality.ELITE: frozenset(),
    }
)


def panic_test_required(
    *, quality: Quality, trigger: PanicTrigger, immune_to_panic: bool = False
) -> bool:
    """Whether an event makes a unit test for panic.

    SG2 p.21 PANIC. UNTRAINED test on first sight of any enemy; GREEN when first fired on or on
    first sight of enemy armour or power armour; REGULAR when first attacked by a TERROR enemy;
    VETERAN and ELITE never. A unit that has passed a panic test, or shaken off a panic marker,
    is immune for the rest of the game.
    """
    return not immune_to_panic and trigger in PANIC_TRIGGERS[quality]


@dataclass(frozen=True, slots=True)
class PanicTestOutcome:
    """The result of a panic test: a failed test puts a PANIC marker on the unit."""

    panicked: bool
    immune_to_panic: bool
    rolls: tuple[Roll, ...]


def panic_test(*, dice: DiceSource, quality: Quality, leadership: int) -> PanicTestOutcome:
    """Decide whether a unit freezes at first contact.

    SG2 p.21 PANIC: a reaction test at TL 0 (the quality die must exceed the LV). Fail: PANIC
    marker, the unit does nothing at all. Pass: immune to panic for the rest of the game.
    """
    test = reaction_test(
        dice=dice,
        quality=quality,
        leadership=leadership,
        threat_level=REACTION_THREAT_LEVELS[ReactionCircumstance.PANIC],
    )
    return PanicTestOutcome(panicked=not test.passed, immune_to_panic=test.passed, rolls=test.rolls)


@dataclass(frozen=True, slots=True)
class PanicRemovalOutcome:
    """The result of a leader's attempt to remove a PANIC marker."""

    removed: bool
    levels_lost: int
    confidence_after: Confidence
    rolls: tuple[Roll, ...]


def remove_panic(
    *, dice: DiceSource, quality: Quality, leadership: int, confidence: Confidence
) -> PanicRemovalOutcome:
    """Decide whether a panicking unit recovers, and whether a failed try costs confidence.

    SG2 p.21 PANIC. The leader spends both actions on a reaction test at TL 0. Success removes the
    marker for good (the unit is immune thereafter); a failure on which the die shows 1 also costs
    one confidence level.
    """
    test = reaction_test(
        dice=dice,
        quality=quality,
        leadership=leadership,
        threat_level=REACTION_THREAT_LEVELS[ReactionCircumstance.PANIC],
    )
    levels_lost = 1 if not test.passed and test.rolls[0].result == 1 else 0
    return PanicRemovalOutcome(
        removed=test.passed,
        levels_lost=levels_lost,
        confidence_after=lower_confidence(confidence, levels_lost),
        rolls=test.rolls,
    )


# --- The last stand and surrender (p.53) ----------------------------------------------------------

LAST_STAND_ENDS_AT = Confidence.STEADY
"""The confidence a last-stand unit gets back when every visible enemy retreats (p.53)."""

LAST_STAND_MINIMUM_ENEMY_UNITS = 3


class LastStandResult(enum.Enum):
    """What comes of a last stand test (p.53)."""

    LAST_STAND = "last_stand"
    SURRENDERS = "surrenders"
    FLED = "fled"


@dataclass(frozen=True, slots=True)
class LastStandOutcome:
    """The result of a last stand test. A LAST STAND marker replaces the confidence marker."""

    result: LastStandResult
    rolls: tuple[Roll, ...]

    @property
    def stands(self) -> bool:
        return self.result is LastStandResult.LAST_STAND


def last_stand(
    *,
    dice: DiceSource,
    confidence: Confidence,
    in_cover_or_in_position: bool,
    friendly_units_within_12: int,
    qualifying_enemy_units_in_sight: int,
    enemy_within_12: bool,
    surrender_applies: bool = True,
    last_stand_enabled: bool = True,
    last_stand_success_on: int = 6,
) -> LastStandOutcome:
    """Decide whether a cut-off unit makes a heroic last stand or disintegrates.

    SG2 p.53 THE LAST STAND. A voluntary test for a unit in cover and/or in position, with no
    friendly unit within 12", at least three enemy units in sight that are not BROKEN, ROUTED or
    voluntarily retreating, and confidence SHAKEN or better. Roll a D6: 6 makes the stand (no more
    confidence or reaction tests, suppression ignored; back to STEADY when all visible enemies
    retreat); 1-5 and the unit disintegrates: it surrenders to enemies within 12" if surrender
    applies in the scenario, otherwise its figures flee the table.

    Options: ``last_stand_enabled`` (default True) and ``last_stand_success_on`` (default 6; the
    designer invites the umpire to change the odds for storied or poor units).
    """
    if not last_stand_enabled:
        raise RuleError("morale.refused", "The last stand rule is not in use in this campaign.")
    if (
        isinstance(last_stand_success_on, bool)
        or not isinstance(last_stand_success_on, int)
        or not 1 <= last_stand_success_on <= 6
    ):
        raise RuleError(
            "morale.refused",
            "A last stand succeeds on a D6 score of 1 to 6 or more, "
            f"not {last_stand_success_on!r}.",
        )
    if confidence < Confidence.SHAKEN:
        raise RuleError(
            "morale.refused",
            f"A {confidence.name} unit may not attempt a last stand: it must be SHAKEN or better.",
        )
    if not in_cover_or_in_position:
        raise RuleError("morale.refused", "A last stand can only be made in cover or in position.")
    if friendly_units_within_12 > 0:
        raise RuleError(
            "morale.refused", "A last stand needs no other friendly unit within 12 inches."
        )
    if qualifying_enemy_units_in_sight < LAST_STAND_MINIMUM_ENEMY_UNITS:
        raise RuleError(
            "morale.refused",
            "A last stand needs at least three enemy units in sight that are not broken, routed "
            f"or retreating; there are {qualifying_enemy_units_in_sight}.",
        )
    roll = dice.roll(Die.D6, "last stand")
    if roll.result >= last_stand_success_on:
        result = LastStandResult.LAST_STAND
    elif enemy_within_12 and surrender_applies:
        result = LastStandResult.SURRENDERS
    else:
        result = LastStandResult.FLED
    return LastStandOutcome(result=result, rolls=(roll,))


class RoutedFate(enum.Enum):
    """What a routed unit does (p.21 ROUTED, p.53 SURRENDER AND TAKING PRISONERS)."""

    WITHDRAWS = "withdraws"
    SURRENDERS = "surrenders"
    DISINTEGRATES = "disintegrates"


def routed_unit_fate(
    *,
    confidence: Confidence,
    can_withdraw_without_approaching_enemy: bool,
    enemy_within_12: bool,
    enemy_takes_prisoners: bool = True,
) -> RoutedFate:
    """Decide whether a routed unit withdraws, surrenders or disintegrates (no dice).

    SG2 p.53 SURRENDER AND TAKING PRISONERS. A ROUTED unit that cannot withdraw without moving
    closer to a located enemy surrenders to an enemy unit within 12"; with none within 12" it
    disintegrates (figures removed). Troops do not surrender to an enemy they know takes no
    prisoners; the book does not say what they do instead, and Muster reads it as disintegrating.
    """
    if confidence is not Confidence.ROUTED:
        raise RuleError(
            "morale.refused",
            f"Only a ROUTED unit surrenders or disintegrates, not a {confidence.name}.",
        )
    if can_withdraw_without_approaching_enemy:
        return RoutedFate.WITHDRAWS
    if enemy_within_12 and enemy_takes_prisoners:
        return RoutedFate.SURRENDERS
    return RoutedFate.DISINTEGRATES


PRISONERS_PER_GUARD = 6


def escort_guards_needed(prisoners: int) -> int:
    """Guards a unit must detach to send prisoners to the rear: one per six or fewer (p.53)."""
    if isinstance(prisoners, bool) or not isinstance(prisoners, int) or prisoners < 0:
        raise RuleError("morale.refused", f"The number of prisoners cannot be {prisoners!r}.")
    return math.ceil(prisoners / PRISONERS_PER_GUARD)
