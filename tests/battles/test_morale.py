"""Morale actions through HTTP: reaction tests (SG2 P.21), rallying and regrouping (P.17)."""

from __future__ import annotations

import pytest

from battles.models import Participant
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


def act(api, battle, name, dice=None, **params):
    body = {key: str(value) if hasattr(value, "hex") else value for key, value in params.items()}
    if dice is not None:
        body["dice"] = dice
    return api.post(f"/api/v1/battles/{battle['id']}/actions/{name}/", body)


def participant(battle, unit) -> Participant:
    return Participant.objects.get(battle_id=battle["id"], unit_id=unit.id)


def battle_log(api, battle) -> list[str]:
    return [e["summary"] for e in api.get(f"/api/v1/battles/{battle['id']}/log/").json()["results"]]


def shake(api, battle, unit, face: int) -> None:
    """Lower a unit's confidence with a confidence test for casualties from fire (P.20)."""
    response = act(
        api,
        battle,
        "confidence_test",
        dice=[face],
        unit_id=unit.id,
        circumstances=["casualties_from_fire"],
    )
    assert response.status_code == 201, response.json()


def refused(api, campaign, battle, name, dice, status, code, field=None, **params):
    before = store.last_sequence(campaign.id)
    response = act(api, battle, name, dice=dice, **params)
    assert (response.status_code, response.json()["code"]) == (status, code), response.json()
    if field is not None:
        assert response.json()["field"] == field
    assert store.last_sequence(campaign.id) == before


@pytest.fixture
def tired() -> tuple[str, ...]:
    """The Blue units the roster makes Tired (P.19): none unless a test asks."""
    return ()


@pytest.fixture
def campaign(umpire, umpire_api, tired):
    return scenario_campaign(umpire, umpire_api, blue=blue_roster(tired=tired))


@pytest.fixture
def blue(forces):
    return squads(forces["Blue"])


@pytest.fixture
def red(forces):
    return squads(forces["Red"])


def command_unit(force) -> Unit:
    return Unit.objects.get(force_id=force.id, kind="command")


# --- Reaction tests ----------------------------------------------------------------------------


@pytest.mark.parametrize(("face", "passed"), [(5, True), (4, False)])
def test_a_reaction_test_from_the_table(battle, umpire_api, blue, face, passed):
    """P.21: going in position in the open is TL 2; a Regular (D8) LV 2 squad must beat 4.
    Failing never changes confidence."""
    response = act(
        umpire_api,
        battle,
        "reaction_test",
        dice=[face],
        unit_id=blue[0].id,
        circumstance="in_position_in_open",
    )
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert event["type"] == "battles.ReactionTested"
    payload = event["payload"]
    assert (payload["threat_level"], payload["target"], payload["passed"]) == (2, 4, passed)
    assert [(d["die"], d["result"]) for d in payload["dice"]] == [(8, face)]
    assert participant(battle, blue[0]).confidence == "confident"
    verdict = (
        "passed: 5 beats 4, the order is carried out"
        if passed
        else "failed: 4 does not beat 4, the action is not carried out"
    )
    assert battle_log(umpire_api, battle)[-1] == (
        f"Recon Squad 1 took a reaction test at threat level 2 (in position in open) and "
        f"{verdict}. [d8 {face}; table]"
    )


def test_the_umpire_may_set_the_threat_level(battle, umpire_api, blue):
    """P.21: other circumstances at the umpire's threat level (a Shaken close assault, +3,
    P.41): the Veteran (D10) LV 2 squad must beat 5."""
    response = act(
        umpire_api, battle, "reaction_test", dice=[5], unit_id=blue[1].id, threat_level=3
    )
    assert response.status_code == 201, response.json()
    payload = response.json()["events"][0]["payload"]
    assert (payload["circumstance"], payload["target"], payload["passed"]) == (None, 5, False)
    assert "(a circumstance the umpire set)" in battle_log(umpire_api, battle)[-1]


