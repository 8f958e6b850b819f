"""Bad input gets a clear JSON 4xx and writes nothing, whatever it is made of."""

from __future__ import annotations

import pytest
from django.conf import settings

from eventlog import store
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def journal(umpire):
    campaign = campaign_for(umpire)
    return campaign, f"/api/v1/campaigns/{campaign.id}/journal/"


def test_a_nul_byte_in_a_note_is_refused_by_name_not_stored(umpire_api, journal):
    campaign, url = journal
    before = store.last_sequence(campaign.id)
    response = umpire_api.post(url, {"text": "Ridge taken\x00 at dawn"})
    assert (response.status_code, response.json()["field"]) == (400, "text")
    # The same note appended by hand reaches the command itself, which refuses it too.
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/events/",
        {"type": "campaigns.NoteRecorded", "payload": {"text": "Ridge taken\x00 at dawn"}},
    )
    assert (response.status_code, response.json()["field"]) == (400, "payload.text")
    assert store.last_sequence(campaign.id) == before


def test_line_breaks_and_tabs_are_text(umpire_api, journal):
    _, url = journal
    assert umpire_api.post(url, {"text": "Day 3:\n\t2nd Squad rests."}).status_code == 201


def test_a_control_character_deep_in_a_command_names_its_place(umpire_api, journal):
    _, url = journal
    response = umpire_api.post(
        url, {"text": "Contact", "references": [{"kind": "unit", "id": "x", "label": "A\x07"}]}
    )
    assert response.status_code == 400
    assert response.json()["field"] == "references.0.label"


def test_a_body_over_the_limit_is_a_json_413(umpire_api, journal):
    campaign, url = journal
    before = store.last_sequence(campaign.id)
    text = "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    response = umpire_api.post(url, {"text": text})
    assert response.status_code == 413
    assert response.json()["code"] == "request.too_large"
    assert store.last_sequence(campaign.id) == before
