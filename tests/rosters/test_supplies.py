"""Supplies and rear areas between battles, through HTTP (SG2 P.61 REST AND RECOVERY).

P.61: "All the times listed assume that the unit is resting in a safe area with adequate
supplies, and that repairs are being carried out with sufficient engineering backup - if rest
and repairs are attempted "in the field" and/or without suitable supplies then DOUBLE all times
given." Receiving replacements takes 1 day, "only at a safe area". The umpire says when a force
or a unit is short of supplies, and why; a rear area is a safe area too.
"""

from __future__ import annotations

import pytest

from eventlog import store
from rosters.models import Unit
from tests.battles.helpers import assert_rebuild_keeps_rows
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

BLUE = """\
name: 2nd Platoon
side: Blue
units:
  - name: 2nd Platoon
    kind: platoon
    units:
      - name: 1st Squad
        kind: squad
        quality: regular
        leadership: 2
        fatigue: exhausted
        toe_strength: 8
        troopers:
          - {name: Sgt Able, role: leader}
          - {name: Cpl Baker}
          - {name: Pte Charlie}
          - {name: Pte Dog}
          - {name: Pte Easy}
          - {name: Pte Fox}
      - name: 2nd Squad
        kind: squad
        quality: regular
        leadership: 2
        fatigue: exhausted
        troopers:
          - {name: Sgt Item, role: leader}
  - name: Weapons Team
    kind: weapon_team
    quality: regular
    leadership: 2
    troopers:
      - {name: Pte Jig, role: support_weapon}
"""


@pytest.fixture
def campaign(umpire, umpire_api):
    campaign = campaign_for(umpire, name="Supply lines")
    response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": BLUE})
    assert response.status_code == 201, response.json()
    campaign.force_id = response.json()["id"]
    return campaign


def unit(name: str) -> Unit:
    return Unit.objects.get(name=name)


def detail(api, name: str) -> dict:
    return api.get(f"/api/v1/units/{unit(name).id}/").json()


def history(api, name: str) -> list[str]:
    response = api.get(f"/api/v1/units/{unit(name).id}/history/")
    return [line["summary"] for line in response.json()["results"]]


def move(api, name: str, to: str) -> None:
    response = api.post(f"/api/v1/units/{unit(name).id}/move/", {"to": to, "reason": "refit"})
    assert response.status_code == 201, response.json()


def advance(api, campaign, days: int) -> None:
    response = api.post(f"/api/v1/campaigns/{campaign.id}/calendar/", {"days": days})
    assert response.status_code in (200, 201), response.json()


def supplies(api, url: str, supplied: bool, reason: str = "convoy ambushed"):
    return api.post(f"{url}supplies/", {"supplied": supplied, "reason": reason})


def test_the_umpire_cuts_a_forces_supplies_with_a_reason(campaign, umpire_api):
    force_url = f"/api/v1/forces/{campaign.force_id}/"
    assert detail(umpire_api, "1st Squad")["supplied"] is True
    response = supplies(umpire_api, force_url, False)
    assert response.status_code == 201, response.json()
    event = response.json()
    assert event["type"] == "rosters.SuppliesSet"
    assert event["payload"]["supplied"] is False
    assert event["payload"]["unit_id"] is None
    assert len(event["payload"]["unit_ids"]) == 4  # the platoon, its squads, the team
    for name in ("2nd Platoon", "1st Squad", "2nd Squad", "Weapons Team"):
        assert detail(umpire_api, name)["supplied"] is False
    assert history(umpire_api, "1st Squad")[-1] == "Day 0: short of supplies: convoy ambushed."

    # A unit's own supplies: the platoon and the squads under it, not the weapons team.
    platoon_url = f"/api/v1/units/{unit('2nd Platoon').id}/"
    response = supplies(umpire_api, platoon_url, True, "airdrop")
    assert response.status_code == 201, response.json()
    assert response.json()["payload"]["unit_id"] == str(unit("2nd Platoon").id)
    assert [detail(umpire_api, n)["supplied"] for n in ("1st Squad", "Weapons Team")] == [
        True,
        False,
    ]
    assert history(umpire_api, "2nd Squad")[-1] == "Day 0: supplied again: airdrop."
    assert_rebuild_keeps_rows()


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        ({"supplied": False, "reason": " "}, 400, "adjustment.reason_required", "reason"),
        ({"supplied": True, "reason": "all well"}, 400, "supplies.unchanged", "supplied"),
        ({"reason": "no state"}, 400, "rosters.invalid", "supplied"),
    ],
)
def test_refused_supplies(campaign, umpire_api, body, status, code, field):
    before = store.last_sequence(campaign.id)
    response = umpire_api.post(f"/api/v1/forces/{campaign.force_id}/supplies/", body)
    assert (response.status_code, response.json()["code"]) == (status, code)
    assert response.json()["field"] == field
    assert store.last_sequence(campaign.id) == before


