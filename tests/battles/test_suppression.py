"""Suppression through HTTP with table dice (SG2 P.18): markers placed by fire, at most three,
what they stop a unit doing, and the leader's actions that remove them; Goodall's options for
vehicles (SG2-C)."""

from __future__ import annotations

import pytest

from battles.models import Participant
from eventlog import store
from rosters.models import Force, Trooper, Unit, Vehicle
from tests.battles.conftest import members, squads
from tests.battles.helpers import STABILISING_FACE, assert_rebuild_keeps_rows, wound
from tests.battles.test_casualties import ARMOUR_ROSTER, hit

pytestmark = pytest.mark.django_db

# Recon Squad 1 fires at Red's Squad 2 from one range band: range D4 3, quality D8 4 beats it,
# firepower D10 2 does not: SUPPRESSION only (P.35 step 1).
SUPPRESSING_DICE = [3, 4, 2]


def act(api, battle, name, body):
    return api.post(f"/api/v1/battles/{battle['id']}/actions/{name}/", body)


def done(response):
    assert response.status_code == 201, response.json()
    return response.json()["events"]


def battle_log(api, battle):
    return [
        line["summary"]
        for line in api.get(f"/api/v1/battles/{battle['id']}/log/").json()["results"]
    ]


def markers(battle, unit) -> int:
    return Participant.objects.get(battle_id=battle["id"], unit_id=unit.id).suppression


def shown(api, battle, unit) -> dict:
    detail = api.get(f"/api/v1/battles/{battle['id']}/").json()
    (row,) = [p for p in detail["participants"] if p["unit_id"] == str(unit.id)]
    return row


@pytest.fixture
def squad1(forces):
    return squads(forces["Blue"])[0]  # Recon Squad 1: Regular, LV 2


@pytest.fixture
def red2(forces):
    return squads(forces["Red"])[1]  # Squad 2: Green (D6), LV 2


def fire_body(firer, target, **changes):
    return {
        "unit_id": str(firer.id),
        "target_id": str(target.id),
        "men_firing": 5,
        "small_arms_firepower": 2,  # 5 x FP2 = 10: a D10 (P.34)
        "impact_die": 10,
        "range_bands": 1,
        "dice": SUPPRESSING_DICE,
        **changes,
    }


def suppress(api, battle, firer, target, times=1):
    for _ in range(times):
        done(act(api, battle, "direct_fire", fire_body(firer, target)))


def remove(api, battle, unit, dice, **changes):
    return act(
        api, battle, "remove_suppression", {"unit_id": str(unit.id), "dice": dice, **changes}
    )


def test_fire_suppresses_and_the_leader_removes_the_marker_p18(umpire_api, battle, squad1, red2):
    """P.18: the leader spends one action and rolls the unit's quality die (a Green unit's D6);
    a score greater than his LV (2) removes the marker."""
    suppress(umpire_api, battle, squad1, red2)
    assert markers(battle, red2) == 1
    row = shown(umpire_api, battle, red2)
    assert (row["suppression"], row["suppressed_may"]) == (
        1,
        ["defend_in_close_combat", "reorganise", "observe", "communicate", "remove_suppression"],
    )
    assert shown(umpire_api, battle, squad1)["suppressed_may"] == []

    (event,) = done(remove(umpire_api, battle, red2, [3]))
    p = event["payload"]
    assert event["type"] == "battles.SuppressionRemovalAttempted"
    assert (p["quality_die"], p["leadership"], p["removed"]) == (6, 2, [True])
    assert (p["suppression_before"], p["suppression_after"], p["actions_spent"]) == (1, 0, 1)
    assert [(d["die"], d["result"], d["purpose"], d["source"]) for d in p["dice"]] == [
        (6, 3, "suppression removal", "table")
    ]
    assert markers(battle, red2) == 0
    assert shown(umpire_api, battle, red2)["suppressed_may"] == []
    assert battle_log(umpire_api, battle)[-1] == (
        "Squad 2's leader spent one action trying to remove suppression (d6 above 2): "
        "3 removed a marker; no marker left: the unit may act again. [d6 3; table]"
    )
    assert_rebuild_keeps_rows()


