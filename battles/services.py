"""Battle use cases: planning, committing units, starting, turns and ending. Validate, decide,
append. Battle actions are in ``battles/actions.py``."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from pydantic import ValidationError

from battles import events
from battles.models import Battle, BattleSide, Participant
from campaigns.models import Campaign
from eventlog import store
from eventlog.errors import CommandError, StateConflict
from eventlog.store import NewEvent, StoredEvent
from rosters.models import Force, Unit
from rosters.services import UNIT_BUSY_CHECKS
from rosters.vocabulary import UnitKind, UnitStatus
from rules.rulesets import Ruleset
from rules.sg2.scales import Fatigue


def battle_stream(battle_id: Any) -> str:
    return f"battle:{battle_id}"


def append_to_battle(
    campaign_id: uuid.UUID, battle_id: Any, payloads: Sequence[Any], actor_id: int | None
) -> list[StoredEvent]:
    """Append events to a battle's stream, refusing if someone else changed it meanwhile."""
    stream = battle_stream(battle_id)
    result = store.append(
        campaign_id,
        [NewEvent.of(payload, stream=stream) for payload in payloads],
        expected_versions={stream: store.stream_version(campaign_id, stream)},
        actor_id=actor_id,
    )
    return result.events


def require_status(battle: Battle, *allowed: str, doing: str) -> None:
    if battle.status not in allowed:
        raise StateConflict(
            "battle.wrong_state",
            f"{battle.name} is {battle.status.replace('_', ' ')}: you cannot {doing} now.",
            field="battle",
        )


def _invalid(exc: ValidationError, prefix: str = "") -> CommandError:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    return CommandError(
        "battle.invalid", f"{where}: {first['msg']}" if where else first["msg"],
        field=f"{prefix}{where}" if where else None,
    )  # fmt: skip


def battle_plan(
    *,
    campaign: Campaign,
    name: str,
    day: int,
    sides: list[dict[str, Any]],
    scenario: str = "",
    attacker: str | None = None,
    next_on_attacker_win: uuid.UUID | None = None,
    next_on_defender_win: uuid.UUID | None = None,
    actor: AbstractBaseUser,
) -> Battle:
    """Plan a battle between two sides of the campaign.

    In a linear campaign a battle names the one that follows it (the same id for both
    outcomes); in a tree campaign (FaD p.65) the battle that follows an attacker's win and the one
    that follows a defender's win. Plan a tree from its last battles back to its first, so the
    battles named already exist.
    """
    battle_id = uuid.uuid4()
    try:
        payload = events.BattlePlanned(
            battle_id=battle_id,
            name=name,
            scenario=scenario,
            day=day,
            sides=sides,
            attacker=attacker,
            next_on_attacker_win=next_on_attacker_win,
            next_on_defender_win=next_on_defender_win,
        )
    except ValidationError as exc:
        raise _invalid(exc) from None
    side_names = [side.side for side in payload.sides]
    if len(set(side_names)) != len(side_names):
        raise CommandError("battle.same_side", "The two sides need different names.", "sides")
    forces = set(Force.objects.filter(campaign_id=campaign.id).values_list("id", flat=True))
    seen: set[uuid.UUID] = set()
    for index, side in enumerate(payload.sides):
        for force_id in side.force_ids:
            if force_id not in forces:
                raise CommandError(
                    "battle.unknown_force",
                    f"{side.side}: force {force_id} is not in this campaign.",
                    field=f"sides.{index}.force_ids",
                )
            if force_id in seen:
                raise CommandError(
                    "battle.force_twice",
                    "A force can fight on one side only.",
                    field=f"sides.{index}.force_ids",
                )
            seen.add(force_id)
        medical = set(side.medical_unit_ids)
        if medical and Unit.objects.filter(
            id__in=medical, force_id__in=side.force_ids
        ).count() != len(medical):
            raise CommandError(
                "battle.unknown_medical_unit",
                f"{side.side}: medical units must belong to the side's forces.",
                field=f"sides.{index}.medical_unit_ids",
            )
    if attacker is not None and attacker not in side_names:
        raise CommandError(
            "battle.unknown_side", f"The attacker must be one of {side_names}.", field="attacker"
        )
    links = [b for b in (next_on_attacker_win, next_on_defender_win) if b is not None]
    if links and attacker is None:
        raise CommandError(
            "battle.attacker_required",
            "A battle that leads to others needs an attacker, to know which way the campaign goes.",
            field="attacker",
        )
    for field, linked in (
        ("next_on_attacker_win", next_on_attacker_win),
        ("next_on_defender_win", next_on_defender_win),
    ):
        if (
            linked is not None
            and not Battle.objects.filter(campaign_id=campaign.id, id=linked).exists()
        ):
            raise CommandError(
                "battle.unknown_next",
                "The battle named next is not planned in this campaign (plan it first).",
                field=field,
            )
    append_to_battle(campaign.id, battle_id, [payload], actor.pk)
    return Battle.objects.get(pk=battle_id)


