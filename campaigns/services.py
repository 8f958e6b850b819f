"""Campaign use cases: creating a campaign, changing its options, the journal; and the typed
functions the pages, the demo and the tests call to run every campaign command.

Every write runs through :func:`eventlog.commands.run`. Members are in ``campaigns/members.py``,
the dice tray in ``campaigns/dice_tray.py`` and the calendar in ``campaigns/calendar.py``.
"""

from __future__ import annotations

import re
import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from pydantic import Field

from campaigns import dice_epochs
from campaigns.common import campaign_stream, given_reason, options_error
from campaigns.dice_tray import RollDice, table_dice_in
from campaigns.events import CampaignCreated, NoteRecorded, OptionsChanged, Reference
from campaigns.members import (
    ApiClientCreate,
    InvitationAccept,
    InvitationDecline,
    InvitationWithdraw,
    MemberChange,
    MemberInvite,
    MemberRemove,
)
from campaigns.models import Campaign, CampaignSeed, Invitation
from campaigns.secrets import Secrecy, hidden_decision, refuse_foreign_forces
from eventlog import commands
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import CommandError, NotFound, StateConflict
from eventlog.models import Job
from eventlog.store import StoredEvent
from rules.dice import DiceSource, SeededDice, seed_commitment
from rules.errors import RuleError
from rules.options import OptionsError, options_to_dict, parse_options
from rules.rulesets import Ruleset, RulesetDefinition, definition, definitions

# Campaign ids derived from a client's Idempotency-Key live in this namespace (uuid5).
CAMPAIGN_IDS = uuid.UUID("6d2f6a53-7d0e-4c43-9a4b-4f3c1a3d7e21")


def new_campaign_id(actor_id: int | None, idempotency_key: str | None) -> uuid.UUID:
    """The id of a campaign about to be created. With an Idempotency-Key it is derived from the
    actor and the key, so a repeated request locks the same campaign and replays the first
    answer instead of creating a second campaign."""
    if idempotency_key is None:
        return uuid.uuid4()
    return uuid.uuid5(CAMPAIGN_IDS, f"{actor_id}:{idempotency_key}")


class CampaignCreateParams(Params):
    name: str = Field(max_length=200)
    ruleset: str = Ruleset.SG2.value
    options: dict[str, Any] = Field(default_factory=dict)
    # The secret the server's dice come from: left out of the command's record (only its
    # commitment is published), so it is used here and kept in CampaignSeed alone.
    seed: str | None = Field(default=None, exclude=True)


@dataclass(frozen=True)
class NewCampaign:
    exists: bool
    umpire_id: int
    umpire_username: str


@commands.command
class CampaignCreate(Command[CampaignCreateParams, NewCampaign]):
    """Create a campaign whose umpire is the actor, with the ruleset's options validated.

    ``seed`` (64 hex digits) fixes the server's dice, so the same commands replay the same
    campaign; by default a random one is drawn.
    """

    name = "campaigns.campaign_create"
    Params = CampaignCreateParams
    invalid_code = "campaign.invalid"

    def load(self, ctx: CommandContext, params: CampaignCreateParams) -> NewCampaign:
        umpire = None
        if ctx.actor_id is not None:
            umpire = get_user_model().objects.filter(pk=ctx.actor_id).first()
        if umpire is None:
            raise CommandError("campaign.umpire_required", "A campaign is created by its umpire.")
        return NewCampaign(
            exists=Campaign.objects.filter(pk=ctx.campaign_id).exists(),
            umpire_id=umpire.pk,
            umpire_username=umpire.get_username(),
        )

    def check(self, ctx: CommandContext, state: NewCampaign, params: CampaignCreateParams) -> None:
        _options_of(params)
        if not params.name.strip():
            raise CommandError("campaign.name_required", "A campaign needs a name.", field="name")
        if params.seed is not None and not re.fullmatch(r"[0-9a-f]{64}", params.seed):
            raise CommandError(
                "campaign.bad_seed", "A seed is 64 hexadecimal digits.", field="seed"
            )
        if state.exists:
            raise StateConflict("campaign.exists", "That campaign exists already.")

    def decide(
        self,
        ctx: CommandContext,
        state: NewCampaign,
        params: CampaignCreateParams,
        dice: DiceSource | None,
    ) -> Decision:
        ruleset, options = _options_of(params)
        seed = params.seed or secrets.token_hex(32)
        # Not an event: the seed stays secret. Written in the command's transaction, so a
        # campaign never exists without it.
        CampaignSeed.objects.create(campaign_id=ctx.campaign_id, seed=seed)
        created = CampaignCreated(
            campaign_id=ctx.campaign_id,
            name=params.name.strip(),
            ruleset=ruleset.code,
            options=options,
            umpire_id=state.umpire_id,
            umpire_username=state.umpire_username,
            seed_commitment=seed_commitment(bytes.fromhex(seed)),
        )
        return Decision.of(
            [created], stream=campaign_stream(ctx.campaign_id), result=ctx.campaign_id
        )


