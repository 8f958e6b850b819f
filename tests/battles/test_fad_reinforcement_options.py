# ruff: noqa: F811 (the fixtures of test_after_action_fad, imported to be reused)
"""FaD reinforcement options the service honours since issue 11, flipped through
``PATCH /api/v1/campaigns/{id}/options/`` (FaD p.66 REINFORCEMENTS)."""

from __future__ import annotations

import pytest

from rosters.models import Unit
from tests.battles.test_after_action_fad import (  # noqa: F401 (fixtures)
    after_action,
    battle,
    campaign,
    end,
    forces,
    fought,
    history,
    present,
    resolved,
    unit,
)

pytestmark = pytest.mark.django_db


def second_battle(api, campaign, forces) -> None:
    """A second battle with every unit, no losses: no after-action die (FaD p.66)."""
    response = api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": "Ridge",
            "day": 5,
            "attacker": "Federation",
            "sides": [
                {"side": side, "force_ids": [str(forces[side].id)]}
                for side in ("Federation", "Insurgents")
            ],
        },
    )
    assert response.status_code == 201, response.json()
    url = f"/api/v1/battles/{response.json()['id']}/"
    fighting = [
        str(u.id)
        for side in ("Federation", "Insurgents")
        for u in Unit.objects.filter(force_id=forces[side].id).exclude(kind="platoon")
    ]
    assert api.post(f"{url}commit/", {"unit_ids": fighting}).status_code == 200
    assert api.post(f"{url}start/").status_code == 200
    end(api, url)
    assert after_action(api, url, []).status_code == 201


@pytest.mark.parametrize(("option", "squad1_after"), [(None, 7), ("banked", 8)])
def test_unplaced_reinforcements_are_banked_for_the_next_pool_only_with_the_option_p66(
    umpire_api, campaign, forces, resolved, option, squad1_after
):
    """FaD p.66 does not say what becomes of reinforcements not placed (GAP): lost by default.
    With ``campaign_unused_reinforcements = banked`` they join the force's next pool. After
    Valley road the pool is 2 (d6 1, d6 1) and the umpire places none; after the next battle
    the pool is 2 again: Squad 3 (4 of 6) takes 2, and Squad 1 (7 of 8) its 1 only from the
    2 banked."""
    fed = forces["Federation"]
    squad1, squad3 = unit(fed, "Rifle Squad 1"), unit(fed, "Rifle Squad 3")
    if option is not None:
        response = umpire_api.patch(
            f"/api/v1/campaigns/{campaign.id}/options/",
            {"changes": {"campaign_unused_reinforcements": option}, "reason": "house rule"},
        )
        assert response.status_code == 200, response.json()
    reinforce = f"/api/v1/forces/{fed.id}/reinforcements/"
    first = umpire_api.post(reinforce, {"dice": [1, 1]})
    assert first.status_code == 201, first.json()
    (rolled,) = [e["payload"] for e in first.json()["events"] if e["type"].endswith("Rolled")]
    assert (rolled["unused"], rolled["banked_for_next"]) == (2, 2 if option else 0)
    second_battle(umpire_api, campaign, forces)
    assert (present(squad1), present(squad3)) == (7, 4)
    second = umpire_api.post(
        reinforce,
        {
            "assignment": [
                {"unit_id": str(squad3.id), "troopers": 2},
                {"unit_id": str(squad1.id), "troopers": 1},
            ],
            "dice": [1, 1],
        },
    )
    assert second.status_code == 201, second.json()
    assert (present(squad1), present(squad3)) == (squad1_after, 6)
    if option:
        assert history(squad3)[-1].startswith(
            "After Ridge: 2 reinforcements joined (Reinforcement 7, Reinforcement 8) from the "
            "reinforcement pool 2d6 (d6 1, d6 1) = 2, with 2 banked from the last pool"
        )
