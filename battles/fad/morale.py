"""Fast and Dirty unit state as battle actions: who goes first (``fad_initiative``, FaD p.12),
Checking Resolve and the Morale Test at a unit's activation (``fad_check_resolve``, p.13), the end
of its activation (``fad_activation_end``, p.12, p.24), Losing Heart (``fad_losing_heart``, p.14)
and Command Response (``fad_command_response``, p.25).

The rules are :mod:`rules.fad.morale`. The book checks Resolve "each time a unit is activated"
and a Broken unit "must take a Morale Test to see how it may act this turn", so one action does
both: the test's dice follow the check's verdict. Terrifying squads (p.41) and psionic Terror
(p.34) force a test at the unit's next activation too, so they are a parameter of the same
action rather than an action of their own. A unit that routs or surrenders leaves the battle: its
participant is marked routed or surrendered, as the end of a battle marks them, for the
after-action to read; a vehicle whose crew flees is recorded abandoned in
``battles.FadLossesRecorded``.

Losing Heart is an action of its own because units are eliminated by several actions (shooting,
close assault, a Morale Test, Losing Heart itself): the umpire asks for it after an elimination,
and it is refused while no new level is due, so asking twice changes nothing.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.after_action.fad_events import DamagedVehicle, FadLossesRecorded
from battles.fad import activation, state
from battles.models import Participant
from battles.projections import dice_text, log, participant_key, unit_name
from battles.suppression import is_vehicle_unit
from campaigns.events import DieRoll, dice_json
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.vocabulary import VehicleState
from rules.dice import DiceSource
from rules.errors import RuleError
from rules.fad import morale as rules
from rules.fad import traits as trait_rules
from rules.fad.morale import AutoSuccess, MoraleOutcome, MoraleResult
from rules.rulesets import Ruleset

RESOLVE_CHECKED = "battles.FadResolveChecked"
ACTIVATION_ENDED = "battles.FadActivationEnded"
HEART_LOST = "battles.FadHeartLost"
COMMAND_RESPONSE = "battles.FadCommandResponseTested"
INITIATIVE = "battles.FadInitiativeRolled"

Removal = Literal["routed", "surrendered"]
Exemption = Literal["fanatic", "last_stand", "berserk"]


# --- events -----------------------------------------------------------------------------------


class MoraleAttemptRecord(EventPayload):
    faces: list[int]
    rerolled: int = Field(ge=0, description="Failed dice the officer re-rolled (p.32).")
    successes: int = Field(ge=0)


class MoraleRecord(EventPayload):
    """A Morale Test (FaD p.13): 3d6 counted against the Quality Level."""

    quality: str
    target_number: int
    forced_by: Literal["terrifying", "terror"] | None = None
    dice_rolled: int = Field(ge=0)
    auto_successes: list[AutoSuccess] = Field(
        default_factory=list, description="The sources of automatic successes named."
    )
    auto_successes_counted: int = Field(ge=0)
    shaky: bool = False
    leader_modifier: int
    leader_modifier_mode: Literal["per_die", "successes"]
    officer_leadership: int = Field(ge=0)
    motivator: bool = False
    attempts: list[MoraleAttemptRecord]
    successes: int = Field(ge=0)
    result: MoraleResult
    crew_bailed_out: bool = False


@event_type(RESOLVE_CHECKED, stream="battle")
class FadResolveChecked(EventPayload):
    """A unit activated and its Resolve was checked (FaD p.13); a Broken unit (or one a
    Terrifying squad or Terror forced to) took its Morale Test."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    vehicle: bool
    checked: bool = Field(description="False: a vehicle not Under Fire, or an exempt unit.")
    exempt: Exemption | None = None
    resolve: str
    losses: int = Field(ge=0, description="Casualties, or a vehicle's penetrating hits.")
    break_point: int = Field(ge=0)
    original_size: int | None = None
    officer_attached: bool = False
    attached_team_id: uuid.UUID | None = Field(
        default=None,
        description="A heavy weapons team attached to the squad: their numbers combined (p.29).",
    )
    emboldened: bool = Field(
        default=False, description="Emboldened by a psionic (p.34): no Morale Test."
    )
    broken_by_check: bool
    morale: MoraleRecord | None = None
    broken: bool = Field(description="Broken for this activation, after any Morale Test.")
    removed_as: Removal | None = Field(
        default=None, description="The unit routed or surrendered and left the battle."
    )
    dice: list[DieRoll] = Field(default_factory=list)


