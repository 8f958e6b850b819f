"""Campaign members over HTTP: who plays, umpires or watches, and clients of the API."""

from __future__ import annotations

import uuid

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns import selectors, services
from campaigns.models import Campaign, Membership

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
    reason = serializers.CharField(max_length=services.MAX_REASON_LENGTH)


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
        event = services.member_add(
            campaign=Campaign.objects.get(pk=campaign_id),
            username=body.validated_data["username"],
            role=body.validated_data["role"],
            force_ids=body.validated_data["force_ids"],
            actor=request.user,
        )
        return Response(
            _member_json(campaign_id, event.payload["user_id"]), status=status.HTTP_201_CREATED
        )


class CampaignMemberDetailApi(APIView):
    """One member: the umpire changes their role or forces, or removes them with a reason."""

    @extend_schema(request=MemberChangeSerializer, responses=MemberOutputSerializer)
    def patch(self, request: Request, campaign_id: uuid.UUID, user_id: int) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        body = MemberChangeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        services.member_change(
            campaign=Campaign.objects.get(pk=campaign_id),
            user_id=user_id,
            role=body.validated_data.get("role"),
            force_ids=body.validated_data.get("force_ids"),
            actor=request.user,
        )
        return Response(_member_json(campaign_id, user_id))

    @extend_schema(
        request=MemberRemoveSerializer,
        parameters=[OpenApiParameter("reason", str, description="Or give it in the body.")],
        responses={204: None},
    )
    def delete(self, request: Request, campaign_id: uuid.UUID, user_id: int) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        given = request.data if request.data else request.query_params
        body = MemberRemoveSerializer(data={"reason": given.get("reason", "")})
        body.is_valid(raise_exception=True)
        services.member_remove(
            campaign=Campaign.objects.get(pk=campaign_id),
            user_id=user_id,
            reason=body.validated_data["reason"],
            actor=request.user,
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class CampaignApiClientsApi(APIView):
    """Create a client of the API (a bot, a script) that acts as a member of the campaign."""

    @extend_schema(request=ApiClientInputSerializer, responses={201: ApiClientOutputSerializer})
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        body = ApiClientInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user, token = services.api_client_create(
            campaign=Campaign.objects.get(pk=campaign_id),
            name=body.validated_data["name"],
            role=body.validated_data["role"],
            force_ids=body.validated_data["force_ids"],
            actor=request.user,
        )
        return Response(
            ApiClientOutputSerializer(
                {
                    "username": user.get_username(),
                    "token": token,
                    "role": body.validated_data["role"],
                }
            ).data,
            status=status.HTTP_201_CREATED,
        )
