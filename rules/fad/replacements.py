"""Fast and Dirty post-battle steps: replacements, quality and resolve loss, reinforcements.

FaD p.66 POST-BATTLE STEPS. After every battle, for each force: infantry replacements, vehicle
replacements, quality loss, resolve loss, then the 2d6 reinforcement pool (which campaign points,
:mod:`rules.fad.points`, can enlarge). Every roll is one d6 unless a rule says otherwise.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass

from rules.dice import DiceSource, Die, Roll, roll_moot
from rules.errors import RuleError
from rules.fad.scales import Quality, Resolve


def _check_count(name: str, value: int, *, minimum: int = 0) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise RuleError(
            "replacements.refused",
            f"{name} must be a whole number from {minimum} up, not {value!r}.",
        )


class PostBattleStep(enum.StrEnum):
    """The post-battle steps of FaD p.66, in the order a campaign runs them."""

    INFANTRY_REPLACEMENTS = "infantry_replacements"
    VEHICLE_REPLACEMENTS = "vehicle_replacements"
    QUALITY_LOSS = "quality_loss"
    RESOLVE_LOSS = "resolve_loss"
    REINFORCEMENTS = "reinforcements"
    EXPERIENCE = "experience"


def post_battle_step_order(
    *, campaign_step_order: str = "points_before_reinforcements"
) -> tuple[PostBattleStep, ...]:
    """The order of the post-battle steps (FaD p.66).

    The book lists Reinforcements before Experience, yet Experience can buy extra reinforcement
    dice. Option ``campaign_step_order``: ``"points_before_reinforcements"`` (default: spend
    campaign points before rolling the pool, so bought dice count now) or ``"as_printed"``.
    """
    first = (
        PostBattleStep.INFANTRY_REPLACEMENTS,
        PostBattleStep.VEHICLE_REPLACEMENTS,
        PostBattleStep.QUALITY_LOSS,
        PostBattleStep.RESOLVE_LOSS,
    )
    if campaign_step_order == "points_before_reinforcements":
        return (*first, PostBattleStep.EXPERIENCE, PostBattleStep.REINFORCEMENTS)
    if campaign_step_order == "as_printed":
        return (*first, PostBattleStep.REINFORCEMENTS, PostBattleStep.EXPERIENCE)
    raise RuleError(
        "replacements.refused",
        "campaign_step_order is 'points_before_reinforcements' or 'as_printed', "
        f"not {campaign_step_order!r}.",
    )


def losses_for_replacement(
    *,
    casualties: int,
    strength_at_battle_start: int,
    routed_or_surrendered: bool = False,
    campaign_routed_unit_fate: str = "returns_at_current_strength",
) -> int:
    """How many figures a unit counts as lost when it rolls for replacements (FaD p.13, p.66).

    A unit that routs or surrenders is removed from play (p.13 MORALE TESTS), but the book does not
    say what becomes of its figures in a campaign. Option ``campaign_routed_unit_fate``:
    ``"returns_at_current_strength"`` (default: only its casualties are losses) or
    ``"counts_as_eliminated"`` (every figure it started the battle with is lost).
    """
    _check_count("Casualties", casualties)
    _check_count("Strength at battle start", strength_at_battle_start, minimum=1)
    if casualties > strength_at_battle_start:
        raise RuleError(
            "replacements.refused",
            f"{casualties} casualties is more than the {strength_at_battle_start} figures the "
            "unit started the battle with.",
        )
    if campaign_routed_unit_fate not in ("returns_at_current_strength", "counts_as_eliminated"):
        raise RuleError(
            "replacements.refused",
            "campaign_routed_unit_fate is 'returns_at_current_strength' or "
            f"'counts_as_eliminated', not {campaign_routed_unit_fate!r}.",
        )
    if routed_or_surrendered and campaign_routed_unit_fate == "counts_as_eliminated":
        return strength_at_battle_start
    return casualties


class InfantryReplacementRow(enum.StrEnum):
    """The rows of the INFANTRY REPLACEMENTS table (FaD p.66)."""

    NONE = "none"
    HALF = "half"
    FULL = "full"


@dataclass(frozen=True, slots=True)
class InfantryReplacements:
    """How many lost figures an infantry unit gets back; ``row`` is ``None`` if it lost none."""

    losses: int
    row: InfantryReplacementRow | None
    replaced: int
    rolls: tuple[Roll, ...]


def infantry_replacements(
    *, dice: DiceSource, losses: int, lone_figure: bool = False
) -> InfantryReplacements:
    """How many of an infantry unit's losses are replaced (FaD p.66 INFANTRY REPLACEMENTS).

    One d6 for a unit that suffered any losses, eliminated units included: 1-2 no replacements;
    3-4 half the losses replaced, rounded up, but a lone figure such as an officer or sniper is not
    returned to duty; 5-6 back to full strength. A unit with no losses does not roll.
    """
    _check_count("Losses", losses)
    if lone_figure and losses > 1:
        raise RuleError(
            "replacements.refused", f"A lone figure can lose only itself, not {losses} figures."
        )
    if losses == 0:
        return InfantryReplacements(losses=0, row=None, replaced=0, rolls=())
    roll = dice.roll(Die.D6, "infantry replacements")
    if roll.result <= 2:
        row, replaced = InfantryReplacementRow.NONE, 0
    elif roll.result <= 4:
        row = InfantryReplacementRow.HALF
        replaced = 0 if lone_figure else math.ceil(losses / 2)
    else:
        row, replaced = InfantryReplacementRow.FULL, losses
    return InfantryReplacements(losses=losses, row=row, replaced=replaced, rolls=(roll,))


class VehicleCondition(enum.StrEnum):
    """A vehicle's state after a battle, as the replacement table reads it."""

    OPERATIONAL = "operational"
    DAMAGED = "damaged"
    DESTROYED = "destroyed"
    # Left behind by a crew that bailed out and fled (p.13); the replacement table does not name it.
    ABANDONED = "abandoned"


