"""Safe defaults: a busy database answers 503 with Retry-After, probes split into liveness and
readiness with no exception text for anonymous callers, and a Content-Security-Policy
(docs/adr/0012-operations-defaults-and-observability.md)."""

from __future__ import annotations

import time
from typing import Any

import psycopg.errors
import pytest
from django.db import OperationalError, connection

from eventlog import store
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

SECRET_DETAIL = "connection to server at db-7.internal.example (10.0.3.7) failed"


def give_up(error: type[psycopg.errors.Error], message: str):
    """A stand-in for the campaign lock that fails as PostgreSQL does when a timeout expires."""

    def lock_campaign(campaign_id: Any) -> None:
        raise OperationalError(message) from error(message)

    return lock_campaign


@pytest.mark.parametrize(
    ("error", "message", "code"),
    [
        (psycopg.errors.LockNotAvailable, "canceling statement due to lock timeout", "lock"),
        (psycopg.errors.QueryCanceled, "canceling statement due to statement timeout", "statement"),
    ],
)
def test_a_database_timeout_in_the_api_is_a_503_with_retry_after(
    umpire_api, umpire, monkeypatch, settings, error, message, code
):
    settings.DB_BUSY_RETRY_AFTER = 7
    campaign = campaign_for(umpire)
    monkeypatch.setattr(store, "lock_campaign", give_up(error, message))
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/dice/", {"die": 6, "purpose": "x", "results": [3]}
    )
    assert response.status_code == 503
    assert response["Retry-After"] == "7"
    body = response.json()
    assert body["code"] == f"database.{code}_timeout"
    assert body["field"] is None
    assert "try again in 7 s" in body["message"]
    assert message not in body["message"]


def test_a_database_timeout_in_a_page_is_a_503_with_retry_after(client, umpire, monkeypatch):
    campaign = campaign_for(umpire)
    client.force_login(umpire)
    monkeypatch.setattr(
        store,
        "lock_campaign",
        give_up(psycopg.errors.LockNotAvailable, "canceling statement due to lock timeout"),
    )
    response = client.post(f"/campaigns/{campaign.id}/calendar/", {"days": 1})
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json()["code"] == "database.lock_timeout"


def test_other_database_errors_are_not_mistaken_for_a_busy_database(
    umpire_api, umpire, monkeypatch
):
    campaign = campaign_for(umpire)
    monkeypatch.setattr(
        store, "lock_campaign", give_up(psycopg.errors.UndefinedTable, "no such table")
    )
    umpire_api.client.raise_request_exception = False
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/dice/", {"die": 6, "purpose": "x", "results": [3]}
    )
    assert response.status_code == 500
    assert "Retry-After" not in response


def test_liveness_asks_nothing_of_the_database(client, monkeypatch):
    monkeypatch.setattr("config.health.connection", BrokenConnection())
    response = client.get("/livez")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


class BrokenConnection:
    vendor = "postgresql"

    def cursor(self):
        raise OperationalError(SECRET_DETAIL)


class FakeRedis:
    def __init__(self, *, up: bool = True, heartbeats: dict[str, float] | None = None) -> None:
        self.up = up
        self.heartbeats = heartbeats or {}

    def ping(self) -> bool:
        if not self.up:
            raise ConnectionError(f"Error 111 connecting to {SECRET_DETAIL}")
        return True

    def scan_iter(self, pattern: str):
        return [f"muster:worker-heartbeat:{name}".encode() for name in self.heartbeats]

    def get(self, key: bytes) -> str:
        return str(self.heartbeats[key.decode().removeprefix("muster:worker-heartbeat:")])


@pytest.fixture
def with_broker(settings, monkeypatch):
    """Readiness as it is with a broker configured, talking to a fake Redis."""
    settings.CELERY_TASK_ALWAYS_EAGER = False

    def use(redis: FakeRedis) -> None:
        monkeypatch.setattr("config.health.redis_client", lambda: redis)

    return use


@pytest.mark.parametrize("path", ["/readyz", "/healthz"])
def test_readiness_is_503_without_the_database_and_tells_anonymous_callers_no_more(
    client, monkeypatch, with_broker, path
):
    with_broker(FakeRedis(heartbeats={"worker@host": time.time()}))
    monkeypatch.setattr("config.health.connection", BrokenConnection())
    response = client.get(path)
    assert response.status_code == 503
    assert response.json() == {
        "status": "unavailable",
        "database": {"ok": False},
        "broker": {"ok": True},
        "workers": {"ok": True},
    }
    assert b"db-7" not in response.content
    assert response["Cache-Control"].startswith("max-age=0")


def test_readiness_is_503_without_the_broker(client, with_broker):
    with_broker(FakeRedis(up=False))
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["broker"] == {"ok": False}
    assert b"db-7" not in response.content


def test_without_workers_the_web_stays_ready_and_says_degraded(client, with_broker):
    """Only the workers are down: reads and commands still work and jobs wait in the queue, so
    the web container must not be taken out of service."""
    with_broker(FakeRedis(heartbeats={}))
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "degraded",
        "database": {"ok": True},
        "broker": {"ok": True},
        "workers": {"ok": False},
    }


def test_staff_and_the_metrics_token_see_what_went_wrong(
    client, make_user, monkeypatch, settings, with_broker
):
    with_broker(FakeRedis(up=False))
    settings.METRICS_TOKEN = "scrape-secret-0123456789"
    token = client.get("/readyz", headers={"Authorization": "Bearer scrape-secret-0123456789"})
    assert SECRET_DETAIL in token.json()["broker"]["error"]
    assert token.json()["database"]["vendor"] == connection.vendor

    client.force_login(make_user("operator", is_staff=True))
    staff = client.get("/readyz")
    assert SECRET_DETAIL in staff.json()["broker"]["error"]

    client.force_login(make_user("player"))
    assert staff.status_code == 503
    assert b"db-7" not in client.get("/readyz").content


def test_pages_and_api_docs_carry_a_content_security_policy_and_no_inline_script(client):
    for path in ("/login/", "/api/v1/docs/"):
        response = client.get(path)
        assert response.status_code == 200
        policy = response["Content-Security-Policy"]
        assert "script-src 'self'" in policy
        assert "frame-ancestors 'none'" in policy
        assert b"<script>" not in response.content, path
