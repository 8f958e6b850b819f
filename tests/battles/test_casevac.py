"""Casualty evacuation through HTTP (SG2 P.54, with the Inbound Chart of P.44-45): the call,
the flight in, loading the stabilised wounded, and the departure that lifts confidence."""

from __future__ import annotations

import pytest

from battles.models import BattleSide, Participant
from eventlog import store
from rosters.models import Trooper, TrooperRecordEntry, UnitHistoryEntry
from tests.battles.conftest import members, squads
from tests.battles.helpers import (
    assert_rebuild_keeps_rows,
    blue_roster,
    kill,
    scenario_campaign,
    stabilise,
    wound,
)

pytestmark = pytest.mark.django_db


def act(api, battle, name, dice=None, **params):
    body = {key: str(value) if hasattr(value, "hex") else value for key, value in params.items()}
    if dice is not None:
        body["dice"] = dice
    return api.post(f"/api/v1/battles/{battle['id']}/actions/{name}/", body)


def status_of(*troopers: Trooper) -> list[str]:
    return [Trooper.objects.get(id=t.id).status for t in troopers]


def casevac(battle, side="Blue") -> dict:
    return BattleSide.objects.get(battle_id=battle["id"], side=side).casevac


def confidence(battle, unit) -> str:
    return Participant.objects.get(battle_id=battle["id"], unit_id=unit.id).confidence


def battle_log(api, battle) -> list[str]:
    return [e["summary"] for e in api.get(f"/api/v1/battles/{battle['id']}/log/").json()["results"]]


def shake(api, battle, unit, face: int) -> None:
    """Lower a unit's confidence with a confidence test for casualties from fire (P.20)."""
    response = act(
        api,
        battle,
        "confidence_test",
        dice=[face],
        unit_id=unit.id,
        circumstances=["casualties_from_fire"],
    )
    assert response.status_code == 201, response.json()


@pytest.fixture
def tired() -> tuple[str, ...]:
    """The Blue units the roster makes Tired (P.19): none unless a test asks."""
    return ()


@pytest.fixture
def campaign(umpire, umpire_api, tired):
    return scenario_campaign(umpire, umpire_api, blue=blue_roster(tired=tired))


@pytest.fixture
def plan_body(plan_body):
    """Blue's casevac is allocated at platoon level, the highest on the table (P.54)."""
    plan_body["sides"][0]["casevac"]["command_level"] = 1
    return plan_body


@pytest.fixture
def blue(forces):
    return squads(forces["Blue"])


@pytest.fixture
def red(forces):
    return squads(forces["Red"])


def advance(api, battle, turns: int) -> None:
    for _ in range(turns):
        assert api.post(f"/api/v1/battles/{battle['id']}/turn/").status_code == 200


@pytest.fixture
def arrived(battle, umpire_api, blue):
    """Blue's casevac called in turn 1 into box 2, on the table in turn 3."""
    assert act(umpire_api, battle, "casevac_call", dice=[3], unit_id=blue[0].id).status_code == 201
    advance(umpire_api, battle, 2)
    assert act(umpire_api, battle, "casevac_arrive", dice=[], side="Blue").status_code == 201
    return battle


# --- Calling -----------------------------------------------------------------------------------


def test_a_squad_leader_calls_one_die_type_down(battle, umpire_api, blue):
    """P.54: the casevac is allocated at platoon level, so a Regular (D8) squad leader rolls a
    D6, and must beat his LV 2."""
    response = act(umpire_api, battle, "casevac_call", dice=[3], unit_id=blue[0].id)
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert event["type"] == "battles.CasevacCalled"
    payload = event["payload"]
    assert (payload["called"], payload["target"], payload["box"]) == (True, 2, 2)
    assert [(d["die"], d["result"], d["source"]) for d in payload["dice"]] == [(6, 3, "table")]
    state = casevac(battle)
    assert (state["status"], state["box"], state["called_turn"]) == ("called", 2, 1)
    assert battle_log(umpire_api, battle)[-1] == (
        "Recon Squad 1 called Blue's casevac: 3 beats 2; it is inbound in box 2, due in the "
        "battle area in turn 3. [d6 3; table]"
    )


def test_a_failed_call_leaves_the_casevac_on_call(battle, umpire_api, blue):
    response = act(umpire_api, battle, "casevac_call", dice=[2], unit_id=blue[0].id)
    assert response.status_code == 201, response.json()
    assert response.json()["events"][0]["payload"]["called"] is False
    assert casevac(battle)["status"] == "on_call"
    assert battle_log(umpire_api, battle)[-1] == (
        "Recon Squad 1 called Blue's casevac but the call failed: 2 does not beat 2. [d6 2; table]"
    )


