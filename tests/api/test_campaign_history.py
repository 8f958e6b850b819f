"""The campaign history through HTTP: campaign-level events in plain words, now or as of an
earlier event."""

from __future__ import annotations

import uuid

import pytest

from eventlog import catalogue, store
from eventlog.store import NewEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(umpire_api):
    return umpire_api.post("/api/v1/campaigns/", {"name": "Kessler Ridge"}).json()


@pytest.fixture
def base(campaign):
    return f"/api/v1/campaigns/{campaign['id']}"


def summaries(api, base, **query) -> list[str]:
    response = api.get(f"{base}/history/", query or None)
    assert response.status_code == 200, response.json()
    return [entry["summary"] for entry in response.json()["results"]]


def test_the_history_begins_with_the_campaigns_creation(umpire_api, umpire, base):
    (entry,) = umpire_api.get(f"{base}/history/").json()["results"]
    assert entry["sequence"] == 1
    assert entry["type"] == "campaigns.CampaignCreated"
    assert entry["summary"] == "Campaign created by umpire with the Stargrunt II ruleset"
    assert entry["actor_id"] == umpire.pk
    assert entry["recorded_at"]


def test_a_fast_and_dirty_campaign_names_its_ruleset(umpire_api):
    campaign = umpire_api.post("/api/v1/campaigns/", {"name": "Tree", "ruleset": "fad"}).json()
    assert summaries(umpire_api, f"/api/v1/campaigns/{campaign['id']}") == [
        "Campaign created by umpire with the Fast and Dirty ruleset"
    ]


def test_the_history_shows_an_options_change_with_its_reason(umpire_api, base):
    umpire_api.patch(
        f"{base}/options/",
        {
            "changes": {"quality_threshold_green_regular": 6},
            "reason": "Veterans are rarer in this war.",
        },
    )
    entry = umpire_api.get(f"{base}/history/").json()["results"][-1]
    assert entry["type"] == "campaigns.OptionsChanged"
    assert entry["summary"] == (
        "Options changed: quality_threshold_green_regular 5 → 6. "
        "Reason: Veterans are rarer in this war."
    )


def test_the_history_tells_members_coming_changing_and_going(umpire_api, make_user, join, base):
    force_id = uuid.uuid4()
    campaign_id = uuid.UUID(base.rsplit("/", 1)[1])
    store.append(campaign_id, [NewEvent("tests.ForceMustered", {}, f"force:{force_id}", 1)])
    alice = make_user("alice")
    carol = make_user("carol")
    join(campaign_id, alice, "player", [force_id])
    join(campaign_id, carol, "observer")
    umpire_api.patch(f"{base}/members/{alice.pk}/", {"role": "umpire"})
    umpire_api.delete(f"{base}/members/{alice.pk}/", {"reason": "Moved to another club."})
    assert summaries(umpire_api, base)[1:] == [
        "alice invited as player with 1 force",
        "alice joined as player with 1 force",
        "carol invited as observer",
        "carol joined as observer",
        "alice is now umpire",
        "alice removed from the campaign. Reason: Moved to another club.",
    ]


def test_the_history_tells_journal_notes_and_dice(umpire_api, base):
    long_note = "The 2nd Squad held the ridge through the night " * 3
    umpire_api.post(f"{base}/journal/", {"text": long_note})
    umpire_api.post(f"{base}/dice/", {"die": 6, "results": [3, 5], "purpose": "weather"})
    umpire_api.post(f"{base}/dice/", {"die": 8, "count": 1, "purpose": "patrol"})
    journal, weather, patrol = summaries(umpire_api, base)[1:]
    assert journal == "Journal: " + long_note[:80]
    assert weather == "Dice: 2d6 for weather: 3, 5 (table)"
    assert patrol.startswith("Dice: 1d8 for patrol: ")
    assert patrol.endswith(" (server)")


def test_the_history_as_of_an_earlier_event(umpire_api, base):
    umpire_api.post(f"{base}/journal/", {"text": "one"})
    umpire_api.patch(f"{base}/options/", {"changes": {"replacement_die": 10}, "reason": "why"})
    assert len(summaries(umpire_api, base)) == 3
    assert summaries(umpire_api, base, as_of=2) == [
        "Campaign created by umpire with the Stargrunt II ruleset",
        "Journal: one",
    ]
    assert summaries(umpire_api, base, as_of=0) == []
    assert summaries(umpire_api, base, as_of=99) == summaries(umpire_api, base)
    response = umpire_api.get(f"{base}/history/", {"as_of": "yesterday"})
    assert (response.status_code, response.json()["field"]) == (400, "as_of")


@pytest.mark.skipif(
    "eventlog.EventVoided" not in {t.name for t in catalogue.all_types()},
    reason="the event log does not record voids",
)
def test_the_history_tells_a_void(umpire_api, base, umpire):
    umpire_api.post(f"{base}/journal/", {"text": "Written in error."})
    campaign_id = uuid.UUID(base.rsplit("/", 1)[1])
    void = NewEvent.from_raw(
        "eventlog.EventVoided",
        {"sequence": 2, "reason": "Wrong campaign."},
        stream=f"campaign:{campaign_id}",
    )
    store.append(campaign_id, [void], actor_id=umpire.pk)
    assert summaries(umpire_api, base)[-1] == "Event #2 voided: Wrong campaign."