@event_type(ACTIVATION_ENDED, stream="battle")
class FadActivationEnded(EventPayload):
    """A unit finished its activation and its Under Fire or Pinned marker, if it had one, came
    off (p.12, p.24)."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    marker_removed: Literal["under_fire", "pinned"] | None = Field(
        default=None, description="None: the unit had no marker."
    )


class ResolveShiftRecord(EventPayload):
    unit_id: uuid.UUID
    before: str
    after: str | None = Field(description="None: Reluctant, eliminated instead (p.14).")


@event_type(HEART_LOST, stream="battle")
class FadHeartLost(EventPayload):
    """An army lost heart (FaD p.14): with 50% of its units eliminated every unit's Resolve
    dropped a level, with 75% one more; a Reluctant unit that had to drop was eliminated."""

    battle_id: uuid.UUID
    side: str
    turn: int = Field(ge=0)
    army_size: int = Field(ge=1)
    eliminated: int = Field(ge=0)
    hard_points: int = Field(default=0, ge=0)
    hard_points_destroyed: int = Field(default=0, ge=0)
    levels_before: int = Field(ge=0, le=2)
    levels_after: int = Field(ge=1, le=2)
    shifts: list[ResolveShiftRecord]
    persists: bool = Field(
        default=False,
        description="The units' roster Resolve drops too, for later battles "
        "(morale_losing_heart_persists); by default only for the rest of this battle.",
    )


@event_type(COMMAND_RESPONSE, stream="battle")
class FadCommandResponseTested(EventPayload):
    """A unit took a Command Response test as it activated (FaD p.25)."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    side: str
    turn: int = Field(ge=0)
    marker: str
    enemy_within_10: bool
    modifiers: list[tuple[str, int]]
    target_number: int
    faces: list[int]
    total: int
    passed: bool
    rerolled: bool = Field(description="The side's once-a-turn HQ re-roll was used.")
    dice: list[DieRoll] = Field(default_factory=list)


class InitiativeThrow(EventPayload):
    side: str
    face: int
    bonus: int
    total: int
    intel_lost: bool


@event_type(INITIATIVE, stream="battle")
class FadInitiativeRolled(EventPayload):
    """Each side rolled 1d6 to see who activates first this turn (FaD p.12)."""

    battle_id: uuid.UUID
    turn: int = Field(ge=0)
    throws: list[list[InitiativeThrow]]
    first: str
    by_tie: bool
    lost_last_turn: str | None
    dice: list[DieRoll] = Field(default_factory=list)


# --- parameters -------------------------------------------------------------------------------


class MoraleParams(Params):
    """What the table knows that bears on a Morale Test (FaD p.13); the Quality and the squad
    leader's experience come from the roster."""

    auto_successes: list[AutoSuccess] = Field(
        default_factory=list,
        max_length=3,
        description='armour_nearby: a squad within 8" of a tank or walker (p.13); fortified: '
        "in a bunker or trench (p.28); brave: the Brave trait (p.39). Each is one automatic "
        "success, rolling one die fewer (one in all unless morale_auto_success_stacking).",
    )
    shaky: bool = Field(default=False, description="The Shaky trait: one automatic failure.")
    officer_leadership: int = Field(
        default=0,
        ge=0,
        le=3,
        description="An attached officer's Leadership Rating: failed dice he re-rolls (p.32).",
    )
    motivator: bool = Field(default=False, description="A Motivator re-rolls a failed test.")
    immobilised: bool = Field(
        default=False,
        description="A vehicle that cannot move: with one success its crew bails out (p.13).",
    )
    removed_as: Removal = Field(
        default="routed",
        description="With no success the unit routs or surrenders (p.13): which, for the "
        "record; both remove it from play.",
    )


class CheckResolveParams(Params):
    unit_id: uuid.UUID = Field(description="The unit activating.")
    officer_attached: bool = Field(
        default=False, description="An officer has joined the squad: strength +1 (p.32)."
    )
    penetrating_hits: int | None = Field(
        default=None,
        ge=0,
        le=20,
        description="A vehicle's penetrating hits so far; by default those of its shooting "
        "actions in this battle.",
    )
    forced_by: Literal["terrifying", "terror"] | None = Field(
        default=None,
        description='A Terrifying squad within 8" (p.41) or psionic Terror (p.34) forces a '
        "Morale Test even if the unit is not Broken.",
    )
    exempt: Exemption | None = Field(
        default=None,
        description="Fanatic (p.39), Last Stand (p.31) and Berserk within assault range "
        "(p.39) units do not check Resolve.",
    )
    grizzled: bool = Field(
        default=False,
        description="The unit has the Grizzled trait (p.40): by option traits_grizzled_mode it "
        "checks Resolve one level better, or takes its Morale Test one Quality level better. "
        "Read from the unit's traits and the mission bonuses given in this battle too, as is "
        "Brave (p.39).",
    )
    attached_team_id: uuid.UUID | None = Field(
        default=None,
        description="A heavy weapons team attached to this squad when the troops were deployed "
        "(p.29): the numbers of the two are combined for Checking Resolve and the Morale Test, "
        "and if the squad routs or surrenders the team goes with it.",
    )
    emboldened: bool = Field(
        default=False,
        description="A psionic Emboldened the unit (p.34): it does not take a Morale Test at "
        "this activation, whether Broken or forced by Terrifying or Terror; a unit the check "
        "breaks acts normally.",
    )
    morale: MoraleParams = Field(default_factory=MoraleParams)


