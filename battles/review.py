"""Reviewing a campaign: each unit's quality progression and strength over time, the casualties
of each battle, and the hospital list (SG2 P.59: "keep, per squad, what happens in each battle:
casualties, recovered troops and the date they return to duty").

The progression, strength and casualty views are a fold of the whole log like every other read
model, run on top of the registered projections so that each step sees the troopers and units as
they stood right after the event: a change of strength is caught whatever event caused it
(casualties, treatment, casevac, recovery, transfers, replacements, returns from hospital).
It reads the battles' and the rosters' rows, so it lives with battles, the app above both.
Their rows are kept in memory and in the as-of snapshots (``eventlog.projections.fold_as_of``),
not in tables of their own: a request folds only the events since the latest snapshot, which
saves it most of the fold (docs/adr/0028-campaign-reads-as-of-without-snapshots.md). The
hospital list is read straight from the roster's trooper table.
"""

from __future__ import annotations

import uuid
from types import SimpleNamespace
from typing import Any

from battles.models import Battle, BattleSide, Participant
from campaigns.visibility import Judge, Reader, Sight, Subject, sight
from eventlog import projections
from eventlog.projections import MemoryRows, Projection, Rows
from eventlog.store import StoredEvent
from rosters.models import Trooper, Unit
from rosters.vocabulary import TrooperStatus

Row = dict[str, Any]


class ReviewTable:
    """A table of the review fold: a label and a key column, as :class:`Rows` needs them."""

    def __init__(self, label: str) -> None:
        self._meta = SimpleNamespace(label_lower=label, pk=SimpleNamespace(attname="key"))


# The last quality, points and strength seen per unit, and the campaign's day.
MARKS = ReviewTable("review.mark")
QUALITY = ReviewTable("review.quality")
STRENGTH = ReviewTable("review.strength")
CASUALTIES = ReviewTable("review.casualty")
CLOCK = ReviewTable("review.clock")

_UNIT_KEYS = ("unit_id", "to_unit_id", "merged_unit_id")
_TROOPER_KEYS = ("trooper_id", "leader_id", "successor_id")
_IN_BATTLE = (Battle.Status.IN_PROGRESS.value, Battle.Status.COMMITTED.value)
_AFTER_BATTLE = (Battle.Status.ENDED.value, Battle.Status.RESOLVED.value)


