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
