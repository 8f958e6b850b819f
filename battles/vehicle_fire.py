"""Fire at a vehicle: heavy weapons, guided missiles, rockets, support weapons and small arms
(SG2 P.36-40).

The rules are :mod:`rules.sg2.vehicle_fire` (range band, the target's die, the firer's dice,
minor and major hits, small arms at a point target). The action records the fire as
``battles.VehicleFired`` and, when a weapon hits, the hit as the ``battles.VehicleHit`` the
``vehicle_hit`` action records, built by that action's own code: penetration, damage, the
occupants' casualties, what they must do next and the vehicle's suppression are not written
twice, and the rosters fold them the same way (ADR 21). A fully effective small-arms fire at a
lightly armoured vehicle (P.37) is recorded as a ``battles.VehicleHit`` too: one minor-hit
penetration roll, the occupants' own armour dice (1 dead, 2 wounded) and the vehicle DISABLED
above twice its armour.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import Field, model_validator

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.casualties.events import OccupantRecord, VehicleHit
from battles.casualties.state import DieFaces, Rolls, figure_of, leaders_down, trooper_casualty
from battles.casualties.vehicles import VehicleHitAction, _bail_out, vehicle_state
from battles.fire import DirectFire, SupportWeapon
from battles.models import Participant
from battles.projections import dice_text, log, participant_key, unit_name
from battles.suppression import is_vehicle_unit, markers_text
from campaigns.events import DieRoll, dice_json
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Trooper, Vehicle
from rosters.vocabulary import VehicleState
from rules.dice import DiceSource, Die, Roll, rolling_for
from rules.sg2.casualties import Cover
from rules.sg2.fire import FireEffect, FireOrder, firer_dice, range_bands, range_die
from rules.sg2.suppression import UnitAction, fire_suppresses, may_act, place_markers
from rules.sg2.vehicle_fire import (
    HeavyWeapon,
    PointFire,
    PointFireOrder,
    SystemLevel,
    point_fire_range_band,
    point_firer_dice,
    resolve_point_fire,
    small_arms_fire_effect,
    target_die,
)
from rules.sg2.vehicles import (
    SmallArmsVehicleOutcome,
    SuspensionType,
    VehicleArmour,
    VehicleStatus,
    small_arms_against_vehicle,
)

VEHICLE_FIRED_EVENT = "battles.VehicleFired"
SMALL_ARMS = "small_arms"
FireKind = Literal[
    "heavy_weapon", "guided_missile", "unguided_rocket", "support_weapon", "small_arms"
]
Level = Literal["none", "basic", "enhanced", "superior"]
# A vehicle with its systems out fires no weapon; knocked out, nothing at all (P.39).
_FIRING_STATES = (VehicleState.OPERATIONAL.value, VehicleState.IMMOBILISED.value)


class VehicleFireParams(Params):
    unit_id: uuid.UUID = Field(description="The firing unit (a vehicle's crew, a weapon team).")
    vehicle_id: uuid.UUID = Field(description="The vehicle fired at.")
    fire: FireKind = Field(
        description="heavy_weapon: quality + fire control against the range die (P.38); "
        "guided_missile: quality + guidance against the ECM die (P.40); unguided_rocket: "
        "quality + D8 (P.40); support_weapon: a support weapon fired alone like a heavy weapon "
        "(P.36-37); small_arms: the squad's small arms and support weapons (P.37)."
    )
    weapon: HeavyWeapon | None = Field(
        default=None, description="heavy_weapon: the weapon type (P.29-30); its impact follows."
    )
    weapon_size: int | None = Field(
        default=None,
        ge=1,
        le=5,
        description="heavy_weapon: the weapon's size class; guided_missile: 1 for a GMS/L, 2 "
        "for a GMS/H, left out for a GMS/P (P.30).",
    )
    fire_control: Level = Field(
        default="none", description="heavy_weapon: the fire control, none = manual D4 (P.32)."
    )
    guidance_die: DieFaces | None = Field(
        default=None, description="guided_missile: the missile's guidance die (P.40)."
    )
    ecm: Level = Field(default="none", description="guided_missile: the target's ECM (P.32).")
    firepower_die: DieFaces | None = Field(
        default=None, description="support_weapon: its firepower die against point targets."
    )
    mounted: bool = Field(
        default=False,
        description="support_weapon on a groundmount or vehicle: heavy-weapon range band (P.37).",
    )
    impact_die: DieFaces | None = Field(
        default=None,
        description="unguided_rocket, support_weapon, small_arms: the impact die (P.29 table).",
    )
    impact_multiplier: int = Field(
        default=1, ge=1, le=10, description="unguided_rocket, support_weapon: listed multiplier."
    )
    weapon_size_class: int | None = Field(
        default=None,
        ge=1,
        le=5,
        description="unguided_rocket, support_weapon: size class for occupant casualties (P.39); "
        "left out: option support_weapon_size_class.",
    )
    distance: float | None = Field(
        default=None, ge=0, le=1000, description="Inches from firer to target."
    )
    range_bands: int | None = Field(
        default=None, ge=1, le=10, description="The range in range bands (1: up to one band)."
    )
    cover: Literal["open", "soft", "hard"] = Field(
        default="open", description="The target's cover as seen from the firer (P.12, P.40)."
    )
    in_position: bool = Field(default=False, description="Target in position (P.13).")
    target_size: int | None = Field(
        default=None, ge=1, le=5, description="The target's size class; default the roster's."
    )
    men_firing: int = Field(default=0, ge=0, le=60, description="small_arms: troopers firing.")
    small_arms_firepower: float = Field(
        default=0, ge=0, le=4, multiple_of=0.5, description="small_arms: weapon firepower (P.34)."
    )
    support_weapons: list[SupportWeapon] = Field(
        default_factory=list, max_length=10, description="small_arms: support weapons added."
    )
    armour_class: int | None = Field(
        default=None,
        ge=0,
        le=5,
        description="Armour class of the face hit; default the roster's (the front), 0 softskin.",
    )
    softskin_die: DieFaces = Field(default=6, description="A softskin's armour die (P.38).")
    suspension: SuspensionType = Field(description="The target's suspension (P.39).")
    occupant_ids: list[uuid.UUID] = Field(
        default_factory=list, description="Troopers aboard the target, crew and passengers."
    )

    @model_validator(mode="after")
    def _fits_the_fire(self) -> VehicleFireParams:
        fire = self.fire
        if fire != "guided_missile" and (self.distance is None) == (self.range_bands is None):
            raise ValueError("give the distance or the range in range bands: one of them")
        if fire == "heavy_weapon" and (
            self.weapon is None or self.weapon is HeavyWeapon.GMS or self.weapon_size is None
        ):
            raise ValueError("heavy_weapon fire needs the weapon (not gms) and its weapon_size")
        if fire != "heavy_weapon" and self.weapon is not None:
            raise ValueError("weapon is for heavy_weapon fire (a guided missile is its size)")
        if fire == "guided_missile" and self.guidance_die is None:
            raise ValueError("guided_missile fire needs the missile's guidance_die")
        if fire == "guided_missile" and self.weapon_size not in (None, 1, 2):
            raise ValueError("a GMS is size 1 (GMS/L) or 2 (GMS/H), or left out for a GMS/P")
        if fire in ("unguided_rocket", "support_weapon", SMALL_ARMS) and self.impact_die is None:
            raise ValueError(f"{fire} fire needs the impact_die")
        if fire == "support_weapon" and self.firepower_die is None:
            raise ValueError("support_weapon fire needs its firepower_die")
        if fire == SMALL_ARMS and self.men_firing and not self.small_arms_firepower:
            raise ValueError("small_arms_firepower is needed when men fire small arms")
        return self


@event_type(VEHICLE_FIRED_EVENT, stream="battle")
class VehicleFired(EventPayload):
    """A unit fired at a vehicle: the target's die, the firer's dice and the result (SG2 P.37-40).
    A hit follows in ``battles.VehicleHit``."""

    battle_id: uuid.UUID
    turn: int = Field(ge=0)
    unit_id: uuid.UUID
    vehicle_id: uuid.UUID
    target_unit_id: uuid.UUID
    fire: FireKind
    weapon: str | None
    weapon_size: int | None
    distance: float | None
    range_band: int | None = Field(description="Inches; None for a guided missile (P.40).")
    range_bands: int | None
    cover: str
    in_position: bool
    target_size: int
    target_die: int
    ecm: bool = Field(description="True: the target rolled its ECM die (P.40).")
    target_roll: int
    firer_dice: list[int]
    firer_rolls: list[int]
    result: Literal["miss", "minor", "major", "no_effect", "suppression", "effective"]
    impact_die: int | None
    impact_multiplier: int | None
    suppression_before: int | None = None
    suppression_after: int | None = None
    penetrated: bool | None = Field(
        default=None,
        description="Small arms (P.37): whether the one penetration roll beat the armour; None "
        "when none was made.",
    )
    dice: list[DieRoll] = Field(default_factory=list)


def _level(value: str) -> SystemLevel:
    return SystemLevel[value.upper()]


@battle_action
class VehicleFire(BattleAction):
    """One weapon's fire, or a squad's small arms, at a vehicle (SG2 P.36-40).

    Dice: the target's die (range or ECM), the firer's quality die and second die (fire control,
    guidance, rocket or support firepower; for small arms the firepower and support dice); on a
    hit the ``vehicle_hit`` action's dice; for fully effective small arms at armour class 0-1
    the impact, the armour die, each occupant's armour die and P.40 D6s.
    """

    action = "vehicle_fire"
    Params = VehicleFireParams

    def _vehicle(self, ctx: BattleContext, params: VehicleFireParams) -> Vehicle:
        vehicle = Vehicle.objects.filter(pk=params.vehicle_id, campaign_id=ctx.campaign.id).first()
        if vehicle is None:
            raise CommandError("vehicle.not_found", "No such vehicle.", field="vehicle_id")
        return vehicle

    def _hit_params(self, ctx: BattleContext, params: VehicleFireParams, major: bool) -> Any:
        impact_die, multiplier, size = self._impact(params)
        return VehicleHitAction.Params.model_validate(
            {
                "battle_id": ctx.battle.id,
                "vehicle_id": params.vehicle_id,
                "impact_die": impact_die,
                "impact_multiplier": multiplier,
                "major_hit": major,
                "armour_class": params.armour_class,
                "softskin_die": params.softskin_die,
                "suspension": params.suspension,
                "weapon_size_class": size,
                "occupant_ids": params.occupant_ids,
            }
        )

    @staticmethod
    def _impact(params: VehicleFireParams) -> tuple[int, int, int | None]:
        """The impact die, its listed multiplier and the weapon's size class (P.30, P.38)."""
        if params.fire == "heavy_weapon":
            assert params.weapon is not None
            assert params.weapon_size is not None
            weapon = params.weapon
            size = params.weapon_size
            return weapon.base_impact.value, weapon.impact_multiplier(size), size
        if params.fire == "guided_missile":
            if params.weapon_size is None:  # GMS/P: D12, a support weapon's size (P.30)
                return Die.D12.value, 1, None
            gms = HeavyWeapon.GMS
            return (
                gms.base_impact.value,
                gms.impact_multiplier(params.weapon_size),
                params.weapon_size,
            )
        assert params.impact_die is not None
        return params.impact_die, params.impact_multiplier, params.weapon_size_class

    def check_action(self, ctx: BattleContext, params: VehicleFireParams) -> None:
        firer = ctx.participant(params.unit_id, field="unit_id")
        vehicle = self._vehicle(ctx, params)
        if vehicle.unit_id == firer.unit_id:
            raise CommandError(
                "action.invalid", "A unit cannot fire at its own vehicle.", field="vehicle_id"
            )
        firing = ctx.unit(firer.unit_id)
        if not may_act(UnitAction.FIRE, markers=firer.suppression, vehicle=is_vehicle_unit(firing)):
            raise RuleViolation(
                "suppression.suppressed",
                f"{firing.name} is suppressed ({markers_text(firer.suppression)}): it may not "
                "fire until its leader removes them (P.18).",
                field="unit_id",
            )
        vehicle_weapon = params.fire in ("heavy_weapon", "guided_missile") or params.mounted
        own = ctx.vehicles(firer.unit_id)
        if vehicle_weapon and own and all(v.state not in _FIRING_STATES for v in own):
            raise StateConflict(
                "vehicle.cannot_fire",
                f"{firing.name}'s vehicle is {own[0].state.replace('_', ' ')}: a vehicle with "
                "its systems out, disabled or destroyed fires no weapon (P.39).",
                field="unit_id",
            )
        # The target, its state and its occupants, as the vehicle_hit action checks them; a
        # weapon size the weapon does not come in is refused (P.29-30).
        VehicleHitAction().check_action(ctx, self._hit_params(ctx, params, major=False))
        # Refuses a fire out of range before any die.
        self._order(ctx, params, vehicle)

    @staticmethod
    def _target_size(params: VehicleFireParams, vehicle: Vehicle) -> int:
        return params.target_size if params.target_size is not None else vehicle.size

    def _band(self, ctx: BattleContext, params: VehicleFireParams, vehicle: Vehicle) -> int | None:
        quality = DirectFire._quality(ctx, params.unit_id)
        if params.fire == SMALL_ARMS:
            return quality.die.value
        return point_fire_range_band(
            PointFire(params.fire),
            quality=quality,
            target_size=self._target_size(params, vehicle),
            mounted=params.mounted,
        )

    def _bands(self, ctx: BattleContext, params: VehicleFireParams, vehicle: Vehicle) -> int | None:
        band = self._band(ctx, params, vehicle)
        if band is None:
            return None
        if params.range_bands is not None:
            return params.range_bands
        return range_bands(params.distance or 0, band)

    def _order(
        self, ctx: BattleContext, params: VehicleFireParams, vehicle: Vehicle
    ) -> PointFireOrder | FireOrder:
        quality = DirectFire._quality(ctx, params.unit_id)
        bands = self._bands(ctx, params, vehicle)
        cover = Cover[params.cover.upper()]
        if params.fire == SMALL_ARMS:
            small = FireOrder(
                quality=quality,
                bands=bands or 1,
                firepower=params.small_arms_firepower,
                men_firing=params.men_firing,
                support_dice=tuple(Die(w.firepower_die) for w in params.support_weapons),
                cover=cover,
                in_position=params.in_position,
            )
            range_die(bands=small.bands, cover=cover, in_position=params.in_position)
            firer_dice(small)
            return small
        order = PointFireOrder(
            fire=PointFire(params.fire),
            quality=quality,
            bands=bands or 1,
            cover=cover,
            in_position=params.in_position,
            fire_control=_level(params.fire_control),
            guidance=Die(params.guidance_die or 8),
            firepower=Die(params.firepower_die or 8),
            ecm=_level(params.ecm),
        )
        target_die(order)
        return order

    def resolve(self, ctx: BattleContext, params: VehicleFireParams, dice: DiceSource) -> list[Any]:
        vehicle = self._vehicle(ctx, params)
        order = self._order(ctx, params, vehicle)
        if isinstance(order, FireOrder):
            return self._small_arms(ctx, params, vehicle, order, dice)
        fired = resolve_point_fire(dice=dice, order=order)
        impact_die, multiplier, _ = self._impact(params)
        event = self._fired(ctx, params, vehicle, order.bands, fired.rolls)
        event.update(
            target_die=fired.target_die.die.value,
            ecm=fired.target_die.ecm,
            target_roll=fired.target_roll,
            firer_dice=[d.value for d in point_firer_dice(order)],
            firer_rolls=list(fired.firer_rolls),
            result=fired.result.value,
            impact_die=impact_die,
            impact_multiplier=multiplier,
        )
        events: list[Any] = [VehicleFired(**event)]
        if fired.hit:
            # The penetration and the occupants' dice are rolled for the vehicle.
            with rolling_for(dice, str(vehicle.id)):
                events += VehicleHitAction().resolve(
                    ctx, self._hit_params(ctx, params, major=fired.major), dice
                )
        return events

    def _fired(
        self,
        ctx: BattleContext,
        params: VehicleFireParams,
        vehicle: Vehicle,
        bands: int,
        rolls: tuple[Roll, ...],
    ) -> dict[str, Any]:
        band = self._band(ctx, params, vehicle)
        return {
            "battle_id": ctx.battle.id,
            "turn": ctx.battle.turn,
            "unit_id": params.unit_id,
            "vehicle_id": vehicle.id,
            "target_unit_id": vehicle.unit_id,
            "fire": params.fire,
            "weapon": params.weapon.value if params.weapon else None,
            "weapon_size": params.weapon_size,
            "distance": params.distance,
            "range_band": band,
            "range_bands": bands if band is not None else None,
            "cover": params.cover,
            "in_position": params.in_position,
            "target_size": self._target_size(params, vehicle),
            "dice": dice_json(rolls),
        }

    def _small_arms(
        self,
        ctx: BattleContext,
        params: VehicleFireParams,
        vehicle: Vehicle,
        order: FireOrder,
        dice: DiceSource,
    ) -> list[Any]:
        hit_params = self._hit_params(ctx, params, major=False)
        _, participant, occupants = VehicleHitAction()._state(ctx, hit_params)
        before = VehicleHitAction()._damage_before(ctx, vehicle)
        armour_class = params.armour_class if params.armour_class is not None else vehicle.armour
        armour = VehicleArmour(armour_class or 0, softskin_die=Die(params.softskin_die))
        impact = params.impact_die or 4  # required for small arms by the parameters
        fired = small_arms_fire_effect(dice=dice, order=order)
        markers = place_markers(
            participant.suppression, int(fire_suppresses(fired.effect, travel_mode=False))
        )
        event = self._fired(ctx, params, vehicle, order.bands, fired.rolls)
        event.update(
            target_die=fired.range_die.value,
            ecm=False,
            target_roll=fired.range_roll,
            firer_dice=[d.value for d in fired.firer_dice],
            firer_rolls=list(fired.firer_rolls),
            result=fired.effect.value,
            impact_die=impact,
            impact_multiplier=1,
            suppression_before=markers.before,
            suppression_after=markers.after,
        )
        if fired.effect is not FireEffect.EFFECTIVE or armour.armour_class >= 2:
            return [VehicleFired(**event)]  # suppression only; armour class 2+: no more (P.37)
        # The penetration and the occupants' dice are rolled for the vehicle.
        with rolling_for(dice, str(vehicle.id)):
            hit = small_arms_against_vehicle(
                dice=dice,
                impact=Die(impact),
                armour=armour,
                occupants=[figure_of(t) for t in occupants],
                status=before,
                environment=ctx.options.environment,
                double_disabled_is_destroyed=ctx.options.double_disabled_is_destroyed,
            )
        return [
            VehicleFired(**event, penetrated=hit.penetrated),
            self._small_arms_hit(ctx, params, vehicle, participant, occupants, before, armour, hit),
        ]

    @staticmethod
    def _small_arms_hit(
        ctx: BattleContext,
        params: VehicleFireParams,
        vehicle: Vehicle,
        participant: Participant,
        occupants: list[Trooper],
        before: VehicleStatus,
        armour: VehicleArmour,
        hit: SmallArmsVehicleOutcome,
    ) -> VehicleHit:
        """The ``battles.VehicleHit`` of a small-arms penetration roll (P.37): each occupant's
        dice are his armour die, then his P.40 D6."""
        assert hit.impact_score is not None
        assert hit.armour_score is not None
        taken = Rolls(hit.rolls)
        taken.take()  # impact
        taken.take()  # armour
        own: dict[str, list[Roll]] = {o.figure_id: [taken.take()] for o in hit.occupants}
        for o in hit.occupants:
            if o.change is not None and o.change.power_armour_roll is not None:
                own[o.figure_id].append(taken.take())
        by_id = {str(t.id): t for t in occupants}
        changes = [
            trooper_casualty(by_id[o.figure_id], o.change, own[o.figure_id])
            for o in hit.occupants
            if o.change is not None
        ]
        return VehicleHit(
            battle_id=ctx.battle.id,
            turn=ctx.battle.turn,
            vehicle_id=vehicle.id,
            unit_id=vehicle.unit_id,
            impact_die=params.impact_die or 4,
            impact_multiplier=1,
            major_hit=False,
            armour_class=armour.armour_class,
            suspension=params.suspension.value,
            impact_score=hit.impact_score,
            armour_score=hit.armour_score,
            location=None,
            suspension_impact_score=None,
            suspension_score=None,
            damage=hit.damage.value if hit.damage else None,
            damage_before=sorted(d.value for d in before.damage),
            damage_after=sorted(d.value for d in hit.status_after.damage),
            state_before=vehicle_state(before),
            state_after=vehicle_state(hit.status_after),
            save_above=None,
            occupants=[
                OccupantRecord(
                    trooper_id=uuid.UUID(o.figure_id),
                    armour_roll=o.armour_roll,
                    casualty=o.casualty,
                    severity_roll=None,
                )
                for o in hit.occupants
            ],
            casualties=changes,
            leaders_down=leaders_down(ctx, changes),
            bail_out=_bail_out(ctx, participant, hit.damage, before) if occupants else "",
            dice=dice_json(hit.rolls),
        )


