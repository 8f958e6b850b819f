"""A battle's lifecycle through HTTP: plan, commit, start, turns, end; and linked battles."""

from __future__ import annotations

from typing import Any

import pytest

from eventlog import store
from tests.battles.conftest import squads

pytestmark = pytest.mark.django_db


def test_committed_units_start_at_the_confidence_their_fatigue_gives(battle):
    assert battle["status"] == "in_progress"
    assert battle["turn"] == 1
    assert {p["starting_confidence"] for p in battle["participants"]} == {"confident"}
    assert all(p["confidence"] == "confident" for p in battle["participants"])
    assert [s["side"] for s in battle["sides"]] == ["Blue", "Red"]


def test_turns_and_the_end(battle, umpire_api, forces):
    url = f"/api/v1/battles/{battle['id']}/"
    assert umpire_api.post(f"{url}turn/").json()["turn"] == 2
    blue = squads(forces["Blue"])
    ended = umpire_api.post(
        f"{url}end/",
        {"winner": "Blue", "objectives_met": [str(blue[0].id)], "withdrawn": [str(blue[1].id)]},
    ).json()
    assert (ended["status"], ended["winner"]) == ("ended", "Blue")
    fates = {p["unit_id"]: (p["status"], p["objective_met"]) for p in ended["participants"]}
    assert fates[str(blue[0].id)] == ("fighting", True)
    assert fates[str(blue[1].id)] == ("withdrawn", False)


@pytest.mark.parametrize("step", ["turn", "end", "start", "commit"])
def test_acting_in_an_ended_battle_is_refused(battle, umpire_api, campaign, step, forces):
    url = f"/api/v1/battles/{battle['id']}/"
    umpire_api.post(f"{url}end/", {"winner": "draw"})
    before = store.last_sequence(campaign.id)
    body: dict[str, Any] = {"winner": "Red"} if step == "end" else {}
    if step == "commit":
        body = {"unit_ids": [str(squads(forces["Blue"])[0].id)]}
    response = umpire_api.post(f"{url}{step}/", body)
    assert (response.status_code, response.json()["code"]) == (409, "battle.wrong_state")
    assert store.last_sequence(campaign.id) == before


def test_committing_a_disbanded_unit_is_refused(umpire_api, campaign, plan_body, forces):
    squad = squads(forces["Blue"])[0]
    umpire_api.post(f"/api/v1/units/{squad.id}/disband/", {"reason": "lost"})
    battle = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/battles/", plan_body).json()
    before = store.last_sequence(campaign.id)
    response = umpire_api.post(
        f"/api/v1/battles/{battle['id']}/commit/", {"unit_ids": [str(squad.id)]}
    )
    assert (response.status_code, response.json()["code"]) == (409, "battle.unit_unavailable")
    assert store.last_sequence(campaign.id) == before


def test_a_tree_campaign_picks_its_next_battle_from_the_outcome(umpire_api, campaign, plan_body):
    """FaD p.65: the attacker's win leads to a Breakthrough, the defender's to a Hold."""
    url = f"/api/v1/campaigns/{campaign.id}/battles/"
    breakthrough = umpire_api.post(url, {**plan_body, "name": "Breakthrough", "day": 2}).json()
    hold = umpire_api.post(url, {**plan_body, "name": "Hold", "day": 2}).json()
    outcomes = {}
    for winner in ("Blue", "Red"):
        attack = umpire_api.post(
            url,
            {
                **plan_body,
                "name": f"Attack ({winner})",
                "next_on_attacker_win": breakthrough["id"],
                "next_on_defender_win": hold["id"],
            },
        ).json()
        first = umpire_api.post(
            f"/api/v1/battles/{attack['id']}/commit/",
            {"unit_ids": list(_one_unit_per_side(campaign))},
        )
        assert first.status_code == 200, first.json()
        umpire_api.post(f"/api/v1/battles/{attack['id']}/start/")
        ended = umpire_api.post(f"/api/v1/battles/{attack['id']}/end/", {"winner": winner}).json()
        outcomes[winner] = ended["next_battle_id"]
    assert outcomes == {"Blue": breakthrough["id"], "Red": hold["id"]}


def _one_unit_per_side(campaign):
    from rosters.models import Force

    return [str(squads(force)[0].id) for force in Force.objects.filter(campaign_id=campaign.id)]


def test_a_draw_in_a_tree_is_refused(umpire_api, campaign, plan_body):
    url = f"/api/v1/campaigns/{campaign.id}/battles/"
    a = umpire_api.post(url, {**plan_body, "name": "A"}).json()
    b = umpire_api.post(url, {**plan_body, "name": "B"}).json()
    root = umpire_api.post(
        url, {**plan_body, "next_on_attacker_win": a["id"], "next_on_defender_win": b["id"]}
    ).json()
    umpire_api.post(
        f"/api/v1/battles/{root['id']}/commit/", {"unit_ids": _one_unit_per_side(campaign)}
    )
    umpire_api.post(f"/api/v1/battles/{root['id']}/start/")
    response = umpire_api.post(f"/api/v1/battles/{root['id']}/end/", {"winner": "draw"})
    assert (response.status_code, response.json()["code"]) == (400, "battle.draw_in_tree")


def test_the_confidence_test_with_table_dice(battle, umpire_api, campaign):
    unit = battle["participants"][0]
    response = umpire_api.post(
        f"/api/v1/battles/{battle['id']}/actions/confidence_test/",
        {"unit_id": unit["unit_id"], "circumstances": ["casualties_from_fire"], "dice": [1]},
    )
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert event["type"] == "battles.ConfidenceTested"
    log = umpire_api.get(f"/api/v1/battles/{battle['id']}/log/").json()["results"]
    assert "confidence test" in log[-1]["summary"]
