"""Campaign members over HTTP: who plays, umpires or watches; invitations to join and their
answers; and clients of the API."""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import ApiToken
from accounts.tokens import IssuedToken
from campaigns import selectors
from campaigns.archive_import import placeholders
from campaigns.common import MAX_REASON_LENGTH
from campaigns.members import (
    ApiClientCreate,
    InvitationAccept,
    InvitationDecline,
    InvitationWithdraw,
    MemberChange,
    MemberHandOver,
    MemberInvite,
    MemberRemove,
    api_client_token_reissue,
)
from campaigns.models import Campaign, Invitation, Membership
from eventlog.api.commands import body_of, execute
from eventlog.api.pagination import OFFSET_PAGE_PARAMETERS, offset_page, offset_page_of
from eventlog.commands import Outcome

ROLES = [role.value for role in Membership.Role]


class MemberOutputSerializer(serializers.Serializer):
    user_id = serializers.IntegerField()
    username = serializers.CharField()
    role = serializers.ChoiceField(choices=ROLES)
    force_ids = serializers.ListField(child=serializers.UUIDField())
    joined_at = serializers.DateTimeField()
    placeholder = serializers.SerializerMethodField(
        help_text="Imported from another installation where nobody here had the account: the "
        "umpire hands the place over (POST members/{user_id}/hand-over/)."
    )

    def get_placeholder(self, membership: Membership) -> bool:
        return bool(placeholders([membership.user_id]))


class InvitationInputSerializer(serializers.Serializer):
    username = serializers.CharField(
        max_length=150,
        help_text="Whom to invite. The answer is the same whether or not such a user exists.",
    )
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


class InvitationOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    username = serializers.CharField()
    role = serializers.ChoiceField(choices=ROLES)
    force_ids = serializers.ListField(child=serializers.UUIDField())
    status = serializers.ChoiceField(choices=Invitation.Status.values)
    invited_at = serializers.DateTimeField()
    answered_at = serializers.DateTimeField(allow_null=True)
    replaces_user_id = serializers.IntegerField(
        allow_null=True, help_text="The member whose place the invitee takes on accepting."
    )
    expires_at = serializers.DateTimeField(
        allow_null=True,
        help_text="When an invitation link stops working (its username is empty: the invitee "
        "chooses one); null for an invitation by username.",
    )


class MyInvitationOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    campaign_id = serializers.UUIDField()
    campaign_name = serializers.CharField()
    role = serializers.ChoiceField(choices=ROLES)
    force_ids = serializers.ListField(child=serializers.UUIDField())
    invited_by = serializers.CharField(help_text="The umpire who invited you.")
    invited_at = serializers.DateTimeField()


class ApiClientInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=140)
    role = serializers.ChoiceField(choices=ROLES, default=Membership.Role.OBSERVER.value)
    force_ids = serializers.ListField(child=serializers.UUIDField(), required=False, default=list)
    # Shadows Field.read_only for the type checker only: DRF moves declared fields off the class.
    read_only = serializers.BooleanField(  # type: ignore[assignment]
        default=True, help_text="The client's token only reads unless this is false."
    )
    expires_in_days = serializers.IntegerField(
        required=False, allow_null=True, default=None, help_text="The server's default: 30."
    )


class ApiClientTokenInputSerializer(serializers.Serializer):
    # Shadows Field.read_only for the type checker only: DRF moves declared fields off the class.
    read_only = serializers.BooleanField(default=True)  # type: ignore[assignment]
    expires_in_days = serializers.IntegerField(required=False, allow_null=True, default=None)


class ApiClientOutputSerializer(serializers.Serializer):
    user_id = serializers.IntegerField()
    username = serializers.CharField()
    token = serializers.CharField(
        allow_null=True,
        help_text="Shown only in this response: keep it safe. Null when the request is "
        "repeated with its Idempotency-Key, since the secret is not kept: issue a new token.",
    )
    # Shadows Field.read_only for the type checker only: DRF moves declared fields off the class.
    read_only = serializers.BooleanField()  # type: ignore[assignment]
    expires_at = serializers.DateTimeField()
    role = serializers.CharField()


def _member_json(campaign_id: uuid.UUID, user_id: int) -> dict:
    return MemberOutputSerializer(
        selectors.member_get(campaign_id=campaign_id, user_id=user_id)
    ).data


