"""Fire at vehicles through HTTP with table dice (SG2 P.37-40): the book's examples, missiles,
server dice, the dice prompt and refusals."""

from __future__ import annotations

import pytest

from battles.models import Participant
from eventlog import store
from rosters.models import Force, Trooper, Unit, Vehicle
from tests.battles.conftest import members, squads
from tests.battles.helpers import assert_rebuild_keeps_rows

pytestmark = pytest.mark.django_db

BLUE_SCOUTS = """
name: Blue scout section
side: Blue
ruleset: sg2
units:
  - name: Scout Car Crew
    kind: vehicle_crew
    quality: regular
    leadership: 2
    fatigue: fresh
    mission_motivation: medium
    troopers:
      - {name: Cpl Rhea Stone, role: leader, armour: partial light armour, armour_die: 6}
    vehicles:
      - {name: Scout One, class: Scout Car, size: 2, capacity: 10, armour: 1}
"""

RED_MOTOR = """
name: Red motor section
side: Red
ruleset: sg2
units:
  - name: APC Crew
    kind: vehicle_crew
    quality: regular
    leadership: 2
    fatigue: fresh
    mission_motivation: medium
    troopers:
      - {name: Sgt Boris Lenk, role: leader, armour: partial light armour, armour_die: 6}
    vehicles:
      - {name: Red APC, class: APC, size: 3, capacity: 15, armour: 2}
  - name: Jeep Crew
    kind: vehicle_crew
    quality: regular
    leadership: 2
    fatigue: fresh
    mission_motivation: medium
    troopers:
      - {name: Pte Ivo Drach, role: leader, armour: battledress, armour_die: 4}
    vehicles:
      - {name: Red Jeep, class: Jeep, size: 1, capacity: 5, armour: 0}
  - name: Jeep Riders
    kind: squad
    quality: regular
    leadership: 2
    fatigue: fresh
    mission_motivation: medium
    troopers:
      - {name: Cpl Anya Roth, role: leader, armour: partial light armour, armour_die: 6}
      - {name: Pte Dov Marek, armour: partial light armour, armour_die: 6}
      - {name: Pte Lev Sokol, armour: partial light armour, armour_die: 6}
"""


def post_roster(api, campaign, text):
    response = api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
    assert response.status_code == 201, response.json()
    return Force.objects.get(pk=response.json()["id"])


@pytest.fixture
def motor_battle(umpire_api, campaign, plan_body, forces):
    blue = post_roster(umpire_api, campaign, BLUE_SCOUTS)
    red = post_roster(umpire_api, campaign, RED_MOTOR)
    plan_body["sides"][0]["force_ids"].append(str(blue.id))
    plan_body["sides"][1]["force_ids"].append(str(red.id))
    battle = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/battles/", plan_body).json()
    units = [str(u.id) for u in Unit.objects.filter(force_id__in=[blue.id, red.id])] + [
        str(squads(forces["Blue"])[0].id)
    ]
    committed = umpire_api.post(f"/api/v1/battles/{battle['id']}/commit/", {"unit_ids": units})
    assert committed.status_code == 200, committed.json()
    return umpire_api.post(f"/api/v1/battles/{battle['id']}/start/").json()


def fire(api, battle, body):
    return api.post(f"/api/v1/battles/{battle['id']}/actions/vehicle_fire/", body)


def battle_log(api, battle):
    return [
        line["summary"]
        for line in api.get(f"/api/v1/battles/{battle['id']}/log/").json()["results"]
    ]


def unit(name):
    return Unit.objects.get(name=name)


def vehicle(name):
    return Vehicle.objects.get(name=name)


def rfac(**changes):
    return {
        "unit_id": str(unit("Scout Car Crew").id),
        "vehicle_id": str(vehicle("Red APC").id),
        "fire": "heavy_weapon",
        "weapon": "rfac",
        "weapon_size": 1,
        "fire_control": "basic",
        "distance": 40,
        "suspension": "tracked",
        **changes,
    }


