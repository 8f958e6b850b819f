"""Fast and Dirty turn sequence: whose unit activates next, and the optional card draw.

FaD p.12 TURN SEQUENCE: "players will go back and forth activating their units one at a time. The
first player activates a unit, then the second player activates one. No unit already activated
this turn may be activated again. [...] If one player runs out of units, his opponent may
activate his remaining units one at a time." The first player is the winner of the turn's
initiative roll (:func:`rules.fad.morale.initiative`).

p.12 Optional - Card Activation Rule: "one card for every unit in the game. Shuffle the cards,
[...] turn them over one at a time. A unit is activated when its card is drawn. When the deck is
exhausted the turn ends." The deck holds one card per unit and nothing else (no joker, no card
per side). Drawing one card at a time uniformly from the cards left is the same as shuffling the
deck at the start of the turn and turning it over, and it lets every draw be one event with its
own dice: :func:`draw_card` picks the card with dice, so the draw is replayable and every die is
recorded (see :func:`card_dice` for how faces map to cards).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum

from rules.dice import DIE_LADDER, DiceSource, Die, Roll
from rules.errors import RuleError

# The die counted within a block of cards when the deck holds more cards than the largest die has
# faces: cards 1-12 are the first block, 13-24 the second, and so on.
BLOCK_DIE = Die.D12
MAX_DECK = max(DIE_LADDER).value * BLOCK_DIE.value


@dataclass(frozen=True, slots=True)
class ActivatingUnit:
    """A unit in the turn sequence, and its side."""

    unit_id: str
    side: str


def sides_to_activate(
    *,
    in_play: Sequence[ActivatingUnit],
    activated: Sequence[ActivatingUnit],
    first: str | None = None,
) -> tuple[str, ...]:
    """The sides that may activate a unit next (FaD p.12 TURN SEQUENCE), in the order of
    ``in_play``; empty when every unit has activated and the turn is over.

    ``in_play`` are the units still in the battle, ``activated`` those that have activated this
    turn, in order, and ``first`` the side that won the turn's initiative (None: not rolled).
    The first activation is the initiative winner's, unless it has no unit left to activate;
    after that a side never activates twice running while another side still has a unit that
    has not activated, and once a side has run out the others activate the rest one at a time.
    """
    done = {unit.unit_id for unit in activated}
    waiting = list(dict.fromkeys(unit.side for unit in in_play if unit.unit_id not in done))
    if not activated:
        return (first,) if first in waiting else tuple(waiting)
    others = tuple(side for side in waiting if side != activated[-1].side)
    return others or tuple(waiting)


def check_alternating_activation(
    *,
    unit: ActivatingUnit,
    in_play: Sequence[ActivatingUnit],
    activated: Sequence[ActivatingUnit],
    first: str | None = None,
) -> None:
    """Refuse ``unit`` activating now if the turn sequence of p.12 does not allow it: it has
    already activated this turn (``activation.already_activated``), or it is another side's
    turn to activate a unit (``activation.other_side``)."""
    if any(done.unit_id == unit.unit_id for done in activated):
        raise RuleError(
            "activation.already_activated",
            "No unit already activated this turn may be activated again (p.12).",
            field="unit_id",
        )
    known = in_play if any(u.unit_id == unit.unit_id for u in in_play) else [*in_play, unit]
    allowed = sides_to_activate(in_play=known, activated=activated, first=first)
    if unit.side not in allowed:
        why = (
            "won the initiative and activates first"
            if not activated
            else "has a unit still to activate, and the players alternate"
        )
        raise RuleError(
            "activation.other_side",
            f"It is {' or '.join(allowed)}'s turn to activate a unit: {allowed[0]} {why} (p.12).",
            field="unit_id",
        )


# --- card activation --------------------------------------------------------------------------


def card_dice(cards: int) -> tuple[Die, ...]:
    """The dice that draw one card from a deck of ``cards`` (p.12 Card Activation).

    The cards left are numbered 1 to ``cards`` and the dice read as one number counted round the
    deck ("count on from the first card again", as hit allocation counts round a squad, SG2
    P.36): a face above the last whole round is rolled again, so every card is equally likely.
    Up to 12 cards one die is rolled, the type that wastes the fewest faces (the smallest on a
    tie): d4 for 2 or 4 cards, d6 for 3 or 6, d8 for 7 or 8, d10 for 5, 9 or 10, d12 for 11 or
    12. Over 12 cards a block die and a d12 are rolled, read as (block - 1) x 12 + d12, the block
    die again the one that wastes the fewest faces. One card left needs no die. At most
    :data:`MAX_DECK` cards.
    """
    if isinstance(cards, bool) or not isinstance(cards, int) or not 1 <= cards <= MAX_DECK:
        raise RuleError(
            "activation.deck_size",
            f"A deck holds from 1 to {MAX_DECK} cards, one per unit, not {cards!r}.",
            field="deck",
        )
    if cards == 1:
        return ()
    candidates: list[tuple[Die, ...]]
    if cards <= max(DIE_LADDER).value:
        candidates = [(die,) for die in DIE_LADDER if die.value >= cards]
    else:
        candidates = [(die, BLOCK_DIE) for die in DIE_LADDER if die.value * 12 >= cards]
    return min(candidates, key=lambda dice: _faces(dice) % cards / _faces(dice))


def _faces(dice: Sequence[Die]) -> int:
    faces = 1
    for die in dice:
        faces *= die.value
    return faces


@dataclass(frozen=True, slots=True)
class CardDraw:
    """One card turned over: the deck it came from (in order), its number, and the dice."""

    deck: tuple[str, ...]
    card: str
    number: int
    rerolls: int
    rolls: tuple[Roll, ...]


def draw_card(*, dice: DiceSource, deck: Sequence[str]) -> CardDraw:
    """Turn over one card of ``deck`` (FaD p.12 Optional - Card Activation Rule): the unit whose
    card it is activates. Each card left is equally likely; the dice are those of
    :func:`card_dice`, rolled again (all of them) while they show a number past the last whole
    round of the deck. ``rerolls`` counts the throws set aside."""
    cards = tuple(deck)
    if len(set(cards)) != len(cards):
        raise RuleError("activation.deck_size", "Each unit has one card in the deck.", field="deck")
    needed = card_dice(len(cards))
    if not needed:
        return CardDraw(cards, cards[0], 1, 0, ())
    faces = _faces(needed)
    usable = faces - faces % len(cards)
    rolls: list[Roll] = []
    rerolls = 0
    while True:
        value = 0
        for index, die in enumerate(needed):
            purpose = f"activation card: 1-{len(cards)}"
            if len(needed) > 1:
                purpose += ", block of 12" if index == 0 else ", card in the block"
            roll = dice.roll(die, purpose)
            rolls.append(roll)
            value = value * die.value + roll.result - 1
        if value < usable:
            number = value % len(cards) + 1
            return CardDraw(cards, cards[number - 1], number, rerolls, tuple(rolls))
        rerolls += 1


def card_to_activate(
    *, drawn: Sequence[str], activated: Sequence[str], in_play: Sequence[str]
) -> str | None:
    """The unit whose card was turned over and has not activated yet, if it is still in play;
    None when the next card may be drawn."""
    if drawn and drawn[-1] not in activated and drawn[-1] in in_play:
        return drawn[-1]
    return None


def cards_left(*, in_play: Sequence[str], drawn: Sequence[str]) -> tuple[str, ...]:
    """The deck this turn: a card for every unit still in play whose card has not been drawn.
    A unit out of the fight has its card taken out rather than drawn and skipped, which gives
    every other card the same chance."""
    return tuple(unit for unit in in_play if unit not in drawn)


def check_card_activation(
    *, unit_id: str, drawn: Sequence[str], activated: Sequence[str], in_play: Sequence[str]
) -> None:
    """Refuse ``unit_id`` activating now with card activation (p.12): it has already activated
    this turn (``activation.already_activated``), or its card is not the one turned over
    (``activation.not_drawn``)."""
    if unit_id in activated:
        raise RuleError(
            "activation.already_activated",
            "No unit already activated this turn may be activated again (p.12).",
            field="unit_id",
        )
    if card_to_activate(drawn=drawn, activated=activated, in_play=in_play) != unit_id:
        raise RuleError(
            "activation.not_drawn",
            "With card activation a unit activates when its card is drawn (p.12): draw the "
            "next card (fad_draw_activation), and the unit it names activates.",
            field="unit_id",
        )


# --- a unit's action in its activation ----------------------------------------------------------
#
# p.12 UNIT ACTIVATION: "Each time a unit is activated, determine their current status by
# Checking Resolve. If the unit is unbroken, it may perform one these Actions: Engage the Enemy
# - Infantry units can Move, and then either Close Assault or Shoot. Vehicles can Move at
# Cautious speeds, and then Shoot. Move Out - [...] may not shoot. Command (Advanced Rules) -
# Infantry units can take any two of the following actions: Demolition, call for Indirect
# Artillery Fire, Recover Wounded, Scout, or Shoot." Moving is the table's; what the service
# records of an action is each shot, each close assault, each artillery call and each Recover
# Wounded.


class UnitAction(StrEnum):
    """A part of a unit's action (p.12) that the service records."""

    SHOOT = "shoot"
    CLOSE_ASSAULT = "close_assault"
    ARTILLERY_CALL = "artillery_call"
    RECOVER_WOUNDED = "recover_wounded"


