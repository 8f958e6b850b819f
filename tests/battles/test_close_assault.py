"""Close assault through HTTP with table dice (SG2 P.41-43): three attackers against two
defenders, fought to the end round by round, every state kept by a rebuild."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from battles.models import Participant
from eventlog import store
from rosters.models import Trooper, Unit
from tests.battles.conftest import members, squads
from tests.battles.helpers import assert_rebuild_keeps_rows, kill

pytestmark = pytest.mark.django_db


def assault(api, battle, body):
    return api.post(f"/api/v1/battles/{battle['id']}/actions/close_assault/", body)


def battle_log(api, battle):
    return [
        line["summary"]
        for line in api.get(f"/api/v1/battles/{battle['id']}/log/").json()["results"]
    ]


def in_assault(api, battle):
    detail = api.get(f"/api/v1/battles/{battle['id']}/").json()
    return {p["unit_name"]: p["close_assault"] for p in detail["participants"]}


@pytest.fixture
def sides(umpire_api, battle, forces):
    """Recon Squad 1 (Blue, Regular LV 2, CO) down to three men; Red's Squad 1 (Regular LV 2,
    CO) down to two."""
    blue, red = squads(forces["Blue"])[0], squads(forces["Red"])[0]
    kill(umpire_api, battle, *members(blue)[3:])
    kill(umpire_api, battle, *members(red)[2:])
    return blue, red


def test_three_attackers_against_two_defenders_to_the_end(umpire_api, battle, sides):
    blue, red = sides
    a1, a2, a3 = members(blue)[:3]
    d1, d2 = members(red)[:2]
    body = {
        "unit_id": str(blue.id),
        "target_id": str(red.id),
        "defenders_in_cover": True,
        "weapons": [{"trooper_id": str(a1.id), "weapon": "firearm"}],
    }
    # The prompt names the dice of the first round, in order, and writes nothing.
    before = store.last_sequence(battle_campaign(battle))
    asked = umpire_api.get(
        f"/api/v1/battles/{battle['id']}/actions/close_assault/",
        {
            "unit_id": str(blue.id),
            "target_id": str(red.id),
            "defenders_in_cover": "true",
            "dice": "8,6",
        },
    )
    assert asked.status_code == 200, asked.json()
    assert [(d["die"], d["purpose"], d["for"]) for d in asked.json()["dice"]][:7] == [
        (8, "reaction test", str(blue.id)),
        (8, "confidence test", str(red.id)),
        (10, f"close combat {d1.name}", str(d1.id)),
        (8, f"close combat {a1.name} against {d1.name}", str(a1.id)),
        (8, f"close combat {a3.name} against {d1.name}", str(a3.id)),
        (8, f"close combat {a2.name}", str(a2.id)),
        (10, f"close combat {d2.name} against {a2.name}", str(d2.id)),
    ]
    assert store.last_sequence(battle_campaign(battle)) == before

    # Round 1. Charge: D8 8 beats LV 2 + 0. Stand: odds 3 to 2 is +1, D8 6 beats 3.
    # Pairs (P.41): a1-d1, a2-d2, and the spare a3 on d1. Defenders in cover: D10s.
    # d1 rolls 5; a1 (pistol, D10) 7 downs him; a3 2 is downed by him. a2 4, d2 4: a tie.
    # One casualty each: the defender tests first at +1 (7 beats 3), then the attacker
    # (8 beats 3): another round.
    first = assault(umpire_api, battle, {**body, "dice": [8, 6, 5, 7, 2, 4, 4, 7, 8]})
    assert first.status_code == 201, first.json()
    (event,) = first.json()["events"]
    p = event["payload"]
    assert event["type"] == "battles.CloseAssaultFought"
    assert (p["assault"], p["round"], p["result"], p["stand_threat_level"]) == (
        1,
        1,
        "another_round",
        1,
    )
    assert [(t["kind"], t["threat_level"], t["passed"]) for t in p["tests"]] == [
        ("charge", 0, True),
        ("stand", 1, True),
        ("end_of_round", 1, True),
        ("end_of_round", 1, True),
    ]
    assert [t["unit_id"] for t in p["tests"][2:]] == [str(red.id), str(blue.id)]
    assert [
        (x["attacker_id"], x["defender_id"], x["attacker_die"], x["defender_die"])
        for x in p["pairs"]
    ] == [
        (str(a1.id), str(d1.id), 10, 10),
        (str(a3.id), str(d1.id), 8, 10),
        (str(a2.id), str(d2.id), 8, 10),
    ]
    assert (p["attackers_down"], p["defenders_down"]) == ([str(a3.id)], [str(d1.id)])
    assert [d["result"] for d in p["dice"]] == [8, 6, 5, 7, 2, 4, 4, 7, 8]
    assert [d["purpose"] for d in p["dice"]][2:6] == [
        f"close combat {d1.name}",
        f"close combat {a1.name} against {d1.name}",
        f"close combat {a3.name} against {d1.name}",
        f"close combat {a2.name}",
    ]
    state = in_assault(umpire_api, battle)
    assert state[blue.name] == {
        "assault": 1,
        "side": "attacker",
        "round": 1,
        "against": [str(red.id)],
        "down": [str(a3.id)],
    }
    assert state[red.name]["side"] == "defender"
    assert state[red.name]["down"] == [str(d1.id)]
    # Nobody's fate is rolled until the assault is over (P.42).
    assert {t.status for t in members(blue)[:3] + members(red)[:2]} == {"fit"}
    assert_rebuild_keeps_rows()

    # Round 2, no cover bonus: a1 and the spare a2 against d2 (D8). d2 rolls 3; a1's pistol
    # (D10) 6 downs him; a2 1 is downed. The defenders are all down: the attackers won without
    # a test. Fates (P.42): a3 1 dead, a2 5 stunned and back; d1 3 wounded and d2 6 stunned,
    # both taken prisoner.
    second = assault(
        umpire_api,
        battle,
        {"unit_id": str(blue.id), "target_id": str(red.id), "dice": [3, 6, 1, 1, 5, 3, 6]},
    )
    assert second.status_code == 201, second.json()
    fought, blue_fates, red_fates = second.json()["events"]
    p = fought["payload"]
    assert (p["round"], p["result"], p["tests"], p["follow_through_threat_level"]) == (
        2,
        "attacker_won",
        [],
        1,
    )
    assert [(x["attacker_die"], x["defender_die"]) for x in p["pairs"]] == [(10, 8), (8, 8)]
    assert (p["attackers_down"], p["defenders_down"]) == ([str(a2.id)], [str(d2.id)])
    assert blue_fates["type"] == red_fates["type"] == "battles.CasualtiesResolved"
    assert blue_fates["payload"]["mode"] == "close_combat"
    assert [(c["trooper_id"], c["status_after"]) for c in blue_fates["payload"]["casualties"]] == [
        (str(a3.id), "dead")
    ]
    assert [d["result"] for d in blue_fates["payload"]["dice"]] == [1, 5]
    assert [(c["trooper_id"], c["status_after"]) for c in red_fates["payload"]["casualties"]] == [
        (str(d1.id), "captured"),
        (str(d2.id), "captured"),
    ]
    statuses = {t.name: t.status for t in members(blue)[:3] + members(red)[:2]}
    assert statuses == {
        a1.name: "fit",
        a2.name: "fit",
        a3.name: "dead",
        d1.name: "captured",
        d2.name: "captured",
    }
    assert set(in_assault(umpire_api, battle).values()) == {None}
    log = battle_log(umpire_api, battle)
    assert any(line.startswith("Close assault 1: Recon Squad 1 charged Squad 1") for line in log)
    assert any(
        line.startswith("Close assault 1 on Squad 1, round 2:")
        and f"{a1.name} (d10: 6) downed {d2.name} (d8: 3)" in line
        for line in log
    )
    assert any(
        line.startswith("The attackers won the assault; they may follow through") for line in log
    )
    assert any(f"{d1.name} taken prisoner" in line for line in log)
    assert_rebuild_keeps_rows()


def battle_campaign(battle):
    return uuid.UUID(str(battle["campaign_id"]))


def test_a_defender_failing_to_stand_withdraws_and_loses_confidence(umpire_api, battle, sides):
    blue, red = sides
    response = assault(
        umpire_api,
        battle,
        {"unit_id": str(blue.id), "target_id": str(red.id), "terror": True, "dice": [8, 2]},
    )
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    p = event["payload"]
    # Odds +1 doubled for terror (P.43): target 4; 2 is half of it or less: two levels.
    assert (p["result"], p["stand_threat_level"], p["round"]) == ("defender_withdrew", 2, 0)
    assert p["tests"][1]["confidence_after"] == "shaken"
    assert Participant.objects.get(battle_id=battle["id"], unit_id=red.id).confidence == "shaken"
    assert p["follow_through_threat_level"] == 2
    assert set(in_assault(umpire_api, battle).values()) == {None}
    assert_rebuild_keeps_rows()


def test_a_failed_charge_ends_the_assault(umpire_api, battle, sides):
    blue, red = sides
    response = assault(
        umpire_api, battle, {"unit_id": str(blue.id), "target_id": str(red.id), "dice": [2]}
    )
    assert response.status_code == 201, response.json()
    assert response.json()["events"][0]["payload"]["result"] == "charge_failed"
    assert battle_log(umpire_api, battle)[-1].startswith("The charge did not go in")


def test_refusals_append_nothing(umpire_api, battle, sides, forces):
    blue, red = sides
    campaign_id = battle_campaign(battle)
    before = store.last_sequence(campaign_id)
    command = Unit.objects.get(force_id=forces["Blue"].id, kind="command")  # not committed
    cases: list[tuple[dict[str, Any], str]] = [
        ({"unit_id": str(command.id), "target_id": str(red.id)}, "battle.not_a_participant"),
        ({"unit_id": str(blue.id), "target_id": str(blue.id)}, "action.invalid"),
        (
            {"unit_id": str(blue.id), "target_id": str(squads(forces["Blue"])[1].id)},
            "action.invalid",
        ),
        (
            {
                "unit_id": str(blue.id),
                "target_id": str(red.id),
                "spares": [{"trooper_id": str(members(blue)[0].id), "against": str(red.id)}],
            },
            "close_assault.pairing",
        ),
    ]
    for body, code in cases:
        response = assault(umpire_api, battle, {**body, "dice": [8, 6]})
        assert 400 <= response.status_code < 500, response.json()
        assert response.json()["code"] == code, response.json()
    # Wrong dice: a D8 cannot show 9; too few dice for the round.
    for dice in ([9], [8, 6]):
        response = assault(
            umpire_api,
            battle,
            {"unit_id": str(blue.id), "target_id": str(red.id), "dice": dice},
        )
        assert 400 <= response.status_code < 500, response.json()
        assert response.json()["code"].startswith("dice."), response.json()
    assert store.last_sequence(campaign_id) == before

    # While the assault goes on, another unit cannot take the next round, nor assault the
    # units in it.
    started = assault(
        umpire_api,
        battle,
        {"unit_id": str(blue.id), "target_id": str(red.id), "dice": [8, 6, 5, 7, 2, 4, 4, 7, 8]},
    )
    assert started.status_code == 201, started.json()
    before = store.last_sequence(campaign_id)
    other = squads(forces["Blue"])[1]
    response = assault(
        umpire_api, battle, {"unit_id": str(other.id), "target_id": str(red.id), "dice": [8]}
    )
    assert response.status_code == 409, response.json()
    assert response.json()["code"] == "close_assault.other_attackers"
    response = assault(
        umpire_api,
        battle,
        {"unit_id": str(squads(forces["Red"])[1].id), "target_id": str(blue.id), "dice": [8]},
    )
    assert response.status_code == 409, response.json()
    assert response.json()["code"] == "close_assault.engaged"
    assert store.last_sequence(campaign_id) == before


def test_the_server_rolls_the_assault_to_its_end(umpire_api, battle, sides):
    """Server dice in a job, round after round, until the assault is over: every die is
    recorded as the server's, and the rebuild keeps every state."""
    blue, red = sides
    body = {"unit_id": str(blue.id), "target_id": str(red.id)}
    results = []
    for _ in range(20):
        response = assault(umpire_api, battle, body)
        assert response.status_code == 202, response.json()
        job = umpire_api.get(response.headers["Location"]).json()
        assert job["status"] == "succeeded", job
        fought = job["events"][0]["payload"]
        assert {d["source"] for d in fought["dice"]} == {"server"}
        results.append(fought["result"])
        assert_rebuild_keeps_rows()
        if fought["result"] != "another_round":
            break
    assert results[-1] != "another_round"
    assert set(results[:-1]) <= {"another_round"}
    assert set(in_assault(umpire_api, battle).values()) == {None}


