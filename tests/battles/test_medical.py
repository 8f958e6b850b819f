"""Medical treatment in battle through HTTP (SG2 P.39): one D6 per casualty, +1 medic, +2
medical unit; 1-2 dead, 3-5 stabilised, 6+ back in action."""

from __future__ import annotations

import pytest

from eventlog import store
from rosters.models import Trooper, TrooperRecordEntry, Unit, UnitHistoryEntry
from tests.battles.conftest import members, squads
from tests.battles.helpers import (
    assert_rebuild_keeps_rows,
    blue_roster,
    kill,
    scenario_campaign,
    stabilise,
    wound,
)

pytestmark = pytest.mark.django_db


def status_of(*troopers: Trooper) -> list[str]:
    return [Trooper.objects.get(id=t.id).status for t in troopers]


def treat(api, battle, unit, dice=None, **params):
    body = {"unit_id": str(unit.id), **params}
    if dice is not None:
        body["dice"] = dice
    return api.post(f"/api/v1/battles/{battle['id']}/actions/medical_treatment/", body)


def battle_log(api, battle) -> list[dict]:
    return api.get(f"/api/v1/battles/{battle['id']}/log/").json()["results"]


# Recon Squad 1's second man (members(squad)[1]), the medic in the tests that give the squad one.
MEDIC = "LCpl Rachel Marsh"
with_a_medic = pytest.mark.parametrize("medics", [(MEDIC,)], ids=["medic"])


@pytest.fixture
def medics() -> tuple[str, ...]:
    """The Blue troopers the roster makes medics: none unless a test asks for one."""
    return ()


@pytest.fixture
def campaign(umpire, umpire_api, medics):
    return scenario_campaign(umpire, umpire_api, blue=blue_roster(medics=medics))


@pytest.fixture
def plan_body(plan_body, forces):
    """Blue's mission lists its platoon command squad as a medical unit attending."""
    hq = Unit.objects.get(force_id=forces["Blue"].id, kind="command")
    plan_body["sides"][0]["medical_unit_ids"] = [str(hq.id)]
    return plan_body


@pytest.fixture
def squad(forces):
    return squads(forces["Blue"])[0]


@pytest.fixture
def hq(forces):
    return Unit.objects.get(force_id=forces["Blue"].id, kind="command")


def test_each_casualty_rolls_a_d6_in_roster_order(battle, umpire_api, squad):
    """P.39 without help: 2 dead, 4 stabilised, 6 back in action."""
    men = members(squad)
    wound(umpire_api, battle, men[3], men[4], men[5])
    response = treat(umpire_api, battle, squad, dice=[2, 4, 6])
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert event["type"] == "battles.CasualtiesTreated"
    payload = event["payload"]
    assert (payload["medic"], payload["modifier"], payload["turn"]) == (False, 0, 1)
    assert [(t["total"], t["result"]) for t in payload["treatments"]] == [
        (2, "dead"),
        (4, "stabilised"),
        (6, "fit"),
    ]
    assert [d["result"] for d in payload["dice"]] == [2, 4, 6]
    assert {d["source"] for d in payload["dice"]} == {"table"}
    assert status_of(men[3], men[4], men[5]) == ["dead", "stabilised", "fit"]
    assert status_of(men[0], men[1], men[2]) == ["fit", "fit", "fit"]

    lines = [entry["summary"] for entry in battle_log(umpire_api, battle)[-3:]]
    assert lines == [
        "Pte Daniel Merritt of Recon Squad 1 treated: 2 + 0 = 2, could not be saved: dead."
        " [d6 2; table]",
        "Pte Neil Walsh of Recon Squad 1 treated: 4 + 0 = 4, stabilised. [d6 4; table]",
        "Pte Tariq Griffin of Recon Squad 1 treated: 6 + 0 = 6, back in action. [d6 6; table]",
    ]
    record = TrooperRecordEntry.objects.get(trooper_id=men[3].id, event_type=event["type"])
    assert (
        record.summary
        == "Treated for wounds in Recon in force: 2 + 0 = 2, could not be saved: dead."
    )
    assert str(record.battle_id) == battle["id"]
    assert [d["result"] for d in record.dice] == [2]
    history = UnitHistoryEntry.objects.get(unit_id=squad.id, event_type=event["type"])
    assert history.changes == {"strength": -1}
    assert "Pte Daniel Merritt could not be saved: dead" in history.summary
    assert [d["result"] for d in history.dice] == [2, 4, 6]
    assert_rebuild_keeps_rows()


