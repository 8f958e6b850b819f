"""Fast and Dirty between battles costs the same queries for a platoon as for a company.

The rifle platoon of ``examples/fad-rifle-platoon.yaml`` and a company of four such platoons go
through the same battle, losses in the first platoon only, and then through the after-action
(FaD p.64-66) with the table's dice and with the server's (the resolution job), the spending of
campaign points and the reinforcement roll. Each is counted, and the company's count is the
platoon's: nothing in them goes one query per unit or per trooper.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import yaml
from django.db import connection
from django.test.utils import CaptureQueriesContext

from eventlog import jobs
from rosters.models import Force, Trooper, Unit, Vehicle
from tests.battles.conftest import EXAMPLES
from tests.battles.test_after_action_fad import INSURGENTS
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

PLATOON = "fad-rifle-platoon.yaml"
PLATOONS = ("2nd", "3rd", "4th", "5th")
# Every die of the after-action at the table shows this: half the losses come back (p.66 step
# 1), a squad that lost half keeps its quality (step 3), every resolve stays (step 4).
FACE = 4
# The most queries any of the steps may cost, for the platoon or the company: the after-action job
# costs 49 (it cost 58 for the platoon and 85 for the company while each loss and each unit that
# lost men read its row on its own).
MAX_QUERIES = 50


def _company() -> str:
    """Four copies of the rifle platoon under one company; each unit's name says its platoon."""
    roster = yaml.safe_load((EXAMPLES / PLATOON).read_text())
    (platoon,) = roster["units"]
    platoons = []
    for number in PLATOONS:
        copy = yaml.safe_load(yaml.safe_dump(platoon))
        copy["name"] = f"{number} Platoon"
        for unit in copy["units"]:
            if number != PLATOONS[0]:
                unit["name"] = f"{unit['name']}, {number} Platoon"
        platoons.append(copy)
    roster["name"] = "A Company, Kessler's Rifles"
    roster["units"] = [{"name": "A Company", "kind": "company", "units": platoons}]
    return yaml.safe_dump(roster, sort_keys=False)


def _queries(step, *args: Any, **kwargs: Any) -> tuple[int, Any]:
    with CaptureQueriesContext(connection) as captured:
        result = step(*args, **kwargs)
    # Not counted: the note of when the token was last used, written once every few minutes.
    return sum('"accounts_apitoken" SET' not in q["sql"] for q in captured.captured_queries), result


def _fought(umpire, api, federation: str) -> tuple[Any, dict[str, Force], str]:
    """A FaD campaign whose battle has ended: every platoon's first squad lost two dead and a
    wounded man, its second squad half its men; the insurgents a man and their Technical."""
    campaign = campaign_for(umpire, name="Kessler valley", ruleset="fad")
    for source, text in ((PLATOON, federation), ("insurgents", INSURGENTS)):
        response = api.post(
            f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text, "source": source}
        )
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    planned = api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": "Valley road",
            "day": 2,
            "attacker": "Federation",
            "sides": [
                {"side": side, "force_ids": [str(forces[side].id)]}
                for side in ("Federation", "Insurgents")
            ],
        },
    )
    assert planned.status_code == 201, planned.json()
    url = f"/api/v1/battles/{planned.json()['id']}/"
    manned = Trooper.objects.filter(campaign_id=campaign.id).values_list("unit_id", flat=True)
    committed = api.post(f"{url}commit/", {"unit_ids": [str(u) for u in dict.fromkeys(manned)]})
    assert committed.status_code == 200, committed.json()
    assert api.post(f"{url}start/").status_code == 200

    def losses(unit: Unit, *, killed=(), wounded=(), vehicles=()) -> None:
        men = list(Trooper.objects.filter(unit_id=unit.id).order_by("order"))
        body = {
            "unit_id": str(unit.id),
            "casualties": [{"trooper_id": str(men[i].id), "result": "killed"} for i in killed]
            + [{"trooper_id": str(men[i].id), "result": "wounded"} for i in wounded],
            "vehicles": [
                {"vehicle_id": str(Vehicle.objects.get(unit_id=unit.id).id), "condition": c}
                for c in vehicles
            ],
            "dice": [],
        }
        response = api.post(f"{url}actions/fad_losses/", body)
        assert response.status_code == 201, response.json()

    fed, ins = forces["Federation"], forces["Insurgents"]
    for first, second in zip(
        _squads(fed, "Rifle Squad 1"), _squads(fed, "Rifle Squad 2"), strict=True
    ):
        losses(first, killed=(5, 6), wounded=(7,))
        losses(second, killed=(4, 5, 6, 7))
    losses(
        Unit.objects.get(force_id=ins.id, name="Militia Squad"),
        killed=(4,),
        vehicles=("destroyed",),
    )
    ended = api.post(f"{url}end/", {"winner": "Federation"})
    assert ended.status_code == 200, ended.json()
    return campaign, forces, url