@pytest.mark.parametrize(
    "threat", [{}, {"circumstance": "panic", "threat_level": 1}, {"circumstance": "charge"}]
)
def test_a_reaction_test_needs_one_threat(battle, umpire_api, campaign, blue, threat):
    refused(
        umpire_api,
        campaign,
        battle,
        "reaction_test",
        [5],
        400,
        "action.invalid",
        unit_id=blue[0].id,
        **threat,
    )


def test_the_server_rolls_a_reaction_test(battle, umpire_api, blue):
    response = act(umpire_api, battle, "reaction_test", unit_id=blue[0].id, circumstance="panic")
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    (event,) = job["events"]
    assert [(d["die"], d["source"]) for d in event["payload"]["dice"]] == [(8, "server")]


# --- Rallying ----------------------------------------------------------------------------------


@pytest.fixture
def battle_with_hq(umpire_api, campaign, plan_body, forces):
    """A battle with the platoon command squads committed as well as the squads."""
    battle = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/battles/", plan_body).json()
    units = [
        str(u.id)
        for side in ("Blue", "Red")
        for u in [command_unit(forces[side]), *squads(forces[side])]
    ]
    umpire_api.post(f"/api/v1/battles/{battle['id']}/commit/", {"unit_ids": units})
    started = umpire_api.post(f"/api/v1/battles/{battle['id']}/start/")
    assert started.status_code == 200, started.json()
    return started.json()


@pytest.fixture
def hq(forces):
    return command_unit(forces["Blue"])


def test_the_platoon_commander_rallies_a_squad(battle_with_hq, umpire_api, blue, hq):
    """P.17: the Regular (D8) LV 2 platoon HQ talks to its squad (no level bypassed: D8 against
    LV 2), then the Regular squad rolls its D8 against the sum of the LVs, 4: 5 rallies it one
    level, from Shaken to Steady."""
    shake(umpire_api, battle_with_hq, blue[0], 1)
    response = act(
        umpire_api,
        battle_with_hq,
        "rally",
        dice=[3, 5],
        unit_id=blue[0].id,
        rallier_unit_id=hq.id,
    )
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert event["type"] == "battles.RallyAttempted"
    payload = event["payload"]
    assert (payload["communicated"], payload["rallied"], payload["target"]) == (True, True, 4)
    assert (payload["confidence_before"], payload["confidence_after"]) == ("shaken", "steady")
    assert participant(battle_with_hq, blue[0]).confidence == "steady"
    assert battle_log(umpire_api, battle_with_hq)[-1] == (
        "Platoon Command Squad rallied Recon Squad 1 (needing more than 4): from shaken to "
        "steady. [d8 3, d8 5; table]"
    )


@pytest.mark.parametrize(
    ("dice", "direct", "after", "line"),
    [
        ([2], False, "shaken", "the message did not get through; it stays shaken."),
        ([3, 4], False, "shaken", "(needing more than 4): it stays shaken."),
        ([5], True, "steady", "(needing more than 4): from shaken to steady."),
    ],
)
def test_a_rally_that_fails_or_skips_the_radio(
    battle_with_hq, umpire_api, blue, hq, dice, direct, after, line
):
    """P.17: a lost message wastes the rally; a rally test of 4 against 4 fails; in direct
    contact there is no communication roll."""
    shake(umpire_api, battle_with_hq, blue[0], 1)
    response = act(
        umpire_api,
        battle_with_hq,
        "rally",
        dice=dice,
        unit_id=blue[0].id,
        rallier_unit_id=hq.id,
        direct_contact=direct,
    )
    assert response.status_code == 201, response.json()
    assert participant(battle_with_hq, blue[0]).confidence == after
    assert battle_log(umpire_api, battle_with_hq)[-1].startswith("Platoon Command Squad ")
    assert line in battle_log(umpire_api, battle_with_hq)[-1]


