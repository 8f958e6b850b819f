"""Whether units regrouped in a battle stay one unit once it is over (SG2 P.17 REGROUPING).

The book forms the regrouped unit for the game and is silent on the campaign after it (digest
AMBIG-19). The campaign's option ``regroup_persists`` decides at the battle's end
(``battles.end``): every merger stands, every merger is dissolved, or (``umpire``, the default)
the umpire names the mergers that stand (``regroups_persisting``) and the others are dissolved.
The end appends ``battles.RegroupsSettled`` after ``battles.BattleEnded``, so that the
after-action (P.60-61) finds every man on the roll of the unit he will serve in.

A merger that stands leaves the merged unit's men where they are and the merged unit disbanded,
merged into the unit its men are in. A dissolved merger hands every man who joined back to his
own unit, at his old place on its roll (the fallen too: his unit's roll keeps its dead, as the
regroup left the men already fallen there), and gives the joined unit back the quality, LV and
fatigue it had before (P.17 took them from the merger). The rosters fold the event
(:mod:`rosters.in_battle`); the battle log and the participants fold it in
:mod:`battles.morale.projection`.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any, Literal, cast

from pydantic import Field

from battles.models import Participant
from eventlog import store
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError
from eventlog.projections import voids
from rosters.models import Trooper
from rules.options import parse_options
from rules.sg2.command import regroup_persists_after_battle

REGROUPED = "battles.UnitsRegrouped"

UnitEnd = Literal["fighting", "withdrawn", "routed", "surrendered"]


class JoinedUnitBefore(EventPayload):
    """The joined unit as it stood before a regroup: what it gets back if the merger is
    dissolved when the battle ends (option ``regroup_persists``)."""

    quality: str
    leadership: int | None
    fatigue: str = Field(description="Its fatigue on the roster.")
    fatigue_in_battle: str = Field(description="The fatigue it fought the battle at (P.19).")
    starting_confidence: str = Field(description="The confidence that fatigue started it at.")


class TrooperReturned(EventPayload):
    """A man of a dissolved merger, back on his own unit's roll."""

    trooper_id: uuid.UUID
    from_unit_id: uuid.UUID = Field(description="The unit he ended the battle in.")
    order: int | None = Field(
        default=None,
        description="His place on his own unit's roll before the regroup; None: after its last.",
    )


class RegroupSettled(EventPayload):
    """What became of one regroup of the battle."""

    unit_id: uuid.UUID = Field(description="The unit joined.")
    merged_unit_id: uuid.UUID = Field(description="The unit whose men joined it.")
    persists: bool
    merged_into: uuid.UUID | None = Field(
        default=None,
        description="It stands: the unit the merged unit's men serve in now (the unit joined, "
        "or the one that unit in turn merged into for good).",
    )
    returned: list[TrooperReturned] = Field(
        default_factory=list, description="It is dissolved: the men handed back."
    )
    restored: JoinedUnitBefore | None = Field(
        default=None,
        description="It is dissolved: the joined unit's own ratings, back; None when they are "
        "not known (a regroup recorded before they were) or a later merger into it stands.",
    )
    merged_unit_ended: UnitEnd | None = Field(
        default=None,
        description="It is dissolved: how the merged unit's men ended the battle, with the unit "
        "they had joined; the after-action reads their casualties' fate from it (P.61).",
    )


@event_type("battles.RegroupsSettled", stream="battle")
class RegroupsSettled(EventPayload):
    """As the battle ended, each of its regroups (SG2 P.17) either stood or was dissolved, as
    the campaign's option ``regroup_persists`` (or, with ``umpire``, the umpire) decided. The
    regroups are listed from the battle's last to its first, the order they are undone in."""

    battle_id: uuid.UUID
    regroup_persists: Literal["umpire", "persists", "dissolves"]
    regroups: list[RegroupSettled] = Field(min_length=1)


def battle_regroups(campaign_id: uuid.UUID, stream: str) -> list[dict[str, Any]]:
    """The regroups of the battle whose stream is ``stream``, in order, without those voided."""
    regroups = list(store.read(campaign_id, stream=stream, types=[REGROUPED]))
    if not regroups:
        return []  # most battles: no need to read the voids
    voided = voids(campaign_id)
    return [event.payload for event in regroups if event.sequence not in voided]


def umpire_regroups(campaign: Any, battle_id: uuid.UUID) -> list[dict[str, Any]]:
    """The battle's regroups whose fate the umpire decides at its end: all of them when the
    campaign's option ``regroup_persists`` is ``umpire``, none otherwise."""
    options = parse_options(campaign.ruleset, campaign.options)
    if getattr(options, "regroup_persists", None) is None:
        return []
    if options.regroup_persists.value != "umpire":
        return []
    return battle_regroups(campaign.id, f"battle:{battle_id}")


