"""Resolution jobs on a real Celery worker, with Redis as the broker."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.conf import settings

from campaigns import services
from eventlog import jobs, store
from eventlog.models import Job
from tests.factories import campaign_for
from tests.integration.conftest import wait_for

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def job_status(job_id) -> str:
    return Job.objects.get(pk=job_id).status


def raw_connection() -> psycopg.Connection:
    database = settings.DATABASES["default"]
    return psycopg.connect(
        host=database["HOST"], port=database["PORT"], user=database["USER"], dbname=database["NAME"]
    )


def test_a_worker_throws_the_dice_and_reports_its_heartbeat(
    celery_processes, umpire, client, settings
):
    celery_processes.worker()
    campaign = campaign_for(umpire)

    job = services.dice_request(campaign=campaign, die=10, count=2, purpose="x", actor=umpire)

    wait_for(lambda: job_status(job.pk) == "succeeded", timeout=30, what="the dice job")
    (event,) = jobs.job_events(Job.objects.get(pk=job.pk))
    assert [r["source"] for r in event.payload["rolls"]] == ["server", "server"]
    settings.METRICS_TOKEN = "scrape-secret-0123456789"  # the details are for operators only
    health = client.get(
        "/healthz", headers={"Authorization": "Bearer scrape-secret-0123456789"}
    ).json()
    assert health["broker"] == {"ok": True, "mode": "redis"}
    assert health["workers"]["ok"] is True
    assert health["status"] == "ok"


def test_through_http_the_job_is_accepted_then_done_by_the_worker(
    celery_processes, umpire, api_for
):
    celery_processes.worker()
    api = api_for(umpire)
    campaign = api.post("/api/v1/campaigns/", {"name": "Live"}).json()
    response = api.post(
        f"/api/v1/campaigns/{campaign['id']}/dice/", {"die": 6, "count": 3, "purpose": "ammo"}
    )
    assert response.status_code == 202
    job_url = response.headers["Location"]
    body = wait_for(
        lambda: (r := api.get(job_url).json())["status"] == "succeeded" and r,
        timeout=30,
        what="the job to succeed",
    )
    assert len(body["events"][0]["payload"]["rolls"]) == 3


def test_a_job_whose_worker_is_killed_mid_task_completes_exactly_once(celery_processes, umpire):
    campaign = campaign_for(umpire)
    first = celery_processes.worker()

    # Hold the campaign stream's row so the worker stops inside the job's append, before it
    # commits (requesting the job does not need that row).
    blocker = raw_connection()
    blocker.execute(
        "SELECT 1 FROM eventlog_streamhead WHERE campaign_id = %s AND stream = %s FOR UPDATE",
        [campaign.id, f"campaign:{campaign.id}"],
    )
    job = services.dice_request(campaign=campaign, die=6, count=4, purpose="x", actor=umpire)
    wait_for(lambda: job_status(job.pk) == "running", timeout=30, what="the worker to start")
    time.sleep(0.5)  # let it reach the lock

    first.kill()
    blocker.rollback()
    blocker.close()
    assert job_status(job.pk) == "running"

    celery_processes.worker()
    wait_for(lambda: job_status(job.pk) == "succeeded", timeout=60, what="redelivery")

    job.refresh_from_db()
    assert job.attempts == 2
    assert len(jobs.job_events(job)) == 1
    assert [e.type for e in store.read(campaign.id)] == [
        "campaigns.CampaignCreated",
        "campaigns.DiceRolled",
    ]


def test_beat_sweeps_up_a_job_whose_message_never_reached_the_broker(
    celery_processes, umpire, monkeypatch
):
    campaign = campaign_for(umpire)

    def broker_outage(job_id):
        raise ConnectionError("broker unreachable")

    monkeypatch.setattr(jobs, "dispatch", broker_outage)
    # The command commits, then its dispatch fails: the job is left pending for the sweep.
    job = services.dice_request(campaign=campaign, die=8, count=1, purpose="x", actor=umpire)
    assert job_status(job.pk) == "pending"
    monkeypatch.undo()

    celery_processes.worker(MUSTER_JOB_STRANDED_AFTER="1")
    celery_processes.beat(MUSTER_SWEEP_INTERVAL="1")

    wait_for(lambda: job_status(job.pk) == "succeeded", timeout=60, what="the sweep")
    assert len(jobs.job_events(Job.objects.get(pk=job.pk))) == 1
