"""Battles over HTTP: planning, committing units, the lifecycle, battle actions and the log."""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from battles import actions, selectors, services
from battles.models import Battle
from campaigns.models import Campaign
from campaigns.selectors import require_umpire
from campaigns.visibility import Judge, reader_get
from eventlog.api.commands import body_of, dice_of, dice_prompt, execute, params_of, query_params
from eventlog.api.serializers import JobSerializer
from eventlog.errors import NotFound


def _battle(request: Request, battle_id: uuid.UUID, *, umpire: bool = False):
    battle = Battle.objects.filter(pk=battle_id).first()
    if battle is None:
        raise NotFound("battle.not_found", "No such battle.")
    try:
        if umpire:
            require_umpire(user=request.user, campaign_id=battle.campaign_id)
        elif not Judge(reader_get(user=request.user, campaign_id=battle.campaign_id)).sees_battle(
            battle.id
        ):
            raise NotFound("battle.not_found", "No such battle.")  # hidden whole from this reader
    except NotFound:
        raise NotFound("battle.not_found", "No such battle.") from None
    return Campaign.objects.get(pk=battle.campaign_id), battle


class PlanSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    day = serializers.IntegerField(min_value=0)
    scenario = serializers.CharField(required=False, default="", allow_blank=True)
    sides = serializers.ListField(child=serializers.DictField(), min_length=2, max_length=2)
    attacker = serializers.CharField(required=False, allow_null=True, default=None)
    next_on_attacker_win = serializers.UUIDField(required=False, allow_null=True, default=None)
    next_on_defender_win = serializers.UUIDField(required=False, allow_null=True, default=None)
    hidden = serializers.DictField(
        required=False,
        allow_null=True,
        default=None,
        help_text='Record the whole battle hidden until revealed: {"force_ids": [...]} or '
        '{"side": "Blue"} names whose players may see it ({}: the umpires only).',
    )
    hidden_missions = serializers.ListField(
        child=serializers.CharField(max_length=100),
        required=False,
        default=list,
        help_text="The sides whose mission card is hidden from all but that side's players, "
        "until revealed.",
    )


class CampaignBattlesApi(APIView):
    """A campaign's battles in order; umpires plan new ones."""

    @extend_schema(responses=dict)
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        reader = reader_get(user=request.user, campaign_id=campaign_id)
        return Response(selectors.battles_of(campaign_id, Judge(reader)))

    @extend_schema(request=PlanSerializer, responses={201: dict})
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        require_umpire(user=request.user, campaign_id=campaign_id)
        body = PlanSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return execute(
            request,
            services.BattlePlan.name,
            campaign_id=campaign_id,
            params=body.validated_data,
            respond=lambda outcome: (
                status.HTTP_201_CREATED,
                selectors.battle_detail(Battle.objects.get(pk=outcome.result)),
            ),
        )


class BattleDetailApi(APIView):
    """A battle: its state, turn, sides and missions, the units fighting and their confidence."""

    @extend_schema(responses=dict)
    def get(self, request: Request, battle_id: uuid.UUID) -> Response:
        campaign, battle = _battle(request, battle_id)
        reader = reader_get(user=request.user, campaign_id=campaign.id)
        return Response(selectors.battle_detail(battle, Judge(reader)))


class CommitSerializer(serializers.Serializer):
    unit_ids = serializers.ListField(child=serializers.UUIDField(), min_length=1)


class EndSerializer(serializers.Serializer):
    winner = serializers.CharField(max_length=100, help_text="A side, or 'draw'.")
    objectives_met = serializers.ListField(child=serializers.UUIDField(), default=list)
    withdrawn = serializers.ListField(child=serializers.UUIDField(), default=list)
    routed = serializers.ListField(child=serializers.UUIDField(), default=list)
    surrendered = serializers.ListField(child=serializers.UUIDField(), default=list)
    regroups_persisting = serializers.ListField(
        child=serializers.UUIDField(),
        default=list,
        help_text="With the option regroup_persists = umpire: the units that regrouped into "
        "another in this battle whose merger stands; the others are dissolved (SG2 P.17).",
    )


class BattleLifecycleApi(APIView):
    """Move a battle along: ``commit`` units, ``start``, next ``turn``, ``end``."""

    steps: dict[str, Any] = {
        "commit": (CommitSerializer, services.BattleCommit.name),
        "start": (None, services.BattleStart.name),
        "turn": (None, services.TurnAdvance.name),
        "end": (EndSerializer, services.BattleEnd.name),
    }

    @extend_schema(request=dict, responses={200: dict})
    def post(self, request: Request, battle_id: uuid.UUID, step: str) -> Response:
        campaign, battle = _battle(request, battle_id, umpire=True)
        serializer, command = self.steps[step]
        data: dict[str, Any] = {}
        if serializer is not None:
            body = serializer(data=request.data)
            body.is_valid(raise_exception=True)
            data = dict(body.validated_data)
        return execute(
            request,
            command,
            campaign_id=campaign.id,
            params={**data, "battle_id": battle.id},
            respond=lambda outcome: (
                status.HTTP_200_OK,
                selectors.battle_detail(Battle.objects.get(pk=battle.id)),
            ),
        )


class BattleActionApi(APIView):
    """Perform a battle action. The body holds the action's parameters and, optionally, the
    dice rolled at the table (``dice``: faces in the order the rules use them); without them
    the server rolls in a resolution job (202)."""

    @extend_schema(responses=dict)
    def get(self, request: Request, battle_id: uuid.UUID, action: str) -> Response:
        """The dice prompt: every die the action asks the table for, in order, with its purpose
        and whom it is for; parameters in the query string, ``?dice=3,5`` the faces so far."""
        campaign, battle = _battle(request, battle_id, umpire=True)
        return dice_prompt(
            request,
            actions.action_command(campaign.ruleset, action),
            campaign_id=campaign.id,
            params=query_params(request, battle_id=battle.id),
        )

    @extend_schema(request=dict, responses={201: dict, 202: JobSerializer})
    def post(self, request: Request, battle_id: uuid.UUID, action: str) -> Response:
        campaign, battle = _battle(request, battle_id, umpire=True)
        return execute(
            request,
            actions.action_command(campaign.ruleset, action),
            campaign_id=campaign.id,
            params=params_of(body_of(request), battle_id=battle.id),
            dice=dice_of(body_of(request)),
        )


class BattleLogApi(APIView):
    """The battle told in order and in plain words, with the dice behind each line."""

    @extend_schema(responses=dict)
    def get(self, request: Request, battle_id: uuid.UUID) -> Response:
        campaign, battle = _battle(request, battle_id)
        judge = Judge(reader_get(user=request.user, campaign_id=campaign.id))
        return Response({"battle": battle.name, "log": selectors.battle_log(battle.id, judge)})
