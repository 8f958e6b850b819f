"""The umpire's adjustments to units and troopers, each a command with a reason.

Every adjustment acts on one unit's or trooper's stream, reads what it refuses on under the
campaign's lock, and appends one event. Regrouping (SG2 P.17) is in :mod:`rosters.regroup`, and
moving a unit between the line, a safe area and the field in :mod:`rosters.moves`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from campaigns.models import Campaign
from eventlog import commands
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import CommandError, NotFound, StateConflict
from rosters import events
from rosters.models import Trooper, Unit
from rosters.vocabulary import TrooperStatus, UnitKind, UnitStatus
from rules.dice import DiceSource
from rules.rulesets import definition


def stream(kind: str, entity_id: Any) -> str:
    return f"{kind}:{entity_id}"


def require_reason(reason: str) -> str:
    if not reason or not reason.strip():
        raise CommandError("adjustment.reason_required", "Say why.", field="reason")
    return reason.strip()


def live_unit(unit: Unit, *, field: str = "unit") -> None:
    if unit.status == UnitStatus.DISBANDED:
        raise StateConflict("unit.disbanded", f"{unit.name} has been disbanded.", field=field)


def fighting_unit(unit: Unit, *, field: str = "unit") -> None:
    live_unit(unit, field=field)
    if UnitKind(unit.kind).is_formation:
        raise CommandError(
            "unit.is_formation",
            f"{unit.name} is a {unit.kind}: it has no quality or troopers of its own.",
            field=field,
        )


def campaign_of(ctx: CommandContext) -> Campaign:
    return Campaign.objects.get(pk=ctx.campaign_id)


def the_unit(ctx: CommandContext, unit_id: uuid.UUID) -> Unit:
    """The unit a command acts on, read under the lock."""
    unit = Unit.objects.filter(campaign_id=ctx.campaign_id, id=unit_id).first()
    if unit is None:
        raise NotFound("unit.not_found", "No such unit.", field="unit_id")
    return unit


def other_unit(ctx: CommandContext, unit_id: uuid.UUID, field: str) -> Unit:
    """A unit the command names besides its own (where a trooper goes, say)."""
    unit = Unit.objects.filter(campaign_id=ctx.campaign_id, id=unit_id).first()
    if unit is None:
        raise CommandError("unit.not_found", "No such unit in this campaign.", field=field)
    return unit


Reason = Field(default="", max_length=500, description="Why the umpire made the change.")


class UnitParams(Params):
    unit_id: uuid.UUID
    reason: str = Reason


@dataclass(frozen=True)
class UnitState:
    ruleset: str
    unit: Unit


class OnUnit(Command[Any, Any]):
    """An adjustment on a unit's stream; ``decide`` appends :meth:`payload` there."""

    invalid_code = "invalid.invalid"

    def stream(self, ctx: CommandContext, params: Any) -> str:
        return stream("unit", params.unit_id)

    def load(self, ctx: CommandContext, params: Any) -> Any:
        # A :class:`UnitState` unless the adjustment loads a state of its own (a regroup or a
        # move): like its params, an adjustment's state is its own, hence ``Command[Any, Any]``.
        return UnitState(ruleset=campaign_of(ctx).ruleset, unit=the_unit(ctx, params.unit_id))

    def decide(
        self, ctx: CommandContext, state: Any, params: Any, dice: DiceSource | None
    ) -> Decision:
        return Decision.of([self.payload(state, params)], stream=self.stream(ctx, params))

    def payload(self, state: Any, params: Any) -> Any:
        raise NotImplementedError


def _quality_names(ruleset: str) -> list[str]:
    return list(definition(ruleset).qualities)


class QualityParams(UnitParams):
    quality: str = Field(max_length=20)


@commands.command
class UnitQualitySet(OnUnit):
    """Set a unit's quality by the umpire's judgement (SG2 P.60's alternative to points)."""

    name = "rosters.unit_quality_set"
    Params = QualityParams

    def check(self, ctx: CommandContext, state: UnitState, params: QualityParams) -> None:
        require_reason(params.reason)
        unit = state.unit
        fighting_unit(unit)
        allowed = _quality_names(state.ruleset)
        if params.quality not in allowed:
            raise CommandError(
                "unit.unknown_quality",
                f"{params.quality!r} is not a quality in this ruleset: choose one of "
                f"{', '.join(allowed)}.",
                field="quality",
            )
        if params.quality == unit.quality:
            raise CommandError(
                "unit.unchanged", f"{unit.name} is already {params.quality}.", field="quality"
            )

    def payload(self, state: UnitState, params: QualityParams) -> events.UnitQualitySet:
        return events.UnitQualitySet(
            unit_id=state.unit.id, quality=params.quality, reason=params.reason.strip()
        )


