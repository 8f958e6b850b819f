"""Stargrunt II replacement troops: how many arrive, where they go, and what they do to quality.

SG2 P.60-61 REPLACEMENT TROOPS, and the timing in P.61 REST AND RECOVERY.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from rules.dice import DiceSource, Die, Roll, roll_moot
from rules.errors import RuleError
from rules.sg2.campaign import (
    DEFAULT_FIELD_DOUBLING,
    CampaignRuleError,
    DoubledTime,
    Location,
    require_count,
    time_multiplier,
)
from rules.sg2.scales import Quality


class ReplacementError(CampaignRuleError):
    """Replacements that cannot be assigned as asked; ``code`` starts with ``replacements.``."""


class ReplacementAvailability(enum.Enum):
    """How many replacements the campaign situation provides, and the die rolled per platoon."""

    FEW = Die.D6
    AVERAGE = Die.D8
    GOOD = Die.D10
    PLENTY = Die.D12

    @property
    def die(self) -> Die:
        return self.value


def _as_die(value: Die | int | ReplacementAvailability) -> Die:
    if isinstance(value, ReplacementAvailability):
        return value.die
    try:
        return Die(value)
    except ValueError:
        raise RuleError(
            "replacements.refused",
            f"There is no d{value}: the replacement die is a d4, d6, d8, d10 or d12.",
        ) from None


@dataclass(frozen=True, slots=True)
class PlatoonReplacements:
    """The new soldiers available to fill gaps in one platoon's TO&E."""

    platoon: str
    die: Die
    available: int
    rolls: tuple[Roll, ...]


def roll_platoon_replacements(
    *,
    dice: DiceSource,
    platoon: str,
    replacement_die: Die | int | ReplacementAvailability = Die.D8,
) -> PlatoonReplacements:
    """Roll the number of replacements available to one platoon.

    SG2 P.60 REPLACEMENT TROOPS: one die per PLATOON, its type set by availability: D6 if few,
    D8 if average, and so on up to D12 if plenty. The score is the number of new soldiers.
    Option ``replacement_die`` (D8, average availability; the umpire sets it). One roll.
    """
    die = _as_die(replacement_die)
    roll = dice.roll(die, f"replacements available to platoon {platoon}")
    return PlatoonReplacements(platoon=platoon, die=die, available=roll.result, rolls=(roll,))


@dataclass(frozen=True, slots=True)
class SquadAssignment:
    """Replacements a player assigns to one squad of the platoon, and where the squad is."""

    squad: str
    vacancies: int
    assigned: int
    location: Location


@dataclass(frozen=True, slots=True)
class ReplacementDistribution:
    """A checked distribution of a platoon's replacements between its squads."""

    assignments: tuple[SquadAssignment, ...]
    assigned: int
    unassigned: int
    # Campaign days the receiving squads spend taking in and assigning the new troops.
    days: int


