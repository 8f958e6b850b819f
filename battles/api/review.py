"""Reviewing a campaign over HTTP: a unit's progression, a battle's casualties, the hospital."""

from __future__ import annotations

import uuid

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from battles import review
from battles.models import Battle
from campaigns.selectors import membership_get
from eventlog.errors import NotFound
from rosters.models import Unit
from rosters.selectors import check_force_readable


class UnitProgressionApi(APIView):
    """A unit's quality points and level over its battles, and its strength over time."""

    @extend_schema(responses=dict)
    def get(self, request: Request, unit_id: uuid.UUID) -> Response:
        unit = Unit.objects.filter(pk=unit_id).first()
        if unit is None:
            raise NotFound("unit.not_found", "No such unit.")
        try:
            membership = membership_get(user=request.user, campaign_id=unit.campaign_id)
        except NotFound:
            raise NotFound("unit.not_found", "No such unit.") from None
        check_force_readable(membership, unit.force_id)
        return Response({"name": unit.name, **review.unit_progression(unit.campaign_id, unit.id)})


class BattleCasualtiesApi(APIView):
    """A battle's casualties per side: killed, wounded, captured and flown out."""

    @extend_schema(responses=dict)
    def get(self, request: Request, battle_id: uuid.UUID) -> Response:
        battle = Battle.objects.filter(pk=battle_id).first()
        if battle is None:
            raise NotFound("battle.not_found", "No such battle.")
        try:
            membership = membership_get(user=request.user, campaign_id=battle.campaign_id)
        except NotFound:
            raise NotFound("battle.not_found", "No such battle.") from None
        return Response(review.battle_casualties(battle, membership))


class CampaignHospitalApi(APIView):
    """Who is in hospital until which day, soonest back first."""

    @extend_schema(responses=dict)
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        membership = membership_get(user=request.user, campaign_id=campaign_id)
        return Response({"hospital": review.hospital_list(campaign_id, membership)})
