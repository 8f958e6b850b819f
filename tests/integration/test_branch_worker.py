"""Branches on PostgreSQL with a real Celery worker: the worker plays the original through, the
job's progress is read over HTTP while it runs, and umpires writing to the original at the same
time change neither the branch's plan nor the original's record of it."""

from __future__ import annotations

import io
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from battles.models import Battle
from campaigns import services
from campaigns.branches import IdMap
from campaigns.models import Campaign
from eventlog import store
from eventlog.models import Job
from tests.integration.conftest import run_threads, wait_for

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_the_worker_plays_a_branch_through_while_the_original_goes_on(celery_processes, api_for):
    call_command("demo", stdout=io.StringIO())
    campaign = Campaign.objects.get()
    umpire = get_user_model().objects.get(pk=campaign.umpire_id)
    api = api_for(umpire)
    celery_processes.worker()
    first = Battle.objects.filter(campaign_id=campaign.id).order_by("day")[0]
    made: list[dict] = []

    def work(index: int) -> None:
        if index == 0:
            response = api.post(
                f"/api/v1/campaigns/{campaign.id}/branches/",
                {"point": {"before_battle": str(first.id)}, "options": {"replacement_die": 10}},
            )
            assert response.status_code == 202, response.json()
            made.append(response.json())
        else:
            # Other umpires' notes land in the original while the branch is made.
            services.note_record(campaign=campaign, text=f"Note {index}", actor=umpire)

    assert run_threads(work, count=4) == []
    (branch,) = made
    branch_id = uuid.UUID(branch["id"])
    job = Job.objects.get(pk=branch["job"]["id"])
    done = wait_for(
        lambda: Job.objects.filter(pk=job.pk, status="succeeded").first(),
        timeout=120,
        what="the worker to play the branch through",
    )
    seen = api.get(f"/api/v1/jobs/{job.pk}/").json()
    assert seen["status"] == "succeeded"
    assert seen["progress"]["done"] == seen["progress"]["total"] == done.progress["total"]
    # The branch plays exactly what the original had when it was made: notes written before
    # the branch was made are in its plan, later ones are not.
    origin = Campaign.objects.get(pk=branch_id).branch_of or {}
    upto = origin["original_last_sequence"]

    def notes(campaign_id, **where) -> list[str]:
        return [
            e.payload["text"]
            for e in store.read(campaign_id, types=["campaigns.NoteRecorded"], **where)
            if e.payload["text"].startswith("Note ")
        ]

    assert sorted(notes(branch_id) + notes(campaign.id, after=upto)) == [
        "Note 1",
        "Note 2",
        "Note 3",
    ]
    assert sorted(notes(branch_id)) == sorted(notes(campaign.id, upto=upto))
    ids = IdMap(campaign.id, branch_id)
    original = [
        e for e in store.read(campaign.id, upto=upto) if e.type != "campaigns.CampaignCreated"
    ]
    mine = [
        e
        for e in store.read(branch_id)
        if e.type not in ("campaigns.CampaignCreated", "campaigns.OptionsChanged")
    ]
    assert [e.type for e in original][:50] == [e.type for e in mine][:50]
    assert ids.json(mine[0].payload) == original[0].payload
