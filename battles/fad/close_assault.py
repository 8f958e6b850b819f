"""Fast and Dirty close assaults as battle actions: ``fad_close_assault`` on an infantry unit
(FaD p.22) and ``fad_assault_vehicle`` on a vehicle (p.23).

The rules are :mod:`rules.fad.close_assault`. One action runs the whole assault to its end, as
the book resolves it in one go: the defenders' free shot, the Determine Victor rolls, the Kill
Table, an Overrun, and the fall back. The assault is recorded as ``battles.FadCloseAssaultFought``
(``battles.FadVehicleAssaulted``), and each unit's losses as the ``battles.FadLossesRecorded``
the rosters and the after-action already fold for ``fad_losses``. A squad wiped out by an Overrun
leaves the battle: its participant is marked routed, as the end of a battle marks routed units,
so it can take no further action; its figures wounded before the assault stay wounded (they are
losses already). The fall back itself is the players' to make on the table.

A pinned unit cannot start a close assault (p.24) unless it is Berserk (p.39), and a broken one
may not initiate one (p.13): both are refused before any die is rolled.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.after_action.fad_events import DamagedVehicle, FadLossesRecorded, LostFigure
from battles.fad import activation
from battles.fad import state as fad_state
from battles.fad.state import wound_result
from battles.models import Participant
from battles.projections import dice_text, log, participant_key, unit_name
from battles.suppression import is_vehicle_unit
from campaigns.events import DieRoll, dice_json
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Trooper, Unit, Vehicle
from rosters.projections import trooper_name
from rosters.vocabulary import TrooperStatus, VehicleState
from rules.dice import DiceSource, Die, Roll, rolling_for
from rules.fad import close_assault as rules
from rules.fad.activation import UnitAction
from rules.fad.close_assault import AssaultSide, AssaultTrait
from rules.fad.scales import Quality
from rules.fad.wounded import DamageEffect
from rules.rulesets import Ruleset

CLOSE_ASSAULT_EVENT = "battles.FadCloseAssaultFought"
VEHICLE_ASSAULT_EVENT = "battles.FadVehicleAssaulted"
MAX_FIGURES = 60

# Infantry armour ratings (FaD p.19), by the armour named on the roster.
ARMOUR_RATINGS = {
    "none": -2,
    "": -2,
    "light": 0,
    "improved": 1,
    "heavy": 2,
    "light power": 4,
    "heavy power": 6,
}


class SideParams(Params):
    """What one side brings to the assault beyond its roster."""

    figures: list[uuid.UUID] = Field(
        default_factory=list,
        max_length=MAX_FIGURES,
        description="The unit's figures in base contact with the enemy or in its line of sight, "
        "closest first (p.22): defensive fire hits and the owner's losses are taken in this order, "
        "then from the unit's other figures. Empty: every fit figure, in roster order.",
    )
    armour: int | None = Field(
        default=None,
        ge=-2,
        le=10,
        description="Armour rating (p.19); by default read from the figures' armour: none (or "
        "not named) -2, light 0, improved 1, heavy 2, light power 4, heavy power 6.",
    )
    power_armour: bool | None = Field(
        default=None, description="Wearing power armour (p.33); by default from the roster."
    )
    lacks_grenades: bool = Field(default=False, description="The No Grenades limitation.")
    assault_shotguns: int | None = Field(
        default=None, ge=0, le=MAX_FIGURES, description="By default counted from the figures."
    )
    flamethrowers: int | None = Field(
        default=None, ge=0, le=MAX_FIGURES, description="By default counted from the figures."
    )
    traits: list[AssaultTrait] = Field(default_factory=list, max_length=6)
    officer_leadership: int = Field(
        default=0, ge=0, le=5, description="An attached officer of the same branch (p.32)."
    )
    psionics: Literal[-2, 0, 2] = Field(default=0, description="Enhance +2, Degrade -2 (p.34).")
    legend: bool = Field(default=False, description="A Legend fights: counts a 6 (p.40).")
    brawlers: int = Field(default=0, ge=0, le=MAX_FIGURES, description="Brawlers (p.33).")


class DefensiveFireParams(Params):
    modifier: int = Field(
        default=0,
        ge=-30,
        le=30,
        description="The Fire Effect modifiers of p.18 summed, range from where the chargers "
        "started.",
    )
    damage: int = Field(ge=0, le=10, description="The best Damage rating firing (p.19).")
    cover: Literal["open", "partial", "hard"] = Field(
        default="open", description="The chargers' concealment: 3, 4 or 5 points a hit."
    )
    dice: Literal[1, 2] = Field(default=2, description="2 for a squad, 1 for one figure.")
    support_d6: int = Field(
        default=0,
        ge=0,
        le=5,
        description="Support weapons adding +1d6 Fire Effect (Flamethrower, Grenade Launcher).",
    )


class CloseAssaultParams(Params):
    unit_id: uuid.UUID = Field(description="The assaulting infantry unit.")
    target_id: uuid.UUID = Field(description="The infantry unit assaulted.")
    attacker: SideParams = Field(default_factory=SideParams)
    defender: SideParams = Field(default_factory=SideParams)
    defensive_fire: DefensiveFireParams | None = Field(
        default=None, description="The defenders' free shot (p.22); leave out if they cannot."
    )


class FigureLoss(EventPayload):
    trooper_id: uuid.UUID
    cause: Literal["defensive_fire", "kill_table", "overrun", "vehicle_assault"]
    result: Literal["killed", "wounded"]


class VictorRollRecord(EventPayload):
    faces: list[int]
    best: int
    modifiers: list[tuple[str, int]]
    total: int


class KillRollRecord(EventPayload):
    kill_number: int
    faces: list[int]
    kills: int = Field(ge=0)
    negation_faces: list[int] = Field(default_factory=list)
    casualties: int = Field(ge=0)


@event_type(CLOSE_ASSAULT_EVENT, stream="battle")
class FadCloseAssaultFought(EventPayload):
    """An infantry close assault fought to its end (FaD p.22): defensive fire, the victor rolls,
    the Kill Table or an Overrun, and the fall back. Losses follow in FadLossesRecorded."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    target_id: uuid.UUID
    turn: int = Field(ge=0)
    fire_effect: int | None = None
    fire_faces: list[int] = Field(default_factory=list)
    fire_support_faces: list[int] = Field(default_factory=list)
    fire_hits: int = Field(default=0, ge=0)
    attacker_fighting: int = Field(ge=0)
    defender_fighting: int = Field(ge=0)
    attacker_roll: VictorRollRecord | None
    defender_roll: VictorRollRecord | None
    result: Literal["attacker_won", "defender_won", "draw", "no_contest"]
    overrun: list[Literal["attacker", "defender"]] = Field(default_factory=list)
    attacker_kills: KillRollRecord | None = None
    defender_kills: KillRollRecord | None = None
    attacker_falls_back: int = Field(ge=0)
    defender_falls_back: int = Field(ge=0)
    losses: list[FigureLoss] = Field(default_factory=list)
    dice: list[DieRoll] = Field(default_factory=list)


