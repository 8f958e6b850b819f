"""What-if branches of the demo campaign, through HTTP: a branch that changes nothing reproduces
the original, one with a D10 replacement die rolls only those dice afresh, and the original is
never changed (campaigns/branches.py)."""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from drf_spectacular.generators import SchemaGenerator

from battles.models import Battle
from campaigns.branches import IdMap
from campaigns.models import Campaign, CampaignSeed, Invitation, Membership
from eventlog import store
from eventlog.models import CommandRecord, ErasedCampaign, Event, Job
from rosters.models import Force, Trooper, Unit, Vehicle

pytestmark = pytest.mark.django_db

# The seed of the dice branches roll afresh. With it, the demo's branch under a D10 replacement
# die gets fewer replacements than the original assigned after the second battle.
BRANCH_SEED = "0" * 63 + "1"
# What a branch is not the same as its original in, by design: its own id, name, creation and
# seed; it plays the original's commands in one job of its own, so the original's jobs are not
# its jobs; an event's position is its place in the whole installation's log (and a log line's
# key is made of it). An event's metadata and job tell how it came to be: in the branch, copied
# or played again (with the original's command and dice). Its umpire joined it when it was made.
# Its dice are verified where they were rolled: a die kept from the original
# in the original, a die it rolled afresh against its own seed (test below).
IDENTITY = {
    "name",
    "seed_commitment",
    "branch_of",
    "created_at",
    "position",
    "key",
    "metadata",
    "job",
    "joined_at",
}
NOT_COMPARED = re.compile(
    r"/actions/|/replacements/(assign|request)/|/events/stream/|/export/|/jobs/|/branches/|/dice/"
    r"|/webhooks/|/auth/|^/api/v1/$|/campaigns/$|/invitations/$|/rulesets/|/event-types/"
)


@pytest.fixture
def demo(demo_campaign, api_for):
    campaign = demo_campaign
    umpire = get_user_model().objects.get(pk=campaign.umpire_id)
    return campaign, api_for(umpire)


def battles_in_order(campaign_id) -> list[Battle]:
    return list(Battle.objects.filter(campaign_id=campaign_id).order_by("day"))


def branch(api, campaign_id, point: dict, options=None, **extra):
    response = api.post(
        f"/api/v1/campaigns/{campaign_id}/branches/",
        {"point": point, "options": options or {}, "seed": BRANCH_SEED, **extra},
    )
    assert response.status_code == 202, response.json()
    assert response["Location"].endswith(f"/api/v1/jobs/{response.json()['job']['id']}/")
    made = uuid.UUID(response.json()["id"])
    body = api.get(f"/api/v1/campaigns/{campaign_id}/branches/{made}/").json()
    assert body["job"]["status"] == "succeeded", body["job"]
    return made, body


def export(api, campaign_id) -> bytes:
    response = api.get(f"/api/v1/campaigns/{campaign_id}/export/")
    assert response.status_code == 200
    text = b"".join(response.streaming_content)
    # The manifest says when the archive was written: everything else must be the same.
    return re.sub(rb'"exported_at":"[^"]*"', b"", re.sub(rb'"hash":"[0-9a-f]*"', b"", text))


def verification(campaign_id) -> str:
    return f"/api/v1/campaigns/{campaign_id}/dice/verification/"


def read_urls(campaign: Campaign) -> list[str]:
    """Every read endpoint of the API with each of the campaign's ids it takes."""
    values: dict[str, list[Any]] = {
        "campaign_id": [campaign.id],
        "force_id": list(
            Force.objects.filter(campaign_id=campaign.id).values_list("id", flat=True)
        ),
        "unit_id": list(Unit.objects.filter(campaign_id=campaign.id).values_list("id", flat=True)),
        "trooper_id": list(
            Trooper.objects.filter(campaign_id=campaign.id).values_list("id", flat=True)
        )[::4],
        "vehicle_id": list(
            Vehicle.objects.filter(campaign_id=campaign.id).values_list("id", flat=True)
        ),
        "battle_id": [b.id for b in battles_in_order(campaign.id)],
        "user_id": list(
            Membership.objects.filter(campaign_id=campaign.id).values_list("user_id", flat=True)
        ),
        "invitation_id": list(
            Invitation.objects.filter(campaign_id=campaign.id).values_list("id", flat=True)
        ),
    }
    schema = SchemaGenerator().get_schema(request=None, public=True)
    urls = []
    for path, operations in schema["paths"].items():
        if "get" not in operations or NOT_COMPARED.search(path):
            continue
        names = re.findall(r"{(\w+)}", path)
        assert all(name in values for name in names), path
        if len(names) != 1:
            continue
        for value in values[names[0]]:
            urls.append(path.replace("{" + names[0] + "}", str(value)))
    return urls


