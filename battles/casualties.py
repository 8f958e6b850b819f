"""Casualties in battle: wounds and kills on a unit, the loss of its leader, hits on vehicles and
their occupants, and surrender (SG2 P.10, P.35-40, P.53).

The rules decide in :mod:`rules.sg2.casualties`, :mod:`rules.sg2.vehicles` and
:mod:`rules.sg2.command`; this module turns the battle's state into their inputs and their
outcomes into events, and folds the events into troopers, units, vehicles and the battle log.

A trooper's roster status stands for his figure's state on the table: ``fit`` is FIT (or a
power-armoured trooper whose suit was wrecked, who is unhurt), ``wounded`` an untreated casualty
(white skull), ``stabilised`` a treated one (red cross), ``dead`` a black skull.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action, dice_json
from battles.models import Battle, Participant
from battles.projections import dice_text, label, log, participant_key, unit_name
from battles.services import battle_stream
from campaigns.events import DieRoll
from eventlog import store
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, StateConflict
from eventlog.projections import Projection, Rows, register, voids
from eventlog.store import StoredEvent
from rosters.models import Trooper, TrooperRecordEntry, Unit, Vehicle
from rosters.projections import service_record, unit_history
from rosters.vocabulary import TrooperRole, TrooperStatus, VehicleState
from rules.dice import DiceSource, Die, Roll
from rules.rulesets import Ruleset
from rules.sg2 import casualties as rules
from rules.sg2.casualties import FigureCasualty, FigureState, HitResult
from rules.sg2.command import loss_of_unit_leader
from rules.sg2.morale import ConfidenceCircumstance, escort_guards_needed
from rules.sg2.scales import Confidence, MissionMotivation
from rules.sg2.scales import Quality as SG2Quality
from rules.sg2.vehicles import (
    SuspensionType,
    VehicleArmour,
    VehicleDamage,
    VehicleStatus,
    occupant_casualties,
    occupants_after_hit,
    resolve_vehicle_hit,
)

LEADER_CASUALTY_EVENT = "battles.LeaderCasualtyResolved"
VEHICLE_HIT_EVENT = "battles.VehicleHit"

DieFaces = Literal[4, 6, 8, 10, 12]

# Roster statuses of troopers whose figures are on the table, and the figure state each means.
_FIGURE_STATE: dict[TrooperStatus, FigureState] = {
    TrooperStatus.FIT: FigureState.FIT,
    TrooperStatus.WOUNDED: FigureState.UNTREATED,
    TrooperStatus.STABILISED: FigureState.STABILISED,
    TrooperStatus.DEAD: FigureState.DEAD,
}

# What each figure state the rules can leave a trooper in is on the roster. A wrecked suit's
# wearer is unhurt (P.40): the roster has no state for the suit, so he stays fit.
_ROSTER_STATUS: dict[FigureState, TrooperStatus] = {
    FigureState.FIT: TrooperStatus.FIT,
    FigureState.SUIT_DISABLED: TrooperStatus.FIT,
    FigureState.UNTREATED: TrooperStatus.WOUNDED,
    FigureState.STABILISED: TrooperStatus.STABILISED,
    FigureState.DEAD: TrooperStatus.DEAD,
    FigureState.CAPTURED: TrooperStatus.CAPTURED,
}

_DOWN = (FigureState.UNTREATED, FigureState.STABILISED, FigureState.DEAD)


# --- Events ---------------------------------------------------------------------------------------


class TrooperCasualty(EventPayload):
    """What one resolution did to one trooper, with the dice that decided it."""

    trooper_id: uuid.UUID
    unit_id: uuid.UUID
    status_before: TrooperStatus
    status_after: TrooperStatus
    figure_after: str = Field(description="The figure's state (suit_disabled shows here only).")
    wounds: int = Field(ge=0)
    kills: int = Field(ge=0)
    power_armour_roll: int | None = Field(default=None, ge=1, le=6)
    dice: list[DieRoll] = Field(default_factory=list)


class PotentialHitRecord(EventPayload):
    """One potential hit of a fire: impact against armour, its result and who took it (P.36)."""

    hit_number: int = Field(ge=1)
    impact_die: int
    armour_die: int
    impact_roll: int
    armour_roll: int
    result: Literal["no_effect", "wound", "kill"]
    trooper_id: uuid.UUID | None
    allocation_roll: int | None


@event_type("battles.CasualtiesResolved", stream="battle")
class CasualtiesResolved(EventPayload):
    """Hits on a unit were turned into wounds and kills: allocated by the rules (SG2 P.35-36),
    or named by the umpire; power-armoured casualties rolled at once (P.40)."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    mode: Literal["allocate", "named"]
    potential_hits: int | None = None
    impact_die: int | None = None
    cover: str | None = None
    allocated_first: bool | None = None
    pool: list[uuid.UUID] = Field(default_factory=list)
    hits: list[PotentialHitRecord] = Field(default_factory=list)
    casualties: list[TrooperCasualty] = Field(default_factory=list)
    leaders_down: list[uuid.UUID] = Field(
        default_factory=list, description="Acting unit leaders made casualties (P.10 follows)."
    )
    dice: list[DieRoll] = Field(default_factory=list)


