"""Medical treatment and casualty evacuation in battle (SG2 P.39, P.44-45, P.54).

Treatment: one Reorganise action treats every current casualty of a unit, one D6 each
(:func:`rules.sg2.medical.treat_unit_casualties`). Casevac: a unit leader calls the flight in
(a communication roll), it travels the Inbound Chart to the battle area, squads load their
stabilised wounded, and when it leaves the wounded go to the rear and the units it attended may
gain confidence (:mod:`rules.sg2.casevac`).

A side's casevac lives in its ``BattleSide.casevac`` JSON: ``status`` is ``none`` (no casevac in
the scenario), ``on_call``, ``called`` (inbound in ``box`` since ``called_turn``), ``arrived``
or ``departed``; ``aboard`` lists the troopers loaded and the unit each came from.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action, dice_json
from battles.models import Battle, BattleSide, Participant
from battles.morale import command_level
from battles.projections import dice_text, log, participant_key, unit_name
from campaigns.events import DieRoll
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Trooper
from rosters.projections import service_record, unit_history
from rosters.vocabulary import TrooperRole, TrooperStatus
from rules.dice import DiceSource, Die
from rules.rulesets import Ruleset
from rules.sg2.casevac import (
    CASEVAC_TURNAROUND_BOX,
    NUMBERED_BOXES,
    CasevacError,
    casevac_call,
    casevac_rise_for_loaded_unit,
    casevac_rise_for_nearby_unit,
    load_casevac,
)
from rules.sg2.casualties import Figure, FigureRole, FigureState
from rules.sg2.command import CommandLevel
from rules.sg2.medical import treat_unit_casualties
from rules.sg2.scales import Confidence
from rules.sg2.scales import Quality as SG2Quality

# --- Events ---------------------------------------------------------------------------------------

TreatmentResult = Literal["dead", "stabilised", "fit"]


class Treatment(EventPayload):
    """One casualty's treatment: the modified total and what became of him."""

    trooper_id: uuid.UUID
    total: int
    result: TreatmentResult


@event_type("battles.CasualtiesTreated", stream="battle")
class CasualtiesTreated(EventPayload):
    """A unit treated its casualties in a Reorganise action (SG2 P.39): one D6 each, in roster
    order, so ``dice[i]`` is the die of ``treatments[i]``."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    medic: bool
    medical_unit_id: uuid.UUID | None
    modifier: int
    treatments: list[Treatment] = Field(min_length=1)
    dice: list[DieRoll] = Field(default_factory=list)


@event_type("battles.CasevacCalled", stream="battle")
class CasevacCalled(EventPayload):
    """A unit leader called the side's casevac (SG2 P.54): the communication roll, and the
    Inbound Chart box the flight starts from if it got through."""

    battle_id: uuid.UUID
    side: str
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    called: bool
    target: int
    jammed: bool
    box: int | None = Field(description="Inbound Chart box the casevac starts in, if called.")
    dice: list[DieRoll] = Field(default_factory=list)


@event_type("battles.CasevacArrived", stream="battle")
class CasevacArrived(EventPayload):
    """The side's casevac reached the battle area and entered the table (SG2 P.44, P.54)."""

    battle_id: uuid.UUID
    side: str
    turn: int = Field(ge=0)
    dice: list[DieRoll] = Field(default_factory=list)


@event_type("battles.CasevacLoaded", stream="battle")
class CasevacLoaded(EventPayload):
    """A squad loaded its wounded aboard the side's casevac (SG2 P.54)."""

    battle_id: uuid.UUID
    side: str
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    trooper_ids: list[uuid.UUID] = Field(min_length=1)
    aboard: int
    capacity: int
    full: bool
    dice: list[DieRoll] = Field(default_factory=list)


class CasevacRise(EventPayload):
    """One unit's confidence roll as the casevac leaves."""

    unit_id: uuid.UUID
    reason: Literal["loaded", "nearby"]
    eligible: bool
    confidence_before: str
    confidence_after: str
    dice: list[DieRoll] = Field(default_factory=list)


