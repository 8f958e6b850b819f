"""Fast and Dirty close assaults through HTTP (FaD p.22-23): ``fad_close_assault`` and
``fad_assault_vehicle`` with table dice and with the server's dice.

The rifle platoon of ``examples/fad-rifle-platoon.yaml`` (Regular and Conscript squads in light
armour) against a small insurgent force (Conscript, no armour, a pickup and an armoured car).
Every expected result is worked out by hand from the tables of p.18-19, p.22-23 and p.35.
"""

from __future__ import annotations

import pytest

from battles.models import Participant
from eventlog import store
from rosters.models import Force, Trooper, Unit, Vehicle
from tests.battles.conftest import EXAMPLES
from tests.battles.helpers import assert_rebuild_keeps_rows
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

PLATOON = "fad-rifle-platoon.yaml"

INSURGENTS = """\
name: Valley insurgents
side: Insurgents
ruleset: fad
units:
  - name: Militia Squad
    kind: squad
    quality: conscript
    resolve: uncertain
    troopers:
      - {name: Boss Hale, role: leader, weapon: rifle}
      - {name: Gun Odell, weapon: rifle}
      - {name: Rifle Pike, weapon: rifle}
      - {name: Rifle Voss, weapon: rifle}
      - {name: Rifle Ward, weapon: rifle}
    vehicles:
      - {name: Technical, class: armed pickup, size: 2, capacity: 4, armour: 0}
  - name: Armoured Car Crew
    kind: vehicle_crew
    quality: conscript
    resolve: steady
    troopers:
      - {name: Driver Lusk, role: crew, weapon: pistol}
      - {name: Gunner Marr, role: crew, weapon: pistol}
    vehicles:
      - {name: Sabre, class: armoured car, size: 2, capacity: 0, armour: 3}
  - name: Sniper
    kind: independent
    quality: regular
    resolve: steady
    troopers:
      - {name: Eyes Kerr, role: leader, weapon: sniper rifle}
"""


@pytest.fixture
def campaign(umpire, umpire_api):
    campaign = campaign_for(umpire, name="Kessler valley", ruleset="fad")
    for source, text in ((PLATOON, (EXAMPLES / PLATOON).read_text()), ("insurgents", INSURGENTS)):
        response = umpire_api.post(
            f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text, "source": source}
        )
        assert response.status_code == 201, response.json()
    return campaign


@pytest.fixture
def forces(campaign):
    return {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}


def unit(force, name: str) -> Unit:
    return Unit.objects.get(force_id=force.id, name=name)


def members(unit_row: Unit) -> list[Trooper]:
    return list(Trooper.objects.filter(unit_id=unit_row.id).order_by("order"))


@pytest.fixture
def battle(umpire_api, campaign, forces):
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": "Valley road",
            "day": 2,
            "attacker": "Federation",
            "sides": [
                {"side": "Federation", "force_ids": [str(forces["Federation"].id)]},
                {"side": "Insurgents", "force_ids": [str(forces["Insurgents"].id)]},
            ],
        },
    )
    assert response.status_code == 201, response.json()
    battle = response.json()
    fighting = [
        str(u.id)
        for side in ("Federation", "Insurgents")
        for u in Unit.objects.filter(force_id=forces[side].id).exclude(kind="platoon")
    ]
    url = f"/api/v1/battles/{battle['id']}/"
    assert umpire_api.post(f"{url}commit/", {"unit_ids": fighting}).status_code == 200
    assert umpire_api.post(f"{url}start/").status_code == 200
    return battle


@pytest.fixture
def squad1(forces):
    return unit(forces["Federation"], "Rifle Squad 1")  # Regular, 8, light armour


@pytest.fixture
def militia(forces):
    return unit(forces["Insurgents"], "Militia Squad")  # Conscript, 5, no armour


def act(api, battle, name, body):
    return api.post(f"/api/v1/battles/{battle['id']}/actions/{name}/", body)


def battle_log(api, battle) -> list[str]:
    return [
        line["summary"]
        for line in api.get(f"/api/v1/battles/{battle['id']}/log/").json()["results"]
    ]


def shown(api, battle, unit_row) -> dict:
    detail = api.get(f"/api/v1/battles/{battle['id']}/").json()
    (row,) = [p for p in detail["participants"] if p["unit_id"] == str(unit_row.id)]
    return row


def status(trooper: Trooper) -> str:
    trooper.refresh_from_db()
    return trooper.status


def set_options(api, campaign, **changes) -> None:
    response = api.patch(
        f"/api/v1/campaigns/{campaign.id}/options/",
        {"changes": changes, "reason": "House reading of close assault casualties"},
    )
    assert response.status_code == 200, response.json()


