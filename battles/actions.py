"""Battle actions: commands that the rules resolve with dice, entered from the table or rolled
by the server in a resolution job.

Each action declares its parameters (a pydantic model), checks them against the battle's state,
and resolves them with a :class:`rules.dice.DiceSource` into events that carry every die. With
table dice the action is resolved at once; without, a job rolls the server's dice and resolves it
on a worker, checking the state again first. Either way a refusal appends nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from django.contrib.auth.models import AbstractBaseUser
from pydantic import BaseModel, ConfigDict, ValidationError

from battles.models import Battle, BattleSide, Participant
from battles.services import append_to_battle, battle_stream, require_status
from campaigns.events import DieRoll
from campaigns.models import Campaign
from campaigns.services import job_dice
from eventlog import jobs, store
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.models import Job
from eventlog.store import NewEvent, StoredEvent
from rosters.models import Trooper, Unit, Vehicle
from rules.dice import DiceError, DiceSource, Roll, TableDice
from rules.options import parse_options
from rules.rulesets import Ruleset

RESOLVE_ACTION_JOB = "battles.resolve_action"


def dice_json(rolls: Sequence[Roll]) -> list[DieRoll]:
    """Rolls as they are stored in events: die, face, purpose, source and seeded counter."""
    return [
        DieRoll(
            die=roll.die.value,
            result=roll.result,
            purpose=roll.purpose,
            source=roll.source.value,
            counter=roll.counter,
        )
        for roll in rolls
    ]


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

    def require_ruleset(self, ruleset: Ruleset, action: str) -> None:
        if self.campaign.ruleset != ruleset:
            raise CommandError(
                "battle.not_in_ruleset",
                f"{action} is a {ruleset.label} rule; this campaign plays another ruleset.",
            )


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BattleAction:
    """One kind of battle action. Subclasses set ``name`` and ``Params`` and implement
    :meth:`check` (state rules, no dice) and :meth:`resolve` (the rules, with dice)."""

    name: ClassVar[str]
    Params: ClassVar[type[Params]]
    statuses: ClassVar[tuple[str, ...]] = (Battle.Status.IN_PROGRESS,)

    def check(self, ctx: BattleContext, params: Any) -> None:
        """Refuse parameters that do not fit the battle's state."""

    def resolve(self, ctx: BattleContext, params: Any, dice: DiceSource) -> list[Any]:
        raise NotImplementedError


ACTIONS: dict[str, BattleAction] = {}


def battle_action(cls: type[BattleAction]) -> type[BattleAction]:
    ACTIONS[cls.name] = cls()
    return cls


def _parse(action: BattleAction, params: dict[str, Any]) -> Any:
    try:
        return action.Params.model_validate(params)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise CommandError(
            "action.invalid", f"{where}: {first['msg']}" if where else first["msg"],
            field=where or None,
        ) from None  # fmt: skip


def _prepare(campaign: Campaign, battle: Battle, name: str, params: dict[str, Any]):
    action = ACTIONS.get(name)
    if action is None:
        raise CommandError(
            "action.unknown",
            f"There is no battle action {name!r}: choose from {', '.join(sorted(ACTIONS))}.",
            field="action",
        )
    require_status(battle, *action.statuses, doing=name.replace("_", " "))
    parsed = _parse(action, params)
    ctx = BattleContext.load(campaign, battle)
    action.check(ctx, parsed)
    return action, parsed, ctx


def _run(action: BattleAction, ctx: BattleContext, parsed: Any, dice: DiceSource) -> list[Any]:
    try:
        return action.resolve(ctx, parsed, dice)
    except DiceError as exc:
        raise CommandError(exc.code, exc.message, field=f"dice.{exc.index}") from None
    except ValueError as exc:  # the rules refused
        raise RuleViolation(getattr(exc, "code", "rules.refused"), str(exc)) from None


def action_perform(
    *,
    campaign: Campaign,
    battle: Battle,
    name: str,
    params: dict[str, Any],
    dice: Sequence[int] | None,
    actor: AbstractBaseUser,
) -> list[StoredEvent] | Job:
    """Perform a battle action: with ``dice`` entered from the table it is resolved now and its
    events are returned; without, a resolution job is returned and a worker rolls the dice."""
    action, parsed, ctx = _prepare(campaign, battle, name, params)
    if dice is None:
        return jobs.job_request(
            campaign_id=campaign.id,
            kind=RESOLVE_ACTION_JOB,
            params={"battle_id": str(battle.id), "action": name, "params": params},
            requested_by_id=actor.pk,
        )
    table = TableDice(dice)
    payloads = _run(action, ctx, parsed, table)
    try:
        table.ensure_all_used()
    except DiceError as exc:
        raise CommandError(exc.code, exc.message, field=f"dice.{exc.index}") from None
    return append_to_battle(campaign.id, battle.id, payloads, actor.pk)


@jobs.handler(RESOLVE_ACTION_JOB)
def _resolve_with_server_dice(job: Job) -> jobs.JobOutcome:
    campaign = Campaign.objects.get(pk=job.campaign_id)
    battle = Battle.objects.get(pk=job.params["battle_id"])
    action, parsed, ctx = _prepare(campaign, battle, job.params["action"], job.params["params"])
    payloads = _run(action, ctx, parsed, job_dice(job))
    stream = battle_stream(battle.id)
    return jobs.JobOutcome(
        events=[NewEvent.of(payload, stream=stream) for payload in payloads],
        expected_versions={stream: store.stream_version(campaign.id, stream)},
    )
