"""Commands: every write to a campaign, declared once and run inside one consistency boundary.

A command is a class with a name, typed parameters (a pydantic model), the state it reads
(:meth:`Command.load`), the refusals it can make before any die is rolled (:meth:`Command.check`)
and its decision (:meth:`Command.decide`): the events the rules produce from that state and, when
the command rolls dice, a :class:`rules.dice.DiceSource`.

:func:`run` is the only way a command reaches the log. It opens one durable transaction, takes the
campaign's lock first, then loads, checks, decides and appends, so a decision is never appended on
state that changed after it was read. When the server must roll, it records a resolution job in
that same transaction instead; the worker runs the *same* declaration, again under the lock, with
the campaign's seeded dice (:func:`run_job`). Table dice and server dice are two inputs to one code
path.

Every run leaves a :class:`~eventlog.models.CommandRecord` (name, parameters, dice, actor, the
response) beside its events, so a campaign's commands can be read back and run again, and a
client's ``Idempotency-Key`` replays the original response. See docs/adr/0010-command-runner.md.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, ParamSpec, Protocol, TypeVar

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from pydantic import BaseModel, ConfigDict, ValidationError

from eventlog import logcontext, metrics, store
from eventlog.catalogue import EventPayload
from eventlog.command_input import (
    EnteredDice,
    refuse_unstorable_input,
    rules_refusals,
    table_dice,
)
from eventlog.errors import (
    CommandError,
    ConcurrencyConflict,
    InvalidInput,
    StateConflict,
    database_busy,
)
from eventlog.models import CommandRecord, Job
from eventlog.store import NewEvent, StoredEvent
from rules.dice import (
    DiceError,
    DiceNeed,
    DiceSource,
    PromptDice,
)
from rules.errors import RuleError

MAX_IDEMPOTENCY_KEY = 200

logger = logging.getLogger(__name__)


class Params(BaseModel):
    """Base for command parameters: unknown fields are refused, not ignored."""

    model_config = ConfigDict(extra="forbid")


ParamsT = TypeVar("ParamsT", bound=BaseModel)
StateT = TypeVar("StateT")


class IdTranslation(Protocol):
    """A translation of ids between two campaigns that is its own inverse (``IdMap``)."""

    def __call__(self, value: uuid.UUID) -> uuid.UUID: ...

    def text(self, value: str) -> str: ...


@dataclass(frozen=True)
class CommandContext:
    """What a command knows besides its parameters: where it runs and for whom.

    ``server_dice`` is true when the server rolls (the command runs in a resolution job).
    A command run again in another campaign (a branch, ``campaigns.branches``) derives the ids
    it creates as the original did (from the original command's id, ``ids_from``, and the label
    with its ids translated back) and translates them (``translate_id``), so they are the ids the
    original's later commands name, translated.
    """

    campaign_id: uuid.UUID
    actor_id: int | None
    command_id: uuid.UUID = field(default_factory=uuid.uuid4)
    server_dice: bool = False
    job: Job | None = None
    ids_from: uuid.UUID | None = None
    translate_id: IdTranslation | None = None

    def new_id(self, label: str = "") -> uuid.UUID:
        """An id for something the command creates, derived from the command's own id: running
        the recorded command again creates the same ids."""
        if self.translate_id is None:
            return uuid.uuid5(self.command_id, label)
        translate = self.translate_id
        return translate(uuid.uuid5(self.ids_from or self.command_id, translate.text(label)))

    def jobs_in_flight(self, command: str) -> list[Job]:
        """This campaign's jobs of a command that are waiting or running, other than this one:
        read under the campaign lock, so two requests cannot both miss each other's job."""
        queryset = Job.objects.filter(
            campaign_id=self.campaign_id,
            kind=command,
            status__in=(Job.Status.PENDING, Job.Status.RUNNING),
        )
        if self.job is not None:
            queryset = queryset.exclude(pk=self.job.pk)
        return list(queryset)


_deciding: ContextVar[CommandContext | None] = ContextVar("deciding", default=None)


@contextlib.contextmanager
def deciding(ctx: CommandContext) -> Iterator[None]:
    """Mark the command whose decision is being taken, for :func:`new_id`."""
    token = _deciding.set(ctx)
    try:
        yield
    finally:
        _deciding.reset(token)


