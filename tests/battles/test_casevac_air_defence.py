"""The casevac against the enemy's Air Defence Environment, through HTTP (SG2 P.48; P.45 on the
way out, one die type lower; P.49 for those aboard a destroyed aircraft).

Blue's mission card names a LOW hostile ADE (D6, D4 on the way out); its casevac VTOL has no
ECM (D4), is a softskin (D6) and is flown by a Regular (D8) LV 2 pilot, who presses on when
acquired by beating 4 (LV 2 + threat level 2)."""

from __future__ import annotations

import pytest

from eventlog import store
from rosters.models import TrooperRecordEntry, UnitHistoryEntry
from tests.battles.conftest import members, squads
from tests.battles.helpers import (
    assert_rebuild_keeps_rows,
    blue_roster,
    scenario_campaign,
    stabilise,
)
from tests.battles.test_casevac import (
    act,
    advance,
    battle_log,
    casevac,
    confidence,
    shake,
    status_of,
)

pytestmark = pytest.mark.django_db

ACQUIRED_PRESSED_ON = [6, 1, 5]  # ADE d6 6 beats ECM d4 1; the pilot's d8 5 beats 4


@pytest.fixture
def campaign(umpire, umpire_api):
    return scenario_campaign(umpire, umpire_api, blue=blue_roster())


@pytest.fixture
def blue(forces):
    return squads(forces["Blue"])


@pytest.fixture
def airborne() -> bool:
    """A VTOL casevac unless a test asks for a ground ambulance."""
    return True


@pytest.fixture
def plan_body(plan_body, airborne):
    """Blue's casevac at platoon level (P.54), flying through a LOW enemy ADE (P.48)."""
    blue_side = plan_body["sides"][0]
    blue_side["casevac"].update(
        command_level=1, crew_quality="regular", crew_leadership=2, airborne=airborne
    )
    blue_side["hostile_ade"] = "low"
    return plan_body


@pytest.fixture
def called(battle, umpire_api, blue):
    """Blue's casevac called in turn 1 into box 2: due in the battle area in turn 3."""
    assert act(umpire_api, battle, "casevac_call", dice=[3], unit_id=blue[0].id).status_code == 201
    advance(umpire_api, battle, 2)
    return battle


@pytest.fixture
def loaded(called, umpire_api, blue):
    """The casevac came through unseen; Recon Squad 1 loaded its two stabilised men."""
    response = act(umpire_api, called, "casevac_arrive", dice=[3, 3], side="Blue")
    assert response.status_code == 201, response.json()
    men = members(blue[0])
    stabilise(umpire_api, called, men[3], men[4])
    response = act(
        umpire_api,
        called,
        "casevac_load",
        dice=[],
        unit_id=blue[0].id,
        trooper_ids=[str(men[3].id), str(men[4].id)],
    )
    assert response.status_code == 201, response.json()
    return called


def dice_of(event) -> list[tuple[int, int]]:
    return [(d["die"], d["result"]) for d in event["payload"]["dice"]]


# --- On the way in (P.48) ------------------------------------------------------------------------


def test_the_mission_card_shows_the_hostile_ade_and_the_aircraft(battle, umpire_api):
    side = umpire_api.get(f"/api/v1/battles/{battle['id']}/").json()["sides"][0]
    assert side["mission"]["hostile_ade"] == "low"
    plan = side["mission"]["casevac"]
    assert (plan["airborne"], plan["ecm_die"], plan["armour_class"]) == (True, None, 0)
    assert (plan["crew_quality"], plan["crew_leadership"]) == ("regular", 2)


def test_an_arrival_the_ade_does_not_acquire(called, umpire_api):
    """P.48: the ADE (LOW, D6) must BEAT the ECM die (none: D4); a tie does not acquire."""
    response = act(umpire_api, called, "casevac_arrive", dice=[3, 3], side="Blue")
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert event["type"] == "battles.CasevacArrived"
    assert dice_of(event) == [(6, 3), (4, 3)]
    check = event["payload"]["air_defence"]
    assert (check["leg"], check["die"], check["acquired"], check["result"]) == (
        "arrival",
        6,
        False,
        "penetrated",
    )
    assert casevac(called)["status"] == "arrived"
    assert battle_log(umpire_api, called)[-1] == (
        "Blue's casevac reached the battle area: the enemy's low ADE (d6) on its way in did not "
        "acquire it. [d6 3, d4 3; table]"
    )


