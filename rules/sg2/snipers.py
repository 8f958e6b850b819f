"""Stargrunt II sniper fire (SG2 P.25-27).

A sniper who fires with an action of his own (an independent figure, or one attached to a squad
who fires separately, P.26-27) uses the SNIPER FIRE rules: twice the range band of his quality,
his quality die and his rifle's firepower die against the target's range die. Every shot
suppresses the target; one success hits a random figure, two hit the figure he aimed at; a ONE on
the quality die gives his position away. The hit is then checked with impact against armour as
any fire is (P.36, :mod:`rules.sg2.casualties`).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from rules.dice import DiceSource, Die, Roll, open_shift_die
from rules.errors import RuleError
from rules.sg2.casualties import (
    AllocationOverflow,
    AllocationPool,
    Cover,
    Figure,
    FigureCasualty,
    HitResult,
    allocate_hits,
    penetration,
    settle_power_armour,
    state_after_hits,
)
from rules.sg2.casualties import allocation_pool as pool_of
from rules.sg2.fire import RangeDie, range_band, range_die
from rules.sg2.options import Environment
from rules.sg2.scales import Quality


class SniperError(RuleError):
    """A sniper shot the rules do not allow."""


class SniperWeapon(enum.StrEnum):
    """Specialist sniping weapons (SG2 P.27 SNIPER WEAPON TYPES)."""

    CONVENTIONAL = "conventional"
    GAUSS = "gauss"
    LASER = "laser"
    HEAVY_ANTI_MATERIAL = "heavy_anti_material"

    @property
    def firepower(self) -> Die:
        """Conventional D10, Gauss D10, Laser D12, Heavy Anti-Material Rifle D8."""
        return {"conventional": Die.D10, "gauss": Die.D10, "laser": Die.D12}.get(self.value, Die.D8)

    @property
    def impact(self) -> tuple[Die, int]:
        """Impact die and multiplier: Conventional D10, Gauss D12, Laser D8, HAMR D12x2."""
        return {
            "conventional": (Die.D10, 1),
            "gauss": (Die.D12, 1),
            "laser": (Die.D8, 1),
            "heavy_anti_material": (Die.D12, 2),
        }[self.value]


class SniperHit(enum.StrEnum):
    """What the sniper's two dice did against the range die (P.27)."""

    SUPPRESSION = "suppression"  # neither beat it: the target is still suppressed
    RANDOM_FIGURE = "random_figure"  # one did: a figure hit at random
    AIMED_FIGURE = "aimed_figure"  # both did: the figure the sniper picked out


def sniper_range_band(quality: Quality) -> int:
    """A sniper's range band in inches: twice his quality's small-arms band (SG2 P.27).

    "thus a VETERAN sniper would have a Range Band of 20" rather than the 10" of a normal Veteran
    trooper."
    """
    return 2 * range_band(quality)


def sniper_hit(quality_roll: int, weapon_roll: int, range_roll: int) -> SniperHit:
    """The result of a sniper's two dice against the target's range die (SG2 P.27).

    None above the range roll: SUPPRESSION only; one: a random figure hit; both: the figure the
    sniper chose.
    """
    beaten = int(quality_roll > range_roll) + int(weapon_roll > range_roll)
    return (SniperHit.SUPPRESSION, SniperHit.RANDOM_FIGURE, SniperHit.AIMED_FIGURE)[beaten]


def position_revealed(quality_roll: int) -> bool:
    """A ONE on the sniper's quality die gives his position away: his figure goes on the table
    (SG2 P.27)."""
    return quality_roll == 1


@dataclass(frozen=True, slots=True)
class SniperShot:
    """The sniper's shot: the target's range die, his two dice and what they did."""

    range_die: RangeDie
    range_roll: int
    quality_die: Die
    quality_roll: int
    weapon_die: Die
    weapon_roll: int
    hit: SniperHit
    revealed: bool
    rolls: tuple[Roll, ...]

    @property
    def suppresses(self) -> bool:
        """Every sniper shot suppresses its target, even one that misses (P.27)."""
        return True


def sniper_shot(
    *,
    dice: DiceSource,
    quality: Quality,
    weapon: SniperWeapon | str,
    bands: int,
    cover: Cover = Cover.OPEN,
    in_position: bool = False,
    lone_figure: bool = False,
) -> SniperShot:
    """A sniper fires with an action of his own (SG2 P.27 SNIPER FIRE).

    The target rolls the range die as for any fire (P.35: D4 at up to one band, one type up per
    further band, for soft or hard cover, in position, a lone figure), with ``bands`` counted in
    the sniper's doubled band (:func:`sniper_range_band`); above a D12 the shot is refused. The
    sniper rolls his quality die FIRST (a ONE reveals his position), then his rifle's firepower
    die. Dice: the range die, the quality die, the weapon's firepower die.
    """
    rifle = SniperWeapon(weapon)
    target_die = range_die(
        bands=bands, cover=cover, in_position=in_position, lone_figure=lone_figure
    )
    quality_die = Quality(quality).die
    range_roll = dice.roll(target_die.die, "range die against the sniper")
    quality_roll = dice.roll(quality_die, "sniper's quality die")
    weapon_roll = dice.roll(rifle.firepower, "sniper's weapon die")
    return SniperShot(
        range_die=target_die,
        range_roll=range_roll.result,
        quality_die=quality_die,
        quality_roll=quality_roll.result,
        weapon_die=rifle.firepower,
        weapon_roll=weapon_roll.result,
        hit=sniper_hit(quality_roll.result, weapon_roll.result, range_roll.result),
        revealed=position_revealed(quality_roll.result),
        rolls=(range_roll, quality_roll, weapon_roll),
    )