def new_id(label: str) -> uuid.UUID:
    """An id for something the command being decided creates (:meth:`CommandContext.new_id`),
    for rules code that is handed no context (a calendar step, an after-action table)."""
    ctx = _deciding.get()
    if ctx is None:
        raise RuntimeError("new_id() is called while a command decides, and none is deciding.")
    return ctx.new_id(label)


@dataclass
class Decision:
    """What a command decided: the events to append and, for the caller, a result (the id of
    what it created, say)."""

    events: list[NewEvent]
    result: Any = None

    @classmethod
    def of(cls, payloads: Sequence[EventPayload], *, stream: str, result: Any = None) -> Decision:
        return cls([NewEvent.of(payload, stream=stream) for payload in payloads], result)


class Command(Generic[ParamsT, StateT]):
    """One kind of write. Subclasses set ``name`` and ``Params`` and implement :meth:`stream`,
    :meth:`load` and :meth:`decide`; :meth:`check` holds the refusals that need no dice.

    ``rolls_dice`` commands take table dice, or leave them out for the server to roll in a job.
    """

    name: ClassVar[str]
    Params: ClassVar[type[BaseModel]]
    rolls_dice: ClassVar[bool] = False
    # False for commands about the installation rather than the game (accounts, a dice seed's
    # publication): a branch of the campaign does not run them again.
    replayable: ClassVar[bool] = True
    # The code of a parameter that does not parse; "<app>.invalid" when not set.
    invalid_code: ClassVar[str] = ""

    def stream(self, ctx: CommandContext, params: ParamsT) -> str:
        """The stream the command acts on: a client's ``expected_version`` is checked against it."""
        return f"campaign:{ctx.campaign_id}"

    def load(self, ctx: CommandContext, params: ParamsT) -> StateT:
        """Read the state the decision needs. Runs under the campaign lock."""
        raise NotImplementedError

    def check(self, ctx: CommandContext, state: StateT, params: ParamsT) -> None:
        """Refuse what the rules refuse before any die is rolled (so a server-dice request is
        refused at once rather than in its job)."""

    def decide(
        self, ctx: CommandContext, state: StateT, params: ParamsT, dice: DiceSource | None
    ) -> Decision:
        """The events the rules produce. ``dice`` is None for commands that roll none."""
        raise NotImplementedError


_COMMANDS: dict[str, Command[Any, Any]] = {}


def command(cls: type[Command[Any, Any]]) -> type[Command[Any, Any]]:
    """Register a command class under its name (a class decorator)."""
    if not getattr(cls, "name", ""):
        raise TypeError(f"{cls.__name__} needs a name.")
    if cls.name in _COMMANDS and type(_COMMANDS[cls.name]) is not cls:
        raise TypeError(f"Two commands are named {cls.name!r}.")
    _COMMANDS[cls.name] = cls()
    return cls


# Jobs that write a campaign in many steps (a branch's play-through): no command runs on the
# campaign while one is waiting or running, or it would land between their steps.
_EXCLUSIVE_JOBS: set[str] = set()


def exclusive_job(kind: str) -> None:
    """Declare that while a job of ``kind`` is waiting or running, its campaign takes no command."""
    _EXCLUSIVE_JOBS.add(kind)


def _refuse_while_exclusive_job(campaign_id: uuid.UUID) -> None:
    busy = Job.objects.filter(
        campaign_id=campaign_id,
        kind__in=_EXCLUSIVE_JOBS,
        status__in=(Job.Status.PENDING, Job.Status.RUNNING),
    )
    if _EXCLUSIVE_JOBS and busy.exists():
        raise StateConflict(
            "campaign.busy",
            "The campaign is being played through (a branch's job): try again when its job has "
            "finished.",
        )


def unregister(name: str) -> None:
    """Withdraw a command (for tests that declare one of their own)."""
    _COMMANDS.pop(name, None)


def get(name: str) -> Command[Any, Any]:
    """The command registered as ``name``. Code names commands, so an unknown one is a bug."""
    try:
        return _COMMANDS[name]
    except KeyError:
        raise LookupError(f"No command is registered as {name!r}.") from None


def registered() -> dict[str, Command[Any, Any]]:
    return dict(sorted(_COMMANDS.items()))


class ServerDice(Protocol):
    """The server's dice of a campaign: the seed of a dice epoch (the current one when ``epoch``
    is None), read from ``namespace``."""

    def __call__(
        self, campaign_id: uuid.UUID, namespace: str, epoch: int | None = None
    ) -> DiceSource: ...


