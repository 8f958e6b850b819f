"""Resolution jobs on the embedded default (eager Celery)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from campaigns import services
from eventlog import commands, jobs, store
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import RuleViolation
from eventlog.models import Job
from rules.dice import Die, seeded_face
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(umpire):
    return campaign_for(umpire)


def test_a_dice_job_runs_on_commit_and_appends_its_throw(
    campaign, umpire, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        job = services.dice_request(campaign=campaign, die=6, count=4, purpose="ammo", actor=umpire)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED
    assert job.attempts == 1
    (event,) = jobs.job_events(job)
    assert event.type == "campaigns.DiceRolled"
    assert event.job_id == job.id
    assert [roll["counter"] for roll in event.payload["rolls"]] == [0, 1, 2, 3]
    assert all(roll["source"] == "server" and roll["die"] == 6 for roll in event.payload["rolls"])


def test_server_rolls_can_be_verified_from_the_revealed_seed(
    campaign, umpire, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        job = services.dice_request(campaign=campaign, die=10, count=5, purpose="x", actor=umpire)
    (event,) = jobs.job_events(job)
    seed = bytes.fromhex(services.CampaignSeed.objects.get(campaign_id=campaign.id).seed)
    assert services.seed_commitment(seed) == campaign.seed_commitment
    for roll in event.payload["rolls"]:
        face = seeded_face(seed, event.payload["namespace"], roll["counter"], 10)
        assert roll["result"] == face


def test_running_a_job_again_appends_nothing(campaign, umpire, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        job = services.dice_request(campaign=campaign, die=6, count=2, purpose="x", actor=umpire)
    before = store.last_sequence(campaign.id)
    jobs.run_job(job.id)
    Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING)  # as if the worker died
    jobs.run_job(job.id)
    assert store.last_sequence(campaign.id) == before
    assert len(jobs.job_events(job)) == 1


def test_a_rerun_after_a_crash_rolls_the_same_dice(
    campaign, umpire, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        job = services.dice_request(campaign=campaign, die=12, count=3, purpose="x", actor=umpire)
    (event,) = jobs.job_events(job)
    # A worker that died before committing would resolve the job again with fresh dice.
    rerun = services.server_dice(job.campaign_id, job.dice_namespace)
    assert [rerun.roll(Die.D12, "x").result for _ in range(3)] == [
        roll["result"] for roll in event.payload["rolls"]
    ]
    assert event.metadata["dice_namespace"] == f"job:{job.ordinal}" == "job:1"


def test_the_same_seed_and_commands_roll_the_same_dice(umpire, django_capture_on_commit_callbacks):
    seed = "ab" * 32
    faces = []
    for name in ("First", "Second"):
        campaign = services.campaign_create(name=name, seed=seed, actor=umpire)
        with django_capture_on_commit_callbacks(execute=True):
            for die in (6, 8, 10):
                services.dice_request(
                    campaign=campaign, die=die, count=4, purpose="x", actor=umpire
                )
        faces.append(
            [
                [roll["result"] for roll in event.payload["rolls"]]
                for event in store.read(campaign.id, types=["campaigns.DiceRolled"])
            ]
        )
    assert faces[0] == faces[1]
    assert len({tuple(throw) for throw in faces[0]}) == 3


def test_a_seed_must_be_64_hex_digits(umpire):
    from eventlog.errors import CommandError

    with pytest.raises(CommandError) as refused:
        services.campaign_create(name="Bad", seed="not hex", actor=umpire)
    assert (refused.value.code, refused.value.field) == ("campaign.bad_seed", "seed")


class _JobThatGoesWrong(Command[Params, None]):
    """A command whose server-dice job the rules refuse, or whose code crashes."""

    Params = Params
    rolls_dice = True
    failure: BaseException

    def load(self, ctx: CommandContext, params: commands.Params) -> None:
        return None

    def decide(self, ctx, state, params, dice) -> Decision:
        if ctx.server_dice:
            raise self.failure
        return Decision([])


@commands.command
class _Refused(_JobThatGoesWrong):
    name = "tests.refused"
    failure = RuleViolation("casevac.over_capacity", "Too many wounded.", field="troopers")


@commands.command
class _Crashes(_JobThatGoesWrong):
    name = "tests.crashes"
    failure = RuntimeError("database went away")


def _pending_job(campaign, umpire, name: str, capture) -> Job:
    with capture(execute=False):
        outcome = commands.run(name, campaign_id=campaign.id, params={}, actor_id=umpire.pk)
    assert outcome.job is not None
    return outcome.job


def test_a_job_the_rules_refuse_fails_with_its_error_and_appends_nothing(
    campaign, umpire, django_capture_on_commit_callbacks
):
    job = _pending_job(campaign, umpire, "tests.refused", django_capture_on_commit_callbacks)
    before = store.last_sequence(campaign.id)
    jobs.run_job(job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    refusal = {"code": "casevac.over_capacity", "message": "Too many wounded.", "field": "troopers"}
    assert job.error == {**refusal, "problems": [refusal]}
    assert store.last_sequence(campaign.id) == before


def test_a_crashing_job_is_retried_then_failed_for_good(
    campaign, umpire, settings, django_capture_on_commit_callbacks
):
    settings.MUSTER_JOB_MAX_ATTEMPTS = 2
    job = _pending_job(campaign, umpire, "tests.crashes", django_capture_on_commit_callbacks)
    with pytest.raises(RuntimeError):
        jobs.run_job(job.id)
    job.refresh_from_db()
    assert job.error is not None
    assert (job.status, job.error["code"]) == (Job.Status.PENDING, "job.crashed")
    with pytest.raises(RuntimeError):
        jobs.run_job(job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert job.error is not None
    assert job.error["message"] == "database went away"


def test_an_unknown_job_is_ignored():
    import uuid

    assert jobs.run_job(uuid.uuid4()) is None


def test_running_a_command_nobody_declared_is_a_programming_error(campaign):
    with pytest.raises(LookupError, match=r"tests\.nobody"):
        commands.run("tests.nobody", campaign_id=campaign.id, params={}, actor_id=1)


def test_the_sweep_redispatches_jobs_whose_message_was_lost(campaign, umpire, settings):
    settings.MUSTER_JOB_STRANDED_AFTER = 60
    # Requested, but the commit hook never ran (the broker was down): never dispatched.
    job = services.dice_request(campaign=campaign, die=6, count=1, purpose="x", actor=umpire)
    now = timezone.now()
    assert jobs.stranded_jobs(now) == []
    later = now + dt.timedelta(seconds=61)
    assert jobs.stranded_jobs(later) == [job.id]

    assert jobs.requeue_stranded(later) == 1

    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED
    assert jobs.stranded_jobs(later) == []


def test_the_sweep_redispatches_jobs_whose_worker_died(campaign, umpire, settings):
    settings.MUSTER_JOB_STRANDED_AFTER = 60
    job = services.dice_request(campaign=campaign, die=6, count=1, purpose="x", actor=umpire)
    started = timezone.now() - dt.timedelta(seconds=120)
    Job.objects.filter(pk=job.pk).update(
        status=Job.Status.RUNNING, started_at=started, dispatched_at=started
    )
    assert jobs.stranded_jobs() == [job.id]
    jobs.requeue_stranded()
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED


def test_a_sweep_that_cannot_reach_the_broker_tries_again_next_time(
    campaign, umpire, settings, monkeypatch
):
    settings.MUSTER_JOB_STRANDED_AFTER = 0
    services.dice_request(campaign=campaign, die=6, count=1, purpose="x", actor=umpire)

    def broker_down(job_id):
        raise ConnectionError("broker unreachable")

    monkeypatch.setattr(jobs, "dispatch", broker_down)
    assert jobs.requeue_stranded(timezone.now() + dt.timedelta(seconds=1)) == 0
