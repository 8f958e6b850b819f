"""An original unit leader back from hospital (SG2 P.10 LOSS OF UNIT LEADER; option
``returning_leader``, digest AMBIG-04), over HTTP.

P.10: when a leader is wounded or killed "the second-in-command of the unit will assume the
duties of unit leader", with a D6 for his LV; the book does not say what happens when the
original leader comes back. By default (``umpire``) and with ``keep_successor`` the unit keeps
its successor's LV (the umpire may set it); with ``restore_original`` the original leader takes
command back when the calendar returns him from hospital, and the unit's LV is his again.
"""

from __future__ import annotations

import pytest

from rosters.models import Force, Trooper, Unit
from tests.battles.helpers import assert_rebuild_keeps_rows
from tests.battles.test_after_action import BLUE, RED, act, after_action, end, start
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db


def _leader_back_from_hospital(umpire, api, **options) -> Unit:
    """Sgt Able (LV2) is wounded; his successor rolls a 1 (P.10: one level worse, LV3). Able is
    stabilised (D6 4, P.39), then 6 days in hospital (P.61), back on day 7."""
    campaign = campaign_for(umpire, name="Returning leader", options=options or None)
    for text in (BLUE, RED):
        response = api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    alpha = Unit.objects.get(force_id=forces["Blue"].id, name="Alpha Squad")
    red = Unit.objects.get(force_id=forces["Red"].id, name="Red Squad")
    battle = start(api, campaign, forces, [alpha, red], name="Hill 402", day=1)
    act(api, battle, "leader_casualty", {
        "unit_id": str(alpha.id), "result": "wounded", "dice": [6, 1],
    })  # fmt: skip
    alpha.refresh_from_db()
    assert alpha.leadership == 3
    # The leader's loss suppressed Alpha (P.10): it treats its wounded (a Reorganise action,
    # P.17) only in cover (P.18).
    act(api, battle, "medical_treatment", {"unit_id": str(alpha.id), "in_cover": True, "dice": [4]})
    end(api, battle)
    after_action(api, battle, [6])
    able = Trooper.objects.get(unit_id=alpha.id, name="Sgt Able")
    assert (able.status, able.hospital_until_day) == ("in_hospital", 7)
    calendar = api.post(f"/api/v1/campaigns/{campaign.id}/calendar/", {"to_day": 7})
    assert calendar.status_code in (200, 201), calendar.json()
    able.refresh_from_db()
    assert able.status == "fit"
    alpha.refresh_from_db()
    return alpha


@pytest.mark.parametrize("choice", [None, "umpire", "keep_successor"])
def test_the_successor_keeps_his_leadership_unless_the_option_restores_it_p10(
    umpire, umpire_api, choice
):
    options = {} if choice is None else {"returning_leader": choice}
    assert _leader_back_from_hospital(umpire, umpire_api, **options).leadership == 3


def test_the_original_leader_back_from_hospital_takes_command_back_p10(umpire, umpire_api):
    alpha = _leader_back_from_hospital(umpire, umpire_api, returning_leader="restore_original")
    assert alpha.leadership == 2
    history = umpire_api.get(f"/api/v1/units/{alpha.id}/history/").json()["results"]
    assert history[-1]["summary"] == (
        "Day 7: Sgt Able back on duty from hospital takes command again: leadership 3 -> 2."
    )
    assert_rebuild_keeps_rows()
