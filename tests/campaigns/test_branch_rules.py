"""Branches under other rules, through HTTP: a command the branch's rules refuse is recorded as
refused and the branch goes on; a branch is made only from a point between commands, by an
umpire, with options the ruleset knows, and a refused request makes nothing."""

from __future__ import annotations

import io
import json
import uuid

import pytest
from django.core.management import CommandError, call_command

from campaigns.branches import IdMap
from campaigns.models import Campaign
from eventlog import store
from eventlog.models import Event, Job
from rosters.models import Force, Unit
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
def long_haul(umpire, umpire_api):
    """A campaign played without the exhausted-withdrawal test (SG2 P.61, option off): Alpha
    fights Hill 12 Exhausted, then is committed to Hill 13."""
    campaign = campaign_for(umpire, name="Long haul", options={"exhausted_withdrawal_test": False})
    for text in (BLUE, RED):
        response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    sides = [{"side": side, "force_ids": [str(forces[side].id)]} for side in ("Blue", "Red")]
    units = [str(Unit.objects.get(name=name).id) for name in ("Alpha Squad", "Red Squad")]
    first = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/", {"name": "Hill 12", "day": 1, "sides": sides}
    ).json()["id"]
    url = f"/api/v1/battles/{first}/"
    assert umpire_api.post(f"{url}commit/", {"unit_ids": units}).status_code == 200
    assert umpire_api.post(f"{url}start/").status_code == 200
    assert umpire_api.post(f"{url}end/", {"winner": "Red"}).status_code == 200
    assert umpire_api.post(f"{url}after-action/").status_code == 202
    second = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/", {"name": "Hill 13", "day": 3, "sides": sides}
    ).json()["id"]
    committed = umpire_api.post(f"/api/v1/battles/{second}/commit/", {"unit_ids": units})
    assert committed.status_code == 200, committed.json()
    return campaign, uuid.UUID(first)


def make_branch(api, campaign_id, body):
    response = api.post(f"/api/v1/campaigns/{campaign_id}/branches/", body)
    assert response.status_code == 202, response.json()
    return uuid.UUID(response.json()["id"])


def test_a_unit_unfit_earlier_in_the_branch_has_its_next_commitment_refused(long_haul, umpire_api):
    """SG2 P.61: with the withdrawal test, Alpha (Exhausted, 1 battle since rest) is unfit on a
    D6 of 1. The original never rolled that die: each branch rolls it afresh from its own seed,
    so some seed withdraws Alpha, and the branch refuses to commit it to Hill 13, says why, and
    still plays everything through."""
    campaign, hill_12 = long_haul
    for number in range(1, 80):
        branch_id = make_branch(
            umpire_api,
            campaign.id,
            {
                "point": {"before_battle": str(hill_12)},
                "options": {"exhausted_withdrawal_test": True},
                "seed": f"{number:064x}",
            },
        )
        (tested,) = store.read(branch_id, types=["battles.WithdrawalTested"])
        if tested.payload["unfit"]:
            break
    else:
        pytest.fail("no seed rolled a 1 on the withdrawal test")
    (roll,) = tested.payload["dice"]
    assert (roll["die"], roll["result"], roll["afresh"]) == (6, 1, True)
    (refused,) = store.read(branch_id, types=["campaigns.BranchCommandRefused"])
    assert refused.payload["command"] == "battles.commit"
    assert refused.payload["code"] == "battle.unit_unavailable"
    assert "unfit for combat" in refused.payload["message"]
    assert "P.61" in refused.payload["message"]
    branch = umpire_api.get(f"/api/v1/campaigns/{campaign.id}/branches/{branch_id}/").json()
    assert branch["job"]["status"] == "succeeded"
    progress = branch["job"]["progress"]
    assert (progress["done"], progress["refused"]) == (progress["total"], 1)
    comparison = umpire_api.get(
        f"/api/v1/campaigns/{campaign.id}/branches/{branch_id}/comparison/"
    ).json()
    assert [r["code"] for r in comparison["refused"]] == ["battle.unit_unavailable"]
    (alpha,) = [
        row
        for force in comparison["forces"]
        for row in force["units"]
        if row["name"] == "Alpha Squad"
    ]
    assert "status" in alpha["differs"]
    assert (alpha["original"]["status"], alpha["branch"]["status"]) == ("in_the_line", "withdrawn")
    history = umpire_api.get(f"/api/v1/campaigns/{branch_id}/history/").json()["results"]
    assert any("the rules refused battles.commit" in entry["summary"] for entry in history)
    # After Hill 12 the two already part: Alpha fought it in both, and only the branch withdrew it.
    after = umpire_api.get(
        f"/api/v1/campaigns/{campaign.id}/branches/{branch_id}/comparison/",
        {"as_of_battle": str(hill_12)},
    ).json()
    assert after["as_of_battle"] == str(hill_12)
    (then,) = [r for f in after["forces"] for r in f["units"] if r["name"] == "Alpha Squad"]
    assert (then["original"]["status"], then["branch"]["status"]) == ("in_the_line", "withdrawn")
    unknown = umpire_api.get(
        f"/api/v1/campaigns/{campaign.id}/branches/{branch_id}/comparison/",
        {"as_of_battle": str(uuid.uuid4())},
    )
    assert (unknown.status_code, unknown.json()["code"]) == (404, "battle.not_found")
    # A branch of the branch without the test commits Alpha again: the refused command was kept.
    again = make_branch(
        umpire_api,
        branch_id,
        {
            "point": {"before_battle": str(IdMap(campaign.id, branch_id)(hill_12))},
            "options": {"exhausted_withdrawal_test": False},
        },
    )
    refusals = [e.payload for e in store.read(again, types=["campaigns.BranchCommandRefused"])]
    assert refusals == [], refusals
    assert len(list(store.read(again, types=["battles.UnitsCommitted"]))) == 2
    # A branch is exported like any campaign.
    exported = umpire_api.get(f"/api/v1/campaigns/{branch_id}/export/")
    assert exported.status_code == 200
    manifest = json.loads(b"".join(exported.streaming_content).split(b"\n")[0])
    assert manifest["campaign"]["id"] == str(branch_id)


