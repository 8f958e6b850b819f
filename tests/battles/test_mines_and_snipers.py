"""Mines, booby traps (SG2 P.55-56) and sniper fire (SG2 P.27) through HTTP with table dice: the
casualties reach the roster, a sniper's shot suppresses its target, the log tells what happened
with its dice, the confidence test due is named, refusals append nothing and the server rolls
in a job."""

from __future__ import annotations

import pytest

from battles.models import Participant
from eventlog import store
from rosters.models import Trooper
from tests.battles.conftest import members, squads
from tests.battles.helpers import assert_rebuild_keeps_rows

pytestmark = pytest.mark.django_db


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


def status(trooper) -> str:
    return Trooper.objects.get(pk=trooper.id).status


def markers(battle, unit) -> int:
    return Participant.objects.get(battle_id=battle["id"], unit_id=unit.id).suppression


@pytest.fixture
def recon1(forces):
    return squads(forces["Blue"])[0]  # Recon Squad 1: Regular (D8), six men in D6 armour


@pytest.fixture
def red3(forces):
    return squads(forces["Red"])[2]  # Squad 3: Regular, with the sniper Pte Erin Tanner


def sniper_body(red3, target, aimed, **changes):
    tanner = next(t for t in members(red3) if t.name == "Pte Erin Tanner")
    return {
        "unit_id": str(red3.id),
        "sniper_id": str(tanner.id),
        "target_id": str(target.id),
        "weapon": "conventional",
        "range_bands": 1,
        "aimed_at": str(aimed.id),
        **changes,
    }


# --- sniper fire (P.27) -------------------------------------------------------------------------


def test_both_dice_succeed_the_sniper_kills_the_leader_he_aimed_at_p27(
    umpire_api, battle, recon1, red3
):
    """Range D4 2 against quality D8 5 and rifle D10 7: both succeed, so the figure he picked
    out is hit; impact D10 9 against armour D6 4 (9 > 8): DEAD. The shot suppresses."""
    leader = members(recon1)[0]
    fired, casualties = done(
        act(
            umpire_api,
            battle,
            "sniper_fire",
            sniper_body(red3, recon1, leader, dice=[2, 5, 7, 9, 4]),
        )
    )
    p = fired["payload"]
    assert fired["type"] == "battles.SniperFired"
    assert (p["hit"], p["revealed"], p["struck_id"]) == ("aimed_figure", False, str(leader.id))
    assert (p["range_die"], p["quality_die"], p["weapon_die"]) == (4, 8, 10)
    assert (p["suppression_before"], p["suppression_after"]) == (0, 1)
    assert p["confidence_test_for"] == ["casualties_from_fire"]
    assert casualties["type"] == "battles.CasualtiesResolved"
    (hit,) = casualties["payload"]["hits"]
    assert (hit["impact_roll"], hit["armour_roll"], hit["result"], hit["allocation_roll"]) == (
        9,
        4,
        "kill",
        None,
    )
    assert casualties["payload"]["leaders_down"] == [str(leader.id)]
    assert status(leader) == "dead"
    assert markers(battle, recon1) == 1
    log = battle_log(umpire_api, battle)
    assert log[-3] == (
        "Pte Erin Tanner sniped at Recon Squad 1 (1 sniper range band, open cover), aiming at "
        "Cpl Rosa Farrell: range d4 rolled 2 against quality d8 5 + conventional rifle d10 7: "
        "both dice succeeded: he hit the figure he picked out (Cpl Rosa Farrell, impact d10 "
        "against armour); Recon Squad 1 now has 1 suppression marker. Recon Squad 1 must take "
        "a confidence test (casualties from fire, P.20). [d4 2, d8 5, d10 7; table]"
    )
    assert log[-2] == (
        "Recon Squad 1, hit by a sniper (impact d10): Cpl Rosa Farrell killed. Cpl Rosa Farrell "
        "led his unit: resolve the loss of its leader (P.10). [d10 9, d6 4; table]"
    )
    assert log[-1] == "Cpl Rosa Farrell killed. [d10 9, d6 4; table]"
    assert_rebuild_keeps_rows()


