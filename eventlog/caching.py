"""Which API answers can never change, so that a client may keep them for good.

An answer *as of* a sequence that the campaign has reached is fixed: events are never changed,
and a void only changes what follows it, so the view as it stood after event N is the same
tomorrow (``eventlog.projections.fold_as_of``). A view that serves one marks its request with
:func:`pin_answer`; ``config.http_cache.ApiConditionalGetMiddleware`` then sends it with
``Cache-Control: immutable``. An ``as_of`` beyond the end of the log is not pinned: the events
that will fill it have not happened yet.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.middleware.gzip import GZipMiddleware
from django.utils.text import compress_string

from eventlog import store

_PINNED = "muster_pinned_sequence"
# Set on the response of a kept read (eventlog.api.read_cache) for config.http_cache: its body's
# digest, and its gzip as it was compressed when it was kept.
KEPT_DIGEST = "muster_kept_digest"
KEPT_GZIP = "muster_kept_gzip"


def pin_answer(request: Any, campaign_id: uuid.UUID, as_of: int | None) -> None:
    """Mark the request's answer as fixed for good when it shows the campaign as of a sequence
    the log has reached. ``request`` is Django's request or DRF's wrapper of it."""
    if as_of is None or as_of > store.last_sequence(campaign_id):
        return
    setattr(getattr(request, "_request", request), _PINNED, as_of)


def pinned_sequence(request: Any) -> int | None:
    """The sequence the request's answer is pinned to, if a view pinned it."""
    return getattr(request, _PINNED, None)


def keep_pin(request: Any, sequence: int | None) -> None:
    """Pin a request's answer to the sequence an earlier, identical answer was pinned to."""
    if sequence is not None:
        setattr(getattr(request, "_request", request), _PINNED, sequence)


def kept_gzip(content: bytes) -> bytes | None:
    """``content`` compressed as Django's gzip middleware would send it (with its random
    padding), or None where it would send it as it is (too short to gain)."""
    if len(content) < 200:
        return None
    compressed = compress_string(content, max_random_bytes=GZipMiddleware.max_random_bytes)
    return compressed if len(compressed) < len(content) else None