def test_a_refused_branch_request_makes_nothing(long_haul, umpire_api, make_user, join, api_for):
    campaign, hill_12 = long_haul
    campaigns_before = Campaign.objects.count()
    events_before = Event.objects.count()
    jobs_before = Job.objects.count()
    url = f"/api/v1/campaigns/{campaign.id}/branches/"
    # Event 2 is the first of the many events Blue's roster was loaded in.
    loaded = next(iter(store.read(campaign.id, after=1, upto=2))).metadata["command"]
    last_loaded = max(
        e.sequence for e in store.read(campaign.id) if e.metadata.get("command") == loaded
    )
    refusals = [
        ({"point": {}}, 400, "branch.point_required"),
        ({"point": {"sequence": 1, "before_battle": str(hill_12)}}, 400, "branch.point_required"),
        ({"point": {"sequence": 10_000}}, 400, "branch.point_outside_log"),
        ({"point": {"sequence": 2}}, 400, "branch.point_inside_command"),
        ({"point": {"before_battle": str(uuid.uuid4())}}, 404, "battle.not_found"),
        (
            {"point": {"sequence": last_loaded}, "options": {"replacement_die": 7}},
            400,
            "options.choice",
        ),
        (
            {"point": {"sequence": last_loaded}, "options": {"no_such_option": 1}},
            400,
            "options.unknown",
        ),
        ({"point": {"sequence": last_loaded}, "seed": "not hex"}, 400, None),
    ]
    for body, status, code in refusals:
        response = umpire_api.post(url, body)
        assert response.status_code == status, (body, response.json())
        assert code is None or response.json()["code"] == code, (body, response.json())
        assert response.json()["message"], body
    inside = umpire_api.post(url, {"point": {"sequence": 2}}).json()
    assert f"after event {last_loaded}" in inside["message"]
    player = make_user("player")
    join(campaign.id, player, "player", [Force.objects.get(campaign_id=campaign.id, side="Red").id])
    events_before = Event.objects.count()  # the player joined
    refused = api_for(player).post(url, {"point": {"sequence": last_loaded}})
    assert (refused.status_code, refused.json()["code"]) == (403, "campaign.umpire_only")
    stranger = api_for(make_user("stranger")).post(url, {"point": {"sequence": last_loaded}})
    assert stranger.status_code == 404
    assert Campaign.objects.count() == campaigns_before
    assert Event.objects.count() == events_before
    assert Job.objects.count() == jobs_before


