"""Where a unit rests between battles, whether it has supplies, and whether it is fit to fight
(SG2 P.61 REST AND RECOVERY).

P.61: every time "assume[s] that the unit is resting in a safe area with adequate supplies, and
that repairs are being carried out with sufficient engineering backup"; "in the field" and/or
without suitable supplies, DOUBLE all times given; a DISABLED vehicle is repaired "ONLY with full
engineering facilities in a rear area". A unit found unfit by the exhausted-withdrawal test "MUST
be withdrawn from further combat until it has recovered - failure to withdraw it results in the
unit disintegrating and being lost for the rest of the campaign".

- :data:`LOCATION_OF` says where a unit of each status rests, refits and repairs.
- :func:`kept_in_combat`: an unfit unit sent back into the line, or committed to a battle,
  disintegrates (the rules' :func:`~rules.sg2.recovery.fate_of_unfit_unit`).
- The command ``rosters.supplies_set``: the umpire says a force, or a unit and the units under
  it, is supplied or short of supplies, and why.
- The projection ``rosters.fitness`` tells supplies and disintegrations in units' rows and
  histories.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from eventlog import commands
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import CommandError, NotFound
from eventlog.projections import Projection, Read, Rows, register
from eventlog.store import StoredEvent
from rosters import events
from rosters.adjustments import campaign_of, require_reason
from rosters.in_battle import battle_name
from rosters.models import Force, Unit
from rosters.projections import unit_history
from rosters.vocabulary import UnitStatus
from rules.dice import DiceSource
from rules.rulesets import definition
from rules.sg2.campaign import Location
from rules.sg2.recovery import UnfitUnitFate, fate_of_unfit_unit

# Where a unit rests, refits and repairs, by its place between battles (SG2 P.61). The line is
# "the field"; a withdrawn unit is pulled back to a rear area.
LOCATION_OF: dict[UnitStatus, Location] = {
    UnitStatus.IN_THE_LINE: Location.FIELD,
    UnitStatus.IN_THE_FIELD: Location.FIELD,
    UnitStatus.SAFE_AREA: Location.SAFE_AREA,
    UnitStatus.REAR_AREA: Location.REAR_AREA,
    UnitStatus.WITHDRAWN: Location.REAR_AREA,
}


def location_of(status: str) -> Location:
    """Where a unit of this status is for the rules: the field unless it is in a safe area."""
    try:
        return LOCATION_OF.get(UnitStatus(status), Location.FIELD)
    except ValueError:
        return Location.FIELD


Cause = Literal["sent_back_into_the_line", "committed_to_battle"]


def kept_in_combat(
    unit: Unit, *, day: int, cause: Cause, battle_id: uuid.UUID | None = None, reason: str = ""
) -> events.UnitDisintegrated | None:
    """What becomes of ``unit`` sent into combat (back into the line, or committed to a battle):
    nothing while it is fit. Unfit, it was not withdrawn as it MUST be, and it disintegrates and
    is lost for the rest of the campaign (SG2 P.61; the rules' ``fate_of_unfit_unit``)."""
    if not unit.unfit:
        return None
    if fate_of_unfit_unit(kept_in_combat=True) is not UnfitUnitFate.DISINTEGRATED:
        return None
    return events.UnitDisintegrated(
        unit_id=unit.id, day=day, cause=cause, battle_id=battle_id, reason=reason.strip()
    )


# --- The umpire's supplies --------------------------------------------------------------------


class SuppliesParams(Params):
    force_id: uuid.UUID | None = None
    unit_id: uuid.UUID | None = None
    supplied: bool
    reason: str = Field(default="", max_length=500, description="Why the umpire says so.")


@dataclass(frozen=True)
class SuppliesState:
    ruleset: str
    day: int
    force: Force
    unit: Unit | None
    units: list[Unit]


def _units_under(unit: Unit, everyone: list[Unit]) -> list[Unit]:
    """The unit and every unit below it in its force's organisation, in roster order."""
    children: dict[uuid.UUID | None, list[Unit]] = {}
    for other in everyone:
        children.setdefault(other.parent_id, []).append(other)
    found, stack = [], [unit]
    while stack:
        current = stack.pop(0)
        found.append(current)
        stack[0:0] = children.get(current.id, [])
    return found


@commands.command
class SuppliesSet(Command[SuppliesParams, SuppliesState]):
    """The umpire says a force, or a unit and the units under it, has suitable supplies or is
    short of them. Short of supplies, rest, repairs, the injured's return and the replacements'
    arrival take twice as long (SG2 P.61, options ``field_time_multiplier`` and
    ``field_doubling_applies_to``)."""

    name = "rosters.supplies_set"
    Params = SuppliesParams

    def stream(self, ctx: CommandContext, params: SuppliesParams) -> str:
        if params.force_id is None and params.unit_id is not None:
            unit = Unit.objects.filter(campaign_id=ctx.campaign_id, id=params.unit_id).first()
            return f"force:{unit.force_id if unit else params.unit_id}"
        return f"force:{params.force_id}"

    def load(self, ctx: CommandContext, params: SuppliesParams) -> SuppliesState:
        if (params.force_id is None) == (params.unit_id is None):
            raise CommandError(
                "supplies.what", "Name a force or a unit, not both.", field="force_id"
            )
        unit = None
        force_id = params.force_id
        if params.unit_id is not None:
            unit = Unit.objects.filter(campaign_id=ctx.campaign_id, id=params.unit_id).first()
            if unit is None:
                raise NotFound("unit.not_found", "No such unit.", field="unit_id")
            force_id = unit.force_id
        assert force_id is not None  # a force or a unit was named
        force = Force.objects.filter(campaign_id=ctx.campaign_id, id=force_id).first()
        if force is None:
            raise NotFound("force.not_found", "No such force.", field="force_id")
        everyone = list(
            Unit.objects.filter(force_id=force.id)
            .exclude(status=UnitStatus.DISBANDED)
            .order_by("order")
        )
        units = _units_under(unit, everyone) if unit is not None else everyone
        campaign = campaign_of(ctx)
        return SuppliesState(
            ruleset=campaign.ruleset, day=campaign.day, force=force, unit=unit, units=units
        )

    def check(self, ctx: CommandContext, state: SuppliesState, params: SuppliesParams) -> None:
        if not definition(state.ruleset).has("rest_and_recovery"):
            raise CommandError(
                "supplies.not_in_ruleset",
                "Supplies double the times of rest and recovery, a Stargrunt II rule (P.61).",
                field="supplied",
            )
        require_reason(params.reason)
        if state.unit is not None and state.unit.status == UnitStatus.DISBANDED:
            raise CommandError(
                "unit.disbanded", f"{state.unit.name} has been disbanded.", field="unit_id"
            )
        if all(u.supplied == params.supplied for u in state.units):
            what = state.unit.name if state.unit is not None else state.force.name
            words = "supplied" if params.supplied else "short of supplies"
            raise CommandError(
                "supplies.unchanged", f"{what} is already {words}.", field="supplied"
            )

    def decide(
        self,
        ctx: CommandContext,
        state: SuppliesState,
        params: SuppliesParams,
        dice: DiceSource | None,
    ) -> Decision:
        payload = events.SuppliesSet(
            force_id=state.force.id,
            unit_id=state.unit.id if state.unit is not None else None,
            unit_ids=[u.id for u in state.units],
            supplied=params.supplied,
            day=state.day,
            reason=params.reason.strip(),
        )
        return Decision.of([payload], stream=f"force:{state.force.id}")


# --- The read model ---------------------------------------------------------------------------


def _disintegration_summary(rows: Rows, p: dict[str, Any]) -> str:
    if p["cause"] == "committed_to_battle":
        how = f"it was committed to {battle_name(rows, p['battle_id'])}"
    else:
        how = "it was sent back into the line"
    reason = f": {p['reason']}" if p["reason"] else ""
    return (
        f"Day {p['day']}: disintegrated, lost for the rest of the campaign: unfit for combat "
        f"since its withdrawal test, {how} before rest and recovery restored it (SG2 P.61)"
        f"{reason}."
    )


def _units_supplied(event: StoredEvent) -> Iterator[Read]:
    """A force's supplies reach every unit of it: its units load in one query (ADR 20)."""
    yield from ((Unit, unit_id) for unit_id in event.payload["unit_ids"])


@register
class FitnessProjection(Projection):
    """Units' supplies and the units lost by disintegrating (rows of the rosters projection)."""

    name = "rosters.fitness"

    @Projection.handles("rosters.SuppliesSet", reads=_units_supplied)
    def supplies_set(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        words = "supplied again" if p["supplied"] else "short of supplies"
        for unit_id in p["unit_ids"]:
            unit = rows.get(Unit, unit_id)
            if unit is None:
                continue
            rows.update(Unit, unit_id, supplied=p["supplied"])
            unit_history(
                rows,
                event,
                unit_id,
                f"Day {p['day']}: {words}: {p['reason']}.",
                {"supplied": [unit["supplied"], p["supplied"]]},
            )

    @Projection.handles("rosters.UnitDisintegrated")
    def unit_disintegrated(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if unit is None:
            return
        # Lost for the rest of the campaign: gone from the roster as a disbanded unit is.
        rows.update(Unit, p["unit_id"], status=UnitStatus.DISBANDED.value)
        unit_history(
            rows,
            event,
            p["unit_id"],
            _disintegration_summary(rows, p),
            {"status": [unit["status"], UnitStatus.DISBANDED.value]},
            battle_id=p["battle_id"],
        )

    def record_void(self, rows: Rows, event: StoredEvent, void: StoredEvent) -> None:
        """A voided supplies order or disintegration leaves a line saying so."""
        p = event.payload
        if event.type == "rosters.UnitDisintegrated":
            what, unit_ids = "disintegration", [p["unit_id"]]
        elif event.type == "rosters.SuppliesSet":
            what, unit_ids = "supplies set", p["unit_ids"]
        else:
            return
        summary = f"Voided: {what} (event #{event.sequence}). Reason: {void.payload['reason']}"
        for unit_id in unit_ids:
            if rows.get(Unit, unit_id) is not None:
                unit_history(rows, void, unit_id, summary, {"voided": event.sequence})
