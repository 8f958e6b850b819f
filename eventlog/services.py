"""Commands on the log itself: appending an event written by hand, and voiding an event."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from eventlog import catalogue, commands, store
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import CommandError, NotFound, StateConflict
from eventlog.events import VOIDED, EventVoided
from eventlog.projections import voids
from eventlog.store import NewEvent, StoredEvent
from rules.dice import DiceSource


class EventAppendParams(Params):
    type: str
    payload: Any = None
    stream: str | None = None


def _target_stream(campaign_id: uuid.UUID, params: EventAppendParams) -> str:
    """The stream the event goes to, or the refusal of the type or the stream."""
    spec = catalogue.get(params.type)
    if not spec.appendable:
        raise CommandError(
            "event.not_appendable",
            f"{params.type} events are recorded by their own commands, not appended directly.",
            field="type",
        )
    own = f"campaign:{campaign_id}"
    if params.stream is None:
        if spec.stream_category != "campaign":
            raise CommandError("event.stream_required", "Name the stream.", field="stream")
        return own
    if spec.stream_category == "campaign" and params.stream != own:
        raise CommandError(
            "event.wrong_stream",
            f"{params.type} events go to this campaign's stream '{own}'.",
            field="stream",
        )
    return params.stream


@commands.command
class EventAppend(Command[EventAppendParams, None]):
    """Validate one event against the catalogue and append it to the campaign's log.

    Only types marked appendable may be written this way; the rest are produced by commands
    that check the rules first. A client's ``expected_version`` is that of the stream the event
    goes to.
    """

    name = "eventlog.event_append"
    Params = EventAppendParams
    invalid_code = "event.invalid"

    def stream(self, ctx: CommandContext, params: EventAppendParams) -> str:
        return _target_stream(ctx.campaign_id, params)

    def load(self, ctx: CommandContext, params: EventAppendParams) -> None:
        return None

    def check(self, ctx: CommandContext, state: None, params: EventAppendParams) -> None:
        self._event(ctx, params)

    def decide(
        self, ctx: CommandContext, state: None, params: EventAppendParams, dice: DiceSource | None
    ) -> Decision:
        return Decision([self._event(ctx, params)])

    @staticmethod
    def _event(ctx: CommandContext, params: EventAppendParams) -> NewEvent:
        stream = _target_stream(ctx.campaign_id, params)
        return NewEvent.from_raw(params.type, params.payload, stream=stream)


def event_append(
    *,
    campaign_id: uuid.UUID,
    type_name: str,
    payload: object,
    stream: str | None,
    expected_version: int | None,
    idempotency_key: str | None,
    actor_id: int,
) -> commands.Outcome:
    """Append one event written by hand (see :class:`EventAppend`). A repeated
    ``idempotency_key`` replays the first outcome; used for another request, it is a 409."""
    return commands.run(
        EventAppend.name,
        campaign_id=campaign_id,
        params={"type": type_name, "payload": payload, "stream": stream},
        actor_id=actor_id,
        expected_version=expected_version,
        idempotency_key=idempotency_key,
    )


# A revealed dice seed cannot be taken back: voiding its DiceEpochClosed would hide nothing.
UNVOIDABLE = frozenset({"campaigns.CampaignCreated", "campaigns.DiceEpochClosed", VOIDED})


class EventVoidParams(Params):
    sequence: int
    reason: str = ""


@dataclass(frozen=True)
class VoidTarget:
    event: StoredEvent | None
    voided: frozenset[int]


@commands.command
class EventVoid(Command[EventVoidParams, VoidTarget]):
    """Void an earlier event of the campaign: read models are recomputed without it.

    The voided event stays in the log and the void is an event of its own, so the history shows
    both. A campaign's creation, a closed dice epoch, a void, and an event already voided
    cannot be voided. The result is the voided event's type.
    """

    name = "eventlog.event_void"
    Params = EventVoidParams
    invalid_code = "void.invalid"

    def load(self, ctx: CommandContext, params: EventVoidParams) -> VoidTarget:
        sequence = params.sequence
        events = store.read(ctx.campaign_id, after=sequence - 1, upto=sequence)
        return VoidTarget(next(iter(events), None), frozenset(voids(ctx.campaign_id)))

    def check(self, ctx: CommandContext, state: VoidTarget, params: EventVoidParams) -> None:
        sequence = params.sequence
        if state.event is None:
            raise NotFound(
                "void.unknown_event",
                f"Event #{sequence} is not in this campaign.",
                field="sequence",
            )
        if state.event.type in UNVOIDABLE:
            raise CommandError(
                "void.not_voidable",
                f"A {state.event.type} event cannot be voided.",
                field="sequence",
            )
        if sequence in state.voided:
            raise StateConflict(
                "void.already_voided", f"Event #{sequence} is already voided.", field="sequence"
            )
        if not params.reason.strip():
            raise CommandError(
                "void.reason_required", "Say why the event is voided.", field="reason"
            )

    def decide(
        self,
        ctx: CommandContext,
        state: VoidTarget,
        params: EventVoidParams,
        dice: DiceSource | None,
    ) -> Decision:
        assert state.event is not None  # refused by check
        void = EventVoided(sequence=params.sequence, reason=params.reason.strip())
        return Decision.of([void], stream=f"campaign:{ctx.campaign_id}", result=state.event.type)


def event_void(
    *,
    campaign_id: uuid.UUID,
    sequence: int,
    reason: str,
    actor_id: int,
) -> commands.Outcome:
    """Void an earlier event (see :class:`EventVoid`); the outcome's result is the voided
    event's type."""
    return commands.run(
        EventVoid.name,
        campaign_id=campaign_id,
        params={"sequence": sequence, "reason": reason},
        actor_id=actor_id,
    )
