"""What every command gets from the runner, seen through battle actions over HTTP: idempotency
keys, expected versions, the command kept with its events, and jobs whose dice nobody can skip."""

from __future__ import annotations

import pytest

from eventlog import jobs, store
from eventlog.models import CommandRecord, Job
from tests.battles.conftest import squads

pytestmark = pytest.mark.django_db


@pytest.fixture
def blue(forces):
    return squads(forces["Blue"])


def reaction(battle, blue, **extra):
    return (
        f"/api/v1/battles/{battle['id']}/actions/reaction_test/",
        {"unit_id": str(blue[0].id), "threat_level": 2, **extra},
    )


def battle_events(campaign):
    return list(store.read(campaign.id, types=["battles.ReactionTested"]))


def test_the_same_idempotency_key_returns_the_first_answer_and_appends_once(
    umpire_api, campaign, battle, blue
):
    url, body = reaction(battle, blue, dice=[5])
    first = umpire_api.post(url, body, **{"Idempotency-Key": "shot-1"})
    again = umpire_api.post(url, body, **{"Idempotency-Key": "shot-1"})
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert len(battle_events(campaign)) == 1


def test_an_idempotency_key_reused_for_another_command_body_conflicts(
    umpire_api, campaign, battle, blue
):
    url, body = reaction(battle, blue, dice=[5])
    umpire_api.post(url, body, **{"Idempotency-Key": "shot-1"})
    response = umpire_api.post(url, {**body, "dice": [6]}, **{"Idempotency-Key": "shot-1"})
    assert response.status_code == 409
    assert response.json()["code"] == "idempotency.key_reused"
    assert len(battle_events(campaign)) == 1


def test_a_server_dice_request_replayed_answers_with_the_same_job(
    umpire_api, campaign, battle, blue
):
    url, body = reaction(battle, blue)
    first = umpire_api.post(url, body, **{"Idempotency-Key": "roll-it"})
    again = umpire_api.post(url, body, **{"Idempotency-Key": "roll-it"})
    assert (first.status_code, again.status_code) == (202, 202)
    assert again.json()["id"] == first.json()["id"]
    assert Job.objects.filter(campaign_id=campaign.id).count() == 1
    assert len(battle_events(campaign)) == 1


def test_expected_version_conflicts_exactly_when_the_stream_moved(
    umpire_api, campaign, battle, blue
):
    stream = f"battle:{battle['id']}"
    seen = store.stream_version(campaign.id, stream)
    url, body = reaction(battle, blue, dice=[5])
    assert umpire_api.post(url, {**body, "expected_version": seen}).status_code == 201
    stale = umpire_api.post(url, {**body, "expected_version": seen})
    assert stale.status_code == 409
    assert (stale.json()["code"], stale.json()["field"]) == (
        "event.version_conflict",
        "expected_version",
    )
    assert len(battle_events(campaign)) == 1


def test_a_client_key_shaped_like_a_job_cannot_make_the_job_skip_its_dice(
    umpire_api, campaign, battle, blue, django_capture_on_commit_callbacks
):
    url, body = reaction(battle, blue)
    with django_capture_on_commit_callbacks(execute=False):
        # The request's job is recorded but not yet run (its message is still on its way).
        accepted = umpire_api.client.post(url, body, format="json")
    job = Job.objects.get(pk=accepted.json()["id"])
    hijack = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/events/",
        {"type": "campaigns.NoteRecorded", "payload": {"text": "mine"}},
        **{"Idempotency-Key": f"job:{job.id}"},
    )
    assert hijack.status_code == 201
    jobs.run_job(job.id)
    job.refresh_from_db()
    assert job.status == "succeeded"
    (rolled,) = store.events_of_job(job.id)
    assert rolled.type == "battles.ReactionTested"
    assert [d["source"] for d in rolled.payload["dice"]] == ["server"]


def test_every_command_is_kept_with_its_name_parameters_dice_and_actor(
    umpire, umpire_api, campaign, battle, blue
):
    url, body = reaction(battle, blue, dice=[5])
    response = umpire_api.post(url, body)
    (event,) = battle_events(campaign)
    record = CommandRecord.objects.get(pk=event.metadata["command"])
    assert record.name == "battles.action.reaction_test"
    assert record.params == {
        "battle_id": battle["id"],
        "unit_id": str(blue[0].id),
        "circumstance": None,
        "threat_level": 2,
        "hidden": None,
    }
    assert (record.dice_source, record.table_dice, record.actor_id) == ("table", [5], umpire.pk)
    assert (record.first_sequence, record.last_sequence) == (event.sequence, event.sequence)
    assert record.response_status == response.status_code == 201


def test_a_refused_command_appends_nothing_and_keeps_no_record(umpire_api, campaign, battle, blue):
    url, body = reaction(battle, blue, dice=[9])
    before = CommandRecord.objects.count()
    response = umpire_api.post(url, body)
    assert response.status_code == 400
    assert (response.json()["code"], response.json()["field"]) == ("dice.impossible", "dice.0")
    assert battle_events(campaign) == []
    assert CommandRecord.objects.count() == before


def test_job_numbers_run_one_by_one_in_the_campaign(umpire_api, campaign, battle, blue):
    url, body = reaction(battle, blue)
    for _ in range(3):
        assert umpire_api.post(url, body).status_code == 202
    ordinals = Job.objects.filter(campaign_id=campaign.id).values_list("ordinal", flat=True)
    assert sorted(ordinals) == [1, 2, 3]