def test_a_close_assault_runs_to_its_end_with_table_dice_p22(umpire_api, battle, squad1, militia):
    riflemen = members(squad1)
    insurgents = members(militia)
    body = {
        "unit_id": str(squad1.id),
        "target_id": str(militia.id),
        "attacker": {"figures": [str(t.id) for t in riflemen[:4]]},
        "defensive_fire": {"modifier": 0, "damage": 2},
        # Defensive fire: best of 3, 1 = 3 in the open, 1 hit: 4 + 2 against 2 + 0 (light
        # armour): margin 4, Sgt Sandoval killed.
        # Victor: 5 + 1 charging + 1 better armour + 2 quality = 9; the militia 4 + 2 (5
        # fighting against 3) = 6: Rifle Squad 1 wins, no Overrun (9 < 12).
        # Kill dice, 3 on 3+: 3, 6, 1 = 2 kills; 5 militia on 5+: 5, 1, 2, 2, 1 = 1 kill.
        "dice": [3, 1, 4, 2, 5, 2, 4, 3, 3, 6, 1, 5, 1, 2, 2, 1],
    }
    response = act(umpire_api, battle, "fad_close_assault", body)
    assert response.status_code == 201, response.json()
    events = response.json()["events"]
    assert [e["type"] for e in events] == [
        "battles.FadCloseAssaultFought",
        "battles.FadLossesRecorded",
        "battles.FadLossesRecorded",
    ]
    fought = events[0]["payload"]
    assert (fought["result"], fought["overrun"]) == ("attacker_won", [])
    assert (fought["attacker_roll"]["total"], fought["defender_roll"]["total"]) == (9, 6)
    assert (fought["attacker_falls_back"], fought["defender_falls_back"]) == (0, 6)
    assert len(fought["dice"]) == 16
    assert [status(t) for t in riflemen[:3]] == ["dead", "dead", "fit"]
    assert [status(t) for t in insurgents] == ["dead", "dead", "fit", "fit", "fit"]
    line = next(x for x in battle_log(umpire_api, battle) if "close assault" in x)
    assert line == (
        "Rifle Squad 1 charged Militia Squad in close assault (p.22); defensive fire: Fire "
        "Effect 3 (best of 3 and 1), 1 hit: Sgt Alan Sandoval killed; Rifle Squad 1 scored 9 "
        "(best of 5 and 2, charging +1, better armour +1, higher quality +2); Militia Squad "
        "scored 6 (best of 4 and 3, outnumbering +2); Rifle Squad 1 won; Rifle Squad 1 rolled 3 "
        "kill dice needing 3+: 2 kills, 2 of Militia Squad down; Militia Squad rolled 5 kill "
        'dice needing 5+: 1 kill, 1 of Rifle Squad 1 down; Militia Squad falls back 6". [d6 3, '
        "d6 1, d6 4, d6 2, d6 5, d6 2, d6 4, d6 3, d6 3, d6 6, d6 1, d6 5, d6 1, d6 2, d6 2, d6 "
        "1; table]"
    )
    assert shown(umpire_api, battle, militia)["status"] == "fighting"
    assert_rebuild_keeps_rows()


def test_an_overrun_wipes_out_the_squad_which_leaves_the_battle_p22(
    umpire_api, campaign, battle, squad1, militia
):
    set_options(umpire_api, campaign, assault_casualties_are_kills=False)
    body = {
        "unit_id": str(squad1.id),
        "target_id": str(militia.id),
        # 6 + 1 + 1 + 2 + 3 (8 against 5) = 13 against 1: an Overrun. The militia roll their
        # five dice needing 6: one kill. Close-assault casualties are wounded by the option.
        "dice": [6, 6, 1, 1, 6, 1, 1, 1, 1],
    }
    response = act(umpire_api, battle, "fad_close_assault", body)
    assert response.status_code == 201, response.json()
    fought = response.json()["events"][0]["payload"]
    assert fought["overrun"] == ["defender"]
    assert fought["defender_kills"]["kill_number"] == 6
    assert fought["attacker_kills"] is None
    assert [status(t) for t in members(militia)] == ["wounded"] * 5
    assert [status(t) for t in members(squad1)][:2] == ["wounded", "fit"]
    assert shown(umpire_api, battle, militia)["status"] == "routed"
    assert "Overrun: Militia Squad is wiped out" in battle_log(umpire_api, battle)[-3]
    # Gone from the battle, the militia can no longer fight back.
    before = store.last_sequence(campaign.id)
    again = act(
        umpire_api,
        battle,
        "fad_close_assault",
        {"unit_id": str(militia.id), "target_id": str(squad1.id), "dice": [1, 1, 1, 1]},
    )
    assert again.status_code == 409, again.json()
    assert again.json()["code"] == "battle.unit_gone"
    assert store.last_sequence(campaign.id) == before