# The Command actions the service records (p.12; Demolition and Scout are the table's). Two
# different ones: Demolition, Indirect Artillery Fire, Recover Wounded and Scout each leave "the
# rest of the squad" free for "one of the other Command Actions" (p.26, p.30, p.35, p.36).
COMMAND_ACTIONS = frozenset(
    {UnitAction.SHOOT, UnitAction.ARTILLERY_CALL, UnitAction.RECOVER_WOUNDED}
)


@dataclass(frozen=True, slots=True)
class ActionRecord:
    """One record of a unit's action; for a shot with a blast weapon (p.21), the weapon."""

    action: UnitAction
    blast_weapon: str | None = None


@dataclass(frozen=True, slots=True)
class Activated:
    """A unit activated (it Checked Resolve): with it a heavy weapons team attached to it, which
    activates as one with the squad (p.29). ``removed``: it routed or surrendered at once."""

    unit_id: str
    attached_team_id: str | None = None
    removed: bool = False


@dataclass(frozen=True, slots=True)
class ActivationEnded:
    unit_id: str


@dataclass(frozen=True, slots=True)
class Acted:
    unit_id: str
    record: ActionRecord


@dataclass(frozen=True, slots=True)
class ResponseTested:
    """A unit took its Command Response test (p.25)."""

    unit_id: str


