"""Off-table fire support through HTTP with table dice (SG2 P.44-47): a fire mission is requested,
travels the Inbound Chart, comes down off its marker and bursts over a squad."""

from __future__ import annotations

from typing import Any

import pytest

from battles.models import BattleSide, Participant
from eventlog import store
from rosters.models import Trooper
from tests.battles.conftest import members, squads
from tests.battles.helpers import assert_rebuild_keeps_rows
from tests.battles.test_battle_options import set_options

pytestmark = pytest.mark.django_db


@pytest.fixture
def plan_body(plan_body):
    plan_body["sides"][0]["support_chits"] = 2
    return plan_body


@pytest.fixture
def squad1(forces):
    return squads(forces["Blue"])[0]  # Recon Squad 1: Regular, LV 2, a squad leader


@pytest.fixture
def red2(forces):
    return squads(forces["Red"])[1]  # Squad 2: partial light armour (D6)


def act(api, battle, action, body):
    return api.post(f"/api/v1/battles/{battle['id']}/actions/{action}/", body)


def battle_log(api, battle):
    return [
        line["summary"]
        for line in api.get(f"/api/v1/battles/{battle['id']}/log/").json()["results"]
    ]


def support(api, battle, side="Blue"):
    detail = api.get(f"/api/v1/battles/{battle['id']}/").json()
    (found,) = [s for s in detail["sides"] if s["side"] == side]
    return found["support"]


def request(api, battle, squad, **changes):
    body = {
        "unit_id": str(squad.id),
        "kind": "artillery",
        "asset_level": "battalion",
        "delivery": "medium",
        "rounds": 3,
        "target": "the farm's east wall",
        **changes,
    }
    return act(api, battle, "fire_support_request", body)


def status(trooper: Trooper) -> str:
    return Trooper.objects.get(pk=trooper.id).status


