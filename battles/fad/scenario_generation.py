"""A Fast and Dirty battle generated from the scenario tables (FaD p.59-63), and the random
campaign that makes each next battle this way (p.64).

The umpire gives each side's secret choices (stance, attitude, the two missions it gives +1,
the order it prefers missions in on a tie, the units it sends on recon duty); the command rolls
the table edge, both Mission Tables, the recon units' return and who places markers first, with
the table's dice or the server's in a job, and plans the battle with each side's mission card
in the same transaction as the event that keeps every die (``battles.FadScenarioGenerated``).

A recon unit destroyed in an ambush (p.61) is a loss of this battle: it is committed to it and
its figures are killed and vehicles destroyed (``battles.FadLossesRecorded``), so the post-battle
steps (p.66) roll its replacements as for any unit eliminated in the battle. A delayed unit is
committed by the umpire as usual and enters on turn 2 from its side's edge.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from battles import events as battle_events
from battles.after_action.fad_events import DamagedVehicle, FadLossesRecorded, LostFigure
from battles.after_action.fad_roster import reinforced_platoons
from battles.models import Battle
from battles.projections import dice_text, log, unit_name
from battles.services import battle_stream
from campaigns.events import DieRoll, dice_json
from campaigns.models import Campaign
from eventlog import commands
from eventlog.catalogue import EventPayload, event_type
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Force, Trooper, Unit, Vehicle
from rosters.vocabulary import TrooperStatus, UnitKind, UnitStatus, VehicleState
from rules.dice import DiceSource
from rules.fad import scenarios as rules
from rules.fad.tree import Mission
from rules.options import parse_options
from rules.rulesets import Ruleset, definition

SCENARIO_GENERATED = "battles.FadScenarioGenerated"
# Traits (kept on a FaD unit's ``specialists``) that change its contact markers (p.61).
_MORE_MARKERS = frozenset({"elusive", "stealth"})
_FEWER_MARKERS = frozenset({"flyer", "relentless"})
_GONE = (UnitStatus.DISBANDED, UnitStatus.WITHDRAWN)


class GeneratedSide(Params):
    """One side's choices before the dice (FaD p.59-61)."""

    side: str = Field(min_length=1, max_length=100)
    force_ids: list[uuid.UUID] = Field(min_length=1)
    stance: rules.Stance = Field(
        description="Chosen in secret (p.59): offensive, neutral or defensive."
    )
    attitude: rules.Attitude = Field(
        description="Chosen in secret (p.59): aggressive, cautious or passive."
    )
    mission_bonuses: list[Mission] = Field(
        default_factory=list,
        max_length=2,
        description="The (up to) two missions of the Mission Table the side gives +1 (p.61).",
    )
    mission_preference: list[Mission] = Field(
        default_factory=list,
        max_length=8,
        description="The missions in the order the side prefers them when its highest totals "
        "tie (p.61: the player chooses); tied missions left out go in the table's order.",
    )
    recon_unit_ids: list[uuid.UUID] = Field(
        default_factory=list,
        description="Units sent on recon duty (p.60): up to one squad of each platoon, any "
        "squad with Infiltration or Recon, up to one vehicle per platoon.",
    )


class GenerateParams(Params):
    name: str = Field(min_length=1, max_length=200)
    day: int = Field(ge=0)
    sides: list[GeneratedSide] = Field(min_length=2, max_length=2)


class ReconReturned(EventPayload):
    unit_id: uuid.UUID
    modifier: int = Field(description="+1 with the Infiltrate or Recon trait.")
    total: int
    fate: rules.ReconFate
    dice: list[DieRoll]


class ScenarioSide(EventPayload):
    """One side's part of the generated scenario."""

    side: str
    stance: rules.Stance
    attitude: rules.Attitude
    platoons: int = Field(ge=0)
    recon_points: int
    deployment_depth: int = Field(description="Inches from the side's table edge (p.60).")
    field_defences: int = Field(
        ge=0,
        description="Field defences placed for the stance and "
        "attitude (p.60); the Hold mission adds three more (p.62).",
    )
    artillery_calls: int = Field(ge=0, description="Offensive stance: two medium-cannon calls.")
    under_fire_ignored: int = Field(ge=0, description="Aggressive attitude: three Under Fire.")
    mission_bonuses: list[Mission]
    mission_totals: dict[str, int]
    missions_tied: list[Mission]
    rolled_mission: Mission
    mission: Mission
    mission_bonus: str = Field(description="What the mission gives the force (p.62-63).")
    dummy_markers: int = Field(ge=0)
    true_markers: int = Field(ge=0)
    recon: list[ReconReturned]
    mission_dice: list[DieRoll]


