"""Players' battle reports and the umpire's reconciliation, through HTTP.

SG2 scenario 1 (Blue against Red): a Red trooper is wounded in the battle (named casualties);
after the battle each side's player files a report and the two disagree about him. The umpire
sees the disagreement beside the log, decides, and the roster and each report follow.
"""

from __future__ import annotations

import pytest

from battles.models import BattleReport
from eventlog import store
from rosters.models import Trooper
from tests.battles.conftest import EXAMPLES, members, squads
from tests.battles.helpers import assert_rebuild_keeps_rows
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def visibility():
    """Players see each other's forces whole, so each can name the other side's troopers."""
    return "full"


@pytest.fixture
def campaign(umpire, umpire_api, visibility):
    campaign = campaign_for(
        umpire, name="Recon in force", options={"forces_visibility": visibility}
    )
    for name in ("sg2-scenario-1-blue.yaml", "sg2-scenario-1-red.yaml"):
        response = umpire_api.post(
            f"/api/v1/campaigns/{campaign.id}/forces/",
            {"roster": (EXAMPLES / name).read_text(), "source": name},
        )
        assert response.status_code == 201, response.json()
    return campaign


@pytest.fixture
def players(make_user, join, campaign, forces, api_for):
    blue, red = make_user("blue_player"), make_user("red_player")
    join(campaign.id, blue, "player", [str(forces["Blue"].id)])
    join(campaign.id, red, "player", [str(forces["Red"].id)])
    return {"Blue": api_for(blue), "Red": api_for(red)}


@pytest.fixture
def red_men(forces):
    return members(squads(forces["Red"])[0])


@pytest.fixture
def blue_men(forces):
    return members(squads(forces["Blue"])[0])


@pytest.fixture
def ended(umpire_api, battle, red_men):
    """The battle after Red's second man was wounded, ended with Blue the winner."""
    url = f"/api/v1/battles/{battle['id']}/"
    wounded = umpire_api.post(
        f"{url}actions/casualties/",
        {
            "unit_id": str(red_men[0].unit_id),
            "mode": "named",
            "casualties": [{"trooper_id": str(red_men[1].id), "result": "wounded"}],
            "dice": [],
        },
    )
    assert wounded.status_code == 201, wounded.json()
    assert umpire_api.post(f"{url}end/", {"winner": "Blue"}).status_code == 200
    return battle


def reports_url(battle) -> str:
    return f"/api/v1/battles/{battle['id']}/reports/"


def reconciliation_url(battle) -> str:
    return f"/api/v1/battles/{battle['id']}/reconciliation/"


def file(api, battle, side, troopers=(), objectives=(), notes=""):
    return api.post(
        reports_url(battle),
        {
            "side": side,
            "troopers": [{"trooper_id": str(t.id), "status": s} for t, s in troopers],
            "objectives": list(objectives),
            "notes": notes,
        },
    )


def point_of(body, trooper) -> dict:
    return next(p for p in body["points"] if p["point"] == f"trooper:{trooper.id}")


def last_sequence(campaign) -> int:
    return store.last_sequence(campaign.id)


def test_two_reports_disagree_on_one_casualty_and_the_umpire_accepts_one(
    ended, players, umpire_api, red_men, campaign
):
    blue = file(
        players["Blue"],
        ended,
        "Blue",
        troopers=[(red_men[1], "killed")],
        objectives=[{"side": "Blue", "objective": "Locate the enemy platoon", "met": True}],
        notes="We got him.",
    )
    assert blue.status_code == 201, blue.json()
    red = file(players["Red"], ended, "Red", troopers=[(red_men[1], "wounded")])
    assert red.status_code == 201, red.json()

    seen = umpire_api.get(reconciliation_url(ended)).json()
    point = point_of(seen, red_men[1])
    assert (point["logged"], point["state"], point["disagreement"]) == (
        "wounded",
        "disagreement",
        True,
    )
    assert {c["side"]: c["value"] for c in point["claims"]} == {"Blue": "killed", "Red": "wounded"}
    # Red's other men are claimed fit by Red's report and the log agrees: no point to decide.
    assert f"trooper:{red_men[2].id}" not in {p["point"] for p in seen["points"]}
    objective = next(p for p in seen["points"] if p["kind"] == "objective")
    assert (objective["name"], objective["logged"], objective["state"]) == (
        "Locate the enemy platoon",
        "unrecorded",
        "to_decide",
    )

    decided = umpire_api.post(
        reconciliation_url(ended),
        {
            "point": f"trooper:{red_men[1].id}",
            "decision": "accept",
            "report_id": blue.json()["report_id"],
        },
    )
    assert decided.status_code == 200, decided.json()
    assert point_of(decided.json(), red_men[1])["state"] == "decided"
    assert Trooper.objects.get(pk=red_men[1].pk).status == "dead"
    (loss,) = [
        e
        for e in store.read(campaign.id, types=["battles.CasualtiesResolved"])
        if e.payload["mode"] == "reported"
    ]
    assert loss.payload["report_id"] == blue.json()["report_id"]
    assert loss.payload["casualties"][0]["status_before"] == "wounded"

    # Each player sees the decision on their own report, and only their own report.
    (red_report,) = players["Red"].get(reports_url(ended)).json()["reports"]
    assert red_report["side"] == "Red"
    (decision,) = red_report["decisions"]
    assert (decision["claimed"], decision["value"], decision["upheld"]) == (
        "wounded",
        "killed",
        False,
    )
    (blue_report,) = players["Blue"].get(reports_url(ended)).json()["reports"]
    assert blue_report["decisions"][0]["upheld"] is True
    assert blue_report["notes"] == "We got him."
    assert len(umpire_api.get(reports_url(ended)).json()["reports"]) == 2
    assert_rebuild_keeps_rows()