def test_a_fire_mission_is_requested_arrives_deviates_and_hits_a_squad(
    umpire_api, campaign, battle, squad1, red2
):
    # P.44: a squad leader calling battalion guns bypasses platoon and company: D8 down two to a
    # D4; two counters raise it back to a D8. LV 2 + 2 (no forward observer): a 6 gets through.
    asked = request(umpire_api, battle, squad1, chits=2, dice=[6])
    assert asked.status_code == 201, asked.json()
    (requested,) = asked.json()["events"]
    p = requested["payload"]
    assert (p["bypassed"], p["die"], p["target"], p["granted"]) == (2, 8, 4, True)
    mission = p["mission"]
    # P.45: battalion guns start in box 2; P.46: available once in box 1, next turn.
    assert (mission["box"], mission["requested_turn"], mission["available_turn"]) == (2, 1, 2)
    state = support(umpire_api, battle)
    assert state["chits_spent"] == 2
    assert [(m["number"], m["status"], m["box"]) for m in state["missions"]] == [(1, "inbound", 2)]
    assert battle_log(umpire_api, battle)[-1] == (
        "Recon Squad 1 requested artillery (d8, 2 counters committed, needing more than 4): "
        "fire mission 1 (3 medium rounds, general purpose explosive) goes on the Inbound Chart "
        "in box 2; it can come down from turn 2. [d8 6; table]"
    )

    before = store.last_sequence(campaign.id)
    early = act(umpire_api, battle, "fire_mission_land", {"mission_id": mission["mission_id"]})
    assert (early.status_code, early.json()["code"]) == (409, "fire_mission.still_inbound")
    assert store.last_sequence(campaign.id) == before

    assert umpire_api.post(f"/api/v1/battles/{battle['id']}/turn/").status_code == 200

    # P.46: Regular D8 against twice LV 2: a 3 misses; deviation D12 4 o'clock, D8 5 x 3 = 15".
    # The other two rounds: 9 o'clock 4", 6 o'clock 2" from the first (the book's salvo).
    landed = act(
        umpire_api,
        battle,
        "fire_mission_land",
        {"mission_id": mission["mission_id"], "dice": [3, 4, 5, 9, 4, 6, 2]},
    )
    assert landed.status_code == 201, landed.json()
    lp = landed.json()["events"][0]["payload"]
    assert (lp["accurate"], lp["target"], lp["deviation_direction"], lp["deviation_distance"]) == (
        False,
        4,
        4,
        15,
    )
    assert battle_log(umpire_api, battle)[-1] == (
        "Recon Squad 1's fire mission 1 came down: accuracy d8 rolled 3 against 4 (twice its "
        "LV), deviating 15\" towards 4 o'clock; round 2 4\" from round 1 towards 9 o'clock, "
        "round 3 2\" from round 1 towards 6 o'clock. [d8 3, d12 4, d8 5, d12 9, d6 4, d12 6, "
        "d6 2; table]"
    )

    # P.46: the mission is on the table this turn: the turn cannot end until it fires.
    refused = umpire_api.post(f"/api/v1/battles/{battle['id']}/turn/")
    assert (refused.status_code, refused.json()["code"]) == (409, "fire_mission.unfired")

    # The rounds land among Squad 2: the first catches two men (one behind a wall facing the
    # burst), the second the man behind the wall again, now in the open to it.
    men = members(red2)
    struck = act(
        umpire_api,
        battle,
        "fire_mission_impact",
        {
            "mission_id": mission["mission_id"],
            "bursts": [
                {
                    "round": 1,
                    "troopers": [
                        {"trooper_id": str(men[0].id)},
                        {"trooper_id": str(men[1].id), "cover": "soft"},
                    ],
                },
                {"round": 2, "troopers": [{"trooper_id": str(men[1].id)}]},
            ],
            # GPE D8 impact (P.46). Man 1: 7 against D6 armour 3, more than twice: killed.
            # Man 2: 5 against D8 (soft cover) 4, wounded; then 2 against D6 5, no effect.
            "dice": [7, 3, 5, 4, 2, 5],
        },
    )
    assert struck.status_code == 201, struck.json()
    fired, casualties = struck.json()["events"]
    assert fired["type"] == "battles.FireMissionStruck"
    (unit,) = fired["payload"]["units"]
    assert (unit["figures_caught"], unit["casualties"], unit["suppression_after"]) == (2, 2, 1)
    assert unit["confidence_test_for"] == ["casualties_from_fire", "artillery_or_aerospace_attack"]
    assert [
        (r["round"], r["armour_die"], r["result"]) for r in fired["payload"]["burst_rolls"]
    ] == [
        (1, 6, "kill"),
        (1, 8, "wound"),
        (2, 6, "no_effect"),
    ]
    assert casualties["payload"]["mode"] == "artillery"
    assert (status(men[0]), status(men[1])) == ("dead", "wounded")
    assert Participant.objects.get(battle_id=battle["id"], unit_id=red2.id).suppression == 1
    assert [m["status"] for m in support(umpire_api, battle)["missions"]] == ["fired"]
    log = battle_log(umpire_api, battle)
    burst = next(line for line in log if line.startswith("Blue's fire mission 1 burst"))
    assert burst == (
        "Blue's fire mission 1 burst (general purpose explosive, 4\" radius): Squad 2: 2 "
        "figures caught, 2 casualties, suppressed (1 marker), must take a confidence test "
        "(casualties from fire and artillery or aerospace attack, P.20). "
        "[d8 7, d6 3, d8 5, d8 4, d8 2, d6 5; table]"
    )
    assert any(
        line.startswith("Squad 2, casualties of the fire mission (impact d8): ") for line in log
    )

    # The confidence test the burst calls for, at the threat level of both circumstances.
    tested = act(
        umpire_api,
        battle,
        "confidence_test",
        {"unit_id": str(red2.id), "circumstances": unit["confidence_test_for"], "dice": [6]},
    )
    assert tested.status_code == 201, tested.json()
    assert umpire_api.post(f"/api/v1/battles/{battle['id']}/turn/").status_code == 200
    assert_rebuild_keeps_rows()


def test_company_mortars_arrive_the_same_turn_and_an_accurate_salvo_stays_on_its_marker(
    umpire_api, battle, squad1, red2
):
    asked = request(umpire_api, battle, squad1, asset_level="company", rounds=1, dice=[5])
    mission = asked.json()["events"][0]["payload"]["mission"]
    assert (mission["box"], mission["available_turn"]) == (1, 1)
    landed = act(
        umpire_api,
        battle,
        "fire_mission_land",
        {"mission_id": mission["mission_id"], "guided": True, "dice": [3]},
    )
    lp = landed.json()["events"][0]["payload"]
    assert (lp["accurate"], lp["target"], lp["rounds"]) == (
        True,
        2,
        [{"round": 1, "direction": None, "distance": 0}],
    )
    # Nobody inside the burst: the mission has fired, nobody is suppressed.
    struck = act(
        umpire_api, battle, "fire_mission_impact", {"mission_id": mission["mission_id"], "dice": []}
    )
    assert struck.status_code == 201, struck.json()
    assert struck.json()["events"][0]["payload"]["units"] == []
    assert Participant.objects.get(battle_id=battle["id"], unit_id=red2.id).suppression == 0