def distribute_replacements(
    *,
    available: int,
    assignments: Sequence[SquadAssignment],
    supplied: bool = True,
    allow_overstrength: bool = True,
    replacement_days: int = 1,
    field_time_multiplier: int = 2,
    field_doubling_applies_to: Collection[str] = DEFAULT_FIELD_DOUBLING,
) -> ReplacementDistribution:
    """Check a player's distribution of replacements among the squads of his platoon.

    SG2 P.60 REPLACEMENT TROOPS: distributed as the player wishes; normally no squad gets more than
    its TO&E vacancies, but extras may make a "reinforced" unit (option ``allow_overstrength``,
    true). P.61: receiving and assigning replacements takes 1 day (option ``replacement_days``)
    and only at a safe area: a unit must be pulled out of the battle line first. The day doubles
    short of supplies ("DOUBLE all times given") while ``field_doubling_applies_to`` names
    replacements, as it does by default; option ``field_time_multiplier``.
    Raises :class:`ReplacementError` with code ``replacements.over_assigned``,
    ``replacements.over_strength``, ``replacements.not_in_safe_area`` or
    ``replacements.duplicate_squad``.
    """
    require_count("Available replacements", available)
    require_count("Days to receive replacements", replacement_days)
    seen: set[str] = set()
    for assignment in assignments:
        require_count(f"Vacancies in squad {assignment.squad}", assignment.vacancies)
        require_count(f"Replacements assigned to squad {assignment.squad}", assignment.assigned)
        if assignment.squad in seen:
            raise ReplacementError(
                "replacements.duplicate_squad",
                f"Squad {assignment.squad} is listed twice; give it one assignment.",
            )
        seen.add(assignment.squad)
        if (
            assignment.assigned
            and not allow_overstrength
            and (assignment.assigned > assignment.vacancies)
        ):
            raise ReplacementError(
                "replacements.over_strength",
                f"Squad {assignment.squad} has {assignment.vacancies} vacancies but was assigned "
                f"{assignment.assigned} replacements, and reinforced units are not allowed.",
            )
        if assignment.assigned and not Location(assignment.location).is_safe:
            raise ReplacementError(
                "replacements.not_in_safe_area",
                f"Squad {assignment.squad} is in the field: a unit must be pulled out of the line "
                "to a safe area before it can receive replacements (SG2 P.61).",
            )
    multiplier = time_multiplier(
        task=DoubledTime.REPLACEMENTS,
        location=Location.SAFE_AREA,
        supplied=supplied,
        field_time_multiplier=field_time_multiplier,
        field_doubling_applies_to=field_doubling_applies_to,
    )
    assigned = sum(assignment.assigned for assignment in assignments)
    if assigned > available:
        raise ReplacementError(
            "replacements.over_assigned",
            f"{assigned} replacements were assigned but only {available} are available.",
        )
    return ReplacementDistribution(
        assignments=tuple(assignments),
        assigned=assigned,
        unassigned=available - assigned,
        days=replacement_days * multiplier if assigned else 0,
    )


def strength_die(existing_members: int) -> Die:
    """The die nearest to a unit's existing strength, rounded up (SG2 P.60 REPLACEMENT TROOPS).

    1-4 -> D4, 5-6 -> D6, 7-8 -> D8, 9-10 -> D10, 11 or more -> D12 (D12 is the nearest die to
    any larger unit).
    """
    require_count("Existing members", existing_members, minimum=1)
    for die in Die:
        if existing_members <= die.value:
            return die
    return Die.D12


@dataclass(frozen=True, slots=True)
class EarlierCheck:
    """The check a unit already took for the replacements it received since its last battle.

    SG2 P.60 makes one check for the new men a unit receives between battles: men assigned
    later are counted by the same check, against the score it rolled (``roll``, None when it
    rolled nothing), and a unit it dropped drops no further.
    """

    replacements: int
    existing_members: int
    die: Die | None
    roll: int | None
    dropped: bool


@dataclass(frozen=True, slots=True)
class ReplacementQualityCheck:
    """Whether a unit's quality survived the replacements it received."""

    quality_before: Quality
    quality: Quality
    dropped: bool
    existing_members: int
    # Every replacement the check counts: these and, after an earlier check, the earlier ones.
    replacements: int
    # The die rolled, or None when the result was certain and nothing was rolled.
    die: Die | None
    improvement_points: int
    rolls: tuple[Roll, ...]
    # The score the outcome rests on: rolled now, or by the earlier check; None if none.
    roll: int | None = None


