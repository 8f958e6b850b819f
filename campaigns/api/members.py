"""Campaign members over HTTP: who plays, umpires or watches, and clients of the API."""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns import selectors
from campaigns.common import MAX_REASON_LENGTH
from campaigns.members import ApiClientCreate, MemberAdd, MemberChange, MemberRemove
from campaigns.models import Membership
from eventlog.api.commands import body_of, execute
from eventlog.commands import Outcome

ROLES = [role.value for role in Membership.Role]


class MemberOutputSerializer(serializers.Serializer):
    user_id = serializers.IntegerField()
    username = serializers.CharField()
    role = serializers.ChoiceField(choices=ROLES)
    force_ids = serializers.ListField(child=serializers.UUIDField())
    joined_at = serializers.DateTimeField()


class MemberInputSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(choices=ROLES)
    force_ids = serializers.ListField(
        child=serializers.UUIDField(),
        required=False,
        default=list,
        help_text="The forces a player commands; umpires and observers have none.",
    )


class MemberChangeSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=ROLES, required=False)
    force_ids = serializers.ListField(
        child=serializers.UUIDField(),
        required=False,
        help_text="Left out: a player keeps their forces; anyone else has none.",
    )


class MemberRemoveSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=MAX_REASON_LENGTH)


class ApiClientInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=140)
    role = serializers.ChoiceField(choices=ROLES, default=Membership.Role.OBSERVER.value)
    force_ids = serializers.ListField(child=serializers.UUIDField(), required=False, default=list)


class ApiClientOutputSerializer(serializers.Serializer):
    username = serializers.CharField()
    token = serializers.CharField(help_text="Shown only in this response: keep it safe.")
    role = serializers.CharField()


def _member_json(campaign_id: uuid.UUID, user_id: int) -> dict:
    return MemberOutputSerializer(
        selectors.member_get(campaign_id=campaign_id, user_id=user_id)
    ).data


class CampaignMembersApi(APIView):
    """The campaign's members; the umpire adds users as umpires, players or observers."""

    @extend_schema(responses=MemberOutputSerializer(many=True))
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        selectors.require_reader(user=request.user, campaign_id=campaign_id)
        members = selectors.members_list(campaign_id=campaign_id)
        return Response(MemberOutputSerializer(members, many=True).data)

    @extend_schema(request=MemberInputSerializer, responses={201: MemberOutputSerializer})
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        body = MemberInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return execute(
            request,
            MemberAdd.name,
            campaign_id=campaign_id,
            params=body.validated_data,
            respond=lambda outcome: (
                status.HTTP_201_CREATED,
                _member_json(campaign_id, outcome.events[0].payload["user_id"]),
            ),
        )


class CampaignMemberDetailApi(APIView):
    """One member: the umpire changes their role or forces, or removes them with a reason."""

    @extend_schema(request=MemberChangeSerializer, responses=MemberOutputSerializer)
    def patch(self, request: Request, campaign_id: uuid.UUID, user_id: int) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        body = MemberChangeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return execute(
            request,
            MemberChange.name,
            campaign_id=campaign_id,
            params={**body.validated_data, "user_id": user_id},
            respond=lambda outcome: (status.HTTP_200_OK, _member_json(campaign_id, user_id)),
        )

    @extend_schema(
        request=MemberRemoveSerializer,
        parameters=[OpenApiParameter("reason", str, description="Or give it in the body.")],
        responses={204: None},
    )
    def delete(self, request: Request, campaign_id: uuid.UUID, user_id: int) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        given = body_of(request) or request.query_params
        body = MemberRemoveSerializer(data={"reason": given.get("reason", "")})
        body.is_valid(raise_exception=True)
        return execute(
            request,
            MemberRemove.name,
            campaign_id=campaign_id,
            params={"user_id": user_id, "reason": body.validated_data["reason"]},
            respond=lambda outcome: (status.HTTP_204_NO_CONTENT, None),
        )


class CampaignApiClientsApi(APIView):
    """Create a client of the API (a bot, a script) that acts as a member of the campaign."""

    @extend_schema(request=ApiClientInputSerializer, responses={201: ApiClientOutputSerializer})
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        body = ApiClientInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return execute(
            request,
            ApiClientCreate.name,
            campaign_id=campaign_id,
            params=body.validated_data,
            respond=_api_client_created,
        )


def _api_client_created(outcome: Outcome) -> tuple[int, Any]:
    # The token is in the command's recorded response, so that a request repeated with the
    # same Idempotency-Key (its answer lost on the way) gets the same client back.
    (added,) = outcome.events
    _, token = outcome.result
    body = ApiClientOutputSerializer(
        {"username": added.payload["username"], "token": token, "role": added.payload["role"]}
    ).data
    return status.HTTP_201_CREATED, body
