"""Battle lifecycle commands: planning, committing units, starting, turns and ending.
Battle actions are in ``battles/actions.py``."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from pydantic import Field

from battles import events
from battles.events import SideMission
from battles.models import Battle, BattleSide, Participant
from battles.regroups import battle_regroups, check_regroups_persisting, settle_regroups
from campaigns.models import Campaign
from campaigns.secrets import Secrecy, hiding
from eventlog import commands
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import CommandError, NotFound, StateConflict
from eventlog.store import NewEvent
from rosters.fitness import kept_in_combat
from rosters.models import Force, Trooper, Unit
from rosters.services import UNIT_BUSY_CHECKS
from rosters.vocabulary import TrooperStatus, UnitKind, UnitStatus
from rules.dice import DiceSource
from rules.options import parse_options
from rules.rulesets import definition


def battle_stream(battle_id: Any) -> str:
    return f"battle:{battle_id}"


def require_status(battle: Battle, *allowed: str, doing: str) -> None:
    if battle.status not in allowed:
        raise StateConflict(
            "battle.wrong_state",
            f"{battle.name} is {battle.status.replace('_', ' ')}: you cannot {doing} now.",
            field="battle",
        )


def _battle_of(ctx: CommandContext, battle_id: uuid.UUID) -> Battle:
    battle = Battle.objects.filter(pk=battle_id, campaign_id=ctx.campaign_id).first()
    if battle is None:
        raise NotFound("battle.not_found", "No such battle.", field="battle_id")
    return battle


class BattleParams(Params):
    battle_id: uuid.UUID


class _OnBattle(Command[Any, Battle]):
    """A lifecycle step on an existing battle's stream: loads the battle under the lock."""

    invalid_code = "battle.invalid"

    def stream(self, ctx: CommandContext, params: Any) -> str:
        return battle_stream(params.battle_id)

    def load(self, ctx: CommandContext, params: Any) -> Battle:
        return _battle_of(ctx, params.battle_id)


class PlanParams(Params):
    name: str = Field(min_length=1, max_length=200)
    day: int = Field(ge=0)
    scenario: str = ""
    sides: list[SideMission] = Field(min_length=2, max_length=2)
    attacker: str | None = None
    next_on_attacker_win: uuid.UUID | None = None
    next_on_defender_win: uuid.UUID | None = None
    hidden: Secrecy | None = Field(
        default=None, description="Record the whole battle hidden, from its plan on."
    )
    hidden_missions: list[str] = Field(
        default_factory=list,
        max_length=2,
        description="The sides whose mission card is hidden from all but that side's players.",
    )


@dataclass(frozen=True)
class PlanState:
    forces: frozenset[uuid.UUID]
    battles: frozenset[uuid.UUID]
    # The campaign's options for what a side's mission leaves out: its mission motivation
    # (SG2 P.19) and the Inbound Chart box its casevac comes from (P.54).
    mission_motivation: str | None = None
    casevac_call_box: int | None = None
    # FaD p.64: a random campaign generates each battle (battles.generate_fad_scenario).
    random_campaign: bool = False


