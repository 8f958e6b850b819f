"""Log lines as JSON objects, one a line: ``time``, ``level``, ``logger``, ``message``,
``request_id``, then whatever the call added (``campaign_id``, ``command``, ``duration_ms``...).

Django applies ``settings.LOGGING`` through :func:`configure` (``LOGGING_CONFIG``); the Celery
worker and beat use the same configuration (``config.celery``), so every process of Muster writes
the same lines.
"""

from __future__ import annotations

import datetime as dt
import logging.config
from typing import Any

from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter as BaseJsonFormatter

from eventlog import logcontext

# Attributes Django puts on its records that are objects, not data: the request is already
# described by the line's own fields, and a socket says nothing.
_NOT_LOGGED = ("request", "server_time")


class JsonFormatter(BaseJsonFormatter):
    """python-json-logger's formatter with Muster's field names and an ISO 8601 UTC time."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("fmt", "%(levelname)s %(name)s %(message)s %(request_id)s")
        kwargs.setdefault("rename_fields", {"levelname": "level", "name": "logger"})
        kwargs.setdefault("reserved_attrs", [*RESERVED_ATTRS, *_NOT_LOGGED])
        kwargs.setdefault("json_ensure_ascii", False)
        super().__init__(*args, **kwargs)

    def add_fields(
        self, log_data: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]
    ) -> None:
        # First, so a line reads in the order it is scanned: when, how bad, where, what.
        log_data["time"] = dt.datetime.fromtimestamp(record.created, tz=dt.UTC).isoformat(
            timespec="milliseconds"
        )
        super().add_fields(log_data, record, message_dict)


def configure(logging_settings: dict[str, Any]) -> None:
    """Apply a ``LOGGING`` dictionary, and make every record carry the request and job ids."""
    logcontext.install_record_factory()
    logging.config.dictConfig(logging_settings)
