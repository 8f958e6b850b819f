"""An Exhausted unit that fails its withdrawal test, through HTTP (SG2 P.61 REST AND RECOVERY).

P.61: "the unit will become unfit for battle and MUST be withdrawn from further combat until it
has recovered - failure to withdraw it results in the unit disintegrating and being lost for
the rest of the campaign." The service withdraws it at once. Resting it anywhere out of the
line (a rear or safe area, or the field, where R&R takes twice as long) keeps it withdrawn;
sending it back into the line, or committing it to a battle, before R&R has restored it is the
failure to withdraw it, and it disintegrates.
"""

from __future__ import annotations

import pytest

from eventlog import store
from rosters.models import Force, Unit, UnitHistoryEntry
from tests.battles.helpers import assert_rebuild_keeps_rows
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

BLUE = """\
name: Blue patrol
side: Blue
units:
  - name: Alpha Squad
    kind: squad
    quality: regular
    leadership: 2
    fatigue: exhausted
    troopers:
      - {name: Sgt Able, role: leader}
      - {name: Pte Baker}
  - name: Bravo Squad
    kind: squad
    quality: regular
    leadership: 2
    troopers:
      - {name: Cpl Charlie, role: leader}
      - {name: Pte Dog}
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
      - {name: Boss Red, role: leader}
"""


@pytest.fixture
def setup(umpire, umpire_api):
    campaign = campaign_for(umpire, name="Long haul")
    for text in (BLUE, RED):
        response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    return campaign, forces


def unit(name: str) -> Unit:
    return Unit.objects.get(name=name)


def plan(api, campaign, forces, *, name: str, day: int) -> str:
    response = api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": name,
            "day": day,
            "sides": [
                {"side": "Blue", "force_ids": [str(forces["Blue"].id)]},
                {"side": "Red", "force_ids": [str(forces["Red"].id)]},
            ],
        },
    )
    assert response.status_code == 201, response.json()
    return f"/api/v1/battles/{response.json()['id']}/"


def commit(api, url, *names: str):
    return api.post(f"{url}commit/", {"unit_ids": [str(unit(n).id) for n in names]})


def fail_the_withdrawal_test(api, campaign, forces) -> None:
    """Alpha fights its first battle since its last rest Exhausted: a D6 of 1 is not above 1
    battle, so it is unfit and withdrawn (P.61)."""
    url = plan(api, campaign, forces, name="Hill 12", day=1)
    assert commit(api, url, "Alpha Squad", "Red Squad").status_code == 200
    assert api.post(f"{url}start/").status_code == 200
    assert api.post(f"{url}end/", {"winner": "Red"}).status_code == 200
    response = api.post(f"{url}after-action/", {"dice": [1]})
    assert response.status_code == 201, response.json()
    (tested,) = [e for e in response.json()["events"] if e["type"] == "battles.WithdrawalTested"]
    assert tested["payload"]["unfit"] is True
    alpha = api.get(f"/api/v1/units/{unit('Alpha Squad').id}/").json()
    assert (alpha["status"], alpha["unfit"]) == ("withdrawn", True)


def move(api, name: str, to: str):
    return api.post(f"/api/v1/units/{unit(name).id}/move/", {"to": to, "reason": "orders"})


def history(name: str) -> list[str]:
    return list(
        UnitHistoryEntry.objects.filter(unit_id=unit(name).id).values_list("summary", flat=True)
    )


def test_an_unfit_unit_sent_back_into_the_line_disintegrates_p61(setup, umpire_api):
    """The issue's case: withdrawn, moved to the field (still withdrawn from combat: it rests
    there at half speed), then back to the line while still unfit: it disintegrates and is lost
    for the rest of the campaign, and cannot be committed to the next battle."""
    campaign, forces = setup
    fail_the_withdrawal_test(umpire_api, campaign, forces)
    moved = move(umpire_api, "Alpha Squad", "in_the_field")
    assert moved.status_code == 201, moved.json()
    assert moved.json()["type"] == "rosters.UnitMoved"
    alpha = umpire_api.get(f"/api/v1/units/{unit('Alpha Squad').id}/").json()
    assert (alpha["status"], alpha["unfit"]) == ("in_the_field", True)

    response = move(umpire_api, "Alpha Squad", "in_the_line")
    assert response.status_code == 201, response.json()
    event = response.json()
    assert event["type"] == "rosters.UnitDisintegrated"
    assert event["payload"]["cause"] == "sent_back_into_the_line"
    assert event["payload"]["battle_id"] is None
    alpha = umpire_api.get(f"/api/v1/units/{unit('Alpha Squad').id}/").json()
    assert alpha["status"] == "disbanded"
    assert history("Alpha Squad")[-1] == (
        "Day 0: disintegrated, lost for the rest of the campaign: unfit for combat since its "
        "withdrawal test, it was sent back into the line before rest and recovery restored it "
        "(SG2 P.61): orders."
    )

    url = plan(umpire_api, campaign, forces, name="Hill 13", day=2)
    before = store.last_sequence(campaign.id)
    refused = commit(umpire_api, url, "Alpha Squad")
    assert (refused.status_code, refused.json()["code"]) == (409, "battle.unit_unavailable")
    assert store.last_sequence(campaign.id) == before
    assert_rebuild_keeps_rows()