def test_a_jammed_call_fails(battle, umpire_api, blue):
    """P.52: the EW die, rolled after the caller's, jams the call if it beats it."""
    response = act(
        umpire_api, battle, "casevac_call", dice=[5, 6], unit_id=blue[0].id, jamming_die=8
    )
    assert response.status_code == 201, response.json()
    payload = response.json()["events"][0]["payload"]
    assert (payload["called"], payload["jammed"]) == (False, True)
    assert [(d["die"], d["result"]) for d in payload["dice"]] == [(6, 5), (8, 6)]


def test_a_face_the_shifted_die_cannot_show_is_refused(battle, umpire_api, campaign, blue):
    before = store.last_sequence(campaign.id)
    response = act(umpire_api, battle, "casevac_call", dice=[7], unit_id=blue[0].id)
    assert (response.status_code, response.json()["code"]) == (400, "dice.impossible")
    assert store.last_sequence(campaign.id) == before


def test_calling_a_casevac_twice_or_without_one_is_refused(battle, umpire_api, campaign, blue, red):
    act(umpire_api, battle, "casevac_call", dice=[3], unit_id=blue[0].id)
    before = store.last_sequence(campaign.id)
    again = act(umpire_api, battle, "casevac_call", dice=[3], unit_id=blue[1].id)
    assert (again.status_code, again.json()["code"]) == (409, "casevac.already_called")
    none = act(umpire_api, battle, "casevac_call", dice=[3], unit_id=red[0].id)
    assert (none.status_code, none.json()["code"]) == (409, "casevac.not_on_call")
    assert store.last_sequence(campaign.id) == before


def test_the_server_rolls_the_call(battle, umpire_api, blue):
    response = act(umpire_api, battle, "casevac_call", unit_id=blue[0].id)
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    (event,) = job["events"]
    assert [(d["die"], d["source"]) for d in event["payload"]["dice"]] == [(6, "server")]


# --- Arriving ----------------------------------------------------------------------------------


def test_the_casevac_arrives_after_a_turn_end_per_box(battle, umpire_api, campaign, blue):
    """P.44: a counter moves one box each Turn End Phase, the turn it was placed included: called
    in turn 1 into box 2, it reaches the battle area for turn 3."""
    not_called = act(umpire_api, battle, "casevac_arrive", dice=[], side="Blue")
    assert (not_called.status_code, not_called.json()["code"]) == (409, "casevac.not_called")
    act(umpire_api, battle, "casevac_call", dice=[3], unit_id=blue[0].id)
    advance(umpire_api, battle, 1)
    before = store.last_sequence(campaign.id)
    early = act(umpire_api, battle, "casevac_arrive", dice=[], side="Blue")
    assert (early.status_code, early.json()["code"]) == (409, "casevac.still_inbound")
    assert store.last_sequence(campaign.id) == before
    advance(umpire_api, battle, 1)
    response = act(umpire_api, battle, "casevac_arrive", dice=[], side="Blue")
    assert response.status_code == 201, response.json()
    assert response.json()["events"][0]["payload"]["dice"] == []
    assert casevac(battle)["status"] == "arrived"
    assert battle_log(umpire_api, battle)[-1] == "Blue's casevac reached the battle area."


def test_an_unknown_side_is_refused(battle, umpire_api):
    response = act(umpire_api, battle, "casevac_arrive", dice=[], side="Green")
    assert (response.status_code, response.json()["code"]) == (400, "battle.unknown_side")


def test_the_arrival_through_a_job(battle, umpire_api, blue):
    act(umpire_api, battle, "casevac_call", dice=[3], unit_id=blue[0].id)
    advance(umpire_api, battle, 2)
    response = act(umpire_api, battle, "casevac_arrive", side="Blue")
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    assert job["events"][0]["payload"]["dice"] == []
    assert casevac(battle)["status"] == "arrived"


# --- Loading -----------------------------------------------------------------------------------