class ActivationEndParams(Params):
    unit_id: uuid.UUID = Field(description="The unit that finished its activation.")


class LosingHeartParams(Params):
    side: str = Field(description="The side whose army may lose heart.")
    hard_points: int = Field(
        default=0,
        ge=0,
        le=50,
        description="On-board artillery and hard target points counted as units (p.14); only "
        "with morale_losing_heart_hard_points.",
    )
    hard_points_destroyed: int = Field(default=0, ge=0, le=50)


class CommandResponseParams(Params):
    unit_id: uuid.UUID = Field(description="The unit activating.")
    enemy_within_10: bool = Field(
        default=False, description='It activates 10" or less from an enemy unit (p.25).'
    )
    officer_present: bool = Field(default=False, description="An officer has joined it: +1.")
    comms: bool = Field(default=False, description="A Comms expert is with it: +1 (p.33).")
    hq_reroll: bool = Field(
        default=False,
        description="Use the side's HQ trait or Command Vehicle re-roll if the test fails: once a "
        "turn for the side (p.40, p.43).",
    )


class InitiativeParams(Params):
    improved_intel: list[str] = Field(
        default_factory=list,
        max_length=2,
        description="Sides with the Improved Intel enhancement: +1 until a natural 1 (p.11).",
    )


# --- helpers ----------------------------------------------------------------------------------


def _rule_error(error: RuleError) -> RuleViolation:
    return RuleViolation(error.code, error.message, field=error.field)


def _morale_record(
    outcome: MoraleOutcome, params: MoraleParams, forced_by: Any, mode: str
) -> MoraleRecord:
    return MoraleRecord(
        quality=outcome.quality.name.lower(),
        target_number=outcome.target_number,
        forced_by=forced_by,
        dice_rolled=outcome.dice_rolled,
        auto_successes=list(dict.fromkeys(params.auto_successes)),
        auto_successes_counted=outcome.auto_successes,
        shaky=params.shaky,
        leader_modifier=outcome.leader_modifier,
        leader_modifier_mode=mode,
        officer_leadership=params.officer_leadership,
        motivator=params.motivator,
        attempts=[
            MoraleAttemptRecord(faces=list(a.faces), rerolled=a.rerolled, successes=a.successes)
            for a in outcome.attempts
        ],
        successes=outcome.successes,
        result=outcome.result,
        crew_bailed_out=outcome.crew_bailed_out,
    )


def _check_attached_team(
    ctx: BattleContext, params: CheckResolveParams, squad: Participant, vehicle: bool
) -> None:
    """A heavy weapons team attached to an infantry squad of its own side (p.29)."""
    field = "attached_team_id"
    team_id = params.attached_team_id
    assert team_id is not None
    team = ctx.participant(team_id, field=field)
    if vehicle or team_id == params.unit_id or team.side != squad.side:
        raise CommandError(
            "resolve.not_an_attached_team",
            "A heavy weapons team is attached to an infantry squad of its own side (p.29).",
            field=field,
        )
    if is_vehicle_unit(ctx.unit(team_id)):
        raise CommandError(
            "resolve.not_an_attached_team",
            f"{ctx.unit(team_id).name} is a vehicle, not a heavy weapons team (p.29).",
            field=field,
        )


def _team_count(ctx: BattleContext, team_id: uuid.UUID) -> trait_rules.ResolveCount:
    """The attached team's figures on the table at the start and its casualties (p.13, p.29)."""
    return trait_rules.ResolveCount(
        original_size=max(1, len(state.figures_on_table(ctx, team_id))),
        casualties=state.casualties_for_resolve(ctx, team_id),
    )


# --- actions ----------------------------------------------------------------------------------


