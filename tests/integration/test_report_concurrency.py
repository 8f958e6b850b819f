"""Two umpires decide the same point of a battle report at once, on PostgreSQL with real
threads: one decision is recorded, with one casualty event; every other request is refused and
appends nothing."""

from __future__ import annotations

from collections import Counter

import pytest
from django.db import connection

from battles import services
from battles.models import Participant
from battles.reports.commands import battle_report_file
from eventlog import store
from rosters.models import Trooper
from tests.integration.conftest import run_threads
from tests.integration.test_command_concurrency import (  # noqa: F401  (fixture)
    THREADS,
    client_for,
    fighting,
)

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_point_decided_by_many_umpires_at_once_is_decided_once(fighting, umpire):  # noqa: F811
    campaign, battle, squads = fighting
    battle = services.battle_end(campaign=campaign, battle=battle, winner="Blue", actor=umpire)
    trooper = Trooper.objects.filter(unit_id=squads[0].id).order_by("order").first()
    assert trooper is not None
    side = Participant.objects.get(battle_id=battle.id, unit_id=squads[0].id).side
    report_id = battle_report_file(
        battle=battle,
        side=side,
        troopers=[{"trooper_id": str(trooper.id), "status": "killed"}],
        objectives=[],
        notes="",
        actor=umpire,
    )
    before = store.last_sequence(campaign.id)
    codes: list[tuple[int, str | None]] = []

    body = {"point": f"trooper:{trooper.id}", "decision": "accept", "report_id": str(report_id)}

    def decide(_: int) -> None:
        try:
            response = client_for(umpire).post(
                f"/api/v1/battles/{battle.id}/reconciliation/", body, format="json"
            )
            refused = response.status_code >= 400
            codes.append((response.status_code, response.json().get("code") if refused else None))
        finally:
            connection.close()

    assert run_threads(decide, THREADS) == []
    assert Counter(codes) == Counter({(200, None): 1, (409, "report.point_decided"): THREADS - 1})
    appended = [e.type for e in store.read(campaign.id) if e.sequence > before]
    # The decision (hidden to the report's side) and the loss it brought, once.
    assert appended == [
        "campaigns.InformationHidden",
        "battles.ReportPointDecided",
        "battles.CasualtiesResolved",
    ]
    assert Trooper.objects.get(pk=trooper.pk).status == "dead"
