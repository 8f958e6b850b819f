"""The commands of battle reports: a side's player files a report, the umpire decides a point.

Who may file for a side (its players, or an umpire) is the caller's to check
(:func:`require_reporter`), as the umpire-only commands leave it to theirs.
"""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from pydantic import Field

from battles.actions import BattleContext
from battles.models import Battle
from battles.reports.events import (
    BattleReportFiled,
    ObjectiveValue,
    ReportedObjective,
    ReportedStatus,
    ReportedTrooper,
    ReportPointDecided,
)
from battles.reports.losses import recorder_for
from battles.reports.reconciliation import (
    UNRECORDED,
    Point,
    Reconciliation,
    battle_sides,
    reconciliation,
    severity,
)
from battles.services import battle_stream
from campaigns.common import given_reason
from campaigns.models import Campaign, Membership
from campaigns.secrets import Secrecy, hiding
from campaigns.selectors import membership_get
from campaigns.visibility import Reader
from eventlog import commands
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import CommandError, NotFound, PermissionDenied, StateConflict
from eventlog.store import NewEvent
from rosters.models import Trooper
from rules.dice import DiceSource

_OBJECTIVE_VALUES: tuple[ObjectiveValue, ...] = ("met", "not_met")
_TROOPER_VALUES: tuple[ReportedStatus, ...] = ("fit", "wounded", "killed")
_DECISION_WORDS: dict[str, Literal["accepted", "corrected", "rejected"]] = {
    "accept": "accepted",
    "correct": "corrected",
    "reject": "rejected",
}


@dataclass
class ReportState:
    campaign: Campaign
    reconciliation: Reconciliation
    filed_by: str

    @property
    def battle(self) -> Battle:
        return self.reconciliation.battle

    def side(self, name: str, field: str = "side") -> dict[str, Any]:
        found = next((s for s in self.reconciliation.sides if s["side"] == name), None)
        if found is None:
            raise CommandError(
                "report.unknown_side", f"{name!r} is not a side of this battle.", field=field
            )
        return found


def _load(ctx: CommandContext, battle_id: uuid.UUID, doing: str) -> ReportState:
    battle = Battle.objects.filter(pk=battle_id, campaign_id=ctx.campaign_id).first()
    if battle is None:
        raise NotFound("battle.not_found", "No such battle.", field="battle_id")
    if battle.status != Battle.Status.ENDED:
        resolved = battle.status == Battle.Status.RESOLVED
        raise StateConflict(
            "report.battle_resolved" if resolved else "report.battle_not_ended",
            f"{battle.name} is {battle.status.replace('_', ' ')}: reports are filed and "
            f"decided between the end of a battle and its after-action, so you cannot {doing} "
            "now.",
            field="battle",
        )
    User = get_user_model()
    actor = User.objects.filter(pk=ctx.actor_id).first() if ctx.actor_id else None
    return ReportState(
        campaign=Campaign.objects.get(pk=ctx.campaign_id),
        reconciliation=reconciliation(battle),
        filed_by=actor.get_username() if actor is not None else "",
    )


def _hidden_for_side(ctx: CommandContext, side: dict[str, Any], payload: Any) -> list[NewEvent]:
    """The event, recorded as seen by the umpires and the side's players only."""
    return [
        hiding(
            Secrecy(),
            campaign_id=ctx.campaign_id,
            events=1,
            force_ids=[uuid.UUID(str(f)) for f in side["force_ids"]],
        ),
        NewEvent.of(payload, stream=battle_stream(payload.battle_id)),
    ]


class ReportParams(Params):
    battle_id: uuid.UUID
    side: str = Field(max_length=100)
    troopers: list[ReportedTrooper] = Field(default_factory=list, max_length=1000)
    objectives: list[ReportedObjective] = Field(default_factory=list, max_length=100)
    notes: str = Field(default="", max_length=5000)