class LeadershipParams(UnitParams):
    leadership: int


@commands.command
class UnitLeadershipSet(OnUnit):
    """Set a unit's leadership value (1 best, 3 worst; SG2 P.9)."""

    name = "rosters.unit_leadership_set"
    Params = LeadershipParams

    def check(self, ctx: CommandContext, state: UnitState, params: LeadershipParams) -> None:
        require_reason(params.reason)
        unit = state.unit
        fighting_unit(unit)
        ruleset = definition(state.ruleset)
        if "leadership" not in ruleset.unit_ratings:
            raise CommandError(
                "unit.no_leadership",
                f"{ruleset.label} units have no leadership value.",
                field="leadership",
            )
        if not 1 <= params.leadership <= 3:
            raise CommandError(
                "unit.leadership_range", "Leadership runs from 1 (best) to 3.", field="leadership"
            )
        if params.leadership == unit.leadership:
            raise CommandError(
                "unit.unchanged",
                f"{unit.name} already has leadership {params.leadership}.",
                field="leadership",
            )

    def payload(self, state: UnitState, params: LeadershipParams) -> events.UnitLeadershipSet:
        return events.UnitLeadershipSet(
            unit_id=state.unit.id, leadership=params.leadership, reason=params.reason.strip()
        )


class AttachParams(UnitParams):
    to_unit_id: uuid.UUID


@dataclass(frozen=True)
class AttachState(UnitState):
    to_unit: Unit
    # Every attachment in the unit's force, unit -> the unit it is attached to.
    attachments: dict[uuid.UUID, uuid.UUID]


@commands.command
class UnitAttach(OnUnit):
    """Attach a unit to another unit of its force (a section to a platoon, say)."""

    name = "rosters.unit_attach"
    Params = AttachParams

    def load(self, ctx: CommandContext, params: AttachParams) -> AttachState:
        unit = the_unit(ctx, params.unit_id)
        attached = Unit.objects.filter(force_id=unit.force_id, attached_to__isnull=False)
        return AttachState(
            ruleset=campaign_of(ctx).ruleset,
            unit=unit,
            to_unit=other_unit(ctx, params.to_unit_id, "to_unit_id"),
            attachments={
                unit_id: to_unit_id
                for unit_id, to_unit_id in attached.values_list("id", "attached_to")
                if to_unit_id is not None  # as the query asked: the type cannot tell
            },
        )

    def check(self, ctx: CommandContext, state: AttachState, params: AttachParams) -> None:
        require_reason(params.reason)
        unit, to_unit = state.unit, state.to_unit
        live_unit(unit)
        live_unit(to_unit, field="to_unit_id")
        if to_unit.force_id != unit.force_id:
            raise CommandError(
                "unit.other_force", f"{to_unit.name} belongs to another force.", field="to_unit_id"
            )
        if to_unit.id == unit.id:
            raise CommandError(
                "unit.attach_self", "A unit cannot attach to itself.", field="to_unit_id"
            )
        if unit.attached_to == to_unit.id:
            raise CommandError(
                "unit.unchanged",
                f"{unit.name} is already attached to {to_unit.name}.",
                field="to_unit_id",
            )
        cursor: uuid.UUID | None = to_unit.id
        while cursor is not None:
            if cursor == unit.id:
                raise CommandError(
                    "unit.attach_cycle",
                    f"{to_unit.name} is already attached, directly or not, to {unit.name}.",
                    field="to_unit_id",
                )
            cursor = state.attachments.get(cursor)

    def payload(self, state: AttachState, params: AttachParams) -> events.UnitAttached:
        return events.UnitAttached(
            unit_id=state.unit.id, to_unit_id=state.to_unit.id, reason=params.reason.strip()
        )


@commands.command
class UnitDetach(OnUnit):
    name = "rosters.unit_detach"
    Params = UnitParams

    def check(self, ctx: CommandContext, state: UnitState, params: UnitParams) -> None:
        require_reason(params.reason)
        live_unit(state.unit)
        if state.unit.attached_to is None:
            raise StateConflict(
                "unit.not_attached", f"{state.unit.name} is not attached.", field="unit"
            )

    def payload(self, state: UnitState, params: UnitParams) -> events.UnitDetached:
        return events.UnitDetached(unit_id=state.unit.id, reason=params.reason.strip())


