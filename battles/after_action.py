"""After-action resolution of an ended battle, and vehicle repairs on the campaign calendar.

After a battle the umpire resolves what it did to the units that fought (SG2 P.60-61; digest
§6.7): quality points and rises, the fatigue drop, the withdrawal test of units that fought
Exhausted, the recovery rolls of the injured, and the repair of damaged vehicles. Each ruleset
registers its own resolver (:func:`register_after_action`); the service checks the battle, runs
the resolver with table dice or in a resolution job with the server's dice, and ends every
resolution with ``battles.AfterActionResolved``, which marks the battle resolved.

The calendar step :func:`vehicles_repaired` finishes the repairs whose day has come, and starts
those of disabled vehicles once their unit reaches a safe rear area (P.61).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from django.contrib.auth.models import AbstractBaseUser
from pydantic import Field

from battles.actions import dice_json
from battles.models import Battle, BattleSide, Participant
from battles.projections import log
from battles.services import append_to_battle, battle_stream
from campaigns.calendar import calendar_step
from campaigns.events import DieRoll
from campaigns.models import Campaign
from campaigns.services import job_dice
from eventlog import jobs, store
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.models import Job
from eventlog.projections import Projection, Rows, register
from eventlog.store import NewEvent, StoredEvent
from rosters.models import Trooper, Unit, Vehicle
from rosters.projections import service_record, unit_history
from rosters.vocabulary import TrooperRole, TrooperStatus, UnitStatus, VehicleState
from rules.dice import DiceError, DiceSource, TableDice
from rules.options import parse_options
from rules.rulesets import Ruleset
from rules.sg2.campaign import Location
from rules.sg2.casualties import Figure, FigureRole, FigureState
from rules.sg2.experience import BattleResult, apply_quality_points, quality_points_for_battle
from rules.sg2.medical import treat_casualty
from rules.sg2.options import RecoveredCasualties, VehicleRecovery
from rules.sg2.recovery import (
    exhausted_withdrawal_test,
    fatigue_after_battle,
    injured_trooper_recovery,
    vehicle_repair,
)
from rules.sg2.scales import Fatigue, Quality
from rules.sg2.vehicles import VehicleDamage

AFTER_ACTION_JOB = "battles.after_action"

# Where a unit repairs and rests, by its place between battles (P.61). A safe area is taken to
# have the rear area's engineering facilities, as the rest-and-recovery step does.
LOCATION_OF = {
    UnitStatus.SAFE_AREA: Location.REAR_AREA,
    UnitStatus.WITHDRAWN: Location.REAR_AREA,
    UnitStatus.IN_THE_FIELD: Location.FIELD,
    UnitStatus.IN_THE_LINE: Location.FIELD,
}

_INJURED = (TrooperStatus.WOUNDED, TrooperStatus.STABILISED, TrooperStatus.CASEVACED)
_REPAIRABLE = (VehicleState.IMMOBILISED, VehicleState.SYSTEMS_DAMAGED, VehicleState.DISABLED)

# --- Events ---------------------------------------------------------------------------------------


@event_type("battles.QualityPointsAwarded", stream="battle")
class QualityPointsAwarded(EventPayload):
    """A unit's improvement points for a battle it took part in, and any rise they bought
    (SG2 P.60 IMPROVING TROOP QUALITY)."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    result: Literal["win", "loss", "draw"]
    objective_met: bool
    points_gained: int = Field(ge=0)
    points_before: int = Field(ge=0)
    points_total: int = Field(ge=0, description="Before a rise used them up.")
    points_after: int = Field(ge=0)
    quality_before: str
    quality_after: str
    threshold: int | None
    may_rise: bool
    rose: bool


