"""Events in words for the pages: what an event did, and to whom, from the read models that tell
it (the campaign's history, battle logs, units' histories), never a type name when words exist."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable

from battles.models import BattleLogEntry
from campaigns.selectors import history_list
from rosters.models import Unit, UnitHistoryEntry


def humane(type_name: str) -> str:
    """``rosters.UnitMoved`` as "Unit moved", for events no read model tells in words."""
    name = type_name.rpartition(".")[2]
    words = "".join(f" {c.lower()}" if c.isupper() else c for c in name).strip()
    return words[:1].upper() + words[1:]


def unit_lines(
    campaign_id: uuid.UUID, sequences: Iterable[int], sees_force: Callable[[object], bool]
) -> list[tuple[int, str]]:
    """What events did to each unit, each line naming its unit ("Squad 2: +4 quality points"),
    for the units whose force the reader sees whole; in two queries whatever the number."""
    wanted = set(sequences)
    units = {
        unit_id: (force_id, name)
        for unit_id, force_id, name in Unit.objects.filter(campaign_id=campaign_id).values_list(
            "id", "force_id", "name"
        )
    }
    told = UnitHistoryEntry.objects.filter(campaign_id=campaign_id, sequence__in=wanted)
    lines = []
    for sequence, unit_id, summary in told.order_by("sequence", "key").values_list(
        "sequence", "unit_id", "summary"
    ):
        force_id, name = units.get(unit_id, (None, ""))
        if force_id is None or not sees_force(force_id):
            continue
        lines.append((sequence, summary if summary.startswith(name) else f"{name}: {summary}"))
    return lines


def umpire_lines(campaign_id: uuid.UUID, sequences: Iterable[int]) -> dict[int, str]:
    """One line per event for the umpire, who sees everything: the campaign's history where it
    tells the event, else the battle's log, else the first unit it changed, named."""
    wanted = set(sequences)
    lines: dict[int, str] = {}
    for sequence, summary in (
        history_list(campaign_id=campaign_id)
        .filter(sequence__in=wanted)
        .values_list("sequence", "summary")
    ):
        lines.setdefault(sequence, summary)
    logged = BattleLogEntry.objects.filter(campaign_id=campaign_id, sequence__in=wanted)
    for sequence, summary in logged.order_by("sequence", "key").values_list("sequence", "summary"):
        lines.setdefault(sequence, summary)
    for sequence, summary in unit_lines(campaign_id, wanted, lambda force_id: True):
        lines.setdefault(sequence, summary)
    return lines
