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

from collections.abc import Sequence
from dataclasses import dataclass

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