def _quality(unit: Unit, field: str) -> Quality:
    try:
        return Quality[unit.quality.upper()]
    except KeyError:
        raise StateConflict(
            "close_assault.no_quality",
            f"{unit.name} has no Fast and Dirty quality on the roster (p.6).",
            field=field,
        ) from None


def _check_attacker(
    ctx: BattleContext, unit_id: uuid.UUID, traits: Sequence[AssaultTrait]
) -> tuple[Participant, Unit]:
    """An infantry unit able to start a close assault: not a sniper (p.37), not pinned (p.24; a
    Berserk unit ignores it, p.39, and so does a Relentless one, p.41, its traits read from the
    roster and the mission bonuses given in this battle), not broken (p.13)."""
    participant = ctx.participant(unit_id, field="unit_id")
    unit = ctx.unit(unit_id)
    if is_vehicle_unit(unit):
        raise RuleViolation(
            "close_assault.not_infantry",
            f"{unit.name} is a vehicle: only infantry units may close assault (p.22).",
            field="unit_id",
        )
    fit = [t for t in ctx.troopers(unit_id) if t.status == TrooperStatus.FIT]
    if fit and all("sniper" in t.weapon.lower() for t in fit):
        raise RuleViolation(
            "close_assault.sniper",
            f"{unit.name} is a sniper: snipers cannot initiate a close assault (p.37).",
            field="unit_id",
        )
    # Relentless troops ignore Pinned (p.41); Berserk ones may charge all the same (p.39).
    pinned = fad_state.marker_in_effect(ctx, participant, unit) == "pinned"
    berserk = AssaultTrait.BERSERK in traits or "berserk" in fad_state.battle_traits(ctx, unit)
    if pinned and not berserk:
        raise RuleViolation(
            "close_assault.pinned",
            f"{unit.name} is pinned: it cannot start a close assault (p.24).",
            field="unit_id",
        )
    if participant.broken:
        raise RuleViolation(
            "close_assault.broken",
            f"{unit.name} is broken: it cannot initiate a close assault (p.13).",
            field="unit_id",
        )
    return participant, unit


def _fit(ctx: BattleContext, unit_id: uuid.UUID) -> list[Trooper]:
    return [t for t in ctx.troopers(unit_id) if t.status == TrooperStatus.FIT]


