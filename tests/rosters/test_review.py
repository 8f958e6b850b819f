"""Reviewing a campaign: quality progression, strength over time, casualties per battle and
the hospital list, all built through the API and folded from the log."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from eventlog import projections, store
from rosters.models import Trooper
from tests.battles.test_after_action import act, after_action, end, start
from tests.battles.test_after_action import setup as setup

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewed(setup, umpire_api):
    """Hill 402 (day 5): Baker wounded and stabilised, Charlie wounded, Dog killed; Red's two
    men killed and wounded. After the action, Baker is in hospital until day 9, Charlie until
    day 11 and Gun Red until day 8."""
    campaign, forces, alpha, red = setup
    url = start(umpire_api, campaign, forces, [alpha, red], name="Hill 402", day=5)
    names = {t.name: t for t in Trooper.objects.filter(campaign_id=campaign.id)}

    def named(unit, result, *who):
        act(umpire_api, url, "casualties", {
            "unit_id": str(unit.id), "mode": "named", "dice": [],
            "casualties": [{"trooper_id": str(names[n].id), "result": result} for n in who],
        })  # fmt: skip

    named(alpha, "wounded", "Pte Baker")
    act(umpire_api, url, "medical_treatment", {"unit_id": str(alpha.id), "dice": [4]})
    named(alpha, "wounded", "Pte Charlie")
    named(alpha, "killed", "Pte Dog")
    named(red, "killed", "Boss Red")
    named(red, "wounded", "Gun Red")
    end(umpire_api, url, objectives=[alpha])
    # Alpha: Baker recovery 4 (day 9); Charlie treatment 5 (stabilised), recovery 6 (day 11).
    # Red: Gun Red treatment 4 (stabilised), recovery 3 (day 8).
    after_action(umpire_api, url, [4, 5, 6, 4, 3])
    return campaign, forces, alpha, red, url


def test_progression_strength_and_casualties(reviewed, umpire_api):
    campaign, _, alpha, _, url = reviewed
    body = umpire_api.get(f"/api/v1/units/{alpha.id}/progression/").json()
    assert [(q["quality"], q["points"], q["battle_name"]) for q in body["quality"]] == [
        ("regular", 0, None),
        ("regular", 4, "Hill 402"),
    ]
    assert body["quality"][-1]["points_gained"] == 4
    assert [(s["strength"], s["change"], s["day"]) for s in body["strength"]] == [
        (0, None, 0),  # raised, then its four men enlist one by one
        (1, 1, 0),
        (2, 1, 0),
        (3, 1, 0),
        (4, 1, 0),
        (3, -1, 5),  # Dog killed
        (1, -2, 5),  # Baker and Charlie to hospital
    ]
    after = [s for s in body["strength"] if s["battle_name"] == "Hill 402"]
    assert [(s["strength"], s["event_type"]) for s in after] == [
        (3, "battles.CasualtiesResolved"),
        (1, "battles.CasualtiesRecovered"),
    ]

    casualties = umpire_api.get(f"{url}casualties/").json()
    totals = {s["side"]: {k: s[k] for k in ("killed", "wounded", "captured", "casevaced")}
              for s in casualties["sides"]}  # fmt: skip
    assert totals == {
        "Blue": {"killed": 1, "wounded": 2, "captured": 0, "casevaced": 0},
        "Red": {"killed": 1, "wounded": 1, "captured": 0, "casevaced": 0},
    }

    hospital = umpire_api.get(f"/api/v1/campaigns/{campaign.id}/hospital/").json()["results"]
    assert [(h["name"], h["hospital_until_day"]) for h in hospital] == [
        ("Gun Red", 8),
        ("Pte Baker", 9),
        ("Pte Charlie", 11),
    ]

    before = projections.dump_rows(campaign.id)
    call_command("rebuild_projections", "--no-progress")
    assert projections.dump_rows(campaign.id) == before
    assert umpire_api.get(f"/api/v1/units/{alpha.id}/progression/").json() == body


def test_players_see_their_own_forces_only(reviewed, umpire_api, api_for, make_user, join):
    campaign, forces, alpha, red, url = reviewed
    player = make_user("blue-player")
    join(campaign.id, player, "player", [forces["Blue"].id])
    api = api_for(player)
    before = store.last_sequence(campaign.id)
    hospital = api.get(f"/api/v1/campaigns/{campaign.id}/hospital/").json()["results"]
    assert [h["name"] for h in hospital] == ["Pte Baker", "Pte Charlie"]
    casualties = api.get(f"{url}casualties/").json()
    sides = {s["side"]: s for s in casualties["sides"]}
    named = {(t["side"], t["name"]) for t in casualties["results"]}
    assert named == {("Blue", "Pte Baker"), ("Blue", "Pte Charlie"), ("Blue", "Pte Dog")}
    # Red's losses are counted, not named.
    assert (sides["Red"]["killed"], sides["Red"]["wounded"]) == (1, 1)
    assert sides["Red"]["sight"] == "outline"
    assert api.get(f"/api/v1/units/{alpha.id}/progression/").status_code == 200
    refused = api.get(f"/api/v1/units/{red.id}/progression/")
    assert refused.status_code == 404
    assert refused.json()["code"] == "unit.not_found"
    stranger = api_for(make_user("nobody"))
    assert stranger.get(f"/api/v1/units/{alpha.id}/progression/").json()["code"] == (
        "unit.not_found"
    )
    assert stranger.get(f"{url}casualties/").status_code == 404
    assert store.last_sequence(campaign.id) == before


def _review_tables(rows) -> dict:
    from battles.review import CASUALTIES, CLOCK, MARKS, QUALITY, STRENGTH

    return {table._meta.label_lower: rows.all(table) for table in (
        MARKS, QUALITY, STRENGTH, CASUALTIES, CLOCK,
    )}  # fmt: skip


def test_the_review_folds_only_what_it_reads(demo_campaign):
    """Left out of the review's fold, the campaign, journal and report projections change
    nothing it shows: its tables, and the battles and roster rows it reads, are those of the
    fold of every projection."""
    from battles.models import Battle, BattleSide, Participant
    from battles.review import REVIEW, review_rows
    from rosters.models import Unit

    everything = projections.fold_events(
        store.read(demo_campaign.id), [*projections.registered(), REVIEW]
    )
    reviewed = review_rows(demo_campaign.id)
    assert _review_tables(reviewed) == _review_tables(everything)
    assert any(_review_tables(reviewed).values())
    for model in (Battle, BattleSide, Participant, Unit, Trooper):
        assert reviewed.all(model) == everything.all(model), model
