"""Prometheus metrics of the event log: appends, commands and resolution jobs.

Appends and commands are counted in the process that runs them. Jobs are counted from the job
table when the metrics are read (:class:`JobCollector`): a worker runs them in another process,
often another container, and the table is right whichever process ran a job and across restarts.
``config.metrics`` serves them at ``/metrics``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

from prometheus_client import Counter, Histogram
from prometheus_client.core import GaugeMetricFamily, SummaryMetricFamily
from prometheus_client.registry import Collector

logger = logging.getLogger(__name__)

# Appends hold the campaign lock: their latency is how long other writers to the campaign wait.
APPEND_SECONDS = Histogram(
    "muster_event_append_seconds",
    "Time to append one batch of events to a campaign's log, projections included.",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
EVENTS_APPENDED = Counter("muster_events_appended", "Events appended to campaign logs.")

COMMAND_SECONDS = Histogram(
    "muster_command_seconds",
    "Time to run a command: lock, load, decide, append and record.",
    ["command"],
)
COMMANDS = Counter(
    "muster_commands",
    "Commands run, by outcome: applied, queued (a job will roll), replayed, refused, busy, error.",
    ["command", "outcome"],
)


class JobCollector(Collector):
    """Resolution jobs by command and status, and how long finished ones ran, read from the job
    table at scrape time (one grouped query each). Without a database the rest of the metrics
    are still served, with ``muster_jobs_unreadable`` at 1: an outage is when they are wanted."""

    def collect(self) -> Iterator[GaugeMetricFamily | SummaryMetricFamily]:
        from django.db import DatabaseError

        unreadable = GaugeMetricFamily(
            "muster_jobs_unreadable", "1 when the job table could not be read for this scrape."
        )
        try:
            families = list(self._from_the_table())
        except DatabaseError:
            logger.warning("The job table could not be read for the metrics.", exc_info=True)
            unreadable.add_metric([], 1)
            yield unreadable
            return
        unreadable.add_metric([], 0)
        yield unreadable
        yield from families

    def _from_the_table(self) -> Iterator[GaugeMetricFamily | SummaryMetricFamily]:
        from django.db.models import Count, DurationField, ExpressionWrapper, F, Sum

        from eventlog.models import Job

        jobs = GaugeMetricFamily(
            "muster_jobs", "Resolution jobs in the table, by command and status.",
            labels=["command", "status"],
        )  # fmt: skip
        for row in Job.objects.values("kind", "status").annotate(n=Count("id")).order_by():
            jobs.add_metric([row["kind"], row["status"]], row["n"])
        yield jobs

        durations = SummaryMetricFamily(
            "muster_job_run_seconds",
            "How long finished jobs ran, from their last start to their end, by command.",
            labels=["command"],
        )
        ran = ExpressionWrapper(F("finished_at") - F("started_at"), output_field=DurationField())
        finished = (
            Job.objects.filter(finished_at__isnull=False, started_at__isnull=False)
            .values("kind")
            .annotate(n=Count("id"), total=Sum(ran))
            .order_by()
        )
        for kind in finished:
            total = kind["total"].total_seconds() if kind["total"] is not None else 0.0
            durations.add_metric([kind["kind"]], count_value=kind["n"], sum_value=total)
        yield durations