def test_read_as_the_clarifications_read_it_company_mortars_come_next_turn(
    umpire_api, campaign, battle, squad1
):
    set_options(umpire_api, campaign, fire_mission_arrival="battle_area_next_turn")
    asked = request(umpire_api, battle, squad1, asset_level="company", dice=[5])
    mission = asked.json()["events"][0]["payload"]["mission"]
    assert mission["available_turn"] == 2
    # Not available this turn: the turn ends freely.
    assert umpire_api.post(f"/api/v1/battles/{battle['id']}/turn/").status_code == 200


def test_with_the_option_off_an_available_mission_may_wait(umpire_api, campaign, battle, squad1):
    set_options(umpire_api, campaign, fire_mission_must_fire_in_arrival_turn=False)
    request(umpire_api, battle, squad1, asset_level="company", dice=[5])
    assert umpire_api.post(f"/api/v1/battles/{battle['id']}/turn/").status_code == 200


def test_a_failed_request_spends_its_counters_and_places_nothing(umpire_api, battle, squad1):
    asked = request(umpire_api, battle, squad1, chits=1, dice=[4])
    p = asked.json()["events"][0]["payload"]
    # D4 up one: a D6 against 4.
    assert (p["die"], p["granted"], p["mission"]) == (6, False, None)
    state = support(umpire_api, battle)
    assert (state["chits_spent"], state["missions"]) == (1, [])
    again = request(umpire_api, battle, squad1, chits=2, dice=[6])
    assert (again.status_code, again.json()["code"]) == (422, "fire_support.not_enough_chits")


def test_with_d6_counters_a_side_rolls_once_before_it_requests(
    umpire_api, campaign, battle, squad1
):
    set_options(umpire_api, campaign, support_chits="d6_per_player")
    early = request(umpire_api, battle, squad1, dice=[6])
    assert (early.status_code, early.json()["code"]) == (409, "fire_support.chits_not_rolled")
    rolled = act(umpire_api, battle, "support_chits_roll", {"side": "Blue", "dice": [3]})
    assert rolled.status_code == 201, rolled.json()
    assert support(umpire_api, battle)["chits_rolled"] == 3
    twice = act(umpire_api, battle, "support_chits_roll", {"side": "Blue", "dice": [5]})
    assert (twice.status_code, twice.json()["code"]) == (409, "fire_support.chits_already_rolled")
    spent = request(umpire_api, battle, squad1, chits=3, dice=[5])
    assert spent.json()["events"][0]["payload"]["die"] == 10  # D4 up three


def test_with_counters_from_the_scenario_nothing_is_rolled(umpire_api, battle):
    refused = act(umpire_api, battle, "support_chits_roll", {"side": "Blue", "dice": [3]})
    assert (refused.status_code, refused.json()["code"]) == (
        422,
        "fire_support.chits_from_scenario",
    )


def test_refusals_append_nothing(umpire_api, campaign, battle, squad1, red2):
    asked = request(umpire_api, battle, squad1, asset_level="company", rounds=2, dice=[6])
    mission_id = asked.json()["events"][0]["payload"]["mission"]["mission_id"]
    men = members(red2)
    before = store.last_sequence(campaign.id)
    not_landed = act(
        umpire_api, battle, "fire_mission_impact", {"mission_id": mission_id, "dice": []}
    )
    assert (not_landed.status_code, not_landed.json()["code"]) == (409, "fire_mission.not_landed")
    act(umpire_api, battle, "fire_mission_land", {"mission_id": mission_id, "dice": [8, 1, 1]})
    before = store.last_sequence(campaign.id)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"bursts": [{"round": 3, "troopers": []}]}, "fire_mission.no_such_round"),
        (
            {"bursts": [{"round": 1, "troopers": []}, {"round": 1, "troopers": []}]},
            "fire_mission.round_twice",
        ),
        (
            {
                "bursts": [
                    {
                        "round": 1,
                        "troopers": [{"trooper_id": str(men[0].id)}] * 2,
                    }
                ]
            },
            "fire_mission.trooper_twice",
        ),
        (
            {"bursts": [{"round": 1, "troopers": []}], "in_position": [str(red2.id)]},
            "fire_mission.not_caught",
        ),
    ]
    for changes, code in cases:
        refused = act(
            umpire_api, battle, "fire_mission_impact", {"mission_id": mission_id, **changes}
        )
        assert refused.json()["code"] == code, refused.json()
        assert refused.status_code in (400, 409, 422)
    unknown = act(
        umpire_api,
        battle,
        "fire_mission_land",
        {"mission_id": "00000000-0000-4000-8000-000000000000", "dice": [3]},
    )
    assert unknown.json()["code"] == "fire_mission.not_found"
    assert store.last_sequence(campaign.id) == before


