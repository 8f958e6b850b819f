"""The campaign read models in the admin: read-only, and staff see only what they umpire."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.test import Client

from campaigns import services
from campaigns.models import (
    Campaign,
    CampaignHistoryEntry,
    CampaignSeed,
    DiceTrayRoll,
    JournalNote,
    Membership,
)
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

CHANGELISTS = [
    "/admin/campaigns/campaign/",
    "/admin/campaigns/membership/",
    "/admin/campaigns/journalnote/",
    "/admin/campaigns/dicetrayroll/",
    "/admin/campaigns/campaignhistoryentry/",
]


@pytest.fixture
def staff_umpire(make_user):
    return make_user("staff-umpire", is_staff=True)


@pytest.fixture
def campaigns(staff_umpire, make_user):
    other_umpire = make_user("other-umpire")
    mine = campaign_for(staff_umpire, name="Kessler Ridge")
    theirs = campaign_for(other_umpire, name="Hidden Front")
    for campaign, author in ((mine, staff_umpire), (theirs, other_umpire)):
        services.note_record(campaign=campaign, text=f"Note of {campaign.name}", actor=author)
        services.dice_enter(campaign=campaign, die=6, results=[4], purpose="weather", actor=author)
    return mine, theirs


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_staff_umpire_sees_only_their_campaigns_rows(staff_umpire, campaigns):
    client = logged_in(staff_umpire)
    for url in CHANGELISTS:
        response = client.get(url)
        assert response.status_code == 200, url
        shown = {str(obj.campaign_id) for obj in response.context["cl"].result_list}
        assert shown == {str(campaigns[0].id)}, url
    assert b"Kessler Ridge" in client.get("/admin/campaigns/campaign/").content
    assert b"Hidden Front" not in client.get("/admin/campaigns/campaign/").content


def test_another_campaigns_row_cannot_be_opened(staff_umpire, campaigns):
    client = logged_in(staff_umpire)
    mine, theirs = campaigns
    assert client.get(f"/admin/campaigns/campaign/{mine.pk}/change/").status_code == 200
    response = client.get(f"/admin/campaigns/campaign/{theirs.pk}/change/")
    assert response.status_code == 302  # the admin redirects rows it cannot show to its index


def test_nothing_can_be_added_changed_or_deleted(staff_umpire, make_user, campaigns):
    superuser = make_user("root", is_staff=True, is_superuser=True)
    mine, _ = campaigns
    for user in (staff_umpire, superuser):
        client = logged_in(user)
        assert client.get("/admin/campaigns/campaign/add/").status_code == 403
        response = client.post(f"/admin/campaigns/campaign/{mine.pk}/change/", {"name": "Renamed"})
        assert response.status_code == 403
        assert client.get(f"/admin/campaigns/campaign/{mine.pk}/delete/").status_code == 403
        note = JournalNote.objects.filter(campaign_id=mine.id).first()
        assert note is not None
        assert client.post(f"/admin/campaigns/journalnote/{note.pk}/delete/").status_code == 403
    assert Campaign.objects.get(pk=mine.pk).name == "Kessler Ridge"
    for model in (Campaign, Membership, JournalNote, DiceTrayRoll, CampaignHistoryEntry):
        model_admin = admin.site._registry[model]
        request = type("Request", (), {"user": superuser})()
        assert not model_admin.has_add_permission(request)
        assert not model_admin.has_change_permission(request)
        assert not model_admin.has_delete_permission(request)
        assert model_admin.has_view_permission(request)


def test_a_superuser_sees_every_campaign(make_user, campaigns):
    client = logged_in(make_user("root", is_staff=True, is_superuser=True))
    response = client.get("/admin/campaigns/campaign/")
    assert {c.name for c in response.context["cl"].result_list} == {"Kessler Ridge", "Hidden Front"}


def test_staff_who_umpire_nothing_see_nothing(make_user, campaigns):
    client = logged_in(make_user("clerk", is_staff=True))
    for url in CHANGELISTS:
        assert client.get(url).status_code == 403, url


def test_an_observer_on_the_staff_does_not_see_the_campaign(staff_umpire, make_user, campaigns):
    mine, _ = campaigns
    observer = make_user("staff-observer", is_staff=True)
    invitation = services.member_invite(
        campaign=mine, username="staff-observer", role="observer", actor=staff_umpire
    )
    services.invitation_accept(invitation_id=invitation.id, actor=observer)
    assert logged_in(observer).get("/admin/campaigns/campaign/").status_code == 403


def test_the_dice_seed_is_not_in_the_admin():
    assert CampaignSeed not in admin.site._registry
