"""Battle commands that must be refused with a clear JSON error, appending nothing."""

from __future__ import annotations

import pytest

from eventlog import store

pytestmark = pytest.mark.django_db


def _unit(battle):
    return battle["participants"][0]["unit_id"]


@pytest.mark.parametrize(
    ("dice", "code", "field"),
    [
        ([9], "dice.impossible", "dice.0"),  # a Regular squad's D8 cannot show 9
        ([0], "dice.impossible", "dice.0"),
        ([], "dice.missing", "dice.0"),
        ([3, 4], "dice.unused", "dice.1"),
    ],
)
def test_table_dice_that_do_not_fit_are_refused(battle, umpire_api, campaign, dice, code, field):
    before = store.last_sequence(campaign.id)
    response = umpire_api.post(
        f"/api/v1/battles/{battle['id']}/actions/confidence_test/",
        {"unit_id": _unit(battle), "circumstances": ["casualties_from_fire"], "dice": dice},
    )
    assert response.status_code == 400
    assert (response.json()["code"], response.json()["field"]) == (code, field)
    assert store.last_sequence(campaign.id) == before


def test_a_player_cannot_record_a_battle_action(
    battle, api_for, umpire_api, make_user, join, campaign, forces
):
    player = make_user("player")
    join(campaign.id, player, "player", [forces["Blue"].id])
    before = store.last_sequence(campaign.id)
    client = api_for(player)
    assert client.get(f"/api/v1/battles/{battle['id']}/log/").status_code == 200
    response = client.post(
        f"/api/v1/battles/{battle['id']}/actions/confidence_test/",
        {"unit_id": _unit(battle), "circumstances": ["casualties_from_fire"], "dice": [5]},
    )
    assert (response.status_code, response.json()["code"]) == (403, "campaign.umpire_only")
    assert client.post(f"/api/v1/battles/{battle['id']}/turn/").status_code == 403
    assert store.last_sequence(campaign.id) == before


def test_a_stranger_sees_no_battle(battle, api_for, stranger):
    client = api_for(stranger)
    for url in (f"/api/v1/battles/{battle['id']}/", f"/api/v1/battles/{battle['id']}/log/"):
        response = client.get(url)
        assert (response.status_code, response.json()["code"]) == (404, "battle.not_found")


def test_an_unknown_action_and_bad_parameters(battle, umpire_api, campaign):
    before = store.last_sequence(campaign.id)
    url = f"/api/v1/battles/{battle['id']}/actions/"
    unknown = umpire_api.post(f"{url}teleport/", {"dice": []})
    assert (unknown.status_code, unknown.json()["code"]) == (400, "action.unknown")
    bad = umpire_api.post(f"{url}confidence_test/", {"unit_id": "nope", "dice": [3]})
    assert (bad.status_code, bad.json()["code"], bad.json()["field"]) == (
        400,
        "action.invalid",
        "unit_id",
    )
    assert store.last_sequence(campaign.id) == before


def test_acting_in_an_ended_battle_is_refused(battle, umpire_api, campaign):
    umpire_api.post(f"/api/v1/battles/{battle['id']}/end/", {"winner": "draw"})
    before = store.last_sequence(campaign.id)
    response = umpire_api.post(
        f"/api/v1/battles/{battle['id']}/actions/confidence_test/",
        {"unit_id": _unit(battle), "circumstances": ["casualties_from_fire"], "dice": [3]},
    )
    assert (response.status_code, response.json()["code"]) == (409, "battle.wrong_state")
    assert store.last_sequence(campaign.id) == before


def test_two_sides_with_one_name_are_refused(umpire_api, campaign, plan_body):
    """Once a server error: the refusal named its field positionally."""
    before = store.last_sequence(campaign.id)
    plan_body["sides"][1]["side"] = plan_body["sides"][0]["side"]
    response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/battles/", plan_body)
    assert (response.status_code, response.json()["code"], response.json()["field"]) == (
        400,
        "battle.same_side",
        "sides",
    )
    assert store.last_sequence(campaign.id) == before
