"""Voiding a mistaken battle action recomputes everything that followed from it."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from eventlog import projections
from rosters.models import Trooper
from tests.battles.conftest import members, squads

pytestmark = pytest.mark.django_db


def test_voiding_a_casualty_brings_the_trooper_back_and_the_log_says_so(
    battle, umpire_api, campaign, forces
):
    squad = squads(forces["Blue"])[0]
    victim = members(squad)[-1]
    url = f"/api/v1/battles/{battle['id']}/"
    wrong = umpire_api.post(
        f"{url}actions/casualties/",
        {
            "unit_id": str(squad.id),
            "mode": "named",
            "casualties": [{"trooper_id": str(victim.id), "result": "killed"}],
            "dice": [],
        },
    ).json()["events"][0]
    assert Trooper.objects.get(pk=victim.pk).status == "dead"
    strength = umpire_api.get(f"/api/v1/units/{squad.id}/").json()["strength"]

    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/voids/",
        {"sequence": wrong["sequence"], "reason": "the shot was at the other squad"},
    )
    assert response.status_code == 201, response.json()

    assert Trooper.objects.get(pk=victim.pk).status == "fit"
    assert Trooper.objects.get(pk=victim.pk).wounds == 0
    assert umpire_api.get(f"/api/v1/units/{squad.id}/").json()["strength"] == strength + 1
    told = [line["summary"] for line in umpire_api.get(f"{url}log/").json()["results"]]
    assert not any("killed" in line for line in told)
    assert told[-1] == (
        f"Voided: an earlier entry (event #{wrong['sequence']}, casualties resolved). "
        "Reason: the shot was at the other squad"
    )
    # As the battle stood before the void, he was dead.
    before_void = umpire_api.get(
        f"/api/v1/troopers/{victim.id}/", {"as_of": wrong["sequence"]}
    ).json()
    assert before_void["status"] == "dead"
    inline = projections.dump_rows()
    call_command("rebuild_projections", "--no-progress")
    assert projections.dump_rows() == inline