def _options_of(params: CampaignCreateParams) -> tuple[RulesetDefinition, dict[str, Any]]:
    """The chosen ruleset and its options, every one of them, validated."""
    try:
        chosen = definition(params.ruleset)
    except RuleError:
        raise CommandError(
            "campaign.unknown_ruleset",
            f"Unknown ruleset {params.ruleset!r}: choose one of "
            + ", ".join(d.code for d in definitions())
            + ".",
            field="ruleset",
        ) from None
    try:
        return chosen, options_to_dict(parse_options(chosen, params.options, refuse_retired=True))
    except OptionsError as exc:
        raise options_error(exc) from None


class OptionsChangeParams(Params):
    changes: dict[str, Any]
    reason: str


@commands.command
class OptionsChange(Command[OptionsChangeParams, Campaign]):
    """Change some of the campaign's options, saying why; the rest keep their values."""

    name = "campaigns.options_change"
    Params = OptionsChangeParams
    invalid_code = "options.invalid"

    def load(self, ctx: CommandContext, params: OptionsChangeParams) -> Campaign:
        return Campaign.objects.get(pk=ctx.campaign_id)

    def check(self, ctx: CommandContext, state: Campaign, params: OptionsChangeParams) -> None:
        _options_changed(state, params)

    def decide(
        self,
        ctx: CommandContext,
        state: Campaign,
        params: OptionsChangeParams,
        dice: DiceSource | None,
    ) -> Decision:
        changed = _options_changed(state, params)
        return Decision.of([changed], stream=campaign_stream(ctx.campaign_id))


def _options_changed(campaign: Campaign, params: OptionsChangeParams) -> OptionsChanged:
    """The change of options, or the refusal of it."""
    try:
        current = parse_options(campaign.ruleset, campaign.options)
        updated = parse_options(campaign.ruleset, params.changes, base=current, refuse_retired=True)
    except OptionsError as exc:
        raise options_error(exc) from None
    before, after = options_to_dict(current), options_to_dict(updated)
    changed = {
        name: {"from": before.get(name), "to": value}
        for name, value in after.items()
        if before.get(name) != value
    }
    if not changed:
        raise CommandError(
            "options.unchanged",
            "These options already have those values: nothing to change.",
            field="changes",
        )
    reason = given_reason(params.reason, code="options.reason")
    return OptionsChanged(options=after, changes=changed, reason=reason)


class NoteParams(Params):
    text: str = Field(min_length=1, max_length=10_000)
    references: list[Reference] = Field(default_factory=list, max_length=50)
    hidden: Secrecy | None = None


@commands.command
class NoteRecord(Command[NoteParams, None]):
    """Write a note in the campaign journal, hidden if asked (``campaigns.secrets``)."""

    name = "campaigns.note_record"
    Params = NoteParams
    invalid_code = "note.invalid"

    def load(self, ctx: CommandContext, params: NoteParams) -> None:
        return None

    def check(self, ctx: CommandContext, state: None, params: NoteParams) -> None:
        if params.hidden is not None:
            if params.hidden.side is not None:
                raise CommandError(
                    "hidden.side_in_battles_only",
                    "A note is hidden from all but some forces, not a side.",
                    field="hidden.side",
                )
            refuse_foreign_forces(ctx.campaign_id, params.hidden.force_ids)

    def decide(
        self, ctx: CommandContext, state: None, params: NoteParams, dice: DiceSource | None
    ) -> Decision:
        note = NoteRecorded(text=params.text, references=params.references)
        decision = Decision.of([note], stream=campaign_stream(ctx.campaign_id))
        return hidden_decision(decision, params.hidden, campaign_id=ctx.campaign_id)


# --- The typed functions callers use --------------------------------------------------------------


def _run(
    command: type[Command[Any, Any]],
    campaign_id: uuid.UUID,
    actor: AbstractBaseUser,
    dice: Sequence[int] | None = None,
    /,
    **params: Any,
) -> commands.Outcome:
    return commands.run(
        command.name, campaign_id=campaign_id, params=params, actor_id=actor.pk, dice=dice
    )


def campaign_create(
    *,
    name: str,
    ruleset: str = Ruleset.SG2.value,
    options: dict[str, Any] | None = None,
    seed: str | None = None,
    actor: AbstractBaseUser,
) -> Campaign:
    """Create a campaign whose umpire is ``actor`` (see :class:`CampaignCreate`)."""
    outcome = commands.run(
        CampaignCreate.name,
        campaign_id=new_campaign_id(actor.pk, None),
        params={"name": name, "ruleset": ruleset, "options": options or {}, "seed": seed},
        actor_id=actor.pk,
    )
    return Campaign.objects.get(id=outcome.result)