@event_type("battles.CasevacDeparted", stream="battle")
class CasevacDeparted(EventPayload):
    """The side's casevac left the table with its wounded (SG2 P.54): they go to the rear, and
    the squads it loaded and the friendly units nearby roll to gain confidence. ``dice`` holds
    every die, in the order of ``rises``."""

    battle_id: uuid.UUID
    side: str
    turn: int = Field(ge=0)
    trooper_ids: list[uuid.UUID]
    rises: list[CasevacRise]
    dice: list[DieRoll] = Field(default_factory=list)


# The number of the box a departed casevac turns round in before it can come back (P.54).
TURNAROUND_BOX = next(n for n, box in NUMBERED_BOXES.items() if box is CASEVAC_TURNAROUND_BOX)

# --- Reading the battle ---------------------------------------------------------------------------

# How a roster status reads on the table (P.7 markers). Troopers in the rear or gone are not on
# the table and take no part.
FIGURE_STATES: dict[str, FigureState] = {
    TrooperStatus.FIT: FigureState.FIT,
    TrooperStatus.WOUNDED: FigureState.UNTREATED,
    TrooperStatus.STABILISED: FigureState.STABILISED,
    TrooperStatus.DEAD: FigureState.DEAD,
}

ROSTER_STATUS: dict[FigureState, TrooperStatus] = {
    FigureState.DEAD: TrooperStatus.DEAD,
    FigureState.STABILISED: TrooperStatus.STABILISED,
    FigureState.FIT: TrooperStatus.FIT,
}


def figures_of(troopers: list[Trooper]) -> list[Figure]:
    """The unit's figures on the table, in roster order. Only the medic's role matters here."""
    return [
        Figure(
            id=str(trooper.id),
            role=FigureRole.MEDIC if trooper.role == TrooperRole.MEDIC else FigureRole.RIFLEMAN,
            state=FIGURE_STATES[trooper.status],
        )
        for trooper in troopers
        if trooper.status in FIGURE_STATES
    ]


def side_of(ctx: BattleContext, side: str, *, field: str = "side") -> BattleSide:
    found = ctx.sides.get(side)
    if found is None:
        raise CommandError(
            "battle.unknown_side",
            f"There is no side {side!r} in this battle: choose from {', '.join(ctx.sides)}.",
            field=field,
        )
    return found


def _names(rows: Rows, trooper_ids: list[Any]) -> str:
    names = []
    for trooper_id in trooper_ids:
        trooper = rows.get(Trooper, trooper_id)
        names.append(trooper["name"] if trooper else "a trooper")
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def _battle_name(rows: Rows, battle_id: Any) -> str:
    battle = rows.get(Battle, battle_id)
    return battle["name"] if battle else "battle"


# --- Medical treatment (P.39) ---------------------------------------------------------------------


class MedicalTreatmentParams(Params):
    unit_id: uuid.UUID
    medical_unit_id: uuid.UUID | None = Field(
        default=None, description="A medical unit of the side's mission attending the unit (+2)."
    )
    trooper_ids: list[uuid.UUID] | None = Field(
        default=None,
        description="The casualties as the table sees them: if given, exactly the unit's "
        "current casualties, so the dice go to the troopers the players meant.",
    )


