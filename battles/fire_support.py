"""Off-table fire support in battle (SG2 P.44-47): a side's support request counters, requesting a
fire mission, bringing it down and what its bursts do.

The rules are :mod:`rules.sg2.fire_support` (the request, the Inbound Chart timing, accuracy and
deviation) and :func:`rules.sg2.casualties.artillery_casualties` (impact against armour in each
burst). Four actions:

- ``support_chits_roll``: with the option ``support_chits = d6_per_player`` a side rolls a D6 for
  its support request counters (P.44); otherwise the mission card gives them (``support_chits``).
- ``fire_support_request``: a unit asks for artillery or orbital fire; a granted request puts
  the mission on the side's Inbound Chart in the box the asset starts from (option
  ``inbound_start``), spending the counters committed whatever the roll.
- ``fire_mission_land``: once the mission is available (option ``fire_mission_arrival``), the
  requesting unit's quality die decides whether it lands on its marker, and where each round of
  the salvo falls if not.
- ``fire_mission_impact``: the umpire names who is inside each round's burst radius (the table
  decides that); the rules roll impact against armour for every figure and burst, record the
  casualties as ``battles.CasualtiesResolved`` (mode ``artillery``) so the rosters fold them, put
  a suppression marker on every unit with a figure in a burst (P.47) and name the confidence test
  each must take (P.20).

A side's fire missions live in ``BattleSide.support``: ``chits_rolled`` (the D6, if rolled),
``chits_spent`` and ``missions``, each ``inbound``, ``landed`` or ``fired``. With the option
``fire_mission_must_fire_in_arrival_turn`` (P.46) the turn cannot end while an available
mission has not fired.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.casualties.events import CasualtiesResolved, TrooperCasualty
from battles.casualties.state import (
    figure_of,
    leaders_down,
    require_armour_die,
    require_on_table,
    trooper_casualty,
)
from battles.fire import FIRE_MISSION_STRUCK_EVENT, suppressed_by_fire_before
from battles.medical.casevac import side_of
from battles.models import BattleSide, Participant
from battles.morale import command_level
from battles.morale.confidence import test_called_for
from battles.projections import dice_text, log, participant_key, unit_name
from campaigns.events import DieRoll, dice_json
from campaigns.visibility import outline
from eventlog.catalogue import EventPayload, event_type
from eventlog.commands import new_id
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Trooper, Unit
from rules.dice import DiceSource, Die, Roll, rolling_for
from rules.sg2.casualties import (
    ArtilleryCasualtiesOutcome,
    BurstExposure,
    BurstRoll,
    Cover,
    DeliverySystem,
    Warhead,
    artillery_casualties,
)
from rules.sg2.command import CommandLevel
from rules.sg2.fire_support import (
    MAX_SALVO_ROUNDS,
    SupportKind,
    available_turn,
    fire_mission_landing,
    request_support,
    starting_box,
)
from rules.sg2.morale import ConfidenceCircumstance
from rules.sg2.options import FireMissionArrival, SupportChits
from rules.sg2.scales import Quality
from rules.sg2.suppression import place_markers

MAX_CHITS = 20
ASSET_LEVELS = {
    "company": CommandLevel.COMPANY,
    "battalion": CommandLevel.BATTALION,
    "regiment": CommandLevel.REGIMENT,
}
AssetLevel = Literal["company", "battalion", "regiment"]
WarheadName = Literal[
    "general_purpose_explosive", "anti_personnel_submunitions", "anti_armour_submunitions"
]
DeliveryName = Literal["small", "medium", "large", "very_large"]
CoverName = Literal["open", "soft", "hard"]


# --- State ----------------------------------------------------------------------------------------


def support_state(side: BattleSide | Mapping[str, Any]) -> dict[str, Any]:
    raw = side.support if isinstance(side, BattleSide) else side.get("support")
    return {"chits_rolled": None, "chits_spent": 0, "missions": [], **(raw or {})}


def chits_left(ctx: BattleContext, side: BattleSide) -> int | None:
    """The support request counters the side has left, or None while they are still to be
    rolled (option ``support_chits = d6_per_player``)."""
    state = support_state(side)
    if ctx.options.support_chits is SupportChits.D6_PER_PLAYER:
        given = state["chits_rolled"]
        if given is None:
            return None
    else:
        given = side.mission.get("support_chits", 0)
    return max(0, given - state["chits_spent"])


def find_mission(ctx: BattleContext, mission_id: uuid.UUID) -> tuple[BattleSide, dict[str, Any]]:
    for side in ctx.sides.values():
        for mission in support_state(side)["missions"]:
            if mission["mission_id"] == str(mission_id):
                return side, mission
    raise CommandError(
        "fire_mission.not_found", "No such fire mission in this battle.", field="mission_id"
    )


# --- Events ---------------------------------------------------------------------------------------


class FireMissionRecord(EventPayload):
    """A fire mission on a side's Inbound Chart (SG2 P.44-46)."""

    mission_id: uuid.UUID
    number: int = Field(ge=1, description="The side's missions, counted from 1.")
    unit_id: uuid.UUID = Field(description="The unit that requested it.")
    kind: Literal["artillery", "orbital"]
    asset_level: AssetLevel
    delivery: DeliveryName
    warhead: WarheadName
    rounds: int = Field(ge=1, le=MAX_SALVO_ROUNDS)
    target: str
    terrain_feature: Literal["none", "small", "large"] = "none"
    requested_turn: int = Field(ge=0)
    box: int = Field(ge=1, le=3)
    available_turn: int = Field(ge=0)