@dataclass(frozen=True, slots=True)
class SniperHitOutcome:
    """Who the sniper hit, his impact against that figure's armour, and the casualty."""

    figure_id: str
    allocation_roll: int | None
    impact_die: Die
    impact_multiplier: int
    armour_die: Die
    impact_roll: int
    armour_roll: int
    result: HitResult
    casualties: tuple[FigureCasualty, ...]
    pool: tuple[str, ...]
    rolls: tuple[Roll, ...]

    @property
    def impact_score(self) -> int:
        return self.impact_roll * self.impact_multiplier


def resolve_sniper_hit(
    *,
    dice: DiceSource,
    hit: SniperHit | str,
    figures: Sequence[Figure],
    aimed_at: str,
    weapon: SniperWeapon | str,
    cover: Cover = Cover.OPEN,
    allocation_pool: AllocationPool = AllocationPool.LIVING,
    allocation_overflow: AllocationOverflow = AllocationOverflow.CONTINUE_COUNT,
    cover_shifts_armour_vs_direct_fire: bool = True,
    rewound_kills: bool = False,
    rewound_reverts_to_untreated: bool = False,
    environment: Environment = Environment.NORMAL,
) -> SniperHitOutcome:
    """The figure a sniper's hit strikes and whether it wounds or kills him (SG2 P.27, P.36).

    A RANDOM_FIGURE hit is placed "in the usual way" (the P.36 allocation die over the target's
    figures, in counting order, :func:`rules.sg2.casualties.allocate_hits`); an AIMED_FIGURE hit
    strikes ``aimed_at``, the figure the sniper picked out. "Any figure hit must still be checked
    for wound/kill results with an Impact vs. Armour roll": the rifle's impact die against his
    armour die (shifted up for cover as for direct fire, by option
    ``cover_shifts_armour_vs_direct_fire``, an open shift). The Heavy Anti-Material Rifle's
    impact is D12x2: its score is doubled. Above armour WOUNDED, above twice armour DEAD; a
    power-armoured figure who goes down without being killed rolls P.40 at once.

    Options as :func:`rules.sg2.casualties.resolve_fire_casualties`. Dice: the allocation die (a
    random hit on a target of more than one figure), the impact die, the armour die, then a D6 for
    a new power-armour casualty.
    """
    hit = SniperHit(hit)
    if hit is SniperHit.SUPPRESSION:
        raise SniperError("sniper.no_hit", "A shot that only suppresses hits no figure.")
    pool = pool_of(figures, allocation_pool=allocation_pool)
    by_id = {figure.id: figure for figure in pool}
    if aimed_at not in by_id:
        raise SniperError(
            "sniper.aimed_at_not_in_target",
            f"Figure {aimed_at} is not one of the target's figures that fire can hit.",
        )
    rolls: list[Roll] = []
    allocation_roll: int | None = None
    if hit is SniperHit.RANDOM_FIGURE:
        placed = allocate_hits(
            dice=dice,
            figures=figures,
            hits=1,
            allocation_pool=allocation_pool,
            allocation_overflow=allocation_overflow,
        )
        rolls += placed.rolls
        figure = by_id[placed.allocations[0].figure_id]
        allocation_roll = placed.allocations[0].roll
    else:
        figure = by_id[aimed_at]
    impact, multiplier = SniperWeapon(weapon).impact
    shift = Cover(cover).value if cover_shifts_armour_vs_direct_fire else 0
    shifted = open_shift_die(figure.armour, shift, opponent_die=impact)
    impact_roll = dice.roll(shifted.opponent_die, f"sniper's impact on {figure.id}")
    armour_roll = dice.roll(shifted.die, f"armour of {figure.id} against the sniper")
    rolls += [impact_roll, armour_roll]
    result = penetration(impact_roll.result * multiplier, armour_roll.result)
    changes: list[FigureCasualty] = []
    if result is not HitResult.NO_EFFECT:
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
    rolls += settle_power_armour(dice, [figure], changes)
    return SniperHitOutcome(
        figure_id=figure.id,
        allocation_roll=allocation_roll,
        impact_die=shifted.opponent_die,
        impact_multiplier=multiplier,
        armour_die=shifted.die,
        impact_roll=impact_roll.result,
        armour_roll=armour_roll.result,
        result=result,
        casualties=tuple(changes),
        pool=tuple(by_id),
        rolls=tuple(rolls),
    )
