"""On PostgreSQL the statement a kept API read asks on every request (its token, with its
campaign's last sequence) is prepared after a few uses, not parsed and planned each time."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection
from rest_framework.test import APIClient

from accounts.tokens import token_issue
from eventlog import store
from rosters import services as rosters
from rosters.models import Unit
from tests.factories import campaign_for
from tests.rosters.conftest import PLATOON

pytestmark = [pytest.mark.services, pytest.mark.django_db]


def prepared_statements_on(table: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT statement FROM pg_prepared_statements WHERE statement LIKE %s",
            [f"%{table}%"],
        )
        return [row[0] for row in cursor.fetchall()]


def test_a_read_asked_again_and_again_runs_one_prepared_statement(umpire):
    campaign = campaign_for(umpire, name="Polling")
    rosters.force_import_text(campaign=campaign, text=PLATOON, source="platoon.yaml", actor=umpire)
    unit = Unit.objects.get(campaign_id=campaign.id, name="1st Squad")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=umpire, name='screen').secret}")

    for _ in range(8):
        response = client.get(f"/api/v1/units/{unit.id}/")
        assert response.status_code == 200
        assert response.json()["name"] == "1st Squad"

    # The first read learns the unit's campaign; every later one asks the token and the
    # campaign's last sequence in one statement.
    (statement,) = prepared_statements_on("accounts_apitoken")
    assert "(SELECT last_sequence FROM eventlog_campaignhead WHERE campaign_id = $1)" in statement
    assert "WHERE t.digest = $2" in statement


@pytest.mark.django_db(transaction=True)
def test_the_kept_cursor_follows_the_connection_when_it_is_opened_again(umpire):
    campaign = campaign_for(umpire, name="Reconnected")
    rosters.force_import_text(campaign=campaign, text=PLATOON, source="platoon.yaml", actor=umpire)
    last = store.last_sequence(campaign.id)
    assert last > 0
    # What CONN_MAX_AGE or a dropped connection does between two requests.
    connection.close()
    assert store.last_sequence(campaign.id) == last
    with pytest.raises(DatabaseError):
        store.hot_read_one("SELECT no_such_column FROM eventlog_campaignhead", [])
