"""A Fast and Dirty battle generated from the scenario tables over HTTP (FaD p.59-64)."""

from __future__ import annotations

import inspect
import uuid

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from battles.api.schemas import (
    DICE_QUERY_HELP,
    IDEMPOTENCY_KEY,
    BattleDetailSerializer,
    command_body,
    prompt_parameters,
)
from battles.api.views import battle_json
from battles.fad.scenario_generation import GenerateFadScenario, GenerateParams
from battles.models import Battle
from campaigns.selectors import require_umpire
from eventlog.api.commands import body_of, dice_of, dice_prompt, execute, params_of, query_params
from eventlog.api.serializers import DicePromptSerializer, JobSerializer

GENERATE_BODY = command_body(
    "GenerateFadScenario",
    GenerateParams,
    description=inspect.cleandoc(GenerateFadScenario.__doc__ or ""),
    dice="The scenario dice rolled at the table, in this order: each side's d6 for the table "
    "edge (again on a tie), the first side's eight Mission Table d6 (assault, expand, hold, "
    "infiltrate, interfere, patrol, strike, sweep), the second side's eight, a d6 for each "
    "recon unit (first side first; none in an Escalating Engagement), then with equal contact "
    "markers each side's d6 for who places first (again on a tie). Leave out to have the "
    "server roll (202 and a job).",
)


class CampaignFadScenarioApi(APIView):
    """Generate a Fast and Dirty battle from the scenario tables and plan it (umpire only)."""

    @extend_schema(
        parameters=prompt_parameters(GenerateParams, dice=DICE_QUERY_HELP),
        responses=DicePromptSerializer,
    )
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        """The dice prompt: every die the generation asks for, in order, each with its purpose
        (``?sides=[...]`` as JSON, ``?dice=6,2`` follows the faces so far)."""
        require_umpire(user=request.user, campaign_id=campaign_id)
        return dice_prompt(
            request,
            GenerateFadScenario.name,
            campaign_id=campaign_id,
            params=query_params(request),
        )

    @extend_schema(
        request=GENERATE_BODY,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: BattleDetailSerializer, 202: JobSerializer},
    )
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        require_umpire(user=request.user, campaign_id=campaign_id)
        body = body_of(request)
        return execute(
            request,
            GenerateFadScenario.name,
            campaign_id=campaign_id,
            params=params_of(body),
            dice=dice_of(body),
            respond=lambda outcome: (201, battle_json(Battle.objects.get(pk=outcome.result))),
        )


urlpatterns = [
    path(
        "campaigns/<uuid:campaign_id>/battles/generate/",
        CampaignFadScenarioApi.as_view(),
        name="campaign-battles-generate",
    ),
]