@battle_action
class FadCheckResolve(BattleAction):
    """A unit activates: Check Resolve (FaD p.13) and, if it is Broken, its Morale Test.

    Infantry: Broken when its casualties (dead and untreated wounded, not the stabilised, p.35)
    equal or exceed its Resolve's share of its original size (options resolve_original_size,
    resolve_officer_bonus_mode). A vehicle is checked only when it activates Under Fire, against
    its penetrating hits. A Broken unit rolls 3d6 against its Quality Level: 2+ successes it
    rallies, 1 it stays broken and falls back, 0 it routs or surrenders and leaves the battle.

    Dice: the Morale Test's d6s (3, fewer with automatic successes or failures), then the
    officer's re-rolls, then a Motivator's whole second test; none when the unit is not Broken.
    """

    action = "fad_check_resolve"
    rulesets = (Ruleset.FAD.value,)
    Params = CheckResolveParams

    def check_action(self, ctx: BattleContext, params: CheckResolveParams) -> None:
        participant = ctx.participant(params.unit_id)
        unit = ctx.unit(params.unit_id)
        state.quality(unit)
        state.resolve(participant, unit)
        vehicle = is_vehicle_unit(unit)
        if params.penetrating_hits is not None and not vehicle:
            raise CommandError(
                "resolve.not_a_vehicle",
                f"{unit.name} is infantry: its casualties are counted, not penetrating hits.",
                field="penetrating_hits",
            )
        if vehicle and (params.officer_attached or params.morale.auto_successes):
            what = "officer_attached" if params.officer_attached else "morale.auto_successes"
            raise CommandError(
                "resolve.not_infantry",
                f"{unit.name} is a vehicle: officers join squads and the Morale Test's "
                "automatic successes are a squad's (p.13, p.32).",
                field=what,
            )
        if params.morale.immobilised and not vehicle:
            raise CommandError(
                "resolve.not_a_vehicle",
                f"{unit.name} is infantry: only a vehicle is immobilised.",
                field="morale.immobilised",
            )
        if params.attached_team_id is not None:
            _check_attached_team(ctx, params, participant, vehicle)
        # Checking Resolve is the unit's activation: the turn sequence decides who may (p.12).
        activation.check_activation(ctx, participant)

    def resolve(
        self, ctx: BattleContext, params: CheckResolveParams, dice: DiceSource
    ) -> list[Any]:
        participant = ctx.participant(params.unit_id)
        unit = ctx.unit(params.unit_id)
        resolve = state.resolve(participant, unit)
        quality = state.quality(unit)
        vehicle = is_vehicle_unit(unit)
        options = ctx.options
        traits = state.battle_traits(ctx, unit)
        if params.grizzled or "grizzled" in traits:
            resolve, quality = rules.grizzled(
                resolve, quality, traits_grizzled_mode=options.traits_grizzled_mode
            )
        if vehicle:
            hits = params.penetrating_hits
            check = rules.check_vehicle_resolve(
                resolve=resolve,
                penetrating_hits=hits if hits is not None else state.penetrating_hits(ctx, unit.id),
                under_fire=bool(participant.marker),
            )
        else:
            on_table = len(state.figures_on_table(ctx, unit.id))
            size = rules.original_size(
                strength_at_battle_start=max(1, on_table),
                initial_strength=max(1, state.initial(ctx, unit)),
                resolve_original_size=options.resolve_original_size,
            )
            counted = trait_rules.ResolveCount(size, state.casualties_for_resolve(ctx, unit.id))
            if params.attached_team_id is not None:
                counted = trait_rules.with_attached_team(
                    counted, _team_count(ctx, params.attached_team_id)
                )
            check = rules.check_infantry_resolve(
                resolve=resolve,
                original_size=counted.original_size,
                casualties=counted.casualties,
                officer_attached=params.officer_attached,
                resolve_officer_bonus_mode=options.resolve_officer_bonus_mode,
            )
        checked = check.checked and params.exempt is None
        broken_by_check = checked and check.broken
        morale = None
        rolls: tuple[Any, ...] = ()
        auto_successes = list(params.morale.auto_successes)
        if "brave" in traits and not vehicle and AutoSuccess.BRAVE not in auto_successes:
            auto_successes.append(AutoSuccess.BRAVE)
        if trait_rules.takes_morale_test(
            broken=broken_by_check,
            forced=params.forced_by is not None,
            emboldened=params.emboldened,
        ):
            outcome = rules.morale_test(
                dice=dice,
                quality=quality,
                vehicle=vehicle,
                immobilised=params.morale.immobilised,
                auto_successes=auto_successes,
                shaky=params.morale.shaky,
                officer_leadership=params.morale.officer_leadership,
                motivator=params.morale.motivator,
                leader_experience=None if vehicle else state.leader_experience(ctx, unit.id),
                morale_leader_modifier_mode=options.morale_leader_modifier_mode,
                morale_auto_success_stacking=options.morale_auto_success_stacking,
            )
            rolls = outcome.rolls
            morale = _morale_record(
                outcome,
                params.morale.model_copy(update={"auto_successes": auto_successes}),
                params.forced_by,
                options.morale_leader_modifier_mode,
            )
        removed = morale is not None and morale.result is MoraleResult.REMOVED
        events: list[Any] = [
            FadResolveChecked(
                battle_id=ctx.battle.id,
                unit_id=unit.id,
                turn=ctx.battle.turn,
                vehicle=vehicle,
                checked=checked,
                exempt=params.exempt,
                resolve=resolve.name.lower(),
                losses=check.losses,
                break_point=check.break_point,
                original_size=check.original_size,
                officer_attached=params.officer_attached,
                attached_team_id=params.attached_team_id,
                emboldened=params.emboldened,
                broken_by_check=broken_by_check,
                morale=morale,
                broken=morale.result is not MoraleResult.RALLIED if morale else False,
                removed_as=params.morale.removed_as if removed else None,
                dice=dice_json(rolls),
            )
        ]
        abandoned = [v for v in ctx.vehicles(unit.id) if v.state == VehicleState.OPERATIONAL]
        if removed and vehicle and abandoned:
            events.append(
                FadLossesRecorded(
                    battle_id=ctx.battle.id,
                    unit_id=unit.id,
                    turn=ctx.battle.turn,
                    cause="morale",
                    vehicles=[
                        DamagedVehicle(vehicle_id=v.id, condition="abandoned", state_before=v.state)
                        for v in abandoned
                    ],
                )
            )
        return events


