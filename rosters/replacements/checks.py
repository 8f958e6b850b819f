"""What the replacement commands read under the campaign's lock, and the refusals they make
before any die is rolled (SG2 P.60-61)."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from campaigns.events import dice_json
from campaigns.models import Campaign
from eventlog.commands import CommandContext
from eventlog.errors import CommandError, NotFound, RuleViolation, StateConflict
from rosters.models import Trooper, Unit
from rosters.replacements.events import QualityCheck
from rosters.replacements.ledger import (
    GONE,
    CheckMade,
    PlatoonLedger,
    checks_since,
    company_units,
    location,
    platoon_ledger,
    platoon_squads,
)
from rosters.replacements.rounds import UnitBattles, formation_tree, unit_battles
from rosters.vocabulary import TrooperStatus, UnitKind, UnitStatus
from rules.dice import DiceSource
from rules.options import parse_options
from rules.rulesets import definition
from rules.sg2.campaign import (
    BETWEEN_BATTLE_ORDER,
    BetweenBattleStep,
    CampaignRuleError,
    check_between_battle_order,
)
from rules.sg2.replacements import (
    ReplacementError,
    SquadAssignment,
    check_quality_after_replacements,
    distribute_replacements,
)
from rules.sg2.scales import Quality


@dataclass(frozen=True)
class PlatoonState:
    """A platoon as its replacement commands find it under the lock; for an assignment, also
    the units it names and their troopers."""

    ruleset: str
    day: int
    options: Any
    platoon: Unit
    squads: list[Unit]
    ledger: PlatoonLedger
    # When the last battle any unit of the platoon fought ended (a sequence; 0: none yet).
    last_battle_ended: int = 0
    units: dict[uuid.UUID, Unit] = field(default_factory=dict)
    members: dict[uuid.UUID, list[Trooper]] = field(default_factory=dict)
    # The named units between their battles, and the check each took since its last one.
    battles: dict[uuid.UUID, UnitBattles] = field(default_factory=dict)
    checks: dict[uuid.UUID, CheckMade] = field(default_factory=dict)
    # Company-level units that may share the platoon's roll (option company_replacements).
    company: frozenset[uuid.UUID] = frozenset()


def load_platoon(
    ctx: CommandContext, platoon_id: uuid.UUID, named: Sequence[uuid.UUID] = ()
) -> PlatoonState:
    platoon = Unit.objects.filter(campaign_id=ctx.campaign_id, id=platoon_id).first()
    if platoon is None:
        raise NotFound("unit.not_found", "No such unit.", field="platoon_id")
    campaign = Campaign.objects.get(pk=ctx.campaign_id)
    units = {u.id: u for u in Unit.objects.filter(campaign_id=ctx.campaign_id, id__in=named)}
    members: dict[uuid.UUID, list[Trooper]] = {unit_id: [] for unit_id in units}
    for trooper in Trooper.objects.filter(unit_id__in=list(units)).order_by("order"):
        members[trooper.unit_id].append(trooper)
    tree = formation_tree(platoon)
    battles = unit_battles(ctx.campaign_id, {*tree, *units})
    options = parse_options(campaign.ruleset, campaign.options)
    sharing = getattr(options, "company_replacements", None) == "share_platoon_roll"
    return PlatoonState(
        ruleset=campaign.ruleset,
        day=campaign.day,
        options=options,
        platoon=platoon,
        squads=platoon_squads(platoon),
        ledger=platoon_ledger(ctx.campaign_id, platoon.id),
        last_battle_ended=max(battles[unit_id].last_ended for unit_id in tree),
        units=units,
        members=members,
        battles={unit_id: battles[unit_id] for unit_id in units},
        checks=checks_since(
            ctx.campaign_id, {unit_id: battles[unit_id].last_ended for unit_id in units}
        ),
        company=frozenset(u.id for u in company_units(platoon)) if sharing else frozenset(),
    )


def require_platoon(state: PlatoonState) -> None:
    platoon = state.platoon
    if not definition(state.ruleset).has("platoon_replacements"):
        raise CommandError(
            "replacements.not_in_ruleset",
            "Replacement rolls per platoon are a Stargrunt II rule (P.60).",
            field="unit",
        )
    if platoon.kind != UnitKind.PLATOON:
        raise CommandError(
            "replacements.not_a_platoon",
            f"{platoon.name} is a {platoon.kind.replace('_', ' ')}: replacements are rolled "
            "per platoon (SG2 P.60).",
            field="unit",
        )
    if platoon.status == UnitStatus.DISBANDED:
        raise StateConflict("unit.disbanded", f"{platoon.name} has been disbanded.", field="unit")


def check_request(state: PlatoonState) -> None:
    require_platoon(state)
    platoon, ledger = state.platoon, state.ledger
    if not any(location(s).is_safe for s in state.squads):
        raise StateConflict(
            "replacements.not_in_safe_area",
            f"None of {platoon.name}'s squads is in a safe area: pull them out of the line "
            "first; replacements are only received in a safe area (SG2 P.61).",
            field="unit",
        )
    last = ledger.last_roll
    if last is not None and last["sequence"] > state.last_battle_ended:
        # SG2 P.60: one die per platoon between battles, however many days go by.
        raise StateConflict(
            "replacements.already_rolled",
            f"{platoon.name} already rolled for replacements on day {last['day']} and has "
            "fought no battle since; the die is rolled once per platoon between battles (P.60).",
            field="unit",
        )


@dataclass(frozen=True)
class Receiving:
    unit: Unit
    count: int
    members: list[Trooper]


def _receiving(state: PlatoonState, unit_id: uuid.UUID, count: int, where: str) -> Receiving:
    """One squad named in an assignment, if it may take replacements."""
    unit = state.units.get(unit_id)
    if unit is None:
        raise CommandError("unit.not_found", "No such unit in this campaign.", field=where)
    if unit.status == UnitStatus.DISBANDED:
        raise StateConflict("unit.disbanded", f"{unit.name} has been disbanded.", field=where)
    if unit_id not in {s.id for s in state.squads} | state.company:
        raise RuleViolation(
            "replacements.not_in_platoon",
            f"{unit.name} is not a squad of {state.platoon.name}: a platoon's replacements go "
            "to its own squads (P.60), and to its company's own units only with option "
            "company_replacements = share_platoon_roll.",
            field=where,
        )
    _require_quality_rise_first(unit, state.battles[unit_id], where)
    if not location(unit).is_safe:
        raise StateConflict(
            "replacements.not_in_safe_area",
            f"{unit.name} is {unit.status.replace('_', ' ')}: a unit must be pulled out of the "
            "line to a safe area before it can receive replacements (SG2 P.61).",
            field=where,
        )
    if unit.quality == Quality.ELITE.name.lower() and not (
        state.options.elite_accepts_ordinary_replacements
    ):
        raise RuleViolation(
            "replacements.elite_not_eligible",
            f"{unit.name} is Elite: Elite units get no ordinary replacements unless the "
            "umpire allows it (option elite_accepts_ordinary_replacements, P.61).",
            field=where,
        )
    return Receiving(unit, count, state.members.get(unit_id, []))


# The between-battle steps the after-action of a battle takes for its units, up to and with
# the quality rise (battles.after_action: quality points and rise, fatigue, injured).
AFTER_ACTION_STEPS = BETWEEN_BATTLE_ORDER[
    : BETWEEN_BATTLE_ORDER.index(BetweenBattleStep.REPLACEMENTS)
]


def _require_quality_rise_first(unit: Unit, battles: UnitBattles, where: str) -> None:
    """SG2 P.60: a rise "should be taken into account BEFORE allocating any replacement
    personnel". A unit whose battle has ended but is not resolved after the action would take
    its replacements before its quality rise: refused, by the book's order of the steps."""
    pending = AFTER_ACTION_STEPS if battles.unresolved else ()
    try:
        check_between_battle_order([BetweenBattleStep.REPLACEMENTS.value, *pending])
    except CampaignRuleError as refusal:
        raise StateConflict(
            refusal.code,
            f"{unit.name} fought at {', '.join(battles.unresolved)}, which has ended but has "
            f"not had its after-action yet: resolve it first. {refusal.message}",
            field=where,
        ) from None