@event_type(SCENARIO_GENERATED, stream="battle")
class FadScenarioGenerated(EventPayload):
    """A Fast and Dirty battle's scenario was generated (FaD p.59-63): each side's stance,
    attitude, Recon Points, Mission Table roll and mission, the recon units' fate, the table
    edge and who places first; every die in ``dice`` in the order rolled."""

    battle_id: uuid.UUID
    battle_number: int = Field(ge=1, description="The battle's place in the campaign.")
    battles_planned: int | None = Field(
        default=None, description="A random campaign's agreed number of battles (p.64)."
    )
    escalating_engagement: bool
    edge_chosen_by: str
    edge_dice: list[DieRoll]
    first_to_place: str
    placement_dice: list[DieRoll]
    sides: list[ScenarioSide] = Field(min_length=2, max_length=2)
    dice: list[DieRoll]


@dataclass(frozen=True)
class _SideUnits:
    platoons: int
    units: list[Unit]
    recon: list[Unit]


@dataclass(frozen=True)
class GenerateState:
    campaign: Campaign
    options: Any
    battles: int
    unfinished: str | None
    sides: list[_SideUnits]


def _traits(unit: Unit) -> set[str]:
    return {str(trait).strip().lower() for trait in unit.specialists}


@commands.command
class GenerateFadScenario(Command[GenerateParams, GenerateState]):
    """Generate a Fast and Dirty battle from the scenario tables and plan it (FaD p.59-63).

    Each side's secret stance and attitude, the two missions it gives +1 and the units it sends
    on recon duty are given; the dice decide the rest. In order: each side's 1d6 + Recon Points
    for the choice of table edge (ties rolled again); the first side's eight Mission Table d6,
    then the second's (same mission for both: Escalating Engagement); a d6 for each recon unit,
    first side first (not in an Escalating Engagement, where the recon forces have already
    met); with equal contact markers, each side's d6 for who places first (lowest; ties
    rolled again). Each side's mission card gets its mission's objectives and victory
    conditions; a recon unit destroyed in an ambush is lost in this battle.

    In a random campaign (option ``campaign_structure`` = random, FaD p.64) this is how every
    battle is made: the next is generated once the last has ended, until the agreed number of
    battles (option ``campaign_battles_planned``) has been fought.
    """

    name = "battles.generate_fad_scenario"
    Params = GenerateParams
    rolls_dice = True
    invalid_code = "scenario.invalid"

    def load(self, ctx: CommandContext, params: GenerateParams) -> GenerateState:
        campaign = Campaign.objects.get(pk=ctx.campaign_id)
        options = parse_options(campaign.ruleset, campaign.options)
        battles = Battle.objects.filter(campaign_id=ctx.campaign_id)
        unfinished = battles.exclude(status=Battle.Status.ENDED).order_by("planned_sequence")
        open_battle = unfinished.values_list("name", flat=True).first()
        sides = []
        for side in params.sides:
            forces = list(Force.objects.filter(campaign_id=ctx.campaign_id, id__in=side.force_ids))
            units = list(
                Unit.objects.filter(force_id__in=[f.id for f in forces])
                .exclude(status__in=_GONE)
                .order_by("force_id", "order")
            )
            count = getattr(options, "campaign_reinforced_platoon_count", "attachments_round_up")
            platoons = sum(reinforced_platoons(force, count) for force in forces)
            by_id = {u.id: u for u in units}
            recon = [by_id[i] for i in side.recon_unit_ids if i in by_id]
            sides.append(_SideUnits(platoons=platoons, units=units, recon=recon))
        return GenerateState(
            campaign=campaign,
            options=options,
            battles=battles.count(),
            unfinished=open_battle,
            sides=sides,
        )

    def check(self, ctx: CommandContext, state: GenerateState, params: GenerateParams) -> None:
        if state.campaign.ruleset != Ruleset.FAD.value:
            raise RuleViolation(
                "scenario.not_fast_and_dirty",
                "Scenario generation is Fast and Dirty's (FaD p.59); this campaign plays "
                f"{state.campaign.ruleset.upper()}: plan its battles instead.",
                field="sides",
            )
        _check_random_campaign(state)
        if state.options.campaign_structure == "random" and ctx.jobs_in_flight(self.name):
            raise StateConflict(
                "campaign.battle_being_generated",
                "The server is already rolling this random campaign's next battle (FaD p.64).",
                field="sides",
            )
        names = [side.side for side in params.sides]
        if len(set(names)) != len(names):
            raise CommandError(
                "battle.same_side", "The two sides need different names.", field="sides"
            )
        seen: set[uuid.UUID] = set()
        for index, (side, found) in enumerate(zip(params.sides, state.sides, strict=True)):
            _check_forces(ctx, side, index, seen)
            try:
                rules.check_mission_bonuses(side.mission_bonuses)
            except rules.ScenarioError as error:
                raise CommandError(
                    error.code, str(error), field=f"sides.{index}.mission_bonuses"
                ) from None
            if len(set(side.mission_preference)) != len(side.mission_preference) or (
                Mission.ESCALATING_ENGAGEMENT in side.mission_preference
            ):
                raise CommandError(
                    "scenario.invalid_preference",
                    "Name each mission of the Mission Table at most once (p.61).",
                    field=f"sides.{index}.mission_preference",
                )
            _check_recon(side, found, index)

    def decide(
        self,
        ctx: CommandContext,
        state: GenerateState,
        params: GenerateParams,
        dice: DiceSource | None,
    ) -> Decision:
        assert dice is not None  # rolls_dice: the table's or the server's
        setups = [
            _setup(side, found) for side, found in zip(params.sides, state.sides, strict=True)
        ]
        scenario = rules.generate_scenario(
            first=setups[0],
            second=setups[1],
            dice=dice,
            scenario_stance_dummy_markers=str(state.options.scenario_stance_dummy_markers),
        )
        battle_id = ctx.new_id("battle")
        planned = battle_events.BattlePlanned(
            battle_id=battle_id,
            name=params.name,
            day=params.day,
            scenario=_scenario_text(scenario),
            sides=[
                _mission_card(side, generated)
                for side, generated in zip(params.sides, scenario.forces, strict=True)
            ],
        )
        names = [side.side for side in params.sides]
        generated = FadScenarioGenerated(
            battle_id=battle_id,
            battle_number=state.battles + 1,
            battles_planned=_battles_planned(state),
            escalating_engagement=scenario.escalating_engagement,
            edge_chosen_by=names[scenario.edge_roll.winner],
            edge_dice=dice_json(scenario.edge_roll.rolls),
            first_to_place=names[scenario.first_to_place],
            placement_dice=dice_json(
                scenario.placement_roll.rolls if scenario.placement_roll else ()
            ),
            sides=[
                _side_record(side, found, generated)
                for side, found, generated in zip(
                    params.sides, state.sides, scenario.forces, strict=True
                )
            ],
            dice=dice_json(scenario.rolls),
        )
        payloads: list[EventPayload] = [planned, generated]
        payloads.extend(_ambushed(ctx, state, params, scenario, battle_id))
        return Decision.of(payloads, stream=battle_stream(battle_id), result=battle_id)


