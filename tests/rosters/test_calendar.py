"""The campaign calendar through HTTP: moving units, rest and recovery, returns from hospital."""

from __future__ import annotations

import pytest

from eventlog import store
from tests.rosters.conftest import PLATOON, find_unit

pytestmark = pytest.mark.django_db

TIRED_AND_EXHAUSTED = PLATOON.replace("fatigue: tired", "fatigue: exhausted").replace(
    "quality: green\n", "quality: green\n        fatigue: tired\n"
)


@pytest.fixture
def force(umpire_api, forces_url):
    response = umpire_api.post(forces_url, {"roster": TIRED_AND_EXHAUSTED})
    assert response.status_code == 201, response.json()
    return response.json()


def advance(api, campaign, **how):
    return api.post(f"/api/v1/campaigns/{campaign.id}/calendar/", how)


def move(api, unit, to):
    return api.post(f"/api/v1/units/{unit['id']}/move/", {"to": to, "reason": "orders"})


def test_rest_in_a_safe_area_recovers_a_level_every_two_days_p61(force, umpire_api, campaign):
    first = find_unit(force, "1st Squad")  # Exhausted
    assert move(umpire_api, first, "safe_area").status_code == 201
    assert advance(umpire_api, campaign, days=1).json()["day"] == 1
    unit = umpire_api.get(f"/api/v1/units/{first['id']}/").json()
    assert (unit["fatigue"], unit["rest_days"]) == ("exhausted", 1)
    advance(umpire_api, campaign, days=1)
    unit = umpire_api.get(f"/api/v1/units/{first['id']}/").json()
    assert (unit["fatigue"], unit["rest_days"]) == ("tired", 0)
    advance(umpire_api, campaign, to_day=4)
    unit = umpire_api.get(f"/api/v1/units/{first['id']}/").json()
    assert unit["fatigue"] == "fresh"
    assert unit["starting_confidence"] == "confident"
    history = [
        h["summary"]
        for h in umpire_api.get(f"/api/v1/units/{first['id']}/history/").json()["results"]
    ]
    assert history[-2:] == [
        "Day 2: rest and recovery, exhausted to tired.",
        "Day 4: rest and recovery, tired to fresh.",
    ]


def test_rest_in_the_field_takes_twice_as_long_p61(force, umpire_api, campaign):
    second = find_unit(force, "2nd Squad")  # Tired
    move(umpire_api, second, "in_the_field")
    advance(umpire_api, campaign, days=3)
    assert umpire_api.get(f"/api/v1/units/{second['id']}/").json()["fatigue"] == "tired"
    advance(umpire_api, campaign, days=1)
    assert umpire_api.get(f"/api/v1/units/{second['id']}/").json()["fatigue"] == "fresh"


def test_units_in_the_line_do_not_rest(force, umpire_api, campaign):
    second = find_unit(force, "2nd Squad")
    advance(umpire_api, campaign, days=10)
    assert umpire_api.get(f"/api/v1/units/{second['id']}/").json()["fatigue"] == "tired"


@pytest.mark.parametrize(
    ("how", "code", "field"),
    [
        ({"to_day": 0}, "calendar.not_forward", "to_day"),
        ({}, "calendar.how_far", "to_day"),
        ({"to_day": 3, "days": 1}, "calendar.how_far", "to_day"),
        ({"days": 400}, "calendar.too_far", "to_day"),
    ],
)
def test_the_calendar_never_runs_backwards(force, umpire_api, campaign, how, code, field):
    before = store.last_sequence(campaign.id)
    response = advance(umpire_api, campaign, **how)
    assert response.status_code == 400
    assert (response.json()["code"], response.json()["field"]) == (code, field)
    assert store.last_sequence(campaign.id) == before


def test_going_back_a_day_is_refused_after_moving_on(force, umpire_api, campaign):
    advance(umpire_api, campaign, to_day=5)
    before = store.last_sequence(campaign.id)
    response = advance(umpire_api, campaign, to_day=4)
    assert response.json()["code"] == "calendar.not_forward"
    assert store.last_sequence(campaign.id) == before


@pytest.mark.parametrize(
    ("to", "status", "code"),
    [("in_the_line", 400, "unit.unchanged"), ("moon", 400, "unit.bad_location")],
)
def test_refused_moves(force, umpire_api, campaign, to, status, code):
    first = find_unit(force, "1st Squad")
    before = store.last_sequence(campaign.id)
    response = move(umpire_api, first, to)
    assert (response.status_code, response.json()["code"]) == (status, code)
    assert store.last_sequence(campaign.id) == before


def test_a_player_cannot_advance_the_calendar(force, api_for, make_user, join, campaign):
    player = make_user("player")
    join(campaign.id, player, "player", [force["id"]])
    response = advance(api_for(player), campaign, days=1)
    assert response.status_code == 403
    assert api_for(player).get(f"/api/v1/campaigns/{campaign.id}/calendar/").json() == {"day": 0}
