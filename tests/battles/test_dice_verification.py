"""Verifiable dice over HTTP: server rolls of a battle and of the dice tray, a dice epoch closed,
every roll of it recomputed by the endpoint, by ``manage.py verify_dice`` and by the standalone
``docs/verify_dice.py``; a copy of the log with one face altered is caught by all three."""

from __future__ import annotations

import copy
import hashlib
import json
import subprocess
import sys
import uuid
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from campaigns import services
from campaigns.events import DiceRolled, DieRoll
from campaigns.models import CampaignSeed
from eventlog import jobs, store
from eventlog.store import NewEvent
from rules.dice import Die, seeded_face
from rules.dice_verification import export_from_events, server_rolls_of_event, verify_export
from tests.battles.conftest import squads

pytestmark = pytest.mark.django_db

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "verify_dice.py"


def api_urls(campaign) -> dict[str, str]:
    base = f"/api/v1/campaigns/{campaign.id}/dice/"
    return {
        "tray": base,
        "close": f"{base}epochs/close/",
        "export": f"{base}export/",
        "verification": f"{base}verification/",
    }


def server_job(api, response) -> list[dict]:
    assert response.status_code == 202, response.json()
    job = api.get(response["Location"]).json()
    assert job["status"] == "succeeded", job
    return job["events"]


@pytest.fixture
def played(umpire_api, campaign, battle, forces):
    """A battle played with the server's dice (a casualties action, a confidence test, the
    after-action) and two throws of the dice tray: every event that holds a server roll."""
    urls = api_urls(campaign)
    squad = squads(forces["Blue"])[0]
    events = []
    events += server_job(
        umpire_api,
        umpire_api.post(
            f"/api/v1/battles/{battle['id']}/actions/casualties/",
            {"unit_id": str(squad.id), "mode": "allocate", "hits": 4, "impact_die": 10},
        ),
    )
    events += server_job(
        umpire_api,
        umpire_api.post(
            f"/api/v1/battles/{battle['id']}/actions/confidence_test/",
            {"unit_id": str(squad.id), "circumstances": ["casualties_from_fire"]},
        ),
    )
    ended = umpire_api.post(
        f"/api/v1/battles/{battle['id']}/end/", {"winner": "Blue", "objectives_met": []}
    )
    assert ended.status_code == 200, ended.json()
    events += server_job(
        umpire_api, umpire_api.post(f"/api/v1/battles/{battle['id']}/after-action/", {})
    )
    for die, count in ((6, 3), (12, 2)):
        events += server_job(
            umpire_api, umpire_api.post(urls["tray"], {"die": die, "count": count, "purpose": "x"})
        )
    return [event for event in events if '"source": "server"' in json.dumps(event["payload"])]


def count_server_rolls(events: list[dict]) -> int:
    def walk(value) -> int:
        if isinstance(value, dict):
            if value.get("source") == "server" and "die" in value:
                return 1
            return sum(walk(item) for item in value.values())
        if isinstance(value, list):
            return sum(walk(item) for item in value)
        return 0

    return sum(walk(event["payload"]) for event in events)


def close(api, campaign, reason: str = "End of the battle at Hill 402"):
    return api.post(api_urls(campaign)["close"], {"reason": reason})


def run_script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60
    )


def test_rolls_are_unrevealed_until_the_epoch_is_closed_then_all_verify(
    umpire_api, campaign, played
):
    urls = api_urls(campaign)
    rolls = count_server_rolls(played)
    assert rolls >= 12
    before = umpire_api.get(urls["verification"]).json()
    assert (before["ok"], before["checked"], before["unrevealed"]) == (True, 0, rolls)
    assert before["epochs"][0]["revealed"] is False

    secret = CampaignSeed.objects.get(campaign_id=campaign.id).seed
    response = close(umpire_api, campaign)
    assert response.status_code == 201, response.json()
    closed = response.json()
    assert closed["type"] == "campaigns.DiceEpochClosed"
    payload = closed["payload"]
    assert (payload["epoch"], payload["next_epoch"], payload["seed"]) == (0, 1, secret)
    # The revealed seed is the one committed to when the campaign was created.
    assert hashlib.sha256(bytes.fromhex(secret)).hexdigest() == campaign.seed_commitment

    report = umpire_api.get(urls["verification"]).json()
    assert report["ok"] is True
    assert (report["checked"], report["mismatched"], report["unrevealed"]) == (rolls, 0, 0)
    assert report["mismatches"] == []
    assert report["epochs"][0] == {
        "epoch": 0,
        "commitment": campaign.seed_commitment,
        "revealed": True,
        "seed_matches_commitment": True,
        "checked": rolls,
        "mismatched": 0,
        "unrevealed": 0,
    }
    assert report["current_epoch"] == 1
    assert report["epochs"][1]["revealed"] is False


