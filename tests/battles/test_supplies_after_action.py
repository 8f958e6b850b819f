"""Supplies and rear areas in the after-action and the repairs, through HTTP (SG2 P.61).

P.61: every time assumes "a safe area with adequate supplies" and "sufficient engineering
backup"; "in the field and/or without suitable supplies" DOUBLE all times given. Repairing a
DISABLED vehicle takes 3 days and "may ONLY be carried out with full engineering facilities in a
rear area". Injured troops return "after the number of days equal to the score rolled".
"""

from __future__ import annotations

import pytest

from rosters.models import Force, Trooper, Unit, Vehicle
from tests.battles.test_after_action import (
    BLUE,
    RED,
    act,
    after_action,
    end,
    of_type,
    setup,
    start,
)
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

__all__ = ["setup"]  # the fixture, shared with the after-action tests


def campaign_with(umpire, api, blue: str, **options):
    campaign = campaign_for(umpire, options=options or None)
    for text in (blue, RED):
        response = api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    alpha = Unit.objects.get(force_id=forces["Blue"].id, name="Alpha Squad")
    red = Unit.objects.get(force_id=forces["Red"].id, name="Red Squad")
    return campaign, forces, alpha, red


def cut_supplies(api, unit: Unit, reason: str = "the road is cut") -> None:
    response = api.post(f"/api/v1/units/{unit.id}/supplies/", {"supplied": False, "reason": reason})
    assert response.status_code == 201, response.json()


def wound_and_stabilise(api, url, unit: Unit, name: str) -> Trooper:
    trooper = Trooper.objects.get(unit_id=unit.id, name=name)
    act(api, url, "casualties", {
        "unit_id": str(unit.id), "mode": "named", "dice": [],
        "casualties": [{"trooper_id": str(trooper.id), "result": "wounded"}],
    })  # fmt: skip
    # D6 4 without a medic: stabilised (P.39 3-5).
    act(api, url, "medical_treatment", {"unit_id": str(unit.id), "dice": [4]})
    return trooper


def disable(api, url, vehicle: Vehicle) -> None:
    # Impact 6x3 = 18 above armour 5x2 = 10 but not above twice it: DISABLED (P.38).
    act(api, url, "vehicle_hit", {
        "vehicle_id": str(vehicle.id), "impact_die": 12, "impact_multiplier": 3,
        "suspension": "tracked", "dice": [6, 5],
    })  # fmt: skip


def test_the_injured_of_an_unsupplied_unit_take_twice_as_long_to_return_p61(setup, umpire_api):
    """Baker's recovery D6 of 4: 4 days in a supplied hospital (the existing after-action test),
    8 when his unit is short of supplies: back on day 5 + 8 = 13."""
    campaign, forces, alpha, red = setup
    cut_supplies(umpire_api, alpha)
    url = start(umpire_api, campaign, forces, [alpha, red], name="Hill 402", day=5)
    baker = wound_and_stabilise(umpire_api, url, alpha, "Pte Baker")
    end(umpire_api, url)
    (recovered,) = of_type(after_action(umpire_api, url, [4]), "battles.CasualtiesRecovered")
    assert [(r["outcome"], r["days"], r["returns_on_day"]) for r in recovered["troopers"]] == [
        ("in_hospital", 8, 13)
    ]
    baker.refresh_from_db()
    assert (baker.status, baker.hospital_until_day) == ("in_hospital", 13)


def test_the_injured_may_recover_with_their_unit_in_the_field(umpire, umpire_api):
    """Option ``injured_recovery_place = with_unit``: the injured recover where their unit is;
    in the line that is the field, doubled (P.61): 4 days become 8."""
    campaign, forces, alpha, red = campaign_with(
        umpire, umpire_api, BLUE, injured_recovery_place="with_unit"
    )
    url = start(umpire_api, campaign, forces, [alpha, red], name="Hill 402", day=5)
    wound_and_stabilise(umpire_api, url, alpha, "Pte Baker")
    end(umpire_api, url)
    (recovered,) = of_type(after_action(umpire_api, url, [4]), "battles.CasualtiesRecovered")
    assert [(r["days"], r["returns_on_day"]) for r in recovered["troopers"]] == [(8, 13)]


