"""Supplies over HTTP (SG2 P.61): the umpire says a force, or a unit and the units under it, has
suitable supplies or is short of them, and why. Body: ``{"supplied": false, "reason": "..."}``."""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.selectors import require_umpire
from eventlog.api.commands import body_of, execute, params_of
from eventlog.api.serializers import EventOutputSerializer, event_to_json
from eventlog.commands import Outcome
from eventlog.errors import NotFound
from rosters import selectors
from rosters.api.schemas import SuppliesSerializer
from rosters.api.views import IDEMPOTENCY_KEY
from rosters.fitness import SuppliesSet


def _the_event(outcome: Outcome) -> tuple[int, Any]:
    return status.HTTP_201_CREATED, event_to_json(outcome.events[0])


class SuppliesApi(APIView):
    """Set the supplies of a force (``/forces/<id>/supplies/``) or of a unit and the units under
    it (``/units/<id>/supplies/``)."""

    @extend_schema(
        request=SuppliesSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: EventOutputSerializer},
    )
    def post(self, request: Request, kind: str, **ids: uuid.UUID) -> Response:
        (entity_id,) = ids.values()
        campaign_id = selectors.campaign_of(kind, entity_id)
        try:
            require_umpire(user=request.user, campaign_id=campaign_id)
        except NotFound:
            raise NotFound(f"{kind}.not_found", f"No such {kind}.") from None
        return execute(
            request,
            SuppliesSet.name,
            campaign_id=campaign_id,
            params=params_of(body_of(request), **{f"{kind}_id": entity_id}),
            respond=_the_event,
        )
