"""Fast and Dirty after a battle: the post-battle steps and campaign points (FaD p.64-66).

- the battle action ``fad_losses`` records the figures and vehicles a unit lost: the SG2
  ``casualties`` action refuses other rulesets, and FaD has no casualty allocation of its own;
- :func:`fad_after_action`, the FaD resolver of ``POST /battles/{id}/after-action/``
  (:mod:`battles.after_action`), runs POST-BATTLE STEPS 1-4 for every unit that fought
  (infantry replacements, vehicle replacements, quality loss, resolve loss) and grants each
  force its campaign points (EXPERIENCE, 2 per reinforced platoon);
- :func:`campaign_points_spend` spends a force's points on the price list (p.66 EXPERIENCE);
- :func:`reinforcements_roll` rolls the 2d6 reinforcement pool (plus a die per point spent on
  one) and assigns it, optionally forming a new squad (p.66 REINFORCEMENTS).

The book lists Reinforcements before Experience, yet Experience buys reinforcement dice; by
default (option ``campaign_step_order``) points are spent first and the pool is rolled last, so
the pool is its own command.

Dice are used in a fixed order, so table dice can be entered in one list: force by force in the
order the after-action framework lists the units (side by side, then roster order): step 1 for
each unit that lost figures, step 2 for each vehicle named damaged, destroyed or abandoned, step
3 for each unit that must roll, step 4 for each unit that suffered losses or damage.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from django.contrib.auth.models import AbstractBaseUser
from pydantic import BaseModel, Field, ValidationError

from battles.actions import BattleAction, BattleContext, battle_action, dice_json
from battles.actions import Params as ActionParams
from battles.after_action import AfterActionContext, register_after_action
from battles.models import Battle, Participant
from battles.projections import dice_text, log, unit_name
from battles.services import battle_stream
from campaigns.events import DieRoll
from campaigns.models import Campaign
from campaigns.services import job_dice
from eventlog import jobs, store
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.models import Job
from eventlog.projections import Projection, Rows, register
from eventlog.store import NewEvent, StoredEvent
from rosters import events as roster_events
from rosters.models import Force, Trooper, Unit, Vehicle
from rosters.projections import service_record, unit_history
from rosters.vocabulary import TrooperStatus, UnitKind, UnitStatus, VehicleState
from rules.dice import DiceError, DiceSource, TableDice
from rules.fad import points as points_rules
from rules.fad import replacements as rules
from rules.fad.scales import Quality, Resolve
from rules.options import parse_options
from rules.rulesets import Ruleset

REINFORCEMENTS_JOB = "battles.fad_reinforcements"

LOSSES_RECORDED = "battles.FadLossesRecorded"
INFANTRY_REPLACED = "battles.FadInfantryReplacementsRolled"
VEHICLE_REPLACED = "battles.FadVehicleReplacementRolled"
QUALITY_LOSS = "battles.FadQualityLossRolled"
RESOLVE_LOSS = "battles.FadResolveLossRolled"
POINTS_AWARDED = "battles.FadCampaignPointsAwarded"
POINTS_SPENT = "battles.FadCampaignPointsSpent"
REINFORCEMENTS_ROLLED = "battles.FadReinforcementsRolled"

# How a vehicle's FaD condition stands on the roster, whose states come from SG2's damage chart:
# a FaD "damaged" vehicle is out of action until repaired, which the roster calls disabled.
_ROSTER_STATE = {
    rules.VehicleCondition.OPERATIONAL: VehicleState.OPERATIONAL,
    rules.VehicleCondition.DAMAGED: VehicleState.DISABLED,
    rules.VehicleCondition.DESTROYED: VehicleState.DESTROYED,
}

LossFate = Literal["killed", "wounded", "eliminated"]
# Wounded figures count as losses (option campaign_wounded_at_end, default): they leave the
# platoon, so they are evacuated rather than dead; figures of a routed unit counted as
# eliminated (option campaign_routed_unit_fate) are lost the same way.
_LOST_STATUS = {
    "killed": TrooperStatus.DEAD,
    "wounded": TrooperStatus.EVACUATED,
    "eliminated": TrooperStatus.EVACUATED,
}


# --- Events ---------------------------------------------------------------------------------------


class LostFigure(EventPayload):
    trooper_id: uuid.UUID
    result: Literal["killed", "wounded"]
    status_before: TrooperStatus


class DamagedVehicle(EventPayload):
    vehicle_id: uuid.UUID
    condition: Literal["damaged", "destroyed", "abandoned"]
    state_before: VehicleState


@event_type(LOSSES_RECORDED, stream="battle")
class FadLossesRecorded(EventPayload):
    """The umpire recorded a unit's losses in a Fast and Dirty battle: figures killed or
    wounded (p.19-20, p.35) and vehicles damaged, destroyed or abandoned (p.13, p.27)."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    troopers: list[LostFigure] = Field(default_factory=list)
    vehicles: list[DamagedVehicle] = Field(default_factory=list)


class LostTrooper(EventPayload):
    trooper_id: uuid.UUID
    fate: LossFate


class EnlistedTrooper(EventPayload):
    """A replacement who joined the unit, armed like the figure he replaces."""

    trooper_id: uuid.UUID
    order: int = Field(ge=0)
    name: str
    role: str
    weapon: str = ""
    armour: str = ""
    armour_die: int | None = None
    power_armour: bool = False
    specialism: str = ""


@event_type(INFANTRY_REPLACED, stream="battle")
class InfantryReplacementsRolled(EventPayload):
    """A unit's losses in a battle and how many were replaced (FaD p.66 INFANTRY REPLACEMENTS:
    d6 1-2 none, 3-4 half rounded up, a lone figure not returned, 5-6 full strength). The
    replacements join the unit with this event."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    lost: list[LostTrooper]
    losses: int = Field(ge=0, description="Losses the table reads (a routed unit may count more).")
    strength_before: int = Field(ge=0)
    initial_strength: int = Field(ge=0)
    lone_figure: bool
    row: Literal["none", "half", "full"] | None = Field(description="None: no losses, no roll.")
    replaced: int = Field(ge=0)
    enlisted: list[EnlistedTrooper] = Field(default_factory=list)
    dice: list[DieRoll] = Field(default_factory=list)


@event_type(VEHICLE_REPLACED, stream="battle")
class VehicleReplacementRolled(EventPayload):
    """Whether a damaged vehicle was repaired or a destroyed one replaced (FaD p.66)."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    vehicle_id: uuid.UUID
    condition: Literal["damaged", "destroyed", "abandoned"]
    rolled_as: Literal["damaged", "destroyed"]
    fate: Literal["not_repaired", "not_replaced", "repaired", "replaced"]
    state_before: VehicleState
    state_after: VehicleState
    dice: list[DieRoll] = Field(default_factory=list)


@event_type(QUALITY_LOSS, stream="battle")
class QualityLossRolled(EventPayload):
    """A unit that took at least half its strength in replacements rolled d6: 1-2 it lost a
    level of quality (FaD p.66 QUALITY LOSS)."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    replacements: int = Field(ge=0)
    measured_against: int = Field(ge=0)
    quality_before: str
    quality_after: str
    dice: list[DieRoll] = Field(default_factory=list)


@event_type(RESOLVE_LOSS, stream="battle")
class ResolveLossRolled(EventPayload):
    """A unit that suffered losses or damage rolled d6: 1-2 resolve down a level, 3-4 no
    change, 5-6 up a level (FaD p.66 RESOLVE LOSS)."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    resolve_before: str
    resolve_after: str
    dice: list[DieRoll] = Field(default_factory=list)


