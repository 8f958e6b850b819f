"""The campaign list and dashboard as people see them."""

from __future__ import annotations

from pathlib import Path

import pytest

from campaigns.models import Campaign

pytestmark = pytest.mark.django_db

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def campaign(umpire_api):
    campaign = umpire_api.post("/api/v1/campaigns/", {"name": "Kessler Ridge"}).json()
    for name in ("sg2-reinforced-combat-company.yaml", "sg2-scenario-1-red.yaml"):
        response = umpire_api.post(
            f"/api/v1/campaigns/{campaign['id']}/forces/",
            {"roster": (EXAMPLES / name).read_text()},
        )
        assert response.status_code == 201, response.json()
    return Campaign.objects.get(pk=campaign["id"])


def test_anonymous_visitors_are_sent_to_log_in(client):
    response = client.get("/campaigns/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_logging_in_leads_to_your_campaigns(client, umpire, campaign):
    response = client.post(
        "/login/", {"username": "umpire", "password": "correct horse battery"}, follow=True
    )
    assert response.redirect_chain[-1][0] == "/campaigns/"
    assert "Kessler Ridge" in response.content.decode()


def test_the_dashboard_shows_the_day_the_forces_and_the_hospital(
    client, umpire, campaign, django_assert_max_num_queries
):
    client.force_login(umpire)
    # The umpire's void list tells each recent event in words from the campaign's history, the
    # battles' logs and the units' histories: three queries whatever the number of events.
    with django_assert_max_num_queries(16):
        response = client.get(f"/campaigns/{campaign.id}/")
    page = response.content.decode()
    assert response.status_code == 200
    assert 'Day <strong id="campaign-day">0</strong>' in page
    assert "Reinforced Combat Company" in page or "Company" in page
    assert "113 of" in page
    assert "Nobody is in hospital." in page


def test_a_player_sees_other_forces_in_outline_only(client, umpire_api, make_user, join, campaign):
    player = make_user("player")
    forces = umpire_api.get(f"/api/v1/campaigns/{campaign.id}/forces/").json()["results"]
    company, militia = forces
    join(campaign.id, player, "player", [militia["id"]])
    client.force_login(player)
    page = client.get(f"/campaigns/{campaign.id}/").content.decode()
    assert f"/forces/{militia['id']}/" in page
    assert f"/forces/{company['id']}/" not in page
    assert "113 of" not in page
    assert f"{company['unit_count']} units" in page


def test_a_stranger_sees_nothing(client, stranger, campaign):
    client.force_login(stranger)
    assert client.get(f"/campaigns/{campaign.id}/").status_code == 404
    assert "Kessler Ridge" not in client.get("/campaigns/").content.decode()


def _invite(umpire_api, campaign, username: str, role: str = "observer") -> str:
    invited = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/invitations/", {"username": username, "role": role}
    )
    assert invited.status_code == 202, invited.json()
    return invited.json()["id"]


def test_an_invitation_is_answered_from_the_campaign_list(client, umpire_api, campaign, make_user):
    scout = make_user("scout")
    _invite(umpire_api, campaign, "scout")
    client.force_login(scout)
    page = client.get("/campaigns/").content.decode()
    assert "You are invited as observer" in page
    assert "Kessler Ridge" in page
    action = page.split('action="/invitations/')[1].split('"')[0]
    joined = client.post(f"/invitations/{action}", {"answer": "accept"}, follow=True)
    assert joined.redirect_chain[-1][0] == f"/campaigns/{campaign.id}/"
    assert "You joined Kessler Ridge as observer." in joined.content.decode()
    assert "You are invited" not in client.get("/campaigns/").content.decode()


def test_a_declined_invitation_leaves_you_out(client, umpire_api, campaign, make_user):
    client.force_login(make_user("scout"))
    _invite(umpire_api, campaign, "scout")
    page = client.get("/campaigns/").content.decode()
    action = page.split('action="/invitations/')[1].split('"')[0]
    declined = client.post(f"/invitations/{action}", {"answer": "decline"}, follow=True)
    assert "You declined the invitation to Kessler Ridge." in declined.content.decode()
    assert client.get(f"/campaigns/{campaign.id}/").status_code == 404


def test_someone_elses_invitation_cannot_be_answered(client, umpire_api, campaign, make_user):
    make_user("scout")
    invitation_id = _invite(umpire_api, campaign, "scout")
    client.force_login(make_user("intruder"))
    assert client.post(f"/invitations/{invitation_id}/", {"answer": "accept"}).status_code == 404
