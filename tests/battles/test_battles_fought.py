"""Battles fought, counted per trooper after the action, over HTTP (issue 11, item 8).

A trooper has fought a battle when he was on the table: present with his unit when the battle
began, or named by the battle's events. A trooper in hospital during the battle did not fight it,
even if he is back on duty by the time the umpire resolves the after-action (SG2 P.61: an injured
trooper "may return to duty after the number of days equal to the score rolled").
"""

from __future__ import annotations

import pytest

from rosters.models import Force, Trooper, Unit
from tests.battles.test_after_action import BLUE, RED, act, after_action, end, start
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def kessler(umpire, umpire_api):
    campaign = campaign_for(umpire, name="Kessler campaign")
    for text in (BLUE, RED):
        response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    alpha = Unit.objects.get(force_id=forces["Blue"].id, name="Alpha Squad")
    red = Unit.objects.get(force_id=forces["Red"].id, name="Red Squad")
    return campaign, forces, alpha, red


def test_a_trooper_in_hospital_during_a_battle_has_not_fought_it(kessler, umpire_api):
    campaign, forces, alpha, red = kessler
    baker = Trooper.objects.get(unit_id=alpha.id, name="Pte Baker")

    # Battle 1, day 1: Baker is wounded and stabilised (treatment D6 4, P.39), then his
    # recovery D6 of 6 puts him in hospital for 6 days, back on day 7 (P.61).
    first = start(umpire_api, campaign, forces, [alpha, red], name="Hill 402", day=1)
    act(umpire_api, first, "casualties", {
        "unit_id": str(alpha.id), "mode": "named", "dice": [],
        "casualties": [{"trooper_id": str(baker.id), "result": "wounded"}],
    })  # fmt: skip
    act(umpire_api, first, "medical_treatment", {"unit_id": str(alpha.id), "dice": [4]})
    end(umpire_api, first)
    after_action(umpire_api, first, [6])
    baker.refresh_from_db()
    assert (baker.status, baker.hospital_until_day, baker.battles_fought) == ("in_hospital", 7, 1)

    # Battle 2, day 3: Alpha fights without him. The umpire resolves its after-action on day 7,
    # after Baker has come back from hospital.
    second = start(umpire_api, campaign, forces, [alpha, red], name="Kessler Ridge", day=3)
    end(umpire_api, second)
    calendar = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/calendar/", {"to_day": 7})
    assert calendar.status_code in (200, 201), calendar.json()
    baker.refresh_from_db()
    assert baker.status == "fit"
    events = after_action(umpire_api, second, [])

    (dropped,) = [
        e["payload"] for e in events
        if e["type"] == "battles.UnitFatigueDropped" and e["payload"]["unit_id"] == str(alpha.id)
    ]  # fmt: skip
    assert str(baker.id) not in dropped["trooper_ids"]
    fought = dict(Trooper.objects.filter(unit_id=alpha.id).values_list("name", "battles_fought"))
    assert fought == {"Sgt Able": 2, "Pte Baker": 1, "Pte Charlie": 2, "Pte Dog": 2}