@battle_action
class FadActivationEnd(BattleAction):
    """A unit finished its activation: its Under Fire or Pinned marker comes off (FaD p.12,
    p.24), so a marked unit suffers the effects for one turn, and the next unit may act. No
    dice. Refused while another unit's activation is open, and for a unit with no marker whose
    activation is not open: there is nothing to end."""

    action = "fad_activation_end"
    rulesets = (Ruleset.FAD.value,)
    Params = ActivationEndParams

    def check_action(self, ctx: BattleContext, params: ActivationEndParams) -> None:
        participant = ctx.participant(params.unit_id)
        active = activation.check_acting_unit(ctx, params.unit_id)
        if not participant.marker and (active is None or active.unit_id != str(params.unit_id)):
            raise StateConflict(
                "activation.no_marker",
                f"{ctx.unit(params.unit_id).name} has no Under Fire or Pinned marker to remove "
                "and no activation open to end.",
                field="unit_id",
            )

    def resolve(
        self, ctx: BattleContext, params: ActivationEndParams, dice: DiceSource
    ) -> list[Any]:
        participant = ctx.participant(params.unit_id)
        return [
            FadActivationEnded(
                battle_id=ctx.battle.id,
                unit_id=params.unit_id,
                turn=ctx.battle.turn,
                marker_removed=participant.marker or None,
            )
        ]


def _heart_levels_lost(ctx: BattleContext, side: str) -> int:
    levels = 0
    for event in state.battle_events(ctx, HEART_LOST):
        if event.payload["side"] == side:
            levels = max(levels, event.payload["levels_after"])
    return levels


def _losing_heart(ctx: BattleContext, params: LosingHeartParams) -> rules.LosingHeartOutcome:
    army = [
        rules.ArmyUnit(
            unit_id=str(p.unit_id),
            resolve=state.resolve(p, ctx.unit(p.unit_id), field="side"),
            eliminated=state.is_eliminated(ctx, p),
        )
        for p in ctx.participants.values()
        if p.side == params.side
    ]
    try:
        return rules.losing_heart(
            army=army,
            levels_already_lost=_heart_levels_lost(ctx, params.side),
            hard_points=params.hard_points,
            hard_points_destroyed=params.hard_points_destroyed,
            morale_losing_heart_hard_points=ctx.options.morale_losing_heart_hard_points,
        )
    except RuleError as error:
        raise _rule_error(error) from None


@battle_action
class FadLosingHeart(BattleAction):
    """Optional - Losing Heart (FaD p.14; option morale_losing_heart, on by default as the
    book recommends): once a side has lost at least 50% of its units, every remaining unit's
    Resolve drops a level for the rest of the battle; at 75% one more. A Reluctant unit that
    must drop is eliminated. Ask after a unit is eliminated; refused when no new level is due.
    No dice."""

    action = "fad_losing_heart"
    rulesets = (Ruleset.FAD.value,)
    Params = LosingHeartParams

    def check_action(self, ctx: BattleContext, params: LosingHeartParams) -> None:
        if not ctx.options.morale_losing_heart:
            raise RuleViolation(
                "losing_heart.off",
                "Losing Heart is not used in this campaign (option morale_losing_heart).",
                field="side",
            )
        if params.side not in ctx.sides:
            raise CommandError(
                "battle.unknown_side",
                f"{params.side!r} is not a side of this battle.",
                field="side",
            )
        if not any(p.side == params.side for p in ctx.participants.values()):
            raise StateConflict(
                "losing_heart.no_units", f"{params.side} committed no unit.", field="side"
            )
        outcome = _losing_heart(ctx, params)
        if not outcome.new_levels:
            raise StateConflict(
                "losing_heart.not_due",
                f"{params.side} has lost {outcome.eliminated} of {outcome.army_size} units: "
                f"{'no further' if outcome.levels_already_lost else 'no'} level of Resolve is "
                "lost (50% costs one, 75% two, p.14).",
                field="side",
            )

    def resolve(self, ctx: BattleContext, params: LosingHeartParams, dice: DiceSource) -> list[Any]:
        outcome = _losing_heart(ctx, params)
        return [
            FadHeartLost(
                battle_id=ctx.battle.id,
                side=params.side,
                turn=ctx.battle.turn,
                army_size=outcome.army_size,
                eliminated=outcome.eliminated,
                hard_points=params.hard_points,
                hard_points_destroyed=params.hard_points_destroyed,
                levels_before=outcome.levels_already_lost,
                levels_after=outcome.levels_due,
                persists=ctx.options.morale_losing_heart_persists,
                shifts=[
                    ResolveShiftRecord(
                        unit_id=uuid.UUID(s.unit_id),
                        before=s.before.name.lower(),
                        after=None if s.after is None else s.after.name.lower(),
                    )
                    for s in outcome.shifts
                ],
            )
        ]