DiceEpochOf = Callable[[uuid.UUID], int]
_server_dice: list[ServerDice] = []
_dice_epoch_of: list[DiceEpochOf] = []


def use_server_dice(factory: ServerDice, *, epoch_of: DiceEpochOf | None = None) -> None:
    """Name where the server's dice come from (the campaign's seed): a campaign id, a namespace
    and a dice epoch give a dice source; ``epoch_of`` tells a campaign's current dice epoch, which
    a job keeps from the moment it is asked for. The campaigns app sets both when Django starts."""
    _server_dice[:] = [factory]
    _dice_epoch_of[:] = [epoch_of] if epoch_of is not None else []


@dataclass
class Outcome:
    """What running a command came to: its events, or the job that will roll its dice, and the
    response the API gave (kept for idempotent replays)."""

    command_id: uuid.UUID
    events: list[StoredEvent] = field(default_factory=list)
    job: Job | None = None
    result: Any = None
    status: int = 201
    body: Any = None
    replayed: bool = False


Respond = Callable[[Outcome], tuple[int, Any]]


def parse_params(cmd: Command[Any, Any], params: Mapping[str, Any] | BaseModel) -> BaseModel:
    """The command's parameters, validated; every problem is reported, the first as the error."""
    if isinstance(params, cmd.Params):
        return params
    raw = params.model_dump(mode="json") if isinstance(params, BaseModel) else dict(params)
    code = cmd.invalid_code or f"{cmd.name.partition('.')[0]}.invalid"
    refuse_unstorable_input(raw, "", code)
    try:
        return cmd.Params.model_validate(raw)
    except ValidationError as exc:
        raise InvalidInput.from_validation(exc, code=code) from None


def fingerprint(
    name: str, params: BaseModel, dice: EnteredDice | None, expected: int | None
) -> str:
    """Identifies a request, so a key reused for a different one is caught."""
    body = {
        "command": name,
        "params": params.model_dump(mode="json"),
        "dice": list(dice) if dice is not None else None,
        "expected_version": expected,
    }
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


RunParams = ParamSpec("RunParams")


def _logged(
    run_command: Callable[RunParams, Outcome],
) -> Callable[RunParams, Outcome]:
    """Log and count every run's outcome, with its campaign, command and duration."""

    @functools.wraps(run_command)
    def logged(*args: RunParams.args, **kwargs: RunParams.kwargs) -> Outcome:
        name = str(args[0] if args else kwargs.get("name"))
        campaign_id = str(kwargs.get("campaign_id"))
        started = time.perf_counter()
        try:
            outcome = run_command(*args, **kwargs)
        except CommandError as refusal:
            _log_outcome(name, campaign_id, "refused", started, code=refusal.code)
            raise
        except Exception as error:
            busy = database_busy(error)
            code = busy or type(error).__name__
            _log_outcome(name, campaign_id, "busy" if busy else "error", started, code=code)
            raise
        ran = "replayed" if outcome.replayed else "queued" if outcome.job else "applied"
        job = {"job": str(outcome.job.pk)} if outcome.job is not None else {}
        _log_outcome(name, campaign_id, ran, started, status=outcome.status, **job)
        return outcome

    return logged


def _log_outcome(name: str, campaign_id: str, outcome: str, started: float, **extra: Any) -> None:
    seconds = time.perf_counter() - started
    metrics.COMMANDS.labels(name, outcome).inc()
    metrics.COMMAND_SECONDS.labels(name).observe(seconds)
    level = logging.WARNING if outcome in ("busy", "error") else logging.INFO
    logger.log(
        level,
        "Command %s %s.",
        name,
        outcome,
        extra={
            "campaign_id": campaign_id,
            "command": name,
            "outcome": outcome,
            "duration_ms": round(seconds * 1000, 1),
            **extra,
        },
    )


