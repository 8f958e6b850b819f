"""After-action resolution of SG2 battles through HTTP with table dice (SG2 P.60-61).

Every expected number is worked out by hand from the book (pages cited), not by calling the
rules code.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command

from battles.models import Battle
from eventlog import jobs, projections, store
from rosters.models import Force, Trooper, Unit, UnitHistoryEntry, Vehicle
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

BLUE = """\
name: Blue patrol
side: Blue
units:
  - name: Alpha Squad
    kind: squad
    quality: regular
    leadership: 2
    fatigue: fresh
    toe_strength: 4
    troopers:
      - {name: Sgt Able, role: leader, armour_die: 4}
      - {name: Pte Baker, armour_die: 4}
      - {name: Pte Charlie, armour_die: 4}
      - {name: Pte Dog, armour_die: 4}
    vehicles:
      - {name: Two-One, class: apc, size: 2, capacity: 8, armour: 2}
"""

RED = """\
name: Red militia
side: Red
units:
  - name: Red Squad
    kind: squad
    quality: green
    leadership: 3
    troopers:
      - {name: Boss Red, role: leader, armour_die: 4}
      - {name: Gun Red, armour_die: 4}
"""


@pytest.fixture
def setup(umpire, umpire_api):
    campaign = campaign_for(umpire, name="Kessler campaign")
    for text in (BLUE, RED):
        response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    alpha = Unit.objects.get(force_id=forces["Blue"].id, name="Alpha Squad")
    red = Unit.objects.get(force_id=forces["Red"].id, name="Red Squad")
    return campaign, forces, alpha, red


def start(api, campaign, forces, units, *, name: str, day: int) -> str:
    """Plan, commit and start a battle; returns its URL."""
    plan = api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": name,
            "day": day,
            "attacker": "Blue",
            "sides": [
                {"side": "Blue", "force_ids": [str(forces["Blue"].id)]},
                {"side": "Red", "force_ids": [str(forces["Red"].id)]},
            ],
        },
    )
    assert plan.status_code == 201, plan.json()
    url = f"/api/v1/battles/{plan.json()['id']}/"
    committed = api.post(f"{url}commit/", {"unit_ids": [str(u.id) for u in units]})
    assert committed.status_code == 200, committed.json()
    assert api.post(f"{url}start/").status_code == 200
    return url


def end(api, url, *, winner: str = "Blue", objectives=()) -> None:
    body = {"winner": winner, "objectives_met": [str(u.id) for u in objectives]}
    response = api.post(f"{url}end/", body)
    assert response.status_code == 200, response.json()


def after_action(api, url, dice) -> list[dict]:
    response = api.post(f"{url}after-action/", {"dice": dice})
    assert response.status_code == 201, response.json()
    events = response.json()["events"]
    assert events[-1]["type"] == "battles.AfterActionResolved"
    return events


def of_type(events, type_name):
    return [e["payload"] for e in events if e["type"] == type_name]


def act(api, url, action, body) -> None:
    response = api.post(f"{url}actions/{action}/", body)
    assert response.status_code == 201, (action, response.json())


def refused(api, campaign, url, body, status, code) -> None:
    before = store.last_sequence(campaign.id)
    response = api.post(f"{url}after-action/", body)
    assert response.status_code == status, response.json()
    assert response.json()["code"] == code
    assert store.last_sequence(campaign.id) == before


@pytest.mark.parametrize("sixth_battle_dice", [[], [3, 5]])
def test_the_books_exhausted_unit_kept_in_the_line(setup, umpire_api, sixth_battle_dice):
    """SG2 P.61 worked example: a Fresh unit is Tired after battle 1 and Exhausted after
    battle 2. Sent straight into battle 3 it fights Exhausted and rolls a D6 with 3 battles
    counted: 4-6 carries on. Kept in for battle 4 it needs 5-6, after battle 5 a 6, and after a
    sixth battle it cannot pass (6 <= 6): no die is needed and it is withdrawn. An umpire who
    rolls the sixth battle's dice all the same has them recorded, not refused."""
    campaign, forces, alpha, red = setup
    # Red, Fresh too, tests alongside from battle 3: its die (a 6) follows Alpha's.
    dice_by_battle = {1: [], 2: [], 3: [4, 6], 4: [5, 6], 5: [6, 6], 6: sixth_battle_dice}
    needed = {3: 4, 4: 5, 5: 6, 6: None}
    fatigue = {1: ("fresh", "tired"), 2: ("tired", "exhausted")}
    for n, dice in dice_by_battle.items():
        url = start(umpire_api, campaign, forces, [alpha, red], name=f"Battle {n}", day=n)
        end(umpire_api, url)
        if n == 6:
            prompt = umpire_api.get(f"{url}after-action/").json()
            assert [(d["for"], d["die"], d["moot"]) for d in prompt["dice"]] == [
                (str(alpha.id), 6, True),
                (str(red.id), 6, True),
            ]
            assert prompt["complete"] is True
        events = after_action(umpire_api, url, dice)
        (dropped,) = [p for p in of_type(events, "battles.UnitFatigueDropped")
                      if p["unit_id"] == str(alpha.id)]  # fmt: skip
        assert dropped["battles_since_rest"] == n
        assert (dropped["fatigue_before"], dropped["fatigue_after"]) == fatigue.get(
            n, ("exhausted", "exhausted")
        )
        tests = [p for p in of_type(events, "battles.WithdrawalTested")
                 if p["unit_id"] == str(alpha.id)]  # fmt: skip
        if n < 3:
            assert tests == []
            continue
        (test,) = tests
        assert test["battles_since_rest"] == n
        assert test["needed"] == needed[n]
        assert [d["result"] for d in test["dice"]] == dice[:1]
        assert all(d["source"] == "table" for d in test["dice"])
        assert all(d["moot"] is (n == 6) for d in test["dice"])
        assert test["unfit"] is (n == 6)
        alpha.refresh_from_db()
        assert alpha.status == ("withdrawn" if n == 6 else "in_the_line")
        assert alpha.rest_days == 0
        assert alpha.battles_since_rest == n

    summaries = list(
        UnitHistoryEntry.objects.filter(
            unit_id=alpha.id, event_type="battles.WithdrawalTested"
        ).values_list("summary", flat=True)
    )
    assert summaries == [
        "Exhausted after battle 3: withdrawal test d6 4 needed 4+: passed, it stays in the line.",
        "Exhausted after battle 4: withdrawal test d6 5 needed 5+: passed, it stays in the line.",
        "Exhausted after battle 5: withdrawal test d6 6 needed 6+: passed, it stays in the line.",
        "Exhausted after battle 6: cannot pass the withdrawal test "
        f"({'d6 3 rolled all the same' if sixth_battle_dice else 'no die'}): withdrawn, unfit "
        "for combat.",
    ]
    # Withdrawn, it cannot be sent into a seventh battle until R&R restores it (P.61).
    plan = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {"name": "Battle 7", "day": 7, "sides": [
            {"side": "Blue", "force_ids": [str(forces["Blue"].id)]},
            {"side": "Red", "force_ids": [str(forces["Red"].id)]},
        ]},
    ).json()  # fmt: skip
    before = store.last_sequence(campaign.id)
    response = umpire_api.post(
        f"/api/v1/battles/{plan['id']}/commit/", {"unit_ids": [str(alpha.id)]}
    )
    assert response.status_code == 409
    assert response.json()["code"] == "battle.unit_unavailable"
    assert store.last_sequence(campaign.id) == before


