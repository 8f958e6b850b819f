"""API reads kept under the log position they answer for (docs/adr/0027).

Everything a read of the API shows is derived from one campaign's log, and what a reader may see
of it is decided by the log too (memberships, hidden information and its reveals, the campaign's
options are all events). So the same reader asking the same thing while the campaign's last
sequence has not moved gets the same bytes: an answer rendered once is kept under (reader,
request, campaign, last sequence) and served again until the log moves. Nothing is ever
invalidated: every append moves the sequence, and the next read misses and renders anew.

A kept answer is served only after the request has been authenticated, permitted and throttled
like any other; who the reader is is part of the key, so one reader is never served another's
answer. The answers are kept in the process (the ``reads`` cache, Django's local-memory backend
with a bounded number of entries): a process started by a new release never serves what an
older release's projections rendered, and one campaign's answers never outlive the process.
"""

from __future__ import annotations

import functools
import hashlib
import uuid
from collections.abc import Callable
from typing import Any

from django.core.cache import caches
from django.http import HttpResponse
from django.template.response import SimpleTemplateResponse
from rest_framework.request import Request

from eventlog import store
from eventlog.caching import KEPT_DIGEST, KEPT_GZIP, keep_pin, kept_gzip, pinned_sequence

READS_CACHE = "reads"
# An answer over a megabyte (the company's roster is under a tenth of that) is rendered each time
# rather than allowed to crowd out the many small ones.
LARGEST_KEPT = 1 << 20
_POSITION = "muster_read_position"
# Streams whose campaign a process remembers (a couple of hundred bytes each).
STREAMS_REMEMBERED = 10_000

Read = Callable[..., Any]


def kept_by_log_position(stream_of: Callable[[Any, dict[str, Any]], str]) -> Callable[[Read], Read]:
    """Keep a view's ``get`` answers under the log position of the campaign that owns the
    stream ``stream_of(view, url_kwargs)`` names (``unit:<id>``, ``battle:<id>``...). A stream
    the log does not know is read as usual (and is not found there)."""

    def decorate(get: Read) -> Read:
        @functools.wraps(get)
        def read(view: Any, request: Request, *args: Any, **kwargs: Any) -> Any:
            position = _position_of(stream_of(view, kwargs))
            if position is None:
                return get(view, request, *args, **kwargs)
            setattr(request, _POSITION, position)
            key = _key(request, *position)
            cache = caches[READS_CACHE]
            kept = cache.get(key)
            if kept is not None:
                content, content_type, pinned, digest, compressed = kept
                keep_pin(request, pinned)
                response = HttpResponse(content, content_type=content_type)
                setattr(response, KEPT_DIGEST, digest)
                setattr(response, KEPT_GZIP, compressed)
                return response
            response = get(view, request, *args, **kwargs)
            if response.status_code == 200 and isinstance(response, SimpleTemplateResponse):
                response.add_post_render_callback(functools.partial(_keep, key, request))
            return response

        return read

    return decorate


def _position_of(stream: str) -> tuple[uuid.UUID, int] | None:
    # A stream never moves to another campaign: which one it is in is remembered by the
    # process, and a kept read then asks only for the campaign's last sequence, by its primary
    # key. A stream not found is not remembered: it may be made later.
    campaign_id = _campaigns_of_streams.get(stream)
    if campaign_id is not None:
        return campaign_id, store.last_sequence(campaign_id)
    position = store.stream_position(stream)
    if position is not None:
        if len(_campaigns_of_streams) >= STREAMS_REMEMBERED:
            # Learnt again as they are asked: simpler, and safe between threads, than evicting.
            _campaigns_of_streams.clear()
        _campaigns_of_streams[stream] = position[0]
    return position


_campaigns_of_streams: dict[str, uuid.UUID] = {}


def forget_streams() -> None:
    """Forget which campaign each stream is in: for a database whose ids may be reused (the
    test suite's, emptied between tests)."""
    _campaigns_of_streams.clear()


def campaign_read(request: Request) -> uuid.UUID | None:
    """The campaign whose log position the read is kept under, when it is (so the view need not
    look it up again)."""
    position = getattr(request, _POSITION, None)
    return position[0] if position else None


def _keep(key: str, request: Request, response: SimpleTemplateResponse) -> None:
    content = response.content
    if len(content) > LARGEST_KEPT:
        return
    # What the middleware does to every answer (its ETag, its gzip) is done once, here.
    kept = (
        content,
        response["Content-Type"],
        pinned_sequence(request),
        hashlib.sha256(content).hexdigest(),
        kept_gzip(content),
    )
    caches[READS_CACHE].set(key, kept)


def _key(request: Request, campaign_id: uuid.UUID, sequence: int) -> str:
    # The host and scheme are in the answer's links; the media type picks the renderer.
    asked = "\n".join(
        (
            str(request.user.pk),
            type(request.successful_authenticator).__name__,
            str(campaign_id),
            str(sequence),
            request.scheme or "",
            request.get_host(),
            request.get_full_path(),
            request.accepted_media_type or "",
        )
    )
    return "read:" + hashlib.sha256(asked.encode()).hexdigest()
