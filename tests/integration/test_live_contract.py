"""The API against its own schema, over the network, on a served Muster: schemathesis (its own
command line: its examples, fuzzing and stateful phases, stateful where the schema's links
allow) finds no server error and no answer that contradicts the schema, in a campaign with real
forces, battles and jobs.

It runs with PostgreSQL, Redis and a real Celery worker (the suite's second pass): a served
Muster needs a database the server's threads share, which the embedded default's tests do not
keep.

Its coverage phase (every boundary value of every parameter) is left to a run by hand: it takes
over ten minutes here, and found nothing the fuzzing did not.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest
import tomli_w
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator

from accounts.tokens import token_issue
from battles import services as battles
from battles.models import Battle, Participant
from campaigns.models import Campaign
from eventlog.models import Job
from rosters.models import Force, Trooper, Unit, Vehicle

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
)
# What the run leaves alone: revoking or rotating its own token would leave it nothing to test
# with, and a campaign archive is bytes schemathesis cannot make (tests/campaigns/test_archive.py
# sends real and altered ones).
EXCLUDED = ("auth_tokens_destroy", "auth_tokens_rotate_create", "campaigns_import_create")


@pytest.fixture
def job_runner(celery_processes):
    """A live worker runs the jobs the API starts."""
    celery_processes.worker()


@pytest.fixture
def played_campaign(django_user_model):
    """The demo campaign (three battles played, with jobs), and a fourth battle under way."""
    call_command("demo", stdout=io.StringIO())
    campaign = Campaign.objects.get()
    umpire = django_user_model.objects.get(pk=campaign.umpire_id)
    blue, red = (Force.objects.get(campaign_id=campaign.id, side=s) for s in ("Blue", "Red"))
    battle = battles.battle_plan(
        campaign=campaign,
        name="Counter-attack",
        day=12,
        sides=[
            {"side": "Blue", "force_ids": [blue.id]},
            {"side": "Red", "force_ids": [red.id]},
        ],
        actor=umpire,
    )
    fit = [
        unit.id
        for unit in Unit.objects.filter(campaign_id=campaign.id, kind="squad")
        if Trooper.objects.filter(unit_id=unit.id, status="fit").exists()
    ]
    battle = battles.battle_commit(campaign=campaign, battle=battle, unit_ids=fit, actor=umpire)
    battle = battles.battle_start(campaign=campaign, battle=battle, actor=umpire)
    assert Participant.objects.filter(battle_id=battle.id).exists()
    return campaign, umpire, battle


def _ids(model, **where) -> list[str]:
    return [str(pk) for pk in model.objects.filter(**where).values_list("pk", flat=True)[:20]]


def test_schemathesis_finds_no_server_error_and_no_schema_violation(
    live_server, played_campaign, job_runner, tmp_path, settings
):
    # The served Muster runs in this process: its event streams end, and its long-polls give up,
    # after a second rather than 25, so that each of the many requests to them is quick.
    settings.MUSTER_EVENT_STREAM_SECONDS = 1
    settings.MUSTER_EVENTS_MAX_WAIT_SECONDS = 1
    campaign, umpire, battle = played_campaign
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(SchemaGenerator().get_schema(request=None, public=True)))
    token = token_issue(user=umpire, name="schemathesis").secret
    # Path parameters drawn mostly from the played campaign, so that reads answer with real
    # bodies to check against the schema (and now and then from anywhere: a 404).
    dictionaries = {
        "campaigns": [str(campaign.id)],
        "battles": [*_ids(Battle, campaign_id=campaign.id), str(battle.id)],
        "forces": _ids(Force, campaign_id=campaign.id),
        "units": _ids(Unit, campaign_id=campaign.id),
        "troopers": _ids(Trooper, campaign_id=campaign.id),
        "vehicles": _ids(Vehicle, campaign_id=campaign.id),
        "jobs": _ids(Job, campaign_id=campaign.id),
    }
    parameter_of = {
        "campaign_id": "campaigns",
        "battle_id": "battles",
        "force_id": "forces",
        "unit_id": "units",
        "trooper_id": "troopers",
        "vehicle_id": "vehicles",
        "job_id": "jobs",
    }
    config = {
        "headers": {"Authorization": f"Token {token}"},
        "dictionaries": {name: {"values": ids} for name, ids in dictionaries.items() if ids},
        "parameters": {
            f"path.{name}": {"dictionary": dictionary, "probability": 0.9}
            for name, dictionary in parameter_of.items()
            if dictionaries[dictionary]
        },
        # A rule's refusal of a well-formed request (409, 422) is an answer, not a failure.
        "checks": {"positive_data_acceptance": {"expected-statuses": [200, 201, 202, 204]}},
    }
    config_file = tmp_path / "schemathesis.toml"
    config_file.write_text(tomli_w.dumps(config))
    finished = subprocess.run(
        [
            sys.executable, "-m", "schemathesis.cli", "--config-file", str(config_file),
            "run", str(schema_file), "--url", live_server.url,
            "--checks", ",".join(CHECKS),
            "--phases", "examples,fuzzing,stateful",
            *(argument for name in EXCLUDED for argument in ("--exclude-operation-id", name)),
            "--max-examples", "10", "--seed", "1", "--workers", "1", "--no-color",
            "--generation-deterministic", "--request-timeout", "30",
        ],
        capture_output=True,
        text=True,
        timeout=1200,
    )  # fmt: skip
    report = finished.stdout[-20_000:] + finished.stderr[-5_000:]
    assert finished.returncode == 0, report
