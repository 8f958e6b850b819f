"""Which forces an event concerns: the subject the visibility function (``campaigns.visibility``)
decides by, resolved from the ids the event names.

An event names what it is about in its stream (``unit:<id>``, ``trooper:<id>``, ``vehicle:<id>``,
``force:<id>``) and in its payload (``unit_id``, ``trooper_id``, ``leader_id``, ``trooper_ids``,
``force_id``... at any depth: a casualty list, the men aboard a casevac). Each id is resolved
to its force through the roster's rows. A unit, trooper or vehicle never changes force (a
transfer or an attachment stays within the force, ``rosters.adjustments``), so the rows as they
stand now answer for every point of the log, as-of views included; an id no row resolves (an
entity whose creation was voided) resolves to ``UNKNOWN_FORCE``, which no player commands.

A battle's own facts (its plan, turns, end and result, a side's casevac arriving) name no unit
or trooper and concern no force: every member sees them. ``force_ids`` lists (the sides of a
plan, a member's forces) are not subjects: they say who takes part, not what happened to them.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from campaigns.visibility import UNKNOWN_FORCE, outline
from rosters.models import Trooper, Unit, Vehicle

_UNIT_KEYS = frozenset(
    {
        "unit_id",
        "to_unit_id",
        "from_unit_id",
        "merged_unit_id",
        "medical_unit_id",
        "rallier_unit_id",
        "platoon_id",
        "parent_id",
        "attached_to",
    }
)
_TROOPER_KEYS = frozenset({"trooper_id", "leader_id", "successor_id"})
_LIST_KEYS = {
    "unit_ids": "unit",
    "trooper_ids": "trooper",
    "pool": "trooper",
    "leaders_down": "trooper",
}
_STREAM_KINDS = ("unit", "trooper", "vehicle", "force")
_CHUNK = 500


@dataclass
class Named:
    """The ids an event names, by kind."""

    unit: set[str] = field(default_factory=set)
    trooper: set[str] = field(default_factory=set)
    vehicle: set[str] = field(default_factory=set)
    force: set[str] = field(default_factory=set)

    def add(self, kind: str, value: Any) -> None:
        if isinstance(value, str) and value:
            getattr(self, kind).add(value)


def _collect(value: Any, named: Named) -> None:
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key in _UNIT_KEYS:
                named.add("unit", item)
            elif key in _TROOPER_KEYS:
                named.add("trooper", item)
            elif key == "vehicle_id":
                named.add("vehicle", item)
            elif key == "force_id":
                named.add("force", item)
            elif key in _LIST_KEYS and isinstance(item, list):
                for one in item:
                    named.add(_LIST_KEYS[key], one)
            elif key == "on_table" and isinstance(item, Mapping):
                # Who was on the table, by unit: the units are the keys.
                for unit_id, trooper_ids in item.items():
                    named.add("unit", unit_id)
                    _collect({"trooper_ids": trooper_ids}, named)
            else:
                _collect(item, named)
    elif isinstance(value, list):
        for item in value:
            _collect(item, named)


def named_ids(stream: str, payload: Mapping[str, Any]) -> Named:
    """Every unit, trooper, vehicle and force id an event names."""
    named = Named()
    kind, _, entity = stream.partition(":")
    if kind in _STREAM_KINDS:
        named.add(kind, entity)
    _collect(payload, named)
    return named


def forces_of(
    campaign_id: uuid.UUID, items: Sequence[tuple[str, Mapping[str, Any]]]
) -> list[frozenset[str]]:
    """The forces each ``(stream, payload)`` concerns, in three queries for all of them (one
    per kind of id and 500 ids)."""
    named = [named_ids(stream, payload) for stream, payload in items]
    wanted = Named()
    for one in named:
        for kind in ("unit", "trooper", "vehicle"):
            getattr(wanted, kind).update(getattr(one, kind))
    owner: dict[str, dict[str, str]] = {}
    for kind, model in (("unit", Unit), ("trooper", Trooper), ("vehicle", Vehicle)):
        ids = _valid_uuids(getattr(wanted, kind))
        owner[kind] = {}
        # In chunks: a page of a thousand enlistments names a thousand troopers.
        for start in range(0, len(ids), _CHUNK):
            found = model.objects.filter(
                campaign_id=campaign_id, id__in=ids[start : start + _CHUNK]
            ).values_list("id", "force_id")
            owner[kind].update((str(entity_id), str(force_id)) for entity_id, force_id in found)
    return [
        frozenset(
            set(one.force)
            | {
                owner[kind].get(entity_id, UNKNOWN_FORCE)
                for kind in ("unit", "trooper", "vehicle")
                for entity_id in getattr(one, kind)
            }
        )
        for one in named
    ]


def _valid_uuids(values: set[str]) -> list[uuid.UUID]:
    found = []
    for value in values:
        try:
            found.append(uuid.UUID(value))
        except ValueError:
            continue
    return found


@outline("rosters.ForceRaised")
def _force_raised(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A force's outline is what every member is shown of it: its name and side."""
    return {key: payload[key] for key in ("force_id", "name", "side") if key in payload}