def _battles_planned(state: GenerateState) -> int | None:
    if state.options.campaign_structure != "random":
        return None
    planned = state.options.campaign_battles_planned
    return int(planned) if planned is not None else None


def _check_random_campaign(state: GenerateState) -> None:
    """A random campaign (FaD p.64): the next battle comes up once the last has been fought,
    and no more than the agreed number are fought."""
    if state.options.campaign_structure != "random":
        return
    if state.unfinished is not None:
        raise StateConflict(
            "campaign.battle_not_over",
            f"{state.unfinished} has not ended: a random campaign generates its next battle "
            "when the last one is over (FaD p.64).",
            field="sides",
        )
    planned = state.options.campaign_battles_planned
    if planned is not None and state.battles >= planned:
        raise StateConflict(
            "campaign.over",
            f"The {planned} battles agreed for this random campaign have been fought (FaD "
            "p.64): the campaign is over.",
            field="sides",
        )


def _check_forces(
    ctx: CommandContext, side: GeneratedSide, index: int, seen: set[uuid.UUID]
) -> None:
    known = set(
        Force.objects.filter(campaign_id=ctx.campaign_id, id__in=side.force_ids).values_list(
            "id", flat=True
        )
    )
    for force_id in side.force_ids:
        if force_id not in known:
            raise CommandError(
                "battle.unknown_force",
                f"{side.side}: force {force_id} is not in this campaign.",
                field=f"sides.{index}.force_ids",
            )
        if force_id in seen:
            raise CommandError(
                "battle.force_twice",
                "A force can fight on one side only.",
                field=f"sides.{index}.force_ids",
            )
        seen.add(force_id)


