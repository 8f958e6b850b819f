"""The Fast and Dirty turn sequence in a battle (FaD p.12): which unit may activate next, and
the card draw of the optional Card Activation Rule (``fad_draw_activation``).

The rules are :mod:`rules.fad.activation`. A unit activates with ``fad_check_resolve`` ("each
time a unit is activated, determine their current status by Checking Resolve", p.12), so its
``battles.FadResolveChecked`` of the current turn is its activation; a new turn
(``POST /battles/{id}/turn/``) starts with no unit activated and, with cards, a full deck.
Without cards the players alternate, the turn's initiative winner (``fad_initiative``) first;
with cards (option ``turn_card_activation``) only the unit whose card was last drawn may
activate, and the next card is drawn once it has.

The deck is numbered in the order the battle lists its units (``GET /battles/{id}/``: side by
side, each side's units in roster order), leaving out units whose card has been drawn this turn
and units out of the fight, so the table can read a die it rolled as a card.

The activated unit "may perform one these Actions" (p.12): while its activation is open (its
check this turn, until its ``fad_activation_end`` or the next unit's check) the actions that
make up a unit's action (shooting, close assaults, artillery calls, Recover Wounded) and its
Command Response test are refused to any other unit, and to it once its one action is taken
(:func:`check_unit_action`). All of it is read from the turn's events; in a turn where the
table records no activation, actions are taken as recorded.
"""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.fad import state
from battles.models import Participant
from battles.projections import dice_text, log, unit_name
from battles.suppression import is_vehicle_unit
from campaigns.events import DieRoll, dice_json
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import RuleViolation, StateConflict
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rules.dice import DiceSource
from rules.errors import RuleError
from rules.fad import activation as rules
from rules.rulesets import Ruleset

CARD_DRAWN = "battles.FadActivationCardDrawn"
# The events of battles.fad.morale that open and end a unit's activation, roll the initiative
# and record a Command Response test.
RESOLVE_CHECKED = "battles.FadResolveChecked"
ACTIVATION_ENDED = "battles.FadActivationEnded"
INITIATIVE = "battles.FadInitiativeRolled"
COMMAND_RESPONSE = "battles.FadCommandResponseTested"
# The events of the parts of a unit's action (p.12), read here by name: their ``unit_id`` is the
# unit acting (the shooter, the assaulting squad, the caller, the squad treating its wounded).
ACTION_EVENTS = {
    "battles.FadShotResolved": rules.UnitAction.SHOOT,
    "battles.FadBlastResolved": rules.UnitAction.SHOOT,
    "battles.FadVehicleShotResolved": rules.UnitAction.SHOOT,
    "battles.FadCloseAssaultFought": rules.UnitAction.CLOSE_ASSAULT,
    "battles.FadVehicleAssaulted": rules.UnitAction.CLOSE_ASSAULT,
    "battles.FadArtilleryCalled": rules.UnitAction.ARTILLERY_CALL,
    "battles.FadWoundedTreated": rules.UnitAction.RECOVER_WOUNDED,
}


@event_type(CARD_DRAWN, stream="battle")
class FadActivationCardDrawn(EventPayload):
    """A card of the activation deck was turned over: its unit activates next (FaD p.12,
    Optional - Card Activation Rule)."""

    battle_id: uuid.UUID
    turn: int = Field(ge=0)
    deck: list[uuid.UUID] = Field(description="The cards left before the draw, numbered 1 up.")
    number: int = Field(ge=1, description="The card drawn: its number in the deck.")
    unit_id: uuid.UUID
    side: str
    rerolls: int = Field(ge=0, description="Throws past the last whole round, rolled again.")
    dice: list[DieRoll] = Field(default_factory=list)


class DrawActivationParams(Params):
    """No parameters: the deck is the battle's units still to activate this turn."""


def in_play(ctx: BattleContext) -> list[Participant]:
    """The units still in the fight, in the order the battle lists them: side by side, each
    side's units in roster order."""
    side_order = {name: side.order for name, side in ctx.sides.items()}
    fighting = [
        p
        for p in ctx.participants.values()
        if p.status == Participant.Status.FIGHTING and not state.is_eliminated(ctx, p)
    ]
    return sorted(
        fighting,
        key=lambda p: (side_order.get(p.side, 0), ctx.unit(p.unit_id).order, str(p.unit_id)),
    )


def _this_turn(ctx: BattleContext, event_type_name: str) -> list[dict[str, Any]]:
    return [
        event.payload
        for event in state.battle_events(ctx, event_type_name)
        if event.payload["turn"] == ctx.battle.turn
    ]