def test_quality_points_and_a_failed_withdrawal_test(setup, umpire_api):
    """P.60: a Regular unit on the winning side that meets its own objective earns 3 + 1 points
    a battle; at 8 it rises to Veteran and the points are used up. P.61: exhausted in battle 3,
    a D6 of 2 is not above 3 battles: unfit, withdrawn."""
    campaign, forces, alpha, red = setup
    for n, dice in ((1, []), (2, []), (3, [2, 6])):
        url = start(umpire_api, campaign, forces, [alpha, red], name="Kessler Ridge", day=n)
        end(umpire_api, url, objectives=[alpha])
        events = after_action(umpire_api, url, dice)
    (points,) = [p for p in of_type(events, "battles.QualityPointsAwarded")
                 if p["unit_id"] == str(alpha.id)]  # fmt: skip
    assert (points["quality_before"], points["quality_after"]) == ("veteran", "veteran")
    history = list(
        UnitHistoryEntry.objects.filter(unit_id=alpha.id).values_list("summary", flat=True)
    )
    assert "After Kessler Ridge (won, objective met): +4 quality points (4)." in history
    assert (
        "After Kessler Ridge (won, objective met): +4 quality points (8), Regular to Veteran."
        in (history)
    )
    assert (
        "Exhausted after battle 3: withdrawal test d6 2 needed 4+: withdrawn, unfit for combat."
        in history
    )
    alpha.refresh_from_db()
    assert (alpha.quality, alpha.experience_points, alpha.status) == ("veteran", 4, "withdrawn")
    # Red lost without meeting an objective: 1 point a battle (P.60), Green needs 5.
    red.refresh_from_db()
    assert (red.quality, red.experience_points) == ("green", 3)


