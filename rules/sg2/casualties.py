"""Stargrunt II casualties to troopers: figure states, hit allocation, wounds and kills.

Covers the casualty end of fire against dispersed targets (SG2 P.35-36), power-armour casualties
(P.40), artillery casualties (P.46-47) and close-combat casualties (P.42). Vehicle occupants are
in :mod:`rules.sg2.vehicles` and medical treatment in :mod:`rules.sg2.medical`.

The state names follow the rulebook's counters (P.7): an untreated casualty carries a WHITE
skull, a stabilised (treated) casualty a RED CROSS and a dead figure a BLACK skull. Goodall's
clarifications swap the two casualty colours; the states here never depend on marker colours.

One module on purpose, though long: the figure states, their allowed transitions and every
procedure that moves a figure between them are one chapter of the book, tested as one.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rules.dice import DiceSource, Die, Roll, open_shift_die, smallest_die_at_least
from rules.errors import RuleError
from rules.sg2.options import Environment


class FigureState(enum.StrEnum):
    """What has happened to one figure in a battle (P.7, P.36, P.39, P.40, P.42, P.53)."""

    FIT = "fit"
    UNTREATED = "untreated"  # wounded, white skull: not yet given medical attention (P.39)
    STABILISED = "stabilised"  # treated casualty, red cross (P.39)
    DEAD = "dead"  # black skull
    SUIT_DISABLED = "suit_disabled"  # power armour wrecked, wearer unhurt (P.40)
    DOWN = "down"  # beaten in close combat, fate rolled when the assault ends (P.42)
    CAPTURED = "captured"
    EVACUATED = "evacuated"
    FLED = "fled"
    LOST = "lost"

    @property
    def is_casualty(self) -> bool:
        """Wounded and out of the fight, but alive (white skull or red cross)."""
        return self in (FigureState.UNTREATED, FigureState.STABILISED)

    @property
    def on_table_alive(self) -> bool:
        """Still a living figure on the table, whatever his condition."""
        return self in _ON_TABLE_ALIVE

    @property
    def is_final(self) -> bool:
        """No rule takes a figure out of this state again within the battle."""
        return not _TRANSITIONS[self]


_ON_TABLE_ALIVE = frozenset(
    {
        FigureState.FIT,
        FigureState.UNTREATED,
        FigureState.STABILISED,
        FigureState.SUIT_DISABLED,
        FigureState.DOWN,
    }
)

# Each transition is backed by a rule: wounds and kills (P.36, P.47), treatment (P.39), the
# power-armour roll (P.40), the close-combat roll (P.42), surrender, capture and disintegration
# (P.53), evacuation (P.54). Nothing leaves DEAD: the dead never come back.
_TRANSITIONS: dict[FigureState, frozenset[FigureState]] = {
    FigureState.FIT: frozenset(
        {
            FigureState.UNTREATED,
            FigureState.DEAD,
            FigureState.DOWN,
            FigureState.CAPTURED,
            FigureState.FLED,
            FigureState.LOST,
        }
    ),
    FigureState.UNTREATED: frozenset(
        {
            FigureState.DEAD,
            FigureState.STABILISED,
            FigureState.FIT,
            FigureState.SUIT_DISABLED,
            FigureState.CAPTURED,
            FigureState.EVACUATED,
            FigureState.FLED,
            FigureState.LOST,
        }
    ),
    FigureState.STABILISED: frozenset(
        {
            FigureState.UNTREATED,  # wounded again, option rewound_reverts_to_untreated (SG2-C)
            FigureState.DEAD,
            FigureState.CAPTURED,
            FigureState.EVACUATED,
            FigureState.FLED,
            FigureState.LOST,
        }
    ),
    FigureState.SUIT_DISABLED: frozenset(
        {
            FigureState.FIT,  # a Reorganise action gets him out of the suit (P.40)
            FigureState.UNTREATED,
            FigureState.DEAD,
            FigureState.CAPTURED,
            FigureState.EVACUATED,
            FigureState.FLED,
            FigureState.LOST,
        }
    ),
    FigureState.DOWN: frozenset(
        {FigureState.DEAD, FigureState.UNTREATED, FigureState.FIT, FigureState.CAPTURED}
    ),
    FigureState.DEAD: frozenset(),
    FigureState.CAPTURED: frozenset(),
    FigureState.EVACUATED: frozenset(),
    FigureState.FLED: frozenset(),
    FigureState.LOST: frozenset(),
}


class CasualtyError(RuleError):
    """A casualty rule asked to do something the rules do not allow."""


def allowed_transitions(state: FigureState) -> frozenset[FigureState]:
    """The states a figure in ``state`` may move to under some rule of the book."""
    return _TRANSITIONS[state]


def transition(state: FigureState, new_state: FigureState) -> FigureState:
    """Move a figure from ``state`` to ``new_state``, refusing what no rule allows.

    Staying in the same state is always allowed (a wound on a casualty that changes nothing).
    """
    if new_state != state and new_state not in _TRANSITIONS[state]:
        raise CasualtyError(
            "figure.invalid_transition",
            f"A figure that is {state.value} cannot become {new_state.value}.",
        )
    return new_state


class FigureRole(enum.StrEnum):
    """A figure's job in its unit (P.8 ORGANISING YOUR FORCES)."""

    LEADER = "leader"
    SECOND_IN_COMMAND = "second_in_command"
    MEDIC = "medic"
    SUPPORT_GUNNER = "support_gunner"
    SPECIAL_WEAPON = "special_weapon"
    SNIPER = "sniper"
    CREW = "crew"
    RIFLEMAN = "rifleman"