def test_a_flyer_that_presses_on_and_survives(called, umpire_api):
    """P.48: acquired, the pilot beats 4 on his D8 and presses on; the ADE's 4 does not beat the
    softskin's 5 (D6), so it reaches the table."""
    response = act(
        umpire_api, called, "casevac_arrive", dice=[*ACQUIRED_PRESSED_ON, 4, 5], side="Blue"
    )
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert event["type"] == "battles.CasevacArrived"
    assert dice_of(event) == [(6, 6), (4, 1), (8, 5), (6, 4), (6, 5)]
    check = event["payload"]["air_defence"]
    assert (check["acquired"], check["reaction_target"], check["reaction_passed"]) == (
        True,
        4,
        True,
    )
    assert casevac(called)["status"] == "arrived"
    assert battle_log(umpire_api, called)[-1] == (
        "Blue's casevac reached the battle area: the enemy's low ADE (d6) on its way in acquired "
        "it; the pilot pressed on and came through. [d6 6, d4 1, d8 5, d6 4, d6 5; table]"
    )


def test_a_pilot_whose_nerve_fails_turns_back_and_can_be_called_again(called, umpire_api, blue):
    """P.48: failing the reaction test at TL +2 forces the abort: back to base, mission
    abandoned. Called again, it comes from box 3 (P.54)."""
    response = act(umpire_api, called, "casevac_arrive", dice=[6, 1, 4], side="Blue")
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert event["type"] == "battles.CasevacTurnedBack"
    assert event["payload"]["air_defence"]["reaction_passed"] is False
    assert casevac(called)["status"] == "turned_back"
    assert battle_log(umpire_api, called)[-1] == (
        "Blue's casevac went back to base, its mission abandoned: the enemy's low ADE (d6) on "
        "its way in acquired it and the pilot's nerve failed (reaction test, needing more than "
        "4): it aborted. [d6 6, d4 1, d8 4; table]"
    )
    again = act(umpire_api, called, "casevac_call", dice=[3], unit_id=blue[0].id)
    assert again.status_code == 201, again.json()
    assert casevac(called)["box"] == 3


def test_an_acquired_flyer_may_abort_by_choice(called, umpire_api):
    """P.48: acquired, the owner may abort rather than press on: no reaction test."""
    response = act(umpire_api, called, "casevac_arrive", dice=[5, 2], side="Blue", press_on=False)
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert event["type"] == "battles.CasevacTurnedBack"
    assert dice_of(event) == [(6, 5), (4, 2)]
    assert event["payload"]["air_defence"]["pressed_on"] is False
    assert casevac(called)["status"] == "turned_back"


def test_a_flyer_shot_down_on_its_way_in_is_lost(called, umpire_api, campaign, blue):
    """P.48: pressing on, the ADE's 6 beats the softskin's 5: shot down before it reaches the
    table. The casevac is lost: it cannot be called again."""
    response = act(
        umpire_api, called, "casevac_arrive", dice=[*ACQUIRED_PRESSED_ON, 6, 5], side="Blue"
    )
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert event["type"] == "battles.CasevacShotDown"
    assert event["payload"]["trooper_ids"] == []
    assert casevac(called)["status"] == "lost"
    assert battle_log(umpire_api, called)[-1] == (
        "Blue's casevac never reached the battle area: the enemy's low ADE (d6) on its way in "
        "acquired it; the pilot pressed on and it was shot down. "
        "[d6 6, d4 1, d8 5, d6 6, d6 5; table]"
    )
    before = store.last_sequence(campaign.id)
    again = act(umpire_api, called, "casevac_call", dice=[3], unit_id=blue[0].id)
    assert (again.status_code, again.json()["code"]) == (409, "casevac.lost")
    load = act(
        umpire_api,
        called,
        "casevac_load",
        dice=[],
        unit_id=blue[0].id,
        trooper_ids=[str(members(blue[0])[3].id)],
    )
    assert (load.status_code, load.json()["code"]) == (409, "casevac.not_arrived")
    assert store.last_sequence(campaign.id) == before
    assert_rebuild_keeps_rows()


