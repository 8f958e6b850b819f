"""Stargrunt II mines and booby traps against infantry (SG2 P.55-56).

Anti-personnel and mixed minefields attack the figures of an infantry unit that come within 3" of
the counter (P.55 CONVENTIONAL MINEFIELDS); a command-detonated mine attacks every figure of the
nearest infantry unit within 6" of it (P.55 COMMAND-DETONATED MINES); a booby trap is discovered
or goes off when a unit comes within 3" (P.56 BOOBY TRAPS). Every attack is an opposed roll of
the device's impact against the figure's armour, counted as fire casualties are (P.36): impact
above armour wounds, above twice armour kills. Mines against vehicles are
:func:`rules.sg2.vehicles.anti_vehicle_mine`.

Where the figures stand is the table's business: the caller names the figures inside the danger
area, the nearest unit and the figure closest to a trap.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from rules.dice import DiceSource, Die, Roll, shift_die
from rules.errors import RuleError
from rules.sg2.casualties import (
    Figure,
    FigureCasualty,
    HitResult,
    penetration,
    settle_power_armour,
    state_after_hits,
)
from rules.sg2.options import Environment
from rules.sg2.scales import Quality

# The impact of an anti-personnel mine and of a command-detonated mine (P.55).
MINE_IMPACT = Die.D10
# The trap's die against the unit's quality die, and its usual impact (P.56).
BOOBY_TRAP_DIE = Die.D8
BOOBY_TRAP_IMPACT = Die.D8


class MinesError(RuleError):
    """A mine or booby-trap attack the rules do not allow."""


class Minefield(enum.StrEnum):
    """The kinds of conventional minefield counter (P.55): black, red, or both symbols."""

    ANTI_PERSONNEL = "anti_personnel"
    MIXED = "mixed"
    ANTI_VEHICLE = "anti_vehicle"


# The highest quality-die score at which a figure is caught by a mine (P.55): the AP mines of a
# mixed field lie thinner. Infantry never set off AV mines.
_CAUGHT_AT_OR_BELOW = {Minefield.ANTI_PERSONNEL: 3, Minefield.MIXED: 2}


def caught_by_mine(quality_roll: int, minefield: Minefield | str) -> bool:
    """Whether one figure in the danger area sets off a mine (SG2 P.55).

    Each figure within 3" of an AP or mixed minefield counter rolls his unit's quality die: a pure
    AP field catches him on 1-3, a mixed field on 1-2. "Infantry will NOT set off AV mines."
    """
    field = Minefield(minefield)
    if field is Minefield.ANTI_VEHICLE:
        raise MinesError(
            "mines.infantry_ignore_av",
            "Infantry will not set off anti-vehicle mines (P.55).",
        )
    return quality_roll <= _CAUGHT_AT_OR_BELOW[field]


@dataclass(frozen=True, slots=True)
class MineAttack:
    """One figure attacked by a mine or trap: impact against his armour, and the result."""

    figure_id: str
    impact_die: Die
    armour_die: Die
    impact_roll: int
    armour_roll: int
    result: HitResult


@dataclass(frozen=True, slots=True)
class MineAttacksOutcome:
    """What a set of mine or trap attacks did to the figures they caught."""

    attacks: tuple[MineAttack, ...]
    casualties: tuple[FigureCasualty, ...]
    rolls: tuple[Roll, ...]


@dataclass(frozen=True, slots=True)
class MineCheck:
    """One figure's quality die in a minefield's danger area, and whether a mine caught him."""

    figure_id: str
    roll: int
    caught: bool


@dataclass(frozen=True, slots=True)
class MinefieldOutcome:
    """An infantry unit's figures entering or moving through a minefield's danger area."""

    minefield: Minefield
    quality_die: Die
    checks: tuple[MineCheck, ...]
    attacks: tuple[MineAttack, ...]
    casualties: tuple[FigureCasualty, ...]
    rolls: tuple[Roll, ...]


def _check_figures(figures: Sequence[Figure], what: str) -> None:
    if not figures:
        raise MinesError("mines.no_figures", f"Name at least one figure {what}.")
    ids = [figure.id for figure in figures]
    if len(set(ids)) != len(ids):
        raise MinesError("mines.figure_twice", "Each figure must appear once, with its own id.")
    for figure in figures:
        if not figure.state.on_table_alive:
            raise MinesError(
                "mines.not_on_table",
                f"Figure {figure.id} is {figure.state.value}: a mine cannot catch him.",
            )


def _attack(
    dice: DiceSource,
    attacked: Sequence[tuple[Figure, Die]],
    *,
    source: str,
    rewound_kills: bool,
    rewound_reverts_to_untreated: bool,
    environment: Environment,
) -> MineAttacksOutcome:
    """Each figure's armour die against the impact of the device that caught him (P.55-56).

    No cover helps against a mine already among the figures: the armour die is unshifted. Each
    figure is attacked once; a power-armoured figure who goes down without being killed rolls
    P.40 at once.
    """
    rolls: list[Roll] = []
    attacks: list[MineAttack] = []
    changes: list[FigureCasualty] = []
    for figure, impact in attacked:
        impact_roll = dice.roll(impact, f"{source} impact on {figure.id}")
        armour_roll = dice.roll(figure.armour, f"armour of {figure.id} against the {source}")
        rolls += [impact_roll, armour_roll]
        result = penetration(impact_roll.result, armour_roll.result)
        attacks.append(
            MineAttack(
                figure.id, impact, figure.armour, impact_roll.result, armour_roll.result, result
            )
        )
        if result is HitResult.NO_EFFECT:
            continue
        wounds, kills = (1, 0) if result is HitResult.WOUND else (0, 1)
        after = state_after_hits(
            figure.state,
            wounds=wounds,
            kills=kills,
            rewound_kills=rewound_kills,
            rewound_reverts_to_untreated=rewound_reverts_to_untreated,
            environment=environment,
        )
        changes.append(FigureCasualty(figure.id, figure.state, after, wounds, kills))
    rolls += settle_power_armour(dice, [figure for figure, _ in attacked], changes)
    return MineAttacksOutcome(attacks=tuple(attacks), casualties=tuple(changes), rolls=tuple(rolls))


def minefield_attack(
    *,
    dice: DiceSource,
    figures: Sequence[Figure],
    quality: Quality,
    minefield: Minefield | str,
    rewound_kills: bool = False,
    rewound_reverts_to_untreated: bool = False,
    environment: Environment = Environment.NORMAL,
) -> MinefieldOutcome:
    """An infantry unit's figures come within 3" of an AP or mixed minefield counter (SG2 P.55).

    ``figures`` are those actually inside the danger area (the rest of the unit rolls nothing).
    Each rolls the unit's quality die: caught on 1-3 in an AP field, 1-2 in a mixed one. Each
    figure caught rolls his armour die against the mine's impact D10: above armour WOUNDED, above
    twice armour DEAD. The field stays active: every entry or move through it is a new attack.

    Options ``rewound_kills`` and ``rewound_reverts_to_untreated`` (a wound on a casualty) and
    ``environment`` (vacuum: wounds kill, P.57) as in :func:`rules.sg2.casualties.state_after_hits`.
    Dice: one quality die per figure in the given order; then per figure caught, the mine's D10
    and his armour die; then a D6 per new power-armour casualty (P.40).
    """
    field = Minefield(minefield)
    if field is Minefield.ANTI_VEHICLE:
        caught_by_mine(1, field)  # refused: infantry never set off AV mines
    _check_figures(figures, "in the minefield's danger area")
    quality_die = Quality(quality).die
    rolls: list[Roll] = []
    checks: list[MineCheck] = []
    for figure in figures:
        roll = dice.roll(quality_die, f"minefield check for {figure.id}")
        rolls.append(roll)
        checks.append(MineCheck(figure.id, roll.result, caught_by_mine(roll.result, field)))
    caught = {check.figure_id for check in checks if check.caught}
    outcome = _attack(
        dice,
        [(figure, MINE_IMPACT) for figure in figures if figure.id in caught],
        source="mine",
        rewound_kills=rewound_kills,
        rewound_reverts_to_untreated=rewound_reverts_to_untreated,
        environment=environment,
    )
    return MinefieldOutcome(
        minefield=field,
        quality_die=quality_die,
        checks=tuple(checks),
        attacks=outcome.attacks,
        casualties=outcome.casualties,
        rolls=tuple(rolls) + outcome.rolls,
    )


def command_detonated_mine(
    *,
    dice: DiceSource,
    figures: Sequence[Figure],
    rewound_kills: bool = False,
    rewound_reverts_to_untreated: bool = False,
    environment: Environment = Environment.NORMAL,
) -> MineAttacksOutcome:
    """A command-detonated mine is fired at the nearest infantry unit (SG2 P.55).

    "Roll for EACH figure in the unit that is within 6" of the CDM counter": ``figures`` are those
    figures, in front of the mine or not. Each rolls his armour die against the mine's D10, with
    the usual casualty scores. The controlling unit need not be activated and any number of its
    CDMs may be fired at once (one call each); the marker is removed after it fires. Softskin
    vehicles caught are not handled here.

    Options as :func:`minefield_attack`. Dice: per figure in the given order, the mine's D10 and
    his armour die; then a D6 per new power-armour casualty (P.40).
    """
    _check_figures(figures, "within 6 inches of the mine")
    return _attack(
        dice,
        [(figure, MINE_IMPACT) for figure in figures],
        source="command-detonated mine",
        rewound_kills=rewound_kills,
        rewound_reverts_to_untreated=rewound_reverts_to_untreated,
        environment=environment,
    )


@dataclass(frozen=True, slots=True)
class BoobyTrapOutcome:
    """A booby trap reached by a unit: discovered and made harmless, or set off."""

    unit_roll: int
    trap_roll: int
    detonated: bool
    impact_die: Die
    attacks: tuple[MineAttack, ...]
    casualties: tuple[FigureCasualty, ...]
    rolls: tuple[Roll, ...]


def booby_trap_detonates(unit_roll: int, trap_roll: int) -> bool:
    """Whether a booby trap goes off (SG2 P.56): "if the trap's roll beats the unit's roll, the
    booby-trap detonates; if it does not, it is discovered by the troops and rendered harmless"."""
    return trap_roll > unit_roll