def test_p38_rfac_against_an_apc_is_a_major_hit_that_disables_it(umpire_api, motor_battle):
    """P.38: RFAC/1 at a size 3 APC 40" away: one band is 36", so the range die is a D6, which
    rolls 4; the Regular crew's D8 rolls 7 and the BASIC fire control's D6 5: a MAJOR hit. The
    APC's D12 rolls 4, x2 = 8; the RFAC's D10 rolls 7, doubled to 14: DISABLED."""
    response = fire(umpire_api, motor_battle, rfac(dice=[4, 7, 5, 7, 4]))
    assert response.status_code == 201, response.json()
    fired, hit = response.json()["events"]
    p = fired["payload"]
    assert fired["type"] == "battles.VehicleFired"
    assert (p["range_band"], p["range_bands"], p["target_die"], p["ecm"]) == (36, 2, 6, False)
    assert (p["firer_dice"], p["firer_rolls"], p["result"]) == ([8, 6], [7, 5], "major")
    assert (p["impact_die"], p["impact_multiplier"]) == (10, 1)
    assert [d["purpose"] for d in p["dice"]] == ["range die", "quality die", "fire control die"]
    assert hit["type"] == "battles.VehicleHit"
    h = hit["payload"]
    assert (h["major_hit"], h["impact_score"], h["armour_score"]) == (True, 14, 8)
    assert (h["damage"], h["state_after"]) == ("disabled", "disabled")
    assert [d["result"] for d in h["dice"]] == [7, 4]
    assert Vehicle.objects.get(name="Red APC").state == "disabled"
    log = battle_log(umpire_api, motor_battle)
    assert log[-2] == (
        'Scout Car Crew fired an RFAC/1 at Red APC (size 3, 2 range bands of 36", open cover): '
        "range d6 rolled 4 against d8 7 + d6 5: a MAJOR hit. [d6 4, d8 7, d6 5; table]"
    )
    assert log[-1].startswith(
        "Red APC hit at Recon in force, turn 1: disabled (impact 14 against armour 8)."
    )


def test_p38_a_nine_would_have_destroyed_the_apc(umpire_api, motor_battle):
    response = fire(umpire_api, motor_battle, rfac(dice=[4, 7, 5, 9, 4]))
    assert response.status_code == 201, response.json()
    assert response.json()["events"][1]["payload"]["damage"] == "destroyed"


def test_a_miss_records_the_fire_only(umpire_api, motor_battle):
    response = fire(umpire_api, motor_battle, rfac(dice=[6, 6, 2]))
    assert response.status_code == 201, response.json()
    (fired,) = response.json()["events"]
    assert fired["payload"]["result"] == "miss"
    assert Vehicle.objects.get(name="Red APC").state == "operational"
    assert battle_log(umpire_api, motor_battle)[-1].endswith(": a miss. [d6 6, d8 6, d6 2; table]")


def jeep_body(squad, **changes):
    riders = members(unit("Jeep Riders"))
    driver = members(unit("Jeep Crew"))[0]
    return {
        "unit_id": str(squad.id),
        "vehicle_id": str(vehicle("Red Jeep").id),
        "fire": "small_arms",
        "range_bands": 1,
        "men_firing": 5,
        "small_arms_firepower": 2,  # 5 x FP2: a D10 (P.34)
        "support_weapons": [{"name": "Gauss SAW", "firepower_die": 10}],
        "impact_die": 12,  # Gauss small arms
        "suspension": "civilian_wheeled",
        "occupant_ids": [str(driver.id)] + [str(t.id) for t in riders],
        **changes,
    }