@commands.command
class BattleReportFile(Command[ReportParams, ReportState]):
    """File a side's report of a battle that has ended: the troopers of either side wounded or
    killed as its player saw them (the side's own troopers not named are fit), the objectives
    met or not, and notes. A later report replaces the side's earlier one, until the umpire
    has decided a point of it. Its result is the report's id."""

    name = "battles.report_file"
    Params = ReportParams
    invalid_code = "report.invalid"

    def stream(self, ctx: CommandContext, params: ReportParams) -> str:
        return battle_stream(params.battle_id)

    def load(self, ctx: CommandContext, params: ReportParams) -> ReportState:
        return _load(ctx, params.battle_id, "file a report")

    def check(self, ctx: CommandContext, state: ReportState, params: ReportParams) -> None:
        state.side(params.side)
        earlier = state.reconciliation.reports.get(params.side)
        if earlier is not None and earlier.decisions:
            raise StateConflict(
                "report.decided",
                f"The umpire has decided points of {params.side}'s report already: it can no "
                "longer be replaced.",
                field="side",
            )
        on_table = state.reconciliation.troopers
        named = Counter(str(t.trooper_id) for t in params.troopers)
        for index, reported in enumerate(params.troopers):
            where = f"troopers.{index}.trooper_id"
            if str(reported.trooper_id) not in on_table:
                raise CommandError(
                    "report.not_on_table",
                    "That trooper was not on the table in this battle.",
                    field=where,
                )
            if named[str(reported.trooper_id)] > 1:
                raise CommandError(
                    "report.named_twice",
                    f"{on_table[str(reported.trooper_id)].name} is named twice.",
                    field=where,
                )
        said = Counter((o.side, o.objective) for o in params.objectives)
        for index, objective in enumerate(params.objectives):
            side = state.side(objective.side, field=f"objectives.{index}.side")
            if objective.objective not in side["mission"].get("objectives", []):
                raise CommandError(
                    "report.unknown_objective",
                    f"{objective.objective!r} is not an objective of {objective.side}'s mission.",
                    field=f"objectives.{index}.objective",
                )
            if said[(objective.side, objective.objective)] > 1:
                raise CommandError(
                    "report.named_twice",
                    f"{objective.objective!r} is reported twice.",
                    field=f"objectives.{index}.objective",
                )

    def decide(
        self,
        ctx: CommandContext,
        state: ReportState,
        params: ReportParams,
        dice: DiceSource | None,
    ) -> Decision:
        report_id = ctx.new_id("report")
        filed = BattleReportFiled(
            battle_id=params.battle_id,
            report_id=report_id,
            side=params.side,
            filed_by=state.filed_by,
            troopers=params.troopers,
            objectives=params.objectives,
            notes=params.notes.strip(),
        )
        return Decision(_hidden_for_side(ctx, state.side(params.side), filed), result=report_id)


class DecideParams(Params):
    battle_id: uuid.UUID
    point: str = Field(max_length=700)
    decision: Literal["accept", "correct", "reject"]
    report_id: uuid.UUID | None = Field(
        default=None, description="accept: the report whose claim stands."
    )
    value: str | None = Field(
        default=None,
        max_length=20,
        description="correct: what stands (a trooper fit, wounded or killed; an objective met "
        "or not_met).",
    )
    reason: str = Field(default="", max_length=500)


@commands.command
class ReportPointDecide(Command[DecideParams, ReportState]):
    """The umpire decides a point the reports make: *accept* one report's claim, *correct* it
    to another value, or *reject* the reports and keep what the log holds (a correction or a
    rejection says why). Every report that made a claim on the point receives the decision; a
    trooper's loss the log does not hold yet is appended as the ruleset's casualty event. A
    loss the log holds is not undone here: void the event that recorded it."""

    name = "battles.report_point_decide"
    Params = DecideParams
    invalid_code = "report.invalid"

    def stream(self, ctx: CommandContext, params: DecideParams) -> str:
        return battle_stream(params.battle_id)

    def load(self, ctx: CommandContext, params: DecideParams) -> ReportState:
        return _load(ctx, params.battle_id, "decide a report's point")

    def check(self, ctx: CommandContext, state: ReportState, params: DecideParams) -> None:
        self._ruling(state, params)

    def decide(
        self,
        ctx: CommandContext,
        state: ReportState,
        params: DecideParams,
        dice: DiceSource | None,
    ) -> Decision:
        point, value, reason = self._ruling(state, params)
        decision = _DECISION_WORDS[params.decision]
        events: list[NewEvent] = []
        for claim in point.claims:
            decided = ReportPointDecided(
                battle_id=params.battle_id,
                report_id=uuid.UUID(claim.report_id),
                side=claim.side,
                point=point.key,
                claimed=claim.value,
                logged=point.logged,
                value=value,
                decision=decision,
                upheld=claim.value == value,
                reason=reason,
            )
            events += _hidden_for_side(ctx, state.side(claim.side), decided)
        if point.kind == "trooper" and value != point.logged:
            assert point.trooper_id is not None
            trooper = state.reconciliation.troopers[point.trooper_id]
            source = params.report_id or uuid.UUID(point.claims[0].report_id)
            matching = next((c for c in point.claims if c.value == value), None)
            if matching is not None:
                source = uuid.UUID(matching.report_id)
            context = BattleContext.load(state.campaign, state.battle)
            loss = recorder_for(state.campaign.ruleset)(context, trooper, value, source)
            events.append(NewEvent.of(loss, stream=battle_stream(params.battle_id)))
        return Decision(events, result=point.key)

    @staticmethod
    def _ruling(state: ReportState, params: DecideParams) -> tuple[Point, str, str]:
        """The point, the value that will stand and the reason, or the refusal."""
        point = state.reconciliation.point(params.point)
        if point is None:
            raise NotFound(
                "report.no_such_point", "No report of this battle makes that point.", field="point"
            )
        if point.decision is not None:
            raise StateConflict(
                "report.point_decided", "That point has been decided already.", field="point"
            )
        if not point.claims:
            raise StateConflict(
                "report.nothing_to_decide", "No report makes a claim on that point.", field="point"
            )
        allowed = _TROOPER_VALUES if point.kind == "trooper" else _OBJECTIVE_VALUES
        reason = params.reason.strip()
        if params.decision == "accept":
            claim = point.claim_of(str(params.report_id)) if params.report_id else None
            if claim is None:
                raise CommandError(
                    "report.no_such_claim",
                    "Name the report whose claim you accept: one that makes a claim on this point.",
                    field="report_id",
                )
            value = claim.value
        elif params.decision == "correct":
            if params.value not in allowed:
                raise CommandError(
                    "report.invalid_value",
                    f"Give the value that stands: one of {', '.join(allowed)}.",
                    field="value",
                )
            value = str(params.value)
            reason = given_reason(reason, code="report.reason")
        else:
            value = point.logged
            reason = given_reason(reason, code="report.reason")
        if point.kind == "trooper" and value != point.logged:
            if point.logged not in _TROOPER_VALUES:
                raise StateConflict(
                    "report.trooper_gone",
                    f"{point.label} is {point.logged.replace('_', ' ')} in the log: a report "
                    "cannot change that.",
                    field="point",
                )
            if severity(value) < severity(point.logged):
                raise StateConflict(
                    "report.log_holds_worse",
                    f"The log has {point.label} {point.logged}: to change that, void the event "
                    "that recorded it, then decide this point.",
                    field="point",
                )
        if value == UNRECORDED:
            raise StateConflict(
                "report.nothing_recorded",
                "The log holds nothing for this objective: accept a report's claim or correct "
                "it to met or not_met.",
                field="decision",
            )
        return point, value, reason


