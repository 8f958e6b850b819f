"""Reads for battles: what the API and pages show."""

from __future__ import annotations

import uuid
from typing import Any

from battles.models import Battle, BattleLogEntry, BattleSide, Participant
from eventlog.projections import native
from rosters.models import Unit


def _plain(queryset) -> list[dict[str, Any]]:
    return [{k: native(v) for k, v in row.items()} for row in queryset.values()]


def battles_of(campaign_id: uuid.UUID) -> list[dict[str, Any]]:
    return _plain(
        Battle.objects.filter(campaign_id=campaign_id).order_by("day", "planned_sequence")
    )


def battle_detail(battle: Battle) -> dict[str, Any]:
    (row,) = _plain(Battle.objects.filter(pk=battle.pk))
    participants = _plain(Participant.objects.filter(battle_id=battle.pk))
    names = dict(
        Unit.objects.filter(id__in=[p["unit_id"] for p in participants]).values_list("id", "name")
    )
    for participant in participants:
        participant["unit_name"] = names.get(uuid.UUID(participant["unit_id"]), "")
    return {
        **row,
        "sides": _plain(BattleSide.objects.filter(battle_id=battle.pk).order_by("order")),
        "participants": participants,
    }


def battle_log(battle_id: uuid.UUID) -> list[dict[str, Any]]:
    return _plain(BattleLogEntry.objects.filter(battle_id=battle_id).order_by("sequence", "key"))