def test_the_other_sides_player_does_not_see_a_report_in_the_log(ended, players, red_men):
    assert file(players["Red"], ended, "Red", troopers=[(red_men[1], "killed")]).status_code == 201
    assert file(players["Blue"], ended, "Blue").status_code == 201
    log = players["Red"].get(f"/api/v1/battles/{ended['id']}/log/").json()["results"]
    assert [line["summary"] for line in log if "report" in line["summary"]] == [
        "red_player filed Red's battle report: 1 trooper named wounded or killed, 0 objectives "
        "reported."
    ]
    mine = players["Blue"].get(f"/api/v1/battles/{ended['id']}/log/").json()["results"]
    assert any("filed Blue's battle report" in line["summary"] for line in mine)


def test_an_objective_disputed_is_corrected_with_a_reason(ended, players, umpire_api):
    said = {"side": "Blue", "objective": "Locate the enemy platoon"}
    assert (
        file(players["Blue"], ended, "Blue", objectives=[said | {"met": True}]).status_code == 201
    )
    assert file(players["Red"], ended, "Red", objectives=[said | {"met": False}]).status_code == 201
    point = f"objective:Blue:{said['objective']}"
    seen = umpire_api.get(reconciliation_url(ended)).json()
    assert next(p for p in seen["points"] if p["point"] == point)["state"] == "disagreement"

    no_reason = umpire_api.post(
        reconciliation_url(ended), {"point": point, "decision": "correct", "value": "met"}
    )
    assert (no_reason.status_code, no_reason.json()["code"]) == (400, "report.reason")
    done = umpire_api.post(
        reconciliation_url(ended),
        {"point": point, "decision": "correct", "value": "met", "reason": "Scouts saw them."},
    )
    assert done.status_code == 200, done.json()
    decided = next(p for p in done.json()["points"] if p["point"] == point)
    assert (decided["logged"], decided["state"]) == ("met", "decided")
    (red_report,) = players["Red"].get(reports_url(ended)).json()["reports"]
    assert red_report["decisions"][0]["reason"] == "Scouts saw them."


def test_a_refused_report_or_decision_appends_nothing(
    ended, players, umpire_api, red_men, blue_men, campaign
):
    before = last_sequence(campaign)
    refusals = [
        (file(players["Red"], ended, "Blue"), 403, "report.not_your_side"),
        (file(players["Blue"], ended, "Green"), 403, "report.not_your_side"),
        (
            file(players["Blue"], ended, "Blue", troopers=[(red_men[1], "killed")] * 2),
            400,
            "report.named_twice",
        ),
        (
            file(
                players["Blue"],
                ended,
                "Blue",
                objectives=[{"side": "Blue", "objective": "Hold the ford", "met": True}],
            ),
            400,
            "report.unknown_objective",
        ),
        (
            players["Blue"].post(
                reports_url(ended),
                {"side": "Blue", "troopers": [{"trooper_id": str(red_men[1].id), "status": "x"}]},
            ),
            400,
            "report.invalid",
        ),
        (players["Blue"].post(reconciliation_url(ended), {}), 403, "campaign.umpire_only"),
    ]
    for response, code, error in refusals:
        assert (response.status_code, response.json()["code"]) == (code, error), response.json()
    assert last_sequence(campaign) == before

    assert file(players["Red"], ended, "Red", troopers=[(red_men[1], "fit")]).status_code == 201
    before = last_sequence(campaign)
    point = f"trooper:{red_men[1].id}"
    report_id = players["Red"].get(reports_url(ended)).json()["reports"][0]["report_id"]
    worse = umpire_api.post(
        reconciliation_url(ended), {"point": point, "decision": "accept", "report_id": report_id}
    )
    assert (worse.status_code, worse.json()["code"]) == (409, "report.log_holds_worse")
    unknown = umpire_api.post(
        reconciliation_url(ended), {"point": f"trooper:{blue_men[0].id}", "decision": "reject"}
    )
    assert (unknown.status_code, unknown.json()["code"]) == (404, "report.no_such_point")
    assert last_sequence(campaign) == before

    kept = umpire_api.post(
        reconciliation_url(ended), {"point": point, "decision": "reject", "reason": "Medic saw."}
    )
    assert kept.status_code == 200, kept.json()
    again = umpire_api.post(
        reconciliation_url(ended), {"point": point, "decision": "reject", "reason": "Again."}
    )
    assert (again.status_code, again.json()["code"]) == (409, "report.point_decided")
    refiled = file(players["Red"], ended, "Red")
    assert (refiled.status_code, refiled.json()["code"]) == (409, "report.decided")
    assert Trooper.objects.get(pk=red_men[1].pk).status == "wounded"