def test_a_roll_equal_to_the_lv_fails_and_the_second_action_tries_again_p18(
    umpire_api, battle, squad1, red2
):
    """ "If the first roll fails, the player may try again with the leader's second action, but
    of course this means the unit may do nothing else until the next turn"."""
    suppress(umpire_api, battle, squad1, red2)
    (failed,) = done(remove(umpire_api, battle, red2, [2]))
    assert (failed["payload"]["removed"], failed["payload"]["suppression_after"]) == ([False], 1)
    assert battle_log(umpire_api, battle)[-1] == (
        "Squad 2's leader spent one action trying to remove suppression (d6 above 2): 2 failed; "
        "1 suppression marker left: until they are removed it may only defend itself in close "
        "combat, reorganise in cover, observe, communicate and try to remove suppression. "
        "[d6 2; table]"
    )
    (event,) = done(remove(umpire_api, battle, red2, [1, 5], actions=2))
    assert event["payload"]["removed"] == [False, True]
    assert markers(battle, red2) == 0
    assert battle_log(umpire_api, battle)[-1] == (
        "Squad 2's leader spent both actions trying to remove suppression (d6 above 2): "
        "1 failed, then 5 removed a marker; no marker left: the unit may act again from its next "
        "activation. [d6 1, d6 5; table]"
    )


def test_three_markers_at_most_each_removed_by_its_own_roll_p18(umpire_api, battle, squad1, red2):
    """MULTIPLE SUPPRESSIONS: up to three counters, any more ignored; each takes a successful
    removal roll."""
    suppress(umpire_api, battle, squad1, red2, times=3)
    assert markers(battle, red2) == 3
    (fourth,) = done(act(umpire_api, battle, "direct_fire", fire_body(squad1, red2)))
    assert (fourth["payload"]["suppression_before"], fourth["payload"]["suppression_after"]) == (
        3,
        3,
    )
    assert (
        "Squad 2 already has 3 suppression markers, the most a unit carries (P.18)"
        in (battle_log(umpire_api, battle)[-1])
    )
    (event,) = done(remove(umpire_api, battle, red2, [5, 6], actions=2))
    assert (event["payload"]["removed"], event["payload"]["suppression_after"]) == ([True, True], 1)
    assert shown(umpire_api, battle, red2)["suppression"] == 1
    assert_rebuild_keeps_rows()


def test_only_the_first_suppression_by_fire_calls_for_a_confidence_test_p20(
    umpire_api, battle, squad1, red2
):
    """P.20 "FIRST time unit is SUPPRESSED by fire": after the marker is removed, being
    suppressed again is not the first time."""
    (first,) = done(act(umpire_api, battle, "direct_fire", fire_body(squad1, red2)))
    assert first["payload"]["confidence_test_for"] == ["first_suppressed_by_fire"]
    done(remove(umpire_api, battle, red2, [6]))
    (again,) = done(act(umpire_api, battle, "direct_fire", fire_body(squad1, red2)))
    assert (again["payload"]["suppression_before"], again["payload"]["suppression_after"]) == (
        0,
        1,
    )
    assert again["payload"]["confidence_test_for"] == []


def test_fired_on_in_travel_mode_a_unit_is_suppressed_whatever_the_result_p24(
    umpire_api, battle, squad1, red2
):
    """P.24: the range die drops a type (two bands: D6 down to D4) and the unit is suppressed
    even though no firer's die beats the range die (4 against D8 3, D10 2)."""
    (fired,) = done(
        act(
            umpire_api,
            battle,
            "direct_fire",
            fire_body(squad1, red2, range_bands=2, travel_mode=True, dice=[4, 3, 2]),
        )
    )
    p = fired["payload"]
    assert (p["range_die"], p["effect"], p["suppression_after"]) == (4, "no_effect", 1)
    assert p["confidence_test_for"] == ["first_suppressed_by_fire"]
    assert (
        "fired on in travel mode, Squad 2 is suppressed whatever the result (P.24); Squad 2 "
        "now has 1 suppression marker"
    ) in battle_log(umpire_api, battle)[-1]


def test_a_suppressed_unit_may_not_fire_p18(umpire_api, battle, campaign, squad1, red2):
    suppress(umpire_api, battle, squad1, red2)
    before = store.last_sequence(campaign.id)
    response = act(umpire_api, battle, "direct_fire", fire_body(red2, squad1))
    assert response.status_code == 422, response.json()
    assert (response.json()["code"], response.json()["field"]) == (
        "suppression.suppressed",
        "unit_id",
    )
    assert response.json()["message"] == (
        "Squad 2 is suppressed (1 suppression marker): it may not fire until its leader "
        "removes them (P.18)."
    )
    assert store.last_sequence(campaign.id) == before
    done(remove(umpire_api, battle, red2, [4]))
    done(act(umpire_api, battle, "direct_fire", fire_body(red2, squad1)))