def activated_this_turn(ctx: BattleContext) -> list[rules.ActivatingUnit]:
    """The units that have activated this turn, in order."""
    sides = {str(p.unit_id): p.side for p in ctx.participants.values()}
    return [
        rules.ActivatingUnit(p["unit_id"], sides.get(p["unit_id"], ""))
        for p in _this_turn(ctx, RESOLVE_CHECKED)
    ]


def drawn_this_turn(ctx: BattleContext) -> list[str]:
    return [p["unit_id"] for p in _this_turn(ctx, CARD_DRAWN)]


def _refused(error: RuleError) -> StateConflict:
    return StateConflict(error.code, error.message, field=error.field)


def check_activation(ctx: BattleContext, participant: Participant) -> None:
    """Refuse a unit activating out of the turn sequence of p.12 (409): it has activated this
    turn, it is the other side's turn, or, with cards, its card is not the one drawn."""
    units = [rules.ActivatingUnit(str(p.unit_id), p.side) for p in in_play(ctx)]
    activated = activated_this_turn(ctx)
    try:
        if ctx.options.turn_card_activation:
            rules.check_card_activation(
                unit_id=str(participant.unit_id),
                drawn=drawn_this_turn(ctx),
                activated=[unit.unit_id for unit in activated],
                in_play=[unit.unit_id for unit in units],
            )
        else:
            initiative = _this_turn(ctx, INITIATIVE)
            rules.check_alternating_activation(
                unit=rules.ActivatingUnit(str(participant.unit_id), participant.side),
                in_play=units,
                activated=activated,
                first=initiative[-1]["first"] if initiative else None,
            )
    except RuleError as error:
        raise _refused(error) from None


# --- a unit's action in its activation (p.12) -----------------------------------------------------


def _turn_entry(event: StoredEvent) -> rules.TurnEntry:
    p = event.payload
    if event.type == RESOLVE_CHECKED:
        team = p.get("attached_team_id")
        return rules.Activated(p["unit_id"], team, removed=bool(p["removed_as"]))
    if event.type == ACTIVATION_ENDED:
        return rules.ActivationEnded(p["unit_id"])
    if event.type == COMMAND_RESPONSE:
        return rules.ResponseTested(p["unit_id"])
    blast = p["weapon"] if event.type == "battles.FadBlastResolved" else None
    return rules.Acted(p["unit_id"], rules.ActionRecord(ACTION_EVENTS[event.type], blast))


def open_activation(ctx: BattleContext) -> rules.OpenActivation | None:
    """The activation under way this turn, read from the turn's events: the last unit to Check
    Resolve, until it ends its activation (``fad_activation_end``) or the next unit activates.
    None when the table records no activation this turn: then any unit acts, as it records."""
    events = state.battle_events(
        ctx, RESOLVE_CHECKED, ACTIVATION_ENDED, COMMAND_RESPONSE, *ACTION_EVENTS
    )
    entries = [_turn_entry(e) for e in events if e.payload["turn"] == ctx.battle.turn]
    # Only the last unit to activate can hold the activation: only its place in the fight counts.
    last = next((e.unit_id for e in reversed(entries) if isinstance(e, rules.Activated)), None)
    participant = ctx.participants.get(uuid.UUID(last)) if last else None
    fighting = (
        participant is not None
        and participant.status == Participant.Status.FIGHTING
        and not state.is_eliminated(ctx, participant)
    )
    return rules.open_activation(entries, in_play={str(last)} if fighting else set())


def _name(ctx: BattleContext, unit_id: str) -> str:
    return ctx.unit(uuid.UUID(unit_id)).name


def check_unit_action(
    ctx: BattleContext,
    unit_id: uuid.UUID,
    action: rules.UnitAction,
    *,
    blast_weapon: str | None = None,
) -> None:
    """Refuse a part of a unit's action (p.12) out of its activation (409, field ``unit_id``):
    another unit's activation is open (``activation.other_unit_active``), or this unit has
    taken its action in it (``activation.action_taken``). With no activation open this turn it
    is accepted: the table records only results."""
    active = open_activation(ctx)
    if active is None:
        return
    try:
        rules.check_unit_action(
            active,
            str(unit_id),
            rules.ActionRecord(action, blast_weapon),
            vehicle=is_vehicle_unit(ctx.unit(unit_id)),
            active_name=_name(ctx, active.unit_id),
            unit_name=ctx.unit(unit_id).name,
        )
    except RuleError as error:
        raise _refused(error) from None


