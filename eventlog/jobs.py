"""Resolution jobs: commands whose dice the server rolls, run by a Celery worker.

The command runner writes a job row in the command's transaction (an outbox) and dispatches it
when that transaction commits. Running a job is idempotent: the job row is locked for the whole
run and its status is written in the same transaction as its events, so a retry, a redelivered
message or a sweep that dispatches a job twice appends its events exactly once. The worker runs
the job's command again, under the campaign lock, with the campaign's seeded dice
(:func:`eventlog.commands.run_job_command`).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from eventlog import commands, logcontext, store
from eventlog.errors import CommandError, database_busy, error_body
from eventlog.models import Event, Job

logger = logging.getLogger(__name__)


# Long jobs that are not one command: each commits its work in steps, with its progress, and
# can be run again from where it stopped (a branch's re-run of the original's commands).
Procedure = TypeVar("Procedure", bound=Callable[..., None])
_PROCEDURES: dict[str, Callable[[uuid.UUID], None]] = {}


def procedure(kind: str) -> Callable[[Procedure], Procedure]:
    """Register the function that runs the jobs of ``kind`` (a decorator): it is called with the
    job's id."""

    def register(run: Procedure) -> Procedure:
        _PROCEDURES[kind] = run
        commands.exclusive_job(kind)
        return run

    return register


def dispatch(job_id: uuid.UUID) -> None:
    """Send a job to the workers. A broker failure leaves it for the sweep to send again."""
    from eventlog.tasks import run_resolution_job

    Job.objects.filter(pk=job_id).update(dispatched_at=timezone.now())
    run_resolution_job.delay(str(job_id))


def run_job(job_id: uuid.UUID) -> Job | None:
    """Resolve a job once, however often it is delivered. Returns the job, or None if unknown.

    Its log lines carry the job's id and the id of the request that asked for it; its outcome is
    logged with its campaign, command and duration."""
    found = Job.objects.filter(pk=job_id).values("request_id", "campaign_id", "kind", "status")
    asked: dict[str, Any] | None = dict(found[0]) if found else None
    request_id = asked["request_id"] if asked is not None else ""
    with logcontext.bound(request=request_id or None, job=str(job_id)):
        started = time.perf_counter()
        try:
            job = _run_job(job_id)
        except Exception as crash:
            _log_outcome(asked, "crashed", started, error=type(crash).__name__)
            raise
        if job is not None and asked is not None:
            redelivered = asked["status"] in (Job.Status.SUCCEEDED, Job.Status.FAILED)
            outcome = "redelivered" if redelivered else str(job.status)
            error = {"error": job.error} if job.error else {}
            _log_outcome(asked, outcome, started, attempts=job.attempts, **error)
        return job


def _log_outcome(asked: dict[str, Any] | None, outcome: str, started: float, **extra: Any) -> None:
    if asked is None:
        return  # an unknown job: _run_job said so
    logger.log(
        logging.WARNING if outcome in ("crashed", Job.Status.FAILED) else logging.INFO,
        "Job %s %s.",
        asked["kind"],
        outcome,
        extra={
            "campaign_id": str(asked["campaign_id"]),
            "command": asked["kind"],
            "outcome": outcome,
            "duration_ms": round((time.perf_counter() - started) * 1000, 1),
            **extra,
        },
    )


def _run_job(job_id: uuid.UUID) -> Job | None:
    with transaction.atomic():
        job = Job.objects.select_for_update().filter(pk=job_id).first()
        if job is None:
            logger.warning("Job %s does not exist; nothing to run.", job_id)
            return None
        if job.is_finished:
            return job
        job.status = Job.Status.RUNNING
        job.started_at = timezone.now()
        job.attempts += 1
        job.save(update_fields=["status", "started_at", "attempts"])

    try:
        if job.kind in _PROCEDURES:
            _PROCEDURES[job.kind](job_id)
            with transaction.atomic(durable=True):
                job = Job.objects.select_for_update().get(pk=job_id)
                if not job.is_finished:
                    job.status = Job.Status.SUCCEEDED
                    job.finished_at = timezone.now()
                    job.error = None
                    job.save(update_fields=["status", "finished_at", "error"])
                return job
        with transaction.atomic(durable=True):
            # Holding the job's row lock until the events are committed keeps a second delivery
            # of the same job waiting, and then finding it finished: the job's own status,
            # written in the same transaction as its events, is what makes a rerun append
            # nothing (no idempotency key a client could also send).
            job = Job.objects.select_for_update().get(pk=job_id)
            if job.is_finished:
                return job
            if not Event.objects.filter(job_id=job.id).exists():
                # A job whose events are in the log already (its status lost by hand, a
                # restored backup) is done: running it again would roll its dice a second time.
                commands.run_job_command(job)
            job.status = Job.Status.SUCCEEDED
            job.finished_at = timezone.now()
            job.error = None
            job.save(update_fields=["status", "finished_at", "error"])
            return job
    except CommandError as refusal:
        # The rules refused the job, deciding on the state that held under the campaign lock:
        # that is its final outcome, and nothing was appended.
        Job.objects.filter(pk=job_id).update(
            status=Job.Status.FAILED, finished_at=timezone.now(), error=refusal.as_dict()
        )
        return Job.objects.get(pk=job_id)
    except Exception as crash:
        attempts = Job.objects.filter(pk=job_id).values_list("attempts", flat=True).first() or 0
        # A busy database (a lock or statement timeout) says nothing against the job: it is
        # retried, and never failed for good on that account.
        final = attempts >= settings.MUSTER_JOB_MAX_ATTEMPTS and not database_busy(crash)
        Job.objects.filter(pk=job_id).update(
            status=Job.Status.FAILED if final else Job.Status.PENDING,
            finished_at=timezone.now() if final else None,
            error=error_body("job.crashed", str(crash) or type(crash).__name__),
        )
        raise


def stranded_jobs(now: dt.datetime | None = None) -> list[uuid.UUID]:
    """Jobs whose message was probably lost: pending and never (or long ago) dispatched, or
    running for longer than any job takes, which means its worker died."""
    now = now or timezone.now()
    cutoff = now - dt.timedelta(seconds=settings.MUSTER_JOB_STRANDED_AFTER)
    stranded = Job.objects.filter(
        Q(status=Job.Status.PENDING, dispatched_at__isnull=True, requested_at__lt=cutoff)
        | Q(status=Job.Status.PENDING, dispatched_at__lt=cutoff)
        | Q(status=Job.Status.RUNNING, started_at__lt=cutoff)
    )
    return list(stranded.values_list("id", flat=True))


def requeue_stranded(now: dt.datetime | None = None) -> int:
    """Dispatch every stranded job again; returns how many were sent."""
    sent = 0
    for job_id in stranded_jobs(now):
        try:
            dispatch(job_id)
        except Exception:
            logger.exception("Could not re-dispatch job %s; the next sweep will try again.", job_id)
        else:
            sent += 1
    return sent


def job_events(job: Job) -> list[store.StoredEvent]:
    return store.events_of_job(job.id)
