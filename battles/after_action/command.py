"""The after-action resolution of an ended battle, a command on the battle's stream.

With table dice it is resolved at once; without, a resolution job rolls the campaign's seeded
dice on a worker and runs the same declaration again under the campaign lock. Only one
resolution per battle: a second request while one is on its way, or once the battle is
resolved, is refused (409).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser

from battles.after_action.context import RULES, AfterActionContext, AfterActionRules
from battles.after_action.events import AfterActionResolved
from battles.models import Battle
from battles.services import battle_stream
from campaigns.models import Campaign
from eventlog import commands
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import NotFound, RuleViolation, StateConflict
from eventlog.store import NewEvent
from rules.dice import DiceSource


class AfterActionParams(Params):
    battle_id: uuid.UUID


@commands.command
class AfterAction(Command[AfterActionParams, AfterActionContext]):
    """Resolve an ended battle after the action by its campaign's ruleset (SG2 P.60-61; FaD
    p.66), ending with ``battles.AfterActionResolved``, which marks the battle resolved."""

    name = "battles.after_action"
    Params = AfterActionParams
    rolls_dice = True
    invalid_code = "after_action.invalid"

    def stream(self, ctx: CommandContext, params: AfterActionParams) -> str:
        return battle_stream(params.battle_id)

    def load(self, ctx: CommandContext, params: AfterActionParams) -> AfterActionContext:
        battle = Battle.objects.filter(pk=params.battle_id, campaign_id=ctx.campaign_id).first()
        if battle is None:
            raise NotFound("battle.not_found", "No such battle.", field="battle_id")
        return AfterActionContext.load(Campaign.objects.get(pk=ctx.campaign_id), battle)

    def check(
        self, ctx: CommandContext, state: AfterActionContext, params: AfterActionParams
    ) -> None:
        battle = state.battle
        if battle.status == Battle.Status.RESOLVED:
            raise StateConflict(
                "after_action.already_resolved",
                f"{battle.name} has already been resolved after the action.",
                field="battle",
            )
        if battle.status != Battle.Status.ENDED:
            raise StateConflict(
                "after_action.not_ended",
                f"{battle.name} is {battle.status.replace('_', ' ')}: end it before resolving it.",
                field="battle",
            )
        # Read under the campaign lock: two requests cannot both miss each other's job.
        if any(
            job.params.get("battle_id") == str(battle.id) for job in ctx.jobs_in_flight(self.name)
        ):
            raise StateConflict(
                "after_action.already_requested",
                f"The after-action resolution of {battle.name} is already on its way.",
                field="battle",
            )
        _rules_of(state).check(state)

    def decide(
        self,
        ctx: CommandContext,
        state: AfterActionContext,
        params: AfterActionParams,
        dice: DiceSource | None,
    ) -> Decision:
        assert dice is not None  # the after-action always rolls (an empty list of table dice)
        battle, ruleset = state.battle, str(state.campaign.ruleset)
        stream = battle_stream(battle.id)
        # Payloads go to the battle's stream; events of other streams come ready to append.
        events = [
            item if isinstance(item, NewEvent) else NewEvent.of(item, stream=stream)
            for item in _rules_of(state).resolve(state, dice)
        ]
        resolved = AfterActionResolved(
            battle_id=battle.id, ruleset=ruleset, winner=battle.winner, day=battle.day
        )
        events.append(NewEvent.of(resolved, stream=stream))
        return Decision(events)


def _rules_of(state: AfterActionContext) -> AfterActionRules:
    """The after-action rules of the campaign's ruleset, or a refusal."""
    ruleset = str(state.campaign.ruleset)
    found = RULES.get(ruleset)
    if found is None:
        raise RuleViolation(
            "after_action.no_resolver",
            f"No after-action resolution is available for the {ruleset} ruleset.",
            field="battle",
        )
    return found


# The job kind of a resolution with the server's dice: the command's name.
AFTER_ACTION_JOB = AfterAction.name


def after_action_resolve(
    *,
    campaign: Campaign,
    battle: Battle,
    dice: Sequence[int] | None,
    actor: AbstractBaseUser,
    expected_version: int | None = None,
    idempotency_key: str | None = None,
    respond: commands.Respond | None = None,
) -> commands.Outcome:
    """Resolve an ended battle after the action. With ``dice`` from the table it is resolved
    now (``outcome.events``); without, a job rolls the server's dice (``outcome.job``)."""
    return commands.run(
        AFTER_ACTION_JOB,
        campaign_id=campaign.id,
        params={"battle_id": str(battle.id)},
        actor_id=actor.pk,
        dice=dice,
        expected_version=expected_version,
        idempotency_key=idempotency_key,
        respond=respond,
    )