@event_type("battles.UnitFatigueDropped", stream="battle")
class UnitFatigueDropped(EventPayload):
    """After a battle a unit that fought drops one fatigue level and its R&R count restarts
    (SG2 P.61); every trooper who fought has one more battle to his name."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    fatigue_before: Literal["fresh", "tired", "exhausted"] | None
    fatigue_after: Literal["fresh", "tired", "exhausted"] | None
    battles_since_rest: int = Field(ge=1)
    trooper_ids: list[uuid.UUID] = Field(default_factory=list)


@event_type("battles.WithdrawalTested", stream="battle")
class WithdrawalTested(EventPayload):
    """A unit that fought Exhausted tested whether it can stay in the line (SG2 P.61): a D6
    up to the battles fought since its last R&R makes it unfit, and it is withdrawn."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    battles_since_rest: int = Field(ge=1)
    needed: int | None = Field(description="The lowest passing face; None: it cannot pass.")
    unfit: bool
    dice: list[DieRoll] = Field(default_factory=list)


class Recovery(EventPayload):
    """One injured trooper after the battle: the field treatment of an untreated casualty if
    due, then the recovery roll (P.39, P.61)."""

    trooper_id: uuid.UUID
    status_before: TrooperStatus
    treatment_total: int | None = None
    outcome: Literal["dead", "fit", "evacuated", "in_hospital", "left_for_umpire"]
    days: int | None = None
    returns_on_day: int | None = None
    dice: list[DieRoll] = Field(default_factory=list)


@event_type("battles.CasualtiesRecovered", stream="battle")
class CasualtiesRecovered(EventPayload):
    """The injured of a unit recovered from the battle (SG2 P.61): one D6 each, 1-2 evacuated
    for good, 3-6 back on duty after that many days. ``dice`` holds every die, in order."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    troopers: list[Recovery] = Field(min_length=1)
    dice: list[DieRoll] = Field(default_factory=list)


class Repair(EventPayload):
    """One damaged vehicle after the battle."""

    vehicle_id: uuid.UUID
    state: VehicleState
    recovered: bool
    days: int | None = None
    repair_until_day: int | None = None
    needs_rear_area: bool = False


@event_type("battles.VehiclesRecovered", stream="battle")
class VehiclesRecovered(EventPayload):
    """A unit's damaged vehicles after the battle (SG2 P.60-61): recovered ones are queued for
    repair; a disabled one waits for a rear area; unrecovered ones are lost."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    vehicles: list[Repair] = Field(min_length=1)


@event_type("battles.AfterActionResolved", stream="battle")
class AfterActionResolved(EventPayload):
    """The after-action resolution of a battle is complete; the battle is resolved."""

    battle_id: uuid.UUID
    ruleset: str
    winner: str
    day: int = Field(ge=0)


@event_type("battles.VehicleRepairStarted", stream="vehicle")
class VehicleRepairStarted(EventPayload):
    """A disabled vehicle reached a rear area with engineering facilities: its repair began
    (SG2 P.61)."""

    vehicle_id: uuid.UUID
    day: int = Field(ge=0)
    repair_until_day: int = Field(ge=0)


@event_type("battles.VehicleRepaired", stream="vehicle")
class VehicleRepaired(EventPayload):
    """A vehicle's repair was finished: it is operational again (SG2 P.61)."""

    vehicle_id: uuid.UUID
    day: int = Field(ge=0)
    state_before: VehicleState


# --- The registry -------------------------------------------------------------------------------