def plan(
    state: PlatoonState, assignments: Sequence[tuple[uuid.UUID, int]]
) -> tuple[list[Receiving], int]:
    """Check ``(unit_id, count)`` assignments against the state and the rules before any die
    is rolled; returns the receiving squads and the days until the men arrive."""
    require_platoon(state)
    receiving: list[Receiving] = []
    seen: set[uuid.UUID] = set()
    for index, (unit_id, count) in enumerate(assignments):
        where = f"assignments.{index}.unit_id"
        if unit_id in seen:
            raise CommandError(
                "replacements.duplicate_squad",
                f"{state.units[unit_id].name} is listed twice; give it one assignment.",
                field=where,
            )
        seen.add(unit_id)
        receiving.append(_receiving(state, unit_id, count, where))
    _check_available(state, sum(r.count for r in receiving))
    return receiving, _distribution_days(state, receiving)


def _check_available(state: PlatoonState, wanted: int) -> None:
    ledger = state.ledger
    if wanted <= ledger.left:
        return
    if ledger.last_roll is None:
        message = f"No replacements have been rolled for {state.platoon.name}: request them first."
    else:
        message = (
            f"{wanted} replacements were assigned but only {ledger.left} of the "
            f"{ledger.last_roll['available']} rolled on day {ledger.last_roll['day']} are left."
        )
    raise RuleViolation("replacements.over_assigned", message, field="assignments")