@event_type("battles.SupportChitsRolled", stream="battle")
class SupportChitsRolled(EventPayload):
    """A side rolled a D6 for its support request counters (SG2 P.44)."""

    battle_id: uuid.UUID
    side: str
    turn: int = Field(ge=0)
    chits: int = Field(ge=1, le=6)
    dice: list[DieRoll] = Field(default_factory=list)


@event_type("battles.FireSupportRequested", stream="battle")
class FireSupportRequested(EventPayload):
    """A unit requested off-table fire support (SG2 P.44): the request die, shifted for the
    command levels bypassed and the counters committed, against its LV plus the support's
    factor. A granted request put the mission on the Inbound Chart."""

    battle_id: uuid.UUID
    side: str
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    kind: Literal["artillery", "orbital"]
    dedicated: bool
    chits: int = Field(ge=0)
    bypassed: int = Field(ge=0)
    die: int
    target: int
    granted: bool
    mission: FireMissionRecord | None
    dice: list[DieRoll] = Field(default_factory=list)


@outline("battles.FireSupportRequested")
def _request_outline(payload: Mapping[str, Any]) -> dict[str, Any]:
    """That a request was made and whether it got through: the counter goes on the chart."""
    return {"granted": payload.get("granted")}


class RoundRecord(EventPayload):
    round: int = Field(ge=1)
    direction: int | None = Field(description="Clock face from round 1; none for round 1.")
    distance: int = Field(ge=0, description="Inches from round 1.")


@event_type("battles.FireMissionLanded", stream="battle")
class FireMissionLanded(EventPayload):
    """A fire mission came down (SG2 P.46): on its marker if the requesting unit's quality die
    beat its LV (a guided specialist observer) or twice its LV; otherwise deviated a D12 on the
    clock face and D8 inches times the failed score. Further rounds fall D12/D6 from the first."""

    battle_id: uuid.UUID
    side: str
    mission_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    guided: bool
    feature_direction: int | None = Field(
        default=None,
        description="Aimed at a large terrain feature: the marker's D12 from its centre.",
    )
    feature_distance: int = Field(default=0, ge=0, description="... and its D8 inches.")
    accurate: bool
    accuracy_die: int
    accuracy_roll: int
    target: int
    deviation_direction: int | None
    deviation_distance: int = Field(ge=0)
    rounds: list[RoundRecord]
    dice: list[DieRoll] = Field(default_factory=list)


class BurstRollRecord(EventPayload):
    trooper_id: uuid.UUID
    round: int = Field(ge=1)
    impact_die: int
    armour_die: int
    impact_roll: int
    armour_roll: int
    result: Literal["no_effect", "wound", "kill"]


class StruckUnit(EventPayload):
    unit_id: uuid.UUID
    figures_caught: int = Field(ge=1)
    casualties: int = Field(ge=0)
    suppression_before: int = Field(ge=0)
    suppression_after: int = Field(ge=0)
    confidence_test_for: list[str] = Field(default_factory=list)


@event_type(FIRE_MISSION_STRUCK_EVENT, stream="battle")
class FireMissionStruck(EventPayload):
    """A fire mission's rounds burst (SG2 P.46-47): every figure inside a burst radius rolled
    its armour against the warhead's impact, once per burst; every unit with a figure caught is
    suppressed. The casualties follow in ``battles.CasualtiesResolved`` (mode ``artillery``)."""

    battle_id: uuid.UUID
    side: str
    mission_id: uuid.UUID
    turn: int = Field(ge=0)
    warhead: WarheadName
    delivery: DeliveryName
    burst_radius: int
    units: list[StruckUnit]
    burst_rolls: list[BurstRollRecord]
    dice: list[DieRoll] = Field(default_factory=list)


