"""API reads kept under the log position they answer for (docs/adr/0027).

Everything a read of the API shows is derived from one campaign's log, and what a reader may see
of it is decided by the log too (memberships, hidden information and its reveals, the campaign's
options are all events). So the same reader asking the same thing while the campaign's last
sequence has not moved gets the same bytes: an answer rendered once is kept under (reader,
request, campaign, last sequence) and served again until the log moves. Nothing is ever
invalidated: every append moves the sequence, and the next read misses and renders anew.

A kept read costs one statement: an API token's check asks the campaign's last sequence in the
same statement (:func:`position_to_ask`), when the process already knows which campaign the read
is in. A kept answer is served only after the request has been authenticated, permitted and
throttled like any other; who the reader is is part of the key, so one reader is never served
another's answer. The answers are kept in the process (the ``reads`` cache, Django's
local-memory backend with a bounded number of entries): a process started by a new release
never serves what an older release's projections rendered, and one campaign's answers never
outlive the process.
"""

from __future__ import annotations

import functools
import hashlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass
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
StreamOf = Callable[[Any, dict[str, Any]], str]
# On a kept read's handler: how it names its stream from the view and the URL's arguments.
_STREAM_OF = "kept_stream_of"


@dataclass(frozen=True, slots=True)
class PositionAsked:
    """The statement that reads the log position a read would be kept under, for the check of
    the request's credentials to ask inside its own: one round trip to the database instead of
    two. Its answer (a sequence, or None) goes to :func:`position_answered`."""

    campaign_id: uuid.UUID
    sql: str
    params: list[Any]


def kept_by_log_position(stream_of: StreamOf) -> Callable[[Read], Read]:
    """Keep a view's ``get`` answers under the log position of the campaign that owns the
    stream ``stream_of(view, url_kwargs)`` names (``unit:<id>``, ``battle:<id>``...). A stream
    the log does not know is read as usual (and is not found there)."""

    def decorate(get: Read) -> Read:
        @functools.wraps(get)
        def read(view: Any, request: Request, *args: Any, **kwargs: Any) -> Any:
            position = getattr(request, _POSITION, None) or _position_of(stream_of(view, kwargs))
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

        setattr(read, _STREAM_OF, stream_of)
        return read

    return decorate


def position_to_ask(request: Request) -> PositionAsked | None:
    """For a check of credentials that reads the database anyway: the statement that reads the
    position this request's answer would be kept under, when the request is a kept read whose
    campaign the process knows. None otherwise (the read then asks the position itself)."""
    context = request.parser_context or {}
    view = context.get("view")
    handler = getattr(view, (request.method or "").lower(), None)
    stream_of: StreamOf | None = getattr(handler, _STREAM_OF, None)
    if stream_of is None:
        return None
    campaign_id = _campaigns_of_streams.get(stream_of(view, context.get("kwargs") or {}))
    if campaign_id is None:
        return None
    sql, params = store.last_sequence_query(campaign_id)
    return PositionAsked(campaign_id, sql, params)


def position_answered(request: Request, asked: PositionAsked, sequence: int | None) -> None:
    """What :func:`position_to_ask`'s statement answered, read with the credentials: the read
    is kept under it, and does not ask again."""
    # As store.last_sequence reads it: a campaign without a head row has no events yet.
    setattr(request, _POSITION, (asked.campaign_id, sequence or 0))


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
    # What the middleware does to every answer (its ETag, its gzip) is done once, here: the
    # middleware takes both from this response too, rather than hashing and compressing again.
    digest, compressed = hashlib.sha256(content).hexdigest(), kept_gzip(content)
    setattr(response, KEPT_DIGEST, digest)
    setattr(response, KEPT_GZIP, compressed)
    kept = (content, response["Content-Type"], pinned_sequence(request), digest, compressed)
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
