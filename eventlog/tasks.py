"""Celery tasks of the event log: running resolution jobs and sweeping up stranded ones."""

from __future__ import annotations

import uuid

from celery import shared_task
from django.db import InterfaceError, OperationalError

from eventlog import jobs


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=8,
)
def run_resolution_job(job_id: str) -> str | None:
    job = jobs.run_job(uuid.UUID(job_id))
    return job.status if job is not None else None


@shared_task
def requeue_stranded_jobs() -> int:
    return jobs.requeue_stranded()
