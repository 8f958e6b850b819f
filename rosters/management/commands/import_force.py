"""Load a force into a campaign from a roster file (YAML or JSON)."""

from __future__ import annotations

import uuid
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from campaigns.models import Campaign, Membership
from eventlog.errors import CommandError as Refused
from rosters import services
from rosters.force_import import RosterRejected
from rosters.models import Trooper, Unit, Vehicle


class Command(BaseCommand):
    help = "Load a force into a campaign from a roster file (see docs/roster-format.md)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", help="The roster file, YAML or JSON.")
        parser.add_argument("--campaign", required=True, help="The campaign's id.")
        parser.add_argument(
            "--as-user",
            help="Record the import as this umpire (default: the campaign's first umpire).",
        )

    def handle(self, *args, file: str, campaign: str, as_user: str | None, **options) -> None:
        path = Path(file)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"Cannot read {file}: {exc.strerror}.") from None
        try:
            campaign_id = uuid.UUID(campaign)
        except ValueError:
            raise CommandError(f"{campaign!r} is not a campaign id.") from None
        found = Campaign.objects.filter(pk=campaign_id).first()
        if found is None:
            raise CommandError(f"There is no campaign {campaign_id}.")
        umpires = Membership.objects.filter(campaign_id=campaign_id, role="umpire")
        if as_user:
            user = get_user_model().objects.filter(username=as_user).first()
            if user is None or not umpires.filter(user_id=user.pk).exists():
                raise CommandError(f"{as_user} is not an umpire of this campaign.")
        else:
            first_umpire = umpires.order_by("joined_at").first()
            if first_umpire is None:
                raise CommandError(f"Campaign {campaign_id} has no umpire to load it as.")
            user = get_user_model().objects.get(pk=first_umpire.user_id)
        try:
            force = services.force_import_text(
                campaign=found, text=text, source=path.name, actor=user
            )
        except RosterRejected as rejected:
            raise CommandError(f"{path.name} was not loaded:\n{rejected.error}") from None
        except Refused as refusal:
            raise CommandError(refusal.message) from None
        units = Unit.objects.filter(force_id=force.id).count()
        troopers = Trooper.objects.filter(force_id=force.id).count()
        vehicles = Vehicle.objects.filter(force_id=force.id).count()
        self.stdout.write(
            self.style.SUCCESS(
                f"Loaded {force.name} ({force.id}) into {found.name}: {units} units, "
                f"{troopers} troopers, {vehicles} vehicles."
            )
        )
