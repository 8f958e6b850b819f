"""Battle actions: commands that the rules resolve with dice, entered from the table or rolled
by the server in a resolution job.

Each action declares its parameters (a pydantic model), checks them against the battle's state,
and resolves them with a :class:`rules.dice.DiceSource` into events that carry every die. With
table dice the action is resolved at once; without, a job rolls the server's dice and resolves it
on a worker, checking the state again first. Either way a refusal appends nothing.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from django.contrib.auth.models import AbstractBaseUser
from pydantic import BaseModel, ConfigDict, create_model

from battles.models import Battle, BattleSide, Participant
from battles.services import battle_stream, require_status
from campaigns.models import Campaign
from campaigns.secrets import Secrecy, hidden_decision, refuse_foreign_forces
from eventlog import commands
from eventlog.commands import Command, CommandContext, Decision
from eventlog.errors import CommandError, NotFound, StateConflict
from rosters.models import Trooper, Unit, Vehicle
from rules.dice import DiceSource, rolling_for
from rules.options import parse_options
from rules.rulesets import Ruleset


@dataclass
class BattleContext:
    """What an action may read: the battle, its sides and units, and the campaign's options."""

    campaign: Campaign
    battle: Battle
    options: Any
    sides: dict[str, BattleSide] = field(default_factory=dict)
    participants: dict[uuid.UUID, Participant] = field(default_factory=dict)

    @classmethod
    def load(cls, campaign: Campaign, battle: Battle) -> BattleContext:
        return cls(
            campaign=campaign,
            battle=battle,
            options=parse_options(campaign.ruleset, campaign.options),
            sides={s.side: s for s in BattleSide.objects.filter(battle_id=battle.id)},
            participants={p.unit_id: p for p in Participant.objects.filter(battle_id=battle.id)},
        )

    def participant(self, unit_id: uuid.UUID, *, field: str = "unit_id") -> Participant:
        """A unit fighting in this battle, or a refusal naming the field."""
        found = self.participants.get(unit_id)
        if found is None:
            raise CommandError(
                "battle.not_a_participant", "That unit is not fighting in this battle.", field=field
            )
        if found.status != Participant.Status.FIGHTING:
            raise StateConflict(
                "battle.unit_gone", f"That unit has {found.status} and cannot act.", field=field
            )
        return found

    def unit(self, unit_id: uuid.UUID) -> Unit:
        return Unit.objects.get(pk=unit_id)

    def troopers(self, unit_id: uuid.UUID) -> list[Trooper]:
        return list(Trooper.objects.filter(unit_id=unit_id).order_by("order"))

    def vehicles(self, unit_id: uuid.UUID) -> list[Vehicle]:
        return list(Vehicle.objects.filter(unit_id=unit_id).order_by("order"))


class Params(BaseModel):
    """Parameters of a battle action, and of the objects nested in them."""

    model_config = ConfigDict(extra="forbid")


class BattleAction(Command[Any, BattleContext]):
    """One kind of battle action, a command on the battle's stream. Subclasses set
    ``action``, ``rulesets`` and ``Params`` and implement :meth:`check_action` (state rules, no
    dice) and :meth:`resolve` (the rules, with dice).

    Table dice and server dice reach :meth:`resolve` through the same runner: with table dice
    the action is resolved at once; without, a job resolves it on a worker, loading and
    checking the battle again under the campaign lock first.
    """

    action: ClassVar[str]
    rulesets: ClassVar[tuple[str, ...]] = (Ruleset.SG2.value,)
    statuses: ClassVar[tuple[str, ...]] = (Battle.Status.IN_PROGRESS,)
    rolls_dice = True
    invalid_code = "action.invalid"

    def stream(self, ctx: CommandContext, params: Any) -> str:
        return battle_stream(params.battle_id)

    def load(self, ctx: CommandContext, params: Any) -> BattleContext:
        battle = Battle.objects.filter(pk=params.battle_id, campaign_id=ctx.campaign_id).first()
        if battle is None:
            raise NotFound("battle.not_found", "No such battle.", field="battle_id")
        campaign = Campaign.objects.get(pk=ctx.campaign_id)
        require_status(battle, *self.statuses, doing=self.action.replace("_", " "))
        return BattleContext.load(campaign, battle)

    def check(self, ctx: CommandContext, state: BattleContext, params: Any) -> None:
        if params.hidden is not None:
            shown_to_forces(state, params.hidden)
        self.check_action(state, params)

    def decide(
        self, ctx: CommandContext, state: BattleContext, params: Any, dice: DiceSource | None
    ) -> Decision:
        assert dice is not None  # battle actions always roll (an empty list of table dice)
        # The unit (or vehicle) an action is about is whom its dice are for, unless the rules
        # say otherwise inside.
        subject = getattr(params, "unit_id", None) or getattr(params, "vehicle_id", None)
        with rolling_for(dice, str(subject)) if subject else contextlib.nullcontext():
            payloads = self.resolve(state, params, dice)
        decision = Decision.of(payloads, stream=battle_stream(state.battle.id))
        if params.hidden is None:
            return decision
        # A sniper's position, an ambush: recorded hidden, until the umpire reveals it.
        return hidden_decision(
            decision,
            params.hidden,
            campaign_id=ctx.campaign_id,
            force_ids=shown_to_forces(state, params.hidden),
        )

    def check_action(self, ctx: BattleContext, params: Any) -> None:
        """Refuse parameters that do not fit the battle's state."""

    def resolve(self, ctx: BattleContext, params: Any, dice: DiceSource) -> list[Any]:
        raise NotImplementedError


