"""Roster writes run as commands: each leaves its record, answers a repeated Idempotency-Key
with the first response, checks a client's expected version, and a replacement roll waiting
for the server's dice holds the platoon's next one back."""

from __future__ import annotations

import pytest

from eventlog import store
from eventlog.errors import StateConflict
from eventlog.models import CommandRecord, Job
from rosters import services
from rosters.models import Force, Trooper, Unit
from rosters.replacements import replacements_request
from tests.rosters.conftest import PLATOON, find_unit

pytestmark = pytest.mark.django_db


def test_a_force_import_is_recorded_as_its_command(platoon, campaign):
    record = CommandRecord.objects.get(campaign_id=campaign.id, name="rosters.force_import")
    assert record.response_status == 201
    assert record.response_body is not None
    assert record.response_body["id"] == platoon["id"]
    assert record.params["force"]["name"] == "3rd Platoon"
    assert record.params["source"] == "platoon.yaml"


def test_a_repeated_idempotency_key_replays_the_adjustment(platoon, umpire_api, campaign):
    second = find_unit(platoon, "2nd Squad")
    url = f"/api/v1/units/{second['id']}/quality/"
    body = {"quality": "regular", "reason": "held the bridge"}
    first = umpire_api.post(url, body, **{"Idempotency-Key": "quality-1"})
    assert first.status_code == 201, first.json()
    after = store.last_sequence(campaign.id)
    again = umpire_api.post(url, body, **{"Idempotency-Key": "quality-1"})
    assert (again.status_code, again.json()) == (201, first.json())
    assert again["Idempotent-Replayed"] == "true"
    assert store.last_sequence(campaign.id) == after


def test_an_adjustment_on_a_unit_changed_since_it_was_read_conflicts(platoon, umpire_api, campaign):
    second = find_unit(platoon, "2nd Squad")
    url = f"/api/v1/units/{second['id']}/"
    read = store.stream_version(campaign.id, f"unit:{second['id']}")
    changed = umpire_api.post(f"{url}quality/", {"quality": "regular", "reason": "blooded"})
    assert changed.status_code == 201, changed.json()
    before = store.last_sequence(campaign.id)
    stale = umpire_api.post(
        f"{url}leadership/", {"leadership": 2, "reason": "new sergeant", "expected_version": read}
    )
    assert (stale.status_code, stale.json()["code"]) == (409, "event.version_conflict")
    assert store.last_sequence(campaign.id) == before


def test_the_service_functions_run_the_same_commands(platoon, campaign, umpire):
    squad = Unit.objects.get(id=find_unit(platoon, "1st Squad")["id"])
    event = services.unit_move(campaign=campaign, unit=squad, to="safe_area", actor=umpire)
    assert (event.type, event.payload["to"]) == ("rosters.UnitMoved", "safe_area")
    assert CommandRecord.objects.filter(name="rosters.unit_move").count() == 1
    force = services.force_import_text(
        campaign=campaign, text=PLATOON.replace("3rd", "4th"), source="4th.yaml", actor=umpire
    )
    assert Force.objects.filter(campaign_id=campaign.id).count() == 2
    assert force.name == "4th Platoon"


def test_a_roll_waiting_for_the_server_holds_the_next_one_back(platoon, campaign, umpire):
    squad = Unit.objects.get(id=find_unit(platoon, "1st Squad")["id"])
    services.unit_move(campaign=campaign, unit=squad, to="safe_area", actor=umpire)
    platoon_unit = Unit.objects.get(id=find_unit(platoon, "3rd Platoon")["id"])
    # Outside a request no commit callback runs here, so the job stays pending.
    outcome = replacements_request(campaign=campaign, platoon=platoon_unit, dice=None, actor=umpire)
    assert (outcome.status, outcome.events) == (202, [])
    assert outcome.job is not None
    assert Job.objects.get(pk=outcome.job.pk).status == Job.Status.PENDING
    with pytest.raises(StateConflict) as refused:
        replacements_request(campaign=campaign, platoon=platoon_unit, dice=[3], actor=umpire)
    assert (refused.value.code, refused.value.field) == ("replacements.in_flight", "unit")


def test_renaming_a_trooper_through_the_service_function(platoon, campaign, umpire):
    """The function's own keyword ``name`` once clashed with the command's name: a crash."""
    trooper = Trooper.objects.filter(unit_id=find_unit(platoon, "1st Squad")["id"]).first()
    assert trooper is not None
    event = services.trooper_rename(
        campaign=campaign, trooper=trooper, name="Cpl Hicks", reason="promoted", actor=umpire
    )
    assert (event.type, event.payload["name"]) == ("rosters.TrooperRenamed", "Cpl Hicks")
    assert Trooper.objects.get(pk=trooper.pk).name == "Cpl Hicks"