class VehicleFate(enum.StrEnum):
    """What the VEHICLE REPLACEMENTS table (FaD p.66) does to a damaged or destroyed vehicle."""

    NOT_REPAIRED = "not_repaired"
    NOT_REPLACED = "not_replaced"
    REPAIRED = "repaired"
    REPLACED = "replaced"


@dataclass(frozen=True, slots=True)
class VehicleReplacement:
    """The fate of one damaged or destroyed vehicle and the condition it ends in."""

    before: VehicleCondition
    fate: VehicleFate
    after: VehicleCondition
    rolls: tuple[Roll, ...]


def vehicle_replacement(
    *,
    dice: DiceSource,
    condition: VehicleCondition,
    campaign_abandoned_vehicle_fate: str = "damaged",
) -> VehicleReplacement:
    """Whether a damaged vehicle is repaired or a destroyed one replaced (FaD p.66).

    VEHICLE REPLACEMENTS, one d6 per damaged or destroyed vehicle: 1-2 not repaired or replaced;
    3-4 a damaged vehicle is repaired, but a destroyed one is not replaced; 5-6 repaired or
    replaced. An operational vehicle does not roll and is refused.

    The book does not say how an abandoned vehicle (its crew bailed out, p.13) is treated. Option
    ``campaign_abandoned_vehicle_fate``: ``"damaged"`` (default) or ``"destroyed"``; the vehicle
    rolls as that, and ``before`` records the condition it rolled as.
    """
    condition = VehicleCondition(condition)
    if campaign_abandoned_vehicle_fate not in ("damaged", "destroyed"):
        raise RuleError(
            "replacements.refused",
            "campaign_abandoned_vehicle_fate is 'damaged' or 'destroyed', "
            f"not {campaign_abandoned_vehicle_fate!r}.",
        )
    if condition is VehicleCondition.OPERATIONAL:
        raise RuleError(
            "replacements.refused",
            "Only a damaged or destroyed vehicle rolls for repair or replacement.",
        )
    if condition is VehicleCondition.ABANDONED:
        condition = VehicleCondition(campaign_abandoned_vehicle_fate)
    roll = dice.roll(Die.D6, f"vehicle replacement ({condition})")
    destroyed = condition is VehicleCondition.DESTROYED
    back = roll.result >= 5 or (roll.result >= 3 and not destroyed)
    if back:
        fate = VehicleFate.REPLACED if destroyed else VehicleFate.REPAIRED
    else:
        fate = VehicleFate.NOT_REPLACED if destroyed else VehicleFate.NOT_REPAIRED
    after = VehicleCondition.OPERATIONAL if back else condition
    return VehicleReplacement(before=condition, fate=fate, after=after, rolls=(roll,))