def check_command_response(ctx: BattleContext, unit_id: uuid.UUID) -> None:
    """Refuse a Command Response test (p.25) that is not the activated unit's, or its second in
    the activation (409)."""
    active = open_activation(ctx)
    if active is None:
        return
    try:
        rules.check_command_response(
            active,
            str(unit_id),
            active_name=_name(ctx, active.unit_id),
            unit_name=ctx.unit(unit_id).name,
        )
    except RuleError as error:
        raise _refused(error) from None


def check_acting_unit(ctx: BattleContext, unit_id: uuid.UUID) -> rules.OpenActivation | None:
    """Refuse ``unit_id`` finishing or taking part in an activation while another unit's is
    open (409 ``activation.other_unit_active``); the activation open, if any."""
    active = open_activation(ctx)
    try:
        rules.check_acting_unit(
            active,
            str(unit_id),
            active_name=_name(ctx, active.unit_id) if active else "",
        )
    except RuleError as error:
        raise _refused(error) from None
    return active


@battle_action
class FadDrawActivation(BattleAction):
    """Turn over the next activation card (FaD p.12, Optional - Card Activation Rule, option
    ``turn_card_activation``): the unit it names activates next (``fad_check_resolve``).

    The deck holds a card for every unit still in the fight whose card has not been drawn this
    turn, numbered in the battle's order of its units. Dice: one die counted round the deck,
    the type that wastes fewest faces (d4 for 2 or 4 cards, d6 for 3 or 6, d8 for 7 or 8, d10
    for 5, 9 or 10, d12 for 11 or 12); over 12 cards a block die and a d12, read as (block - 1)
    x 12 + d12. A number past the last whole round of the deck is rolled again, so every card
    is equally likely. The last card needs no die. Refused while the drawn unit has not yet
    activated, and once the deck is exhausted: the turn ends (``POST /battles/{id}/turn/``).
    """

    action = "fad_draw_activation"
    rulesets = (Ruleset.FAD.value,)
    Params = DrawActivationParams

    def check_action(self, ctx: BattleContext, params: DrawActivationParams) -> None:
        if not ctx.options.turn_card_activation:
            raise RuleViolation(
                "activation.cards_off",
                "This campaign alternates activations (option turn_card_activation off): the "
                "initiative winner activates first, then the players take turns (p.12).",
                field="battle_id",
            )
        units = [str(p.unit_id) for p in in_play(ctx)]
        activated = [unit.unit_id for unit in activated_this_turn(ctx)]
        drawn = drawn_this_turn(ctx)
        waiting = rules.card_to_activate(drawn=drawn, activated=activated, in_play=units)
        if waiting is not None:
            raise StateConflict(
                "activation.card_pending",
                f"{ctx.unit(uuid.UUID(waiting)).name}'s card is drawn: it activates "
                "(fad_check_resolve) before the next card is turned over (p.12).",
                field="battle_id",
            )
        if not rules.cards_left(in_play=units, drawn=drawn):
            raise StateConflict(
                "activation.deck_exhausted",
                f"Every card has been drawn in turn {ctx.battle.turn}: the turn ends, and the "
                "deck is shuffled for the next (p.12).",
                field="battle_id",
            )

    def resolve(
        self, ctx: BattleContext, params: DrawActivationParams, dice: DiceSource
    ) -> list[Any]:
        units = in_play(ctx)
        deck = rules.cards_left(in_play=[str(p.unit_id) for p in units], drawn=drawn_this_turn(ctx))
        draw = rules.draw_card(dice=dice, deck=deck)
        side = next(p.side for p in units if str(p.unit_id) == draw.card)
        return [
            FadActivationCardDrawn(
                battle_id=ctx.battle.id,
                turn=ctx.battle.turn,
                deck=[uuid.UUID(card) for card in draw.deck],
                number=draw.number,
                unit_id=uuid.UUID(draw.card),
                side=side,
                rerolls=draw.rerolls,
                dice=dice_json(draw.rolls),
            )
        ]


@register
class FadActivationProjection(Projection):
    """The battle-log line of each activation card drawn."""

    name = "battles.fad_activation"
    version = 1

    @Projection.handles(CARD_DRAWN)
    def card_drawn(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        cards = len(p["deck"])
        rerolled = (
            f", after {p['rerolls']} throw{'s' if p['rerolls'] != 1 else ''} past the last "
            "whole round rolled again"
            if p["rerolls"]
            else ""
        )
        last = " It is the last card: the turn ends once it has acted." if cards == 1 else ""
        log(
            rows,
            event,
            f"Activation card drawn for turn {p['turn']}: card {p['number']} of the {cards} "
            f"left{rerolled}, {unit_name(rows, p['unit_id'])} ({p['side']}), which activates "
            f"next.{last}{dice_text(p['dice'])}",
        )