def test_rolls_after_the_close_use_the_new_seed_and_wait_for_the_next_close(
    umpire_api, campaign, played
):
    urls = api_urls(campaign)
    old_seed = CampaignSeed.objects.get(campaign_id=campaign.id).seed
    next_commitment = close(umpire_api, campaign).json()["payload"]["next_commitment"]
    new_seed = CampaignSeed.objects.get(campaign_id=campaign.id).seed
    assert new_seed != old_seed
    assert hashlib.sha256(bytes.fromhex(new_seed)).hexdigest() == next_commitment
    # The campaign now shows the commitment of the seed it rolls with.
    shown = umpire_api.get(f"/api/v1/campaigns/{campaign.id}/").json()
    assert shown["seed_commitment"] == next_commitment

    (event,) = server_job(
        umpire_api, umpire_api.post(urls["tray"], {"die": 10, "count": 6, "purpose": "patrol"})
    )
    assert event["metadata"]["dice_epoch"] == 1
    namespace = event["metadata"]["dice_namespace"]
    faces = [roll["result"] for roll in event["payload"]["rolls"]]
    assert faces == [seeded_face(bytes.fromhex(new_seed), namespace, n, 10) for n in range(6)]
    assert faces != [seeded_face(bytes.fromhex(old_seed), namespace, n, 10) for n in range(6)]

    report = umpire_api.get(urls["verification"]).json()
    assert (report["ok"], report["unrevealed"]) == (True, 6)
    assert report["epochs"][1]["unrevealed"] == 6

    second = close(umpire_api, campaign, "End of the second battle").json()["payload"]
    assert (second["epoch"], second["seed"]) == (1, new_seed)
    report = umpire_api.get(urls["verification"]).json()
    assert (report["ok"], report["unrevealed"], report["current_epoch"]) == (True, 0, 2)
    assert report["epochs"][1]["checked"] == 6
    assert report["checked"] == count_server_rolls(played) + 6


def test_an_altered_roll_in_a_copy_of_the_log_is_reported_by_the_verifier_and_the_script(
    umpire_api, campaign, played, tmp_path
):
    urls = api_urls(campaign)
    close(umpire_api, campaign)
    export = umpire_api.get(urls["export"]).json()
    assert export["format"] == "muster.dice-export"
    assert {"seed", "purpose"}.isdisjoint(export["rolls"][0])

    altered = copy.deepcopy(export)
    target = altered["rolls"][3]
    original = target["result"]
    target["result"] = original % target["die"] + 1  # another face the die can show
    report = verify_export(altered)
    assert report.ok is False
    (mismatch,) = report.mismatches
    assert (mismatch.sequence, mismatch.index, mismatch.path) == (
        target["sequence"],
        target["index"],
        target["path"],
    )
    assert (mismatch.die, mismatch.stored, mismatch.expected) == (
        target["die"],
        target["result"],
        original,
    )
    assert mismatch.problem == "face"

    good, bad = tmp_path / "export.json", tmp_path / "altered.json"
    good.write_text(json.dumps(export))
    bad.write_text(json.dumps(altered))
    passed = run_script(str(good))
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert f"{len(export['rolls'])} server roll(s) checked, 0 mismatch(es)" in passed.stdout
    caught = run_script(str(bad))
    assert caught.returncode == 1, caught.stdout + caught.stderr
    assert f"event #{target['sequence']} roll {target['index']} ({target['path']})" in caught.stdout
    assert f"stored {target['result']}, expected {original}." in caught.stdout
    script_report = json.loads(run_script("--json", str(bad)).stdout)
    assert script_report == report.as_json()