def test_a_suppressed_unit_reorganises_only_in_cover_p18(
    umpire_api, battle, campaign, squad1, red2
):
    """P.18: "the unit may carry out a REORGANISE action, but ONLY if it is currently in either
    soft or hard cover"; medical treatment is done in a Reorganise action (P.39)."""
    casualty = members(red2)[3]
    wound(umpire_api, battle, casualty)
    suppress(umpire_api, battle, squad1, red2)
    before = store.last_sequence(campaign.id)
    treat = {"unit_id": str(red2.id), "dice": [STABILISING_FACE]}
    response = act(umpire_api, battle, "medical_treatment", treat)
    assert response.status_code == 422, response.json()
    assert (response.json()["code"], response.json()["field"]) == (
        "suppression.reorganise_in_open",
        "in_cover",
    )
    assert store.last_sequence(campaign.id) == before
    done(act(umpire_api, battle, "medical_treatment", treat | {"in_cover": True}))
    assert Trooper.objects.get(pk=casualty.id).status == "stabilised"


def test_refusals_append_nothing(umpire_api, battle, campaign, forces, squad1, red2):
    before = store.last_sequence(campaign.id)
    response = remove(umpire_api, battle, red2, [5])
    assert response.status_code == 409, response.json()
    assert (response.json()["code"], response.json()["field"]) == ("suppression.none", "unit_id")
    assert response.json()["message"] == (
        "Squad 2 is not suppressed: it has no marker to remove (P.18)."
    )
    command = Unit.objects.get(force_id=forces["Blue"].id, kind="command")  # not committed
    response = remove(umpire_api, battle, command, [5])
    assert response.status_code == 400, response.json()
    assert response.json()["code"] == "battle.not_a_participant"
    assert store.last_sequence(campaign.id) == before

    suppress(umpire_api, battle, squad1, red2)
    before = store.last_sequence(campaign.id)
    response = remove(umpire_api, battle, red2, [5], actions=3)
    assert response.status_code == 400, response.json()
    assert response.json()["field"] == "actions"
    # The first roll removes the only marker: the second action is the player's to use.
    response = remove(umpire_api, battle, red2, [5, 6], actions=2)
    assert response.status_code == 400, response.json()
    assert response.json()["code"].startswith("dice.")
    response = remove(umpire_api, battle, red2, [7])  # a D6 cannot show 7
    assert response.status_code == 400, response.json()
    assert store.last_sequence(campaign.id) == before
    assert markers(battle, red2) == 1


def test_the_dice_prompt_asks_for_one_quality_die_per_action(
    umpire_api, battle, campaign, squad1, red2
):
    suppress(umpire_api, battle, squad1, red2)
    before = store.last_sequence(campaign.id)
    url = f"/api/v1/battles/{battle['id']}/actions/remove_suppression/"
    response = umpire_api.get(url, {"unit_id": str(red2.id), "actions": 2})
    assert response.status_code == 200, response.json()
    # Until the first face is known, the second action's die may be needed.
    assert [(d["die"], d["purpose"], d["for"]) for d in response.json()["dice"]] == [
        (6, "suppression removal", str(red2.id))
    ] * 2
    failed = umpire_api.get(url, {"unit_id": str(red2.id), "actions": 2, "dice": "2"})
    assert [d["face"] for d in failed.json()["dice"]] == [2, None]
    # A first roll that removes the only marker leaves the second action free: no second die.
    removed = umpire_api.get(url, {"unit_id": str(red2.id), "actions": 2, "dice": "5"})
    assert [d["face"] for d in removed.json()["dice"]] == [5]
    assert removed.json()["complete"] is True
    assert store.last_sequence(campaign.id) == before


def test_the_server_rolls_the_removal_in_a_job(umpire_api, battle, squad1, red2):
    suppress(umpire_api, battle, squad1, red2)
    response = act(umpire_api, battle, "remove_suppression", {"unit_id": str(red2.id)})
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    (event,) = job["events"]
    (die,) = event["payload"]["dice"]
    assert (die["die"], die["source"]) == (6, "server")
    assert markers(battle, red2) == (0 if die["result"] > 2 else 1)


# --- vehicles (P.18; SG2-C) -----------------------------------------------------------------------


def set_options(api, campaign, **changes) -> None:
    response = api.patch(
        f"/api/v1/campaigns/{campaign.id}/options/",
        {"changes": changes, "reason": "Goodall's clarifications for this campaign"},
    )
    assert response.status_code == 200, response.json()


@pytest.fixture
def mech_battle(umpire_api, campaign, plan_body, forces):
    """A battle with Blue's APC Two-One (armour class 2) and its crew, a unit of its own."""
    posted = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": ARMOUR_ROSTER, "source": "test"}
    )
    assert posted.status_code == 201, posted.json()
    mech = Force.objects.get(campaign_id=campaign.id, name="Blue mechanised section")
    plan_body["sides"][0]["force_ids"].append(str(mech.id))
    battle = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/battles/", plan_body).json()
    units = [
        str(u.id)
        for u in Unit.objects.filter(force_id=mech.id).exclude(kind="platoon").order_by("order")
    ] + [str(squads(forces["Red"])[0].id)]
    committed = umpire_api.post(f"/api/v1/battles/{battle['id']}/commit/", {"unit_ids": units})
    assert committed.status_code == 200, committed.json()
    return umpire_api.post(f"/api/v1/battles/{battle['id']}/start/").json()