def _reroll_used(ctx: BattleContext, side: str) -> bool:
    return any(
        event.payload["side"] == side
        and event.payload["turn"] == ctx.battle.turn
        and event.payload["rerolled"]
        for event in state.battle_events(ctx, COMMAND_RESPONSE)
    )


@battle_action
class FadCommandResponse(BattleAction):
    """Command Response (FaD p.25, advanced; option adv_command_response): a unit that activates
    Under Fire or Pinned, or 10" or less from an enemy unit, rolls 1d6 + modifiers against its
    Quality Level. Casualties last turn, untreated wounded and a lost squad leader (-1 each) are
    read from the battle; an officer and a Comms expert (+1 each) are the table's to say. A unit
    that fails may Move only to improve cover and Rush only away from the enemy.

    Dice: one d6, and a second if it fails and the side's HQ re-roll is used."""

    action = "fad_command_response"
    rulesets = (Ruleset.FAD.value,)
    Params = CommandResponseParams

    def check_action(self, ctx: BattleContext, params: CommandResponseParams) -> None:
        if not ctx.options.adv_command_response:
            raise RuleViolation(
                "command_response.off",
                "Command Response is not used in this campaign (option adv_command_response).",
                field="unit_id",
            )
        participant = ctx.participant(params.unit_id)
        unit = ctx.unit(params.unit_id)
        state.quality(unit)
        within = rules.COMMAND_RESPONSE_RANGE_INCHES if params.enemy_within_10 else None
        if not rules.command_response_due(marker=participant.marker, enemy_within_inches=within):
            raise RuleViolation(
                "command_response.not_due",
                f'{unit.name} is not Under Fire or Pinned and no enemy is within 10": it acts '
                "as its player chooses (p.25).",
                field="enemy_within_10",
            )
        if params.hq_reroll and _reroll_used(ctx, participant.side):
            raise StateConflict(
                "command_response.reroll_used",
                f"{participant.side} has used its HQ re-roll this turn (p.40).",
                field="hq_reroll",
            )
        # The test is taken as the unit activates (p.25): the activated unit's, once.
        activation.check_command_response(ctx, params.unit_id)

    def resolve(
        self, ctx: BattleContext, params: CommandResponseParams, dice: DiceSource
    ) -> list[Any]:
        participant = ctx.participant(params.unit_id)
        unit = ctx.unit(params.unit_id)
        outcome = rules.command_response(
            dice=dice,
            quality=state.quality(unit),
            took_casualties_last_turn=state.took_casualties_in_turn(
                ctx, unit.id, ctx.battle.turn - 1
            ),
            untreated_wounded=state.untreated_wounded(ctx, unit.id) > 0,
            squad_leader_lost=state.squad_leader_lost(ctx, unit.id),
            officer_present=params.officer_present,
            comms=params.comms,
            reroll_available=params.hq_reroll,
        )
        return [
            FadCommandResponseTested(
                battle_id=ctx.battle.id,
                unit_id=unit.id,
                side=participant.side,
                turn=ctx.battle.turn,
                marker=participant.marker,
                enemy_within_10=params.enemy_within_10,
                modifiers=list(outcome.modifiers),
                target_number=outcome.target_number,
                faces=list(outcome.faces),
                total=outcome.total,
                passed=outcome.passed,
                rerolled=outcome.rerolled,
                dice=dice_json(outcome.rolls),
            )
        ]


def _previous_initiative(ctx: BattleContext) -> list[dict[str, Any]]:
    return [event.payload for event in state.battle_events(ctx, INITIATIVE)]


