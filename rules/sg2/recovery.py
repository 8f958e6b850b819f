"""Stargrunt II rest and recovery: fatigue, exhausted units, injured troopers and vehicle repair.

SG2 P.61 REST AND RECOVERY. Campaign time is counted in days; every time assumes a safe area with
adequate supplies and engineering backup, and doubles otherwise (see
:func:`rules.sg2.campaign.time_multiplier`).
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Protocol

from rules.dice import DiceSource, Die, Roll, roll_moot
from rules.errors import RuleError
from rules.sg2.campaign import (
    DEFAULT_FIELD_DOUBLING,
    DoubledTime,
    Location,
    require_count,
    time_multiplier,
)
from rules.sg2.experience import BattleResult
from rules.sg2.options import RecoveredCasualties
from rules.sg2.scales import Fatigue
from rules.sg2.vehicles import VehicleDamage


class FatigueDropAppliesTo(enum.StrEnum):
    """Which units lose a fatigue level after a battle: those that fought, or the whole force."""

    PARTICIPANTS = "participants"
    WHOLE_FORCE = "whole_force"


def fatigue_after_battle(
    *,
    fatigue: Fatigue,
    fought: bool = True,
    fatigue_drop_applies_to: FatigueDropAppliesTo = FatigueDropAppliesTo.PARTICIPANTS,
) -> Fatigue:
    """A unit's fatigue level after a battle: one level worse, never past EXHAUSTED.

    SG2 P.61 REST AND RECOVERY: after each battle all troops drop one fatigue level (FRESH ->
    TIRED -> EXHAUSTED), recovered only by R&R. Option ``fatigue_drop_applies_to``
    (participants: units of the force that did not fight keep their level; ``whole_force``:
    they drop too).
    """
    fatigue = Fatigue(fatigue)
    applies_to = FatigueDropAppliesTo(fatigue_drop_applies_to)
    if not fought and applies_to is FatigueDropAppliesTo.PARTICIPANTS:
        return fatigue
    return Fatigue(min(fatigue + 1, Fatigue.EXHAUSTED))


class BattleCounterReset(enum.StrEnum):
    """What ends "the last R&R period" for the exhausted-withdrawal count of battles."""

    ON_FATIGUE_STEP = "on_fatigue_step"
    ON_ANY_RR_DAY = "on_any_rr_day"


@dataclass(frozen=True, slots=True)
class RestOutcome:
    """A unit's fatigue after some days of uninterrupted R&R."""

    fatigue_before: Fatigue
    fatigue: Fatigue
    days_rested: int
    levels_recovered: int
    days_per_level: int
    # R&R days already accrued toward the next level (0 once FRESH).
    days_toward_next_level: int
    days_until_fresh: int
    # Whether the count of battles since the last R&R period starts again from zero.
    battles_counter_reset: bool


