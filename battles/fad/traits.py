"""The bonus traits a Fast and Dirty mission gives a force, given to its units (FaD p.62-63):
``fad_mission_bonus``.

A battle generated from the scenario tables (:mod:`battles.fad.scenario_generation`) gives each
side a mission whose bonus may be traits "to assign as you wish": the player gives them to one
unit, or splits them between two, before the fighting. The umpire records which units received
them (``battles.FadMissionBonusGiven``); the FaD actions then read them with the unit's other
traits (:func:`battles.fad.state.battle_traits`). They last the battle, or with option
``campaign_mission_bonus_persists`` stay with the unit: the rosters add them to its traits
(:mod:`rosters.fad_in_battle`).
"""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.fad import state
from battles.models import Battle
from battles.projections import log, unit_name
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rules.dice import DiceSource
from rules.fad import traits as rules
from rules.fad.tree import Mission
from rules.rulesets import Ruleset

MISSION_BONUS_GIVEN = state.MISSION_BONUS_GIVEN
# The generated scenario names each side's mission (battles.fad.scenario_generation).
SCENARIO_GENERATED = "battles.FadScenarioGenerated"


class BonusUnit(Params):
    unit_id: uuid.UUID = Field(description="A unit of the side, fighting in this battle.")
    traits: list[str] = Field(
        min_length=1,
        max_length=2,
        description="The mission's traits it receives, e.g. ['hardened', 'assault_troops'].",
    )


class MissionBonusParams(Params):
    side: str = Field(min_length=1, max_length=100, description="The side whose mission it is.")
    units: list[BonusUnit] = Field(
        min_length=1,
        max_length=2,
        description="The units that receive the mission's traits: one unit with them all, or "
        "split between two (p.62).",
    )


class BonusTraitsRecord(EventPayload):
    unit_id: uuid.UUID
    traits: list[str]


@event_type(MISSION_BONUS_GIVEN, stream="battle")
class FadMissionBonusGiven(EventPayload):
    """A side's player gave its mission's bonus traits to its units (FaD p.62-63)."""

    battle_id: uuid.UUID
    side: str
    mission: Mission
    units: list[BonusTraitsRecord] = Field(min_length=1, max_length=2)
    persists: bool = Field(
        description="The traits stay with the units after this battle "
        "(campaign_mission_bonus_persists); by default they last this battle only."
    )


def _mission(ctx: BattleContext, side: str) -> Mission:
    for event in state.battle_events(ctx, SCENARIO_GENERATED):
        for generated in event.payload["sides"]:
            if generated["side"] == side:
                return Mission(generated["mission"])
    raise StateConflict(
        "mission_bonus.no_mission",
        "This battle was not generated from the scenario tables (FaD p.59-63): it has no "
        "mission whose bonus could be given.",
        field="side",
    )


def _assignment(ctx: BattleContext, params: MissionBonusParams) -> tuple[rules.BonusTraits, ...]:
    try:
        return rules.check_mission_bonus(
            _mission(ctx, params.side),
            [rules.BonusTraits(unit=str(u.unit_id), traits=tuple(u.traits)) for u in params.units],
        )
    except rules.TraitError as error:
        raise RuleViolation(error.code, error.message, field=error.field or "units") from None


@battle_action
class FadMissionBonus(BattleAction):
    """A side's mission bonus traits are given to one of its units, or split between two (FaD
    p.62-63 MISSION DETAILS). Once per side and battle, before or during the fighting; the traits
    must be the mission card's, each once. No dice."""

    action = "fad_mission_bonus"
    rulesets = (Ruleset.FAD.value,)
    statuses = (Battle.Status.COMMITTED, Battle.Status.IN_PROGRESS)
    Params = MissionBonusParams

    def check_action(self, ctx: BattleContext, params: MissionBonusParams) -> None:
        if params.side not in ctx.sides:
            raise CommandError(
                "battle.unknown_side",
                f"{params.side!r} is not a side of this battle.",
                field="side",
            )
        if any(
            event.payload["side"] == params.side
            for event in state.battle_events(ctx, MISSION_BONUS_GIVEN)
        ):
            raise StateConflict(
                "mission_bonus.already_given",
                f"{params.side} has already given its mission's bonus in this battle.",
                field="side",
            )
        for index, given in enumerate(params.units):
            where = f"units.{index}.unit_id"
            if ctx.participant(given.unit_id, field=where).side != params.side:
                raise CommandError(
                    "mission_bonus.other_side",
                    f"{ctx.unit(given.unit_id).name} does not fight for {params.side}.",
                    field=where,
                )
        _assignment(ctx, params)

    def resolve(
        self, ctx: BattleContext, params: MissionBonusParams, dice: DiceSource
    ) -> list[Any]:
        return [
            FadMissionBonusGiven(
                battle_id=ctx.battle.id,
                side=params.side,
                mission=_mission(ctx, params.side),
                units=[
                    BonusTraitsRecord(unit_id=uuid.UUID(g.unit), traits=list(g.traits))
                    for g in _assignment(ctx, params)
                ],
                persists=bool(ctx.options.campaign_mission_bonus_persists),
            )
        ]


def trait_label(key: str) -> str:
    """``assault_troops`` as a roster writes it: Assault Troops."""
    return key.replace("_", " ").title()


@register
class FadTraitsProjection(Projection):
    """The battle-log line of a mission bonus given."""

    name = "battles.fad_traits"
    version = 1

    @Projection.handles(MISSION_BONUS_GIVEN)
    def mission_bonus_given(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        given = "; ".join(
            f"{unit_name(rows, u['unit_id'])} {' and '.join(trait_label(t) for t in u['traits'])}"
            for u in p["units"]
        )
        lasting = "kept after the battle" if p["persists"] else "for this battle only"
        log(
            rows,
            event,
            f"{p['side']} gave its {p['mission'].replace('_', ' ').title()} mission's bonus "
            f"traits (FaD p.62-63), {lasting}: {given}.",
        )