@event_type(POINTS_AWARDED, stream="battle")
class CampaignPointsAwarded(EventPayload):
    """A force received its campaign points after a battle: 2 per reinforced platoon (FaD p.66
    EXPERIENCE). Without banking, points left from before lapse."""

    force_id: uuid.UUID
    battle_id: uuid.UUID
    reinforced_platoons: int = Field(ge=0)
    points: int = Field(ge=0)
    lapsed: int = Field(ge=0, description="Unspent points from before that were lost.")
    balance: int = Field(ge=0, description="Points to spend now.")


class PurchaseRecord(EventPayload):
    """One item bought, and what it changed."""

    kind: points_rules.PurchaseKind
    target: str = ""
    detail: str = ""
    cost: int = Field(ge=1)
    before: str | None = None
    after: str | None = None
    trooper_id: uuid.UUID | None = Field(default=None, description="The lone figure returned.")


@event_type(POINTS_SPENT, stream="force")
class CampaignPointsSpent(EventPayload):
    """A force spent campaign points on the price list (FaD p.66 EXPERIENCE)."""

    force_id: uuid.UUID
    battle_id: uuid.UUID
    purchases: list[PurchaseRecord]
    budget: int = Field(ge=0)
    spent: int = Field(ge=0)
    lost: int = Field(ge=0, description="Unspent points lost (no banking).")
    balance: int = Field(ge=0, description="Points kept for later (banking).")


class ReinforcedUnit(EventPayload):
    unit_id: uuid.UUID
    trooper_ids: list[uuid.UUID]


class NewSquadRecord(EventPayload):
    unit_id: uuid.UUID
    size: int = Field(ge=5, le=8)
    quality: str
    resolve: str
    squad_leader_experience: str
    trooper_ids: list[uuid.UUID]


@event_type(REINFORCEMENTS_ROLLED, stream="force")
class ReinforcementsRolled(EventPayload):
    """A force rolled its reinforcement pool, 2d6 plus a d6 per point spent on one, and placed
    the troopers (FaD p.66 REINFORCEMENTS); a new squad, if formed, was raised just before."""

    force_id: uuid.UUID
    battle_id: uuid.UUID
    extra_dice: int = Field(ge=0)
    pool: int = Field(ge=0)
    units: list[ReinforcedUnit] = Field(default_factory=list)
    new_squad: NewSquadRecord | None = None
    unused: int = Field(ge=0)
    dice: list[DieRoll] = Field(default_factory=list)


# --- Reading the roster ---------------------------------------------------------------------------


def _quality(unit: Unit) -> Quality | None:
    return Quality[unit.quality.upper()] if unit.quality else None


def _resolve(unit: Unit) -> Resolve | None:
    return Resolve[unit.resolve.upper()] if unit.resolve else None


def _newcomers(campaign_id: uuid.UUID) -> set[uuid.UUID]:
    """Troopers who joined as replacements or reinforcements: they are not part of a unit's
    initial strength."""
    found: set[uuid.UUID] = set()
    for event in store.read(campaign_id, types=[INFANTRY_REPLACED, REINFORCEMENTS_ROLLED]):
        p = event.payload
        if event.type == INFANTRY_REPLACED:
            found.update(uuid.UUID(t["trooper_id"]) for t in p["enlisted"])
        else:
            found.update(uuid.UUID(t) for u in p["units"] for t in u["trooper_ids"])
    return found


def initial_strength(unit: Unit, troopers: Sequence[Trooper], newcomers: set[uuid.UUID]) -> int:
    """The unit's strength when the campaign began (the cap of FaD p.66 REINFORCEMENTS): its
    TO&E strength if the roster gives one, else the troopers it was raised with."""
    if unit.toe_strength:
        return unit.toe_strength
    return sum(1 for t in troopers if t.id not in newcomers)


def _present(troopers: Sequence[Trooper]) -> list[Trooper]:
    return [t for t in troopers if TrooperStatus(t.status).is_present]


def _enlist(
    unit: Unit, template: Trooper | None, order: int, name: str, *, role: str | None = None
) -> tuple[uuid.UUID, NewEvent]:
    """A new trooper armed like ``template`` (the figure he replaces, or a typical one)."""
    trooper_id = uuid.uuid4()
    payload = roster_events.TrooperEnlisted(
        trooper_id=trooper_id,
        unit_id=unit.id,
        force_id=unit.force_id,
        order=order,
        name=name,
        role=role or (template.role if template else "line"),
        weapon=template.weapon if template else "",
        armour=template.armour if template else "",
        armour_die=template.armour_die if template else None,
        power_armour=template.power_armour if template else False,
        specialism=template.specialism if template else "",
    )
    return trooper_id, NewEvent.of(payload, stream=f"trooper:{trooper_id}")


def _invalid(exc: ValidationError, code: str) -> CommandError:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    return CommandError(code, f"{where}: {first['msg']}" if where else first["msg"], field=where)


def _table(dice: Sequence[int]) -> TableDice:
    try:
        return TableDice(dice)
    except DiceError as exc:
        raise CommandError(exc.code, exc.message, field=f"dice.{exc.index}") from None


def _finish(table: TableDice) -> None:
    try:
        table.ensure_all_used()
    except DiceError as exc:
        raise CommandError(exc.code, exc.message, field=f"dice.{exc.index}") from None


def _require_fad(campaign: Campaign, what: str) -> None:
    if campaign.ruleset != Ruleset.FAD:
        raise CommandError(
            "fad.not_in_ruleset",
            f"{what} is a Fast and Dirty rule; this campaign plays {campaign.ruleset}.",
        )


# --- Losses in a FaD battle: the umpire names them ------------------------------------------------


class NamedLoss(ActionParams):
    trooper_id: uuid.UUID
    result: Literal["killed", "wounded"] = "killed"


class VehicleLoss(ActionParams):
    vehicle_id: uuid.UUID
    condition: Literal["damaged", "destroyed", "abandoned"]


class FadLossesParams(ActionParams):
    unit_id: uuid.UUID
    casualties: list[NamedLoss] = Field(default_factory=list)
    vehicles: list[VehicleLoss] = Field(default_factory=list)