def test_one_success_hits_a_random_figure_in_the_usual_way_p27(umpire_api, battle, recon1, red3):
    """Quality D8 5 beats the range D4 3, the rifle's 2 does not: one figure hit at random, the
    D6 for six men picks the second, LCpl Rachel Marsh; impact 5 against 4 wounds her."""
    men = members(recon1)
    fired, casualties = done(
        act(
            umpire_api,
            battle,
            "sniper_fire",
            sniper_body(red3, recon1, men[0], dice=[3, 5, 2, 2, 5, 4]),
        )
    )
    assert (fired["payload"]["hit"], fired["payload"]["struck_id"]) == (
        "random_figure",
        str(men[1].id),
    )
    assert casualties["payload"]["hits"][0]["allocation_roll"] == 2
    assert status(men[1]) == "wounded"
    assert status(men[0]) == "fit"


def test_a_miss_still_suppresses_and_a_one_gives_the_sniper_away_p27(
    umpire_api, battle, recon1, red3
):
    leader = members(recon1)[0]
    (first,) = done(
        act(umpire_api, battle, "sniper_fire", sniper_body(red3, recon1, leader, dice=[4, 1, 3]))
    )
    p = first["payload"]
    assert (p["hit"], p["revealed"], p["suppression_after"]) == ("suppression", True, 1)
    # The first suppression by fire in the battle calls for a test (P.20); the next does not.
    assert p["confidence_test_for"] == ["first_suppressed_by_fire"]
    assert battle_log(umpire_api, battle)[-1] == (
        "Pte Erin Tanner sniped at Recon Squad 1 (1 sniper range band, open cover), aiming at "
        "Cpl Rosa Farrell: range d4 rolled 4 against quality d8 1 + conventional rifle d10 3: "
        "both missed, but the target is suppressed all the same; Recon Squad 1 now has 1 "
        "suppression marker. A 1 on his quality die gave Pte Erin Tanner's position away: his "
        "figure is placed. Recon Squad 1 must take a confidence test (first suppressed by fire, "
        "P.20). [d4 4, d8 1, d10 3; table]"
    )
    (second,) = done(
        act(umpire_api, battle, "sniper_fire", sniper_body(red3, recon1, leader, dice=[4, 2, 3]))
    )
    assert second["payload"]["confidence_test_for"] == []
    assert markers(battle, recon1) == 2
    detail = umpire_api.get(f"/api/v1/battles/{battle['id']}/").json()
    (row,) = [r for r in detail["participants"] if r["unit_id"] == str(recon1.id)]
    assert row["suppression"] == 2


def test_a_sniper_shot_counts_as_the_first_suppression_for_direct_fire(
    umpire_api, battle, recon1, red3
):
    leader = members(recon1)[0]
    done(act(umpire_api, battle, "sniper_fire", sniper_body(red3, recon1, leader, dice=[4, 2, 3])))
    (fired,) = done(
        act(
            umpire_api,
            battle,
            "direct_fire",
            {
                "unit_id": str(red3.id),
                "target_id": str(recon1.id),
                "men_firing": 5,
                "small_arms_firepower": 2,
                "impact_die": 10,
                "range_bands": 1,
                "dice": [3, 4, 2],  # suppression only
            },
        )
    )
    assert fired["payload"]["confidence_test_for"] == []


