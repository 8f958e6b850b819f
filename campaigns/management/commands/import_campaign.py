"""``manage.py import_campaign file``: load a campaign from its archive (campaigns/archive.py).

The archive is checked whole before anything is written: a changed byte or a file cut short is
refused with the reason, the command exits with status 1, and nothing is loaded. Users are mapped
by username (or as ``--user`` says); whoever has no account here gets a placeholder, whose place
the umpire hands over to someone later.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from typing import IO, Any, cast

from django.core.management.base import BaseCommand, CommandError, CommandParser

from campaigns.archive_import import archive_import
from campaigns.management.progress import ProgressBar
from eventlog.errors import CommandError as Refused


class Command(BaseCommand):
    help = "Load a campaign from an archive written by export_campaign (or its API)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("archive", help="The archive file; - reads standard input.")
        parser.add_argument(
            "--user",
            action="append",
            default=[],
            metavar="ARCHIVED=LOCAL",
            help="Map the archive's user ARCHIVED to this installation's user LOCAL (by "
            "username) instead of the user of the same name. May be given more than once.",
        )
        parser.add_argument("--no-progress", action="store_true", help="Draw no progress bar.")

    def handle(self, *args: Any, **options: Any) -> None:
        user_map: dict[str, str] = {}
        for pair in options["user"]:
            archived, sign, local = pair.partition("=")
            if not sign or not archived or not local:
                raise CommandError(f"--user takes ARCHIVED=LOCAL, not {pair!r}.")
            user_map[archived] = local
        bar = ProgressBar(cast(IO[str], self.stderr._out), disable=options["no_progress"])
        with tempfile.TemporaryFile() as spooled:
            source: IO[bytes]
            if options["archive"] == "-":
                # The archive is read twice (checked, then loaded): standard input only once.
                shutil.copyfileobj(sys.stdin.buffer, spooled)
                source = spooled
            else:
                try:
                    source = open(options["archive"], "rb")  # noqa: SIM115 - closed below
                except OSError as exc:
                    raise CommandError(
                        f"Cannot read {options['archive']}: {exc.strerror}."
                    ) from None
            try:
                source.seek(0)
                imported = archive_import(source, user_map=user_map, progress=bar)
            except Refused as refusal:
                raise CommandError(f"{refusal.message} ({refusal.code})") from None
            finally:
                bar.close()
                if source is not spooled:
                    source.close()
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported campaign {imported.name} ({imported.campaign_id}): "
                f"{imported.events} events."
            )
        )
        for user in imported.users:
            archived = user.archived.username or f"user {user.archived.id}"
            if user.placeholder:
                self.stdout.write(
                    f"  {archived}: no account here; placeholder {user.username} (user "
                    f"{user.user_id}), whose place the umpire hands over."
                )
            else:
                self.stdout.write(
                    f"  {archived}: {user.username} (user {user.user_id}, {user.how})"
                )
        if not imported.seed_included:
            self.stdout.write(
                "The archive has no dice seed: the server cannot roll this campaign's dice until "
                "it is imported from an archive with the seed (export --include-seed)."
            )
