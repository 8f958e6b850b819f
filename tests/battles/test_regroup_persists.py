"""Whether a regroup outlasts its battle, through HTTP (SG2 P.17 REGROUPING; digest AMBIG-19):
the option ``regroup_persists``, or with ``umpire`` the battle end's ``regroups_persisting``.

Recon Squad 1 (Regular, LV 3 here, Fresh) is down to 3 men; Recon Squad 2 (Veteran, LV 2, Tired
here) to 2. Squad 2 regroups into squad 1, which becomes Regular (the larger unit, P.17), LV 2
(the better leader, P.17) and Tired (option ``regroup_fatigue = worse``).
"""

from __future__ import annotations

import uuid

import pytest

from battles.models import Battle, Participant
from eventlog import store
from rosters.models import Trooper, TrooperRecordEntry, Unit, UnitHistoryEntry
from tests.battles.conftest import members, squads
from tests.battles.helpers import (
    assert_rebuild_keeps_rows,
    blue_roster,
    kill,
    scenario_campaign,
    set_leadership,
)

pytestmark = pytest.mark.django_db

SETTLED = "battles.RegroupsSettled"


@pytest.fixture
def campaign(umpire, umpire_api):
    return scenario_campaign(umpire, umpire_api, blue=blue_roster(tired=("Recon Squad 2",)))


@pytest.fixture
def blue(forces):
    return squads(forces["Blue"])


@pytest.fixture
def red(forces):
    return squads(forces["Red"])


def set_option(api, campaign, value: str) -> None:
    response = api.patch(
        f"/api/v1/campaigns/{campaign.id}/options/",
        {"changes": {"regroup_persists": value}, "reason": "the campaign's briefing"},
    )
    assert response.status_code == 200, response.json()


def regroup(api, battle, unit, other) -> None:
    response = api.post(
        f"/api/v1/battles/{battle['id']}/actions/regroup/",
        {"unit_id": str(unit.id), "other_unit_id": str(other.id), "dice": []},
    )
    assert response.status_code == 201, response.json()


def end(api, battle, **body):
    return api.post(
        f"/api/v1/battles/{battle['id']}/end/",
        {"winner": "Blue", **{k: [str(u) for u in v] for k, v in body.items()}},
    )


def settled(campaign) -> list[dict]:
    return [e.payload for e in store.read(campaign.id, types=[SETTLED])]


@pytest.fixture
def regrouped(battle, umpire_api, blue):
    """Squad 2's two survivors (Cpl Victor Rourke and LCpl Liam Vickers, 1st and 2nd on its
    roll) joined squad 1."""
    kill(umpire_api, battle, *members(blue[0])[3:], *members(blue[1])[2:])
    set_leadership(umpire_api, blue[0], 3)
    regroup(umpire_api, battle, blue[0], blue[1])
    unit = Unit.objects.get(id=blue[0].id)
    assert (unit.quality, unit.leadership, unit.fatigue) == ("regular", 2, "tired")
    return battle


def joining() -> list[Trooper]:
    """Squad 2's two survivors, wherever they serve."""
    return list(Trooper.objects.filter(name__in=("Cpl Victor Rourke", "LCpl Liam Vickers")))


def after_action(api, battle) -> list[dict]:
    response = api.post(f"/api/v1/battles/{battle['id']}/after-action/", {"dice": []})
    assert response.status_code == 201, response.json()
    return response.json()["events"]


def fatigue_drops(events) -> dict[str, tuple[str, str]]:
    return {
        e["payload"]["unit_id"]: (e["payload"]["fatigue_before"], e["payload"]["fatigue_after"])
        for e in events
        if e["type"] == "battles.UnitFatigueDropped"
    }