@event_type(LEADER_CASUALTY_EVENT, stream="battle")
class LeaderCasualtyResolved(EventPayload):
    """A unit's leader became a casualty: suppression, a confidence test and a successor with
    a new leadership value (SG2 P.10 LOSS OF UNIT LEADER)."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    leader_id: uuid.UUID
    leader_status: TrooperStatus = Field(description="The leader's status after this event.")
    casualty: TrooperCasualty | None = Field(
        default=None, description="His wound or death, if this event caused it."
    )
    lost: bool = Field(description="False when his power armour put him back in action (P.40).")
    successor_id: uuid.UUID | None
    leadership_before: int
    leadership_after: int
    suppression_before: int
    suppression_after: int
    circumstances: list[str]
    untreated_casualties: int = Field(ge=0)
    threat_level: int | None
    passed: bool | None
    confidence_before: str
    confidence_after: str
    dice: list[DieRoll] = Field(default_factory=list)


class OccupantRecord(EventPayload):
    """One occupant's rolls against a penetrating hit on his vehicle (P.39)."""

    trooper_id: uuid.UUID
    armour_roll: int | None = Field(description="None: his armour could not save him.")
    casualty: bool
    severity_roll: int | None


@event_type(VEHICLE_HIT_EVENT, stream="battle")
class VehicleHit(EventPayload):
    """A vehicle was hit: its damage (SG2 P.38-39) and its occupants' casualties (P.39)."""

    battle_id: uuid.UUID
    turn: int = Field(ge=0)
    vehicle_id: uuid.UUID
    unit_id: uuid.UUID
    impact_die: int
    impact_multiplier: int
    major_hit: bool
    armour_class: int
    suspension: str
    impact_score: int
    armour_score: int
    location: str | None
    suspension_impact_score: int | None
    suspension_score: int | None
    damage: str | None
    damage_before: list[str]
    damage_after: list[str]
    state_before: VehicleState
    state_after: VehicleState
    save_above: int | None
    occupants: list[OccupantRecord] = Field(default_factory=list)
    casualties: list[TrooperCasualty] = Field(default_factory=list)
    leaders_down: list[uuid.UUID] = Field(default_factory=list)
    bail_out: str = ""
    dice: list[DieRoll] = Field(default_factory=list)


class CapturedTrooper(EventPayload):
    trooper_id: uuid.UUID
    status_before: TrooperStatus


