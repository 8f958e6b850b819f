"""The Stargrunt II after-action resolution (SG2 P.60-61; digest §6.7).

After a battle the umpire resolves what it did to the units that fought: quality points and
rises, the fatigue drop, the withdrawal test of units that fought Exhausted, the recovery rolls
of the injured, and the repair of damaged vehicles and wrecked power-armour suits.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from battles.after_action.context import AfterActionContext, register_after_action
from battles.after_action.events import (
    CasualtiesRecovered,
    PowerSuitsSentForRepair,
    QualityPointsAwarded,
    Recovery,
    Repair,
    SuitRepair,
    UnitFatigueDropped,
    VehiclesRecovered,
    WithdrawalTested,
)
from battles.after_action.sg2_casualties import abandoned_wounded, fate_of_casualty
from battles.models import Participant
from campaigns.events import dice_json
from eventlog.catalogue import EventPayload
from rosters.fitness import location_of
from rosters.models import Trooper, Unit
from rosters.vocabulary import TrooperRole, TrooperStatus, UnitStatus, VehicleState
from rules.dice import DiceSource, Roll, rolling_for
from rules.rulesets import Ruleset
from rules.sg2.campaign import Location
from rules.sg2.casualties import Figure, FigureRole, FigureState
from rules.sg2.experience import apply_quality_points, quality_points_for_battle
from rules.sg2.medical import treat_casualty
from rules.sg2.options import InjuredRecoveryPlace, VehicleRecovery
from rules.sg2.recovery import (
    CasualtyFate,
    exhausted_withdrawal_test,
    fatigue_after_battle,
    injured_trooper_recovery,
    power_suit_repair,
    vehicle_repair,
)
from rules.sg2.scales import Fatigue, Quality
from rules.sg2.vehicles import VehicleDamage

INJURED = (TrooperStatus.WOUNDED, TrooperStatus.STABILISED, TrooperStatus.CASEVACED)
# A wrecked suit goes for repair unless its wearer is lost to his side: dead, a prisoner, or
# evacuated for good (his own status, or what his recovery roll just made of him).
WEARER_LOST = (TrooperStatus.DEAD, TrooperStatus.CAPTURED, TrooperStatus.EVACUATED)
RECOVERY_LOST = ("dead", "evacuated", "left_with_enemy")
REPAIRABLE = (VehicleState.IMMOBILISED, VehicleState.SYSTEMS_DAMAGED, VehicleState.DISABLED)


def _fatigue(value: str) -> Fatigue | None:
    return Fatigue[value.upper()] if value else None


def _name(value: Fatigue | None) -> str | None:
    return value.name.lower() if value is not None else None


def sg2_after_action(ctx: AfterActionContext, dice: DiceSource) -> list[EventPayload]:
    """The Stargrunt II steps in the digest's order (§6.7; SG2 P.60-61), unit by unit:

    1. quality points (win 3, loss 1, draw 1, +1 own objective; options) and the rise they buy,
       before any replacements (P.60);
    2. the fatigue drop of every unit that fought; its R&R count restarts (P.61);
    3. the withdrawal test of units that fought Exhausted (P.61): one D6 each;
    4. the injured: untreated casualties first get a field treatment roll if
       ``post_battle_treat_untreated`` (P.39), then one recovery D6 each (P.61);
    5. damaged vehicles: the side that recovers them (``vehicle_recovery``) queues them for
       repair from the battle's day; disabled ones only in a rear area (P.61);
    6. power-armour suits wrecked in the battle (P.40 roll 5) go for repair from the battle's
       day: ``pa_suit_repair_days``, doubled in the field or short of supplies (P.61; AMBIG-09).

    Dice, in order: per unit in the roster's reading order (``context.reading_order``), the
    withdrawal die, then per injured trooper recovered from the battle his treatment die (if
    due) and his recovery die; casualties left with the enemy take none.
    """
    battle_id = ctx.battle.id
    out: list[EventPayload] = []
    # Who was abandoned is read from the whole battle once, not again for each unit.
    abandoned = abandoned_wounded(ctx.events)
    merged_for_good = _merged_for_good(ctx)
    for participant in ctx.participants:
        unit = ctx.units[participant.unit_id]
        if unit.id in merged_for_good:
            # Its regroup into another unit stood as the battle ended (P.17, option
            # regroup_persists): disbanded, it has no after-action; its men have theirs with
            # the unit they serve in.
            continue
        out.append(_quality_points(ctx, participant, unit))
        absorbed = [m for m, into in merged_for_good.items() if into == unit.id]
        out.append(_fatigue_drop(ctx, participant, unit, absorbed))
        # Each die is for this unit (a trooper's within it): keyed table dice and the dice
        # prompt name them so.
        with rolling_for(dice, str(unit.id)):
            withdrawal = _withdrawal_test(ctx, participant, unit, dice)
            recoveries = _recover_injured(ctx, participant, unit, dice, abandoned)
        if withdrawal is not None:
            out.append(withdrawal)
        if recoveries:
            out.append(
                CasualtiesRecovered(
                    battle_id=battle_id,
                    unit_id=unit.id,
                    troopers=recoveries,
                    dice=[d for r in recoveries for d in r.dice],
                )
            )
        repairs = _recover_vehicles(ctx, participant, unit)
        if repairs:
            out.append(VehiclesRecovered(battle_id=battle_id, unit_id=unit.id, vehicles=repairs))
        suits = _repair_suits(ctx, unit, recoveries)
        if suits is not None:
            out.append(suits)
    out.extend(_fatigue_of_units_that_did_not_fight(ctx))
    return out


def _quality_points(
    ctx: AfterActionContext, participant: Participant, unit: Unit
) -> QualityPointsAwarded:
    """Step 1: the unit's quality points for the battle and the rise they buy (P.60)."""
    options = ctx.options
    result = ctx.result_for(participant)
    gained = quality_points_for_battle(
        result=result,
        own_objective_achieved=participant.objective_met,
        quality_points_win=options.quality_points_win,
        quality_points_lose=options.quality_points_lose,
        quality_points_draw=options.quality_points_draw,
        quality_points_objective_bonus=options.quality_points_objective_bonus,
        quality_points_objective_bonus_for_winners=(
            options.quality_points_objective_bonus_for_winners
        ),
    )
    total = unit.experience_points + gained
    quality_after, points_after, threshold, may_rise, rose = "", total, None, False, False
    if unit.quality:
        advance = apply_quality_points(
            quality=Quality[unit.quality.upper()],
            points=unit.experience_points,
            points_gained=gained,
            quality_progression=options.quality_progression.value,
            quality_threshold_green_regular=options.quality_threshold_green_regular,
            quality_threshold_regular_veteran=options.quality_threshold_regular_veteran,
            quality_rise_automatic=options.quality_rise_automatic,
            quality_points_on_rise=options.quality_points_on_rise.value,
        )
        quality_after, points_after = advance.quality.name.lower(), advance.points
        threshold, may_rise, rose = advance.threshold, advance.may_rise, advance.rose
    return QualityPointsAwarded(
        battle_id=ctx.battle.id,
        unit_id=unit.id,
        result=result.value,
        objective_met=participant.objective_met,
        points_gained=gained,
        points_before=unit.experience_points,
        points_total=total,
        points_after=points_after,
        quality_before=unit.quality,
        quality_after=quality_after,
        threshold=threshold,
        may_rise=may_rise,
        rose=rose,
    )


