"""Invitation links: how someone without an account joins a campaign.

The umpire makes a link for a player (with the forces they will command) or an observer. Whoever
opens it before it expires chooses a username and a password: the account is made and joins the
campaign in the role and forces the umpire chose, in one command. A link works once; the umpire
may withdraw it while nobody has used it (``campaigns.members.InvitationWithdraw``).

The link carries a secret whose hash alone is kept (:class:`campaigns.models.InvitationLinkSecret`),
outside the log, which the campaign's members read. Neither the secret nor the password is in the
command's record (pydantic ``exclude``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from pydantic import Field

from campaigns.common import campaign_stream
from campaigns.events import InvitationAccepted, InvitationLinkIssued, MemberAdded
from campaigns.members import Members, pending, role_of
from campaigns.models import Campaign, Invitation, InvitationLinkSecret, Membership
from eventlog import commands
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import CommandError, NotFound, StateConflict
from rules.dice import DiceSource

DEFAULT_LINK_DAYS = 7
MAX_LINK_DAYS = 30


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class InvitationLinkIssueParams(Params):
    role: str
    force_ids: list[uuid.UUID] = Field(default_factory=list)
    expires_in_days: int = DEFAULT_LINK_DAYS


@dataclass(frozen=True)
class IssuedLink:
    """The command's result: the invitation and the secret of its link, shown once."""

    invitation_id: uuid.UUID
    secret: str
    expires_at: datetime


@commands.command
class InvitationLinkIssue(Command[InvitationLinkIssueParams, Members]):
    """Make an invitation link for a player (with the forces they command) or an observer,
    working once and for ``expires_in_days`` days (1 to 30, a week by default). Another umpire
    is invited by username (:class:`campaigns.members.MemberInvite`), so that the umpire knows
    whom they are handing the campaign to."""

    name = "campaigns.invitation_link_issue"
    # About the installation (a secret for an account to come), not the game: a branch does
    # not make the link again, as it does not make the account it turns into.
    replayable = False
    Params = InvitationLinkIssueParams
    invalid_code = "invitation.invalid"

    def load(self, ctx: CommandContext, params: InvitationLinkIssueParams) -> Members:
        return Members.load(ctx.campaign_id, params.force_ids)

    def check(self, ctx: CommandContext, state: Members, params: InvitationLinkIssueParams) -> None:
        self._role_and_forces(state, params)
        if not 1 <= params.expires_in_days <= MAX_LINK_DAYS:
            raise CommandError(
                "invitation.lifetime",
                f"A link works for 1 to {MAX_LINK_DAYS} days.",
                field="expires_in_days",
            )

    def decide(
        self,
        ctx: CommandContext,
        state: Members,
        params: InvitationLinkIssueParams,
        dice: DiceSource | None,
    ) -> Decision:
        role, forces = self._role_and_forces(state, params)
        invitation_id = ctx.new_id("invitation")
        secret = secrets.token_urlsafe(24)
        expires_at = timezone.now() + timedelta(days=params.expires_in_days)
        # Not an event: the log is read by the members, the link is the invitee's alone.
        InvitationLinkSecret.objects.create(
            invitation_id=invitation_id,
            campaign_id=ctx.campaign_id,
            secret_hash=secret_hash(secret),
        )
        issued = InvitationLinkIssued(
            invitation_id=invitation_id, role=role.value, force_ids=forces, expires_at=expires_at
        )
        return Decision.of(
            [issued],
            stream=campaign_stream(ctx.campaign_id),
            result=IssuedLink(invitation_id, secret, expires_at),
        )

    @staticmethod
    def _role_and_forces(
        state: Members, params: InvitationLinkIssueParams
    ) -> tuple[Membership.Role, list[uuid.UUID]]:
        role = role_of(params.role)
        if role is Membership.Role.UMPIRE:
            raise CommandError(
                "invitation.link_role",
                "A link makes a player or an observer: invite another umpire by username.",
                field="role",
            )
        return role, state.forces_of(role, params.force_ids)


class InvitationLinkAcceptParams(Params):
    invitation_id: uuid.UUID
    secret: str = Field(max_length=200, exclude=True)
    username: str = Field(max_length=150)
    password: str = Field(max_length=4096, exclude=True)


@dataclass(frozen=True)
class LinkAnswer:
    invitation: Invitation | None
    secret_hash: str | None
    username_taken: bool
    members: Members


