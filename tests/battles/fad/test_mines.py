"""Fast and Dirty mines through HTTP with table dice (FaD p.31, the mine weapons of p.70).

The militia squad (Conscript, no armour) of ``tests/battles/fad/test_shooting.py`` walks into
minefields the Federation placed. Every expected number is worked out by hand: the encounter
d6 (5+ passes, Engineer +2), 1d3 figures hit (a d6 halved, rounded up), and for each 1d6 + the
mine's Damage against 1d6 + armour (p.19; wounds with Recover Wounded, p.35).
"""

from __future__ import annotations

import pytest

from eventlog import store
from tests.battles.fad.test_shooting import (
    ORDER,
    battle_log,
    make_campaign,
    marker,
    members,
    post,
    unit,
)
from tests.battles.helpers import assert_rebuild_keeps_rows

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(umpire, umpire_api):
    return make_campaign(umpire, umpire_api)


def militia_enters(forces, **extra):
    militia = unit(forces["Insurgents"], "Militia Squad")
    figures = members(militia)
    body = {
        "unit_id": str(militia.id),
        "minefield": "2",
        "real": True,
        "minefield_type": "light",
        "target_order": [str(figures[name].id) for name in ORDER],
    }
    return body | extra


def test_a_real_light_minefield_hits_one_to_three_figures_p31(umpire_api, setup):
    """Encounter 3: under 5, the record is checked: the real light minefield, Anti-Personnel
    (Damage +4, option mines_types default). d3 from a 4: two figures, nearest first. Pike 2+4 =
    6 against 5-2 = 3, three ahead: killed; Voss 1+4 = 5 against 5-2 = 3, two ahead: wounded
    (Recover Wounded, p.35). The book places no marker for mines."""
    _campaign, forces, url = setup
    militia = unit(forces["Insurgents"], "Militia Squad")
    response = post(umpire_api, url, "fad_minefield", militia_enters(forces), [3, 4, 2, 5, 1, 5])
    assert response.status_code == 201, response.json()
    events = response.json()["events"]
    assert [e["type"] for e in events] == [
        "battles.FadMinefieldEntered",
        "battles.FadLossesRecorded",
    ]
    entered = events[0]["payload"]
    assert (entered["passed"], entered["revealed"], entered["mine_weapon"]) == (
        False,
        "real",
        "anti_personnel",
    )
    assert (entered["hits_die"], entered["hits"], entered["damage_rating"]) == (4, 2, 4)
    assert [h["effect"] for h in entered["figures_hit"]] == ["killed", "wounded"]
    assert entered["dice"][1]["purpose"].startswith("figures hit by the mines")
    losses = events[1]["payload"]
    assert losses["cause"] == "mine"
    figures = members(militia)
    assert [figures[name].status for name in ORDER] == ["dead", "wounded", "fit", "fit", "fit"]
    assert marker(url, umpire_api, militia) == ""
    lines = battle_log(umpire_api, url)
    assert any(
        'Militia Squad came within 4" of minefield marker 2: encounter 3, failed; a real light '
        "minefield (anti-personnel, Damage +4) hit 2 figures (d3 from 4): Rifle Pike 6 against "
        "3: killed; Rifle Voss 5 against 3: wounded, and stays." in line
        for line in lines
    ), lines
    assert any("Militia Squad, losses to mines: " in line for line in lines), lines

    # A real minefield stays and can be triggered again; it cannot turn out a dummy.
    before = store.last_sequence(_campaign.id)
    refused = post(umpire_api, url, "fad_minefield", militia_enters(forces, real=False), [1])
    assert refused.status_code == 409, refused.json()
    assert refused.json()["code"] == "mines.record_changed"
    assert store.last_sequence(_campaign.id) == before
    figures = members(militia)
    order = [str(figures[n].id) for n in ("Rifle Voss", "Gun Odell", "Rifle Ward", "Boss Hale")]
    again = post(umpire_api, url, "fad_minefield", militia_enters(forces, target_order=order), [6])
    assert again.status_code == 201, again.json()
    assert again.json()["events"][0]["payload"]["passed"] is True
    assert_rebuild_keeps_rows()