@outline(FIRE_MISSION_STRUCK_EVENT)
def _struck_outline(payload: Mapping[str, Any]) -> dict[str, Any]:
    return {"units_caught": len(payload.get("units", []))}


# --- Actions --------------------------------------------------------------------------------------


class SideParams(Params):
    side: str = Field(max_length=100)


@battle_action
class SupportChitsRoll(BattleAction):
    """A side rolls a D6 for its support request counters (SG2 P.44), when the campaign's option
    ``support_chits`` is ``d6_per_player``; once a battle. Dice: one D6."""

    action = "support_chits_roll"
    Params = SideParams

    def check_action(self, ctx: BattleContext, params: SideParams) -> None:
        side = side_of(ctx, params.side)
        if ctx.options.support_chits is not SupportChits.D6_PER_PLAYER:
            raise RuleViolation(
                "fire_support.chits_from_scenario",
                "In this campaign the scenario gives each side its support request counters "
                "(the mission card's support_chits): nothing is rolled.",
                field="side",
            )
        if support_state(side)["chits_rolled"] is not None:
            raise StateConflict(
                "fire_support.chits_already_rolled",
                f"{side.side} has already rolled for its support request counters.",
                field="side",
            )

    def resolve(self, ctx: BattleContext, params: SideParams, dice: DiceSource) -> list[Any]:
        roll = dice.roll(Die.D6, "support request counters")
        return [
            SupportChitsRolled(
                battle_id=ctx.battle.id,
                side=params.side,
                turn=ctx.battle.turn,
                chits=roll.result,
                dice=dice_json([roll]),
            )
        ]


class FireSupportRequestParams(Params):
    unit_id: uuid.UUID = Field(description="The unit whose leader (or observer) calls.")
    kind: Literal["artillery", "orbital"] = Field(description="The support asked for (P.44).")
    asset_level: AssetLevel = Field(
        description="The command level the battery is organised at: it sets the levels the call "
        "bypasses (P.44) and the Inbound Chart box the mission starts in (P.45)."
    )
    dedicated: bool = Field(
        default=False,
        description="The caller is the battery's forward observer or an orbital liaison: no "
        "shift for command levels, a lower factor (P.44).",
    )
    chits: int = Field(
        default=0, ge=0, le=MAX_CHITS, description="Support request counters committed (P.44)."
    )
    delivery: DeliveryName = Field(description="The battery's delivery system (P.46).")
    warhead: WarheadName = Field(
        default="general_purpose_explosive",
        description="Noted when requested; general-purpose explosive if not (P.46).",
    )
    rounds: int = Field(
        ge=1,
        le=MAX_SALVO_ROUNDS,
        description="Rounds in the salvo: one per weapon of the battery, or 1 for a single round "
        "noted when requested (P.46).",
    )
    target: str = Field(
        default="", max_length=200, description="Where the impact marker is placed, for the record."
    )
    terrain_feature: Literal["none", "small", "large"] = Field(
        default="none",
        description="Aimed at a terrain feature the caller cannot see into (SG2-C, option "
        "artillery_terrain_targeting): small (within the burst radius) or large, whose marker "
        "is placed at random inside it when the mission comes down.",
    )
    start_box: int | None = Field(
        default=None,
        ge=1,
        le=3,
        description="The Inbound Chart box the scenario starts this mission in, if not the "
        "campaign's option inbound_start (P.45).",
    )