# --- On the way out (P.45, P.48, P.49) -----------------------------------------------------------


def test_a_flyer_shot_down_leaving_kills_the_wounded_aboard(loaded, umpire_api, blue):
    """P.45: leaving, the LOW ADE counts one type lower (D4). Its 4 beats the ECM's 3; the pilot
    presses on (5 beats 4); its 4 beats the softskin's 3: shot down. P.49: all aboard are
    killed, and no squad takes heart from wounded who were never recovered."""
    shake(umpire_api, loaded, blue[0], 1)  # D8 1 against 3: two levels, to shaken
    response = act(umpire_api, loaded, "casevac_depart", dice=[4, 3, 5, 4, 3], side="Blue")
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert event["type"] == "battles.CasevacShotDown"
    assert dice_of(event) == [(4, 4), (4, 3), (8, 5), (4, 4), (6, 3)]
    assert [d["purpose"] for d in event["payload"]["dice"]] == [
        "ADE against the aircraft's ECM",
        "aircraft's ECM against the ADE",
        "pilot's reaction test to press on through the ADE",
        "ADE against the aircraft's armour",
        "aircraft's armour against the ADE",
    ]
    assert event["payload"]["air_defence"]["leg"] == "departure"
    men = members(blue[0])
    assert set(event["payload"]["trooper_ids"]) == {str(men[3].id), str(men[4].id)}
    assert status_of(men[3], men[4]) == ["dead", "dead"]
    assert status_of(men[0]) == ["fit"]
    assert confidence(loaded, blue[0]) == "shaken"
    state = casevac(loaded)
    assert (state["status"], state["aboard"]) == ("lost", [])
    assert battle_log(umpire_api, loaded)[-1] == (
        "Blue's casevac left the table with Pte Daniel Merritt and Pte Neil Walsh, but the "
        "enemy's low ADE (d4) on its way out (one die type lower) acquired it; the pilot pressed "
        "on and it was shot down. Pte Daniel Merritt and Pte Neil Walsh aboard were killed. "
        "[d4 4, d4 3, d8 5, d4 4, d6 3; table]"
    )
    record = TrooperRecordEntry.objects.get(trooper_id=men[3].id, event_type=event["type"])
    assert record.summary == (
        "Killed at Recon in force when the casevac flying him out was shot down."
    )
    history = UnitHistoryEntry.objects.get(unit_id=blue[0].id, event_type=event["type"])
    assert history.summary == (
        "Recon in force: Pte Daniel Merritt and Pte Neil Walsh killed when the casevac flying "
        "them out was shot down."
    )
    assert history.changes["strength"] == -2
    assert_rebuild_keeps_rows()


def test_a_flyer_that_gets_out_flies_its_wounded_to_the_rear(loaded, umpire_api, blue):
    """Leaving, the ADE's D4 2 does not beat the ECM's 3: the wounded are flown out and the
    loading squad rolls for confidence as usual (P.54: 4, +1), after the ADE's dice."""
    shake(umpire_api, loaded, blue[0], 1)
    response = act(umpire_api, loaded, "casevac_depart", dice=[2, 3, 4], side="Blue")
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert event["type"] == "battles.CasevacDeparted"
    assert dice_of(event) == [(4, 2), (4, 3), (6, 4)]
    assert event["payload"]["air_defence"]["result"] == "penetrated"
    men = members(blue[0])
    assert status_of(men[3], men[4]) == ["casevaced", "casevaced"]
    assert confidence(loaded, blue[0]) == "steady"
    assert battle_log(umpire_api, loaded)[-2:] == [
        "Blue's casevac left the table with Pte Daniel Merritt and Pte Neil Walsh; the enemy's "
        "low ADE (d4) on its way out (one die type lower) did not acquire it. [d4 2, d4 3; table]",
        "Recon Squad 1 (its wounded flown out): rises from shaken to steady. [d6 4; table]",
    ]
    assert_rebuild_keeps_rows()


def test_an_acquired_flyer_turning_away_still_flies_its_wounded_home(loaded, umpire_api, blue):
    """Leaving, an abort sends the aircraft back to base, where it was going: the wounded reach
    the rear (P.48 abort: back to base)."""
    response = act(umpire_api, loaded, "casevac_depart", dice=[4, 1, 3], side="Blue")
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert event["type"] == "battles.CasevacDeparted"
    assert event["payload"]["air_defence"]["result"] == "aborted"
    assert status_of(*members(blue[0])[3:5]) == ["casevaced", "casevaced"]
    assert casevac(loaded)["status"] == "departed"