@battle_action
class MedicalTreatment(BattleAction):
    """Treat every current casualty of a unit in one Reorganise action (SG2 P.39).

    One D6 per casualty in roster order, +1 if the unit has a medic, +2 if a medical unit of
    the side's mission attends (options ``medical_modifiers_stack`` and ``medic_must_be_fit``):
    1-2 dead, 3-5 stabilised, 6+ back in action.
    """

    action = "medical_treatment"
    Params = MedicalTreatmentParams

    def check_action(self, ctx: BattleContext, params: MedicalTreatmentParams) -> None:
        ctx.require_ruleset(Ruleset.SG2, "Medical treatment")
        participant = ctx.participant(params.unit_id)
        if params.medical_unit_id is not None:
            attending = {
                uuid.UUID(str(u))
                for u in ctx.sides[participant.side].mission.get("medical_unit_ids", [])
            }
            if params.medical_unit_id not in attending:
                raise RuleViolation(
                    "treatment.no_medical_unit",
                    "That unit is not a medical unit on this side's mission card.",
                    field="medical_unit_id",
                )
        troopers = ctx.troopers(params.unit_id)
        wounded = {t.id for t in troopers if t.status == TrooperStatus.WOUNDED}
        if params.trooper_ids is not None:
            _check_named(params.trooper_ids, troopers, wounded)
        if not wounded:
            raise StateConflict(
                "treatment.no_casualties",
                f"{ctx.unit(params.unit_id).name} has no untreated casualties to treat.",
                field="unit_id",
            )

    def resolve(
        self, ctx: BattleContext, params: MedicalTreatmentParams, dice: DiceSource
    ) -> list[Any]:
        troopers = ctx.troopers(params.unit_id)
        outcome = treat_unit_casualties(
            dice=dice,
            figures=figures_of(troopers),
            medical_unit=params.medical_unit_id is not None,
            medical_modifiers_stack=ctx.options.medical_modifiers_stack,
            medic_must_be_fit=ctx.options.medic_must_be_fit,
        )
        return [
            CasualtiesTreated(
                battle_id=ctx.battle.id,
                unit_id=params.unit_id,
                turn=ctx.battle.turn,
                medic=outcome.medic,
                medical_unit_id=params.medical_unit_id,
                modifier=outcome.modifier,
                treatments=[
                    Treatment(
                        trooper_id=uuid.UUID(t.figure_id),
                        total=t.total,
                        result=ROSTER_STATUS[t.state].value,
                    )
                    for t in outcome.treatments
                ],
                dice=dice_json(outcome.rolls),
            )
        ]


def _check_named(named: list[uuid.UUID], troopers: list[Trooper], wounded: set[uuid.UUID]) -> None:
    by_id = {t.id: t for t in troopers}
    for index, trooper_id in enumerate(named):
        field = f"trooper_ids.{index}"
        trooper = by_id.get(trooper_id)
        if trooper is None:
            raise RuleViolation(
                "treatment.not_in_unit", "That trooper is not in the unit treated.", field=field
            )
        if trooper.status == TrooperStatus.STABILISED:
            raise StateConflict(
                "treatment.already_treated",
                f"{trooper.name} is already stabilised; he is not treated again (P.39).",
                field=field,
            )
        if trooper.status != TrooperStatus.WOUNDED:
            raise StateConflict(
                "treatment.not_wounded",
                f"{trooper.name} is {trooper.status.replace('_', ' ')}: only an untreated "
                "casualty can be treated.",
                field=field,
            )
    if len(set(named)) != len(named):
        raise CommandError("action.invalid", "A trooper is named twice.", field="trooper_ids")
    left_out = [by_id[t].name for t in wounded - set(named)]
    if left_out:
        # One Reorganise action treats all the unit's casualties (P.39): naming only some would
        # hand the dice to the wrong men.
        raise StateConflict(
            "treatment.casualty_not_named",
            f"{', '.join(sorted(left_out))} is also an untreated casualty of the unit; one "
            "Reorganise action treats them all.",
            field="trooper_ids",
        )


