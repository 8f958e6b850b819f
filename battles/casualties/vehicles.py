"""Hits on vehicles (SG2 P.38-39): the damage, the occupants' casualties (P.39) and what the
occupants must or may do next."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.casualties.events import VEHICLE_HIT_EVENT, OccupantRecord, TrooperCasualty, VehicleHit
from battles.casualties.state import (
    DieFaces,
    Rolls,
    battle_events,
    figure_of,
    leaders_down,
    no_repeats,
    require_armour_die,
    require_on_table,
    trooper_casualty,
)
from battles.models import Participant
from campaigns.events import dice_json
from eventlog.errors import CommandError, StateConflict
from rosters.models import Trooper, Vehicle
from rosters.vocabulary import VehicleState
from rules.dice import DiceSource, Die, Roll
from rules.sg2.scales import MissionMotivation
from rules.sg2.suppression import fire_action_results, place_markers, vehicle_hit_suppresses
from rules.sg2.vehicles import (
    OccupantCasualtiesOutcome,
    SuspensionType,
    VehicleArmour,
    VehicleDamage,
    VehicleStatus,
    occupant_casualties,
    occupants_after_hit,
    resolve_vehicle_hit,
)

_DAMAGE_BY_SEVERITY = (
    VehicleDamage.DESTROYED,
    VehicleDamage.DISABLED,
    VehicleDamage.SYSTEMS_DAMAGED,
    VehicleDamage.IMMOBILISED,
)


def vehicle_state(status: VehicleStatus) -> VehicleState:
    """The roster's one state for a vehicle's markers: the most severe (IMM with SYS shows as
    systems damaged; the event keeps both markers)."""
    for damage in _DAMAGE_BY_SEVERITY:
        if damage in status.damage:
            return VehicleState(damage.value)
    return VehicleState.OPERATIONAL


class VehicleHitParams(Params):
    vehicle_id: uuid.UUID
    impact_die: DieFaces = Field(description="The weapon's impact die (P.38).")
    impact_multiplier: int = Field(
        default=1, ge=1, le=10, description="The weapon's listed impact multiplier (P.38)."
    )
    major_hit: bool = Field(default=False, description="A MAJOR hit doubles the impact (P.38).")
    armour_class: int | None = Field(
        default=None,
        ge=0,
        le=5,
        description="Armour class of the face hit; default the roster's (the front). Other "
        "faces are one less, minimum 1 (P.31); 0 is a softskin.",
    )
    softskin_die: DieFaces = Field(default=6, description="A softskin's armour die (P.38).")
    suspension: SuspensionType = Field(description="The vehicle's suspension (P.39).")
    weapon_size_class: int | None = Field(
        default=None,
        ge=1,
        le=5,
        description="Size class of the weapon, for occupant casualties (P.39); leave out for an "
        "infantry support weapon (option support_weapon_size_class).",
    )
    occupant_ids: list[uuid.UUID] = Field(
        default_factory=list, description="Troopers aboard, crew and passengers."
    )
    same_fire_action: bool = Field(
        default=False,
        description="Another weapon of the fire action whose last hit on this vehicle was the "
        "previous one recorded (weapons resolved one by one, SG2-C): with the option "
        "one_suppression_per_fire_action the action places one suppression marker at most.",
    )


@battle_action
class VehicleHitAction(BattleAction):
    """One support or heavy weapon hit on a vehicle, and its occupants' casualties."""

    action = "vehicle_hit"
    Params = VehicleHitParams

    def _state(
        self, ctx: BattleContext, params: VehicleHitParams
    ) -> tuple[Vehicle, Participant, list[Trooper]]:
        vehicle = Vehicle.objects.filter(pk=params.vehicle_id, campaign_id=ctx.campaign.id).first()
        if vehicle is None:
            raise CommandError("vehicle.not_found", "No such vehicle.", field="vehicle_id")
        participant = ctx.participant(vehicle.unit_id, field="vehicle_id")
        if vehicle.state == VehicleState.DESTROYED:
            raise StateConflict(
                "vehicle.destroyed", f"{vehicle.name} is already destroyed.", field="vehicle_id"
            )
        no_repeats(params.occupant_ids, "occupant_ids")
        found = {t.id: t for t in Trooper.objects.filter(id__in=params.occupant_ids)}
        occupants: list[Trooper] = []
        for index, trooper_id in enumerate(params.occupant_ids):
            field = f"occupant_ids.{index}"
            trooper = found.get(trooper_id)
            if trooper is None or trooper.campaign_id != ctx.campaign.id:
                raise CommandError("casualties.not_found", "No such trooper.", field=field)
            ctx.participant(trooper.unit_id, field=field)
            require_on_table(trooper, field)
            occupants.append(trooper)
        require_armour_die(occupants, "occupant_ids")
        return vehicle, participant, occupants

    def check_action(self, ctx: BattleContext, params: VehicleHitParams) -> None:
        vehicle, _, _ = self._state(ctx, params)
        if params.same_fire_action and not self._hits(ctx, vehicle):
            raise StateConflict(
                "vehicle.no_earlier_hit",
                f"{vehicle.name} has not been hit in this battle: this hit cannot be another "
                "weapon of the same fire action.",
                field="same_fire_action",
            )

    def _damage_before(self, ctx: BattleContext, vehicle: Vehicle) -> VehicleStatus:
        """The vehicle's markers: those left by its last hit in this battle if the roster still
        agrees with them (it can hold only one), else the roster's state."""
        state = VehicleState(vehicle.state)
        markers = (
            frozenset() if state is VehicleState.OPERATIONAL else frozenset({VehicleDamage(state)})
        )
        for event in battle_events(ctx, VEHICLE_HIT_EVENT):
            p = event.payload
            if p["vehicle_id"] == str(vehicle.id) and p["state_after"] == state.value:
                markers = frozenset(VehicleDamage(d) for d in p["damage_after"])
        return VehicleStatus(markers)

    @staticmethod
    def _hits(ctx: BattleContext, vehicle: Vehicle) -> list[dict[str, Any]]:
        """The payloads of the vehicle's hits in this battle, in order."""
        return [
            event.payload
            for event in battle_events(ctx, VEHICLE_HIT_EVENT)
            if event.payload["vehicle_id"] == str(vehicle.id)
        ]

    @staticmethod
    def _earlier_results(ctx: BattleContext, vehicle: Vehicle) -> int:
        """The suppression results of the earlier hits of this fire action on the vehicle: its
        hits recorded back to the first one not marked ``same_fire_action``."""
        earlier = 0
        for p in reversed(VehicleHitAction._hits(ctx, vehicle)):
            earlier += p.get("suppression_results", 0)
            if not p.get("same_fire_action", False):
                break
        return earlier

    def resolve(self, ctx: BattleContext, params: VehicleHitParams, dice: DiceSource) -> list[Any]:
        vehicle, participant, occupants = self._state(ctx, params)
        before = self._damage_before(ctx, vehicle)
        armour_class = params.armour_class if params.armour_class is not None else vehicle.armour
        armour = VehicleArmour(armour_class or 0, softskin_die=Die(params.softskin_die))
        hit = resolve_vehicle_hit(
            dice=dice,
            impact=Die(params.impact_die),
            armour=armour,
            suspension=params.suspension,
            major_hit=params.major_hit,
            impact_multiplier=params.impact_multiplier,
            status=before,
            double_disabled_is_destroyed=ctx.options.double_disabled_is_destroyed,
        )
        rolls = list(hit.rolls)
        records: list[OccupantRecord] = []
        changes: list[TrooperCasualty] = []
        save_above: int | None = None
        damage = hit.damage
        if damage in (VehicleDamage.DISABLED, VehicleDamage.DESTROYED) and occupants:
            outcome = occupant_casualties(
                dice=dice,
                occupants=[figure_of(t) for t in occupants],
                damage=damage,
                weapon_size_class=params.weapon_size_class,
                support_weapon_size_class=ctx.options.support_weapon_size_class,
                environment=ctx.options.environment,  # P.57: in a vacuum every casualty dies
            )
            rolls += outcome.rolls
            save_above = outcome.save_above
            records, changes = _occupant_casualties(outcome, occupants)
        penetrated = hit.damage in (VehicleDamage.DISABLED, VehicleDamage.DESTROYED)
        results = int(
            vehicle_hit_suppresses(
                penetrated=penetrated,
                non_penetrating_hit_suppresses=ctx.options.non_penetrating_hit_suppresses,
            )
        )
        earlier = self._earlier_results(ctx, vehicle) if params.same_fire_action else 0
        one_per_action = ctx.options.one_suppression_per_fire_action
        placed = fire_action_results(
            earlier + results, one_suppression_per_fire_action=one_per_action
        ) - fire_action_results(earlier, one_suppression_per_fire_action=one_per_action)
        markers = place_markers(participant.suppression, placed)
        return [
            VehicleHit(
                battle_id=ctx.battle.id,
                turn=ctx.battle.turn,
                vehicle_id=vehicle.id,
                unit_id=vehicle.unit_id,
                impact_die=params.impact_die,
                impact_multiplier=params.impact_multiplier,
                major_hit=params.major_hit,
                armour_class=armour.armour_class,
                suspension=params.suspension.value,
                impact_score=hit.impact_score,
                armour_score=hit.armour_score,
                location=hit.location.value if hit.location else None,
                suspension_impact_score=hit.suspension_impact_score,
                suspension_score=hit.suspension_score,
                damage=hit.damage.value if hit.damage else None,
                damage_before=sorted(d.value for d in before.damage),
                damage_after=sorted(d.value for d in hit.status_after.damage),
                state_before=vehicle_state(before),
                state_after=vehicle_state(hit.status_after),
                save_above=save_above,
                occupants=records,
                casualties=changes,
                leaders_down=leaders_down(ctx, changes),
                bail_out=_bail_out(ctx, participant, hit.damage, before) if occupants else "",
                same_fire_action=params.same_fire_action,
                suppression_results=results,
                suppression_before=markers.before,
                suppression_after=markers.after,
                dice=dice_json(rolls),
            )
        ]