@dataclass(frozen=True, slots=True)
class Figure:
    """One trooper on the table: his id, role, state and personal armour die."""

    id: str
    role: FigureRole = FigureRole.RIFLEMAN
    state: FigureState = FigureState.FIT
    armour: Die = Die.D6
    power_armour: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise RuleError("casualties.refused", "A figure needs a non-empty id.")


class HitResult(enum.StrEnum):
    """The effect of one potential hit after impact against armour (P.36 STEP 3)."""

    NO_EFFECT = "no_effect"
    WOUND = "wound"
    KILL = "kill"


class Cover(enum.IntEnum):
    """Cover of a target as seen from the firer (P.11-12); the value is the die shift it gives."""

    OPEN = 0
    SOFT = 1
    HARD = 2


class AllocationPool(enum.StrEnum):
    """Which figures are "members of the squad" for hit allocation (P.36; SG2-C)."""

    LIVING = "living"  # fit, untreated and stabilised; not the dead (Goodall's practice)
    ALL_FIGURES = "all_figures"  # the dead too
    FIT_ONLY = "fit_only"
    FIT_AND_UNTREATED = "fit_and_untreated"


_POOL_STATES: dict[AllocationPool, frozenset[FigureState]] = {
    AllocationPool.LIVING: _ON_TABLE_ALIVE,
    AllocationPool.ALL_FIGURES: _ON_TABLE_ALIVE | {FigureState.DEAD},
    # A wearer in a wrecked suit is unhurt, so he counts among the fit.
    AllocationPool.FIT_ONLY: frozenset({FigureState.FIT, FigureState.SUIT_DISABLED}),
    AllocationPool.FIT_AND_UNTREATED: frozenset(
        {FigureState.FIT, FigureState.SUIT_DISABLED, FigureState.UNTREATED, FigureState.DOWN}
    ),
}


class AllocationOverflow(enum.StrEnum):
    """Where a roll above the number of figures lands (P.36; SG2-C)."""

    CONTINUE_COUNT = "continue_count"  # keep counting round the group
    FIRST_FIGURE = "first_figure"  # go back to the first figure counted


class AllocationOrder(enum.StrEnum):
    """Whether hits are allocated before the impact-against-armour rolls (P.36 NOTE)."""

    AUTO = "auto"  # allocate first only when the pool's armour is mixed
    NEVER = "never"
    ALWAYS = "always"


def penetration(impact_score: int, armour_score: int) -> HitResult:
    """Impact against armour for one potential hit on infantry (SG2 P.36 STEP 3).

    Impact not above armour: no effect; above armour: WOUND; above twice armour: KILL.
    """
    if impact_score <= armour_score:
        return HitResult.NO_EFFECT
    if impact_score > 2 * armour_score:
        return HitResult.KILL
    return HitResult.WOUND


def allocation_pool(
    figures: Sequence[Figure], *, allocation_pool: AllocationPool | str = AllocationPool.LIVING
) -> tuple[Figure, ...]:
    """The figures that can be allocated hits, in the given counting order (SG2 P.36; SG2-C).

    Option ``allocation_pool`` (default ``living``): which states count as members of the squad.
    """
    states = _POOL_STATES[AllocationPool(allocation_pool)]
    return tuple(figure for figure in figures if figure.state in states)