def test_p37_gauss_squad_against_a_jeep(umpire_api, motor_battle, forces):
    """P.37: the squad beats the range roll with TWO of its 3 dice; Gauss impact D12 rolls 9
    against the jeep's D6 4: more than twice, so the jeep is DISABLED; the driver's D4 rolls 3,
    OK; the three troopers' D6 roll 4 (safe), 2 (WOUNDED) and 1 (KILLED)."""
    squad = squads(forces["Blue"])[0]  # Recon Squad 1, Regular
    # range D4 3; quality D8 5, firepower D10 2, SAW D10 6; impact 9, armour 4; occupants.
    dice = [3, 5, 2, 6, 9, 4, 3, 4, 2, 1]
    response = fire(umpire_api, motor_battle, jeep_body(squad, dice=dice))
    assert response.status_code == 201, response.json()
    fired, hit = response.json()["events"]
    p = fired["payload"]
    assert (p["target_die"], p["firer_dice"], p["firer_rolls"]) == (4, [8, 10, 10], [5, 2, 6])
    assert p["result"] == "effective"
    assert (p["suppression_before"], p["suppression_after"], p["penetrated"]) == (0, 1, True)
    h = hit["payload"]
    assert (h["impact_score"], h["armour_score"], h["damage"]) == (9, 4, "disabled")
    assert [o["armour_roll"] for o in h["occupants"]] == [3, 4, 2, 1]
    statuses = {t.name: t.status for t in members(unit("Jeep Crew")) + members(unit("Jeep Riders"))}
    assert statuses == {
        "Pte Ivo Drach": "fit",
        "Cpl Anya Roth": "fit",
        "Pte Dov Marek": "wounded",
        "Pte Lev Sokol": "dead",
    }
    assert Vehicle.objects.get(name="Red Jeep").state == "disabled"
    jeep_crew = Participant.objects.get(battle_id=motor_battle["id"], unit_id=unit("Jeep Crew").id)
    assert jeep_crew.suppression == 1
    log = battle_log(umpire_api, motor_battle)
    assert (
        'Recon Squad 1 fired small arms at Red Jeep (size 1, 1 range band of 8", open cover): '
        "range d4 rolled 3 against d8 5 + d10 2 + d10 6: fully effective: one penetration roll "
        "as a minor hit (P.37); the rounds penetrated: each occupant rolls his armour die, 1 "
        "dead, 2 wounded; Red Jeep is suppressed (1 suppression marker). "
        "[d4 3, d8 5, d10 2, d10 6; table]"
    ) in log
    assert log[-3:] == [
        "Red Jeep hit at Recon in force, turn 1: disabled (impact 9 against armour 4). The "
        'occupants bail out 6", suppressed unless they pass a confidence test at threat level 2 '
        "to stay. [d12 9, d6 4, d4 3, d6 4, d6 2, d6 1; table]",
        "Pte Dov Marek wounded. [d6 2; table]",
        "Pte Lev Sokol killed. [d6 1; table]",
    ]
    assert_rebuild_keeps_rows()


def test_small_arms_with_one_die_over_only_suppress(umpire_api, motor_battle, forces):
    squad = squads(forces["Blue"])[0]
    response = fire(umpire_api, motor_battle, jeep_body(squad, dice=[3, 5, 2, 1]))
    assert response.status_code == 201, response.json()
    (fired,) = response.json()["events"]
    assert fired["payload"]["result"] == "suppression"
    assert Vehicle.objects.get(name="Red Jeep").state == "operational"


def test_small_arms_that_fail_to_penetrate_do_nothing_more(umpire_api, motor_battle, forces):
    squad = squads(forces["Blue"])[0]
    # Effective (5 and 6 beat 3); impact 4 against the jeep's D6 5: no effect (P.37).
    body = jeep_body(squad, occupant_ids=[], dice=[3, 5, 2, 6, 4, 5])
    response = fire(umpire_api, motor_battle, body)
    assert response.status_code == 201, response.json()
    fired, hit = response.json()["events"]
    assert fired["payload"]["penetrated"] is False
    assert (hit["payload"]["damage"], hit["payload"]["casualties"]) == (None, [])
    assert Vehicle.objects.get(name="Red Jeep").state == "operational"
    assert (
        "; the rounds did not penetrate; Red Jeep is suppressed"
        in (battle_log(umpire_api, motor_battle)[-2])
    )


def test_small_arms_cannot_hurt_armour_class_2(umpire_api, motor_battle, forces):
    squad = squads(forces["Blue"])[0]
    body = jeep_body(squad, vehicle_id=str(vehicle("Red APC").id), occupant_ids=[])
    response = fire(umpire_api, motor_battle, {**body, "dice": [1, 5, 2, 6]})
    assert response.status_code == 201, response.json()
    (fired,) = response.json()["events"]
    assert fired["payload"]["result"] == "effective"
    assert fired["payload"]["penetrated"] is None


