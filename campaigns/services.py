"""Campaign use cases: validate, decide, append."""

from __future__ import annotations

import re
import secrets
import uuid
from collections.abc import Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils.text import slugify
from rest_framework.authtoken.models import Token

from campaigns.events import (
    MAX_FORCES_PER_MEMBER,
    CampaignCreated,
    DiceRolled,
    DieRoll,
    MemberAdded,
    MemberChanged,
    MemberRemoved,
    NoteRecorded,
    OptionsChanged,
    Reference,
)
from campaigns.models import Campaign, CampaignSeed, Membership
from campaigns.selectors import member_get
from eventlog import jobs, store
from eventlog.errors import CommandError, StateConflict
from eventlog.models import Job
from eventlog.store import NewEvent, StoredEvent
from rules.dice import DiceError, Die, Roll, SeededDice, TableDice, seed_commitment
from rules.options import OptionsError, options_to_dict, parse_options
from rules.rulesets import Ruleset

ROLL_DICE_JOB = "campaigns.roll_dice"
MAX_DICE_PER_THROW = 100
MAX_REASON_LENGTH = 500
API_CLIENT_PREFIX = "api-"


def campaign_stream(campaign_id: uuid.UUID) -> str:
    return f"campaign:{campaign_id}"


def campaign_create(
    *,
    name: str,
    ruleset: str = Ruleset.SG2.value,
    options: dict[str, Any] | None = None,
    seed: str | None = None,
    actor: AbstractBaseUser,
) -> Campaign:
    """Create a campaign whose umpire is ``actor``, with the ruleset's options validated.

    ``seed`` (64 hex digits) fixes the server's dice, so the same commands replay the same
    campaign; by default a random one is drawn.
    """
    try:
        chosen = Ruleset(ruleset)
    except ValueError:
        raise CommandError(
            "campaign.unknown_ruleset",
            f"Unknown ruleset {ruleset!r}: choose one of "
            + ", ".join(r.value for r in Ruleset)
            + ".",
            field="ruleset",
        ) from None
    try:
        parsed = parse_options(chosen, options or {})
    except OptionsError as exc:
        raise _options_error(exc) from None
    if not name or not name.strip():
        raise CommandError("campaign.name_required", "A campaign needs a name.", field="name")

    if seed is None:
        seed = secrets.token_hex(32)
    elif not re.fullmatch(r"[0-9a-f]{64}", seed):
        raise CommandError("campaign.bad_seed", "A seed is 64 hexadecimal digits.", field="seed")
    campaign_id = uuid.uuid4()
    created = CampaignCreated(
        campaign_id=campaign_id,
        name=name.strip(),
        ruleset=chosen.value,
        options=options_to_dict(parsed),
        umpire_id=actor.pk,
        umpire_username=actor.get_username(),
        seed_commitment=seed_commitment(bytes.fromhex(seed)),
    )
    with transaction.atomic():
        CampaignSeed.objects.create(campaign_id=campaign_id, seed=seed)
        store.append(
            campaign_id,
            [NewEvent.of(created, stream=campaign_stream(campaign_id))],
            expected_versions={campaign_stream(campaign_id): 0},
            actor_id=actor.pk,
        )
    return Campaign.objects.get(id=campaign_id)


def _options_error(exc: OptionsError) -> CommandError:
    problem = exc.errors[0]
    return CommandError(
        problem.code,
        problem.message,
        field=f"options.{problem.field}" if problem.field else "options",
    )