def _squads(force: Force, name: str) -> list[Unit]:
    """The squad of that name in each platoon of the force."""
    return list(Unit.objects.filter(force_id=force.id, name__startswith=name).order_by("order"))


def _table_dice(api, url: str) -> list[int]:
    """``FACE`` for every die the after-action's prompt asks the table for."""
    faces: list[int] = []
    while True:
        prompt = api.get(f"{url}after-action/", {"dice": ",".join(map(str, faces))}).json()
        if prompt["complete"]:
            return faces
        faces.append(FACE)


def _between_battles(umpire, api, federation: str) -> dict[str, int]:
    queries: dict[str, int] = {}
    _, forces, url = _fought(umpire, api, federation)
    dice = _table_dice(api, url)
    queries["after_action"], resolved = _queries(api.post, f"{url}after-action/", {"dice": dice})
    assert resolved.status_code == 201, resolved.json()
    fed = forces["Federation"]
    squad = Unit.objects.get(force_id=fed.id, name="Rifle Squad 2")
    queries["campaign_points_spend"], spent = _queries(
        api.post,
        f"/api/v1/forces/{fed.id}/campaign-points/spend/",
        {"purchases": [{"kind": "resolve_step", "target": str(squad.id)}]},
    )
    assert spent.status_code == 201, spent.json()
    queries["reinforcements_roll"], rolled = _queries(
        api.post,
        f"/api/v1/forces/{fed.id}/reinforcements/",
        {"assignment": [{"unit_id": str(squad.id), "troopers": 1}], "dice": [1, 1]},
    )
    assert rolled.status_code == 201, rolled.json()
    return queries


def _job_queries(umpire, api, federation: str, monkeypatch) -> int:
    """The queries of the after-action's resolution job, with the server's dice."""
    _, _, url = _fought(umpire, api, federation)
    with monkeypatch.context() as patched:
        patched.setattr(jobs, "dispatch", lambda job_id: None)
        response = api.post(f"{url}after-action/", {})
    assert response.status_code == 202, response.json()
    count, job = _queries(jobs.run_job, uuid.UUID(response.json()["id"]))
    assert job.status == "succeeded", job.error
    return count


def test_the_company_is_four_platoons():
    roster = yaml.safe_load(_company())
    (company,) = roster["units"]
    assert len(company["units"]) == 4
    assert sum(len(u["troopers"]) for p in company["units"] for u in p["units"]) == 4 * 26


def test_fad_between_battles_costs_the_same_queries_for_a_platoon_as_for_a_company(
    umpire, umpire_api
):
    platoon = _between_battles(umpire, umpire_api, (EXAMPLES / PLATOON).read_text())
    company = _between_battles(umpire, umpire_api, _company())
    assert company == platoon
    assert max(company.values()) <= MAX_QUERIES


def test_the_fad_after_action_job_costs_the_same_queries_for_a_platoon_as_for_a_company(
    umpire, umpire_api, monkeypatch
):
    platoon = _job_queries(umpire, umpire_api, (EXAMPLES / PLATOON).read_text(), monkeypatch)
    company = _job_queries(umpire, umpire_api, _company(), monkeypatch)
    assert company == platoon
    assert company <= MAX_QUERIES
