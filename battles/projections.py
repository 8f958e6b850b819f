"""Folds from battle events into battles, sides, participants and the battle log."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from battles.models import Battle, BattleLogEntry, BattleSide, Participant
from eventlog.projections import Projection, Read, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Unit
from rosters.projections import trooper_name, trooper_names, unit_name
from rosters.wording import label

# SG2 P.60: what being short of supplies did to a unit's start (option unsupplied_effect).
_UNSUPPLIED_WORDS = {
    "confidence_one_lower": " (short of supplies: one confidence level lower)",
    "fatigue_one_worse": " (short of supplies: one fatigue level worse)",
}

__all__ = [
    "BattleProjection",
    "battle_name",
    "dice_text",
    "label",
    "log",
    "participant_key",
    "trooper_name",
    "trooper_names",
    "unit_name",
]


def dice_text(dice: list[dict[str, Any]]) -> str:
    """``d6 4, d6 2 (table)``: the faces in the order they were used."""
    if not dice:
        return ""
    sources = sorted({d["source"] for d in dice})
    faces = ", ".join(f"d{d['die']} {d['result']}" for d in dice)
    return f" [{faces}; {' and '.join(sources)}]"


def log(rows: Rows, event: StoredEvent, summary: str, *, n: int = 0, dice=None) -> None:
    """Add a line to the battle log, naming the dice behind it."""
    battle = rows.get(Battle, event.payload["battle_id"])
    rows.put(
        BattleLogEntry,
        {
            "key": f"{event.position}:{n:04d}",
            "campaign_id": event.campaign_id,
            "battle_id": event.payload["battle_id"],
            "sequence": event.sequence,
            "turn": battle["turn"] if battle else 0,
            "event_type": event.type,
            "summary": summary,
            "dice": dice if dice is not None else event.payload.get("dice", []),
            "recorded_at": event.recorded_at,
        },
    )


def participant_key(battle_id: Any, unit_id: Any) -> str:
    return f"{battle_id}:{unit_id}"


def battle_name(rows: Rows, battle_id: Any, missing: str = "the battle") -> str:
    battle = rows.get(Battle, battle_id)
    return battle["name"] if battle else missing


def _battle_and_committed_units(event: StoredEvent) -> Iterator[Read]:
    """What committing units reads: the battle and every unit's name, a table at a time, so
    that committing a company costs what committing a squad does (ADR 20)."""
    yield Battle, event.payload["battle_id"]
    yield from ((Unit, unit["unit_id"]) for unit in event.payload["units"])


@register
class BattleProjection(Projection):
    name = "battles"
    models = (Battle, BattleSide, Participant, BattleLogEntry)
    version = 2

    @Projection.handles("battles.BattlePlanned")
    def planned(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        rows.put(
            Battle,
            {
                "id": p["battle_id"],
                "campaign_id": event.campaign_id,
                "name": p["name"],
                "scenario": p["scenario"],
                "day": p["day"],
                "status": Battle.Status.PLANNED.value,
                "turn": 0,
                "attacker": p["attacker"] or "",
                "winner": "",
                "next_on_attacker_win": p["next_on_attacker_win"],
                "next_on_defender_win": p["next_on_defender_win"],
                "next_battle_id": None,
                "planned_sequence": event.sequence,
            },
        )
        for order, side in enumerate(p["sides"]):
            rows.put(
                BattleSide,
                {
                    "key": f"{p['battle_id']}:{side['side']}",
                    "campaign_id": event.campaign_id,
                    "battle_id": p["battle_id"],
                    "side": side["side"],
                    "order": order,
                    "force_ids": side["force_ids"],
                    "mission": side,
                    "casevac": {
                        "status": "on_call" if side["casevac"]["on_call"] else "none",
                        "box": side["casevac"]["start_box"],
                        "aboard": [],
                    },
                    "support": {},
                },
            )
        sides = " and ".join(side["side"] for side in p["sides"])
        log(rows, event, f"{p['name']} planned for day {p['day']} between {sides}.")

    @Projection.handles("battles.UnitsCommitted", reads=_battle_and_committed_units)
    def committed(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        rows.update(Battle, p["battle_id"], status=Battle.Status.COMMITTED.value)
        for index, unit in enumerate(p["units"]):
            rows.put(
                Participant,
                {
                    "key": participant_key(p["battle_id"], unit["unit_id"]),
                    "campaign_id": event.campaign_id,
                    "battle_id": p["battle_id"],
                    "unit_id": unit["unit_id"],
                    "side": unit["side"],
                    "fatigue": unit["fatigue"] or "",
                    "mission_motivation": unit["mission_motivation"],
                    "starting_confidence": unit["starting_confidence"] or "",
                    "confidence": unit["starting_confidence"] or "",
                    "suppression": 0,
                    "status": Participant.Status.FIGHTING.value,
                    "objective_met": False,
                    "marker": "",
                    "broken": False,
                    "resolve": "",
                },
            )
            start = unit["starting_confidence"]
            short = _UNSUPPLIED_WORDS.get(unit.get("unsupplied_effect") or "", "")
            log(
                rows,
                event,
                f"{unit_name(rows, unit['unit_id'])} committed for {unit['side']}"
                + (f", {unit['fatigue']}, starting {start}" if start else "")
                + f"{short}.",
                n=index,
            )

    @Projection.handles("battles.BattleStarted")
    def started(rows: Rows, event: StoredEvent) -> None:
        rows.update(
            Battle, event.payload["battle_id"], status=Battle.Status.IN_PROGRESS.value, turn=1
        )
        log(rows, event, "The battle began: turn 1.")

    @Projection.handles("battles.TurnAdvanced")
    def turn_advanced(rows: Rows, event: StoredEvent) -> None:
        rows.update(Battle, event.payload["battle_id"], turn=event.payload["turn"])
        log(rows, event, f"Turn {event.payload['turn']}.")

    @Projection.handles("battles.BattleEnded")
    def ended(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        rows.update(
            Battle,
            p["battle_id"],
            status=Battle.Status.ENDED.value,
            winner=p["winner"],
            next_battle_id=p["next_battle_id"],
        )
        fates = (
            ("withdrawn", Participant.Status.WITHDRAWN),
            ("routed", Participant.Status.ROUTED),
            ("surrendered", Participant.Status.SURRENDERED),
        )
        for field, status in fates:
            for unit_id in p[field]:
                key = participant_key(p["battle_id"], unit_id)
                if rows.get(Participant, key) is not None:
                    rows.update(Participant, key, status=status.value)
        for unit_id in p["objectives_met"]:
            key = participant_key(p["battle_id"], unit_id)
            if rows.get(Participant, key) is not None:
                rows.update(Participant, key, objective_met=True)
        result = "a draw" if p["winner"] == "draw" else f"won by {p['winner']}"
        log(rows, event, f"The battle ended, {result}.")

    def record_void(self, rows: Rows, event: StoredEvent, void: StoredEvent) -> None:
        """A voided battle action leaves a line in the battle log saying so and why."""
        if not event.type.startswith("battles."):
            return
        battle_id = event.payload.get("battle_id")
        battle = rows.get(Battle, battle_id)
        if battle is None:
            return
        what = re.sub(r"(?<!^)(?=[A-Z])", " ", event.type.partition(".")[2]).lower()
        rows.put(
            BattleLogEntry,
            {
                "key": f"{void.position}:0000",
                "campaign_id": event.campaign_id,
                "battle_id": battle_id,
                "sequence": void.sequence,
                "turn": battle["turn"],
                "event_type": void.type,
                "summary": f"Voided: an earlier entry (event #{event.sequence}, {what}). "
                f"Reason: {void.payload['reason']}",
                "dice": [],
                "recorded_at": void.recorded_at,
            },
        )
