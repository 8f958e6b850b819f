"""The battle page as people see it: state, mission cards, units and their confidence, the log
with its dice, casualties per side and the casevac, built through the API with table dice.

The battle is the scripted one of ``tests/battles/test_scripted_battle.py`` (rules worked out
there by hand): Pte Fox killed and Pte Dog wounded, stabilised and flown out by Blue's
casevac; Red's squad surrenders.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rosters.models import Force, Trooper, Unit
from tests.battles.test_scripted_battle import BLUE, RED
from tests.factories import campaign_for, join_by_invitation

pytestmark = pytest.mark.django_db

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def act(api, url, action, body):
    response = api.post(f"{url}actions/{action}/", body)
    assert response.status_code == 201, (action, response.json())


@pytest.fixture
def clash(umpire, umpire_api):
    campaign = campaign_for(umpire, name="Scripted")
    for text in (BLUE, RED):
        response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    plan = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": "Patrol clash",
            "day": 3,
            "scenario": "A meeting in the woods",
            "attacker": "Red",
            "sides": [
                {
                    "side": "Blue",
                    "force_ids": [str(forces["Blue"].id)],
                    "mission_motivation": "medium",
                    "objectives": ["Hold the ford"],
                    "victory_conditions": "Blue holds the ford at the end.",
                    "casevac": {
                        "on_call": True,
                        "start_box": 2,
                        "troop_capacity": 8,
                        "command_level": 2,
                    },
                },
                {"side": "Red", "force_ids": [str(forces["Red"].id)]},
            ],
        },
    )
    assert plan.status_code == 201, plan.json()
    alpha = Unit.objects.get(force_id=forces["Blue"].id, name="Alpha Squad")
    red_squad = Unit.objects.get(force_id=forces["Red"].id, name="Red Squad")
    url = f"/api/v1/battles/{plan.json()['id']}/"
    umpire_api.post(f"{url}commit/", {"unit_ids": [str(alpha.id), str(red_squad.id)]})
    assert umpire_api.post(f"{url}start/").status_code == 200
    troopers = {t.name: t for t in Trooper.objects.filter(campaign_id=campaign.id)}
    act(umpire_api, url, "casualties", {
        "unit_id": str(alpha.id), "mode": "allocate", "hits": 3, "impact_die": 8,
        "cover": "open", "dice": [7, 2, 3, 2, 2, 3, 6, 4],
    })  # fmt: skip
    act(umpire_api, url, "confidence_test", {
        "unit_id": str(alpha.id), "circumstances": ["casualties_from_fire"], "dice": [3],
    })  # fmt: skip
    act(umpire_api, url, "medical_treatment", {"unit_id": str(alpha.id), "dice": [3]})
    act(umpire_api, url, "casevac_call", {"unit_id": str(alpha.id), "dice": [4]})
    umpire_api.post(f"{url}turn/")
    act(umpire_api, url, "surrender", {
        "unit_id": str(red_squad.id), "prisoners_taken_by": "Blue", "dice": [],
    })  # fmt: skip
    umpire_api.post(f"{url}turn/")
    act(umpire_api, url, "casevac_arrive", {"side": "Blue", "dice": []})
    act(umpire_api, url, "casevac_load", {
        "unit_id": str(alpha.id), "trooper_ids": [str(troopers["Pte Dog"].id)], "dice": [],
    })  # fmt: skip
    return campaign, forces, alpha, red_squad, troopers, url


def page_path(url: str) -> str:
    return url.replace("/api/v1", "")


def join(umpire_api, campaign, make_user, username: str, role: str, force_ids=()):
    user = make_user(username)
    join_by_invitation(umpire_api, campaign.id, user, role, force_ids)
    return user


def test_the_battle_page_tells_the_battle(client, umpire, umpire_api, make_user, clash):
    campaign, _forces, alpha, red_squad, troopers, url = clash
    observer = join(umpire_api, campaign, make_user, "observer", "observer")
    client.force_login(observer)
    response = client.get(page_path(url))
    page = response.content.decode()
    assert response.status_code == 200
    assert "<h1>Patrol clash</h1>" in page
    assert "Day 3 · A meeting in the woods" in page
    assert '<strong id="battle-status">In Progress</strong>' in page
    assert "turn 3" in page
    assert "Red attacks" in page

    # The mission cards.
    assert "Mission motivation: medium" in page
    assert "<li>Hold the ford</li>" in page
    assert "Victory: Blue holds the ford at the end." in page
    # The casevac, with who is aboard.
    assert "Casevac: in the battle area since turn 3; aboard: Pte Dog" in page
    assert "Casevac: no casevac in this scenario" in page

    # The units, their confidence and state, linked.
    assert f'<a href="/units/{alpha.id}/">Alpha Squad</a>' in page
    assert f'<a href="/units/{red_squad.id}/">Red Squad</a>' in page
    assert "surrendered" in page

    # The log in order, by turn, each line with its dice.
    assert page.index("<strong>Turn 1</strong>") < page.index("<strong>Turn 3</strong>")
    killed = page.index("Pte Fox killed.")
    assert killed < page.index("stabilised.") < page.index("reached the battle area")
    line = re.search(r'</span> Pte Fox killed\.\s*<span class="dice"[^>]*>([^<]+)</span>', page)
    assert line is not None
    assert line.group(1) == "d8 7, d4 2, d6 6 (table)"
    whole = re.search(r'Pte Fox killed\.\s*<span class="dice"[^>]*>([^<]+)</span>', page)
    assert whole is not None
    assert whole.group(1).startswith("d8 7, d4 2, d8 3, d4 2, d8 2, d4 3")
    assert "[d8 7" not in page  # the dice are told once, beside the line

    # Casualties per side, linked to the troopers.
    assert "1 killed · 1 wounded · 0 captured · 0 flown out" in page
    assert "0 killed · 0 wounded · 3 captured · 0 flown out" in page
    assert f'<a href="/troopers/{troopers["Pte Fox"].id}/">Pte Fox</a> (Alpha Squad): dead' in page
    assert f'href="/troopers/{troopers["Boss Red"].id}/"' in page

    assert 'id="umpire-tools"' not in page


def test_after_the_casevac_leaves_and_the_battle_ends(client, umpire, umpire_api, clash):
    _campaign, _forces, alpha, _red_squad, _troopers, url = clash
    act(umpire_api, url, "casevac_depart", {"side": "Blue", "dice": [6]})
    ended = umpire_api.post(f"{url}end/", {"winner": "Blue", "objectives_met": [str(alpha.id)]})
    assert ended.status_code == 200, ended.json()
    client.force_login(umpire)
    page = client.get(page_path(url)).content.decode()
    assert '<strong id="battle-status">Ended</strong>' in page
    assert "winner: <strong>Blue</strong>" in page
    assert "Casevac: left the table in turn 3" in page
    assert "1 killed · 0 wounded · 0 captured · 1 flown out" in page
    assert "objective met" in page
    assert 'id="umpire-tools"' in page  # the umpire's forms, from their own include


def test_a_player_sees_the_other_sides_casualties_counted_not_named(
    client, umpire_api, make_user, stranger, clash
):
    campaign, forces, _alpha, _red_squad, troopers, url = clash
    player = join(umpire_api, campaign, make_user, "red-player", "player", [forces["Red"].id])
    client.force_login(player)
    response = client.get(page_path(url))
    page = response.content.decode()
    assert response.status_code == 200
    assert "3 captured" in page
    # Blue's losses in outline: how many, not who (campaigns.visibility).
    assert "1 killed · 1 wounded" in page
    assert f'href="/troopers/{troopers["Pte Fox"].id}/"' not in page
    assert "Pte Fox" not in page
    assert "Alpha Squad" not in page
    # Blue's casevac is no secret, but who is aboard is.
    assert "Casevac: in the battle area since turn 3; 1 aboard" in page
    assert 'id="umpire-tools"' not in page

    client.force_login(stranger)
    assert client.get(page_path(url)).status_code == 404
    client.logout()
    assert client.get(page_path(url)).status_code == 302


def test_an_unknown_battle_is_not_found(client, umpire):
    client.force_login(umpire)
    assert client.get("/battles/00000000-0000-0000-0000-000000000000/").status_code == 404


def test_the_battle_page_costs_the_same_queries_whatever_the_force_size(
    client, umpire, umpire_api, django_assert_max_num_queries
):
    campaign = campaign_for(umpire)
    for name in ("sg2-reinforced-combat-company.yaml", "sg2-scenario-1-red.yaml"):
        response = umpire_api.post(
            f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": (EXAMPLES / name).read_text()}
        )
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    plan = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": "Company attack",
            "day": 1,
            "sides": [
                {
                    "side": side,
                    "force_ids": [str(forces[side].id)],
                    "casevac": {"on_call": True, "troop_capacity": 8},
                }
                for side in ("Blue", "Red")
            ],
        },
    ).json()
    url = f"/api/v1/battles/{plan['id']}/"
    units = Unit.objects.filter(campaign_id=campaign.id, kind__in=["squad", "command"])
    committed = umpire_api.post(f"{url}commit/", {"unit_ids": [str(u.id) for u in units]})
    assert committed.status_code == 200, committed.json()
    assert umpire_api.post(f"{url}start/").status_code == 200
    squad = units.filter(force_id=forces["Blue"].id, kind="squad").first()
    assert squad is not None
    men = Trooper.objects.filter(unit_id=squad.id).order_by("order")[:2]
    act(umpire_api, url, "casualties", {
        "unit_id": str(squad.id), "mode": "named", "dice": [],
        "casualties": [{"trooper_id": str(t.id), "result": "killed"} for t in men],
    })  # fmt: skip
    assert Trooper.objects.filter(force_id=forces["Blue"].id).count() == 113

    client.force_login(umpire)
    # Session, user, battle, membership, campaign, the page's version (the last event its log
    # tells), the battle's detail (4) and what the umpire hid of it, its log, the casualties'
    # fold, and the umpire's tools (with the battle's regroups): eighteen, however many men
    # fight.
    with django_assert_max_num_queries(18):
        response = client.get(page_path(url))
    assert response.status_code == 200
    assert "2 killed · 0 wounded" in response.content.decode()
