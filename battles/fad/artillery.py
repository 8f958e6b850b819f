"""Fast and Dirty indirect artillery fire in a battle (FaD p.30, advanced rule; the blast of
p.21): ``fad_artillery_call`` and ``fad_artillery_strike``.

The rules are :mod:`rules.fad.artillery`; the strike on each unit is the blast procedure of
:mod:`battles.fad.shooting` (Strike Effect, hits, damage, marker). The book's flow:

- ``fad_artillery_call``: an officer, an infantry squad leader, or a vehicle with Command
  Vehicle or Forward Observer (p.42-43) calls an off-board artillery unit of its side as its
  Command action. The timing test (3d6 against the artillery unit's Quality) decides whether
  the strike arrives; if it does, the accuracy test (2d6 against the spotter's Quality) and the
  scatter say where it lands. The event names the strike.
- ``fad_artillery_strike``: the table places the blast where the strike landed and measures
  which units have figures inside its radius (p.21); each such unit, friend or foe, takes the
  strike in one action: 2d6 Strike Effect, hits, damage, and Under Fire or Pinned.

The strike arrives at once (p.30): nothing waits on an Inbound Chart as SG2 fire missions do, so
no battle row holds it. A strike is resolved in the turn it was called, once per unit; an
artillery unit takes one call a turn and none once out of contact. All of this is read from the
battle's own events (like the losses in :mod:`battles.fad.state`), and the battle log tells it.
The scenario names the artillery units (p.30): the first call to one records its weapon and
Quality; later calls must name the same.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.fad import activation, state
from battles.fad.shooting import (
    FadShootingProjection,
    InfantryDamage,
    Modifier,
    check_target_order,
    damage_text,
    infantry_damage,
    marker_text,
    target_figures,
)
from battles.projections import dice_text, log, unit_name
from battles.suppression import is_vehicle_unit
from campaigns.events import DieRoll, dice_json
from eventlog.catalogue import EventPayload, event_type
from eventlog.commands import new_id
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.vocabulary import TrooperRole, TrooperStatus
from rules.dice import DiceSource
from rules.errors import RuleError
from rules.fad.activation import UnitAction
from rules.fad.artillery import (
    Timing,
    call_artillery,
    check_battery_call,
    strike_weapon,
)
from rules.fad.scales import Quality
from rules.fad.shooting import Concealment, strike_effect
from rules.fad.weapons import Armour, Weapon
from rules.rulesets import Ruleset

CALLED_EVENT = "battles.FadArtilleryCalled"
STRUCK_EVENT = "battles.FadArtilleryStruck"
QualityName = Literal["rabble", "conscript", "regular", "elite"]


# --- fad_artillery_call -------------------------------------------------------------------------


class CallParams(Params):
    unit_id: uuid.UUID = Field(description="The unit whose officer or squad leader calls.")
    battery: str = Field(
        min_length=1,
        max_length=60,
        description="The off-board artillery unit called, as the scenario names it (p.30).",
    )
    weapon: Weapon = Field(
        description="Its blast weapon: cannon, mortar or missile launcher (p.30, p.21)."
    )
    battery_quality: QualityName = Field(
        description="The artillery unit's Quality: the timing test is rolled against it (p.30)."
    )
    recon: bool = Field(
        default=False,
        description="The caller has the Recon trait: 2d6 and one automatic success (p.39-41).",
    )
    comms: bool = Field(default=False, description="The squad has a Comms expert: +1 (p.33).")
    command_vehicle: bool = Field(
        default=False,
        description="A vehicle calling has the Command Vehicle or Forward Observer property "
        "(p.42-43).",
    )
    target: str = Field(
        default="", max_length=200, description="Where the target point is, for the record."
    )


class ScatterRecord(EventPayload):
    direction: int = Field(ge=1, le=12, description="Clock face.")
    distance_dice: list[int]
    distance: int = Field(ge=0, description="Inches.")


@event_type(CALLED_EVENT, stream="battle")
class FadArtilleryCalled(EventPayload):
    """A unit called for indirect artillery fire (FaD p.30): the timing test against the
    artillery unit's Quality and, when the strike arrived, the accuracy test against the
    spotter's and the scatter. ``strike_id`` names the strike that arrived."""

    battle_id: uuid.UUID
    side: str
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    battery: str
    weapon: str
    battery_quality: QualityName
    spotter_quality: str
    target: str
    recon: bool
    comms: bool
    comms_bonus_mode: str
    timing_dice: list[int]
    die_modifier: int
    automatic_successes: int
    bonus_successes: int
    timing_target: int
    successes: int
    timing: Literal["arrives", "garbled", "out_of_contact"]
    strike_id: uuid.UUID | None = None
    blast_inches: int
    accuracy_dice: list[int] = Field(default_factory=list)
    accuracy_target: int | None = None
    on_target: bool | None = None
    scatter_mode: str
    scatter: list[ScatterRecord] = Field(default_factory=list)
    scatter_inches: int = Field(default=0, ge=0)
    dice: list[DieRoll] = Field(default_factory=list)