def allocation_die(figure_count: int) -> Die:
    """The die rolled to pick who takes a hit: nearest at or above the count (SG2 P.36).

    Four figures or fewer D4, 5-6 D6, 7-8 D8, 9-10 D10, 11-12 D12. Over 12 the book gives no die;
    the count is refused and the umpire splits the squad into counted groups.
    """
    if isinstance(figure_count, int) and not isinstance(figure_count, bool) and figure_count > 12:
        raise CasualtyError(
            "allocation.too_many_figures",
            f"No die picks among {figure_count} figures: split them into groups of 12 or fewer.",
        )
    return smallest_die_at_least(figure_count)


def allocated_index(
    roll: int,
    figure_count: int,
    *,
    allocation_overflow: AllocationOverflow = AllocationOverflow.CONTINUE_COUNT,
) -> int:
    """The 0-based position counted to by an allocation roll (SG2 P.36 "WHO BUYS THE FARM").

    A roll above the number of figures goes round again. Option ``allocation_overflow``
    (default ``continue_count``): keep counting round the group, or go straight back to the
    first figure; the two differ only for two figures and a D4 roll of 4.
    """
    if figure_count < 1:
        raise RuleError("casualties.refused", "There is no figure to allocate a hit to.")
    if roll <= figure_count:
        return roll - 1
    if AllocationOverflow(allocation_overflow) is AllocationOverflow.FIRST_FIGURE:
        return 0
    return (roll - 1) % figure_count


@dataclass(frozen=True, slots=True)
class HitAllocation:
    """One hit placed on one figure, and the die that placed it (None: he was the only one)."""

    hit_number: int
    figure_id: str
    roll: int | None


@dataclass(frozen=True, slots=True)
class AllocationOutcome:
    """Which figure got which hit."""

    pool: tuple[str, ...]
    die: Die | None
    allocations: tuple[HitAllocation, ...]
    rolls: tuple[Roll, ...]

    def hits_on(self, figure_id: str) -> int:
        return sum(1 for allocation in self.allocations if allocation.figure_id == figure_id)