@dataclass
class AfterActionContext:
    """What a resolver reads: the battle, its sides and participants, the units, troopers and
    vehicles that fought (in roster order), and the campaign's options."""

    campaign: Campaign
    battle: Battle
    options: Any
    sides: dict[str, BattleSide] = field(default_factory=dict)
    participants: list[Participant] = field(default_factory=list)
    units: dict[uuid.UUID, Unit] = field(default_factory=dict)
    troopers: dict[uuid.UUID, list[Trooper]] = field(default_factory=dict)
    vehicles: dict[uuid.UUID, list[Vehicle]] = field(default_factory=dict)
    # Troopers named by any event of the battle: those who took part even if now dead or gone.
    touched: set[uuid.UUID] = field(default_factory=set)

    @classmethod
    def load(cls, campaign: Campaign, battle: Battle) -> AfterActionContext:
        participants = list(Participant.objects.filter(battle_id=battle.id).order_by("key"))
        unit_ids = [p.unit_id for p in participants]
        units = {u.id: u for u in Unit.objects.filter(id__in=unit_ids)}
        sides = {s.side: s for s in BattleSide.objects.filter(battle_id=battle.id)}
        # Table dice go to the units in a fixed order: side by side, each side's forces as the
        # battle plan lists them, then as in the roster.
        participants.sort(
            key=lambda p: (
                sides[p.side].order,
                [str(f) for f in sides[p.side].force_ids].index(str(units[p.unit_id].force_id)),
                units[p.unit_id].order,
            )
        )
        troopers: dict[uuid.UUID, list[Trooper]] = {u: [] for u in unit_ids}
        for trooper in Trooper.objects.filter(unit_id__in=unit_ids).order_by("order"):
            troopers[trooper.unit_id].append(trooper)
        vehicles: dict[uuid.UUID, list[Vehicle]] = {u: [] for u in unit_ids}
        for vehicle in Vehicle.objects.filter(unit_id__in=unit_ids).order_by("order"):
            vehicles[vehicle.unit_id].append(vehicle)
        touched: set[uuid.UUID] = set()
        for event in store.read(campaign.id, stream=battle_stream(battle.id)):
            _collect_troopers(event.payload, touched)
        return cls(
            campaign=campaign,
            battle=battle,
            options=parse_options(campaign.ruleset, campaign.options),
            sides=sides,
            participants=participants,
            units=units,
            troopers=troopers,
            vehicles=vehicles,
            touched=touched,
        )

    def result_for(self, participant: Participant) -> BattleResult:
        if self.battle.winner == "draw":
            return BattleResult.DRAW
        return BattleResult.WIN if participant.side == self.battle.winner else BattleResult.LOSS


