"""Fixtures of the webhook tests: a campaign, a receiver on 127.0.0.1, and a webhook to it."""

from __future__ import annotations

import pytest

# The live worker and beat processes of the services pass, shared with tests/integration.
from tests.integration.conftest import broker, celery_processes  # noqa: F401
from tests.webhooks.receiver import Receiver, running


@pytest.fixture
def local_receivers(settings):
    """The tests' receivers listen on 127.0.0.1, which production refuses."""
    settings.MUSTER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True


@pytest.fixture
def receiver(local_receivers):
    with running(Receiver()) as started:
        yield started


@pytest.fixture
def campaign(umpire_api):
    return umpire_api.post("/api/v1/campaigns/", {"name": "Kessler Ridge"}).json()


@pytest.fixture
def webhooks_url(campaign):
    return f"/api/v1/campaigns/{campaign['id']}/webhooks/"


@pytest.fixture
def register(umpire_api, webhooks_url, receiver):
    """Register a webhook to the receiver (which learns its secret); returns it as created."""

    def make(**body):
        response = umpire_api.post(webhooks_url, {"url": receiver.url, **body})
        assert response.status_code == 201, response.json()
        receiver.secret = response.json()["secret"]
        return response.json()

    return make


def note(umpire_api, campaign, text: str) -> dict:
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign['id']}/events/",
        {"type": "campaigns.NoteRecorded", "payload": {"text": text}},
    )
    assert response.status_code == 201, response.json()
    return response.json()