def test_the_server_rolls_the_air_defence(loaded, umpire_api, blue):
    response = act(umpire_api, loaded, "casevac_depart", side="Blue")
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    (event,) = job["events"]
    dice = event["payload"]["dice"]
    assert [(d["die"], d["source"]) for d in dice[:2]] == [(4, "server"), (4, "server")]
    expected = "dead" if event["type"] == "battles.CasevacShotDown" else "casevaced"
    assert status_of(*members(blue[0])[3:5]) == [expected, expected]


def test_the_dice_prompt_names_the_air_defence_dice(called, umpire_api, campaign):
    before = store.last_sequence(campaign.id)
    url = f"/api/v1/battles/{called['id']}/actions/casevac_arrive/"
    response = umpire_api.get(url, {"side": "Blue", "dice": "6,1,5"})
    assert response.status_code == 200, response.json()
    dice = response.json()["dice"]
    assert [(d["die"], d["face"]) for d in dice] == [(6, 6), (4, 1), (8, 5), (6, None), (6, None)]
    assert [d["purpose"] for d in dice] == [
        "ADE against the aircraft's ECM",
        "aircraft's ECM against the ADE",
        "pilot's reaction test to press on through the ADE",
        "ADE against the aircraft's armour",
        "aircraft's armour against the ADE",
    ]
    assert response.json()["complete"] is False
    assert store.last_sequence(campaign.id) == before


# --- Refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "code"),
    [([3], "dice.missing"), ([7, 1], "dice.impossible"), ([3, 3, 3], "dice.unused")],
)
def test_wrong_air_defence_dice_are_refused(called, umpire_api, campaign, dice, code):
    before = store.last_sequence(campaign.id)
    response = act(umpire_api, called, "casevac_arrive", dice=dice, side="Blue")
    assert (response.status_code, response.json()["code"]) == (400, code)
    assert store.last_sequence(campaign.id) == before
    assert casevac(called)["status"] == "called"


def test_departing_after_being_shot_down_is_refused(loaded, umpire_api, campaign):
    act(umpire_api, loaded, "casevac_depart", dice=[4, 3, 5, 4, 3], side="Blue")
    before = store.last_sequence(campaign.id)
    response = act(umpire_api, loaded, "casevac_depart", dice=[], side="Blue")
    assert (response.status_code, response.json()["code"]) == (409, "casevac.not_arrived")
    assert store.last_sequence(campaign.id) == before


def test_a_plan_with_an_ade_needs_the_pilot(umpire_api, campaign, plan_body):
    """The pilot's reaction test (P.48) needs his quality and leadership."""
    del plan_body["sides"][0]["casevac"]["crew_leadership"]
    before = store.last_sequence(campaign.id)
    response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/battles/", plan_body)
    assert (response.status_code, response.json()["code"]) == (
        400,
        "battle.casevac_pilot_needed",
    )
    assert response.json()["field"] == "sides.0.casevac.crew_leadership"
    assert store.last_sequence(campaign.id) == before


@pytest.mark.parametrize("airborne", [False], ids=["ground ambulance"])
def test_a_ground_ambulance_rolls_nothing(called, umpire_api, blue):
    """P.48 concerns air vehicles: a ground ambulance does not face the ADE, on its way in or
    out."""
    response = act(umpire_api, called, "casevac_arrive", dice=[], side="Blue")
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert (event["payload"]["air_defence"], event["payload"]["dice"]) == (None, [])
    assert battle_log(umpire_api, called)[-1] == "Blue's casevac reached the battle area."
    men = members(blue[0])
    stabilise(umpire_api, called, men[3])
    act(umpire_api, called, "casevac_load", dice=[], unit_id=blue[0].id, trooper_ids=[men[3].id])
    response = act(umpire_api, called, "casevac_depart", dice=[], side="Blue")
    assert response.status_code == 201, response.json()
    assert response.json()["events"][0]["payload"]["air_defence"] is None
    assert status_of(men[3]) == ["casevaced"]
