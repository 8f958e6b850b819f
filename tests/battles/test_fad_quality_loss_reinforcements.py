# ruff: noqa: F811 (the fixtures of test_after_action_fad, imported to be reused)
"""Option ``campaign_quality_loss_counts_reinforcements`` through HTTP (FaD p.66 QUALITY LOSS,
REINFORCEMENTS): troopers from the reinforcement pool count toward Quality Loss, rolled when the
pool is placed. Off by default (Quality Loss is step 3, the pool step 5). Every outcome is worked
out by hand from the tables of FaD p.66."""

from __future__ import annotations

import json

import pytest

from battles.models import BattleLogEntry
from tests.battles.helpers import assert_rebuild_keeps_rows
from tests.battles.test_after_action_fad import (  # noqa: F401 (fixtures)
    after_action,
    battle,
    campaign,
    end,
    forces,
    history,
    losses,
    members,
    present,
    refused,
    unit,
)

pytestmark = pytest.mark.django_db

QUALITY_LOSS = "battles.FadQualityLossRolled"


def counts_reinforcements(api, campaign) -> None:
    """Turn the option on (it is off by default)."""
    response = api.patch(
        f"/api/v1/campaigns/{campaign.id}/options/",
        {"changes": {"campaign_quality_loss_counts_reinforcements": True}, "reason": "house rule"},
    )
    assert response.status_code == 200, response.json()


def prompt(api, force, assignment, dice) -> list[tuple[str, str]]:
    """The reinforcement dice prompt: (purpose, for) of each die, with the faces so far."""
    response = api.get(
        f"/api/v1/forces/{force.id}/reinforcements/",
        {"assignment": json.dumps(assignment), "dice": ",".join(map(str, dice))},
    )
    assert response.status_code == 200, response.json()
    return [(d["purpose"], d["for"]) for d in response.json()["dice"]]


def quality_losses(response) -> list[dict]:
    return [e["payload"] for e in response.json()["events"] if e["type"] == QUALITY_LOSS]


@pytest.mark.parametrize(
    ("on", "quality_die", "quality"),
    [(False, [], "regular"), (True, [2], "conscript"), (True, [3], "regular")],
)
def test_reinforcements_count_toward_quality_loss_only_with_the_option_p66(
    umpire_api, campaign, forces, battle, on, quality_die, quality
):
    """Rifle Squad 1 (Regular, 8) loses 6. After the action: infantry replacements d6 3, half
    of 6 replaced: 3, under half of 8, so no quality loss roll; resolve d6 3, stays Steady. The
    pool is 2d6 (1, 1) = 2, one placed in Squad 1: 3 replacements and 1 reinforcement are half
    of 8. With the option Squad 1 rolls quality loss after the pool's dice: 1-2 Regular drops to
    Conscript, 3+ it stays. Without it no die is asked and it stays Regular."""
    fed = forces["Federation"]
    squad1 = unit(fed, "Rifle Squad 1")
    losses(umpire_api, battle, squad1, killed=members(squad1)[2:8])
    end(umpire_api, battle)
    response = after_action(umpire_api, battle, [3, 3])
    assert response.status_code == 201, response.json()
    assert quality_losses(response) == []
    assert present(squad1) == 5
    if on:
        counts_reinforcements(umpire_api, campaign)

    assignment = [{"unit_id": str(squad1.id), "troopers": 1}]
    pool = [("reinforcements, die 1", str(fed.id)), ("reinforcements, die 2", str(fed.id))]
    asked = [("quality loss", str(squad1.id))] if on else []
    assert prompt(umpire_api, fed, assignment, [1, 1]) == pool + asked
    reinforce = f"/api/v1/forces/{fed.id}/reinforcements/"
    if not on:
        # No quality loss die is asked: a third die is one too many.
        refused(
            umpire_api,
            campaign,
            "post",
            reinforce,
            {"assignment": assignment, "dice": [1, 1, 2]},
            400,
            "dice.unused",
        )
    response = umpire_api.post(reinforce, {"assignment": assignment, "dice": [1, 1, *quality_die]})
    assert response.status_code == 201, response.json()
    assert present(squad1) == 6
    squad1.refresh_from_db()
    assert squad1.quality == quality
    rolled = quality_losses(response)
    if not on:
        assert rolled == []
        return
    (lost,) = rolled
    assert (lost["replacements"], lost["reinforcements"], lost["measured_against"]) == (3, 1, 8)
    assert [d["result"] for d in lost["dice"]] == quality_die
    verdict = "drops from Regular to Conscript" if quality == "conscript" else "stays Regular"
    told = (
        f"After Valley road: 3 replacements and 1 reinforcement of 8, quality loss "
        f"d6 {quality_die[0]}: {verdict}."
    )
    assert history(squad1)[-1] == told
    assert BattleLogEntry.objects.filter(event_type=QUALITY_LOSS, summary__contains=told).exists()
    assert_rebuild_keeps_rows()


def test_a_unit_that_rolled_quality_loss_after_the_action_does_not_roll_again_p66(
    umpire_api, campaign, forces, battle
):
    """One Quality Loss roll per unit per battle (FaD p.66), with the option on. Rifle Squad 1
    (Regular, 8) is wiped out: replacements d6 3, half of 8 = 4, half its strength, so it rolls
    quality loss in step 3: d6 3, stays Regular. Rifle Squad 2 (Conscript, 8) loses 6:
    replacements d6 3, 3 replaced, no roll. Resolve d6 4 and 4, no change. The pool, 2d6 (2, 1)
    = 3: 2 to Squad 1 (6 of 8), which does not roll again, and 1 to Squad 2, whose 3
    replacements and 1 reinforcement are half of 8: d6 1, Conscript drops to Rabble."""
    fed = forces["Federation"]
    squad1, squad2 = unit(fed, "Rifle Squad 1"), unit(fed, "Rifle Squad 2")
    losses(umpire_api, battle, squad1, killed=members(squad1))
    losses(umpire_api, battle, squad2, killed=members(squad2)[2:8])
    end(umpire_api, battle)
    response = after_action(umpire_api, battle, [3, 3, 3, 4, 4])
    assert response.status_code == 201, response.json()
    assert [p["unit_id"] for p in quality_losses(response)] == [str(squad1.id)]
    assert (present(squad1), present(squad2)) == (4, 5)
    counts_reinforcements(umpire_api, campaign)

    assignment = [
        {"unit_id": str(squad1.id), "troopers": 2},
        {"unit_id": str(squad2.id), "troopers": 1},
    ]
    assert prompt(umpire_api, fed, assignment, [2, 1])[2:] == [("quality loss", str(squad2.id))]
    response = umpire_api.post(
        f"/api/v1/forces/{fed.id}/reinforcements/", {"assignment": assignment, "dice": [2, 1, 1]}
    )
    assert response.status_code == 201, response.json()
    assert [p["unit_id"] for p in quality_losses(response)] == [str(squad2.id)]
    assert (present(squad1), present(squad2)) == (6, 6)
    squad1.refresh_from_db()
    squad2.refresh_from_db()
    assert (squad1.quality, squad2.quality) == ("regular", "rabble")
    assert history(squad2)[-1] == (
        "After Valley road: 3 replacements and 1 reinforcement of 8, quality loss d6 1: drops "
        "from Conscript to Rabble."
    )
