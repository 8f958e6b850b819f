"""Revealing what the umpire hid, over HTTP: ``POST /campaigns/{id}/reveals/``."""

from __future__ import annotations

import uuid

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.api.log import first_event
from campaigns.secrets import InformationReveal
from campaigns.selectors import require_umpire
from eventlog.api.commands import execute
from eventlog.api.serializers import ErrorSerializer, EventOutputSerializer


class RevealInputSerializer(serializers.Serializer):
    sequence = serializers.IntegerField(
        min_value=1, help_text="A hidden event, or the campaigns.InformationHidden that hid it."
    )
    reason = serializers.CharField(max_length=500)


class CampaignRevealsApi(APIView):
    """Reveal hidden information (umpire only): a hidden note, battle action, battle or mission
    card. From this event on, players see it in its place in the log and in every view as of a
    point after it; views as of a point before it still hide it."""

    @extend_schema(
        request=RevealInputSerializer,
        responses={
            201: EventOutputSerializer,
            403: OpenApiResponse(ErrorSerializer, description="campaign.umpire_only"),
            404: OpenApiResponse(
                ErrorSerializer, description="campaign.not_found, reveal.not_hidden"
            ),
            409: OpenApiResponse(ErrorSerializer, description="reveal.already_revealed"),
        },
    )
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        require_umpire(user=request.user, campaign_id=campaign_id)
        body = RevealInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return execute(
            request,
            InformationReveal.name,
            campaign_id=campaign_id,
            params=dict(body.validated_data),
            respond=first_event,
        )