_FIRE_TEXT = {
    "heavy_weapon": "heavy weapon",
    "guided_missile": "guided missile",
    "unguided_rocket": "unguided rocket",
    "support_weapon": "support weapon",
    SMALL_ARMS: "small arms",
}
_RESULT_TEXT = {
    "miss": "a miss",
    "minor": "a MINOR hit",
    "major": "a MAJOR hit",
    "no_effect": "no effect",
    "suppression": "suppression only",
    "effective": "fully effective: one penetration roll as a minor hit (P.37)",
}


def _weapon_text(p: dict[str, Any]) -> str:
    if p["weapon"]:
        return f"an {p['weapon'].upper()}/{p['weapon_size']}"
    if p["fire"] == "guided_missile":
        return {None: "a GMS/P", 1: "a GMS/L", 2: "a GMS/H"}[p["weapon_size"]]
    return _FIRE_TEXT[p["fire"]]


@register
class VehicleFireProjection(Projection):
    """The log lines of fire at vehicles, and the suppression small arms put on them."""

    name = "battles.vehicle_fire"
    version = 1

    @Projection.handles(VEHICLE_FIRED_EVENT)
    def vehicle_fired(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        after = p["suppression_after"]
        key = participant_key(p["battle_id"], p["target_unit_id"])
        if after is not None and rows.get(Participant, key) is not None:
            rows.update(Participant, key, suppression=after)
        firer = unit_name(rows, p["unit_id"])
        vehicle = rows.get(Vehicle, p["vehicle_id"])
        target = vehicle["name"] if vehicle else "a vehicle"
        if p["ecm"]:
            where = f"{p['cover']} cover; no range for a missile"
            die = f"ECM d{p['target_die']}"
        else:
            bands = p["range_bands"]
            where = (
                f'{bands} range band{"s" if bands != 1 else ""} of {p["range_band"]}", '
                f"{p['cover']} cover"
            )
            die = f"range d{p['target_die']}"
        if p["in_position"]:
            where += ", in position"
        scores = " + ".join(
            f"d{d} {face}" for d, face in zip(p["firer_dice"], p["firer_rolls"], strict=True)
        )
        line = (
            f"{firer} fired {_weapon_text(p)} at {target} (size {p['target_size']}, {where}): "
            f"{die} rolled {p['target_roll']} against {scores}: {_RESULT_TEXT[p['result']]}"
        )
        if p.get("penetrated") is not None:
            line += (
                "; the rounds penetrated: each occupant rolls his armour die, 1 dead, 2 wounded"
                if p["penetrated"]
                else "; the rounds did not penetrate"
            )
        if after is not None and after > p["suppression_before"]:
            line += f"; {target} is suppressed ({markers_text(after)})"
        log(rows, event, line + "." + dice_text(p["dice"]))
