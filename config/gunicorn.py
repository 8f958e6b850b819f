"""gunicorn's settings for Muster: JSON log lines, and metrics added up across its workers.

    gunicorn -c config/gunicorn.py config.wsgi:application --bind 0.0.0.0:8000 --workers 3

Leave out ``--access-logfile``: Muster logs each request itself, as JSON with its request id
(``config.middleware.RequestIdMiddleware``). With ``PROMETHEUS_MULTIPROC_DIR`` set, the directory
is emptied when gunicorn starts and a worker's files are dropped when it exits, so ``/metrics``
counts every live worker once (``config.metrics``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

accesslog = None
loglevel = os.environ.get("LOG_LEVEL", "INFO").lower()
logconfig_dict: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "config.logs.JsonFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "json"}},
    "root": {"level": "INFO", "handlers": ["console"]},
    "loggers": {
        "gunicorn.error": {"level": "INFO", "handlers": ["console"], "propagate": False},
        # Muster logs each request itself, with its route and duration: no second line for it.
        "gunicorn.access": {"level": "WARNING", "handlers": ["console"], "propagate": False},
    },
}


def _metrics_dir() -> Path | None:
    value = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    return Path(value) if value else None


def on_starting(server: Any) -> None:
    """Counts left by an earlier run would be added to this one's: start from an empty dir."""
    directory = _metrics_dir()
    if directory is not None:
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True, exist_ok=True)


def child_exit(server: Any, worker: Any) -> None:
    if _metrics_dir() is not None:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
