"""Tests for the Fast and Dirty turn sequence and the optional card activation (FaD p.12) in
rules.fad.activation.

The card draw's probabilities are checked by enumerating every face of the dice it asks for:
every card of the deck is exactly as likely as any other, and the chance that a throw is rolled
again is the share of faces past the last whole round of the deck."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Die, Roll, TableDice
from rules.errors import RuleError
from rules.fad.activation import (
    MAX_DECK,
    Acted,
    ActionRecord,
    Activated,
    ActivatingUnit,
    ActivationEnded,
    ResponseTested,
    TurnEntry,
    UnitAction,
    card_dice,
    card_to_activate,
    cards_left,
    check_acting_unit,
    check_alternating_activation,
    check_card_activation,
    check_command_response,
    check_unit_action,
    draw_card,
    is_one_action,
    open_activation,
    sides_to_activate,
)

FED = [ActivatingUnit(f"f{i}", "Federation") for i in range(1, 4)]
INS = [ActivatingUnit(f"i{i}", "Insurgents") for i in range(1, 3)]
ALL = [*FED, *INS]


# --- alternating activations (p.12 TURN SEQUENCE) -----------------------------------------------


def test_the_initiative_winner_activates_first():
    assert sides_to_activate(in_play=ALL, activated=[], first="Insurgents") == ("Insurgents",)


def test_without_an_initiative_roll_either_side_may_start():
    assert sides_to_activate(in_play=ALL, activated=[]) == ("Federation", "Insurgents")


def test_a_winner_with_no_unit_left_lets_the_other_side_start():
    assert sides_to_activate(in_play=FED, activated=[], first="Insurgents") == ("Federation",)


def test_the_players_alternate():
    """ "The first player activates a unit, then the second player activates one" (p.12)."""
    assert sides_to_activate(in_play=ALL, activated=[INS[0]], first="Insurgents") == ("Federation",)
    assert sides_to_activate(in_play=ALL, activated=[INS[0], FED[0]]) == ("Insurgents",)


def test_a_side_that_runs_out_lets_the_other_activate_the_rest_one_at_a_time():
    """ "If one player runs out of units, his opponent may activate his remaining units one at a
    time" (p.12): the Insurgents' two units are done, the Federation's third follows its
    second."""
    done = [INS[0], FED[0], INS[1], FED[1]]
    assert sides_to_activate(in_play=ALL, activated=done) == ("Federation",)
    assert sides_to_activate(in_play=ALL, activated=[*done, FED[2]]) == ()


def test_a_unit_activates_once_a_turn():
    with pytest.raises(RuleError) as refused:
        check_alternating_activation(unit=FED[0], in_play=ALL, activated=[FED[0], INS[0]])
    assert (refused.value.code, refused.value.field) == ("activation.already_activated", "unit_id")


def test_a_side_may_not_activate_twice_running_while_the_other_has_units():
    check_alternating_activation(unit=INS[0], in_play=ALL, activated=[FED[0]])
    with pytest.raises(RuleError) as refused:
        check_alternating_activation(unit=FED[1], in_play=ALL, activated=[FED[0]])
    assert refused.value.code == "activation.other_side"
    assert "Insurgents's turn" in refused.value.message
    assert "alternate" in refused.value.message


def test_the_first_activation_is_the_initiative_winners():
    with pytest.raises(RuleError) as refused:
        check_alternating_activation(unit=FED[0], in_play=ALL, activated=[], first="Insurgents")
    assert refused.value.code == "activation.other_side"
    assert "won the initiative" in refused.value.message


def test_a_unit_the_table_still_moves_though_out_of_the_count_may_activate_in_its_turn():
    """A unit the service no longer counts in play (every figure down) is still judged by its
    side's turn."""
    gone = ActivatingUnit("f9", "Federation")
    check_alternating_activation(unit=gone, in_play=ALL, activated=[INS[0]])
    with pytest.raises(RuleError):
        check_alternating_activation(unit=gone, in_play=ALL, activated=[FED[0]])


# --- card activation (p.12 Optional - Card Activation Rule) --------------------------------------


@pytest.mark.parametrize(
    ("cards", "dice"),
    [
        (1, ()),
        (2, (Die.D4,)),
        (3, (Die.D6,)),
        (4, (Die.D4,)),
        (5, (Die.D10,)),
        (6, (Die.D6,)),
        (7, (Die.D8,)),
        (8, (Die.D8,)),
        (9, (Die.D10,)),
        (10, (Die.D10,)),
        (11, (Die.D12,)),
        (12, (Die.D12,)),
        (13, (Die.D12, Die.D12)),
        (16, (Die.D4, Die.D12)),
        (18, (Die.D6, Die.D12)),
        (24, (Die.D4, Die.D12)),
        (144, (Die.D12, Die.D12)),
    ],
)
def test_the_dice_that_draw_a_card(cards, dice):
    assert card_dice(cards) == dice


