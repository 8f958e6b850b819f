"""The umpire's dice tray: server throws as jobs, table throws entered and checked."""

from __future__ import annotations

import pytest

from eventlog import store

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(umpire_api):
    return umpire_api.post("/api/v1/campaigns/", {"name": "Kessler Ridge"}).json()


@pytest.fixture
def dice_url(campaign):
    return f"/api/v1/campaigns/{campaign['id']}/dice/"


def test_the_server_throws_in_a_job_and_the_job_shows_its_events(umpire_api, dice_url, campaign):
    response = umpire_api.post(dice_url, {"die": 8, "count": 3, "purpose": "patrol encounter"})
    assert response.status_code == 202, response.json()
    job_url = response.headers["Location"]
    job = umpire_api.get(job_url).json()
    assert job["status"] == "succeeded"
    assert job["kind"] == "campaigns.roll_dice"
    assert job["started_at"]
    assert job["finished_at"]
    (event,) = job["events"]
    assert event["type"] == "campaigns.DiceRolled"
    assert event["job"] == job["id"]
    rolls = event["payload"]["rolls"]
    assert len(rolls) == 3
    assert all(1 <= r["result"] <= 8 and r["source"] == "server" for r in rolls)
    assert event["payload"]["total"] == sum(r["result"] for r in rolls)


def test_table_dice_are_entered_and_recorded_as_table_rolls(umpire_api, dice_url, campaign):
    response = umpire_api.post(dice_url, {"die": 6, "results": [6, 1], "purpose": "reaction"})
    assert response.status_code == 201
    payload = response.json()["payload"]
    assert [(r["result"], r["source"]) for r in payload["rolls"]] == [(6, "table"), (1, "table")]
    assert payload["total"] == 7


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({"die": 6, "results": [7], "purpose": "x"}, "dice.impossible", "results.0"),
        ({"die": 6, "results": [3, 0], "purpose": "x"}, "dice.impossible", "results.1"),
        ({"die": 7, "count": 1, "purpose": "x"}, "dice.unknown_die", "die"),
        ({"die": 6, "count": 0, "purpose": "x"}, "dice.count", "count"),
        ({"die": 6, "count": 101, "purpose": "x"}, "dice.count", "count"),
        ({"die": 6, "results": [], "purpose": "x"}, "dice.count", "count"),
        ({"die": 6, "count": 1, "purpose": " "}, "invalid.blank", "purpose"),
    ],
)
def test_impossible_dice_are_refused_and_nothing_is_recorded(
    umpire_api, dice_url, campaign, body, code, field
):
    before = store.last_sequence(campaign["id"])
    response = umpire_api.post(dice_url, body)
    assert response.status_code == 400
    assert (response.json()["code"], response.json()["field"]) == (code, field)
    assert store.last_sequence(campaign["id"]) == before


def test_a_stranger_cannot_see_a_job(umpire_api, api_for, stranger, dice_url):
    job_url = umpire_api.post(dice_url, {"die": 6, "purpose": "x"}).headers["Location"]
    response = api_for(stranger).get(job_url)
    assert response.status_code == 404
    assert response.json()["code"] == "job.not_found"
    assert umpire_api.get("/api/v1/jobs/00000000-0000-0000-0000-000000000000/").status_code == 404


def test_the_dice_prompt_lists_the_dice_the_tray_would_throw(umpire_api, dice_url, campaign):
    """GET with the throw's parameters: each die with its purpose, for no unit, and whether the
    faces so far (``?dice=``) complete the throw. Nothing is written."""
    before = store.last_sequence(campaign["id"])
    query = {"die": 6, "count": 3, "purpose": "patrol encounter"}
    response = umpire_api.get(dice_url, query)
    assert response.status_code == 200, response.json()
    assert [(d["die"], d["purpose"], d["for"]) for d in response.json()["dice"]] == [
        (6, "patrol encounter", None)
    ] * 3
    assert response.json()["complete"] is False
    done = umpire_api.get(dice_url, {**query, "dice": "1,6,3"}).json()
    assert (done["complete"], [d["face"] for d in done["dice"]]) == (True, [1, 6, 3])
    assert store.last_sequence(campaign["id"]) == before
    refused = umpire_api.get(dice_url, {"die": 7, "purpose": "x"})
    assert (refused.status_code, refused.json()["code"]) == (400, "dice.unknown_die")
