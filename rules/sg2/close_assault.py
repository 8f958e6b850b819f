"""Stargrunt II infantry close assault (chapter 15, P.41-43).

INITIATING CLOSE ASSAULT (P.41): the attacker's reaction test to charge, then the defender's
confidence test to stand at a threat level by the odds (doubled for a TERROR effect, P.43).
CLOSE COMBAT RESOLUTION (P.41-42): figures are paired off and each rolls one die, its quality die
shifted by its close-combat weapon (an OPEN shift) and, in the first round only, by the defenders'
cover or position; power armour doubles the score; the loser of each comparison is down.
ENDING CLOSE COMBAT (P.42): after every round the side with the most casualties in the assault
(the defender on a tie) tests its confidence at +1 per casualty, then the other side; a failure
falls back and the other side has won; both passing fight another round. COMBINED CLOSE-ASSAULT
ACTIVATIONS (P.43): every attacking unit tests separately, and once part of the attack has fallen
back the rest add +1 to every further test. OVERRUNS AND FOLLOW-THROUGH ATTACKS and FINAL
DEFENSIVE FIRE (P.43) give the reaction tests' threat levels. The fate of the downed figures when
the assault is over is :func:`rules.sg2.casualties.close_combat_casualties` (P.42).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rules.dice import DIE_LADDER, DiceSource, Die, Roll, rolling_for
from rules.errors import RuleError
from rules.sg2.morale import (
    ConfidenceTestOutcome,
    ReactionTestOutcome,
    check_leadership,
    confidence_test,
    reaction_test,
)
from rules.sg2.scales import Confidence, Quality

# --- Initiating the assault (P.41, P.43) -------------------------------------------------------

ASSAULT_THREAT_LEVELS: Mapping[Confidence, int] = {
    Confidence.CONFIDENT: 0,
    Confidence.STEADY: 1,
    Confidence.SHAKEN: 3,
}
"""The attacker's reaction test to charge by its confidence level (P.41); BR and RO may not."""

PARTNER_FELL_BACK_PENALTY = 1
"""P.43 combined assaults: once part of the attack has fallen back, the rest add +1 to tests."""


def _error(message: str) -> RuleError:
    return RuleError("close_assault.refused", message)


def assault_threat_level(
    confidence: Confidence,
    *,
    in_position: bool = False,
    assault_from_in_position: bool = True,
    partner_fell_back: bool = False,
) -> int:
    """The threat level of an attacking unit's reaction test to charge (P.41).

    0 at CONFIDENT, +1 at STEADY, +3 at SHAKEN; a BROKEN or ROUTED unit may not close-assault.
    With the house rule ``sg2.assault_from_in_position`` (clarifications 2.4) a unit charging
    from In Position adds +1. A unit whose partner in a combined assault has already fallen back
    adds +1 (P.43).
    """
    confidence = Confidence(confidence)
    if confidence not in ASSAULT_THREAT_LEVELS:
        raise RuleError(
            "close_assault.may_not_assault",
            f"A unit at {confidence.abbreviation} may not close-assault (P.41).",
        )
    level = ASSAULT_THREAT_LEVELS[confidence]
    if in_position and assault_from_in_position:
        level += 1
    if partner_fell_back:
        level += PARTNER_FELL_BACK_PENALTY
    return level


def odds_strength(power_armour: Sequence[bool]) -> int:
    """A side's strength for the odds (P.41): one per trooper, two per power-armoured trooper."""
    return sum(2 if armoured else 1 for armoured in power_armour)