def test_a_guided_missile_rolls_against_ecm_raised_for_cover_p40(umpire_api, motor_battle):
    """P.40: no range; basic ECM (D6) in soft cover is a D8; GMS/H impact D12x4 (P.30). The
    missile's D10 guidance beats it, the quality die does not: a MINOR hit; 6x4 = 24 against
    5x2 = 10 is more than twice: DESTROYED."""
    body = rfac(
        fire="guided_missile",
        weapon=None,
        weapon_size=2,
        guidance_die=10,
        ecm="basic",
        cover="soft",
        distance=None,
        dice=[7, 3, 9, 6, 5],
    )
    response = fire(umpire_api, motor_battle, body)
    assert response.status_code == 201, response.json()
    fired, hit = response.json()["events"]
    p = fired["payload"]
    assert (p["target_die"], p["ecm"], p["range_band"], p["result"]) == (8, True, None, "minor")
    assert [d["purpose"] for d in p["dice"]] == ["ECM die", "quality die", "guidance die"]
    assert (hit["payload"]["impact_score"], hit["payload"]["damage"]) == (24, "destroyed")
    assert (
        "ECM d8 rolled 7 against d8 3 + d10 9: a MINOR hit"
        in battle_log(umpire_api, motor_battle)[-2]
    )


def test_an_unguided_rocket_uses_the_operators_band_whatever_the_size_p40(
    umpire_api, motor_battle, forces
):
    squad = squads(forces["Blue"])[0]
    body = {
        "unit_id": str(squad.id),
        "vehicle_id": str(vehicle("Red APC").id),
        "fire": "unguided_rocket",
        "distance": 12,  # over one 8" band for a Regular: D6, not multiplied by size 3
        "impact_die": 12,
        "suspension": "tracked",
        "dice": [5, 4, 3],
    }
    response = fire(umpire_api, motor_battle, body)
    assert response.status_code == 201, response.json()
    (fired,) = response.json()["events"]
    p = fired["payload"]
    assert (p["range_band"], p["target_die"], p["firer_dice"], p["result"]) == (
        8,
        6,
        [8, 8],
        "miss",
    )


def test_server_dice_in_a_job(umpire_api, motor_battle):
    response = fire(umpire_api, motor_battle, rfac())
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    fired = job["events"][0]["payload"]
    assert [d["die"] for d in fired["dice"]] == [6, 8, 6]
    assert {d["source"] for d in fired["dice"]} == {"server"}
    assert len(job["events"]) == (1 if fired["result"] == "miss" else 2)


def test_the_dice_prompt_names_every_die_in_order(umpire_api, campaign, motor_battle):
    before = store.last_sequence(campaign.id)
    url = f"/api/v1/battles/{motor_battle['id']}/actions/vehicle_fire/"
    query = rfac()
    response = umpire_api.get(url, {**query, "dice": "4,7,5"})
    assert response.status_code == 200, response.json()
    dice = response.json()["dice"]
    assert [(d["die"], d["face"]) for d in dice[:5]] == [
        (6, 4),
        (8, 7),
        (6, 5),
        (10, None),
        (12, None),
    ]
    assert [d["purpose"] for d in dice[:5]] == [
        "range die",
        "quality die",
        "fire control die",
        "impact against vehicle armour",
        "vehicle armour",
    ]
    assert dice[0]["for"] == str(unit("Scout Car Crew").id)
    assert dice[3]["for"] == str(vehicle("Red APC").id)
    assert response.json()["complete"] is False
    done = umpire_api.get(url, {**query, "dice": "4,7,5,7,4"})
    assert done.json()["complete"] is True
    assert len(done.json()["dice"]) == 5
    assert store.last_sequence(campaign.id) == before


def refused(api, campaign, battle, body, status, code, field=None):
    before = store.last_sequence(campaign.id)
    response = fire(api, battle, body)
    assert response.status_code == status, response.json()
    assert response.json()["code"] == code
    if field is not None:
        assert response.json()["field"] == field
    assert store.last_sequence(campaign.id) == before