def battle_commit(
    *, campaign: Campaign, battle: Battle, unit_ids: Sequence[uuid.UUID], actor: AbstractBaseUser
) -> Battle:
    """Commit units to a planned battle. Each unit's fatigue sets the confidence it starts at
    (SG2 P.19): Fresh Confident, Tired Steady, Exhausted Shaken."""
    require_status(battle, Battle.Status.PLANNED, Battle.Status.COMMITTED, doing="commit units")
    if not unit_ids:
        raise CommandError("battle.no_units", "Name the units to commit.", field="unit_ids")
    sides = {s.side: s for s in BattleSide.objects.filter(battle_id=battle.id)}
    side_of_force = {
        uuid.UUID(str(force_id)): side.side
        for side in sides.values()
        for force_id in side.force_ids
    }
    already = set(Participant.objects.filter(battle_id=battle.id).values_list("unit_id", flat=True))
    units = {u.id: u for u in Unit.objects.filter(campaign_id=campaign.id, id__in=unit_ids)}
    committed = []
    for index, unit_id in enumerate(unit_ids):
        unit = units.get(unit_id)
        field = f"unit_ids.{index}"
        if unit is None or unit.force_id not in side_of_force:
            raise CommandError(
                "battle.unit_not_on_a_side",
                "That unit is not in a force fighting this battle.",
                field=field,
            )
        if UnitKind(unit.kind).is_formation:
            raise CommandError(
                "battle.formation",
                f"{unit.name} is a {unit.kind}: commit its units.",
                field=field,
            )
        if unit.status in (UnitStatus.DISBANDED, UnitStatus.WITHDRAWN):
            raise StateConflict(
                "battle.unit_unavailable",
                f"{unit.name} is {unit.status} and cannot fight.",
                field=field,
            )
        if unit.id in already:
            raise StateConflict(
                "battle.already_committed", f"{unit.name} is already committed.", field=field
            )
        already.add(unit.id)
        side = sides[side_of_force[unit.force_id]]
        start = (
            Fatigue[unit.fatigue.upper()].starting_confidence.name.lower()
            if campaign.ruleset == Ruleset.SG2 and unit.fatigue
            else None
        )
        committed.append(
            events.CommittedUnit(
                unit_id=unit.id,
                side=side.side,
                fatigue=unit.fatigue or None,
                starting_confidence=start,
                mission_motivation=side.mission["mission_motivation"],
            )
        )
    payload = events.UnitsCommitted(battle_id=battle.id, units=committed)
    append_to_battle(campaign.id, battle.id, [payload], actor.pk)
    return Battle.objects.get(pk=battle.id)


