"""A held campaign lock turns a write into a 503 with Retry-After once ``lock_timeout`` runs out,
on PostgreSQL with real threads (docs/adr/0012-operations-defaults-and-observability.md)."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, connections, transaction
from rest_framework.test import APIClient

from eventlog import store
from eventlog.models import Event
from tests.factories import campaign_for

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

TEST_LOCK_TIMEOUT_MS = 400


def test_every_connection_has_the_configured_timeouts():
    connections.close_all()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name, setting FROM pg_settings "
            "WHERE name IN ('lock_timeout', 'statement_timeout') ORDER BY name"
        )
        found = dict(cursor.fetchall())
    assert found == {
        "lock_timeout": os.environ.get("DB_LOCK_TIMEOUT_MS", "5000"),
        "statement_timeout": os.environ.get("DB_STATEMENT_TIMEOUT_MS", "15000"),
    }


def test_a_write_behind_a_held_campaign_lock_is_a_503_with_retry_after(umpire, monkeypatch):
    campaign = campaign_for(umpire)
    client = APIClient()
    client.force_authenticate(umpire)
    # Load the URLs and views here, not first in the writer's thread.
    assert client.get(f"/api/v1/campaigns/{campaign.id}/").status_code == 200
    # New connections (the writer's thread opens one) wait this long for a lock, not 5 s.
    options = settings.DATABASES["default"]["OPTIONS"]
    monkeypatch.setitem(
        options, "options", f"{options['options']} -c lock_timeout={TEST_LOCK_TIMEOUT_MS}"
    )
    held, release = threading.Event(), threading.Event()

    def hold_the_lock() -> None:
        try:
            with transaction.atomic():
                store.lock_campaign(campaign.id)
                held.set()
                release.wait(30)
        finally:
            connection.close()

    answer: dict[str, Any] = {}

    def write() -> None:
        try:
            client = APIClient()
            client.force_authenticate(umpire)
            started = time.monotonic()
            answer["response"] = client.post(
                f"/api/v1/campaigns/{campaign.id}/dice/",
                {"die": 6, "purpose": "blocked", "results": [2]},
                format="json",
            )
            answer["seconds"] = time.monotonic() - started
        finally:
            connection.close()

    holder = threading.Thread(target=hold_the_lock)
    holder.start()
    try:
        assert held.wait(10), "the lock holder did not start"
        writer = threading.Thread(target=write)
        writer.start()
        writer.join(30)
        assert not writer.is_alive(), "the write waited for ever"
    finally:
        release.set()
        holder.join(30)

    response = answer["response"]
    assert response.status_code == 503, response.content
    assert response["Retry-After"] == str(settings.DB_BUSY_RETRY_AFTER)
    body = response.json()
    assert body["code"] == "database.lock_timeout"
    assert body["field"] is None
    assert "canceling statement" not in body["message"]
    assert answer["seconds"] >= TEST_LOCK_TIMEOUT_MS / 1000
    assert not Event.objects.filter(campaign_id=campaign.id, type="campaigns.DiceRolled").exists()

    # The lock released, the same write goes through.
    again = client.post(
        f"/api/v1/campaigns/{campaign.id}/dice/",
        {"die": 6, "purpose": "blocked", "results": [2]},
        format="json",
    )
    assert again.status_code == 201
