"""Observability: JSON log lines with the request id, carried into the jobs a request starts, and
a Prometheus endpoint behind a token (docs/adr/0012-operations-defaults-and-observability.md)."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import DatabaseError
from prometheus_client import REGISTRY

from config.logs import JsonFormatter
from eventlog.metrics import JobCollector
from eventlog.models import Job
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

GENERATED_ID = re.compile(r"[0-9a-f]{32}")


@pytest.fixture
def logged() -> Iterator[Callable[[], list[dict[str, Any]]]]:
    """The lines logged so far in the test, formatted as the configured console formats them
    and parsed back (a line that is not JSON fails the parse)."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    root.removeHandler(handler)
    root.setLevel(level)


def test_the_console_writes_json_lines():
    consoles = [h for h in logging.getLogger().handlers if isinstance(h.formatter, JsonFormatter)]
    assert consoles, "settings.LOGGING sends the root logger's lines through the JSON formatter"


def test_a_request_id_is_made_or_taken_and_echoed(client):
    made = client.get("/livez")["X-Request-ID"]
    assert GENERATED_ID.fullmatch(made)
    assert client.get("/livez")["X-Request-ID"] != made
    given = "edge-7f3a9c2e-1b4d"
    assert client.get("/livez", headers={"X-Request-ID": given})["X-Request-ID"] == given
    # Not an id: replaced rather than written into the logs.
    for bad in ("short", "two words here", "x" * 200, 'quote"injection"here'):
        echoed = client.get("/livez", headers={"X-Request-ID": bad})["X-Request-ID"]
        assert GENERATED_ID.fullmatch(echoed), bad


def test_every_line_of_a_command_request_is_json_with_time_level_logger_and_request_id(
    umpire_api, umpire, logged
):
    campaign = campaign_for(umpire)
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/dice/",
        {"die": 6, "purpose": "ammo", "results": [4, 2]},
        **{"X-Request-ID": "table-dice-0001"},
    )
    assert response.status_code == 201
    assert response["X-Request-ID"] == "table-dice-0001"
    lines = logged()
    assert lines
    for line in lines:
        assert {"time", "level", "logger", "message", "request_id"} <= line.keys(), line
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", line["time"])
    ours = [line for line in lines if line["request_id"] == "table-dice-0001"]
    (command,) = [line for line in ours if line["logger"] == "eventlog.commands"]
    assert command["level"] == "INFO"
    assert command["campaign_id"] == str(campaign.id)
    assert command["command"] == "campaigns.roll_dice"
    assert command["outcome"] == "applied"
    assert command["status"] == 201
    assert isinstance(command["duration_ms"], float)
    (request,) = [line for line in ours if line["logger"] == "muster.request"]
    assert request["status"] == 201
    assert request["route"] == "api/v1/campaigns/<uuid:campaign_id>/dice/"


def test_a_refused_command_is_logged_with_its_code(umpire_api, umpire, logged):
    campaign = campaign_for(umpire)
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/dice/", {"die": 7, "purpose": "x", "results": [3]}
    )
    assert response.status_code in (400, 422)
    (command,) = [
        line
        for line in logged()
        if line["logger"] == "eventlog.commands" and line["request_id"] == response["X-Request-ID"]
    ]
    assert command["outcome"] == "refused"
    assert command["code"] == response.json()["code"]


def test_the_job_a_request_starts_logs_with_that_request_id(umpire_api, umpire, logged):
    """The job runs after the request has been answered (its dispatch waits for the commit), when
    the request's id is no longer bound: it comes from the job's row."""
    campaign = campaign_for(umpire)
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/dice/",
        {"die": 6, "count": 2, "purpose": "ammo"},
        **{"X-Request-ID": "server-dice-0002"},
    )
    assert response.status_code == 202
    job = Job.objects.get(campaign_id=campaign.id)
    assert job.status == Job.Status.SUCCEEDED
    assert job.request_id == "server-dice-0002"
    (finished,) = [line for line in logged() if line["logger"] == "eventlog.jobs"]
    assert finished["request_id"] == "server-dice-0002"
    assert finished["job_id"] == str(job.id)
    assert finished["campaign_id"] == str(campaign.id)
    assert finished["command"] == "campaigns.roll_dice"
    assert finished["outcome"] == "succeeded"
    assert finished["duration_ms"] >= 0
    (queued,) = [line for line in logged() if line["request_id"] == "server-dice-0002"
                 and line["logger"] == "eventlog.commands"]  # fmt: skip
    assert queued["outcome"] == "queued"
    assert queued["job"] == str(job.id)


def metric(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_metrics_are_closed_without_the_token(client, settings):
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics").status_code == 404
    settings.METRICS_TOKEN = "scrape-secret-0123456789"
    refused = client.get("/metrics")
    assert refused.status_code == 401
    assert refused.json()["code"] == "not_authenticated"
    assert refused["WWW-Authenticate"].startswith("Bearer")
    wrong = client.get("/metrics", headers={"Authorization": "Bearer not-the-secret"})
    assert wrong.status_code == 401
    assert b"muster_" not in wrong.content


def test_metrics_count_requests_appends_commands_and_jobs(umpire_api, umpire, client, settings):
    settings.METRICS_TOKEN = "scrape-secret-0123456789"
    campaign = campaign_for(umpire)
    route = "api/v1/campaigns/<uuid:campaign_id>/dice/"
    appends = metric("muster_event_append_seconds_count")
    requests = metric("muster_http_requests_total", method="POST", route=route, status="201")
    commands = metric("muster_commands_total", command="campaigns.roll_dice", outcome="applied")
    umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/dice/", {"die": 6, "purpose": "x", "results": [5]}
    )
    umpire_api.post(f"/api/v1/campaigns/{campaign.id}/dice/", {"die": 6, "purpose": "job"})
    assert metric("muster_event_append_seconds_count") >= appends + 2
    assert metric("muster_http_requests_total", method="POST", route=route, status="201") == (
        requests + 1
    )
    assert (
        metric("muster_commands_total", command="campaigns.roll_dice", outcome="applied")
        == commands + 1
    )

    response = client.get("/metrics", headers={"Authorization": "Bearer scrape-secret-0123456789"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    text = response.content.decode()
    assert "muster_event_append_seconds_bucket" in text
    assert any(
        line.startswith("muster_http_request_seconds_bucket{") and f'route="{route}"' in line
        for line in text.splitlines()
    )
    assert 'muster_jobs{command="campaigns.roll_dice",status="succeeded"} 1.0' in text
    assert 'muster_job_run_seconds_count{command="campaigns.roll_dice"} 1.0' in text
    assert "muster_jobs_unreadable 0.0" in text


def test_metrics_are_served_when_the_job_table_cannot_be_read(client, settings, monkeypatch):
    settings.METRICS_TOKEN = "scrape-secret-0123456789"

    def unreadable(self):
        raise DatabaseError("the database is down")

    monkeypatch.setattr(JobCollector, "_from_the_table", unreadable)
    response = client.get("/metrics", headers={"Authorization": "Bearer scrape-secret-0123456789"})
    assert response.status_code == 200
    text = response.content.decode()
    assert "muster_jobs_unreadable 1.0" in text
    assert "muster_http_requests_total" in text
