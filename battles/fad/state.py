"""A Fast and Dirty unit's state in a battle, read from the battle's events and the rosters:
what several FaD battle actions need to know about a unit and none of them owns.

Casualties are the ``battles.FadLossesRecorded`` events of the battle (every FaD action that
kills or wounds records them) and the troopers' roster status, which those events set and which
treatment changes; the figures a unit brought are ``battles.BattleStarted``'s ``on_table``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

from battles.actions import BattleContext
from battles.after_action.fad_events import LOSSES_RECORDED
from battles.after_action.fad_roster import initial_strength, newcomers
from battles.models import Participant
from battles.services import battle_stream
from battles.suppression import is_vehicle_unit
from eventlog import store
from eventlog.errors import StateConflict
from rosters.models import Trooper, Unit
from rosters.vocabulary import TrooperRole, TrooperStatus, VehicleState
from rules.fad import traits as trait_rules
from rules.fad import wounded
from rules.fad.scales import Quality, Resolve, SquadLeaderExperience
from rules.fad.wounded import MedicalState

BATTLE_STARTED = "battles.BattleStarted"
# Shooting at a vehicle records the penetrating hits the crew's Resolve is checked against.
VEHICLE_SHOT = "battles.FadVehicleShotResolved"

# A trooper's roster status as a FaD medical state (p.35): anyone no longer on the table
# (dead, captured, flown out) is a casualty like the dead.
_MEDICAL_STATE = {
    TrooperStatus.FIT: MedicalState.HEALTHY,
    TrooperStatus.WOUNDED: MedicalState.WOUNDED,
    TrooperStatus.STABILISED: MedicalState.STABILISED,
}


def battle_events(ctx: BattleContext, *types: str) -> Iterator[Any]:
    """The battle's events of ``types``, oldest first."""
    return store.read(ctx.campaign.id, stream=battle_stream(ctx.battle.id), types=list(types))


# The event of the Recover Wounded action (battles.fad.wounded), read here by name.
TREATED = "battles.FadWoundedTreated"
# The mission bonus traits given to units (battles.fad.traits), read here by name.
MISSION_BONUS_GIVEN = "battles.FadMissionBonusGiven"


def wound_result(ctx: BattleContext, trooper_id: uuid.UUID, result: str) -> str:
    """What a hit that killed or wounded a figure does to him: with the option
    ``wounds_recovered_second_wound_kills`` (FaD p.35 leaves it open) a figure who recovered from
    a wound earlier in this battle dies to the next."""
    if result != "wounded" or not ctx.options.wounds_recovered_second_wound_kills:
        return result
    recovered = any(
        figure["trooper_id"] == str(trooper_id) and figure["result"] == "recovered"
        for event in battle_events(ctx, TREATED)
        for figure in event.payload["treated"]
    )
    return "killed" if recovered else result


def losses(ctx: BattleContext, unit_id: uuid.UUID) -> list[tuple[int, dict[str, Any]]]:
    """Each figure of the unit recorded killed or wounded in this battle, with the turn."""
    return [
        (event.payload["turn"], figure)
        for event in battle_events(ctx, LOSSES_RECORDED)
        if event.payload["unit_id"] == str(unit_id)
        for figure in event.payload["troopers"]
    ]


def figures_on_table(ctx: BattleContext, unit_id: uuid.UUID) -> list[Trooper]:
    """The unit's figures that were on the table when the battle began (``BattleStarted``); for
    a battle started before that was recorded, its fit figures and those lost in it."""
    troopers = ctx.troopers(unit_id)
    for event in battle_events(ctx, BATTLE_STARTED):
        on_table = event.payload.get("on_table")
        if on_table is not None:
            ids = set(on_table.get(str(unit_id), []))
            return [t for t in troopers if str(t.id) in ids]
    lost = {figure["trooper_id"] for _, figure in losses(ctx, unit_id)}
    return [t for t in troopers if t.status == TrooperStatus.FIT or str(t.id) in lost]


def medical_state(trooper: Trooper) -> MedicalState:
    return _MEDICAL_STATE.get(TrooperStatus(trooper.status), MedicalState.DEAD)


def casualties_for_resolve(ctx: BattleContext, unit_id: uuid.UUID) -> int:
    """The unit's casualties when Checking Resolve (FaD p.13, p.35): its figures on the table
    at the start who are now dead or untreated wounded; the stabilised and the recovered do not
    count."""
    return wounded.casualties_for_resolve(
        states=[medical_state(t) for t in figures_on_table(ctx, unit_id)]
    )


def untreated_wounded(ctx: BattleContext, unit_id: uuid.UUID) -> int:
    """The unit's figures lying wounded and not yet treated (p.25, p.35)."""
    return sum(
        1 for t in figures_on_table(ctx, unit_id) if medical_state(t) is MedicalState.WOUNDED
    )