@battle_action
class FireSupportRequest(BattleAction):
    """A unit requests artillery or orbital fire (SG2 P.44): one action, one die, the counters
    committed spent whatever the roll. Air support and its aircraft are not tracked.

    Dice: the request die (a D8 shifted down per command level bypassed, up per counter).
    """

    action = "fire_support_request"
    Params = FireSupportRequestParams

    def check_action(self, ctx: BattleContext, params: FireSupportRequestParams) -> None:
        participant = ctx.participant(params.unit_id)
        side = ctx.sides[participant.side]
        left = chits_left(ctx, side)
        if left is None:
            raise StateConflict(
                "fire_support.chits_not_rolled",
                f"{side.side} has not rolled for its support request counters yet "
                "(action support_chits_roll, P.44).",
                field="chits",
            )
        if params.chits > left:
            raise RuleViolation(
                "fire_support.not_enough_chits",
                f"{side.side} has {left} support request counter{'s' if left != 1 else ''} left, "
                f"not {params.chits}.",
                field="chits",
            )
        if params.terrain_feature != "none" and not ctx.options.artillery_terrain_targeting:
            raise RuleViolation(
                "fire_support.terrain_targeting_off",
                "In this campaign a fire mission is aimed at a point the caller can see, not at "
                "a terrain feature (option artillery_terrain_targeting, SG2-C).",
                field="terrain_feature",
            )
        unit = ctx.unit(params.unit_id)
        if not unit.leadership:
            raise StateConflict(
                "fire_support.no_leadership",
                f"{unit.name} has no leadership value on the roster: the request must beat it "
                "(P.44).",
                field="unit_id",
            )

    def resolve(
        self, ctx: BattleContext, params: FireSupportRequestParams, dice: DiceSource
    ) -> list[Any]:
        participant = ctx.participant(params.unit_id)
        unit = ctx.unit(params.unit_id)
        kind = SupportKind(params.kind)
        level = ASSET_LEVELS[params.asset_level]
        outcome = request_support(
            dice=dice,
            kind=kind,
            caller_leadership=_leadership(unit),
            caller_level=command_level(unit),
            asset_level=level,
            dedicated=params.dedicated,
            chits=params.chits,
            factors=ctx.options.support_factors,
        )
        mission = None
        if outcome.granted:
            side = ctx.sides[participant.side]
            box = params.start_box or starting_box(
                kind, asset_level=level, start=ctx.options.inbound_start
            )
            arrival = FireMissionArrival(ctx.options.fire_mission_arrival)
            mission = FireMissionRecord(
                mission_id=new_id("fire mission"),
                number=len(support_state(side)["missions"]) + 1,
                unit_id=unit.id,
                kind=params.kind,
                asset_level=params.asset_level,
                delivery=params.delivery,
                warhead=params.warhead,
                rounds=params.rounds,
                target=params.target,
                terrain_feature=params.terrain_feature,
                requested_turn=ctx.battle.turn,
                box=box,
                available_turn=available_turn(ctx.battle.turn, box, arrival=arrival),
            )
        return [
            FireSupportRequested(
                battle_id=ctx.battle.id,
                side=participant.side,
                unit_id=unit.id,
                turn=ctx.battle.turn,
                kind=params.kind,
                dedicated=params.dedicated,
                chits=params.chits,
                bypassed=outcome.bypassed,
                die=outcome.die.value,
                target=outcome.target,
                granted=outcome.granted,
                mission=mission,
                dice=dice_json(outcome.rolls),
            )
        ]


class FireMissionLandParams(Params):
    mission_id: uuid.UUID
    guided: bool = Field(
        default=False,
        description="The requesting unit has a specialist observer with designation equipment "
        "who can still see the impact point: the roll must beat its LV, not twice it (P.46).",
    )


def _mission_available(ctx: BattleContext, side: BattleSide, mission: Mapping[str, Any]) -> None:
    if ctx.battle.turn < mission["available_turn"]:
        raise StateConflict(
            "fire_mission.still_inbound",
            f"{side.side}'s fire mission {mission['number']} is still on the Inbound Chart: it "
            f"can come down from turn {mission['available_turn']}.",
            field="mission_id",
        )


