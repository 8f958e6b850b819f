"""The after-action job and the calendar read and write a company in a fixed number of queries.

A reinforced combat company (SG2 P.8, 113 troopers in 25 units) fights a battle with casualties;
its after-action resolution with the server's dice, then the calendar that rests its units and
brings its wounded back, cost no more queries than a platoon's.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import yaml
from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaigns.calendar import calendar_advance
from campaigns.models import Campaign
from eventlog import jobs
from rosters.models import Force, Trooper, TrooperRecordEntry, Unit
from tests.battles.conftest import EXAMPLES
from tests.battles.helpers import kill, stabilise, wound
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

COMPANY = "sg2-reinforced-combat-company.yaml"
RED = "sg2-scenario-1-red.yaml"
# The company's first mechanised platoon, the unit the smaller force is cut down to.
PLATOON_KEY = "p1"
# What the after-action job of the 113-trooper company may cost at most.
MAX_QUERIES = 39
# A face that stabilises an untreated casualty (P.39: 3-5) and sends an injured trooper to
# hospital for a few days rather than for good (P.61).
HOSPITAL_FACE = 4


def _one_platoon(company: str) -> str:
    """The company's roster with only its first platoon left under the company."""
    roster = yaml.safe_load(company)
    (top,) = roster["units"]
    top["units"] = [unit for unit in top["units"] if unit.get("key") == PLATOON_KEY]
    return yaml.safe_dump(roster, sort_keys=False)


def _ended_battle(umpire, api, blue_roster: str) -> tuple[Any, dict[str, Any]]:
    """A campaign where ``blue_roster`` and the Red platoon of SG2 scenario 1 fought a battle
    that Blue won with every unit that has men committed, and casualties on both sides: the
    first squad of Blue's first platoon has one man dead, one stabilised and one left wounded;
    Red's first squad one stabilised."""
    campaign = campaign_for(umpire, name="Company after action")
    for source, text in ((COMPANY, blue_roster), (RED, (EXAMPLES / RED).read_text())):
        response = api.post(
            f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text, "source": source}
        )
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    plan = api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": "Hill 402",
            "day": 1,
            "attacker": "Blue",
            "sides": [
                {"side": "Blue", "force_ids": [str(forces["Blue"].id)]},
                {"side": "Red", "force_ids": [str(forces["Red"].id)]},
            ],
        },
    )
    assert plan.status_code == 201, plan.json()
    battle = plan.json()
    url = f"/api/v1/battles/{battle['id']}/"
    manned = Trooper.objects.filter(campaign_id=campaign.id).values_list("unit_id", flat=True)
    committed = api.post(f"{url}commit/", {"unit_ids": [str(u) for u in dict.fromkeys(manned)]})
    assert committed.status_code == 200, committed.json()
    assert api.post(f"{url}start/").status_code == 200

    def first_squad(side: str) -> list[Trooper]:
        squad = (
            Unit.objects.filter(force_id=forces[side].id, kind="squad").order_by("order").first()
        )
        assert squad is not None
        return list(Trooper.objects.filter(unit_id=squad.id).order_by("order"))

    blue, red = first_squad("Blue"), first_squad("Red")
    kill(api, battle, blue[1])
    stabilise(api, battle, blue[2], red[1])
    wound(api, battle, blue[3])
    ended = api.post(f"{url}end/", {"winner": "Blue", "objectives_met": []})
    assert ended.status_code == 200, ended.json()
    return campaign, battle


def _pending_after_action(api, battle, monkeypatch) -> str:
    """Ask for the after-action with the server's dice, its job left for the caller to run."""
    with monkeypatch.context() as patched:
        patched.setattr(jobs, "dispatch", lambda job_id: None)
        response = api.post(f"/api/v1/battles/{battle['id']}/after-action/", {})
    assert response.status_code == 202, response.json()
    return response.json()["id"]


