"""Moving a unit between the line, a safe area, a rear area and the field (SG2 P.61)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from eventlog import commands
from eventlog.commands import CommandContext, Decision
from eventlog.errors import CommandError, StateConflict
from rosters import events
from rosters.adjustments import OnUnit, UnitParams, campaign_of, fighting_unit, the_unit
from rosters.fitness import kept_in_combat
from rosters.models import Unit
from rosters.vocabulary import UnitStatus
from rules.dice import DiceSource

# Other apps say whether a unit is busy (fighting a battle, say) and so cannot move. A check
# reads the database: the command calls it under the campaign lock, on the unit as it stands.
UnitBusyCheck = Callable[[Unit], str | None]
UNIT_BUSY_CHECKS: list[UnitBusyCheck] = []

LOCATIONS = (
    UnitStatus.IN_THE_LINE,
    UnitStatus.SAFE_AREA,
    UnitStatus.REAR_AREA,
    UnitStatus.IN_THE_FIELD,
)


class MoveParams(UnitParams):
    to: str


@dataclass(frozen=True)
class MoveState:
    day: int
    unit: Unit


@commands.command
class UnitMove(OnUnit):
    """Move a unit between the line, a safe area, a rear area (a safe area with full
    engineering facilities) and the field (SG2 P.61: only units out of the line rest, only those
    in a safe area take replacements, and only a rear area repairs DISABLED vehicles).

    An unfit unit (failed exhausted-withdrawal test) rests anywhere out of the line; sent back
    into the line before R&R restores it, it was not withdrawn, and it disintegrates (P.61).
    """

    name = "rosters.unit_move"
    Params = MoveParams

    def load(self, ctx: CommandContext, params: MoveParams) -> MoveState:
        return MoveState(day=campaign_of(ctx).day, unit=the_unit(ctx, params.unit_id))

    def check(self, ctx: CommandContext, state: MoveState, params: MoveParams) -> None:
        unit, to = state.unit, params.to
        if to not in LOCATIONS:
            raise CommandError(
                "unit.bad_location",
                "A unit goes to in_the_line, safe_area, rear_area or in_the_field.",
                field="to",
            )
        fighting_unit(unit)
        if unit.status == to:
            raise CommandError("unit.unchanged", f"{unit.name} is already there.", field="to")
        for busy_check in UNIT_BUSY_CHECKS:
            busy = busy_check(unit)
            if busy:
                raise StateConflict("unit.busy", busy, field="unit")

    def decide(
        self, ctx: CommandContext, state: MoveState, params: MoveParams, dice: DiceSource | None
    ) -> Decision:
        # P.61: "failure to withdraw it results in the unit disintegrating".
        if params.to == UnitStatus.IN_THE_LINE:
            lost = kept_in_combat(
                state.unit, day=state.day, cause="sent_back_into_the_line", reason=params.reason
            )
            if lost is not None:
                return Decision.of([lost], stream=self.stream(ctx, params))
        return super().decide(ctx, state, params, dice)

    def payload(self, state: MoveState, params: MoveParams) -> events.UnitMoved:
        return events.UnitMoved(
            unit_id=state.unit.id, to=params.to, day=state.day, reason=params.reason.strip()
        )