def quality_loss_strength(
    *,
    initial_strength: int,
    strength_after_battle: int | None = None,
    campaign_half_strength_basis: str = "initial_strength",
) -> int:
    """The strength the "half" of FaD p.66 QUALITY LOSS is measured against: the unit's initial
    strength (default) or, with ``campaign_half_strength_basis = "strength_after_battle"``, the
    figures it had left after the battle."""
    _check_count("Initial strength", initial_strength, minimum=1)
    if campaign_half_strength_basis == "initial_strength":
        return initial_strength
    if campaign_half_strength_basis == "strength_after_battle":
        if strength_after_battle is None:
            raise RuleError(
                "replacements.refused",
                "The strength after the battle is needed to measure half strength against it.",
            )
        _check_count("Strength after the battle", strength_after_battle)
        return strength_after_battle
    raise RuleError(
        "replacements.refused",
        "campaign_half_strength_basis is 'initial_strength' or 'strength_after_battle', "
        f"not {campaign_half_strength_basis!r}.",
    )


def at_least_half(newcomers: int, strength: int) -> bool:
    """A unit that "receives at least half of their strength" in newcomers rolls Quality Loss
    (FaD p.66): 2 x newcomers >= strength, so 4 of 8 and 3 of 5 do, 3 of 8 does not."""
    return 2 * newcomers >= strength


@dataclass(frozen=True, slots=True)
class QualityLoss:
    """A unit's quality after the Quality Loss step; ``rolled`` says whether it had to roll."""

    before: Quality
    after: Quality
    rolled: bool
    rolls: tuple[Roll, ...]


def quality_loss(
    *,
    dice: DiceSource,
    quality: Quality,
    replacements_received: int,
    initial_strength: int,
    strength_after_battle: int | None = None,
    reinforcements_received: int = 0,
    is_vehicle: bool = False,
    campaign_half_strength_basis: str = "initial_strength",
    campaign_quality_loss_counts_reinforcements: bool = False,
    campaign_quality_loss_vehicles: bool = False,
) -> QualityLoss:
    """Whether a unit diluted by replacements loses a level of quality (FaD p.66 QUALITY LOSS).

    A unit that received at least half its strength in replacements rolls one d6: 1-2 quality
    drops one level (never below Rabble), 3+ it stays. A Rabble unit cannot drop, so it does not
    roll. Options the book leaves open:

    - ``campaign_half_strength_basis``: the strength "half" is measured against,
      ``"initial_strength"`` (default) or ``"strength_after_battle"`` (the survivors);
    - ``campaign_quality_loss_counts_reinforcements`` (default False): whether troopers from the
      reinforcement pool count as replacements (the pool is rolled after this step);
    - ``campaign_quality_loss_vehicles`` (default False): whether a repaired or replaced vehicle
      (its crew) rolls at all.
    """
    quality = Quality(quality)
    _check_count("Replacements received", replacements_received)
    _check_count("Reinforcements received", reinforcements_received)
    strength = quality_loss_strength(
        initial_strength=initial_strength,
        strength_after_battle=strength_after_battle,
        campaign_half_strength_basis=campaign_half_strength_basis,
    )
    newcomers = replacements_received
    if campaign_quality_loss_counts_reinforcements:
        newcomers += reinforcements_received
    must_roll = at_least_half(newcomers, strength) and (
        campaign_quality_loss_vehicles or not is_vehicle
    )
    if must_roll and quality is Quality.RABBLE:
        # The book rolls for a Rabble unit all the same (p.66); it cannot drop lower.
        moot = roll_moot(dice, Die.D6, "quality loss")
        return QualityLoss(
            before=quality, after=quality, rolled=False, rolls=(moot,) if moot else ()
        )
    if not must_roll:
        return QualityLoss(before=quality, after=quality, rolled=False, rolls=())
    roll = dice.roll(Die.D6, "quality loss")
    after = Quality(quality - 1) if roll.result <= 2 else quality
    return QualityLoss(before=quality, after=after, rolled=True, rolls=(roll,))