def _calls(ctx: BattleContext, side: str, battery: str) -> list[dict[str, Any]]:
    return [
        event.payload
        for event in state.battle_events(ctx, CALLED_EVENT)
        if event.payload["side"] == side and event.payload["battery"] == battery
    ]


def _can_call(ctx: BattleContext, unit_id: uuid.UUID, command_vehicle: bool) -> None:
    """p.30: officers and infantry squad leaders call (a vehicle with Command Vehicle or Forward
    Observer, p.42-43); the leader must still be fit."""
    unit = ctx.unit(unit_id)
    if is_vehicle_unit(unit):
        if not command_vehicle:
            raise RuleViolation(
                "artillery.not_a_spotter",
                f"{unit.name} is a vehicle: only one with Command Vehicle or Forward Observer "
                "calls artillery (p.42-43).",
                field="unit_id",
            )
        return
    leader = next(
        (
            t
            for t in ctx.troopers(unit_id)
            if t.role == TrooperRole.LEADER and t.status == TrooperStatus.FIT
        ),
        None,
    )
    if leader is None:
        raise RuleViolation(
            "artillery.no_leader",
            f"{unit.name} has no fit officer or squad leader to call artillery (p.30).",
            field="unit_id",
        )


@battle_action
class FadArtilleryCall(BattleAction):
    """Call for Indirect Artillery Fire (FaD p.30) as a Command action. Dice: the timing test
    (3d6, or 2d6 with Recon); if the strike arrives, the accuracy test (2d6), then for failed
    dice the scatter (a d12 clock face and a d6 per failed die, as option ``scatter_mode``
    says)."""

    action = "fad_artillery_call"
    rulesets = (Ruleset.FAD.value,)
    Params = CallParams

    def check_action(self, ctx: BattleContext, params: CallParams) -> None:
        caller = ctx.participant(params.unit_id)
        _can_call(ctx, params.unit_id, params.command_vehicle)
        state.quality(ctx.unit(params.unit_id))
        try:
            strike_weapon(params.weapon)
        except RuleError as error:
            raise CommandError(error.code, error.message, field="weapon") from None
        calls = _calls(ctx, caller.side, params.battery)
        if calls and (calls[0]["weapon"], calls[0]["battery_quality"]) != (
            params.weapon.value,
            params.battery_quality,
        ):
            raise StateConflict(
                "artillery.battery_changed",
                f"{params.battery} was called before as a {calls[0]['battery_quality']} "
                f"{calls[0]['weapon'].replace('_', ' ')}: name it the same way.",
                field="battery",
            )
        try:
            check_battery_call(
                out_of_contact=any(c["timing"] == Timing.OUT_OF_CONTACT for c in calls),
                called_this_turn=any(c["turn"] == ctx.battle.turn for c in calls),
            )
        except RuleError as error:
            raise StateConflict(error.code, error.message, field="battery") from None
        activation.check_unit_action(ctx, params.unit_id, UnitAction.ARTILLERY_CALL)

    def resolve(self, ctx: BattleContext, params: CallParams, dice: DiceSource) -> list[Any]:
        caller = ctx.participant(params.unit_id)
        spotter = state.quality(ctx.unit(params.unit_id))
        battery = Quality[params.battery_quality.upper()]
        options = ctx.options
        call = call_artillery(
            dice=dice,
            battery_quality=battery,
            spotter_quality=spotter,
            recon=params.recon,
            comms=params.comms,
            artillery_comms_bonus_mode=options.artillery_comms_bonus_mode,
            scatter_mode=options.scatter_mode,
        )
        timing, accuracy = call.timing, call.accuracy
        weapon = strike_weapon(params.weapon, weapons_damage_table=options.weapons_damage_table)
        return [
            FadArtilleryCalled(
                battle_id=ctx.battle.id,
                side=caller.side,
                unit_id=params.unit_id,
                turn=ctx.battle.turn,
                battery=params.battery,
                weapon=params.weapon.value,
                battery_quality=params.battery_quality,
                spotter_quality=spotter.name.lower(),
                target=params.target,
                recon=params.recon,
                comms=params.comms,
                comms_bonus_mode=str(options.artillery_comms_bonus_mode),
                timing_dice=list(timing.dice),
                die_modifier=timing.die_modifier,
                automatic_successes=timing.automatic_successes,
                bonus_successes=timing.bonus_successes,
                timing_target=timing.target_number,
                successes=timing.successes,
                timing=timing.result.value,
                strike_id=new_id("artillery strike") if accuracy is not None else None,
                blast_inches=weapon.blast_inches,
                accuracy_dice=list(accuracy.dice) if accuracy else [],
                accuracy_target=accuracy.target_number if accuracy else None,
                on_target=accuracy.on_target if accuracy else None,
                scatter_mode=str(options.scatter_mode),
                scatter=[
                    ScatterRecord(
                        direction=leg.direction,
                        distance_dice=list(leg.distance_dice),
                        distance=leg.distance,
                    )
                    for leg in (accuracy.legs if accuracy else ())
                ],
                scatter_inches=accuracy.scatter_inches if accuracy else 0,
                dice=dice_json(call.rolls),
            )
        ]