def test_a_disabled_vehicle_is_repaired_in_a_rear_area_not_a_safe_area_p61(setup, umpire_api):
    """A safe area rests and refits a unit, but only a rear area's full engineering facilities
    repair a DISABLED vehicle: in a safe area it waits; in a rear area it takes 3 days."""
    campaign, forces, alpha, red = setup
    url = start(umpire_api, campaign, forces, [alpha, red], name="Hill 402", day=1)
    apc = Vehicle.objects.get(unit_id=alpha.id)
    disable(umpire_api, url, apc)
    end(umpire_api, url)
    after_action(umpire_api, url, [])
    moves = f"/api/v1/units/{alpha.id}/move/"
    calendar = f"/api/v1/campaigns/{campaign.id}/calendar/"
    assert umpire_api.post(moves, {"to": "safe_area", "reason": "rest"}).status_code == 201
    umpire_api.post(calendar, {"to_day": 5})
    apc.refresh_from_db()
    assert (apc.state, apc.repair_until_day) == ("disabled", None)
    assert umpire_api.post(moves, {"to": "rear_area", "reason": "workshops"}).status_code == 201
    umpire_api.post(calendar, {"to_day": 6})
    apc.refresh_from_db()
    assert (apc.state, apc.repair_until_day) == ("disabled", 8)
    umpire_api.post(calendar, {"to_day": 8})
    apc.refresh_from_db()
    assert apc.state == "operational"


def test_a_disabled_vehicle_takes_twice_as_long_without_supplies_p61(setup, umpire_api):
    """In a rear area short of supplies the 3 days double: begun on day 5, ready on day 11."""
    campaign, forces, alpha, red = setup
    url = start(umpire_api, campaign, forces, [alpha, red], name="Hill 402", day=1)
    apc = Vehicle.objects.get(unit_id=alpha.id)
    disable(umpire_api, url, apc)
    end(umpire_api, url)
    after_action(umpire_api, url, [])
    calendar = f"/api/v1/campaigns/{campaign.id}/calendar/"
    umpire_api.post(calendar, {"to_day": 5})
    cut_supplies(umpire_api, alpha)
    moved = umpire_api.post(
        f"/api/v1/units/{alpha.id}/move/", {"to": "rear_area", "reason": "workshops"}
    )
    assert moved.status_code == 201, moved.json()
    umpire_api.post(calendar, {"to_day": 10})
    apc.refresh_from_db()
    assert (apc.state, apc.repair_until_day) == ("disabled", 11)
    umpire_api.post(calendar, {"to_day": 11})
    apc.refresh_from_db()
    assert apc.state == "operational"


@pytest.mark.parametrize(("supplied", "days"), [(True, 1), (False, 2)])
def test_a_damaged_vehicle_of_an_unsupplied_unit_takes_twice_as_long_p61(
    umpire, umpire_api, supplied, days
):
    """An IMMOBILISED vehicle's 1 day (P.61) in a rear area is 2 days short of supplies."""
    text = BLUE.replace("toe_strength: 4\n", "toe_strength: 4\n    status: rear_area\n")
    campaign, forces, alpha, red = campaign_with(umpire, umpire_api, text)
    assert alpha.status == "rear_area"
    if not supplied:
        cut_supplies(umpire_api, alpha)
    url = start(umpire_api, campaign, forces, [alpha, red], name="Raid", day=3)
    apc = Vehicle.objects.get(unit_id=alpha.id)
    # Impact 7 on the suspension beats the tracks' D10 4: IMMOBILISED (P.38-39).
    act(umpire_api, url, "vehicle_hit", {
        "vehicle_id": str(apc.id), "impact_die": 12, "impact_multiplier": 3,
        "suspension": "tracked", "dice": [2, 5, 1, 7, 4],
    })  # fmt: skip
    end(umpire_api, url)
    (repairs,) = of_type(after_action(umpire_api, url, []), "battles.VehiclesRecovered")
    vehicle = repairs["vehicles"][0]
    assert (vehicle["state"], vehicle["days"], vehicle["repair_until_day"]) == (
        "immobilised",
        days,
        3 + days,
    )
