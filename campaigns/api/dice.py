"""Verifiable dice over HTTP: closing a dice epoch, the dice export, and its verification.

Any member may read the export and the verification: they hold the seeds of closed epochs only,
which the log has published already, and no roll's purpose; a player's hold the rolls of what
they see whole (campaigns.visibility), the umpire's every roll. See docs/dice-verification.md.
"""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns import selectors
from campaigns.common import MAX_REASON_LENGTH
from campaigns.dice_epochs import DiceEpochClose, dice_export, dice_verification
from campaigns.visibility import reader_get
from eventlog.api.commands import execute
from eventlog.api.serializers import EventOutputSerializer, event_to_json
from eventlog.commands import Outcome


class EpochCloseSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=MAX_REASON_LENGTH)


class DiceEpochCloseApi(APIView):
    """Close the current dice epoch: its seed is revealed in a ``campaigns.DiceEpochClosed``
    event with the commitment to the next epoch's new secret seed. Umpires only."""

    @extend_schema(request=EpochCloseSerializer, responses={201: EventOutputSerializer})
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        body = EpochCloseSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return execute(
            request,
            DiceEpochClose.name,
            campaign_id=campaign_id,
            params={"reason": body.validated_data["reason"]},
            respond=_closed,
        )


def _closed(outcome: Outcome) -> tuple[int, Any]:
    return status.HTTP_201_CREATED, event_to_json(outcome.events[0])


class DiceExportApi(APIView):
    """The campaign's dice export: each epoch's commitment (and seed, once closed) and every
    server roll with its event, epoch, namespace, counter, die and face. ``docs/verify_dice.py``
    checks it on your own machine."""

    @extend_schema(responses=dict)
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        reader = reader_get(user=request.user, campaign_id=campaign_id)
        return Response(dice_export(campaign_id, reader))


class DiceVerificationApi(APIView):
    """Every server roll of every closed epoch recomputed from its revealed seed: counts of the
    rolls checked and of those not checkable yet, each mismatch, and whether each revealed seed
    matches its commitment."""

    @extend_schema(responses=dict)
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        reader = reader_get(user=request.user, campaign_id=campaign_id)
        report = dice_verification(campaign_id, reader).as_json()
        return Response({"campaign_id": str(campaign_id), **report})
