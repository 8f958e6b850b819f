"""Invitation links over HTTP (``campaigns.invitation_links``): the umpire makes one; whoever
holds it makes their account with it and joins, without logging in first."""

from __future__ import annotations

import uuid
from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns import selectors
from campaigns.api.members import ROLES
from campaigns.invitation_links import (
    DEFAULT_LINK_DAYS,
    MAX_LINK_DAYS,
    InvitationLinkIssue,
    IssuedLink,
    invitation_link_accept,
)
from campaigns.models import Invitation, Membership
from eventlog.api.commands import execute
from eventlog.commands import Outcome


class InvitationLinkInputSerializer(serializers.Serializer):
    role = serializers.ChoiceField(
        choices=ROLES, help_text="A player or an observer: another umpire is invited by username."
    )
    force_ids = serializers.ListField(
        child=serializers.UUIDField(),
        required=False,
        default=list,
        help_text="The forces the player commands; an observer has none.",
    )
    expires_in_days = serializers.IntegerField(
        required=False,
        default=DEFAULT_LINK_DAYS,
        help_text=f"How long the link works: 1 to {MAX_LINK_DAYS} days.",
    )


class InvitationLinkOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    role = serializers.ChoiceField(choices=ROLES)
    force_ids = serializers.ListField(child=serializers.UUIDField())
    expires_at = serializers.DateTimeField()
    secret = serializers.CharField(
        allow_null=True,
        help_text="Shown only in this response: the link is /join/{id}/{secret}/. Null when the "
        "request is repeated with its Idempotency-Key, since the secret is not kept: make a "
        "new link.",
    )
    path = serializers.CharField(
        allow_null=True, help_text="The page the invitee opens; null with the secret."
    )


class InvitationLinkAcceptSerializer(serializers.Serializer):
    secret = serializers.CharField(max_length=200)
    username = serializers.CharField(max_length=150, allow_blank=True)
    password = serializers.CharField(max_length=4096, allow_blank=True, trim_whitespace=False)


class JoinedOutputSerializer(serializers.Serializer):
    campaign_id = serializers.UUIDField()
    user_id = serializers.IntegerField()
    username = serializers.CharField()
    role = serializers.ChoiceField(choices=ROLES)
    force_ids = serializers.ListField(child=serializers.UUIDField())


def _link_json(invitation: Invitation, secret: str | None) -> dict[str, Any]:
    path = reverse("pages:join", args=[invitation.id, secret]) if secret else None
    return InvitationLinkOutputSerializer(
        {
            "id": invitation.id,
            "role": invitation.role,
            "force_ids": invitation.force_ids,
            "expires_at": invitation.expires_at,
            "secret": secret,
            "path": path,
        }
    ).data


class CampaignInvitationLinksApi(APIView):
    """The umpire makes an invitation link for a player (with forces) or an observer: it works
    once, until it expires, for someone without an account. Withdraw it as any invitation
    (``DELETE invitations/{id}/``)."""

    @extend_schema(
        request=InvitationLinkInputSerializer, responses={201: InvitationLinkOutputSerializer}
    )
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        body = InvitationLinkInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        issued: list[IssuedLink] = []

        def made(outcome: Outcome) -> tuple[int, Any]:
            # The recorded response (replayed for a repeated Idempotency-Key) must not hold the
            # secret, which is stored nowhere: it goes into this answer only.
            issued.append(outcome.result)
            invitation = Invitation.objects.get(pk=outcome.result.invitation_id)
            return status.HTTP_201_CREATED, _link_json(invitation, None)

        response = execute(
            request,
            InvitationLinkIssue.name,
            campaign_id=campaign_id,
            params=body.validated_data,
            respond=made,
        )
        if issued:
            invitation = Invitation.objects.get(pk=issued[0].invitation_id)
            response.data = _link_json(invitation, issued[0].secret)
        return response


class InvitationLinkAcceptApi(APIView):
    """Make an account with an invitation link and join its campaign: the username chosen, a
    password the password validators accept. No login: the link's secret is the credential.
    Then get a token with ``POST /auth/token/``."""

    # The secret is in the body: a stale token in a header must not refuse the request.
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(request=InvitationLinkAcceptSerializer, responses={201: JoinedOutputSerializer})
    def post(self, request: Request, invitation_id: uuid.UUID) -> Response:
        body = InvitationLinkAcceptSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user = invitation_link_accept(invitation_id=invitation_id, **body.validated_data)
        membership = Membership.objects.get(
            user_id=user.pk, campaign_id=Invitation.objects.get(pk=invitation_id).campaign_id
        )
        return Response(
            JoinedOutputSerializer(
                {
                    "campaign_id": membership.campaign_id,
                    "user_id": user.pk,
                    "username": user.get_username(),
                    "role": membership.role,
                    "force_ids": membership.force_ids,
                }
            ).data,
            status=status.HTTP_201_CREATED,
        )
