"""Fast and Dirty's campaign points and reinforcement pool over HTTP answer what the schema
says, and take the bodies it describes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.test_battles_contract import conforms, request_schema, schema, validator_of
from tests.battles.test_after_action_fad import (
    battle,
    campaign,
    forces,
    fought,
    resolved,
    unit,
)

pytestmark = pytest.mark.django_db

# Fixtures, for pytest to find here.
__all__ = ["battle", "campaign", "forces", "fought", "resolved", "schema"]


def test_fad_campaign_points_and_reinforcements_conform(umpire_api, forces, resolved, schema):
    fed = forces["Federation"]
    squad1, squad2 = (unit(fed, f"Rifle Squad {n}") for n in (1, 2))
    points_path = "/api/v1/forces/{force_id}/campaign-points/"
    points_url = f"/api/v1/forces/{fed.id}/campaign-points/"
    conforms(schema, points_path, "get", umpire_api.get(points_url))

    spend = {"purchases": [{"kind": "quality_step", "target": str(squad2.id)}]}
    validator_of(schema, request_schema(schema, points_path + "spend/")).validate(spend)
    spent = umpire_api.post(f"{points_url}spend/", spend)
    assert spent.status_code == 201, spent.json()
    conforms(schema, points_path + "spend/", "post", spent)

    reinforcements_path = "/api/v1/forces/{force_id}/reinforcements/"
    reinforce_url = f"/api/v1/forces/{fed.id}/reinforcements/"
    prompt = umpire_api.get(reinforce_url)
    conforms(schema, reinforcements_path, "get", prompt)
    assert [d["die"] for d in prompt.json()["dice"]] == [6, 6]
    body: dict[str, Any] = {
        "assignment": [{"unit_id": str(squad1.id), "troopers": 1}],
        "dice": [1, 1],
    }
    validator_of(schema, request_schema(schema, reinforcements_path)).validate(body)
    rolled = umpire_api.post(reinforce_url, body)
    assert rolled.status_code == 201, rolled.json()
    conforms(schema, reinforcements_path, "post", rolled)

    history = umpire_api.get(points_url)
    conforms(schema, points_path, "get", history)
    spent_entry = history.json()["history"][1]
    assert (spent_entry["type"], spent_entry["pool"]) == ("battles.FadCampaignPointsSpent", None)
    assert spent_entry["purchases"][0]["kind"] == "quality_step"