@event_type("battles.UnitSurrendered", stream="battle")
class UnitSurrendered(EventPayload):
    """A unit surrendered: its living troopers on the table were taken prisoner (SG2 P.53)."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    side: str
    prisoners_taken_by: str | None
    captured: list[CapturedTrooper]
    escort_guards: int = Field(ge=0, description="Guards the captor detaches: 1 per 6 (P.53).")
    dice: list[DieRoll] = Field(default_factory=list)


# --- Reading the battle's state -------------------------------------------------------------------


def _status(trooper: Trooper) -> TrooperStatus:
    return TrooperStatus(trooper.status)


def figure_of(trooper: Trooper) -> rules.Figure:
    """The trooper as the rules see his figure. A missing armour die is refused where the rules
    roll it; elsewhere it is never read."""
    return rules.Figure(
        id=str(trooper.id),
        state=_FIGURE_STATE[_status(trooper)],
        armour=Die(trooper.armour_die) if trooper.armour_die else Die.D6,
        power_armour=trooper.power_armour,
    )


def _require_on_table(trooper: Trooper, field: str) -> None:
    status = _status(trooper)
    if status is TrooperStatus.DEAD:
        raise StateConflict(
            "casualties.trooper_dead", f"{trooper.name} is already dead.", field=field
        )
    if status not in _FIGURE_STATE:
        raise StateConflict(
            "casualties.not_on_table",
            f"{trooper.name} is {label(status)} and not on the table.",
            field=field,
        )


def _require_armour_die(troopers: Iterable[Trooper], field: str) -> None:
    for trooper in troopers:
        if not trooper.armour_die:
            raise StateConflict(
                "casualties.no_armour_die",
                f"{trooper.name} has no armour die on the roster: the rules roll it (P.28).",
                field=field,
            )


def _member(troopers: Sequence[Trooper], trooper_id: uuid.UUID, field: str) -> Trooper:
    found = next((t for t in troopers if t.id == trooper_id), None)
    if found is None:
        raise CommandError(
            "casualties.not_in_unit", "That trooper is not in the unit.", field=field
        )
    return found


def _no_repeats(ids: Sequence[uuid.UUID], field: str) -> None:
    seen: set[uuid.UUID] = set()
    for index, trooper_id in enumerate(ids):
        if trooper_id in seen:
            raise CommandError(
                "casualties.named_twice", "A trooper is named twice.", field=f"{field}.{index}"
            )
        seen.add(trooper_id)


def _died_here(ctx: BattleContext, troopers: Sequence[Trooper]) -> set[uuid.UUID]:
    """Dead troopers whose service record has a line from this battle: their figures lie on
    this table, so an allocation pool of all figures counts them (P.36; SG2-C)."""
    dead = [t.id for t in troopers if _status(t) is TrooperStatus.DEAD]
    if not dead:
        return set()
    return set(
        TrooperRecordEntry.objects.filter(trooper_id__in=dead, battle_id=ctx.battle.id).values_list(
            "trooper_id", flat=True
        )
    )


def _battle_events(ctx: BattleContext, type_name: str) -> list[StoredEvent]:
    voided = voids(ctx.campaign.id)
    return [
        event
        for event in store.read(
            ctx.campaign.id, stream=battle_stream(ctx.battle.id), types=[type_name]
        )
        if event.sequence not in voided
    ]


def acting_leader(
    ctx: BattleContext, unit_id: uuid.UUID, troopers: Sequence[Trooper]
) -> Trooper | None:
    """Who leads the unit now: the last successor named in this battle, else its leader.

    The roster keeps each trooper's role; the chain of command within a battle lives in its
    events, so a successor is not renamed leader on the roster (the returning leader is the
    umpire's call, P.10; option ``returning_leader``).
    """
    by_id = {str(t.id): t for t in troopers}
    successor = None
    for event in _battle_events(ctx, LEADER_CASUALTY_EVENT):
        if event.payload["unit_id"] == str(unit_id) and event.payload["successor_id"]:
            successor = by_id.get(event.payload["successor_id"], successor)
    if successor is not None:
        return successor
    return next((t for t in troopers if t.role == TrooperRole.LEADER), None)


def _leaders_down(ctx: BattleContext, changes: Sequence[TrooperCasualty]) -> list[uuid.UUID]:
    """The acting leaders among troopers this event made casualties."""
    down: list[uuid.UUID] = []
    for change in changes:
        fell = change.status_before is TrooperStatus.FIT and change.status_after in (
            TrooperStatus.WOUNDED,
            TrooperStatus.STABILISED,
            TrooperStatus.DEAD,
        )
        if not fell:
            continue
        leader = acting_leader(ctx, change.unit_id, ctx.troopers(change.unit_id))
        if leader is not None and leader.id == change.trooper_id:
            down.append(change.trooper_id)
    return down


def _casualty(trooper: Trooper, change: FigureCasualty, rolls: Sequence[Roll]) -> TrooperCasualty:
    return TrooperCasualty(
        trooper_id=trooper.id,
        unit_id=trooper.unit_id,
        status_before=_status(trooper),
        status_after=_ROSTER_STATUS[change.after],
        figure_after=change.after.value,
        wounds=change.wounds,
        kills=change.kills,
        power_armour_roll=change.power_armour_roll,
        dice=dice_json(rolls),
    )


class _Rolls:
    """The rolls of an outcome, taken in the order the rules document they were rolled."""

    def __init__(self, rolls: Sequence[Roll]) -> None:
        self._rolls = list(rolls)
        self._next = 0

    def take(self) -> Roll:
        roll = self._rolls[self._next]
        self._next += 1
        return roll


# --- casualties -----------------------------------------------------------------------------------


class NamedCasualty(Params):
    trooper_id: uuid.UUID
    result: Literal["wounded", "killed"]


class CasualtiesParams(Params):
    unit_id: uuid.UUID
    mode: Literal["allocate", "named"] = Field(
        description="allocate: the rules place the hits (P.36); named: the umpire names them."
    )
    hits: int | None = Field(
        default=None,
        ge=0,
        le=60,
        description="allocate: potential hits of the fully effective fire (P.35-36, steps 1-2).",
    )
    impact_die: DieFaces | None = Field(
        default=None,
        description="allocate: the fire's impact die (small arms type, the support weapon's "
        "own, D8 for heavy weapons; P.37, P.40).",
    )
    cover: Literal["open", "soft", "hard"] = Field(
        default="open", description="allocate: the target's cover as seen from the firer (P.12)."
    )
    counting_order: list[uuid.UUID] = Field(
        default_factory=list,
        description="allocate: troopers counted first, from the most exposed (P.36); the rest "
        "of the unit follows in roster order.",
    )
    casualties: list[NamedCasualty] = Field(
        default_factory=list, description="named: each trooper hit and whether wounded or killed."
    )


@battle_action
class Casualties(BattleAction):
    """Wounds and kills on a unit, placed by the rules or named by the umpire."""

    action = "casualties"
    Params = CasualtiesParams

    def check_action(self, ctx: BattleContext, params: CasualtiesParams) -> None:
        ctx.require_ruleset(Ruleset.SG2, "Casualty resolution")
        ctx.participant(params.unit_id)
        troopers = ctx.troopers(params.unit_id)
        if params.mode == "allocate":
            self._check_allocate(ctx, params, troopers)
        else:
            self._check_named(params, troopers)

    def _check_allocate(
        self, ctx: BattleContext, params: CasualtiesParams, troopers: Sequence[Trooper]
    ) -> None:
        if params.casualties:
            raise CommandError(
                "action.invalid", "Name casualties only in named mode.", field="casualties"
            )
        for field in ("hits", "impact_die"):
            if getattr(params, field) is None:
                raise CommandError("action.invalid", f"Allocating hits needs {field}.", field=field)
        _no_repeats(params.counting_order, "counting_order")
        figures = self._figures(ctx, params, troopers)
        on_table = {t.id for t in figures}
        for index, trooper_id in enumerate(params.counting_order):
            field = f"counting_order.{index}"
            trooper = _member(troopers, trooper_id, field)
            if trooper.id not in on_table:
                _require_on_table(trooper, field)
        _require_armour_die((t for t in figures if _status(t) is not TrooperStatus.DEAD), "unit_id")

    def _check_named(self, params: CasualtiesParams, troopers: Sequence[Trooper]) -> None:
        given = [name for name in ("hits", "impact_die") if getattr(params, name) is not None] + (
            ["counting_order"] if params.counting_order else []
        )
        if given:
            raise CommandError(
                "action.invalid", f"{given[0]} is for allocate mode.", field=given[0]
            )
        if not params.casualties:
            raise CommandError("action.invalid", "Name at least one casualty.", field="casualties")
        _no_repeats([c.trooper_id for c in params.casualties], "casualties")
        for index, named in enumerate(params.casualties):
            field = f"casualties.{index}.trooper_id"
            _require_on_table(_member(troopers, named.trooper_id, field), field)

    @staticmethod
    def _figures(
        ctx: BattleContext, params: CasualtiesParams, troopers: Sequence[Trooper]
    ) -> list[Trooper]:
        """The unit's figures on the table in counting order: those named first, then the rest
        in roster order."""
        died_here = _died_here(ctx, troopers)
        present = [
            t
            for t in troopers
            if _status(t) in _FIGURE_STATE
            and (_status(t) is not TrooperStatus.DEAD or t.id in died_here)
        ]
        by_id = {t.id: t for t in present}
        first = [by_id[i] for i in params.counting_order if i in by_id]
        return first + [t for t in present if t.id not in params.counting_order]

    def resolve(self, ctx: BattleContext, params: CasualtiesParams, dice: DiceSource) -> list[Any]:
        troopers = ctx.troopers(params.unit_id)
        if params.mode == "allocate":
            event = self._allocate(ctx, params, troopers, dice)
        else:
            event = self._named(ctx, params, troopers, dice)
        return [event]

    def _allocate(
        self,
        ctx: BattleContext,
        params: CasualtiesParams,
        troopers: Sequence[Trooper],
        dice: DiceSource,
    ) -> CasualtiesResolved:
        figures = self._figures(ctx, params, troopers)
        options = ctx.options
        outcome = rules.resolve_fire_casualties(
            dice=dice,
            figures=[figure_of(t) for t in figures],
            potential_hits=params.hits,
            impact=Die(params.impact_die),
            cover=rules.Cover[params.cover.upper()],
            allocation_pool=rules.AllocationPool(options.allocation_pool.value),
            allocation_overflow=rules.AllocationOverflow(options.allocation_overflow.value),
            allocate_before_penetration=rules.AllocationOrder(
                options.allocate_before_penetration.value
            ),
            rewound_kills=options.rewound_kills,
            cover_shifts_armour_vs_direct_fire=options.cover_shifts_armour_vs_direct_fire,
        )
        # Split the rolls by hit, in the order resolve_fire_casualties documents.
        several = len(outcome.pool) > 1
        rolls = _Rolls(outcome.rolls)
        per_hit: dict[int, list[Roll]] = {hit.hit_number: [] for hit in outcome.hits}
        for hit in outcome.hits:
            if outcome.allocated_first and several:
                per_hit[hit.hit_number].append(rolls.take())
            per_hit[hit.hit_number] += [rolls.take(), rolls.take()]
        if not outcome.allocated_first and several:
            for hit in outcome.hits:
                if hit.result is not HitResult.NO_EFFECT:
                    per_hit[hit.hit_number].append(rolls.take())
        by_id = {str(t.id): t for t in figures}
        changes: list[TrooperCasualty] = []
        for change in outcome.casualties:
            own = [
                roll
                for hit in outcome.hits
                if hit.figure_id == change.figure_id and hit.result is not HitResult.NO_EFFECT
                for roll in per_hit[hit.hit_number]
            ]
            if change.power_armour_roll is not None:
                own.append(rolls.take())
            changes.append(_casualty(by_id[change.figure_id], change, own))
        return CasualtiesResolved(
            battle_id=ctx.battle.id,
            unit_id=params.unit_id,
            turn=ctx.battle.turn,
            mode="allocate",
            potential_hits=params.hits,
            impact_die=params.impact_die,
            cover=params.cover,
            allocated_first=outcome.allocated_first,
            pool=[uuid.UUID(i) for i in outcome.pool],
            hits=[
                PotentialHitRecord(
                    hit_number=hit.hit_number,
                    impact_die=hit.impact_die.value,
                    armour_die=hit.armour_die.value,
                    impact_roll=hit.impact_roll,
                    armour_roll=hit.armour_roll,
                    result=hit.result.value,
                    trooper_id=uuid.UUID(hit.figure_id) if hit.figure_id else None,
                    allocation_roll=hit.allocation_roll,
                )
                for hit in outcome.hits
            ],
            casualties=changes,
            leaders_down=_leaders_down(ctx, changes),
            dice=dice_json(outcome.rolls),
        )

    def _named(
        self,
        ctx: BattleContext,
        params: CasualtiesParams,
        troopers: Sequence[Trooper],
        dice: DiceSource,
    ) -> CasualtiesResolved:
        by_id = {t.id: t for t in troopers}
        named = [(by_id[c.trooper_id], c.result) for c in params.casualties]
        figures = [figure_of(t) for t, _ in named]
        changes: list[FigureCasualty] = []
        for figure, (_, result) in zip(figures, named, strict=True):
            wounds, kills = (0, 1) if result == "killed" else (1, 0)
            after = rules.state_after_hits(
                figure.state, wounds=wounds, kills=kills, rewound_kills=ctx.options.rewound_kills
            )
            changes.append(FigureCasualty(figure.id, figure.state, after, wounds, kills))
        pa_rolls = _Rolls(rules.settle_power_armour(dice, figures, changes))
        casualties = [
            _casualty(
                trooper,
                change,
                [pa_rolls.take()] if change.power_armour_roll is not None else [],
            )
            for (trooper, _), change in zip(named, changes, strict=True)
        ]
        return CasualtiesResolved(
            battle_id=ctx.battle.id,
            unit_id=params.unit_id,
            turn=ctx.battle.turn,
            mode="named",
            casualties=casualties,
            leaders_down=_leaders_down(ctx, casualties),
            dice=[roll for c in casualties for roll in c.dice],
        )


# --- leader_casualty ------------------------------------------------------------------------------


class LeaderCasualtyParams(Params):
    unit_id: uuid.UUID
    result: Literal["wounded", "killed"] | None = Field(
        default=None,
        description="What became of the leader; leave out if he already fell (to a casualties "
        "or vehicle_hit action) and only the loss of his command is to be resolved.",
    )
    successor_id: uuid.UUID | None = Field(
        default=None,
        description="Who takes over; default the next in seniority: the second in command, "
        "then roster order, among fit troopers.",
    )
    other_circumstances: list[ConfidenceCircumstance] = Field(
        default_factory=list,
        description="Whatever else the same event caused, for the one confidence test (P.20), "
        "e.g. casualties_from_fire. Untreated casualties are counted from the roster.",
    )


def _seniority(troopers: Sequence[Trooper]) -> list[Trooper]:
    seconds = [t for t in troopers if t.role == TrooperRole.SECOND_IN_COMMAND]
    return seconds + [t for t in troopers if t.role != TrooperRole.SECOND_IN_COMMAND]


@battle_action
class LeaderCasualty(BattleAction):
    """The unit's leader becomes a casualty (SG2 P.10 LOSS OF UNIT LEADER)."""

    action = "leader_casualty"
    Params = LeaderCasualtyParams

    def _state(
        self, ctx: BattleContext, params: LeaderCasualtyParams
    ) -> tuple[Participant, list[Trooper], Trooper, Trooper]:
        participant = ctx.participant(params.unit_id)
        troopers = ctx.troopers(params.unit_id)
        leader = acting_leader(ctx, params.unit_id, troopers)
        if leader is None:
            raise StateConflict("leader.none", "The unit has no leader to lose.", field="unit_id")
        status = _status(leader)
        if status is TrooperStatus.FIT and params.result is None:
            raise CommandError(
                "action.invalid",
                f"{leader.name} is fit: say whether he was wounded or killed.",
                field="result",
            )
        if status in (TrooperStatus.WOUNDED, TrooperStatus.STABILISED, TrooperStatus.DEAD):
            if params.result is not None:
                raise StateConflict(
                    "leader.already_down",
                    f"{leader.name} is already {label(status)}: leave result out to resolve "
                    "the loss of his command.",
                    field="result",
                )
        elif status is not TrooperStatus.FIT:
            raise StateConflict(
                "leader.not_on_table",
                f"{leader.name} is {label(status)} and not leading the unit.",
                field="unit_id",
            )
        if params.successor_id is not None:
            successor = _member(troopers, params.successor_id, "successor_id")
            if successor.id == leader.id:
                raise CommandError(
                    "leader.successor_is_leader",
                    "The fallen leader cannot succeed himself.",
                    field="successor_id",
                )
            if _status(successor) is not TrooperStatus.FIT:
                raise StateConflict(
                    "leader.successor_unfit",
                    f"{successor.name} is {label(successor.status)}: only a fit trooper can "
                    "take command.",
                    field="successor_id",
                )
        else:
            successor = next(
                (
                    t
                    for t in _seniority(troopers)
                    if t.id != leader.id and _status(t) is TrooperStatus.FIT
                ),
                None,
            )
            if successor is None:
                raise StateConflict(
                    "leader.no_successor",
                    "No fit trooper is left to take command: record the leader's fate with "
                    "the casualties action.",
                    field="unit_id",
                )
        if not participant.confidence:
            raise StateConflict(
                "leader.no_confidence",
                "The unit has no confidence level to test.",
                field="unit_id",
            )
        if ConfidenceCircumstance.UNTREATED_CASUALTY in params.other_circumstances:
            raise CommandError(
                "action.invalid",
                "Untreated casualties are counted from the roster; leave them out.",
                field="other_circumstances",
            )
        return participant, troopers, leader, successor

    def check_action(self, ctx: BattleContext, params: LeaderCasualtyParams) -> None:
        ctx.require_ruleset(Ruleset.SG2, "The loss of a unit leader")
        self._state(ctx, params)

    def resolve(
        self, ctx: BattleContext, params: LeaderCasualtyParams, dice: DiceSource
    ) -> list[Any]:
        participant, troopers, leader, successor = self._state(ctx, params)
        unit = ctx.unit(params.unit_id)
        figure = figure_of(leader)
        casualty: TrooperCasualty | None = None
        leader_state = figure.state
        rolls: list[Roll] = []
        if params.result is not None:
            wounds, kills = (0, 1) if params.result == "killed" else (1, 0)
            after = rules.state_after_hits(figure.state, wounds=wounds, kills=kills)
            changes = [FigureCasualty(figure.id, figure.state, after, wounds, kills)]
            # A power-armoured leader rolls P.40 at once, before anything else happens.
            rolls += rules.settle_power_armour(dice, [figure], changes)
            casualty = _casualty(leader, changes[0], rolls)
            leader_state = changes[0].after
        leader_status = _ROSTER_STATUS[leader_state]
        untreated = sum(
            1
            for t in troopers
            if (leader_status if t.id == leader.id else _status(t)) is TrooperStatus.WOUNDED
        )
        leadership = unit.leadership or 3
        confidence = Confidence[participant.confidence.upper()]
        lost = leader_state in _DOWN
        circumstances = [ConfidenceCircumstance.LEADER_CASUALTY, *params.other_circumstances]
        event = {
            "battle_id": ctx.battle.id,
            "unit_id": unit.id,
            "turn": ctx.battle.turn,
            "leader_id": leader.id,
            "leader_status": leader_status,
            "casualty": casualty,
            "lost": lost,
            "leadership_before": leadership,
            "suppression_before": participant.suppression,
            "circumstances": list(dict.fromkeys(c.value for c in circumstances)),
            "untreated_casualties": untreated,
            "confidence_before": confidence.name.lower(),
        }
        if not lost:
            # The suit put him back in action, or left him unhurt: he is no casualty (P.40).
            return [
                LeaderCasualtyResolved(
                    **event,
                    successor_id=None,
                    leadership_after=leadership,
                    suppression_after=participant.suppression,
                    threat_level=None,
                    passed=None,
                    confidence_after=confidence.name.lower(),
                    dice=dice_json(rolls),
                )
            ]
        outcome = loss_of_unit_leader(
            dice=dice,
            quality=SG2Quality[unit.quality.upper()],
            leadership=leadership,
            confidence=confidence,
            motivation=MissionMotivation[participant.mission_motivation.upper()],
            suppression_markers=participant.suppression,
            other_circumstances=params.other_circumstances,
            untreated_casualties=untreated,
            artillery_attack_alone_triggers_test=ctx.options.artillery_attack_alone_triggers_test,
        )
        test = outcome.confidence_test
        return [
            LeaderCasualtyResolved(
                **event,
                successor_id=successor.id,
                leadership_after=outcome.leadership,
                suppression_after=outcome.suppression_markers,
                threat_level=test.threat_level,
                passed=test.test.passed if test.test else None,
                confidence_after=outcome.confidence_after.name.lower(),
                dice=dice_json([*rolls, *outcome.rolls]),
            )
        ]


# --- vehicle_hit ----------------------------------------------------------------------------------

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
        _no_repeats(params.occupant_ids, "occupant_ids")
        found = {t.id: t for t in Trooper.objects.filter(id__in=params.occupant_ids)}
        occupants: list[Trooper] = []
        for index, trooper_id in enumerate(params.occupant_ids):
            field = f"occupant_ids.{index}"
            trooper = found.get(trooper_id)
            if trooper is None or trooper.campaign_id != ctx.campaign.id:
                raise CommandError("casualties.not_found", "No such trooper.", field=field)
            ctx.participant(trooper.unit_id, field=field)
            _require_on_table(trooper, field)
            occupants.append(trooper)
        _require_armour_die(occupants, "occupant_ids")
        return vehicle, participant, occupants

    def check_action(self, ctx: BattleContext, params: VehicleHitParams) -> None:
        ctx.require_ruleset(Ruleset.SG2, "Vehicle damage")
        self._state(ctx, params)

    def _damage_before(self, ctx: BattleContext, vehicle: Vehicle) -> VehicleStatus:
        """The vehicle's markers: those left by its last hit in this battle if the roster still
        agrees with them (it can hold only one), else the roster's state."""
        state = VehicleState(vehicle.state)
        markers = (
            frozenset() if state is VehicleState.OPERATIONAL else frozenset({VehicleDamage(state)})
        )
        for event in _battle_events(ctx, VEHICLE_HIT_EVENT):
            p = event.payload
            if p["vehicle_id"] == str(vehicle.id) and p["state_after"] == state.value:
                markers = frozenset(VehicleDamage(d) for d in p["damage_after"])
        return VehicleStatus(markers)

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
        )
        rolls = list(hit.rolls)
        records: list[OccupantRecord] = []
        changes: list[TrooperCasualty] = []
        save_above: int | None = None
        penetrating = hit.damage in (VehicleDamage.DISABLED, VehicleDamage.DESTROYED)
        if penetrating and occupants:
            outcome = occupant_casualties(
                dice=dice,
                occupants=[figure_of(t) for t in occupants],
                damage=hit.damage,
                weapon_size_class=params.weapon_size_class,
                support_weapon_size_class=ctx.options.support_weapon_size_class,
            )
            rolls += outcome.rolls
            save_above = outcome.save_above
            # Armour dice in occupant order, then severity D6s, then P.40 D6s (P.39).
            taken = _Rolls(outcome.rolls)
            own: dict[str, list[Roll]] = {o.figure_id: [] for o in outcome.occupants}
            for occupant in outcome.occupants:
                if occupant.armour_roll is not None:
                    own[occupant.figure_id].append(taken.take())
            for occupant in outcome.occupants:
                if occupant.casualty:
                    own[occupant.figure_id].append(taken.take())
            for occupant in outcome.occupants:
                if occupant.change and occupant.change.power_armour_roll is not None:
                    own[occupant.figure_id].append(taken.take())
            by_id = {str(t.id): t for t in occupants}
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
                        _casualty(
                            by_id[occupant.figure_id], occupant.change, own[occupant.figure_id]
                        )
                    )
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
                leaders_down=_leaders_down(ctx, changes),
                bail_out=_bail_out(ctx, participant, hit.damage, before) if occupants else "",
                dice=dice_json(rolls),
            )
        ]


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
            f'the occupants bail out 6"{suppressed} unless they pass a confidence test at '
            f"threat level {bail.stay_test_threat_level} to stay"
        )
    return ""