def test_only_the_umpire_who_made_a_branch_deletes_it_and_players_see_their_own_units(
    long_haul, umpire_api, make_user, join, api_for
):
    campaign, hill_12 = long_haul
    blue = Force.objects.get(campaign_id=campaign.id, side="Blue")
    player = make_user("player")
    join(campaign.id, player, "player", [blue.id])
    other_umpire = make_user("second")
    join(campaign.id, other_umpire, "umpire")
    branch_id = make_branch(
        umpire_api,
        campaign.id,
        {"point": {"before_battle": str(hill_12)}, "options": {"exhausted_withdrawal_test": True}},
    )
    ids = IdMap(campaign.id, branch_id)
    # Members of the original are members of the branch, in the same roles and forces.
    members = umpire_api.get(f"/api/v1/campaigns/{branch_id}/members/").json()["results"]
    assert {(m["username"], m["role"]) for m in members} == {
        ("umpire", "umpire"),
        ("player", "player"),
        ("second", "umpire"),
    }
    (mine,) = [m for m in members if m["username"] == "player"]
    assert mine["force_ids"] == [str(ids(blue.id))]
    seen = (
        api_for(player)
        .get(f"/api/v1/campaigns/{campaign.id}/branches/{branch_id}/comparison/")
        .json()
    )
    shown = {f["side"]: f for f in seen["forces"]}
    assert [u["name"] for u in shown["Blue"]["units"]] == ["Alpha Squad"]
    assert (shown["Red"]["units"], shown["Red"]["hidden"]) == ([], True)
    assert (seen["first_divergence"], seen["refused"]) == (None, [])
    listed = api_for(player).get(f"/api/v1/campaigns/{campaign.id}/branches/").json()
    assert [b["id"] for b in listed["results"]] == [str(branch_id)]
    gone = api_for(other_umpire).delete(f"/api/v1/campaigns/{campaign.id}/branches/{branch_id}/")
    assert (gone.status_code, gone.json()["code"]) == (409, "branch.not_yours")
    by_player = api_for(player).delete(f"/api/v1/campaigns/{campaign.id}/branches/{branch_id}/")
    assert by_player.status_code == 403
    assert (
        umpire_api.delete(f"/api/v1/campaigns/{campaign.id}/branches/{branch_id}/").status_code
        == 204
    )
    assert umpire_api.get(f"/api/v1/campaigns/{branch_id}/").status_code == 404
    assert umpire_api.get(f"/api/v1/campaigns/{campaign.id}/branches/").json()["count"] == 0


def test_the_command_line_branches_with_a_progress_bar(long_haul, umpire):
    campaign, hill_12 = long_haul
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "branch_campaign",
        str(campaign.id),
        "--before-battle",
        str(hill_12),
        "--option",
        "exhausted_withdrawal_test=true",
        "--seed",
        "0" * 64,
        stdout=out,
        stderr=err,
    )
    assert "Commands played again" in err.getvalue()
    assert "100%" in err.getvalue()
    assert "commands played again" in out.getvalue()
    branch = Campaign.objects.exclude(pk=campaign.id).get()
    assert (branch.branch_of or {})["option_changes"] == {"exhausted_withdrawal_test": True}
    with pytest.raises(CommandError, match=r"branch\.point_inside_command"):
        call_command("branch_campaign", str(campaign.id), "--at", "2", stdout=out, stderr=err)
    with pytest.raises(CommandError, match="--option takes NAME=VALUE"):
        call_command("branch_campaign", str(campaign.id), "--at", "1", "--option", "x", stderr=err)
    with pytest.raises(CommandError, match="No user 'nobody'"):
        call_command("branch_campaign", str(campaign.id), "--at", "1", "--as", "nobody", stderr=err)
    assert Campaign.objects.count() == 2


def test_a_branch_takes_no_command_while_it_is_played_through(long_haul, umpire, umpire_api):
    from campaigns import branches
    from eventlog import jobs

    campaign, hill_12 = long_haul
    made = branches.branch_create(
        original_id=campaign.id,
        actor_id=umpire.pk,
        point=branches.resolve_point(campaign.id, before_battle=hill_12),
        option_changes={},
        dispatch=False,
    )
    journal = f"/api/v1/campaigns/{made.branch_id}/journal/"
    events = Event.objects.filter(campaign_id=made.branch_id).count()
    busy = umpire_api.post(journal, {"text": "Too early."})
    assert (busy.status_code, busy.json()["code"]) == (409, "campaign.busy")
    assert Event.objects.filter(campaign_id=made.branch_id).count() == events
    jobs.run_job(made.job.pk)
    assert umpire_api.post(journal, {"text": "Now."}).status_code == 201
