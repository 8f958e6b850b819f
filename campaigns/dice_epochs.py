"""Dice epochs: the umpire closes one to reveal the seed its server rolls came from, and the
server rolls on from a new secret seed committed in the same event. Anyone can then recompute
every server roll of the closed epochs (the dice export and its verification, here; the method in
``rules/dice_verification.py``; the why in docs/adr/0013-dice-epochs.md).
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterator
from typing import Any

from django.contrib.auth.models import AbstractBaseUser

from campaigns.common import campaign_stream, given_reason
from campaigns.events import DiceEpochClosed
from campaigns.models import CampaignSeed
from campaigns.visibility import Judge, Reader, Sight
from eventlog import commands, store
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import StateConflict
from eventlog.models import Job
from eventlog.store import StoredEvent
from rules.dice import DiceSource, SeededDice, seed_commitment
from rules.dice_verification import (
    CAMPAIGN_CREATED,
    EPOCH_CLOSED,
    VerificationReport,
    export_from_events,
    verify_export,
)


def current_dice_epoch(campaign_id: uuid.UUID) -> int:
    """The campaign's dice epoch now: the one whose seed is secret and rolls the server's dice."""
    found = CampaignSeed.objects.filter(campaign_id=campaign_id).values_list("epoch", flat=True)
    return found.first() or 0


def epoch_seed(campaign_id: uuid.UUID, epoch: int | None = None) -> str:
    """The seed of a dice epoch (the current one by default): the secret one for the current
    epoch, the one revealed in the log for a closed epoch."""
    secret = CampaignSeed.objects.get(campaign_id=campaign_id)
    if epoch is None or epoch == secret.epoch:
        return secret.seed
    for closed in store.read(campaign_id, types=[EPOCH_CLOSED]):
        if closed.payload["epoch"] == epoch:
            return str(closed.payload["seed"])
    raise LookupError(f"Campaign {campaign_id} has no dice epoch {epoch}.")


def server_dice(campaign_id: uuid.UUID, namespace: str, epoch: int | None = None) -> SeededDice:
    """The server's dice for a campaign: the seed of ``epoch`` (the current one by default),
    read from the stream ``namespace`` (a job's number)."""
    return SeededDice(bytes.fromhex(epoch_seed(campaign_id, epoch)), namespace)


class DiceEpochCloseParams(Params):
    reason: str


@commands.command
class DiceEpochClose(Command[DiceEpochCloseParams, CampaignSeed]):
    """Close the current dice epoch: reveal its seed, and commit to the next epoch's new secret
    seed, which the server's dice use from now on.

    Refused while a job of the epoch is still to run: its dice come from the seed this would
    reveal, so anyone could read them before they are rolled."""

    name = "campaigns.dice_epoch_close"
    replayable = False  # about the installation (an account, a seed), not the game
    Params = DiceEpochCloseParams
    invalid_code = "dice.invalid"

    def load(self, ctx: CommandContext, params: DiceEpochCloseParams) -> CampaignSeed:
        secret = CampaignSeed.objects.filter(campaign_id=ctx.campaign_id).first()
        if secret is None:
            # A campaign brought from another installation without its secret seed.
            raise StateConflict(
                "dice.no_seed",
                "This server does not hold the campaign's dice seed, so it cannot reveal it.",
            )
        return secret

    def check(self, ctx: CommandContext, state: CampaignSeed, params: DiceEpochCloseParams) -> None:
        given_reason(params.reason, code="dice.reason")
        waiting = Job.objects.filter(
            campaign_id=ctx.campaign_id,
            dice_epoch=state.epoch,
            status__in=(Job.Status.PENDING, Job.Status.RUNNING),
        ).order_by("ordinal")
        ordinals = list(waiting.values_list("ordinal", flat=True))
        if ordinals:
            raise StateConflict(
                "dice.jobs_pending",
                f"Job{'s' if len(ordinals) > 1 else ''} "
                f"{', '.join(str(n) for n in ordinals)} still "
                f"{'have' if len(ordinals) > 1 else 'has'} to roll with this epoch's seed: close "
                "the epoch once they are done, or its seed would tell their dice in advance.",
            )

    def decide(
        self,
        ctx: CommandContext,
        state: CampaignSeed,
        params: DiceEpochCloseParams,
        dice: DiceSource | None,
    ) -> Decision:
        next_seed = secrets.token_hex(32)
        closed = DiceEpochClosed(
            epoch=state.epoch,
            seed=state.seed,
            next_epoch=state.epoch + 1,
            next_commitment=seed_commitment(bytes.fromhex(next_seed)),
            reason=given_reason(params.reason, code="dice.reason"),
        )
        # Not an event: the next seed stays secret until its own epoch is closed. Written in the
        # command's transaction, under the campaign lock, so no job is asked for in between.
        CampaignSeed.objects.filter(campaign_id=ctx.campaign_id).update(
            seed=next_seed, epoch=state.epoch + 1
        )
        return Decision.of([closed], stream=campaign_stream(ctx.campaign_id), result=state.epoch)


def dice_epoch_close(
    *, campaign_id: uuid.UUID, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    """Close the campaign's current dice epoch (see :class:`DiceEpochClose`)."""
    outcome = commands.run(
        DiceEpochClose.name, campaign_id=campaign_id, params={"reason": reason}, actor_id=actor.pk
    )
    return outcome.events[0]


def _dice_events(campaign_id: uuid.UUID, reader: Reader | None) -> Iterator[dict[str, Any]]:
    """The events that matter to the dice, as the API shows them: the commitments and reveals,
    and the events the server rolled dice in (the jobs', and a branch's that rolled afresh,
    campaigns/branches.py) that the reader sees whole."""
    rolled = []
    for event in store.read(campaign_id):
        if event.type in (CAMPAIGN_CREATED, EPOCH_CLOSED):
            yield _as_dice_event(event)
        elif event.job_id is not None or "afresh_dice_namespace" in event.metadata:
            rolled.append(event)
    if reader is not None and not reader.is_umpire:
        seen = Judge(reader).events(rolled)
        rolled = [e for e, sight in zip(rolled, seen, strict=True) if sight == Sight.WHOLE]
    for event in rolled:
        yield _as_dice_event(event)


def _as_dice_event(event: StoredEvent) -> dict[str, Any]:
    return {
        "sequence": event.sequence,
        "type": event.type,
        "payload": event.payload,
        "metadata": event.metadata,
    }


def dice_export(campaign_id: uuid.UUID, reader: Reader | None = None) -> dict[str, Any]:
    """The campaign's dice export: its epochs (commitments, the seeds of closed ones) and every
    server roll with its epoch, namespace, counter, die and face. For a ``reader`` who is not
    an umpire, only the rolls of events they see whole: another side's dice, or a hidden
    action's, tell what the reader may not know (campaigns.visibility)."""
    return export_from_events(str(campaign_id), _dice_events(campaign_id, reader))


def dice_verification(campaign_id: uuid.UUID, reader: Reader | None = None) -> VerificationReport:
    """Every server roll of every closed epoch recomputed from its revealed seed (those the
    ``reader`` sees whole, when one is given)."""
    return verify_export(dice_export(campaign_id, reader))