# --- surrender ------------------------------------------------------------------------------------


class SurrenderParams(Params):
    unit_id: uuid.UUID
    prisoners_taken_by: str | None = Field(
        default=None, max_length=100, description="The side that takes the prisoners."
    )


@battle_action
class Surrender(BattleAction):
    """A unit surrenders: its living troopers on the table are captured (SG2 P.53)."""

    action = "surrender"
    Params = SurrenderParams

    def check_action(self, ctx: BattleContext, params: SurrenderParams) -> None:
        ctx.require_ruleset(Ruleset.SG2, "Surrender")
        participant = ctx.participant(params.unit_id)
        captor = params.prisoners_taken_by
        if captor is not None and (captor not in ctx.sides or captor == participant.side):
            raise CommandError(
                "surrender.bad_captor",
                f"Prisoners are taken by the other side: {captor!r} is not it.",
                field="prisoners_taken_by",
            )

    def resolve(self, ctx: BattleContext, params: SurrenderParams, dice: DiceSource) -> list[Any]:
        participant = ctx.participant(params.unit_id)
        captured = []
        for trooper in ctx.troopers(params.unit_id):
            status = _status(trooper)
            if status is TrooperStatus.DEAD or status not in _FIGURE_STATE:
                continue
            # Fit, wounded and stabilised men alike are taken (P.53, P.42).
            rules.transition(_FIGURE_STATE[status], FigureState.CAPTURED)
            captured.append(CapturedTrooper(trooper_id=trooper.id, status_before=status))
        return [
            UnitSurrendered(
                battle_id=ctx.battle.id,
                unit_id=params.unit_id,
                turn=ctx.battle.turn,
                side=participant.side,
                prisoners_taken_by=params.prisoners_taken_by,
                captured=captured,
                escort_guards=escort_guards_needed(len(captured)),
            )
        ]


