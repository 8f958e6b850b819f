"""Reading a battle's state for casualty actions: troopers as the rules see their figures, who
leads a unit now, and the checks every casualty action makes.

A trooper's roster status stands for his figure's state on the table: ``fit`` is FIT (or a
power-armoured trooper whose suit was wrecked, who is unhurt and fights unarmoured until it is
repaired), ``wounded`` an untreated casualty (white skull), ``stabilised`` a treated one (red
cross), ``dead`` a black skull.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Literal

from battles.actions import BattleContext
from battles.casualties.events import LEADER_CASUALTY_EVENT, TrooperCasualty
from battles.services import battle_stream
from campaigns.events import dice_json
from eventlog import store
from eventlog.errors import CommandError, StateConflict
from eventlog.projections import voids
from eventlog.store import StoredEvent
from rosters.models import Trooper, TrooperRecordEntry
from rosters.vocabulary import TrooperRole, TrooperStatus
from rosters.wording import label
from rules.dice import Die, Roll
from rules.sg2 import casualties as rules
from rules.sg2.casualties import FigureCasualty, FigureState

DieFaces = Literal[4, 6, 8, 10, 12]

# Roster statuses of troopers whose figures are on the table, and the figure state each means.
FIGURE_STATE: dict[TrooperStatus, FigureState] = {
    TrooperStatus.FIT: FigureState.FIT,
    TrooperStatus.WOUNDED: FigureState.UNTREATED,
    TrooperStatus.STABILISED: FigureState.STABILISED,
    TrooperStatus.DEAD: FigureState.DEAD,
}

# What each figure state the rules can leave a trooper in is on the roster. A wrecked suit's
# wearer is unhurt (P.40): he stays fit, and the roster keeps his suit wrecked until repaired.
ROSTER_STATUS: dict[FigureState, TrooperStatus] = {
    FigureState.FIT: TrooperStatus.FIT,
    FigureState.SUIT_DISABLED: TrooperStatus.FIT,
    FigureState.UNTREATED: TrooperStatus.WOUNDED,
    FigureState.STABILISED: TrooperStatus.STABILISED,
    FigureState.DEAD: TrooperStatus.DEAD,
    FigureState.CAPTURED: TrooperStatus.CAPTURED,
}

DOWN = (FigureState.UNTREATED, FigureState.STABILISED, FigureState.DEAD)

# The armour die of a figure without effective armour, "basic battledress" (SG2 P.28).
UNARMOURED = Die.D4


def status_of(trooper: Trooper) -> TrooperStatus:
    return TrooperStatus(trooper.status)


def figure_of(trooper: Trooper) -> rules.Figure:
    """The trooper as the rules see his figure. A missing armour die is refused where the rules
    roll it; elsewhere it is never read.

    A power-armoured trooper whose suit is wrecked (P.40 roll 5) and not yet repaired (option
    ``pa_suit_repair_days``) fights as "any unarmoured figure": no power armour and the armour
    die of basic battledress, D4 (P.28: "figures wearing no effective armour").
    """
    if trooper.power_armour and trooper.suit_wrecked:
        armour, power_armour = UNARMOURED, False
    else:
        armour = Die(trooper.armour_die) if trooper.armour_die else Die.D6
        power_armour = trooper.power_armour
    return rules.Figure(
        id=str(trooper.id),
        state=FIGURE_STATE[status_of(trooper)],
        armour=armour,
        power_armour=power_armour,
    )


def require_on_table(trooper: Trooper, field: str) -> None:
    status = status_of(trooper)
    if status is TrooperStatus.DEAD:
        raise StateConflict(
            "casualties.trooper_dead", f"{trooper.name} is already dead.", field=field
        )
    if status not in FIGURE_STATE:
        raise StateConflict(
            "casualties.not_on_table",
            f"{trooper.name} is {label(status)} and not on the table.",
            field=field,
        )


def require_armour_die(troopers: Iterable[Trooper], field: str) -> None:
    for trooper in troopers:
        if not trooper.armour_die:
            raise StateConflict(
                "casualties.no_armour_die",
                f"{trooper.name} has no armour die on the roster: the rules roll it (P.28).",
                field=field,
            )


def member(troopers: Sequence[Trooper], trooper_id: uuid.UUID, field: str) -> Trooper:
    found = next((t for t in troopers if t.id == trooper_id), None)
    if found is None:
        raise CommandError(
            "casualties.not_in_unit", "That trooper is not in the unit.", field=field
        )
    return found


def no_repeats(ids: Sequence[uuid.UUID], field: str) -> None:
    seen: set[uuid.UUID] = set()
    for index, trooper_id in enumerate(ids):
        if trooper_id in seen:
            raise CommandError(
                "casualties.named_twice", "A trooper is named twice.", field=f"{field}.{index}"
            )
        seen.add(trooper_id)


def died_here(ctx: BattleContext, troopers: Sequence[Trooper]) -> set[uuid.UUID]:
    """Dead troopers whose service record has a line from this battle: their figures lie on
    this table, so an allocation pool of all figures counts them (P.36; SG2-C)."""
    dead = [t.id for t in troopers if status_of(t) is TrooperStatus.DEAD]
    if not dead:
        return set()
    return set(
        TrooperRecordEntry.objects.filter(trooper_id__in=dead, battle_id=ctx.battle.id).values_list(
            "trooper_id", flat=True
        )
    )


def battle_events(ctx: BattleContext, type_name: str) -> list[StoredEvent]:
    voided = voids(ctx.campaign.id)
    return [
        event
        for event in store.read(
            ctx.campaign.id, stream=battle_stream(ctx.battle.id), types=[type_name]
        )
        if event.sequence not in voided
    ]


def acting_leader(
    ctx: BattleContext, unit_id: uuid.UUID, troopers: Sequence[Trooper]
) -> Trooper | None:
    """Who leads the unit now: the last successor named in this battle, else its leader.

    The roster keeps each trooper's role; the chain of command within a battle lives in its
    events, so a successor is not renamed leader on the roster (the returning leader is the
    umpire's call, P.10; option ``returning_leader``).
    """
    by_id = {str(t.id): t for t in troopers}
    successor = None
    for event in battle_events(ctx, LEADER_CASUALTY_EVENT):
        if event.payload["unit_id"] == str(unit_id) and event.payload["successor_id"]:
            successor = by_id.get(event.payload["successor_id"], successor)
    if successor is not None:
        return successor
    return next((t for t in troopers if t.role == TrooperRole.LEADER), None)


def leaders_down(ctx: BattleContext, changes: Sequence[TrooperCasualty]) -> list[uuid.UUID]:
    """The acting leaders among troopers this event made casualties."""
    down: list[uuid.UUID] = []
    for change in changes:
        fell = change.status_before is TrooperStatus.FIT and change.status_after in (
            TrooperStatus.WOUNDED,
            TrooperStatus.STABILISED,
            TrooperStatus.DEAD,
        )
        if not fell:
            continue
        leader = acting_leader(ctx, change.unit_id, ctx.troopers(change.unit_id))
        if leader is not None and leader.id == change.trooper_id:
            down.append(change.trooper_id)
    return down


def trooper_casualty(
    trooper: Trooper, change: FigureCasualty, rolls: Sequence[Roll]
) -> TrooperCasualty:
    return TrooperCasualty(
        trooper_id=trooper.id,
        unit_id=trooper.unit_id,
        status_before=status_of(trooper),
        status_after=ROSTER_STATUS[change.after],
        figure_after=change.after.value,
        wounds=change.wounds,
        kills=change.kills,
        power_armour_roll=change.power_armour_roll,
        dice=dice_json(rolls),
    )


class Rolls:
    """The rolls of an outcome, taken in the order the rules document they were rolled."""

    def __init__(self, rolls: Sequence[Roll]) -> None:
        self._rolls = list(rolls)
        self._next = 0

    def take(self) -> Roll:
        roll = self._rolls[self._next]
        self._next += 1
        return roll
