"""A Fast and Dirty force's reinforcement pool after a battle (FaD p.66 REINFORCEMENTS).

``POST /forces/{id}/reinforcements/`` runs :class:`ReinforcementsRoll`, a command on the force's
stream that rolls dice: 2d6 plus a d6 per campaign point spent on one, entered from the table or
rolled by the server in a job. Table dice come in that order (the two dice, then the extra ones),
or keyed by the force they are for; ``GET`` on the same URL lists them. The pool fills the
umpire's units in his order, never above their initial strength, and what is left may form a new
squad.

With ``campaign_quality_loss_counts_reinforcements`` (FaD p.66 is ambiguous; off by default,
Quality Loss being step 3 and the pool step 5) the pool's troopers count toward Quality Loss. The
roll is made here, once the pool is placed: a unit that joins troopers counts the replacements it
received in step 1 of the same battle (its ``FadInfantryReplacementsRolled``, or the crew a
vehicle repair brought back) and the reinforcements it receives now; if they reach half its
strength (option ``campaign_half_strength_basis``) it rolls a d6 for quality loss, after the
pool's dice, each die for its unit, and the command appends a ``FadQualityLossRolled`` for the
battle. One roll per unit per battle: a unit whose replacements alone reached half its strength
had its roll in step 3 (a Rabble unit's moot die included), and one that rolled a real die
after this battle does not roll again. A new squad raised from the pool is Conscript by the
book and does not roll.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from pydantic import Field

from battles.after_action.fad_events import (
    INFANTRY_REPLACED,
    QUALITY_LOSS,
    REINFORCEMENTS_ROLLED,
    VEHICLE_REPLACED,
    NewSquadRecord,
    QualityLossRolled,
    ReinforcedUnit,
    ReinforcementsRolled,
)
from battles.after_action.fad_points import force_of
from battles.after_action.fad_roster import (
    ForceRoster,
    PointsLedger,
    enlist,
    present,
    quality_of,
    require_fad,
)
from battles.services import battle_stream
from campaigns.events import dice_json
from campaigns.models import Campaign
from eventlog import commands, store
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.store import NewEvent
from rosters import events as roster_events
from rosters.models import Force, Trooper, Unit
from rosters.vocabulary import UnitKind
from rules.dice import DiceSource, rolling_for
from rules.fad import replacements as rules
from rules.options import parse_options


class Assignment(Params):
    unit_id: uuid.UUID
    troopers: int = Field(ge=1)


class ReinforcementsParams(Params):
    force_id: uuid.UUID
    assignment: list[Assignment] = Field(
        default_factory=list,
        description="Troopers for each unit, filled in this order until the pool runs out.",
    )
    new_squad_size: int = Field(
        default=0, ge=0, description="5-8 troopers to form a new squad from what is left; 0 none."
    )


@dataclass
class Pool:
    """What the pool is rolled for: the force, its options, points and standing units."""

    campaign: Campaign
    force: Force
    options: Any
    ledger: PointsLedger
    roster: ForceRoster


@commands.command
class ReinforcementsRoll(Command[ReinforcementsParams, Pool]):
    """Roll a force's reinforcement pool and place it (FaD p.66 REINFORCEMENTS)."""

    name = "battles.reinforcements_roll"
    Params = ReinforcementsParams
    rolls_dice = True
    invalid_code = "reinforcements.invalid"

    def stream(self, ctx: CommandContext, params: ReinforcementsParams) -> str:
        return f"force:{params.force_id}"

    def load(self, ctx: CommandContext, params: ReinforcementsParams) -> Pool:
        force = force_of(ctx, params.force_id)
        campaign = Campaign.objects.get(pk=ctx.campaign_id)
        return Pool(
            campaign=campaign,
            force=force,
            options=parse_options(campaign.ruleset, campaign.options),
            ledger=PointsLedger.load(campaign.id, force.id),
            roster=ForceRoster.load(campaign.id, force.id),
        )

    def check(self, ctx: CommandContext, state: Pool, params: ReinforcementsParams) -> None:
        require_fad(state.campaign, "Reinforcements")
        force = state.force
        if state.ledger.battle_id is None:
            raise StateConflict(
                "reinforcements.not_due",
                f"{force.name} has fought no battle whose post-battle steps are resolved.",
                field="force",
            )
        if state.ledger.reinforcements_rolled:
            raise StateConflict(
                "reinforcements.already_rolled",
                f"{force.name} has rolled its reinforcement pool for this battle.",
                field="force",
            )
        # Read under the campaign lock: two requests cannot both miss each other's job.
        if any(
            job.params.get("force_id") == str(force.id) for job in ctx.jobs_in_flight(self.name)
        ):
            raise StateConflict(
                "reinforcements.already_requested",
                f"The reinforcement pool of {force.name} is already being rolled.",
                field="force",
            )
        _strengths(state, params)
        size = params.new_squad_size
        if size and not rules.NEW_SQUAD_MIN <= size <= rules.NEW_SQUAD_MAX:
            raise RuleViolation(
                "reinforcements.new_squad_size",
                f"A new squad takes {rules.NEW_SQUAD_MIN} to {rules.NEW_SQUAD_MAX} reinforcements.",
                field="new_squad_size",
            )

    def decide(
        self,
        ctx: CommandContext,
        state: Pool,
        params: ReinforcementsParams,
        dice: DiceSource | None,
    ) -> Decision:
        assert dice is not None  # the pool is always rolled
        # Every die of the pool is the force's: keyed table dice and the dice prompt name it.
        with rolling_for(dice, str(state.force.id)):
            pool = rules.reinforcement_pool(dice=dice, extra_dice=state.ledger.extra_dice)
        banked = _banked(ctx, state)
        assignment, size = _share(params, pool.troopers + banked)
        placed = rules.assign_reinforcements(
            pool=pool.troopers + banked,
            units=tuple(_strengths(state, params).values()),
            assignment=assignment,
            new_squad_size=size,
            leaders_replacement_experience=state.options.leaders_replacement_experience,
        )
        new, reinforced = _reinforce_units(ctx, state, assignment)
        squad = None
        if placed.new_squad is not None:
            squad_events, squad = _raise_squad(ctx, state, placed.new_squad)
            new.extend(squad_events)
        rolled = ReinforcementsRolled(
            force_id=state.force.id,
            battle_id=_pool_battle(state),
            extra_dice=state.ledger.extra_dice,
            pool=pool.troopers,
            units=reinforced,
            new_squad=squad,
            unused=placed.unused,
            dice=dice_json(pool.rolls),
            banked=banked,
            # FaD p.66 says nothing of troopers not placed (GAP): lost by default, or banked
            # for the next pool (option campaign_unused_reinforcements).
            banked_for_next=(
                placed.unused if state.options.campaign_unused_reinforcements == "banked" else 0
            ),
        )
        new.append(NewEvent.of(rolled, stream=self.stream(ctx, params)))
        if state.options.campaign_quality_loss_counts_reinforcements:
            new.extend(_quality_losses(ctx, state, assignment, dice))
        return Decision(new)


