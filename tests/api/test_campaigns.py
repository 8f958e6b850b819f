"""Campaigns through HTTP with token auth."""

from __future__ import annotations

import pytest

from campaigns.models import Membership

pytestmark = pytest.mark.django_db


def test_creating_a_campaign_makes_you_its_umpire(umpire_api, umpire):
    response = umpire_api.post("/api/v1/campaigns/", {"name": "Kessler Ridge"})
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["name"] == "Kessler Ridge"
    assert body["ruleset"] == "sg2"
    assert body["role"] == "umpire"
    assert body["umpire_id"] == umpire.pk
    assert body["options"]["quality_threshold_green_regular"] == 5
    assert body["options"]["quality_threshold_regular_veteran"] == 8
    assert len(body["seed_commitment"]) == 64
    assert Membership.objects.get(campaign_id=body["id"]).role == "umpire"


def test_a_fast_and_dirty_campaign_gets_its_own_options(umpire_api):
    body = umpire_api.post("/api/v1/campaigns/", {"name": "Tree", "ruleset": "fad"}).json()
    assert body["ruleset"] == "fad"
    assert "quality_threshold_green_regular" not in body["options"]


def test_options_are_validated_by_the_ruleset(umpire_api):
    response = umpire_api.post(
        "/api/v1/campaigns/",
        {"name": "Kessler Ridge", "options": {"quality_threshold_green_regular": "five"}},
    )
    assert response.status_code == 400
    assert response.json()["field"] == "options.quality_threshold_green_regular"
    response = umpire_api.post(
        "/api/v1/campaigns/", {"name": "Kessler Ridge", "options": {"no_such_option": 1}}
    )
    assert response.status_code == 400
    assert response.json()["code"] == "options.unknown"


def test_an_unknown_ruleset_is_refused(umpire_api):
    response = umpire_api.post("/api/v1/campaigns/", {"name": "X", "ruleset": "warhammer"})
    assert response.status_code == 400
    problem = {
        "code": "invalid.invalid_choice",
        "message": 'ruleset: "warhammer" is not a valid choice.',
        "field": "ruleset",
    }
    assert response.json() == {**problem, "problems": [problem]}


def test_every_problem_of_a_request_is_listed_with_its_field(umpire_api):
    response = umpire_api.post("/api/v1/campaigns/", {"ruleset": "warhammer"}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert [(p["field"], p["code"]) for p in body["problems"]] == [
        ("name", "invalid.required"),
        ("ruleset", "invalid.invalid_choice"),
    ]
    assert (body["field"], body["code"]) == ("name", "invalid.required")


def test_a_campaign_needs_a_name(umpire_api):
    response = umpire_api.post("/api/v1/campaigns/", {"name": ""})
    assert response.status_code == 400
    assert response.json()["field"] == "name"


def test_you_list_only_the_campaigns_you_belong_to(umpire_api, api_for, stranger):
    umpire_api.post("/api/v1/campaigns/", {"name": "Mine"})
    api_for(stranger).post("/api/v1/campaigns/", {"name": "Theirs"})
    assert [c["name"] for c in umpire_api.get("/api/v1/campaigns/").json()["results"]] == ["Mine"]


def test_a_stranger_gets_404_for_everything_in_a_campaign(umpire_api, api_for, stranger):
    campaign = umpire_api.post("/api/v1/campaigns/", {"name": "Mine"}).json()
    outsider = api_for(stranger)
    base = f"/api/v1/campaigns/{campaign['id']}"
    for path in (f"{base}/", f"{base}/events/", f"{base}/journal/"):
        response = outsider.get(path)
        assert response.status_code == 404, path
        assert response.json()["code"] == "campaign.not_found"
    assert outsider.post(f"{base}/dice/", {"die": 6, "purpose": "x"}).status_code == 404
    assert outsider.post(f"{base}/journal/", {"text": "x"}).status_code == 404


def test_anonymous_requests_are_refused(api_for):
    response = api_for().get("/api/v1/campaigns/")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_a_campaign_as_of_an_earlier_event(umpire_api):
    campaign = umpire_api.post("/api/v1/campaigns/", {"name": "Mine"}).json()
    base = f"/api/v1/campaigns/{campaign['id']}"
    umpire_api.post(f"{base}/journal/", {"text": "one"})
    umpire_api.post(f"{base}/journal/", {"text": "two"})
    now = umpire_api.get(f"{base}/").json()
    assert (now["journal_notes"], now["as_of"]) == (2, 3)
    then = umpire_api.get(f"{base}/", {"as_of": 2}).json()
    assert (then["journal_notes"], then["as_of"]) == (1, 2)
    assert then["name"] == "Mine"
    assert umpire_api.get(f"{base}/", {"as_of": 0}).json()["code"] == "campaign.not_yet_created"
    assert umpire_api.get(f"{base}/", {"as_of": "soon"}).status_code == 400
    assert umpire_api.get(f"{base}/", {"as_of": -1}).status_code == 400


def test_the_journal(umpire_api):
    campaign = umpire_api.post("/api/v1/campaigns/", {"name": "Mine"}).json()
    base = f"/api/v1/campaigns/{campaign['id']}"
    created = umpire_api.post(
        f"{base}/journal/",
        {
            "text": "2nd Squad held the ridge.",
            "references": [{"kind": "unit", "id": "6f1c0c43-3bb8-4c5e-9a51-0f9d2a1f7e11"}],
        },
    )
    assert created.status_code == 201
    notes = umpire_api.get(f"{base}/journal/").json()["results"]
    assert [n["text"] for n in notes] == ["2nd Squad held the ridge."]
    assert notes[0]["references"][0]["kind"] == "unit"
    bad = umpire_api.post(f"{base}/journal/", {"text": "x", "references": [{"kind": "planet"}]})
    assert bad.status_code == 400


def test_a_create_repeated_with_its_idempotency_key_replays_the_same_campaign(umpire_api):
    first = umpire_api.post("/api/v1/campaigns/", {"name": "Mine"}, **{"Idempotency-Key": "c-1"})
    again = umpire_api.post("/api/v1/campaigns/", {"name": "Mine"}, **{"Idempotency-Key": "c-1"})
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert [c["id"] for c in umpire_api.get("/api/v1/campaigns/").json()["results"]] == [
        first.json()["id"]
    ]
    other = umpire_api.post("/api/v1/campaigns/", {"name": "Other"}, **{"Idempotency-Key": "c-1"})
    assert (other.status_code, other.json()["code"]) == (409, "idempotency.key_reused")


def test_the_dice_seed_is_kept_out_of_the_command_record(umpire):
    from campaigns import services
    from eventlog.models import CommandRecord

    campaign = services.campaign_create(name="Seeded", seed="ab" * 32, actor=umpire)
    record = CommandRecord.objects.get(campaign_id=campaign.id)
    assert record.name == "campaigns.campaign_create"
    assert "ab" * 32 not in str(record.params)
