"""Reads kept under the log position (ADR 27) while others append, on PostgreSQL with real
threads: a writer always reads back what it has just written, and once the appends stop every
reader is served the last state, never an answer kept from before an append."""

from __future__ import annotations

import pytest

from rosters import services as rosters
from rosters.models import Unit
from tests.factories import campaign_for
from tests.integration.conftest import run_threads
from tests.integration.test_command_concurrency import client_for
from tests.rosters.conftest import PLATOON

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

CHANGES = 8
# Each writer moves its own squad between two qualities, starting from the roster's.
SWINGS = {"1st Squad": ("regular", "veteran"), "2nd Squad": ("regular", "green")}


def test_reads_kept_while_others_append_are_never_older_than_the_reader_knows(umpire):
    campaign = campaign_for(umpire, name="Busy night")
    rosters.force_import_text(campaign=campaign, text=PLATOON, source="platoon.yaml", actor=umpire)
    units = {name: Unit.objects.get(campaign_id=campaign.id, name=name) for name in SWINGS}
    writers = list(SWINGS)
    finished: list[str] = []

    def work(index: int) -> None:
        client = client_for(umpire)
        if index < len(writers):
            name = writers[index]
            url = f"/api/v1/units/{units[name].id}/"
            try:
                for change in range(CHANGES):
                    quality = SWINGS[name][change % 2]
                    response = client.post(
                        f"{url}quality/", {"quality": quality, "reason": "drill"}, format="json"
                    )
                    assert response.status_code in (200, 201), response.json()
                    assert client.get(url).json()["quality"] == quality
            finally:
                finished.append(name)
            return
        while len(finished) < len(writers):
            for unit in units.values():
                assert client.get(f"/api/v1/units/{unit.id}/").status_code == 200

    assert run_threads(work, 6) == []
    for name, unit in units.items():
        last = SWINGS[name][(CHANGES - 1) % 2]
        for _ in range(2):  # rendered, then kept
            answer = client_for(umpire).get(f"/api/v1/units/{unit.id}/").json()
            assert answer["quality"] == last
        history = client_for(umpire).get(f"/api/v1/units/{unit.id}/history/?limit=100").json()
        assert sum("quality" in line["changes"] for line in history["results"]) == CHANGES
