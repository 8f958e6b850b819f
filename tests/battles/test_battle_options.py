"""Campaign options that change what a hit does in a battle, flipped through the options API and
seen to change the outcome: vacuum (SG2 P.57), a treated casualty wounded again (SG2-C), the test
to stay in a disabled vehicle and a vehicle disabled twice (SG2-C Remaining in a Disabled
Vehicle)."""

from __future__ import annotations

import pytest

from rosters.models import Force, Trooper, Unit, Vehicle
from tests.battles.conftest import members, squads
from tests.battles.helpers import assert_rebuild_keeps_rows, stabilise, wound
from tests.battles.test_casualties import ARMOUR_ROSTER, act, battle_log, hit, ok

pytestmark = pytest.mark.django_db


def set_options(api, campaign, **changes) -> None:
    """The umpire changes options, saying why (PATCH /campaigns/{id}/options/)."""
    response = api.patch(
        f"/api/v1/campaigns/{campaign.id}/options/",
        {"changes": changes, "reason": "the scenario says so"},
    )
    assert response.status_code == 200, response.json()


def status(trooper: Trooper) -> str:
    return Trooper.objects.get(pk=trooper.id).status


@pytest.fixture
def squad1(forces):
    return squads(forces["Blue"])[0]  # Recon Squad 1: six men in D6 armour


@pytest.fixture
def mech_battle(umpire_api, campaign, plan_body, forces):
    """Battle with Blue's mechanised section (an APC, armour class 2, and its crew), as in
    tests/battles/test_casualties.py."""
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
def crew():
    return members(Unit.objects.get(name="Two-One Crew"))


# --- vacuum (SG2 P.57) ---------------------------------------------------------------------------


@pytest.mark.parametrize(("environment", "expected"), [("normal", "wounded"), ("vacuum", "dead")])
def test_in_a_vacuum_every_wound_is_a_kill_p57(
    umpire_api, campaign, battle, squad1, environment, expected
):
    """P.57: "All WOUND effects should be considered as KILLS when fighting in vacuum". A
    wound named by the umpire and a wound the rules allocate (impact 5 against armour 3, P.36)
    both kill in a vacuum; in normal air they wound."""
    if environment == "vacuum":
        set_options(umpire_api, campaign, environment="vacuum")
    men = members(squad1)
    wound(umpire_api, battle, men[4])
    event = ok(
        act(
            umpire_api,
            battle,
            "casualties",
            {
                "unit_id": str(squad1.id),
                "mode": "allocate",
                "hits": 1,
                "impact_die": 8,
                "counting_order": [str(men[1].id)],
                # a wound (5 against 3); allocation D6 1: the first man counted.
                "dice": [5, 3, 1],
            },
        )
    )
    assert [c["status_after"] for c in event["payload"]["casualties"]] == [expected]
    assert (status(men[4]), status(men[1])) == (expected, expected)
    assert_rebuild_keeps_rows()


@pytest.mark.parametrize(("environment", "expected"), [("normal", "wounded"), ("vacuum", "dead")])
def test_a_leader_wounded_in_a_vacuum_is_killed_p57(
    umpire_api, campaign, battle, squad1, environment, expected
):
    """P.10 loss of unit leader, with the leader's wound named: in a vacuum it kills (P.57).
    Dice: the confidence test (D8 for a Regular) and the successor's D6."""
    if environment == "vacuum":
        set_options(umpire_api, campaign, environment="vacuum")
    leader = members(squad1)[0]
    ok(
        act(
            umpire_api,
            battle,
            "leader_casualty",
            {"unit_id": str(squad1.id), "result": "wounded", "dice": [8, 4]},
        )
    )
    assert status(leader) == expected


