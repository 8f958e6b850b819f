"""Replacements for company-level units (SG2 P.60 REPLACEMENT TROOPS; option
``company_replacements``, digest AMBIG-23).

P.60: "each player rolls one die per PLATOON he has"; the book says nothing of the company's own
units (the company HQ, attached armour). By default (``umpire``) they are left to the umpire and a
platoon's roll goes to its own squads only; with ``share_platoon_roll`` a company-level unit of
the platoon's company may be given men from that platoon's roll, and takes the quality check.
"""

from __future__ import annotations

import pytest

from eventlog import store
from rosters.models import Trooper
from tests.factories import campaign_for
from tests.rosters.test_replacements import assign, detail, move, request, unit

pytestmark = pytest.mark.django_db

COMPANY = """\
name: B Company
side: Blue
units:
  - name: B Company
    kind: company
    units:
      - name: Company HQ
        kind: command
        level: company
        quality: regular
        leadership: 1
        toe_strength: 6
        troopers:
          - {name: Capt Oboe, role: leader}
          - {name: Sgt Peter, role: second_in_command}
          - {name: Pte Queen}
          - {name: Pte Roger}
      - name: 1st Platoon
        kind: platoon
        units:
          - name: 1st Squad
            kind: squad
            quality: regular
            leadership: 2
            toe_strength: 8
            troopers:
              - {name: Sgt Sugar, role: leader}
              - {name: Pte Tare}
"""


def _campaign(umpire, umpire_api, **options):
    campaign = campaign_for(umpire, name="Company replacements", options=options or None)
    response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": COMPANY})
    assert response.status_code == 201, response.json()
    move(umpire_api, "1st Squad")
    move(umpire_api, "Company HQ")
    assert request(umpire_api, "1st Platoon", dice=[5]).status_code == 201
    return campaign


def test_by_default_a_platoons_roll_goes_to_its_own_squads_only_p60(umpire, umpire_api):
    campaign = _campaign(umpire, umpire_api)
    before = store.last_sequence(campaign.id)
    response = assign(umpire_api, "1st Platoon", {"Company HQ": 2}, dice=[1])
    assert response.status_code == 422, response.json()
    assert response.json()["code"] == "replacements.not_in_platoon"
    assert store.last_sequence(campaign.id) == before


def test_company_level_units_share_a_platoons_roll_when_the_option_says_so_p60(umpire, umpire_api):
    """P.60-61: the HQ's 4 members roll a D4 against its 2 replacements; a 1 drops it."""
    campaign = _campaign(umpire, umpire_api, company_replacements="share_platoon_roll")
    response = assign(umpire_api, "1st Platoon", {"Company HQ": 2, "1st Squad": 3}, dice=[1, 4])
    assert response.status_code == 201, response.json()
    checks = {
        a["unit_id"]: a["check"] for a in response.json()["events"][0]["payload"]["assignments"]
    }
    hq = checks[str(unit("Company HQ").id)]
    assert (hq["die"], hq["dropped"]) == (4, True)
    assert detail(umpire_api, "Company HQ")["quality"] == "green"
    advance = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/calendar/", {"days": 1})
    assert advance.status_code in (200, 201), advance.json()
    assert Trooper.objects.filter(unit_id=unit("Company HQ").id).count() == 6