@battle_action
class FadLosses(BattleAction):
    """A unit's losses in a Fast and Dirty battle, named by the umpire; no dice. Recorded
    during the battle or after it ends, before its after-action resolution."""

    action = "fad_losses"
    rulesets = (Ruleset.FAD.value,)
    Params = FadLossesParams
    statuses = (Battle.Status.IN_PROGRESS, Battle.Status.ENDED)

    def check_action(self, ctx: BattleContext, params: FadLossesParams) -> None:
        ctx.require_ruleset(Ruleset.FAD, "Recording FaD losses")
        if params.unit_id not in ctx.participants:
            raise CommandError(
                "battle.not_a_participant", "That unit did not fight this battle.", field="unit_id"
            )
        if not params.casualties and not params.vehicles:
            raise CommandError(
                "action.invalid", "Name at least one casualty or vehicle.", field="casualties"
            )
        troopers = {t.id: t for t in ctx.troopers(params.unit_id)}
        seen: set[uuid.UUID] = set()
        for index, loss in enumerate(params.casualties):
            where = f"casualties.{index}.trooper_id"
            trooper = troopers.get(loss.trooper_id)
            if trooper is None:
                raise CommandError(
                    "casualties.not_in_unit", "That trooper is not in the unit.", field=where
                )
            if loss.trooper_id in seen:
                raise CommandError("casualties.named_twice", "A trooper is named twice.", where)
            seen.add(loss.trooper_id)
            if trooper.status != TrooperStatus.FIT:
                raise StateConflict(
                    "casualties.not_on_table",
                    f"{trooper.name} is {trooper.status.replace('_', ' ')}, not on the table.",
                    field=where,
                )
        vehicles = {v.id: v for v in ctx.vehicles(params.unit_id)}
        for index, loss in enumerate(params.vehicles):
            where = f"vehicles.{index}.vehicle_id"
            vehicle = vehicles.get(loss.vehicle_id)
            if vehicle is None:
                raise CommandError(
                    "vehicles.not_in_unit", "That vehicle is not in the unit.", field=where
                )
            if loss.vehicle_id in seen:
                raise CommandError("vehicles.named_twice", "A vehicle is named twice.", where)
            seen.add(loss.vehicle_id)
            if vehicle.state != VehicleState.OPERATIONAL:
                raise StateConflict(
                    "vehicles.already_out",
                    f"{vehicle.name} is {vehicle.state.replace('_', ' ')} already.",
                    field=where,
                )

    def resolve(self, ctx: BattleContext, params: FadLossesParams, dice: DiceSource) -> list[Any]:
        troopers = {t.id: t for t in ctx.troopers(params.unit_id)}
        vehicles = {v.id: v for v in ctx.vehicles(params.unit_id)}
        return [
            FadLossesRecorded(
                battle_id=ctx.battle.id,
                unit_id=params.unit_id,
                turn=ctx.battle.turn,
                troopers=[
                    LostFigure(
                        trooper_id=loss.trooper_id,
                        result=loss.result,
                        status_before=troopers[loss.trooper_id].status,
                    )
                    for loss in params.casualties
                ],
                vehicles=[
                    DamagedVehicle(
                        vehicle_id=loss.vehicle_id,
                        condition=loss.condition,
                        state_before=vehicles[loss.vehicle_id].state,
                    )
                    for loss in params.vehicles
                ],
            )
        ]


# --- After the battle: steps 1-4 and the campaign points ------------------------------------------


def reinforced_platoons(force: Force, count: str) -> int:
    """Reinforced platoons in a force, for campaign points (FaD p.66, option
    ``campaign_reinforced_platoon_count``). Each platoon counts once with its attachments; with
    ``attachments_round_up`` (default) units outside every platoon count as one more, as for
    Recon Points (p.60). A force with units but no platoon counts as one."""
    units = list(Unit.objects.filter(force_id=force.id).exclude(status=UnitStatus.DISBANDED))
    platoons = {u.id for u in units if u.kind == UnitKind.PLATOON}
    if not units:
        return 0
    if not platoons:
        return 1
    by_id = {u.id: u for u in units}

    def in_platoon(unit: Unit) -> bool:
        while unit.parent_id is not None:
            if unit.parent_id in platoons:
                return True
            parent = by_id.get(unit.parent_id)
            if parent is None:
                return False
            unit = parent
        return False

    outside = [
        u
        for u in units
        if u.id not in platoons and not UnitKind(u.kind).is_formation and not in_platoon(u)
    ]
    extra = 1 if outside and count == "attachments_round_up" else 0
    return len(platoons) + extra


def _balance(campaign_id: uuid.UUID, force_id: uuid.UUID) -> dict[str, Any]:
    """A force's campaign points, folded from the log: its balance, the battle they were earned
    in, the reinforcement dice bought since, whether its pool is rolled, and the history."""
    state: dict[str, Any] = {
        "balance": 0,
        "battle_id": None,
        "extra_dice": 0,
        "reinforcements_rolled": False,
        "spent": False,
        "history": [],
    }
    wanted = str(force_id)
    for event in store.read(
        campaign_id, types=[POINTS_AWARDED, POINTS_SPENT, REINFORCEMENTS_ROLLED]
    ):
        p = event.payload
        if p["force_id"] != wanted:
            continue
        entry: dict[str, Any] = {
            "sequence": event.sequence,
            "type": event.type,
            "battle_id": p["battle_id"],
        }
        if event.type == POINTS_AWARDED:
            state.update(
                balance=p["balance"],
                battle_id=p["battle_id"],
                extra_dice=0,
                reinforcements_rolled=False,
                spent=False,
            )
            entry.update(
                points=p["points"],
                reinforced_platoons=p["reinforced_platoons"],
                lapsed=p["lapsed"],
                balance=p["balance"],
            )
        elif event.type == POINTS_SPENT:
            dice = sum(1 for b in p["purchases"] if b["kind"] == "reinforcement_die")
            state.update(balance=p["balance"], extra_dice=state["extra_dice"] + dice, spent=True)
            entry.update(
                spent=p["spent"], lost=p["lost"], balance=p["balance"], purchases=p["purchases"]
            )
        else:
            state["reinforcements_rolled"] = True
            entry.update(pool=p["pool"], unused=p["unused"], balance=state["balance"])
        state["history"].append(entry)
    return state


def _recorded_losses(ctx: AfterActionContext) -> tuple[dict[str, list], dict[str, list]]:
    """The losses named in the battle, by unit: figures and vehicles."""
    figures: dict[str, list] = {}
    vehicles: dict[str, list] = {}
    for event in store.read(
        ctx.campaign.id, stream=battle_stream(ctx.battle.id), types=[LOSSES_RECORDED]
    ):
        p = event.payload
        figures.setdefault(p["unit_id"], []).extend(p["troopers"])
        vehicles.setdefault(p["unit_id"], []).extend(p["vehicles"])
    return figures, vehicles


