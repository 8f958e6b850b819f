"""Campaign members as commands: adding, changing and removing them, and clients of the API.

Each command reads the campaign's members under the campaign lock, so two umpires stepping down
at once cannot both find the other still there.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import IntegrityError, models, transaction
from django.utils.text import slugify
from pydantic import Field
from rest_framework.authtoken.models import Token

from campaigns.common import campaign_stream, given_reason
from campaigns.events import MAX_FORCES_PER_MEMBER, MemberAdded, MemberChanged, MemberRemoved
from campaigns.models import Membership
from eventlog import commands
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import CommandError, NotFound, StateConflict
from eventlog.models import StreamHead
from rules.dice import DiceSource

API_CLIENT_PREFIX = "api-"


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


class MemberAddParams(Params):
    username: str
    role: str
    force_ids: list[uuid.UUID] = Field(default_factory=list)


@dataclass(frozen=True)
class NewMember:
    user_id: int | None
    username: str
    members: Members


@commands.command
class MemberAdd(Command[MemberAddParams, NewMember]):
    """Add a user to the campaign as umpire, player (with the forces they command) or observer."""

    name = "campaigns.member_add"
    Params = MemberAddParams
    invalid_code = "member.invalid"

    def load(self, ctx: CommandContext, params: MemberAddParams) -> NewMember:
        User = get_user_model()
        user = User.objects.filter(**{User.USERNAME_FIELD: params.username}, is_active=True).first()
        return NewMember(
            user_id=user.pk if user else None,
            username=user.get_username() if user else params.username,
            members=Members.load(ctx.campaign_id, params.force_ids),
        )

    def check(self, ctx: CommandContext, state: NewMember, params: MemberAddParams) -> None:
        role = role_of(params.role)
        if state.user_id is None:
            raise CommandError(
                "member.unknown_user",
                f"There is no user called {params.username!r}.",
                field="username",
            )
        if state.user_id in state.members.by_user:
            raise StateConflict(
                "member.already_member",
                f"{state.username} is already a member of this campaign.",
                field="username",
            )
        state.members.forces_of(role, params.force_ids)

    def decide(
        self,
        ctx: CommandContext,
        state: NewMember,
        params: MemberAddParams,
        dice: DiceSource | None,
    ) -> Decision:
        assert state.user_id is not None  # refused by check
        role = role_of(params.role)
        added = MemberAdded(
            user_id=state.user_id,
            username=state.username,
            role=role.value,
            force_ids=state.members.forces_of(role, params.force_ids),
        )
        return Decision.of([added], stream=campaign_stream(ctx.campaign_id))


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
    creates (its result: the user's id and the token)."""

    name = "campaigns.api_client_create"
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
        token = Token.objects.create(user=user)
        added = MemberAdded(
            user_id=user.pk,
            username=user.get_username(),
            role=role.value,
            force_ids=state.members.forces_of(role, params.force_ids),
        )
        return Decision.of(
            [added], stream=campaign_stream(ctx.campaign_id), result=(user.pk, token.key)
        )