def _ordered(
    ctx: BattleContext, unit_id: uuid.UUID, named: Sequence[uuid.UUID], where: str
) -> tuple[list[Trooper], list[Trooper]]:
    """The unit's named figures (checked), then the rest of its fit figures in roster order."""
    fit = {t.id: t for t in _fit(ctx, unit_id)}
    troopers = {t.id: t for t in ctx.troopers(unit_id)}
    if not fit:
        raise StateConflict(
            "close_assault.no_figures",
            "That unit has no figure left to fight.",
            field=f"{where}.figures" if where else "unit_id",
        )
    chosen: list[Trooper] = []
    for index, trooper_id in enumerate(named):
        at = f"{where}.figures.{index}" if where else f"figures.{index}"
        if trooper_id not in troopers:
            raise CommandError("close_assault.not_in_unit", "Not a figure of the unit.", field=at)
        if trooper_id not in fit:
            raise StateConflict(
                "close_assault.not_fit",
                f"{troopers[trooper_id].name} is {troopers[trooper_id].status}: he cannot fight.",
                field=at,
            )
        if fit[trooper_id] in chosen:
            raise CommandError("close_assault.named_twice", "A figure named twice.", field=at)
        chosen.append(fit[trooper_id])
    if not chosen:
        chosen = list(fit.values())
    rest = [t for t in fit.values() if t not in chosen]
    return chosen, rest


def _armour(troopers: Sequence[Trooper], side: SideParams, unit: Unit, where: str) -> int:
    if side.armour is not None:
        return side.armour
    ratings = {
        ARMOUR_RATINGS.get(t.armour.strip().lower().removesuffix("armour").strip())
        for t in troopers
    }
    if None in ratings or len(ratings) != 1:
        raise StateConflict(
            "close_assault.armour_unknown",
            f"{unit.name}'s armour does not give one rating of p.19: give its armour.",
            field=f"{where}.armour",
        )
    return ratings.pop() or 0


def _weapons(troopers: Sequence[Trooper], word: str) -> int:
    return sum(1 for t in troopers if word in t.weapon.lower().replace(" ", ""))


def _squad(
    unit: Unit, fighting: list[Trooper], rest: list[Trooper], side: SideParams, where: str
) -> rules.Squad:
    power = (
        side.power_armour
        if side.power_armour is not None
        else any(t.power_armour for t in fighting)
    )
    return rules.Squad(
        fighting=len(fighting),
        strength=len(fighting) + len(rest),
        quality=_quality(unit, f"{where}"),
        armour=_armour(fighting, side, unit, where),
        individual=len(fighting) + len(rest) == 1,
        power_armour=power,
        lacks_grenades=side.lacks_grenades,
        assault_shotguns=(
            side.assault_shotguns
            if side.assault_shotguns is not None
            else _weapons(fighting, "shotgun")
        ),
        flamethrowers=(
            side.flamethrowers
            if side.flamethrowers is not None
            else _weapons(fighting, "flamethrower")
        ),
        traits=frozenset(side.traits),
        officer_leadership=side.officer_leadership,
        other_modifier=side.psionics,
        legend=side.legend,
        brawlers=side.brawlers,
    )


class _DefendersDice:
    """The dice of an assault, each for the side that rolls it: the defensive fire (but the
    chargers' armour dice), the defenders' victor, kill and power-armour dice, and a vehicle's
    defence die are the defending unit's, so a dice prompt names it and keyed table dice take
    its faces."""

    def __init__(self, dice: DiceSource, defender_id: uuid.UUID) -> None:
        self._dice = dice
        self._defender = str(defender_id)

    def roll(self, die: Die, purpose: str) -> Roll:
        defenders = (
            "defender's" in purpose
            or purpose == "vehicle assault: defence"
            or (purpose.startswith("defensive fire") and not purpose.endswith("armour"))
        )
        if not defenders:
            return self._dice.roll(die, purpose)
        with rolling_for(self._dice, self._defender):
            return self._dice.roll(die, purpose)


def _result(effect: DamageEffect) -> Literal["killed", "wounded"]:
    return "killed" if effect is DamageEffect.KILLED else "wounded"