# (ruleset, action) -> the command that performs it.
ACTIONS: dict[tuple[str, str], BattleAction] = {}


def battle_action(cls: type[BattleAction]) -> type[BattleAction]:
    """Register a battle action for each ruleset it belongs to, and as a command."""
    cls.name = f"battles.action.{cls.action}"
    # The command's parameters are the action's, the battle it is performed in, and whether
    # the umpire records it hidden (campaigns.secrets).
    cls.Params = create_model(
        cls.Params.__name__,
        __base__=cls.Params,
        battle_id=(uuid.UUID, ...),
        hidden=(Secrecy | None, None),
    )
    commands.command(cls)
    performer = commands.get(cls.name)
    assert isinstance(performer, BattleAction)
    for ruleset in cls.rulesets:
        ACTIONS[(str(ruleset), cls.action)] = performer
    return cls


def shown_to_forces(ctx: BattleContext, secrecy: Secrecy) -> list[uuid.UUID]:
    """The forces whose players may see a hidden action: a side's, or those named."""
    if secrecy.side is not None:
        side = ctx.sides.get(secrecy.side)
        if side is None:
            raise CommandError(
                "hidden.unknown_side",
                f"{secrecy.side!r} is not a side of this battle.",
                field="hidden.side",
            )
        return [uuid.UUID(str(force_id)) for force_id in side.force_ids]
    refuse_foreign_forces(ctx.campaign.id, secrecy.force_ids)
    return list(secrecy.force_ids)


def unregister_battle_action(cls: type[BattleAction]) -> None:
    """Withdraw a battle action from every ruleset (for tests that declare one of their own)."""
    for ruleset in cls.rulesets:
        ACTIONS.pop((str(ruleset), cls.action), None)
    commands.unregister(cls.name)


def action_command(ruleset: str, action: str) -> str:
    """The command that performs ``action`` in a campaign of ``ruleset``, or a refusal."""
    found = ACTIONS.get((ruleset, action))
    if found is not None:
        return found.name
    if any(name == action for _, name in ACTIONS):
        raise CommandError(
            "battle.not_in_ruleset",
            f"{action.replace('_', ' ').capitalize()} is not a rule of this campaign's ruleset.",
            field="action",
        )
    known = sorted(name for key, name in ACTIONS if key == ruleset)
    raise CommandError(
        "action.unknown",
        f"There is no battle action {action!r}: choose from {', '.join(known)}.",
        field="action",
    )


def action_perform(
    *,
    campaign: Campaign,
    battle: Battle,
    name: str,
    params: dict[str, Any],
    dice: Sequence[int] | None,
    actor: AbstractBaseUser,
    expected_version: int | None = None,
    idempotency_key: str | None = None,
    respond: commands.Respond | None = None,
) -> commands.Outcome:
    """Perform a battle action: with ``dice`` entered from the table it is resolved now; without,
    a resolution job rolls the server's dice on a worker."""
    return commands.run(
        action_command(campaign.ruleset, name),
        campaign_id=campaign.id,
        params={**params, "battle_id": str(battle.id)},
        actor_id=actor.pk,
        dice=dice,
        expected_version=expected_version,
        idempotency_key=idempotency_key,
        respond=respond,
    )