def _pool_battle(state: Pool) -> uuid.UUID:
    """The battle whose post-battle steps the pool follows: its troopers join after it."""
    return uuid.UUID(str(state.ledger.battle_id))


def _banked(ctx: CommandContext, state: Pool) -> int:
    """The troopers the force's previous pool banked for this one (none unless it was rolled
    with ``campaign_unused_reinforcements = banked``)."""
    previous = store.read(
        ctx.campaign_id, stream=f"force:{state.force.id}", types=[REINFORCEMENTS_ROLLED]
    )
    last = None
    for event in previous:
        last = event
    return int(last.payload.get("banked_for_next", 0)) if last is not None else 0


@dataclass
class _Replaced:
    """What step 1 of the pool's battle did for one unit: the replacements it received and,
    when its event tells them, its initial strength and its strength after the battle."""

    replaced: int = 0
    initial: int | None = None
    strength_after: int | None = None


def _replaced_after(ctx: CommandContext, battle_id: str) -> dict[str, _Replaced]:
    """By unit id, the replacements of the battle's step 1: infantry replacements, or the crew a
    vehicle repair brought back (option ``campaign_vehicle_crew_losses``)."""
    found: dict[str, _Replaced] = {}
    events = store.read(
        ctx.campaign_id,
        stream=battle_stream(battle_id),
        types=[INFANTRY_REPLACED, VEHICLE_REPLACED],
    )
    for event in events:
        p = event.payload
        record = found.setdefault(p["unit_id"], _Replaced())
        if event.type == INFANTRY_REPLACED:
            record.replaced += p["replaced"]
            record.initial = p["initial_strength"]
            record.strength_after = p["strength_before"] - len(p["lost"])
        elif p.get("crew_losses"):
            record.replaced += len(p["trooper_ids"])
    return found


