"""The after-action resolution of a battle over HTTP: ``POST /battles/{id}/after-action/``."""

from __future__ import annotations

import inspect
import uuid

from django.urls import path
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from battles.after_action import AfterAction
from battles.after_action.command import AfterActionParams
from battles.api.schemas import DICE_QUERY_HELP, IDEMPOTENCY_KEY, command_body
from battles.api.views import _battle
from eventlog.api.commands import body_of, dice_of, dice_prompt, execute, params_of, query_params
from eventlog.api.serializers import DicePromptSerializer, EventsAppendedSerializer, JobSerializer

AFTER_ACTION_DICE_HELP = (
    "Faces rolled at the table, in the order the rules use them: per unit in roster order its "
    "withdrawal die, then per injured trooper his treatment die (if due) and his recovery die "
    "(the dice prompt, GET on this URL, lists them); or each keyed by what it is for. Leave out "
    "to have the server roll (202 and a job)."
)

AFTER_ACTION_BODY = command_body(
    "AfterAction",
    AfterActionParams,
    description=inspect.cleandoc(AfterAction.__doc__ or ""),
    from_url=("battle_id",),
    dice=AFTER_ACTION_DICE_HELP,
)


class BattleAfterActionApi(APIView):
    """Resolve an ended battle after the action (umpire only): quality points, fatigue, the
    withdrawal test, the injured's recovery and vehicle repairs (SG2 P.60-61)."""

    @extend_schema(
        parameters=[OpenApiParameter("dice", str, description=DICE_QUERY_HELP)],
        responses=DicePromptSerializer,
    )
    def get(self, request: Request, battle_id: uuid.UUID) -> Response:
        """The dice prompt: every die the after-action asks the table for, in order, with its
        purpose and the unit or trooper it is for; ``?dice=3,5`` follows the faces so far."""
        campaign, battle = _battle(request, battle_id, umpire=True)
        return dice_prompt(
            request,
            AfterAction.name,
            campaign_id=campaign.id,
            params=query_params(request, battle_id=battle.id),
        )

    @extend_schema(
        request=AFTER_ACTION_BODY,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: EventsAppendedSerializer, 202: JobSerializer},
    )
    def post(self, request: Request, battle_id: uuid.UUID) -> Response:
        campaign, battle = _battle(request, battle_id, umpire=True)
        return execute(
            request,
            AfterAction.name,
            campaign_id=campaign.id,
            params=params_of(body_of(request), battle_id=battle.id),
            dice=dice_of(body_of(request)),
        )


urlpatterns = [
    path(
        "battles/<uuid:battle_id>/after-action/",
        BattleAfterActionApi.as_view(),
        name="battle-after-action",
    ),
]