def test_a_dissolved_regroup_hands_each_man_back_to_his_own_unit_p17(
    regrouped, umpire_api, campaign, blue
):
    """``dissolves``: the two men go back to squad 2 at their old places on its roll; squad 1
    is Regular, LV 3 and Fresh again; the after-action drops each unit from its own fatigue
    (P.61: squad 1 Fresh to Tired, squad 2 Tired to Exhausted) and counts the battle once for
    each man."""
    set_option(umpire_api, campaign, "dissolves")
    response = end(umpire_api, regrouped)
    assert response.status_code == 200, response.json()

    (payload,) = settled(campaign)
    assert payload["regroup_persists"] == "dissolves"
    (regroup_settled,) = payload["regroups"]
    assert regroup_settled["persists"] is False
    rourke, vickers = sorted(joining(), key=lambda t: t.order)
    assert [
        (r["trooper_id"], r["from_unit_id"], r["order"]) for r in regroup_settled["returned"]
    ] == [
        (str(rourke.id), str(blue[0].id), 0),
        (str(vickers.id), str(blue[0].id), 1),
    ]
    assert [(t.name, t.unit_id, t.order) for t in members(blue[1])[:2]] == [
        ("Cpl Victor Rourke", blue[1].id, 0),
        ("LCpl Liam Vickers", blue[1].id, 1),
    ]
    assert len(members(blue[0])) == 6  # his own six, three of them fallen
    squad_1, squad_2 = (Unit.objects.get(id=u.id) for u in blue[:2])
    assert (squad_1.quality, squad_1.leadership, squad_1.fatigue) == ("regular", 3, "fresh")
    assert (squad_2.quality, squad_2.leadership, squad_2.fatigue) == ("veteran", 2, "tired")
    assert (squad_2.status, squad_2.merged_into) == ("in_the_line", None)

    history = UnitHistoryEntry.objects.get(unit_id=blue[0].id, event_type=SETTLED)
    assert history.summary == (
        "The regrouping with Recon Squad 2 in Recon in force was dissolved: Cpl Victor Rourke "
        "and LCpl Liam Vickers went back to Recon Squad 2; back to regular, leadership 3, fresh."
    )
    assert history.changes == {
        "strength": -2,
        "quality": ["regular", "regular"],
        "leadership": [2, 3],
        "fatigue": ["tired", "fresh"],
    }
    other = UnitHistoryEntry.objects.get(unit_id=blue[1].id, event_type=SETTLED)
    assert other.summary == (
        "The regrouping into Recon Squad 1 in Recon in force was dissolved: Cpl Victor Rourke "
        "and LCpl Liam Vickers came back."
    )
    assert other.changes == {"strength": 2}
    record = TrooperRecordEntry.objects.get(trooper_id=rourke.id, event_type=SETTLED)
    assert record.summary == (
        "Back from Recon Squad 1 to Recon Squad 2 after Recon in force: the regrouping was "
        "dissolved."
    )
    # The men of squad 2 ended the battle with squad 1, which held the field.
    kept = Participant.objects.get(battle_id=regrouped["id"], unit_id=blue[0].id)
    merged = Participant.objects.get(battle_id=regrouped["id"], unit_id=blue[1].id)
    assert (kept.fatigue, kept.starting_confidence) == ("fresh", "confident")
    assert merged.status == "fighting"
    assert_rebuild_keeps_rows()

    events = after_action(umpire_api, regrouped)
    drops = fatigue_drops(events)
    assert drops[str(blue[0].id)] == ("fresh", "tired")
    assert drops[str(blue[1].id)] == ("tired", "exhausted")
    assert Trooper.objects.get(id=rourke.id).battles_fought == 1
    assert_rebuild_keeps_rows()


def test_a_regroup_that_persists_stays_one_unit_p17(regrouped, umpire_api, campaign, blue):
    """``persists``: the two men stay with squad 1, which keeps what the regroup made it
    (Regular, LV 2, Tired: Exhausted after the battle, P.61); squad 2 is disbanded, merged
    into it, and has no after-action of its own. Each man counts the battle once."""
    set_option(umpire_api, campaign, "persists")
    response = end(umpire_api, regrouped)
    assert response.status_code == 200, response.json()

    (payload,) = settled(campaign)
    assert payload["regroups"] == [
        {
            "unit_id": str(blue[0].id),
            "merged_unit_id": str(blue[1].id),
            "persists": True,
            "merged_into": str(blue[0].id),
            "returned": [],
            "restored": None,
            "merged_unit_ended": None,
        }
    ]
    assert {t.unit_id for t in joining()} == {blue[0].id}
    squad_1, squad_2 = (Unit.objects.get(id=u.id) for u in blue[:2])
    assert (squad_1.quality, squad_1.leadership, squad_1.fatigue) == ("regular", 2, "tired")
    assert (squad_2.status, squad_2.merged_into) == ("disbanded", blue[0].id)
    history = UnitHistoryEntry.objects.get(unit_id=blue[1].id, event_type=SETTLED)
    assert history.summary == (
        "Merged into Recon Squad 1 for good after Recon in force: the regrouping stands."
    )
    assert history.changes == {
        "status": ["in_the_line", "disbanded"],
        "merged_into": str(blue[0].id),
    }
    assert UnitHistoryEntry.objects.get(unit_id=blue[0].id, event_type=SETTLED).summary == (
        "The regrouping with Recon Squad 2 in Recon in force stands: its men stay."
    )
    assert_rebuild_keeps_rows()

    events = after_action(umpire_api, regrouped)
    assert fatigue_drops(events)[str(blue[0].id)] == ("tired", "exhausted")
    assert not [e for e in events if e["payload"].get("unit_id") == str(blue[1].id)]
    rourke = Trooper.objects.get(name="Cpl Victor Rourke")
    assert rourke.battles_fought == 1
    assert_rebuild_keeps_rows()