@with_a_medic
def test_a_fit_medic_adds_one(battle, umpire_api, squad):
    """P.39: +1 with a medic, so a 1 is a 2 (dead) and a 5 a 6 (fit)."""
    men = members(squad)
    wound(umpire_api, battle, men[3], men[4])
    response = treat(umpire_api, battle, squad, dice=[1, 5])
    assert response.status_code == 201, response.json()
    payload = response.json()["events"][0]["payload"]
    assert (payload["medic"], payload["modifier"]) == (True, 1)
    assert status_of(men[3], men[4]) == ["dead", "fit"]
    assert battle_log(umpire_api, battle)[-1]["summary"] == (
        "Pte Neil Walsh of Recon Squad 1 treated with a medic (+1): 5 + 1 = 6, back in action."
        " [d6 5; table]"
    )


@with_a_medic
@pytest.mark.parametrize(
    ("medic_must_be_fit", "expected"),
    [(True, ["dead", "stabilised"]), (False, ["stabilised", "fit"])],
)
def test_a_wounded_medic_helps_only_if_the_option_says_so(
    battle, umpire_api, campaign, squad, medic_must_be_fit, expected
):
    """P.39 is silent on a medic who is himself down: option medic_must_be_fit (default on)."""
    umpire_api.patch(
        f"/api/v1/campaigns/{campaign.id}/options/",
        {"changes": {"medic_must_be_fit": medic_must_be_fit}, "reason": "house rule"},
    )
    men = members(squad)
    wound(umpire_api, battle, men[1], men[3])
    response = treat(umpire_api, battle, squad, dice=[2, 5])
    assert response.status_code == 201, response.json()
    assert status_of(men[1], men[3]) == expected
    assert_rebuild_keeps_rows()


@with_a_medic
@pytest.mark.parametrize(("stack", "expected"), [(False, "stabilised"), (True, "fit")])
def test_a_medical_unit_adds_two_and_stacks_only_by_option(
    battle, umpire_api, campaign, squad, hq, stack, expected
):
    """P.39: +2 with a medical unit; with a medic too, +2 (the larger) or +3 if they stack."""
    umpire_api.patch(
        f"/api/v1/campaigns/{campaign.id}/options/",
        {"changes": {"medical_modifiers_stack": stack}, "reason": "house rule"},
    )
    men = members(squad)
    wound(umpire_api, battle, men[4])
    response = treat(umpire_api, battle, squad, dice=[3], medical_unit_id=str(hq.id))
    assert response.status_code == 201, response.json()
    payload = response.json()["events"][0]["payload"]
    assert payload["modifier"] == (3 if stack else 2)
    assert payload["medical_unit_id"] == str(hq.id)
    assert status_of(men[4]) == [expected]
    assert (
        "with a medic and Platoon Command Squad attending"
        in battle_log(umpire_api, battle)[-1]["summary"]
    )


def test_a_medical_unit_alone_saves_everyone(battle, umpire_api, squad, hq):
    """P.39: with +2 nobody dies: a 1 is a 3, stabilised."""
    men = members(squad)
    wound(umpire_api, battle, men[3], men[4])
    response = treat(umpire_api, battle, squad, dice=[1, 4], medical_unit_id=str(hq.id))
    assert response.status_code == 201, response.json()
    assert status_of(men[3], men[4]) == ["stabilised", "fit"]


def test_naming_the_casualties_checks_them(battle, umpire_api, squad):
    men = members(squad)
    wound(umpire_api, battle, men[3], men[4])
    response = treat(
        umpire_api, battle, squad, dice=[3, 3], trooper_ids=[str(men[4].id), str(men[3].id)]
    )
    assert response.status_code == 201, response.json()
    assert status_of(men[3], men[4]) == ["stabilised", "stabilised"]