def _invite(request: Request, campaign_id: uuid.UUID) -> Response:
    selectors.require_umpire(user=request.user, campaign_id=campaign_id)
    body = InvitationInputSerializer(data=request.data)
    body.is_valid(raise_exception=True)
    return execute(
        request,
        MemberInvite.name,
        campaign_id=campaign_id,
        params=body.validated_data,
        # 202 whether or not the username is someone's: the invitation waits for an answer.
        respond=lambda outcome: (
            status.HTTP_202_ACCEPTED,
            InvitationOutputSerializer(Invitation.objects.get(pk=outcome.result)).data,
        ),
    )


class CampaignMembersApi(APIView):
    """The campaign's members. Nobody is added by name: ``POST`` here records an invitation,
    exactly as ``POST invitations/`` does, and the user joins by accepting it."""

    @extend_schema(
        parameters=OFFSET_PAGE_PARAMETERS, responses=offset_page_of(MemberOutputSerializer)
    )
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        selectors.require_reader(user=request.user, campaign_id=campaign_id)
        page = offset_page(request, selectors.members_list(campaign_id=campaign_id))
        page["results"] = MemberOutputSerializer(page["results"], many=True).data
        return Response(page)

    @extend_schema(request=InvitationInputSerializer, responses={202: InvitationOutputSerializer})
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        return _invite(request, campaign_id)


class CampaignInvitationsApi(APIView):
    """The umpire invites a username to join as umpire, player (with forces) or observer, and
    sees every invitation and its answer. Inviting answers 202 whether or not the user exists."""

    @extend_schema(
        parameters=OFFSET_PAGE_PARAMETERS, responses=offset_page_of(InvitationOutputSerializer)
    )
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        page = offset_page(request, selectors.invitations_of_campaign(campaign_id=campaign_id))
        page["results"] = InvitationOutputSerializer(page["results"], many=True).data
        return Response(page)

    @extend_schema(request=InvitationInputSerializer, responses={202: InvitationOutputSerializer})
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        return _invite(request, campaign_id)


class CampaignInvitationDetailApi(APIView):
    """The umpire withdraws an invitation nobody has answered."""

    @extend_schema(responses={204: None})
    def delete(
        self, request: Request, campaign_id: uuid.UUID, invitation_id: uuid.UUID
    ) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        return execute(
            request,
            InvitationWithdraw.name,
            campaign_id=campaign_id,
            params={"invitation_id": str(invitation_id)},
            respond=lambda outcome: (status.HTTP_204_NO_CONTENT, None),
        )


class MyInvitationsApi(APIView):
    """The invitations waiting for your answer, in every campaign."""

    @extend_schema(
        parameters=OFFSET_PAGE_PARAMETERS, responses=offset_page_of(MyInvitationOutputSerializer)
    )
    def get(self, request: Request) -> Response:
        invitations = list(selectors.invitations_for_user(user=request.user))
        campaigns = Campaign.objects.in_bulk({i.campaign_id for i in invitations})
        inviters: dict[tuple[uuid.UUID, int | None], str] = {
            (m.campaign_id, m.user_id): m.username
            for m in Membership.objects.filter(
                campaign_id__in=campaigns,
                user_id__in={i.invited_by_id for i in invitations},
            )
        }
        rows = [
            {
                "id": invitation.id,
                "campaign_id": invitation.campaign_id,
                "campaign_name": campaigns[invitation.campaign_id].name,
                "role": invitation.role,
                "force_ids": invitation.force_ids,
                "invited_by": inviters.get((invitation.campaign_id, invitation.invited_by_id), ""),
                "invited_at": invitation.invited_at,
            }
            for invitation in invitations
            if invitation.campaign_id in campaigns
        ]
        page = offset_page(request, rows)
        page["results"] = MyInvitationOutputSerializer(page["results"], many=True).data
        return Response(page)


