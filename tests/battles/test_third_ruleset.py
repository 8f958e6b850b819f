"""A third ruleset, registered by this test alone, plays a battle through the API: the service
asks the ruleset and its registries for everything and branches on no ruleset's name."""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import pytest
from pydantic import Field

from battles.actions import (
    BattleAction,
    BattleContext,
    Params,
    battle_action,
    unregister_battle_action,
)
from battles.after_action import register_after_action
from battles.after_action.context import RULES, AfterActionContext
from campaigns.events import DieRoll, dice_json
from eventlog import store
from eventlog.catalogue import EventPayload, event_type
from rosters.models import Force, Unit
from rules import rulesets
from rules.dice import DiceSource, Die
from rules.rulesets import RulesetDefinition

pytestmark = pytest.mark.django_db

ROSTER = """
name: Scouts
side: Left
units:
  - name: Scout team
    kind: squad
    quality: keen
    troopers:
      - {name: Ada, role: leader}
      - {name: Bo}
"""
ENEMY = ROSTER.replace("Scouts", "Raiders").replace("Left", "Right").replace("keen", "raw")


@dataclasses.dataclass(frozen=True)
class SkirmishOptions:
    """A ruleset with nothing left to the umpire."""


@event_type("tests.NerveTested", stream="battle")
class NerveTested(EventPayload):
    battle_id: uuid.UUID
    unit_id: uuid.UUID
    held: bool
    dice: list[DieRoll] = Field(default_factory=list)


@event_type("tests.SkirmishScored", stream="battle")
class SkirmishScored(EventPayload):
    battle_id: uuid.UUID
    winner: str
    dice: list[DieRoll] = Field(default_factory=list)


class NerveParams(Params):
    unit_id: uuid.UUID


class NerveTest(BattleAction):
    """The skirmish game's only action: a d6, held on 4 or more."""

    action = "nerve_test"
    rulesets = ("skirmish",)
    Params = NerveParams

    def check_action(self, ctx: BattleContext, params: Any) -> None:
        ctx.participant(params.unit_id)

    def resolve(self, ctx: BattleContext, params: Any, dice: DiceSource) -> list[Any]:
        roll = dice.roll(Die.D6, "nerve")
        return [
            NerveTested(
                battle_id=ctx.battle.id,
                unit_id=params.unit_id,
                held=roll.result >= 4,
                dice=dice_json([roll]),
            )
        ]


def score(ctx: AfterActionContext, dice: DiceSource) -> list[EventPayload]:
    roll = dice.roll(Die.D6, "glory")
    return [
        SkirmishScored(battle_id=ctx.battle.id, winner=ctx.battle.winner, dice=dice_json([roll]))
    ]


@pytest.fixture
def skirmish():
    """The third ruleset and its one action and after-action step, withdrawn afterwards."""
    rulesets.register(
        RulesetDefinition(
            code="skirmish",
            label="Skirmish",
            options_type=SkirmishOptions,
            qualities=("raw", "keen"),
        )
    )
    battle_action(NerveTest)
    register_after_action("skirmish", score)
    yield
    RULES.pop("skirmish")
    unregister_battle_action(NerveTest)
    rulesets.unregister("skirmish")


def test_a_third_ruleset_plays_a_battle_through_the_api(skirmish, umpire_api):
    created = umpire_api.post("/api/v1/campaigns/", {"name": "Ridge", "ruleset": "skirmish"})
    assert created.status_code == 201, created.json()
    campaign_id = created.json()["id"]
    listed = umpire_api.get("/api/v1/rulesets/").json()
    assert "skirmish" in [r["name"] for r in listed]
    for roster in (ROSTER, ENEMY):
        imported = umpire_api.post(
            f"/api/v1/campaigns/{campaign_id}/forces/", {"roster": roster, "source": "t.yaml"}
        )
        assert imported.status_code == 201, imported.json()
    left, right = (Force.objects.get(campaign_id=campaign_id, side=s) for s in ("Left", "Right"))
    planned = umpire_api.post(
        f"/api/v1/campaigns/{campaign_id}/battles/",
        {
            "name": "Ridge line",
            "day": 1,
            "sides": [
                {"side": "Left", "force_ids": [str(left.id)]},
                {"side": "Right", "force_ids": [str(right.id)]},
            ],
        },
    )
    assert planned.status_code == 201, planned.json()
    battle = planned.json()["id"]
    teams = [str(u.id) for u in Unit.objects.filter(campaign_id=campaign_id).order_by("name")]
    assert (
        umpire_api.post(f"/api/v1/battles/{battle}/commit/", {"unit_ids": teams}).status_code == 200
    )
    assert umpire_api.post(f"/api/v1/battles/{battle}/start/").status_code == 200

    tested = umpire_api.post(
        f"/api/v1/battles/{battle}/actions/nerve_test/", {"unit_id": teams[0], "dice": [5]}
    )
    assert tested.status_code == 201, tested.json()
    assert tested.json()["events"][0]["payload"]["held"] is True
    # The SG2 rules are not this campaign's.
    sg2_only = umpire_api.post(
        f"/api/v1/battles/{battle}/actions/reaction_test/",
        {"unit_id": teams[0], "threat_level": 1, "dice": [3]},
    )
    assert (sg2_only.status_code, sg2_only.json()["code"]) == (400, "battle.not_in_ruleset")

    ended = umpire_api.post(f"/api/v1/battles/{battle}/end/", {"winner": "Left"})
    assert ended.status_code == 200, ended.json()
    resolved = umpire_api.post(f"/api/v1/battles/{battle}/after-action/", {"dice": [6]})
    assert resolved.status_code == 201, resolved.json()
    types = [e["type"] for e in resolved.json()["events"]]
    assert types == ["tests.SkirmishScored", "battles.AfterActionResolved"]
    assert umpire_api.get(f"/api/v1/battles/{battle}/").json()["status"] == "resolved"
    logged = [e.type for e in store.read(uuid.UUID(campaign_id), stream=f"battle:{battle}")]
    assert "tests.NerveTested" in logged