@commands.command
class BattlePlan(Command[PlanParams, PlanState]):
    """Plan a battle between two sides of the campaign.

    In a linear campaign a battle names the one that follows it (the same id for both
    outcomes); in a tree campaign (FaD p.65) the battle that follows an attacker's win and the one
    that follows a defender's win. Plan a tree from its last battles back to its first, so the
    battles named already exist.
    """

    name = "battles.plan"
    Params = PlanParams
    invalid_code = "battle.invalid"

    def load(self, ctx: CommandContext, params: PlanParams) -> PlanState:
        campaign = ctx.campaign_id
        row = Campaign.objects.get(pk=campaign)
        options = parse_options(row.ruleset, row.options)
        motivation = getattr(options, "mission_motivation", None)
        return PlanState(
            forces=frozenset(
                Force.objects.filter(campaign_id=campaign).values_list("id", flat=True)
            ),
            battles=frozenset(
                Battle.objects.filter(campaign_id=campaign).values_list("id", flat=True)
            ),
            mission_motivation=None if motivation is None else motivation.name.lower(),
            casevac_call_box=getattr(options, "casevac_call_box", None),
            random_campaign=getattr(options, "campaign_structure", None) == "random",
        )

    def check(self, ctx: CommandContext, state: PlanState, params: PlanParams) -> None:
        if state.random_campaign:
            raise StateConflict(
                "battle.random_campaign",
                "This is a random campaign (FaD p.64): each battle is generated from the scenario "
                "tables (POST /campaigns/{id}/battles/generate/), not planned by hand.",
                field="name",
            )
        side_names = [side.side for side in params.sides]
        if len(set(side_names)) != len(side_names):
            raise CommandError(
                "battle.same_side", "The two sides need different names.", field="sides"
            )
        seen: set[uuid.UUID] = set()
        for index, side in enumerate(params.sides):
            _check_side(state, side, index, seen)
        if params.attacker is not None and params.attacker not in side_names:
            raise CommandError(
                "battle.unknown_side",
                f"The attacker must be one of {side_names}.",
                field="attacker",
            )
        for index, hidden_side in enumerate(params.hidden_missions):
            if hidden_side not in side_names:
                raise CommandError(
                    "battle.unknown_side",
                    f"A hidden mission card must be one of {side_names}.",
                    field=f"hidden_missions.{index}",
                )
        if params.hidden is not None:
            _shown_to(params, params.hidden, state)
        _check_links(state, params)

    def decide(
        self, ctx: CommandContext, state: PlanState, params: PlanParams, dice: DiceSource | None
    ) -> Decision:
        battle_id = ctx.new_id("battle")
        plan = params.model_dump(exclude={"hidden", "hidden_missions"})
        for side, given in zip(plan["sides"], params.sides, strict=True):
            _campaign_defaults(side, given, state)
        payload = events.BattlePlanned(battle_id=battle_id, **plan)
        decision = Decision.of([payload], stream=battle_stream(battle_id), result=battle_id)
        # Hidden mission cards, then the battle hidden whole, recorded before the plan.
        hides = [
            hiding(
                Secrecy(),
                campaign_id=ctx.campaign_id,
                force_ids=next(s.force_ids for s in params.sides if s.side == side),
                battle_id=battle_id,
                mission_of=side,
            )
            for side in dict.fromkeys(params.hidden_missions)
        ]
        if params.hidden is not None:
            hides.append(
                hiding(
                    params.hidden,
                    campaign_id=ctx.campaign_id,
                    events=1,
                    force_ids=_shown_to(params, params.hidden, state),
                    battle_id=battle_id,
                )
            )
        return Decision([*hides, *decision.events], decision.result)


def _shown_to(params: PlanParams, secrecy: Secrecy, state: PlanState) -> list[uuid.UUID]:
    """The forces whose players may see a battle planned hidden: a side's, or those named."""
    if secrecy.side is not None:
        for side in params.sides:
            if side.side == secrecy.side:
                return list(side.force_ids)
        raise CommandError(
            "hidden.unknown_side",
            f"{secrecy.side!r} is not a side of this battle.",
            field="hidden.side",
        )
    for index, force_id in enumerate(secrecy.force_ids):
        if force_id not in state.forces:
            raise CommandError(
                "hidden.unknown_force",
                "That force is not in this campaign.",
                field=f"hidden.force_ids.{index}",
            )
    return list(secrecy.force_ids)


def _campaign_defaults(side: dict[str, Any], given: SideMission, state: PlanState) -> None:
    """What a side's mission leaves out, from the campaign's options: its mission motivation
    (SG2 P.19, option mission_motivation) and the Inbound Chart box a casevac called from a
    distance starts in (P.54 gives none, option casevac_call_box)."""
    if "mission_motivation" not in given.model_fields_set and state.mission_motivation:
        side["mission_motivation"] = state.mission_motivation
    chosen = given.casevac.model_fields_set if "casevac" in given.model_fields_set else set()
    if state.casevac_call_box and "start_box" not in chosen:
        side["casevac"]["start_box"] = state.casevac_call_box