def _distribution_days(state: PlatoonState, receiving: list[Receiving]) -> int:
    options = state.options
    on_the_way = Counter[str]()
    for pending in state.ledger.pending:
        on_the_way[pending.unit_id] += pending.count
    try:
        distribution = distribute_replacements(
            available=state.ledger.left,
            assignments=[
                SquadAssignment(
                    squad=r.unit.name,
                    # Troopers in hospital keep their place; men on the way have taken theirs.
                    vacancies=max(
                        0,
                        r.unit.toe_strength
                        - sum(t.status not in GONE for t in r.members)
                        - on_the_way[str(r.unit.id)],
                    ),
                    assigned=r.count,
                    location=location(r.unit),
                )
                for r in receiving
            ],
            # P.61: without suitable supplies "DOUBLE all times given", the arrival's too.
            supplied=all(r.unit.supplied for r in receiving),
            allow_overstrength=options.allow_overstrength,
            replacement_days=options.replacement_days,
            field_time_multiplier=options.field_time_multiplier,
            field_doubling_applies_to=[str(item) for item in options.field_doubling_applies_to],
        )
    except ReplacementError as refusal:
        # The rules name no field; the refusal concerns the assignments as a whole.
        raise RuleViolation(refusal.code, refusal.message, field="assignments") from None
    return distribution.days


def check_quality(receiving: Receiving, dice: DiceSource, state: PlatoonState) -> QualityCheck:
    """A receiving squad's quality-drop check (SG2 P.60-61): one for all the men it receives
    between two of its battles, so men given after an earlier check are counted by it; a rise
    its last battle bought and this drop undoes leaves the points used up (P.60)."""
    unit, options = receiving.unit, state.options
    earlier = state.checks.get(unit.id)
    if earlier is not None:
        # The one check's members: men who joined since are not "existing members".
        existing, returned = earlier.existing_members, earlier.returned_from_injury
    else:
        fit = [t for t in receiving.members if t.status == TrooperStatus.FIT]
        returned = sum(t.wounds > 0 for t in fit)
        existing = len(fit) - returned
    if not unit.quality:
        return QualityCheck(
            quality_before=None,
            quality_after=None,
            existing_members=existing,
            returned_from_injury=returned,
            die=None,
            dropped=False,
        )
    outcome = check_quality_after_replacements(
        dice=dice,
        quality=Quality[unit.quality.upper()],
        existing_members=existing,
        returned_from_injury=returned,
        replacements=receiving.count,
        improvement_points=unit.experience_points,
        rose_this_round=state.battles[unit.id].rose,
        green_never_drops_to_untrained=options.green_never_drops_to_untrained,
        elite_accepts_ordinary_replacements=options.elite_accepts_ordinary_replacements,
        earlier=earlier.as_rules() if earlier is not None else None,
    )
    return QualityCheck(
        quality_before=outcome.quality_before.name.lower(),
        quality_after=outcome.quality.name.lower(),
        existing_members=existing,
        returned_from_injury=returned,
        die=outcome.die.value if outcome.die is not None else None,
        dropped=outcome.dropped,
        dice=dice_json(outcome.rolls),
        counted=outcome.replacements,
        roll=outcome.roll,
        dropped_earlier=earlier.dropped if earlier is not None else None,
        points_before=unit.experience_points,
        points_after=outcome.improvement_points,
    )
