"""The dice prompt and dice keyed by whom they are for, over HTTP: the umpire asks which dice a
command needs, rolls exactly those at the table, and may enter them keyed by unit."""

from __future__ import annotations

import pytest

from eventlog import store
from tests.battles.conftest import squads

pytestmark = pytest.mark.django_db


@pytest.fixture
def blue(forces):
    return squads(forces["Blue"])


def test_the_prompt_names_the_die_its_purpose_and_the_unit_and_writes_nothing(
    umpire_api, campaign, battle, blue
):
    before = store.last_sequence(campaign.id)
    url = f"/api/v1/battles/{battle['id']}/actions/reaction_test/"
    response = umpire_api.get(url, {"unit_id": str(blue[0].id), "threat_level": 2})
    assert response.status_code == 200, response.json()
    (die,) = response.json()["dice"]
    assert die["for"] == str(blue[0].id)
    assert die["face"] is None
    assert die["die"] in (6, 8, 10, 12)  # the unit's quality die (SG2 P.6)
    assert response.json()["complete"] is False
    done = umpire_api.get(url, {"unit_id": str(blue[0].id), "threat_level": 2, "dice": "5"})
    assert done.json()["complete"] is True
    assert done.json()["dice"][0]["face"] == 5
    assert store.last_sequence(campaign.id) == before


def test_dice_keyed_by_unit_give_the_same_result_as_the_ordered_form(
    umpire_api, campaign, battle, blue
):
    url = f"/api/v1/battles/{battle['id']}/actions/reaction_test/"
    body = {"unit_id": str(blue[0].id), "threat_level": 2}
    ordered = umpire_api.post(url, {**body, "dice": [5]})
    keyed = umpire_api.post(url, {**body, "dice": [{"face": 5, "for": str(blue[0].id)}]})
    assert (ordered.status_code, keyed.status_code) == (201, 201)
    first, second = (r.json()["events"][0]["payload"] for r in (ordered, keyed))
    assert first["passed"] == second["passed"]
    assert first["dice"] == second["dice"]


def test_a_keyed_die_for_another_unit_is_refused_and_nothing_is_written(
    umpire_api, campaign, battle, blue
):
    before = store.last_sequence(campaign.id)
    response = umpire_api.post(
        f"/api/v1/battles/{battle['id']}/actions/reaction_test/",
        {
            "unit_id": str(blue[0].id),
            "threat_level": 2,
            "dice": [{"face": 5, "for": str(blue[1].id)}],
        },
    )
    assert response.status_code == 400
    assert response.json()["code"] == "dice.missing"
    assert store.last_sequence(campaign.id) == before


def test_a_malformed_keyed_die_is_refused_with_its_place(umpire_api, battle, blue):
    response = umpire_api.post(
        f"/api/v1/battles/{battle['id']}/actions/reaction_test/",
        {"unit_id": str(blue[0].id), "threat_level": 2, "dice": [{"face": "five"}]},
    )
    assert (response.status_code, response.json()["code"], response.json()["field"]) == (
        400,
        "dice.invalid",
        "dice.0",
    )