def test_a_man_who_fell_after_joining_goes_back_to_his_own_units_roll(
    regrouped, umpire_api, campaign, blue
):
    """Killed with squad 1 after the regroup, LCpl Vickers goes back on squad 2's roll with the
    others of his unit who fell, counting for no strength, and counts the battle once."""
    set_option(umpire_api, campaign, "dissolves")
    vickers = Trooper.objects.get(name="LCpl Liam Vickers")
    kill(umpire_api, regrouped, vickers)
    assert end(umpire_api, regrouped).status_code == 200
    vickers.refresh_from_db()
    assert (vickers.unit_id, vickers.order, vickers.status) == (blue[1].id, 1, "dead")
    history = UnitHistoryEntry.objects.get(unit_id=blue[1].id, event_type=SETTLED)
    assert history.changes == {"strength": 1}
    assert (
        UnitHistoryEntry.objects.get(unit_id=blue[0].id, event_type=SETTLED).changes["strength"]
        == -1
    )
    after_action(umpire_api, regrouped)
    vickers.refresh_from_db()
    assert vickers.battles_fought == 1
    assert_rebuild_keeps_rows()


@pytest.mark.parametrize(("option", "home"), [("persists", 0), ("dissolves", 1)])
def test_flipping_the_option_changes_the_roster(
    regrouped, umpire_api, campaign, blue, option, home
):
    """The same regroup, the option flipped: the men stay with squad 1 or go back to squad 2."""
    set_option(umpire_api, campaign, option)
    assert end(umpire_api, regrouped).status_code == 200
    assert {t.unit_id for t in joining()} == {blue[home].id}


@pytest.mark.parametrize(("persisting", "home"), [(True, 0), (False, 1)])
def test_by_default_the_umpire_names_the_regroups_that_persist(
    regrouped, umpire_api, campaign, blue, persisting, home
):
    """``umpire`` (the default, P.17 being silent): a merger named in ``regroups_persisting``
    stands, any other is dissolved."""
    body = {"regroups_persisting": [blue[1].id]} if persisting else {}
    response = end(umpire_api, regrouped, **body)
    assert response.status_code == 200, response.json()
    (payload,) = settled(campaign)
    assert payload["regroup_persists"] == "umpire"
    assert payload["regroups"][0]["persists"] is persisting
    assert {t.unit_id for t in joining()} == {blue[home].id}
    log = [
        e["summary"]
        for e in umpire_api.get(f"/api/v1/battles/{regrouped['id']}/log/").json()["results"]
    ]
    assert log[-1] == (
        "Recon Squad 2 stays regrouped into Recon Squad 1 after the battle (as the umpire decided)."
        if persisting
        else "The regrouping of Recon Squad 2 into Recon Squad 1 was dissolved as the battle "
        "ended (as the umpire decided): Cpl Victor Rourke and LCpl Liam Vickers went back to "
        "Recon Squad 2."
    )


@pytest.mark.parametrize(
    ("option", "named", "code", "field"),
    [
        ("umpire", "joined", "battle.not_regrouped", "regroups_persisting.0"),
        ("umpire", "red", "battle.not_regrouped", "regroups_persisting.0"),
        ("umpire", "stranger", "battle.not_regrouped", "regroups_persisting.0"),
        ("persists", "merged", "battle.regroups_by_option", "regroups_persisting"),
        ("dissolves", "merged", "battle.regroups_by_option", "regroups_persisting"),
    ],
)
def test_the_end_refuses_regroups_it_cannot_settle(
    regrouped, umpire_api, campaign, blue, red, option, named, code, field
):
    """Only a unit that regrouped into another in this battle can be named, and only when the
    umpire decides: refused with nothing appended and the battle still going."""
    if option != "umpire":
        set_option(umpire_api, campaign, option)
    unit_id = {
        "joined": blue[0].id,
        "red": red[0].id,
        "stranger": uuid.uuid4(),
        "merged": blue[1].id,
    }[named]
    before = store.last_sequence(campaign.id)
    response = end(umpire_api, regrouped, regroups_persisting=[unit_id])
    assert (response.status_code, response.json()["code"]) == (400, code), response.json()
    assert response.json()["field"] == field
    assert store.last_sequence(campaign.id) == before
    assert Battle.objects.get(id=regrouped["id"]).status == "in_progress"