def _run(job_id: str) -> None:
    job = jobs.run_job(uuid.UUID(job_id))
    assert job is not None
    assert job.status == "succeeded", job.error


def test_the_companys_after_action_job_costs_a_bounded_number_of_queries(
    umpire, umpire_api, monkeypatch, django_assert_max_num_queries
):
    company = (EXAMPLES / COMPANY).read_text()
    campaign, battle = _ended_battle(umpire, umpire_api, company)
    blue = Force.objects.get(campaign_id=campaign.id, side="Blue")
    assert Trooper.objects.filter(force_id=blue.id).count() == 113
    job_id = _pending_after_action(umpire_api, battle, monkeypatch)
    with django_assert_max_num_queries(MAX_QUERIES):
        _run(job_id)
    assert umpire_api.get(f"/api/v1/battles/{battle['id']}/").json()["status"] == "resolved"
    # Every Blue trooper who fought counts the battle; the dead man too (he fought it).
    fought = Trooper.objects.filter(force_id=blue.id)
    assert set(fought.values_list("battles_fought", flat=True)) == {1}


def test_the_after_action_job_costs_the_same_queries_for_a_platoon_as_for_the_company(
    umpire, umpire_api, monkeypatch
):
    def queries_of_the_job(blue_roster: str) -> int:
        _, battle = _ended_battle(umpire, umpire_api, blue_roster)
        job_id = _pending_after_action(umpire_api, battle, monkeypatch)
        with CaptureQueriesContext(connection) as captured:
            _run(job_id)
        return len(captured)

    company = (EXAMPLES / COMPANY).read_text()
    platoon = queries_of_the_job(_one_platoon(company))
    assert queries_of_the_job(company) == platoon


def _rested_and_healed_after(umpire, api, blue_roster: str) -> tuple[Any, int]:
    """After the battle and its after-action, every unit with men of both forces sent to a rear
    area: the campaign and the queries advancing its calendar 20 days costs, in which every unit
    rests a level (P.61) and the hospitalised come back."""
    campaign, battle = _ended_battle(umpire, api, blue_roster)
    # Table dice, all 4s, so the injured are in hospital (P.61) and back by day 21 whatever the
    # campaign's seed: the wounded man's treatment and recovery, then one recovery for each of
    # the two stabilised (Blue's, then Red's).
    resolved = api.post(
        f"/api/v1/battles/{battle['id']}/after-action/", {"dice": [HOSPITAL_FACE] * 4}
    )
    assert resolved.status_code == 201, resolved.json()
    manned = Trooper.objects.filter(campaign_id=campaign.id).values_list("unit_id", flat=True)
    for unit in dict.fromkeys(manned):
        moved = api.post(f"/api/v1/units/{unit}/move/", {"to": "rear_area", "reason": "refit"})
        assert moved.status_code == 201, moved.json()
    with CaptureQueriesContext(connection) as captured:
        calendar_advance(campaign=Campaign.objects.get(pk=campaign.id), actor=umpire, days=20)
    return campaign, len(captured)


def test_the_calendar_costs_the_same_queries_for_a_platoon_as_for_the_company(umpire, umpire_api):
    company = (EXAMPLES / COMPANY).read_text()
    _, platoon = _rested_and_healed_after(umpire, umpire_api, _one_platoon(company))
    campaign, queries = _rested_and_healed_after(umpire, umpire_api, company)
    assert queries == platoon
    # What it did: every unit that fought rested from Tired, the man in hospital is back.
    blue = Force.objects.get(campaign_id=campaign.id, side="Blue")
    assert set(Unit.objects.filter(force_id=blue.id).values_list("fatigue", flat=True)) <= {
        "fresh",
        "",
    }
    assert not Trooper.objects.filter(campaign_id=campaign.id, status="in_hospital").exists()
    back = TrooperRecordEntry.objects.filter(
        campaign_id=campaign.id, event_type="rosters.TrooperReturnedToDuty"
    )
    assert back.count() == 3