def _collect_troopers(value: Any, found: set[uuid.UUID]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("trooper_id", "leader_id") and isinstance(item, str):
                found.add(uuid.UUID(item))
            elif key == "trooper_ids" and isinstance(item, list):
                found.update(uuid.UUID(i) for i in item)
            else:
                _collect_troopers(item, found)
    elif isinstance(value, list):
        for item in value:
            _collect_troopers(item, found)


Resolver = Callable[[AfterActionContext, DiceSource], list[EventPayload]]
_RESOLVERS: dict[str, Resolver] = {}


def register_after_action(ruleset: str, resolver: Resolver) -> Resolver:
    """Register the after-action resolver of a ruleset (``"sg2"``, ``"fad"``).

    ``resolver(ctx, dice)`` receives an :class:`AfterActionContext` of an ENDED battle and a
    :class:`rules.dice.DiceSource` (the table's dice or the job's seeded dice), and returns the
    event payloads (battle-stream ``EventPayload`` models, each carrying the dice it used through
    :func:`battles.actions.dice_json`) in the order they happened. It must not append anything
    nor read the clock; it raises :class:`eventlog.errors.CommandError` (or ``ValueError`` for a
    rule's refusal) to refuse. The service appends ``battles.AfterActionResolved`` after them.
    """
    _RESOLVERS[str(ruleset)] = resolver
    return resolver


def _check(campaign: Campaign, battle: Battle) -> Resolver:
    if battle.status == Battle.Status.RESOLVED:
        raise StateConflict(
            "after_action.already_resolved",
            f"{battle.name} has already been resolved after the action.",
            field="battle",
        )
    if battle.status != Battle.Status.ENDED:
        raise StateConflict(
            "after_action.not_ended",
            f"{battle.name} is {battle.status.replace('_', ' ')}: end it before resolving it.",
            field="battle",
        )
    resolver = _RESOLVERS.get(str(campaign.ruleset))
    if resolver is None:
        raise RuleViolation(
            "after_action.no_resolver",
            f"No after-action resolution is available for the {campaign.ruleset} ruleset.",
            field="battle",
        )
    return resolver


def _resolve(campaign: Campaign, battle: Battle, dice: DiceSource) -> list[EventPayload]:
    resolver = _check(campaign, battle)
    ctx = AfterActionContext.load(campaign, battle)
    try:
        payloads = list(resolver(ctx, dice))
    except DiceError as exc:
        raise CommandError(exc.code, exc.message, field=f"dice.{exc.index}") from None
    except CommandError:
        raise
    except ValueError as exc:  # the rules refused
        raise RuleViolation(getattr(exc, "code", "rules.refused"), str(exc)) from None
    payloads.append(
        AfterActionResolved(
            battle_id=battle.id, ruleset=str(campaign.ruleset), winner=battle.winner, day=battle.day
        )
    )
    return payloads


def after_action_resolve(
    *,
    campaign: Campaign,
    battle: Battle,
    dice: Sequence[int] | None,
    actor: AbstractBaseUser,
) -> list[StoredEvent] | Job:
    """Resolve an ended battle after the action (SG2 P.60-61; FaD's own steps). With ``dice``
    from the table it is resolved now and its events are returned; without, a job rolls the
    server's dice."""
    _check(campaign, battle)
    if dice is None:
        waiting = Job.objects.filter(
            campaign_id=campaign.id,
            kind=AFTER_ACTION_JOB,
            status__in=[Job.Status.PENDING, Job.Status.RUNNING],
        )
        if any(job.params.get("battle_id") == str(battle.id) for job in waiting):
            raise StateConflict(
                "after_action.already_requested",
                f"The after-action resolution of {battle.name} is already on its way.",
                field="battle",
            )
        return jobs.job_request(
            campaign_id=campaign.id,
            kind=AFTER_ACTION_JOB,
            params={"battle_id": str(battle.id)},
            requested_by_id=actor.pk,
        )
    table = TableDice(dice)
    payloads = _resolve(campaign, battle, table)
    try:
        table.ensure_all_used()
    except DiceError as exc:
        raise CommandError(exc.code, exc.message, field=f"dice.{exc.index}") from None
    return append_to_battle(campaign.id, battle.id, payloads, actor.pk)


@jobs.handler(AFTER_ACTION_JOB)
def _resolve_with_server_dice(job: Job) -> jobs.JobOutcome:
    campaign = Campaign.objects.get(pk=job.campaign_id)
    battle = Battle.objects.get(pk=job.params["battle_id"])
    payloads = _resolve(campaign, battle, job_dice(job))
    stream = battle_stream(battle.id)
    return jobs.JobOutcome(
        events=[NewEvent.of(payload, stream=stream) for payload in payloads],
        expected_versions={stream: store.stream_version(campaign.id, stream)},
    )


# --- Stargrunt II (P.60-61) -----------------------------------------------------------------------


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
       repair from the battle's day; disabled ones only in a rear area (P.61).

    Dice, in order: per unit in roster order, the withdrawal die, then per injured trooper his
    treatment die (if due) and his recovery die.
    """
    options = ctx.options
    battle = ctx.battle
    out: list[EventPayload] = []
    for participant in ctx.participants:
        unit = ctx.units[participant.unit_id]
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
        else:
            quality_after, points_after, threshold, may_rise, rose = "", total, None, False, False
        out.append(
            QualityPointsAwarded(
                battle_id=battle.id,
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
        )

        in_battle = _fatigue(participant.fatigue) or _fatigue(unit.fatigue)
        after = fatigue_after_battle(fatigue=in_battle) if in_battle is not None else None
        battles = unit.battles_since_rest + 1
        fought = [
            t.id
            for t in ctx.troopers[unit.id]
            if TrooperStatus(t.status).is_present
            or t.status == TrooperStatus.CASEVACED
            or t.id in ctx.touched
        ]
        out.append(
            UnitFatigueDropped(
                battle_id=battle.id,
                unit_id=unit.id,
                fatigue_before=_name(_fatigue(unit.fatigue)),
                fatigue_after=_name(after) if after is not None else _name(_fatigue(unit.fatigue)),
                battles_since_rest=battles,
                trooper_ids=fought,
            )
        )

        if in_battle is not None:
            test = exhausted_withdrawal_test(
                dice=dice,
                fatigue_in_battle=in_battle,
                battles_since_rest=battles,
                exhausted_withdrawal_test=options.exhausted_withdrawal_test,
            )
            if test.tested:
                out.append(
                    WithdrawalTested(
                        battle_id=battle.id,
                        unit_id=unit.id,
                        battles_since_rest=battles,
                        needed=battles + 1 if test.rolls else None,
                        unfit=test.unfit,
                        dice=dice_json(test.rolls),
                    )
                )

        recoveries = _recover_injured(ctx, unit, dice)
        if recoveries:
            out.append(
                CasualtiesRecovered(
                    battle_id=battle.id,
                    unit_id=unit.id,
                    troopers=recoveries,
                    dice=[d for r in recoveries for d in r.dice],
                )
            )

        repairs = _recover_vehicles(ctx, participant, unit)
        if repairs:
            out.append(VehiclesRecovered(battle_id=battle.id, unit_id=unit.id, vehicles=repairs))
    return out


def _recover_injured(ctx: AfterActionContext, unit: Unit, dice: DiceSource) -> list[Recovery]:
    options = ctx.options
    troopers = ctx.troopers[unit.id]
    # P.39: a medic adds one; with ``medic_must_be_fit`` only a medic still on his feet.
    medic = any(
        t.role == TrooperRole.MEDIC
        and (t.status == TrooperStatus.FIT or not options.medic_must_be_fit)
        for t in troopers
    )
    # Which casualties count as recovered (AMBIG-26): with friendly control, all the unit's
    # injured; otherwise only those flown out, and the umpire decides the rest.
    all_recovered = options.recovered_casualties is RecoveredCasualties.FRIENDLY_CONTROL
    out = []
    for trooper in troopers:
        status = TrooperStatus(trooper.status)
        if status not in _INJURED:
            continue
        if status is not TrooperStatus.CASEVACED and not all_recovered:
            out.append(
                Recovery(trooper_id=trooper.id, status_before=status, outcome="left_for_umpire")
            )
            continue
        rolls = []
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
                out.append(
                    Recovery(
                        trooper_id=trooper.id,
                        status_before=status,
                        treatment_total=total,
                        outcome="dead" if treated.state is FigureState.DEAD else "fit",
                        dice=dice_json(rolls),
                    )
                )
                continue
        # The injured are taken to a hospital in the rear, a safe area (P.61).
        recovery = injured_trooper_recovery(
            dice=dice,
            battle_day=ctx.battle.day,
            location=Location.SAFE_AREA,
            injured_permanent_on=options.injured_permanent_on,
            field_time_multiplier=options.field_time_multiplier,
            field_doubling_applies_to=[t.value for t in options.field_doubling_applies_to],
        )
        rolls.extend(recovery.rolls)
        out.append(
            Recovery(
                trooper_id=trooper.id,
                status_before=status,
                treatment_total=total,
                outcome="evacuated" if recovery.permanently_evacuated else "in_hospital",
                days=recovery.days_until_return,
                returns_on_day=recovery.returns_on_day,
                dice=dice_json(rolls),
            )
        )
    return out


def _recovers_vehicles(ctx: AfterActionContext, participant: Participant) -> bool:
    """P.60: the winner recovers its own repairable equipment (option ``vehicle_recovery``)."""
    how = ctx.options.vehicle_recovery
    if how is VehicleRecovery.EACH_SIDE_OWN or ctx.battle.winner == "draw":
        return True
    return how is VehicleRecovery.WINNER and participant.side == ctx.battle.winner


def _recover_vehicles(
    ctx: AfterActionContext, participant: Participant, unit: Unit
) -> list[Repair]:
    options = ctx.options
    if options.vehicle_recovery is VehicleRecovery.UMPIRE:
        return []
    recovered = _recovers_vehicles(ctx, participant)
    location = LOCATION_OF.get(UnitStatus(unit.status), Location.FIELD)
    out = []
    for vehicle in ctx.vehicles[unit.id]:
        state = VehicleState(vehicle.state)
        if state not in _REPAIRABLE:
            continue
        if not recovered:
            out.append(Repair(vehicle_id=vehicle.id, state=state, recovered=False))
            continue
        repair = vehicle_repair(
            damage=VehicleDamage(state.value),
            location=location,
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


register_after_action(Ruleset.SG2, sg2_after_action)


# --- Vehicle repairs on the calendar (P.61) -------------------------------------------------------


@calendar_step(order=20)
def vehicles_repaired(campaign: Campaign, from_day: int, to_day: int) -> list[NewEvent]:
    """SG2 P.61: repairs end on their day; a disabled vehicle is repaired only in a rear area
    with engineering facilities, so one waiting in the line or the field starts its 3 days (the
    ``repair_days`` option) only once its unit is in a safe rear area."""
    if campaign.ruleset != Ruleset.SG2:
        return []
    options = parse_options(campaign.ruleset, campaign.options)
    damaged = list(
        Vehicle.objects.filter(
            campaign_id=campaign.id, state__in=[s.value for s in _REPAIRABLE]
        ).order_by("force_id", "unit_id", "order")
    )
    units = dict(
        Unit.objects.filter(id__in={v.unit_id for v in damaged}).values_list("id", "status")
    )
    new = []
    for vehicle in damaged:
        stream = f"vehicle:{vehicle.id}"
        rear = LOCATION_OF.get(UnitStatus(units.get(vehicle.unit_id, ""))) is Location.REAR_AREA
        if vehicle.repair_until_day is None:
            if vehicle.state != VehicleState.DISABLED or not rear:
                continue  # not queued (not recovered, or the umpire's), or still waiting
            start = from_day
            until = start + options.repair_days.disabled
            new.append(
                NewEvent.of(
                    VehicleRepairStarted(vehicle_id=vehicle.id, day=start, repair_until_day=until),
                    stream=stream,
                )
            )
            if until > to_day:
                continue
        else:
            until = vehicle.repair_until_day
            if until > to_day:
                continue
            if vehicle.state == VehicleState.DISABLED and not rear:
                continue  # P.61: only in a rear area; it waits for its unit to get there
        new.append(
            NewEvent.of(
                VehicleRepaired(
                    vehicle_id=vehicle.id,
                    day=max(until, from_day),
                    state_before=VehicleState(vehicle.state),
                ),
                stream=stream,
            )
        )
    return new


# --- Projection -----------------------------------------------------------------------------------

_RESULT_WORDS = {"win": "won", "loss": "lost", "draw": "drawn"}


def _label(value: str | None) -> str:
    return (value or "").replace("_", " ").capitalize()


def _battle_name(rows: Rows, battle_id: Any) -> str:
    battle = rows.get(Battle, battle_id)
    return battle["name"] if battle else "the battle"


def _faces(dice: list[dict[str, Any]]) -> str:
    return ", ".join(f"d{d['die']} {d['result']}" for d in dice)


@register
class AfterActionProjection(Projection):
    """Units, troopers, vehicles, battles and histories after the action (rows of the rosters
    and battles projections)."""

    name = "battles.after_action"

    @Projection.handles("battles.QualityPointsAwarded")
    def quality_points(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        if rows.get(Unit, p["unit_id"]) is None:
            return
        rows.update(
            Unit, p["unit_id"], experience_points=p["points_after"], quality=p["quality_after"]
        )
        how = _RESULT_WORDS[p["result"]] + (", objective met" if p["objective_met"] else "")
        summary = (
            f"After {_battle_name(rows, p['battle_id'])} ({how}): +{p['points_gained']} quality "
            f"points ({p['points_total']})"
        )
        if p["rose"]:
            summary += f", {_label(p['quality_before'])} to {_label(p['quality_after'])}."
        elif p["may_rise"]:
            summary += f": enough to rise from {_label(p['quality_before'])} if the umpire allows."
        else:
            summary += "."
        changes: dict[str, Any] = {
            "experience_points": [p["points_before"], p["points_after"]],
            "quality": [p["quality_before"], p["quality_after"]],
        }
        unit_history(rows, event, p["unit_id"], summary, changes, battle_id=p["battle_id"])

    @Projection.handles("battles.UnitFatigueDropped")
    def fatigue_dropped(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        if rows.get(Unit, p["unit_id"]) is None:
            return
        rows.update(
            Unit,
            p["unit_id"],
            fatigue=p["fatigue_after"] or "",
            rest_days=0,
            battles_since_rest=p["battles_since_rest"],
        )
        for trooper_id in p["trooper_ids"]:
            trooper = rows.get(Trooper, trooper_id)
            if trooper is not None:
                rows.update(Trooper, trooper_id, battles_fought=trooper["battles_fought"] + 1)
        battles = p["battles_since_rest"]
        counted = f"{battles} battle{'s' if battles != 1 else ''} since its last rest"
        before, after = p["fatigue_before"], p["fatigue_after"]
        if before and after and before != after:
            what = f"fatigue {before} to {after}, {counted}"
        elif after:
            what = f"still {after}, {counted}"
        else:
            what = counted
        unit_history(
            rows,
            event,
            p["unit_id"],
            f"After {_battle_name(rows, p['battle_id'])}: {what}.",
            {"fatigue": [before, after], "battles_since_rest": battles, "rest_days": 0},
            battle_id=p["battle_id"],
        )

    @Projection.handles("battles.WithdrawalTested")
    def withdrawal_tested(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if unit is None:
            return
        if p["needed"] is None:
            test = "cannot pass the withdrawal test (no die)"
        else:
            test = f"withdrawal test {_faces(p['dice'])} needed {p['needed']}+"
        changes: dict[str, Any] = {}
        if p["unfit"]:
            rows.update(Unit, p["unit_id"], status=UnitStatus.WITHDRAWN.value)
            changes["status"] = [unit["status"], UnitStatus.WITHDRAWN.value]
            verdict = "withdrawn, unfit for combat"
        else:
            verdict = "passed, it stays in the line"
        unit_history(
            rows,
            event,
            p["unit_id"],
            f"Exhausted after battle {p['battles_since_rest']}: {test}: {verdict}.",
            changes,
            battle_id=p["battle_id"],
            dice=p["dice"],
        )

    @Projection.handles("battles.CasualtiesRecovered")
    def casualties_recovered(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        where = _battle_name(rows, p["battle_id"])
        lines = []
        lost = 0
        for r in p["troopers"]:
            trooper = rows.get(Trooper, r["trooper_id"])
            if trooper is None:
                continue
            treated = (
                f"field treatment {r['dice'][0]['result']} (total {r['treatment_total']}), "
                if r["treatment_total"] is not None and r["dice"]
                else ""
            )
            recovery_die = r["dice"][-1]["result"] if r["dice"] else None
            outcome = r["outcome"]
            if outcome == "dead":
                rows.update(Trooper, r["trooper_id"], status=TrooperStatus.DEAD.value)
                fate = f"{treated}died of his wounds"
            elif outcome == "fit":
                rows.update(Trooper, r["trooper_id"], status=TrooperStatus.FIT.value)
                fate = f"{treated}back in action"
            elif outcome == "evacuated":
                rows.update(Trooper, r["trooper_id"], status=TrooperStatus.EVACUATED.value)
                fate = f"{treated}recovery d6 {recovery_die}: evacuated for good"
            elif outcome == "in_hospital":
                rows.update(
                    Trooper,
                    r["trooper_id"],
                    status=TrooperStatus.IN_HOSPITAL.value,
                    hospital_until_day=r["returns_on_day"],
                    days_in_hospital=trooper["days_in_hospital"] + r["days"],
                )
                fate = (
                    f"{treated}recovery d6 {recovery_die}: in hospital for {r['days']} days, "
                    f"back on day {r['returns_on_day']}"
                )
            else:
                fate = "left where he fell: the umpire decides"
            was_present = TrooperStatus(r["status_before"]).is_present
            now = TrooperStatus(rows.get(Trooper, r["trooper_id"])["status"])
            lost += was_present and not now.is_present
            service_record(
                rows,
                event,
                r["trooper_id"],
                f"After {where}: {fate}.",
                battle_id=p["battle_id"],
                dice=r["dice"],
            )
            lines.append(f"{trooper['name']} {fate}")
        if lines and rows.get(Unit, p["unit_id"]) is not None:
            unit_history(
                rows,
                event,
                p["unit_id"],
                f"Injured recovered from {where}: {'; '.join(lines)}.",
                {"strength": -lost} if lost else {},
                battle_id=p["battle_id"],
                dice=p["dice"],
            )

    @Projection.handles("battles.VehiclesRecovered")
    def vehicles_recovered(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        where = _battle_name(rows, p["battle_id"])
        lines = []
        for v in p["vehicles"]:
            vehicle = rows.get(Vehicle, v["vehicle_id"])
            if vehicle is None:
                continue
            state = _label(v["state"]).lower()
            if not v["recovered"]:
                rows.update(
                    Vehicle,
                    v["vehicle_id"],
                    state=VehicleState.DESTROYED.value,
                    repair_until_day=None,
                )
                lines.append(f"{vehicle['name']} ({state}) not recovered: lost to the enemy")
            elif v["repair_until_day"] is None:
                rows.update(Vehicle, v["vehicle_id"], repair_until_day=None)
                lines.append(f"{vehicle['name']} ({state}) waits for a rear area to be repaired")
            else:
                rows.update(Vehicle, v["vehicle_id"], repair_until_day=v["repair_until_day"])
                lines.append(
                    f"{vehicle['name']} ({state}) under repair for {v['days']} "
                    f"day{'s' if v['days'] != 1 else ''}, ready on day {v['repair_until_day']}"
                )
        if lines and rows.get(Unit, p["unit_id"]) is not None:
            unit_history(
                rows,
                event,
                p["unit_id"],
                f"Vehicles after {where}: {'; '.join(lines)}.",
                {
                    "vehicles": [
                        [v["vehicle_id"], v["state"], v["repair_until_day"]] for v in p["vehicles"]
                    ]
                },
                battle_id=p["battle_id"],
            )

    @Projection.handles("battles.AfterActionResolved")
    def resolved(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        if rows.get(Battle, p["battle_id"]) is None:
            return
        rows.update(Battle, p["battle_id"], status=Battle.Status.RESOLVED.value)
        log(rows, event, "The after-action resolution is complete: the battle is resolved.")

    @Projection.handles("battles.VehicleRepairStarted")
    def repair_started(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        vehicle = rows.get(Vehicle, p["vehicle_id"])
        if vehicle is None:
            return
        rows.update(Vehicle, p["vehicle_id"], repair_until_day=p["repair_until_day"])
        unit_history(
            rows,
            event,
            vehicle["unit_id"],
            f"Day {p['day']}: repair of {vehicle['name']} (disabled) began in the rear area, "
            f"ready on day {p['repair_until_day']}.",
            {"vehicle": [p["vehicle_id"], vehicle["state"], p["repair_until_day"]]},
        )

    @Projection.handles("battles.VehicleRepaired")
    def repaired(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        vehicle = rows.get(Vehicle, p["vehicle_id"])
        if vehicle is None:
            return
        rows.update(
            Vehicle, p["vehicle_id"], state=VehicleState.OPERATIONAL.value, repair_until_day=None
        )
        unit_history(
            rows,
            event,
            vehicle["unit_id"],
            f"Day {p['day']}: {vehicle['name']} repaired ({_label(p['state_before']).lower()} "
            "to operational).",
            {"vehicle": [p["vehicle_id"], p["state_before"], VehicleState.OPERATIONAL.value]},
        )