def _merged_for_good(ctx: AfterActionContext) -> dict[uuid.UUID, uuid.UUID]:
    """The units whose regroup into another stood as the battle ended (``battles.RegroupsSettled``;
    P.17, option ``regroup_persists``): each -> the unit its men serve in now. A dissolved
    regroup gave each man back to his own unit, which has its after-action as any other."""
    return {
        uuid.UUID(settled["merged_unit_id"]): uuid.UUID(settled["merged_into"])
        for event in ctx.events
        if event.type == "battles.RegroupsSettled"
        for settled in event.payload["regroups"]
        if settled["persists"]
    }


def _fatigue_drop(
    ctx: AfterActionContext,
    participant: Participant,
    unit: Unit,
    absorbed: Sequence[uuid.UUID] = (),
) -> UnitFatigueDropped:
    """Step 2: one fatigue level down and the R&R count restarted (P.61). The men of the units
    ``absorbed`` into it for good (P.17) count the battle with it, each once."""
    in_battle = _fatigue(participant.fatigue) or _fatigue(unit.fatigue)
    after = (
        fatigue_after_battle(
            fatigue=in_battle, fatigue_drop_applies_to=ctx.options.fatigue_drop_applies_to
        )
        if in_battle is not None
        else None
    )
    return UnitFatigueDropped(
        battle_id=ctx.battle.id,
        unit_id=unit.id,
        fatigue_before=_name(_fatigue(unit.fatigue)),
        fatigue_after=_name(after) if after is not None else _name(_fatigue(unit.fatigue)),
        battles_since_rest=unit.battles_since_rest + 1,
        trooper_ids=list(
            dict.fromkeys(
                [*ctx.took_part(unit.id), *(t for m in absorbed for t in ctx.took_part(m))]
            )
        ),
    )