def without_identity(body):
    """A body without what makes the branch itself; rows the API lists in the order of their ids
    come in another order in the branch, whose ids are others, so lists are compared as sets."""
    if isinstance(body, dict):
        if body.get("type") == "campaigns.CampaignCreated":
            return None  # the branch's creation is its own
        return {k: without_identity(v) for k, v in body.items() if k not in IDENTITY}
    if isinstance(body, list):
        return sorted((without_identity(item) for item in body), key=lambda x: json.dumps(x))
    return body


def test_a_branch_before_battle_one_with_no_changes_reproduces_every_read(demo):
    campaign, umpire = demo
    first = battles_in_order(campaign.id)[0]
    branch_id, made = branch(umpire, campaign.id, {"before_battle": str(first.id)})
    assert made["point"] == "before the battle 'Recon in force'"
    later = {
        e.metadata["command"]
        for e in store.read(campaign.id, after=made["sequence"])
        if "command" in e.metadata
    }
    assert made["job"]["progress"] == {
        "done": len(later),
        "total": len(later),
        "refused": 0,
        "skipped": 0,
    }
    ids = IdMap(campaign.id, branch_id)
    urls = read_urls(campaign)
    assert len(urls) > 80
    for url in urls:
        original = umpire.get(url)
        mirrored = umpire.get(ids.text(url))
        assert original.status_code == mirrored.status_code, url
        # The map is its own inverse: the branch's ids translated are the original's.
        assert without_identity(ids.json(mirrored.json())) == without_identity(original.json()), url
    # Its log is the original's, event by event, but for its creation.
    branch_log = list(store.read(branch_id))
    original_log = list(store.read(campaign.id))
    assert [e.type for e in branch_log] == [e.type for e in original_log]
    for mine, theirs in zip(branch_log[1:], original_log[1:], strict=True):
        assert (ids.json(mine.payload), mine.recorded_at) == (theirs.payload, theirs.recorded_at)
    comparison = umpire.get(
        f"/api/v1/campaigns/{campaign.id}/branches/{branch_id}/comparison/"
    ).json()
    assert comparison["differing_units"] == []
    assert comparison["first_divergence"] is None