@_logged
def run(
    name: str,
    *,
    campaign_id: uuid.UUID,
    params: Mapping[str, Any] | BaseModel,
    actor_id: int | None,
    dice: EnteredDice | None = None,
    expected_version: int | None = None,
    idempotency_key: str | None = None,
    respond: Respond | None = None,
) -> Outcome:
    """Run a command: decide and append (or record its job) in one transaction under the
    campaign's lock.

    ``dice`` are faces rolled at the table, in the order the rules use them; a command that rolls
    dice and gets none is left to a resolution job. ``expected_version`` is the version of the
    command's stream the client last saw: a mismatch is a 409 and appends nothing. An
    ``idempotency_key`` already used by this actor in this campaign returns the first outcome's
    response and appends nothing; used for a different request, it is a 409. ``respond`` renders
    the response, inside the transaction, so it shows the state the command left.
    """
    cmd = get(name)
    parsed = parse_params(cmd, params)
    if dice is not None and not cmd.rolls_dice:
        raise CommandError("dice.not_used", f"{name} rolls no dice.", field="dice")
    if idempotency_key is not None and not 1 <= len(idempotency_key) <= MAX_IDEMPOTENCY_KEY:
        raise CommandError(
            "idempotency.invalid_key",
            f"An Idempotency-Key has 1 to {MAX_IDEMPOTENCY_KEY} characters.",
            field="Idempotency-Key",
        )
    request_print = fingerprint(name, parsed, dice, expected_version)
    try:
        with transaction.atomic(durable=True):
            store.lock_campaign(campaign_id)
            if idempotency_key is not None:
                earlier = _earlier(campaign_id, actor_id, idempotency_key)
                if earlier is not None:
                    return _replay(earlier, request_print)
            ctx = CommandContext(campaign_id=campaign_id, actor_id=actor_id)
            outcome = _decide_and_append(
                cmd, ctx, parsed, dice=dice, expected_version=expected_version
            )
            if respond is not None:
                outcome.status, outcome.body = respond(outcome)
            _record(
                outcome,
                cmd=cmd,
                ctx=ctx,
                params=parsed,
                dice=dice,
                idempotency_key=idempotency_key,
                request_print=request_print,
            )
    except IntegrityError:
        # A campaign's first command (its creation) has no lock to wait on: two requests with
        # the same key meet at the record's unique index instead. The first one won.
        earlier = _earlier(campaign_id, actor_id, idempotency_key) if idempotency_key else None
        if earlier is None:
            raise
        return _replay(earlier, request_print)
    if outcome.job is not None:
        job_id = outcome.job.pk
        transaction.on_commit(lambda: _dispatch(job_id), robust=True)
    return outcome


def _dispatch(job_id: uuid.UUID) -> None:
    from eventlog import jobs

    jobs.dispatch(job_id)


def _earlier(campaign_id: uuid.UUID, actor_id: int | None, key: str) -> CommandRecord | None:
    return CommandRecord.objects.filter(
        campaign_id=campaign_id, actor_id=actor_id, idempotency_key=key
    ).first()


def _replay(record: CommandRecord, request_print: str) -> Outcome:
    if record.fingerprint != request_print:
        raise ConcurrencyConflict(
            "idempotency.key_reused",
            "This Idempotency-Key was already used for a different request.",
            field="Idempotency-Key",
        )
    job = Job.objects.filter(pk=record.job_id).first() if record.job_id else None
    return Outcome(
        command_id=record.id,
        events=[],
        job=job,
        status=record.response_status,
        body=record.response_body,
        replayed=True,
    )


def _decide_and_append(
    cmd: Command[Any, Any],
    ctx: CommandContext,
    params: BaseModel,
    *,
    dice: EnteredDice | None,
    expected_version: int | None,
) -> Outcome:
    command_id = ctx.command_id
    stream = cmd.stream(ctx, params)
    if expected_version is not None:
        found = store.stream_version(ctx.campaign_id, stream)
        if found != expected_version:
            raise ConcurrencyConflict(
                "event.version_conflict",
                f"Stream {stream} is at version {found}, not {expected_version}: someone else "
                "changed it first. Read it again and retry.",
                field="expected_version",
            )
    _refuse_while_exclusive_job(ctx.campaign_id)
    state = cmd.load(ctx, params)
    with rules_refusals():
        cmd.check(ctx, state, params)
    if cmd.rolls_dice and dice is None:
        job = _job_record(ctx, cmd.name, params, command_id)
        return Outcome(command_id=command_id, job=job, status=202)
    with rules_refusals():
        decision = _decide(cmd, ctx, state, params, dice)
    events = _append(ctx, decision, command_id=command_id, name=cmd.name)
    return Outcome(command_id=command_id, events=events, result=decision.result, status=201)


