"""Waiting for a campaign's log to grow: the long-poll and the event stream of the API.

A reader that has seen the log up to some sequence waits here until a later event is committed,
or until its time is up. It asks the campaign's head (one primary-key read) every
``MUSTER_EVENTS_POLL_SECONDS``, in autocommit, so no transaction or lock is held while it waits
and the appends need nothing extra; docs/adr/0016-event-feed-and-webhooks.md weighs this against
PostgreSQL's LISTEN/NOTIFY.
"""

from __future__ import annotations

import time
import uuid

from django.conf import settings

from eventlog import store


def wait_for_append(campaign_id: uuid.UUID, beyond: int, *, timeout: float) -> int | None:
    """Wait until the campaign's last sequence passes ``beyond``, and return it; None if
    ``timeout`` seconds passed first.

    For a request's own connection outside any transaction (API views run in autocommit): in a
    transaction the wait would hold it open, and on SQLite its snapshot would never show the new
    event."""
    interval = settings.MUSTER_EVENTS_POLL_SECONDS
    deadline = time.monotonic() + timeout
    while True:
        head = store.last_sequence(campaign_id)
        if head > beyond:
            return head
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        time.sleep(min(interval, remaining))