def test_a_d10_replacement_die_rolls_only_the_replacement_dice_afresh(demo):
    """SG2 P.60 rolls a D8 for replacements (option replacement_die): the branch rolls a D10
    from its own seed instead, marked afresh; every other die is the original's."""
    campaign, umpire = demo
    before = export(umpire, campaign.id)
    verified_before = umpire.get(verification(campaign.id)).json()
    first = battles_in_order(campaign.id)[0]
    branch_id, made = branch(
        umpire, campaign.id, {"before_battle": str(first.id)}, options={"replacement_die": 10}
    )
    ids = IdMap(campaign.id, branch_id)
    original_rolls = _rolls(campaign.id)
    branch_rolls = _rolls(branch_id)
    available = "replacements available to platoon"
    theirs_d8 = [r for rolls in original_rolls.values() for r in rolls if available in r["purpose"]]
    mine = [r for rolls in branch_rolls.values() for r in rolls if available in r["purpose"]]
    assert theirs_d8, "the demo rolls for replacements"
    assert {r["die"] for r in theirs_d8} == {8}
    assert len(mine) == len(theirs_d8)
    assert all(r["die"] == 10 and r["afresh"] for r in mine)
    afresh = [roll for rolls in branch_rolls.values() for roll in rolls if roll.get("afresh")]
    for command, rolls in branch_rolls.items():
        theirs = Counter(json.dumps(r, sort_keys=True) for r in original_rolls.get(command, []))
        kept = Counter(
            json.dumps(ids.json(r), sort_keys=True) for r in rolls if not r.get("afresh")
        )
        # Every die the branch kept is one the original rolled for the same command, ...
        assert not kept - theirs, command
        for roll in rolls:
            if roll.get("afresh"):
                # ... and it rolled afresh only a die the original rolled fewer times.
                wanted = (roll["die"], ids.text(roll["purpose"]))
                asked = sum((r["die"], ids.text(r["purpose"])) == wanted for r in rolls)
                given = sum(
                    (r["die"], r["purpose"]) == wanted for r in original_rolls.get(command, [])
                )
                assert asked > given, roll
    comparison = umpire.get(
        f"/api/v1/campaigns/{campaign.id}/branches/{branch_id}/comparison/"
    ).json()
    differing = {
        row["name"]
        for force in comparison["forces"]
        for row in force["units"]
        if "strength" in row["differs"]
    }
    assert differing, comparison
    assert comparison["first_divergence"]["command"] == "rosters.replacements_request"
    assert [d["die"] for d in comparison["first_divergence"]["original"]["dice"]] == [8]
    assert [d["die"] for d in comparison["first_divergence"]["branch"]["dice"]] == [10]
    assert made["option_changes"] == {"replacement_die": 10}
    assert export(umpire, campaign.id) == before
    # The dice it rolled afresh are its own: once its seed is revealed, each recomputes.
    closed = umpire.post(f"/api/v1/campaigns/{branch_id}/dice/epochs/close/", {"reason": "check"})
    assert closed.status_code == 201, closed.json()
    report = umpire.get(verification(branch_id)).json()
    # (An event that lists a roll twice, beside what it decided and among all its dice, has
    # both checked.)
    assert report["checked"] >= len(afresh), report
    assert report["unrevealed"] == 0, report
    assert report["mismatched"] == 0, report
    assert umpire.get(verification(campaign.id)).json() == verified_before


def _rolls(campaign_id) -> dict[str, list[dict]]:
    """Each command's dice, by the original's command id."""
    from campaigns.branches import rolls_of

    by_command: dict[str, list] = {}
    for event in store.read(campaign_id):
        command = event.metadata.get("rerun_of") or event.metadata.get("command")
        by_command.setdefault(str(command), [])
    grouped: dict[str, list] = {}
    for event in store.read(campaign_id):
        command = str(event.metadata.get("rerun_of") or event.metadata.get("command"))
        grouped.setdefault(command, []).append(event)
    return {command: rolls_of(events) for command, events in grouped.items() if rolls_of(events)}


def test_branching_never_changes_the_original(demo):
    campaign, umpire = demo
    before = export(umpire, campaign.id)
    records = CommandRecord.objects.filter(campaign_id=campaign.id).count()
    jobs = Job.objects.filter(campaign_id=campaign.id).count()
    last = battles_in_order(campaign.id)[-1]
    branch_id, _ = branch(umpire, campaign.id, {"after_battle": str(last.id)})
    again, _ = branch(umpire, branch_id, {"sequence": 100}, options={"replacement_die": 6})
    assert umpire.delete(f"/api/v1/campaigns/{campaign.id}/branches/{branch_id}/").status_code == (
        409
    )
    assert umpire.delete(f"/api/v1/campaigns/{branch_id}/branches/{again}/").status_code == 204
    assert umpire.delete(f"/api/v1/campaigns/{campaign.id}/branches/{branch_id}/").status_code == (
        204
    )
    assert export(umpire, campaign.id) == before
    assert CommandRecord.objects.filter(campaign_id=campaign.id).count() == records
    assert Job.objects.filter(campaign_id=campaign.id).count() == jobs
    for gone in (branch_id, again):
        assert not Event.objects.filter(campaign_id=gone).exists()
        assert not Campaign.objects.filter(pk=gone).exists()
        assert not CampaignSeed.objects.filter(campaign_id=gone).exists()
        assert not Unit.objects.filter(campaign_id=gone).exists()
        assert ErasedCampaign.objects.filter(campaign_id=gone).exists()


def test_the_original_s_log_cannot_be_deleted(demo):
    """Only an erased branch's events may be deleted: the database refuses any other."""
    from django.db import IntegrityError, transaction

    campaign, _ = demo
    logged = Event.objects.filter(campaign_id=campaign.id).count()
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.filter(campaign_id=campaign.id).delete()
    assert Event.objects.filter(campaign_id=campaign.id).count() == logged
