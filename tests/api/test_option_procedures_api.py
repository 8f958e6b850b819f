"""Options of procedures Muster does not run yet are published as such, and retired options are
refused with their reason, through HTTP."""

from __future__ import annotations

import pytest

from eventlog import store
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db


def test_the_rulesets_say_which_options_wait_for_a_procedure(api_for):
    rulesets = {r["name"]: r for r in api_for().get("/api/v1/rulesets/").json()}
    sg2 = rulesets["sg2"]["options_schema"]["properties"]
    assert sg2["max_support_weapons"]["x-applies-to"] == "sg2.fire_combat"
    assert "x-applies-to" not in sg2["fire_method"]  # direct_fire reads it
    assert "x-applies-to" not in sg2["assault_from_in_position"]  # close_assault reads it
    assert sg2["fae"]["x-applies-to"] == "sg2.fae"
    assert "x-applies-to" not in sg2["environment"]
    fad = rulesets["fad"]["options_schema"]["properties"]
    assert fad["move_variable"]["x-applies-to"] == "fad.movement"
    assert "x-applies-to" not in fad["turn_card_activation"]  # fad_draw_activation reads it
    assert "x-applies-to" not in fad["vehicle_large_types"]  # fad_shoot_vehicle reads it
    assert "x-applies-to" not in fad["fire_hit_allocation"]  # fad_shoot reads it
    assert "unit_generation" not in sg2
    assert "campaign_resolve_gain_cap" not in fad


def test_a_retired_option_is_refused_with_its_reason(umpire, umpire_api):
    created = umpire_api.post(
        "/api/v1/campaigns/",
        {"name": "Kessler Ridge", "ruleset": "sg2", "options": {"unit_generation": "scenario"}},
    )
    assert (created.status_code, created.json()["code"]) == (400, "options.retired")
    campaign = campaign_for(umpire, ruleset="fad")
    before = store.last_sequence(campaign.id)
    changed = umpire_api.patch(
        f"/api/v1/campaigns/{campaign.id}/options/",
        {"changes": {"campaign_resolve_gain_cap": False}, "reason": "house rule"},
    )
    assert (changed.status_code, changed.json()["code"]) == (400, "options.retired")
    assert "Determined is the highest Resolve" in changed.json()["message"]
    assert store.last_sequence(campaign.id) == before
