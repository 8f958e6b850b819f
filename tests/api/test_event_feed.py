"""Following the log: the long-poll (``?wait=``) and the server-sent event stream.

On PostgreSQL (the services pass) the append that ends a wait comes from another thread, on its
own connection, as it would from another client; those tests commit. The embedded default's test
database cannot be shared between threads (and its append-only tables cannot be emptied between
committed tests), so there the append is made by the waiting request's first pause, on its own
connection: the same code path, from ``eventlog.feed``'s point of view.
"""

from __future__ import annotations

import json
import threading
import time
import types
import uuid

import pytest
from django.db import connection

from campaigns.events import NoteRecorded
from eventlog import feed, store
from eventlog.store import NewEvent

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _quick_polls(settings):
    settings.MUSTER_EVENTS_POLL_SECONDS = 0.02


@pytest.fixture
def campaign(umpire_api):
    return umpire_api.post("/api/v1/campaigns/", {"name": "Kessler Ridge"}).json()


def append_note(campaign_id, text: str) -> int:
    campaign_id = uuid.UUID(str(campaign_id))
    event = NewEvent.of(NoteRecorded(text=text), stream=f"campaign:{campaign_id}")
    return store.append(campaign_id, [event]).events[0].sequence


@pytest.fixture
def append_while_waiting(monkeypatch):
    """Make the first pause of a waiting request append a note to the campaign."""

    def arm(campaign_id, text: str) -> list[int]:
        appended: list[int] = []

        def pause(seconds: float) -> None:
            if not appended:
                appended.append(append_note(campaign_id, text))
            time.sleep(seconds)

        monkeypatch.setattr(
            feed, "time", types.SimpleNamespace(monotonic=time.monotonic, sleep=pause)
        )
        return appended

    return arm


def append_later(campaign_id, text: str, delay: float) -> threading.Thread:
    """Append a note from another thread (another connection) after ``delay`` seconds."""

    def work() -> None:
        try:
            time.sleep(delay)
            append_note(campaign_id, text)
        finally:
            connection.close()

    thread = threading.Thread(target=work)
    thread.start()
    return thread


# --- Long-poll ----------------------------------------------------------------------------------


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_waiting_read_returns_the_event_another_client_appends_meanwhile(umpire_api, campaign):
    events_url = f"/api/v1/campaigns/{campaign['id']}/events/"
    head = store.last_sequence(campaign["id"])
    appender = append_later(campaign["id"], "Contact at the ford.", delay=0.3)

    started = time.monotonic()
    response = umpire_api.get(events_url, {"after": head, "wait": 10})
    took = time.monotonic() - started
    appender.join()

    assert response.status_code == 200
    body = response.json()
    assert [e["payload"]["text"] for e in body["results"]] == ["Contact at the ford."]
    assert body["last_sequence"] == head + 1
    assert 0.25 <= took < 5


def test_a_waiting_read_returns_the_event_appended_while_it_waits(
    umpire_api, campaign, append_while_waiting
):
    head = store.last_sequence(campaign["id"])
    appended = append_while_waiting(campaign["id"], "Contact at the ford.")
    response = umpire_api.get(
        f"/api/v1/campaigns/{campaign['id']}/events/", {"after": head, "wait": 10}
    )
    body = response.json()
    assert appended == [head + 1]
    assert [e["payload"]["text"] for e in body["results"]] == ["Contact at the ford."]
    assert body["last_sequence"] == head + 1


def test_a_waiting_read_that_times_out_answers_with_no_results(umpire_api, campaign):
    head = store.last_sequence(campaign["id"])
    started = time.monotonic()
    response = umpire_api.get(
        f"/api/v1/campaigns/{campaign['id']}/events/", {"after": head, "wait": 1}
    )
    took = time.monotonic() - started
    assert response.status_code == 200
    assert response.json() == {"results": [], "next": None, "last_sequence": head}
    assert 0.9 <= took < 3


