"""Campaign options through HTTP: read with their schema, changed with a reason."""

from __future__ import annotations

import pytest

from campaigns.models import Campaign
from eventlog import store
from rules.options import options_schema

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(umpire_api):
    return umpire_api.post("/api/v1/campaigns/", {"name": "Kessler Ridge"}).json()


@pytest.fixture
def options_url(campaign):
    return f"/api/v1/campaigns/{campaign['id']}/options/"


def last(campaign) -> int:
    return store.last_sequence(campaign["id"])


def test_members_read_the_options_with_the_rulesets_schema(umpire_api, options_url, campaign):
    response = umpire_api.get(options_url)
    assert response.status_code == 200
    body = response.json()
    assert body["ruleset"] == "sg2"
    assert body["options"] == campaign["options"]
    assert body["schema"] == options_schema("sg2")
    assert body["schema"]["properties"]["replacement_die"]["default"] == 8


def test_an_umpire_changes_options_and_the_change_is_recorded_with_its_reason(
    umpire_api, options_url, campaign
):
    response = umpire_api.patch(
        options_url,
        {
            "changes": {"quality_threshold_green_regular": 6, "replacement_die": 10},
            "reason": "Veterans are rarer in this war.",
        },
    )
    assert response.status_code == 200, response.json()
    options = response.json()["options"]
    assert options["quality_threshold_green_regular"] == 6
    assert options["replacement_die"] == 10
    assert options["quality_threshold_regular_veteran"] == 8
    assert Campaign.objects.get(pk=campaign["id"]).options == options
    assert umpire_api.get(f"/api/v1/campaigns/{campaign['id']}/").json()["options"] == options

    (event,) = store.read(campaign["id"], types=["campaigns.OptionsChanged"])
    assert event.payload["options"] == options
    assert event.payload["changes"] == {
        "quality_threshold_green_regular": {"from": 5, "to": 6},
        "replacement_die": {"from": 8, "to": 10},
    }
    assert event.payload["reason"] == "Veterans are rarer in this war."


def test_a_change_builds_on_the_current_options(umpire_api, options_url):
    umpire_api.patch(options_url, {"changes": {"replacement_die": 10}, "reason": "one"})
    response = umpire_api.patch(
        options_url, {"changes": {"allow_overstrength": False}, "reason": "two"}
    )
    options = response.json()["options"]
    assert (options["replacement_die"], options["allow_overstrength"]) == (10, False)


def test_a_nested_option_group_changes_in_part(umpire_api, options_url, campaign):
    response = umpire_api.patch(
        options_url, {"changes": {"repair_days": {"disabled": 4}}, "reason": "Spares are short."}
    )
    assert response.status_code == 200, response.json()
    assert response.json()["options"]["repair_days"] == {
        "immobilised": 1,
        "system_damaged": 1,
        "disabled": 4,
    }
    (event,) = store.read(campaign["id"], types=["campaigns.OptionsChanged"])
    assert list(event.payload["changes"]) == ["repair_days"]


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        (
            {"changes": {"quality_threshold_green_regular": "six"}, "reason": "x"},
            "options.type",
            "options.quality_threshold_green_regular",
        ),
        (
            {"changes": {"replacement_die": 20}, "reason": "x"},
            "options.choice",
            "options.replacement_die",
        ),
        (
            {"changes": {"morale_by_horoscope": True}, "reason": "x"},
            "options.unknown",
            "options.morale_by_horoscope",
        ),
        (
            {"changes": {"quality_threshold_green_regular": 9}, "reason": "x"},
            "options.order",
            "options.quality_threshold_green_regular",
        ),
        ({"changes": {"replacement_die": 8}, "reason": "x"}, "options.unchanged", "changes"),
        ({"changes": {}, "reason": "x"}, "options.unchanged", "changes"),
        ({"changes": {"replacement_die": 10}, "reason": " "}, "invalid.blank", "reason"),
        ({"changes": {"replacement_die": 10}, "reason": "x" * 501}, "invalid.max_length", "reason"),
        ({"changes": {"replacement_die": 10}}, "invalid.required", "reason"),
        ({"changes": 10, "reason": "x"}, "invalid.not_a_dict", "changes"),
    ],
)
def test_a_refused_change_says_why_and_appends_nothing(
    umpire_api, options_url, campaign, body, code, field
):
    before = last(campaign)
    response = umpire_api.patch(options_url, body)
    assert response.status_code == 400, response.json()
    error = response.json()
    assert (error["code"], error["field"]) == (code, field)
    assert error["message"]
    assert last(campaign) == before
    assert Campaign.objects.get(pk=campaign["id"]).options == campaign["options"]


def test_a_fast_and_dirty_campaign_changes_its_own_options(umpire_api):
    campaign = umpire_api.post("/api/v1/campaigns/", {"name": "Tree", "ruleset": "fad"}).json()
    url = f"/api/v1/campaigns/{campaign['id']}/options/"
    assert umpire_api.get(url).json()["schema"] == options_schema("fad")
    response = umpire_api.patch(url, {"changes": {"move_variable": True}, "reason": "Table rule."})
    assert response.status_code == 200, response.json()
    assert response.json()["options"]["move_variable"] is True
    response = umpire_api.patch(
        url, {"changes": {"quality_threshold_green_regular": 6}, "reason": "x"}
    )
    assert response.json()["code"] == "options.unknown"


def test_the_rulesets_are_listed_with_their_option_schemas_without_logging_in(api_for):
    response = api_for().get("/api/v1/rulesets/")
    assert response.status_code == 200
    assert response.json() == [
        {"name": "sg2", "label": "Stargrunt II", "options_schema": options_schema("sg2")},
        {"name": "fad", "label": "Fast and Dirty", "options_schema": options_schema("fad")},
    ]