def fad_after_action(ctx: AfterActionContext, dice: DiceSource) -> list[EventPayload]:
    """FaD p.66 POST-BATTLE STEPS 1-4 for every unit that fought, and the campaign points.

    Force by force, in the order the battle lists them (side by side, then roster order): step
    1, infantry replacements, one d6 per unit that lost figures; step 2, vehicle replacements,
    one d6 per damaged, destroyed or abandoned vehicle; step 3, quality loss, one d6 per unit
    that received at least half its strength in replacements; step 4, resolve loss, one d6 per
    unit that suffered losses or damage; then the force's campaign points (2 per reinforced
    platoon). Losses are those named with the ``fad_losses`` action; wounded figures count as
    losses (option ``campaign_wounded_at_end``, default) and leave the platoon.
    """
    options = ctx.options
    battle = ctx.battle
    if options.campaign_wounded_at_end != "count_as_losses":
        raise RuleViolation(
            "after_action.unsupported_option",
            "Only campaign_wounded_at_end = count_as_losses is supported for FaD so far.",
            field="campaign_wounded_at_end",
        )
    figures_lost, vehicles_hit = _recorded_losses(ctx)
    newcomers = _newcomers(ctx.campaign.id)
    by_force: dict[uuid.UUID, list[Participant]] = {}
    for participant in ctx.participants:
        by_force.setdefault(ctx.units[participant.unit_id].force_id, []).append(participant)
    forces = {f.id: f for f in Force.objects.filter(id__in=list(by_force))}
    # Forces that fought with no unit committed still earn their points.
    for side in ctx.sides.values():
        for force_id in side.force_ids:
            by_force.setdefault(uuid.UUID(str(force_id)), [])
    missing = [f for f in by_force if f not in forces]
    forces.update({f.id: f for f in Force.objects.filter(id__in=missing)})
    out: list[EventPayload] = []
    for force_id, participants in by_force.items():
        replaced: dict[uuid.UUID, int] = {}
        strength_after: dict[uuid.UUID, int] = {}
        initial: dict[uuid.UUID, int] = {}
        # Step 1: infantry replacements.
        for participant in participants:
            unit = ctx.units[participant.unit_id]
            troopers = ctx.troopers[unit.id]
            by_id = {t.id: t for t in troopers}
            lost = [
                LostTrooper(trooper_id=f["trooper_id"], fate=f["result"])
                for f in figures_lost.get(str(unit.id), [])
            ]
            present = _present(troopers)
            wounded = {uuid.UUID(str(x.trooper_id)) for x in lost if x.fate == "wounded"}
            # Wounded figures are still on the roster as wounded; they were on the table.
            on_table = [t for t in present if t.id not in wounded]
            start = len(on_table) + len(lost)
            initial[unit.id] = initial_strength(unit, troopers, newcomers)
            routed = participant.status in (
                Participant.Status.ROUTED,
                Participant.Status.SURRENDERED,
            )
            if routed and options.campaign_routed_unit_fate == "counts_as_eliminated":
                lost += [LostTrooper(trooper_id=t.id, fate="eliminated") for t in on_table]
            if not start:
                continue
            outcome = rules.infantry_replacements(
                dice=dice,
                losses=rules.losses_for_replacement(
                    casualties=len(lost),
                    strength_at_battle_start=start,
                    routed_or_surrendered=routed,
                    campaign_routed_unit_fate=options.campaign_routed_unit_fate,
                ),
                lone_figure=initial[unit.id] == 1,
            )
            templates = [by_id[x.trooper_id] for x in lost]
            order = max((t.order for t in troopers), default=-1) + 1
            enlisted = []
            for n in range(outcome.replaced):
                template = templates[n % len(templates)]
                enlisted.append(
                    EnlistedTrooper(
                        # Named after the battle and the unit, so a job run again enlists the
                        # same trooper.
                        trooper_id=uuid.uuid5(battle.id, f"{unit.id}:{n}"),
                        order=order + n,
                        name=f"Replacement for {template.name}",
                        role=template.role,
                        weapon=template.weapon,
                        armour=template.armour,
                        armour_die=template.armour_die,
                        power_armour=template.power_armour,
                        specialism=template.specialism,
                    )
                )
            if lost:
                out.append(
                    InfantryReplacementsRolled(
                        battle_id=battle.id,
                        unit_id=unit.id,
                        lost=lost,
                        losses=outcome.losses,
                        strength_before=start,
                        initial_strength=initial[unit.id],
                        lone_figure=initial[unit.id] == 1,
                        row=outcome.row.value if outcome.row else None,
                        replaced=outcome.replaced,
                        enlisted=enlisted,
                        dice=dice_json(outcome.rolls),
                    )
                )
            replaced[unit.id] = outcome.replaced
            strength_after[unit.id] = start - len(lost)
        # Step 2: vehicle replacements.
        damaged_units: set[uuid.UUID] = set()
        for participant in participants:
            unit = ctx.units[participant.unit_id]
            for hit in vehicles_hit.get(str(unit.id), []):
                damaged_units.add(unit.id)
                fate = rules.vehicle_replacement(
                    dice=dice,
                    condition=rules.VehicleCondition(hit["condition"]),
                    campaign_abandoned_vehicle_fate=options.campaign_abandoned_vehicle_fate,
                )
                vehicle = next(v for v in ctx.vehicles[unit.id] if str(v.id) == hit["vehicle_id"])
                out.append(
                    VehicleReplacementRolled(
                        battle_id=battle.id,
                        unit_id=unit.id,
                        vehicle_id=vehicle.id,
                        condition=hit["condition"],
                        rolled_as=fate.before.value,
                        fate=fate.fate.value,
                        state_before=VehicleState(vehicle.state),
                        state_after=_ROSTER_STATE[fate.after],
                        dice=dice_json(fate.rolls),
                    )
                )
        # Step 3: quality loss.
        for participant in participants:
            unit = ctx.units[participant.unit_id]
            quality = _quality(unit)
            if quality is None or not initial.get(unit.id):
                continue
            outcome = rules.quality_loss(
                dice=dice,
                quality=quality,
                replacements_received=replaced.get(unit.id, 0),
                initial_strength=initial[unit.id],
                strength_after_battle=strength_after.get(unit.id, initial[unit.id]),
                is_vehicle=unit.kind == UnitKind.VEHICLE_CREW,
                campaign_half_strength_basis=options.campaign_half_strength_basis,
                campaign_quality_loss_vehicles=options.campaign_quality_loss_vehicles,
            )
            if outcome.rolled:
                by_initial = options.campaign_half_strength_basis == "initial_strength"
                out.append(
                    QualityLossRolled(
                        battle_id=battle.id,
                        unit_id=unit.id,
                        replacements=replaced.get(unit.id, 0),
                        measured_against=(
                            initial[unit.id] if by_initial else strength_after.get(unit.id, 0)
                        ),
                        quality_before=outcome.before.name.lower(),
                        quality_after=outcome.after.name.lower(),
                        dice=dice_json(outcome.rolls),
                    )
                )
        # Step 4: resolve loss.
        for participant in participants:
            unit = ctx.units[participant.unit_id]
            resolve = _resolve(unit)
            if resolve is None:
                continue
            outcome = rules.resolve_change(
                dice=dice,
                resolve=resolve,
                suffered_losses=bool(figures_lost.get(str(unit.id))) or unit.id in damaged_units,
                resolve_locked=any(s.lower() == "fanatic" for s in unit.specialists),
                campaign_locked_resolve_skips_roll=options.campaign_locked_resolve_skips_roll,
            )
            if outcome.rolled:
                out.append(
                    ResolveLossRolled(
                        battle_id=battle.id,
                        unit_id=unit.id,
                        resolve_before=outcome.before.name.lower(),
                        resolve_after=outcome.after.name.lower(),
                        dice=dice_json(outcome.rolls),
                    )
                )
        # Experience: the force's campaign points.
        force = forces[force_id]
        platoons = reinforced_platoons(force, options.campaign_reinforced_platoon_count)
        awarded = points_rules.campaign_points_awarded(reinforced_platoons=platoons)
        before = _balance(ctx.campaign.id, force.id)["balance"]
        banked = before if options.campaign_cp_banking else 0
        out.append(
            CampaignPointsAwarded(
                force_id=force.id,
                battle_id=battle.id,
                reinforced_platoons=platoons,
                points=awarded,
                lapsed=before - banked,
                balance=banked + awarded,
            )
        )
    return out


register_after_action(Ruleset.FAD, fad_after_action)


def _rules_refused(decide):
    try:
        return decide()
    except DiceError as exc:
        raise CommandError(exc.code, exc.message, field=f"dice.{exc.index}") from None
    except ValueError as exc:
        raise RuleViolation(getattr(exc, "code", "rules.refused"), str(exc)) from None


def _parse(model: type[BaseModel], params: dict[str, Any], code: str) -> Any:
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        raise _invalid(exc, code) from None


