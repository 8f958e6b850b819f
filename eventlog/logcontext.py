"""What every log line says about where it comes from: the request, and the job if one runs.

The web process binds a request id for the length of each request (``config.middleware``); the
command runner stores it with the resolution job it records, and the worker binds it again, with
the job's id, while it runs that job. A log record factory copies both onto every record when it
is created, so any handler (the JSON console, pytest's capture) sees them, whichever thread or
logger wrote the line.
"""

from __future__ import annotations

import contextlib
import logging
import re
import uuid
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

request_id: ContextVar[str | None] = ContextVar("muster_request_id", default=None)
job_id: ContextVar[str | None] = ContextVar("muster_job_id", default=None)

# An incoming X-Request-ID is kept when it looks like an id (a UUID, a ULID, a proxy's trace id),
# so a caller's id can be followed through our logs; anything else could smuggle text into them.
REQUEST_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:=+/-]{7,127}")
REQUEST_ID_MAX = 128


def new_request_id() -> str:
    return uuid.uuid4().hex


def accepted_request_id(value: str | None) -> str:
    """The caller's request id when it is well formed, otherwise a new one."""
    if value and REQUEST_ID_PATTERN.fullmatch(value):
        return value
    return new_request_id()


@contextlib.contextmanager
def bound(*, request: str | None = None, job: str | None = None) -> Iterator[None]:
    """Bind a request id and a job id for the lines logged inside the block; ``None`` leaves the
    current value as it is."""
    tokens = []
    if request is not None:
        tokens.append((request_id, request_id.set(request)))
    if job is not None:
        tokens.append((job_id, job_id.set(job)))
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


_installed: list[bool] = []


def install_record_factory() -> None:
    """Make every log record carry ``request_id`` (None outside a request or job) and, while a
    job runs, ``job_id``. Installed once; chains the factory that was there before."""
    if _installed:
        return
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        record.request_id = request_id.get()
        job = job_id.get()
        if job is not None:
            record.job_id = job
        return record

    logging.setLogRecordFactory(factory)
    _installed.append(True)
