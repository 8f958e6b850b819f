"""Handing a member's place over (``POST /campaigns/{id}/members/{user_id}/hand-over/``): an
invitation with the member's role and forces, and the member leaves when it is accepted. The
placeholders of an imported campaign are handed over this way (tests/campaigns/test_archive.py)."""

from __future__ import annotations

import pytest

from campaigns.models import Membership
from tests.api.test_members import raise_force

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(umpire_api):
    return umpire_api.post("/api/v1/campaigns/", {"name": "Kessler Ridge"}).json()


@pytest.fixture
def base(campaign):
    return f"/api/v1/campaigns/{campaign['id']}"


def test_a_player_hands_their_forces_over_when_the_invitee_accepts(
    umpire_api, api_for, join, make_user, campaign, base
):
    force = raise_force(campaign["id"])
    bob, dave = make_user("bob"), make_user("dave")
    join(campaign["id"], bob, "player", [force])

    handed = umpire_api.post(f"{base}/members/{bob.pk}/hand-over/", {"username": "dave"})
    assert handed.status_code == 202, handed.json()
    invitation = handed.json()
    assert (invitation["username"], invitation["role"], invitation["force_ids"]) == (
        "dave",
        "player",
        [force],
    )
    assert invitation["replaces_user_id"] == bob.pk
    # Until dave accepts, bob keeps his place.
    assert Membership.objects.filter(campaign_id=campaign["id"], user_id=bob.pk).exists()

    accepted = api_for(dave).post(f"/api/v1/invitations/{invitation['id']}/accept/")
    assert accepted.status_code == 201, accepted.json()
    assert (accepted.json()["username"], accepted.json()["force_ids"]) == ("dave", [force])
    members = {
        m["username"]: m["role"] for m in umpire_api.get(f"{base}/members/").json()["results"]
    }
    assert members == {"umpire": "umpire", "dave": "player"}
    history = [e["summary"] for e in umpire_api.get(f"{base}/history/").json()["results"]]
    assert "dave invited as player with 1 force to take the place of bob" in history
    assert any(line.startswith("bob") and "dave took their place" in line for line in history)


def test_the_only_umpire_hands_the_campaign_over_without_leaving_it_umpireless(
    umpire_api, api_for, make_user, umpire, base
):
    heir = make_user("heir")
    handed = umpire_api.post(f"{base}/members/{umpire.pk}/hand-over/", {"username": "heir"})
    assert handed.status_code == 202, handed.json()
    accepted = api_for(heir).post(f"/api/v1/invitations/{handed.json()['id']}/accept/")
    assert accepted.status_code == 201, accepted.json()
    members = api_for(heir).get(f"{base}/members/").json()["results"]
    assert [(m["username"], m["role"]) for m in members] == [("heir", "umpire")]
    assert umpire_api.get(f"{base}/").status_code == 404


def test_refused_hand_overs(umpire_api, api_for, join, make_user, campaign, base, umpire):
    carol = make_user("carol")
    join(campaign["id"], carol, "observer")
    nobody = umpire_api.post(f"{base}/members/999999/hand-over/", {"username": "dave"})
    assert (nobody.status_code, nobody.json()["code"]) == (404, "member.not_found")
    to_a_member = umpire_api.post(f"{base}/members/{carol.pk}/hand-over/", {"username": "umpire"})
    assert (to_a_member.status_code, to_a_member.json()["code"]) == (409, "member.already_member")
    by_an_observer = api_for(carol).post(
        f"{base}/members/{umpire.pk}/hand-over/", {"username": "carol"}
    )
    assert (by_an_observer.status_code, by_an_observer.json()["code"]) == (
        403,
        "campaign.umpire_only",
    )