@dataclass(frozen=True, slots=True)
class ResolveChange:
    """A unit's resolve after the Resolve Loss step; ``rolled`` says whether it had to roll."""

    before: Resolve
    after: Resolve
    rolled: bool
    rolls: tuple[Roll, ...]


def resolve_change(
    *,
    dice: DiceSource,
    resolve: Resolve,
    suffered_losses: bool,
    resolve_locked: bool = False,
    campaign_locked_resolve_skips_roll: bool = True,
) -> ResolveChange:
    """Whether a unit that suffered losses or damage loses or gains resolve (FaD p.66).

    RESOLVE LOSS, one d6 for any unit that suffered losses or damage of any kind: 1-2 resolve drops
    one level (never below Reluctant), 3-4 it stays, 5-6 it improves one level. The book gives no
    level above Determined, so a Determined unit that rolls 5-6 stays Determined.

    Units whose resolve the points rules fix (Fanatic, p.39; off-board artillery) are
    ``resolve_locked``. Option ``campaign_locked_resolve_skips_roll`` (default True): they do not
    roll; if False they roll like any other unit.
    """
    resolve = Resolve(resolve)
    if not suffered_losses or (resolve_locked and campaign_locked_resolve_skips_roll):
        return ResolveChange(before=resolve, after=resolve, rolled=False, rolls=())
    roll = dice.roll(Die.D6, "resolve loss")
    if roll.result <= 2:
        after = Resolve(max(resolve - 1, Resolve.RELUCTANT))
    elif roll.result <= 4:
        after = resolve
    else:
        after = Resolve(min(resolve + 1, Resolve.DETERMINED))
    return ResolveChange(before=resolve, after=after, rolled=True, rolls=(roll,))


BASE_REINFORCEMENT_DICE = 2


@dataclass(frozen=True, slots=True)
class ReinforcementPool:
    """How many extra troopers a player may assign to replace losses."""

    troopers: int
    rolls: tuple[Roll, ...]


def reinforcement_pool(*, dice: DiceSource, extra_dice: int = 0) -> ReinforcementPool:
    """How many reinforcement troopers a player receives (FaD p.66 REINFORCEMENTS).

    Roll 2d6 and add them, plus one more d6 for each campaign point spent on an additional
    reinforcement die (p.66 EXPERIENCE). The total is the number of troopers.
    """
    _check_count("Extra reinforcement dice", extra_dice)
    rolls = tuple(
        dice.roll(Die.D6, f"reinforcements, die {number}")
        for number in range(1, BASE_REINFORCEMENT_DICE + extra_dice + 1)
    )
    return ReinforcementPool(troopers=sum(roll.result for roll in rolls), rolls=rolls)


NEW_SQUAD_MIN = 5
NEW_SQUAD_MAX = 8
SQUAD_LEADER_EXPERIENCE = ("inexperienced", "experienced", "veteran")


