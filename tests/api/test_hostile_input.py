"""Bad input gets a clear JSON 4xx and writes nothing, whatever it is made of."""

from __future__ import annotations

import json
import uuid

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


@pytest.fixture
def places(umpire, umpire_api) -> dict[str, str]:
    from rosters.models import Force, Unit
    from tests.battles.test_after_action import BLUE, RED

    campaign = campaign_for(umpire)
    for text in (BLUE, RED):
        response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    sides = [{"side": side, "force_ids": [str(force.id)]} for side, force in forces.items()]
    plan = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/", {"name": "B", "day": 1, "sides": sides}
    )
    return {
        "campaign_id": str(campaign.id),
        "c": f"/api/v1/campaigns/{campaign.id}/",
        "battle": f"/api/v1/battles/{plan.json()['id']}/",
        "unit": f"/api/v1/units/{Unit.objects.filter(campaign_id=campaign.id)[0].id}/",
        "sides": json.dumps(sides),
    }


ROSTER = "name: A\nside: B\nunits:\n  - name: S\n    kind: squad\n    quality: regular\n"
HOSTILE = [
    # (method, path, raw body or None, status, code, field)
    ("post", "{battle}actions/casualties/", "[1, 2]", 400, None, None),
    ("post", "{c}members/", "[1]", 400, None, None),
    ("post", "{c}journal/", "[" * 5000 + "]" * 5000, 400, "parse_error", None),
    ("post", "{c}journal/", '{"text": ' + "[" * 40 + "]" * 40 + "}", 400, "parse_error", None),
    ("post", "{c}journal/", '{"text": 1e999}', 400, "parse_error", None),
    ("post", "{c}journal/", '{"text": NaN}', 400, "parse_error", None),
    ("get", "{c}events/?type=%00", None, 400, "invalid.control_character", "type"),
    ("get", "{unit}?as_of=99999999999999999999", None, 400, "invalid.as_of", "as_of"),
    (
        "post",
        "{c}battles/",
        '{"name": "X", "day": 1099511627776, "sides": {sides}}',
        400,
        None,
        "day",
    ),
    ("post", "{c}calendar/", '{"days": 4611686018427387904}', 400, None, "days"),
    (
        "post",
        "{c}voids/",
        '{"sequence": 1180591620717411303424, "reason": "x"}',
        400,
        None,
        "sequence",
    ),
    (
        "post",
        "{c}forces/",
        json.dumps(
            {"roster": ROSTER + "    leadership: 2\n    toe_strength: 99999999999999999999\n"}
        ),
        400,
        "roster.invalid",
        None,
    ),
    (
        "post",
        "{c}forces/",
        json.dumps({"roster": "name: !!python/object/apply:os.system [id]\nside: A\nunits: []\n"}),
        400,
        "roster.syntax",
        None,
    ),
]


@pytest.mark.parametrize(("method", "path", "body", "status", "code", "field"), HOSTILE)
def test_each_hostile_input_gets_a_json_4xx_and_writes_nothing(
    umpire_api, places, method, path, body, status, code, field
):
    url = path.format(**places)
    before = store.last_sequence(uuid.UUID(places["campaign_id"]))
    if body is None:
        response = umpire_api.get(url)
    else:
        response = umpire_api.send(method, url, body.replace("{sides}", places["sides"]))
    assert response.status_code == status, response.content[:300]
    answer = response.json()
    if code is not None:
        assert answer["code"] == code, answer
    if field is not None:
        assert answer["field"] == field, answer
    assert store.last_sequence(uuid.UUID(places["campaign_id"])) == before