def test_the_script_agrees_with_the_endpoint_from_the_export_and_from_the_event_pages(
    umpire_api, campaign, played, tmp_path
):
    urls = api_urls(campaign)
    close(umpire_api, campaign)
    server_job(umpire_api, umpire_api.post(urls["tray"], {"die": 8, "count": 2, "purpose": "y"}))
    endpoint = umpire_api.get(urls["verification"]).json()
    assert endpoint.pop("campaign_id") == str(campaign.id)
    assert endpoint["checked"] > 0
    assert endpoint["unrevealed"] == 2

    export = tmp_path / "export.json"
    export.write_text(json.dumps(umpire_api.get(urls["export"]).json()))
    from_export = run_script("--json", str(export))
    assert from_export.returncode == 0, from_export.stderr
    assert json.loads(from_export.stdout) == endpoint

    # The log, saved page by page as docs/dice-verification.md shows, following ``next``.
    pages: list[str] = []
    url = f"/api/v1/campaigns/{campaign.id}/events/?limit=7"
    while url:
        page = umpire_api.get(url).json()
        path = tmp_path / f"events-{len(pages)}.json"
        path.write_text(json.dumps(page))
        pages.append(str(path))
        url = page["next"]
    assert len(pages) > 2
    from_events = run_script("--json", *pages)
    assert from_events.returncode == 0, from_events.stderr
    assert json.loads(from_events.stdout) == endpoint

    # One face altered in the saved log: the script and the verifier both name that roll.
    events = [event for path in pages for event in json.loads(Path(path).read_text())["results"]]
    casualties = next(e for e in events if e["type"] == "battles.CasualtiesResolved")
    roll = casualties["payload"]["dice"][1]
    honest, roll["result"] = roll["result"], roll["result"] % roll["die"] + 1
    altered = tmp_path / "altered-log.json"
    altered.write_text(json.dumps({"results": events, "next": None}))
    caught = run_script(str(altered))
    assert caught.returncode == 1, caught.stdout + caught.stderr
    # Its index counts the event's server rolls in sorted key order: those of each casualty
    # (which the event also keeps under the trooper) come before those of ``dice``.
    index = next(r.index for r in server_rolls_of_event(casualties) if r.path == "dice[1]")
    assert (
        f"event #{casualties['sequence']} roll {index} (dice[1]), d{roll['die']} "
        f"{casualties['metadata']['dice_namespace']}:{roll['counter']} in epoch 0: "
        f"stored {roll['result']}, expected {honest}." in caught.stdout
    )
    (mismatch,) = verify_export(export_from_events(str(campaign.id), events)).mismatches
    assert (mismatch.sequence, mismatch.index, mismatch.path, mismatch.expected) == (
        casualties["sequence"],
        index,
        "dice[1]",
        honest,
    )


def test_a_job_asked_for_before_the_close_keeps_its_epoch(
    umpire, umpire_api, campaign, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        job = services.dice_request(campaign=campaign, die=6, count=4, purpose="x", actor=umpire)
    assert job.dice_epoch == 0
    refused = close(umpire_api, campaign)
    assert refused.status_code == 409, refused.json()
    assert refused.json()["code"] == "dice.jobs_pending"
    assert CampaignSeed.objects.get(campaign_id=campaign.id).epoch == 0

    jobs.run_job(job.id)
    (event,) = jobs.job_events(job)
    assert event.metadata["dice_epoch"] == 0
    assert close(umpire_api, campaign).status_code == 201
    # A rerun of the job after the close (a worker that died before committing) rolls with the
    # seed of the job's own epoch, now revealed in the log: the same dice.
    job.refresh_from_db()
    rerun = services.server_dice(job.campaign_id, job.dice_namespace, job.dice_epoch)
    assert [rerun.roll(Die.D6, "x").result for _ in range(4)] == [
        roll["result"] for roll in event.payload["rolls"]
    ]
    assert umpire_api.get(api_urls(campaign)["verification"]).json()["checked"] == 4


def test_only_the_umpire_closes_an_epoch_and_any_member_verifies(
    umpire_api, api_for, campaign, join, make_user, stranger, forces
):
    player = make_user("player")
    join(campaign.id, player, "player", [forces["Red"].id])
    urls = api_urls(campaign)
    as_player = api_for(player)
    refused = close(as_player, campaign)
    assert (refused.status_code, refused.json()["code"]) == (403, "campaign.umpire_only")
    assert as_player.get(urls["verification"]).status_code == 200
    assert as_player.get(urls["export"]).status_code == 200
    for url in (urls["verification"], urls["export"]):
        assert api_for(stranger).get(url).status_code == 404
    assert api_for(stranger).post(urls["close"], {"reason": "x"}).status_code == 404
    blank = close(umpire_api, campaign, " ")
    assert blank.status_code == 400


def test_a_closed_epoch_cannot_be_voided_and_the_history_tells_it(umpire_api, campaign):
    closed = close(umpire_api, campaign).json()
    voided = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/voids/",
        {"sequence": closed["sequence"], "reason": "take it back"},
    )
    assert (voided.status_code, voided.json()["code"]) == (400, "void.not_voidable")
    history = umpire_api.get(f"/api/v1/campaigns/{campaign.id}/history/").json()["results"]
    assert history[-1]["summary"] == (
        "Dice epoch 0 closed: its seed is revealed and its server rolls can be verified; "
        "epoch 1 rolls from a new secret seed. Reason: End of the battle at Hill 402"
    )


