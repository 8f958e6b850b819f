"""Drop every read model and fold it again from the event log."""

from __future__ import annotations

import uuid

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from eventlog import projections
from eventlog.models import CampaignHead


class Command(BaseCommand):
    help = "Rebuild read models from the event log, for one campaign or all of them."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--campaign", help="Only this campaign (its id).")
        parser.add_argument(
            "--no-progress", action="store_true", help="Do not draw a progress bar."
        )

    def handle(self, *args, campaign: str | None = None, no_progress: bool = False, **options):
        if campaign is not None:
            try:
                campaign_id = uuid.UUID(campaign)
            except ValueError:
                raise CommandError(f"{campaign!r} is not a campaign id.") from None
            heads = list(CampaignHead.objects.filter(campaign_id=campaign_id))
            if not heads:
                raise CommandError(f"No campaign {campaign_id} in the event log.")
        else:
            heads = list(CampaignHead.objects.order_by("campaign_id"))
        total = sum(head.last_sequence for head in heads)
        with tqdm(total=total, unit="event", disable=no_progress, file=self.stderr._out) as bar:
            for head in heads:
                bar.set_description(str(head.campaign_id)[:8])
                projections.rebuild(head.campaign_id, progress=bar.update)
        self.stdout.write(
            self.style.SUCCESS(f"Rebuilt {len(heads)} campaign(s) from {total} event(s).")
        )