@battle_action
class FadCloseAssault(BattleAction):
    """An infantry unit's close assault on an infantry unit, fought to its end (FaD p.22).

    Dice: the defensive fire (2d6 or 1d6, then two d6 a hit), the attacker's victor dice, the
    defender's, the attacker's Kill Table dice and the defender's power-armour dice against them,
    then the defender's Kill Table dice and the attacker's power-armour dice.
    """

    action = "fad_close_assault"
    rulesets = (Ruleset.FAD.value,)
    Params = CloseAssaultParams

    def check_action(self, ctx: BattleContext, params: CloseAssaultParams) -> None:
        attacker, _ = _check_attacker(ctx, params.unit_id, params.attacker.traits)
        target = ctx.participant(params.target_id, field="target_id")
        if target.unit_id == attacker.unit_id:
            raise CommandError(
                "close_assault.itself", "A unit cannot assault itself.", field="target_id"
            )
        if target.side == attacker.side:
            raise CommandError(
                "close_assault.same_side",
                "That unit fights on the same side.",
                field="target_id",
            )
        if is_vehicle_unit(ctx.unit(params.target_id)):
            raise CommandError(
                "close_assault.target_is_vehicle",
                "That unit is a vehicle: assault it with fad_assault_vehicle (p.23).",
                field="target_id",
            )
        self._sides(ctx, params)
        # The defenders' free shot is part of the assault, not an action of theirs (p.22).
        activation.check_unit_action(ctx, params.unit_id, UnitAction.CLOSE_ASSAULT)

    def _sides(
        self, ctx: BattleContext, params: CloseAssaultParams
    ) -> tuple[rules.Squad, rules.Squad, list[Trooper], list[Trooper]]:
        squads = []
        orders = []
        for unit_id, side, where in (
            (params.unit_id, params.attacker, "attacker"),
            (params.target_id, params.defender, "defender"),
        ):
            unit = ctx.unit(unit_id)
            fighting, rest = _ordered(ctx, unit_id, side.figures, where)
            # Assault traits the unit has in this battle (its roster's, a mission's bonus: Assault
            # Troops p.62, Shock Troops p.63) count as if the table had named them.
            known = [t for t in AssaultTrait if t.value in fad_state.battle_traits(ctx, unit)]
            side = side.model_copy(update={"traits": list(dict.fromkeys([*side.traits, *known]))})
            squads.append(_squad(unit, fighting, rest, side, where))
            orders.append(fighting + rest)
        return squads[0], squads[1], orders[0], orders[1]

    def resolve(
        self, ctx: BattleContext, params: CloseAssaultParams, dice: DiceSource
    ) -> list[Any]:
        attacker, defender, attackers, defenders = self._sides(ctx, params)
        options = ctx.options
        fire = params.defensive_fire
        outcome = rules.close_assault(
            dice=_DefendersDice(dice, params.target_id),
            attacker=attacker,
            defender=defender,
            fire=(
                None
                if fire is None
                else rules.DefensiveFire(
                    modifier=fire.modifier,
                    damage=fire.damage,
                    cover=fire.cover,
                    dice=fire.dice,
                    support_d6=fire.support_d6,
                )
            ),
            assault_no_grenades_penalty=options.assault_no_grenades_penalty,
            assault_overrun_edge=options.assault_overrun_edge,
            adv_recover_wounded=options.adv_recover_wounded,
        )
        effect = _result(
            rules.assault_casualty_effect(
                adv_recover_wounded=options.adv_recover_wounded,
                assault_casualties_are_kills=options.assault_casualties_are_kills,
            )
        )
        losses: dict[AssaultSide, list[FigureLoss]] = {side: [] for side in AssaultSide}
        downed: set[int] = set()
        if outcome.defensive_fire is not None:
            for hit in outcome.defensive_fire.results:
                if hit.effect is DamageEffect.NO_EFFECT:
                    continue
                downed.add(hit.position)
                losses[AssaultSide.ATTACKER].append(
                    FigureLoss(
                        trooper_id=attackers[hit.position].id,
                        cause="defensive_fire",
                        result=_result(hit.effect),
                    )
                )
        standing = {
            AssaultSide.ATTACKER: [t for i, t in enumerate(attackers) if i not in downed],
            AssaultSide.DEFENDER: defenders,
        }
        units = {AssaultSide.ATTACKER: params.unit_id, AssaultSide.DEFENDER: params.target_id}
        for side in AssaultSide:
            if side in outcome.overrun:
                losses[side] = [
                    FigureLoss(trooper_id=loss.trooper_id, cause="overrun", result="killed")
                    if loss.result == "wounded"
                    else loss
                    for loss in losses[side]
                ]
                losses[side] += [
                    FigureLoss(trooper_id=t.id, cause="overrun", result=effect)
                    for t in standing[side]
                ]
            else:
                losses[side] += [
                    FigureLoss(trooper_id=t.id, cause="kill_table", result=effect)
                    for t in standing[side][: outcome.casualties[side]]
                ]
        events: list[Any] = [self._fought(ctx, params, outcome, losses, defender.fighting)]
        for side in AssaultSide:
            if losses[side]:
                events.append(_losses_recorded(ctx, units[side], losses[side]))
        return events

    @staticmethod
    def _fought(
        ctx: BattleContext,
        params: CloseAssaultParams,
        outcome: rules.CloseAssaultOutcome,
        losses: dict[AssaultSide, list[FigureLoss]],
        defender_fighting: int,
    ) -> FadCloseAssaultFought:
        fired = outcome.defensive_fire

        def victor(roll: rules.VictorRoll | None) -> VictorRollRecord | None:
            if roll is None:
                return None
            return VictorRollRecord(
                faces=list(roll.faces),
                best=roll.best,
                modifiers=list(roll.modifiers),
                total=roll.total,
            )

        def kills(side: AssaultSide) -> KillRollRecord | None:
            found = outcome.kill_rolls.get(side)
            if found is None:
                return None
            return KillRollRecord(
                kill_number=found.kill_number,
                faces=list(found.faces),
                kills=found.kills,
                negation_faces=list(found.negation_faces),
                casualties=found.casualties,
            )

        return FadCloseAssaultFought(
            battle_id=ctx.battle.id,
            unit_id=params.unit_id,
            target_id=params.target_id,
            turn=ctx.battle.turn,
            fire_effect=None if fired is None else fired.fire_effect,
            fire_faces=[] if fired is None else list(fired.faces),
            fire_support_faces=[] if fired is None else list(fired.support_faces),
            fire_hits=0 if fired is None else fired.hits,
            attacker_fighting=outcome.attacker_fighting,
            defender_fighting=defender_fighting,
            attacker_roll=victor(outcome.attacker_roll),
            defender_roll=victor(outcome.defender_roll),
            result=outcome.result.value,
            overrun=[side.value for side in outcome.overrun],
            attacker_kills=kills(AssaultSide.ATTACKER),
            defender_kills=kills(AssaultSide.DEFENDER),
            attacker_falls_back=outcome.fall_back[AssaultSide.ATTACKER],
            defender_falls_back=outcome.fall_back[AssaultSide.DEFENDER],
            losses=[*losses[AssaultSide.ATTACKER], *losses[AssaultSide.DEFENDER]],
            dice=dice_json(outcome.rolls),
        )


