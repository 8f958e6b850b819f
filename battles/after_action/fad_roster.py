"""Reading a Fast and Dirty force for the post-battle steps: its units' standing, their initial
strength, the troopers who joined later, and its campaign points folded from the log."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from battles.after_action.fad_events import (
    INFANTRY_REPLACED,
    POINTS_AWARDED,
    POINTS_SPENT,
    REINFORCEMENTS_ROLLED,
)
from campaigns.models import Campaign
from eventlog import store
from eventlog.errors import CommandError
from eventlog.store import NewEvent, StoredEvent
from rosters import events as roster_events
from rosters.models import Force, Trooper, Unit
from rosters.vocabulary import TrooperStatus, UnitKind, UnitStatus
from rules.fad.scales import Quality, Resolve
from rules.rulesets import definition


def require_fad(campaign: Campaign, what: str) -> None:
    """Campaign points and reinforcements are the FaD book's (p.66); refuse them elsewhere."""
    if not definition(campaign.ruleset).has("campaign_points"):
        raise CommandError(
            "fad.not_in_ruleset",
            f"{what} is a Fast and Dirty rule; this campaign plays {campaign.ruleset}.",
        )


def quality_of(unit: Unit) -> Quality | None:
    return Quality[unit.quality.upper()] if unit.quality else None


def resolve_of(unit: Unit) -> Resolve | None:
    return Resolve[unit.resolve.upper()] if unit.resolve else None


def resolve_locked(unit: Unit) -> bool:
    """A fanatic unit's resolve does not change (FaD p.66)."""
    return any(s.lower() == "fanatic" for s in unit.specialists)


def newcomers(campaign_id: uuid.UUID) -> set[uuid.UUID]:
    """Troopers who joined as replacements or reinforcements: they are not part of a unit's
    initial strength."""
    found: set[uuid.UUID] = set()
    for event in store.read(campaign_id, types=[INFANTRY_REPLACED, REINFORCEMENTS_ROLLED]):
        p = event.payload
        if event.type == INFANTRY_REPLACED:
            found.update(uuid.UUID(t) for t in p["trooper_ids"])
        else:
            found.update(uuid.UUID(t) for u in p["units"] for t in u["trooper_ids"])
    return found


def initial_strength(unit: Unit, troopers: Sequence[Trooper], joined: set[uuid.UUID]) -> int:
    """The unit's strength when the campaign began (the cap of FaD p.66 REINFORCEMENTS): its
    TO&E strength if the roster gives one, else the troopers it was raised with."""
    if unit.toe_strength:
        return unit.toe_strength
    return sum(1 for t in troopers if t.id not in joined)


def present(troopers: Sequence[Trooper]) -> list[Trooper]:
    return [t for t in troopers if TrooperStatus(t.status).is_present]


@dataclass
class ForceRoster:
    """A force's standing units (in roster order) and their troopers, and the newcomers."""

    units: dict[uuid.UUID, Unit]
    troopers: dict[uuid.UUID, list[Trooper]]
    newcomers: set[uuid.UUID]

    @classmethod
    def load(cls, campaign_id: uuid.UUID, force_id: uuid.UUID) -> ForceRoster:
        units = {
            u.id: u
            for u in Unit.objects.filter(force_id=force_id)
            .exclude(status=UnitStatus.DISBANDED)
            .order_by("order")
        }
        troopers: dict[uuid.UUID, list[Trooper]] = {u: [] for u in units}
        for trooper in Trooper.objects.filter(force_id=force_id).order_by("order"):
            troopers.setdefault(trooper.unit_id, []).append(trooper)
        return cls(units=units, troopers=troopers, newcomers=newcomers(campaign_id))

    def initial(self, unit: Unit) -> int:
        return initial_strength(unit, self.troopers[unit.id], self.newcomers)


