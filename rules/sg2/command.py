"""Stargrunt II command: communications, rallying, regrouping and the unit leader.

SG2 p.8 COMMAND LEVELS, p.10 UNDER-STRENGTH UNITS and LOSS OF UNIT LEADER, p.16 COMMUNICATIONS and
TRANSFERRING ACTIONS, p.17 THE RALLY ACTION and REGROUPING, p.52 Jamming Communications.

One module on purpose, at about 500 lines: every procedure here rolls the communication die or
reads the command levels, which the module defines.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from rules.dice import DiceSource, Die, Roll, shift_die
from rules.errors import RuleError
from rules.sg2.morale import (
    ConfidenceCircumstance,
    ConfidenceEventOutcome,
    check_leadership,
    confidence_test_for_event,
    raise_confidence,
)
from rules.sg2.scales import (
    LEADERSHIP_BEST,
    LEADERSHIP_WORST,
    Confidence,
    Fatigue,
    MissionMotivation,
    Quality,
)
from rules.sg2.suppression import place_markers


class CommandLevel(enum.IntEnum):
    """Command levels, smallest first (p.8 COMMAND LEVELS)."""

    SQUAD = 0
    PLATOON = 1
    COMPANY = 2
    BATTALION = 3
    REGIMENT = 4


def bypassed_levels(first: CommandLevel, second: CommandLevel) -> int:
    """How many command levels a message skips between two units (p.16).

    Company to platoon skips none; company to squad skips one.
    """
    return max(0, abs(first - second) - 1)


class EwSystem(enum.IntEnum):
    """Electronic warfare equipment levels and their die (p.52)."""

    BASIC = Die.D6
    ENHANCED = Die.D8
    SUPERIOR = Die.D10


EW_MARKERS_PER_ACTIVATION = 3


def ew_jamming_die(*, system: EwSystem, markers: int = 1) -> Die:
    """The die an EW unit rolls to jam, boosted one type per extra EW marker (p.52).

    SG2 p.52 ELECTRONIC WARFARE: BASIC D6, ENHANCED D8, SUPERIOR D10; each marker beyond the first
    raises the die one type, never above D12. A unit has at most three markers.
    """
    if isinstance(markers, bool) or not 1 <= markers <= EW_MARKERS_PER_ACTIVATION:
        raise RuleError("command.refused", f"An EW task uses 1 to 3 EW markers, not {markers!r}.")
    return shift_die(Die(system.value), markers - 1)


@dataclass(frozen=True, slots=True)
class CommunicationOutcome:
    """The result of a communication attempt between two units."""

    success: bool
    direct_contact: bool
    die: Die | None
    target: int | None
    jammed: bool
    rolls: tuple[Roll, ...]


def communicate(
    *,
    dice: DiceSource,
    sender_quality: Quality,
    sender_leadership: int,
    receiver_leadership: int,
    sender_level: CommandLevel,
    receiver_level: CommandLevel,
    direct_contact: bool = False,
    jamming_die: Die | None = None,
) -> CommunicationOutcome:
    """Decide whether a message between two units gets through.

    SG2 p.16 COMMUNICATIONS. Roll the sender's quality die, one type lower for each command
    level bypassed between the two units (never below D4); the score must exceed the poorer
    (numerically higher) LV of the two. A superior within 6" is in direct contact: no roll and no
    jamming. Transferring actions (p.16) is this roll with the commander as sender.

    EW (p.52): if the opponent commits an EW unit, give its die (:func:`ew_jamming_die`); it is
    rolled after the sender's die and jams the message if it beats the sender's score, whether or
    not the message would otherwise have got through.
    """
    check_leadership(sender_leadership, who="the sender")
    check_leadership(receiver_leadership, who="the receiver")
    if direct_contact:
        if jamming_die is not None:
            raise RuleError(
                "command.refused", "Units in direct contact cannot be jammed: no radio is used."
            )
        return CommunicationOutcome(
            success=True, direct_contact=True, die=None, target=None, jammed=False, rolls=()
        )
    return communication_roll(
        dice=dice,
        die=shift_die(sender_quality.die, -bypassed_levels(sender_level, receiver_level)),
        sender_leadership=sender_leadership,
        receiver_leadership=receiver_leadership,
        jamming_die=jamming_die,
    )


def communication_roll(
    *,
    dice: DiceSource,
    die: Die,
    sender_leadership: int,
    receiver_leadership: int,
    jamming_die: Die | None = None,
) -> CommunicationOutcome:
    """Roll a communication with a die already shifted for the command levels it bypasses.

    SG2 p.16 COMMUNICATIONS and p.52 Jamming Communications: the die must exceed the poorer LV of
    the two parties; an EW die rolled after it jams the message if it beats the sender's score.
    Casevac calls (p.54) shift the die their own way and use this directly.
    """
    check_leadership(sender_leadership, who="the sender")
    check_leadership(receiver_leadership, who="the receiver")
    target = max(sender_leadership, receiver_leadership)
    roll = dice.roll(die, "communication")
    rolls = [roll]
    jammed = False
    if jamming_die is not None:
        jam = dice.roll(jamming_die, "EW jamming of the communication")
        rolls.append(jam)
        jammed = jam.result > roll.result
    return CommunicationOutcome(
        success=roll.result > target and not jammed,
        direct_contact=False,
        die=die,
        target=target,
        jammed=jammed,
        rolls=tuple(rolls),
    )


# --- Rally (p.17, p.19) ---------------------------------------------------------------------------


def rally_ceiling(fatigue: Fatigue) -> Confidence:
    """The highest confidence a rally can restore: the unit's starting level for its fatigue.

    SG2 p.19 FATIGUE LEVEL: troops that start at ST or SH because of fatigue may not be rallied
    above that starting level during the game.
    """
    return fatigue.starting_confidence


@dataclass(frozen=True, slots=True)
class RallyOutcome:
    """The result of a rally attempt: the communication (if needed), then the rally test."""

    communication: CommunicationOutcome
    rallied: bool
    target: int | None
    confidence_before: Confidence
    confidence_after: Confidence
    rolls: tuple[Roll, ...]


def rally(
    *,
    dice: DiceSource,
    rallied_quality: Quality,
    rallied_leadership: int,
    rallied_confidence: Confidence,
    rallied_level: CommandLevel,
    rallier_quality: Quality,
    rallier_leadership: int,
    rallier_level: CommandLevel,
    rallied_fatigue: Fatigue = Fatigue.FRESH,
    direct_contact: bool = False,
    jamming_die: Die | None = None,
) -> RallyOutcome:
    """Decide whether a superior command unit restores one level of a unit's confidence.

    SG2 p.17 THE RALLY ACTION. First a communication from the rallier to the rallied unit
    (:func:`communicate`, skipped in direct contact); if it gets through, the rallied unit rolls
    its own quality die and must exceed the SUM of both units' LVs. Success raises its
    confidence one level, never above CONFIDENT nor above the level its fatigue started it at
    (p.19). Dice: the communication die (and any jamming die), then the rally die.
    """
    check_leadership(rallied_leadership, who="the rallied unit")
    check_leadership(rallier_leadership, who="the rallying unit")
    if rallier_level <= rallied_level:
        raise RuleError(
            "command.refused",
            f"Only a superior command unit can rally: a {rallier_level.name.lower()} unit cannot "
            f"rally a {rallied_level.name.lower()} unit.",
        )
    ceiling = rally_ceiling(rallied_fatigue)
    if rallied_confidence >= ceiling:
        raise RuleError(
            "command.refused",
            f"A {rallied_fatigue.name} unit at {rallied_confidence.name} cannot be rallied any "
            f"higher: rallying stops at {ceiling.name}.",
        )
    communication = communicate(
        dice=dice,
        sender_quality=rallier_quality,
        sender_leadership=rallier_leadership,
        receiver_leadership=rallied_leadership,
        sender_level=rallier_level,
        receiver_level=rallied_level,
        direct_contact=direct_contact,
        jamming_die=jamming_die,
    )
    if not communication.success:
        return RallyOutcome(
            communication=communication,
            rallied=False,
            target=None,
            confidence_before=rallied_confidence,
            confidence_after=rallied_confidence,
            rolls=communication.rolls,
        )
    target = rallied_leadership + rallier_leadership
    roll = dice.roll(rallied_quality.die, "rally test")
    rallied = roll.result > target
    return RallyOutcome(
        communication=communication,
        rallied=rallied,
        target=target,
        confidence_before=rallied_confidence,
        confidence_after=(
            raise_confidence(rallied_confidence, 1, ceiling=ceiling)
            if rallied
            else rallied_confidence
        ),
        rolls=(*communication.rolls, roll),
    )


# --- Regrouping (p.17) ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RegroupingUnit:
    """One depleted unit taking part in a regroup."""

    strength: int
    quality: Quality
    leadership: int
    confidence: Confidence
    fatigue: Fatigue = Fatigue.FRESH


@dataclass(frozen=True, slots=True)
class RegroupOutcome:
    """The new unit formed by regrouping."""

    strength: int
    quality: Quality
    leadership: int
    confidence: Confidence
    fatigue: Fatigue
    rolls: tuple[Roll, ...] = ()


def regroup(
    *,
    units: Sequence[RegroupingUnit],
    regroup_quality_tie: Literal["lower", "higher"] = "lower",
    regroup_fatigue: Literal["worse", "better"] = "worse",
) -> RegroupOutcome:
    """Combine two or more depleted units into one new unit (no dice).

    SG2 p.17 REGROUPING. The new unit has the BETTER (lower) of the leaders' LVs, the quality of
    the unit with more men, and the average of the confidence levels, rounded up (toward
    CONFIDENT, digest AMBIG-19).

    The book is silent on a tie in numbers and on fatigue. Options: ``regroup_quality_tie``
    ("lower", default, or "higher" quality among the largest units) and ``regroup_fatigue``
    ("worse", default, or "better" fatigue of the units).
    """
    if len(units) < 2:
        raise RuleError("command.refused", "Regrouping needs at least two units.")
    if regroup_quality_tie not in ("lower", "higher"):
        raise RuleError(
            "command.refused",
            f"regroup_quality_tie is 'lower' or 'higher', not {regroup_quality_tie!r}.",
        )
    if regroup_fatigue not in ("worse", "better"):
        raise RuleError(
            "command.refused", f"regroup_fatigue is 'worse' or 'better', not {regroup_fatigue!r}."
        )
    for unit in units:
        check_leadership(unit.leadership)
        if isinstance(unit.strength, bool) or unit.strength < 1:
            raise RuleError(
                "command.refused",
                f"A regrouping unit needs at least one man, not {unit.strength!r}.",
            )
    largest = max(unit.strength for unit in units)
    qualities = [unit.quality for unit in units if unit.strength == largest]
    quality = min(qualities) if regroup_quality_tie == "lower" else max(qualities)
    fatigues = [unit.fatigue for unit in units]
    fatigue = max(fatigues) if regroup_fatigue == "worse" else min(fatigues)
    confidence = Confidence(math.ceil(sum(unit.confidence for unit in units) / len(units)))
    return RegroupOutcome(
        strength=sum(unit.strength for unit in units),
        quality=quality,
        leadership=min(unit.leadership for unit in units),
        confidence=confidence,
        fatigue=fatigue,
    )


def regroup_persists_after_battle(
    *,
    regroup_persists: Literal["umpire", "persists", "dissolves"] = "umpire",
    kept_by_umpire: bool = False,
) -> bool:
    """Whether units regrouped during a battle stay one unit once the battle is over.

    SG2 p.17 REGROUPING forms the new unit for the game and says nothing of the campaign after it
    (digest AMBIG-19). Option ``regroup_persists``: ``"persists"`` keeps every merger,
    ``"dissolves"`` sends every man back to his own unit, and ``"umpire"`` (default) keeps the
    mergers the umpire names as the battle ends (``kept_by_umpire``) and dissolves the others.
    """
    if regroup_persists not in ("umpire", "persists", "dissolves"):
        raise RuleError(
            "command.refused",
            f"regroup_persists is 'umpire', 'persists' or 'dissolves', not {regroup_persists!r}.",
        )
    if regroup_persists == "umpire":
        return kept_by_umpire
    return regroup_persists == "persists"


# --- The unit leader (p.10) -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SuccessorOutcome:
    """The leadership value of the man who takes over a unit."""

    leadership_before: int
    leadership: int
    rolls: tuple[Roll, ...]


def successor_leadership(*, dice: DiceSource, leadership: int) -> SuccessorOutcome:
    """Decide how good the next man in the chain of seniority is as a leader.

    SG2 p.10 LOSS OF UNIT LEADER. Roll one D6 against the lost leader's LV: 1-2 one level worse,
    3-5 the same, 6 one level better. LV stays within 1..3 (a level-3 leader's second is a 3 on
    1-5 and a 2 on a 6).
    """
    check_leadership(leadership)
    roll = dice.roll(Die.D6, "leadership of the new unit leader")
    if roll.result <= 2:
        shift = 1
    elif roll.result <= 5:
        shift = 0
    else:
        shift = -1
    new_leadership = min(max(leadership + shift, LEADERSHIP_BEST), LEADERSHIP_WORST)
    return SuccessorOutcome(leadership_before=leadership, leadership=new_leadership, rolls=(roll,))


@dataclass(frozen=True, slots=True)
class LeaderLossOutcome:
    """Everything that happens when a unit's leader becomes a casualty."""

    suppression_markers: int
    confidence_test: ConfidenceEventOutcome
    successor: SuccessorOutcome
    leadership: int
    confidence_after: Confidence
    rolls: tuple[Roll, ...]