def test_charging_from_in_position_by_the_option(umpire_api, battle, sides, campaign):
    """SG2-C 2.4: charging from In Position adds +1 to the reaction test (target 3 for a
    Regular LV 2 at CO): a 3 fails; with the option off it passes."""
    blue, red = sides
    body = {"unit_id": str(blue.id), "target_id": str(red.id), "in_position": True}
    failed = assault(umpire_api, battle, {**body, "dice": [3]})
    assert failed.status_code == 201, failed.json()
    charge = failed.json()["events"][0]["payload"]["tests"][0]
    assert (charge["threat_level"], charge["target"], charge["passed"]) == (1, 3, False)
    changed = umpire_api.patch(
        f"/api/v1/campaigns/{campaign.id}/options/",
        {"changes": {"assault_from_in_position": False}, "reason": "the scenario says so"},
    )
    assert changed.status_code == 200, changed.json()
    passed = assault(umpire_api, battle, {**body, "dice": [3, 8, 5, 7, 2, 4, 4, 7, 8]})
    assert passed.status_code == 201, passed.json()
    charge = passed.json()["events"][0]["payload"]["tests"][0]
    assert (charge["threat_level"], charge["target"], charge["passed"]) == (0, 2, True)


def test_a_combined_assault_goes_on_without_the_unit_that_failed_to_charge(
    umpire_api, battle, sides, forces
):
    """P.43: each unit of a combined assault tests to charge; Recon Squad 2 fails and stays
    out, Recon Squad 1 goes on and adds +1 to its further tests."""
    blue, red = sides
    partner = squads(forces["Blue"])[1]  # Recon Squad 2: Veteran (D10), LV 2
    kill(umpire_api, battle, *members(partner)[2:])
    # Charges: Squad 1 D8 8 passes, Squad 2 D10 1 fails. Stand: odds 3 to 2, +1, 6 passes.
    # The round as in the first test; end of round: the defender at +1 (7 passes), Squad 1 at
    # +1 for its casualty and +1 for its partner's failure: target 4, 8 passes.
    response = assault(
        umpire_api,
        battle,
        {
            "unit_id": str(blue.id),
            "joined_by": [str(partner.id)],
            "target_id": str(red.id),
            "defenders_in_cover": True,
            "dice": [8, 1, 6, 5, 7, 2, 4, 4, 7, 8],
        },
    )
    assert response.status_code == 201, response.json()
    p = response.json()["events"][0]["payload"]
    assert [(t["unit_id"], t["kind"], t["threat_level"], t["passed"]) for t in p["tests"]] == [
        (str(blue.id), "charge", 0, True),
        (str(partner.id), "charge", 0, False),
        (str(red.id), "stand", 1, True),
        (str(red.id), "end_of_round", 1, True),
        (str(blue.id), "end_of_round", 2, True),
    ]
    assert p["fell_back"] == [str(partner.id)]
    assert p["result"] == "another_round"
    state = in_assault(umpire_api, battle)
    assert state[partner.name] is None
    assert state[blue.name]["round"] == 1
    assert state[red.name]["against"] == [str(blue.id)]
    # The next round is Squad 1's alone.
    again = assault(
        umpire_api,
        battle,
        {"unit_id": str(blue.id), "joined_by": [str(partner.id)], "target_id": str(red.id)},
    )
    assert again.status_code == 409, again.json()
    assert again.json()["code"] == "close_assault.other_attackers"
    assert_rebuild_keeps_rows()


