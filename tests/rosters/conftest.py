"""Fixtures for roster tests: a campaign with a small platoon loaded from a roster file."""

from __future__ import annotations

import pytest

from tests.factories import campaign_for

PLATOON = """\
name: 3rd Platoon
side: Royal Marines
units:
  - name: 3rd Platoon
    key: platoon
    kind: platoon
    units:
      - name: Platoon HQ
        key: hq
        kind: command
        level: platoon
        quality: regular
        leadership: 1
        troopers:
          - {name: Lt. Anand Rao, role: leader, weapon: ACR, armour: partial light armour}
          - {name: Sgt. Maggie Doyle, role: second_in_command, weapon: ACR}
          - {name: Cpl. Tom Frye, role: medic}
        vehicles:
          - {name: Wombat 30, class: APC, size: 3, capacity: 8, armour: 2}
      - name: 1st Squad
        key: s1
        kind: squad
        quality: veteran
        leadership: 2
        fatigue: tired
        toe_strength: 8
        troopers:
          - {name: Sgt. Ike Mbeki, role: leader}
          - {name: Pte. Lou Grant, role: support_weapon, weapon: SAW}
          - {name: Pte. Ada Kerr, role: special_weapon, weapon: GMS/P}
          - {name: Pte. Sam Ito}
          - {name: Pte. Joe Bloch}
      - name: 2nd Squad
        key: s2
        kind: squad
        quality: green
        leadership: 3
        toe_strength: 8
        troopers:
          - {name: Cpl. Dee Osei, role: leader}
          - {name: Pte. Rob Hale}
          - {name: Pte. Kim Park}
"""


@pytest.fixture
def campaign(umpire):
    return campaign_for(umpire)


@pytest.fixture
def forces_url(campaign):
    return f"/api/v1/campaigns/{campaign.id}/forces/"


@pytest.fixture
def platoon(umpire_api, forces_url):
    response = umpire_api.post(forces_url, {"roster": PLATOON, "source": "platoon.yaml"})
    assert response.status_code == 201, response.json()
    return response.json()


def find_unit(tree: dict, name: str) -> dict:
    stack = list(tree["units"])
    while stack:
        unit = stack.pop()
        if unit["name"] == name:
            return unit
        stack.extend(unit["units"])
    raise KeyError(name)
