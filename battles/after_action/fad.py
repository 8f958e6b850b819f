"""Fast and Dirty after a battle: POST-BATTLE STEPS 1-4 and the campaign points (FaD p.64-66).

:func:`fad_after_action`, the FaD resolver of ``POST /battles/{id}/after-action/``
(:mod:`battles.after_action.command`), runs POST-BATTLE STEPS 1-4 for every unit that fought
(infantry replacements, vehicle replacements, quality loss, resolve loss) and grants each force
its campaign points (EXPERIENCE, 2 per reinforced platoon). The replacements are enlisted on
their own streams (``rosters.TrooperEnlisted`` naming the battle, just before the roll that
brought them), in the same append as the steps. Points are spent with
:mod:`battles.after_action.fad_points`; the reinforcement pool is rolled with
:mod:`battles.after_action.fad_reinforcements`.

Dice are used in a fixed order, so table dice can be entered in one list: force by force in the
order the after-action framework lists the units (side by side, then the roster's reading order,
:func:`battles.after_action.context.reading_order`): step 1 for each unit that lost figures,
step 2 for each vehicle named damaged, destroyed or abandoned (and a vehicle crew's surviving
vehicle whose crew took losses, option ``campaign_vehicle_crew_losses``), step 3 for each unit
that must roll, step 4 for each unit that suffered losses or damage. Or each die keyed by the
unit it is for (a vehicle's step 2 die by the vehicle or its unit), with its purpose where a unit
rolls several; ``GET /battles/{id}/after-action/`` lists them in order.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from battles.after_action.context import AfterActionContext, Resolved, register_after_action
from battles.after_action.fad_events import (
    LOSSES_RECORDED,
    CampaignPointsAwarded,
    InfantryReplacementsRolled,
    LostTrooper,
    QualityLossRolled,
    ResolveLossRolled,
    VehicleReplacementRolled,
)
from battles.after_action.fad_roster import (
    PointsLedger,
    enlist,
    initial_strength,
    newcomers,
    present,
    quality_of,
    reinforced_platoons,
    resolve_locked,
    resolve_of,
)
from battles.models import Participant
from battles.services import battle_stream
from campaigns.events import dice_json
from eventlog import commands, store
from eventlog.catalogue import EventPayload
from eventlog.errors import RuleViolation
from eventlog.store import NewEvent
from rosters.models import Force, Unit
from rosters.vocabulary import UnitKind, VehicleState
from rules.dice import DiceSource, rolling_for
from rules.fad import points as points_rules
from rules.fad import replacements as rules
from rules.rulesets import Ruleset

# How a vehicle's FaD condition stands on the roster, whose states come from SG2's damage chart:
# a FaD "damaged" vehicle is out of action until repaired, which the roster calls disabled.
ROSTER_STATE = {
    rules.VehicleCondition.OPERATIONAL: VehicleState.OPERATIONAL,
    rules.VehicleCondition.DAMAGED: VehicleState.DISABLED,
    rules.VehicleCondition.DESTROYED: VehicleState.DESTROYED,
}
_ROUTED = (Participant.Status.ROUTED, Participant.Status.SURRENDERED)
# Recover Wounded in the battle (battles.fad.wounded), named by type: the after-action does not
# import the battle actions.
WOUNDED_TREATED = "battles.FadWoundedTreated"


@dataclass
class _Battle:
    """The losses the umpire named in the battle, by unit id, and the troopers who joined
    units after the campaign began."""

    figures: dict[str, list[dict[str, Any]]]
    vehicles: dict[str, list[dict[str, Any]]]
    newcomers: set[uuid.UUID]

    @classmethod
    def load(cls, ctx: AfterActionContext) -> _Battle:
        figures: dict[str, list[dict[str, Any]]] = {}
        vehicles: dict[str, list[dict[str, Any]]] = {}
        stream = battle_stream(ctx.battle.id)
        types = [LOSSES_RECORDED, WOUNDED_TREATED]
        for event in store.read(ctx.campaign.id, stream=stream, types=types):
            p = event.payload
            if event.type == WOUNDED_TREATED:
                # FaD p.35: a treated figure's last fate replaces his wound (see _losses).
                figures.setdefault(p["unit_id"], []).extend(
                    {"trooper_id": t["trooper_id"], "result": _TREATED_FATE[t["result"]]}
                    for t in p["treated"]
                )
                continue
            figures.setdefault(p["unit_id"], []).extend(p["troopers"])
            vehicles.setdefault(p["unit_id"], []).extend(p["vehicles"])
        return cls(
            figures={unit: _still_lost(lost) for unit, lost in figures.items()},
            vehicles=vehicles,
            newcomers=newcomers(ctx.campaign.id),
        )


# A Recover Wounded result (FaD p.35) as a loss: stabilised figures are still wounded (option
# campaign_wounded_at_end = count_as_losses), those who died of their wounds are killed, and
# recovered ones are back in action, no loss at all.
_TREATED_FATE = {"recovered": "recovered", "stabilised": "wounded", "died_of_wounds": "killed"}


def _still_lost(figures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A unit's losses without the figures whose last fate in the battle was recovery."""
    last = {str(f["trooper_id"]): f["result"] for f in figures}
    return [f for f in figures if last[str(f["trooper_id"])] != "recovered"]


