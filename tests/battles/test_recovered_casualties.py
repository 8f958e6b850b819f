"""Which injured troopers the after-action recovers, over HTTP (issue 11, item 5).

SG2 P.61 rolls a recovery D6 for "injured troops recovered from a battle" and does not say which
those are. Option ``recovered_casualties = friendly_control`` (the default; digest §6.5,
AMBIG-26) recovers those under their own side's control at the end of the battle. What the
battle's events say decides it:

- flown out by casevac (P.54): recovered;
- his unit surrendered (P.53): in enemy hands;
- his side won: it holds the field and recovers its own (P.60), even those left behind;
- his unit withdrew or routed, or abandoned him during the battle (a confidence test for
  abandoning wounded, P.20: "withdraws ... without taking their wounded along"), and his side did
  not win: left with the enemy, taken prisoner, no recovery die;
- otherwise he is still with his unit at the end: recovered.
"""

from __future__ import annotations

import pytest

from rosters.models import Force, Trooper, TrooperRecordEntry, Unit
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db


def _squad(name: str, quality: str) -> str:
    return f"""\
  - name: {name}
    kind: squad
    quality: {quality}
    leadership: 2
    troopers:
      - {{name: {name} Leader, role: leader, armour_die: 4}}
      - {{name: {name} First, armour_die: 4}}
      - {{name: {name} Second, armour_die: 4}}
"""


BLUE = (
    "name: Blue patrol\nside: Blue\nunits:\n"
    + _squad("Alpha", "regular")
    + _squad("Bravo", "regular")
)
RED = (
    "name: Red militia\nside: Red\nunits:\n"
    + _squad("Red One", "green")
    + _squad("Red Two", "green")
    + _squad("Red Three", "green")
)
DAY = 4


@pytest.fixture
def battle(umpire, umpire_api):
    campaign = campaign_for(umpire, name="Left behind")
    for text in (BLUE, RED):
        response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    units = {u.name: u for u in Unit.objects.filter(campaign_id=campaign.id)}
    troopers = {t.name: t for t in Trooper.objects.filter(campaign_id=campaign.id)}
    plan = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": "Hill 402",
            "day": DAY,
            "attacker": "Blue",
            "sides": [
                {"side": "Blue", "force_ids": [str(forces["Blue"].id)]},
                {"side": "Red", "force_ids": [str(forces["Red"].id)]},
            ],
        },
    )
    assert plan.status_code == 201, plan.json()
    url = f"/api/v1/battles/{plan.json()['id']}/"
    committed = umpire_api.post(f"{url}commit/", {"unit_ids": [str(u.id) for u in units.values()]})
    assert committed.status_code == 200, committed.json()
    assert umpire_api.post(f"{url}start/").status_code == 200
    return url, units, troopers


def act(api, url, action, body) -> None:
    response = api.post(f"{url}actions/{action}/", body)
    assert response.status_code == 201, (action, response.json())


def wound(api, url, trooper) -> None:
    act(api, url, "casualties", {
        "unit_id": str(trooper.unit_id), "mode": "named", "dice": [],
        "casualties": [{"trooper_id": str(trooper.id), "result": "wounded"}],
    })  # fmt: skip


def stabilise(api, url, trooper) -> None:
    """Treated without a medic: a D6 of 4 stabilises him (P.39: 3-5)."""
    act(api, url, "medical_treatment", {"unit_id": str(trooper.unit_id), "dice": [4]})


def abandon_wounded(api, url, unit) -> None:
    """The unit withdraws leaving its wounded nearer the enemy: a confidence test (P.20)."""
    act(api, url, "confidence_test", {
        "unit_id": str(unit.id), "circumstances": ["abandon_wounded"], "dice": [4],
    })  # fmt: skip


def resolve(api, url, dice) -> list[dict]:
    response = api.post(f"{url}after-action/", {"dice": dice})
    assert response.status_code == 201, response.json()
    return [
        r for e in response.json()["events"] if e["type"] == "battles.CasualtiesRecovered"
        for r in e["payload"]["troopers"]
    ]  # fmt: skip


def outcomes(recovered: list[dict], troopers: dict) -> dict[str, tuple]:
    names = {str(t.id): name for name, t in troopers.items()}
    return {
        names[r["trooper_id"]]: (r["outcome"], [d["result"] for d in r["dice"]]) for r in recovered
    }


def status(troopers, name) -> tuple[str, int | None]:
    trooper = Trooper.objects.get(pk=troopers[name].id)
    return trooper.status, trooper.hospital_until_day