def _check_side(state: PlanState, side: SideMission, index: int, seen: set[uuid.UUID]) -> None:
    for force_id in side.force_ids:
        if force_id not in state.forces:
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
    medical = set(side.medical_unit_ids)
    if medical and Unit.objects.filter(id__in=medical, force_id__in=side.force_ids).count() != len(
        medical
    ):
        raise CommandError(
            "battle.unknown_medical_unit",
            f"{side.side}: medical units must belong to the side's forces.",
            field=f"sides.{index}.medical_unit_ids",
        )
    casevac = side.casevac
    if side.hostile_ade != "none" and casevac.on_call and casevac.airborne:
        for name in ("crew_quality", "crew_leadership"):
            if getattr(casevac, name) is None:
                raise CommandError(
                    "battle.casevac_pilot_needed",
                    f"{side.side}'s casevac flies through a {side.hostile_ade} ADE: give its "
                    "pilot's quality and leadership, for his reaction test when the air defences "
                    "acquire it (SG2 P.48).",
                    field=f"sides.{index}.casevac.{name}",
                )


def _check_links(state: PlanState, params: PlanParams) -> None:
    links = {
        "next_on_attacker_win": params.next_on_attacker_win,
        "next_on_defender_win": params.next_on_defender_win,
    }
    if any(links.values()) and params.attacker is None:
        raise CommandError(
            "battle.attacker_required",
            "A battle that leads to others needs an attacker, to know which way the campaign goes.",
            field="attacker",
        )
    for field_name, linked in links.items():
        if linked is not None and linked not in state.battles:
            raise CommandError(
                "battle.unknown_next",
                "The battle named next is not planned in this campaign (plan it first).",
                field=field_name,
            )


class CommitParams(BattleParams):
    unit_ids: list[uuid.UUID]


@commands.command
class BattleCommit(_OnBattle):
    """Commit units to a planned battle. Each unit's fatigue sets the confidence it starts at
    (SG2 P.19): Fresh Confident, Tired Steady, Exhausted Shaken; one without suitable supplies
    starts worse (P.60, option ``unsupplied_effect``). A unit unfit for combat since
    its withdrawal test (SG2 P.61) is refused while it stands withdrawn; moved out of withdrawal
    and committed before R&R restores it, it disintegrates instead of fighting."""

    name = "battles.commit"
    Params = CommitParams

    def check(self, ctx: CommandContext, state: Battle, params: CommitParams) -> None:
        require_status(state, Battle.Status.PLANNED, Battle.Status.COMMITTED, doing="commit units")
        if not params.unit_ids:
            raise CommandError("battle.no_units", "Name the units to commit.", field="unit_ids")

    def decide(
        self, ctx: CommandContext, state: Battle, params: CommitParams, dice: DiceSource | None
    ) -> Decision:
        battle = state
        sides = {s.side: s for s in BattleSide.objects.filter(battle_id=battle.id)}
        side_of_force = {
            uuid.UUID(str(force_id)): side.side
            for side in sides.values()
            for force_id in side.force_ids
        }
        already = set(
            Participant.objects.filter(battle_id=battle.id).values_list("unit_id", flat=True)
        )
        units = {
            u.id: u
            for u in Unit.objects.filter(campaign_id=ctx.campaign_id, id__in=params.unit_ids)
        }
        campaign = Campaign.objects.get(pk=ctx.campaign_id)
        ruleset = definition(campaign.ruleset)
        options = parse_options(campaign.ruleset, campaign.options)
        committed, lost = [], []
        for index, unit_id in enumerate(params.unit_ids):
            unit = _committable(units.get(unit_id), side_of_force, already, f"unit_ids.{index}")
            already.add(unit.id)
            # SG2 P.61: an unfit unit kept in combat instead of withdrawn disintegrates.
            gone = kept_in_combat(
                unit, day=battle.day, cause="committed_to_battle", battle_id=battle.id
            )
            if gone is not None:
                lost.append(NewEvent.of(gone, stream=f"unit:{unit.id}"))
                continue
            side = sides[side_of_force[unit.force_id]]
            # SG2 P.60: a unit without suitable supplies starts worse (option unsupplied_effect).
            ready = ruleset.battle_readiness(
                unit.fatigue or None, supplied=unit.supplied, options=options
            )
            committed.append(
                events.CommittedUnit(
                    unit_id=unit.id,
                    side=side.side,
                    fatigue=ready.fatigue,
                    starting_confidence=ready.confidence,
                    mission_motivation=side.mission["mission_motivation"],
                    unsupplied_effect=ready.unsupplied_effect,
                )
            )
        payload = events.UnitsCommitted(battle_id=battle.id, units=committed)
        fighting = [NewEvent.of(payload, stream=battle_stream(battle.id))] if committed else []
        return Decision([*fighting, *lost])