def _platoon_of(unit: Unit, by_id: dict[uuid.UUID, Unit]) -> uuid.UUID | None:
    parent = by_id.get(unit.parent_id) if unit.parent_id else None
    while parent is not None:
        if parent.kind == UnitKind.PLATOON:
            return parent.id
        parent = by_id.get(parent.parent_id) if parent.parent_id else None
    return None


def _check_recon(side: GeneratedSide, found: _SideUnits, index: int) -> None:
    """FaD p.60: up to one squad of each platoon (a squad of the platoon itself, not a
    supporting unit), any squad with Infiltration or Recon, up to one vehicle per platoon;
    never a Reluctant unit nor one with Berserk, Hivemind, Relentless, Shaky or Zombie."""
    by_id = {u.id: u for u in found.units}
    has_platoons = any(u.kind == UnitKind.PLATOON for u in found.units)
    squads_of: dict[Any, str] = {}
    vehicles = 0
    if len(set(side.recon_unit_ids)) != len(side.recon_unit_ids):
        raise CommandError(
            "scenario.recon_twice",
            "A unit is named twice for recon duty.",
            field=f"sides.{index}.recon_unit_ids",
        )
    for position, unit_id in enumerate(side.recon_unit_ids):
        where = f"sides.{index}.recon_unit_ids.{position}"
        unit = by_id.get(unit_id)
        if unit is None or UnitKind(unit.kind).is_formation:
            raise CommandError(
                "scenario.recon_unit_unknown",
                f"That unit is not one of {side.side}'s units able to fight.",
                field=where,
            )
        barred = rules.recon_barred(resolve=unit.resolve, traits=list(_traits(unit)))
        if barred is not None:
            raise RuleViolation(
                "scenario.recon_barred",
                f"{unit.name} cannot go on recon duty: {barred} (FaD p.60).",
                field=where,
            )
        if unit.kind == UnitKind.VEHICLE_CREW:
            vehicles += 1
            if vehicles > max(found.platoons, 1):
                raise RuleViolation(
                    "scenario.recon_too_many",
                    f"{side.side} may send one vehicle per platoon on recon duty (FaD p.60).",
                    field=where,
                )
            continue
        if rules.has_recon_trait(list(_traits(unit))):
            continue
        platoon = _platoon_of(unit, by_id)
        if unit.kind != UnitKind.SQUAD or (platoon is None and has_platoons):
            raise RuleViolation(
                "scenario.recon_not_a_platoon_squad",
                f"{unit.name} is not a squad of a platoon: recon duty takes a platoon's own "
                "squad, not a supporting unit, unless it has Infiltration or Recon (FaD p.60).",
                field=where,
            )
        key = platoon or unit.force_id
        if key in squads_of:
            raise RuleViolation(
                "scenario.recon_too_many",
                f"{unit.name} and {squads_of[key]} are of one platoon: up to one squad per "
                "platoon goes on recon duty (FaD p.60).",
                field=where,
            )
        squads_of[key] = unit.name