@pytest.mark.parametrize("cards", [0, MAX_DECK + 1, True, 2.0])
def test_a_deck_holds_one_to_144_cards(cards):
    with pytest.raises(RuleError) as refused:
        card_dice(cards)
    assert (refused.value.code, refused.value.field) == ("activation.deck_size", "deck")


def test_a_unit_has_one_card():
    with pytest.raises(RuleError) as refused:
        draw_card(dice=TableDice([]), deck=["a", "a"])
    assert refused.value.code == "activation.deck_size"


def test_the_last_card_needs_no_die():
    draw = draw_card(dice=TableDice([]), deck=["a"])
    assert (draw.card, draw.number, draw.rerolls, draw.rolls) == ("a", 1, 0, ())


def test_a_face_counts_round_the_deck():
    """Two cards on a d4: 1 and 3 are the first card, 2 and 4 the second."""
    deck = ["a", "b"]
    assert [draw_card(dice=TableDice([f]), deck=deck).card for f in (1, 2, 3, 4)] == [
        "a",
        "b",
        "a",
        "b",
    ]


def test_a_face_past_the_last_whole_round_is_rolled_again():
    """Seven cards on a d8: an 8 is rolled again; the 5 that follows is the fifth card."""
    dice = TableDice([8, 8, 5])
    draw = draw_card(dice=dice, deck="abcdefg")
    dice.ensure_all_used()
    assert (draw.card, draw.number, draw.rerolls) == ("e", 5, 2)
    assert [r.purpose for r in draw.rolls] == ["activation card: 1-7"] * 3
    assert all(isinstance(r, Roll) and r.die is Die.D8 for r in draw.rolls)


def test_over_twelve_cards_a_block_die_and_a_d12():
    """Eighteen cards: a d6 for the block of 12 and a d12 within it, read as (block - 1) x 12 +
    d12 counted round the deck: 2 then 7 is 19, the first card; 6 then 12 is 72, a whole round
    of 18 four times, the last card."""
    deck = [f"u{i}" for i in range(1, 19)]
    first = draw_card(dice=TableDice([2, 7]), deck=deck)
    assert (first.card, first.number) == ("u1", 1)
    assert [r.purpose for r in first.rolls] == [
        "activation card: 1-18, block of 12",
        "activation card: 1-18, card in the block",
    ]
    last = draw_card(dice=TableDice([6, 12]), deck=deck)
    assert (last.card, last.number) == ("u18", 18)


def test_thirteen_cards_reroll_only_the_last_face_of_144():
    """13 cards on d12 x d12: 144 = 11 whole rounds of 13 and one face over, rolled again."""
    deck = [f"u{i}" for i in range(1, 14)]
    dice = TableDice([12, 12, 1, 1])
    draw = draw_card(dice=dice, deck=deck)
    dice.ensure_all_used()
    assert (draw.card, draw.rerolls) == ("u1", 1)


def _exact_chances(cards: int) -> tuple[dict[int, Fraction], Fraction]:
    """Every card's chance of being drawn, and the chance a throw is rolled again, by
    enumerating every face of one throw."""
    dice = card_dice(cards)
    throws = list(itertools.product(*(range(1, die.value + 1) for die in dice)))
    counts: dict[int, int] = {}
    rerolled = 0
    for faces in throws:
        draw = draw_card(
            dice=TableDice([*faces, *([1] * len(dice))]), deck=[str(n) for n in range(cards)]
        )
        if draw.rerolls:
            rerolled += 1
        else:
            counts[draw.number] = counts.get(draw.number, 0) + 1
    usable = len(throws) - rerolled
    return {n: Fraction(c, usable) for n, c in counts.items()}, Fraction(rerolled, len(throws))


@pytest.mark.parametrize(
    ("cards", "rerolled"),
    [
        (2, Fraction(0)),
        (3, Fraction(0)),
        (5, Fraction(0)),
        (7, Fraction(1, 8)),
        (9, Fraction(1, 10)),
        (11, Fraction(1, 12)),
        (12, Fraction(0)),
        (13, Fraction(1, 144)),
        (18, Fraction(0)),
        (30, Fraction(0)),
    ],
)
def test_every_card_is_equally_likely(cards, rerolled):
    """The shuffled deck of p.12, one card at a time: each card left has 1 chance in the deck's
    size."""
    chances, again = _exact_chances(cards)
    assert chances == {n: Fraction(1, cards) for n in range(1, cards + 1)}
    assert again == rerolled


