"""A whole battle entered through HTTP with table dice, checked against the book's rules.

Every expected state below is worked out by hand from the book (pages cited), not by calling the
rules code, so the test fails if the code and the book part ways.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command

from eventlog import projections, store
from rosters.models import Force, Trooper, Unit, Vehicle

pytestmark = pytest.mark.django_db

BLUE = """\
name: Blue patrol
side: Blue
units:
  - name: Alpha Squad
    kind: squad
    quality: regular
    leadership: 2
    toe_strength: 6
    troopers:
      - {name: Sgt Able, role: leader, armour_die: 4}
      - {name: Cpl Baker, role: second_in_command, armour_die: 4}
      - {name: Doc Charlie, role: medic, armour_die: 4}
      - {name: Pte Dog, armour_die: 4}
      - {name: Pte Easy, armour_die: 4}
      - {name: Pte Fox, armour_die: 4}
    vehicles:
      - {name: Truck 1, class: truck, size: 2, capacity: 8, armour: 0}
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
      - {name: Rifle Red, armour_die: 4}
"""


def by_name(force_id) -> dict[str, Trooper]:
    return {t.name: t for t in Trooper.objects.filter(force_id=force_id)}


@pytest.fixture
def battle_setup(umpire_api, campaign_with_forces):
    campaign, blue, red = campaign_with_forces
    plan = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": "Patrol clash",
            "day": 3,
            "attacker": "Red",
            "sides": [
                {
                    "side": "Blue",
                    "force_ids": [str(blue.id)],
                    "casevac": {
                        "on_call": True,
                        "start_box": 2,
                        "troop_capacity": 8,
                        "command_level": 2,
                    },
                },
                {"side": "Red", "force_ids": [str(red.id)]},
            ],
        },
    ).json()
    alpha = Unit.objects.get(force_id=blue.id, name="Alpha Squad")
    red_squad = Unit.objects.get(force_id=red.id, name="Red Squad")
    url = f"/api/v1/battles/{plan['id']}/"
    umpire_api.post(f"{url}commit/", {"unit_ids": [str(alpha.id), str(red_squad.id)]})
    umpire_api.post(f"{url}start/")
    return campaign, url, alpha, red_squad, blue, red


@pytest.fixture
def campaign_with_forces(umpire, umpire_api):
    from tests.factories import campaign_for

    campaign = campaign_for(umpire, name="Scripted")
    for text in (BLUE, RED):
        assert (
            umpire_api.post(
                f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text}
            ).status_code
            == 201
        )
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    return campaign, forces["Blue"], forces["Red"]


def act(api, url, action, body):
    response = api.post(f"{url}actions/{action}/", body)
    assert response.status_code == 201, (action, response.json())
    return response.json()["events"]


def test_a_scripted_battle_with_table_dice(battle_setup, umpire_api):
    campaign, url, alpha, red_squad, blue, red = battle_setup
    troopers = by_name(blue.id)

    # Turn 1. Red fires at Alpha Squad: 3 potential hits, impact D8 against basic armour D4
    # (P.36): 7 v 2 is more than twice the armour, a KILL; 3 v 2 beats it, a WOUND; 2 v 3 no
    # effect. Allocation (P.36, six figures: a D6): 6 picks the sixth man for the kill, Pte Fox;
    # 4 picks the fourth, Pte Dog, for the wound.
    act(umpire_api, url, "casualties", {
        "unit_id": str(alpha.id), "mode": "allocate", "hits": 3, "impact_die": 8,
        "cover": "open", "dice": [7, 2, 3, 2, 2, 3, 6, 4],
    })  # fmt: skip
    # The confidence test (P.20): casualties from fire at MEDIUM motivation is threat level 1;
    # Regular rolls a D8 against LV 2 + 1 = 3. A 3 fails (not higher) but is more than half of
    # 3, so Alpha drops one level: Confident to Steady.
    act(umpire_api, url, "confidence_test", {
        "unit_id": str(alpha.id), "circumstances": ["casualties_from_fire"], "dice": [3],
    })  # fmt: skip
    # Reorganise: the medic treats Pte Dog (P.39): D6 3 + 1 for the medic = 4, stabilised.
    act(umpire_api, url, "medical_treatment", {"unit_id": str(alpha.id), "dice": [3]})
    # The casevac call (P.54): a squad calling a company-level asset two levels up shifts its
    # D8 down two types to a D4; a 4 beats LV 2. The flight starts in box 2.
    act(umpire_api, url, "casevac_call", {"unit_id": str(alpha.id), "dice": [4]})

    # Turn 2. Red's squad surrenders to Blue (P.53): its three men are captured.
    umpire_api.post(f"{url}turn/")
    act(umpire_api, url, "surrender", {
        "unit_id": str(red_squad.id), "prisoners_taken_by": "Blue", "dice": [],
    })  # fmt: skip

    # Turn 3. The casevac, called in turn 1 into box 2, reaches the table (P.44).
    umpire_api.post(f"{url}turn/")
    act(umpire_api, url, "casevac_arrive", {"side": "Blue", "dice": []})
    act(umpire_api, url, "casevac_load", {
        "unit_id": str(alpha.id), "trooper_ids": [str(troopers["Pte Dog"].id)], "dice": [],
    })  # fmt: skip
    # It leaves: Alpha, Steady, rolls a D6 (P.54): a 6 raises it two levels, to Confident at
    # most.
    act(umpire_api, url, "casevac_depart", {"side": "Blue", "dice": [6]})

    # Red's last shot hits the truck. Against a softskin (armour D6, P.38) an impact D10 of 9
    # against 2 is more than twice the armour, and the truck is destroyed.
    truck = Vehicle.objects.get(force_id=blue.id)
    act(umpire_api, url, "vehicle_hit", {
        "vehicle_id": str(truck.id), "impact_die": 10, "suspension": "civilian_wheeled",
        "dice": [9, 2],
    })  # fmt: skip

    ended = umpire_api.post(f"{url}end/", {"winner": "Blue", "objectives_met": [str(alpha.id)]})
    assert ended.status_code == 200, ended.json()

    after = by_name(blue.id)
    assert {name: t.status for name, t in after.items()} == {
        "Sgt Able": "fit",
        "Cpl Baker": "fit",
        "Doc Charlie": "fit",
        "Pte Dog": "casevaced",
        "Pte Easy": "fit",
        "Pte Fox": "dead",
    }
    assert {t.name: t.status for t in Trooper.objects.filter(force_id=red.id)} == {
        "Boss Red": "captured",
        "Gun Red": "captured",
        "Rifle Red": "captured",
    }
    assert after["Pte Dog"].wounds == 1
    assert Vehicle.objects.get(pk=truck.pk).state == "destroyed"
    detail = umpire_api.get(url).json()
    states = {p["unit_name"]: (p["confidence"], p["status"]) for p in detail["participants"]}
    assert states == {
        "Alpha Squad": ("confident", "fighting"),
        "Red Squad": ("confident", "surrendered"),
    }
    assert umpire_api.get(f"/api/v1/units/{alpha.id}/").json()["strength"] == 4

    # Every die is kept in the events, and told in the log in plain words.
    rolled = [
        d["result"]
        for event in store.read(campaign.id, types=None)
        for d in event.payload.get("dice", [])
    ]
    assert rolled == [7, 2, 3, 2, 2, 3, 6, 4, 3, 3, 4, 6, 9, 2]
    log = umpire_api.get(f"{url}log/").json()["results"]
    told = [line["summary"] for line in log]
    assert "Pte Dog wounded. [d8 3, d4 2, d6 4; table]" in told
    assert "Pte Fox killed. [d8 7, d4 2, d6 6; table]" in told
    assert any(line.endswith("stabilised. [d6 3; table]") for line in told)
    assert all(d["source"] == "table" for line in log for d in line["dice"])

    # And the read models are exactly what the log folds to.
    inline = projections.dump_rows()
    call_command("rebuild_projections", "--no-progress")
    assert projections.dump_rows() == inline
    assert store.last_sequence(campaign.id) > 0
