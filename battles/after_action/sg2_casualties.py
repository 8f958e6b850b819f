"""Where each injured trooper ended a Stargrunt II battle, read from the battle's events, so the
after-action rolls recovery only for the "injured troops recovered from a battle" (SG2 P.61).

The book does not say which those are (digest AMBIG-26); :func:`rules.sg2.recovery.casualty_fate`
holds the reading (option ``recovered_casualties``). This module gathers what it reads: how the
trooper's unit ended the battle (the umpire's ``battles.end``: withdrawn, routed, surrendered),
how the battle ended for his side, whether he was flown out, and whether his unit abandoned him
during the battle (a confidence test for abandoning wounded, P.20) and never came back for him.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from battles.after_action.context import AfterActionContext
from battles.models import Participant
from eventlog.store import StoredEvent
from rosters.vocabulary import TrooperStatus
from rules.sg2.morale import ConfidenceCircumstance
from rules.sg2.recovery import CasualtyFate, UnitAtEnd, casualty_fate

# How a unit ended the battle, from its participant row (set by ``battles.BattleEnded``).
UNIT_AT_END = {
    Participant.Status.FIGHTING: UnitAtEnd.HELD,
    Participant.Status.WITHDRAWN: UnitAtEnd.WITHDRAWN,
    Participant.Status.ROUTED: UnitAtEnd.ROUTED,
    Participant.Status.SURRENDERED: UnitAtEnd.SURRENDERED,
}

# Why a casualty was left with the enemy, as the ``Recovery`` event records it.
LeftBecause = Literal["surrendered", "withdrawn", "routed", "abandoned"]

_LEFT_BECAUSE: dict[UnitAtEnd, LeftBecause] = {
    UnitAtEnd.HELD: "abandoned",  # still on the field, but it had left him during the battle
    UnitAtEnd.WITHDRAWN: "withdrawn",
    UnitAtEnd.ROUTED: "routed",
    UnitAtEnd.SURRENDERED: "surrendered",
}

_DOWN = (TrooperStatus.WOUNDED.value, TrooperStatus.STABILISED.value)
_ABANDON = ConfidenceCircumstance.ABANDON_WOUNDED.value


def _casualty_records(value: Any) -> Iterator[dict[str, Any]]:
    """Every trooper casualty an event records (``TrooperCasualty``), at any depth."""
    if isinstance(value, dict):
        if "trooper_id" in value and "status_after" in value:
            yield value
            return
        for item in value.values():
            yield from _casualty_records(item)
    elif isinstance(value, list):
        for item in value:
            yield from _casualty_records(item)


def abandoned_wounded(events: Iterable[StoredEvent]) -> set[uuid.UUID]:
    """The troopers their unit abandoned during the battle: down (wounded or stabilised) when it
    took a confidence test for abandoning wounded (P.20), and not treated by it since (a
    treatment means the unit has him again). A man who fell after the test was not abandoned."""
    down: dict[str, str] = {}  # trooper id -> his unit's id
    abandoned: set[str] = set()
    for event in events:
        payload = event.payload
        for casualty in _casualty_records(payload):
            if casualty["status_after"] in _DOWN:
                down[casualty["trooper_id"]] = casualty["unit_id"]
            else:
                down.pop(casualty["trooper_id"], None)
        if event.type == "battles.CasualtiesTreated":
            for treatment in payload["treatments"]:
                abandoned.discard(treatment["trooper_id"])
                if treatment["result"] not in _DOWN:
                    down.pop(treatment["trooper_id"], None)
        elif event.type == "battles.ConfidenceTested" and _ABANDON in payload["circumstances"]:
            abandoned.update(t for t, unit in down.items() if unit == payload["unit_id"])
    return {uuid.UUID(t) for t in abandoned}


def fate_of_casualty(
    ctx: AfterActionContext,
    participant: Participant,
    trooper_id: uuid.UUID,
    status: TrooperStatus,
    abandoned: set[uuid.UUID],
) -> tuple[CasualtyFate, LeftBecause | None]:
    """Whose hands an injured trooper of ``participant``'s unit ended the battle in, and, when
    the enemy's, why (SG2 P.61 with P.20, P.53, P.54, P.60)."""
    unit_at_end = UNIT_AT_END[Participant.Status(participant.status)]
    was_abandoned = trooper_id in abandoned
    fate = casualty_fate(
        evacuated=status is TrooperStatus.CASEVACED,
        unit_at_end=unit_at_end,
        side_result=ctx.result_for(participant),
        abandoned=was_abandoned,
        recovered_casualties=ctx.options.recovered_casualties,
    )
    if fate is not CasualtyFate.LEFT_WITH_ENEMY:
        return fate, None
    return fate, _LEFT_BECAUSE[unit_at_end]