def test_pinned_or_broken_units_cannot_start_an_assault_and_refusals_append_nothing(
    umpire_api, campaign, forces, battle, squad1, militia
):
    before = store.last_sequence(campaign.id)
    body = {"unit_id": str(squad1.id), "target_id": str(militia.id), "dice": [6, 6, 1, 1]}
    rows = Participant.objects.filter(battle_id=battle["id"], unit_id=squad1.id)
    rows.update(marker="pinned")
    response = act(umpire_api, battle, "fad_close_assault", body)
    assert response.status_code == 422, response.json()
    assert (response.json()["code"], response.json()["field"]) == (
        "close_assault.pinned",
        "unit_id",
    )
    rows.update(marker="under_fire", broken=True)
    response = act(umpire_api, battle, "fad_close_assault", body)
    assert response.json()["code"] == "close_assault.broken"
    rows.update(broken=False)
    own = unit(forces["Federation"], "Rifle Squad 2")
    response = act(umpire_api, battle, "fad_close_assault", {**body, "target_id": str(own.id)})
    assert response.json()["code"] == "close_assault.same_side"
    car = unit(forces["Insurgents"], "Armoured Car Crew")
    response = act(umpire_api, battle, "fad_close_assault", {**body, "target_id": str(car.id)})
    assert response.json()["code"] == "close_assault.target_is_vehicle"
    stranger = members(militia)[0]
    response = act(
        umpire_api,
        battle,
        "fad_close_assault",
        {**body, "attacker": {"figures": [str(stranger.id)]}},
    )
    assert (response.json()["code"], response.json()["field"]) == (
        "close_assault.not_in_unit",
        "attacker.figures.0",
    )
    response = act(umpire_api, battle, "fad_close_assault", {**body, "dice": [6, 6, 1]})
    assert response.status_code == 400, response.json()
    assert response.json()["code"].startswith("dice.")
    response = act(
        umpire_api,
        battle,
        "fad_assault_vehicle",
        {
            "unit_id": str(car.id),
            "vehicle_id": str(Vehicle.objects.get(name="Technical").id),
            "dice": [6],
        },
    )
    assert response.json()["code"] == "close_assault.not_infantry"
    sniper = unit(forces["Insurgents"], "Sniper")
    response = act(
        umpire_api,
        battle,
        "fad_close_assault",
        {"unit_id": str(sniper.id), "target_id": str(squad1.id), "dice": [6]},
    )
    assert response.json()["code"] == "close_assault.sniper"
    assert store.last_sequence(campaign.id) == before
    assert [status(t) for t in members(militia)] == ["fit"] * 5
    # Berserk troops ignore being pinned when they can charge (p.39).
    rows.update(marker="pinned")
    berserk = {**body, "attacker": {"traits": ["berserk"]}, "dice": [1, 1, 6, 6] + [1] * 13}
    response = act(umpire_api, battle, "fad_close_assault", berserk)
    assert response.status_code == 201, response.json()


def test_the_server_rolls_a_close_assault_in_a_job(umpire_api, battle, squad1, militia):
    response = act(
        umpire_api,
        battle,
        "fad_close_assault",
        {
            "unit_id": str(squad1.id),
            "target_id": str(militia.id),
            "defensive_fire": {"damage": 2, "modifier": 1},
        },
    )
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    fought = job["events"][0]["payload"]
    assert {d["source"] for d in fought["dice"]} == {"server"}
    # Two fire dice, two a hit, two victor dice a side, then the kill dice.
    hits = len(fought["losses"]) if fought["fire_hits"] else 0
    assert len(fought["dice"]) >= 2 + 4 + hits
    lost = sum(1 for t in members(militia) if status(t) != "fit")
    downed = sum(
        1 for x in fought["losses"] if x["trooper_id"] in {str(t.id) for t in members(militia)}
    )
    assert lost == downed