def _fatigue_of_units_that_did_not_fight(ctx: AfterActionContext) -> list[UnitFatigueDropped]:
    """SG2 P.61 "after each battle all troops drop one fatigue level": whether that means the
    units of the force that did not fight too is the option ``fatigue_drop_applies_to``
    (AMBIG-27). With ``whole_force`` every other unit of the battle's forces with a fatigue
    level drops one; with ``participants`` (the default) they keep theirs. They fought no
    action, so no trooper counts a battle and their R&R count stands."""
    fought = {p.unit_id for p in ctx.participants}
    force_ids = [uuid.UUID(str(f)) for side in ctx.sides.values() for f in side.force_ids]
    others = [
        u
        for u in ctx.force_units
        if u.force_id in force_ids
        and u.id not in fought
        and u.status != UnitStatus.DISBANDED
        and u.fatigue != ""
    ]
    out = []
    for unit in sorted(others, key=lambda u: (force_ids.index(u.force_id), u.order, u.name)):
        before = _fatigue(unit.fatigue)
        assert before is not None  # units without a fatigue level are left out above
        after = fatigue_after_battle(
            fatigue=before,
            fought=False,
            fatigue_drop_applies_to=ctx.options.fatigue_drop_applies_to,
        )
        if after == before:
            continue
        out.append(
            UnitFatigueDropped(
                battle_id=ctx.battle.id,
                unit_id=unit.id,
                fatigue_before=_name(before),
                fatigue_after=_name(after),
                battles_since_rest=unit.battles_since_rest,
                fought=False,
            )
        )
    return out


def _withdrawal_test(
    ctx: AfterActionContext, participant: Participant, unit: Unit, dice: DiceSource
) -> WithdrawalTested | None:
    """Step 3: a unit that fought Exhausted tests whether it stays in the line (P.61)."""
    in_battle = _fatigue(participant.fatigue) or _fatigue(unit.fatigue)
    if in_battle is None:
        return None
    battles = unit.battles_since_rest + 1
    test = exhausted_withdrawal_test(
        dice=dice,
        fatigue_in_battle=in_battle,
        battles_since_rest=battles,
        exhausted_withdrawal_test=ctx.options.exhausted_withdrawal_test,
    )
    if not test.tested:
        return None
    return WithdrawalTested(
        battle_id=ctx.battle.id,
        unit_id=unit.id,
        battles_since_rest=battles,
        needed=test.needed,
        unfit=test.unfit,
        dice=dice_json(test.rolls),
    )


def _recover_injured(
    ctx: AfterActionContext,
    participant: Participant,
    unit: Unit,
    dice: DiceSource,
    abandoned: set[uuid.UUID],
) -> list[Recovery]:
    """Step 4: the unit's injured, in roster order (P.39, P.61): those recovered from the
    battle roll; those left with the enemy are taken prisoner; the rest are the umpire's."""
    options = ctx.options
    troopers = ctx.troopers[unit.id]
    # P.39: a medic adds one; with ``medic_must_be_fit`` only a medic still on his feet.
    medic = any(
        t.role == TrooperRole.MEDIC
        and (t.status == TrooperStatus.FIT or not options.medic_must_be_fit)
        for t in troopers
    )
    # Which casualties count as recovered (AMBIG-26, option recovered_casualties): read from
    # where the battle left each one (battles.after_action.sg2_casualties).
    injured = [t for t in troopers if TrooperStatus(t.status) in INJURED]
    out = []
    for trooper in injured:
        status = TrooperStatus(trooper.status)
        fate, why = fate_of_casualty(ctx, participant, trooper.id, status, abandoned)
        if fate is CasualtyFate.RECOVERED:
            with rolling_for(dice, str(trooper.id)):
                out.append(_recover_trooper(ctx, trooper, status, medic=medic, dice=dice))
            continue
        outcome = "left_with_enemy" if fate is CasualtyFate.LEFT_WITH_ENEMY else "left_for_umpire"
        out.append(
            Recovery(trooper_id=trooper.id, status_before=status, outcome=outcome, left_because=why)
        )
    return out


def _recover_trooper(
    ctx: AfterActionContext,
    trooper: Trooper,
    status: TrooperStatus,
    *,
    medic: bool,
    dice: DiceSource,
) -> Recovery:
    """An untreated casualty's field treatment if due (P.39), then the recovery roll (P.61)."""
    options = ctx.options
    rolls: list[Roll] = []
    total = None
    if status is TrooperStatus.WOUNDED and options.post_battle_treat_untreated:
        treated = treat_casualty(
            dice=dice,
            casualty=Figure(
                id=str(trooper.id), role=FigureRole.RIFLEMAN, state=FigureState.UNTREATED
            ),
            medic=medic,
            medical_modifiers_stack=options.medical_modifiers_stack,
        )
        rolls.extend(treated.rolls)
        total = treated.total
        if treated.state in (FigureState.DEAD, FigureState.FIT):
            return Recovery(
                trooper_id=trooper.id,
                status_before=status,
                treatment_total=total,
                outcome="dead" if treated.state is FigureState.DEAD else "fit",
                dice=dice_json(rolls),
            )
    location, supplied = _where_injured_recover(ctx, trooper)
    recovery = injured_trooper_recovery(
        dice=dice,
        battle_day=ctx.battle.day,
        location=location,
        supplied=supplied,
        injured_permanent_on=options.injured_permanent_on,
        field_time_multiplier=options.field_time_multiplier,
        field_doubling_applies_to=[t.value for t in options.field_doubling_applies_to],
    )
    rolls.extend(recovery.rolls)
    return Recovery(
        trooper_id=trooper.id,
        status_before=status,
        treatment_total=total,
        outcome="evacuated" if recovery.permanently_evacuated else "in_hospital",
        days=recovery.days_until_return,
        returns_on_day=recovery.returns_on_day,
        dice=dice_json(rolls),
    )