@commands.command
class UnitDisband(OnUnit):
    name = "rosters.unit_disband"
    Params = UnitParams

    def check(self, ctx: CommandContext, state: UnitState, params: UnitParams) -> None:
        require_reason(params.reason)
        live_unit(state.unit)

    def payload(self, state: UnitState, params: UnitParams) -> events.UnitDisbanded:
        return events.UnitDisbanded(unit_id=state.unit.id, reason=params.reason.strip())


# --- Troopers ------------------------------------------------------------------------------------


class TrooperParams(Params):
    trooper_id: uuid.UUID
    reason: str = Reason


@dataclass(frozen=True)
class TrooperState:
    trooper: Trooper
    to_unit: Unit | None = None


class OnTrooper(Command[Any, TrooperState]):
    """An adjustment on a trooper's stream."""

    invalid_code = "invalid.invalid"

    def stream(self, ctx: CommandContext, params: Any) -> str:
        return stream("trooper", params.trooper_id)

    def load(self, ctx: CommandContext, params: Any) -> TrooperState:
        trooper = Trooper.objects.filter(campaign_id=ctx.campaign_id, id=params.trooper_id).first()
        if trooper is None:
            raise NotFound("trooper.not_found", "No such trooper.", field="trooper_id")
        return TrooperState(trooper=trooper)

    def decide(
        self, ctx: CommandContext, state: TrooperState, params: Any, dice: DiceSource | None
    ) -> Decision:
        return Decision.of([self.payload(state, params)], stream=self.stream(ctx, params))

    def payload(self, state: TrooperState, params: Any) -> Any:
        raise NotImplementedError


class RenameParams(TrooperParams):
    name: str


@commands.command
class TrooperRename(OnTrooper):
    name = "rosters.trooper_rename"
    Params = RenameParams

    def check(self, ctx: CommandContext, state: TrooperState, params: RenameParams) -> None:
        require_reason(params.reason)
        name = params.name.strip()
        if not name or len(name) > 200:
            raise CommandError("trooper.name", "A name has 1 to 200 characters.", field="name")
        if name == state.trooper.name:
            raise CommandError("trooper.unchanged", f"The trooper is already {name}.", field="name")

    def payload(self, state: TrooperState, params: RenameParams) -> events.TrooperRenamed:
        return events.TrooperRenamed(
            trooper_id=state.trooper.id, name=params.name.strip(), reason=params.reason.strip()
        )


class TransferParams(TrooperParams):
    to_unit_id: uuid.UUID


@commands.command
class TrooperTransfer(OnTrooper):
    """Move a trooper to another unit of the same force."""

    name = "rosters.trooper_transfer"
    Params = TransferParams

    def load(self, ctx: CommandContext, params: TransferParams) -> TrooperState:
        trooper = super().load(ctx, params).trooper
        return TrooperState(trooper, other_unit(ctx, params.to_unit_id, "to_unit_id"))

    def check(self, ctx: CommandContext, state: TrooperState, params: TransferParams) -> None:
        require_reason(params.reason)
        trooper, to_unit = state.trooper, state.to_unit
        assert to_unit is not None  # loaded above
        if to_unit.force_id != trooper.force_id:
            raise CommandError(
                "trooper.other_force",
                f"{to_unit.name} belongs to another force.",
                field="to_unit_id",
            )
        fighting_unit(to_unit, field="to_unit_id")
        if to_unit.id == trooper.unit_id:
            raise CommandError(
                "trooper.unchanged",
                f"{trooper.name} is already in {to_unit.name}.",
                field="to_unit_id",
            )
        if trooper.status in (TrooperStatus.DEAD, TrooperStatus.EVACUATED, TrooperStatus.CAPTURED):
            raise StateConflict(
                "trooper.gone",
                f"{trooper.name} is {trooper.status} and cannot be transferred.",
                field="trooper",
            )

    def payload(self, state: TrooperState, params: TransferParams) -> events.TrooperTransferred:
        assert state.to_unit is not None
        return events.TrooperTransferred(
            trooper_id=state.trooper.id, to_unit_id=state.to_unit.id, reason=params.reason.strip()
        )
