"""Reads for battles: what the API and pages show, each as its reader may see it.

A reader comes as a :class:`campaigns.visibility.Judge` (the reader, the point of the log, and
the campaign's secrets read once); ``None`` is the umpire's own view, for the umpire's forms and
the responses to the umpire's commands. A player sees the units, casevac
passengers and log lines of another player's side in outline only (unless the campaign's
``forces_visibility`` is ``full``): a unit as its side, a casevac as how many are aboard, a log
line as one sentence per event that names no one ("Red took 2 casualties."), without its dice.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Collection, Mapping
from typing import Any

from battles.events import MISSION_FIELDS
from battles.models import Battle, BattleLogEntry, BattleSide, Participant
from battles.suppression import VEHICLE_UNIT_KIND, suppression_effects
from campaigns.secrets import Secret, secrets_of
from campaigns.visibility import Judge, Sight, Subject, sight, subjects
from eventlog import store
from eventlog.events import VOIDED
from eventlog.projections import native
from eventlog.store import StoredEvent
from rosters.models import Unit

Row = dict[str, Any]


def _plain(queryset) -> list[Row]:
    return [{k: native(v) for k, v in row.items()} for row in queryset.values()]


def battles_of(
    campaign_id: uuid.UUID, judge: Judge | None = None, *, statuses: Collection[str] = ()
) -> list[Row]:
    """The campaign's battles in order (those in ``statuses``, if any are named); a battle the
    umpire hid whole is left out for a reader it is hidden from."""
    found = Battle.objects.filter(campaign_id=campaign_id)
    if statuses:
        found = found.filter(status__in=statuses)
    battles = _plain(found.order_by("day", "planned_sequence"))
    if judge is None:
        return battles
    return [battle for battle in battles if judge.sees_battle(battle["id"])]


def _whole(judge: Judge | None) -> bool:
    return judge is None or judge.reader.is_umpire


def battle_detail(battle: Battle, judge: Judge | None = None) -> Row:
    """The battle, its sides (mission and casevac) and the units fighting, as the reader sees
    them: the units of a side they see in outline show only that side."""
    (row,) = _plain(Battle.objects.filter(pk=battle.pk))
    participants = _plain(Participant.objects.filter(battle_id=battle.pk))
    units = {
        str(unit_id): (name, str(force_id), kind, order)
        for unit_id, name, force_id, kind, order in Unit.objects.filter(
            id__in=[p["unit_id"] for p in participants]
        ).values_list("id", "name", "force_id", "kind", "order")
    }
    sides = _plain(BattleSide.objects.filter(battle_id=battle.pk).order_by("order"))
    # Side by side, each side's units in roster order: the same on every database, whatever
    # order it keeps the rows in.
    side_order = {side["side"]: side["order"] for side in sides}
    participants.sort(
        key=lambda p: (
            side_order.get(p["side"], 0),
            units.get(p["unit_id"], ("", "", "", 0))[3],
            p["unit_id"],
        )
    )
    shown = []
    for participant in participants:
        name, force_id, kind, _ = units.get(participant["unit_id"], ("", None, "", 0))
        if judge is None or judge.reader.sees_force(force_id):
            effects = suppression_effects(
                participant["suppression"], vehicle=kind == VEHICLE_UNIT_KIND
            )
            shown.append({**participant, "unit_name": name, "suppressed_may": effects})
        else:
            shown.append({"side": participant["side"], "sight": Sight.OUTLINE.value})
    if judge is not None and not judge.reader.is_umpire:
        sides = [_side_as_seen(side, judge) for side in sides]
    # Whether the battle, or a side's mission card, was recorded hidden, and its reveal: the
    # umpire reveals it by the hiding's sequence. (A reader it is hidden from never gets here
    # for a battle, and sees of a card only that it is hidden.)
    secrets = judge.secrets if judge is not None else secrets_of(battle.campaign_id)
    for side in sides:
        side["mission_secret"] = _secret_json(secrets.mission(battle.pk, side["side"]))
    return {
        **row,
        "secret": _secret_json(secrets.battles.get(str(battle.pk))),
        "sides": sides,
        "participants": shown,
    }


def _secret_json(secret: Secret | None) -> Row | None:
    if secret is None:
        return None
    return {"sequence": secret.sequence, "revealed_at": secret.revealed_at}


def _side_as_seen(side: Row, judge: Judge) -> Row:
    """A side as the reader sees it: who is aboard its casevac is the side's to know (the
    others see how many); a mission card the umpire hid is withheld until its reveal."""
    if not all(judge.reader.sees_force(f) for f in side["force_ids"]):
        casevac = dict(side["casevac"] or {})
        aboard = casevac.get("aboard", [])
        casevac.update(aboard=[], aboard_count=len(aboard))
        side = {**side, "casevac": casevac, "support": _support_as_seen(side["support"])}
    if judge.mission_secret(side["battle_id"], side["side"]) is not None:
        mission = {k: v for k, v in (side["mission"] or {}).items() if k not in MISSION_FIELDS}
        side = {**side, "mission": {**mission, "hidden": True}}
    return side


def _support_as_seen(support: Row | None) -> Row:
    """Another side's off-table support as a player sees it: the counters on its Inbound Chart
    (which mission, when it can come down), not who called what onto where until it lands, nor
    how many request counters the side has spent."""
    support = support or {}
    counter = ("mission_id", "number", "status", "requested_turn", "box", "available_turn")
    return {
        "chits_rolled": None,
        "chits_spent": None,
        "missions": [
            mission if mission["status"] != "inbound" else {k: mission[k] for k in counter}
            for mission in support.get("missions", [])
        ],
    }


# --- The battle log ------------------------------------------------------------------------------

# Events that write one log line per item of a payload list, each line about that item only.
_LINE_ITEMS = {"battles.UnitsCommitted": "units"}
# Events whose log line tells the battle itself, whatever units the event lists.
# A battle report and the decisions on it are hidden from all but its side's players (and the
# umpires); to them, its lines tell their own report, whoever's troopers it names.
_BATTLE_LINES = frozenset(
    {"battles.BattleStarted", "battles.BattleReportFiled", "battles.ReportPointDecided"}
)


def _line_number(entry: Row) -> int:
    return int(str(entry["key"]).rpartition(":")[2])


def _about(entry: Row, events: Mapping[int, StoredEvent]) -> tuple[StoredEvent | None, Row]:
    """The event a log line tells, and the part of its payload the line is about."""
    event = events.get(entry["sequence"])
    if event is not None and event.type == VOIDED:
        # A void's line tells which entry was voided: it is about what that entry was about.
        event = events.get(event.payload["sequence"])
    if event is None:
        return None, {}
    if event.type in _BATTLE_LINES and entry["event_type"] == event.type:
        return event, {}
    items = _LINE_ITEMS.get(event.type)
    if items and entry["event_type"] == event.type:
        listed = event.payload.get(items) or []
        number = _line_number(entry)
        if number < len(listed):
            return event, listed[number]
    return event, event.payload


def _words(type_name: str) -> str:
    name = type_name.rpartition(".")[2]
    return re.sub(r"(?<!^)(?=[A-Z])", " ", name).lower()


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def outline_line(entry: Row, event: StoredEvent | None, about: Row, side: str) -> str:
    """One sentence for a log line about a side the reader sees in outline: what kind of thing
    happened and to which side, with counts, never a name, a weapon or a die."""
    if entry["event_type"] == VOIDED:
        voided = event.sequence if event is not None else "?"
        return f"An earlier entry (event #{voided}) was voided."
    if event is None:
        return f"{side}: something happened."
    if event.type == "battles.UnitsCommitted":
        return f"A unit was committed for {about.get('side') or side}."
    if event.type == "battles.CasualtiesResolved":
        casualties = len(event.payload.get("casualties", []))
        return f"{side} took {_plural(casualties, 'casualty', 'casualties')}."
    return f"{side}: {_words(event.type)}."


def battle_log(battle_id: uuid.UUID, judge: Judge | None = None, *, after: int = 0) -> list[Row]:
    """The battle's story, line by line, as the judge's reader may see it (as of its point):
    the lines of the events after the sequence ``after``.

    A line about forces the reader sees whole is shown whole; the lines of one event about a
    side seen in outline become one line of :func:`outline_line` in the event's place, without
    dice; a line the reader may not see at all (a hidden action) is left out.
    """
    entries = _plain(
        BattleLogEntry.objects.filter(battle_id=battle_id, sequence__gt=after).order_by(
            "sequence", "key"
        )
    )
    if judge is None or judge.reader.is_umpire or not entries:
        return entries
    reader, at = judge.reader, judge.at
    campaign_id = uuid.UUID(str(entries[0]["campaign_id"]))
    told = store.read_sequences(campaign_id, {entry["sequence"] for entry in entries})
    events = {event.sequence: event for event in told}
    voided = {e.payload["sequence"] for e in told if e.type == VOIDED} - events.keys()
    events.update({e.sequence: e for e in store.read_sequences(campaign_id, voided)})
    abouts = [_about(entry, events) for entry in entries]
    found = subjects(
        campaign_id,
        [(event.stream if event and about else "", about) for event, about in abouts],
    )
    subjects_of = [
        Subject(
            subject.force_ids,
            secret=judge.secrets.of(entry["sequence"], battle_id)
            if event is None
            else judge.secrets.of_event(event),
        )
        for entry, (event, _), subject in zip(entries, abouts, found, strict=True)
    ]
    side_of = {
        str(force_id): side
        for side, force_ids in BattleSide.objects.filter(battle_id=battle_id).values_list(
            "side", "force_ids"
        )
        for force_id in force_ids
    }
    shown: list[Row] = []
    outlined: set[tuple[int, int]] = set()
    for entry, (event, about), subject in zip(entries, abouts, subjects_of, strict=True):
        seen = sight(reader, subject, at=at)
        if seen == Sight.WHOLE:
            shown.append(entry)
        elif seen == Sight.OUTLINE:
            # One outline line per event (per item, where each line is about an item).
            per_item = event is not None and event.type in _LINE_ITEMS
            once = (entry["sequence"], _line_number(entry) if per_item else 0)
            if once in outlined:
                continue
            outlined.add(once)
            side = _side_text(subject, side_of)
            shown.append(
                {
                    **entry,
                    "summary": outline_line(entry, event, about, side),
                    "dice": [],
                    "sight": Sight.OUTLINE.value,
                }
            )
    return shown


def _side_text(subject: Subject, side_of: Mapping[str, str]) -> str:
    names = sorted({side_of[f] for f in subject.force_ids if f in side_of})
    return " and ".join(names) or "Another force"