@dataclass
class _Steps:
    """What one force's steps pass on: replacements received, strength after the battle and
    initial strength by unit, and the units whose vehicles were hit."""

    replaced: dict[uuid.UUID, int] = field(default_factory=dict)
    strength_after: dict[uuid.UUID, int] = field(default_factory=dict)
    initial: dict[uuid.UUID, int] = field(default_factory=dict)
    damaged_units: set[uuid.UUID] = field(default_factory=set)
    removed: set[uuid.UUID] = field(default_factory=set)
    crew_lost: dict[uuid.UUID, list[LostTrooper]] = field(default_factory=dict)


def check_fad_after_action(ctx: AfterActionContext) -> None:
    """Refuse options the FaD steps do not implement, before any die is rolled."""
    if ctx.options.campaign_wounded_at_end != "count_as_losses":
        raise RuleViolation(
            "after_action.unsupported_option",
            "Only campaign_wounded_at_end = count_as_losses is supported for FaD so far.",
            field="campaign_wounded_at_end",
        )


def fad_after_action(ctx: AfterActionContext, dice: DiceSource) -> list[Resolved]:
    """FaD p.66 POST-BATTLE STEPS 1-4 for every unit that fought, and the campaign points.

    Force by force, in the order the battle lists them (side by side, then roster order): step
    1, infantry replacements, one d6 per unit that lost figures; step 2, vehicle replacements,
    one d6 per damaged, destroyed or abandoned vehicle; step 3, quality loss, one d6 per unit
    that received at least half its strength in replacements; step 4, resolve loss, one d6 per
    unit that suffered losses or damage (not one removed for want of replacements, option
    ``campaign_empty_units``); then the force's campaign points (2 per reinforced platoon).
    Crew killed on a vehicle that survived count as damage to it in step 2 by default (option
    ``campaign_vehicle_crew_losses``). Losses are those named with the ``fad_losses`` action;
    wounded figures count as losses (option ``campaign_wounded_at_end``, default) and leave the
    platoon.
    """
    battle = _Battle.load(ctx)
    out: list[Resolved] = []
    for force, participants in _forces(ctx):
        steps = _Steps()
        units = [ctx.units[p.unit_id] for p in participants]
        # Each die is for its unit (a vehicle's within it): keyed table dice and the dice
        # prompt name them so.
        for participant, unit in zip(participants, units, strict=True):
            with rolling_for(dice, str(unit.id)):
                out.extend(_infantry_step(ctx, battle, participant, unit, steps, dice))
        for unit in units:
            with rolling_for(dice, str(unit.id)):
                out.extend(_vehicle_step(ctx, battle, unit, steps, dice))
        for unit in units:
            with rolling_for(dice, str(unit.id)):
                out.extend(_quality_step(ctx, unit, steps, dice))
        for unit in units:
            with rolling_for(dice, str(unit.id)):
                out.extend(_resolve_step(ctx, battle, unit, steps, dice))
        out.append(_points_awarded(ctx, force))
    return out