def _rolled_quality_loss(ctx: CommandContext, battle_id: str) -> set[str]:
    """The units that rolled a real Quality Loss die after the battle (not a Rabble unit's moot
    one): one roll per unit per battle."""
    events = store.read(ctx.campaign_id, stream=battle_stream(battle_id), types=[QUALITY_LOSS])
    return {
        e.payload["unit_id"]
        for e in events
        if any(not die.get("moot") for die in e.payload["dice"])
    }


def _quality_losses(
    ctx: CommandContext, state: Pool, assignment: dict[str, int], dice: DiceSource
) -> list[NewEvent]:
    """Quality Loss counting the pool's troopers (FaD p.66; option
    ``campaign_quality_loss_counts_reinforcements``): each unit that joins reinforcements, in the
    umpire's order, rolls a d6 if its step-1 replacements and its reinforcements now reach half
    its strength and it has not had its roll after this battle (see the module's docstring)."""
    options = state.options
    battle_id = str(state.ledger.battle_id)
    step1 = _replaced_after(ctx, battle_id)
    rolled = _rolled_quality_loss(ctx, battle_id)
    new: list[NewEvent] = []
    for unit_id_text, count in assignment.items():
        unit = state.roster.units[uuid.UUID(unit_id_text)]
        quality = quality_of(unit)
        if quality is None or unit_id_text in rolled:
            continue
        record = step1.get(unit_id_text, _Replaced())
        initial = record.initial or state.roster.initial(unit)
        strength_after = record.strength_after
        if strength_after is None:
            # No infantry replacements event (no losses, or a crew back with its vehicle): the
            # unit as it stands before the pool joins, less the step-1 newcomers.
            strength_after = max(len(present(state.roster.troopers[unit.id])) - record.replaced, 0)
        strength = rules.quality_loss_strength(
            initial_strength=initial,
            strength_after_battle=strength_after,
            campaign_half_strength_basis=options.campaign_half_strength_basis,
        )
        if rules.at_least_half(record.replaced, strength):
            continue  # its replacements alone were its step-3 roll
        with rolling_for(dice, unit_id_text):
            outcome = rules.quality_loss(
                dice=dice,
                quality=quality,
                replacements_received=record.replaced,
                reinforcements_received=count,
                initial_strength=initial,
                strength_after_battle=strength_after,
                is_vehicle=unit.kind == UnitKind.VEHICLE_CREW,
                campaign_half_strength_basis=options.campaign_half_strength_basis,
                campaign_quality_loss_counts_reinforcements=(
                    options.campaign_quality_loss_counts_reinforcements
                ),
                campaign_quality_loss_vehicles=options.campaign_quality_loss_vehicles,
            )
        if not outcome.rolls:
            continue
        lost = QualityLossRolled(
            battle_id=uuid.UUID(battle_id),
            unit_id=unit.id,
            replacements=record.replaced,
            reinforcements=count,
            measured_against=strength,
            quality_before=outcome.before.name.lower(),
            quality_after=outcome.after.name.lower(),
            dice=dice_json(outcome.rolls),
        )
        new.append(NewEvent.of(lost, stream=battle_stream(battle_id)))
    return new


def _strengths(state: Pool, params: ReinforcementsParams) -> dict[uuid.UUID, rules.UnitStrength]:
    """Each unit the umpire names, its strength now and its cap; or the refusal of a unit that
    is not the force's, is named twice, or would rise above its initial strength."""
    roster = state.roster
    strengths = {}
    for index, item in enumerate(params.assignment):
        where = f"assignment.{index}.unit_id"
        unit = roster.units.get(item.unit_id)
        if unit is None or UnitKind(unit.kind).is_formation:
            raise CommandError(
                "reinforcements.unknown_unit", "That is not a unit of this force.", field=where
            )
        if item.unit_id in strengths:
            raise CommandError("reinforcements.named_twice", "A unit is named twice.", field=where)
        initial = roster.initial(unit)
        strength = len(present(roster.troopers[unit.id]))
        if strength + item.troopers > initial:
            raise RuleViolation(
                "reinforcements.over_cap",
                f"{unit.name} would reach {strength + item.troopers} figures; no unit may be "
                f"raised above its initial {initial}.",
                field=f"assignment.{index}.troopers",
            )
        strengths[unit.id] = rules.UnitStrength(str(unit.id), strength, initial)
    return strengths


