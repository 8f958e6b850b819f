"""Mines and booby traps against infantry in battle (SG2 P.55-56).

Three actions, one for each device the book describes: ``minefield_attack`` (an infantry unit's
figures come within 3" of an anti-personnel or mixed minefield counter), ``command_detonated_mine``
(a CDM fired at the nearest infantry unit) and ``booby_trap`` (a unit comes within 3" of a trap).
The rules are :mod:`rules.sg2.mines`. Each action records what the device did as an event of its
own and, when figures were attacked, the wounds and kills as the ``battles.CasualtiesResolved``
direct fire records (mode ``allocate``: every attack is a potential hit already placed on the
figure it caught, impact against his armour), so the rosters fold them the same way.

The book gives mines no suppression. Casualties from mines call for the unit's confidence test as
casualties from fire do (P.20; the digest counts mines as fire): the event names it and the umpire
records ``confidence_test`` next, as after direct fire.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.casualties.events import CasualtiesResolved, PotentialHitRecord, TrooperCasualty
from battles.casualties.state import (
    DieFaces,
    figure_of,
    leaders_down,
    member,
    no_repeats,
    require_armour_die,
    require_on_table,
    trooper_casualty,
)
from battles.morale.confidence import test_called_for
from battles.projections import dice_text, log, trooper_name, unit_name
from campaigns.events import DieRoll, dice_json
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, StateConflict
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Trooper
from rules.dice import DiceSource, Die, Roll
from rules.sg2 import mines as rules
from rules.sg2.morale import ConfidenceCircumstance
from rules.sg2.scales import Quality

MAX_FIGURES = 30


def unit_quality(ctx: BattleContext, unit_id: uuid.UUID, field: str = "unit_id") -> Quality:
    """The unit's quality from the roster, or a refusal: mines and traps roll its die."""
    unit = ctx.unit(unit_id)
    try:
        return Quality[unit.quality.upper()]
    except KeyError:
        raise StateConflict(
            "mines.no_quality",
            f"{unit.name} has no quality on the roster: its quality die is rolled (P.55-56).",
            field=field,
        ) from None


def named_troopers(
    ctx: BattleContext, unit_id: uuid.UUID, ids: Sequence[uuid.UUID], field: str
) -> list[Trooper]:
    """The unit's troopers named in ``ids``, in that order: each once, on the table, and with an
    armour die, since every figure a device attacks rolls it."""
    troopers = ctx.troopers(unit_id)
    no_repeats(ids, field)
    named = []
    for index, trooper_id in enumerate(ids):
        trooper = member(troopers, trooper_id, f"{field}.{index}")
        require_on_table(trooper, f"{field}.{index}")
        named.append(trooper)
    require_armour_die(named, field)
    return named


def casualties_event(
    ctx: BattleContext,
    unit_id: uuid.UUID,
    troopers: Sequence[Trooper],
    attacks: Sequence[rules.MineAttack],
    casualties: Sequence[Any],
    rolls: Sequence[Roll],
) -> CasualtiesResolved:
    """The attacks' wounds and kills as direct fire records them: one potential hit per attack,
    already on the figure it caught. ``rolls`` are the attacks' dice in the order
    :mod:`rules.sg2.mines` documents (impact and armour per attack, then the power-armour D6s)."""
    by_id = {str(t.id): t for t in troopers}
    own: dict[str, list[Roll]] = {}
    for index, attack in enumerate(attacks):
        own.setdefault(attack.figure_id, []).extend(rolls[2 * index : 2 * index + 2])
    power_rolls = iter(rolls[2 * len(attacks) :])
    changes: list[TrooperCasualty] = []
    for change in casualties:
        dice = own.get(change.figure_id, []) + (
            [next(power_rolls)] if change.power_armour_roll is not None else []
        )
        changes.append(trooper_casualty(by_id[change.figure_id], change, dice))
    return CasualtiesResolved(
        battle_id=ctx.battle.id,
        unit_id=unit_id,
        turn=ctx.battle.turn,
        mode="mine",
        potential_hits=len(attacks),
        impact_die=attacks[0].impact_die.value,
        cover="open",  # no cover against a device already among the figures
        allocated_first=True,
        pool=[uuid.UUID(attack.figure_id) for attack in attacks],
        hits=[
            PotentialHitRecord(
                hit_number=number,
                impact_die=attack.impact_die.value,
                armour_die=attack.armour_die.value,
                impact_roll=attack.impact_roll,
                armour_roll=attack.armour_roll,
                result=attack.result.value,
                trooper_id=uuid.UUID(attack.figure_id),
                allocation_roll=None,
            )
            for number, attack in enumerate(attacks, start=1)
        ],
        casualties=changes,
        leaders_down=leaders_down(ctx, changes),
        dice=dice_json(rolls),
    )