def test_a_read_with_something_to_show_does_not_wait(umpire_api, campaign):
    started = time.monotonic()
    response = umpire_api.get(f"/api/v1/campaigns/{campaign['id']}/events/", {"wait": 20})
    assert time.monotonic() - started < 2
    assert [e["sequence"] for e in response.json()["results"]] == [1]


def test_an_event_the_reader_may_not_see_does_not_end_the_wait(
    umpire_api, api_for, make_user, join, campaign
):
    observer = make_user("observer")
    join(campaign["id"], observer, "observer")
    hidden = umpire_api.post(
        f"/api/v1/campaigns/{campaign['id']}/journal/", {"text": "Mines.", "hidden": {}}
    )
    assert hidden.status_code == 201
    note = hidden.json()["sequence"]  # after the marker that says something was hidden

    started = time.monotonic()
    response = api_for(observer).get(
        f"/api/v1/campaigns/{campaign['id']}/events/", {"after": note - 1, "wait": 1}
    )
    assert time.monotonic() - started >= 0.9
    assert response.json()["results"] == []
    assert response.json()["last_sequence"] == note


def test_an_event_the_filter_leaves_out_does_not_end_the_wait(
    umpire_api, campaign, append_while_waiting
):
    head = store.last_sequence(campaign["id"])
    appended = append_while_waiting(campaign["id"], "Not a dice roll.")
    started = time.monotonic()
    response = umpire_api.get(
        f"/api/v1/campaigns/{campaign['id']}/events/",
        {"after": head, "wait": 1, "type": "campaigns.DiceRolled"},
    )
    assert time.monotonic() - started >= 0.9
    assert appended == [head + 1]
    assert response.json()["results"] == []
    assert response.json()["last_sequence"] == head + 1


@pytest.mark.parametrize(
    ("wait", "code"),
    [("-1", "invalid.range"), ("26", "invalid.range"), ("soon", "invalid.integer")],
)
def test_a_wait_out_of_bounds_is_refused(umpire_api, campaign, wait, code):
    response = umpire_api.get(f"/api/v1/campaigns/{campaign['id']}/events/", {"wait": wait})
    assert response.status_code == 400
    assert (response.json()["code"], response.json()["field"]) == (code, "wait")


def test_an_answer_after_a_wait_is_tagged_like_any_read(umpire_api, campaign):
    head = store.last_sequence(campaign["id"])
    url = f"/api/v1/campaigns/{campaign['id']}/events/"
    first = umpire_api.get(url, {"after": head, "wait": 1})
    again = umpire_api.get(url, {"after": head, "wait": 1}, **{"If-None-Match": first["ETag"]})
    assert first.status_code == 200
    assert again.status_code == 304


# --- Server-sent events -------------------------------------------------------------------------


def read_stream(response) -> str:
    return b"".join(response.streaming_content).decode()


def messages(text: str) -> list[dict[str, str]]:
    """The stream's events: each message's fields, heartbeats and ``retry`` left out."""
    found = []
    for block in text.split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":")
        )
        if "event" in fields:
            found.append(fields)
    return found


@pytest.fixture
def short_streams(settings):
    settings.MUSTER_EVENT_STREAM_SECONDS = 0.3
    settings.MUSTER_EVENT_STREAM_HEARTBEAT_SECONDS = 0.12
    settings.MUSTER_EVENT_STREAM_RETRY_MS = 1500


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_the_stream_sends_what_another_client_appends_while_it_is_open(
    umpire_api, campaign, short_streams
):
    appender = append_later(campaign["id"], "During the stream.", delay=0.2)
    response = umpire_api.get(f"/api/v1/campaigns/{campaign['id']}/events/stream/")
    sent = messages(read_stream(response))
    appender.join()
    assert [m["id"] for m in sent] == ["1", "2"]
    assert json.loads(sent[1]["data"])["payload"]["text"] == "During the stream."


