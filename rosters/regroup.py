"""Regrouping two depleted units into one (SG2 P.17 REGROUPING), as an umpire's command."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from eventlog import commands
from eventlog.commands import CommandContext
from eventlog.errors import CommandError, StateConflict
from rosters import events
from rosters.adjustments import (
    OnUnit,
    UnitParams,
    campaign_of,
    fighting_unit,
    other_unit,
    require_reason,
    the_unit,
)
from rosters.models import Trooper, Unit
from rosters.vocabulary import TrooperStatus
from rules.options import parse_options
from rules.rulesets import definition
from rules.sg2.command import RegroupingUnit, regroup
from rules.sg2.scales import Fatigue
from rules.sg2.scales import Quality as SG2Quality


class RegroupParams(UnitParams):
    with_unit_id: uuid.UUID


@dataclass(frozen=True)
class RegroupState:
    ruleset: str
    options: Any
    unit: Unit
    other: Unit
    # Each unit's troopers still present, in roster order.
    members: dict[uuid.UUID, list[Trooper]]


def _present(unit: Unit) -> list[Trooper]:
    return [
        t
        for t in Trooper.objects.filter(unit_id=unit.id).order_by("order")
        if TrooperStatus(t.status).is_present
    ]


def _regrouping(unit: Unit, strength: int) -> RegroupingUnit:
    fatigue = Fatigue[(unit.fatigue or "fresh").upper()]
    return RegroupingUnit(
        strength=strength,
        quality=SG2Quality[unit.quality.upper()],
        leadership=unit.leadership or 2,
        confidence=fatigue.starting_confidence,
        fatigue=fatigue,
    )


@commands.command
class UnitsRegroup(OnUnit):
    """Merge two depleted units into ``unit_id`` (SG2 P.17 REGROUPING).

    The merged unit keeps the better leader's LV and the quality of the larger unit; the book is
    silent on ties and fatigue, which the campaign's ``regroup_quality_tie`` and
    ``regroup_fatigue`` options decide. ``with_unit_id`` is disbanded into ``unit_id``.
    """

    name = "rosters.units_regroup"
    Params = RegroupParams

    def load(self, ctx: CommandContext, params: RegroupParams) -> RegroupState:
        campaign = campaign_of(ctx)
        unit = the_unit(ctx, params.unit_id)
        other = other_unit(ctx, params.with_unit_id, "with_unit_id")
        return RegroupState(
            ruleset=campaign.ruleset,
            options=parse_options(campaign.ruleset, campaign.options),
            unit=unit,
            other=other,
            members={u.id: _present(u) for u in (unit, other)},
        )

    def check(self, ctx: CommandContext, state: RegroupState, params: RegroupParams) -> None:
        require_reason(params.reason)
        unit, other = state.unit, state.other
        if not definition(state.ruleset).has("regroup"):
            raise CommandError(
                "regroup.not_in_ruleset", "Regrouping is a Stargrunt II rule.", field="with_unit_id"
            )
        fighting_unit(unit)
        fighting_unit(other, field="with_unit_id")
        if other.force_id != unit.force_id:
            raise CommandError(
                "unit.other_force", f"{other.name} belongs to another force.", field="with_unit_id"
            )
        if other.id == unit.id:
            raise CommandError(
                "regroup.same_unit", "A unit cannot regroup with itself.", field="with_unit_id"
            )
        for candidate, field in ((unit, "unit"), (other, "with_unit_id")):
            present = len(state.members[candidate.id])
            if not present:
                raise StateConflict(
                    "regroup.empty", f"{candidate.name} has nobody left to regroup.", field=field
                )
            if present >= candidate.toe_strength:
                raise StateConflict(
                    "regroup.not_depleted",
                    f"{candidate.name} is at full strength; only depleted units regroup (P.17).",
                    field=field,
                )

    def payload(self, state: RegroupState, params: RegroupParams) -> events.UnitsRegrouped:
        outcome = regroup(
            units=[_regrouping(u, len(state.members[u.id])) for u in (state.unit, state.other)],
            regroup_quality_tie=state.options.regroup_quality_tie,
            regroup_fatigue=state.options.regroup_fatigue,
        )
        return events.UnitsRegrouped(
            unit_id=state.unit.id,
            merged_unit_id=state.other.id,
            quality=outcome.quality.name.lower(),
            leadership=outcome.leadership,
            fatigue=outcome.fatigue.name.lower(),
            trooper_ids=[t.id for t in state.members[state.other.id]],
            reason=params.reason.strip(),
        )