def battle_start(*, campaign: Campaign, battle: Battle, actor: AbstractBaseUser) -> Battle:
    require_status(battle, Battle.Status.COMMITTED, doing="start it")
    fielded = set(Participant.objects.filter(battle_id=battle.id).values_list("side", flat=True))
    empty = [s for s in BattleSide.objects.filter(battle_id=battle.id) if s.side not in fielded]
    if empty:
        raise StateConflict(
            "battle.side_without_units",
            f"{empty[0].side} has no units committed yet.",
            field="battle",
        )
    append_to_battle(campaign.id, battle.id, [events.BattleStarted(battle_id=battle.id)], actor.pk)
    return Battle.objects.get(pk=battle.id)


def turn_advance(*, campaign: Campaign, battle: Battle, actor: AbstractBaseUser) -> Battle:
    require_status(battle, Battle.Status.IN_PROGRESS, doing="advance the turn")
    payload = events.TurnAdvanced(battle_id=battle.id, turn=battle.turn + 1)
    append_to_battle(campaign.id, battle.id, [payload], actor.pk)
    return Battle.objects.get(pk=battle.id)


def next_battle(battle: Battle, winner: str) -> uuid.UUID | None:
    """The battle that follows this one's outcome in a linear or tree campaign (FaD p.65)."""
    if winner == "draw":
        if battle.next_on_attacker_win != battle.next_on_defender_win:
            raise CommandError(
                "battle.draw_in_tree",
                "In a campaign tree each battle needs a winner to know which battle comes next.",
                field="winner",
            )
        return battle.next_on_attacker_win
    if winner == battle.attacker:
        return battle.next_on_attacker_win
    return battle.next_on_defender_win


def battle_end(
    *,
    campaign: Campaign,
    battle: Battle,
    winner: str,
    objectives_met: Sequence[uuid.UUID] = (),
    withdrawn: Sequence[uuid.UUID] = (),
    routed: Sequence[uuid.UUID] = (),
    surrendered: Sequence[uuid.UUID] = (),
    actor: AbstractBaseUser,
) -> Battle:
    """End the battle with its outcome; the next battle follows from it."""
    require_status(battle, Battle.Status.IN_PROGRESS, doing="end it")
    sides = list(BattleSide.objects.filter(battle_id=battle.id).values_list("side", flat=True))
    if winner != "draw" and winner not in sides:
        raise CommandError(
            "battle.unknown_side",
            f"The winner is one of {', '.join(sides)}, or 'draw'.",
            field="winner",
        )
    fighting = set(
        Participant.objects.filter(battle_id=battle.id).values_list("unit_id", flat=True)
    )
    lists = {
        "objectives_met": objectives_met,
        "withdrawn": withdrawn,
        "routed": routed,
        "surrendered": surrendered,
    }
    for field, ids in lists.items():
        for index, unit_id in enumerate(ids):
            if unit_id not in fighting:
                raise CommandError(
                    "battle.not_a_participant",
                    "That unit did not fight in this battle.",
                    field=f"{field}.{index}",
                )
    gone = [u for field in ("withdrawn", "routed", "surrendered") for u in lists[field]]
    if len(gone) != len(set(gone)):
        raise CommandError(
            "battle.two_fates",
            "A unit can be withdrawn, routed or surrendered, not more than one.",
            field="withdrawn",
        )
    payload = events.BattleEnded(
        battle_id=battle.id,
        winner=winner,
        next_battle_id=next_battle(battle, winner),
        **{field: list(ids) for field, ids in lists.items()},
    )
    append_to_battle(campaign.id, battle.id, [payload], actor.pk)
    return Battle.objects.get(pk=battle.id)


def _fighting_a_battle(unit: Unit) -> str | None:
    fighting = Participant.objects.filter(
        unit_id=unit.id,
        status=Participant.Status.FIGHTING,
        battle_id__in=Battle.objects.filter(status=Battle.Status.IN_PROGRESS).values("id"),
    ).exists()
    return f"{unit.name} is fighting a battle; it moves when the battle ends." if fighting else None


UNIT_BUSY_CHECKS.append(_fighting_a_battle)