def _committable(
    unit: Unit | None, side_of_force: dict[uuid.UUID, str], already: set[uuid.UUID], field: str
) -> Unit:
    if unit is None or unit.force_id not in side_of_force:
        raise CommandError(
            "battle.unit_not_on_a_side",
            "That unit is not in a force fighting this battle.",
            field=field,
        )
    if UnitKind(unit.kind).is_formation:
        raise CommandError(
            "battle.formation", f"{unit.name} is a {unit.kind}: commit its units.", field=field
        )
    if unit.status in (UnitStatus.DISBANDED, UnitStatus.WITHDRAWN):
        unfit = (
            ": unfit for combat until rest restores a fatigue level; kept in combat before "
            "then it disintegrates (SG2 P.61)"
            if unit.unfit and unit.status == UnitStatus.WITHDRAWN
            else ""
        )
        raise StateConflict(
            "battle.unit_unavailable",
            f"{unit.name} is {unit.status} and cannot fight{unfit}.",
            field=field,
        )
    if unit.id in already:
        raise StateConflict(
            "battle.already_committed", f"{unit.name} is already committed.", field=field
        )
    return unit


@commands.command
class BattleStart(_OnBattle):
    """The battle begins: both sides need units committed."""

    name = "battles.start"
    Params = BattleParams

    def check(self, ctx: CommandContext, state: Battle, params: BattleParams) -> None:
        require_status(state, Battle.Status.COMMITTED, doing="start it")
        fielded = set(Participant.objects.filter(battle_id=state.id).values_list("side", flat=True))
        empty = [s for s in BattleSide.objects.filter(battle_id=state.id) if s.side not in fielded]
        if empty:
            raise StateConflict(
                "battle.side_without_units",
                f"{empty[0].side} has no units committed yet.",
                field="battle",
            )

    def decide(
        self, ctx: CommandContext, state: Battle, params: BattleParams, dice: DiceSource | None
    ) -> Decision:
        # Who takes part: each unit's troopers present now (SG2 P.61: the injured are away until
        # they return to duty). The after-action counts their battles fought from this.
        unit_ids = Participant.objects.filter(battle_id=state.id).values_list("unit_id", flat=True)
        on_table: dict[uuid.UUID, list[uuid.UUID]] = {unit_id: [] for unit_id in unit_ids}
        for trooper in Trooper.objects.filter(unit_id__in=on_table).order_by("unit_id", "order"):
            if TrooperStatus(trooper.status).is_present:
                on_table[trooper.unit_id].append(trooper.id)
        started = events.BattleStarted(battle_id=state.id, on_table=on_table)
        return Decision.of([started], stream=battle_stream(state.id))