# --- fad_artillery_strike -----------------------------------------------------------------------


class StrikeParams(Params):
    strike_id: uuid.UUID = Field(description="The strike that arrived (fad_artillery_call).")
    target_id: uuid.UUID = Field(
        description="An infantry unit with figures inside the blast radius, of either side."
    )
    concealment: Concealment = Field(default=Concealment.NOT_CONCEALED)
    bunched_up: bool = Field(default=False, description="Target Bunched Up (p.21): +2.")
    non_combatant: bool = Field(default=False, description="Target Non-Combatant: +2.")
    rabble_in_open: bool = Field(default=False, description="Target Rabble in open terrain: +1.")
    target_armour: Armour | None = Field(default=None)
    target_order: list[uuid.UUID] = Field(
        min_length=1,
        max_length=60,
        description="Every figure of the target on the table: those inside the blast radius "
        "first (p.21), each group nearest the impact point first.",
    )


@event_type(STRUCK_EVENT, stream="battle")
class FadArtilleryStruck(InfantryDamage):
    """An artillery strike fell on an infantry unit (FaD p.30, p.21): the Strike Effect (2d6
    added), hits, damage and the Under Fire or Pinned marker, as for a blast weapon."""

    battle_id: uuid.UUID
    strike_id: uuid.UUID
    unit_id: uuid.UUID = Field(description="The unit that called the strike.")
    target_id: uuid.UUID
    turn: int = Field(ge=0)
    battery: str
    weapon: str
    blast_inches: int
    strike_dice: list[int]
    modifiers: list[Modifier] = Field(default_factory=list)
    strike_effect: int
    concealment: str
    dice: list[DieRoll] = Field(default_factory=list)


def _strike(ctx: BattleContext, strike_id: uuid.UUID) -> dict[str, Any]:
    for event in state.battle_events(ctx, CALLED_EVENT):
        if event.payload.get("strike_id") == str(strike_id):
            return dict(event.payload)
    raise CommandError(
        "artillery.no_such_strike",
        "No artillery strike of that id arrived in this battle.",
        field="strike_id",
    )