def test_sniper_refusals_append_nothing(umpire_api, battle, campaign, recon1, red3, forces):
    leader = members(recon1)[0]
    before = store.last_sequence(campaign.id)
    # Out of range: five bands in hard cover would need a range die above D12 (P.35).
    response = act(
        umpire_api,
        battle,
        "sniper_fire",
        sniper_body(red3, recon1, leader, range_bands=4, cover="hard", dice=[1]),
    )
    assert response.status_code == 422, response.json()
    assert (response.json()["code"], response.json()["field"]) == (
        "fire.out_of_range",
        "range_bands",
    )
    # Aiming at a trooper of another unit.
    stranger = members(squads(forces["Red"])[0])[0]
    response = act(umpire_api, battle, "sniper_fire", sniper_body(red3, recon1, stranger, dice=[1]))
    assert response.status_code == 400, response.json()
    assert response.json()["field"] == "aimed_at"
    # The sniper is not in the firing unit.
    body = sniper_body(red3, recon1, leader, dice=[1])
    body["sniper_id"] = str(members(squads(forces["Red"])[0])[2].id)
    response = act(umpire_api, battle, "sniper_fire", body)
    assert response.status_code == 400, response.json()
    assert response.json()["field"] == "sniper_id"
    # Both a distance and a number of bands.
    response = act(
        umpire_api, battle, "sniper_fire", sniper_body(red3, recon1, leader, distance=5, dice=[1])
    )
    assert response.status_code == 400, response.json()
    # Entered dice that do not fit: a D4 cannot show 5.
    response = act(
        umpire_api, battle, "sniper_fire", sniper_body(red3, recon1, leader, dice=[5, 1, 1])
    )
    assert response.status_code == 400, response.json()
    assert store.last_sequence(campaign.id) == before


def test_a_suppressed_sniper_unit_may_not_fire_p18(
    umpire_api, battle, campaign, forces, recon1, red3
):
    # Recon Squad 2's leader snipes at Squad 3 and suppresses it.
    recon2 = squads(forces["Blue"])[1]
    body = {
        **sniper_body(red3, recon1, members(recon1)[0]),
        "unit_id": str(recon2.id),
        "sniper_id": str(members(recon2)[0].id),
        "target_id": str(red3.id),
        "aimed_at": str(members(red3)[0].id),
        "dice": [4, 2, 3],
    }
    done(act(umpire_api, battle, "sniper_fire", body))
    before = store.last_sequence(campaign.id)
    response = act(
        umpire_api, battle, "sniper_fire", sniper_body(red3, recon1, members(recon1)[0], dice=[1])
    )
    assert response.status_code == 422, response.json()
    assert response.json()["code"] == "suppression.suppressed"
    assert store.last_sequence(campaign.id) == before


def test_the_server_rolls_sniper_fire_in_a_job(umpire_api, battle, recon1, red3):
    response = act(umpire_api, battle, "sniper_fire", sniper_body(red3, recon1, members(recon1)[0]))
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    fired = job["events"][0]["payload"]
    assert [(d["die"], d["source"]) for d in fired["dice"]] == [
        (4, "server"),
        (8, "server"),
        (10, "server"),
    ]
    assert markers(battle, recon1) == 1


# --- minefields, command-detonated mines and booby traps (P.55-56) ------------------------------


def test_a_minefield_catches_a_figure_on_1_to_3_and_its_d10_kills_him_p55(
    umpire_api, battle, recon1
):
    """Two men of a Regular (D8) squad come within 3" of an AP field: Merritt rolls 2 (caught),
    Walsh 6 (safe). The mine's D10 10 against Merritt's D6 3 (10 > 6): DEAD. No suppression."""
    men = members(recon1)
    entered, casualties = done(
        act(
            umpire_api,
            battle,
            "minefield_attack",
            {
                "unit_id": str(recon1.id),
                "minefield": "anti_personnel",
                "trooper_ids": [str(men[3].id), str(men[4].id)],
                "dice": [2, 6, 10, 3],
            },
        )
    )
    assert entered["type"] == "battles.MinefieldEntered"
    assert [(c["roll"], c["caught"]) for c in entered["payload"]["checks"]] == [
        (2, True),
        (6, False),
    ]
    assert entered["payload"]["confidence_test_for"] == ["casualties_from_fire"]
    assert [(c["trooper_id"], c["status_after"]) for c in casualties["payload"]["casualties"]] == [
        (str(men[3].id), "dead")
    ]
    # Merritt's own dice: the mine's D10 and his armour D6.
    assert [(d["die"], d["result"]) for d in casualties["payload"]["casualties"][0]["dice"]] == [
        (10, 10),
        (6, 3),
    ]
    assert status(men[3]) == "dead"
    assert status(men[4]) == "fit"
    assert markers(battle, recon1) == 0
    log = battle_log(umpire_api, battle)
    assert log[-3] == (
        "Recon Squad 1 came into an anti-personnel minefield: quality d8, a mine on 3 or less "
        "(Pte Daniel Merritt 2, Pte Neil Walsh 6): Pte Daniel Merritt set off a mine. Recon "
        "Squad 1 must take a confidence test (casualties from fire, P.20). [d8 2, d8 6; table]"
    )
    assert log[-2].startswith("Recon Squad 1, hit by a mine or booby trap (impact d10): ")
    assert_rebuild_keeps_rows()