def test_injured_recovery_vehicle_repair_and_refusals(setup, umpire_api):
    campaign, forces, alpha, red = setup
    url = start(umpire_api, campaign, forces, [alpha, red], name="Hill 402", day=5)
    troopers = {t.name: t for t in Trooper.objects.filter(unit_id=alpha.id)}

    def named(*names, result):
        act(umpire_api, url, "casualties", {
            "unit_id": str(alpha.id), "mode": "named", "dice": [],
            "casualties": [{"trooper_id": str(troopers[n].id), "result": result} for n in names],
        })  # fmt: skip

    # Baker is wounded and treated: D6 4, no medic, stabilised (P.39 3-5).
    named("Pte Baker", result="wounded")
    act(umpire_api, url, "medical_treatment", {"unit_id": str(alpha.id), "dice": [4]})
    named("Pte Charlie", result="wounded")
    named("Pte Dog", result="killed")
    # The APC: impact 2x3 = 6 against armour 5x2 = 10 does not penetrate; a location D6 of 1
    # is the suspension, where impact 7 beats the tracks' D10 4: IMMOBILISED (P.38-39).
    apc = Vehicle.objects.get(unit_id=alpha.id)
    act(umpire_api, url, "vehicle_hit", {
        "vehicle_id": str(apc.id), "impact_die": 12, "impact_multiplier": 3,
        "suspension": "tracked", "dice": [2, 5, 1, 7, 4],
    })  # fmt: skip

    refused(umpire_api, campaign, url, {"dice": []}, 409, "after_action.not_ended")
    end(umpire_api, url)
    # Too many dice: the resolution needs three here.
    refused(umpire_api, campaign, url, {"dice": [4, 3, 1, 5]}, 400, "dice.unused")

    # Baker (stabilised): recovery 4, in hospital 4 days, back on day 5 + 4 = 9 (P.61).
    # Charlie (untreated): the field treatment first, 3: stabilised; then recovery 1:
    # evacuated for good (1-2).
    events = after_action(umpire_api, url, [4, 3, 1])
    (recovered,) = of_type(events, "battles.CasualtiesRecovered")
    assert [(r["outcome"], r["days"], r["returns_on_day"]) for r in recovered["troopers"]] == [
        ("in_hospital", 4, 9),
        ("evacuated", None, None),
    ]
    assert [d["result"] for d in recovered["dice"]] == [4, 3, 1]
    baker = Trooper.objects.get(pk=troopers["Pte Baker"].id)
    assert (baker.status, baker.hospital_until_day, baker.days_in_hospital) == ("in_hospital", 9, 4)
    assert Trooper.objects.get(pk=troopers["Pte Charlie"].id).status == "evacuated"
    assert Trooper.objects.get(pk=troopers["Pte Dog"].id).status == "dead"
    assert Trooper.objects.get(pk=troopers["Sgt Able"].id).battles_fought == 1
    assert Trooper.objects.get(pk=troopers["Pte Dog"].id).battles_fought == 1
    # Immobilised: 1 day, doubled in the line (P.61): ready on day 7.
    apc.refresh_from_db()
    assert (apc.state, apc.repair_until_day) == ("immobilised", 7)
    assert Battle.objects.get(pk=url.split("/")[-2]).status == "resolved"

    refused(umpire_api, campaign, url, {"dice": []}, 409, "after_action.already_resolved")
    refused(umpire_api, campaign, url, {}, 409, "after_action.already_resolved")

    calendar = f"/api/v1/campaigns/{campaign.id}/calendar/"
    assert umpire_api.post(calendar, {"to_day": 6}).status_code in (200, 201)
    apc.refresh_from_db()
    assert apc.state == "immobilised"
    assert umpire_api.post(calendar, {"to_day": 7}).status_code in (200, 201)
    apc.refresh_from_db()
    assert (apc.state, apc.repair_until_day) == ("operational", None)
    assert UnitHistoryEntry.objects.filter(
        unit_id=alpha.id, summary="Day 7: Two-One repaired (immobilised to operational)."
    ).exists()

    before = projections.dump_rows(campaign.id)
    call_command("rebuild_projections", "--no-progress")
    assert projections.dump_rows(campaign.id) == before