# --- Casevac (P.54, P.44-45) ----------------------------------------------------------------------


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
        ctx.require_ruleset(Ruleset.SG2, "Casualty evacuation")
        participant = ctx.participant(params.unit_id)
        side = ctx.sides[participant.side]
        status = side.casevac.get("status", "none")
        if status == "none":
            raise StateConflict(
                "casevac.not_on_call",
                f"{side.side} has no casevac on call in this scenario.",
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
        if side.casevac.get("status") == "departed":
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


@battle_action
class CasevacArrive(BattleAction):
    """The side's casevac reaches the battle area (SG2 P.44): a counter moves one box in each
    Turn End Phase, the turn it was placed included, so a flight called in turn T into box B is
    on the table from turn T + B. No dice: enter an empty list, or none."""

    action = "casevac_arrive"
    Params = CasevacSideParams

    def check_action(self, ctx: BattleContext, params: CasevacSideParams) -> None:
        ctx.require_ruleset(Ruleset.SG2, "Casualty evacuation")
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

    def resolve(self, ctx: BattleContext, params: CasevacSideParams, dice: DiceSource) -> list[Any]:
        return [CasevacArrived(battle_id=ctx.battle.id, side=params.side, turn=ctx.battle.turn)]


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
        ctx.require_ruleset(Ruleset.SG2, "Casualty evacuation")
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


@battle_action
class CasevacDepart(BattleAction):
    """The side's casevac leaves the table (SG2 P.54). Every trooper aboard goes to the rear
    (``casevaced``; the after-action roll decides the rest). If it leaves with wounded, each
    squad whose wounded it loaded rolls a D6 (1-2 nothing, 3-5 +1, 6 +2 confidence) and each
    other friendly unit nearby with no wounded of its own awaiting evacuation rolls a D6 (+1 on
    5-6). Unlike a rally this can lift a unit above its fatigue starting level, up to Confident.

    Dice: one D6 per loading squad not already Confident, in the order they loaded, then one per
    eligible nearby unit not already Confident, in the order given.
    """

    action = "casevac_depart"
    Params = CasevacDepartParams

    def check_action(self, ctx: BattleContext, params: CasevacDepartParams) -> None:
        ctx.require_ruleset(Ruleset.SG2, "Casualty evacuation")
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
                dice=[die for rise in rises for die in rise.dice],
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


# --- Projection -----------------------------------------------------------------------------------


def _side_key(p: dict[str, Any]) -> str:
    return f"{p['battle_id']}:{p['side']}"


def _casevac(rows: Rows, p: dict[str, Any]) -> dict[str, Any] | None:
    side = rows.get(BattleSide, _side_key(p))
    return dict(side["casevac"]) if side else None


_TREATED = {
    "dead": "could not be saved: dead",
    "stabilised": "stabilised",
    "fit": "back in action",
}


@register
class MedicalProjection(Projection):
    """Treatment and casevac: trooper statuses, the side's casevac, confidence, histories and
    the battle log (rows of the battles and rosters projections)."""

    name = "battles.medical"

    @Projection.handles("battles.CasualtiesTreated")
    def casualties_treated(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = unit_name(rows, p["unit_id"])
        help_ = []
        if p["medic"]:
            help_.append("a medic")
        if p["medical_unit_id"]:
            help_.append(f"{unit_name(rows, p['medical_unit_id'])} attending")
        how = f" with {' and '.join(help_)} (+{p['modifier']})" if help_ else ""
        where = _battle_name(rows, p["battle_id"])
        outcomes = []
        dead = 0
        for index, treatment in enumerate(p["treatments"]):
            trooper = rows.get(Trooper, treatment["trooper_id"])
            if trooper is None:
                continue
            die = p["dice"][index : index + 1]
            result = _TREATED[treatment["result"]]
            rows.update(Trooper, treatment["trooper_id"], status=treatment["result"])
            dead += treatment["result"] == "dead"
            roll = f"{die[0]['result']} + {p['modifier']} = {treatment['total']}" if die else ""
            service_record(
                rows,
                event,
                treatment["trooper_id"],
                f"Treated for wounds in {where}{how}: {roll}, {result}.",
                battle_id=p["battle_id"],
                dice=die,
            )
            log(
                rows,
                event,
                f"{trooper['name']} of {unit} treated{how}: {roll}, {result}.{dice_text(die)}",
                n=index,
                dice=die,
            )
            outcomes.append(f"{trooper['name']} {result}")
        unit_history(
            rows,
            event,
            p["unit_id"],
            f"Casualties treated in {where}{how}: {'; '.join(outcomes)}.",
            {"strength": -dead} if dead else {},
            battle_id=p["battle_id"],
            dice=p["dice"],
        )

    @Projection.handles("battles.CasevacCalled")
    def casevac_called(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        state = _casevac(rows, p)
        if state is None:
            return
        caller = unit_name(rows, p["unit_id"])
        face = p["dice"][0]["result"] if p["dice"] else "?"
        if p["called"]:
            state.update(status="called", box=p["box"], called_turn=p["turn"], aboard=[])
            rows.update(BattleSide, _side_key(p), casevac=state)
            summary = (
                f"{caller} called {p['side']}'s casevac: {face} beats {p['target']}; it is "
                f"inbound in box {p['box']}, due in the battle area in turn "
                f"{p['turn'] + p['box']}."
            )
        else:
            why = "jammed" if p["jammed"] else f"{face} does not beat {p['target']}"
            summary = f"{caller} called {p['side']}'s casevac but the call failed: {why}."
        log(rows, event, summary + dice_text(p["dice"]))

    @Projection.handles("battles.CasevacArrived")
    def casevac_arrived(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        state = _casevac(rows, p)
        if state is None:
            return
        state.update(status="arrived", box=None, arrived_turn=p["turn"])
        rows.update(BattleSide, _side_key(p), casevac=state)
        log(rows, event, f"{p['side']}'s casevac reached the battle area.")

    @Projection.handles("battles.CasevacLoaded")
    def casevac_loaded(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        state = _casevac(rows, p)
        if state is None:
            return
        state["aboard"] = [
            *state.get("aboard", []),
            *({"trooper_id": t, "unit_id": p["unit_id"]} for t in p["trooper_ids"]),
        ]
        state["full"] = p["full"]
        rows.update(BattleSide, _side_key(p), casevac=state)
        unit = unit_name(rows, p["unit_id"])
        for trooper_id in p["trooper_ids"]:
            service_record(
                rows,
                event,
                trooper_id,
                f"Loaded aboard the casevac by {unit} in {_battle_name(rows, p['battle_id'])}.",
                battle_id=p["battle_id"],
            )
        full = ": full, it must leave at once" if p["full"] else ""
        log(
            rows,
            event,
            f"{unit} loaded {_names(rows, p['trooper_ids'])} aboard {p['side']}'s casevac "
            f"({p['aboard']} of {p['capacity']} aboard{full}).",
        )

    @Projection.handles("battles.CasevacDeparted")
    def casevac_departed(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        state = _casevac(rows, p)
        if state is None:
            return
        from_unit = {e["trooper_id"]: e["unit_id"] for e in state.get("aboard", [])}
        state.update(status="departed", aboard=[], full=False, departed_turn=p["turn"])
        rows.update(BattleSide, _side_key(p), casevac=state)
        where = _battle_name(rows, p["battle_id"])
        flown: dict[str, list[str]] = {}
        for trooper_id in p["trooper_ids"]:
            if rows.get(Trooper, trooper_id) is None:
                continue
            rows.update(Trooper, trooper_id, status=TrooperStatus.CASEVACED.value)
            service_record(
                rows,
                event,
                trooper_id,
                f"Flown out of {where} by casevac, to the rear.",
                battle_id=p["battle_id"],
            )
            flown.setdefault(from_unit.get(trooper_id, ""), []).append(trooper_id)
        if p["trooper_ids"]:
            log(
                rows,
                event,
                f"{p['side']}'s casevac left the table with {_names(rows, p['trooper_ids'])}.",
                dice=[],
            )
        else:
            log(rows, event, f"{p['side']}'s casevac left the table empty.", dice=[])
        history: dict[str, tuple[list[str], dict[str, Any], list[Any]]] = {
            unit_id: ([f"{_names(rows, ids)} flown out by casevac"], {"strength": -len(ids)}, [])
            for unit_id, ids in flown.items()
            if unit_id
        }
        for index, rise in enumerate(p["rises"], start=1):
            key = participant_key(p["battle_id"], rise["unit_id"])
            if rows.get(Participant, key) is not None:
                rows.update(Participant, key, confidence=rise["confidence_after"])
            name = unit_name(rows, rise["unit_id"])
            why = "its wounded flown out" if rise["reason"] == "loaded" else "comrades evacuated"
            before, after = rise["confidence_before"], rise["confidence_after"]
            if not rise["eligible"]:
                change = "has wounded of its own awaiting evacuation: no change"
            elif not rise["dice"]:
                change = f"already {after}"
            elif after == before:
                change = f"stays {after}"
            else:
                change = f"rises from {before} to {after}"
            log(
                rows,
                event,
                f"{name} ({why}): {change}.{dice_text(rise['dice'])}",
                n=index,
                dice=rise["dice"],
            )
            lines, changes, dice = history.setdefault(rise["unit_id"], ([], {}, []))
            if after != before:
                lines.append(f"confidence {before} to {after} as the casevac left")
                changes["confidence"] = [before, after]
            dice.extend(rise["dice"])
        for unit_id, (lines, changes, dice) in sorted(history.items()):
            if lines:
                unit_history(
                    rows,
                    event,
                    unit_id,
                    f"{where}: {'; '.join(lines)}.",
                    changes,
                    battle_id=p["battle_id"],
                    dice=dice,
                )