def options_change(
    *, campaign: Campaign, changes: dict[str, Any], reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    """Change some of the campaign's options, saying why; the rest keep their values."""
    outcome = _run(OptionsChange, campaign.id, actor, changes=changes, reason=reason)
    return outcome.events[0]


def member_invite(
    *,
    campaign: Campaign,
    username: str,
    role: str,
    force_ids: Sequence[uuid.UUID] = (),
    actor: AbstractBaseUser,
) -> Invitation:
    """Invite a username to join as umpire, player (with the forces they command) or observer;
    they are a member once they accept (see :class:`MemberInvite`)."""
    outcome = _run(
        MemberInvite, campaign.id, actor, username=username, role=role, force_ids=list(force_ids)
    )
    return Invitation.objects.get(pk=outcome.result)


def _invitation(invitation_id: uuid.UUID) -> Invitation:
    invitation = Invitation.objects.filter(pk=invitation_id).first()
    if invitation is None:
        raise NotFound("invitation.not_found", "You have no such invitation.")
    return invitation


def invitation_accept(*, invitation_id: uuid.UUID, actor: AbstractBaseUser) -> StoredEvent:
    """The invited user accepts and joins: the MemberAdded event."""
    invitation = _invitation(invitation_id)
    outcome = _run(InvitationAccept, invitation.campaign_id, actor, invitation_id=invitation_id)
    return outcome.events[-1]


def invitation_decline(*, invitation_id: uuid.UUID, actor: AbstractBaseUser) -> StoredEvent:
    """The invited user declines."""
    invitation = _invitation(invitation_id)
    outcome = _run(InvitationDecline, invitation.campaign_id, actor, invitation_id=invitation_id)
    return outcome.events[0]


def invitation_withdraw(
    *, campaign: Campaign, invitation_id: uuid.UUID, actor: AbstractBaseUser
) -> StoredEvent:
    """An umpire withdraws an invitation not answered yet."""
    outcome = _run(InvitationWithdraw, campaign.id, actor, invitation_id=invitation_id)
    return outcome.events[0]


def member_change(
    *,
    campaign: Campaign,
    user_id: int,
    role: str | None = None,
    force_ids: Sequence[uuid.UUID] | None = None,
    actor: AbstractBaseUser,
) -> StoredEvent:
    """Change a member's role, forces, or both (see :class:`MemberChange`)."""
    forces = list(force_ids) if force_ids is not None else None
    outcome = _run(MemberChange, campaign.id, actor, user_id=user_id, role=role, force_ids=forces)
    return outcome.events[0]


def member_remove(
    *, campaign: Campaign, user_id: int, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    """Remove a member from the campaign, saying why; the last umpire cannot be removed."""
    outcome = _run(MemberRemove, campaign.id, actor, user_id=user_id, reason=reason)
    return outcome.events[0]


def api_client_create(
    *,
    campaign: Campaign,
    name: str,
    role: str,
    force_ids: Sequence[uuid.UUID] = (),
    read_only: bool = True,
    expires_in_days: int | None = None,
    actor: AbstractBaseUser,
) -> tuple[AbstractBaseUser, str]:
    """A user for another program to use the API as a member of the campaign, and its token's
    secret, which is shown once (read-only unless ``read_only`` is false)."""
    outcome = _run(
        ApiClientCreate,
        campaign.id,
        actor,
        name=name,
        role=role,
        force_ids=list(force_ids),
        read_only=read_only,
        expires_in_days=expires_in_days,
    )
    user_id, token = outcome.result
    return get_user_model().objects.get(pk=user_id), token


def note_record(
    *,
    campaign: Campaign,
    text: str,
    references: Sequence[dict[str, Any]] = (),
    hidden: dict[str, Any] | None = None,
    actor: AbstractBaseUser,
) -> StoredEvent:
    """Write a note in the campaign journal (``hidden``: recorded as hidden, see
    :class:`campaigns.secrets.Secrecy`). Returns the note's event."""
    outcome = _run(
        NoteRecord, campaign.id, actor, text=text, references=list(references), hidden=hidden
    )
    return outcome.events[-1]


def dice_request(
    *, campaign: Campaign, die: int, count: int, purpose: str, actor: AbstractBaseUser
) -> Job:
    """Ask the server to throw ``count`` dice of type ``die``: a resolution job."""
    outcome = _run(RollDice, campaign.id, actor, die=die, count=count, purpose=purpose)
    assert outcome.job is not None  # no table dice: the server rolls in a job
    return outcome.job


def dice_enter(
    *,
    campaign: Campaign,
    die: int,
    results: Sequence[int],
    purpose: str,
    actor: AbstractBaseUser,
) -> StoredEvent:
    """Record dice thrown at the table, refusing faces the die cannot show."""
    with table_dice_in("results"):
        outcome = _run(
            RollDice, campaign.id, actor, list(results),
            die=die, count=len(results), purpose=purpose,
        )  # fmt: skip
    return outcome.events[0]


def server_dice(campaign_id: uuid.UUID, namespace: str, epoch: int | None = None) -> SeededDice:
    """The server's dice for a campaign: the stream ``namespace`` (a job's number) of a dice
    epoch's seed, the current epoch's by default (see :mod:`campaigns.dice_epochs`)."""
    return dice_epochs.server_dice(campaign_id, namespace, epoch)