@battle_action
class FireMissionLand(BattleAction):
    """A fire mission comes down (SG2 P.46), as the side's activation: the requesting unit's
    quality die decides whether it lands on its marker; where it deviates to and where each
    further round of the salvo falls are rolled.

    Dice: the accuracy die; if it failed, D12 direction and D8 distance; per further round, D12
    direction and D6 distance from the first round.
    """

    action = "fire_mission_land"
    Params = FireMissionLandParams

    def check_action(self, ctx: BattleContext, params: FireMissionLandParams) -> None:
        side, mission = find_mission(ctx, params.mission_id)
        if mission["status"] != "inbound":
            raise StateConflict(
                "fire_mission.already_landed",
                f"{side.side}'s fire mission {mission['number']} has already come down.",
                field="mission_id",
            )
        _mission_available(ctx, side, mission)
        unit = ctx.unit(uuid.UUID(mission["unit_id"]))
        if not unit.quality or not unit.leadership:
            raise StateConflict(
                "fire_mission.no_quality",
                f"{unit.name} needs a quality and leadership on the roster for the accuracy roll "
                "(P.46).",
                field="mission_id",
            )

    def resolve(
        self, ctx: BattleContext, params: FireMissionLandParams, dice: DiceSource
    ) -> list[Any]:
        side, mission = find_mission(ctx, params.mission_id)
        unit = ctx.unit(uuid.UUID(mission["unit_id"]))
        with rolling_for(dice, str(unit.id)):
            outcome = fire_mission_landing(
                dice=dice,
                quality=Quality[unit.quality.upper()],
                leadership=_leadership(unit),
                guided=params.guided,
                rounds=mission["rounds"],
                in_large_feature=mission.get("terrain_feature") == "large",
            )
        return [
            FireMissionLanded(
                battle_id=ctx.battle.id,
                side=side.side,
                mission_id=params.mission_id,
                unit_id=unit.id,
                turn=ctx.battle.turn,
                guided=params.guided,
                feature_direction=outcome.feature_direction,
                feature_distance=outcome.feature_distance,
                accurate=outcome.accurate,
                accuracy_die=outcome.accuracy_die.value,
                accuracy_roll=outcome.accuracy_roll,
                target=outcome.target,
                deviation_direction=outcome.deviation_direction,
                deviation_distance=outcome.deviation_distance,
                rounds=[
                    RoundRecord(round=r.round, direction=r.direction, distance=r.distance)
                    for r in outcome.rounds
                ],
                dice=dice_json(outcome.rolls),
            )
        ]


class CaughtTrooper(Params):
    trooper_id: uuid.UUID
    cover: CoverName = Field(
        default="open",
        description="Cover between him and this burst: a round landing behind a wall gives no "
        "wall cover (P.47).",
    )


class BurstParams(Params):
    round: int = Field(ge=1, le=MAX_SALVO_ROUNDS, description="The round of the salvo.")
    troopers: list[CaughtTrooper] = Field(
        default_factory=list, max_length=120, description="Figures inside its burst radius."
    )


class FireMissionImpactParams(Params):
    mission_id: uuid.UUID
    bursts: list[BurstParams] = Field(
        default_factory=list,
        max_length=MAX_SALVO_ROUNDS,
        description="For each round whose burst radius holds figures, who is inside it; rounds "
        "that caught nobody are left out.",
    )
    in_position: list[uuid.UUID] = Field(
        default_factory=list,
        description="Units caught that are IN POSITION: armour one type higher against "
        "indirect fire (P.13).",
    )