@commands.command
class TurnAdvance(_OnBattle):
    """The next game turn begins."""

    name = "battles.turn_advance"
    Params = BattleParams

    def check(self, ctx: CommandContext, state: Battle, params: BattleParams) -> None:
        require_status(state, Battle.Status.IN_PROGRESS, doing="advance the turn")
        self._assaults_decided(state)
        self._fire_missions_fired(state)

    @staticmethod
    def _assaults_decided(state: Battle) -> None:
        """SG2 P.42: a close assault is fought round after round until it is decided, all in
        the game turn it began."""
        fighting = (
            Participant.objects.filter(battle_id=state.id, close_assault__isnull=False)
            .order_by("unit_id")
            .values_list("close_assault", flat=True)
            .first()
        )
        if fighting is not None:
            raise StateConflict(
                "close_assault.undecided",
                f"Close assault {fighting['assault']} is not over: fight its next round or "
                "break it off (close_assault) before the turn ends (SG2 P.42).",
                field="battle",
            )

    @staticmethod
    def _fire_missions_fired(state: Battle) -> None:
        """SG2 P.46: a fire mission that has reached the table must be brought down before the
        Turn End Phase (unless the campaign's option says it may wait)."""
        campaign = Campaign.objects.get(pk=state.campaign_id)
        options = parse_options(campaign.ruleset, campaign.options)
        if not getattr(options, "fire_mission_must_fire_in_arrival_turn", False):
            return
        sides = BattleSide.objects.filter(battle_id=state.id).order_by("order").values()
        for side in sides:
            for mission in (side["support"] or {}).get("missions", []):
                if mission["status"] != "fired" and mission["available_turn"] <= state.turn:
                    raise StateConflict(
                        "fire_mission.unfired",
                        f"{side['side']}'s fire mission {mission['number']} is on the table "
                        "this turn and must be brought down (fire_mission_land, then "
                        "fire_mission_impact) before the turn ends (SG2 P.46).",
                        field="battle",
                    )

    def decide(
        self, ctx: CommandContext, state: Battle, params: BattleParams, dice: DiceSource | None
    ) -> Decision:
        payload = events.TurnAdvanced(battle_id=state.id, turn=state.turn + 1)
        return Decision.of([payload], stream=battle_stream(state.id))


def next_battle(battle: Battle, winner: str) -> uuid.UUID | None:
    """The battle that follows this one's outcome in a linear or tree campaign (FaD p.65)."""
    if winner == "draw":
        if battle.next_on_attacker_win != battle.next_on_defender_win:
            raise CommandError(
                "battle.draw_in_tree",
                "In a campaign tree each battle needs a winner to know which battle comes next.",
                field="winner",
            )
        return battle.next_on_attacker_win
    if winner == battle.attacker:
        return battle.next_on_attacker_win
    return battle.next_on_defender_win


def decided_winner(battle: Battle, winner: str) -> str:
    """The winner, once the campaign's option has settled a draw. FaD p.65 does not say who wins
    a battle when both sides or neither achieved their missions: option
    ``campaign_battle_winner`` either leaves it to the umpire (a draw stays a draw, and is
    refused in a tree) or gives it to the defender."""
    if winner != "draw" or battle.attacker is None:
        return winner
    campaign = Campaign.objects.get(pk=battle.campaign_id)
    options = parse_options(campaign.ruleset, campaign.options)
    if getattr(options, "campaign_battle_winner", None) != "defender_on_tie":
        return winner
    sides = BattleSide.objects.filter(battle_id=battle.id).exclude(side=battle.attacker)
    return str(sides.values_list("side", flat=True).get())


OUTCOME_LISTS = ("objectives_met", "withdrawn", "routed", "surrendered")


class EndParams(BattleParams):
    winner: str = Field(max_length=100, description="A side, or 'draw'.")
    objectives_met: list[uuid.UUID] = Field(default_factory=list)
    withdrawn: list[uuid.UUID] = Field(default_factory=list)
    routed: list[uuid.UUID] = Field(default_factory=list)
    surrendered: list[uuid.UUID] = Field(default_factory=list)
    regroups_persisting: list[uuid.UUID] = Field(
        default_factory=list,
        description="With the option regroup_persists = umpire: the units that regrouped into "
        "another in this battle whose merger stands; the others are dissolved (SG2 P.17).",
    )