# --- Projection -----------------------------------------------------------------------------------


def _trooper_name(rows: Rows, trooper_id: Any) -> str:
    trooper = rows.get(Trooper, trooper_id)
    return trooper["name"] if trooper else "a trooper"


def _battle_name(rows: Rows, battle_id: Any) -> str:
    battle = rows.get(Battle, battle_id)
    return battle["name"] if battle else "the battle"


def _fate(c: dict[str, Any]) -> str:
    """What happened to one trooper, in words."""
    before, after, figure = c["status_before"], c["status_after"], c["figure_after"]
    pa = c["power_armour_roll"]
    if pa is not None:
        return {
            "stabilised": f"wounded and stabilised by his suit (P.40 roll {pa})",
            "dead": f"fatally wounded in his suit (P.40 roll {pa})",
            "fit": (
                f"unhurt but his suit is wrecked (P.40 roll {pa})"
                if figure == FigureState.SUIT_DISABLED.value
                else f"back in action as his suit rebooted (P.40 roll {pa})"
            ),
        }[after]
    if after == before:
        return f"hit again but still {label(after)}"
    if after == "dead":
        return "killed"
    return "wounded"


def _apply_casualty(rows: Rows, event: StoredEvent, c: dict[str, Any], cause: str) -> str:
    """Set the trooper's status and write his service record; return 'Name fate'."""
    trooper = rows.get(Trooper, c["trooper_id"])
    if trooper is None:
        return ""
    changes: dict[str, Any] = {"status": c["status_after"]}
    newly_hurt = c["status_before"] == TrooperStatus.FIT and c["status_after"] in (
        TrooperStatus.WOUNDED,
        TrooperStatus.STABILISED,
    )
    if newly_hurt:
        changes["wounds"] = trooper["wounds"] + 1
    rows.update(Trooper, c["trooper_id"], **changes)
    p = event.payload
    fate = _fate(c)
    service_record(
        rows,
        event,
        c["trooper_id"],
        f"{fate[0].upper()}{fate[1:]} {cause} at {_battle_name(rows, p['battle_id'])}, "
        f"turn {p['turn']}.",
        battle_id=p["battle_id"],
        dice=c["dice"],
    )
    return f"{trooper['name']} {fate}"


