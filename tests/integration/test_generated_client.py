"""A client nobody here wrote drives Muster: openapi-python-client generates a Python package
from the published schema alone, and that package plays a campaign on a served Muster: create
it, load both forces, plan a battle, commit and start it, act with table dice and with the
server's (polling the job), end it, run its after-action, and read a unit as of the battle.

It runs with PostgreSQL, Redis and a real Celery worker (the suite's second pass).
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from drf_spectacular.generators import SchemaGenerator

from accounts.tokens import token_issue

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# What the generator is told: the archive's JSON Lines and the event stream are bytes and text
# to it; no formatter is run over what it writes.
GENERATOR_CONFIG = """\
content_type_overrides:
  application/x-ndjson: application/octet-stream
  text/event-stream: text/plain
post_hooks: []
"""


@pytest.fixture(scope="module")
def muster_client(tmp_path_factory) -> Iterator[SimpleNamespace]:
    """The generated package, imported: its ``api`` modules and its ``models``."""
    where = tmp_path_factory.mktemp("generated")
    schema = where / "openapi.json"
    schema.write_text(json.dumps(SchemaGenerator().get_schema(request=None, public=True)))
    config = where / "config.yaml"
    config.write_text(GENERATOR_CONFIG)
    generator = Path(sys.executable).with_name("openapi-python-client")
    finished = subprocess.run(
        [
            str(generator), "generate", "--path", str(schema), "--config", str(config),
            "--meta", "none", "--output-path", str(where / "muster_client"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert finished.returncode == 0, finished.stdout + finished.stderr
    # Every operation of the schema made it into the client: the generator skips what it
    # cannot type, and says so.
    assert "will not be generated" not in finished.stdout + finished.stderr, finished.stdout
    sys.path.insert(0, str(where))
    try:
        package = importlib.import_module("muster_client")
        models = importlib.import_module("muster_client.models")
        api = SimpleNamespace(
            **{
                name: importlib.import_module(f"muster_client.api.{name}")
                for name in ("campaigns", "battles", "forces", "units", "jobs")
            }
        )
        yield SimpleNamespace(package=package, models=models, api=api, operation=_operation)
    finally:
        sys.path.remove(str(where))
        for name in [n for n in sys.modules if n.split(".")[0] == "muster_client"]:
            del sys.modules[name]


def _operation(tag: str, name: str):
    return importlib.import_module(f"muster_client.api.{tag}.{name}")


@pytest.fixture
def job_runner(celery_processes):
    """A live worker runs the jobs the API starts."""
    celery_processes.worker()


def _finished(client, muster_client, job, *, timeout: float = 60.0):
    """Poll the job, as a client does, until it has run."""
    jobs_retrieve = muster_client.operation("jobs", "jobs_retrieve")
    deadline = time.monotonic() + timeout
    while job.status.value in ("pending", "running"):
        assert time.monotonic() < deadline, f"job {job.id} still {job.status.value}"
        time.sleep(0.2)
        job = jobs_retrieve.sync(job.id, client=client)
    return job


def test_a_generated_client_plays_a_campaign(live_server, muster_client, umpire, job_runner):
    m = muster_client.models
    op = muster_client.operation
    client = muster_client.package.AuthenticatedClient(
        base_url=live_server.url,
        token=token_issue(user=umpire, name="generated client").secret,
        prefix="Token",
        raise_on_unexpected_status=True,
    )

    campaign = op("campaigns", "campaigns_create").sync(
        client=client, body=m.CampaignInputRequest(name="Kessler Ridge", ruleset="sg2")
    )
    assert isinstance(campaign, m.CampaignOutput)
    forces = {}
    for side in ("blue", "red"):
        name = f"sg2-scenario-1-{side}.yaml"
        force = op("campaigns", "campaigns_forces_create").sync(
            campaign.id,
            client=client,
            body=m.ForceImportRequest(roster=(EXAMPLES / name).read_text(), source=name),
        )
        assert isinstance(force, m.ForceDetail), force
        forces[force.side] = force
    listed = op("campaigns", "campaigns_forces_list").sync(campaign.id, client=client)
    assert sorted(f.side for f in listed.results) == ["Blue", "Red"]

    battle = op("campaigns", "campaigns_battles_create").sync(
        campaign.id,
        client=client,
        body=m.BattlePlanRequest(
            name="Recon in force",
            day=1,
            sides=[
                m.SideMission(side=side, force_ids=[force.id]) for side, force in forces.items()
            ],
        ),
    )
    assert isinstance(battle, m.BattleDetail), battle
    squads = {
        side: [
            unit
            for unit in op("forces", "forces_units_list").sync(force.id, client=client).results
            if unit.kind == "squad"
        ]
        for side, force in forces.items()
    }
    committed = [unit.id for units in squads.values() for unit in units]
    battle = op("battles", "battles_commit_create").sync(
        battle.id, client=client, body=m.BattleCommitRequest(unit_ids=committed)
    )
    battle = op("battles", "battles_start_create").sync(
        battle.id, client=client, body=m.BattleStartRequest()
    )
    assert battle.status.value == "in_progress", battle

    # Table dice: the prompt names each die the action needs; the table enters them.
    target = squads["Red"][0]
    asked = {
        "unit_id": target.id,
        "mode": m.BattlesActionsCasualtiesRetrieveMode("allocate"),
        "hits": 2,
        "impact_die": m.BattlesActionsCasualtiesRetrieveImpactDie(6),
    }
    prompt = op("battles", "battles_actions_casualties_retrieve").sync(
        battle.id, client=client, **asked
    )
    assert isinstance(prompt, m.DicePrompt), prompt
    assert prompt.dice
    assert all(die.die in (4, 6, 8, 10, 12) for die in prompt.dice)
    faces: list[int] = []
    while not prompt.complete:
        # The table rolls high for the impact and low for the armour: every hit tells.
        asked_for = prompt.dice[len(faces)]
        faces.append(1 if asked_for.purpose.startswith("armour") else asked_for.die)
        prompt = op("battles", "battles_actions_casualties_retrieve").sync(
            battle.id, client=client, dice=",".join(map(str, faces)), **asked
        )
    appended = op("battles", "battles_actions_casualties_create").sync(
        battle.id,
        client=client,
        body=m.CasualtiesActionRequest(
            unit_id=target.id,
            mode=m.CasualtiesActionMode("allocate"),
            hits=2,
            impact_die=m.CasualtiesActionImpactDie(6),
            dice=faces,
        ),
    )
    assert isinstance(appended, m.EventsAppended), appended
    assert appended.events

    # Server dice: 202 and a job, polled until the worker has rolled.
    job = op("battles", "battles_actions_confidence_test_create").sync(
        battle.id,
        client=client,
        body=m.ConfidenceTestActionRequest(
            unit_id=target.id, circumstances=[m.ConfidenceCircumstance("casualties_from_fire")]
        ),
    )
    assert isinstance(job, m.Job), job
    job = _finished(client, muster_client, job)
    assert job.status.value == "succeeded", job.error
    assert job.events
    assert all(event.type_.startswith("battles.") for event in job.events)

    battle = op("battles", "battles_end_create").sync(
        battle.id, client=client, body=m.BattleEndRequest(winner="Blue")
    )
    assert battle.status.value == "ended"
    job = op("battles", "battles_after_action_create").sync(
        battle.id, client=client, body=m.AfterActionRequest()
    )
    job = _finished(client, muster_client, job)
    assert job.status.value == "succeeded", job.error

    now = op("units", "units_retrieve").sync(target.id, client=client)
    before = op("units", "units_retrieve").sync(
        target.id, client=client, as_of_battle=battle.id, side=m.UnitsRetrieveSide("before")
    )
    assert isinstance(now, m.UnitDetail)
    assert isinstance(before, m.UnitDetail)
    after = op("units", "units_retrieve").sync(
        target.id, client=client, as_of_battle=battle.id, side=m.UnitsRetrieveSide("after")
    )
    # Before the battle every man stood fit; the casualties entered with table dice show after.
    assert {trooper.status.value for trooper in before.troopers} == {"fit"}
    assert {trooper.status.value for trooper in after.troopers} != {"fit"}
    assert now.id == after.id == before.id
    history = op("units", "units_history_list").sync(target.id, client=client)
    assert history.results
