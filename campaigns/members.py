"""Campaign members as commands: inviting them (and their answers), changing and removing them,
and clients of the API.

Nobody becomes a member by someone else typing their username: an umpire invites a username and
the user of that name accepts or declines.

Each command reads the campaign's members under the campaign lock, so two umpires stepping down
at once cannot both find the other still there.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, models, transaction
from django.utils.text import slugify
from pydantic import Field

from accounts.tokens import IssuedToken, check_lifetime, token_issue, tokens_revoke_all
from campaigns.common import campaign_stream, given_reason
from campaigns.events import (
    MAX_FORCES_PER_MEMBER,
    InvitationAccepted,
    InvitationDeclined,
    InvitationWithdrawn,
    MemberAdded,
    MemberChanged,
    MemberInvited,
    MemberRemoved,
)
from campaigns.models import Invitation, Membership
from eventlog import commands
from eventlog.catalogue import EventPayload
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import CommandError, NotFound, StateConflict
from eventlog.models import StreamHead
from rules.dice import DiceSource

API_CLIENT_PREFIX = "api-"
API_CLIENT_TOKEN_NAME = "api client"


@dataclass(frozen=True)
class Members:
    """The campaign's members as they stand, and which of the forces a command names are
    forces of this campaign."""

    by_user: dict[int, Membership]
    forces: frozenset[uuid.UUID]

    @classmethod
    def load(cls, campaign_id: uuid.UUID, force_ids: Iterable[uuid.UUID | str]) -> Members:
        named = {uuid.UUID(str(force_id)) for force_id in force_ids}
        known: set[uuid.UUID] = set()
        # Too many forces is refused by the check anyway: no need to look them all up.
        if len(named) <= MAX_FORCES_PER_MEMBER:
            # The rosters app owns forces; a force of this campaign is a stream of its log.
            streams = StreamHead.objects.filter(
                campaign_id=campaign_id,
                stream__in=[f"force:{force_id}" for force_id in named],
                version__gt=0,
            ).values_list("stream", flat=True)
            known = {uuid.UUID(stream.partition(":")[2]) for stream in streams}
        return cls(
            by_user={m.user_id: m for m in Membership.objects.filter(campaign_id=campaign_id)},
            forces=frozenset(known),
        )

    def member(self, user_id: int) -> Membership:
        found = self.by_user.get(user_id)
        if found is None:
            raise NotFound(
                "member.not_found", "That user is not a member of this campaign.", field="user_id"
            )
        return found

    def check_not_last_umpire(self, membership: Membership) -> None:
        if membership.role != Membership.Role.UMPIRE:
            return
        umpires = [m for m in self.by_user.values() if m.role == Membership.Role.UMPIRE]
        if len(umpires) == 1:
            raise StateConflict(
                "member.last_umpire",
                "A campaign needs an umpire: make someone else umpire first.",
                field="user_id",
            )

    def forces_of(self, role: Membership.Role, force_ids: Iterable[uuid.UUID]) -> list[uuid.UUID]:
        """The member's forces, checked: players command at least one force of this campaign,
        and no one else commands any."""
        forces = list(dict.fromkeys(force_ids))
        if role is Membership.Role.PLAYER and not forces:
            raise CommandError(
                "member.forces", "A player commands at least one force.", field="force_ids"
            )
        if role is not Membership.Role.PLAYER and forces:
            raise CommandError(
                "member.forces",
                f"Only players command forces, not an {role.value}.",
                field="force_ids",
            )
        if len(forces) > MAX_FORCES_PER_MEMBER:
            raise CommandError(
                "member.forces",
                f"A player commands at most {MAX_FORCES_PER_MEMBER} forces.",
                field="force_ids",
            )
        for force_id in forces:
            if force_id not in self.forces:
                raise CommandError(
                    "member.unknown_force",
                    f"There is no force {force_id} in this campaign.",
                    field="force_ids",
                )
        return forces


def role_of(role: str) -> Membership.Role:
    try:
        return Membership.Role(role)
    except ValueError:
        raise CommandError(
            "member.role",
            f"Unknown role {role!r}: choose one of "
            + ", ".join(r.value for r in Membership.Role)
            + ".",
            field="role",
        ) from None


class MemberInviteParams(Params):
    username: str = Field(max_length=150)
    role: str
    force_ids: list[uuid.UUID] = Field(default_factory=list)


@dataclass(frozen=True)
class Invitee:
    """Whom an invitation is for, as far as the command needs to know: whether that username is
    already a member, or already invited. Whether such a user exists is never part of the
    answer."""

    username: str
    member: bool
    invited: bool
    members: Members


def invitee_username(username: str) -> str:
    return get_user_model().normalize_username(username.strip())


@commands.command
class MemberInvite(Command[MemberInviteParams, Invitee]):
    """Invite a username to join the campaign as umpire, player (with the forces they command)
    or observer. The invitation is recorded whether or not such a user exists, and the answer
    is the same either way; the user of that name sees it in their own invitations and accepts
    or declines it (:class:`InvitationAccept`)."""

    name = "campaigns.member_invite"
    Params = MemberInviteParams
    invalid_code = "member.invalid"

    def load(self, ctx: CommandContext, params: MemberInviteParams) -> Invitee:
        username = invitee_username(params.username)
        members = Members.load(ctx.campaign_id, params.force_ids)
        User = get_user_model()
        user_id = (
            User.objects.filter(**{User.USERNAME_FIELD: username})
            .values_list("pk", flat=True)
            .first()
        )
        return Invitee(
            username=username,
            member=user_id is not None and user_id in members.by_user,
            invited=Invitation.objects.filter(
                campaign_id=ctx.campaign_id,
                username=username,
                status=Invitation.Status.PENDING,
            ).exists(),
            members=members,
        )

    def check(self, ctx: CommandContext, state: Invitee, params: MemberInviteParams) -> None:
        role = role_of(params.role)
        if not state.username:
            raise CommandError("member.username", "Say whom to invite.", field="username")
        # The umpire sees the members and the invitations already: refusing these tells them
        # nothing new about who has an account.
        if state.member:
            raise StateConflict(
                "member.already_member",
                f"{state.username} is already a member of this campaign.",
                field="username",
            )
        if state.invited:
            raise StateConflict(
                "invitation.pending",
                f"{state.username} is invited already: withdraw that invitation first.",
                field="username",
            )
        state.members.forces_of(role, params.force_ids)

    def decide(
        self,
        ctx: CommandContext,
        state: Invitee,
        params: MemberInviteParams,
        dice: DiceSource | None,
    ) -> Decision:
        role = role_of(params.role)
        invitation_id = ctx.new_id("invitation")
        invited = MemberInvited(
            invitation_id=invitation_id,
            username=state.username,
            role=role.value,
            force_ids=state.members.forces_of(role, params.force_ids),
        )
        return Decision.of([invited], stream=campaign_stream(ctx.campaign_id), result=invitation_id)


class InvitationParams(Params):
    invitation_id: uuid.UUID


@dataclass(frozen=True)
class Answer:
    """An invitation as its invitee answers it: the invitation, who answers, and the members."""

    invitation: Invitation | None
    user_id: int | None
    username: str
    members: Members

    def pending_for_the_actor(self) -> Invitation:
        """The invitation, when it is addressed to the actor and not answered yet."""
        invitation = self.invitation
        if invitation is None or self.user_id is None or invitation.username != self.username:
            raise NotFound("invitation.not_found", "You have no such invitation.")
        return pending(invitation)


def pending(invitation: Invitation) -> Invitation:
    if invitation.status != Invitation.Status.PENDING:
        raise StateConflict("invitation.closed", f"The invitation was {invitation.status} already.")
    return invitation


def _answer(ctx: CommandContext, params: InvitationParams) -> Answer:
    invitation = Invitation.objects.filter(
        pk=params.invitation_id, campaign_id=ctx.campaign_id
    ).first()
    user = (
        get_user_model().objects.filter(pk=ctx.actor_id).first()
        if ctx.actor_id is not None
        else None
    )
    return Answer(
        invitation=invitation,
        user_id=user.pk if user else None,
        username=user.get_username() if user else "",
        members=Members.load(ctx.campaign_id, invitation.force_ids if invitation else []),
    )


@commands.command
class InvitationAccept(Command[InvitationParams, Answer]):
    """The invited user accepts: they join with the role and forces the invitation named."""

    name = "campaigns.invitation_accept"
    Params = InvitationParams
    invalid_code = "invitation.invalid"

    def load(self, ctx: CommandContext, params: InvitationParams) -> Answer:
        return _answer(ctx, params)

    def check(self, ctx: CommandContext, state: Answer, params: InvitationParams) -> None:
        self._joined(state)

    def decide(
        self,
        ctx: CommandContext,
        state: Answer,
        params: InvitationParams,
        dice: DiceSource | None,
    ) -> Decision:
        invitation = state.pending_for_the_actor()
        assert state.user_id is not None  # refused otherwise
        accepted = InvitationAccepted(invitation_id=invitation.id, user_id=state.user_id)
        decided: list[EventPayload] = [accepted]
        replaced = invitation.replaces_user_id
        if replaced is not None and replaced in state.members.by_user:
            # A hand-over: the member whose place this was leaves as the invitee joins, in the
            # same append (so a campaign whose umpire hands over is never without one). The
            # joining comes last: it is the answer's member.
            decided.append(
                MemberRemoved(user_id=replaced, reason=f"{state.username} took their place.")
            )
        decided.append(self._joined(state))
        return Decision.of(decided, stream=campaign_stream(ctx.campaign_id))

    @staticmethod
    def _joined(state: Answer) -> MemberAdded:
        """The membership the acceptance makes, or the refusal of it."""
        invitation = state.pending_for_the_actor()
        assert state.user_id is not None  # refused otherwise
        if state.user_id in state.members.by_user:
            raise StateConflict(
                "member.already_member", "You are a member of this campaign already."
            )
        role = role_of(invitation.role)
        # The forces are checked again: the campaign may have changed since the invitation.
        forces = state.members.forces_of(role, [uuid.UUID(f) for f in invitation.force_ids])
        return MemberAdded(
            user_id=state.user_id, username=state.username, role=role.value, force_ids=forces
        )


@commands.command
class InvitationDecline(Command[InvitationParams, Answer]):
    """The invited user declines: they do not join."""

    name = "campaigns.invitation_decline"
    Params = InvitationParams
    invalid_code = "invitation.invalid"

    def load(self, ctx: CommandContext, params: InvitationParams) -> Answer:
        return _answer(ctx, params)

    def check(self, ctx: CommandContext, state: Answer, params: InvitationParams) -> None:
        state.pending_for_the_actor()

    def decide(
        self,
        ctx: CommandContext,
        state: Answer,
        params: InvitationParams,
        dice: DiceSource | None,
    ) -> Decision:
        invitation = state.pending_for_the_actor()
        assert state.user_id is not None  # refused otherwise
        declined = InvitationDeclined(invitation_id=invitation.id, user_id=state.user_id)
        return Decision.of([declined], stream=campaign_stream(ctx.campaign_id))


@commands.command
class InvitationWithdraw(Command[InvitationParams, Invitation | None]):
    """An umpire withdraws an invitation nobody has answered yet."""

    name = "campaigns.invitation_withdraw"
    Params = InvitationParams
    invalid_code = "invitation.invalid"

    def load(self, ctx: CommandContext, params: InvitationParams) -> Invitation | None:
        return Invitation.objects.filter(
            pk=params.invitation_id, campaign_id=ctx.campaign_id
        ).first()

    def check(
        self, ctx: CommandContext, state: Invitation | None, params: InvitationParams
    ) -> None:
        self._pending(state)

    def decide(
        self,
        ctx: CommandContext,
        state: Invitation | None,
        params: InvitationParams,
        dice: DiceSource | None,
    ) -> Decision:
        withdrawn = InvitationWithdrawn(invitation_id=self._pending(state).id)
        return Decision.of([withdrawn], stream=campaign_stream(ctx.campaign_id))

    @staticmethod
    def _pending(invitation: Invitation | None) -> Invitation:
        if invitation is None:
            raise NotFound(
                "invitation.not_found", "This campaign has no such invitation.", field=None
            )
        return pending(invitation)


class MemberHandOverParams(Params):
    user_id: int
    username: str = Field(max_length=150)


@commands.command
class MemberHandOver(Command[MemberHandOverParams, Invitee]):
    """Invite a username to take a member's place: the same role and forces, and the member
    leaves when the invitation is accepted. How an umpire gives a placeholder of an imported
    campaign (``campaigns.archive``) to its player, or a player hands their forces on. Like any
    invitation, it is recorded whether or not such a user exists."""

    name = "campaigns.member_hand_over"
    Params = MemberHandOverParams
    invalid_code = "member.invalid"

    def load(self, ctx: CommandContext, params: MemberHandOverParams) -> Invitee:
        place = Membership.objects.filter(campaign_id=ctx.campaign_id, user_id=params.user_id)
        forces = place.values_list("force_ids", flat=True).first() or []
        return MemberInvite().load(
            ctx,
            MemberInviteParams(username=params.username, role="observer", force_ids=forces),
        )

    def check(self, ctx: CommandContext, state: Invitee, params: MemberHandOverParams) -> None:
        place = state.members.member(params.user_id)
        MemberInvite().check(ctx, state, self._invite_params(place, params))

    def decide(
        self,
        ctx: CommandContext,
        state: Invitee,
        params: MemberHandOverParams,
        dice: DiceSource | None,
    ) -> Decision:
        place = state.members.member(params.user_id)
        invite = self._invite_params(place, params)
        invited = MemberInvited(
            invitation_id=ctx.new_id("invitation"),
            username=state.username,
            role=place.role,
            force_ids=state.members.forces_of(role_of(place.role), invite.force_ids),
            replaces_user_id=place.user_id,
        )
        return Decision.of(
            [invited], stream=campaign_stream(ctx.campaign_id), result=invited.invitation_id
        )

    @staticmethod
    def _invite_params(place: Membership, params: MemberHandOverParams) -> MemberInviteParams:
        return MemberInviteParams(
            username=params.username, role=place.role, force_ids=list(place.force_ids)
        )


class MemberChangeParams(Params):
    user_id: int
    role: str | None = None
    # Left out: a player keeps their forces; anyone else has none.
    force_ids: list[uuid.UUID] | None = None


@commands.command
class MemberChange(Command[MemberChangeParams, Members]):
    """Change a member's role, forces, or both. A member who stops being a player gives up
    their forces; the last umpire cannot step down."""

    name = "campaigns.member_change"
    Params = MemberChangeParams
    invalid_code = "member.invalid"

    def load(self, ctx: CommandContext, params: MemberChangeParams) -> Members:
        named: list[uuid.UUID | str] = list(params.force_ids or [])
        if params.force_ids is None:
            # Left out, a player keeps the forces they command: those are the ones to check.
            current = Membership.objects.filter(campaign_id=ctx.campaign_id, user_id=params.user_id)
            named = [force_id for m in current for force_id in m.force_ids]
        return Members.load(ctx.campaign_id, named)

    def check(self, ctx: CommandContext, state: Members, params: MemberChangeParams) -> None:
        self._changed(state, params)

    def decide(
        self,
        ctx: CommandContext,
        state: Members,
        params: MemberChangeParams,
        dice: DiceSource | None,
    ) -> Decision:
        return Decision.of([self._changed(state, params)], stream=campaign_stream(ctx.campaign_id))

    @staticmethod
    def _changed(state: Members, params: MemberChangeParams) -> MemberChanged:
        """The change, or the refusal of it."""
        membership = state.member(params.user_id)
        role = role_of(params.role) if params.role is not None else Membership.Role(membership.role)
        force_ids = params.force_ids
        if force_ids is None:
            keeps = role is Membership.Role.PLAYER
            force_ids = [uuid.UUID(f) for f in membership.force_ids] if keeps else []
        forces = state.forces_of(role, force_ids)
        if role.value == membership.role and [str(f) for f in forces] == membership.force_ids:
            raise CommandError(
                "member.unchanged", "The member already has that role and those forces."
            )
        if role is not Membership.Role.UMPIRE:
            state.check_not_last_umpire(membership)
        return MemberChanged(user_id=membership.user_id, role=role.value, force_ids=forces)


class MemberRemoveParams(Params):
    user_id: int
    reason: str


@commands.command
class MemberRemove(Command[MemberRemoveParams, Members]):
    """Remove a member from the campaign, saying why; the last umpire cannot be removed."""

    name = "campaigns.member_remove"
    Params = MemberRemoveParams
    invalid_code = "member.invalid"

    def load(self, ctx: CommandContext, params: MemberRemoveParams) -> Members:
        return Members.load(ctx.campaign_id, [])

    def check(self, ctx: CommandContext, state: Members, params: MemberRemoveParams) -> None:
        state.check_not_last_umpire(state.member(params.user_id))
        given_reason(params.reason, code="member.reason")

    def decide(
        self,
        ctx: CommandContext,
        state: Members,
        params: MemberRemoveParams,
        dice: DiceSource | None,
    ) -> Decision:
        removed = MemberRemoved(
            user_id=params.user_id, reason=given_reason(params.reason, code="member.reason")
        )
        return Decision.of([removed], stream=campaign_stream(ctx.campaign_id))


class ApiClientParams(Params):
    name: str
    role: str = Membership.Role.OBSERVER.value
    force_ids: list[uuid.UUID] = Field(default_factory=list)
    # A program reads unless the umpire says it may write.
    read_only: bool = True
    expires_in_days: int | None = None


@dataclass(frozen=True)
class ApiClientState:
    username: str
    taken: bool
    members: Members


def api_client_username(name: str) -> str:
    """The client's username: its name as a slug, marked as a program's."""
    return f"{API_CLIENT_PREFIX}{slugify(name or '')}"


def _name_taken(username: str) -> StateConflict:
    return StateConflict(
        "api_client.name_taken",
        f"The name is taken: there is already a user called {username}.",
        field="name",
    )


@commands.command
class ApiClientCreate(Command[ApiClientParams, ApiClientState]):
    """A user for another program (a bot, a spreadsheet) to use the API as a member of the
    campaign. It cannot log in with a password; it authenticates with the token the command
    creates (its result: the user's id and the token's secret). The token is read-only unless
    ``read_only`` is false, and expires like any other (``expires_in_days``)."""

    name = "campaigns.api_client_create"
    replayable = False  # about the installation (an account, a seed), not the game
    Params = ApiClientParams
    invalid_code = "api_client.invalid"

    def load(self, ctx: CommandContext, params: ApiClientParams) -> ApiClientState:
        User = get_user_model()
        username = api_client_username(params.name)
        return ApiClientState(
            username=username,
            taken=User.objects.filter(**{User.USERNAME_FIELD: username}).exists(),
            members=Members.load(ctx.campaign_id, params.force_ids),
        )

    def check(self, ctx: CommandContext, state: ApiClientState, params: ApiClientParams) -> None:
        User = get_user_model()
        username_field = User._meta.get_field(User.USERNAME_FIELD)
        assert isinstance(username_field, models.CharField)
        assert username_field.max_length is not None
        max_length = username_field.max_length
        if state.username == API_CLIENT_PREFIX:
            raise CommandError(
                "api_client.name", "Give the client a name with letters or digits.", field="name"
            )
        if len(state.username) > max_length:
            raise CommandError(
                "api_client.name",
                f"Keep the name to {max_length - len(API_CLIENT_PREFIX)} characters.",
                field="name",
            )
        state.members.forces_of(role_of(params.role), params.force_ids)
        check_lifetime(params.expires_in_days)
        if state.taken:
            raise _name_taken(state.username)

    def decide(
        self,
        ctx: CommandContext,
        state: ApiClientState,
        params: ApiClientParams,
        dice: DiceSource | None,
    ) -> Decision:
        role = role_of(params.role)
        User = get_user_model()
        # The user and its token are not events: they are written here, in the command's
        # transaction, so a refusal or a failed append leaves no user behind.
        try:
            with transaction.atomic():
                user = User.objects.create_user(
                    **{User.USERNAME_FIELD: state.username}, password=None
                )
        except IntegrityError:
            # Usernames are global, not the campaign's: another campaign's request can take
            # the name between the load and this insert.
            raise _name_taken(state.username) from None
        issued = token_issue(
            user=user,
            name=API_CLIENT_TOKEN_NAME,
            read_only=params.read_only,
            expires_in_days=params.expires_in_days,
        )
        added = MemberAdded(
            user_id=user.pk,
            username=user.get_username(),
            role=role.value,
            force_ids=state.members.forces_of(role, params.force_ids),
        )
        return Decision.of(
            [added], stream=campaign_stream(ctx.campaign_id), result=(user.pk, issued.secret)
        )


def is_api_client(user: AbstractBaseUser) -> bool:
    """A user made by :class:`ApiClientCreate`: its name marks it, and it has no password."""
    return user.get_username().startswith(API_CLIENT_PREFIX) and not user.has_usable_password()


def api_client_token_reissue(
    *,
    campaign_id: uuid.UUID,
    user_id: int,
    read_only: bool = True,
    expires_in_days: int | None = None,
) -> tuple[AbstractBaseUser, IssuedToken]:
    """A new token for one of the campaign's API clients, its other tokens revoked: how an
    umpire renews a client's token or replaces a leaked one, since a client has no password to
    log in with. Not an event: tokens are not the campaign's history.

    Only a client that belongs to this campaign alone: an umpire of another campaign it was
    invited to cannot take it over.
    """
    user = get_user_model().objects.filter(pk=user_id).first()
    memberships = set(
        Membership.objects.filter(user_id=user_id).values_list("campaign_id", flat=True)
    )
    if user is None or not is_api_client(user) or memberships != {campaign_id}:
        raise NotFound(
            "api_client.not_found", "This campaign has no such API client.", field="user_id"
        )
    with transaction.atomic():
        tokens_revoke_all(user=user)
        issued = token_issue(
            user=user,
            name=API_CLIENT_TOKEN_NAME,
            read_only=read_only,
            expires_in_days=expires_in_days,
        )
    return user, issued