def _losses_recorded(
    ctx: BattleContext,
    unit_id: uuid.UUID,
    losses: Sequence[FigureLoss],
    vehicles: Sequence[DamagedVehicle] = (),
) -> FadLossesRecorded:
    status = {t.id: t.status for t in ctx.troopers(unit_id)}
    return FadLossesRecorded(
        battle_id=ctx.battle.id,
        unit_id=unit_id,
        turn=ctx.battle.turn,
        cause="close_assault",
        troopers=[
            LostFigure(
                trooper_id=loss.trooper_id,
                result=wound_result(ctx, loss.trooper_id, loss.result),
                status_before=status[loss.trooper_id],
            )
            for loss in losses
        ],
        vehicles=list(vehicles),
    )


# --- assaulting a vehicle ----------------------------------------------------------------------


class VehicleAssaultParams(Params):
    unit_id: uuid.UUID = Field(description="The assaulting infantry unit.")
    vehicle_id: uuid.UUID = Field(description="The vehicle assaulted.")
    figures: list[uuid.UUID] = Field(
        default_factory=list,
        max_length=MAX_FIGURES,
        description="The figures in base contact with the vehicle (p.23); empty: every fit one.",
    )
    lacks_grenades: bool = False
    assault_shotguns: int | None = Field(default=None, ge=0, le=MAX_FIGURES)
    flamethrowers: int | None = Field(default=None, ge=0, le=MAX_FIGURES)
    traits: list[AssaultTrait] = Field(default_factory=list, max_length=6)
    officer_leadership: int = Field(default=0, ge=0, le=5)
    psionics: Literal[-2, 0, 2] = 0
    weakest_armour: int | None = Field(
        default=None, ge=0, le=20, description="By default the vehicle's armour on the roster."
    )
    armoured: bool | None = Field(
        default=None,
        description="Armoured, so the squad tests its Nerves of Steel; by default when its "
        "weakest armour is above 0.",
    )
    light_transport: bool | None = Field(
        default=None, description="An unarmoured light transport; by default when unarmoured."
    )
    moved_last_activation: bool = Field(
        default=False, description="The vehicle moved in its last activation (p.23, driver)."
    )
    crew: list[uuid.UUID] = Field(
        default_factory=list,
        max_length=10,
        description="Its crew, in the order they fall (the driver first); by default the fit "
        "figures of a vehicle unit, none otherwise.",
    )
    passengers_unit_id: uuid.UUID | None = Field(
        default=None, description="The unit carried, all killed if the vehicle is destroyed."
    )