def test_a_heavy_minefield_is_anti_vehicle_damage_six_p70(umpire_api, setup):
    """Heavy = Anti-Vehicle, Damage +6. d3 from a 1: one figure. Pike 1+6 = 7 against 6-2 =
    4: three ahead, killed."""
    _campaign, forces, url = setup
    body = militia_enters(forces, minefield_type="heavy")
    response = post(umpire_api, url, "fad_minefield", body, [1, 1, 1, 6])
    assert response.status_code == 201, response.json()
    entered = response.json()["events"][0]["payload"]
    assert (entered["mine_weapon"], entered["damage_rating"], entered["hits"]) == (
        "anti_vehicle",
        6,
        1,
    )
    assert entered["figures_hit"][0]["effect"] == "killed"


@pytest.mark.parametrize(("engineer", "die"), [(False, 5), (True, 3)])
def test_five_or_more_passes_through_engineers_plus_two_p31(umpire_api, setup, engineer, die):
    """5+ on 1d6 passes without incident: the marker is not revealed; an Engineer adds +2."""
    _campaign, forces, url = setup
    body = militia_enters(forces, engineer=engineer)
    response = post(umpire_api, url, "fad_minefield", body, [die])
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert (event["payload"]["passed"], event["payload"]["revealed"]) == (True, None)
    assert event["payload"]["encounter_total"] == 5
    assert "passed through without incident" in battle_log(umpire_api, url)[-1]


def test_a_dummy_marker_is_removed_and_refusals_append_nothing_p31(umpire_api, setup):
    """Encounter 2 on a dummy: removed, nobody hurt; the marker cannot be met again. Other
    refusals: a real minefield without its type, a vehicle unit."""
    campaign, forces, url = setup
    body = militia_enters(forces, real=False, minefield="3")
    response = post(umpire_api, url, "fad_minefield", body, [2])
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert event["payload"]["revealed"] == "dummy"
    assert "the marker was a dummy and is removed" in battle_log(umpire_api, url)[-1]

    def refused(body, status, code):
        before = store.last_sequence(campaign.id)
        response = post(umpire_api, url, "fad_minefield", body, [1, 6, 6, 1, 6, 1, 6, 1])
        assert response.status_code == status, response.json()
        assert response.json()["code"] == code
        assert store.last_sequence(campaign.id) == before

    refused(body, 409, "mines.dummy_removed")
    refused(militia_enters(forces, minefield_type=None), 400, "mines.type_needed")
    crew = unit(forces["Insurgents"], "Technical Crew")
    refused(militia_enters(forces, unit_id=str(crew.id)), 400, "mines.vehicle")


def test_the_umpire_names_the_mine_weapon_with_the_option(umpire, umpire_api):
    """Option mines_types umpire: the mine weapon is named; refused without it."""
    campaign, forces, url = make_campaign(umpire, umpire_api, {"mines_types": "umpire"})
    before = store.last_sequence(campaign.id)
    response = post(umpire_api, url, "fad_minefield", militia_enters(forces), [1, 1, 1, 6])
    assert response.status_code == 422, response.json()
    assert response.json()["code"] == "mines.weapon_needed"
    assert store.last_sequence(campaign.id) == before
    body = militia_enters(forces, mine_weapon="anti_vehicle")
    response = post(umpire_api, url, "fad_minefield", body, [1, 1, 1, 6])
    assert response.status_code == 201, response.json()
    assert response.json()["events"][0]["payload"]["damage_rating"] == 6


def test_the_server_rolls_a_minefield_in_a_job(umpire_api, setup):
    _campaign, forces, url = setup
    response = umpire_api.post(f"{url}actions/fad_minefield/", militia_enters(forces))
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    entered = job["events"][0]["payload"]
    assert {d["source"] for d in entered["dice"]} == {"server"}
    assert entered["passed"] == (entered["encounter_die"] >= 5)
    if not entered["passed"]:
        assert entered["hits"] == (entered["hits_die"] + 1) // 2
        assert len(entered["dice"]) == 2 + 2 * entered["hits"]
    assert_rebuild_keeps_rows()