def test_verify_dice_command_passes_and_fails_on_a_forged_roll(
    umpire_api, campaign, played, tmp_path
):
    close(umpire_api, campaign)
    out = StringIO()
    call_command("verify_dice", str(campaign.id), stdout=out)
    rolls = count_server_rolls(played)
    assert "Epoch 0: seed revealed, matches its commitment" in out.getvalue()
    assert f"The dice verify: {rolls} server roll(s) checked, 0 mismatch(es)" in out.getvalue()
    export, out = tmp_path / "export.json", StringIO()
    call_command("verify_dice", str(campaign.id), "--json", "--export", str(export), stdout=out)
    report = json.loads(out.getvalue())
    assert report == umpire_api.get(api_urls(campaign)["verification"]).json()
    assert json.loads(run_script("--json", str(export)).stdout) == {
        key: value for key, value in report.items() if key != "campaign_id"
    }

    # A roll appended with a face its seed does not give, as a server that cheated would: the
    # log is append-only, so this is the only way such a roll gets in.
    old_seed = bytes.fromhex(store_revealed_seed(campaign))
    honest = seeded_face(old_seed, "job:99", 0, 6)
    forged = DiceRolled(
        purpose="forged",
        rolls=[DieRoll(die=6, result=honest % 6 + 1, purpose="forged", source="server", counter=0)],
        total=honest % 6 + 1,
        namespace="job:99",
    )
    appended = store.append(
        campaign.id,
        [NewEvent.of(forged, stream=f"campaign:{campaign.id}")],
        job_id=uuid.uuid4(),
        metadata={"dice_namespace": "job:99", "dice_epoch": 0},
    ).events[0]
    out = StringIO()
    with pytest.raises(CommandError, match=r"do not verify: .* 1 mismatch\(es\)"):
        call_command("verify_dice", str(campaign.id), stdout=out)
    assert (
        f"Mismatch (face): event #{appended.sequence} roll 0 (rolls[0]), d6 job:99:0 in epoch 0: "
        f"stored {honest % 6 + 1}, expected {honest}." in out.getvalue()
    )
    with pytest.raises(CommandError, match="is not a campaign id"):
        call_command("verify_dice", "nonsense")


def store_revealed_seed(campaign) -> str:
    (closed,) = store.read(campaign.id, types=["campaigns.DiceEpochClosed"])
    return str(closed.payload["seed"])


def test_a_players_export_holds_only_the_rolls_of_what_they_see_whole(
    umpire_api, api_for, campaign, join, make_user, forces, played
):
    """The casualties and confidence test were Blue's: the Red player (forces_visibility
    outline) does not get their dice; the dice tray's throws and the after-action, about no
    force of the other side, are theirs to verify. The umpire's export has every roll."""
    close(umpire_api, campaign)
    red = make_user("red")
    join(campaign.id, red, "player", [forces["Red"].id])
    blue = make_user("blue")
    join(campaign.id, blue, "player", [forces["Blue"].id])
    export = {
        name: api.get(api_urls(campaign)["export"]).json()
        for name, api in (("umpire", umpire_api), ("red", api_for(red)), ("blue", api_for(blue)))
    }
    sequences = {
        name: {roll["sequence"] for roll in body["rolls"]} for name, body in export.items()
    }
    assert len(export["umpire"]["rolls"]) == count_server_rolls(played)
    assert sequences["red"] < sequences["blue"] <= sequences["umpire"]
    verified = api_for(red).get(api_urls(campaign)["verification"]).json()
    assert verified["mismatched"] == 0
    assert verified["checked"] == len(export["red"]["rolls"])