@dataclass(frozen=True, slots=True)
class UnitStrength:
    """An infantry unit's strength now and at the start of the campaign (its cap for refills)."""

    unit_id: str
    strength: int
    initial_strength: int

    def __post_init__(self) -> None:
        _check_count("Strength", self.strength)
        _check_count("Initial strength", self.initial_strength, minimum=1)
        if self.strength > self.initial_strength:
            raise RuleError(
                "replacements.refused",
                f"Unit {self.unit_id!r} has {self.strength} figures, more than its initial "
                f"{self.initial_strength}.",
            )


@dataclass(frozen=True, slots=True)
class NewSquad:
    """A squad formed from reinforcements: Conscript, Uncertain, armed like the platoon's squads."""

    size: int
    quality: Quality
    resolve: Resolve
    squad_leader_experience: str


@dataclass(frozen=True, slots=True)
class ReinforcementAssignment:
    """Units after the pool is assigned, the new squad if one was formed, and troopers unused."""

    units: tuple[UnitStrength, ...]
    new_squad: NewSquad | None
    unused: int


def assign_reinforcements(
    *,
    pool: int,
    units: tuple[UnitStrength, ...],
    assignment: Mapping[str, int],
    new_squad_size: int = 0,
    leaders_replacement_experience: str = "inexperienced",
) -> ReinforcementAssignment:
    """Check and apply the player's assignment of reinforcement troopers (FaD p.66).

    The troopers take the quality and resolve of the unit they join; no unit may be raised above
    its initial starting strength. If the player wishes, no less than 5 and no more than 8 of them
    form a new squad of Conscript quality and Uncertain resolve, armed and armoured like a typical
    squad of the platoon (``new_squad_size``, 0 for none). Troopers not placed are lost.

    Option ``leaders_replacement_experience`` (default ``"inexperienced"``): the book does not say
    how experienced the new squad's leader is.
    """
    _check_count("Reinforcement pool", pool)
    _check_count("New squad size", new_squad_size)
    if leaders_replacement_experience not in SQUAD_LEADER_EXPERIENCE:
        raise RuleError(
            "replacements.refused",
            "leaders_replacement_experience is one of "
            f"{', '.join(SQUAD_LEADER_EXPERIENCE)}, not {leaders_replacement_experience!r}.",
        )
    if new_squad_size and not NEW_SQUAD_MIN <= new_squad_size <= NEW_SQUAD_MAX:
        raise RuleError(
            "replacements.refused",
            f"A new squad takes {NEW_SQUAD_MIN} to {NEW_SQUAD_MAX} reinforcements, "
            f"not {new_squad_size}.",
        )
    by_id = {unit.unit_id: unit for unit in units}
    if len(by_id) != len(units):
        raise RuleError("replacements.refused", "Each unit may be listed only once.")
    for unit_id, troopers in assignment.items():
        if unit_id not in by_id:
            raise RuleError("replacements.refused", f"There is no unit {unit_id!r} to reinforce.")
        _check_count(f"Troopers assigned to {unit_id!r}", troopers)
        unit = by_id[unit_id]
        if unit.strength + troopers > unit.initial_strength:
            raise RuleError(
                "replacements.refused",
                f"Unit {unit_id!r} would reach {unit.strength + troopers} figures; no unit may "
                f"be raised above its initial {unit.initial_strength}.",
            )
    placed = sum(assignment.values()) + new_squad_size
    if placed > pool:
        raise RuleError(
            "replacements.refused",
            f"{placed} troopers were assigned but the pool holds only {pool}.",
        )
    new_squad = (
        NewSquad(
            size=new_squad_size,
            quality=Quality.CONSCRIPT,
            resolve=Resolve.UNCERTAIN,
            squad_leader_experience=leaders_replacement_experience,
        )
        if new_squad_size
        else None
    )
    return ReinforcementAssignment(
        units=tuple(
            UnitStrength(
                unit_id=unit.unit_id,
                strength=unit.strength + assignment.get(unit.unit_id, 0),
                initial_strength=unit.initial_strength,
            )
            for unit in units
        ),
        new_squad=new_squad,
        unused=pool - placed,
    )