def _expected(campaign_id: uuid.UUID, new: Sequence[NewEvent]) -> dict[str, int]:
    """Versions of the force stream the decision read; new units and troopers start streams."""
    return {
        e.stream: store.stream_version(campaign_id, e.stream)
        for e in new
        if e.stream.startswith("force:")
    }


# --- Spending campaign points ---------------------------------------------------------------------


class PurchaseParams(ActionParams):
    kind: points_rules.PurchaseKind
    target: str = ""
    detail: str = ""


class SpendParams(ActionParams):
    purchases: list[PurchaseParams] = Field(min_length=1)


def _vehicle_condition(state: str) -> rules.VehicleCondition:
    if state == VehicleState.OPERATIONAL:
        return rules.VehicleCondition.OPERATIONAL
    if state == VehicleState.DESTROYED:
        return rules.VehicleCondition.DESTROYED
    return rules.VehicleCondition.DAMAGED


def campaign_points_spend(
    *, campaign: Campaign, force: Force, purchases: list[dict[str, Any]], actor: AbstractBaseUser
) -> list[StoredEvent]:
    """Spend a force's campaign points on the price list, within its caps (FaD p.66
    EXPERIENCE). Refused as a whole if over budget or over a cap; nothing is appended."""
    _require_fad(campaign, "Campaign points")
    parsed = _parse(SpendParams, {"purchases": purchases}, "campaign_points.invalid")
    options = parse_options(campaign.ruleset, campaign.options)
    state = _balance(campaign.id, force.id)
    if state["battle_id"] is None:
        raise StateConflict(
            "campaign_points.none_awarded",
            f"{force.name} has not been awarded campaign points yet.",
            field="purchases",
        )
    if state["spent"] and not options.campaign_cp_banking:
        raise StateConflict(
            "campaign_points.step_over",
            f"{force.name} has spent its points for this battle; unspent points are lost.",
            field="purchases",
        )
    before_pool = options.campaign_step_order == "points_before_reinforcements"
    if state["reinforcements_rolled"] and before_pool:
        raise StateConflict(
            "campaign_points.step_over",
            "The reinforcement pool is rolled after the points are spent (option "
            "campaign_step_order); the points of this battle can no longer be spent.",
            field="purchases",
        )
    for index, purchase in enumerate(parsed.purchases):
        if (
            purchase.kind is points_rules.PurchaseKind.REINFORCEMENT_DIE
            and state["reinforcements_rolled"]
        ):
            raise RuleViolation(
                "campaign_points.not_eligible",
                "The reinforcement pool of this battle is already rolled.",
                field=f"purchases.{index}.kind",
            )
    units = list(Unit.objects.filter(force_id=force.id).exclude(status=UnitStatus.DISBANDED))
    troopers: dict[uuid.UUID, list[Trooper]] = {u.id: [] for u in units}
    for trooper in Trooper.objects.filter(force_id=force.id).order_by("order"):
        troopers.setdefault(trooper.unit_id, []).append(trooper)
    newcomers = _newcomers(campaign.id)
    vehicles = list(Vehicle.objects.filter(force_id=force.id))
    standings = []
    lone_figures: dict[str, Trooper] = {}
    for unit in units:
        quality, resolve = _quality(unit), _resolve(unit)
        if quality is None or resolve is None:
            continue
        members = troopers[unit.id]
        lone = initial_strength(unit, members, newcomers) == 1 and not _present(members)
        if lone and members:
            lone_figures[str(unit.id)] = members[0]
        standings.append(
            points_rules.UnitStanding(
                unit_id=str(unit.id),
                quality=quality,
                resolve=resolve,
                resolve_locked=any(s.lower() == "fanatic" for s in unit.specialists),
                eliminated_lone_figure=lone and bool(members),
                traits=frozenset(unit.specialists),
            )
        )
    by_unit = {s.unit_id: s for s in standings}
    vehicle_standing = [
        points_rules.VehicleStanding(vehicle_id=str(v.id), condition=_vehicle_condition(v.state))
        for v in vehicles
    ]
    wanted = tuple(
        points_rules.Purchase(kind=p.kind, target=p.target, detail=p.detail)
        for p in parsed.purchases
    )
    try:
        spending = points_rules.spend_campaign_points(
            awarded=state["balance"],
            purchases=wanted,
            units=tuple(standings),
            vehicles=tuple(vehicle_standing),
            campaign_cp_banking=options.campaign_cp_banking,
            campaign_initial_value_cap_scope=options.campaign_initial_value_cap_scope,
        )
    except points_rules.CampaignPointsError as exc:
        field_name = "purchases" if exc.index is None else f"purchases.{exc.index}"
        raise RuleViolation(exc.code, exc.message, field=field_name) from None
    # Walk the purchases again to record each one's before and after for the history.
    walk = dict(by_unit)
    vehicle_state = {str(v.id): v.state for v in vehicles}
    records = []
    for purchase in wanted:
        record: dict[str, Any] = {
            "kind": purchase.kind,
            "target": purchase.target,
            "detail": purchase.detail,
            "cost": purchase.kind.cost,
        }
        if purchase.kind is points_rules.PurchaseKind.QUALITY_STEP:
            unit = walk[purchase.target]
            after = Quality(unit.quality + 1)
            record.update(before=unit.quality.name.lower(), after=after.name.lower())
            walk[purchase.target] = points_rules.UnitStanding(
                unit_id=unit.unit_id, quality=after, resolve=unit.resolve
            )
        elif purchase.kind is points_rules.PurchaseKind.RESOLVE_STEP:
            unit = walk[purchase.target]
            after = Resolve(unit.resolve + 1)
            record.update(before=unit.resolve.name.lower(), after=after.name.lower())
            walk[purchase.target] = points_rules.UnitStanding(
                unit_id=unit.unit_id, quality=unit.quality, resolve=after
            )
        elif purchase.kind in (
            points_rules.PurchaseKind.REPAIR_VEHICLE,
            points_rules.PurchaseKind.REPLACE_VEHICLE,
        ):
            record.update(
                before=vehicle_state[purchase.target], after=VehicleState.OPERATIONAL.value
            )
        elif purchase.kind is points_rules.PurchaseKind.RETURN_LONE_FIGURE:
            trooper = lone_figures[purchase.target]
            record.update(before=trooper.status, after="fit", trooper_id=trooper.id)
        records.append(PurchaseRecord(**record))
    payload = CampaignPointsSpent(
        force_id=force.id,
        battle_id=state["battle_id"],
        purchases=records,
        budget=spending.budget,
        spent=spending.spent,
        lost=spending.lost,
        balance=spending.carried_forward,
    )
    stream = f"force:{force.id}"
    return store.append(
        campaign.id,
        [NewEvent.of(payload, stream=stream)],
        expected_versions={stream: store.stream_version(campaign.id, stream)},
        actor_id=actor.pk,
    ).events


def campaign_points_view(*, campaign_id: uuid.UUID, force: Force) -> dict[str, Any]:
    """A force's campaign point balance and every award, purchase and pool roll."""
    state = _balance(campaign_id, force.id)
    return {
        "force_id": str(force.id),
        "balance": state["balance"],
        "battle_id": state["battle_id"],
        "extra_reinforcement_dice": state["extra_dice"],
        "reinforcements_rolled": state["reinforcements_rolled"],
        "history": state["history"],
    }


# --- Reinforcements -------------------------------------------------------------------------------


class Assignment(ActionParams):
    unit_id: uuid.UUID
    troopers: int = Field(ge=1)