# --- The typed functions callers use --------------------------------------------------------------


def require_reporter(
    *, user: AbstractBaseUser | AnonymousUser, battle: Battle, side: str
) -> Membership:
    """The member who may file ``side``'s report: an umpire, or a player of one of the side's
    forces; anyone else is refused."""
    membership = membership_get(user=user, campaign_id=battle.campaign_id)
    if membership.role == Membership.Role.UMPIRE:
        return membership
    forces = next(
        ({str(f) for f in s["force_ids"]} for s in battle_sides(battle) if s["side"] == side),
        set(),
    )
    if membership.role != Membership.Role.PLAYER or not forces & set(membership.force_ids):
        raise PermissionDenied(
            "report.not_your_side", "Only the side's players may file its report.", field="side"
        )
    return membership


def refuse_unseen_troopers(reader: Reader, troopers: Any) -> None:
    """A player names only troopers of forces they see whole: any other id is refused as if
    it did not exist, so a report cannot probe another side's roster."""
    if reader.is_umpire or not isinstance(troopers, list):
        return
    ids = {}
    for index, item in enumerate(troopers):
        try:
            ids[index] = uuid.UUID(str(item.get("trooper_id")))
        except (AttributeError, ValueError):
            continue  # the command's own validation tells what is wrong with it
    forces = dict(Trooper.objects.filter(id__in=ids.values()).values_list("id", "force_id"))
    for index, trooper_id in ids.items():
        force_id = forces.get(trooper_id)
        if force_id is not None and not reader.sees_force(force_id):
            raise CommandError(
                "report.not_on_table",
                "That trooper was not on the table in this battle.",
                field=f"troopers.{index}.trooper_id",
            )


def sides_of_member(membership: Membership, battle: Battle) -> list[str]:
    """The sides of the battle a member may report for."""
    sides = battle_sides(battle)
    if membership.role == Membership.Role.UMPIRE:
        return [s["side"] for s in sides]
    mine = set(membership.force_ids) if membership.role == Membership.Role.PLAYER else set()
    return [s["side"] for s in sides if {str(f) for f in s["force_ids"]} & mine]


def battle_report_file(
    *,
    battle: Battle,
    side: str,
    troopers: list[dict[str, Any]],
    objectives: list[dict[str, Any]],
    notes: str,
    actor: AbstractBaseUser,
) -> uuid.UUID:
    """File ``side``'s report of ``battle`` (see :class:`BattleReportFile`); the caller has
    checked that the actor may (:func:`require_reporter`). Returns the report's id."""
    outcome = commands.run(
        BattleReportFile.name,
        campaign_id=battle.campaign_id,
        params={
            "battle_id": battle.id,
            "side": side,
            "troopers": troopers,
            "objectives": objectives,
            "notes": notes,
        },
        actor_id=actor.pk,
    )
    report_id: uuid.UUID = outcome.result
    return report_id


def report_point_decide(
    *,
    battle: Battle,
    point: str,
    decision: str,
    report_id: uuid.UUID | None = None,
    value: str | None = None,
    reason: str = "",
    actor: AbstractBaseUser,
) -> None:
    """Decide a point of the battle's reports (see :class:`ReportPointDecide`; umpires only,
    checked by the caller)."""
    commands.run(
        ReportPointDecide.name,
        campaign_id=battle.campaign_id,
        params={
            "battle_id": battle.id,
            "point": point,
            "decision": decision,
            "report_id": report_id,
            "value": value,
            "reason": reason,
        },
        actor_id=actor.pk,
    )