def _decide(
    cmd: Command[Any, Any],
    ctx: CommandContext,
    state: Any,
    params: BaseModel,
    dice: EnteredDice | None,
) -> Decision:
    """Decide with the table's dice when it gave some. The table may also have rolled the dice
    the book rolls though they cannot matter (rules.dice.roll_moot): when faces are left over
    without them, the decision is taken again with those dice among the faces; if that fails
    too, the first refusal stands."""
    with deciding(ctx):
        if dice is None:
            return cmd.decide(ctx, state, params, None)
        table = table_dice(dice)
        decision = cmd.decide(ctx, state, params, table)
        try:
            table.ensure_all_used()
        except DiceError as left_over:
            with_moot = table_dice(dice, moot=True)
            try:
                decision = cmd.decide(ctx, state, params, with_moot)
                with_moot.ensure_all_used()
            except (RuleError, CommandError):
                raise left_over from None
        return decision


def _append(
    ctx: CommandContext,
    decision: Decision,
    *,
    command_id: uuid.UUID,
    name: str,
    metadata: Mapping[str, Any] | None = None,
    recorded_at: Any = None,
) -> list[StoredEvent]:
    if not decision.events:
        return []
    result = store.append(
        ctx.campaign_id,
        decision.events,
        actor_id=ctx.actor_id,
        job_id=ctx.job.pk if ctx.job else None,
        metadata={"command": str(command_id), "command_name": name, **(metadata or {})},
        # Any failure rolls the whole command back: no savepoint needed.
        savepoint=False,
        recorded_at=recorded_at,
    )
    return result.events


def _job_record(ctx: CommandContext, name: str, params: BaseModel, command_id: uuid.UUID) -> Job:
    """The resolution job, numbered in the campaign: the caller holds the campaign lock, so
    numbers are gap-free and unique."""
    last = Job.objects.filter(campaign_id=ctx.campaign_id).aggregate(last=Max("ordinal"))["last"]
    return Job.objects.create(
        campaign_id=ctx.campaign_id,
        ordinal=(last or 0) + 1,
        kind=name,
        params=params.model_dump(mode="json"),
        command_id=command_id,
        requested_by_id=ctx.actor_id,
        requested_at=timezone.now(),
        # Kept with the job, so the worker's lines carry it even when a sweep re-dispatches it.
        request_id=logcontext.request_id.get() or "",
        # Read under the campaign lock, as a dice epoch is closed: the job rolls with this
        # epoch's seed however late it runs, and a rerun after a crash rolls the same dice.
        dice_epoch=_dice_epoch_of[0](ctx.campaign_id) if _dice_epoch_of else 0,
    )


def _record(
    outcome: Outcome,
    *,
    cmd: Command[Any, Any],
    ctx: CommandContext,
    params: BaseModel,
    dice: EnteredDice | None,
    idempotency_key: str | None,
    request_print: str,
) -> None:
    CommandRecord.objects.create(
        id=outcome.command_id,
        campaign_id=ctx.campaign_id,
        name=cmd.name,
        params=params.model_dump(mode="json"),
        dice_source=(
            CommandRecord.DiceSource.TABLE
            if dice is not None
            else CommandRecord.DiceSource.SERVER
            if outcome.job is not None
            else CommandRecord.DiceSource.NONE
        ),
        table_dice=list(dice) if dice is not None else None,
        actor_id=ctx.actor_id,
        idempotency_key=idempotency_key,
        fingerprint=request_print,
        job_id=outcome.job.pk if outcome.job else None,
        first_sequence=outcome.events[0].sequence if outcome.events else None,
        last_sequence=outcome.events[-1].sequence if outcome.events else None,
        response_status=outcome.status,
        response_body=_jsonable(outcome.body),
        recorded_at=timezone.now(),
    )


def _jsonable(body: Any) -> Any:
    return json.loads(json.dumps(body, default=str)) if body is not None else None


def run_job_command(job: Job) -> list[StoredEvent]:
    """Run a job's command with the server's dice. The caller holds the job's row lock inside a
    durable transaction; this takes the campaign lock, then loads, checks and decides again on
    the state that holds now, so a job never appends a stale decision nor fails on a race."""
    if not _server_dice:
        raise RuntimeError("No server dice: the campaigns app was not loaded.")
    cmd = get(job.kind)
    params = parse_params(cmd, job.params)
    store.lock_campaign(job.campaign_id)
    ctx = CommandContext(
        campaign_id=job.campaign_id,
        actor_id=job.requested_by_id,
        command_id=job.command_id or job.pk,
        server_dice=True,
        job=job,
    )
    dice = _server_dice[0](job.campaign_id, job.dice_namespace, job.dice_epoch)
    state = cmd.load(ctx, params)
    with rules_refusals():
        cmd.check(ctx, state, params)
        with deciding(ctx):
            decision = cmd.decide(ctx, state, params, dice)
    return _append(
        ctx,
        decision,
        command_id=ctx.command_id,
        name=cmd.name,
        metadata={
            "job_kind": job.kind,
            "dice_namespace": job.dice_namespace,
            "dice_epoch": job.dice_epoch,
        },
    )