def _casualty_lines(
    rows: Rows, event: StoredEvent, casualties: list[dict[str, Any]], cause: str, start: int
) -> dict[str, list[str]]:
    """Apply each casualty, log a line for each with its dice; the fates grouped by unit."""
    by_unit: dict[str, list[str]] = {}
    for index, c in enumerate(casualties):
        fate = _apply_casualty(rows, event, c, cause)
        if not fate:
            continue
        by_unit.setdefault(c["unit_id"], []).append(fate)
        log(rows, event, f"{fate}.{dice_text(c['dice'])}", n=start + index, dice=c["dice"])
    return by_unit


def _unit_casualty_history(
    rows: Rows, event: StoredEvent, unit_id: Any, fates: list[str], casualties: list[dict]
) -> None:
    if rows.get(Unit, unit_id) is None:
        return
    p = event.payload
    unit_history(
        rows,
        event,
        unit_id,
        f"Casualties at {_battle_name(rows, p['battle_id'])}, turn {p['turn']}: "
        + "; ".join(fates)
        + ".",
        {
            "casualties": [
                [c["trooper_id"], c["status_before"], c["status_after"]]
                for c in casualties
                if c["unit_id"] == unit_id
            ]
        },
        battle_id=p["battle_id"],
        dice=[d for c in casualties if c["unit_id"] == unit_id for d in c["dice"]],
    )