def _share(params: ReinforcementsParams, troopers: int) -> tuple[dict[str, int], int]:
    """Units are filled in the umpire's order until the pool runs out; the new squad takes what
    is left, if enough remains to form one."""
    left = troopers
    assignment: dict[str, int] = {}
    for item in params.assignment:
        given = min(item.troopers, left)
        if given:
            assignment[str(item.unit_id)] = given
        left -= given
    size = min(params.new_squad_size, left)
    return assignment, size if size >= rules.NEW_SQUAD_MIN else 0


def _reinforce_units(
    ctx: CommandContext, state: Pool, assignment: dict[str, int]
) -> tuple[list[NewEvent], list[ReinforcedUnit]]:
    """The reinforcements who join existing units, armed like a line trooper of the unit."""
    new: list[NewEvent] = []
    reinforced = []
    for unit_id_text, count in assignment.items():
        unit = state.roster.units[uuid.UUID(unit_id_text)]
        members = state.roster.troopers[unit.id]
        order = max((t.order for t in members), default=-1) + 1
        template = next((t for t in members if t.role == "line"), members[0] if members else None)
        ids = []
        for n in range(count):
            # Derived from the command's id, so its job run again enlists the same troopers.
            trooper_id = ctx.new_id(f"reinforcement:{unit.id}:{n}")
            name = f"Reinforcement {order + n + 1}"
            new.append(
                enlist(
                    trooper_id,
                    unit,
                    template,
                    order + n,
                    name,
                    battle_id=_pool_battle(state),
                    joined_as="reinforcement",
                )
            )
            ids.append(trooper_id)
        reinforced.append(ReinforcedUnit(unit_id=unit.id, trooper_ids=ids))
    return new, reinforced


def _typical(state: Pool) -> Trooper | None:
    """A line trooper of the platoon's first squad: the new squad is armed like him (p.66)."""
    for unit in sorted(state.roster.units.values(), key=lambda u: u.order):
        if unit.kind == UnitKind.SQUAD:
            line = [t for t in state.roster.troopers[unit.id] if t.role == "line"]
            if line:
                return line[0]
    return None


def _raise_squad(
    ctx: CommandContext, state: Pool, squad: rules.NewSquad
) -> tuple[list[NewEvent], NewSquadRecord]:
    """A new squad under the force's platoon, its first trooper its leader (FaD p.66)."""
    unit_id = ctx.new_id("new_squad")
    units = list(state.roster.units.values())
    platoon = next((u for u in units if u.kind == UnitKind.PLATOON), None)
    siblings = [u for u in units if u.parent_id == (platoon and platoon.id)]
    raised = roster_events.UnitRaised(
        unit_id=unit_id,
        force_id=state.force.id,
        parent_id=platoon.id if platoon else None,
        order=max((u.order for u in siblings), default=-1) + 1,
        name=f"New Squad {1 + sum(u.name.startswith('New Squad') for u in units)}",
        kind=UnitKind.SQUAD,
        quality=squad.quality.name.lower(),
        resolve=squad.resolve.name.lower(),
        toe_strength=squad.size,
    )
    new = [NewEvent.of(raised, stream=f"unit:{unit_id}")]
    shell = Unit(id=unit_id, force_id=state.force.id)
    template = _typical(state)
    ids = []
    for n in range(squad.size):
        # The first of them leads the squad (of option leaders_replacement_experience).
        leads = n == 0
        name = "Squad leader" if leads else f"Reinforcement {n + 1}"
        trooper_id = ctx.new_id(f"new_squad:{n}")
        new.append(
            enlist(
                trooper_id,
                shell,
                template,
                n,
                name,
                role="leader" if leads else "line",
                experience=squad.squad_leader_experience if leads else "",
                battle_id=_pool_battle(state),
                joined_as="reinforcement",
            )
        )
        ids.append(trooper_id)
    record = NewSquadRecord(
        unit_id=unit_id,
        size=squad.size,
        quality=squad.quality.name.lower(),
        resolve=squad.resolve.name.lower(),
        squad_leader_experience=squad.squad_leader_experience,
        trooper_ids=ids,
    )
    return new, record


def reinforcements_roll(
    *,
    campaign: Campaign,
    force: Force,
    params: dict[str, Any],
    dice: Sequence[int] | None,
    actor: AbstractBaseUser,
) -> commands.Outcome:
    """Roll a force's reinforcement pool and place it (FaD p.66 REINFORCEMENTS): with ``dice``
    from the table now (``outcome.events``); without, in a job (``outcome.job``)."""
    return commands.run(
        ReinforcementsRoll.name,
        campaign_id=campaign.id,
        params={**params, "force_id": str(force.id)},
        actor_id=actor.pk,
        dice=dice,
    )