@battle_action
class FadArtilleryStrike(BattleAction):
    """An arrived artillery strike falls on one unit inside its blast radius (FaD p.30, p.21):
    2d6 Strike Effect (added), then two dice per hit (damage, armour), or two for the volley
    under squad-based damage. One action per unit caught, in the turn of the call."""

    action = "fad_artillery_strike"
    rulesets = (Ruleset.FAD.value,)
    Params = StrikeParams

    def check_action(self, ctx: BattleContext, params: StrikeParams) -> None:
        strike = _strike(ctx, params.strike_id)
        ctx.participant(params.target_id, field="target_id")
        if strike["turn"] != ctx.battle.turn:
            raise StateConflict(
                "artillery.strike_over",
                f"That strike arrived in turn {strike['turn']}: it fell then (p.30).",
                field="strike_id",
            )
        if any(
            event.payload["strike_id"] == str(params.strike_id)
            and event.payload["target_id"] == str(params.target_id)
            for event in state.battle_events(ctx, STRUCK_EVENT)
        ):
            raise StateConflict(
                "artillery.already_struck",
                "That unit has already taken this strike.",
                field="target_id",
            )
        if is_vehicle_unit(ctx.unit(params.target_id)):
            raise CommandError(
                "artillery.target_is_vehicle",
                "Armoured vehicles in a blast are not affected (p.21).",
                field="target_id",
            )
        check_target_order(ctx, params.target_id, params.target_order)
        target_figures(ctx, params.target_id, params.target_order, params.target_armour)
        state.quality(ctx.unit(params.target_id), field="target_id")

    def resolve(self, ctx: BattleContext, params: StrikeParams, dice: DiceSource) -> list[Any]:
        strike = _strike(ctx, params.strike_id)
        target = ctx.participant(params.target_id, field="target_id")
        weapon = strike_weapon(
            strike["weapon"], weapons_damage_table=ctx.options.weapons_damage_table
        )
        struck = strike_effect(
            dice=dice,
            target_under_fire=bool(target.marker),
            rabble_in_open=params.rabble_in_open,
            bunched_up=params.bunched_up,
            non_combatant=params.non_combatant,
        )
        fields, rolls, losses = infantry_damage(
            ctx,
            dice=dice,
            params=params,
            effect=struck.total,
            damage_rating=weapon.damage,
            damage_modifier=0,
            pinning_weapon=weapon.always_pins,
        )
        event = FadArtilleryStruck(
            battle_id=ctx.battle.id,
            strike_id=params.strike_id,
            unit_id=uuid.UUID(strike["unit_id"]),
            target_id=params.target_id,
            turn=ctx.battle.turn,
            battery=strike["battery"],
            weapon=weapon.weapon.value,
            blast_inches=weapon.blast_inches,
            strike_dice=list(struck.dice),
            modifiers=[Modifier(name=n, value=v) for n, v in struck.modifiers],
            strike_effect=struck.total,
            concealment=Concealment(params.concealment).value,
            dice=dice_json([*struck.rolls, *rolls]),
            **fields,
        )
        return [event] if losses is None else [event, losses]


# --- log ----------------------------------------------------------------------------------------

_TIMING_TEXT = {
    "arrives": "the strike arrives",
    "garbled": "the message was garbled: no strike, another call may be made on a later turn",
    "out_of_contact": "communication with {battery} is knocked out for the rest of the game",
}


@register
class FadArtilleryProjection(Projection):
    """The marker an artillery strike places, and the battle-log lines."""

    name = "battles.fad_artillery"
    version = 1

    @Projection.handles(CALLED_EVENT)
    def called(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        caller = unit_name(rows, p["unit_id"])
        weapon = p["weapon"].replace("_", " ")
        extras = []
        if p["automatic_successes"]:
            extras.append("Recon: one automatic success")
        if p["die_modifier"]:
            extras.append(f"Comms +{p['die_modifier']} a die")
        if p["bonus_successes"]:
            extras.append(f"Comms +{p['bonus_successes']} success")
        extra = f" ({', '.join(extras)})" if extras else ""
        at = f" on {p['target']}" if p["target"] else ""
        line = (
            f"{caller} called {p['battery']} ({p['battery_quality']} {weapon}){at}: timing "
            f"{', '.join(map(str, p['timing_dice']))} against {p['timing_target']}+{extra}, "
            f"{p['successes']} success{'es' if p['successes'] != 1 else ''}; "
            + _TIMING_TEXT[p["timing"]].format(battery=p["battery"])
        )
        if p["timing"] == "arrives":
            accuracy = ", ".join(map(str, p["accuracy_dice"]))
            line += f"; accuracy {accuracy} against {p['accuracy_target']}+: "
            if p["on_target"]:
                line += "pinpoint, on the target point"
            else:
                legs = " then ".join(
                    f"{leg['distance']}\" towards {leg['direction']} o'clock"
                    for leg in p["scatter"]
                )
                line += f"scattered {legs}"
            line += f' ({p["blast_inches"]}" blast radius)'
        log(rows, event, line + "." + dice_text(p["dice"]))

    @Projection.handles(STRUCK_EVENT)
    def struck(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        FadShootingProjection._mark(rows, p)
        target = unit_name(rows, p["target_id"])
        dice = " + ".join(str(d) for d in p["strike_dice"])
        modifiers = "".join(
            f" {'+' if m['value'] > 0 else '-'} {abs(m['value'])} {m['name']}"
            for m in p["modifiers"]
        )
        line = (
            f"{p['battery']}'s strike fell on {target}: Strike Effect {dice}{modifiers} = "
            f"{p['strike_effect']}, {damage_text(rows, p)}; {marker_text(target, p)}"
        )
        log(rows, event, line + "." + dice_text(p["dice"]))