def test_a_pickup_is_assaulted_without_a_nerve_test_and_crashes_p23(
    umpire_api, campaign, forces, battle, militia
):
    squad2 = unit(forces["Federation"], "Rifle Squad 2")  # Conscript
    technical = Vehicle.objects.get(name="Technical")
    driver = members(militia)[4]
    body = {
        "unit_id": str(squad2.id),
        "vehicle_id": str(technical.id),
        "figures": [str(t.id) for t in members(squad2)[:2]],
        "crew": [str(driver.id)],
        "passengers_unit_id": str(militia.id),
        "moved_last_activation": True,
        # Unarmoured: no Nerves of Steel. Attacks 5, 2 against 3 + 0: one success; damage 1:
        # the driver is killed and the moving pickup crashes, destroyed, with its passengers.
        "dice": [5, 2, 3, 1],
    }
    response = act(umpire_api, battle, "fad_assault_vehicle", body)
    assert response.status_code == 201, response.json()
    assaulted, losses = response.json()["events"]
    assert assaulted["payload"]["damage"] == ["driver_killed_crashed"]
    assert assaulted["payload"]["destroyed"] is True
    assert losses["payload"]["vehicles"][0]["condition"] == "destroyed"
    assert [x["trooper_id"] for x in losses["payload"]["troopers"]] == [
        str(driver.id),
        *[str(t.id) for t in members(militia)[:4]],
    ]
    technical.refresh_from_db()
    assert technical.state == "destroyed"
    assert [status(t) for t in members(militia)] == ["dead"] * 5
    assert battle_log(umpire_api, battle)[-2] == (
        "Rifle Squad 2 assaulted Technical (p.23); attack dice 5, 2 against defence 3 (d6 3 + "
        "weakest armour 0): 1 success; damage 1: driver killed crashed; Technical is destroyed; "
        "crew killed: Rifle Ward; all 4 passengers killed. [d6 5, d6 2, d6 3, d6 1; table]"
    )
    before = store.last_sequence(campaign.id)
    again = act(umpire_api, battle, "fad_assault_vehicle", {**body, "dice": [6, 1, 6]})
    assert again.status_code == 409, again.json()
    assert again.json()["code"] == "close_assault.vehicle_destroyed"
    assert store.last_sequence(campaign.id) == before


def test_an_armoured_car_calls_for_nerves_of_steel_p23(umpire_api, campaign, forces, battle):
    squad3 = unit(forces["Federation"], "Rifle Squad 3")  # Conscript: 4+
    sabre = Vehicle.objects.get(name="Sabre")
    crew = members(unit(forces["Insurgents"], "Armoured Car Crew"))
    body = {"unit_id": str(squad3.id), "vehicle_id": str(sabre.id), "lacks_grenades": True}
    failed = act(umpire_api, battle, "fad_assault_vehicle", {**body, "dice": [3]})
    assert failed.status_code == 201, failed.json()
    (event,) = failed.json()["events"]
    assert event["payload"]["faltered"] is True
    assert battle_log(umpire_api, battle)[-1] == (
        "Rifle Squad 3 assaulted Sabre (p.23); Nerves of Steel 3 needing 4+ failed: the assault "
        "falters. [d6 3; table]"
    )
    # Nerves 4; the six figures in contact roll 6 - 2 (lacks grenades) = 4 at best, against
    # 1 + 3 = 4: the two sixes reach it. Damage 1 (the first crewman), 6 (destroyed).
    dice = [4, 6, 1, 1, 1, 1, 6, 1, 1, 6]
    passed = act(umpire_api, battle, "fad_assault_vehicle", {**body, "dice": dice})
    assert passed.status_code == 201, passed.json()
    assaulted = passed.json()["events"][0]["payload"]
    assert assaulted["successes"] == 2
    assert assaulted["damage"] == ["crew_killed", "destroyed"]
    assert [status(t) for t in crew] == ["dead", "dead"]
    sabre.refresh_from_db()
    assert sabre.state == "destroyed"


def test_defensive_fire_can_stop_the_charge_before_it_reaches_the_enemy_p22(
    umpire_api, forces, battle, militia
):
    squad2 = unit(forces["Federation"], "Rifle Squad 2")
    griffin = members(squad2)[0]
    body = {
        "unit_id": str(squad2.id),
        "target_id": str(militia.id),
        "attacker": {"figures": [str(griffin.id)]},
        "defensive_fire": {"modifier": 2, "damage": 2, "cover": "partial", "support_d6": 1},
        # Best of 1 and 3 + 2, + 2 for a grenade launcher = 7 against partial concealment (4
        # points a hit): 1 hit on the one charging figure, 6 + 2 against 1 + 0: killed. Nobody
        # is left to fight.
        "dice": [1, 3, 2, 6, 1],
    }
    response = act(umpire_api, battle, "fad_close_assault", body)
    assert response.status_code == 201, response.json()
    fought = response.json()["events"][0]["payload"]
    assert (fought["result"], fought["attacker_roll"], fought["defender_roll"]) == (
        "no_contest",
        None,
        None,
    )
    assert status(griffin) == "dead"
    assert battle_log(umpire_api, battle)[-2] == (
        "Rifle Squad 2 charged Militia Squad in close assault (p.22); defensive fire: Fire "
        "Effect 7 (best of 1 and 3, support weapons +2), 1 hit: Cpl Sofia Griffin killed; no "
        "charging figure of Rifle Squad 2 reached the enemy. [d6 1, d6 3, d6 2, d6 6, d6 1; "
        "table]"
    )


