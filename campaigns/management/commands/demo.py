"""Create a small demo campaign, through the same services the API uses."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from rest_framework.authtoken.models import Token

from campaigns import services
from campaigns.models import Campaign
from eventlog import store
from eventlog.models import Job

DEMO_USERNAME = "umpire"
DEMO_PASSWORD = "muster-demo"
DEMO_CAMPAIGN = "Operation Long Night (demo)"


class Command(BaseCommand):
    help = "Create the demo umpire and a demo campaign with journal notes and dice throws."

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
        events = store.last_sequence(campaign.id)
        pending = Job.objects.filter(campaign_id=campaign.id).exclude(status="succeeded").count()
        self.stdout.write(self.style.SUCCESS(f"Demo campaign: {campaign.name} ({campaign.id})"))
        self.stdout.write(f"  {events} events in its log, {pending} job(s) still running")
        self.stdout.write(f"  Log in as {DEMO_USERNAME} / {DEMO_PASSWORD}, API token {token.key}")
        self.stdout.write(f"  API:      {url}/api/v1/campaigns/{campaign.id}/")
        self.stdout.write(f"  Events:   {url}/api/v1/campaigns/{campaign.id}/events/")
        self.stdout.write(f"  API docs: {url}/api/v1/docs/")
        self.stdout.write(f"  Health:   {url}/healthz")