def loss_of_unit_leader(
    *,
    dice: DiceSource,
    quality: Quality,
    leadership: int,
    confidence: Confidence,
    motivation: MissionMotivation,
    suppression_markers: int = 0,
    other_circumstances: Iterable[ConfidenceCircumstance] = (),
    untreated_casualties: int = 0,
    artillery_attack_alone_triggers_test: bool = False,
) -> LeaderLossOutcome:
    """Resolve a unit leader becoming a casualty: suppression, confidence test, new leader.

    SG2 p.10 LOSS OF UNIT LEADER. At once the unit gets one suppression marker (even at HIGH
    motivation; at most three), takes a confidence test at the "Unit Leader becomes casualty"
    threat level (LOW 4, MEDIUM 3, HIGH 2) combined with whatever else the same event caused
    (p.20), and the second-in-command takes over with an LV rolled by
    :func:`successor_leadership`.

    The test is taken with the LV on the unit's marker when the leader falls, before the new
    leader is known. Dice: the quality die for the confidence test, then the D6 for the new LV.
    """
    markers = place_markers(suppression_markers)
    test = confidence_test_for_event(
        dice=dice,
        quality=quality,
        leadership=leadership,
        confidence=confidence,
        motivation=motivation,
        circumstances={ConfidenceCircumstance.LEADER_CASUALTY, *other_circumstances},
        untreated_casualties=untreated_casualties,
        artillery_attack_alone_triggers_test=artillery_attack_alone_triggers_test,
    )
    successor = successor_leadership(dice=dice, leadership=leadership)
    return LeaderLossOutcome(
        suppression_markers=markers.after,
        confidence_test=test,
        successor=successor,
        leadership=successor.leadership,
        confidence_after=test.confidence_after,
        rolls=(*test.rolls, *successor.rolls),
    )