def confidence_due(
    ctx: BattleContext, unit_id: uuid.UUID, casualties: CasualtiesResolved | None
) -> list[str]:
    """P.20: casualties from fire (mines count as fire) call for a confidence test, if the table
    gives one at the unit's mission motivation."""
    if casualties is None or not casualties.casualties:
        return []
    return test_called_for(
        ctx, ctx.participants[unit_id], [ConfidenceCircumstance.CASUALTIES_FROM_FIRE]
    )


def _casualty_options(ctx: BattleContext) -> dict[str, Any]:
    options = ctx.options
    return {
        "rewound_kills": options.rewound_kills,
        "rewound_reverts_to_untreated": options.rewound_reverts_to_untreated,
        "environment": options.environment,
    }


# --- Conventional minefields (P.55) ----------------------------------------------------------


class MinefieldAttackParams(Params):
    unit_id: uuid.UUID = Field(description="The infantry unit entering or moving in the field.")
    minefield: Literal["anti_personnel", "mixed"] = Field(
        description="The counter's mines: anti_personnel (black) or mixed (black and red). "
        "Infantry never set off anti-vehicle mines (P.55)."
    )
    trooper_ids: list[uuid.UUID] = Field(
        min_length=1,
        max_length=MAX_FIGURES,
        description="The unit's figures within 3 inches of the counter, in the order their "
        "quality dice are rolled.",
    )


class MineCheckRecord(EventPayload):
    trooper_id: uuid.UUID
    roll: int
    caught: bool


@event_type("battles.MinefieldEntered", stream="battle")
class MinefieldEntered(EventPayload):
    """Figures of an infantry unit came within 3" of a minefield counter: each rolled the unit's
    quality die and those caught faced a mine (SG2 P.55). Casualties follow in
    ``battles.CasualtiesResolved``."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    minefield: Literal["anti_personnel", "mixed"]
    quality_die: int
    caught_at_or_below: int
    checks: list[MineCheckRecord]
    confidence_test_for: list[str] = Field(default_factory=list)
    dice: list[DieRoll] = Field(default_factory=list)


@battle_action
class MinefieldAttack(BattleAction):
    """An infantry unit's figures come within 3" of an AP or mixed minefield (SG2 P.55).

    Dice: one quality die per named figure; then per figure caught, the mine's D10 and his armour
    die; then a D6 per new power-armour casualty (P.40).
    """

    action = "minefield_attack"
    Params = MinefieldAttackParams

    def check_action(self, ctx: BattleContext, params: MinefieldAttackParams) -> None:
        ctx.participant(params.unit_id)
        unit_quality(ctx, params.unit_id)
        named_troopers(ctx, params.unit_id, params.trooper_ids, "trooper_ids")

    def resolve(
        self, ctx: BattleContext, params: MinefieldAttackParams, dice: DiceSource
    ) -> list[Any]:
        troopers = named_troopers(ctx, params.unit_id, params.trooper_ids, "trooper_ids")
        outcome = rules.minefield_attack(
            dice=dice,
            figures=[figure_of(t) for t in troopers],
            quality=unit_quality(ctx, params.unit_id),
            minefield=params.minefield,
            **_casualty_options(ctx),
        )
        checks = outcome.rolls[: len(outcome.checks)]
        casualties = (
            casualties_event(
                ctx,
                params.unit_id,
                troopers,
                outcome.attacks,
                outcome.casualties,
                outcome.rolls[len(outcome.checks) :],
            )
            if outcome.attacks
            else None
        )
        entered = MinefieldEntered(
            battle_id=ctx.battle.id,
            unit_id=params.unit_id,
            turn=ctx.battle.turn,
            minefield=params.minefield,
            quality_die=outcome.quality_die.value,
            caught_at_or_below=3 if params.minefield == "anti_personnel" else 2,
            checks=[
                MineCheckRecord(trooper_id=uuid.UUID(c.figure_id), roll=c.roll, caught=c.caught)
                for c in outcome.checks
            ],
            confidence_test_for=confidence_due(ctx, params.unit_id, casualties),
            dice=dice_json(checks),
        )
        return [entered] if casualties is None else [entered, casualties]


# --- Command-detonated mines (P.55) ----------------------------------------------------------


class CommandDetonatedMineParams(Params):
    unit_id: uuid.UUID = Field(description="The infantry unit nearest the mine: it is attacked.")
    controlled_by: uuid.UUID = Field(
        description="The unit that fires the mine (it need not be activated, P.55)."
    )
    trooper_ids: list[uuid.UUID] = Field(
        min_length=1,
        max_length=MAX_FIGURES,
        description="The attacked unit's figures within 6 inches of the mine counter.",
    )


@event_type("battles.CommandDetonatedMineFired", stream="battle")
class CommandDetonatedMineFired(EventPayload):
    """A command-detonated mine was fired at the nearest infantry unit and its marker removed
    (SG2 P.55): a D10 against the armour of every figure within 6". Casualties follow in
    ``battles.CasualtiesResolved``, which holds the dice."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    controlled_by: uuid.UUID
    turn: int = Field(ge=0)
    trooper_ids: list[uuid.UUID]
    confidence_test_for: list[str] = Field(default_factory=list)
    dice: list[DieRoll] = Field(default_factory=list)