def stand_threat_level(attackers: int, defenders: int, *, terror: bool = False) -> int:
    """The threat level of the defender's confidence test to stand (P.41, P.43 TERROR EFFECTS).

    The odds are the attackers' strength over the defenders', rounded down (see
    :func:`odds_strength`): under 2:1 is +1, 2:1 is +2, 3:1 is +3 and so on, doubled when the
    attackers have a terror effect. P.41's examples: 6 against 4 is +1, 8 against 4 is +2,
    six power-armoured troopers (12) against 4 is +3.
    """
    if attackers < 1 or defenders < 1:
        raise _error("Both sides need a strength of at least one to work out the odds.")
    level = max(1, attackers // defenders)
    return 2 * level if terror else level


@dataclass(frozen=True, slots=True)
class StandOutcome:
    """The defender's answer to the charge: stand, or withdraw (having lost confidence)."""

    stands: bool
    voluntary: bool
    threat_level: int | None
    test: ConfidenceTestOutcome | None
    confidence_after: Confidence
    rolls: tuple[Roll, ...]


def defender_stands(
    *,
    dice: DiceSource,
    quality: Quality,
    leadership: int,
    confidence: Confidence,
    threat_level: int,
    withdraw: bool = False,
) -> StandOutcome:
    """Whether the defender stands to receive the charge (P.41).

    A BROKEN (or ROUTED) defender drops to ROUTED and withdraws without a test (P.41 SPECIAL
    NOTE); the defender may also withdraw voluntarily, whatever the test would say, without a
    test and without losing confidence. Otherwise one confidence test: failing loses the
    confidence level(s) and withdraws 6" or the basic move in the terrain, whichever is greater.
    """
    check_leadership(leadership, who="the defender")
    confidence = Confidence(confidence)
    if confidence <= Confidence.BROKEN:
        return StandOutcome(False, False, None, None, Confidence.ROUTED, ())
    if withdraw:
        return StandOutcome(False, True, None, None, confidence, ())
    test = confidence_test(
        dice=dice,
        quality=quality,
        leadership=leadership,
        threat_level=threat_level,
        confidence=confidence,
    )
    return StandOutcome(test.passed, False, threat_level, test, test.confidence_after, test.rolls)


def follow_through_threat_level(*, defenders_destroyed: bool) -> int:
    """The winner's reaction test for a follow-through move (P.43 OVERRUNS AND FOLLOW-THROUGH).

    +1 if the defenders were destroyed, +2 if they pulled back; a pass gives an extra combat move.
    """
    return 1 if defenders_destroyed else 2


def defensive_fire_threat_level(*, casualties: int) -> int:
    """The attacker's reaction test after final defensive fire caused casualties (P.43).

    +1 per casualty; failing withdraws the attackers to cover or their start point, suppressed.
    (The defenders' own test to fire while suppressed is at their number of markers.)
    """
    if casualties < 1:
        raise _error("Final defensive fire calls for a test only when it caused casualties.")
    return casualties


# --- Pairing off (P.41) ------------------------------------------------------------------------


class Side(enum.Enum):
    ATTACKER = "attacker"
    DEFENDER = "defender"

    @property
    def other(self) -> Side:
        return Side.DEFENDER if self is Side.ATTACKER else Side.ATTACKER


def pair_off(
    attackers: Sequence[str],
    defenders: Sequence[str],
    spares: Mapping[str, str] | None = None,
) -> tuple[tuple[str, str], ...]:
    """Pair the standing figures off, as (attacker, defender) pairs (P.41).

    The larger side places one figure against each figure of the smaller side, in the order
    given (the attacker when attackers are at least as many, else the defender); the SMALLER
    side's player then places the larger side's spare figures: ``spares`` maps a spare to the
    figure it fights, and spares left out are placed in turn from the first figure on. Every
    figure of the larger side fights one opponent; a figure of the smaller side may face two or
    more.
    """
    if len(set(attackers)) != len(attackers) or len(set(defenders)) != len(defenders):
        raise _error("A figure is listed twice in the close combat.")
    if not attackers or not defenders:
        raise _error("Both sides need a standing figure to fight a round.")
    flipped = len(defenders) > len(attackers)
    larger, smaller = (defenders, attackers) if flipped else (attackers, defenders)
    spares = dict(spares or {})
    spare_figures = list(larger[len(smaller) :])
    for spare, opponent in spares.items():
        if spare not in spare_figures:
            raise _error(f"{spare} is not a spare figure: only spares are placed by choice.")
        if opponent not in smaller:
            raise _error(f"{spare} cannot be placed against {opponent}: not a standing opponent.")
    pairs = list(zip(larger, smaller, strict=False))
    for turn, spare in enumerate(spare_figures):
        pairs.append((spare, spares.get(spare, smaller[turn % len(smaller)])))
    if flipped:
        return tuple((attacker, defender) for defender, attacker in pairs)
    return tuple(pairs)


# --- One round of close combat (P.41-42) -------------------------------------------------------


class CloseCombatWeapon(enum.Enum):
    """The close-combat weapon values (P.41): the die shift each gives."""

    NONE = "none"  # only ranged weapons
    FIREARM = "firearm"  # pistol, machine pistol
    EDGED = "edged"  # sword, axe, power sword
    SHOTGUN = "shotgun"
    FLAME = "flame"

    @property
    def shift(self) -> int:
        return {"none": 0, "firearm": 1, "edged": 1, "shotgun": 2, "flame": 2}[self.value]


@dataclass(frozen=True, slots=True)
class Fighter:
    """One figure in the close combat."""

    id: str
    quality: Quality
    weapon: CloseCombatWeapon = CloseCombatWeapon.NONE
    power_armour: bool = False
    name: str = ""  # for the dice' purposes; the id when empty

    @property
    def called(self) -> str:
        return self.name or self.id


def fighter_die(fighter: Fighter, *, cover_shift: bool = False) -> tuple[Die, int]:
    """A figure's die before its opponents' shifts, and the steps it pushes above a D12 (P.41).

    The quality die shifted up by the weapon, and by one more for a defender in cover, in
    position or in field defences in the first round. The shift is OPEN: the steps above a D12
    come off the opponents' dice.
    """
    index = DIE_LADDER.index(Quality(fighter.quality).die) + fighter.weapon.shift
    index += 1 if cover_shift else 0
    top = len(DIE_LADDER) - 1
    return DIE_LADDER[min(index, top)], max(0, index - top)


def _lowered(die: Die, steps: int) -> Die:
    return DIE_LADDER[max(0, DIE_LADDER.index(die) - steps)]


@dataclass(frozen=True, slots=True)
class Comparison:
    """One opposed roll: a figure of the fight against the lone figure (P.41)."""

    opponent_id: str
    opponent_die: Die
    opponent_score: int
    lone_score: int
    down: str | None  # the figure beaten, or None on a tie


@dataclass(frozen=True, slots=True)
class FightOutcome:
    """One figure against the one or more figures placed on it."""

    lone_id: str
    lone_side: Side
    lone_die: Die
    comparisons: tuple[Comparison, ...]


@dataclass(frozen=True, slots=True)
class RoundOutcome:
    """One round of close combat: every fight, and who went down on each side."""

    fights: tuple[FightOutcome, ...]
    attackers_down: tuple[str, ...]
    defenders_down: tuple[str, ...]
    rolls: tuple[Roll, ...]


def _score(roll: Roll, fighter: Fighter) -> int:
    return roll.result * (2 if fighter.power_armour else 1)


def fight_round(
    *,
    dice: DiceSource,
    attackers: Sequence[Fighter],
    defenders: Sequence[Fighter],
    pairs: Sequence[tuple[str, str]],
    first_round: bool,
    defenders_in_cover: bool,
) -> RoundOutcome:
    """Fight one round of close combat between paired figures (P.41-42).

    The pairs (from :func:`pair_off`) group into fights: a figure that is in several pairs is
    the lone figure of its fight and rolls ONE die, compared separately with each opponent's.
    Each die is the quality die shifted by the weapon and, in the first round only, by +1 for
    defenders in cover or in position; steps above a D12 come off the opponents' dice (from a
    lone figure, off all of them). The book does not say what a lone figure facing two
    opponents who both push past a D12 loses: he rolls one die, lowered by the largest of their
    excesses. Power armour doubles the score; the higher score puts the other figure down, a tie
    hurts nobody.

    Dice: per fight, in the order of its first pair, the lone figure's die and then each
    opponent's in the order of the pairs, each rolled for its figure (:func:`rolling_for`).
    """
    by_id = {f.id: (f, Side.ATTACKER) for f in attackers} | {
        f.id: (f, Side.DEFENDER) for f in defenders
    }
    if len(by_id) != len(attackers) + len(defenders):
        raise _error("A figure is listed twice in the close combat.")
    groups: dict[str, list[str]] = {}
    for attacker, defender in pairs:
        if by_id.get(attacker, (None, None))[1] is not Side.ATTACKER:
            raise _error(f"{attacker} is not a standing attacker.")
        if by_id.get(defender, (None, None))[1] is not Side.DEFENDER:
            raise _error(f"{defender} is not a standing defender.")
        groups.setdefault(attacker, []).append(defender)
        groups.setdefault(defender, []).append(attacker)
    lone_ids: list[str] = []
    for figure_id, faced in groups.items():
        if len(set(faced)) != len(faced):
            raise _error(f"{figure_id} is paired twice with the same opponent.")
        if len(faced) > 1 and any(len(groups[o]) > 1 for o in faced):
            raise _error(f"{figure_id} faces several opponents who also face others.")
    if len(groups) != len(by_id):
        raise _error("Every standing figure fights: pair them all off.")
    for attacker, defender in pairs:
        lone_pick = defender if len(groups[defender]) > 1 else attacker
        if lone_pick not in lone_ids:
            lone_ids.append(lone_pick)
    fights: list[FightOutcome] = []
    rolls: list[Roll] = []
    down: set[str] = set()
    for lone_id in lone_ids:
        lone, lone_side = by_id[lone_id]
        opponents = [by_id[o][0] for o in groups[lone_id]]
        lone_die, lone_excess = fighter_die(
            lone, cover_shift=first_round and defenders_in_cover and lone_side is Side.DEFENDER
        )
        opponent_dice = [
            fighter_die(
                o,
                cover_shift=first_round and defenders_in_cover and lone_side is Side.ATTACKER,
            )
            for o in opponents
        ]
        lone_die = _lowered(lone_die, max(excess for _, excess in opponent_dice))
        with rolling_for(dice, lone.id):
            lone_roll = dice.roll(lone_die, f"close combat {lone.called}")
        rolls.append(lone_roll)
        comparisons: list[Comparison] = []
        for opponent, (die, _) in zip(opponents, opponent_dice, strict=True):
            die = _lowered(die, lone_excess)
            with rolling_for(dice, opponent.id):
                roll = dice.roll(die, f"close combat {opponent.called} against {lone.called}")
            rolls.append(roll)
            mine, theirs = _score(lone_roll, lone), _score(roll, opponent)
            beaten = None if mine == theirs else opponent.id if mine > theirs else lone.id
            if beaten is not None:
                down.add(beaten)
            comparisons.append(Comparison(opponent.id, die, theirs, mine, beaten))
        fights.append(FightOutcome(lone.id, lone_side, lone_die, tuple(comparisons)))
    return RoundOutcome(
        fights=tuple(fights),
        attackers_down=tuple(f.id for f in attackers if f.id in down),
        defenders_down=tuple(f.id for f in defenders if f.id in down),
        rolls=tuple(rolls),
    )


# --- Ending the round (P.42-43) ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AssaultUnit:
    """A unit in the assault, as its end-of-round confidence test reads it."""

    id: str
    quality: Quality
    leadership: int
    confidence: Confidence
    standing: int  # its figures still fighting; a unit with none does not test


class Result(enum.Enum):
    ATTACKER_WON = "attacker_won"
    DEFENDER_WON = "defender_won"
    ANOTHER_ROUND = "another_round"


@dataclass(frozen=True, slots=True)
class UnitTest:
    """One unit's end-of-round confidence test."""

    unit_id: str
    side: Side
    threat_level: int
    test: ConfidenceTestOutcome

    @property
    def falls_back(self) -> bool:
        return not self.test.passed


@dataclass(frozen=True, slots=True)
class EndOfRound:
    """The end-of-round tests and what they decided."""

    result: Result
    first_to_test: Side | None
    tests: tuple[UnitTest, ...]
    rolls: tuple[Roll, ...]

    @property
    def fell_back(self) -> tuple[str, ...]:
        return tuple(t.unit_id for t in self.tests if t.falls_back)


def first_to_test(*, attacker_casualties: int, defender_casualties: int) -> Side:
    """The side that tests first: the one with the most casualties in the assault so far, the
    defender when they are equal (P.42)."""
    return Side.ATTACKER if attacker_casualties > defender_casualties else Side.DEFENDER


def end_of_round(
    *,
    dice: DiceSource,
    attackers: Sequence[AssaultUnit],
    defender: AssaultUnit,
    attacker_casualties: int,
    defender_casualties: int,
    partner_fell_back: bool = False,
    continue_after_partial: bool = True,
) -> EndOfRound:
    """The confidence tests at the end of a round of close combat (P.42, P.43).

    A side with no figure standing is destroyed and the other side has won, without a test.
    Otherwise the side with the most casualties in the assault (the defender on a tie) tests at
    +1 per casualty it has suffered in the assault; failing, it falls back having lost its
    confidence level(s) and the other side has won. Passing, the other side tests the same way.
    Both passing, another round follows. In a combined assault every attacking unit with a
    figure standing tests separately, at the attacking side's casualties (the book counts them
    per player); a unit that fails falls back, and the rest add +1 to every further test
    (P.43) if the player goes on (``continue_after_partial``); otherwise the attack is broken
    off and the defender has won.

    Dice: the first side's tests (attacking units in the order given), then the other side's,
    each rolled for its unit (:func:`rolling_for`).
    """
    if attacker_casualties < 0 or defender_casualties < 0:
        raise _error("A number of casualties cannot be negative.")
    standing = [unit for unit in attackers if unit.standing > 0]
    if defender.standing <= 0:
        return EndOfRound(Result.ATTACKER_WON, None, (), ())
    if not standing:
        return EndOfRound(Result.DEFENDER_WON, None, (), ())
    first = first_to_test(
        attacker_casualties=attacker_casualties, defender_casualties=defender_casualties
    )
    tests: list[UnitTest] = []
    penalty = partner_fell_back
    for side in (first, first.other):
        if side is Side.DEFENDER:
            test = _test(dice, defender, side, defender_casualties)
            tests.append(test)
            if test.falls_back:
                return _ended(Result.ATTACKER_WON, first, tests)
            continue
        side_tests = [
            _test(dice, unit, side, attacker_casualties + int(penalty)) for unit in standing
        ]
        tests += side_tests
        staying = [t for t in side_tests if not t.falls_back]
        if not staying or (len(staying) < len(side_tests) and not continue_after_partial):
            return _ended(Result.DEFENDER_WON, first, tests)
        penalty = penalty or len(staying) < len(side_tests)
    return _ended(Result.ANOTHER_ROUND, first, tests)


def _test(dice: DiceSource, unit: AssaultUnit, side: Side, threat_level: int) -> UnitTest:
    with rolling_for(dice, unit.id):
        test = _confidence_test(dice, unit, threat_level)
    return UnitTest(unit.id, side, threat_level, test)


def _confidence_test(
    dice: DiceSource, unit: AssaultUnit, threat_level: int
) -> ConfidenceTestOutcome:
    return confidence_test(
        dice=dice,
        quality=unit.quality,
        leadership=unit.leadership,
        threat_level=threat_level,
        confidence=unit.confidence,
    )


def _ended(result: Result, first: Side, tests: list[UnitTest]) -> EndOfRound:
    return EndOfRound(
        result, first, tuple(tests), tuple(roll for t in tests for roll in t.test.rolls)
    )


def assault_reaction_test(
    *,
    dice: DiceSource,
    quality: Quality,
    leadership: int,
    threat_level: int,
) -> ReactionTestOutcome:
    """The attacking unit's reaction test to charge, at :func:`assault_threat_level` (P.41).

    Failing loses the unit's first action; it may do something else with its second, but not
    try the assault again.
    """
    return reaction_test(
        dice=dice, quality=quality, leadership=leadership, threat_level=threat_level
    )
