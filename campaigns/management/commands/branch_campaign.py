"""``manage.py branch_campaign CAMPAIGN --before-battle ID --option replacement_die=10``: play a
campaign again from a point under other options (campaigns/branches.py), with a progress bar.

The branch is made and its play-through run here, not by a worker; the original is never
changed. A refused point or option exits with status 1 and makes nothing.
"""

from __future__ import annotations

import json
import uuid
from typing import IO, Any, cast

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from campaigns import branches
from campaigns.management.progress import ProgressBar
from campaigns.models import Campaign, Membership
from eventlog import jobs
from eventlog.errors import CommandError as Refused
from eventlog.models import Job


def _uuid(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise CommandError(f"{value!r} is not an id.") from None


class Command(BaseCommand):
    help = "Branch a campaign at a point and play its later commands again under other options."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="The original campaign's id.")
        point = parser.add_mutually_exclusive_group(required=True)
        point.add_argument("--at", type=int, metavar="SEQUENCE", help="After this event.")
        point.add_argument("--before-battle", metavar="BATTLE", help="Just before this battle.")
        point.add_argument("--after-battle", metavar="BATTLE", help="After this battle.")
        parser.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="An option the branch plays under (VALUE as JSON, or else as text). May be "
            "given more than once.",
        )
        parser.add_argument("--name", help="The branch's name.")
        parser.add_argument("--seed", help="The seed of the dice rolled afresh (64 hex digits).")
        parser.add_argument(
            "--as",
            dest="umpire",
            help="The umpire who makes the branch (a username); the campaign's creator if left "
            "out.",
        )
        parser.add_argument("--no-progress", action="store_true", help="Draw no progress bar.")

    def handle(self, *args: Any, **options: Any) -> None:
        original_id = _uuid(options["campaign"])
        original = Campaign.objects.filter(pk=original_id).first()
        if original is None:
            raise CommandError(f"No campaign {original_id}.")
        umpire_id = self._umpire(original, options["umpire"])
        changes: dict[str, Any] = {}
        for pair in options["option"]:
            name, sign, value = pair.partition("=")
            if not sign or not name:
                raise CommandError(f"--option takes NAME=VALUE, not {pair!r}.")
            try:
                changes[name] = json.loads(value)
            except ValueError:
                changes[name] = value
        bar = ProgressBar(cast(IO[str], self.stderr._out), disable=options["no_progress"])
        try:
            point = branches.resolve_point(
                original_id,
                sequence=options["at"],
                before_battle=_uuid(options["before_battle"]) if options["before_battle"] else None,
                after_battle=_uuid(options["after_battle"]) if options["after_battle"] else None,
            )
            made = branches.branch_create(
                original_id=original_id,
                actor_id=umpire_id,
                point=point,
                option_changes=changes,
                name=options["name"],
                seed=options["seed"],
                dispatch=False,
            )
            bar.start("Commands played again", made.commands)
            branches.rerun_branch(made.job.pk, progress=bar.advance)
        except Refused as refusal:
            raise CommandError(f"{refusal.message} ({refusal.code})") from None
        finally:
            bar.close()
        job = jobs.run_job(made.job.pk)
        if job is None or job.status != Job.Status.SUCCEEDED:
            raise CommandError(f"The branch's play-through failed: {job.error if job else '?'}")
        progress = job.progress or {}
        branch = Campaign.objects.get(pk=made.branch_id)
        self.stdout.write(self.style.SUCCESS(f"Branch {branch.name} ({branch.id}), {point.words}:"))
        self.stdout.write(
            f"  {progress.get('done', 0)} commands played again, "
            f"{progress.get('refused', 0)} refused by the branch's rules, "
            f"{progress.get('skipped', 0)} not for a branch (accounts, seeds)."
        )
        self.stdout.write(
            f"  Compare: /api/v1/campaigns/{original_id}/branches/{branch.id}/comparison/"
        )

    def _umpire(self, original: Campaign, username: str | None) -> int:
        if username is None:
            return original.umpire_id
        user = get_user_model()._default_manager.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user {username!r}.")
        is_umpire = Membership.objects.filter(
            campaign_id=original.id, user_id=user.pk, role=Membership.Role.UMPIRE
        ).exists()
        if not is_umpire:
            raise CommandError(f"{username} is not an umpire of {original.name}.")
        return user.pk