def test_a_squad_loads_its_stabilised_wounded(arrived, umpire_api, blue):
    men = members(blue[0])
    stabilise(umpire_api, arrived, men[3], men[4])
    response = act(
        umpire_api,
        arrived,
        "casevac_load",
        dice=[],
        unit_id=blue[0].id,
        trooper_ids=[str(men[3].id), str(men[4].id)],
    )
    assert response.status_code == 201, response.json()
    payload = response.json()["events"][0]["payload"]
    assert (payload["aboard"], payload["capacity"], payload["full"]) == (2, 4, False)
    assert [e["trooper_id"] for e in casevac(arrived)["aboard"]] == [str(men[3].id), str(men[4].id)]
    assert status_of(men[3], men[4]) == ["stabilised", "stabilised"]
    assert battle_log(umpire_api, arrived)[-1] == (
        "Recon Squad 1 loaded Pte Daniel Merritt and Pte Neil Walsh aboard Blue's casevac "
        "(2 of 4 aboard)."
    )
    record = TrooperRecordEntry.objects.get(
        trooper_id=men[3].id, event_type="battles.CasevacLoaded"
    )
    assert record.summary == "Loaded aboard the casevac by Recon Squad 1 in Recon in force."


def test_loading_beyond_half_the_troop_capacity_is_refused(arrived, umpire_api, campaign, blue):
    """P.54: a vehicle carrying 8 troops takes at most 4 injured, over several pickups."""
    first, third = members(blue[0]), members(blue[2])
    stabilise(umpire_api, arrived, first[3], first[4], first[5], third[4], third[5])
    loaded = act(
        umpire_api,
        arrived,
        "casevac_load",
        dice=[],
        unit_id=blue[0].id,
        trooper_ids=[str(first[3].id), str(first[4].id), str(first[5].id)],
    )
    assert loaded.status_code == 201, loaded.json()
    before = store.last_sequence(campaign.id)
    response = act(
        umpire_api,
        arrived,
        "casevac_load",
        dice=[],
        unit_id=blue[2].id,
        trooper_ids=[str(third[4].id), str(third[5].id)],
    )
    assert (response.status_code, response.json()["code"]) == (422, "casevac.over_capacity")
    assert store.last_sequence(campaign.id) == before
    last = act(
        umpire_api,
        arrived,
        "casevac_load",
        dice=[],
        unit_id=blue[2].id,
        trooper_ids=[str(third[4].id)],
    )
    assert last.json()["events"][0]["payload"]["full"] is True
    assert "(4 of 4 aboard: full, it must leave at once)" in battle_log(umpire_api, arrived)[-1]


def test_untreated_wounded_board_only_by_option(arrived, umpire_api, campaign, blue):
    """P.54 speaks of stabilised casualties: option casevac_loads_untreated (default off)."""
    men = members(blue[0])
    wound(umpire_api, arrived, men[3])
    body = {"unit_id": blue[0].id, "trooper_ids": [str(men[3].id)]}
    before = store.last_sequence(campaign.id)
    refused = act(umpire_api, arrived, "casevac_load", dice=[], **body)
    assert (refused.status_code, refused.json()["code"]) == (422, "casevac.untreated")
    assert store.last_sequence(campaign.id) == before
    umpire_api.patch(
        f"/api/v1/campaigns/{campaign.id}/options/",
        {"changes": {"casevac_loads_untreated": True}, "reason": "field ambulance"},
    )
    assert act(umpire_api, arrived, "casevac_load", dice=[], **body).status_code == 201


@pytest.mark.parametrize(
    ("who", "status", "code"),
    [
        ("dead", 409, "casevac.dead"),
        ("fit", 409, "casevac.not_a_casualty"),
        ("red", 422, "casevac.other_side"),
        ("other_squad", 422, "casevac.not_in_unit"),
    ],
)
def test_loading_who_cannot_board_is_refused(
    arrived, umpire_api, campaign, blue, red, who, status, code
):
    men = members(blue[0])
    kill(umpire_api, arrived, men[3])
    trooper = {
        "dead": men[3],
        "fit": men[2],
        "red": members(red[0])[0],
        "other_squad": members(blue[1])[0],
    }[who]
    if who in ("red", "other_squad"):
        stabilise(umpire_api, arrived, trooper)
    before = store.last_sequence(campaign.id)
    response = act(
        umpire_api,
        arrived,
        "casevac_load",
        dice=[],
        unit_id=blue[0].id,
        trooper_ids=[str(trooper.id)],
    )
    assert (response.status_code, response.json()["code"]) == (status, code)
    assert response.json()["field"] == "trooper_ids.0"
    assert store.last_sequence(campaign.id) == before