def test_the_stream_sends_the_log_then_what_is_appended_while_it_is_open(
    umpire_api, campaign, short_streams, append_while_waiting
):
    stream_url = f"/api/v1/campaigns/{campaign['id']}/events/stream/"
    append_note(campaign["id"], "Before the stream.")
    append_while_waiting(campaign["id"], "During the stream.")

    response = umpire_api.get(stream_url)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/event-stream; charset=utf-8"
    assert response["Cache-Control"] == "no-cache, no-transform"
    assert response["X-Accel-Buffering"] == "no"
    assert "ETag" not in response
    assert "Content-Encoding" not in response
    text = read_stream(response)

    assert text.startswith("retry: 1500\n\n")
    assert ": heartbeat\n\n" in text
    sent = messages(text)
    assert [m["id"] for m in sent] == ["1", "2", "3"]
    assert [m["event"] for m in sent] == [
        "campaigns.CampaignCreated",
        "campaigns.NoteRecorded",
        "campaigns.NoteRecorded",
    ]
    assert json.loads(sent[2]["data"])["payload"]["text"] == "During the stream."


def test_the_stream_resumes_after_the_last_event_id(umpire_api, campaign, short_streams):
    stream_url = f"/api/v1/campaigns/{campaign['id']}/events/stream/"
    for n in range(3):
        append_note(campaign["id"], f"Note {n}.")
    first = messages(read_stream(umpire_api.get(stream_url)))
    assert [m["id"] for m in first] == ["1", "2", "3", "4"]

    append_note(campaign["id"], "After the first stream ended.")
    resumed = messages(
        read_stream(umpire_api.get(stream_url, **{"Last-Event-ID": first[-1]["id"]}))
    )
    by_query = messages(read_stream(umpire_api.get(stream_url, {"after": 3})))

    assert [m["id"] for m in resumed] == ["5"]
    assert [m["id"] for m in by_query] == ["4", "5"]


def test_the_stream_shows_each_reader_what_they_may_see(
    umpire_api, api_for, make_user, join, campaign, short_streams
):
    observer = make_user("observer")
    join(campaign["id"], observer, "observer")
    hidden = umpire_api.post(
        f"/api/v1/campaigns/{campaign['id']}/journal/", {"text": "Mines.", "hidden": {}}
    )
    stream_url = f"/api/v1/campaigns/{campaign['id']}/events/stream/"
    umpires = messages(read_stream(umpire_api.get(stream_url)))
    observers = messages(read_stream(api_for(observer).get(stream_url)))
    hidden_id = str(hidden.json()["sequence"])
    assert hidden_id in [m["id"] for m in umpires]
    assert hidden_id not in [m["id"] for m in observers]


def test_the_stream_filters_by_type(umpire_api, campaign, short_streams):
    append_note(campaign["id"], "A note.")
    stream_url = f"/api/v1/campaigns/{campaign['id']}/events/stream/"
    sent = messages(read_stream(umpire_api.get(stream_url, {"type": "campaigns.NoteRecorded"})))
    assert [m["event"] for m in sent] == ["campaigns.NoteRecorded"]


def test_the_stream_is_for_members_only_and_refuses_in_json(api_for, stranger, campaign):
    stream_url = f"/api/v1/campaigns/{campaign['id']}/events/stream/"
    refused = api_for(stranger).get(stream_url, Accept="text/event-stream")
    anonymous = api_for().get(stream_url, Accept="text/event-stream")
    assert (refused.status_code, refused.json()["code"]) == (404, "campaign.not_found")
    assert anonymous.status_code == 401
    assert anonymous["Content-Type"] == "application/json"


def test_a_bad_last_event_id_is_refused(umpire_api, campaign):
    response = umpire_api.get(
        f"/api/v1/campaigns/{campaign['id']}/events/stream/", **{"Last-Event-ID": "latest"}
    )
    assert response.status_code == 400
    assert (response.json()["code"], response.json()["field"]) == (
        "invalid.integer",
        "Last-Event-ID",
    )
