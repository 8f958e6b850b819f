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
    with django_assert_max_num_queries(14):
        response = client.get(f"/campaigns/{campaign.id}/")
    page = response.content.decode()
    assert response.status_code == 200
    assert 'Day <strong id="campaign-day">0</strong>' in page
    assert "Reinforced Combat Company" in page or "Company" in page
    assert "113 of" in page
    assert "Nobody is in hospital." in page


def test_a_player_sees_other_forces_in_outline_only(client, umpire_api, make_user, join, campaign):
    player = make_user("player")
    forces = umpire_api.get(f"/api/v1/campaigns/{campaign.id}/forces/").json()
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
