"""Fixtures shared by the whole suite."""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.core.cache import cache, caches
from rest_framework.test import APIClient

from accounts.tokens import token_issue
from config.celery import app as celery_app
from eventlog.api.read_cache import forget_streams
from tests.factories import join_by_invitation


def services_configured() -> bool:
    return settings.DATABASES["default"]["ENGINE"].endswith("postgresql") and bool(
        os.environ.get("CELERY_BROKER_URL")
    )


def pytest_collection_modifyitems(config, items):
    if services_configured():
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL and Redis (run `make test` with them up)")
    for item in items:
        if "services" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _celery_mode(request):
    """Jobs run eagerly in-process, except in integration tests, where a real worker runs them."""
    eager = "services" not in request.keywords
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = eager
    yield
    celery_app.conf.task_always_eager = previous


@pytest.fixture(autouse=True)
def _no_requests_counted_yet():
    """Throttles count requests in the cache: each test starts with none counted, and with no
    answer kept from another test's database (whose ids and sequences may be the same)."""
    cache.clear()
    caches["reads"].clear()
    forget_streams()
    yield
    cache.clear()
    caches["reads"].clear()
    forget_streams()


@pytest.fixture
def make_user(django_user_model):
    def make(username: str, **extra):
        return django_user_model.objects.create_user(
            username=username, password="correct horse battery", **extra
        )

    return make


@pytest.fixture
def umpire(make_user):
    return make_user("umpire")


@pytest.fixture
def stranger(make_user):
    return make_user("stranger")


class Api:
    """An HTTP client authenticated with a user's API token.

    Each request runs the callbacks the server registers for when its transaction commits (job
    dispatch), as a real request does before its response returns.
    """

    def __init__(self, client: APIClient, capture) -> None:
        self.client = client
        self._capture = capture

    def _call(self, method: str, path: str, data=None, **headers):
        with self._capture(execute=True):
            return getattr(self.client, method)(path, data=data, format="json", headers=headers)

    def get(self, path: str, data=None, **headers):
        with self._capture(execute=True):
            return self.client.get(path, data=data, headers=headers)

    def post(self, path: str, data=None, **headers):
        return self._call("post", path, data, **headers)

    def put(self, path: str, data=None, **headers):
        return self._call("put", path, data, **headers)

    def patch(self, path: str, data=None, **headers):
        return self._call("patch", path, data, **headers)

    def delete(self, path: str, data=None, **headers):
        return self._call("delete", path, data, **headers)

    def send(self, method: str, path: str, body: str, content_type: str = "application/json"):
        """A request with a body sent exactly as given, not encoded by the client."""
        with self._capture(execute=True):
            return self.client.generic(method.upper(), path, body, content_type=content_type)


@pytest.fixture
def api_for(django_capture_on_commit_callbacks):
    def make(user=None) -> Api:
        client = APIClient()
        if user is not None:
            issued = token_issue(user=user, name="tests")
            client.credentials(HTTP_AUTHORIZATION=f"Token {issued.secret}")
        return Api(client, django_capture_on_commit_callbacks)

    return make


@pytest.fixture
def join(umpire_api):
    """Make a user a member the only way there is: the umpire invites them, they accept
    (tests.factories.join_by_invitation). Returns the new member as the API shows them."""

    def member(campaign_id, user, role: str, force_ids=(), *, umpire=None) -> dict:
        return join_by_invitation(umpire or umpire_api, campaign_id, user, role, force_ids)

    return member


@pytest.fixture
def umpire_api(api_for, umpire):
    return api_for(umpire)


@pytest.fixture
def demo_campaign(monkeypatch, django_capture_on_commit_callbacks):
    """The demo campaign (``manage.py demo``), its jobs each run as its command's transaction
    commits, as they are outside a test's transaction."""
    import io

    from django.core.management import call_command

    from campaigns.models import Campaign
    from eventlog import commands

    run = commands.run

    def run_and_commit(*args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return run(*args, **kwargs)

    monkeypatch.setattr(commands, "run", run_and_commit)
    call_command("demo", stdout=io.StringIO())
    monkeypatch.setattr(commands, "run", run)
    return Campaign.objects.get()
