"""Fire names a confidence test only when the P.20 table calls for one at the target's mission
motivation: at HIGH motivation casualties from fire and a first suppression are NTR."""

from __future__ import annotations

import pytest

from tests.battles.conftest import squads

pytestmark = pytest.mark.django_db


@pytest.fixture
def plan_body(plan_body):
    plan_body["sides"][1]["mission_motivation"] = "high"
    return plan_body


def test_casualties_from_fire_call_for_no_test_at_high_motivation_p20(umpire_api, battle, forces):
    firer, target = squads(forces["Blue"])[0], squads(forces["Red"])[1]
    response = umpire_api.post(
        f"/api/v1/battles/{battle['id']}/actions/direct_fire/",
        {
            "unit_id": str(firer.id),
            "target_id": str(target.id),
            "men_firing": 5,
            "small_arms_firepower": 2,
            "impact_die": 10,
            "range_bands": 2,
            "cover": "soft",
            "support_weapons": [{"firepower_die": 8}],
            # As P.35-36: 18 against a D8, three potential hits; the third hit kills (9 v 4).
            "dice": [3, 6, 7, 5, 2, 1, 2, 2, 3, 9, 4, 5],
        },
    )
    assert response.status_code == 201, response.json()
    fired, casualties = response.json()["events"]
    assert casualties["payload"]["casualties"]
    assert fired["payload"]["confidence_test_for"] == []
    log = [
        line["summary"]
        for line in umpire_api.get(f"/api/v1/battles/{battle['id']}/log/").json()["results"]
    ]
    assert not any("must take a confidence test" in line for line in log)
