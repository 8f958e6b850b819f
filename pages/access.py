"""Who may see a page: members of the campaign; anyone else gets a 404, as in the API."""

from __future__ import annotations

import uuid

from django.contrib.auth.base_user import AbstractBaseUser
from django.http import Http404, HttpRequest

from campaigns.models import Campaign, Membership
from campaigns.selectors import membership_get
from eventlog.errors import NotFound


def member(request: HttpRequest, campaign_id: uuid.UUID) -> tuple[Campaign, Membership]:
    try:
        membership = membership_get(user=request.user, campaign_id=campaign_id)
    except NotFound:
        raise Http404("No such campaign.") from None
    return Campaign.objects.get(pk=campaign_id), membership


def signed_in_user(request: HttpRequest) -> AbstractBaseUser:
    """The user of a view behind ``@login_required``."""
    user = request.user
    assert user.is_authenticated, "the view is behind @login_required"
    return user


def is_umpire(membership: Membership) -> bool:
    return membership.role == Membership.Role.UMPIRE
