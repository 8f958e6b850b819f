"""Tests for Stargrunt II close assault (P.41-43)."""

from __future__ import annotations

import itertools
from fractions import Fraction
from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Die, Roll, TableDice
from rules.errors import RuleError
from rules.sg2.close_assault import (
    AssaultUnit,
    CloseCombatWeapon,
    Fighter,
    Result,
    Side,
    assault_reaction_test,
    assault_threat_level,
    defender_stands,
    defensive_fire_threat_level,
    end_of_round,
    fight_round,
    fighter_die,
    first_to_test,
    follow_through_threat_level,
    odds_strength,
    pair_off,
    stand_threat_level,
)
from rules.sg2.scales import Confidence, Quality

CO, ST, SH, BR, RO = (
    Confidence.CONFIDENT,
    Confidence.STEADY,
    Confidence.SHAKEN,
    Confidence.BROKEN,
    Confidence.ROUTED,
)
W = CloseCombatWeapon


# --- initiating the assault (P.41, P.43) ------------------------------------------------------


@pytest.mark.parametrize(("confidence", "level"), [(CO, 0), (ST, 1), (SH, 3)])
def test_attacker_threat_level_by_confidence_p41(confidence: Confidence, level: int) -> None:
    assert assault_threat_level(confidence) == level
    # Clarifications 2.4: In Position adds +1; the house rule can be switched off.
    assert assault_threat_level(confidence, in_position=True) == level + 1
    assert (
        assault_threat_level(confidence, in_position=True, assault_from_in_position=False) == level
    )
    # P.43: once part of a combined assault has fallen back, +1.
    assert assault_threat_level(confidence, partner_fell_back=True) == level + 1


@pytest.mark.parametrize("confidence", [BR, RO])
def test_broken_and_routed_units_may_not_assault_p41(confidence: Confidence) -> None:
    with pytest.raises(RuleError) as error:
        assault_threat_level(confidence)
    assert error.value.code == "close_assault.may_not_assault"


def test_goodall_in_position_example() -> None:
    """Clarifications 2.4: a Regular LV 2 squad needs 3+ on its D8; In Position it needs 4+."""
    level = assault_threat_level(CO)
    passes = [
        assault_reaction_test(
            dice=TableDice([(Die.D8, face)]),
            quality=Quality.REGULAR,
            leadership=2,
            threat_level=level,
        ).passed
        for face in range(1, 9)
    ]
    assert passes.index(True) + 1 == 3
    level = assault_threat_level(CO, in_position=True)
    passes = [
        assault_reaction_test(
            dice=TableDice([(Die.D8, face)]),
            quality=Quality.REGULAR,
            leadership=2,
            threat_level=level,
        ).passed
        for face in range(1, 9)
    ]
    assert passes.index(True) + 1 == 4


def test_odds_examples_p41() -> None:
    """P.41: 6 against 4 is +1, 8 against 4 is +2, six power-armoured troopers against 4 is +3."""
    assert stand_threat_level(6, 4) == 1
    assert stand_threat_level(8, 4) == 2
    assert odds_strength([True] * 6) == 12
    assert stand_threat_level(odds_strength([True] * 6), odds_strength([False] * 4)) == 3
    # Fewer attackers than defenders is still "less than 2:1": +1. Terror doubles (P.43).
    assert stand_threat_level(2, 5) == 1
    assert stand_threat_level(8, 4, terror=True) == 4
    assert stand_threat_level(3, 2, terror=True) == 2


def test_odds_need_both_sides() -> None:
    with pytest.raises(RuleError):
        stand_threat_level(0, 2)
    with pytest.raises(RuleError):
        stand_threat_level(3, 0)


