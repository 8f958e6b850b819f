"""What the Fast and Dirty battle tests share: the Federation rifle platoon of
``examples/fad-rifle-platoon.yaml`` against an insurgent roster each test module writes for its
own scenario, a battle between them in progress, and the calls the tests make to it."""

from __future__ import annotations

from typing import Any

from eventlog import store
from rosters.models import Force, Trooper, Unit
from tests.battles.conftest import EXAMPLES
from tests.factories import campaign_for

PLATOON = "fad-rifle-platoon.yaml"
SIDES = ("Federation", "Insurgents")


def load_forces(api, campaign, insurgents: str) -> dict[str, Force]:
    """Both forces loaded from their roster files, by side."""
    for source, text in ((PLATOON, (EXAMPLES / PLATOON).read_text()), ("insurgents", insurgents)):
        response = api.post(
            f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text, "source": source}
        )
        assert response.status_code == 201, response.json()
    return {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}


def side(forces: dict[str, Force], name: str, **choices: Any) -> dict[str, Any]:
    return {"side": name, "force_ids": [str(forces[name].id)], **choices}


def fight(api, battle_id, forces: dict[str, Force]) -> str:
    """Commit every unit of both forces but the platoons, start the battle; its API url."""
    url = f"/api/v1/battles/{battle_id}/"
    units = [
        str(u.id)
        for name in SIDES
        for u in Unit.objects.filter(force_id=forces[name].id).exclude(kind="platoon")
    ]
    assert api.post(f"{url}commit/", {"unit_ids": units}).status_code == 200
    assert api.post(f"{url}start/").status_code == 200
    return url


def planned_battle(api, campaign, forces, name: str = "Valley road", day: int = 2) -> str:
    """A battle planned by hand, the Federation attacking, in progress."""
    response = api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": name,
            "day": day,
            "attacker": "Federation",
            "sides": [side(forces, "Federation"), side(forces, "Insurgents")],
        },
    )
    assert response.status_code == 201, response.json()
    return fight(api, response.json()["id"], forces)


def fad_battle(umpire, api, insurgents: str, options=None):
    """A FaD campaign with both forces and a battle between them in progress: the campaign,
    its forces by side and the battle's API url."""
    campaign = campaign_for(umpire, name="Kessler valley", ruleset="fad", options=options)
    forces = load_forces(api, campaign, insurgents)
    return campaign, forces, planned_battle(api, campaign, forces)


def unit(forces: dict[str, Force], side_name: str, name: str) -> Unit:
    return Unit.objects.get(force_id=forces[side_name].id, name=name)


def members(unit_row: Unit) -> dict[str, Trooper]:
    return {t.name: t for t in Trooper.objects.filter(unit_id=unit_row.id).order_by("order")}


def act(api, url: str, action: str, body: dict[str, Any], dice=()):
    return api.post(f"{url}actions/{action}/", body | {"dice": list(dice)})


def done(api, url: str, action: str, body: dict[str, Any], dice=()) -> list[dict[str, Any]]:
    response = act(api, url, action, body, dice)
    assert response.status_code == 201, response.json()
    return response.json()["events"]


def refused(api, campaign, url, action, body, status: int, code: str, dice=()) -> dict:
    """The action refused with ``status`` and ``code``, and nothing appended."""
    before = store.last_sequence(campaign.id)
    response = act(api, url, action, body, dice)
    assert response.status_code == status, response.json()
    assert response.json()["code"] == code, response.json()
    assert store.last_sequence(campaign.id) == before
    return response.json()


def battle_log(api, url: str) -> list[str]:
    return [line["summary"] for line in api.get(f"{url}log/").json()["results"]]


# The insurgents' roster file, and the militia squad most scenarios put in it (Conscript,
# Steady, five figures with low-tech rifles and no armour).
INSURGENTS_HEADER = "name: Valley insurgents\nside: Insurgents\nruleset: fad\nunits:\n"
MILITIA_SQUAD = """\
  - name: Militia Squad
    kind: squad
    quality: conscript
    resolve: steady
    troopers:
      - {name: Boss Hale, role: leader, weapon: low-tech rifle, armour: none}
      - {name: Gun Odell, weapon: low-tech rifle, armour: none}
      - {name: Rifle Pike, weapon: low-tech rifle, armour: none}
      - {name: Rifle Voss, weapon: low-tech rifle, armour: none}
      - {name: Rifle Ward, weapon: low-tech rifle, armour: none}
"""


def insurgents(*units: str) -> str:
    """The insurgents' roster file with these units (YAML list items)."""
    return INSURGENTS_HEADER + "".join(units)
