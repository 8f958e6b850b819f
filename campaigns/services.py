"""Campaign use cases: validate, decide, append."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from campaigns.events import CampaignCreated, DiceRolled, DieRoll, NoteRecorded, Reference
from campaigns.models import Campaign, CampaignSeed
from eventlog import jobs, store
from eventlog.errors import CommandError
from eventlog.models import Job
from eventlog.store import NewEvent, StoredEvent
from rules.dice import DiceError, Die, Roll, SeededDice, TableDice, seed_commitment
from rules.options import OptionsError, options_to_dict, parse_options
from rules.rulesets import Ruleset

ROLL_DICE_JOB = "campaigns.roll_dice"
MAX_DICE_PER_THROW = 100


def campaign_stream(campaign_id: uuid.UUID) -> str:
    return f"campaign:{campaign_id}"


def campaign_create(
    *,
    name: str,
    ruleset: str = Ruleset.SG2.value,
    options: dict[str, Any] | None = None,
    actor: AbstractBaseUser,
) -> Campaign:
    """Create a campaign whose umpire is ``actor``, with the ruleset's options validated."""
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
        problem = exc.errors[0]
        raise CommandError(
            problem.code, problem.message, field=f"options.{problem.field}"
        ) from None
    if not name or not name.strip():
        raise CommandError("campaign.name_required", "A campaign needs a name.", field="name")

    campaign_id = uuid.uuid4()
    seed = secrets.token_hex(32)
    created = CampaignCreated(
        campaign_id=campaign_id,
        name=name.strip(),
        ruleset=chosen.value,
        options=options_to_dict(parsed),
        umpire_id=actor.pk,
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


def job_dice(job: Job) -> SeededDice:
    """The server's dice for a job: the campaign seed, namespaced by the job so a rerun of the
    same job throws the same dice."""
    seed = CampaignSeed.objects.get(campaign_id=job.campaign_id).seed
    return SeededDice(bytes.fromhex(seed), f"job:{job.id}")


@jobs.handler(ROLL_DICE_JOB)
def _roll_dice(job: Job) -> jobs.JobOutcome:
    dice = job_dice(job)
    die = Die(job.params["die"])
    purpose = job.params["purpose"]
    rolls = [dice.roll(die, purpose) for _ in range(job.params["count"])]
    throw = _throw(purpose, rolls, dice.namespace)
    return jobs.JobOutcome(events=[NewEvent.of(throw, stream=campaign_stream(job.campaign_id))])
