"""Event types of the campaigns app."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import datetime
from typing import Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from eventlog.catalogue import EventPayload, event_type
from rules.dice import Roll

Die = Literal[4, 6, 8, 10, 12]
Role = Literal["umpire", "player", "observer"]
MAX_FORCES_PER_MEMBER = 100


class DieRoll(EventPayload):
    """One die: its type, its face, what it was rolled for and who rolled it."""

    die: Die
    result: int = Field(ge=1, le=12)
    purpose: str = Field(min_length=1, max_length=200)
    source: Literal["server", "table"]
    counter: int | None = Field(default=None, ge=0, description="Index in the seeded stream.")
    moot: bool = Field(
        default=False,
        description="Rolled because the book says to, though no face could change the outcome.",
    )
    afresh: bool = Field(
        default=False,
        description="Rolled afresh in a branch, from the branch's own seed, where the original "
        "never rolled this die for this purpose; every other die of a branch is the original's.",
    )

    @model_serializer(mode="wrap")
    def _afresh_only_when_so(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        # Only a branch rolls afresh: every other roll is stored as it always was.
        data: dict[str, object] = handler(self)
        if not self.afresh:
            data.pop("afresh", None)
        return data

    @model_validator(mode="after")
    def _face_fits_die(self) -> DieRoll:
        if self.result > self.die:
            raise ValueError(f"a d{self.die} cannot show {self.result}")
        return self


def dice_json(rolls: Iterable[Roll]) -> list[DieRoll]:
    """Rolls as events store them: die, face, purpose, source, seeded counter, and moot."""
    return [
        DieRoll(
            die=roll.die.value,
            result=roll.result,
            purpose=roll.purpose,
            source=roll.source.value,
            counter=roll.counter,
            moot=roll.moot,
            afresh=roll.afresh,
        )
        for roll in rolls
    ]


class BranchOrigin(EventPayload):
    """Where a branch comes from: its original, the point of the original's log it starts from,
    the original's last event when it was made, and the options it changes."""

    campaign_id: uuid.UUID
    sequence: int = Field(ge=1, description="The last event of the original the branch copies.")
    original_last_sequence: int = Field(
        ge=1, description="The original's last event when the branch was made: what it re-runs."
    )
    point: str = Field(max_length=300, description="The point in words (before battle 2, say).")
    option_changes: dict[str, object] = Field(default_factory=dict)
    branched_by: int = Field(description="The umpire who made the branch.")


@event_type("campaigns.CampaignCreated", stream="campaign")
class CampaignCreated(EventPayload):
    """A campaign was created, with its ruleset, its options and its umpire."""

    campaign_id: uuid.UUID
    name: str = Field(min_length=1, max_length=200)
    ruleset: str = Field(
        min_length=1, max_length=10, description="The code of a registered ruleset (sg2, fad)."
    )
    options: dict[str, object]
    umpire_id: int
    umpire_username: str = Field(
        default="", max_length=150, description="The umpire's username when the campaign began."
    )
    seed_commitment: str = Field(
        pattern="^[0-9a-f]{64}$",
        description="SHA-256 of the campaign's dice seed, published so rolls can be verified.",
    )
    branch_of: BranchOrigin | None = Field(
        default=None, description="Set when the campaign is a branch of another (what-if)."
    )


@event_type("campaigns.BranchCommandRefused", stream="campaign")
class BranchCommandRefused(EventPayload):
    """A command of the original that the branch's rules refused when it was run again: the
    branch went on without it."""

    original_command_id: uuid.UUID
    command: str = Field(max_length=100)
    code: str = Field(max_length=100)
    message: str = Field(max_length=2000)
    field: str | None = Field(default=None, max_length=200)


class Reference(EventPayload):
    kind: Literal["battle", "force", "unit", "trooper", "vehicle"]
    id: uuid.UUID


@event_type("campaigns.NoteRecorded", stream="campaign", appendable=True)
class NoteRecorded(EventPayload):
    """The umpire wrote a note in the campaign journal, optionally about battles or troops."""

    text: str = Field(min_length=1, max_length=10_000)
    references: list[Reference] = Field(default_factory=list, max_length=50)


@event_type("campaigns.DiceRolled", stream="campaign")
class DiceRolled(EventPayload):
    """Dice were rolled on the umpire's dice tray, by the server or at the table."""

    purpose: str = Field(min_length=1, max_length=200)
    rolls: list[DieRoll] = Field(min_length=1, max_length=100)
    total: int
    namespace: str | None = Field(
        default=None, description="Seeded-stream namespace of server rolls (the job)."
    )

    @model_validator(mode="after")
    def _total_is_the_sum(self) -> DiceRolled:
        if self.total != sum(roll.result for roll in self.rolls):
            raise ValueError("total must be the sum of the rolls")
        return self


@event_type("campaigns.MemberAdded", stream="campaign")
class MemberAdded(EventPayload):
    """A user joined the campaign as umpire, player or observer; a player commands forces."""

    user_id: int
    username: str = Field(min_length=1, max_length=150)
    role: Role
    force_ids: list[uuid.UUID] = Field(default_factory=list, max_length=MAX_FORCES_PER_MEMBER)