@pytest.mark.parametrize("tired", [("Recon Squad 1",)], ids=["tired"])
def test_a_rally_stops_at_the_level_fatigue_started_the_unit_at(
    battle_with_hq, umpire_api, campaign, blue, hq
):
    """P.19: a Tired unit started Steady and cannot be rallied above it."""
    started = participant(battle_with_hq, blue[0])
    assert (started.fatigue, started.starting_confidence) == ("tired", "steady")
    shake(umpire_api, battle_with_hq, blue[0], 2)  # D8 2 against 3: one level, to shaken
    assert participant(battle_with_hq, blue[0]).confidence == "shaken"
    body = {"unit_id": blue[0].id, "rallier_unit_id": hq.id, "direct_contact": True}
    assert act(umpire_api, battle_with_hq, "rally", dice=[5], **body).status_code == 201
    assert participant(battle_with_hq, blue[0]).confidence == "steady"
    refused(
        umpire_api,
        campaign,
        battle_with_hq,
        "rally",
        [5],
        422,
        "rally.at_ceiling",
        "unit_id",
        **body,
    )
    assert_rebuild_keeps_rows()


@pytest.mark.parametrize(
    ("rallier", "dice", "status", "code", "field"),
    [
        ("squad", [3, 5], 422, "rally.not_superior", "rallier_unit_id"),
        ("red_hq", [3, 5], 422, "rally.other_side", "rallier_unit_id"),
        ("jammed_face_to_face", [5], 400, "action.invalid", "jamming_die"),
    ],
)
def test_rally_refusals(
    battle_with_hq, umpire_api, campaign, forces, blue, hq, rallier, dice, status, code, field
):
    shake(umpire_api, battle_with_hq, blue[0], 1)
    params = {"unit_id": blue[0].id, "rallier_unit_id": hq.id}
    if rallier == "squad":
        params["rallier_unit_id"] = blue[1].id
    elif rallier == "red_hq":
        params["rallier_unit_id"] = command_unit(forces["Red"]).id
    else:
        params.update(direct_contact=True, jamming_die=6)
    refused(umpire_api, campaign, battle_with_hq, "rally", dice, status, code, field, **params)


def test_a_confident_unit_cannot_be_rallied(battle_with_hq, umpire_api, campaign, blue, hq):
    refused(
        umpire_api,
        campaign,
        battle_with_hq,
        "rally",
        [3, 5],
        422,
        "rally.at_ceiling",
        unit_id=blue[0].id,
        rallier_unit_id=hq.id,
    )


def test_the_server_rolls_a_rally(battle_with_hq, umpire_api, blue, hq):
    shake(umpire_api, battle_with_hq, blue[0], 1)
    response = act(
        umpire_api,
        battle_with_hq,
        "rally",
        unit_id=blue[0].id,
        rallier_unit_id=hq.id,
        direct_contact=True,
    )
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    (event,) = job["events"]
    assert [(d["die"], d["source"]) for d in event["payload"]["dice"]] == [(8, "server")]


# --- Regrouping --------------------------------------------------------------------------------


@pytest.fixture
def depleted(battle, umpire_api, blue):
    """Recon Squad 1 (Regular, LV 3 here) down to 3 men, Confident; Recon Squad 2 (Veteran,
    LV 2) down to 2 men and Shaken."""
    first, second = members(blue[0]), members(blue[1])
    kill(umpire_api, battle, *first[3:], *second[2:])
    set_leadership(umpire_api, blue[0], 3)
    shake(umpire_api, battle, blue[1], 1)  # D10 1 against 3: two levels, to shaken
    return battle


