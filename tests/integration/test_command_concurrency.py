"""Two users at once: commands decided and appended under the campaign lock, on PostgreSQL with
real threads, and server-dice jobs run by a live worker."""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from django.db import connection
from rest_framework.test import APIClient

from battles import casualties, services
from campaigns.models import Campaign
from eventlog import store
from eventlog.models import Job
from rosters import services as rosters
from rosters.models import Force, Trooper, Unit
from tests.factories import campaign_for
from tests.integration.conftest import run_threads, wait_for

if TYPE_CHECKING:
    from rest_framework.response import _MonkeyPatchedResponse  # the test client's response

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
THREADS = 8


@pytest.fixture
def fighting(umpire):
    """A battle in progress between the two forces of SG2 scenario 1."""
    campaign = campaign_for(umpire, name="Under fire")
    for name in ("sg2-scenario-1-blue.yaml", "sg2-scenario-1-red.yaml"):
        rosters.force_import_text(
            campaign=campaign, text=(EXAMPLES / name).read_text(), source=name, actor=umpire
        )
    campaign = Campaign.objects.get(pk=campaign.id)
    blue, red = (Force.objects.get(campaign_id=campaign.id, side=s) for s in ("Blue", "Red"))
    battle = services.battle_plan(
        campaign=campaign,
        name="Contact",
        day=1,
        sides=[{"side": "Blue", "force_ids": [blue.id]}, {"side": "Red", "force_ids": [red.id]}],
        actor=umpire,
    )
    squads = list(Unit.objects.filter(campaign_id=campaign.id, kind="squad").order_by("order"))
    battle = services.battle_commit(
        campaign=campaign, battle=battle, unit_ids=[u.id for u in squads], actor=umpire
    )
    battle = services.battle_start(campaign=campaign, battle=battle, actor=umpire)
    return campaign, battle, squads


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_a_decision_is_never_appended_on_state_that_changed_before_it_committed(
    fighting, umpire, monkeypatch
):
    """Request A kills a trooper and holds its decision; request B, killing the same trooper,
    cannot decide until A has committed, then sees him dead and is refused by the rule."""
    campaign, battle, squads = fighting
    trooper = Trooper.objects.filter(unit_id=squads[0].id).order_by("order").first()
    assert trooper is not None
    body = {
        "unit_id": str(squads[0].id),
        "mode": "named",
        "casualties": [{"trooper_id": str(trooper.id), "result": "killed"}],
        "dice": [],
    }
    a_decided, release_a = threading.Event(), threading.Event()
    deciding: list[int] = []
    original = casualties.Casualties.resolve

    def held_resolve(self, ctx, params, dice):
        deciding.append(1)
        outcome = original(self, ctx, params, dice)
        if len(deciding) == 1:
            a_decided.set()
            release_a.wait(timeout=30)
        return outcome

    monkeypatch.setattr(casualties.Casualties, "resolve", held_resolve)
    responses: dict[str, _MonkeyPatchedResponse] = {}

    def request(name: str) -> None:
        try:
            responses[name] = client_for(umpire).post(
                f"/api/v1/battles/{battle.id}/actions/casualties/", body, format="json"
            )
        finally:
            connection.close()

    first = threading.Thread(target=request, args=("a",))
    first.start()
    assert a_decided.wait(timeout=30)
    second = threading.Thread(target=request, args=("b",))
    second.start()
    second.join(timeout=1.0)
    # B is waiting for the campaign lock A holds: it has not read or decided anything.
    assert second.is_alive()
    assert len(deciding) == 1
    release_a.set()
    first.join(timeout=30)
    second.join(timeout=30)

    codes = sorted(
        (r.status_code, r.json().get("code") if r.status_code >= 400 else None)
        for r in responses.values()
    )
    assert codes == [(201, None), (409, "casualties.trooper_dead")]
    resolved = [
        c
        for e in store.read(campaign.id, types=["battles.CasualtiesResolved"])
        for c in e.payload["casualties"]
    ]
    assert [(c["status_before"], c["status_after"]) for c in resolved] == [("fit", "dead")]