def _referenced(value: Any, units: set[str], troopers: set[str]) -> None:
    """Collect the unit and trooper ids an event's payload names, at any depth."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _UNIT_KEYS and isinstance(item, str):
                units.add(item)
            elif key in _TROOPER_KEYS and isinstance(item, str):
                troopers.add(item)
            elif key == "trooper_ids" and isinstance(item, list):
                troopers.update(i for i in item if isinstance(i, str))
            else:
                _referenced(item, units, troopers)
    elif isinstance(value, list):
        for item in value:
            _referenced(item, units, troopers)


class ReviewProjection(Projection):
    """Quality and strength per unit after each event that changed them, and the state each
    trooper was left in by each battle. Folded after every other projection, for every event."""

    name = "battles.review"
    version = 2
    order = 10  # after the projections whose rows it reviews

    def apply(self, rows: Rows, event: StoredEvent) -> None:
        # Its tables are in memory only: the review is never registered, so only
        # ``review_rows`` folds it, through ``fold_as_of``, over memory rows.
        assert isinstance(rows, MemoryRows), "the review folds over memory rows only"
        p = event.payload
        if event.type == "campaigns.CalendarAdvanced":
            rows.put(CLOCK, {"key": "day", "day": p["to_day"]})
        units: set[str] = set()
        troopers: set[str] = set()
        _referenced(p, units, troopers)
        battle = None
        if event.stream.startswith("battle:"):
            battle = rows.get(Battle, event.stream_id)
        day = self._day(rows, p, battle)
        battle_id = battle["id"] if battle else p.get("battle_id")
        for trooper_id in sorted(troopers):
            trooper = rows.get(Trooper, trooper_id)
            if trooper is None:
                continue
            units.add(trooper["unit_id"])
            mark = rows.get(MARKS, f"trooper:{trooper_id}")
            if mark is not None:
                units.add(mark["unit_id"])  # the unit he left, if he moved
            rows.put(MARKS, {"key": f"trooper:{trooper_id}", "unit_id": trooper["unit_id"]})
            if battle is not None:
                self._casualty(rows, battle, trooper, event.sequence)
        for unit_id in sorted(units):
            self._unit(rows, event, unit_id, day, battle_id)

    @staticmethod
    def _day(rows: MemoryRows, payload: Row, battle: Row | None) -> int:
        if battle is not None:
            return battle["day"]
        if isinstance(payload.get("day"), int):
            return payload["day"]
        clock = rows.get(CLOCK, "day")
        return clock["day"] if clock else 0

    @staticmethod
    def _casualty(rows: MemoryRows, battle: Row, trooper: Row, sequence: int) -> None:
        # ``sequence``: the event that left him so, which a reader it is hidden from does not see.
        key = f"{battle['id']}:{trooper['id']}"
        found = rows.get(CASUALTIES, key)
        status = trooper["status"]
        if battle["status"] in _AFTER_BATTLE:
            # After the battle only a death of wounds changes its toll.
            if found is not None and status == TrooperStatus.DEAD and found["status"] != status:
                rows.put(
                    CASUALTIES,
                    {**found, "status": status, "after_battle": True, "sequence": sequence},
                )
            return
        if battle["status"] not in _IN_BATTLE:
            return
        if status == TrooperStatus.FIT:
            rows.delete(CASUALTIES, key)  # back in action: no casualty after all
            return
        participant = rows.get(Participant, f"{battle['id']}:{trooper['unit_id']}")
        side = participant["side"] if participant else ""
        if not side:
            for candidate in rows.find(BattleSide, battle_id=battle["id"]):
                if trooper["force_id"] in candidate["force_ids"]:
                    side = candidate["side"]
        rows.put(
            CASUALTIES,
            {
                "key": key,
                "battle_id": battle["id"],
                "side": side,
                "force_id": trooper["force_id"],
                "unit_id": trooper["unit_id"],
                "trooper_id": trooper["id"],
                "name": trooper["name"],
                "status": status,
                "after_battle": False,
                "sequence": sequence,
            },
        )

    @staticmethod
    def _unit(rows: MemoryRows, event: StoredEvent, unit_id: str, day: int, battle_id: Any) -> None:
        unit = rows.get(Unit, unit_id)
        if unit is None:
            return
        strength = sum(
            1 for t in rows.find(Trooper, unit_id=unit_id) if TrooperStatus(t["status"]).is_present
        )
        mark = rows.get(MARKS, f"unit:{unit_id}") or {}
        common = {
            "unit_id": unit_id,
            "sequence": event.sequence,
            "day": day,
            "battle_id": battle_id,
            "event_type": event.type,
        }
        if mark.get("strength") != strength:
            rows.put(
                STRENGTH,
                {
                    "key": f"{event.position}:{unit_id}",
                    **common,
                    "strength": strength,
                    "change": strength - mark["strength"] if "strength" in mark else None,
                },
            )
        quality, points = unit["quality"], unit["experience_points"]
        awarded = event.type == "battles.QualityPointsAwarded" and event.payload["unit_id"] == (
            unit_id
        )
        if awarded or (mark.get("quality"), mark.get("points")) != (quality, points):
            rows.put(
                QUALITY,
                {
                    "key": f"{event.position}:{unit_id}",
                    **common,
                    "quality": quality,
                    "points": points,
                    "points_gained": event.payload["points_gained"] if awarded else None,
                },
            )
        rows.put(
            MARKS,
            {"key": f"unit:{unit_id}", "strength": strength, "quality": quality, "points": points},
        )


REVIEW = ReviewProjection()

# Projections the review folds without: their rows are read neither by the review nor by the
# steps of the projections it folds (the campaign row, members, invitations, history, journal,
# dice tray and battle reports). Left out, a request folds less, and the snapshot it starts
# from does not carry every journal note and history line of the campaign, which grow with its
# log; ``tests/rosters/test_review.py`` checks the review is that of the fold of every one.
NOT_REVIEWED = frozenset({"campaigns", "journal", "battles.reports"})


def reviewed_projections() -> list[Projection]:
    """The projections the review folds over, then the review itself."""
    return [*(p for p in projections.registered() if p.name not in NOT_REVIEWED), REVIEW]


def review_rows(campaign_id: uuid.UUID) -> MemoryRows:
    """The review fold of a campaign, now: the roster and battle projections, then the review,
    from the latest snapshot of that fold (``fold_as_of``)."""
    return projections.fold_as_of(campaign_id, None, reviewed_projections())


def _by_sequence(rows: list[Row]) -> list[Row]:
    return sorted(rows, key=lambda row: (row["sequence"], row["key"]))


def _battle_names(rows: MemoryRows, battle_ids: set[Any]) -> dict[Any, str]:
    names = {}
    for battle_id in battle_ids:
        battle = rows.get(Battle, battle_id) if battle_id else None
        if battle is not None:
            names[battle_id] = battle["name"]
    return names


def unit_progression(campaign_id: uuid.UUID, unit_id: uuid.UUID, judge: Judge) -> Row:
    """A unit's quality and improvement points after each change (the battles' awards among
    them), and its strength after each event that changed it, with the day and battle; the
    points a hidden event made are left out for a reader it is hidden from."""
    rows = review_rows(campaign_id)
    quality = judge.shown(_by_sequence(rows.find(QUALITY, unit_id=str(unit_id))))
    strength = judge.shown(_by_sequence(rows.find(STRENGTH, unit_id=str(unit_id))))
    names = _battle_names(rows, {r["battle_id"] for r in quality + strength})
    for row in quality + strength:
        row.pop("key")
        row["battle_name"] = names.get(row["battle_id"])
    return {"unit_id": str(unit_id), "quality": quality, "strength": strength}


_COUNTED = {
    TrooperStatus.DEAD.value: "killed",
    TrooperStatus.WOUNDED.value: "wounded",
    TrooperStatus.STABILISED.value: "wounded",
    TrooperStatus.CAPTURED.value: "captured",
    TrooperStatus.CASEVACED.value: "casevaced",
}


def battle_casualties(battle: Battle, reader: Reader) -> Row:
    """Per side of the battle: killed, wounded (untreated or stabilised), captured and flown
    out, as the battle left them (deaths of wounds after it counted as killed), and who. A
    casualty of a force the reader sees in outline is counted, not named (``sight`` is then
    ``outline`` for the side); one a hidden action made is left out for a reader it is hidden
    from, until something the reader sees happens to him or the action is revealed."""
    judge = Judge(reader)
    rows = review_rows(battle.campaign_id)
    sides = sorted(rows.find(BattleSide, battle_id=str(battle.id)), key=lambda s: s["order"])
    casualties = rows.find(CASUALTIES, battle_id=str(battle.id))
    out = []
    for side in sides:
        counts = {"killed": 0, "wounded": 0, "captured": 0, "casevaced": 0}
        troopers = []
        named_all = True
        for c in casualties:
            if c["side"] != side["side"] or not judge.sees_row(c["sequence"], battle_id=battle.id):
                continue
            kind = _COUNTED.get(c["status"])
            if kind is None:
                continue
            counts[kind] += 1
            if sight(reader, Subject.of_forces(c["force_id"])) != Sight.WHOLE:
                named_all = False
                continue
            troopers.append(
                {
                    "trooper_id": c["trooper_id"],
                    "name": c["name"],
                    "unit_id": c["unit_id"],
                    "status": c["status"],
                    "after_battle": c["after_battle"],
                }
            )
        seen = (
            Sight.WHOLE
            if named_all and sight(reader, Subject.of_forces(*side["force_ids"])) == Sight.WHOLE
            else Sight.OUTLINE
        )
        out.append({"side": side["side"], **counts, "troopers": troopers, "sight": seen.value})
    return {"battle_id": str(battle.id), "name": battle.name, "sides": out}


def hospital_list(campaign_id: uuid.UUID, reader: Reader) -> list[Row]:
    """Who is in hospital and until which day, soonest back first (two queries): the troopers
    of the forces the reader sees whole."""
    in_hospital = Trooper.objects.filter(
        campaign_id=campaign_id, status=TrooperStatus.IN_HOSPITAL
    ).order_by("hospital_until_day", "force_id", "unit_id", "order")
    troopers = [t for t in in_hospital if reader.sees_force(t.force_id)]
    units = dict(
        Unit.objects.filter(id__in={t.unit_id for t in troopers}).values_list("id", "name")
    )
    return [
        {
            "trooper_id": str(t.id),
            "name": t.name,
            "force_id": str(t.force_id),
            "unit_id": str(t.unit_id),
            "unit_name": units.get(t.unit_id, ""),
            "hospital_until_day": t.hospital_until_day,
            "days_in_hospital": t.days_in_hospital,
        }
        for t in troopers
    ]
