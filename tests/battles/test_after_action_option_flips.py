"""Campaign options of the after-action that the service honours since issue 11, each flipped
through ``PATCH /api/v1/campaigns/{id}/options/`` and seen to change the outcome."""

from __future__ import annotations

import pytest

from rosters.models import Force, Trooper, Unit, UnitHistoryEntry
from tests.battles.test_after_action import after_action, end, of_type, start
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

BLUE = """\
name: Blue company
side: Blue
units:
  - name: Alpha Squad
    kind: squad
    quality: regular
    leadership: 2
    fatigue: fresh
    troopers:
      - {name: Sgt Able, role: leader, armour_die: 4}
      - {name: Pte Baker, armour_die: 4}
  - name: Bravo Squad
    kind: squad
    quality: regular
    leadership: 2
    fatigue: fresh
    troopers:
      - {name: Sgt Bull, role: leader, armour_die: 4}
      - {name: Pte Bones, armour_die: 4}
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
"""


def set_options(api, campaign, **changes) -> None:
    response = api.patch(
        f"/api/v1/campaigns/{campaign.id}/options/",
        {"changes": changes, "reason": "the campaign's briefing"},
    )
    assert response.status_code == 200, response.json()


@pytest.fixture
def two_squads(umpire, umpire_api):
    campaign = campaign_for(umpire, name="Kessler campaign")
    for text in (BLUE, RED):
        response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    units = {u.name: u for u in Unit.objects.filter(campaign_id=campaign.id)}
    return campaign, forces, units


# --- fatigue_drop_applies_to (SG2 P.61; AMBIG-27) --------------------------------------------


@pytest.mark.parametrize(("option", "bravo_after"), [(None, "fresh"), ("whole_force", "tired")])
def test_a_unit_that_did_not_fight_drops_a_fatigue_level_only_for_the_whole_force_p61(
    two_squads, umpire_api, option, bravo_after
):
    """SG2 P.61: "after each battle all troops drop one fatigue level". Whether the units of
    the force that stayed out drop too is the option (default: only those that fought). Alpha
    fights and is Tired; Bravo, which did not fight, is Tired only with ``whole_force``, and
    neither its count of battles since rest nor its troopers' battles fought move."""
    campaign, forces, units = two_squads
    alpha, bravo = units["Alpha Squad"], units["Bravo Squad"]
    if option is not None:
        set_options(umpire_api, campaign, fatigue_drop_applies_to=option)
    url = start(umpire_api, campaign, forces, [alpha, units["Red Squad"]], name="Hill", day=1)
    end(umpire_api, url)
    events = after_action(umpire_api, url, [])
    dropped = {p["unit_id"]: p for p in of_type(events, "battles.UnitFatigueDropped")}
    assert dropped[str(alpha.id)]["fatigue_after"] == "tired"
    alpha.refresh_from_db()
    bravo.refresh_from_db()
    assert alpha.fatigue == "tired"
    assert bravo.fatigue == bravo_after
    assert bravo.battles_since_rest == 0
    assert {t.battles_fought for t in Trooper.objects.filter(unit_id=bravo.id)} == {0}
    history = UnitHistoryEntry.objects.filter(
        unit_id=bravo.id, event_type="battles.UnitFatigueDropped"
    ).values_list("summary", flat=True)
    if bravo_after == "tired":
        assert dropped[str(bravo.id)]["fought"] is False
        assert list(history) == ["After Hill, which it did not fight: fatigue fresh to tired."]
    else:
        assert str(bravo.id) not in dropped
        assert list(history) == []