@pytest.fixture
def apc():
    return Vehicle.objects.get(name="Two-One")


@pytest.fixture
def apc_crew():
    return Unit.objects.get(name="Two-One Crew")


# A hull hit that fails to penetrate: impact D12 1 x 3 = 3 against armour D12 6 x 2 = 12;
# location D6 4, hull: no damage (P.39).
HULL_HIT = [1, 6, 4]


@pytest.mark.parametrize(("option", "expected"), [(False, 0), (True, 1)])
def test_a_non_penetrating_hit_suppresses_a_vehicle_only_with_the_option(
    umpire_api, campaign, mech_battle, apc, apc_crew, option, expected
):
    """SG2-C Remaining in a Disabled Vehicle: "On a non-penetrating hit, the vehicle takes a
    suppression marker"; the book gives a support or heavy weapon's hit no suppression result
    (P.18, P.38-39)."""
    if option:
        set_options(umpire_api, campaign, non_penetrating_hit_suppresses=True)
    (event,) = done(act(umpire_api, mech_battle, "vehicle_hit", hit(apc, dice=HULL_HIT)))
    p = event["payload"]
    assert (p["suppression_results"], p["suppression_after"]) == (expected, expected)
    assert markers(mech_battle, apc_crew) == expected
    if option:
        assert battle_log(umpire_api, mech_battle)[-1].endswith(
            "Two-One is suppressed (1 marker): nobody may leave it nor fire an external weapon "
            "(P.18). [d12 1, d12 6, d6 4; table]"
        )
        row = shown(umpire_api, mech_battle, apc_crew)
        assert "fire" in row["suppressed_may"]
        assert "leave_vehicle" not in row["suppressed_may"]
        # P.18: "Suppression markers on vehicles must be removed by an action by the vehicle
        # commander".
        done(remove(umpire_api, mech_battle, apc_crew, [6]))
        assert battle_log(umpire_api, mech_battle)[-1].startswith(
            "Two-One Crew's commander spent one action trying to remove suppression"
        )
        assert markers(mech_battle, apc_crew) == 0
    assert_rebuild_keeps_rows()


@pytest.mark.parametrize(("option", "expected"), [(False, [1, 2, 3]), (True, [1, 1, 2])])
def test_one_fire_action_places_one_marker_only_with_the_option(
    umpire_api, campaign, mech_battle, apc, apc_crew, option, expected
):
    """SG2-C Multiple Support Weapons: weapons of one fire action at a point target are resolved
    one by one, and "no further suppression markers are placed"; by the book each suppression
    result places a marker (P.18). Two hits of one action, then a hit of a new action."""
    changes = {"non_penetrating_hit_suppresses": True}
    if option:
        changes["one_suppression_per_fire_action"] = True
    set_options(umpire_api, campaign, **changes)
    before = store.last_sequence(campaign.id)
    first = act(umpire_api, mech_battle, "vehicle_hit", hit(apc, dice=[], same_fire_action=True))
    assert first.status_code == 409, first.json()
    assert (first.json()["code"], first.json()["field"]) == (
        "vehicle.no_earlier_hit",
        "same_fire_action",
    )
    assert store.last_sequence(campaign.id) == before
    seen = []
    for same in (False, True, False):
        (event,) = done(
            act(
                umpire_api,
                mech_battle,
                "vehicle_hit",
                hit(apc, dice=HULL_HIT, same_fire_action=same),
            )
        )
        assert event["payload"]["same_fire_action"] is same
        seen.append(event["payload"]["suppression_after"])
    assert seen == expected
    assert markers(mech_battle, apc_crew) == expected[-1]
    if option:
        assert (
            "No further suppression marker: one per fire action (option "
            "one_suppression_per_fire_action, SG2-C)."
        ) in battle_log(umpire_api, mech_battle)[-2]
    assert_rebuild_keeps_rows()


def test_a_suppressed_vehicle_crew_may_still_fire_p18(
    umpire_api, campaign, mech_battle, apc, apc_crew, forces
):
    """P.18: suppression of vehicles does NOT inhibit them from moving, firing and most other
    actions."""
    set_options(umpire_api, campaign, non_penetrating_hit_suppresses=True)
    done(act(umpire_api, mech_battle, "vehicle_hit", hit(apc, dice=HULL_HIT)))
    red1 = squads(forces["Red"])[0]
    body = fire_body(apc_crew, red1, men_firing=2, small_arms_firepower=1)
    done(act(umpire_api, mech_battle, "direct_fire", body | {"dice": [3, 2, 2]}))
