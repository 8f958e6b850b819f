"""Reads for campaigns: who is a member in which role, and the read models behind the API.
What each member may see is decided in one place, ``campaigns.visibility``."""

from __future__ import annotations

import uuid

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet

from campaigns.models import Campaign, CampaignHistoryEntry, Invitation, Membership
from eventlog.errors import NotFound, PermissionDenied


def campaigns_for_user(user: AbstractBaseUser) -> QuerySet[Campaign]:
    member_of = Membership.objects.filter(user_id=user.pk).values("campaign_id")
    return Campaign.objects.filter(id__in=member_of)


def membership_get(*, user: AbstractBaseUser | AnonymousUser, campaign_id: uuid.UUID) -> Membership:
    """The user's membership of the campaign; anyone who is not a member is told it does not
    exist, so campaign ids leak nothing."""
    membership = None
    if user.is_authenticated:
        membership = Membership.objects.filter(campaign_id=campaign_id, user_id=user.pk).first()
    if membership is None:
        raise NotFound("campaign.not_found", "No such campaign.")
    return membership


def campaign_get(*, user: AbstractBaseUser | AnonymousUser, campaign_id: uuid.UUID) -> Campaign:
    membership_get(user=user, campaign_id=campaign_id)
    return Campaign.objects.get(id=campaign_id)


def require_umpire(*, user: AbstractBaseUser | AnonymousUser, campaign_id: uuid.UUID) -> Membership:
    membership = membership_get(user=user, campaign_id=campaign_id)
    if membership.role != Membership.Role.UMPIRE:
        raise PermissionDenied("campaign.umpire_only", "Only the campaign's umpire may do this.")
    return membership


def require_reader(*, user: AbstractBaseUser | AnonymousUser, campaign_id: uuid.UUID) -> Membership:
    """Any member may read a campaign: umpires, players and observers."""
    return membership_get(user=user, campaign_id=campaign_id)


def members_list(*, campaign_id: uuid.UUID) -> QuerySet[Membership]:
    return Membership.objects.filter(campaign_id=campaign_id).order_by("joined_at", "user_id")


def member_get(*, campaign_id: uuid.UUID, user_id: int) -> Membership:
    membership = Membership.objects.filter(campaign_id=campaign_id, user_id=user_id).first()
    if membership is None:
        raise NotFound(
            "member.not_found", "That user is not a member of this campaign.", field="user_id"
        )
    return membership


def history_list(*, campaign_id: uuid.UUID) -> QuerySet[CampaignHistoryEntry]:
    return CampaignHistoryEntry.objects.filter(campaign_id=campaign_id).order_by("sequence")


def invitations_of_campaign(*, campaign_id: uuid.UUID) -> QuerySet[Invitation]:
    """Every invitation to the campaign, answered or not, oldest first."""
    return Invitation.objects.filter(campaign_id=campaign_id).order_by("invited_at", "id")


def invitations_for_user(*, user: AbstractBaseUser | AnonymousUser) -> QuerySet[Invitation]:
    """The invitations waiting for the user's answer, oldest first."""
    if not user.is_authenticated:
        return Invitation.objects.none()
    return Invitation.objects.filter(
        username=user.get_username(), status=Invitation.Status.PENDING
    ).order_by("invited_at", "id")


def invitation_for_invitee(
    *, user: AbstractBaseUser | AnonymousUser, invitation_id: uuid.UUID
) -> Invitation:
    """An invitation addressed to the user, answered or not; anyone else's is not found."""
    invitation = None
    if user.is_authenticated:
        invitation = Invitation.objects.filter(
            pk=invitation_id, username=user.get_username()
        ).first()
    if invitation is None:
        raise NotFound("invitation.not_found", "You have no such invitation.")
    return invitation