def enlist(
    trooper_id: uuid.UUID,
    unit: Unit,
    template: Trooper | None,
    order: int,
    name: str,
    *,
    role: str | None = None,
    experience: str = "",
    battle_id: uuid.UUID | None = None,
    joined_as: Literal["", "replacement", "reinforcement"] = "",
) -> NewEvent:
    """A new trooper armed like ``template`` (the figure he replaces, or a typical one); a new
    squad's leader with his ``experience`` (FaD p.11). Enlisted on his own stream, as what the
    after-action of ``battle_id`` brought (FaD p.66), so his service record starts with it."""
    payload = roster_events.TrooperEnlisted(
        trooper_id=trooper_id,
        unit_id=unit.id,
        force_id=unit.force_id,
        order=order,
        name=name,
        role=role or (template.role if template else "line"),
        weapon=template.weapon if template else "",
        armour=template.armour if template else "",
        armour_die=template.armour_die if template else None,
        power_armour=template.power_armour if template else False,
        specialism=template.specialism if template else "",
        experience=experience,
        battle_id=battle_id,
        joined_as=joined_as,
    )
    return NewEvent.of(payload, stream=f"trooper:{trooper_id}")


def reinforced_platoons(force: Force, count: str) -> int:
    """Reinforced platoons in a force, for campaign points (FaD p.66, option
    ``campaign_reinforced_platoon_count``). Each platoon counts once with its attachments; with
    ``attachments_round_up`` (default) units outside every platoon count as one more, as for
    Recon Points (p.60). A force with units but no platoon counts as one."""
    units = list(Unit.objects.filter(force_id=force.id).exclude(status=UnitStatus.DISBANDED))
    platoons = {u.id for u in units if u.kind == UnitKind.PLATOON}
    if not units:
        return 0
    if not platoons:
        return 1
    by_id = {u.id: u for u in units}

    def in_platoon(unit: Unit) -> bool:
        while unit.parent_id is not None:
            if unit.parent_id in platoons:
                return True
            parent = by_id.get(unit.parent_id)
            if parent is None:
                return False
            unit = parent
        return False

    outside = [
        u
        for u in units
        if u.id not in platoons and not UnitKind(u.kind).is_formation and not in_platoon(u)
    ]
    extra = 1 if outside and count == "attachments_round_up" else 0
    return len(platoons) + extra


@dataclass
class PointsLedger:
    """A force's campaign points, folded from the log: its balance, the battle they were earned
    in, the reinforcement dice bought since, whether its pool is rolled, and the history."""

    balance: int = 0
    battle_id: str | None = None
    extra_dice: int = 0
    reinforcements_rolled: bool = False
    spent: bool = False
    history: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def load(cls, campaign_id: uuid.UUID, force_id: uuid.UUID) -> PointsLedger:
        ledger = cls()
        wanted = str(force_id)
        types = [POINTS_AWARDED, POINTS_SPENT, REINFORCEMENTS_ROLLED]
        for event in store.read(campaign_id, types=types):
            if event.payload["force_id"] == wanted:
                ledger.apply(event)
        return ledger

    def apply(self, event: StoredEvent) -> None:
        p = event.payload
        entry: dict[str, Any] = {
            "sequence": event.sequence,
            "type": event.type,
            "battle_id": p["battle_id"],
        }
        if event.type == POINTS_AWARDED:
            # A new battle's points: what was bought for the last one is behind.
            self.balance, self.battle_id = p["balance"], p["battle_id"]
            self.extra_dice, self.reinforcements_rolled, self.spent = 0, False, False
            entry.update(
                points=p["points"],
                reinforced_platoons=p["reinforced_platoons"],
                lapsed=p["lapsed"],
                balance=p["balance"],
            )
        elif event.type == POINTS_SPENT:
            dice = sum(1 for b in p["purchases"] if b["kind"] == "reinforcement_die")
            self.balance, self.extra_dice, self.spent = p["balance"], self.extra_dice + dice, True
            entry.update(
                spent=p["spent"], lost=p["lost"], balance=p["balance"], purchases=p["purchases"]
            )
        else:
            self.reinforcements_rolled = True
            entry.update(pool=p["pool"], unused=p["unused"], balance=self.balance)
        self.history.append(entry)