def test_a_mixed_field_that_catches_nobody_records_no_casualties_p55(umpire_api, battle, recon1):
    men = members(recon1)
    (entered,) = done(
        act(
            umpire_api,
            battle,
            "minefield_attack",
            {
                "unit_id": str(recon1.id),
                "minefield": "mixed",
                "trooper_ids": [str(men[0].id)],
                "dice": [3],  # a 3 is safe in a mixed field
            },
        )
    )
    assert entered["payload"]["checks"][0]["caught"] is False
    assert entered["payload"]["confidence_test_for"] == []
    assert battle_log(umpire_api, battle)[-1].endswith(
        "(Cpl Rosa Farrell 3): nobody set off a mine. [d8 3; table]"
    )


def test_a_command_detonated_mine_attacks_each_figure_named_p55(umpire_api, battle, recon1, red3):
    men = members(recon1)
    fired, casualties = done(
        act(
            umpire_api,
            battle,
            "command_detonated_mine",
            {
                "unit_id": str(recon1.id),
                "controlled_by": str(red3.id),
                "trooper_ids": [str(men[1].id), str(men[2].id)],
                "dice": [5, 4, 2, 3],  # Marsh: 5 v 4 wounded; Wade: 2 v 3 unhurt
            },
        )
    )
    assert fired["type"] == "battles.CommandDetonatedMineFired"
    assert [h["result"] for h in casualties["payload"]["hits"]] == ["wound", "no_effect"]
    assert (status(men[1]), status(men[2])) == ("wounded", "fit")
    assert battle_log(umpire_api, battle)[-3] == (
        "Squad 3 fired a command-detonated mine at Recon Squad 1: a d10 against the armour of "
        "LCpl Rachel Marsh and Pte Nadia Wade, within 6 inches; the marker is removed. Recon "
        "Squad 1 must take a confidence test (casualties from fire, P.20)."
    )


def test_a_booby_trap_is_found_or_goes_off_on_the_closest_figure_p56(umpire_api, battle, recon1):
    men = members(recon1)
    body = {
        "unit_id": str(recon1.id),
        "closest_id": str(men[5].id),
        "in_contact_ids": [str(men[4].id)],
    }
    (found,) = done(act(umpire_api, battle, "booby_trap", {**body, "dice": [6, 6]}))
    assert found["payload"]["detonated"] is False
    assert battle_log(umpire_api, battle)[-1] == (
        "Recon Squad 1 found a booby trap and made it harmless (quality d8 6 against the trap's "
        "d8 6); the counter is removed. [d8 6, d8 6; table]"
    )
    # Trap 7 beats the squad's 2: Griffin takes the D8 (8 v 1: DEAD), Walsh beside him a D6
    # (2 v 1: WOUNDED).
    sprung, casualties = done(
        act(umpire_api, battle, "booby_trap", {**body, "dice": [2, 7, 8, 1, 2, 1]})
    )
    assert sprung["payload"]["detonated"] is True
    assert [h["impact_die"] for h in casualties["payload"]["hits"]] == [8, 6]
    assert (status(men[5]), status(men[4])) == ("dead", "wounded")
    assert battle_log(umpire_api, battle)[-4] == (
        "A booby trap went off on Recon Squad 1 (quality d8 2 against the trap's d8 7): d8 "
        "against Pte Tariq Griffin, one die lower against Pte Neil Walsh; the counter is removed. "
        "Recon Squad 1 must take a confidence test (casualties from fire, P.20). "
        "[d8 2, d8 7; table]"
    )


