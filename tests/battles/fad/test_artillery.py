"""Fast and Dirty indirect artillery fire through HTTP with table dice (FaD p.30, the blast of
p.21, markers p.24).

The rifle platoon of ``examples/fad-rifle-platoon.yaml`` calls off-board artillery onto the
militia squad (Conscript, no armour) of ``tests/battles/fad/test_shooting.py``. Every expected
number is worked out by hand: the timing test (3d6 against the artillery unit's Quality Level),
the accuracy test (2d6 against the spotter's) and its scatter, the Strike Effect (2d6 added),
hits per 3 points, damage d6 + Damage against d6 + armour (p.19, p.35).
"""

from __future__ import annotations

import uuid

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


def call(forces, **extra):
    """Sgt Sandoval of Rifle Squad 1 (Regular spotter, 3+) calls a Regular light mortar (3+)."""
    body = {
        "unit_id": str(unit(forces["Federation"], "Rifle Squad 1").id),
        "battery": "Mortar Section",
        "weapon": "mortar_light",
        "battery_quality": "regular",
        "target": "the farmhouse",
    }
    return body | extra


def strike_on_militia(forces, strike_id, **extra):
    militia = unit(forces["Insurgents"], "Militia Squad")
    figures = members(militia)
    body = {
        "strike_id": strike_id,
        "target_id": str(militia.id),
        "target_order": [str(figures[name].id) for name in ORDER],
    }
    return body | extra


def test_a_strike_arrives_scatters_and_falls_on_the_militia_p30_p21(umpire_api, setup):
    """Timing 3, 4, 1 against 3+: two successes, the strike arrives (p.30). Accuracy 2, 5 against
    the Regular spotter's 3+: one die failed, scatter d12 4 o'clock, 1d6 3". The militia is
    under the 2" blast: Strike Effect 5 + 6 = 11, three hits (3 points each), not above the
    Conscript's 12: Under Fire (p.24). Light mortar Damage +2 (p.69) against no armour -2:
    Pike 4+2 = 6 against 1-2 = -1, seven ahead: killed; Voss 1+2 = 3 against 6-2 = 4: no
    effect; Odell 3+2 = 5 against 3-2 = 1, four ahead: killed."""
    _campaign, forces, url = setup
    response = post(umpire_api, url, "fad_artillery_call", call(forces), [3, 4, 1, 2, 5, 4, 3])
    assert response.status_code == 201, response.json()
    (called,) = response.json()["events"]
    p = called["payload"]
    assert (p["timing"], p["successes"], p["timing_target"]) == ("arrives", 2, 3)
    assert (p["accuracy_dice"], p["on_target"], p["scatter_inches"]) == ([2, 5], False, 3)
    assert p["scatter"] == [{"direction": 4, "distance_dice": [3], "distance": 3}]
    assert p["blast_inches"] == 2
    assert [d["purpose"] for d in p["dice"]][3:] == [
        "accuracy die 1 of 2",
        "accuracy die 2 of 2",
        "scatter direction (clock face)",
        "scatter inches 1 of 1",
    ]
    strike_id = p["strike_id"]
    assert strike_id is not None
    assert any(
        "Rifle Squad 1 called Mortar Section (regular mortar light) on the farmhouse: timing "
        "3, 4, 1 against 3+, 2 successes; the strike arrives; accuracy 2, 5 against 3+: "
        'scattered 3" towards 4 o\'clock (2" blast radius).' in line
        for line in battle_log(umpire_api, url)
    )

    militia = unit(forces["Insurgents"], "Militia Squad")
    dice = [5, 6, 4, 1, 1, 6, 3, 3]
    response = post(
        umpire_api, url, "fad_artillery_strike", strike_on_militia(forces, strike_id), dice
    )
    assert response.status_code == 201, response.json()
    events = response.json()["events"]
    assert [e["type"] for e in events] == [
        "battles.FadArtilleryStruck",
        "battles.FadLossesRecorded",
    ]
    struck = events[0]["payload"]
    assert (struck["strike_effect"], struck["hits"], struck["damage_rating"]) == (11, 3, 2)
    assert [h["effect"] for h in struck["figures_hit"]] == ["killed", "no_effect", "killed"]
    losses = events[1]["payload"]
    assert losses["cause"] == "fire"
    figures = members(militia)
    assert [(x["trooper_id"], x["result"]) for x in losses["troopers"]] == [
        (str(figures["Rifle Pike"].id), "killed"),
        (str(figures["Gun Odell"].id), "killed"),
    ]
    assert [figures[name].status for name in ORDER] == ["dead", "fit", "dead", "fit", "fit"]
    assert marker(url, umpire_api, militia) == "under_fire"
    lines = battle_log(umpire_api, url)
    assert any(
        "Mortar Section's strike fell on Militia Squad: Strike Effect 5 + 6 = 11, 3 hits" in line
        and "Militia Squad is Under Fire" in line
        for line in lines
    ), lines
    assert any("Militia Squad, losses to fire" in line for line in lines), lines

    # The same strike does not fall twice on one unit.
    again = post(
        umpire_api, url, "fad_artillery_strike", strike_on_militia(forces, strike_id), dice
    )
    assert again.status_code == 409, again.json()
    assert again.json()["code"] == "artillery.already_struck"
    assert_rebuild_keeps_rows()