def test_a_battle_without_regroups_names_none(battle, umpire_api, campaign, blue):
    before = store.last_sequence(campaign.id)
    response = end(umpire_api, battle, regroups_persisting=[blue[1].id])
    assert (response.status_code, response.json()["code"]) == (400, "battle.not_regrouped")
    assert store.last_sequence(campaign.id) == before
    assert end(umpire_api, battle).status_code == 200
    assert settled(campaign) == []


def test_a_unit_that_joined_another_after_men_joined_it_sends_everyone_home(
    battle, umpire_api, campaign, blue
):
    """Squad 2 joins squad 1, then squad 1 (with squad 2's men) joins squad 3. Both dissolved,
    the last first: squad 1's men and squad 2's leave squad 3, and squad 2's go on home; squad 1
    and squad 3 get their own LVs back."""
    set_option(umpire_api, campaign, "dissolves")
    kill(
        umpire_api,
        battle,
        *members(blue[0])[3:],
        *members(blue[1])[2:],
        *members(blue[2])[3:],
    )
    set_leadership(umpire_api, blue[0], 3)
    set_leadership(umpire_api, blue[2], 3)
    regroup(umpire_api, battle, blue[0], blue[1])
    regroup(umpire_api, battle, blue[2], blue[0])
    assert {t.unit_id for t in joining()} == {blue[2].id}

    assert end(umpire_api, battle).status_code == 200
    (payload,) = settled(campaign)
    assert [(r["unit_id"], r["merged_unit_id"]) for r in payload["regroups"]] == [
        (str(blue[2].id), str(blue[0].id)),
        (str(blue[0].id), str(blue[1].id)),
    ]
    assert [(t.name, t.order) for t in members(blue[1])[:2]] == [
        ("Cpl Victor Rourke", 0),
        ("LCpl Liam Vickers", 1),
    ]
    assert [t.order for t in members(blue[0])] == [0, 1, 2, 3, 4, 5]
    assert len(members(blue[2])) == len({t.order for t in members(blue[2])})
    assert {u.name: u.leadership for u in Unit.objects.filter(id__in=[u.id for u in blue[:3]])} == {
        "Recon Squad 1": 3,
        "Recon Squad 2": 2,
        "Recon Squad 3": 3,
    }
    rourke = Trooper.objects.get(name="Cpl Victor Rourke")
    (record,) = TrooperRecordEntry.objects.filter(trooper_id=rourke.id, event_type=SETTLED)
    assert record.summary == (
        "Back from Recon Squad 3 to Recon Squad 2 after Recon in force: the regrouping was "
        "dissolved."
    )
    # Every unit ended the battle holding the field with squad 3.
    statuses = Participant.objects.filter(
        battle_id=battle["id"], unit_id__in=[u.id for u in blue[:2]]
    )
    assert {p.status for p in statuses} == {"fighting"}
    assert_rebuild_keeps_rows()


@pytest.mark.parametrize("stands", [True, False])
def test_the_umpire_decides_from_the_battle_page_too(
    regrouped, umpire, umpire_api, campaign, blue, client, stands
):
    """The end-of-battle form lists each regroup with a box: ticked, it stands (P.17)."""
    client.force_login(umpire)
    page = client.get(f"/battles/{regrouped['id']}/").content.decode()
    box = f"regroup-stands-{blue[1].id}"
    assert f'name="{box}"' in page
    assert "Recon Squad 2 stays with Recon Squad 1" in page
    form = {"winner": "Blue", **({box: "1"} if stands else {})}
    ended = client.post(f"/battles/{regrouped['id']}/end/", form, follow=True)
    assert ended.status_code == 200
    (payload,) = settled(campaign)
    assert payload["regroups"][0]["persists"] is stands
    assert {t.unit_id for t in joining()} == {blue[0 if stands else 1].id}


def test_the_page_asks_nothing_when_the_option_decides(
    regrouped, umpire, umpire_api, campaign, client
):
    set_option(umpire_api, campaign, "dissolves")
    client.force_login(umpire)
    assert "regroup-stands-" not in client.get(f"/battles/{regrouped['id']}/").content.decode()
