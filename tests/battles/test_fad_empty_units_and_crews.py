# ruff: noqa: F811 (the fixtures of test_after_action_fad, imported to be reused)
"""FaD post-battle options the service honours since issue 11, flipped through
``PATCH /api/v1/campaigns/{id}/options/``: a wiped-out unit with no replacements and crew killed
on a vehicle that survived (FaD p.66 POST-BATTLE STEPS; the book is silent on both, GAPs)."""

from __future__ import annotations

import pytest

from rosters.models import Vehicle
from tests.battles.conftest import EXAMPLES
from tests.battles.helpers import assert_rebuild_keeps_rows
from tests.battles.test_after_action_fad import (  # noqa: F401 (fixtures)
    FEDERATION_DICE,
    INSURGENT_DICE,
    INSURGENTS,
    PLATOON,
    after_action,
    battle,
    end,
    forces,
    fought,
    history,
    losses,
    members,
    present,
    unit,
)
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

# The insurgents of test_after_action_fad with a crewed vehicle last in their roster: it loses
# nothing in their battle there, so their dice stand.
GUN_TRUCK = """\
  - name: Gun Truck
    kind: vehicle_crew
    quality: regular
    resolve: steady
    troopers:
      - {name: Driver Lusk, role: leader, weapon: pistol}
      - {name: Gunner Maro, role: crew, weapon: pistol}
    vehicles:
      - {name: Gun Truck, class: armed truck, size: 2, capacity: 0, armour: 1}
"""


@pytest.fixture
def campaign(umpire, umpire_api):
    campaign = campaign_for(umpire, name="Kessler valley", ruleset="fad")
    rosters = ((PLATOON, (EXAMPLES / PLATOON).read_text()), ("insurgents", INSURGENTS + GUN_TRUCK))
    for source, text in rosters:
        response = umpire_api.post(
            f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text, "source": source}
        )
        assert response.status_code == 201, response.json()
    return campaign


def set_option(api, campaign, name: str, value: str) -> None:
    response = api.patch(
        f"/api/v1/campaigns/{campaign.id}/options/",
        {"changes": {name: value}, "reason": "house rule"},
    )
    assert response.status_code == 200, response.json()


@pytest.mark.parametrize("option", [None, "removed"])
def test_a_wiped_out_unit_with_no_replacements_is_removed_only_with_the_option_p66(
    umpire_api, campaign, forces, fought, option
):
    """FaD p.66 INFANTRY REPLACEMENTS: the Sniper, a lone figure, was eliminated; his d6 3
    gives half the losses, but a lone figure is not returned: no replacements. The book does not
    say what becomes of the empty unit (GAP): by default it stays on the roster at 0 and
    reinforcements may refill it (2d6 1, 1 = 2, one placed with the Sniper). With
    ``campaign_empty_units = removed`` it leaves the roster, rolls no Resolve Loss and cannot
    be reinforced."""
    ins = forces["Insurgents"]
    sniper = unit(ins, "Sniper")
    if option is not None:
        set_option(umpire_api, campaign, "campaign_empty_units", option)
    # A removed unit rolls no Resolve Loss: the Sniper's last die (4) is not asked for.
    dice = FEDERATION_DICE + (INSURGENT_DICE[:-1] if option else INSURGENT_DICE)
    response = after_action(umpire_api, fought, dice)
    assert response.status_code == 201, response.json()
    (rolled,) = [
        e["payload"]
        for e in response.json()["events"]
        if e["type"] == "battles.FadInfantryReplacementsRolled"
        and e["payload"]["unit_id"] == str(sniper.id)
    ]
    assert (rolled["replaced"], rolled["removed"]) == (0, option == "removed")
    sniper.refresh_from_db()
    assert sniper.status == ("disbanded" if option else "in_the_line")
    assert_rebuild_keeps_rows()
    reinforce = umpire_api.post(
        f"/api/v1/forces/{ins.id}/reinforcements/",
        {"assignment": [{"unit_id": str(sniper.id), "troopers": 1}], "dice": [1, 1]},
    )
    if option:
        assert history(sniper)[-1].startswith("Removed from the roster after Valley road")
        assert reinforce.status_code == 400, reinforce.json()
        assert reinforce.json()["code"] == "reinforcements.unknown_unit"
    else:
        assert reinforce.status_code == 201, reinforce.json()
        assert present(sniper) == 1


@pytest.mark.parametrize(
    ("option", "dice", "crew_after", "vehicle_after"),
    [
        (None, [3, 4], 2, "operational"),
        (None, [1, 4], 1, "disabled"),
        ("infantry_replacements", [3, 4], 2, "operational"),
        ("infantry_replacements", [1, 4], 1, "operational"),
    ],
)
def test_crew_killed_on_a_surviving_vehicle_p66(
    umpire_api, campaign, forces, battle, option, dice, crew_after, vehicle_after
):
    """FaD p.66 rolls Infantry Replacements for infantry units and Vehicle Replacements for
    vehicles damaged or destroyed; it does not say what becomes of crew killed on a vehicle that
    survived (GAP). By default the loss counts as damage: the Gun Truck, its gunner killed,
    rolls Vehicle Replacements as damaged, d6 3 repaired with its crew back, d6 1 not repaired
    (out of action, one crewman short). With ``campaign_vehicle_crew_losses =
    infantry_replacements`` the crew rolls Infantry Replacements instead and the vehicle is not
    touched: d6 3, half of 1 rounded up, the gunner replaced; d6 1, none. Then d6 4, Resolve
    Loss: Steady stays."""
    truck = unit(forces["Insurgents"], "Gun Truck")
    if option is not None:
        set_option(umpire_api, campaign, "campaign_vehicle_crew_losses", option)
    losses(umpire_api, battle, truck, killed=members(truck)[1:2])
    end(umpire_api, battle)
    response = after_action(umpire_api, battle, dice)
    assert response.status_code == 201, response.json()
    types = [e["type"] for e in response.json()["events"]]
    infantry, vehicle = (
        "battles.FadInfantryReplacementsRolled",
        "battles.FadVehicleReplacementRolled",
    )
    # One table, never both: the vehicle was not named hit.
    assert (infantry in types, vehicle in types) == (bool(option), not option)
    assert present(truck) == crew_after
    assert Vehicle.objects.get(unit_id=truck.id).state == vehicle_after
    if not option:
        back = "1 back with the repair" if crew_after == 2 else "none back"
        assert f"Crew lost (Gunner Maro) counted as damage: {back}." in history(truck)[-2]
    assert_rebuild_keeps_rows()