def _setup(side: GeneratedSide, found: _SideUnits) -> rules.ForceSetup:
    fighting = [u for u in found.units if not UnitKind(u.kind).is_formation]
    return rules.ForceSetup(
        name=side.side,
        stance=side.stance,
        attitude=side.attitude,
        platoons=found.platoons,
        units=len(fighting),
        elusive_or_stealth_units=sum(1 for u in fighting if _traits(u) & _MORE_MARKERS),
        flyer_or_relentless_units=sum(1 for u in fighting if _traits(u) & _FEWER_MARKERS),
        recon=tuple(
            rules.ReconUnit(
                key=str(u.id),
                name=u.name[:120],
                recon_trait=rules.has_recon_trait(list(_traits(u))),
            )
            for u in found.recon
        ),
        mission_bonuses=tuple(side.mission_bonuses),
        mission_preference=tuple(side.mission_preference),
    )


def _title(mission: Mission) -> str:
    return mission.value.replace("_", " ").title()


def _scenario_text(scenario: rules.Scenario) -> str:
    if scenario.escalating_engagement:
        return "FaD scenario generation (p.59-63): Escalating Engagement"
    missions = ", ".join(f"{f.name} {_title(f.mission)}" for f in scenario.forces)
    return f"FaD scenario generation (p.59-63): {missions}"


def _mission_card(side: GeneratedSide, generated: rules.ForceScenario) -> battle_events.SideMission:
    details = generated.details
    return battle_events.SideMission(
        side=side.side,
        force_ids=side.force_ids,
        objectives=list(details.objectives),
        victory_conditions=f"{_title(generated.mission)} ({details.page}): "
        f"{details.victory_conditions} Bonus: {details.bonus}",
    )


def _side_record(
    side: GeneratedSide, found: _SideUnits, generated: rules.ForceScenario
) -> ScenarioSide:
    roll = generated.mission_roll
    return ScenarioSide(
        side=side.side,
        stance=generated.stance,
        attitude=generated.attitude,
        platoons=found.platoons,
        recon_points=generated.recon_points,
        deployment_depth=generated.deployment_depth,
        field_defences=generated.field_defences,
        artillery_calls=generated.artillery_calls,
        under_fire_ignored=generated.under_fire_ignored,
        mission_bonuses=list(side.mission_bonuses),
        mission_totals={str(m): total for m, total in roll.totals.items()},
        missions_tied=list(roll.highest),
        rolled_mission=roll.mission,
        mission=generated.mission,
        mission_bonus=generated.details.bonus,
        dummy_markers=generated.dummy_markers,
        true_markers=generated.true_markers,
        recon=[
            ReconReturned(
                unit_id=uuid.UUID(unit.key),
                modifier=back.modifier,
                total=back.total,
                fate=back.fate,
                dice=dice_json([back.roll]),
            )
            for unit, back in generated.recon
        ],
        mission_dice=dice_json(roll.rolls),
    )


def _ambushed(
    ctx: CommandContext,
    state: GenerateState,
    params: GenerateParams,
    scenario: rules.Scenario,
    battle_id: uuid.UUID,
) -> list[EventPayload]:
    """The units destroyed by an ambush on recon duty (p.61): committed to the battle, whose
    loss they are, and every figure killed and vehicle destroyed."""
    lost = [
        (side.side, uuid.UUID(unit.key))
        for side, generated in zip(params.sides, scenario.forces, strict=True)
        for unit, back in generated.recon
        if back.fate is rules.ReconFate.DESTROYED
    ]
    if not lost:
        return []
    ruleset = definition(state.campaign.ruleset)
    units = {u.id: u for found in state.sides for u in found.recon}
    committed = []
    losses: list[EventPayload] = []
    for side, unit_id in lost:
        unit = units[unit_id]
        ready = ruleset.battle_readiness(
            unit.fatigue or None, supplied=unit.supplied, options=state.options
        )
        committed.append(
            battle_events.CommittedUnit(
                unit_id=unit.id,
                side=side,
                fatigue=ready.fatigue,
                starting_confidence=ready.confidence,
                mission_motivation="medium",
                unsupplied_effect=ready.unsupplied_effect,
            )
        )
        losses.append(
            FadLossesRecorded(
                battle_id=battle_id,
                unit_id=unit.id,
                turn=0,
                cause="recon_ambush",
                troopers=[
                    LostFigure(trooper_id=t.id, result="killed", status_before=t.status)
                    for t in Trooper.objects.filter(
                        unit_id=unit.id, status=TrooperStatus.FIT
                    ).order_by("order")
                ],
                vehicles=[
                    DamagedVehicle(vehicle_id=v.id, condition="destroyed", state_before=v.state)
                    for v in Vehicle.objects.filter(
                        unit_id=unit.id, state=VehicleState.OPERATIONAL
                    ).order_by("order")
                ],
            )
        )
    return [battle_events.UnitsCommitted(battle_id=battle_id, units=committed), *losses]


