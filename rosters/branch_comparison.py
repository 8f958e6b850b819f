"""What a branch changed: its forces and units beside the original's, and the first command whose
outcome differs, with the dice on each side (``campaigns.branches`` makes the branches)."""

from __future__ import annotations

import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from campaigns.branches import IdMap, rolls_in
from campaigns.models import Campaign
from campaigns.visibility import Reader
from eventlog import store
from eventlog.errors import CommandError, NotFound
from eventlog.store import StoredEvent
from rosters.selectors import RosterView, resolve_as_of, roster_view, unit_summary
from rosters.vocabulary import TrooperStatus

Row = dict[str, Any]
# What is compared for each unit, in the order the comparison lists it.
COMPARED = (
    "quality",
    "strength",
    "casualties",
    "dead",
    "in_hospital",
    "fatigue",
    "experience_points",
    "status",
)
CASUALTIES = frozenset(
    {
        TrooperStatus.WOUNDED,
        TrooperStatus.STABILISED,
        TrooperStatus.CASEVACED,
        TrooperStatus.IN_HOSPITAL,
        TrooperStatus.EVACUATED,
        TrooperStatus.DEAD,
        TrooperStatus.CAPTURED,
    }
)


@dataclass(frozen=True)
class Sides:
    original: Campaign
    branch: Campaign
    ids: IdMap


def sides_of(original_id: uuid.UUID, branch_id: uuid.UUID) -> Sides:
    """The original and its branch; a campaign that is not a branch of it is not found."""
    branch = Campaign.objects.filter(pk=branch_id).first()
    if branch is None or not branch.branch_of:
        raise NotFound("branch.not_found", "No such branch of this campaign.")
    if str(branch.branch_of.get("campaign_id")) != str(original_id):
        raise NotFound("branch.not_found", "No such branch of this campaign.")
    return Sides(Campaign.objects.get(pk=original_id), branch, IdMap(original_id, branch_id))


def _unit_figures(view: RosterView, unit: Row, troopers: list[Row]) -> Row:
    statuses = Counter(TrooperStatus(t["status"]) for t in troopers)
    summary = unit_summary(unit, troopers)
    return {
        "quality": unit.get("quality") or None,
        "strength": summary["strength"],
        "casualties": sum(statuses[s] for s in CASUALTIES),
        "dead": statuses[TrooperStatus.DEAD],
        "in_hospital": statuses[TrooperStatus.IN_HOSPITAL],
        "fatigue": unit.get("fatigue") or None,
        "experience_points": unit.get("experience_points", 0),
        "status": unit.get("status"),
    }


def _forces(view: RosterView) -> dict[str, tuple[Row, list[tuple[Row, Row]]]]:
    troopers_of: dict[str, list[Row]] = defaultdict(list)
    for trooper in view.troopers():
        troopers_of[str(trooper["unit_id"])].append(trooper)
    result: dict[str, tuple[Row, list[tuple[Row, Row]]]] = {}
    for force in view.forces():
        units = [
            (unit, _unit_figures(view, unit, troopers_of[str(unit["id"])]))
            for unit in view.units(force["id"])
        ]
        result[str(force["id"])] = (force, units)
    return result


def _upto(campaign_id: uuid.UUID, as_of_battle: uuid.UUID | None) -> int | None:
    if as_of_battle is None:
        return None
    return resolve_as_of(campaign_id, as_of=None, as_of_battle=str(as_of_battle), side="after")


