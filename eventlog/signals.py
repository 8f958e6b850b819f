"""A running worker records a heartbeat in Redis, so ``/healthz`` can tell that one is alive."""

from __future__ import annotations

import logging
import threading
import time

from celery.signals import worker_ready, worker_shutdown
from django.conf import settings

logger = logging.getLogger(__name__)

HEARTBEAT_PREFIX = "muster:worker-heartbeat:"
_stop = threading.Event()


def redis_client():  # pragma: no cover - only called with a broker configured
    import redis

    return redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=2)


def _beat(hostname: str) -> None:
    client = redis_client()
    interval = settings.MUSTER_WORKER_HEARTBEAT_INTERVAL
    while not _stop.is_set():
        try:
            client.set(
                f"{HEARTBEAT_PREFIX}{hostname}", f"{time.time():.3f}", ex=int(interval * 3) + 1
            )
        except Exception:
            logger.warning("Could not record the worker heartbeat.", exc_info=True)
        _stop.wait(interval)


@worker_ready.connect
def start_heartbeat(sender=None, **kwargs) -> None:
    if not settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
        return
    hostname = getattr(sender, "hostname", "worker")
    threading.Thread(target=_beat, args=(hostname,), name="muster-heartbeat", daemon=True).start()


@worker_shutdown.connect
def stop_heartbeat(**kwargs) -> None:
    _stop.set()
