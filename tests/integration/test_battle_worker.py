"""A battle whose dice the server rolls, on a real worker with Redis."""

from __future__ import annotations

from pathlib import Path

import pytest

from battles import actions, services
from battles.models import BattleLogEntry
from campaigns.models import Campaign
from eventlog.models import Job
from rosters import services as rosters
from rosters.models import Force, Unit
from tests.factories import campaign_for
from tests.integration.conftest import wait_for

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_server_dice_are_rolled_by_the_worker_and_every_roll_is_logged(celery_processes, umpire):
    celery_processes.worker()
    campaign = campaign_for(umpire)
    for name in ("sg2-scenario-1-blue.yaml", "sg2-scenario-1-red.yaml"):
        rosters.force_import_text(
            campaign=campaign, text=(EXAMPLES / name).read_text(), source=name, actor=umpire
        )
    campaign = Campaign.objects.get(pk=campaign.id)
    blue, red = (Force.objects.get(campaign_id=campaign.id, side=s) for s in ("Blue", "Red"))
    battle = services.battle_plan(
        campaign=campaign,
        name="Recon in force",
        day=1,
        sides=[
            {"side": "Blue", "force_ids": [blue.id]},
            {"side": "Red", "force_ids": [red.id]},
        ],
        actor=umpire,
    )
    squads = list(Unit.objects.filter(campaign_id=campaign.id, kind="squad"))
    battle = services.battle_commit(
        campaign=campaign, battle=battle, unit_ids=[u.id for u in squads], actor=umpire
    )
    battle = services.battle_start(campaign=campaign, battle=battle, actor=umpire)

    job = actions.action_perform(
        campaign=campaign,
        battle=battle,
        name="confidence_test",
        params={"unit_id": str(squads[0].id), "circumstances": ["leader_casualty"]},
        dice=None,
        actor=umpire,
    )

    wait_for(
        lambda: Job.objects.get(pk=job.pk).status == "succeeded", timeout=30, what="the action"
    )
    (event,) = actions.jobs.job_events(Job.objects.get(pk=job.pk))
    assert event.type == "battles.ConfidenceTested"
    assert [d["source"] for d in event.payload["dice"]] == ["server"]
    line = BattleLogEntry.objects.get(battle_id=battle.id, sequence=event.sequence)
    assert line.dice == event.payload["dice"]
    assert f"d{event.payload['dice'][0]['die']} {event.payload['dice'][0]['result']}" in (
        line.summary
    )
