"""``manage.py export_campaign ID > file``: a campaign's whole archive (campaigns/archive.py).

The archive goes to standard output (or ``--output``) and the progress bar to standard error, so
the two can be redirected apart.
"""

from __future__ import annotations

import uuid
from typing import IO, Any, cast

from django.core.management.base import BaseCommand, CommandError, CommandParser

from campaigns.archive import BytesOut, archive_export
from campaigns.management.progress import ProgressBar
from eventlog.errors import CommandError as Refused


class Command(BaseCommand):
    help = "Write a campaign's archive (its log, jobs, commands and users) to standard output."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="The campaign's id.")
        parser.add_argument("--output", "-o", help="Write to this file instead.")
        parser.add_argument(
            "--include-seed",
            action="store_true",
            help="Add the secret dice seed of the current dice epoch: needed to go on rolling "
            "the server's dice verifiably after an import. Keep such an archive secret.",
        )
        parser.add_argument("--no-progress", action="store_true", help="Draw no progress bar.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            campaign_id = uuid.UUID(options["campaign"])
        except ValueError:
            raise CommandError(f"{options['campaign']!r} is not a campaign id.") from None
        bar = ProgressBar(cast(IO[str], self.stderr._out), disable=options["no_progress"])
        try:
            archive = archive_export(
                campaign_id, include_seed=options["include_seed"], progress=bar
            )
        except Refused as refusal:
            raise CommandError(refusal.message) from None
        finally:
            bar.close()
        if options["output"]:
            with open(options["output"], "wb") as out:
                archive.write_to(out)
        else:
            archive.write_to(_binary(cast(IO[str], self.stdout._out)))
        counts = archive.manifest["counts"]
        self.stderr.write(
            f"Exported {archive.manifest['campaign']['name']}: {counts['event']} events, "
            f"{counts['job']} jobs, {counts['command']} commands, {counts['user']} users"
            + (", and its dice seed (keep this file secret)." if counts["seed"] else ".")
        )


def _binary(out: IO[str]) -> BytesOut:
    """Standard output as bytes, or a text stream (a test's) that takes the decoded text."""
    buffer = getattr(out, "buffer", None)
    return buffer if buffer is not None else _TextSink(out)


class _TextSink:
    def __init__(self, out: IO[str]) -> None:
        self.out = out

    def write(self, data: bytes) -> int:
        return self.out.write(data.decode())