def test_loading_before_the_casevac_arrives_or_twice_is_refused(battle, umpire_api, blue):
    men = members(blue[0])
    stabilise(umpire_api, battle, men[3])
    body = {"unit_id": blue[0].id, "trooper_ids": [str(men[3].id)]}
    early = act(umpire_api, battle, "casevac_load", dice=[], **body)
    assert (early.status_code, early.json()["code"]) == (409, "casevac.not_arrived")
    act(umpire_api, battle, "casevac_call", dice=[3], unit_id=blue[0].id)
    advance(umpire_api, battle, 2)
    act(umpire_api, battle, "casevac_arrive", dice=[], side="Blue")
    assert act(umpire_api, battle, "casevac_load", dice=[], **body).status_code == 201
    twice = act(umpire_api, battle, "casevac_load", dice=[], **body)
    assert (twice.status_code, twice.json()["code"]) == (409, "casevac.already_aboard")


def test_loading_through_a_job(arrived, umpire_api, blue):
    men = members(blue[0])
    stabilise(umpire_api, arrived, men[3])
    response = act(
        umpire_api, arrived, "casevac_load", unit_id=blue[0].id, trooper_ids=[str(men[3].id)]
    )
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    assert job["events"][0]["payload"]["dice"] == []


# --- Departing ---------------------------------------------------------------------------------


@pytest.fixture
def loaded(arrived, umpire_api, blue):
    """Recon Squad 1's two stabilised men aboard; Squad 2 has a stabilised man still waiting."""
    men = members(blue[0])
    stabilise(umpire_api, arrived, men[3], men[4], members(blue[1])[5])
    response = act(
        umpire_api,
        arrived,
        "casevac_load",
        dice=[],
        unit_id=blue[0].id,
        trooper_ids=[str(men[3].id), str(men[4].id)],
    )
    assert response.status_code == 201, response.json()
    return arrived


def test_the_departure_sends_the_wounded_to_the_rear_and_lifts_confidence(loaded, umpire_api, blue):
    """P.54: the loading squad rolls a D6 (4: +1); a nearby unit with no wounded waiting rolls
    a D6 (5: +1); a nearby unit with wounded of its own waiting rolls nothing."""
    shake(umpire_api, loaded, blue[0], 1)  # D8 1 against 3: two levels, to shaken
    shake(umpire_api, loaded, blue[2], 2)  # D8 2 against 3: one level, to steady
    response = act(
        umpire_api,
        loaded,
        "casevac_depart",
        dice=[4, 5],
        side="Blue",
        nearby_unit_ids=[str(blue[1].id), str(blue[2].id)],
    )
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert event["type"] == "battles.CasevacDeparted"
    rises = event["payload"]["rises"]
    assert [(r["reason"], r["eligible"], r["confidence_after"]) for r in rises] == [
        ("loaded", True, "steady"),
        ("nearby", False, "confident"),
        ("nearby", True, "confident"),
    ]
    men = members(blue[0])
    assert status_of(men[3], men[4]) == ["casevaced", "casevaced"]
    assert status_of(members(blue[1])[5]) == ["stabilised"]
    assert [confidence(loaded, u) for u in blue] == ["steady", "confident", "confident"]
    state = casevac(loaded)
    assert (state["status"], state["aboard"]) == ("departed", [])
    assert battle_log(umpire_api, loaded)[-4:] == [
        "Blue's casevac left the table with Pte Daniel Merritt and Pte Neil Walsh.",
        "Recon Squad 1 (its wounded flown out): rises from shaken to steady. [d6 4; table]",
        "Recon Squad 2 (comrades evacuated): has wounded of its own awaiting evacuation: "
        "no change.",
        "Recon Squad 3 (comrades evacuated): rises from steady to confident. [d6 5; table]",
    ]
    history = UnitHistoryEntry.objects.get(unit_id=blue[0].id, event_type=event["type"])
    assert history.summary == (
        "Recon in force: Pte Daniel Merritt and Pte Neil Walsh flown out by casevac; "
        "confidence shaken to steady as the casevac left."
    )
    assert history.changes == {"strength": -2, "confidence": ["shaken", "steady"]}
    record = TrooperRecordEntry.objects.get(trooper_id=men[3].id, event_type=event["type"])
    assert record.summary == "Flown out of Recon in force by casevac, to the rear."
    assert_rebuild_keeps_rows()


