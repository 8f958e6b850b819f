"""A battle whose dice the server rolls, on a real worker with Redis."""

from __future__ import annotations

from pathlib import Path

import pytest

from battles import actions, services
from battles.models import BattleLogEntry
from campaigns.models import Campaign
from eventlog import jobs, store
from eventlog.models import Job
from rosters import services as rosters
from rosters.models import Force, Trooper, Unit, Vehicle
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
    ).job
    assert job is not None

    wait_for(
        lambda: Job.objects.get(pk=job.pk).status == "succeeded", timeout=30, what="the action"
    )
    (event,) = jobs.job_events(Job.objects.get(pk=job.pk))
    assert event.type == "battles.ConfidenceTested"
    assert [d["source"] for d in event.payload["dice"]] == ["server"]
    line = BattleLogEntry.objects.get(battle_id=battle.id, sequence=event.sequence)
    assert line.dice == event.payload["dice"]
    assert f"d{event.payload['dice'][0]['die']} {event.payload['dice'][0]['result']}" in (
        line.summary
    )


def test_the_scripted_battle_with_server_dice_on_a_real_worker(celery_processes, umpire):
    from tests.battles.test_scripted_battle import BLUE, RED

    celery_processes.worker()
    campaign = campaign_for(umpire, name="Scripted, server dice")
    for text in (BLUE, RED):
        rosters.force_import_text(campaign=campaign, text=text, source="test", actor=umpire)
    campaign = Campaign.objects.get(pk=campaign.id)
    blue, red = (Force.objects.get(campaign_id=campaign.id, side=s) for s in ("Blue", "Red"))
    alpha, red_squad = (Unit.objects.get(force_id=f.id, kind="squad") for f in (blue, red))
    battle = services.battle_plan(
        campaign=campaign,
        name="Patrol clash",
        day=3,
        sides=[{"side": "Blue", "force_ids": [blue.id]}, {"side": "Red", "force_ids": [red.id]}],
        actor=umpire,
    )
    battle = services.battle_commit(
        campaign=campaign, battle=battle, unit_ids=[alpha.id, red_squad.id], actor=umpire
    )
    battle = services.battle_start(campaign=campaign, battle=battle, actor=umpire)

    def perform(name: str, **params) -> list:
        job = actions.action_perform(
            campaign=campaign, battle=battle, name=name, params=params, dice=None, actor=umpire
        ).job
        assert job is not None
        wait_for(lambda: Job.objects.get(pk=job.pk).is_finished, timeout=30, what=f"the {name} job")
        finished = Job.objects.get(pk=job.pk)
        assert finished.status == "succeeded", finished.error
        return jobs.job_events(finished)

    perform("casualties", unit_id=str(alpha.id), mode="allocate", hits=4, impact_die=10)
    perform("confidence_test", unit_id=str(alpha.id), circumstances=["casualties_from_fire"])
    if Trooper.objects.filter(unit_id=alpha.id, status="wounded").exists():
        perform("medical_treatment", unit_id=str(alpha.id))
    truck = Vehicle.objects.get(force_id=blue.id)
    perform("vehicle_hit", vehicle_id=str(truck.id), impact_die=10, suspension="civilian_wheeled")
    perform("surrender", unit_id=str(red_squad.id), prisoners_taken_by="Blue")
    battle = services.battle_end(campaign=campaign, battle=battle, winner="Blue", actor=umpire)

    rolled = [
        (event.sequence, d)
        for event in store.read(campaign.id)
        for d in event.payload.get("dice", [])
    ]
    assert rolled, "the server rolled no dice"
    assert {d["source"] for _, d in rolled} == {"server"}
    logged = {
        (line.sequence, d["counter"], d["result"])
        for line in BattleLogEntry.objects.filter(battle_id=battle.id)
        for d in line.dice
    }
    # Every server roll is told in the battle log, with its counter for verification.
    assert {(sequence, d["counter"], d["result"]) for sequence, d in rolled} <= logged
    assert {t.status for t in Trooper.objects.filter(force_id=red.id)} == {"captured"}
