"""Hidden information the umpire controls: what is recorded as hidden, and its reveal.

A command that records something hidden (a journal note, a battle action, a battle's plan, a
side's mission card) appends a ``campaigns.InformationHidden`` first, in the same append, saying
what it hides and from whom:

- the ``events`` events that follow it (the note, the action's events);
- with ``battle_id``: the whole battle, its plan and every later event of it;
- with ``mission_of``: only that side's mission card (objectives, victory conditions, mission
  motivation) in the battle's plan.

Umpires see everything; the players of ``force_ids`` see it too (none: nobody but the umpires);
observers see it when the campaign's ``observers_see_hidden`` option says so. Everyone sees that
*something* was hidden, and when: the hiding is in the log, and the sequence keeps its numbers.

``campaigns.InformationRevealed`` (the umpire's ``campaigns.information_reveal``, with a reason)
reveals a hiding: from that event on, readers see what it hid in its place in the log, and in
every *as of* view from then on; an as-of view before the reveal still hides it. Nothing here is
a read model: :func:`secrets_of` reads the campaign's hidings and reveals from the log when a
request needs them (two event types, one indexed query).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field

from campaigns.common import campaign_stream, given_reason
from campaigns.models import Membership
from eventlog import commands, store
from eventlog.catalogue import EventPayload, event_type
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import CommandError, NotFound, StateConflict
from eventlog.store import NewEvent, StoredEvent
from rules.dice import DiceSource

HIDDEN = "campaigns.InformationHidden"
REVEALED = "campaigns.InformationRevealed"


@event_type(HIDDEN, stream="campaign")
class InformationHidden(EventPayload):
    """The umpire recorded what follows as hidden: the next ``events`` events, or a whole battle
    (``battle_id``), or a side's mission card in a battle's plan (``mission_of``), from everyone
    but the umpires and the players of ``force_ids``."""

    force_ids: list[uuid.UUID] = Field(
        default_factory=list, description="The forces whose players may see it (none: nobody)."
    )
    events: int = Field(ge=0, description="How many of the events that follow it are hidden.")
    battle_id: uuid.UUID | None = Field(
        default=None, description="The battle hidden whole, from its plan on."
    )
    mission_of: str | None = Field(
        default=None, max_length=100, description="The side of the battle whose card is hidden."
    )


@event_type(REVEALED, stream="campaign")
class InformationRevealed(EventPayload):
    """The umpire revealed what a hiding hid: from now on readers see it in its place."""

    sequence: int = Field(ge=1, description="The InformationHidden that hid it.")
    reason: str = Field(min_length=1, max_length=500)


class Secrecy(Params):
    """Record this as hidden: from everyone but the umpires, or from all but the players of some
    forces (a battle action may name a ``side`` of its battle instead)."""

    force_ids: list[uuid.UUID] = Field(
        default_factory=list, max_length=100, description="The forces whose players may see it."
    )
    side: str | None = Field(
        default=None, max_length=100, description="A battle action's side whose players may see it."
    )


def hiding(
    secrecy: Secrecy,
    *,
    campaign_id: uuid.UUID,
    events: int = 0,
    force_ids: Iterable[uuid.UUID] | None = None,
    battle_id: uuid.UUID | None = None,
    mission_of: str | None = None,
) -> NewEvent:
    """The ``InformationHidden`` a command appends before what it hides. ``force_ids`` (a side's
    forces, resolved by the command) replaces the secrecy's own."""
    shown_to = list(force_ids) if force_ids is not None else list(secrecy.force_ids)
    return NewEvent.of(
        InformationHidden(
            force_ids=sorted(set(shown_to), key=str),
            events=events,
            battle_id=battle_id,
            mission_of=mission_of,
        ),
        stream=campaign_stream(campaign_id),
    )


def hidden_decision(
    decision: Decision,
    secrecy: Secrecy | None,
    *,
    campaign_id: uuid.UUID,
    force_ids: Iterable[uuid.UUID] | None = None,
) -> Decision:
    """The decision with its events recorded as hidden, if the command was asked to."""
    if secrecy is None or not decision.events:
        return decision
    hide = hiding(
        secrecy, campaign_id=campaign_id, events=len(decision.events), force_ids=force_ids
    )
    return Decision([hide, *decision.events], decision.result)


# --- Reading the campaign's secrets -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Secret:
    """One hiding: where it is, whom it spares, and when it was revealed (None: not yet)."""

    sequence: int
    force_ids: frozenset[str]
    revealed_at: int | None = None
    battle_id: str | None = None
    mission_of: str | None = None

    def revealed(self, at: int | None = None) -> bool:
        """Revealed by ``at`` (a point of the log; None: now)."""
        return self.revealed_at is not None and (at is None or self.revealed_at <= at)


