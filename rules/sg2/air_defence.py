"""Stargrunt II Air Defence Environment: the enemy's air defences an aircraft runs through on its
way onto the table and off it again.

SG2 p.48 THE AIR DEFENCE ENVIRONMENT, EFFECTS OF THE AIR DEFENCE ENVIRONMENT; p.45 UNITS LEAVING
THE BATTLE AREA (the check on the way out, one die type lower); p.49 (all aboard a destroyed air
vehicle are killed).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from rules.dice import DiceSource, Die, Roll, beats_target, shift_die, wins_opposed
from rules.errors import RuleError
from rules.sg2.morale import check_leadership
from rules.sg2.scales import Quality
from rules.sg2.vehicles import VehicleArmour


class AirDefence(enum.Enum):
    """The level of a side's anti-air coverage around the battle area (p.48)."""

    NONE = "none"
    MINIMAL = "minimal"
    LOW = "low"
    MODERATE = "moderate"
    HIGH = "high"
    EXTREME = "extreme"

    @property
    def die(self) -> Die | None:
        """The ADE die (p.48): MINIMAL D4, LOW D6, MODERATE D8, HIGH D10, EXTREME D12; with NO ADE
        there is nothing to roll."""
        return _ADE_DIE[self]


_ADE_DIE: dict[AirDefence, Die | None] = {
    AirDefence.NONE: None,
    AirDefence.MINIMAL: Die.D4,
    AirDefence.LOW: Die.D6,
    AirDefence.MODERATE: Die.D8,
    AirDefence.HIGH: Die.D10,
    AirDefence.EXTREME: Die.D12,
}

PRESS_ON_THREAT_LEVEL = 2
"""A pilot whose aircraft the air defences acquire takes a reaction test at threat level +2 to
press on (p.48)."""

DEFAULT_ECM_DIE = Die.D4
"""An aircraft with no ECM suite rolls a D4 against the ADE (p.48)."""


def ade_die(ade: AirDefence, *, leaving: bool) -> Die | None:
    """The die the ADE rolls against an aircraft, or None if there is no ADE.

    p.48: the level's die on the way in. p.45 UNITS LEAVING THE BATTLE AREA: on the way out
    (Battle Area to box 1) the ADE counts one die type lower, the defences watching what comes in
    rather than what leaves. The shift is closed (p.6): a MINIMAL ADE stays a D4, as an aircraft
    with no ECM stays on its D4 when hovering (p.49).
    """
    die = ade.die
    if die is None or not leaving:
        return die
    return shift_die(die, -1)


class AirDefenceResult(enum.Enum):
    """How an aircraft fared against the ADE."""

    UNOPPOSED = "unopposed"  # no ADE: nothing rolled
    PENETRATED = "penetrated"  # through the defences: it reaches the table (or leaves) normally
    ABORTED = "aborted"  # acquired, and its pilot turned back, by choice or for want of nerve
    SHOT_DOWN = "shot_down"  # lost, with everyone aboard


@dataclass(frozen=True, slots=True)
class AirDefenceOutcome:
    """The ADE check and its dice, in the order rolled."""

    result: AirDefenceResult
    die: Die | None
    leaving: bool
    acquired: bool
    # Whether the pilot meant to press on once acquired (None: not acquired).
    pressed_on: bool | None
    # The pilot's reaction test to press on: the score to beat and whether he did (None: no test).
    reaction_target: int | None
    reaction_passed: bool | None
    rolls: tuple[Roll, ...]

    @property
    def aboard_killed(self) -> bool:
        """Whether everyone aboard dies: an aircraft shot down by the ADE is lost before it
        reaches the table (p.48); the book does not say what becomes of those aboard, so Muster
        follows p.49, where all personnel aboard a destroyed air vehicle are killed (digest
        AMBIG-16)."""
        return self.result is AirDefenceResult.SHOT_DOWN


def air_defence_check(
    *,
    dice: DiceSource,
    ade: AirDefence,
    leaving: bool,
    armour: VehicleArmour,
    pilot_quality: Quality,
    pilot_leadership: int,
    ecm_die: Die | None = None,
    press_on: bool = True,
) -> AirDefenceOutcome:
    """Decide whether an aircraft gets through the enemy's Air Defence Environment.

    SG2 p.48 EFFECTS OF THE AIR DEFENCE ENVIRONMENT, when the aircraft moves from box 1 or
    LOITER into the Battle Area (and, p.45, from the Battle Area to box 1 on its way out, with
    the ADE one type lower, :func:`ade_die`):

    1. Opposed roll, the ADE die (the "firer", rolled first) against the aircraft's ECM die (D4
       if it has none): the ADE must beat it. If it does not, the aircraft gets through.
    2. If the ADE wins the aircraft is "acquired": its owner may abort (``press_on`` False, no
       more dice) or press on, and then the pilot takes a reaction test at threat level +2 (p.21:
       quality die above LV + 2); failing it forces the abort.
    3. Pressing on with the test passed: opposed roll, the ADE die against the aircraft's armour
       die (D12 x armour class, a softskin D6): if the ADE beats it, the aircraft is shot down.

    With NO ADE (p.48: partisans with small arms only) nothing is rolled.
    """
    check_leadership(pilot_leadership, who="the pilot")
    if ecm_die is not None and not isinstance(ecm_die, Die):
        raise RuleError("air_defence.refused", f"An ECM die is a die type, not {ecm_die!r}.")
    die = ade_die(ade, leaving=leaving)
    if die is None:
        return AirDefenceOutcome(
            result=AirDefenceResult.UNOPPOSED,
            die=None,
            leaving=leaving,
            acquired=False,
            pressed_on=None,
            reaction_target=None,
            reaction_passed=None,
            rolls=(),
        )
    ade_roll = dice.roll(die, "ADE against the aircraft's ECM")
    ecm_roll = dice.roll(ecm_die or DEFAULT_ECM_DIE, "aircraft's ECM against the ADE")
    rolls: list[Roll] = [ade_roll, ecm_roll]
    if not wins_opposed(ade_roll, ecm_roll):
        return AirDefenceOutcome(
            result=AirDefenceResult.PENETRATED,
            die=die,
            leaving=leaving,
            acquired=False,
            pressed_on=None,
            reaction_target=None,
            reaction_passed=None,
            rolls=tuple(rolls),
        )
    if not press_on:
        return AirDefenceOutcome(
            result=AirDefenceResult.ABORTED,
            die=die,
            leaving=leaving,
            acquired=True,
            pressed_on=False,
            reaction_target=None,
            reaction_passed=None,
            rolls=tuple(rolls),
        )
    target = pilot_leadership + PRESS_ON_THREAT_LEVEL
    reaction = dice.roll(pilot_quality.die, "pilot's reaction test to press on through the ADE")
    rolls.append(reaction)
    if not beats_target(reaction, target):
        return AirDefenceOutcome(
            result=AirDefenceResult.ABORTED,
            die=die,
            leaving=leaving,
            acquired=True,
            pressed_on=True,
            reaction_target=target,
            reaction_passed=False,
            rolls=tuple(rolls),
        )
    attack = dice.roll(die, "ADE against the aircraft's armour")
    protection = dice.roll(armour.die, "aircraft's armour against the ADE")
    rolls += [attack, protection]
    shot_down = wins_opposed(attack, protection.result * armour.multiplier)
    return AirDefenceOutcome(
        result=AirDefenceResult.SHOT_DOWN if shot_down else AirDefenceResult.PENETRATED,
        die=die,
        leaving=leaving,
        acquired=True,
        pressed_on=True,
        reaction_target=target,
        reaction_passed=True,
        rolls=tuple(rolls),
    )