def test_mine_refusals_append_nothing(umpire_api, battle, campaign, recon1, red3):
    men = members(recon1)
    before = store.last_sequence(campaign.id)
    refused = [
        # Infantry never set off anti-vehicle mines (P.55): not a minefield this action takes.
        (
            "minefield_attack",
            {"minefield": "anti_vehicle", "trooper_ids": [str(men[0].id)]},
            "minefield",
        ),
        (
            "minefield_attack",
            {"minefield": "mixed", "trooper_ids": [str(members(red3)[0].id)]},
            "trooper_ids.0",
        ),
        (
            "minefield_attack",
            {"minefield": "mixed", "trooper_ids": [str(men[0].id), str(men[0].id)]},
            "trooper_ids.1",
        ),
        (
            "command_detonated_mine",
            {"controlled_by": str(recon1.id), "trooper_ids": [str(men[0].id)]},
            "controlled_by",
        ),
        (
            "booby_trap",
            {"closest_id": str(men[0].id), "in_contact_ids": [str(men[0].id)]},
            "in_contact_ids",
        ),
    ]
    for action, changes, field in refused:
        body = {"unit_id": str(recon1.id), "dice": [1], **changes}
        response = act(umpire_api, battle, action, body)
        assert response.status_code == 400, (action, response.json())
        assert field in (response.json().get("field") or str(response.json())), response.json()
    # A dead man sets off nothing.
    done(
        act(
            umpire_api,
            battle,
            "minefield_attack",
            {
                "unit_id": str(recon1.id),
                "minefield": "anti_personnel",
                "trooper_ids": [str(men[0].id)],
                "dice": [1, 10, 1],
            },
        )
    )
    before = store.last_sequence(campaign.id)
    response = act(
        umpire_api,
        battle,
        "booby_trap",
        {"unit_id": str(recon1.id), "closest_id": str(men[0].id), "dice": [1, 2]},
    )
    assert response.status_code == 409, response.json()
    assert response.json()["code"] == "casualties.trooper_dead"
    assert store.last_sequence(campaign.id) == before


def test_the_server_rolls_a_minefield_in_a_job(umpire_api, battle, recon1):
    men = members(recon1)
    response = act(
        umpire_api,
        battle,
        "minefield_attack",
        {"unit_id": str(recon1.id), "minefield": "anti_personnel", "trooper_ids": [str(men[0].id)]},
    )
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    entered = job["events"][0]["payload"]
    (check,) = entered["dice"]
    assert (check["die"], check["source"]) == (8, "server")
    assert len(job["events"]) == (2 if check["result"] <= 3 else 1)


def test_the_dice_prompt_names_the_range_die_then_the_snipers_quality_die_first(
    umpire_api, battle, campaign, recon1, red3
):
    before = store.last_sequence(campaign.id)
    body = sniper_body(red3, recon1, members(recon1)[0])
    url = f"/api/v1/battles/{battle['id']}/actions/sniper_fire/"
    response = umpire_api.get(url, body)
    assert response.status_code == 200, response.json()
    assert [(d["die"], d["purpose"]) for d in response.json()["dice"]] == [
        (4, "range die against the sniper"),
        (8, "sniper's quality die"),
        (10, "sniper's weapon die"),
    ]
    assert store.last_sequence(campaign.id) == before