@commands.command
class InvitationLinkAccept(Command[InvitationLinkAcceptParams, LinkAnswer]):
    """Whoever holds an invitation link makes their account with it and joins: the username
    they choose, a password the password validators accept, and the role and forces the umpire
    chose. The link works once and not after it expires. Its result is the new user's id."""

    name = "campaigns.invitation_link_accept"
    replayable = False  # makes an account
    Params = InvitationLinkAcceptParams
    invalid_code = "invitation.invalid"

    def load(self, ctx: CommandContext, params: InvitationLinkAcceptParams) -> LinkAnswer:
        invitation = Invitation.objects.filter(
            pk=params.invitation_id, campaign_id=ctx.campaign_id, expires_at__isnull=False
        ).first()
        secret = InvitationLinkSecret.objects.filter(pk=params.invitation_id).first()
        User = get_user_model()
        username = params.username.strip()
        return LinkAnswer(
            invitation=invitation,
            secret_hash=secret.secret_hash if secret else None,
            username_taken=User.objects.filter(
                **{f"{User.USERNAME_FIELD}__iexact": username}
            ).exists(),
            members=Members.load(ctx.campaign_id, invitation.force_ids if invitation else []),
        )

    def check(
        self, ctx: CommandContext, state: LinkAnswer, params: InvitationLinkAcceptParams
    ) -> None:
        self._joining(state, params)

    def decide(
        self,
        ctx: CommandContext,
        state: LinkAnswer,
        params: InvitationLinkAcceptParams,
        dice: DiceSource | None,
    ) -> Decision:
        invitation, role, forces = self._joining(state, params)
        User = get_user_model()
        # The account is not an event: it is written here, in the command's transaction, so a
        # refusal or a failed append leaves no account behind.
        try:
            with transaction.atomic():
                user = User.objects.create_user(
                    **{User.USERNAME_FIELD: params.username.strip()}, password=params.password
                )
        except IntegrityError:
            # Another sign-up took the name between the load and this insert.
            raise _username_taken() from None
        accepted = InvitationAccepted(invitation_id=invitation.id, user_id=user.pk)
        joined = MemberAdded(
            user_id=user.pk, username=user.get_username(), role=role.value, force_ids=forces
        )
        return Decision.of(
            [accepted, joined], stream=campaign_stream(ctx.campaign_id), result=user.pk
        )

    @staticmethod
    def _joining(
        state: LinkAnswer, params: InvitationLinkAcceptParams
    ) -> tuple[Invitation, Membership.Role, list[uuid.UUID]]:
        """The invitation, role and forces the account joins with, or the refusal."""
        invitation = state.invitation
        if (
            invitation is None
            or state.secret_hash is None
            or not hmac.compare_digest(state.secret_hash, secret_hash(params.secret))
        ):
            raise NotFound(
                "invitation.not_found",
                "This invitation link is not valid: check that it was copied whole.",
            )
        if invitation.status == Invitation.Status.ACCEPTED:
            raise StateConflict(
                "invitation.used",
                "This invitation link has been used already: it works once. Ask the umpire for "
                "a new one.",
            )
        pending(invitation)
        assert invitation.expires_at is not None  # a link's invitation has an expiry
        if timezone.now() >= invitation.expires_at:
            raise StateConflict(
                "invitation.expired",
                "This invitation link has expired: ask the umpire for a new one.",
            )
        username = params.username.strip()
        User = get_user_model()
        if not username:
            raise CommandError("account.username", "Choose a username.", field="username")
        try:
            User.username_validator(username)
        except ValidationError as refused:
            raise CommandError(
                "account.username", " ".join(refused.messages), field="username"
            ) from None
        if state.username_taken:
            raise _username_taken()
        try:
            validate_password(params.password, User(**{User.USERNAME_FIELD: username}))
        except ValidationError as refused:
            raise CommandError(
                "account.password", " ".join(refused.messages), field="password"
            ) from None
        role = role_of(invitation.role)
        # The forces are checked again: the campaign may have changed since the link was made.
        forces = state.members.forces_of(role, [uuid.UUID(f) for f in invitation.force_ids])
        return invitation, role, forces


def _username_taken() -> StateConflict:
    return StateConflict(
        "account.username_taken",
        "That username is taken: choose another.",
        field="username",
    )


# --- The typed functions callers use --------------------------------------------------------------


def invitation_link_issue(
    *,
    campaign: Campaign,
    role: str,
    force_ids: list[uuid.UUID] | tuple[uuid.UUID, ...] = (),
    expires_in_days: int = DEFAULT_LINK_DAYS,
    actor: AbstractBaseUser,
) -> IssuedLink:
    """Make an invitation link (see :class:`InvitationLinkIssue`); its secret is in the result
    and nowhere else."""
    outcome = commands.run(
        InvitationLinkIssue.name,
        campaign_id=campaign.id,
        params={
            "role": role,
            "force_ids": list(force_ids),
            "expires_in_days": expires_in_days,
        },
        actor_id=actor.pk,
    )
    issued: IssuedLink = outcome.result
    return issued


def link_invitation(invitation_id: uuid.UUID) -> Invitation:
    """The invitation a link names, whatever its state; refused when there is none."""
    invitation = Invitation.objects.filter(pk=invitation_id, expires_at__isnull=False).first()
    if invitation is None:
        raise NotFound(
            "invitation.not_found",
            "This invitation link is not valid: check that it was copied whole.",
        )
    return invitation


def invitation_link_accept(
    *, invitation_id: uuid.UUID, secret: str, username: str, password: str
) -> AbstractBaseUser:
    """Make the invitee's account and join them (see :class:`InvitationLinkAccept`)."""
    invitation = link_invitation(invitation_id)
    outcome = commands.run(
        InvitationLinkAccept.name,
        campaign_id=invitation.campaign_id,
        params={
            "invitation_id": invitation_id,
            "secret": secret,
            "username": username,
            "password": password,
        },
        actor_id=None,
    )
    return get_user_model().objects.get(pk=outcome.result)