@given(st.integers(min_value=1, max_value=MAX_DECK))
def test_the_dice_have_at_least_as_many_faces_as_cards(cards):
    faces = 1
    for die in card_dice(cards):
        faces *= die.value
    assert faces >= cards
    assert len(card_dice(cards)) == (0 if cards == 1 else 1 if cards <= 12 else 2)


def test_the_deck_is_the_units_in_play_not_yet_drawn():
    assert cards_left(in_play=["a", "b", "c", "d"], drawn=["c", "x"]) == ("a", "b", "d")


def test_the_drawn_unit_activates_before_the_next_draw():
    assert card_to_activate(drawn=["a", "b"], activated=["a"], in_play=["a", "b"]) == "b"
    assert card_to_activate(drawn=["a", "b"], activated=["a", "b"], in_play=["a", "b"]) is None
    assert card_to_activate(drawn=[], activated=[], in_play=["a"]) is None
    # Its unit left the fight before it could act: the next card may be drawn.
    assert card_to_activate(drawn=["a", "b"], activated=["a"], in_play=["a"]) is None


def test_with_cards_only_the_drawn_unit_activates():
    check_card_activation(unit_id="b", drawn=["a", "b"], activated=["a"], in_play=["a", "b", "c"])
    with pytest.raises(RuleError) as refused:
        check_card_activation(
            unit_id="c", drawn=["a", "b"], activated=["a"], in_play=["a", "b", "c"]
        )
    assert (refused.value.code, refused.value.field) == ("activation.not_drawn", "unit_id")
    with pytest.raises(RuleError) as again:
        check_card_activation(unit_id="a", drawn=["a"], activated=["a"], in_play=["a", "b"])
    assert again.value.code == "activation.already_activated"


# --- a unit's action in its activation (p.12 UNIT ACTIVATION) ---------------------------------

SHOOT = ActionRecord(UnitAction.SHOOT)
ASSAULT = ActionRecord(UnitAction.CLOSE_ASSAULT)
CALL = ActionRecord(UnitAction.ARTILLERY_CALL)
AID = ActionRecord(UnitAction.RECOVER_WOUNDED)
MORTAR = ActionRecord(UnitAction.SHOOT, blast_weapon="mortar_light")
CANNON = ActionRecord(UnitAction.SHOOT, blast_weapon="cannon_light")
IN_PLAY = {"a", "b", "team"}


def test_no_activation_is_open_until_a_unit_activates():
    assert open_activation([], in_play=IN_PLAY) is None
    assert open_activation([Acted("a", SHOOT)], in_play=IN_PLAY) is None


def test_the_last_unit_to_activate_is_active_with_what_it_has_done():
    """A unit's activation lasts until it ends or the next unit activates (p.12: "players will
    go back and forth activating their units one at a time")."""
    entries: list[TurnEntry] = [
        Activated("a"),
        Acted("a", SHOOT),
        Activated("b"),
        Acted("b", AID),
        ResponseTested("b"),
        Acted("a", ASSAULT),
    ]
    active = open_activation(entries, in_play=IN_PLAY)
    assert active is not None
    assert (active.unit_id, active.units, active.tested) == ("b", ("b",), frozenset({"b"}))
    assert active.actions == {"b": (AID,)}


def test_an_attached_team_activates_with_its_squad():
    """A heavy weapons team attached to a squad "activate and move as one" (p.29): each acts in
    the squad's activation, each its own action."""
    entries: list[TurnEntry] = [
        Activated("a", attached_team_id="team"),
        Acted("team", MORTAR),
        Acted("a", SHOOT),
    ]
    active = open_activation(entries, in_play=IN_PLAY)
    assert active is not None
    assert active.units == ("a", "team")
    assert active.actions == {"a": (SHOOT,), "team": (MORTAR,)}


def test_an_activation_closes_when_it_ends_or_its_unit_leaves_the_fight():
    assert open_activation([Activated("a"), ActivationEnded("a")], in_play=IN_PLAY) is None
    # Another unit's marker coming off does not end it.
    assert open_activation([Activated("a"), ActivationEnded("b")], in_play=IN_PLAY) is not None
    assert open_activation([Activated("a", removed=True)], in_play=IN_PLAY) is None
    assert open_activation([Activated("gone")], in_play=IN_PLAY) is None