class ReinforcementsParams(ActionParams):
    assignment: list[Assignment] = Field(
        default_factory=list,
        description="Troopers for each unit, filled in this order until the pool runs out.",
    )
    new_squad_size: int = Field(
        default=0, ge=0, description="5-8 troopers to form a new squad from what is left; 0 none."
    )


@dataclass
class _Pool:
    campaign: Campaign
    force: Force
    options: Any
    battle_id: uuid.UUID
    extra_dice: int
    units: dict[uuid.UUID, Unit]
    troopers: dict[uuid.UUID, list[Trooper]]
    strengths: dict[uuid.UUID, rules.UnitStrength]
    params: ReinforcementsParams


def _load_pool(campaign: Campaign, force: Force, params: ReinforcementsParams) -> _Pool:
    _require_fad(campaign, "Reinforcements")
    options = parse_options(campaign.ruleset, campaign.options)
    state = _balance(campaign.id, force.id)
    if state["battle_id"] is None:
        raise StateConflict(
            "reinforcements.not_due",
            f"{force.name} has fought no battle whose post-battle steps are resolved.",
            field="force",
        )
    if state["reinforcements_rolled"]:
        raise StateConflict(
            "reinforcements.already_rolled",
            f"{force.name} has rolled its reinforcement pool for this battle.",
            field="force",
        )
    units = {
        u.id: u for u in Unit.objects.filter(force_id=force.id).exclude(status=UnitStatus.DISBANDED)
    }
    troopers: dict[uuid.UUID, list[Trooper]] = {u: [] for u in units}
    for trooper in Trooper.objects.filter(force_id=force.id).order_by("order"):
        troopers.setdefault(trooper.unit_id, []).append(trooper)
    newcomers = _newcomers(campaign.id)
    strengths = {}
    seen: set[uuid.UUID] = set()
    for index, item in enumerate(params.assignment):
        where = f"assignment.{index}.unit_id"
        unit = units.get(item.unit_id)
        if unit is None or UnitKind(unit.kind).is_formation:
            raise CommandError(
                "reinforcements.unknown_unit", "That is not a unit of this force.", field=where
            )
        if item.unit_id in seen:
            raise CommandError("reinforcements.named_twice", "A unit is named twice.", field=where)
        seen.add(item.unit_id)
        initial = initial_strength(unit, troopers[unit.id], newcomers)
        strength = len(_present(troopers[unit.id]))
        if strength + item.troopers > initial:
            raise RuleViolation(
                "reinforcements.over_cap",
                f"{unit.name} would reach {strength + item.troopers} figures; no unit may be "
                f"raised above its initial {initial}.",
                field=f"assignment.{index}.troopers",
            )
        strengths[unit.id] = rules.UnitStrength(str(unit.id), strength, initial)
    size = params.new_squad_size
    if size and not rules.NEW_SQUAD_MIN <= size <= rules.NEW_SQUAD_MAX:
        raise RuleViolation(
            "reinforcements.new_squad_size",
            f"A new squad takes {rules.NEW_SQUAD_MIN} to {rules.NEW_SQUAD_MAX} reinforcements.",
            field="new_squad_size",
        )
    return _Pool(
        campaign=campaign,
        force=force,
        options=options,
        battle_id=uuid.UUID(state["battle_id"]),
        extra_dice=state["extra_dice"],
        units=units,
        troopers=troopers,
        strengths=strengths,
        params=params,
    )


def _typical(work: _Pool) -> Trooper | None:
    """A line trooper of the platoon's first squad: the new squad is armed like him (p.66)."""
    for unit in sorted(work.units.values(), key=lambda u: u.order):
        if unit.kind == UnitKind.SQUAD:
            line = [t for t in work.troopers[unit.id] if t.role == "line"]
            if line:
                return line[0]
    return None


def _reinforcement_events(work: _Pool, dice: DiceSource) -> list[NewEvent]:
    pool = rules.reinforcement_pool(dice=dice, extra_dice=work.extra_dice)
    left = pool.troopers
    assignment: dict[str, int] = {}
    # Units are filled in the umpire's order until the pool runs out; the new squad takes what
    # is left, if enough remains to form one.
    for item in work.params.assignment:
        given = min(item.troopers, left)
        if given:
            assignment[str(item.unit_id)] = given
        left -= given
    size = min(work.params.new_squad_size, left)
    if size < rules.NEW_SQUAD_MIN:
        size = 0
    placed = rules.assign_reinforcements(
        pool=pool.troopers,
        units=tuple(work.strengths.values()),
        assignment=assignment,
        new_squad_size=size,
        leaders_replacement_experience=work.options.leaders_replacement_experience,
    )
    new: list[NewEvent] = []
    reinforced = []
    for unit_id_text, count in assignment.items():
        unit = work.units[uuid.UUID(unit_id_text)]
        members = work.troopers[unit.id]
        order = max((t.order for t in members), default=-1) + 1
        template = next((t for t in members if t.role == "line"), members[0] if members else None)
        ids = []
        for n in range(count):
            trooper_id, event = _enlist(unit, template, order + n, f"Reinforcement {order + n + 1}")
            ids.append(trooper_id)
            new.append(event)
        reinforced.append(ReinforcedUnit(unit_id=unit.id, trooper_ids=ids))
    squad_record = None
    if placed.new_squad is not None:
        squad = placed.new_squad
        unit_id = uuid.uuid4()
        platoon = next(
            (u for u in work.units.values() if u.kind == UnitKind.PLATOON),
            None,
        )
        units = list(work.units.values())
        siblings = [u for u in units if u.parent_id == (platoon and platoon.id)]
        raised = roster_events.UnitRaised(
            unit_id=unit_id,
            force_id=work.force.id,
            parent_id=platoon.id if platoon else None,
            order=max((u.order for u in siblings), default=-1) + 1,
            name=f"New Squad {1 + sum(u.name.startswith('New Squad') for u in units)}",
            kind=UnitKind.SQUAD,
            quality=squad.quality.name.lower(),
            resolve=squad.resolve.name.lower(),
            toe_strength=squad.size,
        )
        new.append(NewEvent.of(raised, stream=f"unit:{unit_id}"))
        shell = Unit(id=unit_id, force_id=work.force.id)
        template = _typical(work)
        ids = []
        for n in range(squad.size):
            # The first of them leads the squad (of option leaders_replacement_experience).
            leads = n == 0
            name = "Squad leader" if leads else f"Reinforcement {n + 1}"
            trooper_id, event = _enlist(
                shell, template, n, name, role="leader" if leads else "line"
            )
            ids.append(trooper_id)
            new.append(event)
        squad_record = NewSquadRecord(
            unit_id=unit_id,
            size=squad.size,
            quality=squad.quality.name.lower(),
            resolve=squad.resolve.name.lower(),
            squad_leader_experience=squad.squad_leader_experience,
            trooper_ids=ids,
        )
    stream = f"force:{work.force.id}"
    new.append(
        NewEvent.of(
            ReinforcementsRolled(
                force_id=work.force.id,
                battle_id=work.battle_id,
                extra_dice=work.extra_dice,
                pool=pool.troopers,
                units=reinforced,
                new_squad=squad_record,
                unused=placed.unused,
                dice=dice_json(pool.rolls),
            ),
            stream=stream,
        )
    )
    return new


