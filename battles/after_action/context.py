"""What an after-action resolution reads, and the resolvers registered for each ruleset.

A ruleset registers its after-action rules with :func:`register_after_action`: a ``check`` for
the refusals that need no dice, and a ``resolve`` that turns an ended battle and a
:class:`rules.dice.DiceSource` into events. The command :mod:`battles.after_action.command`
looks them up by the campaign's ruleset.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from battles.models import Battle, BattleSide, Participant
from battles.services import battle_stream
from campaigns.models import Campaign
from eventlog import store
from eventlog.catalogue import EventPayload
from rosters.models import Trooper, Unit, Vehicle
from rules.dice import DiceSource
from rules.options import parse_options
from rules.sg2.experience import BattleResult


@dataclass
class AfterActionContext:
    """What a resolver reads: the battle, its sides and participants, the units, troopers and
    vehicles that fought (in roster order), and the campaign's options."""

    campaign: Campaign
    battle: Battle
    options: Any
    sides: dict[str, BattleSide] = field(default_factory=dict)
    participants: list[Participant] = field(default_factory=list)
    units: dict[uuid.UUID, Unit] = field(default_factory=dict)
    troopers: dict[uuid.UUID, list[Trooper]] = field(default_factory=dict)
    vehicles: dict[uuid.UUID, list[Vehicle]] = field(default_factory=dict)
    # Troopers named by any event of the battle: those who took part even if now dead or gone.
    touched: set[uuid.UUID] = field(default_factory=set)

    @classmethod
    def load(cls, campaign: Campaign, battle: Battle) -> AfterActionContext:
        participants = list(Participant.objects.filter(battle_id=battle.id).order_by("key"))
        unit_ids = [p.unit_id for p in participants]
        units = {u.id: u for u in Unit.objects.filter(id__in=unit_ids)}
        sides = {s.side: s for s in BattleSide.objects.filter(battle_id=battle.id)}
        # Table dice go to the units in a fixed order: side by side, each side's forces as the
        # battle plan lists them, then as in the roster.
        participants.sort(
            key=lambda p: (
                sides[p.side].order,
                [str(f) for f in sides[p.side].force_ids].index(str(units[p.unit_id].force_id)),
                units[p.unit_id].order,
            )
        )
        troopers: dict[uuid.UUID, list[Trooper]] = {u: [] for u in unit_ids}
        for trooper in Trooper.objects.filter(unit_id__in=unit_ids).order_by("order"):
            troopers[trooper.unit_id].append(trooper)
        vehicles: dict[uuid.UUID, list[Vehicle]] = {u: [] for u in unit_ids}
        for vehicle in Vehicle.objects.filter(unit_id__in=unit_ids).order_by("order"):
            vehicles[vehicle.unit_id].append(vehicle)
        touched: set[uuid.UUID] = set()
        for event in store.read(campaign.id, stream=battle_stream(battle.id)):
            _collect_troopers(event.payload, touched)
        return cls(
            campaign=campaign,
            battle=battle,
            options=parse_options(campaign.ruleset, campaign.options),
            sides=sides,
            participants=participants,
            units=units,
            troopers=troopers,
            vehicles=vehicles,
            touched=touched,
        )

    def result_for(self, participant: Participant) -> BattleResult:
        if self.battle.winner == "draw":
            return BattleResult.DRAW
        return BattleResult.WIN if participant.side == self.battle.winner else BattleResult.LOSS


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


Resolver = Callable[[AfterActionContext, DiceSource], list[EventPayload]]
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
    :func:`battles.actions.dice_json`) in the order they happened. It must not append anything
    nor read the clock; the rules refuse with :class:`rules.errors.RuleError` or
    :class:`eventlog.errors.CommandError`. ``check(ctx)`` refuses before any die is rolled, so a
    request for the server's dice is refused at once rather than in its job. The command appends
    ``battles.AfterActionResolved`` after the resolver's events.
    """
    RULES[str(ruleset)] = AfterActionRules(resolve=resolver, check=check or _no_check)