def test_supplies_are_a_stargrunt_rule(umpire, umpire_api):
    """Fast and Dirty has no rest and recovery, so nothing for supplies to double."""
    campaign = campaign_for(umpire, name="FaD", ruleset="fad")
    roster = """\
name: Blue
side: Blue
units:
  - {name: A Squad, kind: squad, quality: regular, resolve: steady, troopers: [{name: Ann}]}
"""
    response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": roster})
    assert response.status_code == 201, response.json()
    before = store.last_sequence(campaign.id)
    refused = supplies(umpire_api, f"/api/v1/forces/{response.json()['id']}/", False)
    assert (refused.status_code, refused.json()["code"]) == (400, "supplies.not_in_ruleset")
    assert store.last_sequence(campaign.id) == before


def test_a_player_cannot_set_supplies(campaign, api_for, make_user, join):
    player = make_user("player")
    join(campaign.id, player, "player", [campaign.force_id])
    before = store.last_sequence(campaign.id)
    response = supplies(api_for(player), f"/api/v1/forces/{campaign.force_id}/", False)
    assert response.status_code == 403
    assert store.last_sequence(campaign.id) == before


def test_rest_without_supplies_takes_twice_as_long_p61(campaign, umpire_api):
    """In a safe area an Exhausted squad is Tired after 2 days; short of supplies after 4. In
    the field and short of supplies it is doubled once ("and/or"), not twice: 4 days."""
    move(umpire_api, "1st Squad", "safe_area")
    move(umpire_api, "2nd Squad", "in_the_field")
    response = supplies(umpire_api, f"/api/v1/forces/{campaign.force_id}/", False)
    assert response.status_code == 201, response.json()
    advance(umpire_api, campaign, 3)
    assert [detail(umpire_api, n)["fatigue"] for n in ("1st Squad", "2nd Squad")] == [
        "exhausted",
        "exhausted",
    ]
    advance(umpire_api, campaign, 1)
    assert [detail(umpire_api, n)["fatigue"] for n in ("1st Squad", "2nd Squad")] == [
        "tired",
        "tired",
    ]


def test_a_rear_area_is_a_safe_area_for_rest_p61(campaign, umpire_api):
    move(umpire_api, "1st Squad", "rear_area")
    assert detail(umpire_api, "1st Squad")["status"] == "rear_area"
    assert (
        history(umpire_api, "1st Squad")[-1] == "Day 0: moved from in the line to rear area: refit."
    )
    advance(umpire_api, campaign, 2)
    assert detail(umpire_api, "1st Squad")["fatigue"] == "tired"


def test_replacements_take_twice_as_long_to_arrive_without_supplies_p61(campaign, umpire_api):
    """P.61: receiving and assigning replacements takes 1 day, in a safe area; without
    suitable supplies "DOUBLE all times given": they arrive on day 2."""
    move(umpire_api, "1st Squad", "rear_area")
    supplies(umpire_api, f"/api/v1/units/{unit('1st Squad').id}/", False)
    platoon = f"/api/v1/units/{unit('2nd Platoon').id}/replacements/"
    rolled = umpire_api.post(f"{platoon}request/", {"dice": [5]})
    assert rolled.status_code == 201, rolled.json()
    # Six members roll a D6 against 2 new men: a 6 keeps the squad Regular (P.60).
    body = {"assignments": [{"unit_id": str(unit("1st Squad").id), "count": 2}], "dice": [6]}
    assigned = umpire_api.post(f"{platoon}assign/", body)
    assert assigned.status_code == 201, assigned.json()
    assert assigned.json()["events"][0]["payload"]["arrives_on_day"] == 2
    advance(umpire_api, campaign, 1)
    assert detail(umpire_api, "1st Squad")["strength"] == 6
    advance(umpire_api, campaign, 1)
    assert detail(umpire_api, "1st Squad")["strength"] == 8