def check_quality_after_replacements(
    *,
    dice: DiceSource,
    quality: Quality,
    existing_members: int,
    replacements: int,
    returned_from_injury: int = 0,
    improvement_points: int = 0,
    rose_this_round: bool = False,
    green_never_drops_to_untrained: bool = True,
    elite_accepts_ordinary_replacements: bool = False,
    earlier: EarlierCheck | None = None,
) -> ReplacementQualityCheck:
    """Decide whether new soldiers drag a unit's quality down one level.

    SG2 P.60-61 REPLACEMENT TROOPS: roll the die nearest to the number of existing members
    (rounded up, :func:`strength_die`); a score EXCEEDING the number of replacements keeps the
    quality, a score less than or equal to it drops it one level. Injured troopers returning to
    their unit count toward its strength (``returned_from_injury``), not toward the replacements.
    A GREEN unit does not normally drop to UNTRAINED (option ``green_never_drops_to_untrained``,
    true). ELITE units normally get no ordinary replacements (option
    ``elite_accepts_ordinary_replacements``, false: refused); if they do, they are checked as any
    other. If the unit rose this round, a drop leaves its improvement points used up (P.60).
    One roll; when nothing can change (at the floor) or the drop is certain (replacements at
    least the die's faces) the book's die is moot (:func:`rules.dice.roll_moot`). A unit with
    no existing members is re-formed from the new soldiers at GREEN at best (the book is
    silent; the digest's reading).
    One check per unit for all the new men it receives between battles (P.60: "the number of
    replacements being assigned"): with an ``earlier`` check since its last battle, nothing is
    rolled; the earlier score is compared with all the men, and a unit already dropped stays.
    """
    quality = Quality(quality)
    require_count("Existing members", existing_members)
    require_count("Returned injured troopers", returned_from_injury)
    require_count("Replacements", replacements)
    require_count("Improvement points", improvement_points)
    strength = existing_members + returned_from_injury

    def outcome(
        after: Quality, die: Die | None, rolls: tuple[Roll, ...]
    ) -> ReplacementQualityCheck:
        dropped = after < quality
        points = 0 if dropped and rose_this_round else improvement_points
        return ReplacementQualityCheck(
            quality_before=quality,
            quality=after,
            dropped=dropped,
            existing_members=strength,
            replacements=replacements,
            die=die,
            improvement_points=points,
            rolls=rolls,
            roll=rolls[0].result if rolls else None,
        )

    if replacements == 0:
        return outcome(quality, None, ())
    if quality is Quality.ELITE and not elite_accepts_ordinary_replacements:
        raise ReplacementError(
            "replacements.elite_not_eligible",
            "ELITE units are not assigned ordinary replacement troopers unless the umpire allows "
            "it (SG2 P.61).",
        )
    floor = Quality.GREEN if green_never_drops_to_untrained else Quality.UNTRAINED
    if earlier is not None:
        return _counted_by_earlier_check(
            quality, replacements, earlier, floor, improvement_points, rose_this_round
        )
    if strength == 0:
        return outcome(min(quality, Quality.GREEN), None, ())
    die = strength_die(strength)
    purpose = f"quality check for {replacements} replacements joining {strength}"
    if quality <= floor or replacements >= die.value:
        # The book rolls the die all the same (P.60); no face changes the outcome.
        after = quality if quality <= floor else Quality(quality - 1)
        moot = roll_moot(dice, die, purpose)
        return outcome(after, die, (moot,) if moot else ())
    roll = dice.roll(die, purpose)
    after = Quality(quality - 1) if roll.result <= replacements else quality
    return outcome(after, die, (roll,))


def _counted_by_earlier_check(
    quality: Quality,
    replacements: int,
    earlier: EarlierCheck,
    floor: Quality,
    improvement_points: int,
    rose_this_round: bool,
) -> ReplacementQualityCheck:
    """Men counted by the check the unit already made since its last battle (P.60): its score
    against all the men, no new roll; a unit it dropped, or at the floor, stays."""
    counted = earlier.replacements + replacements
    score = earlier.roll
    drops = score is not None and score <= counted and not earlier.dropped and quality > floor
    return ReplacementQualityCheck(
        quality_before=quality,
        quality=Quality(quality - 1) if drops else quality,
        dropped=drops,
        existing_members=earlier.existing_members,
        replacements=counted,
        die=earlier.die,
        improvement_points=0 if drops and rose_this_round else improvement_points,
        rolls=(),
        roll=score,
    )
