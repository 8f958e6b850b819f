"""Fast and Dirty indirect artillery fire (FaD p.30, advanced rule), continuing with the blast
procedure of p.21.

An officer or infantry squad leader (or a Forward Observer or Command Vehicle, p.42-43) calls
an off-board artillery unit as his Command action. Each artillery unit takes one call a turn.

1. Determine Timing: 3d6, not added, each die at or above the *artillery unit's* Quality Level
   succeeds (a Recon unit rolls 2d6 and adds one success, Recon trait p.39-41; a Comms expert
   gives +1, p.33). Two or more: the strike arrives at once. One: garbled, no strike, call again
   later. None: that artillery unit is out of contact for the rest of the game.
2. Determine Accuracy: 2d6, each at or above the *spotter's* Quality Level succeeds. Both:
   pinpoint. Each failed die scatters the strike 1d6" in a random direction.
3. The blast: the weapon's radius around where it landed (p.21); each unit inside takes a
   Strike Effect (:func:`rules.fad.shooting.strike_effect`) and its hits, damage and marker as
   for a blast weapon.

Every die is returned in the outcome, in the order rolled.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from rules.dice import DiceSource, Die, Roll
from rules.errors import RuleError
from rules.fad.options import ModifierMode, ScatterMode, WeaponsDamageTable
from rules.fad.scales import Quality
from rules.fad.weapons import WEAPONS, Weapon, weapon_damage

TIMING_DICE = 3
# Recon trait (p.39-41): one die is an automatic success; roll the other two.
RECON_AUTOMATIC_SUCCESSES = 1
# p.30: two successes or more and the strike arrives now.
ARRIVES_AT = 2
ACCURACY_DICE = 2
# p.33 Comms: +1 when calling for Indirect Artillery Fire.
COMMS_BONUS = 1


class Timing(enum.StrEnum):
    """p.30 Determine Timing: what came of the call."""

    ARRIVES = "arrives"
    GARBLED = "garbled"
    OUT_OF_CONTACT = "out_of_contact"


@dataclass(frozen=True, slots=True)
class TimingTest:
    """The timing count test: the dice rolled, what each die gained, the automatic and bonus
    successes, the successes counted and the result."""

    dice: tuple[int, ...]
    die_modifier: int
    automatic_successes: int
    bonus_successes: int
    target_number: int
    successes: int
    result: Timing
    rolls: tuple[Roll, ...]


def artillery_timing(
    *,
    dice: DiceSource,
    battery_quality: Quality,
    recon: bool = False,
    comms: bool = False,
    artillery_comms_bonus_mode: ModifierMode | str = ModifierMode.PER_DIE,
) -> TimingTest:
    """p.30 Determine Timing: 3d6 (do not add) against the artillery unit's Quality Level
    (Rabble 5+, Conscript 4+, Regular 3+, Elite 2+). Two or more successes: the strike arrives
    immediately; one: garbled, no strike; none: out of contact for good.

    A caller with the Recon trait rolls 2d6 and adds one success (p.39-41). A caller with a
    Comms expert has +1 (p.33); option ``artillery_comms_bonus_mode`` says how: ``per_die``
    (default) adds 1 to each die, ``successes`` adds one success to the count.
    """
    quality = Quality(battery_quality)
    mode = ModifierMode(artillery_comms_bonus_mode)
    automatic = RECON_AUTOMATIC_SUCCESSES if recon else 0
    count = TIMING_DICE - automatic
    die_modifier = COMMS_BONUS if comms and mode is ModifierMode.PER_DIE else 0
    bonus = COMMS_BONUS if comms and mode is ModifierMode.SUCCESSES else 0
    rolls = tuple(dice.roll(Die.D6, f"timing die {n + 1} of {count}") for n in range(count))
    target = quality.target_number
    successes = automatic + bonus + sum(1 for r in rolls if r.result + die_modifier >= target)
    if successes >= ARRIVES_AT:
        result = Timing.ARRIVES
    elif successes == 1:
        result = Timing.GARBLED
    else:
        result = Timing.OUT_OF_CONTACT
    return TimingTest(
        dice=tuple(r.result for r in rolls),
        die_modifier=die_modifier,
        automatic_successes=automatic,
        bonus_successes=bonus,
        target_number=target,
        successes=successes,
        result=result,
        rolls=rolls,
    )


@dataclass(frozen=True, slots=True)
class ScatterLeg:
    """One scatter of the strike: a d12 read as a clock face for the direction, and the inches
    (the sum of the d6s rolled for it)."""

    direction: int
    distance_dice: tuple[int, ...]
    distance: int


@dataclass(frozen=True, slots=True)
class Accuracy:
    dice: tuple[int, ...]
    target_number: int
    failed: int
    legs: tuple[ScatterLeg, ...]
    rolls: tuple[Roll, ...]

    @property
    def on_target(self) -> bool:
        """Both dice succeeded: pinpoint accuracy."""
        return self.failed == 0

    @property
    def scatter_inches(self) -> int:
        """The inches scattered, legs added (each leg in its own direction)."""
        return sum(leg.distance for leg in self.legs)


def artillery_accuracy(
    *,
    dice: DiceSource,
    spotter_quality: Quality,
    scatter_mode: ScatterMode | str = ScatterMode.ONE_DIRECTION_K_D6,
) -> Accuracy:
    """p.30 Determine Accuracy: 2d6 (do not add) against the spotter's Quality Level. Both
    succeed: on target. Each failed die scatters the strike 1d6" in a random direction.

    The direction is a d12 read as a clock face. Option ``scatter_mode``: ``one_direction_k_d6``
    (default; the Drop Troops text, p.27, makes the scatter "a single die roll") rolls one
    direction and 1d6" per failed die, added; ``per_failed_die`` rolls a direction and 1d6" for
    each failed die, the strike moving in turn.
    """
    target = Quality(spotter_quality).target_number
    rolls = [dice.roll(Die.D6, f"accuracy die {n + 1} of {ACCURACY_DICE}") for n in range(2)]
    failed = sum(1 for r in rolls if r.result < target)
    legs: list[ScatterLeg] = []
    if failed and ScatterMode(scatter_mode) is ScatterMode.ONE_DIRECTION_K_D6:
        direction = dice.roll(Die.D12, "scatter direction (clock face)")
        inches = [dice.roll(Die.D6, f"scatter inches {n + 1} of {failed}") for n in range(failed)]
        rolls += [direction, *inches]
        faces = tuple(r.result for r in inches)
        legs.append(ScatterLeg(direction.result, faces, sum(faces)))
    elif failed:
        for n in range(failed):
            heading = dice.roll(Die.D12, f"scatter {n + 1} of {failed}: direction (clock face)")
            distance = dice.roll(Die.D6, f"scatter {n + 1} of {failed}: inches")
            rolls += [heading, distance]
            legs.append(ScatterLeg(heading.result, (distance.result,), distance.result))
    return Accuracy(
        dice=tuple(r.result for r in rolls[:ACCURACY_DICE]),
        target_number=target,
        failed=failed,
        legs=tuple(legs),
        rolls=tuple(rolls),
    )


@dataclass(frozen=True, slots=True)
class ArtilleryCall:
    """A call for indirect artillery fire: the timing test and, if the strike arrives, where it
    lands."""

    timing: TimingTest
    accuracy: Accuracy | None
    rolls: tuple[Roll, ...]


def call_artillery(
    *,
    dice: DiceSource,
    battery_quality: Quality,
    spotter_quality: Quality,
    recon: bool = False,
    comms: bool = False,
    artillery_comms_bonus_mode: ModifierMode | str = ModifierMode.PER_DIE,
    scatter_mode: ScatterMode | str = ScatterMode.ONE_DIRECTION_K_D6,
) -> ArtilleryCall:
    """The Command action "call for Indirect Artillery Fire" (p.30): the timing test, then the
    accuracy test only when the strike arrives (a garbled or lost call fires nothing)."""
    timing = artillery_timing(
        dice=dice,
        battery_quality=battery_quality,
        recon=recon,
        comms=comms,
        artillery_comms_bonus_mode=artillery_comms_bonus_mode,
    )
    if timing.result is not Timing.ARRIVES:
        return ArtilleryCall(timing, None, timing.rolls)
    accuracy = artillery_accuracy(
        dice=dice, spotter_quality=spotter_quality, scatter_mode=scatter_mode
    )
    return ArtilleryCall(timing, accuracy, (*timing.rolls, *accuracy.rolls))


def check_battery_call(*, out_of_contact: bool, called_this_turn: bool) -> None:
    """p.30: an artillery unit out of contact takes no more calls; one in contact takes one
    call a turn. Raises ``RuleError`` ``artillery.out_of_contact`` or
    ``artillery.already_called``."""
    if out_of_contact:
        raise RuleError(
            "artillery.out_of_contact",
            "Communication with that artillery unit has been knocked out: no further calls (p.30).",
        )
    if called_this_turn:
        raise RuleError(
            "artillery.already_called",
            "That artillery unit has already received a strike call this turn (p.30).",
        )


@dataclass(frozen=True, slots=True)
class StrikeWeapon:
    """What an off-board artillery unit's weapon gives its strike (p.21, p.69)."""

    weapon: Weapon
    blast_inches: int
    damage: int
    always_pins: bool


def strike_weapon(
    weapon: Weapon | str,
    *,
    weapons_damage_table: WeaponsDamageTable | str = WeaponsDamageTable.BY_MOUNT,
) -> StrikeWeapon:
    """The blast radius, Damage and pinning of an artillery unit's weapon (p.21, p.30, p.69).

    Off-board artillery fires cannons, mortars or missile launchers (blast weapons); anything
    else is refused (``artillery.not_a_blast_weapon``). The weapon is not vehicle-mounted, so
    option ``weapons_damage_table`` ``by_mount`` reads the p.69 table. Medium and Heavy Cannon and
    Heavy Mortar always pin (p.69 **).
    """
    weapon = Weapon(weapon)
    stats = WEAPONS[weapon]
    if stats.blast_inches is None:
        raise RuleError(
            "artillery.not_a_blast_weapon",
            f"Off-board artillery fires blast weapons (cannon, mortar, missile launcher); the "
            f"{weapon.label} is not one (p.30).",
        )
    damage = weapon_damage(weapon, weapons_damage_table=weapons_damage_table)
    # Every blast weapon has a Damage rating in the p.69 table.
    assert damage is not None
    return StrikeWeapon(weapon, stats.blast_inches, damage, stats.always_pins)