def test_the_losers_wounded_left_by_units_that_withdrew_or_routed_stay_with_the_enemy(
    battle, umpire_api
):
    url, units, troopers = battle
    for name in ("Alpha First", "Red One First", "Red Two First", "Red Three First"):
        wound(umpire_api, url, troopers[name])
        stabilise(umpire_api, url, troopers[name])
    # Blue wins. Alpha routed, but Blue holds the field and picks up its own (P.60). Red One
    # routed and Red Two withdrew, leaving their wounded; Red Three held to the end.
    ended = umpire_api.post(f"{url}end/", {
        "winner": "Blue",
        "routed": [str(units["Alpha"].id), str(units["Red One"].id)],
        "withdrawn": [str(units["Red Two"].id)],
    })  # fmt: skip
    assert ended.status_code == 200, ended.json()

    # Dice in the documented order: Alpha's casualty, then Red Three's. Red One's and Red Two's
    # men take no die: they were not recovered.
    recovered = resolve(umpire_api, url, [5, 4])
    assert outcomes(recovered, troopers) == {
        "Alpha First": ("in_hospital", [5]),
        "Red One First": ("left_with_enemy", []),
        "Red Two First": ("left_with_enemy", []),
        "Red Three First": ("in_hospital", [4]),
    }
    assert status(troopers, "Alpha First") == ("in_hospital", DAY + 5)
    assert status(troopers, "Red Three First") == ("in_hospital", DAY + 4)
    assert status(troopers, "Red One First") == ("captured", None)
    assert status(troopers, "Red Two First") == ("captured", None)
    (line,) = TrooperRecordEntry.objects.filter(
        trooper_id=troopers["Red Two First"].id, event_type="battles.CasualtiesRecovered"
    ).values_list("summary", flat=True)
    assert line == (
        "After Hill 402: left behind when his unit withdrew, in enemy hands: taken prisoner."
    )
    assert Unit.objects.get(pk=units["Red One"].id).status == "in_the_line"


def test_wounded_abandoned_in_battle_or_given_up_with_a_surrender_are_not_recovered(
    battle, umpire_api
):
    url, units, troopers = battle
    # Red One abandons its stabilised man; a man wounded after that is still with the unit.
    wound(umpire_api, url, troopers["Red One First"])
    stabilise(umpire_api, url, troopers["Red One First"])
    abandon_wounded(umpire_api, url, units["Red One"])
    wound(umpire_api, url, troopers["Red One Second"])
    # Red Two abandons its wounded man, then comes back and treats him: it has him again.
    wound(umpire_api, url, troopers["Red Two First"])
    abandon_wounded(umpire_api, url, units["Red Two"])
    stabilise(umpire_api, url, troopers["Red Two First"])
    # Red Three surrenders when the battle ends, its stabilised man with it (P.53).
    wound(umpire_api, url, troopers["Red Three First"])
    stabilise(umpire_api, url, troopers["Red Three First"])
    ended = umpire_api.post(
        f"{url}end/", {"winner": "Blue", "surrendered": [str(units["Red Three"].id)]}
    )
    assert ended.status_code == 200, ended.json()

    # Red One Second, untreated: field treatment 4 (stabilised, P.39), recovery 3 (P.61);
    # Red Two First: recovery 6.
    recovered = resolve(umpire_api, url, [4, 3, 6])
    assert outcomes(recovered, troopers) == {
        "Red One First": ("left_with_enemy", []),
        "Red One Second": ("in_hospital", [4, 3]),
        "Red Two First": ("in_hospital", [6]),
        "Red Three First": ("left_with_enemy", []),
    }
    assert status(troopers, "Red One First") == ("captured", None)
    assert status(troopers, "Red One Second") == ("in_hospital", DAY + 3)
    assert status(troopers, "Red Two First") == ("in_hospital", DAY + 6)
    assert status(troopers, "Red Three First") == ("captured", None)


def test_in_a_draw_a_unit_that_held_keeps_its_wounded_and_one_that_withdrew_does_not(
    battle, umpire_api
):
    url, units, troopers = battle
    for name in ("Alpha First", "Bravo First"):
        wound(umpire_api, url, troopers[name])
        stabilise(umpire_api, url, troopers[name])
    ended = umpire_api.post(f"{url}end/", {"winner": "draw", "withdrawn": [str(units["Bravo"].id)]})
    assert ended.status_code == 200, ended.json()
    recovered = resolve(umpire_api, url, [3])
    assert outcomes(recovered, troopers) == {
        "Alpha First": ("in_hospital", [3]),
        "Bravo First": ("left_with_enemy", []),
    }


def test_with_evacuated_only_the_umpire_still_decides_the_rest(umpire, umpire_api, battle):
    """The other readings of P.61 are unchanged: only the flown out are rolled for."""
    url, units, troopers = battle
    campaign_id = Unit.objects.get(pk=units["Alpha"].id).campaign_id
    changed = umpire_api.patch(
        f"/api/v1/campaigns/{campaign_id}/options/",
        {"changes": {"recovered_casualties": "evacuated_only"}, "reason": "flown out only"},
    )
    assert changed.status_code in (200, 201), changed.json()
    wound(umpire_api, url, troopers["Alpha First"])
    stabilise(umpire_api, url, troopers["Alpha First"])
    assert umpire_api.post(f"{url}end/", {"winner": "Blue"}).status_code == 200
    recovered = resolve(umpire_api, url, [])
    assert outcomes(recovered, troopers) == {"Alpha First": ("left_for_umpire", [])}
    assert status(troopers, "Alpha First") == ("stabilised", None)
