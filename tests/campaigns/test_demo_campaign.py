"""The demo shows a newcomer the whole mission: the battles' casualties, medical treatment and a
casevac flight, replacements, rest and recovery, and a player's battle report reconciled
(demo/management/commands/demo.py)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from eventlog import store

pytestmark = pytest.mark.django_db


def test_the_demo_log_holds_every_part_of_the_mission(demo_campaign):
    kinds = {event.type for event in store.read(demo_campaign.id)}
    for expected in (
        "battles.CasualtiesResolved",
        "battles.CasualtiesTreated",
        "battles.CasevacCalled",
        "battles.CasevacArrived",
        "battles.CasevacLoaded",
        "battles.CasevacDeparted",
        "rosters.ReplacementsAssigned",
        "rosters.UnitRested",
        "battles.AfterActionResolved",
        "battles.BattleReportFiled",
        "battles.ReportPointDecided",
    ):
        assert expected in kinds, expected
    # Everyone flown out is off the table: evacuated for good, in hospital or back on duty.
    flown = [
        trooper
        for event in store.read(demo_campaign.id, types=["battles.CasevacLoaded"])
        for trooper in event.payload["trooper_ids"]
    ]
    assert flown


def test_the_demo_says_where_to_look(demo_campaign):
    out = io.StringIO()
    call_command("demo", "--url", "http://muster.test", stdout=out)
    text = out.getvalue()
    assert "Where to look:" in text
    assert "Casevac (call, arrival, loading, departure) and medical treatment: " in text
    assert "A player's battle report and the umpire's reconciliation: " in text
    assert f"http://muster.test/campaigns/{demo_campaign.id}/branches/" in text