def _where_injured_recover(ctx: AfterActionContext, trooper: Trooper) -> tuple[Location, bool]:
    """Where an injured trooper recovers and whether he has supplies there (P.61: times double
    "in the field and/or without suitable supplies"). Option ``injured_recovery_place``: a
    hospital in a safe area (default), or where his unit rests; supplied as his unit is."""
    unit = ctx.units.get(trooper.unit_id)
    supplied = unit.supplied if unit is not None else True
    if ctx.options.injured_recovery_place is InjuredRecoveryPlace.WITH_UNIT and unit is not None:
        return location_of(unit.status), supplied
    return Location.SAFE_AREA, supplied


def _recovers_vehicles(ctx: AfterActionContext, participant: Participant) -> bool:
    """P.60: the winner recovers its own repairable equipment (option ``vehicle_recovery``)."""
    how = ctx.options.vehicle_recovery
    if how is VehicleRecovery.EACH_SIDE_OWN or ctx.battle.winner == "draw":
        return True
    return how is VehicleRecovery.WINNER and participant.side == ctx.battle.winner


def _recover_vehicles(
    ctx: AfterActionContext, participant: Participant, unit: Unit
) -> list[Repair]:
    """Step 5: the unit's damaged vehicles, queued for repair or lost (P.60-61)."""
    options = ctx.options
    if options.vehicle_recovery is VehicleRecovery.UMPIRE:
        return []
    recovered = _recovers_vehicles(ctx, participant)
    # P.61: a DISABLED vehicle only in a rear area; doubled in the field or without supplies.
    location = location_of(unit.status)
    out = []
    for vehicle in ctx.vehicles[unit.id]:
        state = VehicleState(vehicle.state)
        if state not in REPAIRABLE:
            continue
        if not recovered:
            out.append(Repair(vehicle_id=vehicle.id, state=state, recovered=False))
            continue
        repair = vehicle_repair(
            damage=VehicleDamage(state.value),
            location=location,
            supplied=unit.supplied,
            repair_days=options.repair_days,
            field_time_multiplier=options.field_time_multiplier,
            field_doubling_applies_to=[t.value for t in options.field_doubling_applies_to],
        )
        out.append(
            Repair(
                vehicle_id=vehicle.id,
                state=state,
                recovered=True,
                days=repair.days,
                repair_until_day=ctx.battle.day + repair.days if repair.days is not None else None,
                needs_rear_area=repair.needs_rear_area and repair.days is None,
            )
        )
    return out


def _repair_suits(
    ctx: AfterActionContext, unit: Unit, recoveries: list[Recovery]
) -> PowerSuitsSentForRepair | None:
    """Step 6: the unit's power-armour suits wrecked since its last after-action (P.40 roll 5)
    go for repair where the unit is, from the battle's day (option ``pa_suit_repair_days``;
    doubled in the field or short of supplies, P.61)."""
    options = ctx.options
    lost = {r.trooper_id for r in recoveries if r.outcome in RECOVERY_LOST}
    wrecked = [
        t
        for t in ctx.troopers[unit.id]
        if t.suit_wrecked
        and t.suit_repaired_on_day is None
        and TrooperStatus(t.status) not in WEARER_LOST
        and t.id not in lost
    ]
    if not wrecked:
        return None
    location = location_of(unit.status)
    repair = power_suit_repair(
        location=location,
        supplied=unit.supplied,
        pa_suit_repair_days=options.pa_suit_repair_days,
        field_time_multiplier=options.field_time_multiplier,
        field_doubling_applies_to=[t.value for t in options.field_doubling_applies_to],
    )
    return PowerSuitsSentForRepair(
        battle_id=ctx.battle.id,
        unit_id=unit.id,
        location=location.value,
        supplied=unit.supplied,
        suits=[
            SuitRepair(
                trooper_id=t.id,
                repair_days=options.pa_suit_repair_days,
                days=repair.days,
                doubled=repair.doubled,
                repaired_on_day=ctx.battle.day + repair.days,
            )
            for t in wrecked
        ],
    )


register_after_action(Ruleset.SG2, sg2_after_action)
