"""The events endpoint: reading the log, appending to it, and every way an append is refused."""

from __future__ import annotations

import pytest

from eventlog import store

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(umpire_api):
    return umpire_api.post("/api/v1/campaigns/", {"name": "Kessler Ridge"}).json()


@pytest.fixture
def events_url(campaign):
    return f"/api/v1/campaigns/{campaign['id']}/events/"


def note(text="Rain all night.", **extra):
    return {"type": "campaigns.NoteRecorded", "payload": {"text": text}, **extra}


def log_of(campaign):
    return [(e.sequence, e.type) for e in store.read(campaign["id"])]


def test_an_umpire_appends_a_note(umpire_api, events_url, campaign):
    response = umpire_api.post(events_url, note(expected_version=1))
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["sequence"] == 2
    assert body["version"] == 2
    assert body["stream"] == f"campaign:{campaign['id']}"
    assert body["payload"] == {"text": "Rain all night.", "references": []}
    assert body["metadata"]["actor_id"] is not None


def test_the_same_idempotency_key_twice_returns_the_same_response_and_one_event(
    umpire_api, events_url, campaign
):
    first = umpire_api.post(events_url, note(), **{"Idempotency-Key": "note-42"})
    second = umpire_api.post(events_url, note(), **{"Idempotency-Key": "note-42"})
    assert first.status_code == second.status_code == 201
    assert first.json() == second.json()
    assert second.headers["Idempotent-Replayed"] == "true"
    assert log_of(campaign) == [(1, "campaigns.CampaignCreated"), (2, "campaigns.NoteRecorded")]


def test_an_idempotency_key_reused_for_another_request_conflicts(umpire_api, events_url, campaign):
    umpire_api.post(events_url, note("one"), **{"Idempotency-Key": "k"})
    response = umpire_api.post(events_url, note("two"), **{"Idempotency-Key": "k"})
    assert response.status_code == 409
    assert response.json()["code"] == "idempotency.key_reused"
    assert len(log_of(campaign)) == 2


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        ({"type": "campaigns.NoSuchThing", "payload": {}}, 400, "event.unknown_type", "type"),
        (note(""), 400, "event.invalid_payload", "payload.text"),
        (
            {"type": "campaigns.NoteRecorded", "payload": {"text": "x", "mood": "grim"}},
            400,
            "event.invalid_payload",
            "payload.mood",
        ),
        (note(expected_version=0), 409, "event.version_conflict", "expected_version"),
        (
            note(stream="campaign:00000000-0000-0000-0000-000000000000"),
            400,
            "event.wrong_stream",
            "stream",
        ),
        ({"type": "campaigns.CampaignCreated", "payload": {}}, 400, "event.not_appendable", "type"),
        ({"payload": {}}, 400, "invalid.required", "type"),
    ],
)
def test_a_refused_append_says_why_and_leaves_the_log_unchanged(
    umpire_api, events_url, campaign, body, status, code, field
):
    before = log_of(campaign)
    response = umpire_api.post(events_url, body)
    assert response.status_code == status
    error = response.json()
    assert (error["code"], error["field"]) == (code, field)
    assert error["message"]
    assert log_of(campaign) == before


def test_an_observer_may_read_but_not_append(api_for, make_user, join, events_url, campaign):
    watcher = make_user("watcher")
    join(campaign["id"], watcher, "observer")
    client = api_for(watcher)
    before = log_of(campaign)
    assert client.get(events_url).status_code == 200
    response = client.post(events_url, note())
    assert response.status_code == 403
    assert response.json()["code"] == "campaign.umpire_only"
    assert log_of(campaign) == before


def test_a_stranger_cannot_read_or_append(api_for, stranger, events_url, campaign):
    client = api_for(stranger)
    assert client.get(events_url).status_code == 404
    response = client.post(events_url, note())
    assert response.status_code == 404
    assert response.json()["code"] == "campaign.not_found"
    assert len(log_of(campaign)) == 1


def test_reading_follows_the_sequence_page_by_page(umpire_api, events_url):
    for i in range(5):
        umpire_api.post(events_url, note(f"note {i}"))
    page = umpire_api.get(events_url, {"limit": 2}).json()
    assert [e["sequence"] for e in page["results"]] == [1, 2]
    assert page["last_sequence"] == 6
    seen = [e["sequence"] for e in page["results"]]
    while page["next"]:
        page = umpire_api.get(page["next"]).json()
        seen += [e["sequence"] for e in page["results"]]
    assert seen == [1, 2, 3, 4, 5, 6]


def test_reading_filters_by_type_stream_and_after(umpire_api, events_url, campaign):
    umpire_api.post(events_url, note())
    umpire_api.post(
        f"/api/v1/campaigns/{campaign['id']}/dice/", {"die": 6, "results": [4], "purpose": "x"}
    )
    notes = umpire_api.get(events_url, {"type": "campaigns.NoteRecorded"}).json()["results"]
    assert [e["type"] for e in notes] == ["campaigns.NoteRecorded"]
    both = umpire_api.get(
        events_url, {"type": "campaigns.NoteRecorded,campaigns.DiceRolled"}
    ).json()["results"]
    assert [e["sequence"] for e in both] == [2, 3]
    after = umpire_api.get(events_url, {"after": 2}).json()["results"]
    assert [e["sequence"] for e in after] == [3]
    stream = umpire_api.get(events_url, {"stream": "battle:nope"}).json()["results"]
    assert stream == []


@pytest.mark.parametrize("query", [{"after": "x"}, {"limit": 0}, {"limit": 5000}])
def test_bad_paging_parameters_are_refused(umpire_api, events_url, query):
    response = umpire_api.get(events_url, query)
    assert response.status_code == 400
    assert response.json()["field"] in query


def test_the_event_catalogue_lists_every_type_with_its_schema(api_for):
    types = {t["name"]: t for t in api_for().get("/api/v1/event-types/").json()}
    assert {"campaigns.CampaignCreated", "campaigns.NoteRecorded", "campaigns.DiceRolled"} <= set(
        types
    )
    note_type = types["campaigns.NoteRecorded"]
    assert note_type["schema_version"] == 1
    assert note_type["stream"] == "campaign"
    assert note_type["appendable"] is True
    assert note_type["payload_schema"]["properties"]["text"]["maxLength"] == 10_000
    assert types["campaigns.DiceRolled"]["appendable"] is False