def _forces(ctx: AfterActionContext) -> list[tuple[Force, list[Participant]]]:
    """The forces that fought, with their units in the battle's order; forces that fought with
    no unit committed still earn their points."""
    by_force: dict[uuid.UUID, list[Participant]] = {}
    for participant in ctx.participants:
        by_force.setdefault(ctx.units[participant.unit_id].force_id, []).append(participant)
    for side in ctx.sides.values():
        for force_id in side.force_ids:
            by_force.setdefault(uuid.UUID(str(force_id)), [])
    forces = {f.id: f for f in Force.objects.filter(id__in=list(by_force))}
    return [(forces[force_id], participants) for force_id, participants in by_force.items()]


def _infantry_step(
    ctx: AfterActionContext,
    battle: _Battle,
    participant: Participant,
    unit: Unit,
    steps: _Steps,
    dice: DiceSource,
) -> list[Resolved]:
    """Step 1, INFANTRY REPLACEMENTS: d6 1-2 none, 3-4 half rounded up (a lone figure is not
    returned), 5-6 full strength (FaD p.66)."""
    options = ctx.options
    troopers = ctx.troopers[unit.id]
    routed = participant.status in _ROUTED
    lost, start = _losses(ctx, battle, unit, routed=routed)
    initial = steps.initial[unit.id] = initial_strength(unit, troopers, battle.newcomers)
    if not start:
        return []
    steps.strength_after[unit.id] = start - len(lost)
    if lost and _crewed_vehicle(ctx, battle, unit) is not None:
        # Crew killed on a surviving vehicle: FaD p.66 is silent (GAP); by default (option
        # campaign_vehicle_crew_losses) it counts as damage, rolled in step 2.
        steps.crew_lost[unit.id] = lost
        return []
    outcome = rules.infantry_replacements(
        dice=dice,
        losses=rules.losses_for_replacement(
            casualties=len(lost),
            strength_at_battle_start=start,
            routed_or_surrendered=routed,
            campaign_routed_unit_fate=options.campaign_routed_unit_fate,
        ),
        lone_figure=initial == 1,
    )
    steps.replaced[unit.id] = outcome.replaced
    if not lost:
        return []
    # Wiped out, none replaced: FaD p.66 is silent (GAP); option campaign_empty_units.
    if outcome.replaced == 0 == start - len(lost) and options.campaign_empty_units == "removed":
        steps.removed.add(unit.id)
    joining = _replacements(ctx, unit, lost, outcome.replaced)
    return [
        *joining,
        InfantryReplacementsRolled(
            battle_id=ctx.battle.id,
            unit_id=unit.id,
            lost=lost,
            losses=outcome.losses,
            strength_before=start,
            initial_strength=initial,
            lone_figure=initial == 1,
            row=outcome.row.value if outcome.row else None,
            replaced=outcome.replaced,
            trooper_ids=_enlisted_ids(joining),
            dice=dice_json(outcome.rolls),
            removed=unit.id in steps.removed,
        ),
    ]


def _losses(
    ctx: AfterActionContext, battle: _Battle, unit: Unit, *, routed: bool
) -> tuple[list[LostTrooper], int]:
    """The unit's lost figures and its strength when the battle began."""
    # A figure wounded and later killed in the same battle (FaD p.35: wounded again, he dies)
    # is named twice; he is one loss, with his last fate.
    fates = {str(f["trooper_id"]): f["result"] for f in battle.figures.get(str(unit.id), [])}
    lost = [LostTrooper(trooper_id=trooper_id, fate=fate) for trooper_id, fate in fates.items()]
    wounded = {uuid.UUID(str(x.trooper_id)) for x in lost if x.fate == "wounded"}
    # Wounded figures are still on the roster as wounded; they were on the table.
    on_table = [t for t in present(ctx.troopers[unit.id]) if t.id not in wounded]
    start = len(on_table) + len(lost)
    if routed and ctx.options.campaign_routed_unit_fate == "counts_as_eliminated":
        lost += [LostTrooper(trooper_id=t.id, fate="eliminated") for t in on_table]
    return lost, start


