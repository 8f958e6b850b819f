"""Reviewing a campaign over HTTP: a unit's progression, a battle's casualties, the hospital."""

from __future__ import annotations

import uuid

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from battles import review
from battles.api.schemas import (
    BattleCasualtiesPageSerializer,
    HospitalStaySerializer,
    UnitProgressionSerializer,
)
from battles.models import Battle
from campaigns.visibility import Judge, reader_get, require_entity_whole
from eventlog.api.pagination import OFFSET_PAGE_PARAMETERS, offset_page, offset_page_of
from eventlog.errors import NotFound
from rosters.models import Unit


class UnitProgressionApi(APIView):
    """A unit's quality points and level over its battles, and its strength over time."""

    @extend_schema(responses=UnitProgressionSerializer)
    def get(self, request: Request, unit_id: uuid.UUID) -> Response:
        unit = Unit.objects.filter(pk=unit_id).first()
        if unit is None:
            raise NotFound("unit.not_found", "No such unit.")
        try:
            reader = reader_get(user=request.user, campaign_id=unit.campaign_id)
        except NotFound:
            raise NotFound("unit.not_found", "No such unit.") from None
        require_entity_whole(reader, unit.force_id, "unit")
        progression = review.unit_progression(unit.campaign_id, unit.id, Judge(reader))
        return Response(UnitProgressionSerializer({"name": unit.name, **progression}).data)


class BattleCasualtiesApi(APIView):
    """A battle's casualties per side: killed, wounded, captured and flown out; named for the
    forces the reader sees whole, counted for the others. The named casualties are a page."""

    @extend_schema(parameters=OFFSET_PAGE_PARAMETERS, responses=BattleCasualtiesPageSerializer)
    def get(self, request: Request, battle_id: uuid.UUID) -> Response:
        battle = Battle.objects.filter(pk=battle_id).first()
        if battle is None:
            raise NotFound("battle.not_found", "No such battle.")
        try:
            reader = reader_get(user=request.user, campaign_id=battle.campaign_id)
        except NotFound:
            raise NotFound("battle.not_found", "No such battle.") from None
        if not Judge(reader).sees_battle(battle.id):
            raise NotFound("battle.not_found", "No such battle.")
        casualties = review.battle_casualties(battle, reader)
        named = [
            {"side": side["side"], **trooper}
            for side in casualties["sides"]
            for trooper in side["troopers"]
        ]
        body = {
            "battle_id": casualties["battle_id"],
            "name": casualties["name"],
            "sides": casualties["sides"],
            **offset_page(request, named),
        }
        return Response(BattleCasualtiesPageSerializer(body).data)


class CampaignHospitalApi(APIView):
    """Who is in hospital until which day, soonest back first, of the forces the reader sees
    whole."""

    @extend_schema(
        parameters=OFFSET_PAGE_PARAMETERS, responses=offset_page_of(HospitalStaySerializer)
    )
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        reader = reader_get(user=request.user, campaign_id=campaign_id)
        page = offset_page(request, review.hospital_list(campaign_id, reader))
        page["results"] = HospitalStaySerializer(page["results"], many=True).data
        return Response(page)