def test_a_side_may_break_off_between_rounds(umpire_api, battle, sides):
    """P.42: the assault goes on until a side falls back, by failing a test or by choice. After
    the first test's round 1 the defenders pull back: the attackers have won, and the fates of
    the downed are rolled: a3 6 stunned and back in action, d1 4 wounded and taken prisoner."""
    blue, red = sides
    a3 = members(blue)[2]
    d1 = members(red)[0]
    body = {"unit_id": str(blue.id), "target_id": str(red.id)}
    refused = assault(umpire_api, battle, {**body, "breaks_off": "defender", "dice": [8]})
    assert (refused.status_code, refused.json()["field"]) == (400, "breaks_off")
    first = assault(
        umpire_api,
        battle,
        {**body, "defenders_in_cover": True, "dice": [8, 6, 5, 7, 2, 4, 4, 7, 8]},
    )
    assert first.status_code == 201, first.json()
    assert first.json()["events"][0]["payload"]["result"] == "another_round"
    done = assault(umpire_api, battle, {**body, "breaks_off": "defender", "dice": [6, 4]})
    assert done.status_code == 201, done.json()
    fought, blue_fates, red_fates = done.json()["events"]
    p = fought["payload"]
    assert (p["result"], p["broke_off"], p["round"], p["follow_through_threat_level"]) == (
        "attacker_won",
        "defender",
        0,
        2,
    )
    assert blue_fates["payload"]["casualties"] == []
    assert [d["result"] for d in blue_fates["payload"]["dice"]] == [6]
    assert [(c["trooper_id"], c["status_after"]) for c in red_fates["payload"]["casualties"]] == [
        (str(d1.id), "captured")
    ]
    assert Trooper.objects.get(pk=a3.id).status == "fit"
    assert Trooper.objects.get(pk=d1.id).status == "captured"
    log = battle_log(umpire_api, battle)
    assert any(line.startswith("Squad 1 fell back by choice from close assault 1") for line in log)
    assert set(in_assault(umpire_api, battle).values()) == {None}
    assert_rebuild_keeps_rows()


def test_the_turn_cannot_end_in_the_middle_of_an_assault_p42(umpire_api, battle, sides):
    """P.42: a close assault is fought to its end within the game turn: the turn does not end
    while one is undecided."""
    blue, red = sides
    body = {
        "unit_id": str(blue.id),
        "target_id": str(red.id),
        "defenders_in_cover": True,
        "weapons": [{"trooper_id": str(members(blue)[0].id), "weapon": "firearm"}],
    }
    first = assault(umpire_api, battle, {**body, "dice": [8, 6, 5, 7, 2, 4, 4, 7, 8]})
    assert first.json()["events"][0]["payload"]["result"] == "another_round"
    before = store.last_sequence(battle_campaign(battle))
    refused = umpire_api.post(f"/api/v1/battles/{battle['id']}/turn/")
    assert (refused.status_code, refused.json()["code"]) == (409, "close_assault.undecided")
    assert store.last_sequence(battle_campaign(battle)) == before
