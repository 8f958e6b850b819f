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


class DiceEpochSerializer(serializers.Serializer):
    epoch = serializers.IntegerField()
    commitment = serializers.CharField(help_text="SHA-256 of the epoch's seed, in hexadecimal.")
    committed_in = serializers.IntegerField(
        allow_null=True, help_text="The event that published the commitment."
    )
    seed = serializers.CharField(allow_null=True, help_text="The seed, once the epoch is closed.")
    revealed_in = serializers.IntegerField(
        allow_null=True, help_text="The event that revealed the seed."
    )


class ServerRollSerializer(serializers.Serializer):
    sequence = serializers.IntegerField(help_text="The event that holds the roll.")
    index = serializers.IntegerField(help_text="Its place among the event's server rolls.")
    path = serializers.CharField(help_text="Where in the event's payload the roll is.")
    epoch = serializers.IntegerField()
    namespace = serializers.CharField(allow_null=True)
    counter = serializers.IntegerField(allow_null=True)
    die = serializers.IntegerField()
    result = serializers.IntegerField()


class DiceExportSerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=["muster.dice-export"])
    version = serializers.IntegerField()
    campaign_id = serializers.UUIDField()
    current_epoch = serializers.IntegerField()
    epochs = DiceEpochSerializer(many=True)
    rolls = ServerRollSerializer(many=True)


class EpochReportSerializer(serializers.Serializer):
    epoch = serializers.IntegerField()
    commitment = serializers.CharField()
    revealed = serializers.BooleanField()
    seed_matches_commitment = serializers.BooleanField(
        allow_null=True, help_text="Null while the seed is secret."
    )
    checked = serializers.IntegerField()
    mismatched = serializers.IntegerField()
    unrevealed = serializers.IntegerField()


class MismatchSerializer(serializers.Serializer):
    sequence = serializers.IntegerField()
    index = serializers.IntegerField()
    path = serializers.CharField()
    epoch = serializers.IntegerField()
    namespace = serializers.CharField(allow_null=True)
    counter = serializers.IntegerField(allow_null=True)
    die = serializers.JSONField(help_text="The die as stored.")
    stored = serializers.JSONField(help_text="The face as stored.")
    expected = serializers.IntegerField(allow_null=True, help_text="The face the seed gives.")
    problem = serializers.ChoiceField(
        choices=["face", "no_counter", "no_namespace", "bad_die", "bad_seed", "unknown_epoch"]
    )


class DiceVerificationSerializer(serializers.Serializer):
    campaign_id = serializers.UUIDField()
    ok = serializers.BooleanField(help_text="No mismatch and no problem.")
    current_epoch = serializers.IntegerField()
    checked = serializers.IntegerField(help_text="Server rolls recomputed from revealed seeds.")
    mismatched = serializers.IntegerField()
    unrevealed = serializers.IntegerField(help_text="Rolls of epochs whose seed is still secret.")
    epochs = EpochReportSerializer(many=True)
    mismatches = MismatchSerializer(many=True)
    problems = serializers.ListField(child=serializers.CharField())


class DiceExportApi(APIView):
    """The campaign's dice export: each epoch's commitment (and seed, once closed) and every
    server roll with its event, epoch, namespace, counter, die and face. ``docs/verify_dice.py``
    checks it on your own machine."""

    @extend_schema(responses=DiceExportSerializer)
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        reader = reader_get(user=request.user, campaign_id=campaign_id)
        return Response(dice_export(campaign_id, reader))


class DiceVerificationApi(APIView):
    """Every server roll of every closed epoch recomputed from its revealed seed: counts of the
    rolls checked and of those not checkable yet, each mismatch, and whether each revealed seed
    matches its commitment."""

    @extend_schema(responses=DiceVerificationSerializer)
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        reader = reader_get(user=request.user, campaign_id=campaign_id)
        report = dice_verification(campaign_id, reader).as_json()
        return Response({"campaign_id": str(campaign_id), **report})