def _check_count(value: int, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RuleError(
            "casualties.refused",
            f"The number of {what} must be a whole number of 0 or more, not {value!r}.",
        )


def _check_unique(figures: Sequence[Figure]) -> None:
    ids = [figure.id for figure in figures]
    if len(set(ids)) != len(ids):
        raise RuleError("casualties.refused", "Each figure must appear once, with its own id.")


def _allocate_one(
    dice: DiceSource,
    pool: tuple[Figure, ...],
    hit_number: int,
    overflow: AllocationOverflow,
) -> tuple[Figure, Roll | None]:
    if len(pool) == 1:
        # A lone figure takes every hit without a roll (P.26, P.36).
        return pool[0], None
    roll = dice.roll(allocation_die(len(pool)), f"who takes hit {hit_number}")
    return pool[allocated_index(roll.result, len(pool), allocation_overflow=overflow)], roll


def allocate_hits(
    *,
    dice: DiceSource,
    figures: Sequence[Figure],
    hits: int,
    allocation_pool: AllocationPool | str = AllocationPool.LIVING,
    allocation_overflow: AllocationOverflow | str = AllocationOverflow.CONTINUE_COUNT,
) -> AllocationOutcome:
    """Decide which figure takes each hit (SG2 P.36 STEP 4 "WHO BUYS THE FARM...?"; SG2-C).

    ``figures`` are in the counting order agreed for the squad (start at the most exposed
    figure). One roll per hit of the die nearest at or above the pool size; a roll above the
    pool size goes round again. One figure may take several hits. A pool of one figure (a lone
    independent figure, P.26) takes every hit without a roll.

    Options: ``allocation_pool`` (default ``living``), ``allocation_overflow`` (default
    ``continue_count``). Dice: one allocation die per hit, in hit order.
    """
    _check_count(hits, "hits")
    _check_unique(figures)
    pool = _build_pool(figures, allocation_pool, hits)
    overflow = AllocationOverflow(allocation_overflow)
    rolls: list[Roll] = []
    allocations: list[HitAllocation] = []
    for hit_number in range(1, hits + 1):
        figure, roll = _allocate_one(dice, pool, hit_number, overflow)
        if roll is not None:
            rolls.append(roll)
        allocations.append(
            HitAllocation(hit_number, figure.id, None if roll is None else roll.result)
        )
    return AllocationOutcome(
        pool=tuple(figure.id for figure in pool),
        die=allocation_die(len(pool)) if len(pool) > 1 else None,
        allocations=tuple(allocations),
        rolls=tuple(rolls),
    )


def _build_pool(
    figures: Sequence[Figure], pool_option: AllocationPool | str, hits: int
) -> tuple[Figure, ...]:
    pool = allocation_pool(figures, allocation_pool=pool_option)
    if hits and not pool:
        raise CasualtyError(
            "allocation.empty_pool", "No figure of the target can be allocated a hit."
        )
    if len(pool) > 1:
        allocation_die(len(pool))  # refuse pools over 12 before any die is rolled
    return pool


def state_after_hits(
    state: FigureState,
    *,
    wounds: int,
    kills: int,
    rewound_kills: bool = False,
    rewound_reverts_to_untreated: bool = False,
    environment: Environment = Environment.NORMAL,
) -> FigureState:
    """A figure's state after the hits one resolution placed on him (SG2 P.36, P.47; SG2-C).

    A KILL, or two or more WOUNDs in the same resolution, kill him (P.36); for artillery one
    strike is one resolution, and more than one wound from overlapping bursts kills (P.47).
    One wound makes a fit man an untreated casualty. One wound on a man already a casualty
    leaves him as he is unless option ``rewound_kills`` (default false, Goodall's reading) is
    set; with option ``rewound_reverts_to_untreated`` (default false, a gap SG2-C leaves) a
    treated casualty wounded again needs treatment again (untreated). A wearer of a wrecked
    power suit is unhurt, so one wound makes him a casualty. In a vacuum (option
    ``environment``, SG2 P.57) "all WOUND effects should be considered as KILLS".
    """
    _check_count(wounds, "wounds")
    _check_count(kills, "kills")
    if state is FigureState.DEAD:
        return state
    if not state.on_table_alive:
        raise CasualtyError(
            "figure.not_on_table",
            f"A figure that is {state.value} is not on the table to be hit.",
        )
    if wounds and Environment(environment) is Environment.VACUUM:
        return FigureState.DEAD
    if kills or wounds >= 2:
        return FigureState.DEAD
    if not wounds:
        return state
    if state in (FigureState.FIT, FigureState.SUIT_DISABLED):
        return FigureState.UNTREATED
    if rewound_kills:
        return FigureState.DEAD
    if rewound_reverts_to_untreated and state is FigureState.STABILISED:
        return FigureState.UNTREATED
    return state


POWER_ARMOUR_TABLE = "1 dead, 2-4 stabilised, 5 suit disabled, 6 fit"


def power_armour_result(roll: int) -> FigureState:
    """The P.40 power-armour casualty table for one D6 score."""
    if roll == 1:
        return FigureState.DEAD
    if roll <= 4:
        return FigureState.STABILISED
    if roll == 5:
        return FigureState.SUIT_DISABLED
    return FigureState.FIT


@dataclass(frozen=True, slots=True)
class PowerArmourOutcome:
    """What became of a power-armoured trooper who went down without being killed outright."""

    state: FigureState
    rolls: tuple[Roll, ...]


def power_armour_casualty(*, dice: DiceSource) -> PowerArmourOutcome:
    """Roll at once for a power-armoured casualty not killed outright (SG2 P.40).

    SG2 P.40 POWER ARMOUR TROOP CASUALTIES: D6, no medic modifier (the suit treats him):
    1 dead; 2-4 wounded and stabilised by the suit; 5 unhurt but the suit is wrecked (DISABLED
    counter; a Reorganise action gets him out as an unarmoured figure); 6 back in action.
    Dice: one D6.
    """
    roll = dice.roll(Die.D6, "power armour casualty")
    return PowerArmourOutcome(state=power_armour_result(roll.result), rolls=(roll,))


@dataclass(frozen=True, slots=True)
class FigureCasualty:
    """How one resolution changed one figure."""

    figure_id: str
    before: FigureState
    after: FigureState
    wounds: int = 0
    kills: int = 0
    power_armour_roll: int | None = None


@dataclass(frozen=True, slots=True)
class PotentialHit:
    """One potential hit: impact and armour scores, its result, and who took it."""

    hit_number: int
    impact_die: Die
    armour_die: Die
    impact_roll: int
    armour_roll: int
    result: HitResult
    figure_id: str | None = None  # None: it did nothing, so nobody had to be picked
    allocation_roll: int | None = None


@dataclass(frozen=True, slots=True)
class FireCasualtiesOutcome:
    """The casualties one fire resolution caused on a dispersed target."""

    hits: tuple[PotentialHit, ...]
    casualties: tuple[FigureCasualty, ...]
    pool: tuple[str, ...]
    allocated_first: bool
    rolls: tuple[Roll, ...]

    @property
    def killed(self) -> tuple[str, ...]:
        return tuple(c.figure_id for c in self.casualties if c.after is FigureState.DEAD)

    @property
    def wounded(self) -> tuple[str, ...]:
        return tuple(c.figure_id for c in self.casualties if c.after is FigureState.UNTREATED)


def _opposed_dice(impact: Die, armour: Die, armour_shift: int) -> tuple[Die, Die]:
    # Impact against armour is an open shift (P.6, P.38): cover steps beyond D12 lower impact.
    shifted = open_shift_die(armour, armour_shift, opponent_die=impact)
    return shifted.opponent_die, shifted.die


def settle_power_armour(
    dice: DiceSource, figures: Sequence[Figure], changes: list[FigureCasualty]
) -> list[Roll]:
    """Roll P.40 at once for each power-armoured figure in ``changes`` newly made a casualty.

    ``changes`` is updated in place with the power-armour result; the rolls are returned. The
    digests read P.40 as applying to any casualty not killed outright (AMBIG-09).
    """
    by_id = {figure.id: figure for figure in figures}
    rolls: list[Roll] = []
    for index, change in enumerate(changes):
        newly_down = change.after is FigureState.UNTREATED and change.before in (
            FigureState.FIT,
            FigureState.SUIT_DISABLED,
        )
        if newly_down and by_id[change.figure_id].power_armour:
            outcome = power_armour_casualty(dice=dice)
            rolls.extend(outcome.rolls)
            changes[index] = FigureCasualty(
                figure_id=change.figure_id,
                before=change.before,
                after=outcome.state,
                wounds=change.wounds,
                kills=change.kills,
                power_armour_roll=outcome.rolls[0].result,
            )
    return rolls


def _casualties_from_hits(
    pool: Sequence[Figure], hits: Sequence[PotentialHit], **options: Any
) -> list[FigureCasualty]:
    changes: list[FigureCasualty] = []
    for figure in pool:
        taken = [
            hit.result
            for hit in hits
            if hit.figure_id == figure.id and hit.result is not HitResult.NO_EFFECT
        ]
        if not taken:
            continue
        wounds = taken.count(HitResult.WOUND)
        kills = taken.count(HitResult.KILL)
        after = state_after_hits(figure.state, wounds=wounds, kills=kills, **options)
        changes.append(FigureCasualty(figure.id, figure.state, after, wounds, kills))
    return changes


def resolve_fire_casualties(
    *,
    dice: DiceSource,
    figures: Sequence[Figure],
    potential_hits: int,
    impact: Die,
    cover: Cover = Cover.OPEN,
    allocation_pool: AllocationPool = AllocationPool.LIVING,
    allocation_overflow: AllocationOverflow = AllocationOverflow.CONTINUE_COUNT,
    allocate_before_penetration: AllocationOrder = AllocationOrder.AUTO,
    rewound_kills: bool = False,
    cover_shifts_armour_vs_direct_fire: bool = True,
    rewound_reverts_to_untreated: bool = False,
    environment: Environment = Environment.NORMAL,
) -> FireCasualtiesOutcome:
    """Turn potential hits on an infantry unit into wounds and kills on figures (SG2 P.35-36).

    SG2 P.36 FIRE AGAINST DISPERSED TARGETS, steps 3 and 4. The caller supplies what steps 1-2
    decided: the number of potential hits of a fully effective fire, and the impact die (the
    small-arms type, or the support weapon's own when it fired alone, D8 for heavy weapons,
    P.37, P.40). Per potential hit the firer rolls impact and the target its armour die: impact
    not above armour no effect, above it a WOUND, above twice it a KILL. WOUNDs and KILLs are
    placed on figures as in :func:`allocate_hits`; two WOUNDs on one figure kill him. A
    power-armoured figure who goes down without being killed rolls at once (P.40).

    Options: ``cover_shifts_armour_vs_direct_fire`` (default true, P.12: soft cover shifts the
    armour die up one, hard cover two, as an open shift); ``allocate_before_penetration``
    (default ``auto``: allocate each potential hit first and roll that figure's own armour when
    the pool's armour is mixed, P.36 NOTE); ``allocation_pool``, ``allocation_overflow``,
    ``rewound_kills``, ``rewound_reverts_to_untreated`` and ``environment`` (vacuum: wounds
    kill, P.57) as in :func:`allocate_hits` and :func:`state_after_hits`.

    Dice, penetration first: impact then armour per potential hit; then one allocation die per
    WOUND or KILL; then a D6 per new power-armour casualty in counting order. Allocation first:
    per potential hit the allocation die, impact, that figure's armour; then the power-armour
    dice.
    """
    _check_count(potential_hits, "potential hits")
    _check_unique(figures)
    pool = _build_pool(figures, allocation_pool, potential_hits)
    armour_shift = Cover(cover).value if cover_shifts_armour_vs_direct_fire else 0
    overflow = AllocationOverflow(allocation_overflow)
    mixed_armour = len({figure.armour for figure in pool}) > 1
    order = AllocationOrder(allocate_before_penetration)
    if order is AllocationOrder.NEVER and mixed_armour:
        raise CasualtyError(
            "fire.mixed_armour",
            "A squad in mixed armour must allocate hits before rolling against armour.",
        )
    allocate_first = order is AllocationOrder.ALWAYS or mixed_armour
    rolls: list[Roll] = []
    hits: list[PotentialHit] = []
    for hit_number in range(1, potential_hits + 1):
        target: Figure | None = None
        allocation_roll: Roll | None = None
        if allocate_first:
            target, allocation_roll = _allocate_one(dice, pool, hit_number, overflow)
            if allocation_roll is not None:
                rolls.append(allocation_roll)
        armour_die = (target or pool[0]).armour
        impact_die, armour_die = _opposed_dice(impact, armour_die, armour_shift)
        impact_roll = dice.roll(impact_die, f"impact of potential hit {hit_number}")
        armour_roll = dice.roll(armour_die, f"armour against potential hit {hit_number}")
        rolls += [impact_roll, armour_roll]
        hits.append(
            PotentialHit(
                hit_number=hit_number,
                impact_die=impact_die,
                armour_die=armour_die,
                impact_roll=impact_roll.result,
                armour_roll=armour_roll.result,
                result=penetration(impact_roll.result, armour_roll.result),
                figure_id=None if target is None else target.id,
                allocation_roll=None if allocation_roll is None else allocation_roll.result,
            )
        )
    if not allocate_first:
        for index, hit in enumerate(hits):
            if hit.result is HitResult.NO_EFFECT:
                continue
            target, allocation_roll = _allocate_one(dice, pool, hit.hit_number, overflow)
            if allocation_roll is not None:
                rolls.append(allocation_roll)
            hits[index] = _placed(hit, target, allocation_roll)
    changes = _casualties_from_hits(
        pool,
        hits,
        rewound_kills=rewound_kills,
        rewound_reverts_to_untreated=rewound_reverts_to_untreated,
        environment=environment,
    )
    rolls += settle_power_armour(dice, pool, changes)
    return FireCasualtiesOutcome(
        hits=tuple(hits),
        casualties=tuple(changes),
        pool=tuple(figure.id for figure in pool),
        allocated_first=allocate_first,
        rolls=tuple(rolls),
    )


def _placed(hit: PotentialHit, target: Figure, allocation_roll: Roll | None) -> PotentialHit:
    return PotentialHit(
        hit_number=hit.hit_number,
        impact_die=hit.impact_die,
        armour_die=hit.armour_die,
        impact_roll=hit.impact_roll,
        armour_roll=hit.armour_roll,
        result=hit.result,
        figure_id=target.id,
        allocation_roll=None if allocation_roll is None else allocation_roll.result,
    )


class Warhead(enum.StrEnum):
    """Artillery warhead types and their impact dice (SG2 P.46 ARTILLERY WEAPON DATA)."""

    GENERAL_PURPOSE_EXPLOSIVE = "gpe"
    ANTI_PERSONNEL_SUBMUNITIONS = "aps"
    ANTI_ARMOUR_SUBMUNITIONS = "aas"

    @property
    def dispersed_impact(self) -> Die:
        """Impact against figures: GPE D8, APS D12, AAS D6."""
        return {"gpe": Die.D8, "aps": Die.D12, "aas": Die.D6}[self.value]

    @property
    def point_impact(self) -> tuple[Die, int]:
        """Impact against vehicles and buildings (die, multiplier): GPE D8, APS D8, AAS D12x2."""
        return {"gpe": (Die.D8, 1), "aps": (Die.D8, 1), "aas": (Die.D12, 2)}[self.value]


class DeliverySystem(enum.StrEnum):
    """Artillery delivery systems and their burst radius in inches (SG2 P.46)."""

    SMALL = "small"
    MEDIUM = "medium"
    LARGE = "large"
    VERY_LARGE = "very_large"

    @property
    def burst_radius_inches(self) -> int:
        return {"small": 3, "medium": 4, "large": 6, "very_large": 10}[self.value]


@dataclass(frozen=True, slots=True)
class BurstExposure:
    """A figure caught by one or more bursts: the cover he has against each burst."""

    figure: Figure
    bursts: tuple[Cover, ...] = (Cover.OPEN,)
    in_position: bool = False

    def __post_init__(self) -> None:
        if not self.bursts:
            raise RuleError(
                "casualties.refused",
                f"Figure {self.figure.id} must be caught by at least one burst.",
            )


@dataclass(frozen=True, slots=True)
class BurstRoll:
    """One figure's opposed roll against one burst."""

    figure_id: str
    burst_number: int
    impact_die: Die
    armour_die: Die
    impact_roll: int
    armour_roll: int
    result: HitResult


@dataclass(frozen=True, slots=True)
class ArtilleryCasualtiesOutcome:
    """The casualties one artillery strike caused among the figures in its bursts."""

    burst_rolls: tuple[BurstRoll, ...]
    casualties: tuple[FigureCasualty, ...]
    rolls: tuple[Roll, ...]
    # Every unit with a figure in a burst is suppressed, hurt or not (P.47).
    suppressed_figures: tuple[str, ...] = ()


def artillery_casualties(
    *,
    dice: DiceSource,
    exposures: Sequence[BurstExposure],
    warhead: Warhead = Warhead.GENERAL_PURPOSE_EXPLOSIVE,
    rewound_kills: bool = False,
    rewound_reverts_to_untreated: bool = False,
    environment: Environment = Environment.NORMAL,
) -> ArtilleryCasualtiesOutcome:
    """Wounds and kills among figures caught in artillery bursts (SG2 P.46-47).

    SG2 P.47 CASUALTIES FROM ARTILLERY FIRE: for each figure and each burst he is caught in,
    the warhead's impact against dispersed targets (GPE D8, APS D12, AAS D6) is opposed by the
    figure's armour die, shifted up one for soft and two for hard cover that lies between him and
    the burst, and one more when his unit is IN POSITION (P.13). The armour shift is open: steps
    past D12 lower the impact die. Impact above armour wounds, above twice armour kills; more than
    one wound from the strike kills. Dead figures are skipped. A power-armoured figure who goes
    down without being killed rolls at once (P.40). The caller supplies which figures are in
    which bursts; every unit with a figure in a burst is suppressed.

    Options ``rewound_kills`` and ``rewound_reverts_to_untreated`` (default false): a single
    wound on a figure already a casualty; ``environment``: in a vacuum wounds kill (P.57).
    Dice: per figure in the given order, per burst, the impact die then the armour die; then a
    D6 per new power-armour casualty.
    """
    _check_unique([exposure.figure for exposure in exposures])
    impact = Warhead(warhead).dispersed_impact
    rolls: list[Roll] = []
    burst_rolls: list[BurstRoll] = []
    changes: list[FigureCasualty] = []
    for exposure in exposures:
        figure = exposure.figure
        if figure.state is FigureState.DEAD:
            continue
        results: list[HitResult] = []
        for burst_number, cover in enumerate(exposure.bursts, start=1):
            shift = Cover(cover).value + (1 if exposure.in_position else 0)
            impact_die, armour_die = _opposed_dice(impact, figure.armour, shift)
            impact_roll = dice.roll(impact_die, f"burst {burst_number} impact on {figure.id}")
            armour_roll = dice.roll(
                armour_die, f"armour of {figure.id} against burst {burst_number}"
            )
            rolls += [impact_roll, armour_roll]
            result = penetration(impact_roll.result, armour_roll.result)
            results.append(result)
            burst_rolls.append(
                BurstRoll(
                    figure.id,
                    burst_number,
                    impact_die,
                    armour_die,
                    impact_roll.result,
                    armour_roll.result,
                    result,
                )
            )
        wounds = results.count(HitResult.WOUND)
        kills = results.count(HitResult.KILL)
        if wounds or kills:
            after = state_after_hits(
                figure.state,
                wounds=wounds,
                kills=kills,
                rewound_kills=rewound_kills,
                rewound_reverts_to_untreated=rewound_reverts_to_untreated,
                environment=environment,
            )
            changes.append(FigureCasualty(figure.id, figure.state, after, wounds, kills))
    rolls += settle_power_armour(dice, [e.figure for e in exposures], changes)
    return ArtilleryCasualtiesOutcome(
        burst_rolls=tuple(burst_rolls),
        casualties=tuple(changes),
        rolls=tuple(rolls),
        suppressed_figures=tuple(e.figure.id for e in exposures),
    )


def close_combat_result(roll: int, *, side_won: bool) -> tuple[FigureState, bool]:
    """The P.42 close-combat casualty table: (condition, captured) for one D6 score.

    1-2 dead; 3-4 wounded; 5-6 stunned: back in action if his side won. The losing side cannot
    take its wounded or stunned with it: they are captured (P.42 summary box).
    """
    if roll <= 2:
        return FigureState.DEAD, False
    if roll <= 4:
        return FigureState.UNTREATED, not side_won
    return FigureState.FIT, not side_won


@dataclass(frozen=True, slots=True)
class CloseCombatCasualty:
    """The fate of one figure that went down in a close assault."""

    figure_id: str
    roll: int
    condition: FigureState  # dead, untreated, fit, or a power-armour result
    captured: bool
    power_armour_roll: int | None = None

    @property
    def stunned(self) -> bool:
        return self.roll >= 5

    @property
    def state(self) -> FigureState:
        """His state on the table: captured unless dead, if his side lost."""
        if self.captured and self.condition is not FigureState.DEAD:
            return FigureState.CAPTURED
        return self.condition


@dataclass(frozen=True, slots=True)
class CloseCombatCasualtiesOutcome:
    """The fates of one side's downed figures after a close assault."""

    casualties: tuple[CloseCombatCasualty, ...]
    rolls: tuple[Roll, ...]


def close_combat_casualties(
    *,
    dice: DiceSource,
    down: Sequence[Figure],
    side_won: bool,
    environment: Environment = Environment.NORMAL,
) -> CloseCombatCasualtiesOutcome:
    """Decide the fate of one side's figures downed in a close assault (SG2 P.42).

    SG2 P.42 CASUALTIES IN CLOSE COMBAT: when the assault is over, a D6 for every downed figure
    of both sides (call once per side): 1-2 DEAD; 3-4 WOUNDED (untreated casualty, needs
    treatment as usual); 5-6 stunned, back in action if his side won, taken prisoner if it lost.
    Wounded figures of the losing side are left to the victors and captured. A power-armoured
    figure rolled as wounded then rolls the P.40 table at once (the digests' reading, AMBIG-09).
    ``down`` holds figures marked DOWN (or FIT, if the caller does not track DOWN). In a vacuum
    (option ``environment``, P.57) a wounded result is a kill, so 1-4 is DEAD.

    Dice: one D6 per downed figure in the given order, then one D6 per wounded power-armoured
    figure in the same order.
    """
    _check_unique(down)
    for figure in down:
        if figure.state not in (FigureState.DOWN, FigureState.FIT):
            raise CasualtyError(
                "close_combat.not_down",
                f"Figure {figure.id} is {figure.state.value}, not down in the assault.",
            )
    rolls: list[Roll] = []
    results: list[CloseCombatCasualty] = []
    for figure in down:
        roll = dice.roll(Die.D6, f"close combat casualty {figure.id}")
        rolls.append(roll)
        condition, captured = close_combat_result(roll.result, side_won=side_won)
        if condition is FigureState.UNTREATED and Environment(environment) is Environment.VACUUM:
            condition = FigureState.DEAD
        results.append(CloseCombatCasualty(figure.id, roll.result, condition, captured))
    for index, (figure, result) in enumerate(zip(down, results, strict=True)):
        if figure.power_armour and result.condition is FigureState.UNTREATED:
            outcome = power_armour_casualty(dice=dice)
            rolls.extend(outcome.rolls)
            results[index] = CloseCombatCasualty(
                figure.id, result.roll, outcome.state, result.captured, outcome.rolls[0].result
            )
    return CloseCombatCasualtiesOutcome(casualties=tuple(results), rolls=tuple(rolls))
