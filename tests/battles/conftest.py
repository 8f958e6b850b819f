"""A campaign with the two forces of the book's first scenario, and a battle between them."""

from __future__ import annotations

from pathlib import Path

import pytest

from rosters.models import Force, Trooper, Unit
from tests.factories import campaign_for

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def campaign(umpire, umpire_api):
    campaign = campaign_for(umpire, name="Recon in force")
    for name in ("sg2-scenario-1-blue.yaml", "sg2-scenario-1-red.yaml"):
        response = umpire_api.post(
            f"/api/v1/campaigns/{campaign.id}/forces/",
            {"roster": (EXAMPLES / name).read_text(), "source": name},
        )
        assert response.status_code == 201, response.json()
    return campaign


@pytest.fixture
def forces(campaign):
    return {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}


def squads(force) -> list[Unit]:
    return list(Unit.objects.filter(force_id=force.id, kind="squad").order_by("order"))


def members(unit) -> list[Trooper]:
    return list(Trooper.objects.filter(unit_id=unit.id).order_by("order"))


@pytest.fixture
def plan_body(forces):
    return {
        "name": "Recon in force",
        "day": 1,
        "scenario": "SG2 scenario 1 (P.62)",
        "attacker": "Blue",
        "sides": [
            {
                "side": "Blue",
                "force_ids": [str(forces["Blue"].id)],
                "mission_motivation": "medium",
                "objectives": ["Locate the enemy platoon"],
                "casevac": {"on_call": True, "start_box": 2, "troop_capacity": 8},
            },
            {"side": "Red", "force_ids": [str(forces["Red"].id)], "mission_motivation": "medium"},
        ],
    }


@pytest.fixture
def battle(umpire_api, campaign, plan_body, forces):
    response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/battles/", plan_body)
    assert response.status_code == 201, response.json()
    battle = response.json()
    units = [str(u.id) for side in ("Blue", "Red") for u in squads(forces[side])]
    committed = umpire_api.post(f"/api/v1/battles/{battle['id']}/commit/", {"unit_ids": units})
    assert committed.status_code == 200, committed.json()
    started = umpire_api.post(f"/api/v1/battles/{battle['id']}/start/")
    assert started.status_code == 200, started.json()
    return started.json()