# --- the battle log ------------------------------------------------------------------------------

_FATES = {
    "destroyed": "destroyed in an ambush: the unit and a True marker are removed, a loss of "
    "this battle",
    "delayed": "delayed: it enters from its side's table edge on turn 2 (a True marker removed)",
    "on_time": "back in time to deploy with the rest of the force",
}


def _words(value: str) -> str:
    return value.replace("_", " ")


@register
class FadScenarioProjection(Projection):
    """The battle log of a generated Fast and Dirty scenario (rows of the battles projection)."""

    name = "battles.fad_scenario"
    version = 1

    @Projection.handles(SCENARIO_GENERATED)
    def generated(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        line = 0
        planned = f" of {p['battles_planned']}" if p["battles_planned"] else ""
        log(
            rows,
            event,
            f"Battle {p['battle_number']}{planned} generated from the scenario tables (FaD "
            f"p.59-63). {p['edge_chosen_by']} chooses the table edge (1d6 + Recon Points)"
            f"{dice_text(p['edge_dice'])}.",
            dice=p["edge_dice"],
        )
        for side in p["sides"]:
            line += 1
            # Sorted: PostgreSQL keeps a JSON object's keys in its own order, not the payload's.
            totals = ", ".join(
                f"{_words(m)} {t}" for m, t in sorted(side["mission_totals"].items())
            )
            others = [_words(m) for m in side["missions_tied"] if m != side["rolled_mission"]]
            tied = f" (tied with {', '.join(others)}: the side's choice)" if others else ""
            log(
                rows,
                event,
                f"{side['side']}: {side['stance']} stance, {side['attitude']} attitude, "
                f'{side["recon_points"]} Recon Points, deploys {side["deployment_depth"]}" '
                f"deep. Mission Table: {totals}; {_words(side['rolled_mission'])}{tied}"
                f"{dice_text(side['mission_dice'])}.",
                n=line,
                dice=side["mission_dice"],
            )
        if p["escalating_engagement"]:
            line += 1
            log(
                rows,
                event,
                "Both sides were assigned the same mission: an Escalating Engagement (FaD p.62). "
                f'Both deploy 18" deep; {p["first_to_place"]} places its recon units first.',
                n=line,
                dice=[],
            )
        for side in p["sides"]:
            line += 1
            log(
                rows,
                event,
                f"Mission for {side['side']}: {_words(side['mission']).title()}. Bonus: "
                f"{side['mission_bonus']}",
                n=line,
                dice=[],
            )
        for side in p["sides"]:
            for recon in side["recon"]:
                line += 1
                plus = f" + {recon['modifier']}" if recon["modifier"] else ""
                log(
                    rows,
                    event,
                    f"{unit_name(rows, recon['unit_id'])} ({side['side']}) returns from recon "
                    f"duty: {recon['dice'][0]['result']}{plus} = {recon['total']}, "
                    f"{_FATES[recon['fate']]}{dice_text(recon['dice'])}.",
                    n=line,
                    dice=recon["dice"],
                )
        if not p["escalating_engagement"]:
            line += 1
            markers = ", ".join(
                f"{s['side']} {s['true_markers']} True and {s['dummy_markers']} Dummy markers"
                for s in p["sides"]
            )
            log(
                rows,
                event,
                f"Contact markers: {markers}; {p['first_to_place']} places first"
                f"{dice_text(p['placement_dice'])}.",
                n=line,
                dice=p["placement_dice"],
            )