@event_type(VEHICLE_ASSAULT_EVENT, stream="battle")
class FadVehicleAssaulted(EventPayload):
    """An infantry squad's close assault on a vehicle (FaD p.23): its Nerves of Steel, the attack
    and defence dice and the damage. Losses follow in FadLossesRecorded."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    vehicle_id: uuid.UUID
    vehicle_unit_id: uuid.UUID
    turn: int = Field(ge=0)
    nerves_face: int | None = None
    nerves_needed: int | None = None
    faltered: bool = False
    attack_faces: list[int] = Field(default_factory=list)
    modifiers: list[tuple[str, int]] = Field(default_factory=list)
    defence_face: int | None = None
    weakest_armour: int = Field(ge=0)
    defence: int | None = None
    successes: int = Field(default=0, ge=0)
    damage_faces: list[int] = Field(default_factory=list)
    damage: list[str] = Field(default_factory=list)
    crew_killed: list[uuid.UUID] = Field(default_factory=list)
    immobilised: bool = False
    destroyed: bool = False
    passengers_killed: list[uuid.UUID] = Field(default_factory=list)
    dice: list[DieRoll] = Field(default_factory=list)


@battle_action
class FadAssaultVehicle(BattleAction):
    """An infantry unit's close assault on a vehicle (FaD p.23). Dice: Nerves of Steel (an
    armoured vehicle), one attack d6 per figure in base contact, the defence d6, then a d6 per
    damage roll."""

    action = "fad_assault_vehicle"
    rulesets = (Ruleset.FAD.value,)
    Params = VehicleAssaultParams

    def check_action(self, ctx: BattleContext, params: VehicleAssaultParams) -> None:
        self._parts(ctx, params)
        activation.check_unit_action(ctx, params.unit_id, UnitAction.CLOSE_ASSAULT)

    def _parts(
        self, ctx: BattleContext, params: VehicleAssaultParams
    ) -> tuple[
        rules.VehicleAssaulters, rules.AssaultedVehicle, Vehicle, list[Trooper], list[Trooper]
    ]:
        attacker, unit = _check_attacker(ctx, params.unit_id, params.traits)
        vehicle = Vehicle.objects.filter(pk=params.vehicle_id, campaign_id=ctx.campaign.id).first()
        if vehicle is None or vehicle.unit_id not in ctx.participants:
            raise CommandError(
                "close_assault.no_such_vehicle",
                "That vehicle is not in this battle.",
                field="vehicle_id",
            )
        owner = ctx.participant(vehicle.unit_id, field="vehicle_id")
        if owner.side == attacker.side:
            raise CommandError(
                "close_assault.same_side", "That vehicle is on the same side.", field="vehicle_id"
            )
        if vehicle.state == VehicleState.DESTROYED:
            raise StateConflict(
                "close_assault.vehicle_destroyed",
                f"{vehicle.name} is destroyed already.",
                field="vehicle_id",
            )
        fighting, _ = _ordered(ctx, params.unit_id, params.figures, "")
        weakest = params.weakest_armour if params.weakest_armour is not None else vehicle.armour
        weakest = weakest or 0
        armoured = params.armoured if params.armoured is not None else weakest > 0
        vehicle_unit = ctx.unit(vehicle.unit_id)
        crew = self._crew(ctx, params, vehicle_unit)
        passengers: list[Trooper] = []
        if params.passengers_unit_id is not None:
            carried = ctx.participant(params.passengers_unit_id, field="passengers_unit_id")
            if carried.side != owner.side:
                raise CommandError(
                    "close_assault.not_passengers",
                    "The passengers are of the vehicle's side.",
                    field="passengers_unit_id",
                )
            # The crew die with the vehicle as crew; figures wounded before are losses already.
            passengers = [t for t in _fit(ctx, params.passengers_unit_id) if t not in crew]
        squad = rules.VehicleAssaulters(
            in_contact=len(fighting),
            quality=_quality(unit, "unit_id"),
            lacks_grenades=params.lacks_grenades,
            assault_shotguns=(
                params.assault_shotguns
                if params.assault_shotguns is not None
                else _weapons(fighting, "shotgun")
            ),
            flamethrowers=(
                params.flamethrowers
                if params.flamethrowers is not None
                else _weapons(fighting, "flamethrower")
            ),
            traits=frozenset(params.traits),
            officer_leadership=params.officer_leadership,
            other_modifier=params.psionics,
        )
        target = rules.AssaultedVehicle(
            weakest_armour=weakest,
            crew=len(crew),
            armoured=armoured,
            light_transport=(
                params.light_transport if params.light_transport is not None else not armoured
            ),
            moved_last_activation=params.moved_last_activation,
            immobilised=vehicle.state != VehicleState.OPERATIONAL,
        )
        return squad, target, vehicle, crew, passengers

    @staticmethod
    def _crew(
        ctx: BattleContext, params: VehicleAssaultParams, vehicle_unit: Unit
    ) -> list[Trooper]:
        fit = {t.id: t for t in _fit(ctx, vehicle_unit.id)}
        if not params.crew:
            return list(fit.values()) if is_vehicle_unit(vehicle_unit) else []
        crew = []
        for index, trooper_id in enumerate(params.crew):
            if trooper_id not in fit or fit[trooper_id] in crew:
                raise CommandError(
                    "close_assault.not_crew",
                    "Name each crewman once, a fit figure of the vehicle's unit.",
                    field=f"crew.{index}",
                )
            crew.append(fit[trooper_id])
        return crew

    def resolve(
        self, ctx: BattleContext, params: VehicleAssaultParams, dice: DiceSource
    ) -> list[Any]:
        squad, target, vehicle, crew, passengers = self._parts(ctx, params)
        outcome = rules.assault_vehicle(
            dice=_DefendersDice(dice, vehicle.unit_id),
            squad=squad,
            vehicle=target,
            assault_no_grenades_penalty=ctx.options.assault_no_grenades_penalty,
        )
        killed = crew[: outcome.crew_killed]
        if outcome.destroyed:
            killed = crew
        lost_passengers = passengers if outcome.destroyed else []
        nerves = outcome.nerves
        events: list[Any] = [
            FadVehicleAssaulted(
                battle_id=ctx.battle.id,
                unit_id=params.unit_id,
                vehicle_id=vehicle.id,
                vehicle_unit_id=vehicle.unit_id,
                turn=ctx.battle.turn,
                nerves_face=None if nerves is None else nerves.face,
                nerves_needed=None if nerves is None else nerves.needed,
                faltered=outcome.faltered,
                attack_faces=list(outcome.attack_faces),
                modifiers=list(outcome.modifiers),
                defence_face=outcome.defence_face,
                weakest_armour=target.weakest_armour,
                defence=outcome.defence,
                successes=outcome.successes,
                damage_faces=list(outcome.damage_faces),
                damage=[d.value for d in outcome.damage],
                crew_killed=[t.id for t in killed],
                immobilised=outcome.immobilised and not target.immobilised,
                destroyed=outcome.destroyed,
                passengers_killed=[t.id for t in lost_passengers],
                dice=dice_json(outcome.rolls),
            )
        ]
        damaged: list[DamagedVehicle] = []
        if outcome.destroyed or (outcome.immobilised and not target.immobilised):
            damaged.append(
                DamagedVehicle(
                    vehicle_id=vehicle.id,
                    condition="destroyed" if outcome.destroyed else "damaged",
                    state_before=vehicle.state,
                )
            )
        # One record of losses a unit: the crew's with the vehicle, the passengers' with theirs.
        lost: dict[uuid.UUID, list[FigureLoss]] = {vehicle.unit_id: []}
        for trooper in [*killed, *lost_passengers]:
            lost.setdefault(trooper.unit_id, []).append(
                FigureLoss(trooper_id=trooper.id, cause="vehicle_assault", result="killed")
            )
        for unit_id, figures in lost.items():
            vehicles = damaged if unit_id == vehicle.unit_id else []
            if figures or vehicles:
                events.append(_losses_recorded(ctx, unit_id, figures, vehicles))
        return events


# --- the battle log ----------------------------------------------------------------------------


def _modifiers_text(modifiers: list[list[Any]] | list[tuple[str, int]]) -> str:
    if not modifiers:
        return ""
    return " (" + ", ".join(f"{name} {value:+d}" for name, value in modifiers) + ")"


_RESULT = {
    "attacker_won": "{attacker} won",
    "defender_won": "{defender} held and won",
    "draw": "a draw",
}


def _kills_text(name: str, kills: dict[str, Any] | None, enemy: str) -> str:
    if kills is None:
        return ""
    text = (
        f"{name} rolled {len(kills['faces'])} kill dice needing {kills['kill_number']}+: "
        f"{kills['kills']} kill{'s' if kills['kills'] != 1 else ''}"
    )
    if kills["negation_faces"]:
        negated = sum(1 for face in kills["negation_faces"] if face >= 5)
        text += f", {enemy}'s power armour negated {negated}"
    return text + f", {kills['casualties']} of {enemy} down"


@register
class FadCloseAssaultProjection(Projection):
    """The log lines of Fast and Dirty close assaults, and the participant of a squad wiped out
    by an Overrun (rows of the battles projection)."""

    name = "battles.fad_close_assault"
    version = 1

    @Projection.handles(CLOSE_ASSAULT_EVENT)
    def fought(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        names = {
            "attacker": unit_name(rows, p["unit_id"]),
            "defender": unit_name(rows, p["target_id"]),
        }
        for side in p["overrun"]:
            unit_id = p["unit_id"] if side == "attacker" else p["target_id"]
            key = participant_key(p["battle_id"], unit_id)
            if rows.get(Participant, key) is not None:
                rows.update(Participant, key, status=Participant.Status.ROUTED.value)
        parts = [f"{names['attacker']} charged {names['defender']} in close assault (p.22)"]
        if p["fire_effect"] is not None:
            fallen = [x for x in p["losses"] if x["cause"] == "defensive_fire"]
            told = ", ".join(f"{trooper_name(rows, x['trooper_id'])} {x['result']}" for x in fallen)
            parts.append(
                f"defensive fire: Fire Effect {p['fire_effect']} "
                f"({_faces_text(p['fire_faces'])}{_support_text(p['fire_support_faces'])}), "
                f"{p['fire_hits']} "
                f"hit{'s' if p['fire_hits'] != 1 else ''}" + (f": {told}" if told else "")
            )
        if p["result"] == "no_contest":
            parts.append(f"no charging figure of {names['attacker']} reached the enemy")
        else:
            rolls = [
                _victor_text(names["attacker"], p["attacker_roll"]),
                _victor_text(names["defender"], p["defender_roll"]),
            ]
            parts.extend(rolls)
            parts.append(_RESULT[p["result"]].format(**names))
            if len(p["overrun"]) == 2:
                parts.append("each scored twice the other's total: both squads are wiped out")
            elif p["overrun"]:
                loser = p["overrun"][0]
                parts.append(f"Overrun: {names[loser]} is wiped out")
            for side, other in (("attacker", "defender"), ("defender", "attacker")):
                told = _kills_text(names[side], p[f"{side}_kills"], names[other])
                if told:
                    parts.append(told)
            for side in ("attacker", "defender"):
                inches = p[f"{side}_falls_back"]
                if inches:
                    parts.append(f'{names[side]} falls back {inches}"')
        log(rows, event, "; ".join(parts) + "." + dice_text(p["dice"]))

    @Projection.handles(VEHICLE_ASSAULT_EVENT)
    def vehicle_assaulted(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        squad = unit_name(rows, p["unit_id"])
        vehicle = rows.get(Vehicle, p["vehicle_id"])
        target = vehicle["name"] if vehicle else "the vehicle"
        parts = [f"{squad} assaulted {target} (p.23)"]
        if p["nerves_face"] is not None:
            passed = "passed" if not p["faltered"] else "failed: the assault falters"
            parts.append(
                f"Nerves of Steel {p['nerves_face']} needing {p['nerves_needed']}+ {passed}"
            )
        if not p["faltered"]:
            parts.append(
                f"attack dice {', '.join(str(f) for f in p['attack_faces'])}"
                f"{_modifiers_text(p['modifiers'])} against defence {p['defence']} "
                f"(d6 {p['defence_face']} + weakest armour {p['weakest_armour']}): "
                f"{p['successes']} success{'es' if p['successes'] != 1 else ''}"
            )
            for face, damage in zip(p["damage_faces"], p["damage"], strict=True):
                parts.append(f"damage {face}: {damage.replace('_', ' ')}")
            if p["destroyed"]:
                parts.append(f"{target} is destroyed")
            elif p["immobilised"]:
                parts.append(f"{target} is immobilised")
            if p["crew_killed"]:
                parts.append(
                    "crew killed: " + ", ".join(trooper_name(rows, t) for t in p["crew_killed"])
                )
            if p["passengers_killed"]:
                parts.append(f"all {len(p['passengers_killed'])} passengers killed")
        log(rows, event, "; ".join(parts) + "." + dice_text(p["dice"]))


def _victor_text(name: str, roll: dict[str, Any]) -> str:
    told = _faces_text(roll["faces"]) if roll["faces"] else "a Legend's 6"
    modifiers = "".join(f", {n} {v:+d}" for n, v in roll["modifiers"])
    return f"{name} scored {roll['total']} ({told}{modifiers})"


def _faces_text(faces: list[int]) -> str:
    """``rolled 4`` for one die, ``best of 4 and 2`` for two (the higher is kept)."""
    if len(faces) == 1:
        return f"rolled {faces[0]}"
    return "best of " + " and ".join(str(face) for face in faces)


def _support_text(faces: list[int]) -> str:
    """`` + support weapons 3, 5`` when support weapons added a d6 each to the Fire Effect."""
    if not faces:
        return ""
    return ", support weapons +" + " +".join(str(face) for face in faces)
