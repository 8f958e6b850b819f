"""The replacement commands: a platoon's roll (SG2 P.60) and the sharing of the rolled men among
its squads, each receiving squad taking the quality-drop check (P.60-61).

Both roll dice: entered from the table they are resolved at once; left out, a resolution job
rolls the server's dice, checking the platoon again under the lock first.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from pydantic import Field

from campaigns.models import Campaign
from eventlog import commands
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import RuleViolation, StateConflict
from eventlog.store import NewEvent
from rosters.models import Unit
from rosters.replacements.arrivals import enlist
from rosters.replacements.checks import (
    PlatoonState,
    Receiving,
    check_quality,
    check_request,
    dice_json,
    load_platoon,
    plan,
)
from rosters.replacements.events import (
    QualityCheck,
    ReplacementsAssigned,
    ReplacementsRolled,
    SquadReplacements,
)
from rosters.replacements.ledger import Pending
from rules.dice import DiceSource, rolling_for
from rules.sg2.replacements import ReplacementError, roll_platoon_replacements

REQUEST_JOB = "rosters.replacements_request"
ASSIGN_JOB = "rosters.replacements_assign"


def _platoon_stream(platoon_id: uuid.UUID) -> str:
    return f"unit:{platoon_id}"


def _refuse_in_flight(ctx: CommandContext, platoon: Unit) -> None:
    """A roll or an assignment of the platoon still waiting for the server's dice would change
    what this one is checked against: one at a time (read under the lock, so race-free)."""
    for kind in (REQUEST_JOB, ASSIGN_JOB):
        for job in ctx.jobs_in_flight(kind):
            if job.params.get("platoon_id") == str(platoon.id):
                raise StateConflict(
                    "replacements.in_flight",
                    f"{platoon.name}'s replacements are being resolved by the server (job "
                    f"#{job.ordinal}): wait for it to finish.",
                    field="unit",
                )


class RequestParams(Params):
    platoon_id: uuid.UUID


@commands.command
class ReplacementsRequest(Command[RequestParams, PlatoonState]):
    """Roll a platoon's replacement die (SG2 P.60; option ``replacement_die``). Refused for
    anything but a platoon, for a platoon none of whose squads is in a safe area (P.61), and
    for a second roll before any unit of the platoon has fought another battle (P.60: one die
    per platoon between battles)."""

    name = REQUEST_JOB
    Params = RequestParams
    rolls_dice = True

    def stream(self, ctx: CommandContext, params: RequestParams) -> str:
        return _platoon_stream(params.platoon_id)

    def load(self, ctx: CommandContext, params: RequestParams) -> PlatoonState:
        return load_platoon(ctx, params.platoon_id)

    def check(self, ctx: CommandContext, state: PlatoonState, params: RequestParams) -> None:
        check_request(state)
        _refuse_in_flight(ctx, state.platoon)

    def decide(
        self,
        ctx: CommandContext,
        state: PlatoonState,
        params: RequestParams,
        dice: DiceSource | None,
    ) -> Decision:
        assert dice is not None  # rolls_dice: table or server dice, never none
        platoon = state.platoon
        # The die is the platoon's: keyed table dice and the dice prompt name it.
        with rolling_for(dice, str(platoon.id)):
            outcome = roll_platoon_replacements(
                dice=dice, platoon=platoon.name, replacement_die=state.options.replacement_die
            )
        payload = ReplacementsRolled(
            platoon_id=platoon.id,
            day=state.day,
            die=outcome.die.value,
            roll=outcome.rolls[0].result,
            available=outcome.available,
            lapsed=state.ledger.left,
            dice=dice_json(outcome.rolls),
        )
        return Decision.of([payload], stream=_platoon_stream(platoon.id))


class Assignment(Params):
    unit_id: uuid.UUID
    count: int = Field(ge=1)


class AssignParams(Params):
    platoon_id: uuid.UUID
    assignments: list[Assignment] = Field(min_length=1)


def _pairs(params: AssignParams) -> list[tuple[uuid.UUID, int]]:
    return [(a.unit_id, a.count) for a in params.assignments]


def _check_squad(receiving: Receiving, dice: DiceSource, state: PlatoonState) -> QualityCheck:
    """A receiving squad's quality check, its die keyed to the squad (keyed table dice and the
    dice prompt name it)."""
    with rolling_for(dice, str(receiving.unit.id)):
        return check_quality(receiving, dice, state)


@commands.command
class ReplacementsAssign(Command[AssignParams, PlatoonState]):
    """Share a platoon's rolled replacements among its squads (SG2 P.60-61).

    Refused: more than were rolled and are left, a unit outside the platoon, a squad not in a
    safe area, an Elite squad (unless the option allows), more than a squad's TO&E vacancies if
    option ``allow_overstrength`` is off, a squad whose battle has ended but not had its
    after-action (P.60: the quality rise comes first). Each receiving squad then takes the
    quality-drop check, in the order given: one check for all the men it receives between its
    battles, so a squad checked since its last battle rolls no new die (P.60); a drop is
    applied at once, the men arrive after ``replacement_days`` (at once when that is 0).
    """

    name = ASSIGN_JOB
    Params = AssignParams
    rolls_dice = True

    def stream(self, ctx: CommandContext, params: AssignParams) -> str:
        return _platoon_stream(params.platoon_id)

    def load(self, ctx: CommandContext, params: AssignParams) -> PlatoonState:
        return load_platoon(ctx, params.platoon_id, [a.unit_id for a in params.assignments])

    def check(self, ctx: CommandContext, state: PlatoonState, params: AssignParams) -> None:
        plan(state, _pairs(params))
        _refuse_in_flight(ctx, state.platoon)

    def decide(
        self,
        ctx: CommandContext,
        state: PlatoonState,
        params: AssignParams,
        dice: DiceSource | None,
    ) -> Decision:
        assert dice is not None  # rolls_dice: table or server dice, never none
        receiving, days = plan(state, _pairs(params))
        try:
            checks = [_check_squad(r, dice, state) for r in receiving]
        except ReplacementError as refusal:
            # The rules name no field; the refusal concerns the assignments as a whole.
            raise RuleViolation(refusal.code, refusal.message, field="assignments") from None
        platoon, ledger = state.platoon, state.ledger
        payload = ReplacementsAssigned(
            assignment_id=ctx.new_id("assignment"),
            platoon_id=platoon.id,
            day=state.day,
            arrives_on_day=state.day + days,
            assignments=[
                SquadReplacements(unit_id=r.unit.id, count=r.count, check=check)
                for r, check in zip(receiving, checks, strict=True)
            ],
            left=ledger.left - sum(r.count for r in receiving),
            dice=[roll for check in checks for roll in check.dice],
        )
        new = [NewEvent.of(payload, stream=_platoon_stream(platoon.id))]
        if days == 0:
            # With no time to take them in (option replacement_days 0) they join at once.
            arrived = Counter(ledger.arrived_in)
            for r in receiving:
                pending = Pending(
                    assignment_id=str(payload.assignment_id),
                    platoon_id=str(platoon.id),
                    unit_id=str(r.unit.id),
                    count=r.count,
                    arrives_on_day=state.day,
                    sequence=0,
                )
                new.extend(
                    enlist(
                        pending,
                        state.day,
                        arrived,
                        unit=r.unit,
                        members=r.members,
                        new_id=ctx.new_id,
                    )
                )
        return Decision(new)


# --- For Python callers (pages, the demo) -------------------------------------------------------


def replacements_request(
    *, campaign: Campaign, platoon: Unit, dice: Sequence[int] | None, actor: AbstractBaseUser
) -> commands.Outcome:
    """Roll a platoon's replacement die: with ``dice`` rolled at the table the roll is recorded
    now (the outcome's events); without, a resolution job rolls the server's die (its job)."""
    return commands.run(
        REQUEST_JOB,
        campaign_id=campaign.id,
        params={"platoon_id": platoon.id},
        actor_id=actor.pk,
        dice=dice,
    )


def replacements_assign(
    *,
    campaign: Campaign,
    platoon: Unit,
    assignments: Sequence[Mapping[str, Any]],
    dice: Sequence[int] | None,
    actor: AbstractBaseUser,
) -> commands.Outcome:
    """Share a platoon's rolled replacements among its squads: ``assignments`` is a list of
    ``{"unit_id", "count"}``; each receiving squad's quality check uses ``dice`` from the table
    in order or, without them, the server's in a resolution job."""
    return commands.run(
        ASSIGN_JOB,
        campaign_id=campaign.id,
        params={
            "platoon_id": platoon.id,
            "assignments": [{"unit_id": a["unit_id"], "count": a["count"]} for a in assignments],
        },
        actor_id=actor.pk,
        dice=dice,
    )
