"""Probes: ``/livez`` (the process answers) and ``/readyz`` (it can serve: database and broker).

``/livez`` touches nothing else, so a database outage never gets the web processes restarted (a
restart would not bring the database back). ``/readyz`` is 503 when the database or the broker is
down: requests would fail or their jobs could not be sent. The workers are reported, but their
absence leaves the web ready: it still serves every read and records every command, and the jobs
wait in the queue (or in the job table, for the sweep) until a worker is back; taking the web out
of service would only add a second outage to the first. ``/healthz`` is ``/readyz`` under its old
name.

Anonymous callers see only whether each part is up. What went wrong (exception text, host names,
heartbeats) is logged, and shown to staff users and to callers with the metrics token only.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from config.metrics import has_metrics_token
from eventlog.signals import HEARTBEAT_PREFIX, redis_client

logger = logging.getLogger(__name__)


def _database() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        logger.warning("Readiness: the database does not answer.", exc_info=True)
        return {"ok": False, "error": str(exc)}
    return {"ok": True, "vendor": connection.vendor}


def _broker_and_workers() -> tuple[dict[str, Any], dict[str, Any]]:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        eager = {"ok": True, "mode": "eager", "detail": "jobs run in the web process"}
        return eager, eager
    try:
        client = redis_client()
        client.ping()
        beats = {}
        for key in client.scan_iter(f"{HEARTBEAT_PREFIX}*"):
            value = client.get(key)
            if value is not None:
                beats[key.decode().removeprefix(HEARTBEAT_PREFIX)] = round(
                    time.time() - float(value), 1
                )
    except Exception as exc:
        logger.warning("Readiness: the broker does not answer.", exc_info=True)
        return {"ok": False, "error": str(exc)}, {"ok": False, "error": "broker unreachable"}
    if not beats:
        logger.warning("Readiness: no worker has reported a heartbeat; jobs will wait.")
    workers = {"ok": bool(beats), "seconds_since_heartbeat": beats}
    return {"ok": True, "mode": "redis"}, workers


@never_cache
def livez(request: HttpRequest) -> JsonResponse:
    """The process is up and answering: nothing else is asked."""
    return JsonResponse({"status": "ok"})


@never_cache
def readyz(request: HttpRequest) -> JsonResponse:
    """``ok``, ``degraded`` (ready, but no worker is running jobs) or ``unavailable`` (503)."""
    database = _database()
    broker, workers = _broker_and_workers()
    ready = database["ok"] and broker["ok"]
    status = ("ok" if workers["ok"] else "degraded") if ready else "unavailable"
    user = getattr(request, "user", None)
    detailed = bool(user is not None and user.is_staff) or has_metrics_token(request)
    parts = {"database": database, "broker": broker, "workers": workers}
    if not detailed:
        parts = {name: {"ok": part["ok"]} for name, part in parts.items()}
    return JsonResponse({"status": status, **parts}, status=200 if ready else 503)


healthz = readyz