def test_a_scattered_strike_falls_on_friends_and_a_medium_cannon_always_pins_p21_p69(
    umpire_api, setup
):
    """A strike that scatters onto the caller's own side hits it like any unit in the blast.
    Medium cannon (3" blast, p.21): Pinned whatever the Strike Effect (p.69 **). Timing 6, 6, 6;
    accuracy 1, 1 (both fail: one direction, 2d6", option scatter_mode default): 12 o'clock, 6 +
    5 = 11". Rifle Squad 2 under it: Strike Effect 1 + 2 = 3, one hit: Cpl Griffin 1+3 = 4
    against 6+0 = 6, saved."""
    _campaign, forces, url = setup
    body = call(forces, battery="Gun Troop", weapon="cannon_medium")
    response = post(umpire_api, url, "fad_artillery_call", body, [6, 6, 6, 1, 1, 12, 6, 5])
    assert response.status_code == 201, response.json()
    p = response.json()["events"][0]["payload"]
    assert (p["scatter_inches"], p["blast_inches"]) == (11, 3)
    squad2 = unit(forces["Federation"], "Rifle Squad 2")
    body = {
        "strike_id": p["strike_id"],
        "target_id": str(squad2.id),
        "target_order": [str(t.id) for t in members(squad2).values()],
    }
    response = post(umpire_api, url, "fad_artillery_strike", body, [1, 2, 1, 6])
    assert response.status_code == 201, response.json()
    (struck,) = response.json()["events"]
    assert (struck["payload"]["strike_effect"], struck["payload"]["hits"]) == (3, 1)
    assert struck["payload"]["figures_hit"][0]["effect"] == "no_effect"
    assert marker(url, umpire_api, squad2) == "pinned"


def test_each_failed_die_scatters_its_own_way_with_the_option(umpire, umpire_api):
    """scatter_mode per_failed_die: accuracy 1, 2 both fail; 3 o'clock 2", then 9 o'clock 4"."""
    _campaign, forces, url = make_campaign(umpire, umpire_api, {"scatter_mode": "per_failed_die"})
    response = post(
        umpire_api, url, "fad_artillery_call", call(forces), [3, 3, 3, 1, 2, 3, 2, 9, 4]
    )
    assert response.status_code == 201, response.json()
    p = response.json()["events"][0]["payload"]
    assert [(s["direction"], s["distance"]) for s in p["scatter"]] == [(3, 2), (9, 4)]
    assert (
        "scattered 2\" towards 3 o'clock then 4\" towards 9 o'clock"
        in battle_log(umpire_api, url)[-1]
    )


@pytest.mark.parametrize(("mode", "timing"), [(None, "garbled"), ("successes", "arrives")])
def test_comms_bonus_by_the_option_p33(umpire, umpire_api, mode, timing):
    """A Rabble battery (5+) with a Comms expert, timing dice 5, 2, 1. Default per_die: 6, 3, 2,
    one success: garbled. Option successes: the 5 succeeds, +1 success = 2: the strike arrives
    (accuracy 3, 3 against the Regular spotter's 3+: on target)."""
    options = {"artillery_comms_bonus_mode": mode} if mode else None
    _campaign, forces, url = make_campaign(umpire, umpire_api, options)
    body = call(forces, battery_quality="rabble", comms=True)
    dice = [5, 2, 1] if timing == "garbled" else [5, 2, 1, 3, 3]
    response = post(umpire_api, url, "fad_artillery_call", body, dice)
    assert response.status_code == 201, response.json()
    p = response.json()["events"][0]["payload"]
    assert p["timing"] == timing