def _crewed_vehicle(ctx: AfterActionContext, battle: _Battle, unit: Unit) -> str | None:
    """The vehicle whose crew's losses count as damage (``campaign_vehicle_crew_losses`` =
    ``counts_as_damaged``, default): a crew unit's vehicle that survived the battle, named
    damaged or not named at all; None with the other option, for other units, or when none
    survived (the crew of a destroyed vehicle died with it and rolls as infantry)."""
    if (
        ctx.options.campaign_vehicle_crew_losses != "counts_as_damaged"
        or unit.kind != UnitKind.VEHICLE_CREW
    ):
        return None
    hits = {str(h["vehicle_id"]): h["condition"] for h in battle.vehicles.get(str(unit.id), [])}
    vehicles = ctx.vehicles[unit.id]
    named = [str(v.id) for v in vehicles if hits.get(str(v.id)) == "damaged"]
    unnamed = [
        str(v.id) for v in vehicles if str(v.id) not in hits and v.state == VehicleState.OPERATIONAL
    ]
    return next(iter(named + unnamed), None)


def _replacements(
    ctx: AfterActionContext, unit: Unit, lost: list[LostTrooper], count: int
) -> list[NewEvent]:
    """``count`` replacements for a unit's ``lost``, each armed like a figure he replaces and
    enlisted on his own stream as brought by the battle (FaD p.66)."""
    troopers = ctx.troopers[unit.id]
    by_id = {t.id: t for t in troopers}
    templates = [by_id[uuid.UUID(str(x.trooper_id))] for x in lost]
    order = max((t.order for t in troopers), default=-1) + 1
    joining = []
    for n in range(count):
        template = templates[n % len(templates)]
        joining.append(
            enlist(
                # Derived from the after-action command, so a job run again enlists the same
                # trooper (and a branch of the campaign, the trooper the original's later
                # commands name).
                commands.new_id(f"replacement:{unit.id}:{n}"),
                unit,
                template,
                order + n,
                f"Replacement for {template.name}"[:200],
                battle_id=ctx.battle.id,
                joined_as="replacement",
            )
        )
    return joining


def _enlisted_ids(enlistments: list[NewEvent]) -> list[uuid.UUID]:
    return [uuid.UUID(e.payload["trooper_id"]) for e in enlistments]


def _vehicle_step(
    ctx: AfterActionContext, battle: _Battle, unit: Unit, steps: _Steps, dice: DiceSource
) -> list[Resolved]:
    """Step 2, VEHICLE REPLACEMENTS: d6 per vehicle hit; 1-2 neither, 3-4 a damaged vehicle is
    repaired, 5-6 repaired or replaced (FaD p.66)."""
    out: list[Resolved] = []
    hits = list(battle.vehicles.get(str(unit.id), []))
    crew = steps.crew_lost.get(unit.id, [])
    crewed = _crewed_vehicle(ctx, battle, unit) if crew else None
    if crewed is not None and all(str(h["vehicle_id"]) != crewed for h in hits):
        hits.append({"vehicle_id": crewed, "condition": "damaged"})
    for hit in hits:
        steps.damaged_units.add(unit.id)
        with rolling_for(dice, str(hit["vehicle_id"])):
            fate = rules.vehicle_replacement(
                dice=dice,
                condition=rules.VehicleCondition(hit["condition"]),
                campaign_abandoned_vehicle_fate=ctx.options.campaign_abandoned_vehicle_fate,
            )
        vehicle = next(v for v in ctx.vehicles[unit.id] if str(v.id) == hit["vehicle_id"])
        lost = crew if str(vehicle.id) == crewed else []
        # A repair restores the crew (campaign_vehicle_crew_losses = counts_as_damaged).
        back = len(lost) if fate.fate == rules.VehicleFate.REPAIRED else 0
        if lost:
            steps.replaced[unit.id] = back
        joining = _replacements(ctx, unit, lost, back)
        out.extend(joining)
        out.append(
            VehicleReplacementRolled(
                battle_id=ctx.battle.id,
                unit_id=unit.id,
                vehicle_id=vehicle.id,
                condition=hit["condition"],
                rolled_as=fate.before.value,
                fate=fate.fate.value,
                state_before=VehicleState(vehicle.state),
                state_after=ROSTER_STATE[fate.after],
                dice=dice_json(fate.rolls),
                crew_losses=bool(lost),
                lost=lost,
                trooper_ids=_enlisted_ids(joining),
            )
        )
    return out


