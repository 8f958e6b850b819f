"""``/healthz``: is the database answering, is the broker reachable, is a worker alive?"""

from __future__ import annotations

import time

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse

from eventlog.signals import HEARTBEAT_PREFIX, redis_client


def _database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return {"ok": False, "error": str(exc)}
    return {"ok": True, "vendor": connection.vendor}


def _broker_and_workers() -> tuple[dict, dict]:
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
        return {"ok": False, "error": str(exc)}, {"ok": False, "error": "broker unreachable"}
    workers = {"ok": bool(beats), "seconds_since_heartbeat": beats}
    return {"ok": True, "mode": "redis"}, workers


def healthz(request: HttpRequest) -> JsonResponse:
    database = _database()
    broker, workers = _broker_and_workers()
    healthy = database["ok"] and broker["ok"] and workers["ok"]
    return JsonResponse(
        {
            "status": "ok" if healthy else "degraded",
            "database": database,
            "broker": broker,
            "workers": workers,
        },
        status=200 if healthy else 503,
    )