def reinforcements_roll(
    *,
    campaign: Campaign,
    force: Force,
    params: dict[str, Any],
    dice: Sequence[int] | None,
    actor: AbstractBaseUser,
) -> list[StoredEvent] | Job:
    """Roll a force's reinforcement pool and place it (FaD p.66 REINFORCEMENTS)."""
    parsed = _parse(ReinforcementsParams, params, "reinforcements.invalid")
    work = _load_pool(campaign, force, parsed)
    if dice is None:
        return jobs.job_request(
            campaign_id=campaign.id,
            kind=REINFORCEMENTS_JOB,
            params={"force_id": str(force.id), "params": params},
            requested_by_id=actor.pk,
        )
    table = _table(dice)
    new = _rules_refused(lambda: _reinforcement_events(work, table))
    _finish(table)
    return store.append(
        campaign.id, new, expected_versions=_expected(campaign.id, new), actor_id=actor.pk
    ).events


@jobs.handler(REINFORCEMENTS_JOB)
def _reinforcements_with_server_dice(job: Job) -> jobs.JobOutcome:
    campaign = Campaign.objects.get(pk=job.campaign_id)
    force = Force.objects.get(pk=job.params["force_id"])
    parsed = _parse(ReinforcementsParams, job.params["params"], "reinforcements.invalid")
    work = _load_pool(campaign, force, parsed)
    new = _rules_refused(lambda: _reinforcement_events(work, job_dice(job)))
    return jobs.JobOutcome(events=new, expected_versions=_expected(campaign.id, new))


# --- Projection -----------------------------------------------------------------------------------


def _label(value: str | None) -> str:
    return (value or "").replace("_", " ").capitalize()


def _battle_name(rows: Rows, battle_id: Any) -> str:
    battle = rows.get(Battle, battle_id)
    return battle["name"] if battle else "the battle"


def _trooper_name(rows: Rows, trooper_id: Any) -> str:
    trooper = rows.get(Trooper, trooper_id)
    return trooper["name"] if trooper else "a trooper"


def _faces(dice: list[dict[str, Any]]) -> str:
    return ", ".join(f"d{d['die']} {d['result']}" for d in dice)


_ROW_WORDS = {
    "none": "no replacements",
    "half": "half the losses replaced",
    "full": "back to full strength",
}
_VEHICLE_FATE_WORDS = {
    "not_repaired": "not repaired",
    "not_replaced": "not replaced",
    "repaired": "repaired",
    "replaced": "replaced",
}
_PURCHASE_WORDS = {
    "quality_step": "quality",
    "resolve_step": "resolve",
    "reinforcement_die": "an extra reinforcement die",
    "return_lone_figure": "return of a lone figure",
    "repair_vehicle": "repair of",
    "personality": "personality",
    "officer_leadership_step": "officer leadership",
    "replace_vehicle": "replacement of",
    "trait": "trait",
}


def _join_trooper(rows: Rows, event: StoredEvent, unit: dict[str, Any], t: dict[str, Any]) -> None:
    """The same row a ``rosters.TrooperEnlisted`` gives, for a replacement who joined with a
    battle event."""
    rows.put(
        Trooper,
        {
            "id": t["trooper_id"],
            "campaign_id": event.campaign_id,
            "force_id": unit["force_id"],
            "unit_id": unit["id"],
            "order": t["order"],
            "name": t["name"],
            "role": t["role"],
            "weapon": t["weapon"],
            "armour": t["armour"],
            "armour_die": t["armour_die"],
            "power_armour": t["power_armour"],
            "specialism": t["specialism"],
            "status": TrooperStatus.FIT.value,
            "hospital_until_day": None,
            "battles_fought": 0,
            "wounds": 0,
            "days_in_hospital": 0,
        },
    )


