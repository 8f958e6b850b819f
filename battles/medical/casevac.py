"""Casualty evacuation in battle (SG2 P.54, P.44-45): a unit leader calls the flight in (a
communication roll), it travels the Inbound Chart to the battle area, squads load their
stabilised wounded, and when it leaves the wounded go to the rear and the units it attended may
gain confidence (:mod:`rules.sg2.casevac`). An airborne casevac runs through the enemy's Air
Defence Environment on its way in and on its way out (P.48, P.45; :mod:`rules.sg2.air_defence`):
the side's mission card names the ADE it faces (``hostile_ade``), its casevac plan the aircraft's
ECM, armour and pilot.

A side's casevac lives in its ``BattleSide.casevac`` JSON: ``status`` is ``none`` (no casevac in
the scenario), ``on_call``, ``called`` (inbound in ``box`` since ``called_turn``), ``arrived``,
``departed``, ``turned_back`` (aborted on its way in, back at base) or ``lost`` (shot down);
``aboard`` lists the troopers loaded and the unit each came from.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.medical.events import (
    AirDefenceCheck,
    CasevacArrived,
    CasevacCalled,
    CasevacDeparted,
    CasevacLoaded,
    CasevacRise,
    CasevacShotDown,
    CasevacTurnedBack,
)
from battles.models import BattleSide, Participant
from battles.morale import command_level
from campaigns.events import dice_json
from eventlog.errors import CommandError, RuleViolation, StateConflict
from rosters.models import Trooper
from rosters.vocabulary import TrooperStatus
from rules.dice import DiceSource, Die
from rules.sg2.air_defence import (
    AirDefence,
    AirDefenceOutcome,
    AirDefenceResult,
    air_defence_check,
)
from rules.sg2.casevac import (
    CASEVAC_TURNAROUND_BOX,
    NUMBERED_BOXES,
    CasevacError,
    casevac_call,
    casevac_rise_for_loaded_unit,
    casevac_rise_for_nearby_unit,
    load_casevac,
)
from rules.sg2.command import CommandLevel
from rules.sg2.scales import Confidence
from rules.sg2.scales import Quality as SG2Quality
from rules.sg2.vehicles import VehicleArmour

# The number of the box a departed casevac turns round in before it can come back (P.54).
TURNAROUND_BOX = next(n for n, box in NUMBERED_BOXES.items() if box is CASEVAC_TURNAROUND_BOX)


def side_of(ctx: BattleContext, side: str, *, field: str = "side") -> BattleSide:
    found = ctx.sides.get(side)
    if found is None:
        raise CommandError(
            "battle.unknown_side",
            f"There is no side {side!r} in this battle: choose from {', '.join(ctx.sides)}.",
            field=field,
        )
    return found


class CasevacCallParams(Params):
    unit_id: uuid.UUID = Field(description="The unit whose leader calls.")
    jamming_die: Literal[6, 8, 10, 12] | None = Field(
        default=None, description="The enemy EW die, if the enemy jams the call (P.52)."
    )


@battle_action
class CasevacCall(BattleAction):
    """A unit leader calls the side's casevac (SG2 P.54): a communication roll (P.16) with the
    caller's quality die, one type lower for each command level between the caller and the level
    the casevac is allocated at (the plan's ``command_level``), needing more than the caller's LV.
    On success the flight is inbound, starting in the plan's ``start_box``.

    Dice: the communication die, then the jamming die if the enemy jams.
    """

    action = "casevac_call"
    Params = CasevacCallParams

    def check_action(self, ctx: BattleContext, params: CasevacCallParams) -> None:
        participant = ctx.participant(params.unit_id)
        side = ctx.sides[participant.side]
        status = side.casevac.get("status", "none")
        if status == "none":
            raise StateConflict(
                "casevac.not_on_call",
                f"{side.side} has no casevac on call in this scenario.",
                field="unit_id",
            )
        if status == "lost":
            raise StateConflict(
                "casevac.lost",
                f"{side.side}'s casevac was shot down: there is no casevac left to call.",
                field="unit_id",
            )
        if status in ("called", "arrived"):
            raise StateConflict(
                "casevac.already_called",
                f"{side.side}'s casevac is already {status}.",
                field="unit_id",
            )
        plan = side.mission["casevac"]
        if self._box(side) not in NUMBERED_BOXES:
            raise RuleViolation(
                "casevac.bad_start_box",
                f"The Inbound Chart has boxes 1 to 3; the plan starts the casevac in box "
                f"{plan['start_box']}.",
                field="unit_id",
            )
        if command_level(ctx.unit(params.unit_id)) > plan["command_level"]:
            raise RuleViolation(
                "casevac.caller_above_allocation",
                "The caller commands above the level the casevac is allocated at.",
                field="unit_id",
            )

    @staticmethod
    def _box(side: BattleSide) -> int:
        # A flight that has left must reach box 3 before it turns back (P.54): called again, it
        # comes in from there.
        if side.casevac.get("status") in ("departed", "turned_back"):
            return max(side.mission["casevac"]["start_box"], TURNAROUND_BOX)
        return side.mission["casevac"]["start_box"]

    def resolve(self, ctx: BattleContext, params: CasevacCallParams, dice: DiceSource) -> list[Any]:
        participant = ctx.participant(params.unit_id)
        side = ctx.sides[participant.side]
        unit = ctx.unit(params.unit_id)
        box = self._box(side)
        outcome = casevac_call(
            dice=dice,
            caller_quality=SG2Quality[unit.quality.upper()],
            caller_leadership=unit.leadership or 3,
            caller_level=command_level(unit),
            highest_level_on_table=CommandLevel(side.mission["casevac"]["command_level"]),
            casevac_in_loiter=False,
            jamming_die=Die(params.jamming_die) if params.jamming_die else None,
            casevac_call_box=box,
            casevac_enters=ctx.options.casevac_enters.value,
        )
        return [
            CasevacCalled(
                battle_id=ctx.battle.id,
                side=side.side,
                unit_id=unit.id,
                turn=ctx.battle.turn,
                called=outcome.called,
                target=outcome.communication.target,
                jammed=outcome.communication.jammed,
                box=box if outcome.called else None,
                dice=dice_json(outcome.rolls),
            )
        ]


class CasevacSideParams(Params):
    side: str


PRESS_ON = Field(
    default=True,
    description="If the enemy's air defences acquire the aircraft, whether its pilot presses on "
    "(then takes a reaction test at threat level +2) or aborts (P.48).",
)


class CasevacArriveParams(CasevacSideParams):
    press_on: bool = PRESS_ON


def _faces_ade(side: BattleSide) -> bool:
    """Whether the side's casevac runs through an enemy Air Defence Environment: it is airborne
    and the side's mission card names an ADE other than none (P.48)."""
    plan = side.mission["casevac"]
    return side.mission.get("hostile_ade", "none") != "none" and plan.get("airborne", True)


def _air_defence(
    side: BattleSide, dice: DiceSource, *, leaving: bool, press_on: bool
) -> tuple[AirDefenceOutcome | None, AirDefenceCheck | None]:
    """The side's casevac against the enemy's ADE on its way in or out (P.48, P.45), or nothing
    if it does not face one. Planning a battle makes sure a casevac that faces one has a pilot."""
    if not _faces_ade(side):
        return None, None
    plan = side.mission["casevac"]
    ade = AirDefence(side.mission["hostile_ade"])
    outcome = air_defence_check(
        dice=dice,
        ade=ade,
        leaving=leaving,
        armour=VehicleArmour(plan.get("armour_class", 0)),
        pilot_quality=SG2Quality[plan["crew_quality"].upper()],
        pilot_leadership=plan["crew_leadership"],
        ecm_die=Die(plan["ecm_die"]) if plan.get("ecm_die") else None,
        press_on=press_on,
    )
    assert outcome.die is not None
    check = AirDefenceCheck(
        ade=ade.value,
        leg="departure" if leaving else "arrival",
        die=outcome.die.value,
        acquired=outcome.acquired,
        pressed_on=outcome.pressed_on,
        reaction_target=outcome.reaction_target,
        reaction_passed=outcome.reaction_passed,
        result=outcome.result.value,
    )
    return outcome, check


@battle_action
class CasevacArrive(BattleAction):
    """The side's casevac reaches the battle area (SG2 P.44): a counter moves one box in each
    Turn End Phase, the turn it was placed included, so a flight called in turn T into box B is
    on the table from turn T + B.

    An airborne casevac first runs through the enemy's Air Defence Environment (P.48; the side's
    ``hostile_ade``): the ADE die against its ECM die (D4 without ECM); if the ADE wins it is
    acquired, and it aborts (``press_on`` false) or its pilot takes a reaction test at TL +2,
    failing which it aborts; pressing on, the ADE die against its armour die, and if the ADE wins
    it is shot down. Aborted, it goes back to base and may be called again (from box 3); shot
    down, it is lost.

    Dice: none without an ADE. Otherwise the ADE die and the ECM die; if acquired and pressing
    on, the pilot's quality die; if he passes, the ADE die and the armour die.
    """

    action = "casevac_arrive"
    Params = CasevacArriveParams

    def check_action(self, ctx: BattleContext, params: CasevacArriveParams) -> None:
        side = side_of(ctx, params.side)
        state = side.casevac
        if state.get("status") != "called":
            raise StateConflict(
                "casevac.not_called",
                f"{side.side}'s casevac has not been called (it is "
                f"{state.get('status', 'none').replace('_', ' ')}).",
                field="side",
            )
        due = state["called_turn"] + state["box"]
        if ctx.battle.turn < due:
            raise StateConflict(
                "casevac.still_inbound",
                f"{side.side}'s casevac is still on the Inbound Chart; it reaches the battle "
                f"area in turn {due}.",
                field="side",
            )

    def resolve(
        self, ctx: BattleContext, params: CasevacArriveParams, dice: DiceSource
    ) -> list[Any]:
        side = side_of(ctx, params.side)
        outcome, check = _air_defence(side, dice, leaving=False, press_on=params.press_on)
        common = {"battle_id": ctx.battle.id, "side": side.side, "turn": ctx.battle.turn}
        if outcome is None:
            return [CasevacArrived(**common)]
        rolled = dice_json(outcome.rolls)
        if outcome.result is AirDefenceResult.ABORTED:
            return [CasevacTurnedBack(**common, air_defence=check, dice=rolled)]
        if outcome.result is AirDefenceResult.SHOT_DOWN:
            return [CasevacShotDown(**common, trooper_ids=[], air_defence=check, dice=rolled)]
        return [CasevacArrived(**common, air_defence=check, dice=rolled)]


def _arrived(ctx: BattleContext, side: BattleSide, field: str) -> None:
    if side.casevac.get("status") != "arrived":
        raise StateConflict(
            "casevac.not_arrived",
            f"{side.side}'s casevac is not on the table "
            f"(it is {side.casevac.get('status', 'none').replace('_', ' ')}).",
            field=field,
        )


class CasevacLoadParams(Params):
    unit_id: uuid.UUID = Field(description="The squad loading its wounded.")
    trooper_ids: list[uuid.UUID] = Field(min_length=1)


@battle_action
class CasevacLoad(BattleAction):
    """A squad in contact with the landed casevac loads its stabilised wounded (SG2 P.54): one
    action, no dice, never more injured aboard than half the vehicle's troop capacity (options
    ``casevac_capacity_rounding`` and ``casevac_loads_untreated``)."""

    action = "casevac_load"
    Params = CasevacLoadParams

    def check_action(self, ctx: BattleContext, params: CasevacLoadParams) -> None:
        self._load(ctx, params)

    def resolve(self, ctx: BattleContext, params: CasevacLoadParams, dice: DiceSource) -> list[Any]:
        side, outcome = self._load(ctx, params)
        return [
            CasevacLoaded(
                battle_id=ctx.battle.id,
                side=side.side,
                unit_id=params.unit_id,
                turn=ctx.battle.turn,
                trooper_ids=params.trooper_ids,
                aboard=outcome.aboard,
                capacity=outcome.capacity,
                full=outcome.full,
            )
        ]

    def _load(self, ctx: BattleContext, params: CasevacLoadParams):
        participant = ctx.participant(params.unit_id)
        side = ctx.sides[participant.side]
        _arrived(ctx, side, "unit_id")
        if len(set(params.trooper_ids)) != len(params.trooper_ids):
            raise CommandError("action.invalid", "A trooper is named twice.", field="trooper_ids")
        found = {t.id: t for t in Trooper.objects.filter(id__in=params.trooper_ids)}
        aboard = {entry["trooper_id"] for entry in side.casevac.get("aboard", [])}
        forces = {str(f) for f in side.force_ids}
        stabilised = untreated = 0
        for index, trooper_id in enumerate(params.trooper_ids):
            field = f"trooper_ids.{index}"
            trooper = found.get(trooper_id)
            if trooper is None or str(trooper.force_id) not in forces:
                raise RuleViolation(
                    "casevac.other_side",
                    "That trooper is not of this side: the casevac takes its own side's wounded.",
                    field=field,
                )
            if trooper.unit_id != params.unit_id:
                raise RuleViolation(
                    "casevac.not_in_unit",
                    f"{trooper.name} is not in the loading squad: a squad loads its own "
                    "casualties (P.54).",
                    field=field,
                )
            if str(trooper.id) in aboard:
                raise StateConflict(
                    "casevac.already_aboard", f"{trooper.name} is already aboard.", field=field
                )
            if trooper.status == TrooperStatus.DEAD:
                raise StateConflict(
                    "casevac.dead",
                    f"{trooper.name} is dead: the casevac takes the living.",
                    field=field,
                )
            if trooper.status == TrooperStatus.STABILISED:
                stabilised += 1
            elif trooper.status == TrooperStatus.WOUNDED:
                untreated += 1
            else:
                raise StateConflict(
                    "casevac.not_a_casualty",
                    f"{trooper.name} is {trooper.status.replace('_', ' ')}, not a casualty.",
                    field=field,
                )
        try:
            outcome = load_casevac(
                troop_capacity=side.mission["casevac"]["troop_capacity"],
                aboard=len(aboard),
                stabilised=stabilised,
                untreated=untreated,
                casevac_capacity_rounding=ctx.options.casevac_capacity_rounding.value,
                casevac_loads_untreated=ctx.options.casevac_loads_untreated,
            )
        except CasevacError as exc:
            raise RuleViolation(exc.code, exc.message, field="trooper_ids") from None
        return side, outcome


class CasevacDepartParams(Params):
    side: str
    nearby_unit_ids: list[uuid.UUID] = Field(
        default_factory=list,
        description="Other friendly units within 12 inches of a unit the casevac attended.",
    )
    out_of_sight_unit_ids: list[uuid.UUID] = Field(
        default_factory=list,
        description="Those of the nearby units that cannot see the casevac; they gain nothing "
        "when the option casevac_nearby_requires_los is on.",
    )
    press_on: bool = PRESS_ON


@battle_action
class CasevacDepart(BattleAction):
    """The side's casevac leaves the table (SG2 P.54). Every trooper aboard goes to the rear
    (``casevaced``; the after-action roll decides the rest). If it leaves with wounded, each
    squad whose wounded it loaded rolls a D6 (1-2 nothing, 3-5 +1, 6 +2 confidence) and each
    other friendly unit nearby with no wounded of its own awaiting evacuation rolls a D6 (+1 on
    5-6). Unlike a rally this can lift a unit above its fatigue starting level, up to Confident.

    An airborne casevac runs through the enemy's Air Defence Environment again on its way out,
    the ADE one die type lower (P.45, P.48), as on arrival. Shot down, it is lost with everyone
    aboard: the wounded it carried are killed (P.49) and no unit rolls for confidence, as none of
    its wounded were recovered. Acquired and aborting, it still flies home with its wounded.

    Dice: first the air defence check's (none without an ADE; the ADE die and the ECM die; if
    acquired and pressing on, the pilot's quality die; if he passes, the ADE die and the armour
    die); unless it is shot down, then one D6 per loading squad not already Confident, in the
    order they loaded, then one per eligible nearby unit not already Confident, in the order
    given.
    """

    action = "casevac_depart"
    Params = CasevacDepartParams

    def check_action(self, ctx: BattleContext, params: CasevacDepartParams) -> None:
        self._units(ctx, params)

    def _units(
        self, ctx: BattleContext, params: CasevacDepartParams
    ) -> tuple[BattleSide, list[Participant], list[Participant]]:
        side = side_of(ctx, params.side)
        _arrived(ctx, side, "side")
        loaders: list[Participant] = []
        for entry in side.casevac.get("aboard", []):
            participant = ctx.participants.get(uuid.UUID(entry["unit_id"]))
            # A squad that has left the field since loading is no longer there to take heart.
            if (
                participant is not None
                and participant.status == Participant.Status.FIGHTING
                and participant not in loaders
            ):
                loaders.append(participant)
        if len(set(params.nearby_unit_ids)) != len(params.nearby_unit_ids):
            raise CommandError("action.invalid", "A unit is named twice.", field="nearby_unit_ids")
        nearby = []
        for index, unit_id in enumerate(params.nearby_unit_ids):
            field = f"nearby_unit_ids.{index}"
            participant = ctx.participant(unit_id, field=field)
            if participant.side != side.side:
                raise RuleViolation(
                    "casevac.other_side",
                    "Only friendly units take heart from the casevac.",
                    field=field,
                )
            if participant in loaders:
                raise RuleViolation(
                    "casevac.nearby_is_loader",
                    "That unit loaded wounded: it rolls as a loading squad, not as a nearby unit.",
                    field=field,
                )
            nearby.append(participant)
        for index, unit_id in enumerate(params.out_of_sight_unit_ids):
            if unit_id not in params.nearby_unit_ids:
                raise CommandError(
                    "action.invalid",
                    "Name only nearby units as out of sight.",
                    field=f"out_of_sight_unit_ids.{index}",
                )
        return side, loaders, nearby

    def resolve(
        self, ctx: BattleContext, params: CasevacDepartParams, dice: DiceSource
    ) -> list[Any]:
        side, loaders, nearby = self._units(ctx, params)
        aboard = [uuid.UUID(entry["trooper_id"]) for entry in side.casevac.get("aboard", [])]
        flight, check = _air_defence(side, dice, leaving=True, press_on=params.press_on)
        rolled = dice_json(flight.rolls) if flight else []
        if flight is not None and flight.aboard_killed:
            return [
                CasevacShotDown(
                    battle_id=ctx.battle.id,
                    side=side.side,
                    turn=ctx.battle.turn,
                    trooper_ids=aboard,
                    air_defence=check,
                    dice=rolled,
                )
            ]
        rises = []
        if aboard:
            for participant in loaders:
                before = Confidence[participant.confidence.upper()]
                outcome = casevac_rise_for_loaded_unit(dice=dice, confidence=before)
                rises.append(self._rise(participant, "loaded", outcome))
            waiting = (TrooperStatus.WOUNDED, TrooperStatus.STABILISED)
            for participant in nearby:
                before = Confidence[participant.confidence.upper()]
                awaiting = Trooper.objects.filter(
                    unit_id=participant.unit_id, status__in=waiting
                ).exists()
                outcome = casevac_rise_for_nearby_unit(
                    dice=dice,
                    confidence=before,
                    within_12_inches=True,
                    has_wounded_awaiting_evacuation=awaiting,
                    in_sight=participant.unit_id not in params.out_of_sight_unit_ids,
                    casevac_nearby_requires_los=ctx.options.casevac_nearby_requires_los,
                )
                rises.append(self._rise(participant, "nearby", outcome))
        return [
            CasevacDeparted(
                battle_id=ctx.battle.id,
                side=side.side,
                turn=ctx.battle.turn,
                trooper_ids=aboard,
                rises=rises,
                air_defence=check,
                dice=[*rolled, *(die for rise in rises for die in rise.dice)],
            )
        ]

    @staticmethod
    def _rise(participant: Participant, reason: str, outcome: Any) -> CasevacRise:
        return CasevacRise(
            unit_id=participant.unit_id,
            reason=reason,
            eligible=outcome.eligible,
            confidence_before=outcome.confidence_before.name.lower(),
            confidence_after=outcome.confidence_after.name.lower(),
            dice=dice_json(outcome.rolls),
        )
