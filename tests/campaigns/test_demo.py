"""``manage.py demo``: the campaign the README's run command serves."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from campaigns.models import Campaign, Membership
from eventlog import store
from rosters.models import Force, Trooper

pytestmark = pytest.mark.django_db


def test_the_demo_creates_a_campaign_with_two_forces_and_a_player_once(
    django_capture_on_commit_callbacks,
):
    out = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("demo", stdout=out)
    call_command("demo", stdout=io.StringIO())  # running it again changes nothing
    (campaign,) = Campaign.objects.all()
    forces = Force.objects.filter(campaign_id=campaign.id)
    assert sorted(forces.values_list("side", flat=True)) == ["Blue", "Red"]
    assert Trooper.objects.filter(campaign_id=campaign.id).count() == 22 + 32
    player = Membership.objects.get(campaign_id=campaign.id, username="blue")
    assert player.role == "player"
    assert player.force_ids == [str(forces.get(side="Blue").id)]
    types = [e.type for e in store.read(campaign.id)]
    assert types.count("campaigns.DiceRolled") == 2
    assert "Log in as umpire / muster-demo" in out.getvalue()