def test_garbled_and_lost_calls_and_refusals_append_nothing_p30(umpire_api, setup):
    """Timing 3, 1, 2 against 3+: one success, garbled, no strike, no marker. The same
    artillery unit takes no second call this turn. Next turn, 2, 1, 1: no success, out of
    contact for good."""
    campaign, forces, url = setup
    response = post(umpire_api, url, "fad_artillery_call", call(forces), [3, 1, 2])
    assert response.status_code == 201, response.json()
    p = response.json()["events"][0]["payload"]
    assert (p["timing"], p["strike_id"], p["accuracy_dice"]) == ("garbled", None, [])
    assert "the message was garbled" in battle_log(umpire_api, url)[-1]

    def refused(action, body, status, code):
        before = store.last_sequence(campaign.id)
        response = post(umpire_api, url, action, body, [6, 6, 6, 6, 6])
        assert response.status_code == status, response.json()
        assert response.json()["code"] == code
        assert store.last_sequence(campaign.id) == before

    refused("fad_artillery_call", call(forces), 409, "artillery.already_called")
    refused(
        "fad_artillery_strike",
        strike_on_militia(forces, str(uuid.uuid4())),
        400,
        "artillery.no_such_strike",
    )
    refused(
        "fad_artillery_call",
        call(forces, weapon="sniper_rifle"),
        400,
        "artillery.not_a_blast_weapon",
    )
    crew = unit(forces["Insurgents"], "Technical Crew")
    refused(
        "fad_artillery_call", call(forces, unit_id=str(crew.id)), 422, "artillery.not_a_spotter"
    )

    assert umpire_api.post(f"{url}turn/").status_code in (200, 201)
    refused(
        "fad_artillery_call",
        call(forces, battery_quality="elite"),
        409,
        "artillery.battery_changed",
    )
    response = post(umpire_api, url, "fad_artillery_call", call(forces), [2, 1, 1])
    assert response.status_code == 201, response.json()
    assert response.json()["events"][0]["payload"]["timing"] == "out_of_contact"
    assert "communication with Mortar Section is knocked out" in battle_log(umpire_api, url)[-1]
    assert umpire_api.post(f"{url}turn/").status_code in (200, 201)
    refused("fad_artillery_call", call(forces), 409, "artillery.out_of_contact")
    militia = unit(forces["Insurgents"], "Militia Squad")
    assert marker(url, umpire_api, militia) == ""


def test_a_strike_falls_in_the_turn_it_was_called_p30(umpire_api, setup):
    campaign, forces, url = setup
    response = post(umpire_api, url, "fad_artillery_call", call(forces), [3, 3, 3, 3, 3])
    assert response.status_code == 201, response.json()
    strike_id = response.json()["events"][0]["payload"]["strike_id"]
    assert umpire_api.post(f"{url}turn/").status_code in (200, 201)
    before = store.last_sequence(campaign.id)
    late = post(
        umpire_api, url, "fad_artillery_strike", strike_on_militia(forces, strike_id), [6, 6]
    )
    assert late.status_code == 409, late.json()
    assert late.json()["code"] == "artillery.strike_over"
    assert store.last_sequence(campaign.id) == before


def test_the_server_rolls_a_call_and_a_strike_in_jobs(umpire_api, setup):
    """Without table dice the server rolls every die, in a job: a Recon caller rolls two timing
    dice and adds one success, so an Elite battery (2+) never loses contact (p.30). The strike
    of a call made at the table is then rolled by the server: 2d6 added, two dice a hit."""
    _campaign, forces, url = setup
    body = call(forces, battery_quality="elite", recon=True)
    response = umpire_api.post(f"{url}actions/fad_artillery_call/", body)
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    p = job["events"][0]["payload"]
    assert {d["source"] for d in p["dice"]} == {"server"}
    assert len(p["timing_dice"]) == 2
    assert p["successes"] == 1 + sum(1 for d in p["timing_dice"] if d >= 2)
    assert p["timing"] in ("arrives", "garbled")

    body = call(forces, battery="Second Mortar")
    response = post(umpire_api, url, "fad_artillery_call", body, [3, 3, 3, 3, 3])
    strike_id = response.json()["events"][0]["payload"]["strike_id"]
    response = umpire_api.post(
        f"{url}actions/fad_artillery_strike/", strike_on_militia(forces, strike_id)
    )
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    struck = job["events"][0]["payload"]
    assert {d["source"] for d in struck["dice"]} == {"server"}
    assert struck["strike_effect"] == sum(struck["strike_dice"])
    assert struck["hits"] == struck["strike_effect"] // 3
    assert len(struck["dice"]) == 2 + 2 * min(struck["hits"], 5)
    assert_rebuild_keeps_rows()