def took_casualties_in_turn(ctx: BattleContext, unit_id: uuid.UUID, turn: int) -> bool:
    return any(at == turn for at, _ in losses(ctx, unit_id))


def squad_leader(ctx: BattleContext, unit_id: uuid.UUID) -> Trooper | None:
    """The unit's squad leader who was on the table, fit or not; None if it has none."""
    return next((t for t in figures_on_table(ctx, unit_id) if t.role == TrooperRole.LEADER), None)


def squad_leader_lost(ctx: BattleContext, unit_id: uuid.UUID) -> bool:
    leader = squad_leader(ctx, unit_id)
    return leader is not None and leader.status != TrooperStatus.FIT


def leader_experience(ctx: BattleContext, unit_id: uuid.UUID) -> SquadLeaderExperience | None:
    """The experience of the unit's squad leader while he is fit (p.11); None without one."""
    leader = squad_leader(ctx, unit_id)
    if leader is None or leader.status != TrooperStatus.FIT or not leader.experience:
        return None
    return SquadLeaderExperience[leader.experience.upper()]


def initial(ctx: BattleContext, unit: Unit) -> int:
    """The unit's strength when it was raised (its TO&E strength, or its first troopers)."""
    return initial_strength(unit, ctx.troopers(unit.id), newcomers(ctx.campaign.id))


def penetrating_hits(ctx: BattleContext, unit_id: uuid.UUID) -> int:
    """Penetrating hits the unit's vehicle has sustained in this battle (p.13, p.20)."""
    return sum(
        event.payload.get("penetrating_hits", 0)
        for event in battle_events(ctx, VEHICLE_SHOT)
        if event.payload.get("target_id") == str(unit_id)
    )


def quality(unit: Unit, *, field: str = "unit_id") -> Quality:
    try:
        return Quality[unit.quality.upper()]
    except KeyError:
        raise StateConflict(
            "fad.no_quality",
            f"{unit.name} has no Fast and Dirty quality on the roster (p.6).",
            field=field,
        ) from None


def resolve(participant: Participant, unit: Unit, *, field: str = "unit_id") -> Resolve:
    """The unit's Resolve in this battle: the participant's once lowered, else the roster's."""
    try:
        return Resolve[(participant.resolve or unit.resolve).upper()]
    except KeyError:
        raise StateConflict(
            "fad.no_resolve",
            f"{unit.name} has no Fast and Dirty Resolve on the roster (p.6).",
            field=field,
        ) from None


def is_eliminated(ctx: BattleContext, participant: Participant) -> bool:
    """Whether a unit is out of the battle for Losing Heart (p.14): routed or surrendered,
    infantry with no fit figure left, or a vehicle unit whose vehicles are all destroyed. A unit
    withdrawn on purpose is not eliminated."""
    if participant.status in (Participant.Status.ROUTED, Participant.Status.SURRENDERED):
        return True
    if participant.status != Participant.Status.FIGHTING:
        return False
    unit = ctx.unit(participant.unit_id)
    if is_vehicle_unit(unit):
        vehicles = ctx.vehicles(unit.id)
        return bool(vehicles) and all(v.state == VehicleState.DESTROYED for v in vehicles)
    return not any(t.status == TrooperStatus.FIT for t in figures_on_table(ctx, unit.id))


def battle_traits(ctx: BattleContext, unit: Unit) -> frozenset[str]:
    """The unit's traits in this battle, as keys: those on its roster and the mission bonus
    traits its player gave it in this battle (FaD p.62-63). A bonus kept for later battles
    (option ``campaign_mission_bonus_persists``) is on the roster by then."""
    given = {
        trait_rules.trait_key(trait)
        for event in battle_events(ctx, MISSION_BONUS_GIVEN)
        for part in event.payload["units"]
        if part["unit_id"] == str(unit.id)
        for trait in part["traits"]
    }
    return frozenset({trait_rules.trait_key(str(t)) for t in unit.specialists} | given)


def marker_in_effect(
    ctx: BattleContext, participant: Participant, unit: Unit, *, declared: str | None = None
) -> str:
    """The marker whose effects the unit suffers (FaD p.24): none for a Relentless unit or one
    making a Last Stand, none for an Under Fire Hardened unit that has lost no figure in this
    battle (p.31, p.40, p.41). ``declared``: what the table says of the unit beyond its traits
    (``relentless``, ``hardened`` or ``last_stand``)."""
    traits = set(battle_traits(ctx, unit))
    if declared in (trait_rules.RELENTLESS, trait_rules.HARDENED):
        traits.add(declared)
    return trait_rules.marker_in_effect(
        participant.marker,
        traits=traits,
        last_stand=declared == "last_stand",
        casualties=len(losses(ctx, unit.id)),
    )
