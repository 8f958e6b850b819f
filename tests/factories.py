"""Factories for the suite: campaigns are created through their service, as users do."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model

from campaigns import services


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.PostGenerationMethodCall("set_password", "correct horse battery")


def campaign_for(umpire, *, name: str = "Kessler Ridge", ruleset: str = "sg2", options=None):
    return services.campaign_create(name=name, ruleset=ruleset, options=options, actor=umpire)


def join_by_invitation(inviter_api, campaign_id, user, role: str, force_ids=()) -> dict:
    """Make ``user`` a member the only way there is, over HTTP: the umpire (``inviter_api``, an
    authenticated client) invites them and they accept with a token of their own. Returns the
    new member as the API shows them."""
    from rest_framework.test import APIClient

    from accounts.tokens import token_issue

    invited = inviter_api.post(
        f"/api/v1/campaigns/{campaign_id}/invitations/",
        {"username": user.get_username(), "role": role, "force_ids": [str(f) for f in force_ids]},
    )
    assert invited.status_code == 202, invited.json()
    invitee = APIClient()
    invitee.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=user, name='tests').secret}")
    accepted = invitee.post(f"/api/v1/invitations/{invited.json()['id']}/accept/")
    assert accepted.status_code == 201, accepted.json()
    return accepted.json()