def _leaders_down_text(rows: Rows, ids: list[str]) -> str:
    names = [_trooper_name(rows, i) for i in ids]
    if not names:
        return ""
    if len(names) == 1:
        return f" {names[0]} led his unit: resolve the loss of its leader (P.10)."
    return (
        f" {', '.join(names[:-1])} and {names[-1]} led their units: resolve the loss of each "
        "unit's leader (P.10)."
    )


@register
class CasualtiesProjection(Projection):
    """Troopers' and vehicles' states, leadership, and the log lines of casualty actions (rows
    of the battles and rosters projections)."""

    name = "battles.casualties"

    @Projection.handles("battles.CasualtiesResolved")
    def casualties_resolved(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        cause = "by fire" if p["mode"] == "allocate" else "in action"
        by_unit = _casualty_lines(rows, event, p["casualties"], cause, start=1)
        for unit_id, fates in by_unit.items():
            _unit_casualty_history(rows, event, unit_id, fates, p["casualties"])
        name = unit_name(rows, p["unit_id"])
        fates = [fate for unit_fates in by_unit.values() for fate in unit_fates]
        told = "; ".join(fates) if fates else "no casualties"
        if p["mode"] == "allocate":
            missed = sum(1 for hit in p["hits"] if hit["result"] == HitResult.NO_EFFECT)
            hits = p["potential_hits"]
            summary = (
                f"{name} took {hits} potential hit{'s' if hits != 1 else ''} (impact "
                f"d{p['impact_die']}, {p['cover']} cover, {missed} without effect): {told}."
            )
        else:
            summary = f"{name}, casualties named by the umpire: {told}."
        summary += _leaders_down_text(rows, p["leaders_down"])
        log(rows, event, summary + dice_text(p["dice"]))

    @Projection.handles(LEADER_CASUALTY_EVENT)
    def leader_casualty(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        leader = _trooper_name(rows, p["leader_id"])
        name = unit_name(rows, p["unit_id"])
        if p["casualty"] is not None:
            _apply_casualty(rows, event, p["casualty"], f"leading {name}")
        if not p["lost"]:
            fate = _fate(p["casualty"])
            log(rows, event, f"{leader}, leading {name}, {fate}.{dice_text(p['dice'])}")
            return
        fell = "was killed" if p["leader_status"] == TrooperStatus.DEAD else "was wounded"
        successor = _trooper_name(rows, p["successor_id"])
        key = participant_key(p["battle_id"], p["unit_id"])
        if rows.get(Participant, key) is not None:
            rows.update(
                Participant,
                key,
                confidence=p["confidence_after"],
                suppression=p["suppression_after"],
            )
        if rows.get(Unit, p["unit_id"]) is not None:
            rows.update(Unit, p["unit_id"], leadership=p["leadership_after"])
            unit_history(
                rows,
                event,
                p["unit_id"],
                f"Leadership {p['leadership_before']} -> {p['leadership_after']}: {successor} "
                f"took over after {leader} {fell}.",
                {"leadership": [p["leadership_before"], p["leadership_after"]]},
                battle_id=p["battle_id"],
                dice=p["dice"],
            )
        service_record(
            rows,
            event,
            p["successor_id"],
            f"Took command of {name} at {_battle_name(rows, p['battle_id'])} after {leader} "
            f"{fell} (leadership {p['leadership_after']}).",
            battle_id=p["battle_id"],
            dice=p["dice"],
        )
        if p["threat_level"] is None:
            test = "no confidence test due"
        else:
            verdict = "passed" if p["passed"] else "failed"
            change = (
                f"stays {p['confidence_after']}"
                if p["confidence_after"] == p["confidence_before"]
                else f"drops from {p['confidence_before']} to {p['confidence_after']}"
            )
            test = f"{verdict} a confidence test at threat level {p['threat_level']}: {change}"
        log(
            rows,
            event,
            f"{leader}, leading {name}, {fell}: the unit is suppressed "
            f"({p['suppression_after']} marker{'s' if p['suppression_after'] != 1 else ''}), "
            f"{test}; {successor} takes over with leadership {p['leadership_after']} "
            f"(was {p['leadership_before']}).{dice_text(p['dice'])}",
        )

    @Projection.handles(VEHICLE_HIT_EVENT)
    def vehicle_hit(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        vehicle = rows.get(Vehicle, p["vehicle_id"])
        if vehicle is None:
            return
        rows.update(Vehicle, p["vehicle_id"], state=p["state_after"])
        if p["damage"] is None:
            where = f", {p['location']}" if p["location"] else ""
            effect = f"no damage ({'non-penetrating' if p['location'] else 'no effect'}{where})"
        else:
            effect = label(p["damage"])
        scores = f"impact {p['impact_score']} against armour {p['armour_score']}"
        if p["location"]:
            scores += f", then a {p['location']} hit"
            if p["suspension_score"] is not None:
                scores += (
                    f" ({p['suspension_impact_score']} against suspension {p['suspension_score']})"
                )
        by_unit = _casualty_lines(
            rows, event, p["casualties"], f"aboard {vehicle['name']}", start=1
        )
        fates = [fate for unit_fates in by_unit.values() for fate in unit_fates]
        battle = _battle_name(rows, p["battle_id"])
        vehicle_line = f"{vehicle['name']} hit at {battle}, turn {p['turn']}: {effect} ({scores})."
        if p["state_after"] != p["state_before"] or p["unit_id"] in by_unit:
            own = by_unit.pop(p["unit_id"], [])
            unit_history(
                rows,
                event,
                p["unit_id"],
                vehicle_line + (f" Casualties: {'; '.join(own)}." if own else ""),
                {"vehicle": [p["vehicle_id"], p["state_before"], p["state_after"]]},
                battle_id=p["battle_id"],
                dice=p["dice"],
            )
        for unit_id, unit_fates in by_unit.items():
            _unit_casualty_history(rows, event, unit_id, unit_fates, p["casualties"])
        if p["save_above"] is not None:
            told = "; ".join(fates) if fates else "nobody hurt"
            vehicle_line += f" Occupants needed armour above {p['save_above']}: {told}."
        if p["bail_out"]:
            vehicle_line += f" {p['bail_out'][0].upper()}{p['bail_out'][1:]}."
        vehicle_line += _leaders_down_text(rows, p["leaders_down"])
        log(rows, event, vehicle_line + dice_text(p["dice"]))

    @Projection.handles("battles.UnitSurrendered")
    def unit_surrendered(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        key = participant_key(p["battle_id"], p["unit_id"])
        if rows.get(Participant, key) is not None:
            rows.update(Participant, key, status=Participant.Status.SURRENDERED.value)
        name = unit_name(rows, p["unit_id"])
        battle = _battle_name(rows, p["battle_id"])
        captor = f" to {p['prisoners_taken_by']}" if p["prisoners_taken_by"] else ""
        names = []
        for captive in p["captured"]:
            trooper = rows.get(Trooper, captive["trooper_id"])
            if trooper is None:
                continue
            rows.update(Trooper, captive["trooper_id"], status=TrooperStatus.CAPTURED.value)
            names.append(trooper["name"])
            state = (
                "" if captive["status_before"] == "fit" else f" ({label(captive['status_before'])})"
            )
            service_record(
                rows,
                event,
                captive["trooper_id"],
                f"Captured{state} when {name} surrendered{captor} at {battle}, turn {p['turn']}.",
                battle_id=p["battle_id"],
            )
        taken = ", ".join(names) if names else "nobody left to take"
        if rows.get(Unit, p["unit_id"]) is not None:
            unit_history(
                rows,
                event,
                p["unit_id"],
                f"Surrendered{captor} at {battle}, turn {p['turn']}: {taken} taken prisoner.",
                {"captured": [c["trooper_id"] for c in p["captured"]]},
                battle_id=p["battle_id"],
            )
        guards = p["escort_guards"]
        escort = (
            f" Escorting them to the rear takes {guards} guard{'s' if guards != 1 else ''} "
            "(1 per 6 prisoners, P.53)."
            if guards
            else ""
        )
        log(rows, event, f"{name} surrendered{captor}: {taken} taken prisoner.{escort}")
