"""Create a small demo campaign, through the same services the API uses."""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from rest_framework.authtoken.models import Token

from campaigns import services
from campaigns.models import Campaign
from eventlog import store
from eventlog.models import Job
from rosters import services as rosters
from rosters.models import Force

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
DEMO_USERNAME = "umpire"
DEMO_PLAYER = "blue"
DEMO_PASSWORD = "muster-demo"
DEMO_CAMPAIGN = "Operation Long Night (demo)"
DEMO_FORCES = ("sg2-scenario-1-blue.yaml", "sg2-scenario-1-red.yaml")


class Command(BaseCommand):
    help = "Create the demo umpire and player and a demo campaign: forces, journal, dice."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="Where it is served.")

    def handle(self, *args, url: str, **options) -> None:
        User = get_user_model()
        umpire, created = User.objects.get_or_create(
            username=DEMO_USERNAME, defaults={"email": "umpire@example.org", "is_staff": True}
        )
        if created:
            umpire.set_password(DEMO_PASSWORD)
            umpire.save()
        token, _ = Token.objects.get_or_create(user=umpire)
        player, created = User.objects.get_or_create(
            username=DEMO_PLAYER, defaults={"email": "blue@example.org"}
        )
        if created:
            player.set_password(DEMO_PASSWORD)
            player.save()

        campaign = Campaign.objects.filter(name=DEMO_CAMPAIGN, umpire_id=umpire.pk).first()
        if campaign is None:
            campaign = services.campaign_create(name=DEMO_CAMPAIGN, ruleset="sg2", actor=umpire)
            services.note_record(
                campaign=campaign,
                text="Day 1. 3rd Platoon lands at the Kessler relay station at dusk.",
                actor=umpire,
            )
            services.note_record(
                campaign=campaign,
                text="Rain all night; the militia is dug in along the ridge.",
                actor=umpire,
            )
            services.dice_request(
                campaign=campaign, die=6, count=2, purpose="weather for day 2", actor=umpire
            )
            services.dice_enter(
                campaign=campaign,
                die=10,
                results=[7],
                purpose="scouting report, rolled at the table",
                actor=umpire,
            )
            for name in DEMO_FORCES:
                rosters.force_import_text(
                    campaign=campaign,
                    text=(EXAMPLES / name).read_text(encoding="utf-8"),
                    source=name,
                    actor=umpire,
                )
            blue = Force.objects.get(campaign_id=campaign.id, side="Blue")
            services.member_add(
                campaign=campaign,
                username=DEMO_PLAYER,
                role="player",
                force_ids=[blue.id],
                actor=umpire,
            )
        events = store.last_sequence(campaign.id)
        pending = Job.objects.filter(campaign_id=campaign.id).exclude(status="succeeded").count()
        self.stdout.write(self.style.SUCCESS(f"Demo campaign: {campaign.name} ({campaign.id})"))
        self.stdout.write(f"  {events} events in its log, {pending} job(s) still running")
        for force in Force.objects.filter(campaign_id=campaign.id):
            self.stdout.write(
                f"  Force:    {force.name} ({force.side}) {url}/api/v1/forces/{force.id}/"
            )
        self.stdout.write(f"  Log in as {DEMO_USERNAME} / {DEMO_PASSWORD}, API token {token.key}")
        self.stdout.write(f"  Player:   {DEMO_PLAYER} / {DEMO_PASSWORD} (commands the Blue force)")
        self.stdout.write(f"  API:      {url}/api/v1/campaigns/{campaign.id}/")
        self.stdout.write(f"  Events:   {url}/api/v1/campaigns/{campaign.id}/events/")
        self.stdout.write(f"  API docs: {url}/api/v1/docs/")
        self.stdout.write(f"  Health:   {url}/healthz")