def test_two_depleted_squads_regroup(depleted, umpire_api, blue):
    """P.17: the new unit has the better LV (2), the quality of the unit with more men
    (Regular) and the average confidence rounded up (Confident and Shaken: Steady)."""
    joining = members(blue[1])[:2]
    response = act(
        umpire_api, depleted, "regroup", dice=[], unit_id=blue[0].id, other_unit_id=blue[1].id
    )
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert event["type"] == "battles.UnitsRegrouped"
    payload = event["payload"]
    assert (payload["strength"], payload["quality"], payload["leadership"]) == (5, "regular", 2)
    assert (payload["confidence"], payload["fatigue"], payload["dice"]) == ("steady", "fresh", [])

    kept, merged = participant(depleted, blue[0]), participant(depleted, blue[1])
    assert (kept.confidence, kept.status) == ("steady", "fighting")
    assert merged.status == "withdrawn"
    unit = Unit.objects.get(id=blue[0].id)
    assert (unit.quality, unit.leadership) == ("regular", 2)
    moved = [Trooper.objects.get(id=t.id) for t in joining]
    assert [(t.unit_id, t.order) for t in moved] == [(blue[0].id, 6), (blue[0].id, 7)]
    assert {t.unit_id for t in members(blue[1])} == {blue[1].id}  # the dead stay on its roll
    assert len(members(blue[1])) == 4

    assert battle_log(umpire_api, depleted)[-1] == (
        "Recon Squad 2 regrouped into Recon Squad 1 (Cpl Victor Rourke, LCpl Liam Vickers "
        "joined): 5 strong, regular, leadership 2, steady (from confident and shaken)."
    )
    history = UnitHistoryEntry.objects.get(unit_id=blue[0].id, event_type=event["type"])
    assert history.changes == {
        "quality": ["regular", "regular"],
        "leadership": [3, 2],
        "fatigue": ["fresh", "fresh"],
        "strength": 2,
    }
    other = UnitHistoryEntry.objects.get(unit_id=blue[1].id, event_type=event["type"])
    assert other.summary == (
        "Regrouped into Recon Squad 1 in Recon in force: Cpl Victor Rourke, LCpl Liam Vickers "
        "joined it."
    )
    record = TrooperRecordEntry.objects.get(trooper_id=joining[0].id, event_type=event["type"])
    assert record.summary == "Regrouped from Recon Squad 2 into Recon Squad 1 in Recon in force."
    assert_rebuild_keeps_rows()


def test_a_regrouped_away_unit_no_longer_acts(depleted, umpire_api, campaign, blue):
    act(umpire_api, depleted, "regroup", dice=[], unit_id=blue[0].id, other_unit_id=blue[1].id)
    refused(
        umpire_api,
        campaign,
        depleted,
        "reaction_test",
        [5],
        409,
        "battle.unit_gone",
        unit_id=blue[1].id,
        circumstance="panic",
    )


@pytest.mark.parametrize(
    ("other", "status", "code", "field"),
    [
        ("full", 409, "regroup.not_depleted", "other_unit_id"),
        ("red", 422, "regroup.other_side", "other_unit_id"),
        ("same", 400, "regroup.same_unit", "other_unit_id"),
    ],
)
def test_regroup_refusals(depleted, umpire_api, campaign, blue, red, other, status, code, field):
    other_unit = {"full": blue[2], "red": red[0], "same": blue[0]}[other]
    refused(
        umpire_api,
        campaign,
        depleted,
        "regroup",
        [],
        status,
        code,
        field,
        unit_id=blue[0].id,
        other_unit_id=other_unit.id,
    )


def test_regrouping_through_a_job(depleted, umpire_api, blue):
    response = act(umpire_api, depleted, "regroup", unit_id=blue[0].id, other_unit_id=blue[1].id)
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    assert job["events"][0]["payload"]["dice"] == []
    assert participant(depleted, blue[1]).status == "withdrawn"


def test_rebuilding_gives_the_rows_the_actions_wrote(
    battle_with_hq, umpire_api, campaign, blue, hq
):
    from eventlog.projections import dump_rows, rebuild

    act(umpire_api, battle_with_hq, "reaction_test", dice=[3], unit_id=blue[0].id, threat_level=1)
    shake(umpire_api, battle_with_hq, blue[0], 1)
    act(
        umpire_api,
        battle_with_hq,
        "rally",
        dice=[3, 5],
        unit_id=blue[0].id,
        rallier_unit_id=hq.id,
    )
    inline = dump_rows(campaign.id)
    rebuild(campaign.id)
    assert dump_rows(campaign.id) == inline