@battle_action
class CommandDetonatedMine(BattleAction):
    """A CDM fires at the nearest infantry unit (SG2 P.55). No action of the controlling unit is
    used.

    Dice: per named figure, the mine's D10 and his armour die; then a D6 per new power-armour
    casualty (P.40).
    """

    action = "command_detonated_mine"
    Params = CommandDetonatedMineParams

    def check_action(self, ctx: BattleContext, params: CommandDetonatedMineParams) -> None:
        ctx.participant(params.unit_id)
        ctx.participant(params.controlled_by, field="controlled_by")
        if params.controlled_by == params.unit_id:
            raise CommandError(
                "action.invalid",
                "A unit does not fire its own mine at itself.",
                field="controlled_by",
            )
        named_troopers(ctx, params.unit_id, params.trooper_ids, "trooper_ids")

    def resolve(
        self, ctx: BattleContext, params: CommandDetonatedMineParams, dice: DiceSource
    ) -> list[Any]:
        troopers = named_troopers(ctx, params.unit_id, params.trooper_ids, "trooper_ids")
        outcome = rules.command_detonated_mine(
            dice=dice, figures=[figure_of(t) for t in troopers], **_casualty_options(ctx)
        )
        casualties = casualties_event(
            ctx, params.unit_id, troopers, outcome.attacks, outcome.casualties, outcome.rolls
        )
        fired = CommandDetonatedMineFired(
            battle_id=ctx.battle.id,
            unit_id=params.unit_id,
            controlled_by=params.controlled_by,
            turn=ctx.battle.turn,
            trooper_ids=params.trooper_ids,
            confidence_test_for=confidence_due(ctx, params.unit_id, casualties),
        )
        return [fired, casualties]


# --- Booby traps (P.56) ----------------------------------------------------------------------


class BoobyTrapParams(Params):
    unit_id: uuid.UUID = Field(description="The unit that came within 3 inches of the trap.")
    closest_id: uuid.UUID = Field(description="The unit's figure closest to the trap counter.")
    in_contact_ids: list[uuid.UUID] = Field(
        default_factory=list,
        max_length=MAX_FIGURES,
        description="Figures in base-to-base contact with the closest one: attacked one impact "
        "die lower if the trap goes off.",
    )
    trap_die: DieFaces = Field(default=8, description="The trap's die against the unit's (P.56).")
    impact_die: DieFaces = Field(
        default=8, description="The trap's impact: D8 in most cases, more or less if agreed."
    )