def options_change(
    *, campaign: Campaign, changes: dict[str, Any], reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    """Change some of the campaign's options, saying why; the rest keep their values."""
    stream = campaign_stream(campaign.id)
    version = store.stream_version(campaign.id, stream)
    try:
        current = parse_options(campaign.ruleset, campaign.options)
        updated = parse_options(campaign.ruleset, changes, base=current)
    except OptionsError as exc:
        raise _options_error(exc) from None
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
    reason = _reason(reason, code="options.reason")
    event = OptionsChanged(options=after, changes=changed, reason=reason)
    result = store.append(
        campaign.id,
        [NewEvent.of(event, stream=stream)],
        expected_versions={stream: version},
        actor_id=actor.pk,
    )
    return result.events[0]


def _reason(reason: str | None, *, code: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise CommandError(code, "Say why.", field="reason")
    if len(reason) > MAX_REASON_LENGTH:
        raise CommandError(
            code, f"Keep the reason to {MAX_REASON_LENGTH} characters.", field="reason"
        )
    return reason


def _role(role: str) -> Membership.Role:
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


def _forces(
    *, campaign: Campaign, role: Membership.Role, force_ids: Sequence[uuid.UUID]
) -> list[uuid.UUID]:
    """The member's forces, checked: players command at least one force of this campaign, and
    no one else commands any."""
    forces = list(dict.fromkeys(force_ids))
    if role is Membership.Role.PLAYER and not forces:
        raise CommandError(
            "member.forces", "A player commands at least one force.", field="force_ids"
        )
    if role is not Membership.Role.PLAYER and forces:
        raise CommandError(
            "member.forces", f"Only players command forces, not an {role.value}.", field="force_ids"
        )
    if len(forces) > MAX_FORCES_PER_MEMBER:
        raise CommandError(
            "member.forces",
            f"A player commands at most {MAX_FORCES_PER_MEMBER} forces.",
            field="force_ids",
        )
    for force_id in forces:
        # The rosters app owns forces; a force of this campaign is a stream of its log.
        if store.stream_version(campaign.id, f"force:{force_id}") == 0:
            raise CommandError(
                "member.unknown_force",
                f"There is no force {force_id} in this campaign.",
                field="force_ids",
            )
    return forces


def _check_not_last_umpire(campaign: Campaign, membership: Membership) -> None:
    if membership.role != Membership.Role.UMPIRE:
        return
    umpires = Membership.objects.filter(campaign_id=campaign.id, role=Membership.Role.UMPIRE)
    if umpires.count() == 1:
        raise StateConflict(
            "member.last_umpire",
            "A campaign needs an umpire: make someone else umpire first.",
            field="user_id",
        )


def member_add(
    *,
    campaign: Campaign,
    username: str,
    role: str,
    force_ids: Sequence[uuid.UUID] = (),
    actor: AbstractBaseUser,
) -> StoredEvent:
    """Add a user to the campaign as umpire, player (with the forces they command) or
    observer."""
    stream = campaign_stream(campaign.id)
    version = store.stream_version(campaign.id, stream)
    chosen = _role(role)
    User = get_user_model()
    user = User.objects.filter(**{User.USERNAME_FIELD: username}, is_active=True).first()
    if user is None:
        raise CommandError(
            "member.unknown_user", f"There is no user called {username!r}.", field="username"
        )
    if Membership.objects.filter(campaign_id=campaign.id, user_id=user.pk).exists():
        raise StateConflict(
            "member.already_member",
            f"{user.get_username()} is already a member of this campaign.",
            field="username",
        )
    forces = _forces(campaign=campaign, role=chosen, force_ids=force_ids)
    added = MemberAdded(
        user_id=user.pk, username=user.get_username(), role=chosen.value, force_ids=forces
    )
    result = store.append(
        campaign.id,
        [NewEvent.of(added, stream=stream)],
        expected_versions={stream: version},
        actor_id=actor.pk,
    )
    return result.events[0]


def member_change(
    *,
    campaign: Campaign,
    user_id: int,
    role: str | None = None,
    force_ids: Sequence[uuid.UUID] | None = None,
    actor: AbstractBaseUser,
) -> StoredEvent:
    """Change a member's role, forces, or both. A member who stops being a player gives up
    their forces; the last umpire cannot step down."""
    stream = campaign_stream(campaign.id)
    version = store.stream_version(campaign.id, stream)
    membership = member_get(campaign_id=campaign.id, user_id=user_id)
    chosen = _role(role) if role is not None else Membership.Role(membership.role)
    if force_ids is None:
        force_ids = (
            [uuid.UUID(f) for f in membership.force_ids] if chosen is Membership.Role.PLAYER else []
        )
    forces = _forces(campaign=campaign, role=chosen, force_ids=force_ids)
    if chosen.value == membership.role and [str(f) for f in forces] == membership.force_ids:
        raise CommandError("member.unchanged", "The member already has that role and those forces.")
    if chosen is not Membership.Role.UMPIRE:
        _check_not_last_umpire(campaign, membership)
    changed = MemberChanged(user_id=membership.user_id, role=chosen.value, force_ids=forces)
    result = store.append(
        campaign.id,
        [NewEvent.of(changed, stream=stream)],
        expected_versions={stream: version},
        actor_id=actor.pk,
    )
    return result.events[0]


def member_remove(
    *, campaign: Campaign, user_id: int, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    """Remove a member from the campaign, saying why; the last umpire cannot be removed."""
    stream = campaign_stream(campaign.id)
    version = store.stream_version(campaign.id, stream)
    membership = member_get(campaign_id=campaign.id, user_id=user_id)
    _check_not_last_umpire(campaign, membership)
    removed = MemberRemoved(
        user_id=membership.user_id, reason=_reason(reason, code="member.reason")
    )
    result = store.append(
        campaign.id,
        [NewEvent.of(removed, stream=stream)],
        expected_versions={stream: version},
        actor_id=actor.pk,
    )
    return result.events[0]


def api_client_create(
    *,
    campaign: Campaign,
    name: str,
    role: str,
    force_ids: Sequence[uuid.UUID] = (),
    actor: AbstractBaseUser,
) -> tuple[AbstractBaseUser, str]:
    """A user for another program (a bot, a spreadsheet) to use the API as a member of the
    campaign. It cannot log in with a password; it authenticates with the token returned here,
    which is shown once."""
    User = get_user_model()
    slug = slugify(name or "")
    username = f"{API_CLIENT_PREFIX}{slug}"
    max_length = User._meta.get_field(User.USERNAME_FIELD).max_length
    if not slug:
        raise CommandError(
            "api_client.name", "Give the client a name with letters or digits.", field="name"
        )
    if len(username) > max_length:
        raise CommandError(
            "api_client.name",
            f"Keep the name to {max_length - len(API_CLIENT_PREFIX)} characters.",
            field="name",
        )
    _forces(campaign=campaign, role=_role(role), force_ids=force_ids)
    taken = StateConflict(
        "api_client.name_taken",
        f"The name is taken: there is already a user called {username}.",
        field="name",
    )
    if User.objects.filter(**{User.USERNAME_FIELD: username}).exists():
        raise taken
    with transaction.atomic():
        try:
            with transaction.atomic():
                user = User.objects.create_user(**{User.USERNAME_FIELD: username}, password=None)
        except IntegrityError:
            # Another request took the name between the check above and this insert.
            raise taken from None
        token = Token.objects.create(user=user)
        member_add(
            campaign=campaign, username=username, role=role, force_ids=force_ids, actor=actor
        )
    return user, token.key


def note_record(
    *,
    campaign: Campaign,
    text: str,
    references: Sequence[dict[str, Any]] = (),
    actor: AbstractBaseUser,
) -> StoredEvent:
    """Write a note in the campaign journal."""
    try:
        note = NoteRecorded(text=text, references=[Reference(**r) for r in references])
    except (TypeError, ValueError) as exc:
        raise CommandError("note.invalid", str(exc).splitlines()[0], field="text") from None
    result = store.append(
        campaign.id, [NewEvent.of(note, stream=campaign_stream(campaign.id))], actor_id=actor.pk
    )
    return result.events[0]


def _as_die(die: int) -> Die:
    try:
        return Die(die)
    except ValueError:
        raise CommandError(
            "dice.unknown_die", f"There is no d{die}: dice are d4, d6, d8, d10 or d12.", field="die"
        ) from None


def _check_count(count: int) -> None:
    if not 1 <= count <= MAX_DICE_PER_THROW:
        raise CommandError(
            "dice.count", f"Throw between 1 and {MAX_DICE_PER_THROW} dice.", field="count"
        )


def dice_request(
    *, campaign: Campaign, die: int, count: int, purpose: str, actor: AbstractBaseUser
) -> Job:
    """Ask the server to throw ``count`` dice of type ``die``: a resolution job."""
    _as_die(die)
    _check_count(count)
    if not purpose or not purpose.strip():
        raise CommandError("dice.purpose_required", "Say what the dice are for.", field="purpose")
    with transaction.atomic():
        return jobs.job_request(
            campaign_id=campaign.id,
            kind=ROLL_DICE_JOB,
            params={"die": die, "count": count, "purpose": purpose.strip()},
            requested_by_id=actor.pk,
        )


def _throw(purpose: str, rolls: list[Roll], namespace: str | None) -> DiceRolled:
    return DiceRolled(
        purpose=purpose,
        rolls=[
            DieRoll(
                die=roll.die.value,
                result=roll.result,
                purpose=roll.purpose,
                source=roll.source.value,
                counter=roll.counter,
            )
            for roll in rolls
        ],
        total=sum(roll.result for roll in rolls),
        namespace=namespace,
    )


def dice_enter(
    *,
    campaign: Campaign,
    die: int,
    results: Sequence[int],
    purpose: str,
    actor: AbstractBaseUser,
) -> StoredEvent:
    """Record dice thrown at the table, refusing faces the die cannot show."""
    kind = _as_die(die)
    _check_count(len(results))
    if not purpose or not purpose.strip():
        raise CommandError("dice.purpose_required", "Say what the dice are for.", field="purpose")
    table = TableDice(results)
    try:
        rolls = [table.roll(kind, purpose.strip()) for _ in results]
    except DiceError as exc:
        raise CommandError(exc.code, exc.message, field=f"results.{exc.index}") from None
    throw = _throw(purpose.strip(), rolls, None)
    result = store.append(
        campaign.id, [NewEvent.of(throw, stream=campaign_stream(campaign.id))], actor_id=actor.pk
    )
    return result.events[0]


def server_dice(campaign_id: uuid.UUID, namespace: str) -> SeededDice:
    """The server's dice for a campaign: its seed's stream ``namespace`` (a job's number)."""
    seed = CampaignSeed.objects.get(campaign_id=campaign_id).seed
    return SeededDice(bytes.fromhex(seed), namespace)


def job_dice(job: Job) -> SeededDice:
    """The server's dice for a job: the campaign seed's stream named after the job's number in
    the campaign, so a rerun of the same job throws the same dice."""
    seed = CampaignSeed.objects.get(campaign_id=job.campaign_id).seed
    return SeededDice(bytes.fromhex(seed), job.dice_namespace)


@jobs.handler(ROLL_DICE_JOB)
def _roll_dice(job: Job) -> jobs.JobOutcome:
    dice = job_dice(job)
    die = Die(job.params["die"])
    purpose = job.params["purpose"]
    rolls = [dice.roll(die, purpose) for _ in range(job.params["count"])]
    throw = _throw(purpose, rolls, dice.namespace)
    return jobs.JobOutcome(events=[NewEvent.of(throw, stream=campaign_stream(job.campaign_id))])
