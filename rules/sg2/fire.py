"""Stargrunt II direct fire by infantry: from range and firepower to potential hits (P.33-36).

The procedure of SG2 P.35-36 FIRE AGAINST DISPERSED TARGETS, steps 1 and 2, with the range die
of P.33 RANGE BANDS / SMALL ARMS RANGES and the firepower dice of P.34 FIREPOWER and P.35 ADDING
SUPPORT FIREPOWER; and the QUICK-AND-DIRTY OPTION of P.36, which ends in hits on figures without
rolling impact against armour. Steps 3 and 4 of the full procedure (impact against armour, who
takes each hit) are :func:`rules.sg2.casualties.resolve_fire_casualties`.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

from rules.dice import (
    DIE_LADDER,
    DiceSource,
    Die,
    OpposedOutcome,
    Roll,
    multiple_opposed,
    shift_die,
    smallest_die_at_least,
)
from rules.errors import RuleError
from rules.sg2.casualties import (
    AllocationOutcome,
    AllocationOverflow,
    AllocationPool,
    Cover,
    Figure,
    FigureCasualty,
    allocate_hits,
    settle_power_armour,
    state_after_hits,
)
from rules.sg2.options import Environment, FireMethod
from rules.sg2.scales import Quality

# Five range bands reach a D12 in the open; beyond, the range die would be above D12 (P.33).
_TOP = len(DIE_LADDER) - 1


class FireError(RuleError):
    """A fire the rules do not allow (out of range, no firer dice)."""


class FireEffect(enum.StrEnum):
    """The outcome of the opposed fire-effect roll (P.35 STEP 1)."""

    NO_EFFECT = "no_effect"  # no firer die beat the range die
    SUPPRESSION = "suppression"  # one did: a suppression marker, no casualties
    EFFECTIVE = "effective"  # two or more: suppression and potential hits


_EFFECT_OF = {
    OpposedOutcome.FAILURE: FireEffect.NO_EFFECT,
    OpposedOutcome.MINOR_SUCCESS: FireEffect.SUPPRESSION,
    OpposedOutcome.MAJOR_SUCCESS: FireEffect.EFFECTIVE,
}


def range_band(quality: Quality) -> int:
    """The small-arms range band in inches: the firing unit's quality die (SG2 P.33).

    UNTRAINED 4", GREEN 6", REGULAR 8", VETERAN 10", ELITE 12"; the same for infantry support
    weapons fired by the squad.
    """
    return Quality(quality).die.value


def range_bands(distance: float, band: int) -> int:
    """How many range bands the distance spans: up to one band is 1, up to two is 2 (SG2 P.35).

    "If it is UP TO ONE multiple of the firer's RANGE BAND, then the RANGE DIE is a D4; at over
    one Range Band but less than two, the die rises to a D6": a distance of exactly two bands is
    still the second band (P.33: "at up to TWO range bands the range die rises to a D6").
    """
    if isinstance(distance, bool) or not isinstance(distance, int | float) or distance < 0:
        raise FireError("fire.refused", f"A distance is 0 inches or more, not {distance!r}.")
    if isinstance(band, bool) or not isinstance(band, int) or band < 1:
        raise FireError("fire.refused", f"A range band is 1 inch or more, not {band!r}.")
    return max(1, math.ceil(distance / band))


@dataclass(frozen=True, slots=True)
class RangeDie:
    """The target's range die and the die-type shifts that made it (P.35 THE TARGET'S ROLL)."""

    die: Die
    band_steps: int
    cover_steps: int
    position_steps: int


def range_die(
    *,
    bands: int,
    cover: Cover = Cover.OPEN,
    in_position: bool = False,
    lone_figure: bool = False,
    travel_mode: bool = False,
    close_range_only: bool = False,
) -> RangeDie:
    """The range die the target rolls against direct fire (SG2 P.33, P.35; P.12-13, P.24, P.26).

    D4 up to one range band, one die type up for each further band; SOFT cover one more, HARD
    cover two (P.35), IN POSITION one more (P.13), a lone independent figure one more (P.26), a
    unit in travel mode one down (P.24). If the die would go above D12 the fire is automatically
    ineffective (P.35), and close-range weapons are effective only within one band (P.33): both
    are refused, so no die is rolled for a fire that cannot be.
    """
    if isinstance(bands, bool) or not isinstance(bands, int) or bands < 1:
        raise FireError("fire.refused", f"The range is 1 range band or more, not {bands!r}.")
    if close_range_only and bands > 1:
        raise FireError(
            "fire.out_of_range",
            "Close-range weapons are effective only up to one range band (P.33).",
        )
    band_steps = bands - 1
    cover_steps = Cover(cover).value
    position_steps = int(in_position) + int(lone_figure) - int(travel_mode)
    steps = band_steps + cover_steps + position_steps
    if steps > _TOP:
        raise FireError(
            "fire.out_of_range",
            "The range die would be above a D12: the fire is automatically ineffective (P.35).",
        )
    return RangeDie(
        die=shift_die(Die.D4, steps),
        band_steps=band_steps,
        cover_steps=cover_steps,
        position_steps=position_steps,
    )


def small_arms_firepower_die(firepower: float, men_firing: int) -> Die:
    """The squad's small-arms firepower die (SG2 P.34 FIREPOWER).

    Firepower of the weapon type times the troopers firing it, as the nearest die type rounded
    up: 7 men with FP1 total 7, a D8; 5 men with FP2 total 10, a D10. 4 or less is a D4 and over
    12 still a D12.
    """
    if isinstance(firepower, bool) or not isinstance(firepower, int | float) or firepower <= 0:
        raise FireError("fire.refused", f"Weapon firepower is above 0, not {firepower!r}.")
    if isinstance(men_firing, bool) or not isinstance(men_firing, int) or men_firing < 1:
        raise FireError(
            "fire.refused", f"At least one trooper must fire small arms, not {men_firing!r}."
        )
    return smallest_die_at_least(math.ceil(firepower * men_firing), cap_at_d12=True)


def fire_effect(firer_rolls: Sequence[Roll | int], range_roll: Roll | int) -> FireEffect:
    """The fire effect of the firer's dice against the target's range roll (SG2 P.35 STEP 1).

    A multiple opposed roll (P.6, P.33): no firer die above the range roll, no effect; exactly
    one, suppression only; two or more, fully effective.
    """
    return _EFFECT_OF[multiple_opposed(firer_rolls, range_roll)]


@dataclass(frozen=True, slots=True)
class PotentialHits:
    """Hits from a fire total divided by a die type, and the roll for the left-over points."""

    total: int
    divisor: Die
    whole: int  # hits from the division, rounded down
    left_over: int
    left_over_roll: int | None  # the target's roll of the divisor die; None: none was made
    rolls: tuple[Roll, ...]

    @property
    def extra_hit(self) -> bool:
        """The left-over roll did not exceed the left-over points (P.35)."""
        return self.left_over_roll is not None and self.left_over_roll <= self.left_over

    @property
    def count(self) -> int:
        return self.whole + int(self.extra_hit)


def potential_hits(
    *, dice: DiceSource, total: int, divisor: Die, left_over_roll: bool = True
) -> PotentialHits:
    """Potential hits of a fully effective fire (SG2 P.35 STEP 2).

    The firer's total dice score divided by the target's range die type, rounded down. Points
    left over give the chance of one more hit: the target rolls the range die type once, and the
    hit is scored unless the roll EXCEEDS the left-over points; this applies too when the total
    is below one automatic hit. P.35's example: a total of 18 against a D8 is two hits, and the
    target must roll above 2 on a D8 to avoid a third.

    The quick-and-dirty option (P.36) divides by the armour die instead and makes the left-over
    roll only "if wished" (``left_over_roll``). Dice: the left-over roll, when points are left.
    """
    if isinstance(total, bool) or not isinstance(total, int) or total < 0:
        raise FireError("fire.refused", f"A fire total is 0 or more, not {total!r}.")
    whole, left_over = divmod(total, Die(divisor).value)
    rolls: tuple[Roll, ...] = ()
    if left_over and left_over_roll:
        rolls = (dice.roll(Die(divisor), f"left-over {left_over} against a possible extra hit"),)
    return PotentialHits(
        total=total,
        divisor=Die(divisor),
        whole=whole,
        left_over=left_over,
        left_over_roll=rolls[0].result if rolls else None,
        rolls=rolls,
    )


def quick_and_dirty_divisor(armour: Die, cover: Cover = Cover.OPEN) -> Die:
    """The die type the quick-and-dirty option divides the fire total by (SG2 P.36).

    The target's armour die, raised one type in soft cover and two in hard cover (a closed shift:
    D12 armour stays D12).
    """
    return shift_die(Die(armour), Cover(cover).value)


@dataclass(frozen=True, slots=True)
class FireOrder:
    """One infantry unit's direct fire at an infantry unit: everything the dice depend on.

    ``men_firing`` 0 with a single support weapon is that weapon firing alone, by its own
    action (P.36 INDIVIDUAL FIRE OF SUPPORT WEAPONS): quality die and its firepower die only.
    ``target_armour`` matters only to the quick-and-dirty option.
    """

    quality: Quality
    bands: int
    firepower: float = 0
    men_firing: int = 0
    support_dice: tuple[Die, ...] = ()
    cover: Cover = Cover.OPEN
    in_position: bool = False
    lone_figure: bool = False
    travel_mode: bool = False
    close_range_only: bool = False
    target_armour: Die = Die.D6


@dataclass(frozen=True, slots=True)
class FireOutcome:
    """Steps 1-2 of one fire: the dice rolled, the effect and the potential hits."""

    range_die: RangeDie
    range_roll: int
    firer_dice: tuple[Die, ...]
    firer_rolls: tuple[int, ...]
    effect: FireEffect
    method: FireMethod
    hits: PotentialHits | None  # None unless the fire was fully effective
    rolls: tuple[Roll, ...]

    @property
    def suppressed(self) -> bool:
        """Suppression and fully effective fire both give the target a suppression marker."""
        return self.effect is not FireEffect.NO_EFFECT

    @property
    def total(self) -> int:
        return sum(self.firer_rolls)

    @property
    def potential_hits(self) -> int:
        return 0 if self.hits is None else self.hits.count


def firer_dice(order: FireOrder) -> tuple[Die, ...]:
    """The firer's dice (SG2 P.35 THE FIRER'S ROLLS, ADDING SUPPORT FIREPOWER; P.36).

    The quality die, the small-arms firepower die, and one support firepower die per support
    weapon added to the squad's fire; a support weapon firing alone rolls quality and its own
    firepower die.
    """
    support = tuple(Die(die) for die in order.support_dice)
    if order.men_firing == 0:
        if len(support) != 1:
            raise FireError(
                "fire.no_firepower",
                "Without small arms firing, exactly one support weapon fires alone (P.36).",
            )
        return (Quality(order.quality).die, *support)
    small_arms = small_arms_firepower_die(order.firepower, order.men_firing)
    return (Quality(order.quality).die, small_arms, *support)


def resolve_fire(
    *,
    dice: DiceSource,
    order: FireOrder,
    fire_method: FireMethod = FireMethod.FULL,
    qd_leftover_roll: bool = True,
) -> FireOutcome:
    """Steps 1 and 2 of direct fire against an infantry unit (SG2 P.35-36).

    The target rolls the range die (:func:`range_die`); the firer rolls his dice
    (:func:`firer_dice`), read as a multiple opposed roll (:func:`fire_effect`). On fully
    effective fire the total of ALL the firer's dice, including those that did not beat the
    range roll, gives the potential hits (:func:`potential_hits`).

    Options: ``fire_method`` (default ``full``; ``quick_and_dirty`` divides by the armour die
    raised for cover, :func:`quick_and_dirty_divisor`, P.36); ``qd_leftover_roll`` (default
    true: the quick-and-dirty fire still rolls for left-over points).

    Dice: the range die, then the firer's dice in the order quality, small-arms firepower,
    support weapons as given; then the left-over roll if one is made.
    """
    method = FireMethod(fire_method)
    die = range_die(
        bands=order.bands,
        cover=order.cover,
        in_position=order.in_position,
        lone_figure=order.lone_figure,
        travel_mode=order.travel_mode,
        close_range_only=order.close_range_only,
    )
    firing = firer_dice(order)
    range_roll = dice.roll(die.die, "range die")
    names = ["quality", "small-arms firepower" if order.men_firing else "support firepower"]
    names += [f"support weapon {n}" for n in range(1, len(firing) - 1)]
    rolled = [
        dice.roll(firer_die, f"{name} die") for firer_die, name in zip(firing, names, strict=True)
    ]
    effect = fire_effect(rolled, range_roll)
    hits: PotentialHits | None = None
    if effect is FireEffect.EFFECTIVE:
        total = sum(roll.result for roll in rolled)
        if method is FireMethod.QUICK_AND_DIRTY:
            hits = potential_hits(
                dice=dice,
                total=total,
                divisor=quick_and_dirty_divisor(order.target_armour, order.cover),
                left_over_roll=qd_leftover_roll,
            )
        else:
            hits = potential_hits(dice=dice, total=total, divisor=die.die)
    return FireOutcome(
        range_die=die,
        range_roll=range_roll.result,
        firer_dice=firing,
        firer_rolls=tuple(roll.result for roll in rolled),
        effect=effect,
        method=method,
        hits=hits,
        rolls=(range_roll, *rolled, *(hits.rolls if hits else ())),
    )


@dataclass(frozen=True, slots=True)
class QuickAndDirtyCasualties:
    """Hits of a quick-and-dirty fire placed on figures, and what they did to them."""

    allocation: AllocationOutcome
    casualties: tuple[FigureCasualty, ...]
    rolls: tuple[Roll, ...]


def quick_and_dirty_casualties(
    *,
    dice: DiceSource,
    figures: Sequence[Figure],
    hits: int,
    allocation_pool: AllocationPool = AllocationPool.LIVING,
    allocation_overflow: AllocationOverflow = AllocationOverflow.CONTINUE_COUNT,
    rewound_kills: bool = False,
    rewound_reverts_to_untreated: bool = False,
    environment: Environment = Environment.NORMAL,
) -> QuickAndDirtyCasualties:
    """The casualties of a quick-and-dirty fire (SG2 P.36 THE QUICK-AND-DIRTY OPTION).

    "This is the number of casualties scored - distribute them as normal, then treat each figure
    hit as 'wounded' until they are checked by a medic": no impact against armour; each figure
    hit takes one wound however many hits he took (the medic's roll, P.39, tells whether he is
    dead, wounded or fine). A figure already a casualty follows the options as for any wound
    (:func:`rules.sg2.casualties.state_after_hits`); a power-armoured figure rolls at once
    (P.40). Dice: one allocation die per hit, then a D6 per new power-armour casualty.
    """
    allocation = allocate_hits(
        dice=dice,
        figures=figures,
        hits=hits,
        allocation_pool=allocation_pool,
        allocation_overflow=allocation_overflow,
    )
    hit_ids = {placed.figure_id for placed in allocation.allocations}
    changes = [
        FigureCasualty(
            figure.id,
            figure.state,
            state_after_hits(
                figure.state,
                wounds=1,
                kills=0,
                rewound_kills=rewound_kills,
                rewound_reverts_to_untreated=rewound_reverts_to_untreated,
                environment=environment,
            ),
            wounds=1,
        )
        for figure in figures
        if figure.id in hit_ids
    ]
    power_rolls = settle_power_armour(dice, figures, changes)
    return QuickAndDirtyCasualties(
        allocation=allocation,
        casualties=tuple(changes),
        rolls=(*allocation.rolls, *power_rolls),
    )
