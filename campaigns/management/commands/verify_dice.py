"""``manage.py verify_dice ID``: recompute every server roll of a campaign's closed dice epochs.

Each roll is recomputed from its epoch's revealed seed, its namespace, counter and die, and each
revealed seed is checked against the commitment published before it was used. Any mismatch is
listed and the command exits with status 1. ``--json`` prints the report as the API gives it;
``--export FILE`` also writes the dice export that ``docs/verify_dice.py`` reads.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from campaigns.dice_epochs import dice_export
from campaigns.models import Campaign
from rules.dice_verification import VerificationReport, verify_export


def report_lines(report: VerificationReport) -> list[str]:
    """The report in plain words, one line each: every epoch, then every mismatch."""
    lines = []
    for epoch in report.epochs:
        if not epoch.revealed:
            lines.append(
                f"Epoch {epoch.epoch}: seed still secret; {epoch.unrevealed} server roll(s) "
                "to check once it is closed."
            )
            continue
        seed = "matches" if epoch.seed_matches_commitment else "DOES NOT MATCH"
        lines.append(
            f"Epoch {epoch.epoch}: seed revealed, {seed} its commitment; {epoch.checked} server "
            f"roll(s) checked, {epoch.mismatched} mismatch(es)."
        )
    for mismatch in report.mismatches:
        expected = "nothing to recompute" if mismatch.expected is None else mismatch.expected
        lines.append(
            f"Mismatch ({mismatch.problem}): event #{mismatch.sequence} roll {mismatch.index} "
            f"({mismatch.path}), d{mismatch.die} {mismatch.namespace}:{mismatch.counter} in "
            f"epoch {mismatch.epoch}: stored {mismatch.stored}, expected {expected}."
        )
    lines.extend(report.problems)
    return lines


class Command(BaseCommand):
    help = (
        "Recompute every server roll of a campaign's closed dice epochs from their revealed "
        "seeds; exits with status 1 on any mismatch."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign_id", help="The campaign's id.")
        parser.add_argument("--json", action="store_true", help="Print the report as JSON.")
        parser.add_argument("--export", metavar="FILE", help="Also write the dice export to FILE.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            campaign_id = uuid.UUID(options["campaign_id"])
        except ValueError:
            raise CommandError(f"{options['campaign_id']!r} is not a campaign id.") from None
        if not Campaign.objects.filter(pk=campaign_id).exists():
            raise CommandError(f"No campaign {campaign_id}.")
        export = dice_export(campaign_id)
        if options["export"]:
            Path(options["export"]).write_text(json.dumps(export, indent=2) + "\n")
        report = verify_export(export)
        if options["json"]:
            self.stdout.write(
                json.dumps({"campaign_id": str(campaign_id), **report.as_json()}, indent=2)
            )
        else:
            for line in report_lines(report):
                self.stdout.write(line)
        summary = (
            f"{report.checked} server roll(s) checked, {len(report.mismatches)} mismatch(es), "
            f"{report.unrevealed} not checkable until their epoch is closed."
        )
        if not report.ok:
            raise CommandError(f"The dice do not verify: {summary}")
        if not options["json"]:
            self.stdout.write(self.style.SUCCESS(f"The dice verify: {summary}"))