# --- Under-strength units (p.10) ------------------------------------------------------------------

UNDER_STRENGTH_DIE: dict[Fatigue, Die] = {
    Fatigue.FRESH: Die.D10,
    Fatigue.TIRED: Die.D8,
    Fatigue.EXHAUSTED: Die.D6,
}


@dataclass(frozen=True, slots=True)
class UnderStrengthOutcome:
    """Which figures of a full-strength unit are missing from a one-off game."""

    applied: bool
    absent: tuple[str, ...]
    present: tuple[str, ...]
    leader_absent: bool
    successor: SuccessorOutcome | None
    leadership: int
    rolls: tuple[Roll, ...]


def under_strength(
    *,
    dice: DiceSource,
    fatigue: Fatigue,
    figures: Sequence[str],
    leader: str | None,
    leadership: int,
    campaign_game: bool = False,
    understrength_roll_in_campaign: bool = False,
) -> UnderStrengthOutcome:
    """Decide which figures of a full-strength unit are absent before a one-off game.

    SG2 p.10 UNDER-STRENGTH UNITS. Roll one die per figure, in roster order: D10 if the unit is
    FRESH, D8 if TIRED, D6 if EXHAUSTED. Every figure that rolls a 1 is absent. If the leader is
    absent, his successor's LV is rolled as for a lost leader (:func:`successor_leadership`, one
    more D6), without the suppression or the confidence test. An absent support or special weapon
    trooper's weapon is absent too.

    The book recommends the rule for one-off games; linked games have real attrition. Option
    ``understrength_roll_in_campaign`` (default False): in a campaign game no die is rolled.
    """
    check_leadership(leadership)
    if len(set(figures)) != len(figures):
        raise RuleError("command.refused", "Each figure of the unit must be listed once.")
    if leader is not None and leader not in figures:
        raise RuleError(
            "command.refused", f"The leader {leader!r} is not one of the unit's figures."
        )
    if campaign_game and not understrength_roll_in_campaign:
        return UnderStrengthOutcome(
            applied=False,
            absent=(),
            present=tuple(figures),
            leader_absent=False,
            successor=None,
            leadership=leadership,
            rolls=(),
        )
    die = UNDER_STRENGTH_DIE[fatigue]
    rolls = [dice.roll(die, f"presence of {figure}") for figure in figures]
    absent = tuple(figure for figure, roll in zip(figures, rolls, strict=True) if roll.result == 1)
    present = tuple(figure for figure in figures if figure not in absent)
    successor = None
    if leader is not None and leader in absent:
        successor = successor_leadership(dice=dice, leadership=leadership)
        rolls.extend(successor.rolls)
    return UnderStrengthOutcome(
        applied=True,
        absent=absent,
        present=present,
        leader_absent=successor is not None,
        successor=successor,
        leadership=successor.leadership if successor is not None else leadership,
        rolls=tuple(rolls),
    )