def test_an_unfit_unit_committed_to_a_battle_disintegrates_instead_of_fighting_p61(
    setup, umpire_api
):
    """Withdrawn, moved to the field, then committed to the next battle with a fit squad: the
    fit squad is committed, the unfit one disintegrates and does not fight."""
    campaign, forces = setup
    fail_the_withdrawal_test(umpire_api, campaign, forces)
    assert move(umpire_api, "Alpha Squad", "in_the_field").status_code == 201
    url = plan(umpire_api, campaign, forces, name="Hill 13", day=2)
    response = commit(umpire_api, url, "Alpha Squad", "Bravo Squad")
    assert response.status_code == 200, response.json()
    fighting = {p["unit_id"] for p in response.json()["participants"]}
    assert fighting == {str(unit("Bravo Squad").id)}
    assert unit("Alpha Squad").status == "disbanded"
    (disintegrated,) = [
        e.payload for e in store.read(campaign.id, types=["rosters.UnitDisintegrated"])
    ]
    assert disintegrated["cause"] == "committed_to_battle"
    assert disintegrated["battle_id"] == url.split("/")[-2]
    assert history("Alpha Squad")[-1] == (
        "Day 2: disintegrated, lost for the rest of the campaign: unfit for combat since its "
        "withdrawal test, it was committed to Hill 13 before rest and recovery restored it "
        "(SG2 P.61)."
    )
    assert_rebuild_keeps_rows()


def test_a_withdrawn_unit_is_not_committed_by_mistake(setup, umpire_api):
    """A unit the rules withdrew and that still stands withdrawn is refused, not lost: naming it
    is taken as a slip (the book's failure to withdraw is the umpire sending it back)."""
    campaign, forces = setup
    fail_the_withdrawal_test(umpire_api, campaign, forces)
    url = plan(umpire_api, campaign, forces, name="Hill 13", day=2)
    before = store.last_sequence(campaign.id)
    refused = commit(umpire_api, url, "Alpha Squad", "Bravo Squad")
    assert (refused.status_code, refused.json()["code"]) == (409, "battle.unit_unavailable")
    assert store.last_sequence(campaign.id) == before


def test_rest_restores_an_unfit_unit_wherever_it_rests_p61(setup, umpire_api):
    """Rested in the field, the unit needs 4 days (2 doubled, P.61) to recover a level; then it
    is fit again and goes back into the line without disintegrating."""
    campaign, forces = setup
    fail_the_withdrawal_test(umpire_api, campaign, forces)
    assert move(umpire_api, "Alpha Squad", "in_the_field").status_code == 201
    calendar = f"/api/v1/campaigns/{campaign.id}/calendar/"
    assert umpire_api.post(calendar, {"to_day": 3}).status_code in (200, 201)
    alpha = umpire_api.get(f"/api/v1/units/{unit('Alpha Squad').id}/").json()
    assert (alpha["fatigue"], alpha["unfit"]) == ("exhausted", True)
    assert umpire_api.post(calendar, {"to_day": 4}).status_code in (200, 201)
    alpha = umpire_api.get(f"/api/v1/units/{unit('Alpha Squad').id}/").json()
    assert (alpha["fatigue"], alpha["unfit"], alpha["status"]) == ("tired", False, "in_the_field")
    assert history("Alpha Squad")[-1] == (
        "Day 4: rest and recovery, exhausted to tired. Fit for combat again."
    )
    response = move(umpire_api, "Alpha Squad", "in_the_line")
    assert response.status_code == 201, response.json()
    assert response.json()["type"] == "rosters.UnitMoved"
    assert unit("Alpha Squad").status == "in_the_line"


def test_a_disintegration_by_mistake_is_voided(setup, umpire_api):
    """The umpire's correction: voiding the disintegration gives the unit back, still unfit and
    where it rested."""
    campaign, forces = setup
    fail_the_withdrawal_test(umpire_api, campaign, forces)
    assert move(umpire_api, "Alpha Squad", "in_the_field").status_code == 201
    lost = move(umpire_api, "Alpha Squad", "in_the_line").json()
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/voids/",
        {"sequence": lost["sequence"], "reason": "meant the Bravo squad"},
    )
    assert response.status_code == 201, response.json()
    alpha = umpire_api.get(f"/api/v1/units/{unit('Alpha Squad').id}/").json()
    assert (alpha["status"], alpha["unfit"]) == ("in_the_field", True)
    assert history("Alpha Squad")[-1] == (
        f"Voided: disintegration (event #{lost['sequence']}). Reason: meant the Bravo squad"
    )
