"""What an after-action resolution reads, and the resolvers registered for each ruleset.

A ruleset registers its after-action rules with :func:`register_after_action`: a ``check`` for
the refusals that need no dice, and a ``resolve`` that turns an ended battle and a
:class:`rules.dice.DiceSource` into events. The command :mod:`battles.after_action.command`
looks them up by the campaign's ruleset.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q

from battles.models import Battle, BattleSide, Participant
from battles.services import battle_stream
from campaigns.models import Campaign
from eventlog import store
from eventlog.catalogue import EventPayload
from eventlog.projections import voids
from eventlog.store import NewEvent, StoredEvent
from rosters.models import Trooper, Unit, Vehicle
from rosters.vocabulary import TrooperStatus
from rules.dice import DiceSource
from rules.options import parse_options
from rules.sg2.experience import BattleResult


@dataclass
class AfterActionContext:
    """What a resolver reads: the battle, its sides and participants, the units, troopers and
    vehicles that fought (units in the roster's reading order: :func:`reading_order`), and the
    campaign's options."""

    campaign: Campaign
    battle: Battle
    options: Any
    sides: dict[str, BattleSide] = field(default_factory=dict)
    participants: list[Participant] = field(default_factory=list)
    units: dict[uuid.UUID, Unit] = field(default_factory=dict)
    # Every unit of the battle's forces (those its sides name and those its units belong to),
    # in the rows' order (force, place in the roster).
    force_units: list[Unit] = field(default_factory=list)
    troopers: dict[uuid.UUID, list[Trooper]] = field(default_factory=dict)
    vehicles: dict[uuid.UUID, list[Vehicle]] = field(default_factory=dict)
    # Troopers named by any event of the battle: those who took part even if now dead or gone.
    touched: set[uuid.UUID] = field(default_factory=set)
    # The battle's events, in order, without those voided.
    events: list[StoredEvent] = field(default_factory=list)
    # Unit id -> its troopers on the table as the battle began (``battles.BattleStarted``);
    # None for a battle whose start did not record them.
    on_table: dict[uuid.UUID, list[uuid.UUID]] | None = None

    @classmethod
    def load(cls, campaign: Campaign, battle: Battle) -> AfterActionContext:
        participants = list(Participant.objects.filter(battle_id=battle.id).order_by("key"))
        unit_ids = [p.unit_id for p in participants]
        sides = {s.side: s for s in BattleSide.objects.filter(battle_id=battle.id)}
        # Every unit of the forces the battle names, and of those its units belong to, read
        # at once: the participants, the trees they sit in and the units that did not fight.
        side_forces = [f for side in sides.values() for f in side.force_ids]
        their_forces = Unit.objects.filter(id__in=unit_ids).values("force_id")
        force_units = list(
            Unit.objects.filter(Q(force_id__in=their_forces) | Q(force_id__in=side_forces))
        )
        by_id = {u.id: u for u in force_units}
        units = {u: by_id[u] for u in unit_ids if u in by_id}
        participants.sort(key=reading_order(participants, units, sides, by_id))
        troopers: dict[uuid.UUID, list[Trooper]] = {u: [] for u in unit_ids}
        for trooper in Trooper.objects.filter(unit_id__in=unit_ids).order_by("order"):
            troopers[trooper.unit_id].append(trooper)
        vehicles: dict[uuid.UUID, list[Vehicle]] = {u: [] for u in unit_ids}
        for vehicle in Vehicle.objects.filter(unit_id__in=unit_ids).order_by("order"):
            vehicles[vehicle.unit_id].append(vehicle)
        events, touched, on_table = _read_battle(campaign, battle)
        return cls(
            campaign=campaign,
            battle=battle,
            options=parse_options(campaign.ruleset, campaign.options),
            sides=sides,
            participants=participants,
            units=units,
            force_units=force_units,
            troopers=troopers,
            vehicles=vehicles,
            touched=touched,
            events=events,
            on_table=on_table,
        )

    def took_part(self, unit_id: uuid.UUID) -> list[uuid.UUID]:
        """The unit's troopers who fought the battle: those on the table as it began, then any
        other of its troopers the battle's events name. A trooper in hospital meanwhile did not
        fight, even if he is back by the after-action (SG2 P.61)."""
        members = self.troopers[unit_id]
        if self.on_table is None:
            # An older battle: who is present now, flown out, or named by its events.
            return [
                t.id
                for t in members
                if TrooperStatus(t.status).is_present
                or t.status == TrooperStatus.CASEVACED
                or t.id in self.touched
            ]
        started = self.on_table.get(unit_id, [])
        named = [t.id for t in members if t.id in self.touched and t.id not in started]
        return [*started, *named]

    def result_for(self, participant: Participant) -> BattleResult:
        if self.battle.winner == "draw":
            return BattleResult.DRAW
        return BattleResult.WIN if participant.side == self.battle.winner else BattleResult.LOSS


def reading_order(
    participants: list[Participant],
    units: dict[uuid.UUID, Unit],
    sides: dict[str, BattleSide],
    force_units: dict[uuid.UUID, Unit],
) -> Callable[[Participant], tuple[Any, ...]]:
    """The sort key that puts a battle's units in the order its table dice go to them.

    Side by side as the battle plan lists the sides, each side's forces as the plan lists them,
    then each force's units in the roster's reading order: the force tree top to bottom, depth
    first, as the roster file and ``GET /forces/{id}/`` list it (a platoon's squads all come
    before the next platoon's). Siblings go by their place in the roster, then (a tie no roster
    makes) by name and id, so the order never depends on how the rows happen to be stored.
    ``force_units`` holds every unit of the participants' forces, by id.
    """
    force_ids = {units[p.unit_id].force_id for p in participants}
    tree = {i: u for i, u in force_units.items() if u.force_id in force_ids}

    def path(unit: Unit) -> tuple[tuple[int, str, str], ...]:
        steps: list[tuple[int, str, str]] = []
        seen: set[uuid.UUID] = set()
        node: Unit | None = unit
        while node is not None and node.id not in seen:
            seen.add(node.id)
            steps.append((node.order, node.name, str(node.id)))
            node = tree.get(node.parent_id) if node.parent_id is not None else None
        return tuple(reversed(steps))

    def key(participant: Participant) -> tuple[Any, ...]:
        unit = units[participant.unit_id]
        side = sides[participant.side]
        forces = [str(f) for f in side.force_ids]
        return (side.order, forces.index(str(unit.force_id)), path(unit))

    return key


def _read_battle(
    campaign: Campaign, battle: Battle
) -> tuple[list[StoredEvent], set[uuid.UUID], dict[uuid.UUID, list[uuid.UUID]] | None]:
    """The battle's events (voided ones left out), the troopers they name, and who was on the
    table as it began (None if its start did not record it)."""
    voided = voids(campaign.id)
    events = [
        event
        for event in store.read(campaign.id, stream=battle_stream(battle.id))
        if event.sequence not in voided
    ]
    touched: set[uuid.UUID] = set()
    on_table = None
    for event in events:
        _collect_troopers(event.payload, touched)
        if event.type == "battles.BattleStarted" and event.payload.get("on_table") is not None:
            on_table = {
                uuid.UUID(unit): [uuid.UUID(t) for t in ids]
                for unit, ids in event.payload["on_table"].items()
            }
    return events, touched, on_table


def _collect_troopers(value: Any, found: set[uuid.UUID]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("trooper_id", "leader_id") and isinstance(item, str):
                found.add(uuid.UUID(item))
            elif key == "trooper_ids" and isinstance(item, list):
                found.update(uuid.UUID(i) for i in item)
            else:
                _collect_troopers(item, found)
    elif isinstance(value, list):
        for item in value:
            _collect_troopers(item, found)


# What a resolver returns: battle-stream payloads, and events of other streams (a trooper
# enlisted by the after-action) as :class:`eventlog.store.NewEvent`.
Resolved = EventPayload | NewEvent
Resolver = Callable[[AfterActionContext, DiceSource], Sequence[Resolved]]
Check = Callable[[AfterActionContext], None]


def _no_check(ctx: AfterActionContext) -> None:
    """Most rulesets refuse nothing beyond the battle's state."""


@dataclass(frozen=True)
class AfterActionRules:
    """A ruleset's after-action resolution: its refusals before any die, and its resolver."""

    resolve: Resolver
    check: Check = _no_check


# The campaign's ruleset (its value, ``"sg2"``) -> its after-action rules.
RULES: dict[str, AfterActionRules] = {}


def register_after_action(ruleset: str, resolver: Resolver, *, check: Check | None = None) -> None:
    """Register the after-action rules of a ruleset (``"sg2"``, ``"fad"``).

    ``resolver(ctx, dice)`` receives an :class:`AfterActionContext` of an ENDED battle and a
    :class:`rules.dice.DiceSource` (the table's dice or the job's seeded dice), and returns the
    event payloads (battle-stream ``EventPayload`` models, each carrying the dice it used through
    :func:`battles.actions.dice_json`) in the order they happened; an event of another stream
    (a trooper enlisted on his own, ``trooper:<id>``) comes as a ready
    :class:`eventlog.store.NewEvent`, appended in the same transaction. It must not append anything
    nor read the clock; the rules refuse with :class:`rules.errors.RuleError` or
    :class:`eventlog.errors.CommandError`. ``check(ctx)`` refuses before any die is rolled, so a
    request for the server's dice is refused at once rather than in its job. The command appends
    ``battles.AfterActionResolved`` after the resolver's events.
    """
    RULES[str(ruleset)] = AfterActionRules(resolve=resolver, check=check or _no_check)