TurnEntry = Activated | ActivationEnded | Acted | ResponseTested


@dataclass(frozen=True, slots=True)
class OpenActivation:
    """The activation under way: the unit, the units acting in it (the unit and its attached
    team), what each has done in it, and those that took their Command Response test."""

    unit_id: str
    units: tuple[str, ...]
    actions: dict[str, tuple[ActionRecord, ...]]
    tested: frozenset[str]


def open_activation(
    entries: Sequence[TurnEntry], *, in_play: Collection[str]
) -> OpenActivation | None:
    """The activation under way in a turn whose entries, oldest first, are ``entries``; None
    when there is none: no unit has activated this turn, the last one to activate has ended
    its activation, or has left the fight (routed or surrendered at its check, or lost since).
    A unit's activation lasts until it ends or the next unit activates."""
    start = next(
        (i for i in range(len(entries) - 1, -1, -1) if isinstance(entries[i], Activated)), None
    )
    if start is None:
        return None
    opened = entries[start]
    assert isinstance(opened, Activated)
    after = entries[start + 1 :]
    if (
        opened.removed
        or opened.unit_id not in in_play
        or any(isinstance(e, ActivationEnded) and e.unit_id == opened.unit_id for e in after)
    ):
        return None
    units = (opened.unit_id,) + ((opened.attached_team_id,) if opened.attached_team_id else ())
    return OpenActivation(
        unit_id=opened.unit_id,
        units=units,
        actions={
            unit: tuple(e.record for e in after if isinstance(e, Acted) and e.unit_id == unit)
            for unit in units
        },
        tested=frozenset(
            e.unit_id for e in after if isinstance(e, ResponseTested) and e.unit_id in units
        ),
    )