def compare(
    original_id: uuid.UUID, branch_id: uuid.UUID, *, as_of_battle: uuid.UUID | None = None
) -> Row:
    """The forces and units of the original and the branch side by side (now, or after a battle
    of the original and its counterpart in the branch), what differs, and the first command
    whose outcome diverged."""
    sides = sides_of(original_id, branch_id)
    ids = sides.ids
    original_upto = _upto(original_id, as_of_battle)
    branch_upto = None
    if as_of_battle is not None:
        try:
            branch_upto = _upto(branch_id, ids(as_of_battle))
        except (NotFound, CommandError):
            raise CommandError(
                "branch.battle_not_fought",
                "That battle was not fought in the branch: there is nothing to compare after it.",
                field="as_of_battle",
            ) from None
    original = _forces(roster_view(original_id, original_upto))
    branch = _forces(roster_view(branch_id, branch_upto))
    forces = []
    differing_units = []
    for force_id, (force, units) in original.items():
        counterpart = branch.get(str(ids(uuid.UUID(force_id))))
        branch_units = (
            {str(u["id"]): figures for u, figures in counterpart[1]} if counterpart else {}
        )
        rows = []
        for unit, figures in units:
            theirs = branch_units.get(str(ids(uuid.UUID(str(unit["id"])))))
            differs = [name for name in COMPARED if theirs is None or figures[name] != theirs[name]]
            row = {
                "unit_id": str(unit["id"]),
                "branch_unit_id": str(ids(uuid.UUID(str(unit["id"])))),
                "name": unit["name"],
                "original": figures,
                "branch": theirs,
                "differs": differs,
            }
            rows.append(row)
            if differs:
                differing_units.append(row["unit_id"])
        forces.append(
            {
                "force_id": force_id,
                "branch_force_id": str(ids(uuid.UUID(force_id))),
                "name": force["name"],
                "side": force["side"],
                "units": rows,
            }
        )
    return {
        "original": {"id": str(original_id), "name": sides.original.name},
        "branch": {
            "id": str(branch_id),
            "name": sides.branch.name,
            "point": (sides.branch.branch_of or {}).get("point", ""),
            "option_changes": (sides.branch.branch_of or {}).get("option_changes", {}),
        },
        "as_of_battle": str(as_of_battle) if as_of_battle is not None else None,
        "compared": list(COMPARED),
        "forces": forces,
        "differing_units": differing_units,
        "refused": _refused(branch_id),
        "first_divergence": first_divergence(sides),
    }


def as_seen(comparison: Row, reader: Reader) -> Row:
    """The comparison as a member sees it (campaigns.visibility): a force the reader does not
    see whole keeps its name and side, not its units; the refusals and the first divergence,
    whose dice name every force, are the umpire's."""
    if reader.is_umpire:
        return comparison
    for force in comparison["forces"]:
        if not reader.sees_force(force["force_id"]):
            force["units"] = []
            force["hidden"] = True
    comparison["differing_units"] = [
        row["unit_id"] for force in comparison["forces"] for row in force["units"]
        if row["differs"]
    ]  # fmt: skip
    comparison["refused"] = []
    comparison["first_divergence"] = None
    return comparison


def _refused(branch_id: uuid.UUID) -> list[Row]:
    return [
        {
            "sequence": event.sequence,
            "command": event.payload["command"],
            "original_command_id": event.payload["original_command_id"],
            "code": event.payload["code"],
            "message": event.payload["message"],
        }
        for event in store.read(branch_id, types=["campaigns.BranchCommandRefused"])
    ]


def _by_command(events: list[StoredEvent], key: str) -> dict[str, list[StoredEvent]]:
    grouped: dict[str, list[StoredEvent]] = defaultdict(list)
    for event in events:
        grouped[str(event.metadata.get(key))].append(event)
    return grouped


def first_divergence(sides: Sides) -> Row | None:
    """The first command of the original whose events came out otherwise in the branch (other
    events, or the same with other contents), with the dice each side rolled for it."""
    origin = sides.branch.branch_of or {}
    after = int(origin["sequence"])
    upto = int(origin["original_last_sequence"])
    ids = sides.ids
    original_events = list(store.read(sides.original.id, after=after, upto=upto))
    branch_events = [
        e for e in store.read(sides.branch.id, after=after) if "rerun_of" in e.metadata
    ]
    reruns = _by_command(branch_events, "rerun_of")
    order: list[str] = []
    for event in original_events:
        command = str(event.metadata.get("command"))
        if command not in order:
            order.append(command)
    theirs = _by_command(original_events, "command")
    for command in order:
        mine = reruns.get(command, [])
        same = len(mine) == len(theirs[command]) and all(
            a.type == b.type and ids.json(a.payload) == b.payload
            for a, b in zip(theirs[command], mine, strict=True)
        )
        if not same:
            return {
                "original_command_id": command,
                "command": theirs[command][0].metadata.get("command_name"),
                "original": _told(theirs[command]),
                "branch": _told(mine, ids),
            }
    return None


def _told(events: list[StoredEvent], ids: IdMap | None = None) -> Row:
    """A command's outcome on one side: its events' types and sequences and every die, with the
    branch's ids translated back to the original's (the map is its own inverse)."""
    return {
        "sequences": [e.sequence for e in events],
        "events": [e.type for e in events],
        "dice": [
            ids.json(roll) if ids is not None else roll
            for e in events
            for roll in rolls_in(e.payload)
        ],
    }