def _occupant_casualties(
    outcome: OccupantCasualtiesOutcome, occupants: Sequence[Trooper]
) -> tuple[list[OccupantRecord], list[TrooperCasualty]]:
    """Each occupant's rolls, and the casualties among them with the dice of each: armour dice
    in occupant order, then severity D6s (none in a vacuum, P.57), then P.40 D6s (P.39)."""
    taken = Rolls(outcome.rolls)
    own: dict[str, list[Roll]] = {o.figure_id: [] for o in outcome.occupants}
    for occupant in outcome.occupants:
        if occupant.armour_roll is not None:
            own[occupant.figure_id].append(taken.take())
    for occupant in outcome.occupants:
        if occupant.severity_roll is not None:
            own[occupant.figure_id].append(taken.take())
    for occupant in outcome.occupants:
        if occupant.change and occupant.change.power_armour_roll is not None:
            own[occupant.figure_id].append(taken.take())
    by_id = {str(t.id): t for t in occupants}
    records: list[OccupantRecord] = []
    changes: list[TrooperCasualty] = []
    for occupant in outcome.occupants:
        records.append(
            OccupantRecord(
                trooper_id=uuid.UUID(occupant.figure_id),
                armour_roll=occupant.armour_roll,
                casualty=occupant.casualty,
                severity_roll=occupant.severity_roll,
            )
        )
        if occupant.change is not None:
            changes.append(
                trooper_casualty(
                    by_id[occupant.figure_id], occupant.change, own[occupant.figure_id]
                )
            )
    return records, changes


def _bail_out(
    ctx: BattleContext,
    participant: Participant,
    damage: VehicleDamage | None,
    before: VehicleStatus,
) -> str:
    """What the occupants must or may do now, in words (P.39; SG2-C)."""
    if damage is None:
        return ""
    bail = occupants_after_hit(
        damage=damage,
        already_disabled=before.knocked_out,
        mission_motivation=MissionMotivation[participant.mission_motivation.upper()],
        disabled_vehicle_bailout=ctx.options.disabled_vehicle_bailout,
        disabled_vehicle_stay_test=ctx.options.disabled_vehicle_stay_test,
    )
    suppressed = ", suppressed" if bail.suppressed else ""
    if bail.must_bail_out:
        return f'the occupants must bail out 6"{suppressed}'
    if bail.stay_test_threat_level is not None and bail.test_compulsory:
        return (
            "the occupants take a confidence test at threat level "
            f"{bail.stay_test_threat_level}; failing it they must bail out"
        )
    if bail.stay_test_threat_level is not None:
        return (
            f'the occupants bail out 6"{suppressed} unless they pass a {bail.stay_test.value} '
            f"test at threat level {bail.stay_test_threat_level} to stay"
        )
    return ""