@commands.command
class BattleEnd(_OnBattle):
    """End the battle with its outcome; the next battle follows from it.

    The battle's regroups (SG2 P.17) are settled as it ends: the campaign's option
    ``regroup_persists`` keeps them, dissolves them, or (``umpire``) keeps those named in
    ``regroups_persisting`` and dissolves the others (:mod:`battles.regroups`).
    """

    name = "battles.end"
    Params = EndParams

    def check(self, ctx: CommandContext, state: Battle, params: EndParams) -> None:
        require_status(state, Battle.Status.IN_PROGRESS, doing="end it")
        sides = list(BattleSide.objects.filter(battle_id=state.id).values_list("side", flat=True))
        if params.winner != "draw" and params.winner not in sides:
            raise CommandError(
                "battle.unknown_side",
                f"The winner is one of {', '.join(sides)}, or 'draw'.",
                field="winner",
            )
        fighting = set(
            Participant.objects.filter(battle_id=state.id).values_list("unit_id", flat=True)
        )
        for field_name in OUTCOME_LISTS:
            for index, unit_id in enumerate(getattr(params, field_name)):
                if unit_id not in fighting:
                    raise CommandError(
                        "battle.not_a_participant",
                        "That unit did not fight in this battle.",
                        field=f"{field_name}.{index}",
                    )
        gone = [*params.withdrawn, *params.routed, *params.surrendered]
        if len(gone) != len(set(gone)):
            raise CommandError(
                "battle.two_fates",
                "A unit can be withdrawn, routed or surrendered, not more than one.",
                field="withdrawn",
            )
        check_regroups_persisting(
            battle_regroups(ctx.campaign_id, battle_stream(state.id)),
            params.regroups_persisting,
            _options_of(ctx),
        )

    def decide(
        self, ctx: CommandContext, state: Battle, params: EndParams, dice: DiceSource | None
    ) -> Decision:
        winner = decided_winner(state, params.winner)
        payload = events.BattleEnded(
            battle_id=state.id,
            winner=winner,
            next_battle_id=next_battle(state, winner),
            **{name: list(getattr(params, name)) for name in OUTCOME_LISTS},
        )
        settled = settle_regroups(
            battle_id=state.id,
            regroups=battle_regroups(ctx.campaign_id, battle_stream(state.id)),
            options=_options_of(ctx),
            persisting=params.regroups_persisting,
            fates={
                unit_id: name
                for name in ("withdrawn", "routed", "surrendered")
                for unit_id in getattr(params, name)
            },
        )
        return Decision.of(
            [payload, *([settled] if settled else [])], stream=battle_stream(state.id)
        )


def _options_of(ctx: CommandContext) -> Any:
    campaign = Campaign.objects.get(pk=ctx.campaign_id)
    return parse_options(campaign.ruleset, campaign.options)


# The service functions: typed entry points for the pages, the demo and scripts.


def _run(command: str, campaign: Campaign, actor: AbstractBaseUser, /, **params: Any) -> Battle:
    outcome = commands.run(command, campaign_id=campaign.id, params=params, actor_id=actor.pk)
    return Battle.objects.get(pk=outcome.result or params["battle_id"])


def battle_plan(*, campaign: Campaign, actor: AbstractBaseUser, **plan: Any) -> Battle:
    return _run(BattlePlan.name, campaign, actor, **plan)


def battle_commit(
    *, campaign: Campaign, battle: Battle, unit_ids: Sequence[uuid.UUID], actor: AbstractBaseUser
) -> Battle:
    return _run(BattleCommit.name, campaign, actor, battle_id=battle.id, unit_ids=list(unit_ids))


def battle_start(*, campaign: Campaign, battle: Battle, actor: AbstractBaseUser) -> Battle:
    return _run(BattleStart.name, campaign, actor, battle_id=battle.id)


def turn_advance(*, campaign: Campaign, battle: Battle, actor: AbstractBaseUser) -> Battle:
    return _run(TurnAdvance.name, campaign, actor, battle_id=battle.id)


def battle_end(
    *, campaign: Campaign, battle: Battle, winner: str, actor: AbstractBaseUser, **outcome: Any
) -> Battle:
    return _run(BattleEnd.name, campaign, actor, battle_id=battle.id, winner=winner, **outcome)


def _fighting_a_battle(unit: Unit) -> str | None:
    fighting = Participant.objects.filter(
        unit_id=unit.id,
        status=Participant.Status.FIGHTING,
        battle_id__in=Battle.objects.filter(status=Battle.Status.IN_PROGRESS).values("id"),
    ).exists()
    return f"{unit.name} is fighting a battle; it moves when the battle ends." if fighting else None


UNIT_BUSY_CHECKS.append(_fighting_a_battle)