@battle_action
class FadInitiative(BattleAction):
    """Who activates first this turn (FaD p.12): each side rolls 1d6, highest first; on a draw
    the side that lost initiative last turn goes first (on the first turn both roll again).
    Improved Intel (p.11) adds +1 until the side rolls a natural 1.

    Dice: one d6 per side, the battle's first side first; again after a first-turn draw."""

    action = "fad_initiative"
    rulesets = (Ruleset.FAD.value,)
    Params = InitiativeParams

    def check_action(self, ctx: BattleContext, params: InitiativeParams) -> None:
        for index, side in enumerate(params.improved_intel):
            if side not in ctx.sides:
                raise CommandError(
                    "battle.unknown_side",
                    f"{side!r} is not a side of this battle.",
                    field=f"improved_intel.{index}",
                )
        if any(p["turn"] == ctx.battle.turn for p in _previous_initiative(ctx)):
            raise StateConflict(
                "initiative.already_rolled",
                f"Initiative for turn {ctx.battle.turn} has been rolled.",
                field="battle_id",
            )

    def resolve(self, ctx: BattleContext, params: InitiativeParams, dice: DiceSource) -> list[Any]:
        first_side, second_side = list(ctx.sides)[:2]
        previous = _previous_initiative(ctx)
        lost_last_turn = None
        if previous:
            winner = previous[-1]["first"]
            lost_last_turn = second_side if winner == first_side else first_side
        intel_gone = {
            throw["side"]
            for p in previous
            for throws in p["throws"]
            for throw in throws
            if throw["intel_lost"]
        }
        outcome = rules.initiative(
            dice=dice,
            sides=(first_side, second_side),
            lost_last_turn=lost_last_turn,
            improved_intel=[s for s in params.improved_intel if s not in intel_gone],
        )
        return [
            FadInitiativeRolled(
                battle_id=ctx.battle.id,
                turn=ctx.battle.turn,
                throws=[
                    [
                        InitiativeThrow(
                            side=t.side,
                            face=t.face,
                            bonus=t.bonus,
                            total=t.total,
                            intel_lost=t.intel_lost,
                        )
                        for t in throw
                    ]
                    for throw in outcome.throws
                ],
                first=outcome.first,
                by_tie=outcome.by_tie,
                lost_last_turn=lost_last_turn,
                dice=dice_json(outcome.rolls),
            )
        ]


# --- projection -------------------------------------------------------------------------------

_EXEMPT_WORDS = {
    "fanatic": "it is Fanatic (p.39)",
    "last_stand": "it is making a Last Stand (p.31)",
    "berserk": "it is Berserk within close assault range (p.39)",
}

_RESULT_WORDS = {
    "rallied": "rallied and acts normally this turn",
    "stays_broken": "stays broken: it falls back away from the enemy unless it is in cover with "
    'no enemy within 8", may not start a close assault and shoots at -3',
    "stays_broken_vehicle": "stays broken: the crew retreats at Standard speed away from the "
    "enemy and may not shoot",
}


def _morale_text(m: dict[str, Any], *, vehicle: bool, name: str, removed_as: str | None) -> str:
    why = {
        "terrifying": 'a Terrifying squad is within 8"',
        "terror": "psionic Terror",
    }.get(m.get("forced_by") or "", "")
    faces = "; re-rolled: ".join(
        ", ".join(str(f) for f in a["faces"]) or "no die" for a in m["attempts"]
    )
    extras = []
    if m["auto_successes_counted"]:
        extras.append(f"{m['auto_successes_counted']} automatic success")
    if m["shaky"]:
        extras.append("1 automatic failure (Shaky)")
    if m["leader_modifier"]:
        extras.append(f"squad leader {m['leader_modifier']:+d}")
    extra = f" ({', '.join(extras)})" if extras else ""
    line = (
        f" Morale Test{' forced by ' + why if why else ''}: {m['dice_rolled']}d6 at "
        f"{m['target_number']}+{extra}, rolled {faces}: {m['successes']} "
        f"success{'es' if m['successes'] != 1 else ''}; "
    )
    if m["result"] == "rallied":
        return line + f"{name} {_RESULT_WORDS['rallied']}."
    if m["result"] == "stays_broken":
        key = "stays_broken_vehicle" if vehicle else "stays_broken"
        return line + f"{name} {_RESULT_WORDS[key]}."
    if m["crew_bailed_out"]:
        return line + f"{name} bail out of their immobilised vehicle and flee: it is removed."
    return line + f"{name} {removed_as or 'routed'} and is removed from play."