@register
class FadAfterActionProjection(Projection):
    """Troopers, vehicles and units after a Fast and Dirty battle, and their histories (rows of
    the rosters and battles projections)."""

    name = "battles.after_action_fad"

    @Projection.handles(LOSSES_RECORDED)
    def losses_recorded(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if unit is None:
            return
        battle = _battle_name(rows, p["battle_id"])
        fates = []
        for loss in p["troopers"]:
            trooper = rows.get(Trooper, loss["trooper_id"])
            if trooper is None:
                continue
            status = TrooperStatus.DEAD if loss["result"] == "killed" else TrooperStatus.WOUNDED
            rows.update(Trooper, loss["trooper_id"], status=status.value)
            if loss["result"] == "wounded":
                rows.update(Trooper, loss["trooper_id"], wounds=trooper["wounds"] + 1)
            fates.append(f"{trooper['name']} {loss['result']}")
            service_record(
                rows,
                event,
                loss["trooper_id"],
                f"{_label(loss['result'])} at {battle}, turn {p['turn']}.",
                battle_id=p["battle_id"],
            )
        for hit in p["vehicles"]:
            vehicle = rows.get(Vehicle, hit["vehicle_id"])
            if vehicle is None:
                continue
            state = (
                VehicleState.DESTROYED if hit["condition"] == "destroyed" else VehicleState.DISABLED
            )
            rows.update(Vehicle, hit["vehicle_id"], state=state.value)
            fates.append(f"{vehicle['name']} {hit['condition']}")
        summary = f"Losses at {battle}, turn {p['turn']}: {'; '.join(fates)}."
        unit_history(
            rows,
            event,
            p["unit_id"],
            summary,
            {
                "casualties": [
                    [x["trooper_id"], x["status_before"], x["result"]] for x in p["troopers"]
                ],
                "vehicles": [
                    [x["vehicle_id"], x["state_before"], x["condition"]] for x in p["vehicles"]
                ],
            },
            battle_id=p["battle_id"],
        )
        log(rows, event, f"{unit['name']}, losses named by the umpire: {'; '.join(fates)}.")

    @Projection.handles(INFANTRY_REPLACED)
    def infantry_replaced(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if unit is None:
            return
        battle = _battle_name(rows, p["battle_id"])
        names = []
        for lost in p["lost"]:
            trooper = rows.get(Trooper, lost["trooper_id"])
            if trooper is None:
                continue
            names.append(trooper["name"])
            status = _LOST_STATUS[lost["fate"]]
            if trooper["status"] != status:
                rows.update(Trooper, lost["trooper_id"], status=status.value)
            if status is TrooperStatus.EVACUATED:
                service_record(
                    rows,
                    event,
                    lost["trooper_id"],
                    f"Left {unit['name']} after {battle}: counted among its losses (FaD p.66).",
                    battle_id=p["battle_id"],
                )
        for t in p["enlisted"]:
            _join_trooper(rows, event, unit, t)
            service_record(
                rows,
                event,
                t["trooper_id"],
                f"Joined {unit['name']} as a replacement after {battle}.",
                battle_id=p["battle_id"],
                dice=p["dice"],
            )
        losses = p["losses"]
        summary = f"After {battle}: {losses} loss{'es' if losses != 1 else ''} ({', '.join(names)})"
        if p["row"] is None:
            summary += "."
        else:
            summary += (
                f"; infantry replacements {_faces(p['dice'])}: {_ROW_WORDS[p['row']]}, "
                f"{p['replaced']} replacement{'s' if p['replaced'] != 1 else ''} joined"
            )
            if p["row"] == "half" and p["lone_figure"]:
                summary += " (a lone figure is not returned on 3-4)"
            summary += "."
        unit_history(
            rows,
            event,
            p["unit_id"],
            summary,
            {"strength": p["replaced"] - len(p["lost"]), "replaced": p["replaced"]},
            battle_id=p["battle_id"],
            dice=p["dice"],
        )
        log(rows, event, f"{unit['name']}: {summary}{dice_text(p['dice'])}")

    @Projection.handles(VEHICLE_REPLACED)
    def vehicle_replaced(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        vehicle = rows.get(Vehicle, p["vehicle_id"])
        if vehicle is None:
            return
        rows.update(Vehicle, p["vehicle_id"], state=p["state_after"], repair_until_day=None)
        rolled = (
            p["rolled_as"]
            if p["rolled_as"] == p["condition"]
            else (f"{p['condition']}, counted as {p['rolled_as']}")
        )
        summary = (
            f"After {_battle_name(rows, p['battle_id'])}: {vehicle['name']} ({rolled}), "
            f"vehicle replacements {_faces(p['dice'])}: {_VEHICLE_FATE_WORDS[p['fate']]}."
        )
        unit_history(
            rows,
            event,
            p["unit_id"],
            summary,
            {"vehicle": [p["vehicle_id"], p["state_before"], p["state_after"]]},
            battle_id=p["battle_id"],
            dice=p["dice"],
        )
        log(rows, event, summary + dice_text(p["dice"]))

    @Projection.handles(QUALITY_LOSS)
    def quality_loss(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        if rows.get(Unit, p["unit_id"]) is None:
            return
        rows.update(Unit, p["unit_id"], quality=p["quality_after"])
        before, after = _label(p["quality_before"]), _label(p["quality_after"])
        verdict = f"drops from {before} to {after}" if before != after else f"stays {before}"
        summary = (
            f"After {_battle_name(rows, p['battle_id'])}: {p['replacements']} replacements of "
            f"{p['measured_against']}, quality loss {_faces(p['dice'])}: {verdict}."
        )
        unit_history(
            rows,
            event,
            p["unit_id"],
            summary,
            {"quality": [p["quality_before"], p["quality_after"]]},
            battle_id=p["battle_id"],
            dice=p["dice"],
        )
        log(rows, event, f"{unit_name(rows, p['unit_id'])}: {summary}{dice_text(p['dice'])}")

    @Projection.handles(RESOLVE_LOSS)
    def resolve_loss(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        if rows.get(Unit, p["unit_id"]) is None:
            return
        rows.update(Unit, p["unit_id"], resolve=p["resolve_after"])
        before, after = _label(p["resolve_before"]), _label(p["resolve_after"])
        verdict = f"from {before} to {after}" if before != after else f"stays {before}"
        summary = (
            f"After {_battle_name(rows, p['battle_id'])}: resolve loss {_faces(p['dice'])}, "
            f"{verdict}."
        )
        unit_history(
            rows,
            event,
            p["unit_id"],
            summary,
            {"resolve": [p["resolve_before"], p["resolve_after"]]},
            battle_id=p["battle_id"],
            dice=p["dice"],
        )
        log(rows, event, f"{unit_name(rows, p['unit_id'])}: {summary}{dice_text(p['dice'])}")

    @Projection.handles(POINTS_AWARDED)
    def points_awarded(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        force = rows.get(Force, p["force_id"])
        name = force["name"] if force else "A force"
        lapsed = f" ({p['lapsed']} unspent lapsed)" if p["lapsed"] else ""
        log(
            rows,
            event,
            f"{name} receives {p['points']} campaign points for {p['reinforced_platoons']} "
            f"reinforced platoon{'s' if p['reinforced_platoons'] != 1 else ''}{lapsed}: "
            f"{p['balance']} to spend.",
        )

    @Projection.handles(POINTS_SPENT)
    def points_spent(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        battle = _battle_name(rows, p["battle_id"])
        for b in p["purchases"]:
            kind, target = b["kind"], b["target"]
            cost = f"{b['cost']} campaign point{'s' if b['cost'] != 1 else ''}"
            if kind in ("quality_step", "resolve_step"):
                column = "quality" if kind == "quality_step" else "resolve"
                if rows.get(Unit, target) is None:
                    continue
                rows.update(Unit, target, **{column: b["after"]})
                unit_history(
                    rows,
                    event,
                    target,
                    f"{_label(column)} raised from {_label(b['before'])} to "
                    f"{_label(b['after'])} for {cost} after {battle} (FaD p.66).",
                    {column: [b["before"], b["after"]]},
                    battle_id=p["battle_id"],
                )
            elif kind in ("repair_vehicle", "replace_vehicle"):
                vehicle = rows.get(Vehicle, target)
                if vehicle is None:
                    continue
                rows.update(Vehicle, target, state=b["after"], repair_until_day=None)
                done = "repaired" if kind == "repair_vehicle" else "replaced"
                unit_history(
                    rows,
                    event,
                    vehicle["unit_id"],
                    f"{vehicle['name']} {done} for {cost} after {battle} (FaD p.66).",
                    {"vehicle": [target, b["before"], b["after"]]},
                    battle_id=p["battle_id"],
                )
            elif kind == "return_lone_figure":
                trooper = rows.get(Trooper, b["trooper_id"])
                if trooper is None:
                    continue
                rows.update(Trooper, b["trooper_id"], status=TrooperStatus.FIT.value)
                service_record(
                    rows,
                    event,
                    b["trooper_id"],
                    f"Returned to duty for {cost} after {battle}.",
                    battle_id=p["battle_id"],
                )
                unit_history(
                    rows,
                    event,
                    target,
                    f"{trooper['name']} returned to duty for {cost} after {battle} (FaD p.66).",
                    {"strength": 1},
                    battle_id=p["battle_id"],
                )
            elif kind in ("personality", "trait") and rows.get(Unit, target) is not None:
                unit_history(
                    rows,
                    event,
                    target,
                    f"Given the {kind} {b['detail']} for {cost} after {battle} (FaD p.66).",
                    {kind: b["detail"]},
                    battle_id=p["battle_id"],
                )

    @Projection.handles(REINFORCEMENTS_ROLLED)
    def reinforcements_rolled(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        battle = _battle_name(rows, p["battle_id"])
        extra = f" + {p['extra_dice']} bought" if p["extra_dice"] else ""
        pool = f"reinforcement pool 2d6{extra} ({_faces(p['dice'])}) = {p['pool']}"
        for placed in p["units"]:
            if rows.get(Unit, placed["unit_id"]) is None:
                continue
            count = len(placed["trooper_ids"])
            names = ", ".join(_trooper_name(rows, t) for t in placed["trooper_ids"])
            unit_history(
                rows,
                event,
                placed["unit_id"],
                f"After {battle}: {count} reinforcement{'s' if count != 1 else ''} joined "
                f"({names}) from the {pool}.",
                {"strength": count},
                battle_id=p["battle_id"],
                dice=p["dice"],
            )
            for trooper_id in placed["trooper_ids"]:
                service_record(
                    rows,
                    event,
                    trooper_id,
                    f"Joined as a reinforcement after {battle}.",
                    battle_id=p["battle_id"],
                )
        squad = p["new_squad"]
        if squad is not None and rows.get(Unit, squad["unit_id"]) is not None:
            unit_history(
                rows,
                event,
                squad["unit_id"],
                f"Formed after {battle} from {squad['size']} troopers of the {pool}: "
                f"{_label(squad['quality'])}, {_label(squad['resolve'])}, squad leader "
                f"{squad['squad_leader_experience']} (FaD p.66).",
                {"strength": squad["size"]},
                battle_id=p["battle_id"],
                dice=p["dice"],
            )
