"""Where units stand between their battles, for the replacement rules (SG2 P.60).

The die is rolled once per platoon between battles, a squad takes one quality check for all the
men it receives between two of its battles, and a quality rise is taken into account before any
replacements are allocated. All three ask the same questions of the battles a unit fought:
which ended last, whether each ended one was resolved after the action, and whether that
resolution raised its quality. The battle events are named here by type and read as the payload
dicts the log stores: the rosters import nothing of ``battles`` (DESIGN §2, ownership).
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

from eventlog import store
from eventlog.projections import voids
from eventlog.store import StoredEvent
from rosters.models import RosterBattle, Unit

COMMITTED = "battles.UnitsCommitted"
ENDED = "battles.BattleEnded"
RESOLVED = "battles.AfterActionResolved"
AWARDED = "battles.QualityPointsAwarded"


@dataclass
class _Battle:
    units: set[str] = field(default_factory=set)
    ended: int | None = None  # the sequence of its end
    resolved: bool = False
    rose: set[str] = field(default_factory=set)  # units its after-action raised


@dataclass(frozen=True)
class UnitBattles:
    """A unit between its battles."""

    # The sequence at which the last battle it fought ended; 0 if it has fought none.
    last_ended: int = 0
    # Its last battle's after-action raised its quality (SG2 P.60 "used up anyway").
    rose: bool = False
    # Names of ended battles it fought that are not resolved after the action yet.
    unresolved: tuple[str, ...] = ()


def _fold(events: Iterable[StoredEvent], voided: Mapping[int, StoredEvent]) -> dict[str, _Battle]:
    battles: dict[str, _Battle] = {}
    for event in events:
        if event.sequence in voided:
            continue
        p = event.payload
        battle = battles.setdefault(str(p["battle_id"]), _Battle())
        if event.type == COMMITTED:
            battle.units.update(str(u["unit_id"]) for u in p["units"])
        elif event.type == ENDED:
            battle.ended = event.sequence
        elif event.type == RESOLVED:
            battle.resolved = True
        elif p["rose"]:  # AWARDED
            battle.rose.add(str(p["unit_id"]))
    return battles


def unit_battles(
    campaign_id: uuid.UUID, unit_ids: Collection[uuid.UUID]
) -> dict[uuid.UUID, UnitBattles]:
    """Each unit of ``unit_ids`` between its battles, as the log stands."""
    battles = _fold(
        store.read(campaign_id, types=[COMMITTED, ENDED, RESOLVED, AWARDED]), voids(campaign_id)
    )
    ended = sorted(
        ((b.ended, battle_id, b) for battle_id, b in battles.items() if b.ended is not None),
    )
    names = dict(
        RosterBattle.objects.filter(id__in=[battle_id for _, battle_id, _ in ended]).values_list(
            "id", "name"
        )
    )
    out: dict[uuid.UUID, UnitBattles] = {}
    for unit_id in unit_ids:
        fought = [(seq, battle_id, b) for seq, battle_id, b in ended if str(unit_id) in b.units]
        if not fought:
            out[unit_id] = UnitBattles()
            continue
        last_ended, _, last = fought[-1]
        out[unit_id] = UnitBattles(
            last_ended=last_ended,
            rose=str(unit_id) in last.rose,
            unresolved=tuple(
                names.get(uuid.UUID(battle_id), "a battle")
                for _, battle_id, b in fought
                if not b.resolved
            ),
        )
    return out


def formation_tree(unit: Unit) -> list[uuid.UUID]:
    """The unit and every unit under it, at any depth, disbanded ones too: who may have fought
    for a platoon since its last replacement roll."""
    found = [unit.id]
    parents = [unit.id]
    while parents:
        parents = list(Unit.objects.filter(parent_id__in=parents).values_list("id", flat=True))
        found.extend(parents)
    return found
