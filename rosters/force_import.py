"""Loading a force from a roster file: the command that raises it in a campaign.

The file is read and checked against the ruleset by :mod:`rosters.roster_file` before the
command runs (a campaign's ruleset never changes); the command checks the parsed force against
the campaign as it stands under the lock and appends one event for the force, then one per unit,
trooper and vehicle, all together.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from campaigns.models import Campaign
from eventlog import commands
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import CommandError
from eventlog.store import NewEvent
from rosters import events
from rosters.roster_file import (
    ForceSpec,
    RosterFileError,
    RosterProblem,
    TrooperSpec,
    UnitSpec,
    VehicleSpec,
    parse_roster,
)
from rosters.vocabulary import TrooperRole, UnitKind
from rules.dice import DiceSource
from rules.rulesets import definition


class RosterRejected(CommandError):
    """A roster file with problems; every problem is listed, the first is the error."""

    def __init__(self, error: RosterFileError) -> None:
        first = error.problems[0]
        count = len(error.problems)
        super().__init__(
            first.code,
            f"The roster file has {count} problem{'s' if count != 1 else ''}; the first: "
            f"{first.message}",
            field=first.path,
        )
        self.error = error
        self.problems = error.problems

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "problems": [p.to_dict() for p in self.problems]}


def roster_spec(text: str, *, ruleset: str, source: str) -> ForceSpec:
    """Read a roster file for a campaign of ``ruleset``; every problem refuses it at once."""
    try:
        return parse_roster(text, ruleset=ruleset, source=source)
    except RosterFileError as error:
        raise RosterRejected(error) from None


class ForceImportParams(Params):
    force: ForceSpec
    source: str = Field(default="upload", description="Where the roster came from: a file name.")


@dataclass(frozen=True)
class CampaignState:
    ruleset: str


@dataclass(frozen=True)
class _Placed:
    """A unit of the file with where it sits: its parent and its order among its siblings."""

    spec: UnitSpec
    path: str
    parent_path: str | None
    order: int


def _walk(units: list[UnitSpec], parent: str | None = None) -> Iterator[_Placed]:
    for order, unit in enumerate(units):
        path = f"{parent}.units[{order}]" if parent else f"units[{order}]"
        yield _Placed(unit, path, parent, order)
        yield from _walk(unit.units, path)


@commands.command
class ForceImport(Command[ForceImportParams, CampaignState]):
    """Raise a force from a parsed roster file. Every id is derived from the command's, so the
    recorded command raises the same force again."""

    name = "rosters.force_import"
    Params = ForceImportParams

    def load(self, ctx: CommandContext, params: ForceImportParams) -> CampaignState:
        return CampaignState(ruleset=Campaign.objects.get(pk=ctx.campaign_id).ruleset)

    def check(self, ctx: CommandContext, state: CampaignState, params: ForceImportParams) -> None:
        written_for = params.force.ruleset
        if written_for is not None and written_for != state.ruleset:
            problem = RosterProblem(
                path="ruleset",
                line=None,
                field="ruleset",
                code="roster.wrong_ruleset",
                message=f"The file is for {written_for}; the campaign plays {state.ruleset}.",
            )
            raise RosterRejected(RosterFileError([problem], source=params.source))

    def decide(
        self,
        ctx: CommandContext,
        state: CampaignState,
        params: ForceImportParams,
        dice: DiceSource | None,
    ) -> Decision:
        spec = params.force
        force_id = ctx.new_id("force")
        raised = events.ForceRaised(
            force_id=force_id,
            name=spec.name,
            side=spec.side,
            description=spec.description,
            source=params.source[:200],
        )
        new = [NewEvent.of(raised, stream=f"force:{force_id}")]
        ruleset = definition(state.ruleset)
        ratings = frozenset(ruleset.unit_ratings)
        placed = list(_walk(spec.units))
        ids = {p.path: ctx.new_id(p.path) for p in placed}
        by_key = {p.spec.key: ids[p.path] for p in placed if p.spec.key}
        for unit in placed:
            unit_id = ids[unit.path]
            parent_id = ids[unit.parent_path] if unit.parent_path else None
            payload = _unit_raised(unit, unit_id, parent_id, force_id, ratings, by_key)
            new.append(NewEvent.of(payload, stream=f"unit:{unit_id}"))
            for index, trooper in enumerate(unit.spec.troopers):
                trooper_id = ctx.new_id(f"{unit.path}.troopers[{index}]")
                experience = _experience(unit.spec, trooper, ruleset.leader_experiences)
                enlisted = _enlisted(trooper, trooper_id, unit_id, force_id, index, experience)
                new.append(NewEvent.of(enlisted, stream=f"trooper:{trooper_id}"))
            for index, vehicle in enumerate(unit.spec.vehicles):
                vehicle_id = ctx.new_id(f"{unit.path}.vehicles[{index}]")
                commissioned = _commissioned(vehicle, vehicle_id, unit_id, force_id, index)
                new.append(NewEvent.of(commissioned, stream=f"vehicle:{vehicle_id}"))
        return Decision(new, result=force_id)


def _unit_raised(
    unit: _Placed,
    unit_id: uuid.UUID,
    parent_id: uuid.UUID | None,
    force_id: uuid.UUID,
    ratings: frozenset[str],
    by_key: dict[str, uuid.UUID],
) -> events.UnitRaised:
    spec = unit.spec
    # Formations have no ratings of their own (their units do); each ruleset keeps its own.
    formation = UnitKind(spec.kind).is_formation

    def rating(name: str) -> Any:
        return getattr(spec, name) if name in ratings and not formation else None

    return events.UnitRaised(
        unit_id=unit_id,
        force_id=force_id,
        parent_id=parent_id,
        order=unit.order,
        name=spec.name,
        kind=spec.kind,
        level=int(spec.level) if spec.level is not None else None,
        quality=spec.quality,
        leadership=rating("leadership"),
        resolve=rating("resolve"),
        fatigue=rating("fatigue"),
        mission_motivation=rating("mission_motivation"),
        toe_strength=spec.toe_strength if spec.toe_strength is not None else len(spec.troopers),
        specialists=list(spec.specialists),
        status=spec.status,
        attached_to=by_key.get(spec.attached_to) if spec.attached_to else None,
    )


def _experience(unit: UnitSpec, trooper: TrooperSpec, experiences: tuple[str, ...]) -> str:
    """A squad leader's experience, for a ruleset that keeps one: the file's, or the first and
    worst, the book's starting value (FaD p.51: every squad leader starts Inexperienced)."""
    if not experiences or unit.kind != UnitKind.SQUAD or trooper.role != TrooperRole.LEADER:
        return ""
    return trooper.experience or experiences[0]


def _enlisted(
    trooper: TrooperSpec,
    trooper_id: uuid.UUID,
    unit_id: uuid.UUID,
    force_id: uuid.UUID,
    order: int,
    experience: str,
) -> events.TrooperEnlisted:
    return events.TrooperEnlisted(
        trooper_id=trooper_id,
        unit_id=unit_id,
        force_id=force_id,
        order=order,
        name=trooper.name,
        role=trooper.role,
        weapon=trooper.weapon,
        armour=trooper.armour,
        armour_die=trooper.armour_die,
        power_armour=trooper.power_armour,
        specialism=trooper.specialism,
        experience=experience,
    )


def _commissioned(
    vehicle: VehicleSpec,
    vehicle_id: uuid.UUID,
    unit_id: uuid.UUID,
    force_id: uuid.UUID,
    order: int,
) -> events.VehicleCommissioned:
    return events.VehicleCommissioned(
        vehicle_id=vehicle_id,
        unit_id=unit_id,
        force_id=force_id,
        order=order,
        name=vehicle.name,
        vehicle_class=vehicle.vehicle_class,
        size=vehicle.size,
        capacity=vehicle.capacity,
        armour=vehicle.armour,
        state=vehicle.state,
    )
