"""Folds from campaign events into the campaign read models."""

from __future__ import annotations

from campaigns.models import Campaign, DiceTrayRoll, JournalNote, Membership
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent


@register
class CampaignProjection(Projection):
    name = "campaigns"
    models = (Campaign, Membership)

    @Projection.handles("campaigns.CampaignCreated")
    def campaign_created(rows: Rows, event: StoredEvent) -> None:
        payload = event.payload
        rows.put(
            Campaign,
            {
                "id": payload["campaign_id"],
                "campaign_id": payload["campaign_id"],
                "name": payload["name"],
                "ruleset": payload["ruleset"],
                "options": payload["options"],
                "umpire_id": payload["umpire_id"],
                "seed_commitment": payload["seed_commitment"],
                "created_at": event.recorded_at,
            },
        )
        rows.put(
            Membership,
            {
                "key": f"{payload['campaign_id']}:{payload['umpire_id']}",
                "campaign_id": payload["campaign_id"],
                "user_id": payload["umpire_id"],
                "role": Membership.Role.UMPIRE.value,
                "joined_at": event.recorded_at,
            },
        )


@register
class JournalProjection(Projection):
    name = "journal"
    models = (JournalNote, DiceTrayRoll)

    @Projection.handles("campaigns.NoteRecorded")
    def note_recorded(rows: Rows, event: StoredEvent) -> None:
        rows.put(
            JournalNote,
            {
                "position": event.position,
                "campaign_id": event.campaign_id,
                "sequence": event.sequence,
                "text": event.payload["text"],
                "references": event.payload["references"],
                "author_id": event.metadata.get("actor_id"),
                "recorded_at": event.recorded_at,
            },
        )

    @Projection.handles("campaigns.DiceRolled")
    def dice_rolled(rows: Rows, event: StoredEvent) -> None:
        rows.put(
            DiceTrayRoll,
            {
                "position": event.position,
                "campaign_id": event.campaign_id,
                "sequence": event.sequence,
                "purpose": event.payload["purpose"],
                "rolls": event.payload["rolls"],
                "total": event.payload["total"],
                "job_id": event.job_id,
                "recorded_at": event.recorded_at,
            },
        )