def test_refusals_append_nothing(umpire_api, campaign, motor_battle, forces):
    # The target is not a vehicle (a unit's id).
    not_vehicle = rfac(vehicle_id=str(unit("APC Crew").id), dice=[4, 7, 5, 7, 4])
    refused(umpire_api, campaign, motor_battle, not_vehicle, 400, "vehicle.not_found", "vehicle_id")
    # The firer is not in the battle.
    outsider = squads(forces["Red"])[0]
    refused(
        umpire_api, campaign, motor_battle, rfac(unit_id=str(outsider.id), dice=[4, 7, 5, 7, 4]),
        400, "battle.not_a_participant", "unit_id",
    )  # fmt: skip
    # Too few dice for the hit, and a face the die does not have.
    refused(umpire_api, campaign, motor_battle, rfac(dice=[4, 7, 5]), 400, "dice.missing")
    refused(umpire_api, campaign, motor_battle, rfac(dice=[7, 7, 5, 7, 4]), 400, "dice.impossible")
    # Beyond five bands of 12" against a size 1 jeep.
    far = rfac(vehicle_id=str(vehicle("Red Jeep").id), distance=61, dice=[1, 1, 1])
    refused(umpire_api, campaign, motor_battle, far, 422, "fire.out_of_range")
    # An RFAC comes in sizes 1 and 2 only.
    refused(
        umpire_api, campaign, motor_battle, rfac(weapon_size=3, dice=[4, 7, 5]),
        422, "fire.refused",
    )  # fmt: skip
    # A heavy weapon needs its type and size.
    refused(umpire_api, campaign, motor_battle, rfac(weapon=None, dice=[]), 400, "action.invalid")
    assert Trooper.objects.filter(status="dead").count() == 0


def test_a_knocked_out_vehicle_fires_no_more_p39(umpire_api, campaign, motor_battle):
    """An HKP/3 (D12x3) with manual fire control (D4) at the size 2 scout car 10" away (one
    24" band: D4): 5 and 3 beat 1, a MAJOR hit; 5x3x2 = 30 is more than twice 10: DESTROYED."""
    hkp = rfac(
        unit_id=str(unit("APC Crew").id),
        vehicle_id=str(vehicle("Scout One").id),
        weapon="hkp",
        weapon_size=3,
        fire_control="none",
        distance=10,
        dice=[1, 5, 3, 5, 10],
    )
    response = fire(umpire_api, motor_battle, hkp)
    assert response.status_code == 201, response.json()
    fired, hit = response.json()["events"]
    assert (fired["payload"]["firer_dice"], fired["payload"]["target_die"]) == ([8, 4], 4)
    assert (hit["payload"]["impact_score"], hit["payload"]["damage"]) == (30, "destroyed")
    refused(
        umpire_api, campaign, motor_battle, rfac(dice=[4, 7, 5, 7, 4]),
        409, "vehicle.cannot_fire", "unit_id",
    )  # fmt: skip


def test_a_support_weapon_fired_alone_and_its_occupant_casualties(umpire_api, motor_battle, forces):
    """P.36-37: a support weapon fired alone rolls quality and its firepower die against the
    squad's range die; on a MAJOR hit its impact is doubled (P.38). DESTROYED (24 above twice
    10), the occupants must roll above twice its size class (option support_weapon_size_class,
    default 1): the commander's D6 rolls 2, a casualty; his D6 5: wounded (P.39)."""
    squad = squads(forces["Blue"])[0]
    commander = members(unit("APC Crew"))[0]
    body = {
        "unit_id": str(squad.id),
        "vehicle_id": str(vehicle("Red APC").id),
        "fire": "support_weapon",
        "firepower_die": 10,
        "impact_die": 12,
        "range_bands": 1,
        "suspension": "tracked",
        "occupant_ids": [str(commander.id)],
        "dice": [1, 5, 6, 12, 5, 2, 5],
    }
    response = fire(umpire_api, motor_battle, body)
    assert response.status_code == 201, response.json()
    fired, hit = response.json()["events"]
    assert (fired["payload"]["firer_dice"], fired["payload"]["result"]) == ([8, 10], "major")
    h = hit["payload"]
    assert (h["impact_score"], h["armour_score"], h["damage"], h["save_above"]) == (
        24,
        10,
        "destroyed",
        2,
    )
    assert Trooper.objects.get(pk=commander.id).status == "wounded"
    assert h["leaders_down"] == [str(commander.id)]
