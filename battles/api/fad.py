"""Fast and Dirty campaign points and reinforcements over HTTP (FaD p.66)."""

from __future__ import annotations

import inspect
import uuid

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from battles.after_action.fad_points import (
    CampaignPointsSpend,
    SpendParams,
    campaign_points_view,
)
from battles.after_action.fad_reinforcements import ReinforcementsParams, ReinforcementsRoll
from battles.api.schemas import (
    DICE_QUERY_HELP,
    IDEMPOTENCY_KEY,
    CampaignPointsSerializer,
    command_body,
    prompt_parameters,
)
from campaigns.models import Campaign
from campaigns.selectors import require_umpire
from campaigns.visibility import reader_get, require_force_whole
from eventlog.api.commands import body_of, dice_of, dice_prompt, execute, params_of, query_params
from eventlog.api.serializers import DicePromptSerializer, EventsAppendedSerializer, JobSerializer
from eventlog.errors import NotFound
from rosters.models import Force


def _force(
    request: Request, force_id: uuid.UUID, *, umpire: bool = False
) -> tuple[Campaign, Force]:
    force = Force.objects.filter(pk=force_id).first()
    if force is None:
        raise NotFound("force.not_found", "No such force.")
    try:
        if umpire:
            require_umpire(user=request.user, campaign_id=force.campaign_id)
        else:
            reader = reader_get(user=request.user, campaign_id=force.campaign_id)
    except NotFound:
        raise NotFound("force.not_found", "No such force.") from None
    if not umpire:
        # Every member is shown the force's outline: its points are refused, not denied to exist.
        require_force_whole(reader, force.id)
    return Campaign.objects.get(pk=force.campaign_id), force


class ForceCampaignPointsApi(APIView):
    """A force's campaign points: the balance, and every award, purchase and pool roll."""

    @extend_schema(responses=CampaignPointsSerializer)
    def get(self, request: Request, force_id: uuid.UUID) -> Response:
        campaign, force = _force(request, force_id)
        points = campaign_points_view(campaign_id=campaign.id, force=force)
        return Response(CampaignPointsSerializer(points).data)


SPEND_BODY = command_body(
    "CampaignPointsSpend",
    SpendParams,
    description=inspect.cleandoc(CampaignPointsSpend.__doc__ or ""),
    from_url=("force_id",),
)


class ForceCampaignPointsSpendApi(APIView):
    """Spend a force's campaign points on the FaD p.66 price list (umpire only)."""

    @extend_schema(
        request=SPEND_BODY, parameters=[IDEMPOTENCY_KEY], responses={201: EventsAppendedSerializer}
    )
    def post(self, request: Request, force_id: uuid.UUID) -> Response:
        campaign, force = _force(request, force_id, umpire=True)
        return execute(
            request,
            CampaignPointsSpend.name,
            campaign_id=campaign.id,
            params=params_of(body_of(request), force_id=force.id),
        )


REINFORCEMENTS_BODY = command_body(
    "ReinforcementsRoll",
    ReinforcementsParams,
    description=inspect.cleandoc(ReinforcementsRoll.__doc__ or ""),
    from_url=("force_id",),
    dice="The reinforcement dice rolled at the table, in this order: 2d6, then one d6 per point "
    "spent on an extra die, then (option campaign_quality_loss_counts_reinforcements) a "
    "quality loss d6 for each unit the pool brings to half its strength in newcomers; or each "
    'keyed by what it is for: {"face": 4, "for": "<force or unit id>"}. Leave out to have the '
    "server roll (202 and a job).",
)


class ForceReinforcementsApi(APIView):
    """Roll a force's reinforcement pool after a battle and place it (umpire only)."""

    @extend_schema(
        parameters=prompt_parameters(
            ReinforcementsParams, from_url=("force_id",), dice=DICE_QUERY_HELP
        ),
        responses=DicePromptSerializer,
    )
    def get(self, request: Request, force_id: uuid.UUID) -> Response:
        """The dice prompt: the pool's dice in order (2d6, then one d6 per extra die bought),
        each with its purpose and the force it is for, then any unit's quality loss die (option
        ``campaign_quality_loss_counts_reinforcements``, which needs ``?assignment=``);
        ``?dice=3,5`` follows the faces so far."""
        campaign, force = _force(request, force_id, umpire=True)
        return dice_prompt(
            request,
            ReinforcementsRoll.name,
            campaign_id=campaign.id,
            params=query_params(request, force_id=force.id),
        )

    @extend_schema(
        request=REINFORCEMENTS_BODY,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: EventsAppendedSerializer, 202: JobSerializer},
    )
    def post(self, request: Request, force_id: uuid.UUID) -> Response:
        campaign, force = _force(request, force_id, umpire=True)
        return execute(
            request,
            ReinforcementsRoll.name,
            campaign_id=campaign.id,
            params=params_of(body_of(request), force_id=force.id),
            dice=dice_of(body_of(request)),
        )