def _quality_step(
    ctx: AfterActionContext, unit: Unit, steps: _Steps, dice: DiceSource
) -> list[EventPayload]:
    """Step 3, QUALITY LOSS: a unit that took at least half its strength in replacements rolls
    d6, 1-2 it loses a level (FaD p.66)."""
    options = ctx.options
    quality = quality_of(unit)
    initial = steps.initial.get(unit.id)
    if quality is None or not initial:
        return []
    replaced = steps.replaced.get(unit.id, 0)
    outcome = rules.quality_loss(
        dice=dice,
        quality=quality,
        replacements_received=replaced,
        initial_strength=initial,
        strength_after_battle=steps.strength_after.get(unit.id, initial),
        is_vehicle=unit.kind == UnitKind.VEHICLE_CREW,
        campaign_half_strength_basis=options.campaign_half_strength_basis,
        campaign_quality_loss_vehicles=options.campaign_quality_loss_vehicles,
    )
    if not outcome.rolls:
        return []
    by_initial = options.campaign_half_strength_basis == "initial_strength"
    return [
        QualityLossRolled(
            battle_id=ctx.battle.id,
            unit_id=unit.id,
            replacements=replaced,
            measured_against=initial if by_initial else steps.strength_after.get(unit.id, 0),
            quality_before=outcome.before.name.lower(),
            quality_after=outcome.after.name.lower(),
            dice=dice_json(outcome.rolls),
        )
    ]


def _resolve_step(
    ctx: AfterActionContext, battle: _Battle, unit: Unit, steps: _Steps, dice: DiceSource
) -> list[EventPayload]:
    """Step 4, RESOLVE LOSS: a unit that suffered losses or damage rolls d6, 1-2 down a level,
    3-4 no change, 5-6 up a level (FaD p.66); not a unit removed from the roster in step 1."""
    resolve = resolve_of(unit)
    if resolve is None or unit.id in steps.removed:
        return []
    outcome = rules.resolve_change(
        dice=dice,
        resolve=resolve,
        suffered_losses=bool(battle.figures.get(str(unit.id))) or unit.id in steps.damaged_units,
        resolve_locked=resolve_locked(unit),
        campaign_locked_resolve_skips_roll=ctx.options.campaign_locked_resolve_skips_roll,
    )
    if not outcome.rolled:
        return []
    return [
        ResolveLossRolled(
            battle_id=ctx.battle.id,
            unit_id=unit.id,
            resolve_before=outcome.before.name.lower(),
            resolve_after=outcome.after.name.lower(),
            dice=dice_json(outcome.rolls),
        )
    ]


def _points_awarded(ctx: AfterActionContext, force: Force) -> CampaignPointsAwarded:
    """EXPERIENCE: 2 campaign points per reinforced platoon; without banking, points left from
    before lapse (FaD p.66)."""
    options = ctx.options
    platoons = reinforced_platoons(force, options.campaign_reinforced_platoon_count)
    awarded = points_rules.campaign_points_awarded(reinforced_platoons=platoons)
    before = PointsLedger.load(ctx.campaign.id, force.id).balance
    banked = before if options.campaign_cp_banking else 0
    return CampaignPointsAwarded(
        force_id=force.id,
        battle_id=ctx.battle.id,
        reinforced_platoons=platoons,
        points=awarded,
        lapsed=before - banked,
        balance=banked + awarded,
    )


register_after_action(Ruleset.FAD, fad_after_action, check=check_fad_after_action)