@battle_action
class FireMissionImpact(BattleAction):
    """A landed fire mission's bursts (SG2 P.46-47). For every figure inside a burst radius, once
    per burst: the warhead's impact die against his armour die, shifted up for cover between him
    and the burst and for being in position (an open shift). Above armour wounds, above twice
    kills; two wounds kill. Every unit with a figure caught is suppressed, hurt or not.

    Dice: unit by unit in the order first named, figure by figure, burst by burst: the impact die
    then the armour die; then a D6 per new power-armour casualty of the unit.
    """

    action = "fire_mission_impact"
    Params = FireMissionImpactParams

    def check_action(self, ctx: BattleContext, params: FireMissionImpactParams) -> None:
        side, mission = find_mission(ctx, params.mission_id)
        if mission["status"] == "inbound":
            raise StateConflict(
                "fire_mission.not_landed",
                f"{side.side}'s fire mission {mission['number']} has not come down yet "
                "(action fire_mission_land).",
                field="mission_id",
            )
        if mission["status"] == "fired":
            raise StateConflict(
                "fire_mission.already_fired",
                f"{side.side}'s fire mission {mission['number']} has already burst.",
                field="mission_id",
            )
        rounds_seen: set[int] = set()
        caught_units: set[uuid.UUID] = set()
        for index, burst in enumerate(params.bursts):
            field = f"bursts.{index}"
            if burst.round > mission["rounds"]:
                raise CommandError(
                    "fire_mission.no_such_round",
                    f"The salvo has {_count(mission['rounds'], 'round')}.",
                    field=f"{field}.round",
                )
            if burst.round in rounds_seen:
                raise CommandError(
                    "fire_mission.round_twice", "Name each round once.", field=f"{field}.round"
                )
            rounds_seen.add(burst.round)
            in_burst: set[uuid.UUID] = set()
            for number, caught in enumerate(burst.troopers):
                where = f"{field}.troopers.{number}.trooper_id"
                if caught.trooper_id in in_burst:
                    raise CommandError(
                        "fire_mission.trooper_twice",
                        "A figure is inside a burst once.",
                        field=where,
                    )
                in_burst.add(caught.trooper_id)
                trooper = Trooper.objects.filter(pk=caught.trooper_id).first()
                if trooper is None or trooper.unit_id not in ctx.participants:
                    raise CommandError(
                        "battle.not_a_participant",
                        "That trooper is not in a unit fighting in this battle.",
                        field=where,
                    )
                ctx.participant(trooper.unit_id, field=where)
                require_on_table(trooper, where)
                require_armour_die([trooper], where)
                caught_units.add(trooper.unit_id)
        for index, unit_id in enumerate(params.in_position):
            if unit_id not in caught_units:
                raise CommandError(
                    "fire_mission.not_caught",
                    "Only a unit with a figure in a burst can claim to be in position.",
                    field=f"in_position.{index}",
                )

    def resolve(
        self, ctx: BattleContext, params: FireMissionImpactParams, dice: DiceSource
    ) -> list[Any]:
        side, mission = find_mission(ctx, params.mission_id)
        warhead = Warhead[mission["warhead"].upper()]
        exposures = self._exposures(params)
        troopers = {
            t.id: t
            for t in Trooper.objects.filter(pk__in=[i for unit in exposures.values() for i in unit])
        }
        units: list[StruckUnit] = []
        burst_rolls: list[BurstRollRecord] = []
        all_rolls: list[Roll] = []
        casualty_events: list[CasualtiesResolved] = []
        for unit_id, caught in exposures.items():
            with rolling_for(dice, str(unit_id)):
                outcome = artillery_casualties(
                    dice=dice,
                    exposures=[
                        BurstExposure(
                            figure=figure_of(troopers[trooper_id]),
                            bursts=tuple(Cover[cover.upper()] for _, cover in bursts),
                            in_position=unit_id in params.in_position,
                        )
                        for trooper_id, bursts in caught.items()
                    ],
                    warhead=warhead,
                    rewound_kills=ctx.options.rewound_kills,
                    rewound_reverts_to_untreated=ctx.options.rewound_reverts_to_untreated,
                    environment=ctx.options.environment,
                )
            all_rolls += outcome.rolls
            burst_rolls += [
                _burst_record(roll, caught[uuid.UUID(roll.figure_id)])
                for roll in outcome.burst_rolls
            ]
            changes = _casualties(outcome, troopers)
            if changes:
                casualty_events.append(
                    CasualtiesResolved(
                        battle_id=ctx.battle.id,
                        unit_id=unit_id,
                        turn=ctx.battle.turn,
                        mode="artillery",
                        impact_die=warhead.dispersed_impact.value,
                        casualties=changes,
                        leaders_down=leaders_down(ctx, changes),
                        dice=dice_json(outcome.rolls),
                    )
                )
            units.append(self._struck_unit(ctx, unit_id, len(caught), len(changes)))
        delivery = DeliverySystem(mission["delivery"])
        struck = FireMissionStruck(
            battle_id=ctx.battle.id,
            side=side.side,
            mission_id=params.mission_id,
            turn=ctx.battle.turn,
            warhead=mission["warhead"],
            delivery=mission["delivery"],
            burst_radius=delivery.burst_radius_inches,
            units=units,
            burst_rolls=burst_rolls,
            dice=dice_json(all_rolls),
        )
        return [struck, *casualty_events]

    @staticmethod
    def _exposures(
        params: FireMissionImpactParams,
    ) -> dict[uuid.UUID, dict[uuid.UUID, list[tuple[int, str]]]]:
        """Unit -> trooper -> (round, cover) of each burst he is in, in the order first named and
        round by round."""
        unit_of = dict(
            Trooper.objects.filter(
                pk__in=[c.trooper_id for burst in params.bursts for c in burst.troopers]
            ).values_list("id", "unit_id")
        )
        exposures: dict[uuid.UUID, dict[uuid.UUID, list[tuple[int, str]]]] = {}
        for burst in sorted(params.bursts, key=lambda b: b.round):
            for caught in burst.troopers:
                unit = exposures.setdefault(unit_of[caught.trooper_id], {})
                unit.setdefault(caught.trooper_id, []).append((burst.round, caught.cover))
        # Units and figures in the order the umpire first named them.
        first_named = [c.trooper_id for burst in params.bursts for c in burst.troopers]
        order = {trooper_id: first_named.index(trooper_id) for trooper_id in set(first_named)}
        return {
            unit_id: dict(sorted(caught.items(), key=lambda item: order[item[0]]))
            for unit_id, caught in sorted(
                exposures.items(), key=lambda item: min(order[t] for t in item[1])
            )
        }

    @staticmethod
    def _struck_unit(
        ctx: BattleContext, unit_id: uuid.UUID, caught: int, casualties: int
    ) -> StruckUnit:
        participant = ctx.participants[unit_id]
        markers = place_markers(participant.suppression, 1)
        # P.20: casualties from fire, or a first suppression by fire; the artillery attack is
        # the "+" row, a test of its own only by the option artillery_attack_alone_triggers_test
        # (the confidence test action reads it).
        due: list[ConfidenceCircumstance] = []
        if casualties:
            due.append(ConfidenceCircumstance.CASUALTIES_FROM_FIRE)
        elif not suppressed_by_fire_before(ctx, unit_id):
            due.append(ConfidenceCircumstance.FIRST_SUPPRESSED_BY_FIRE)
        due.append(ConfidenceCircumstance.ARTILLERY_OR_AEROSPACE_ATTACK)
        return StruckUnit(
            unit_id=unit_id,
            figures_caught=caught,
            casualties=casualties,
            suppression_before=markers.before,
            suppression_after=markers.after,
            confidence_test_for=test_called_for(ctx, participant, due),
        )