def test_the_no_grenades_penalty_follows_the_option_p11_p22(
    umpire_api, campaign, forces, battle, militia
):
    squad2 = unit(forces["Federation"], "Rifle Squad 2")
    body = {
        "unit_id": str(squad2.id),
        "target_id": str(militia.id),
        "attacker": {"figures": [str(t.id) for t in members(squad2)[:5]], "lacks_grenades": True},
        # 4 + 1 charging + 1 better armour - 2 = 4 against 4: a draw, no Overrun; kill dice on 4+.
        "dice": [4, 1, 4, 4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    }
    response = act(umpire_api, battle, "fad_close_assault", body)
    assert response.status_code == 201, response.json()
    fought = response.json()["events"][0]["payload"]
    assert ["lacks grenades", -2] in fought["attacker_roll"]["modifiers"]
    assert (fought["result"], fought["attacker_falls_back"]) == ("draw", 3)

    set_options(umpire_api, campaign, assault_no_grenades_penalty=-1)
    response = act(umpire_api, battle, "fad_close_assault", body)
    assert response.status_code == 201, response.json()
    fought = response.json()["events"][0]["payload"]
    assert ["lacks grenades", -1] in fought["attacker_roll"]["modifiers"]
    assert fought["result"] == "attacker_won"  # 5 against 4
    assert "lacks grenades -1" in battle_log(umpire_api, battle)[-1]


def test_a_draw_at_nothing_wipes_out_both_squads_only_with_double_only_p22(
    umpire_api, campaign, forces, battle, militia
):
    squad2 = unit(forces["Federation"], "Rifle Squad 2")
    body = {
        "unit_id": str(squad2.id),
        "target_id": str(militia.id),
        "attacker": {
            "figures": [str(t.id) for t in members(squad2)[:5]],
            "armour": -2,
            "lacks_grenades": True,
        },
        "defender": {"lacks_grenades": True},
        # 1 + 1 charging - 2 = 0 against 2 - 2 = 0: a draw at nothing.
        "dice": [1, 1, 2, 1],
    }
    set_options(umpire_api, campaign, assault_overrun_edge="double_only")
    response = act(umpire_api, battle, "fad_close_assault", body)
    assert response.status_code == 201, response.json()
    fought = response.json()["events"][0]["payload"]
    assert (fought["result"], fought["overrun"]) == ("draw", ["attacker", "defender"])
    assert [status(t) for t in members(militia)] == ["dead"] * 5
    assert [status(t) for t in members(squad2)] == ["dead"] * 8
    assert shown(umpire_api, battle, squad2)["status"] == "routed"
    assert shown(umpire_api, battle, militia)["status"] == "routed"
    assert (
        "each scored twice the other's total: both squads are wiped out"
        in (battle_log(umpire_api, battle)[-3])
    )


def test_the_dice_prompt_names_the_assault_dice_in_order(
    umpire_api, campaign, battle, squad1, militia
):
    before = store.last_sequence(campaign.id)
    url = f"/api/v1/battles/{battle['id']}/actions/fad_close_assault/"
    query = {"unit_id": str(squad1.id), "target_id": str(militia.id)}
    response = umpire_api.get(url, {**query, "dice": "1,1,1,1"})
    assert response.status_code == 200, response.json()
    # Victor dice 1, 1 against 1, 1: 1 + 1 + 1 + 2 + 3 = 8 against 1, an Overrun; the militia
    # then roll one kill die per figure, needing 6.
    assert [(d["purpose"], d["for"], d["face"]) for d in response.json()["dice"]] == [
        ("close assault: attacker's roll", str(squad1.id), 1),
        ("close assault: attacker's roll", str(squad1.id), 1),
        ("close assault: defender's roll", str(militia.id), 1),
        ("close assault: defender's roll", str(militia.id), 1),
    ] + [("close assault: defender's kill roll", str(militia.id), None)] * 5
    assert response.json()["complete"] is False
    assert store.last_sequence(campaign.id) == before