class InvitationAcceptApi(APIView):
    """Accept an invitation addressed to you: you join the campaign with its role and forces."""

    @extend_schema(request=None, responses={201: MemberOutputSerializer})
    def post(self, request: Request, invitation_id: uuid.UUID) -> Response:
        invitation = selectors.invitation_for_invitee(
            user=request.user, invitation_id=invitation_id
        )
        campaign_id = invitation.campaign_id
        return execute(
            request,
            InvitationAccept.name,
            campaign_id=campaign_id,
            params={"invitation_id": str(invitation_id)},
            respond=lambda outcome: (
                status.HTTP_201_CREATED,
                _member_json(campaign_id, outcome.events[-1].payload["user_id"]),
            ),
        )


class InvitationDeclineApi(APIView):
    """Decline an invitation addressed to you."""

    @extend_schema(request=None, responses={204: None})
    def post(self, request: Request, invitation_id: uuid.UUID) -> Response:
        invitation = selectors.invitation_for_invitee(
            user=request.user, invitation_id=invitation_id
        )
        return execute(
            request,
            InvitationDecline.name,
            campaign_id=invitation.campaign_id,
            params={"invitation_id": str(invitation_id)},
            respond=lambda outcome: (status.HTTP_204_NO_CONTENT, None),
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


class MemberHandOverSerializer(serializers.Serializer):
    username = serializers.CharField(
        max_length=150,
        help_text="Who takes the place. The answer is the same whether or not such a user exists.",
    )


class CampaignMemberHandOverApi(APIView):
    """Invite a username to take a member's place, with their role and forces: when the
    invitation is accepted, the member leaves. How an umpire gives a placeholder of an imported
    campaign to its player."""

    @extend_schema(request=MemberHandOverSerializer, responses={202: InvitationOutputSerializer})
    def post(self, request: Request, campaign_id: uuid.UUID, user_id: int) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        body = MemberHandOverSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return execute(
            request,
            MemberHandOver.name,
            campaign_id=campaign_id,
            params={"user_id": user_id, "username": body.validated_data["username"]},
            respond=lambda outcome: (
                status.HTTP_202_ACCEPTED,
                InvitationOutputSerializer(Invitation.objects.get(pk=outcome.result)).data,
            ),
        )


class CampaignApiClientsApi(APIView):
    """Create a client of the API (a bot, a script) that acts as a member of the campaign, with
    a token that is read-only unless ``read_only`` is false."""

    @extend_schema(request=ApiClientInputSerializer, responses={201: ApiClientOutputSerializer})
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        body = ApiClientInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        secrets: list[str] = []

        def created(outcome: Outcome) -> tuple[int, Any]:
            # The command's recorded response (replayed for a repeated Idempotency-Key) must
            # not hold the secret, which is stored nowhere: it goes into this answer only.
            (added,) = outcome.events
            user_id, secret = outcome.result
            secrets.append(secret)
            token = ApiToken.objects.filter(user_id=user_id).latest("created_at")
            return status.HTTP_201_CREATED, _api_client_json(
                user_id, added.payload["username"], added.payload["role"], token, None
            )

        response = execute(
            request,
            ApiClientCreate.name,
            campaign_id=campaign_id,
            params=body.validated_data,
            respond=created,
        )
        if secrets:
            response.data = {**response.data, "token": secrets[0]}
        return response


class CampaignApiClientTokenApi(APIView):
    """A new token for one of the campaign's API clients; its other tokens stop working. How
    an umpire renews a client's token before it expires, or replaces one that leaked."""

    @extend_schema(
        request=ApiClientTokenInputSerializer, responses={201: ApiClientOutputSerializer}
    )
    def post(self, request: Request, campaign_id: uuid.UUID, user_id: int) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        body = ApiClientTokenInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user, issued = api_client_token_reissue(
            campaign_id=campaign_id, user_id=user_id, **body.validated_data
        )
        membership = selectors.member_get(campaign_id=campaign_id, user_id=user.pk)
        return Response(
            _api_client_json(user.pk, user.get_username(), membership.role, issued.token, issued),
            status=status.HTTP_201_CREATED,
        )


def _api_client_json(
    user_id: int, username: str, role: str, token: ApiToken, issued: IssuedToken | None
) -> dict[str, Any]:
    return ApiClientOutputSerializer(
        {
            "user_id": user_id,
            "username": username,
            "token": issued.secret if issued else None,
            "read_only": token.read_only,
            "expires_at": token.expires_at,
            "role": role,
        }
    ).data