def _burst_record(roll: BurstRoll, bursts: Sequence[tuple[int, str]]) -> BurstRollRecord:
    # The rules number a figure's bursts 1, 2, ... in the order given: his rounds, in order.
    return BurstRollRecord(
        trooper_id=uuid.UUID(roll.figure_id),
        round=bursts[roll.burst_number - 1][0],
        impact_die=roll.impact_die.value,
        armour_die=roll.armour_die.value,
        impact_roll=roll.impact_roll,
        armour_roll=roll.armour_roll,
        result=roll.result.value,
    )


def _casualties(
    outcome: ArtilleryCasualtiesOutcome, troopers: Mapping[uuid.UUID, Trooper]
) -> list[TrooperCasualty]:
    """Each casualty with his own dice, in the order :func:`artillery_casualties` rolls them:
    an impact and an armour die per figure and burst, then a D6 per new power-armour casualty."""
    per_figure: dict[str, list[Roll]] = {}
    for index, burst in enumerate(outcome.burst_rolls):
        per_figure.setdefault(burst.figure_id, []).extend(outcome.rolls[2 * index : 2 * index + 2])
    power_armour = iter(outcome.rolls[2 * len(outcome.burst_rolls) :])
    return [
        trooper_casualty(
            troopers[uuid.UUID(change.figure_id)],
            change,
            per_figure[change.figure_id]
            + ([next(power_armour)] if change.power_armour_roll is not None else []),
        )
        for change in outcome.casualties
    ]


def _leadership(unit: Unit) -> int:
    # Checked before any die: the actions refuse a unit without one.
    assert unit.leadership is not None
    return unit.leadership


def _count(number: int, word: str) -> str:
    return f"{number} {word}{'s' if number != 1 else ''}"


# --- Projection -----------------------------------------------------------------------------------

_KIND_TEXT = {"artillery": "artillery", "orbital": "orbital fire"}


def _update_support(rows: Rows, battle_id: str, side: str, **changes: Any) -> dict[str, Any]:
    key = f"{battle_id}:{side}"
    row = rows.get(BattleSide, key)
    state = support_state(row or {})
    state.update(changes)
    if row is not None:
        rows.update(BattleSide, key, support=state)
    return state


def _update_mission(rows: Rows, p: Mapping[str, Any], **changes: Any) -> dict[str, Any]:
    row = rows.get(BattleSide, f"{p['battle_id']}:{p['side']}")
    state = support_state(row or {})
    missions = [
        {**m, **changes} if m["mission_id"] == p["mission_id"] else m for m in state["missions"]
    ]
    _update_support(rows, p["battle_id"], p["side"], missions=missions)
    return next(m for m in missions if m["mission_id"] == p["mission_id"])