def check_regroups_persisting(
    regroups: list[dict[str, Any]], persisting: list[uuid.UUID], options: Any
) -> None:
    """Refuse a ``regroups_persisting`` list naming a unit that did not regroup into another in
    this battle, or given when the campaign's option, not the umpire, decides."""
    merged = {uuid.UUID(str(r["merged_unit_id"])) for r in regroups}
    for index, unit_id in enumerate(persisting):
        if unit_id not in merged:
            raise CommandError(
                "battle.not_regrouped",
                "That unit did not regroup into another unit in this battle: name the units "
                "that joined another (the regroup's other_unit_id).",
                field=f"regroups_persisting.{index}",
            )
    if persisting and options.regroup_persists.value != "umpire":
        raise CommandError(
            "battle.regroups_by_option",
            f"The campaign's option regroup_persists is {options.regroup_persists.value!r}: it "
            "decides which regroups stand, not the battle's end.",
            field="regroups_persisting",
        )


def settle_regroups(
    *,
    battle_id: uuid.UUID,
    regroups: list[dict[str, Any]],
    options: Any,
    persisting: Iterable[uuid.UUID],
    fates: Mapping[uuid.UUID, str],
) -> RegroupsSettled | None:
    """Decide each regroup of the battle, the last first (so a unit that regrouped into another
    after others had joined it gives its men back before they go home), or None if the battle
    had none. ``fates`` are the units the end names withdrawn, routed or surrendered."""
    if not regroups:
        return None
    option = options.regroup_persists.value
    kept_by_umpire = set(persisting)
    joined_into = {_id(r["merged_unit_id"]): _id(r["unit_id"]) for r in regroups}
    ids = [_id(t) for r in regroups for t in r["trooper_ids"]]
    where = dict(Trooper.objects.filter(id__in=ids).values_list("id", "unit_id"))
    statuses = dict(
        Participant.objects.filter(battle_id=battle_id).values_list("unit_id", "status")
    )
    merged_for_good: dict[uuid.UUID, uuid.UUID] = {}
    settled = []
    for regroup in reversed(regroups):
        unit_id, merged_id = _id(regroup["unit_id"]), _id(regroup["merged_unit_id"])
        if regroup_persists_after_battle(
            regroup_persists=option, kept_by_umpire=merged_id in kept_by_umpire
        ):
            merged_for_good[merged_id] = unit_id
            settled.append(
                RegroupSettled(
                    unit_id=unit_id,
                    merged_unit_id=merged_id,
                    persists=True,
                    merged_into=_final_unit(unit_id, merged_for_good),
                )
            )
            continue
        trooper_ids = [_id(t) for t in regroup["trooper_ids"]]
        orders = regroup.get("trooper_orders") or [None] * len(trooper_ids)
        returned = []
        for trooper_id, order in zip(trooper_ids, orders, strict=True):
            if trooper_id not in where:
                continue
            returned.append(
                TrooperReturned(trooper_id=trooper_id, from_unit_id=where[trooper_id], order=order)
            )
            where[trooper_id] = merged_id
        before = regroup.get("joined_before")
        # A later merger into the same unit that stands keeps the ratings it gave the unit.
        restored = before is not None and unit_id not in merged_for_good.values()
        settled.append(
            RegroupSettled(
                unit_id=unit_id,
                merged_unit_id=merged_id,
                persists=False,
                returned=returned,
                restored=JoinedUnitBefore(**before) if restored else None,
                merged_unit_ended=_end_of(merged_id, fates, joined_into, statuses),
            )
        )
    return RegroupsSettled(battle_id=battle_id, regroup_persists=option, regroups=settled)


def _id(value: Any) -> uuid.UUID:
    return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))


def _final_unit(unit_id: uuid.UUID, merged_for_good: Mapping[uuid.UUID, uuid.UUID]) -> uuid.UUID:
    """The unit a unit's men serve in after the battle, following the mergers that stand."""
    seen = {unit_id}
    while unit_id in merged_for_good and merged_for_good[unit_id] not in seen:
        unit_id = merged_for_good[unit_id]
        seen.add(unit_id)
    return unit_id


def _end_of(
    unit_id: uuid.UUID,
    fates: Mapping[uuid.UUID, str],
    joined_into: Mapping[uuid.UUID, uuid.UUID],
    statuses: Mapping[uuid.UUID, str],
) -> UnitEnd:
    """How a unit's men ended the battle: as the end names the unit, else with the unit they
    regrouped into (and so on), else as the unit stands."""
    seen: set[uuid.UUID] = set()
    while unit_id not in fates and unit_id in joined_into and unit_id not in seen:
        seen.add(unit_id)
        unit_id = joined_into[unit_id]
    end = fates.get(unit_id) or statuses.get(unit_id, Participant.Status.FIGHTING)
    return cast(UnitEnd, Participant.Status(end).value)
