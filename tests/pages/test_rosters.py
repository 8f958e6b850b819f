"""The force, unit and trooper pages as people see them, now and as they stood around a battle.

Every state is built through the API: Hill 402 (day 5) leaves Alpha Squad with Pte Dog dead and
Pte Baker and Pte Charlie in hospital (back on days 9 and 11), one man of four present.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from eventlog import store
from rosters.models import Force, Trooper, Unit
from tests.battles.test_after_action import act, after_action, end, start
from tests.battles.test_after_action import setup as setup  # the fixture under `hill`
from tests.factories import campaign_for, join_by_invitation

pytestmark = pytest.mark.django_db

COMPANY = Path(__file__).resolve().parents[2] / "examples" / "sg2-reinforced-combat-company.yaml"


@pytest.fixture
def hill(setup, umpire_api):
    campaign, forces, alpha, red = setup
    url = start(umpire_api, campaign, forces, [alpha, red], name="Hill 402", day=5)
    names = {t.name: t for t in Trooper.objects.filter(campaign_id=campaign.id)}

    def named(unit, result, *who):
        act(umpire_api, url, "casualties", {
            "unit_id": str(unit.id), "mode": "named", "dice": [],
            "casualties": [{"trooper_id": str(names[n].id), "result": result} for n in who],
        })  # fmt: skip

    named(alpha, "wounded", "Pte Baker")
    act(umpire_api, url, "medical_treatment", {"unit_id": str(alpha.id), "dice": [4]})
    named(alpha, "wounded", "Pte Charlie")
    named(alpha, "killed", "Pte Dog")
    named(red, "killed", "Boss Red")
    end(umpire_api, url, objectives=[alpha])
    # Baker's recovery 4 (day 9); Charlie's treatment 5, recovery 6 (day 11).
    after_action(umpire_api, url, [4, 5, 6])
    battle_id = url.rstrip("/").rsplit("/", 1)[1]
    return campaign, forces, alpha, red, names, battle_id


def join(umpire_api, campaign, make_user, username: str, role: str, force_ids=()):
    user = make_user(username)
    join_by_invitation(umpire_api, campaign.id, user, role, force_ids)
    return user


def strength(page: str) -> int:
    found = re.search(r'<strong id="unit-strength">(\d+)</strong>', page)
    assert found is not None
    return int(found.group(1))


def test_the_force_page_is_a_tree_of_unit_cards_with_the_roster(client, umpire, hill):
    _campaign, forces, alpha, _, names, battle_id = hill
    client.force_login(umpire)
    response = client.get(f"/forces/{forces['Blue'].id}/")
    page = response.content.decode()
    assert response.status_code == 200
    assert "<h1>Blue patrol</h1>" in page
    assert f'href="/units/{alpha.id}/"' in page
    assert "Regular" in page
    assert "leadership 2" in page
    assert "tired" in page
    assert "<strong>1</strong> of 4 men" in page
    assert "in the line" in page
    # The printable roster: every trooper with role, armour and state.
    assert f'href="/troopers/{names["Pte Baker"].id}/"' in page
    assert "<td>leader</td>" in page
    assert "(d4)" in page
    assert "in hospital" in page
    assert "dead" in page
    assert 'id="asof-select"' in page
    assert f'value="{battle_id}:before">before Hill 402</option>' in page
    assert f'value="{battle_id}:after">after Hill 402</option>' in page
    assert 'As it stood: <strong id="asof-point">now</strong>' in page


def test_the_force_tree_nests_the_books_company(client, umpire, umpire_api):
    campaign = campaign_for(umpire)
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": COMPANY.read_text()}
    )
    force_id = response.json()["id"]
    client.force_login(umpire)
    page = client.get(f"/forces/{force_id}/").content.decode()
    assert "<strong>113</strong> of" in page.replace('<strong id="force-strength">', "<strong>")
    assert page.count('class="unit-block') == 25
    assert 'style="--depth: 0"' in page
    assert 'style="--depth: 2"' in page
    assert "Capt Nina Grayson" in page
    assert "L7A3 IW" in page
    assert "partial light armour" in page


def test_the_unit_page_tells_its_history_with_dice_and_charts(client, umpire, hill):
    _campaign, _forces, alpha, _, names, battle_id = hill
    client.force_login(umpire)
    response = client.get(f"/units/{alpha.id}/")
    page = response.content.decode()
    assert response.status_code == 200
    assert strength(page) == 1
    assert "of 4 men" in page
    # Each change with its cause, its event number, its battle and the dice behind it.
    assert "Casualties at Hill 402, turn 1: Pte Dog killed." in page
    assert "Pte Baker stabilised." in page
    assert '<span class="dice"' in page
    assert ">d6 4 (table)</span>" in page
    assert ">d6 4, d6 5, d6 6 (table)</span>" in page
    assert f'<a href="/battles/{battle_id}/">Hill 402</a>' in page
    assert "+4 quality points" in page
    # The two charts, each titled and with both axes labelled.
    assert "<title" in page
    assert re.search(r"<title[^>]*>Quality progression: Alpha Squad</title>", page)
    assert re.search(r"<title[^>]*>Strength over time: Alpha Squad</title>", page)
    assert page.count('class="axis-label">Battle or day</text>') == 2
    assert 'class="axis-label">Quality (points above)</text>' in page
    # The level is on the axis, the points above each step.
    assert 'class="tick">Regular</text>' in page
    assert 'class="mark">4 pts</text>' in page
    assert 'class="axis-label">Troopers present</text>' in page
    assert "Hill 402: regular, 4 points (+4)" in page
    ids = re.findall(r'aria-labelledby="([^"]+)"', page)
    assert len(ids) == len(set(ids)) == 2
    # Its troopers, linked.
    for name in ("Sgt Able", "Pte Baker", "Pte Charlie", "Pte Dog"):
        assert f'href="/troopers/{names[name].id}/">{name}</a>' in page
    assert "back on day 9" in page


def test_the_as_of_selector_shows_the_unit_as_it_stood(client, umpire, hill):
    _campaign, _forces, alpha, _, names, battle_id = hill
    client.force_login(umpire)
    assert strength(client.get(f"/units/{alpha.id}/").content.decode()) == 1

    before = client.get(f"/units/{alpha.id}/", {"as_of_battle": f"{battle_id}:before"})
    page = before.content.decode()
    assert before.status_code == 200
    assert strength(page) == 4
    assert "before Hill 402 (after event #" in page
    assert f'<option value="{battle_id}:before" selected>' in page
    assert "Pte Dog killed" not in page  # the history stops there too
    assert "4 points (+4)" not in page  # and so do the charts
    # Links keep the point: the trooper as he stood then.
    found = re.search(r"after event #(\d+)", page)
    assert found is not None
    sequence = found.group(1)
    assert f'href="/troopers/{names["Pte Baker"].id}/?as_of={sequence}"' in page

    # The API's own form of the question answers the same.
    api_form = client.get(
        f"/units/{alpha.id}/", {"as_of_battle": battle_id, "side": "before"}
    ).content.decode()
    assert strength(api_form) == 4

    after = client.get(f"/units/{alpha.id}/", {"as_of_battle": f"{battle_id}:after"})
    assert strength(after.content.decode()) == 1

    by_number = client.get(f"/units/{alpha.id}/", {"as_of": sequence}).content.decode()
    assert strength(by_number) == 4
    assert f"after event #{sequence}" in by_number
    assert f'value="{sequence}"' in by_number


def test_a_bad_point_is_explained_and_the_page_shows_now(client, umpire, hill):
    _campaign, forces, alpha, _, _names, battle_id = hill
    client.force_login(umpire)
    both = client.get(f"/units/{alpha.id}/", {"as_of": "3", "as_of_battle": f"{battle_id}:before"})
    assert both.status_code == 400
    assert "Give as_of or as_of_battle, not both." in both.content.decode()
    assert strength(both.content.decode()) == 1
    nonsense = client.get(f"/forces/{forces['Blue'].id}/", {"as_of": "soon"})
    assert nonsense.status_code == 400
    assert "as_of is the sequence number of an event." in nonsense.content.decode()


def test_a_unit_not_yet_raised_at_that_point(client, umpire, hill):
    _campaign, _forces, alpha, _, _names, _battle_id = hill
    client.force_login(umpire)
    response = client.get(f"/units/{alpha.id}/", {"as_of": "0"})
    assert response.status_code == 404
    assert "did not exist at that point" in response.content.decode()
    assert 'id="asof-select"' in response.content.decode()


def test_the_trooper_page_is_his_service_record(client, umpire, hill):
    _campaign, _forces, alpha, _, names, battle_id = hill
    client.force_login(umpire)
    baker = names["Pte Baker"]
    page = client.get(f"/troopers/{baker.id}/").content.decode()
    assert "<h1>Pte Baker</h1>" in page
    assert '<dd id="trooper-status">in hospital</dd>' in page
    assert "<dt>Back from hospital</dt><dd>day 9</dd>" in page
    assert '<dd id="trooper-wounds">1</dd>' in page
    assert "<dt>Battles fought</dt><dd>1</dd>" in page
    assert f'<a href="/battles/{battle_id}/">Hill 402</a> (day 5)' in page
    assert f'href="/units/{alpha.id}/">Alpha Squad</a>' in page
    assert "Joined Alpha Squad." in page
    assert "Wounded in action at Hill 402, turn 1." in page
    assert "recovery d6 4: in hospital for 4 days, back on day 9." in page
    assert ">d6 4 (table)</span>" in page

    before = client.get(f"/troopers/{baker.id}/", {"as_of_battle": f"{battle_id}:before"})
    then = before.content.decode()
    assert '<dd id="trooper-status">fit</dd>' in then
    assert '<dd id="trooper-wounds">0</dd>' in then
    assert "Wounded in action" not in then


def test_players_read_their_own_forces_and_outlines_of_others(client, umpire_api, make_user, hill):
    campaign, forces, alpha, red, names, _battle_id = hill
    player = join(umpire_api, campaign, make_user, "red-player", "player", [forces["Red"].id])
    client.force_login(player)
    assert client.get(f"/forces/{forces['Red'].id}/").status_code == 200
    assert client.get(f"/units/{red.id}/").status_code == 200

    force = client.get(f"/forces/{forces['Blue'].id}/")
    assert force.status_code == 403
    page = force.content.decode()
    assert "Blue patrol" in page
    assert "1 units" in page
    assert "Pte Baker" not in page
    assert "Alpha Squad" not in page
    assert "Regular" not in page

    # Its units and troopers are shown nowhere to this player, so they are not found.
    for path in (f"/units/{alpha.id}/", f"/troopers/{names['Pte Baker'].id}/"):
        denied = client.get(path)
        assert denied.status_code == 404
        text = denied.content.decode()
        assert "Alpha Squad" not in text
        assert "Pte Baker" not in text
    # Nor by asking about the past.
    assert client.get(f"/units/{alpha.id}/", {"as_of": "5"}).status_code == 404


def test_observers_read_everything_and_strangers_nothing(
    client, umpire_api, make_user, stranger, hill
):
    campaign, forces, alpha, red, names, _battle_id = hill
    observer = join(umpire_api, campaign, make_user, "observer", "observer")
    paths = [
        f"/forces/{forces['Blue'].id}/",
        f"/units/{alpha.id}/",
        f"/troopers/{names['Pte Baker'].id}/",
        f"/units/{red.id}/",
    ]
    client.force_login(observer)
    for path in paths:
        assert client.get(path).status_code == 200, path
    client.force_login(stranger)
    for path in paths:
        assert client.get(path).status_code == 404, path
    client.logout()
    assert client.get(paths[0]).status_code == 302  # to the login page


def test_pages_cost_the_same_queries_whatever_the_force_size(
    client, umpire, umpire_api, django_assert_max_num_queries
):
    campaign = campaign_for(umpire)
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": COMPANY.read_text()}
    )
    assert response.status_code == 201, response.json()
    force = Force.objects.get(campaign_id=campaign.id)
    squad = Unit.objects.filter(force_id=force.id, kind="squad").first()
    platoon = Unit.objects.filter(force_id=force.id, kind="platoon").first()
    assert squad is not None
    assert platoon is not None
    trooper = Trooper.objects.get(force_id=force.id, name="Capt Nina Grayson")
    assert Trooper.objects.filter(force_id=force.id).count() == 113
    client.force_login(umpire)
    paths = [
        f"/forces/{force.id}/",
        f"/units/{squad.id}/",
        f"/units/{platoon.id}/",
        f"/troopers/{trooper.id}/",
    ]
    # Folded from the log as it stood just before the last trooper enlisted.
    then = {"as_of": str(store.last_sequence(campaign.id) - 1)}
    for path in paths:
        # Session, user, the entity's campaign, membership, campaign, battles, one query per
        # roster table read, and for the unit its progression folded from the log.
        with django_assert_max_num_queries(18):
            assert client.get(path).status_code == 200, path
        with django_assert_max_num_queries(22):
            assert client.get(path, then).status_code == 200, path