@register
class FadMoraleProjection(Projection):
    """Broken, markers, Resolve and routs on the participants, and their battle-log lines."""

    name = "battles.fad_morale"
    version = 1

    @Projection.handles(RESOLVE_CHECKED)
    def resolve_checked(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        key = participant_key(p["battle_id"], p["unit_id"])
        name = unit_name(rows, p["unit_id"])
        if rows.get(Participant, key) is not None:
            changes: dict[str, Any] = {"broken": p["broken"]}
            if p["removed_as"]:
                changes["status"] = p["removed_as"]
            rows.update(Participant, key, **changes)
        team = p.get("attached_team_id")
        team_key = participant_key(p["battle_id"], team) if team else None
        if team_key and rows.get(Participant, team_key) is not None:
            # The team activates as one with the squad (p.29): broken, routed with it.
            changes = {"broken": p["broken"]}
            if p["removed_as"]:
                changes["status"] = p["removed_as"]
            rows.update(Participant, team_key, **changes)
        if p["exempt"]:
            line = f"{name} activated and checks no Resolve: {_EXEMPT_WORDS[p['exempt']]}."
        elif not p["checked"]:
            line = (
                f"{name} activated without an Under Fire marker: its crew's Resolve is not checked."
            )
        else:
            what = "penetrating hits" if p["vehicle"] else "casualties"
            of = "" if p["original_size"] is None else f" of {p['original_size']}"
            verdict = "Broken" if p["broken_by_check"] else "not broken"
            line = (
                f"{name} activated and checked Resolve ({p['resolve']}): {p['losses']} {what}"
                f"{of}, breaking at {p['break_point']}: {verdict}."
            )
        if team:
            line += f" {unit_name(rows, team)}, attached to it, is counted with it (p.29)."
        if p.get("emboldened") and not p["morale"]:
            line += " Emboldened (p.34): it takes no Morale Test and acts normally."
        if p["morale"]:
            line += _morale_text(
                p["morale"], vehicle=p["vehicle"], name=name, removed_as=p["removed_as"]
            )
        log(rows, event, line + dice_text(p["dice"]))

    @Projection.handles(ACTIVATION_ENDED)
    def activation_ended(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        key = participant_key(p["battle_id"], p["unit_id"])
        if rows.get(Participant, key) is not None:
            rows.update(Participant, key, marker="")
        removed = p.get("marker_removed")
        marker = "Pinned" if removed == "pinned" else "Under Fire"
        log(
            rows,
            event,
            f"{unit_name(rows, p['unit_id'])} finished its activation"
            + (f": its {marker} marker was removed." if removed else "."),
        )

    @Projection.handles(HEART_LOST)
    def heart_lost(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        parts = []
        for shift in p["shifts"]:
            key = participant_key(p["battle_id"], shift["unit_id"])
            name = unit_name(rows, shift["unit_id"])
            if shift["after"] is None:
                parts.append(f"{name}, Reluctant, is eliminated")
                changes = {"status": Participant.Status.ROUTED.value}
            else:
                parts.append(f"{name} {shift['before']} to {shift['after']}")
                changes = {"resolve": shift["after"]}
            if rows.get(Participant, key) is not None:
                rows.update(Participant, key, **changes)
        share = "75%" if p["levels_after"] == 2 else "50%"
        counted = " (hard points included)" if p["hard_points"] else ""
        log(
            rows,
            event,
            f"{p['side']} lost heart: {p['eliminated']} of {p['army_size']} units eliminated"
            f"{counted}, at least {share}; Resolve drops "
            f"{p['levels_after'] - p['levels_before']} level"
            f"{'s' if p['levels_after'] - p['levels_before'] != 1 else ''} for the rest of the "
            f"battle: {'; '.join(parts) or 'no unit left to lose it'}.",
        )

    @Projection.handles(COMMAND_RESPONSE)
    def command_response(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        name = unit_name(rows, p["unit_id"])
        why = []
        if p["marker"]:
            why.append("Pinned" if p["marker"] == "pinned" else "Under Fire")
        if p["enemy_within_10"]:
            why.append('within 10" of the enemy')
        mods = "".join(f", {label} {value:+d}" for label, value in p["modifiers"])
        faces = " then ".join(str(face) for face in p["faces"])
        reroll = " (HQ re-roll)" if p["rerolled"] else ""
        verdict = (
            "passed: it acts as its player chooses"
            if p["passed"]
            else "failed: it may Move only to improve cover and Rush only away from the enemy"
        )
        log(
            rows,
            event,
            f"{name} activated {' and '.join(why)} and took a Command Response test: d6 "
            f"{faces}{reroll}{mods}, total {p['total']} against {p['target_number']}+, "
            f"{verdict}.{dice_text(p['dice'])}",
        )

    @Projection.handles(INITIATIVE)
    def initiative_rolled(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        throws = "; then ".join(
            ", ".join(
                f"{t['side']} {t['face']}{' +1 Improved Intel' if t['bonus'] else ''}"
                f"{' (a natural 1: Improved Intel lost)' if t['intel_lost'] else ''}"
                for t in throw
            )
            for throw in p["throws"]
        )
        tie = f": a draw, and {p['first']} lost the initiative last turn" if p["by_tie"] else ""
        log(
            rows,
            event,
            f"Initiative for turn {p['turn']}: {throws}{tie}. {p['first']} activates first."
            f"{dice_text(p['dice'])}",
        )