@event_type("campaigns.MemberChanged", stream="campaign")
class MemberChanged(EventPayload):
    """A member's role or forces changed."""

    user_id: int
    role: Role
    force_ids: list[uuid.UUID] = Field(default_factory=list, max_length=MAX_FORCES_PER_MEMBER)


@event_type("campaigns.MemberRemoved", stream="campaign")
class MemberRemoved(EventPayload):
    """A user left the campaign, or was removed from it by an umpire."""

    user_id: int
    reason: str = Field(min_length=1, max_length=500)


@event_type("campaigns.MemberInvited", stream="campaign")
class MemberInvited(EventPayload):
    """An umpire invited a username to join as umpire, player (with forces) or observer.

    Recorded whether or not such a user exists, so the answer tells the umpire nothing about
    who has an account; only the user of that name can accept.
    """

    invitation_id: uuid.UUID
    username: str = Field(min_length=1, max_length=150)
    role: Role
    force_ids: list[uuid.UUID] = Field(default_factory=list, max_length=MAX_FORCES_PER_MEMBER)
    replaces_user_id: int | None = Field(
        default=None,
        description="The member whose place the invitee takes on accepting (a placeholder of an "
        "imported campaign, say): they leave as the invitee joins.",
    )


@event_type("campaigns.InvitationLinkIssued", stream="campaign")
class InvitationLinkIssued(EventPayload):
    """An umpire made an invitation link for a player (with forces) or an observer: whoever
    opens it before it expires chooses a username and password and joins, once. The link's
    secret is not in the log (``campaigns.models.InvitationLinkSecret``)."""

    invitation_id: uuid.UUID
    role: Literal["player", "observer"]
    force_ids: list[uuid.UUID] = Field(default_factory=list, max_length=MAX_FORCES_PER_MEMBER)
    expires_at: datetime


@event_type("campaigns.InvitationAccepted", stream="campaign")
class InvitationAccepted(EventPayload):
    """The invited user accepted; the MemberAdded that follows makes them a member."""

    invitation_id: uuid.UUID
    user_id: int


@event_type("campaigns.InvitationDeclined", stream="campaign")
class InvitationDeclined(EventPayload):
    """The invited user declined: they do not join."""

    invitation_id: uuid.UUID
    user_id: int


@event_type("campaigns.InvitationWithdrawn", stream="campaign")
class InvitationWithdrawn(EventPayload):
    """An umpire withdrew an invitation that was not answered yet."""

    invitation_id: uuid.UUID


@event_type("campaigns.OptionsChanged", stream="campaign")
class OptionsChanged(EventPayload):
    """The umpire changed the campaign's options; ``options`` holds all of them afterwards."""

    options: dict[str, object]
    changes: dict[str, dict[str, object]] = Field(
        min_length=1, description='Each changed option: {"from": old value, "to": new value}.'
    )
    reason: str = Field(min_length=1, max_length=500)

    @model_validator(mode="after")
    def _changes_say_from_and_to(self) -> OptionsChanged:
        for name, change in self.changes.items():
            if set(change) != {"from", "to"}:
                raise ValueError(f"the change of {name} must give exactly 'from' and 'to'")
            if self.options.get(name) != change["to"]:
                raise ValueError(f"the change of {name} does not match the new options")
        return self


@event_type("campaigns.CalendarAdvanced", stream="campaign")
class CalendarAdvanced(EventPayload):
    """The campaign calendar moved forward; what the days brought follows as events of their own."""

    from_day: int = Field(ge=0)
    to_day: int = Field(ge=1)

    @model_validator(mode="after")
    def _forward(self) -> CalendarAdvanced:
        if self.to_day <= self.from_day:
            raise ValueError("the calendar only moves forward")
        return self


@event_type("campaigns.DiceEpochClosed", stream="campaign")
class DiceEpochClosed(EventPayload):
    """The umpire closed a dice epoch: the seed its server rolls came from is revealed, so anyone
    can recompute them, and the server's dice go on from a new secret seed, committed here.

    The seed's SHA-256 was published before it was used (in ``campaigns.CampaignCreated`` for
    epoch 0, in the previous close for the others): revealing it shows the rolls of the epoch,
    never those of the next. See docs/adr/0013-dice-epochs.md."""

    epoch: int = Field(ge=0, description="The epoch closed, whose seed is revealed.")
    seed: str = Field(pattern="^[0-9a-f]{64}$", description="The epoch's seed, revealed.")
    next_epoch: int = Field(ge=1, description="The epoch whose seed the server rolls with now.")
    next_commitment: str = Field(
        pattern="^[0-9a-f]{64}$", description="SHA-256 of the next epoch's secret seed."
    )
    reason: str = Field(min_length=1, max_length=500)

    @model_validator(mode="after")
    def _next_follows(self) -> DiceEpochClosed:
        if self.next_epoch != self.epoch + 1:
            raise ValueError("the next epoch follows the one closed")
        return self