def test_a_disabled_vehicle_waits_for_a_rear_area(setup, umpire_api):
    """P.61: a DISABLED vehicle is repaired in 3 days, and ONLY in a rear area."""
    campaign, forces, alpha, red = setup
    url = start(umpire_api, campaign, forces, [alpha, red], name="Hill 402", day=1)
    apc = Vehicle.objects.get(unit_id=alpha.id)
    # Impact 6x3 = 18 above armour 5x2 = 10 but not above twice it: DISABLED (P.38).
    act(umpire_api, url, "vehicle_hit", {
        "vehicle_id": str(apc.id), "impact_die": 12, "impact_multiplier": 3,
        "suspension": "tracked", "dice": [6, 5],
    })  # fmt: skip
    end(umpire_api, url)
    (repairs,) = of_type(after_action(umpire_api, url, []), "battles.VehiclesRecovered")
    assert repairs["vehicles"][0]["needs_rear_area"] is True
    calendar = f"/api/v1/campaigns/{campaign.id}/calendar/"
    umpire_api.post(calendar, {"to_day": 5})
    apc.refresh_from_db()
    assert (apc.state, apc.repair_until_day) == ("disabled", None)
    moved = umpire_api.post(
        f"/api/v1/units/{alpha.id}/move/", {"to": "rear_area", "reason": "refit"}
    )
    assert moved.status_code == 201, moved.json()
    umpire_api.post(calendar, {"to_day": 7})
    apc.refresh_from_db()
    assert (apc.state, apc.repair_until_day) == ("disabled", 8)
    umpire_api.post(calendar, {"to_day": 8})
    apc.refresh_from_db()
    assert apc.state == "operational"


def test_the_server_rolls_in_a_job(setup, umpire_api):
    campaign, forces, alpha, red = setup
    url = start(umpire_api, campaign, forces, [alpha, red], name="Hill 402", day=1)
    end(umpire_api, url, winner="draw")
    response = umpire_api.post(f"{url}after-action/", {})
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response["Location"]).json()
    assert job["status"] == "succeeded"
    battle = umpire_api.get(url).json()
    assert battle["status"] == "resolved"
    alpha.refresh_from_db()
    # A draw is 1 point (the digest's reading of P.60's silence).
    assert (alpha.experience_points, alpha.fatigue) == (1, "tired")
    refused(umpire_api, campaign, url, {}, 409, "after_action.already_resolved")


def test_one_resolution_at_a_time(setup, umpire_api, monkeypatch):
    """While the server's resolution is on its way, another request for the battle, with or
    without table dice, is refused; the job itself still runs."""
    campaign, forces, alpha, red = setup
    url = start(umpire_api, campaign, forces, [alpha, red], name="Hill 402", day=1)
    end(umpire_api, url, winner="draw")
    monkeypatch.setattr(jobs, "dispatch", lambda job_id: None)  # the worker is busy
    response = umpire_api.post(f"{url}after-action/", {})
    assert response.status_code == 202, response.json()
    job_id = response.json()["id"]
    assert response.json()["status"] == "pending"
    refused(umpire_api, campaign, url, {}, 409, "after_action.already_requested")
    refused(umpire_api, campaign, url, {"dice": []}, 409, "after_action.already_requested")
    job = jobs.run_job(job_id)
    assert job is not None
    assert job.status == "succeeded"
    assert umpire_api.get(url).json()["status"] == "resolved"
    refused(umpire_api, campaign, url, {}, 409, "after_action.already_resolved")
