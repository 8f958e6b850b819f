"""A campaign's events as a server-sent event stream (``text/event-stream``).

Each event is one message: ``id:`` its sequence, ``event:`` its type, ``data:`` the event as the
reader may see it (``campaigns.visibility``, as in the log's pages). A client that reconnects
sends the last id it saw in ``Last-Event-ID`` (browsers' ``EventSource`` does) and the stream
goes on from there. A stream lasts ``MUSTER_EVENT_STREAM_SECONDS`` at most, so that it never
holds a server worker for ever (gunicorn's sync workers serve one request at a time, and kill one
that is silent past ``--timeout``): the client reconnects after the ``retry:`` delay it was sent.
Comment lines every ``MUSTER_EVENT_STREAM_HEARTBEAT_SECONDS`` keep proxies from closing a quiet
stream. See docs/adr/0016-event-feed-and-webhooks.md.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.http import StreamingHttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from campaigns.visibility import events_as_seen, reader_get
from eventlog import feed, store
from eventlog.api.serializers import ErrorSerializer
from eventlog.errors import CommandError, NotFound

CONTENT_TYPE = "text/event-stream"


class ServerSentEventSerializer(serializers.Serializer):
    """One message of the stream, as an EventSource reads it."""

    id = serializers.CharField(required=False, help_text="The event's sequence.")
    event = serializers.CharField(required=False, help_text="The event's type.")
    # ``data`` names a serializer's own output: the field is declared as ``text`` and renamed.
    text = serializers.CharField(
        required=False, help_text="The event as in the log's pages, as JSON text."
    )
    retry = serializers.IntegerField(
        required=False, help_text="How long to wait before reconnecting, in milliseconds."
    )

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        fields["data"] = fields.pop("text")
        return fields


# Events read and sent at a time; a longer backlog is sent in several reads, without waiting.
BATCH = 500


def message(event_id: int, event_type: str, data: dict[str, Any]) -> str:
    """One server-sent event. JSON has no raw line breaks, so ``data`` is a single line."""
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return f"id: {event_id}\nevent: {event_type}\ndata: {body}\n\n"


def _resume_point(request: Request) -> int:
    """Where the stream starts: after ``Last-Event-ID`` if the client sends one, else after
    ``?after=`` (0: the start of the log)."""
    raw = request.headers.get("Last-Event-ID")
    name = "Last-Event-ID"
    if raw is None or raw.strip() == "":
        raw, name = request.query_params.get("after", ""), "after"
    if raw.strip() == "":
        return 0
    try:
        value = int(raw)
    except ValueError:
        raise CommandError(
            "invalid.integer", f"{name} must be a whole number.", field=name
        ) from None
    if not 0 <= value <= store.MAX_SEQUENCE:
        raise CommandError(
            "invalid.range", f"{name} must be 0 to {store.MAX_SEQUENCE}.", field=name
        )
    return value


class CampaignEventStreamApi(APIView):
    """Follow a campaign's log as it grows: server-sent events, resumable with
    ``Last-Event-ID``."""

    # What DRF renders here is only ever a refusal (401, 403, 404, 400...): the API's JSON error,
    # whatever the client accepts (an EventSource accepts text/event-stream only, and never reads
    # the body of a refusal anyway). The stream itself writes its own body.
    renderer_classes = [JSONRenderer]

    def perform_content_negotiation(
        self, request: Request, force: bool = False
    ) -> tuple[BaseRenderer, str]:
        return JSONRenderer(), JSONRenderer.media_type

    @extend_schema(
        operation_id="campaigns_events_stream",
        parameters=[
            OpenApiParameter(
                "Last-Event-ID",
                str,
                OpenApiParameter.HEADER,
                description="Resume after this sequence (sent by EventSource on reconnecting).",
            ),
            OpenApiParameter(
                "after", int, description="Start after this sequence when no Last-Event-ID."
            ),
            OpenApiParameter("type", str, description="Event types, comma separated."),
            OpenApiParameter("stream", str),
        ],
        responses={
            (200, CONTENT_TYPE): OpenApiResponse(
                ServerSentEventSerializer,
                description="Server-sent events: `retry:` once, then for each event `id:` (its "
                "sequence), `event:` (its type) and `data:` (the event as in the log's pages), "
                "and `:` comment lines as a heartbeat. The stream ends after "
                "`MUSTER_EVENT_STREAM_SECONDS`; reconnect with `Last-Event-ID`.",
            ),
            (400, "application/json"): OpenApiResponse(
                ErrorSerializer, description="`after` or `Last-Event-ID` is not a sequence."
            ),
            (404, "application/json"): OpenApiResponse(
                ErrorSerializer,
                description="campaign.not_found: no such campaign, or not a member.",
            ),
        },
    )
    def get(self, request: Request, campaign_id: uuid.UUID) -> StreamingHttpResponse:
        reader_get(user=request.user, campaign_id=campaign_id)  # members only, before any byte
        after = _resume_point(request)
        types = [t for t in request.query_params.get("type", "").split(",") if t]
        stream = request.query_params.get("stream") or None
        response = StreamingHttpResponse(
            _messages(request.user, campaign_id, after, types, stream),
            content_type=f"{CONTENT_TYPE}; charset=utf-8",
        )
        # Not to be kept, transformed or compressed by anything on the way, nor buffered by a
        # proxy (nginx honours X-Accel-Buffering): each event must reach the client as it is sent.
        response["Cache-Control"] = "no-cache, no-transform"
        response["X-Accel-Buffering"] = "no"
        return response


def _messages(
    user: AbstractBaseUser | AnonymousUser,
    campaign_id: uuid.UUID,
    after: int,
    types: list[str],
    stream: str | None,
) -> Iterator[str]:
    """The stream's body. Each read runs in autocommit: nothing is held between events."""
    started = time.monotonic()
    ends = started + settings.MUSTER_EVENT_STREAM_SECONDS
    heartbeat = settings.MUSTER_EVENT_STREAM_HEARTBEAT_SECONDS
    next_beat = started + heartbeat
    yield f"retry: {settings.MUSTER_EVENT_STREAM_RETRY_MS}\n\n"
    seen = after  # every event up to here has been sent, or is not for this reader
    while True:
        head = store.last_sequence(campaign_id)
        if head > seen:
            try:
                # Asked again for each batch: a member removed from the campaign hears no more.
                reader = reader_get(user=user, campaign_id=campaign_id)
            except NotFound:
                return
            events = list(
                store.read(
                    campaign_id,
                    after=seen,
                    upto=head,
                    types=types or None,
                    stream=stream,
                    limit=BATCH,
                )
            )
            for event, shown in events_as_seen(reader, events):
                yield message(event.sequence, event.type, shown)
            if len(events) == BATCH:
                seen = events[-1].sequence
                continue
            seen = head
        now = time.monotonic()
        if now >= ends:
            return
        if now >= next_beat:
            yield ": heartbeat\n\n"
            next_beat = now + heartbeat
        feed.wait_for_append(campaign_id, seen, timeout=min(ends, next_beat) - now)