def rest_and_recovery(
    *,
    fatigue: Fatigue,
    days_rested: int,
    location: Location | str,
    supplied: bool = True,
    rr_days_per_fatigue_step: int = 2,
    field_time_multiplier: int = 2,
    field_doubling_applies_to: Collection[str] = DEFAULT_FIELD_DOUBLING,
    rr_counter_reset: BattleCounterReset = BattleCounterReset.ON_FATIGUE_STEP,
) -> RestOutcome:
    """A unit's fatigue after ``days_rested`` days of R&R since its last combat action.

    SG2 P.61 REST AND RECOVERY: 2 days of R&R from EXHAUSTED to TIRED and a further 2 to FRESH;
    any combat action during this time restarts the count, so ``days_rested`` counts only the
    days since the last one. Doubled in the field or short of supplies. Options
    ``rr_days_per_fatigue_step`` (2), ``field_time_multiplier`` (2), ``field_doubling_applies_to``
    and ``rr_counter_reset`` (on_fatigue_step: the battles-since-R&R count restarts when a level
    is recovered; ``on_any_rr_day``: after any day of rest).
    """
    fatigue = Fatigue(fatigue)
    require_count("Days rested", days_rested)
    require_count("R&R days per fatigue level", rr_days_per_fatigue_step, minimum=1)
    reset_rule = BattleCounterReset(rr_counter_reset)
    days_per_level = rr_days_per_fatigue_step * time_multiplier(
        task=DoubledTime.FATIGUE,
        location=Location(location),
        supplied=supplied,
        field_time_multiplier=field_time_multiplier,
        field_doubling_applies_to=field_doubling_applies_to,
    )
    levels = min(days_rested // days_per_level, int(fatigue))
    after = Fatigue(fatigue - levels)
    toward_next = 0 if after is Fatigue.FRESH else days_rested - levels * days_per_level
    if reset_rule is BattleCounterReset.ON_FATIGUE_STEP:
        counter_reset = levels > 0
    else:
        counter_reset = days_rested > 0
    return RestOutcome(
        fatigue_before=fatigue,
        fatigue=after,
        days_rested=days_rested,
        levels_recovered=levels,
        days_per_level=days_per_level,
        days_toward_next_level=toward_next,
        days_until_fresh=int(after) * days_per_level - toward_next,
        battles_counter_reset=counter_reset,
    )


@dataclass(frozen=True, slots=True)
class WithdrawalTest:
    """Whether an exhausted unit can stay in the line after a battle."""

    tested: bool
    battles_since_rest: int
    # The unit must be withdrawn until recovered by R&R, or it disintegrates.
    unfit: bool
    rolls: tuple[Roll, ...]

    @property
    def needed(self) -> int | None:
        """The D6 score that passes: above the battles fought; none from the sixth battle on."""
        if not self.tested or self.battles_since_rest >= Die.D6.value:
            return None
        return self.battles_since_rest + 1


def exhausted_withdrawal_test(
    *,
    dice: DiceSource,
    fatigue_in_battle: Fatigue,
    battles_since_rest: int,
    exhausted_withdrawal_test: bool = True,
) -> WithdrawalTest:
    """Decide whether a unit that fought while EXHAUSTED becomes unfit for battle.

    SG2 P.61 REST AND RECOVERY: a unit at EXHAUSTED that has to continue to fight without rest
    rolls a D6 after the battle; a score less than or equal to the TOTAL number of actions fought
    since the last R&R period makes it unfit: it MUST be withdrawn until recovered, or it
    disintegrates. Units that did not fight as EXHAUSTED are not tested; from six battles on the
    test cannot be passed: its die is moot (:func:`rules.dice.roll_moot`). Option
    ``exhausted_withdrawal_test`` (true).
    """
    fatigue_in_battle = Fatigue(fatigue_in_battle)
    require_count("Battles since the last R&R period", battles_since_rest, minimum=1)
    if not exhausted_withdrawal_test or fatigue_in_battle is not Fatigue.EXHAUSTED:
        return WithdrawalTest(False, battles_since_rest, unfit=False, rolls=())
    purpose = f"exhausted unit fit to fight on after {battles_since_rest} battles"
    if battles_since_rest >= Die.D6.value:
        # No face passes the test (P.61); the table may roll it all the same.
        moot = roll_moot(dice, Die.D6, purpose)
        return WithdrawalTest(True, battles_since_rest, unfit=True, rolls=(moot,) if moot else ())
    roll = dice.roll(Die.D6, purpose)
    return WithdrawalTest(
        True, battles_since_rest, unfit=roll.result <= battles_since_rest, rolls=(roll,)
    )


class UnfitUnitFate(enum.StrEnum):
    """What becomes of a unit the withdrawal test found unfit."""

    WITHDRAWN = "withdrawn"
    DISINTEGRATED = "disintegrated"


def fate_of_unfit_unit(*, kept_in_combat: bool) -> UnfitUnitFate:
    """An unfit unit is withdrawn until recovered, or disintegrates if kept fighting.

    SG2 P.61 REST AND RECOVERY: failure to withdraw it results in the unit disintegrating and
    being lost for the rest of the campaign.
    """
    return UnfitUnitFate.DISINTEGRATED if kept_in_combat else UnfitUnitFate.WITHDRAWN


@dataclass(frozen=True, slots=True)
class InjuredRecovery:
    """The fate of one injured trooper recovered from a battle."""

    permanently_evacuated: bool
    # Days until he may return to duty (None when evacuated for good).
    days_until_return: int | None
    # The campaign day he returns, when the battle's day was given.
    returns_on_day: int | None
    rolls: tuple[Roll, ...]


def injured_trooper_recovery(
    *,
    dice: DiceSource,
    battle_day: int | None = None,
    location: Location = Location.SAFE_AREA,
    supplied: bool = True,
    injured_permanent_on: int = 2,
    field_time_multiplier: int = 2,
    field_doubling_applies_to: Collection[str] = DEFAULT_FIELD_DOUBLING,
) -> InjuredRecovery:
    """Roll whether an injured trooper is lost to the campaign, or back after some days.

    SG2 P.61 REST AND RECOVERY: one D6 per man; 1-2: evacuated permanently to a rear area
    hospital; 3+: returns to duty after that many days (3-6), doubled in the field or short of
    supplies. Options ``injured_permanent_on`` (2: a score up to 2 is permanent),
    ``field_time_multiplier`` and ``field_doubling_applies_to``. The return day is
    ``battle_day`` plus the days. One roll.
    """
    require_count("The highest permanent-evacuation score", injured_permanent_on)
    if injured_permanent_on > Die.D6.value:
        raise RuleError(
            "recovery.refused",
            f"The highest permanent-evacuation score is at most 6, not {injured_permanent_on}.",
        )
    if battle_day is not None:
        require_count("The battle's campaign day", battle_day)
    multiplier = time_multiplier(
        task=DoubledTime.INJURED_RETURN,
        location=Location(location),
        supplied=supplied,
        field_time_multiplier=field_time_multiplier,
        field_doubling_applies_to=field_doubling_applies_to,
    )
    roll = dice.roll(Die.D6, "injured trooper's recovery")
    if roll.result <= injured_permanent_on:
        return InjuredRecovery(True, None, None, (roll,))
    days = roll.result * multiplier
    returns_on = None if battle_day is None else battle_day + days
    return InjuredRecovery(False, days, returns_on, (roll,))


class UnitAtEnd(enum.StrEnum):
    """How a unit ended the battle: still on the field, or how it left it (the battle's end)."""

    HELD = "held"
    WITHDRAWN = "withdrawn"
    ROUTED = "routed"
    SURRENDERED = "surrendered"


class CasualtyFate(enum.StrEnum):
    """Whose hands an injured trooper is in when the battle ends."""

    RECOVERED = "recovered"  # his own side's: the recovery roll follows (P.61)
    LEFT_WITH_ENEMY = "left_with_enemy"  # the enemy's: a prisoner, not recovered
    UMPIRE = "umpire"  # the umpire decides


def casualty_fate(
    *,
    evacuated: bool,
    unit_at_end: UnitAtEnd,
    side_result: BattleResult,
    abandoned: bool = False,
    recovered_casualties: RecoveredCasualties = RecoveredCasualties.FRIENDLY_CONTROL,
) -> CasualtyFate:
    """Whether an injured trooper is among the "injured troops recovered from a battle" (P.61).

    SG2 P.61 rolls the recovery die only for casualties recovered from a battle and does not say
    which those are (digest AMBIG-26). A casualty flown out by casevac (P.54) always is. Option
    ``recovered_casualties``: ``friendly_control`` (the digest's suggested rule: those under their
    own side's control at the end) reads the battle's end as follows:

    - his unit surrendered: he is in enemy hands with it (P.53);
    - his side won: it holds the field and recovers its own (P.60: "the force that wins a battle
      will be able to recover ... their own"), even those its units left behind;
    - his unit left the field (withdrew or routed), or abandoned him during the battle (P.20: it
      withdrew "without taking their wounded along"): left with the enemy;
    - otherwise he is still with his unit at the end: recovered.

    ``evacuated_only`` and ``umpire``: every casualty but the evacuated is the umpire's to decide.
    """
    unit_at_end = UnitAtEnd(unit_at_end)
    side_result = BattleResult(side_result)
    if evacuated:
        return CasualtyFate.RECOVERED
    if RecoveredCasualties(recovered_casualties) is not RecoveredCasualties.FRIENDLY_CONTROL:
        return CasualtyFate.UMPIRE
    if unit_at_end is UnitAtEnd.SURRENDERED:
        return CasualtyFate.LEFT_WITH_ENEMY
    if side_result is BattleResult.WIN:
        return CasualtyFate.RECOVERED
    if abandoned or unit_at_end is not UnitAtEnd.HELD:
        return CasualtyFate.LEFT_WITH_ENEMY
    return CasualtyFate.RECOVERED


BOOK_REPAIR_DAYS: Mapping[VehicleDamage, int] = {
    VehicleDamage.IMMOBILISED: 1,
    VehicleDamage.SYSTEMS_DAMAGED: 1,
    VehicleDamage.DISABLED: 3,
}


class RepairDaysTable(Protocol):
    """Repair days per damage state, as a campaign's options hold them."""

    @property
    def immobilised(self) -> int: ...

    @property
    def system_damaged(self) -> int: ...

    @property
    def disabled(self) -> int: ...


def _repair_days_by_damage(
    repair_days: Mapping[str, int] | RepairDaysTable | None,
) -> dict[VehicleDamage, int]:
    table = dict(BOOK_REPAIR_DAYS)
    if repair_days is None:
        return table
    if isinstance(repair_days, Mapping):
        entries = list(repair_days.items())
    else:
        entries = [
            (VehicleDamage.IMMOBILISED, repair_days.immobilised),
            (VehicleDamage.SYSTEMS_DAMAGED, repair_days.system_damaged),
            (VehicleDamage.DISABLED, repair_days.disabled),
        ]
    for key, days in entries:
        # Campaign options spell the systems state "system_damaged", as the book does.
        name = "systems_damaged" if key == "system_damaged" else key
        try:
            state = VehicleDamage(name)
        except ValueError:
            raise RuleError(
                "recovery.refused", f"{key!r} is not a repairable damage state."
            ) from None
        if state is VehicleDamage.DESTROYED:
            raise RuleError(
                "recovery.refused", "A DESTROYED vehicle may not be repaired (SG2 P.61)."
            )
        table[state] = require_count(f"Repair days for {state.value}", days)
    return table


@dataclass(frozen=True, slots=True)
class VehicleRepair:
    """Whether a damaged vehicle can be repaired where it is, and how long it takes."""

    damage: VehicleDamage
    repairable: bool
    # Only a rear area's full engineering facilities can repair it (a DISABLED vehicle).
    needs_rear_area: bool
    # Repair days here; None when it cannot be repaired here (or at all).
    days: int | None


def vehicle_repair(
    *,
    damage: VehicleDamage | str,
    location: Location | str,
    supplied: bool = True,
    repair_days: Mapping[str, int] | RepairDaysTable | None = None,
    field_time_multiplier: int = 2,
    field_doubling_applies_to: Collection[str] = DEFAULT_FIELD_DOUBLING,
) -> VehicleRepair:
    """The days needed to repair a damaged vehicle at ``location``, if it can be repaired there.

    SG2 P.61 REST AND RECOVERY: IMMOBILISED or SYSTEM DAMAGED 1 day, DISABLED 3 days and ONLY
    with full engineering facilities in a rear area; DESTROYED may not be repaired. Times double
    in the field or short of supplies. A vehicle both immobilised and systems-damaged is repaired
    in the same single day (the book gives no combined time; pass either state). Options
    ``repair_days`` (immobilised 1, systems_damaged 1, disabled 3), ``field_time_multiplier`` and
    ``field_doubling_applies_to``.
    """
    damage = VehicleDamage(damage)
    location = Location(location)
    days_by_damage = _repair_days_by_damage(repair_days)
    if damage is VehicleDamage.DESTROYED:
        return VehicleRepair(damage, repairable=False, needs_rear_area=False, days=None)
    if damage is VehicleDamage.DISABLED and location is not Location.REAR_AREA:
        # P.61: disabled vehicle repair may ONLY be carried out in a rear area.
        return VehicleRepair(damage, repairable=True, needs_rear_area=True, days=None)
    multiplier = time_multiplier(
        task=DoubledTime.REPAIR,
        location=location,
        supplied=supplied,
        field_time_multiplier=field_time_multiplier,
        field_doubling_applies_to=field_doubling_applies_to,
    )
    return VehicleRepair(
        damage,
        repairable=True,
        needs_rear_area=damage is VehicleDamage.DISABLED,
        days=days_by_damage[damage] * multiplier,
    )


@dataclass(frozen=True, slots=True)
class SuitRepair:
    """How long a wrecked power-armour suit is out of action."""

    days: int
    # Whether the field or a shortage of supplies multiplied the days (P.61).
    doubled: bool


def power_suit_repair(
    *,
    location: Location | str,
    supplied: bool = True,
    pa_suit_repair_days: int = 3,
    field_time_multiplier: int = 2,
    field_doubling_applies_to: Collection[str] = DEFAULT_FIELD_DOUBLING,
) -> SuitRepair:
    """The days to repair a power-armour suit wrecked by a P.40 roll of 5.

    SG2 P.40 POWER ARMOUR TROOP CASUALTIES: on a 5 "he is unhurt but the suit itself is
    wrecked", marked DISABLED "as for a vehicle"; the book says nothing of the suit in a
    campaign (digest AMBIG-09). Option ``pa_suit_repair_days`` (3, as long as a disabled
    vehicle, P.61). Unlike a vehicle's hull the suit needs no rear area: it is repaired where its
    wearer's unit is, and like every time of P.61 REST AND RECOVERY it doubles in the field or
    short of supplies (options ``field_time_multiplier`` and ``field_doubling_applies_to``, as
    a repair).
    """
    require_count("Days to repair a wrecked suit", pa_suit_repair_days)
    multiplier = time_multiplier(
        task=DoubledTime.REPAIR,
        location=Location(location),
        supplied=supplied,
        field_time_multiplier=field_time_multiplier,
        field_doubling_applies_to=field_doubling_applies_to,
    )
    return SuitRepair(days=pa_suit_repair_days * multiplier, doubled=multiplier > 1)