@dataclass
class Secrets:
    """A campaign's hidings, to look up what hides an event or a row."""

    by_sequence: dict[int, Secret] = field(default_factory=dict)  # each hidden event
    battles: dict[str, Secret] = field(default_factory=dict)  # each battle hidden whole
    missions: dict[tuple[str, str], Secret] = field(default_factory=dict)  # (battle, side)
    hidings: dict[int, Secret] = field(default_factory=dict)

    def of(self, sequence: int, battle_id: Any = None) -> Secret | None:
        """What hides the event at ``sequence`` (of the battle ``battle_id``, if any)."""
        own = self.by_sequence.get(sequence)
        if own is not None:
            return own
        if battle_id is not None:
            battle = self.battles.get(str(battle_id))
            if battle is not None and sequence > battle.sequence:
                return battle
        return None

    def of_event(self, event: StoredEvent) -> Secret | None:
        battle_id = event.payload.get("battle_id") if isinstance(event.payload, Mapping) else None
        if battle_id is None and event.stream.startswith("battle:"):
            battle_id = event.stream_id
        return self.of(event.sequence, battle_id)

    def mission(self, battle_id: Any, side: str) -> Secret | None:
        return self.missions.get((str(battle_id), side))


def secrets_of(campaign_id: uuid.UUID) -> Secrets:
    """Every hiding of a campaign and its reveal, read from the log."""
    secrets = Secrets()
    hides: list[StoredEvent] = []
    revealed: dict[int, int] = {}
    for event in store.read(campaign_id, types=[HIDDEN, REVEALED]):
        if event.type == HIDDEN:
            hides.append(event)
        else:
            revealed.setdefault(event.payload["sequence"], event.sequence)
    for hide in hides:
        payload = hide.payload
        secret = Secret(
            sequence=hide.sequence,
            force_ids=frozenset(str(f) for f in payload.get("force_ids", [])),
            revealed_at=revealed.get(hide.sequence),
            battle_id=str(payload["battle_id"]) if payload.get("battle_id") else None,
            mission_of=payload.get("mission_of"),
        )
        secrets.hidings[hide.sequence] = secret
        for offset in range(1, payload.get("events", 0) + 1):
            secrets.by_sequence[hide.sequence + offset] = secret
        if secret.battle_id and secret.mission_of:
            secrets.missions[(secret.battle_id, secret.mission_of)] = secret
        elif secret.battle_id:
            secrets.battles[secret.battle_id] = secret
    return secrets


# --- Revealing ----------------------------------------------------------------------------------


class RevealParams(Params):
    sequence: int = Field(
        ge=1, description="The hidden event, or the InformationHidden that hid it."
    )
    reason: str = Field(max_length=500)


@commands.command
class InformationReveal(Command[RevealParams, Secret]):
    """Reveal hidden information (umpire only): what one hiding hid, with a reason."""

    name = "campaigns.information_reveal"
    Params = RevealParams
    invalid_code = "reveal.invalid"

    def load(self, ctx: CommandContext, params: RevealParams) -> Secret:
        secrets = secrets_of(ctx.campaign_id)
        secret = secrets.hidings.get(params.sequence) or secrets.by_sequence.get(params.sequence)
        if secret is None:
            raise NotFound(
                "reveal.not_hidden", "Nothing hidden is at that sequence.", field="sequence"
            )
        return secret

    def check(self, ctx: CommandContext, state: Secret, params: RevealParams) -> None:
        given_reason(params.reason, code="reveal.reason")
        if state.revealed_at is not None:
            raise StateConflict(
                "reveal.already_revealed",
                f"That was revealed already, by event #{state.revealed_at}.",
                field="sequence",
            )

    def decide(
        self, ctx: CommandContext, state: Secret, params: RevealParams, dice: DiceSource | None
    ) -> Decision:
        reason = given_reason(params.reason, code="reveal.reason")
        revealed = InformationRevealed(sequence=state.sequence, reason=reason)
        return Decision.of([revealed], stream=campaign_stream(ctx.campaign_id))


def may_see_secret(role: str, force_ids: Iterable[str], secret: Secret, *, observers: bool) -> bool:
    """Whether a member sees what ``secret`` hides before it is revealed."""
    if role == Membership.Role.UMPIRE:
        return True
    if role == Membership.Role.OBSERVER:
        return observers
    return bool(secret.force_ids & set(force_ids))


def refuse_foreign_forces(campaign_id: uuid.UUID, force_ids: Iterable[uuid.UUID]) -> None:
    """A hiding spares only forces of the campaign (each has its stream in the log)."""
    for index, force_id in enumerate(force_ids):
        if store.stream_version(campaign_id, f"force:{force_id}") == 0:
            raise CommandError(
                "hidden.unknown_force",
                "That force is not in this campaign.",
                field=f"hidden.force_ids.{index}",
            )
