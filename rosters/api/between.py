"""Replacements between battles over HTTP (SG2 P.60-61): a platoon's ledger, the replacement
roll, and the assignment of the men to its squads."""

from __future__ import annotations

import uuid

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.models import Campaign
from campaigns.selectors import require_umpire
from campaigns.visibility import reader_get, require_entity_whole
from eventlog.api.commands import body_of, dice_of, dice_prompt, execute, query_params
from eventlog.api.serializers import (
    DicePromptSerializer,
    EventsAppendedSerializer,
    JobSerializer,
)
from eventlog.errors import NotFound
from rosters import replacements, selectors
from rosters.api.schemas import (
    PlatoonReplacementsSerializer,
    ReplacementsAssignSerializer,
    TableDiceSerializer,
)
from rosters.api.views import IDEMPOTENCY_KEY
from rosters.models import Unit

PROMPT_DICE = OpenApiParameter(
    "dice",
    str,
    description="Faces entered so far, separated by commas (dice=3,5): the prompt shows each "
    "die's face and whether they complete it.",
)
ROLLED = {
    201: EventsAppendedSerializer,
    202: JobSerializer,
}


def _unit(request: Request, unit_id: uuid.UUID, *, umpire: bool) -> tuple[Campaign, Unit]:
    campaign_id = selectors.campaign_of("unit", unit_id)
    try:
        if umpire:
            require_umpire(user=request.user, campaign_id=campaign_id)
        else:
            reader = reader_get(user=request.user, campaign_id=campaign_id)
    except NotFound:
        raise NotFound("unit.not_found", "No such unit.") from None
    unit = Unit.objects.filter(campaign_id=campaign_id, id=unit_id).first()
    if unit is None:
        raise NotFound("unit.not_found", "No such unit.")
    if not umpire:
        require_entity_whole(reader, unit.force_id, "unit")
    return Campaign.objects.get(pk=campaign_id), unit


class PlatoonReplacementsApi(APIView):
    """A platoon's replacements: its last roll, how many are left to assign, and the men on
    their way to its squads."""

    @extend_schema(responses={200: PlatoonReplacementsSerializer})
    def get(self, request: Request, unit_id: uuid.UUID) -> Response:
        campaign, platoon = _unit(request, unit_id, umpire=False)
        ledger = replacements.platoon_ledger(campaign.id, platoon.id)
        names = {str(u.id): u.name for u in replacements.platoon_squads(platoon)}
        roll = ledger.last_roll
        return Response(
            {
                "platoon_id": str(platoon.id),
                "platoon": platoon.name,
                "last_roll": (
                    {k: roll[k] for k in ("day", "die", "roll", "available", "dice")}
                    if roll
                    else None
                ),
                "assigned": ledger.assigned,
                "left": ledger.left,
                "on_the_way": [
                    {
                        "unit_id": p.unit_id,
                        "unit": names.get(p.unit_id),
                        "count": p.count,
                        "arrives_on_day": p.arrives_on_day,
                    }
                    for p in ledger.pending
                ],
            }
        )


class ReplacementsRequestApi(APIView):
    """Roll a platoon's replacement die (SG2 P.60), from the table's ``dice`` or the server's."""

    @extend_schema(parameters=[PROMPT_DICE], responses={200: DicePromptSerializer})
    def get(self, request: Request, unit_id: uuid.UUID) -> Response:
        """The dice prompt: the platoon's replacement die, its purpose and the platoon it is
        for; ``?dice=4`` checks a face."""
        campaign, platoon = _unit(request, unit_id, umpire=True)
        return dice_prompt(
            request,
            replacements.REQUEST_JOB,
            campaign_id=campaign.id,
            params=query_params(request, platoon_id=platoon.id),
        )

    @extend_schema(request=TableDiceSerializer, parameters=[IDEMPOTENCY_KEY], responses=ROLLED)
    def post(self, request: Request, unit_id: uuid.UUID) -> Response:
        """Roll: 201 and the event with the table's dice, or 202 and the job the server's roll
        is made by."""
        campaign, platoon = _unit(request, unit_id, umpire=True)
        body = TableDiceSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return execute(
            request,
            replacements.REQUEST_JOB,
            campaign_id=campaign.id,
            params={"platoon_id": platoon.id},
            dice=dice_of(body_of(request)),
        )


class ReplacementsAssignApi(APIView):
    """Assign a platoon's rolled replacements to its squads (SG2 P.60-61); each receiving squad
    takes the quality-drop check with the table's ``dice``: in the order of the assignments (a
    squad already checked since its last battle rolls none), or each keyed by its squad; left
    out, the server rolls."""

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "assignments",
                str,
                required=True,
                description='The assignments as JSON: [{"unit_id": "<squad id>", "count": 2}].',
            ),
            PROMPT_DICE,
        ],
        responses={200: DicePromptSerializer},
    )
    def get(self, request: Request, unit_id: uuid.UUID) -> Response:
        """The dice prompt for ``?assignments=[{"unit_id": ..., "count": 2}]``: each receiving
        squad's quality-check die in order, with its purpose and the squad it is for."""
        campaign, platoon = _unit(request, unit_id, umpire=True)
        return dice_prompt(
            request,
            replacements.ASSIGN_JOB,
            campaign_id=campaign.id,
            params=query_params(request, platoon_id=platoon.id),
        )

    @extend_schema(
        request=ReplacementsAssignSerializer, parameters=[IDEMPOTENCY_KEY], responses=ROLLED
    )
    def post(self, request: Request, unit_id: uuid.UUID) -> Response:
        """Assign: 201 and the events with the table's dice, or 202 and the job the server's
        rolls are made by."""
        campaign, platoon = _unit(request, unit_id, umpire=True)
        body = ReplacementsAssignSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return execute(
            request,
            replacements.ASSIGN_JOB,
            campaign_id=campaign.id,
            params={"platoon_id": platoon.id, "assignments": body.validated_data["assignments"]},
            dice=dice_of(body_of(request)),
        )