def test_engage_the_enemy_is_one_shoot_or_one_close_assault():
    """p.12: "Infantry units can Move, and then either Close Assault or Shoot"; a squad shoots
    "as a unit at a single target" (p.17)."""
    assert is_one_action([], vehicle=False)
    assert is_one_action([SHOOT], vehicle=False)
    assert is_one_action([ASSAULT], vehicle=False)
    assert not is_one_action([SHOOT, SHOOT], vehicle=False)
    assert not is_one_action([ASSAULT, ASSAULT], vehicle=False)
    assert not is_one_action([SHOOT, ASSAULT], vehicle=False)
    assert not is_one_action([ASSAULT, AID], vehicle=False)


def test_a_blast_on_every_unit_in_its_radius_is_one_shoot():
    """p.21: "Any unit within this radius will be hit by the blast": one record a unit."""
    assert is_one_action([MORTAR, MORTAR, MORTAR], vehicle=False)
    assert not is_one_action([MORTAR, CANNON], vehicle=False)
    assert not is_one_action([MORTAR, SHOOT], vehicle=False)


def test_a_vehicle_fires_each_weapon_but_takes_no_command_action():
    """p.17: vehicles "fire individually, but may designate a different target for each weapon
    they carry"; p.12: "Vehicles can only Engage the Enemy"; with Command Vehicle or Forward
    Observer a vehicle calls artillery (p.42-43) as its action."""
    assert is_one_action([SHOOT, CANNON, SHOOT], vehicle=True)
    assert is_one_action([CALL], vehicle=True)
    assert not is_one_action([CALL, SHOOT], vehicle=True)


def test_command_is_two_different_command_actions():
    """p.12 Command: "any two of the following actions: Demolition, call for Indirect Artillery
    Fire, Recover Wounded, Scout, or Shoot"; each leaves the rest of the squad "one of the
    other Command Actions" (p.30, p.35)."""
    assert is_one_action([AID, SHOOT], vehicle=False)
    assert is_one_action([CALL, AID], vehicle=False)
    assert is_one_action([SHOOT, CALL], vehicle=False)
    assert not is_one_action([CALL, CALL], vehicle=False)
    assert not is_one_action([AID, SHOOT, CALL], vehicle=False)
    assert not is_one_action([AID, SHOOT, SHOOT], vehicle=False)


def test_only_the_activated_unit_acts():
    active = open_activation([Activated("a", attached_team_id="team")], in_play=IN_PLAY)
    check_acting_unit(None, "b", active_name="")
    check_acting_unit(active, "team", active_name="Squad A")
    with pytest.raises(RuleError) as refused:
        check_acting_unit(active, "b", active_name="Squad A")
    assert (refused.value.code, refused.value.field) == ("activation.other_unit_active", "unit_id")
    assert refused.value.message.startswith("Squad A is the unit activated (p.12)")


def test_a_unit_takes_one_action_in_its_activation():
    names = {"active_name": "Squad A", "unit_name": "Squad A"}
    check_unit_action(None, "b", SHOOT, vehicle=False, **names)
    active = open_activation([Activated("a"), Acted("a", SHOOT)], in_play=IN_PLAY)
    check_unit_action(active, "a", CALL, vehicle=False, **names)
    with pytest.raises(RuleError) as other:
        check_unit_action(active, "b", SHOOT, vehicle=False, **names)
    assert other.value.code == "activation.other_unit_active"
    with pytest.raises(RuleError) as taken:
        check_unit_action(active, "a", SHOOT, vehicle=False, **names)
    assert (taken.value.code, taken.value.field) == ("activation.action_taken", "unit_id")
    assert taken.value.message.startswith("Squad A has taken its action this activation (p.12)")


def test_the_command_response_test_is_the_activated_units_once():
    """p.25: the test is taken when "the unit activates"."""
    names = {"active_name": "Squad A", "unit_name": "Squad A"}
    check_command_response(None, "b", **names)
    active = open_activation([Activated("a")], in_play=IN_PLAY)
    check_command_response(active, "a", **names)
    with pytest.raises(RuleError) as other:
        check_command_response(active, "b", **names)
    assert other.value.code == "activation.other_unit_active"
    tested = open_activation([Activated("a"), ResponseTested("a")], in_play=IN_PLAY)
    with pytest.raises(RuleError) as again:
        check_command_response(tested, "a", **names)
    assert again.value.code == "activation.already_tested"