def server_dice(campaign_id: uuid.UUID, namespace: str) -> DiceSource:
    """The campaign's seeded dice (its current dice epoch), read from ``namespace``."""
    if not _server_dice:
        raise RuntimeError("No server dice: the campaigns app was not loaded.")
    return _server_dice[0](campaign_id, namespace, None)


def run_again(
    name: str,
    *,
    campaign_id: uuid.UUID,
    params: Mapping[str, Any],
    actor_id: int | None,
    dice: DiceSource | None,
    dice_source: str,
    ids_from: uuid.UUID,
    translate_id: IdTranslation,
    recorded_at: Any,
    metadata: Mapping[str, Any],
) -> Outcome:
    """Run a recorded command again in another campaign (a branch): load, check, decide and
    append, in the caller's transaction, which holds the campaign's lock.

    The command's id and the ids it creates are the original's translated (``ids_from``,
    ``translate_id``); ``dice`` answers every die the rules ask for; the events keep the time of
    the original's (``recorded_at``). A refusal raises :class:`CommandError` and appends nothing.
    """
    cmd = get(name)
    parsed = parse_params(cmd, params)
    ctx = CommandContext(
        campaign_id=campaign_id,
        actor_id=actor_id,
        command_id=translate_id(ids_from),
        server_dice=dice_source == CommandRecord.DiceSource.SERVER,
        ids_from=ids_from,
        translate_id=translate_id,
    )
    state = cmd.load(ctx, parsed)
    with rules_refusals():
        cmd.check(ctx, state, parsed)
        with deciding(ctx):
            decision = cmd.decide(ctx, state, parsed, dice if cmd.rolls_dice else None)
    events = _append(
        ctx,
        decision,
        command_id=ctx.command_id,
        name=cmd.name,
        metadata=metadata,
        recorded_at=recorded_at,
    )
    outcome = Outcome(command_id=ctx.command_id, events=events, result=decision.result)
    CommandRecord.objects.create(
        id=ctx.command_id,
        campaign_id=campaign_id,
        name=cmd.name,
        params=parsed.model_dump(mode="json"),
        dice_source=dice_source,
        table_dice=None,
        actor_id=actor_id,
        fingerprint=fingerprint(cmd.name, parsed, None, None),
        first_sequence=events[0].sequence if events else None,
        last_sequence=events[-1].sequence if events else None,
        response_status=outcome.status,
        recorded_at=timezone.now(),
    )
    return outcome


@dataclass(frozen=True)
class Prompt:
    """The dice a command needs: every die in order, and whether the faces given complete it."""

    needs: list[DiceNeed]
    complete: bool


def prompt(
    name: str,
    *,
    campaign_id: uuid.UUID,
    params: Mapping[str, Any] | BaseModel,
    actor_id: int | None,
    dice: Sequence[int] = (),
) -> Prompt:
    """The dice prompt of a command that rolls dice: follows its decision with the faces entered
    so far and lists every die it asks for (die, purpose, for whom). Nothing is written: the
    decision runs in a transaction that is rolled back."""
    cmd = get(name)
    if not cmd.rolls_dice:
        raise CommandError("dice.not_used", f"{name} rolls no dice.", field="dice")
    parsed = parse_params(cmd, params)
    with transaction.atomic():
        ctx = CommandContext(campaign_id=campaign_id, actor_id=actor_id)
        state = cmd.load(ctx, parsed)
        with rules_refusals():
            cmd.check(ctx, state, parsed)
            dice_prompt = PromptDice(dice)
            with deciding(ctx):
                cmd.decide(ctx, state, parsed, dice_prompt)
            if dice_prompt.left_over and any(need.moot for need in dice_prompt.needs):
                # As the runner does: faces left over may be the dice that cannot matter.
                with_moot = PromptDice(dice, moot=True)
                with contextlib.suppress(RuleError, CommandError), deciding(ctx):
                    cmd.decide(ctx, state, parsed, with_moot)
                    if not with_moot.left_over:
                        dice_prompt = with_moot
        transaction.set_rollback(True)
    return Prompt(needs=dice_prompt.needs, complete=dice_prompt.complete)