@given(st.integers(1, 60), st.integers(1, 60), st.booleans())
def test_stand_threat_level_space(attackers: int, defenders: int, terror: bool) -> None:
    level = stand_threat_level(attackers, defenders, terror=terror)
    base = level // 2 if terror else level
    assert base >= 1
    assert base == max(1, attackers // defenders)
    assert stand_threat_level(attackers + defenders, defenders, terror=terror) >= level


def test_defender_stands_or_withdraws_p41() -> None:
    # Regular LV 2 at +1 (3 against 2): D8 must beat 3.
    stood = defender_stands(
        dice=TableDice([(Die.D8, 4)]),
        quality=Quality.REGULAR,
        leadership=2,
        confidence=ST,
        threat_level=1,
    )
    assert stood.stands
    assert stood.confidence_after is ST
    assert len(stood.rolls) == 1
    failed = defender_stands(
        dice=TableDice([(Die.D8, 3)]),
        quality=Quality.REGULAR,
        leadership=2,
        confidence=ST,
        threat_level=1,
    )
    assert not failed.stands
    assert failed.confidence_after is SH
    assert not failed.voluntary
    badly = defender_stands(
        dice=TableDice([(Die.D8, 1)]),
        quality=Quality.REGULAR,
        leadership=2,
        confidence=ST,
        threat_level=1,
    )
    assert badly.confidence_after is BR


@pytest.mark.parametrize("confidence", [BR, RO])
def test_broken_defender_routs_without_a_test_p41(confidence: Confidence) -> None:
    outcome = defender_stands(
        dice=TableDice([]),
        quality=Quality.REGULAR,
        leadership=2,
        confidence=confidence,
        threat_level=1,
    )
    assert not outcome.stands
    assert outcome.confidence_after is RO
    assert outcome.rolls == ()
    assert outcome.test is None


def test_defender_may_withdraw_voluntarily_p41() -> None:
    outcome = defender_stands(
        dice=TableDice([]),
        quality=Quality.REGULAR,
        leadership=2,
        confidence=CO,
        threat_level=3,
        withdraw=True,
    )
    assert outcome.voluntary
    assert not outcome.stands
    assert outcome.confidence_after is CO


def test_stand_probability_by_enumeration() -> None:
    """Regular LV 2 at +2: the D8 must beat 4, 4 faces in 8."""
    stands = sum(
        defender_stands(
            dice=TableDice([(Die.D8, face)]),
            quality=Quality.REGULAR,
            leadership=2,
            confidence=CO,
            threat_level=2,
        ).stands
        for face in range(1, 9)
    )
    assert Fraction(stands, 8) == Fraction(1, 2)


def test_follow_through_and_defensive_fire_levels_p43() -> None:
    assert follow_through_threat_level(defenders_destroyed=True) == 1
    assert follow_through_threat_level(defenders_destroyed=False) == 2
    assert defensive_fire_threat_level(casualties=2) == 2
    with pytest.raises(RuleError):
        defensive_fire_threat_level(casualties=0)


# --- pairing off (P.41) -----------------------------------------------------------------------


def test_pairing_example_p41() -> None:
    """P.41: A-D are paired with W-Z, and the defender puts E on Y."""
    pairs = pair_off("ABCDE", "WXYZ", {"E": "Y"})
    assert pairs == (("A", "W"), ("B", "X"), ("C", "Y"), ("D", "Z"), ("E", "Y"))


def test_pairing_three_against_two_and_reversed() -> None:
    assert pair_off(["a1", "a2", "a3"], ["d1", "d2"]) == (
        ("a1", "d1"),
        ("a2", "d2"),
        ("a3", "d1"),
    )
    assert pair_off(["a1", "a2", "a3"], ["d1", "d2"], {"a3": "d2"})[2] == ("a3", "d2")
    # More defenders: the defender places first, the attacker places the spare.
    assert pair_off(["a1"], ["d1", "d2"]) == (("a1", "d1"), ("a1", "d2"))
    assert pair_off(["a1", "a2"], ["d1", "d2", "d3"], {"d3": "a2"}) == (
        ("a1", "d1"),
        ("a2", "d2"),
        ("a2", "d3"),
    )


@pytest.mark.parametrize(
    ("attackers", "defenders", "spares"),
    [
        ("AA", "W", None),
        ("A", "WW", None),
        ("", "W", None),
        ("A", "", None),
        ("AB", "W", {"A": "W"}),
        ("AB", "W", {"B": "Q"}),
    ],
)
def test_pairing_refusals(attackers: str, defenders: str, spares: dict[str, str] | None) -> None:
    with pytest.raises(RuleError):
        pair_off(list(attackers), list(defenders), spares)


@given(st.integers(1, 12), st.integers(1, 12), st.data())
def test_pairing_space(attackers: int, defenders: int, data: st.DataObject) -> None:
    a = [f"a{i}" for i in range(attackers)]
    d = [f"d{i}" for i in range(defenders)]
    larger, smaller = (a, d) if attackers >= defenders else (d, a)
    spares = {
        spare: data.draw(st.sampled_from(smaller))
        for spare in larger[len(smaller) :]
        if data.draw(st.booleans())
    }
    pairs = pair_off(a, d, spares)
    assert len(pairs) == max(attackers, defenders)
    side = 0 if larger is a else 1
    assert sorted(p[side] for p in pairs) == sorted(larger)
    assert {p[1 - side] for p in pairs} == set(smaller)
    for spare, opponent in spares.items():
        assert pairs[larger.index(spare)][1 - side] == opponent


# --- one round of close combat (P.41-42) ------------------------------------------------------


def test_fighter_die_open_shift_p41() -> None:
    assert fighter_die(Fighter("x", Quality.REGULAR)) == (Die.D8, 0)
    assert fighter_die(Fighter("x", Quality.REGULAR, W.SHOTGUN)) == (Die.D12, 0)
    assert fighter_die(Fighter("x", Quality.VETERAN, W.FLAME)) == (Die.D12, 1)
    assert fighter_die(Fighter("x", Quality.GREEN, W.EDGED), cover_shift=True) == (Die.D10, 0)
    assert fighter_die(Fighter("x", Quality.ELITE, W.FIREARM), cover_shift=True) == (Die.D12, 2)


def test_power_armour_example_p41() -> None:
    """P.41: two PA veterans (APW, flamer) against three regular light infantry (one shotgun).

    The shotgun fights the APW trooper alone; the other two take on the flamer, whose extra
    shift drops them to D6. They roll 3 and 5 against his 4 doubled to 8: both down. The shotgun
    rolls 10 on his D12 against the APW's 3 on a D10, doubled to 6: the PA trooper is down.
    """
    flamer = Fighter("flamer", Quality.VETERAN, W.FLAME, power_armour=True)
    apw = Fighter("apw", Quality.VETERAN, W.NONE, power_armour=True)
    shotgun = Fighter("shotgun", Quality.REGULAR, W.SHOTGUN)
    li1 = Fighter("li1", Quality.REGULAR)
    li2 = Fighter("li2", Quality.REGULAR)
    pairs = pair_off(["apw", "flamer"], ["shotgun", "li1", "li2"], {"li2": "flamer"})
    assert pairs == (("apw", "shotgun"), ("flamer", "li1"), ("flamer", "li2"))
    dice = TableDice([(Die.D10, 3), (Die.D12, 10), (Die.D12, 4), (Die.D6, 3), (Die.D6, 5)])
    outcome = fight_round(
        dice=dice,
        attackers=[apw, flamer],
        defenders=[shotgun, li1, li2],
        pairs=pairs,
        first_round=True,
        defenders_in_cover=False,
    )
    dice.ensure_all_used()
    assert outcome.attackers_down == ("apw",)
    assert outcome.defenders_down == ("li1", "li2")
    first, second = outcome.fights
    assert first.lone_id == "apw"
    assert first.lone_side is Side.ATTACKER
    assert first.comparisons[0].lone_score == 6
    assert first.comparisons[0].opponent_score == 10
    assert second.lone_id == "flamer"
    assert second.lone_die is Die.D12
    assert [c.opponent_die for c in second.comparisons] == [Die.D6, Die.D6]
    assert [c.lone_score for c in second.comparisons] == [8, 8]
    assert [r.purpose for r in outcome.rolls] == [
        "close combat apw",
        "close combat shotgun against apw",
        "close combat flamer",
        "close combat li1 against flamer",
        "close combat li2 against flamer",
    ]


class _Recorder:
    """Rolls ones, and records the dice asked for."""

    def __init__(self) -> None:
        self.dice: list[Die] = []

    def roll(self, die: Die, purpose: str) -> Roll:
        self.dice.append(die)
        return Roll(die, 1, purpose)


def _one_on_one(attacker: Fighter, defender: Fighter, *, cover: bool) -> tuple[Die, Die]:
    """The two dice of a one-on-one first round."""
    recorder = _Recorder()
    fight_round(
        dice=recorder,
        attackers=[attacker],
        defenders=[defender],
        pairs=[(attacker.id, defender.id)],
        first_round=True,
        defenders_in_cover=cover,
    )
    a_die, d_die = recorder.dice
    return a_die, d_die


@pytest.mark.parametrize(
    ("attacker", "defender", "cover", "p_attacker_wins", "p_tie"),
    [
        # D8 against D8: 28 of 64 win, 8 tie.
        (Fighter("a", Quality.REGULAR), Fighter("d", Quality.REGULAR), False, (28, 64), (8, 64)),
        # D8 against a D10 in cover, first round: 28 of 80 win, 8 tie.
        (Fighter("a", Quality.REGULAR), Fighter("d", Quality.REGULAR), True, (28, 80), (8, 80)),
        # Veteran in power armour (D10, doubled) against a shotgun (D12): enumerated by hand
        # below, compared with the round.
        (
            Fighter("a", Quality.VETERAN, power_armour=True),
            Fighter("d", Quality.REGULAR, W.SHOTGUN),
            False,
            None,
            None,
        ),
        # An elite with a flamer pushes three steps past a D12 against a green: the green drops
        # from D6 to D4 (clamped).
        (
            Fighter("a", Quality.ELITE, W.FLAME),
            Fighter("d", Quality.GREEN),
            True,
            None,
            None,
        ),
    ],
)
def test_one_on_one_probabilities_by_enumeration(
    attacker: Fighter,
    defender: Fighter,
    cover: bool,
    p_attacker_wins: tuple[int, int] | None,
    p_tie: tuple[int, int] | None,
) -> None:
    a_die, d_die = _one_on_one(attacker, defender, cover=cover)
    wins = ties = 0
    expected_wins = expected_ties = 0
    for a, d in itertools.product(range(1, a_die + 1), range(1, d_die + 1)):
        outcome = fight_round(
            dice=TableDice([(a_die, a), (d_die, d)]),
            attackers=[attacker],
            defenders=[defender],
            pairs=[(attacker.id, defender.id)],
            first_round=True,
            defenders_in_cover=cover,
        )
        wins += outcome.defenders_down == ("d",)
        ties += not outcome.defenders_down and not outcome.attackers_down
        a_score = a * (2 if attacker.power_armour else 1)
        d_score = d * (2 if defender.power_armour else 1)
        expected_wins += a_score > d_score
        expected_ties += a_score == d_score
    total = a_die * d_die
    assert (wins, ties) == (expected_wins, expected_ties)
    if p_attacker_wins is not None and p_tie is not None:
        assert Fraction(wins, total) == Fraction(*p_attacker_wins)
        assert Fraction(ties, total) == Fraction(*p_tie)
    if attacker.power_armour:
        # D10 doubled against D12: 2a > d.
        assert (a_die, d_die) == (Die.D10, Die.D12)
        assert Fraction(wins, total) == Fraction(
            sum(2 * a > d for a in range(1, 11) for d in range(1, 13)), 120
        )
    if attacker.weapon is W.FLAME:
        assert (a_die, d_die) == (Die.D12, Die.D4)


def test_cover_shift_only_in_the_first_round_p41() -> None:
    a, d = Fighter("a", Quality.REGULAR), Fighter("d", Quality.REGULAR)
    first = TableDice([(Die.D8, 2), (Die.D10, 9)])
    fight_round(
        dice=first,
        attackers=[a],
        defenders=[d],
        pairs=[("a", "d")],
        first_round=True,
        defenders_in_cover=True,
    )
    later = TableDice([(Die.D8, 2), (Die.D8, 8)])
    outcome = fight_round(
        dice=later,
        attackers=[a],
        defenders=[d],
        pairs=[("a", "d")],
        first_round=False,
        defenders_in_cover=True,
    )
    assert outcome.attackers_down == ("a",)


def test_lone_attacker_against_two_defenders_with_cover() -> None:
    """Reversed pairing: the lone attacker rolls once against both defenders, who have the
    first round's cover shift; a defender's excess lowers the attacker's one die."""
    a = Fighter("a", Quality.REGULAR)
    d1 = Fighter("d1", Quality.VETERAN, W.SHOTGUN)  # D10 +2 +1 cover: D12, two steps over
    d2 = Fighter("d2", Quality.REGULAR)  # D8 +1 cover: D10
    dice = TableDice([(Die.D4, 4), (Die.D12, 4), (Die.D10, 3)])
    outcome = fight_round(
        dice=dice,
        attackers=[a],
        defenders=[d1, d2],
        pairs=[("a", "d1"), ("a", "d2")],
        first_round=True,
        defenders_in_cover=True,
    )
    assert outcome.fights[0].lone_die is Die.D4
    assert outcome.defenders_down == ("d2",)
    assert outcome.attackers_down == ()
    assert outcome.fights[0].comparisons[0].down is None


@pytest.mark.parametrize(
    "pairs",
    [
        [("x", "d1")],
        [("a1", "x")],
        [("a1", "d1"), ("a1", "d1"), ("a2", "d2")],
        [("a1", "d1"), ("a2", "d1"), ("a2", "d2")],
        [("a1", "d1")],
    ],
)
def test_round_refuses_bad_pairs(pairs: list[tuple[str, str]]) -> None:
    a = [Fighter("a1", Quality.REGULAR), Fighter("a2", Quality.REGULAR)]
    d = [Fighter("d1", Quality.REGULAR), Fighter("d2", Quality.REGULAR)]
    with pytest.raises(RuleError):
        fight_round(
            dice=TableDice([]),
            attackers=a,
            defenders=d,
            pairs=pairs,
            first_round=True,
            defenders_in_cover=False,
        )


def test_round_refuses_a_figure_on_both_sides() -> None:
    with pytest.raises(RuleError):
        fight_round(
            dice=TableDice([]),
            attackers=[Fighter("x", Quality.REGULAR)],
            defenders=[Fighter("x", Quality.REGULAR)],
            pairs=[("x", "x")],
            first_round=True,
            defenders_in_cover=False,
        )


_QUALITIES = st.sampled_from(list(Quality))
_WEAPONS = st.sampled_from(list(CloseCombatWeapon))


@given(
    st.lists(st.tuples(_QUALITIES, _WEAPONS, st.booleans()), min_size=1, max_size=6),
    st.lists(st.tuples(_QUALITIES, _WEAPONS, st.booleans()), min_size=1, max_size=6),
    st.booleans(),
    st.booleans(),
    st.randoms(use_true_random=False),
)
def test_round_space(
    attackers_spec: list[tuple[Quality, CloseCombatWeapon, bool]],
    defenders_spec: list[tuple[Quality, CloseCombatWeapon, bool]],
    first_round: bool,
    cover: bool,
    random: Random,
) -> None:
    """Every pair is compared once; every fight leaves someone standing; the dice are valid."""
    attackers = [Fighter(f"a{i}", *spec) for i, spec in enumerate(attackers_spec)]
    defenders = [Fighter(f"d{i}", *spec) for i, spec in enumerate(defenders_spec)]
    pairs = pair_off([f.id for f in attackers], [f.id for f in defenders])

    class Dice:
        def roll(self, die: Die, purpose: str) -> Roll:
            return Roll(die, random.randint(1, die.value), purpose)

    outcome = fight_round(
        dice=Dice(),
        attackers=attackers,
        defenders=defenders,
        pairs=pairs,
        first_round=first_round,
        defenders_in_cover=cover,
    )
    assert sum(len(f.comparisons) for f in outcome.fights) == len(pairs)
    assert len(outcome.rolls) == len(pairs) + len(outcome.fights)
    down = set(outcome.attackers_down) | set(outcome.defenders_down)
    for fight in outcome.fights:
        standing = {fight.lone_id, *(c.opponent_id for c in fight.comparisons)} - down
        assert standing
    assert len(outcome.attackers_down) < len(attackers) or len(outcome.defenders_down) < len(
        defenders
    )


# --- ending the round (P.42-43) ---------------------------------------------------------------


def _unit(uid: str, standing: int = 1, confidence: Confidence = CO) -> AssaultUnit:
    return AssaultUnit(uid, Quality.REGULAR, 2, confidence, standing)


def test_first_to_test_p42() -> None:
    assert first_to_test(attacker_casualties=2, defender_casualties=1) is Side.ATTACKER
    assert first_to_test(attacker_casualties=1, defender_casualties=1) is Side.DEFENDER
    assert first_to_test(attacker_casualties=0, defender_casualties=2) is Side.DEFENDER


def test_destroyed_side_loses_without_a_test() -> None:
    won = end_of_round(
        dice=TableDice([]),
        attackers=[_unit("a")],
        defender=_unit("d", 0),
        attacker_casualties=1,
        defender_casualties=2,
    )
    assert won.result is Result.ATTACKER_WON
    assert won.rolls == ()
    assert won.first_to_test is None
    lost = end_of_round(
        dice=TableDice([]),
        attackers=[_unit("a", 0), _unit("b", 0)],
        defender=_unit("d"),
        attacker_casualties=3,
        defender_casualties=0,
    )
    assert lost.result is Result.DEFENDER_WON


def test_defender_tests_first_on_a_tie_and_fails_p42() -> None:
    # One casualty each: the defender tests at +1, target 3; a 3 fails.
    outcome = end_of_round(
        dice=TableDice([(Die.D8, 3)]),
        attackers=[_unit("a")],
        defender=_unit("d"),
        attacker_casualties=1,
        defender_casualties=1,
    )
    assert outcome.result is Result.ATTACKER_WON
    assert outcome.first_to_test is Side.DEFENDER
    assert outcome.fell_back == ("d",)
    assert outcome.tests[0].threat_level == 1
    assert outcome.tests[0].test.confidence_after is ST


def test_attacker_with_more_casualties_fails_p42() -> None:
    outcome = end_of_round(
        dice=TableDice([(Die.D8, 4)]),
        attackers=[_unit("a")],
        defender=_unit("d"),
        attacker_casualties=2,
        defender_casualties=1,
    )
    assert outcome.result is Result.DEFENDER_WON
    assert outcome.first_to_test is Side.ATTACKER
    assert outcome.tests[0].threat_level == 2


def test_both_pass_another_round_then_second_fails_p42() -> None:
    dice = TableDice([(Die.D8, 8), (Die.D8, 8)])
    outcome = end_of_round(
        dice=dice,
        attackers=[_unit("a")],
        defender=_unit("d"),
        attacker_casualties=0,
        defender_casualties=2,
    )
    assert outcome.result is Result.ANOTHER_ROUND
    assert [t.threat_level for t in outcome.tests] == [2, 0]
    second_fails = end_of_round(
        dice=TableDice([(Die.D8, 8), (Die.D8, 2)]),
        attackers=[_unit("a")],
        defender=_unit("d"),
        attacker_casualties=0,
        defender_casualties=2,
    )
    assert second_fails.result is Result.DEFENDER_WON


def test_combined_assault_p43() -> None:
    """Two attacking units test separately; one falls back; the other goes on at +1."""
    dice = TableDice([(Die.D8, 3), (Die.D8, 6), (Die.D8, 8)])
    outcome = end_of_round(
        dice=dice,
        attackers=[_unit("a"), _unit("b"), _unit("c", 0)],
        defender=_unit("d"),
        attacker_casualties=2,
        defender_casualties=1,
    )
    assert outcome.result is Result.ANOTHER_ROUND
    assert outcome.fell_back == ("a",)
    # Attackers at +2 (target 4): a fails with 3, b passes with 6; the defender at +1.
    assert [(t.unit_id, t.threat_level) for t in outcome.tests] == [("a", 2), ("b", 2), ("d", 1)]
    broke_off = end_of_round(
        dice=TableDice([(Die.D8, 3), (Die.D8, 6)]),
        attackers=[_unit("a"), _unit("b")],
        defender=_unit("d"),
        attacker_casualties=2,
        defender_casualties=1,
        continue_after_partial=False,
    )
    assert broke_off.result is Result.DEFENDER_WON
    # Later tests in the same assault carry the +1.
    later = end_of_round(
        dice=TableDice([(Die.D8, 8), (Die.D8, 8)]),
        attackers=[_unit("b")],
        defender=_unit("d"),
        attacker_casualties=1,
        defender_casualties=1,
        partner_fell_back=True,
    )
    assert [t.threat_level for t in later.tests] == [1, 2]


def test_negative_casualties_refused() -> None:
    with pytest.raises(RuleError):
        end_of_round(
            dice=TableDice([]),
            attackers=[_unit("a")],
            defender=_unit("d"),
            attacker_casualties=-1,
            defender_casualties=0,
        )


def test_end_of_round_probabilities_by_enumeration() -> None:
    """Defender (2 casualties, target 4) then attacker (0, target 2) on D8s: another round
    4/8 x 6/8; the attacker wins 4/8; the defender wins 4/8 x 2/8."""
    counts = dict.fromkeys(Result, 0)
    for d, a in itertools.product(range(1, 9), repeat=2):
        outcome = end_of_round(
            dice=TableDice([(Die.D8, d), (Die.D8, a)]),
            attackers=[_unit("a")],
            defender=_unit("d"),
            attacker_casualties=0,
            defender_casualties=2,
        )
        counts[outcome.result] += 1
    assert Fraction(counts[Result.ANOTHER_ROUND], 64) == Fraction(4, 8) * Fraction(6, 8)
    assert Fraction(counts[Result.ATTACKER_WON], 64) == Fraction(4, 8)
    assert Fraction(counts[Result.DEFENDER_WON], 64) == Fraction(4, 8) * Fraction(2, 8)


@given(
    st.integers(0, 10),
    st.integers(0, 10),
    st.lists(st.integers(0, 3), min_size=1, max_size=3),
    st.integers(0, 3),
    st.booleans(),
    st.booleans(),
)
def test_end_of_round_space(
    a_cas: int, d_cas: int, standing: list[int], d_standing: int, partner: bool, go_on: bool
) -> None:
    class Max:
        def roll(self, die: Die, purpose: str) -> Roll:
            return Roll(die, die.value, purpose)

    outcome = end_of_round(
        dice=Max(),
        attackers=[_unit(f"a{i}", s) for i, s in enumerate(standing)],
        defender=_unit("d", d_standing),
        attacker_casualties=a_cas,
        defender_casualties=d_cas,
        partner_fell_back=partner,
        continue_after_partial=go_on,
    )
    if d_standing == 0:
        assert outcome.result is Result.ATTACKER_WON
    elif not any(standing):
        assert outcome.result is Result.DEFENDER_WON
    for test in outcome.tests:
        casualties = a_cas if test.side is Side.ATTACKER else d_cas
        assert test.threat_level == casualties + (partner and test.side is Side.ATTACKER)
        # A D8 showing 8 passes while LV 2 + TL is under 8.
        assert test.falls_back == (2 + test.threat_level >= 8)
    assert len(outcome.rolls) == len(outcome.tests)