@pytest.mark.parametrize("tired", [("Recon Squad 1",)], ids=["tired"])
def test_the_casevac_lifts_a_tired_unit_above_its_starting_level(loaded, umpire_api, blue):
    """P.54: unlike a rally, the casevac may lift fatigued troops above their starting level, up
    to Confident: a Tired squad (started Steady) at Shaken rolls a 6 and is Confident."""
    participant = Participant.objects.get(battle_id=loaded["id"], unit_id=blue[0].id)
    assert (participant.fatigue, participant.starting_confidence) == ("tired", "steady")
    shake(umpire_api, loaded, blue[0], 2)  # D8 2 against 3: one level, to shaken
    assert confidence(loaded, blue[0]) == "shaken"
    response = act(umpire_api, loaded, "casevac_depart", dice=[6], side="Blue")
    assert response.status_code == 201, response.json()
    assert confidence(loaded, blue[0]) == "confident"
    assert_rebuild_keeps_rows()


def test_a_confident_squad_rolls_nothing(loaded, umpire_api, blue):
    response = act(umpire_api, loaded, "casevac_depart", dice=[], side="Blue")
    assert response.status_code == 201, response.json()
    assert response.json()["events"][0]["payload"]["dice"] == []
    assert battle_log(umpire_api, loaded)[-1] == (
        "Recon Squad 1 (its wounded flown out): already confident."
    )


def test_nearby_units_out_of_sight_gain_nothing_by_option(loaded, umpire_api, campaign, blue):
    """The P.54 summary adds "and in sight": option casevac_nearby_requires_los."""
    umpire_api.patch(
        f"/api/v1/campaigns/{campaign.id}/options/",
        {"changes": {"casevac_nearby_requires_los": True}, "reason": "summary box"},
    )
    shake(umpire_api, loaded, blue[2], 2)
    response = act(
        umpire_api,
        loaded,
        "casevac_depart",
        dice=[],
        side="Blue",
        nearby_unit_ids=[str(blue[2].id)],
        out_of_sight_unit_ids=[str(blue[2].id)],
    )
    assert response.status_code == 201, response.json()
    assert confidence(loaded, blue[2]) == "steady"


@pytest.mark.parametrize(
    ("nearby", "status", "code"),
    [("red", 422, "casevac.other_side"), ("loader", 422, "casevac.nearby_is_loader")],
)
def test_departure_refusals(loaded, umpire_api, campaign, blue, red, nearby, status, code):
    unit = red[0] if nearby == "red" else blue[0]
    before = store.last_sequence(campaign.id)
    response = act(
        umpire_api,
        loaded,
        "casevac_depart",
        dice=[4],
        side="Blue",
        nearby_unit_ids=[str(unit.id)],
    )
    assert (response.status_code, response.json()["code"]) == (status, code)
    assert response.json()["field"] == "nearby_unit_ids.0"
    assert store.last_sequence(campaign.id) == before
    assert casevac(loaded)["status"] == "arrived"


def test_departing_before_arriving_is_refused(battle, umpire_api, campaign):
    before = store.last_sequence(campaign.id)
    response = act(umpire_api, battle, "casevac_depart", dice=[], side="Blue")
    assert (response.status_code, response.json()["code"]) == (409, "casevac.not_arrived")
    assert store.last_sequence(campaign.id) == before


def test_a_departed_casevac_comes_back_from_box_3(loaded, umpire_api, blue):
    """P.54: by default it must reach box 3 before it turns round and comes back."""
    act(umpire_api, loaded, "casevac_depart", dice=[], side="Blue")
    response = act(umpire_api, loaded, "casevac_call", dice=[4], unit_id=blue[2].id)
    assert response.status_code == 201, response.json()
    assert casevac(loaded)["box"] == 3


def test_the_server_rolls_the_departure(loaded, umpire_api, blue):
    shake(umpire_api, loaded, blue[0], 1)
    response = act(umpire_api, loaded, "casevac_depart", side="Blue")
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    (event,) = job["events"]
    assert [(d["die"], d["source"]) for d in event["payload"]["dice"]] == [(6, "server")]
    assert status_of(*members(blue[0])[3:5]) == ["casevaced", "casevaced"]


def test_rebuilding_gives_the_rows_the_actions_wrote(battle, umpire_api, campaign, blue):
    from eventlog.projections import dump_rows, rebuild

    act(umpire_api, battle, "casevac_call", dice=[2], unit_id=blue[0].id)
    act(umpire_api, battle, "casevac_call", dice=[3], unit_id=blue[0].id)
    advance(umpire_api, battle, 2)
    act(umpire_api, battle, "casevac_arrive", dice=[], side="Blue")
    shake(umpire_api, battle, blue[2], 2)
    act(umpire_api, battle, "casevac_depart", dice=[], side="Blue", nearby_unit_ids=[blue[2].id])
    inline = dump_rows(campaign.id)
    rebuild(campaign.id)
    assert dump_rows(campaign.id) == inline