@pytest.mark.parametrize(
    ("setup", "named", "status", "code", "field"),
    [
        ({3: "dead", 4: "wounded"}, [3, 4], 409, "treatment.not_wounded", "trooper_ids.0"),
        ({4: "wounded"}, [4, 0], 409, "treatment.not_wounded", "trooper_ids.1"),
        ({3: "stabilised", 4: "wounded"}, [3], 409, "treatment.already_treated", "trooper_ids.0"),
        ({3: "wounded", 4: "wounded"}, [3], 409, "treatment.casualty_not_named", "trooper_ids"),
        ({3: "dead", 4: "stabilised"}, None, 409, "treatment.no_casualties", "unit_id"),
        ({}, None, 409, "treatment.no_casualties", "unit_id"),
    ],
)
def test_treating_who_cannot_be_treated_is_refused(
    battle, umpire_api, campaign, squad, setup, named, status, code, field
):
    men = members(squad)
    # The stabilised are treated before the others are hit, so treatment reaches only them.
    stabilise(umpire_api, battle, *(men[i] for i, v in setup.items() if v == "stabilised"))
    wound(umpire_api, battle, *(men[i] for i, v in setup.items() if v == "wounded"))
    kill(umpire_api, battle, *(men[i] for i, v in setup.items() if v == "dead"))
    params = {"trooper_ids": [str(men[i].id) for i in named]} if named is not None else {}
    before = store.last_sequence(campaign.id)
    response = treat(umpire_api, battle, squad, dice=[4, 4], **params)
    assert response.status_code == status, response.json()
    assert (response.json()["code"], response.json()["field"]) == (code, field)
    assert store.last_sequence(campaign.id) == before


def test_a_trooper_of_another_unit_is_refused(battle, umpire_api, campaign, squad, forces):
    men = members(squad)
    wound(umpire_api, battle, men[3])
    stranger = members(squads(forces["Blue"])[1])[0]
    before = store.last_sequence(campaign.id)
    response = treat(umpire_api, battle, squad, dice=[4], trooper_ids=[str(stranger.id)])
    assert (response.status_code, response.json()["code"]) == (422, "treatment.not_in_unit")
    assert store.last_sequence(campaign.id) == before


def test_a_medical_unit_not_on_the_mission_is_refused(battle, umpire_api, campaign, squad):
    wound(umpire_api, battle, members(squad)[3])
    before = store.last_sequence(campaign.id)
    response = treat(umpire_api, battle, squad, dice=[4], medical_unit_id=str(squad.id))
    assert response.status_code == 422
    assert (response.json()["code"], response.json()["field"]) == (
        "treatment.no_medical_unit",
        "medical_unit_id",
    )
    assert store.last_sequence(campaign.id) == before


@pytest.mark.parametrize(("dice", "code"), [([4], "dice.missing"), ([4, 4, 4], "dice.unused")])
def test_the_wrong_number_of_dice_is_refused(battle, umpire_api, campaign, squad, dice, code):
    men = members(squad)
    wound(umpire_api, battle, men[3], men[4])
    before = store.last_sequence(campaign.id)
    response = treat(umpire_api, battle, squad, dice=dice)
    assert (response.status_code, response.json()["code"]) == (400, code)
    assert store.last_sequence(campaign.id) == before
    assert status_of(men[3], men[4]) == ["wounded", "wounded"]


def test_a_unit_not_in_the_battle_is_refused(battle, umpire_api, campaign, hq):
    before = store.last_sequence(campaign.id)
    response = treat(umpire_api, battle, hq, dice=[4])
    assert (response.status_code, response.json()["code"]) == (400, "battle.not_a_participant")
    assert store.last_sequence(campaign.id) == before


def test_the_server_rolls_when_no_dice_are_given(battle, umpire_api, squad):
    men = members(squad)
    wound(umpire_api, battle, men[3], men[4])
    response = treat(umpire_api, battle, squad)
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    (event,) = job["events"]
    assert event["type"] == "battles.CasualtiesTreated"
    dice = event["payload"]["dice"]
    assert len(dice) == 2
    assert {d["source"] for d in dice} == {"server"}
    assert all(s != "wounded" for s in status_of(men[3], men[4]))