def booby_trap(
    *,
    dice: DiceSource,
    quality: Quality,
    closest: Figure,
    in_contact: Sequence[Figure] = (),
    trap_die: Die = BOOBY_TRAP_DIE,
    impact: Die = BOOBY_TRAP_IMPACT,
    rewound_kills: bool = False,
    rewound_reverts_to_untreated: bool = False,
    environment: Environment = Environment.NORMAL,
) -> BoobyTrapOutcome:
    """A unit (or some of its figures) comes within 3" of a booby-trap counter (SG2 P.56).

    The unit's player rolls its quality die, the trap's owner a D8 (``trap_die``). The trap beats
    the unit: it goes off and the figure ``closest`` to it rolls his armour die against the trap's
    impact, D8 in most cases (``impact``: "more or less powerful traps may be specified"). Each
    figure ``in_contact`` (base to base with him) is attacked with an impact one type lower (D6
    for most traps). Otherwise the troops find the trap and make it harmless. Either way the
    counter is removed. A D4 trap's lower impact stays a D4: no die is lower.

    Options as :func:`minefield_attack`. Dice: the unit's quality die, the trap's die; if it goes
    off, the trap's impact and the armour die of the closest figure, then of each figure in
    contact; then a D6 per new power-armour casualty (P.40).
    """
    _check_figures([closest, *in_contact], "closest to the trap")
    unit_roll = dice.roll(Quality(quality).die, "unit's quality die against the booby trap")
    trap_roll = dice.roll(Die(trap_die), "booby trap")
    detonated = booby_trap_detonates(unit_roll.result, trap_roll.result)
    rolls = [unit_roll, trap_roll]
    attacks: tuple[MineAttack, ...] = ()
    casualties: tuple[FigureCasualty, ...] = ()
    if detonated:
        weaker = shift_die(Die(impact), -1)
        outcome = _attack(
            dice,
            [(closest, Die(impact))] + [(figure, weaker) for figure in in_contact],
            source="booby trap",
            rewound_kills=rewound_kills,
            rewound_reverts_to_untreated=rewound_reverts_to_untreated,
            environment=environment,
        )
        attacks, casualties = outcome.attacks, outcome.casualties
        rolls += outcome.rolls
    return BoobyTrapOutcome(
        unit_roll=unit_roll.result,
        trap_roll=trap_roll.result,
        detonated=detonated,
        impact_die=Die(impact),
        attacks=attacks,
        casualties=casualties,
        rolls=tuple(rolls),
    )