def _one_shoot(shots: Sequence[ActionRecord], *, vehicle: bool) -> bool:
    """Whether the shots are one Shoot (p.17): a vehicle fires each weapon on its own, at a
    target of its choosing; a squad, a team, an officer or a sniper fires once, at a single
    target, unless a blast weapon's round hits more than one unit (p.21: "Any unit within this
    radius will be hit by the blast"), a shot recorded for each."""
    if vehicle or len(shots) == 1:
        return True
    weapons = {shot.blast_weapon for shot in shots}
    return len(weapons) == 1 and None not in weapons


def is_one_action(records: Sequence[ActionRecord], *, vehicle: bool) -> bool:
    """Whether ``records`` fit in one action of p.12: Engage the Enemy's Shoot or Close Assault,
    or Command's two different actions of Shoot, Indirect Artillery Fire and Recover Wounded
    (infantry; a vehicle with Command Vehicle, Forward Observer or Medevac calls artillery or
    recovers wounded as its action alone, p.42-43)."""
    shots = [record for record in records if record.action is UnitAction.SHOOT]
    others = [record.action for record in records if record.action is not UnitAction.SHOOT]
    if len(set(others)) < len(others) or (shots and not _one_shoot(shots, vehicle=vehicle)):
        return False
    kinds = set(others) | ({UnitAction.SHOOT} if shots else set())
    return len(kinds) <= 1 or (not vehicle and len(kinds) == 2 and kinds <= COMMAND_ACTIONS)


def check_acting_unit(active: OpenActivation | None, unit_id: str, *, active_name: str) -> None:
    """Refuse ``unit_id`` acting while another unit's activation is open (p.12: "players will go
    back and forth activating their units one at a time"): ``activation.other_unit_active``."""
    if active is not None and unit_id not in active.units:
        raise RuleError(
            "activation.other_unit_active",
            f"{active_name} is the unit activated (p.12): only it acts until its activation "
            "ends (fad_activation_end) or the next unit activates (fad_check_resolve).",
            field="unit_id",
        )


def check_unit_action(
    active: OpenActivation | None,
    unit_id: str,
    record: ActionRecord,
    *,
    vehicle: bool,
    active_name: str,
    unit_name: str,
) -> None:
    """Refuse a part of a unit's action (p.12) the open activation does not allow: it is
    another unit's (``activation.other_unit_active``), or the unit has taken its one action
    (``activation.action_taken``). With no activation open (the table records only results)
    anything goes."""
    if active is None:
        return
    check_acting_unit(active, unit_id, active_name=active_name)
    if not is_one_action([*active.actions[unit_id], record], vehicle=vehicle):
        raise RuleError(
            "activation.action_taken",
            f"{unit_name} has taken its action this activation (p.12): Engage the Enemy is one "
            "Shoot or one Close Assault, Command two different of Shoot, Indirect Artillery "
            "Fire and Recover Wounded (infantry).",
            field="unit_id",
        )


def check_command_response(
    active: OpenActivation | None, unit_id: str, *, active_name: str, unit_name: str
) -> None:
    """Refuse a Command Response test (p.25: taken when "the unit activates") that is not the
    activated unit's (``activation.other_unit_active``), or its second in the activation
    (``activation.already_tested``)."""
    if active is None:
        return
    check_acting_unit(active, unit_id, active_name=active_name)
    if unit_id in active.tested:
        raise RuleError(
            "activation.already_tested",
            f"{unit_name} has taken its Command Response test this activation (p.25).",
            field="unit_id",
        )