@pytest.mark.parametrize("environment", ["normal", "vacuum"])
def test_vehicle_occupants_in_a_vacuum_die_without_a_severity_die_p39_p57(
    umpire_api, campaign, mech_battle, apc, crew, environment
):
    """P.38: 6 x 3 = 18 against 5 x 2 = 10 disables the APC; P.39: an occupant in D6 armour
    must roll above 3 (he rolls 2: a casualty), then D6 5 would wound him. In a vacuum he is
    killed and no severity die is asked for."""
    vacuum = environment == "vacuum"
    if vacuum:
        set_options(umpire_api, campaign, environment="vacuum")
    dice = [6, 5, 2] if vacuum else [6, 5, 2, 5]
    event = ok(act(umpire_api, mech_battle, "vehicle_hit", hit(apc, [crew[0]], dice=dice)))
    (occupant,) = event["payload"]["occupants"]
    assert occupant["severity_roll"] == (None if vacuum else 5)
    assert status(crew[0]) == ("dead" if vacuum else "wounded")
    assert_rebuild_keeps_rows()


# --- a treated casualty wounded again (SG2-C Allocating Casualties, gap) --------------------------


@pytest.mark.parametrize(("reverts", "expected"), [(False, "stabilised"), (True, "wounded")])
def test_a_stabilised_casualty_wounded_again_needs_treatment_only_with_the_option(
    umpire_api, campaign, battle, squad1, reverts, expected
):
    """SG2-C: one new wound leaves a casualty "still just wounded"; whether a treated casualty
    becomes untreated again is option rewound_reverts_to_untreated (default off)."""
    if reverts:
        set_options(umpire_api, campaign, rewound_reverts_to_untreated=True)
    walsh = members(squad1)[4]
    stabilise(umpire_api, battle, walsh)
    assert status(walsh) == "stabilised"
    wound(umpire_api, battle, walsh)
    assert status(walsh) == expected
    assert battle_log(umpire_api, battle)[-1] == (
        "Pte Neil Walsh wounded again, untreated."
        if reverts
        else "Pte Neil Walsh hit again but still stabilised."
    )
    if reverts:
        # Untreated again, he can be treated again (P.39): a 4 stabilises him.
        treated = act(
            umpire_api, battle, "medical_treatment", {"unit_id": str(squad1.id), "dice": [4]}
        )
        assert treated.status_code == 201, treated.json()
        assert status(walsh) == "stabilised"
    assert_rebuild_keeps_rows()


# --- staying aboard a disabled vehicle; disabled twice (SG2-C) -----------------------------------


@pytest.mark.parametrize("test", ["confidence", "reaction"])
def test_the_test_to_stay_aboard_a_disabled_vehicle_follows_the_option(
    umpire_api, campaign, mech_battle, apc, crew, test
):
    """SG2-C Remaining in a Disabled Vehicle: bail out 6" unless they pass a Confidence Test at
    TL 4/2/1 (medium motivation: 2). Option disabled_vehicle_stay_test makes it a reaction test,
    whose failure costs no confidence."""
    if test == "reaction":
        set_options(umpire_api, campaign, disabled_vehicle_stay_test="reaction")
    event = ok(act(umpire_api, mech_battle, "vehicle_hit", hit(apc, [crew[0]], dice=[6, 5, 6])))
    assert event["payload"]["bail_out"] == (
        f'the occupants bail out 6", suppressed unless they pass a {test} test at threat '
        "level 2 to stay"
    )


@pytest.mark.parametrize(("option", "expected"), [(False, "disabled"), (True, "destroyed")])
def test_a_vehicle_disabled_twice_is_destroyed_only_with_the_option(
    umpire_api, campaign, mech_battle, apc, option, expected
):
    """SG2-C leaves the campaign fate of a vehicle disabled twice open: by default it stays
    disabled (repairable, P.61); option double_disabled_is_destroyed makes it destroyed."""
    if option:
        set_options(umpire_api, campaign, double_disabled_is_destroyed=True)
    first = ok(act(umpire_api, mech_battle, "vehicle_hit", hit(apc, dice=[6, 5])))
    assert first["payload"]["state_after"] == "disabled"
    second = ok(act(umpire_api, mech_battle, "vehicle_hit", hit(apc, dice=[6, 5])))
    assert (second["payload"]["damage"], second["payload"]["state_after"]) == (
        "disabled",
        expected,
    )
    assert Vehicle.objects.get(pk=apc.id).state == expected
    assert_rebuild_keeps_rows()
