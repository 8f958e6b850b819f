"""What the end of a battle does to its regroups on the rosters (SG2 P.17 REGROUPING; digest
AMBIG-19, option ``regroup_persists``): the fold of ``battles.RegroupsSettled``.

A merger that stands disbands the merged unit into the unit its men serve in now. A dissolved
merger hands every man who joined back to his own unit, at his old place on its roll, and gives
the joined unit back the quality, LV and fatigue it had before. The event is read as the payload
dict the log stores: the rosters import nothing of ``battles`` (DESIGN §2, ownership).
"""

from __future__ import annotations

from typing import Any

from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.in_battle import battle_name
from rosters.models import Trooper, Unit
from rosters.projections import next_order, service_record, trooper_names, unit_history, unit_name
from rosters.vocabulary import TrooperStatus, UnitStatus
from rosters.wording import label


class _Parts:
    """Numbers the history lines one event writes on the same unit, so none replaces another."""

    def __init__(self) -> None:
        self.used: dict[str, int] = {}

    def next(self, unit_id: str) -> int:
        self.used[unit_id] = self.used.get(unit_id, -1) + 1
        return self.used[unit_id]


def _strength(rows: Rows, trooper_ids: list[str]) -> int:
    """How many of the men count toward a unit's strength (the fallen go home too, uncounted)."""
    troopers = (rows.get(Trooper, trooper_id) for trooper_id in trooper_ids)
    return sum(1 for t in troopers if t is not None and TrooperStatus(t["status"]).is_present)


def _regroup_stands(
    rows: Rows, event: StoredEvent, settled: dict[str, Any], where: str, parts: _Parts
) -> None:
    """SG2 P.17, option ``regroup_persists``: the merger stands; the merged unit, its men gone,
    is disbanded into the unit they serve in now."""
    p = event.payload
    merged = rows.get(Unit, settled["merged_unit_id"])
    if merged is None:
        return
    into = settled["merged_into"]
    rows.update(Unit, merged["id"], status=UnitStatus.DISBANDED.value, merged_into=into)
    unit_history(
        rows,
        event,
        merged["id"],
        f"Merged into {unit_name(rows, into)} for good after {where}: the regrouping stands.",
        {"status": [merged["status"], UnitStatus.DISBANDED.value], "merged_into": into},
        battle_id=p["battle_id"],
        part=parts.next(merged["id"]),
    )
    if rows.get(Unit, settled["unit_id"]) is not None:
        unit_history(
            rows,
            event,
            settled["unit_id"],
            f"The regrouping with {merged['name']} in {where} stands: its men stay.",
            battle_id=p["battle_id"],
            part=parts.next(settled["unit_id"]),
        )


def _regroup_dissolved(
    rows: Rows,
    event: StoredEvent,
    settled: dict[str, Any],
    where: str,
    parts: _Parts,
    homecomings: dict[str, tuple[str, str]],
) -> None:
    """SG2 P.17, option ``regroup_persists``: the merger is dissolved; each man goes back to his
    own unit at his old place on its roll, and the joined unit gets its own ratings back."""
    p = event.payload
    unit, merged = rows.get(Unit, settled["unit_id"]), rows.get(Unit, settled["merged_unit_id"])
    if unit is None or merged is None:
        return
    left: dict[str, list[str]] = {}  # the unit each man left -> the men
    for returned in settled["returned"]:
        trooper_id = returned["trooper_id"]
        if rows.get(Trooper, trooper_id) is None:
            continue
        order = returned["order"]
        rows.update(
            Trooper,
            trooper_id,
            unit_id=merged["id"],
            order=next_order(rows, merged["id"]) if order is None else order,
        )
        left.setdefault(returned["from_unit_id"], []).append(trooper_id)
        ended_in = homecomings.get(trooper_id, (returned["from_unit_id"], ""))[0]
        homecomings[trooper_id] = (ended_in, merged["id"])
    restored = settled["restored"]
    changes: dict[str, Any] = {"strength": -_strength(rows, left.get(unit["id"], []))}
    ratings = ""
    if restored is not None:
        rows.update(
            Unit,
            unit["id"],
            quality=restored["quality"],
            leadership=restored["leadership"],
            fatigue=restored["fatigue"],
        )
        changes |= {
            "quality": [unit["quality"], restored["quality"]],
            "leadership": [unit["leadership"], restored["leadership"]],
            "fatigue": [unit["fatigue"], restored["fatigue"]],
        }
        ratings = (
            f"; back to {label(restored['quality'])}, leadership {restored['leadership']}, "
            f"{restored['fatigue'] or 'no fatigue level'}"
        )
    men = trooper_names(rows, left.get(unit["id"], []))
    unit_history(
        rows,
        event,
        unit["id"],
        f"The regrouping with {merged['name']} in {where} was dissolved"
        + (f": {men} went back to {merged['name']}" if men else "")
        + f"{ratings}.",
        changes,
        battle_id=p["battle_id"],
        part=parts.next(unit["id"]),
    )
    for from_unit, ids in left.items():
        if from_unit != unit["id"] and rows.get(Unit, from_unit) is not None:
            unit_history(
                rows,
                event,
                from_unit,
                f"{trooper_names(rows, ids)} went back to {merged['name']} after {where}: its "
                f"regrouping into {unit['name']} was dissolved.",
                {"strength": -_strength(rows, ids)},
                battle_id=p["battle_id"],
                part=parts.next(from_unit),
            )
    everyone = [t for ids in left.values() for t in ids]
    unit_history(
        rows,
        event,
        merged["id"],
        f"The regrouping into {unit['name']} in {where} was dissolved"
        + (f": {trooper_names(rows, everyone)} came back" if everyone else "")
        + ".",
        {"strength": _strength(rows, everyone)},
        battle_id=p["battle_id"],
        part=parts.next(merged["id"]),
    )


@register
class RegroupsSettledProjection(Projection):
    """Units and troopers as the battle's end settles its regroups (rows of the rosters
    projection)."""

    name = "rosters.regroups_settled"

    @Projection.handles("battles.RegroupsSettled")
    def regroups_settled(rows: Rows, event: StoredEvent) -> None:
        """The battle's regroups as it ended (SG2 P.17, option ``regroup_persists``), the last
        first: a merger that stands disbands the merged unit; a dissolved one hands its men
        back. A man handed back twice (his unit had joined one that then joined another) gets
        one line in his record, naming the unit he ended the battle in and the one he is in."""
        p = event.payload
        where = battle_name(rows, p["battle_id"], "the battle")
        parts = _Parts()
        homecomings: dict[str, tuple[str, str]] = {}  # man -> (unit he ended in, unit he is in)
        for settled in p["regroups"]:
            if settled["persists"]:
                _regroup_stands(rows, event, settled, where, parts)
            else:
                _regroup_dissolved(rows, event, settled, where, parts, homecomings)
        for trooper_id, (ended_in, home) in homecomings.items():
            service_record(
                rows,
                event,
                trooper_id,
                f"Back from {unit_name(rows, ended_in)} to {unit_name(rows, home)} after "
                f"{where}: the regrouping was dissolved.",
                battle_id=p["battle_id"],
            )