def test_table_dice_actions_from_eight_clients_never_conflict(fighting, umpire):
    """8 threads x 50 table-dice actions on one battle, no expected_version: none is refused,
    every action's event is there once, and the campaign's sequence has no gap."""
    campaign, battle, squads = fighting
    per_thread = 50
    statuses: Counter[int] = Counter()
    lock = threading.Lock()

    def work(index: int) -> None:
        client = client_for(umpire)
        for n in range(per_thread):
            response = client.post(
                f"/api/v1/battles/{battle.id}/actions/reaction_test/",
                {
                    "unit_id": str(squads[index % len(squads)].id),
                    "threat_level": n % 4,
                    "dice": [1],
                },
                format="json",
            )
            with lock:
                statuses[response.status_code] += 1

    before = store.last_sequence(campaign.id)
    assert run_threads(work) == []
    assert statuses == Counter({201: THREADS * per_thread})
    tested = list(store.read(campaign.id, after=before, types=["battles.ReactionTested"]))
    assert len(tested) == THREADS * per_thread
    assert len({e.metadata["command"] for e in tested}) == THREADS * per_thread
    sequences = [e.sequence for e in store.read(campaign.id)]
    assert sequences == list(range(1, len(sequences) + 1))
    versions = [e.version for e in store.read(campaign.id, stream=f"battle:{battle.id}")]
    assert versions == list(range(1, len(versions) + 1))


def test_server_dice_jobs_never_fail_on_a_race(celery_processes, fighting, umpire):
    """8 threads x 25 server-dice actions: every job succeeds (none is refused by a rule here),
    none fails on a version race, and the campaign's job numbers run 1..N with no gap."""
    campaign, battle, squads = fighting
    per_thread = 25
    accepted: list[str] = []
    lock = threading.Lock()
    celery_processes.worker()

    def work(index: int) -> None:
        client = client_for(umpire)
        for n in range(per_thread):
            response = client.post(
                f"/api/v1/battles/{battle.id}/actions/reaction_test/",
                {"unit_id": str(squads[index % len(squads)].id), "threat_level": n % 4},
                format="json",
            )
            assert response.status_code == 202, response.json()
            with lock:
                accepted.append(response.json()["id"])

    assert run_threads(work) == []
    assert len(accepted) == THREADS * per_thread
    wait_for(
        lambda: (
            not Job.objects.filter(
                campaign_id=campaign.id, status__in=["pending", "running"]
            ).exists()
        ),
        timeout=180,
        what="every job to finish",
    )
    jobs = Job.objects.filter(campaign_id=campaign.id)
    assert Counter(jobs.values_list("status", flat=True)) == Counter(
        {"succeeded": THREADS * per_thread}
    )
    assert sorted(jobs.values_list("ordinal", flat=True)) == list(
        range(1, THREADS * per_thread + 1)
    )
    rolled = list(store.read(campaign.id, types=["battles.ReactionTested"]))
    assert len(rolled) == THREADS * per_thread
    assert {e.job_id for e in rolled} == {uuid.UUID(j) for j in accepted}
    assert all(d["source"] == "server" for e in rolled for d in e.payload["dice"])


def test_eight_after_action_requests_for_one_battle_make_one_job(broker, fighting, umpire):
    """Eight umpires ask for the same battle's after-action at once: one job, seven clear 409s."""
    campaign, battle, _ = fighting
    services.battle_end(campaign=campaign, battle=battle, winner="Blue", actor=umpire)
    answers: list[tuple[int, str | None]] = []
    lock = threading.Lock()

    def work(index: int) -> None:
        response = client_for(umpire).post(
            f"/api/v1/battles/{battle.id}/after-action/", {}, format="json"
        )
        body = response.json()
        with lock:
            answers.append((response.status_code, body.get("code")))

    assert run_threads(work) == []
    assert Counter(status for status, _ in answers) == Counter({202: 1, 409: THREADS - 1})
    assert {code for status, code in answers if status == 409} == {"after_action.already_requested"}
    assert Job.objects.filter(campaign_id=campaign.id, kind="battles.after_action").count() == 1