@event_type("battles.BoobyTrapResolved", stream="battle")
class BoobyTrapResolved(EventPayload):
    """A unit reached a booby trap: the unit's quality die against the trap's, then the trap
    discovered and made harmless, or set off against the closest figure and those touching him
    (SG2 P.56). The counter is removed either way. Casualties follow in
    ``battles.CasualtiesResolved``."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    quality_die: int
    unit_roll: int
    trap_die: int
    trap_roll: int
    detonated: bool
    closest_id: uuid.UUID
    in_contact_ids: list[uuid.UUID]
    impact_die: int
    confidence_test_for: list[str] = Field(default_factory=list)
    dice: list[DieRoll] = Field(default_factory=list)


@battle_action
class BoobyTrap(BattleAction):
    """A unit comes within 3" of a booby trap (SG2 P.56).

    Dice: the unit's quality die, the trap's die; if it goes off, the trap's impact and the
    closest figure's armour die, then the same for each figure in contact (impact one type
    lower); then a D6 per new power-armour casualty (P.40).
    """

    action = "booby_trap"
    Params = BoobyTrapParams

    def check_action(self, ctx: BattleContext, params: BoobyTrapParams) -> None:
        ctx.participant(params.unit_id)
        unit_quality(ctx, params.unit_id)
        if params.closest_id in params.in_contact_ids:
            raise CommandError(
                "action.invalid",
                "The closest figure is the trap's victim, not in contact with himself.",
                field="in_contact_ids",
            )
        named_troopers(ctx, params.unit_id, [params.closest_id], "closest_id")
        named_troopers(ctx, params.unit_id, params.in_contact_ids, "in_contact_ids")

    def resolve(self, ctx: BattleContext, params: BoobyTrapParams, dice: DiceSource) -> list[Any]:
        troopers = named_troopers(
            ctx, params.unit_id, [params.closest_id, *params.in_contact_ids], "in_contact_ids"
        )
        quality = unit_quality(ctx, params.unit_id)
        outcome = rules.booby_trap(
            dice=dice,
            quality=quality,
            closest=figure_of(troopers[0]),
            in_contact=[figure_of(t) for t in troopers[1:]],
            trap_die=Die(params.trap_die),
            impact=Die(params.impact_die),
            **_casualty_options(ctx),
        )
        casualties = (
            casualties_event(
                ctx,
                params.unit_id,
                troopers,
                outcome.attacks,
                outcome.casualties,
                outcome.rolls[2:],
            )
            if outcome.detonated
            else None
        )
        resolved = BoobyTrapResolved(
            battle_id=ctx.battle.id,
            unit_id=params.unit_id,
            turn=ctx.battle.turn,
            quality_die=quality.die.value,
            unit_roll=outcome.unit_roll,
            trap_die=params.trap_die,
            trap_roll=outcome.trap_roll,
            detonated=outcome.detonated,
            closest_id=params.closest_id,
            in_contact_ids=params.in_contact_ids,
            impact_die=params.impact_die,
            confidence_test_for=confidence_due(ctx, params.unit_id, casualties),
            dice=dice_json(outcome.rolls[:2]),
        )
        return [resolved] if casualties is None else [resolved, casualties]


# --- The battle log --------------------------------------------------------------------------


def _confidence_text(rows: Rows, p: dict[str, Any]) -> str:
    if not p["confidence_test_for"]:
        return ""
    why = " and ".join(c.replace("_", " ") for c in p["confidence_test_for"])
    return f" {unit_name(rows, p['unit_id'])} must take a confidence test ({why}, P.20)."


def _names(rows: Rows, ids: Sequence[str]) -> str:
    names = [trooper_name(rows, i) for i in ids]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


_FIELD_WORDS = {"anti_personnel": "an anti-personnel", "mixed": "a mixed"}


@register
class MinesProjection(Projection):
    """The log lines of mines and booby traps (rows of the battles projection)."""

    name = "battles.mines"
    version = 1

    @Projection.handles("battles.MinefieldEntered")
    def minefield_entered(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        rolled = ", ".join(
            f"{trooper_name(rows, c['trooper_id'])} {c['roll']}" for c in p["checks"]
        )
        caught = [c["trooper_id"] for c in p["checks"] if c["caught"]]
        told = f"{_names(rows, caught)} set off a mine" if caught else "nobody set off a mine"
        line = (
            f"{unit_name(rows, p['unit_id'])} came into {_FIELD_WORDS[p['minefield']]} minefield: "
            f"quality d{p['quality_die']}, a mine on {p['caught_at_or_below']} or less "
            f"({rolled}): {told}."
        )
        log(rows, event, line + _confidence_text(rows, p) + dice_text(p["dice"]))

    @Projection.handles("battles.CommandDetonatedMineFired")
    def command_detonated_mine_fired(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        line = (
            f"{unit_name(rows, p['controlled_by'])} fired a command-detonated mine at "
            f"{unit_name(rows, p['unit_id'])}: a d10 against the armour of "
            f"{_names(rows, p['trooper_ids'])}, within 6 inches; the marker is removed."
        )
        log(rows, event, line + _confidence_text(rows, p))

    @Projection.handles("battles.BoobyTrapResolved")
    def booby_trap_resolved(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = unit_name(rows, p["unit_id"])
        duel = (
            f"quality d{p['quality_die']} {p['unit_roll']} against the trap's "
            f"d{p['trap_die']} {p['trap_roll']}"
        )
        if p["detonated"]:
            line = (
                f"A booby trap went off on {unit} ({duel}): "
                f"d{p['impact_die']} against {trooper_name(rows, p['closest_id'])}"
            )
            if p["in_contact_ids"]:
                line += f", one die lower against {_names(rows, p['in_contact_ids'])}"
            line += "; the counter is removed."
        else:
            line = (
                f"{unit} found a booby trap and made it harmless ({duel}); the counter is removed."
            )
        log(rows, event, line + _confidence_text(rows, p) + dice_text(p["dice"]))