@register
class FireSupportProjection(Projection):
    """Each side's support counters and fire missions, the suppression artillery puts on units,
    and the log lines (rows of the battles projection)."""

    name = "battles.fire_support"

    @Projection.handles("battles.SupportChitsRolled")
    def chits_rolled(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        _update_support(rows, p["battle_id"], p["side"], chits_rolled=p["chits"])
        log(
            rows,
            event,
            f"{p['side']} rolled for support request counters: {p['chits']} (P.44)."
            + dice_text(p["dice"]),
        )

    @Projection.handles("battles.FireSupportRequested")
    def requested(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        row = rows.get(BattleSide, f"{p['battle_id']}:{p['side']}")
        state = support_state(row or {})
        missions = list(state["missions"])
        mission = p["mission"]
        if mission is not None:
            missions.append(
                {
                    **mission,
                    "side": p["side"],
                    "status": "inbound",
                    "landing": None,
                    "fired_turn": None,
                }
            )
        _update_support(
            rows,
            p["battle_id"],
            p["side"],
            chits_spent=state["chits_spent"] + p["chits"],
            missions=missions,
        )
        caller = unit_name(rows, p["unit_id"])
        spent = (
            f", {p['chits']} counter{'s' if p['chits'] != 1 else ''} committed"
            if p["chits"]
            else ""
        )
        line = (
            f"{caller} requested {_KIND_TEXT[p['kind']]} (d{p['die']}{spent}, needing more than "
            f"{p['target']}): "
        )
        if mission is None:
            line += "the request did not get through."
        else:
            when = (
                "it can come down this turn"
                if mission["available_turn"] <= p["turn"]
                else f"it can come down from turn {mission['available_turn']}"
            )
            line += (
                f"fire mission {mission['number']} ("
                f"{_count(mission['rounds'], mission['delivery'].replace('_', ' ') + ' round')}, "
                f"{mission['warhead'].replace('_', ' ')}) goes on the Inbound Chart in box "
                f"{mission['box']}; {when}."
            )
        log(rows, event, line + dice_text(p["dice"]))

    @Projection.handles("battles.FireMissionLanded")
    def landed(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        landing = {
            "accurate": p["accurate"],
            "deviation_direction": p["deviation_direction"],
            "deviation_distance": p["deviation_distance"],
            "rounds": p["rounds"],
        }
        mission = _update_mission(rows, p, status="landed", landing=landing)
        needed = "its LV" if p["guided"] else "twice its LV"
        placed = ""
        if p.get("feature_direction") is not None:
            placed = (
                f"placed {p['feature_distance']}\" from the terrain feature's centre towards "
                f"{p['feature_direction']} o'clock (not past its edge), "
            )
        line = (
            f"{unit_name(rows, p['unit_id'])}'s fire mission {mission['number']} came down: "
            f"{placed}accuracy d{p['accuracy_die']} rolled {p['accuracy_roll']} against "
            f"{p['target']} ({needed}), "
        )
        if p["accurate"]:
            line += "on the impact marker"
        else:
            line += (
                f"deviating {p['deviation_distance']}\" towards {p['deviation_direction']} o'clock"
            )
        others = [r for r in p["rounds"] if r["round"] > 1]
        if others:
            line += "; " + ", ".join(
                f'round {r["round"]} {r["distance"]}" from round 1 towards {r["direction"]} '
                "o'clock"
                for r in others
            )
        log(rows, event, line + "." + dice_text(p["dice"]))

    @Projection.handles(FIRE_MISSION_STRUCK_EVENT)
    def struck(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        mission = _update_mission(rows, p, status="fired", fired_turn=p["turn"])
        told = []
        for unit in p["units"]:
            key = participant_key(p["battle_id"], unit["unit_id"])
            if rows.get(Participant, key) is not None:
                rows.update(Participant, key, suppression=unit["suppression_after"])
            name = unit_name(rows, unit["unit_id"])
            hurt = unit["casualties"]
            caught = unit["figures_caught"]
            text = (
                f"{name}: {caught} figure{'s' if caught != 1 else ''} caught, "
                f"{hurt} casualt{'ies' if hurt != 1 else 'y'}, suppressed "
                f"({_count(unit['suppression_after'], 'marker')})"
            )
            basic = [c for c in unit["confidence_test_for"] if c != "artillery_or_aerospace_attack"]
            if basic:
                why = " and ".join(c.replace("_", " ") for c in unit["confidence_test_for"])
                text += f", must take a confidence test ({why}, P.20)"
            told.append(text)
        line = (
            f"{p['side']}'s fire mission {mission['number']} burst "
            f'({p["warhead"].replace("_", " ")}, {p["burst_radius"]}" radius): '
        )
        line += "; ".join(told) if told else "nobody was caught"
        log(rows, event, line + "." + dice_text(p["dice"]))