def test_in_position_raises_the_armour_against_the_burst_p13(umpire_api, battle, squad1, red2):
    asked = request(umpire_api, battle, squad1, asset_level="company", rounds=1, dice=[6])
    mission_id = asked.json()["events"][0]["payload"]["mission"]["mission_id"]
    act(umpire_api, battle, "fire_mission_land", {"mission_id": mission_id, "dice": [8]})
    man = members(red2)[0]
    struck = act(
        umpire_api,
        battle,
        "fire_mission_impact",
        {
            "mission_id": mission_id,
            "bursts": [{"round": 1, "troopers": [{"trooper_id": str(man.id), "cover": "hard"}]}],
            "in_position": [str(red2.id)],
            # D6 armour up three (hard cover two, in position one) is a D12 (P.13, P.47):
            # the D8 impact scores 5 against 3, a wound (not more than twice).
            "dice": [5, 3],
        },
    )
    assert struck.status_code == 201, struck.json()
    (roll,) = struck.json()["events"][0]["payload"]["burst_rolls"]
    assert (roll["impact_die"], roll["armour_die"], roll["result"]) == (8, 12, "wound")


def test_another_sides_player_sees_the_counter_not_the_call(
    umpire_api, api_for, campaign, join, make_user, forces, battle, squad1
):
    request(umpire_api, battle, squad1, chits=2, dice=[6])
    player = make_user("red-player")
    join(campaign.id, player, "player", [forces["Red"].id])
    seen = support(api_for(player), battle)
    (mission,) = seen["missions"]
    assert mission["status"] == "inbound"
    assert (mission["unit_id"], mission["target"], mission["warhead"]) == (None, None, None)
    assert seen["chits_spent"] is None
    own = support(umpire_api, battle)
    assert own["missions"][0]["target"] == "the farm's east wall"


def test_the_dice_prompt_names_the_request_die(umpire_api, battle, squad1):
    url = f"/api/v1/battles/{battle['id']}/actions/fire_support_request/"
    response = umpire_api.get(
        url,
        {
            "unit_id": str(squad1.id),
            "kind": "orbital",
            "asset_level": "company",
            "delivery": "large",
            "rounds": 2,
        },
    )
    assert response.status_code == 200, response.json()
    (die,) = response.json()["dice"]
    # D8 down one (squad to company bypasses the platoon).
    assert (die["die"], die["purpose"]) == (6, "orbital support request")


def test_the_server_rolls_a_landing_in_a_job(umpire_api, battle, squad1):
    asked = request(umpire_api, battle, squad1, asset_level="company", dice=[6])
    mission_id = asked.json()["events"][0]["payload"]["mission"]["mission_id"]
    response = act(umpire_api, battle, "fire_mission_land", {"mission_id": mission_id})
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    (event,) = job["events"]
    dice = event["payload"]["dice"]
    assert dice[0]["source"] == "server"
    assert len(dice) == (1 if event["payload"]["accurate"] else 3) + 2 * 2
    assert (
        BattleSide.objects.get(battle_id=battle["id"], side="Blue").support["missions"][0]["status"]
        == "landed"
    )


def test_a_mission_aimed_into_a_large_wood_is_placed_at_random_inside_it_goodall(
    umpire_api, campaign, battle, squad1
):
    asked = request(
        umpire_api,
        battle,
        squad1,
        asset_level="company",
        rounds=1,
        terrain_feature="large",
        dice=[6],
    )
    mission_id = asked.json()["events"][0]["payload"]["mission"]["mission_id"]
    landed = act(
        umpire_api, battle, "fire_mission_land", {"mission_id": mission_id, "dice": [2, 7, 5]}
    )
    lp = landed.json()["events"][0]["payload"]
    assert (lp["feature_direction"], lp["feature_distance"], lp["accurate"]) == (2, 7, True)
    assert (
        "placed 7\" from the terrain feature's centre towards 2 o'clock"
        in battle_log(umpire_api, battle)[-1]
    )


def test_without_the_option_a_mission_is_aimed_only_where_the_caller_sees(
    umpire_api, campaign, battle, squad1
):
    set_options(umpire_api, campaign, artillery_terrain_targeting=False)
    refused = request(umpire_api, battle, squad1, terrain_feature="small", dice=[6])
    assert (refused.status_code, refused.json()["code"]) == (
        422,
        "fire_support.terrain_targeting_off",
    )