def test_a_report_before_the_battle_ends_is_refused(battle, players):
    response = file(players["Blue"], battle, "Blue")
    assert (response.status_code, response.json()["code"]) == (409, "report.battle_not_ended")
    assert not BattleReport.objects.exists()


def test_a_later_report_replaces_the_sides_earlier_one(ended, players, red_men):
    file(players["Blue"], ended, "Blue", troopers=[(red_men[1], "killed")])
    file(players["Blue"], ended, "Blue", troopers=[(red_men[2], "wounded")], notes="Sorry.")
    (report,) = players["Blue"].get(reports_url(ended)).json()["reports"]
    assert [(t["trooper_id"], t["status"]) for t in report["troopers"]] == [
        (str(red_men[2].id), "wounded")
    ]
    assert report["notes"] == "Sorry."


@pytest.mark.parametrize("visibility", ["outline"])
def test_where_players_see_the_enemy_in_outline_they_report_their_own_troopers(
    ended, players, umpire_api, red_men, blue_men, campaign
):
    """With forces seen in outline, a player cannot name the other side's troopers (they are
    refused as unknown, so a report cannot probe the roster); the umpire still can."""
    before = last_sequence(campaign)
    probe = file(players["Blue"], ended, "Blue", troopers=[(red_men[1], "killed")])
    assert (probe.status_code, probe.json()["code"]) == (400, "report.not_on_table")
    assert last_sequence(campaign) == before
    own = file(players["Red"], ended, "Red", troopers=[(red_men[1], "killed")])
    assert own.status_code == 201, own.json()
    assert own.json()["troopers"][0]["name"] == red_men[1].name
    for_blue = file(umpire_api, ended, "Blue", troopers=[(red_men[1], "wounded")])
    assert for_blue.status_code == 201, for_blue.json()
    # Blue's players read their report, without the names of Red's men.
    (report,) = players["Blue"].get(reports_url(ended)).json()["reports"]
    assert report["troopers"][0]["name"] == ""


def test_a_fast_and_dirty_loss_accepted_from_a_report_is_recorded_as_fad_losses(umpire, umpire_api):
    """A FaD campaign records the accepted loss as its own losses event (cause ``reported``),
    which the rosters fold as they fold ``fad_losses``."""
    from tests.battles.fad.test_wounded import make_campaign, members, unit

    campaign, forces, url = make_campaign(umpire, umpire_api)
    assert umpire_api.post(f"{url}end/", {"winner": "Federation"}).status_code == 200
    militia = members(unit(forces, "Insurgents", "Militia Squad"))
    battle = {"id": url.rstrip("/").rpartition("/")[2]}
    filed = file(umpire_api, battle, "Federation", troopers=[(militia["Rifle Pike"], "killed")])
    assert filed.status_code == 201, filed.json()
    decided = umpire_api.post(
        reconciliation_url(battle),
        {
            "point": f"trooper:{militia['Rifle Pike'].id}",
            "decision": "accept",
            "report_id": filed.json()["report_id"],
        },
    )
    assert decided.status_code == 200, decided.json()
    (loss,) = store.read(campaign.id, types=["battles.FadLossesRecorded"])
    assert (loss.payload["cause"], loss.payload["report_id"]) == (
        "reported",
        filed.json()["report_id"],
    )
    assert Trooper.objects.get(pk=militia["Rifle Pike"].pk).status == "dead"
    assert_rebuild_keeps_rows()
