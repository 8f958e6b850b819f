"""The event log over HTTP: a campaign's events, the event catalogue, and jobs."""

from __future__ import annotations

import time
import uuid
from typing import Any

from django.conf import settings
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.selectors import require_umpire
from campaigns.visibility import Reader, events_as_seen, job_as_seen, reader_get
from eventlog import catalogue, feed, store
from eventlog.api.commands import execute
from eventlog.api.pagination import PAGE_DEFAULT, PAGE_MAX, int_param
from eventlog.api.serializers import (
    EventInputSerializer,
    EventOutputSerializer,
    EventPageSerializer,
    EventTypeSerializer,
    JobSerializer,
    event_to_json,
)
from eventlog.commands import Outcome
from eventlog.errors import NotFound
from eventlog.models import Job
from eventlog.services import EventAppend, EventVoid


class CampaignEventsApi(APIView):
    """A campaign's event log, in sequence order; umpires may append to it."""

    @extend_schema(
        parameters=[
            OpenApiParameter("after", int, description="Only events after this sequence."),
            OpenApiParameter("type", str, description="Event types, comma separated."),
            OpenApiParameter("stream", str),
            OpenApiParameter("limit", int, description=f"At most {PAGE_MAX}."),
            OpenApiParameter(
                "wait",
                int,
                description="Long-poll: when there is nothing after `after` to show, wait up to "
                "this many seconds (at most `MUSTER_EVENTS_MAX_WAIT_SECONDS`, 25 by default) for "
                "an event to be appended, then answer as usual: with it, or with no `results` "
                "if none came.",
            ),
        ],
        responses=EventPageSerializer,
    )
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        """Each event as the reader may see it (``campaigns.visibility``): whole, or in outline
        in its place; the cursor and ``last_sequence`` count every event all the same."""
        reader = reader_get(user=request.user, campaign_id=campaign_id)
        after = int_param(request, "after", 0, low=0, high=store.MAX_SEQUENCE)
        limit = int_param(request, "limit", PAGE_DEFAULT, low=1, high=PAGE_MAX)
        wait = int_param(request, "wait", 0, low=0, high=settings.MUSTER_EVENTS_MAX_WAIT_SECONDS)
        if not wait:
            return Response(self._page(request, reader, campaign_id, after=after, limit=limit))
        deadline = time.monotonic() + wait
        while True:
            # The head is read before the page: an event committed in between is in the page or
            # makes the wait below return at once, never slips between the two.
            head = store.last_sequence(campaign_id)
            page = self._page(request, reader, campaign_id, after=after, limit=limit)
            remaining = deadline - time.monotonic()
            if page["results"] or page["next"] or remaining <= 0:
                return Response(page)
            # Nothing the reader may see yet (a hidden or filtered-out event does not count).
            if feed.wait_for_append(campaign_id, head, timeout=remaining) is None:
                return Response(page)

    def _page(
        self, request: Request, reader: Reader, campaign_id: uuid.UUID, *, after: int, limit: int
    ) -> dict[str, Any]:
        types = [t for t in request.query_params.get("type", "").split(",") if t]
        events = list(
            store.read(
                campaign_id,
                after=after,
                types=types or None,
                stream=request.query_params.get("stream") or None,
                limit=limit + 1,
            )
        )
        more = len(events) > limit
        events = events[:limit]
        next_url = None
        if more:
            query = request.query_params.copy()
            query["after"] = str(events[-1].sequence)
            next_url = request.build_absolute_uri(
                reverse("campaign-events", args=[campaign_id]) + "?" + query.urlencode()
            )
        return {
            "results": [shown for _, shown in events_as_seen(reader, events)],
            "next": next_url,
            "last_sequence": store.last_sequence(campaign_id),
        }

    @extend_schema(
        request=EventInputSerializer,
        responses={201: EventOutputSerializer},
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                str,
                OpenApiParameter.HEADER,
                description="Repeat a request safely: the same key returns the first response.",
            )
        ],
    )
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        require_umpire(user=request.user, campaign_id=campaign_id)
        body = EventInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        return execute(
            request,
            EventAppend.name,
            campaign_id=campaign_id,
            params={"type": data["type"], "payload": data["payload"], "stream": data.get("stream")},
            respond=first_event,
        )


class EventTypesApi(APIView):
    """Every event type Muster records, with its JSON Schema, for other tools."""

    permission_classes = [AllowAny]

    @extend_schema(responses=EventTypeSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(
            [
                {
                    "name": spec.name,
                    "schema_version": spec.schema_version,
                    "stream": spec.stream_category,
                    "description": spec.description,
                    "appendable": spec.appendable,
                    "payload_schema": spec.json_schema(),
                }
                for spec in catalogue.all_types()
            ]
        )


class JobDetailApi(APIView):
    """A resolution job: its status, timings, error and the events it produced."""

    @extend_schema(responses=JobSerializer)
    def get(self, request: Request, job_id: uuid.UUID) -> Response:
        job = Job.objects.filter(pk=job_id).first()
        if job is None:
            raise NotFound("job.not_found", "No such job.")
        try:
            reader = reader_get(user=request.user, campaign_id=job.campaign_id)
        except NotFound:
            raise NotFound("job.not_found", "No such job.") from None
        return Response(job_as_seen(reader, job))


class VoidInputSerializer(serializers.Serializer):
    sequence = serializers.IntegerField(min_value=1, help_text="The event to void.")
    reason = serializers.CharField(max_length=500)


class CampaignVoidsApi(APIView):
    """Void a mistaken event: everything after it is recomputed as if it never happened; the
    log keeps both the event and the void."""

    @extend_schema(request=VoidInputSerializer, responses={201: EventOutputSerializer})
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        require_umpire(user=request.user, campaign_id=campaign_id)
        body = VoidInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return execute(
            request,
            EventVoid.name,
            campaign_id=campaign_id,
            params={
                "sequence": body.validated_data["sequence"],
                "reason": body.validated_data["reason"],
            },
            respond=first_event,
        )


def first_event(outcome: Outcome) -> tuple[int, Any]:
    """201 and the event the command appended."""
    return status.HTTP_201_CREATED, event_to_json(outcome.events[0])
