"""Tests for rules.dice: table and seeded dice, die-type shifts and the three kinds of roll."""

from __future__ import annotations

import hashlib
import hmac
import itertools
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import (
    DIE_LADDER,
    DiceError,
    DiceNeed,
    Die,
    EnteredDie,
    KeyedDice,
    KeyedFace,
    OpenShift,
    OpposedOutcome,
    PromptDice,
    Roll,
    RollSource,
    SeededDice,
    TableDice,
    beats_target,
    check_face,
    face_from_words,
    multiple_opposed,
    open_shift_die,
    roll_moot,
    rolling_for,
    seed_commitment,
    seeded_face,
    seeded_words,
    shift_die,
    smallest_die_at_least,
    unbiased_word_limit,
    wins_opposed,
)

SPAN = 2**64
dice_types = st.sampled_from(list(Die))


def reference_face(seed: bytes, namespace: str, counter: int, faces: int) -> int:
    """The derivation as first published, written out independently of the module."""
    limit = SPAN - SPAN % faces
    attempt = 0
    while True:
        digest = hmac.new(seed, f"{namespace}:{counter}:{attempt}".encode(), "sha256").digest()
        for i in range(4):
            word = int.from_bytes(digest[8 * i : 8 * i + 8], "big")
            if word < limit:
                return word % faces + 1
        attempt += 1


# --- Die ---------------------------------------------------------------------------------------


def test_die_labels_name_the_faces():
    assert [die.label for die in Die] == ["d4", "d6", "d8", "d10", "d12"]


def test_the_ladder_runs_d4_to_d12_in_order():
    assert DIE_LADDER == (Die.D4, Die.D6, Die.D8, Die.D10, Die.D12)


# --- TableDice ---------------------------------------------------------------------------------


def test_table_dice_replay_entered_faces_in_order():
    dice = TableDice([3, (Die.D8, 8), EnteredDie(result=1, die=Die.D4)])
    first = dice.roll(Die.D6, "first")
    assert first == Roll(die=Die.D6, result=3, purpose="first", source=RollSource.TABLE)
    assert dice.roll(Die.D8, "second").result == 8
    assert dice.roll(Die.D4, "third").result == 1
    assert dice.used == 3
    assert dice.remaining == 0
    dice.ensure_all_used()


def test_table_dice_accept_a_die_type_given_as_its_number_of_faces():
    dice = TableDice([(10, 10)])
    assert dice.roll(Die.D10, "check").result == 10


def test_a_seven_on_a_d6_is_impossible():
    dice = TableDice([3, 7])
    dice.roll(Die.D6, "a")
    with pytest.raises(DiceError) as caught:
        dice.roll(Die.D6, "b")
    assert caught.value.code == "dice.impossible"
    assert caught.value.index == 1


def test_a_seven_entered_as_a_d6_is_refused_on_entry_with_its_position():
    with pytest.raises(DiceError) as caught:
        TableDice([1, (Die.D6, 7)])
    assert caught.value.code == "dice.impossible"
    assert caught.value.index == 1


def test_a_seven_without_a_die_type_is_refused_when_a_d6_is_asked_for():
    dice = TableDice([7])
    with pytest.raises(DiceError) as caught:
        dice.roll(Die.D6, "confidence test")
    assert caught.value.code == "dice.impossible"
    assert caught.value.index == 0
    assert dice.used == 0


@pytest.mark.parametrize("face", [0, -1, 13])
def test_faces_outside_the_die_are_impossible(face):
    with pytest.raises(DiceError, match="impossible"):
        check_face(Die.D12, face)


@pytest.mark.parametrize("face", [True, False, 2.0, "3", None])
def test_a_face_must_be_a_plain_integer(face):
    with pytest.raises(DiceError) as caught:
        check_face(Die.D6, face)
    assert caught.value.code == "dice.impossible"


def test_a_bool_entered_as_a_face_is_refused():
    with pytest.raises(DiceError):
        TableDice([True]).roll(Die.D6, "x")


def test_a_die_of_the_wrong_type_is_refused():
    dice = TableDice([(Die.D8, 5)])
    with pytest.raises(DiceError) as caught:
        dice.roll(Die.D6, "reaction test")
    assert caught.value.code == "dice.wrong_die"
    assert "should be a d6" in caught.value.message


@pytest.mark.parametrize("faces", [7, 20, 0, 100])
def test_unknown_die_types_are_refused(faces):
    with pytest.raises(DiceError) as caught:
        TableDice([(faces, 1)])
    assert caught.value.code == "dice.unknown_die"
    assert f"d{faces}" in str(caught.value)


def test_running_out_of_dice_is_an_error_naming_the_count():
    dice = TableDice([4])
    dice.roll(Die.D6, "first")
    with pytest.raises(DiceError) as caught:
        dice.roll(Die.D6, "second")
    assert caught.value.code == "dice.missing"
    assert "only 1 die was entered" in caught.value.message
    two = TableDice([1, 2])
    two.roll(Die.D4, "x")
    two.roll(Die.D4, "y")
    with pytest.raises(DiceError, match="only 2 dice were entered"):
        two.roll(Die.D4, "z")


def test_dice_left_unused_are_an_error():
    dice = TableDice([1, 2, 3])
    dice.roll(Die.D4, "only one needed")
    with pytest.raises(DiceError) as caught:
        dice.ensure_all_used()
    assert caught.value.code == "dice.unused"
    assert caught.value.index == 1
    assert "2 entered dice were not needed" in caught.value.message


def test_one_die_left_unused_is_reported_in_the_singular():
    with pytest.raises(DiceError, match="1 entered die was not needed"):
        TableDice([1]).ensure_all_used()


# --- seeded dice -------------------------------------------------------------------------------


def test_a_seeded_roller_needs_a_seed():
    with pytest.raises(ValueError, match="non-empty seed"):
        SeededDice(b"", "job")


def test_seeded_dice_count_their_rolls_and_record_the_counter():
    dice = SeededDice(b"muster", "job-1", start=5)
    roll = dice.roll(Die.D10, "fire")
    assert roll.counter == 5
    assert roll.source is RollSource.SERVER
    assert roll.result == seeded_face(b"muster", "job-1", 5, 10)
    assert dice.counter == 6


@given(
    seed=st.binary(min_size=1, max_size=16),
    namespace=st.text(max_size=12),
    counter=st.integers(min_value=0, max_value=10**9),
    die=dice_types,
)
def test_the_same_seed_namespace_and_counter_give_the_same_face(seed, namespace, counter, die):
    first = SeededDice(seed, namespace, start=counter).roll(die, "a")
    again = SeededDice(seed, namespace, start=counter).roll(die, "something else")
    assert first.result == again.result
    assert 1 <= first.result <= die.value


@given(
    seed=st.binary(min_size=1, max_size=16),
    namespace=st.text(max_size=12),
    counter=st.integers(min_value=0, max_value=10**6),
    faces=st.integers(min_value=1, max_value=10**6),
)
def test_the_derivation_has_not_changed(seed, namespace, counter, faces):
    assert seeded_face(seed, namespace, counter, faces) == reference_face(
        seed, namespace, counter, faces
    )


def test_different_namespaces_give_independent_streams():
    # Both namespaces draw from the same seed; their first 24 d12 faces must not coincide.
    a = [seeded_face(b"muster", "job-1", n, 12) for n in range(24)]
    b = [seeded_face(b"muster", "job-2", n, 12) for n in range(24)]
    assert a != b
    assert sum(x == y for x, y in zip(a, b, strict=True)) < 12


@pytest.mark.parametrize(
    ("seed", "namespace", "faces", "expected"),
    [
        (b"muster", "job-1", 4, [4, 3, 1, 3, 3, 2, 4, 2]),
        (b"muster", "job-1", 6, [2, 3, 1, 5, 5, 2, 6, 6]),
        (b"muster", "job-1", 8, [4, 3, 5, 3, 7, 6, 8, 2]),
        (b"muster", "job-1", 10, [10, 5, 7, 7, 9, 10, 2, 8]),
        (b"muster", "job-1", 12, [8, 3, 1, 11, 11, 2, 12, 6]),
        (b"\x00" * 32, "battle:7", 6, [6, 3, 5, 2, 2, 1, 4, 5]),
        (b"\x00" * 32, "battle:7", 12, [12, 9, 11, 8, 8, 1, 4, 11]),
        (b"campaign seed", "", 10, [3, 10, 1, 3, 1, 8, 6, 4]),
    ],
)
def test_known_answer_vectors(seed, namespace, faces, expected):
    assert [seeded_face(seed, namespace, n, faces) for n in range(8)] == expected


def test_seeded_words_read_each_attempt_as_four_big_endian_words():
    words = list(itertools.islice(seeded_words(b"k", "ns", 3), 8))
    for attempt in (0, 1):
        digest = hmac.new(b"k", f"ns:3:{attempt}".encode(), hashlib.sha256).digest()
        expected = [int.from_bytes(digest[i : i + 8], "big") for i in range(0, 32, 8)]
        assert words[4 * attempt : 4 * attempt + 4] == expected


def test_seed_commitment_is_the_sha256_of_the_seed():
    assert (
        seed_commitment(b"muster")
        == "74cd18c016d902f940554dfd07545f219064b27fe6e890e9447f0c9e377903a8"
    )
    assert seed_commitment(b"x") == hashlib.sha256(b"x").hexdigest()


# --- word to face ------------------------------------------------------------------------------


def test_words_at_or_above_the_limit_are_skipped():
    limit = unbiased_word_limit(6)
    assert limit == SPAN - 4  # 2**64 leaves 4 over a multiple of 6
    assert face_from_words([limit, SPAN - 1, limit + 2, 13], 6) == 13 % 6 + 1


def test_the_rejection_path_carries_on_into_the_next_attempt():
    limit = unbiased_word_limit(10)
    four_rejected = [limit] * 4
    assert face_from_words(iter([*four_rejected, 0]), 10) == 1


def test_the_last_usable_word_is_one_below_the_limit():
    for die in Die:
        limit = unbiased_word_limit(die.value)
        assert face_from_words([limit - 1], die.value) == die.value


def test_running_out_of_words_is_an_error():
    with pytest.raises(ValueError, match="No word below"):
        face_from_words([SPAN - 1], 12)


@pytest.mark.parametrize("word", [-1, SPAN, True, 1.5])
def test_words_outside_64_bits_are_refused(word):
    with pytest.raises(ValueError, match="2\\*\\*64 - 1"):
        face_from_words([word], 6)


@pytest.mark.parametrize("faces", [0, -3, True, SPAN + 1, 2.0])
def test_a_die_needs_a_sensible_number_of_faces(faces):
    with pytest.raises(ValueError, match="faces"):
        unbiased_word_limit(faces)


@pytest.mark.parametrize(
    ("faces", "spare"),
    # 2**64 mod n, worked out by hand from 2**64 = 18446744073709551616.
    [(4, 0), (6, 4), (8, 0), (10, 6), (12, 4)],
)
def test_every_face_gets_exactly_limit_over_faces_words(faces, spare):
    limit = unbiased_word_limit(faces)
    assert limit == SPAN - spare
    assert limit % faces == 0
    # Words below the limit are 0..limit-1; face f takes the words w with w % faces == f - 1,
    # of which there are exactly limit / faces since limit is a multiple of faces.
    per_face = {face: len(range(face - 1, limit, faces)) for face in range(1, faces + 1)}
    assert set(per_face.values()) == {limit // faces}
    # The mapping itself, checked on one full block of words and on the block just below the
    # limit: each face appears once per block.
    for start in (0, limit - faces):
        block = [face_from_words([w], faces) for w in range(start, start + faces)]
        assert sorted(block) == list(range(1, faces + 1))


# --- die-type shifts (SG2 P.6) -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("die", "steps", "expected"),
    [
        (Die.D6, 1, Die.D8),  # P.6: "a D6 ... a D8 is rolled instead"
        (Die.D6, -1, Die.D4),  # P.6: "a D6 drops to a D4"
        (Die.D8, 0, Die.D8),
        (Die.D4, 4, Die.D12),
        (Die.D10, 1, Die.D12),
        (Die.D10, 3, Die.D12),
        (Die.D12, 1, Die.D12),
        (Die.D6, -3, Die.D4),
        (Die.D12, -4, Die.D4),
    ],
)
def test_a_closed_shift_moves_along_the_ladder_and_ignores_excess(die, steps, expected):
    assert shift_die(die, steps) is expected


@given(die=dice_types, steps=st.integers(min_value=-20, max_value=20))
def test_a_closed_shift_never_leaves_d4_to_d12_and_is_monotonic(die, steps):
    result = shift_die(die, steps)
    assert Die.D4 <= result <= Die.D12
    assert shift_die(die, steps + 1) >= result


@pytest.mark.parametrize("steps", [1.0, "1", True, None])
def test_a_shift_is_a_whole_number_of_steps(steps):
    with pytest.raises(ValueError, match="whole number of steps"):
        shift_die(Die.D8, steps)


def test_shifting_an_unknown_die_is_refused():
    with pytest.raises(DiceError):
        shift_die(7, 1)  # type: ignore[arg-type]  # the wrong type on purpose


@pytest.mark.parametrize(
    ("die", "steps", "opponent", "expected"),
    [
        (Die.D8, 1, Die.D8, OpenShift(Die.D10, Die.D8)),
        (Die.D12, 1, Die.D10, OpenShift(Die.D12, Die.D8)),  # one above D12: opponent down one
        (Die.D10, 3, Die.D10, OpenShift(Die.D12, Die.D6)),  # two excess steps
        (Die.D4, -1, Die.D8, OpenShift(Die.D4, Die.D10)),  # below D4: opponent up one
        (Die.D6, -3, Die.D6, OpenShift(Die.D4, Die.D10)),
        (Die.D12, 3, Die.D6, OpenShift(Die.D12, Die.D4, lost_steps=2)),
        (Die.D4, -2, Die.D12, OpenShift(Die.D4, Die.D12, lost_steps=2)),
        (Die.D8, 0, Die.D4, OpenShift(Die.D8, Die.D4)),
    ],
)
def test_an_open_shift_passes_excess_steps_to_the_opponent(die, steps, opponent, expected):
    assert open_shift_die(die, steps, opponent_die=opponent) == expected


@given(die=dice_types, opponent=dice_types, steps=st.integers(min_value=-12, max_value=12))
def test_an_open_shift_accounts_for_every_step(die, opponent, steps):
    result = open_shift_die(die, steps, opponent_die=opponent)
    own = DIE_LADDER.index(result.die) - DIE_LADDER.index(die)
    passed = DIE_LADDER.index(opponent) - DIE_LADDER.index(result.opponent_die)
    assert own + passed + (result.lost_steps if steps > 0 else -result.lost_steps) == steps
    if 0 <= DIE_LADDER.index(die) + steps <= 4:
        assert result.opponent_die is opponent
        assert result.lost_steps == 0


def test_an_open_shift_matches_a_closed_one_while_on_the_ladder():
    for die, steps in itertools.product(Die, range(-4, 5)):
        index = DIE_LADDER.index(die) + steps
        if 0 <= index <= 4:
            assert open_shift_die(die, steps, opponent_die=Die.D8).die is shift_die(die, steps)


# --- nearest die at or above N -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        (1, Die.D4),
        (2, Die.D4),
        (3, Die.D4),
        (4, Die.D4),
        (5, Die.D6),  # Goodall: 5 figures -> D6
        (6, Die.D6),  # P.60 example: six remaining members -> D6
        (7, Die.D8),
        (8, Die.D8),
        (9, Die.D10),
        (10, Die.D10),
        (11, Die.D12),
        (12, Die.D12),
    ],
)
def test_the_smallest_die_with_enough_faces(count, expected):
    assert smallest_die_at_least(count) is expected


def test_above_twelve_there_is_no_die_unless_capped_at_d12():
    with pytest.raises(ValueError, match="largest is a d12"):
        smallest_die_at_least(13)
    assert smallest_die_at_least(13, cap_at_d12=True) is Die.D12
    assert smallest_die_at_least(40, cap_at_d12=True) is Die.D12


@pytest.mark.parametrize("count", [0, -1, True, 2.5])
def test_a_count_must_be_at_least_one(count):
    with pytest.raises(ValueError, match="at least 1"):
        smallest_die_at_least(count)


# --- roll types (SG2 P.6) ----------------------------------------------------------------------


def test_p6_example_regular_lv2_fails_on_1_or_2_and_passes_on_3_or_more():
    assert [beats_target(face, 2) for face in range(1, 9)] == [False, False] + [True] * 6


def test_a_roll_against_a_target_must_exceed_it():
    roll = Roll(die=Die.D8, result=5, purpose="test")
    assert beats_target(roll, 4)
    assert not beats_target(roll, 5)


def test_a_single_opposed_roll_fails_on_a_tie():
    assert wins_opposed(5, 4)
    assert not wins_opposed(4, 4)
    assert not wins_opposed(Roll(die=Die.D6, result=3, purpose="a"), 6)


@pytest.mark.parametrize("score", ["3", 2.0, True, None])
def test_scores_must_be_rolls_or_integers(score):
    with pytest.raises(ValueError, match="roll or a whole number"):
        beats_target(score, 2)


def test_exact_probability_of_a_d8_beating_target_two_is_three_quarters():
    wins = sum(beats_target(face, 2) for face in range(1, 9))
    assert Fraction(wins, 8) == Fraction(3, 4)


def test_exact_probability_of_a_d10_beating_a_d6_in_a_single_opposed_roll():
    # Ties and losses: for each d6 face f, the d10 must show f+1..10, i.e. 10 - f faces.
    # Sum over f = 1..6 of (10 - f) = 39 out of 60.
    wins = sum(wins_opposed(a, b) for a, b in itertools.product(range(1, 11), range(1, 7)))
    assert Fraction(wins, 60) == Fraction(13, 20)


@pytest.mark.parametrize(
    ("rolls", "opponent", "expected"),
    [
        ((1, 2), 3, OpposedOutcome.FAILURE),
        ((3, 3), 3, OpposedOutcome.FAILURE),  # equal is a failure
        ((4, 3), 3, OpposedOutcome.MINOR_SUCCESS),
        ((4, 5), 3, OpposedOutcome.MAJOR_SUCCESS),
        ((4, 5, 6), 3, OpposedOutcome.MAJOR_SUCCESS),
        ((1, 1, 6), 3, OpposedOutcome.MINOR_SUCCESS),
    ],
)
def test_a_multiple_opposed_roll_counts_dice_beating_the_opponent(rolls, opponent, expected):
    assert multiple_opposed(rolls, opponent) is expected


def test_a_multiple_opposed_roll_accepts_rolls():
    rolls = [
        Roll(die=Die.D8, result=7, purpose="quality"),
        Roll(die=Die.D6, result=2, purpose="fp"),
    ]
    assert multiple_opposed(rolls, Roll(die=Die.D6, result=2, purpose="range")) is (
        OpposedOutcome.MINOR_SUCCESS
    )


@pytest.mark.parametrize("rolls", [(), (6,)])
def test_a_multiple_opposed_roll_needs_two_dice(rolls):
    with pytest.raises(ValueError, match="at least two dice"):
        multiple_opposed(rolls, 1)


def test_exact_probabilities_of_two_d6_against_a_d6():
    # Against opponent face f an actor d6 beats it on k = 6 - f faces and fails on f faces, so
    # failure f^2, minor 2kf, major k^2. Summed over f = 1..6: failure 1+4+9+16+25+36 = 91;
    # minor 2(5+8+9+8+5+0) = 70; major 25+16+9+4+1+0 = 55; of 216.
    counts = dict.fromkeys(OpposedOutcome, 0)
    for a, b, opponent in itertools.product(range(1, 7), repeat=3):
        counts[multiple_opposed((a, b), opponent)] += 1
    assert Fraction(counts[OpposedOutcome.FAILURE], 216) == Fraction(91, 216)
    assert Fraction(counts[OpposedOutcome.MINOR_SUCCESS], 216) == Fraction(35, 108)
    assert Fraction(counts[OpposedOutcome.MAJOR_SUCCESS], 216) == Fraction(55, 216)


@given(
    rolls=st.lists(st.integers(min_value=1, max_value=12), min_size=2, max_size=5),
    opponent=st.integers(min_value=1, max_value=12),
)
def test_raising_an_actor_die_never_worsens_a_multiple_opposed_roll(rolls, opponent):
    before = multiple_opposed(rolls, opponent)
    better = [min(rolls[0] + 1, 12), *rolls[1:]]
    assert multiple_opposed(better, opponent) >= before
    assert multiple_opposed(rolls, min(opponent + 1, 12)) <= before


# --- whom a roll is for, keyed table dice and the dice prompt -------------------------------------


def test_rolling_for_a_subject_leaves_plain_sources_alone():
    table = TableDice([4])
    with rolling_for(table, "alpha"):
        assert table.roll(Die.D6, "a test").result == 4


def test_keyed_dice_give_each_subject_its_own_faces_in_the_order_entered():
    keyed = KeyedDice(
        [
            KeyedFace(5, subject="bravo"),
            KeyedFace(2, subject="alpha"),
            KeyedFace(6, subject="bravo"),
        ]
    )
    with rolling_for(keyed, "alpha"):
        assert keyed.roll(Die.D6, "test").result == 2
    with rolling_for(keyed, "bravo"):
        assert [keyed.roll(Die.D6, "test").result for _ in range(2)] == [5, 6]
    keyed.ensure_all_used()
    assert keyed.subject is None


def test_keyed_dice_with_a_purpose_go_only_to_that_roll():
    keyed = KeyedDice(
        [KeyedFace(3, subject="alpha", purpose="recovery"), KeyedFace(6, subject="alpha")]
    )
    with rolling_for(keyed, "alpha"):
        assert keyed.roll(Die.D6, "withdrawal").result == 6
        assert keyed.roll(Die.D6, "recovery").result == 3


def test_keyed_dice_refuse_a_missing_wrong_impossible_or_unused_face():
    keyed = KeyedDice([KeyedFace(4, subject="alpha", die=Die.D8)])
    with rolling_for(keyed, "bravo"), pytest.raises(DiceError) as missing:
        keyed.roll(Die.D6, "test")
    assert (missing.value.code, missing.value.index) == ("dice.missing", 1)
    assert "for bravo" in missing.value.message
    with rolling_for(keyed, "alpha"), pytest.raises(DiceError) as wrong:
        keyed.roll(Die.D6, "test")
    assert (wrong.value.code, wrong.value.index) == ("dice.wrong_die", 0)
    with pytest.raises(DiceError) as unused:
        keyed.ensure_all_used()
    assert (unused.value.code, unused.value.index) == ("dice.unused", 0)
    with pytest.raises(DiceError) as impossible:
        KeyedDice([KeyedFace(9, die=Die.D8)])
    assert impossible.value.code == "dice.impossible"
    nobody = KeyedDice([KeyedFace(2)])
    assert nobody.roll(Die.D4, "test").result == 2
    with pytest.raises(DiceError) as unnamed:
        nobody.roll(Die.D4, "test")
    assert unnamed.value.message == "A d4 is needed for test, but none was entered."


def test_the_prompt_lists_every_die_with_its_subject_and_marks_what_follows_a_missing_face():
    prompt = PromptDice([5])
    with rolling_for(prompt, "alpha"):
        first = prompt.roll(Die.D6, "withdrawal")
    with rolling_for(prompt, "bravo"):
        second = prompt.roll(Die.D8, "recovery")
        prompt.roll(Die.D6, "repair")
    assert (first.result, second.result) == (5, 1)
    assert prompt.needs == [
        DiceNeed(Die.D6, "withdrawal", "alpha", 5, assumed=False),
        DiceNeed(Die.D8, "recovery", "bravo", None, assumed=False),
        DiceNeed(Die.D6, "repair", "bravo", None, assumed=True),
    ]
    assert not prompt.complete


def test_the_prompt_is_complete_when_every_die_has_its_face_and_none_is_left_over():
    prompt = PromptDice([3, 4])
    prompt.roll(Die.D6, "a")
    assert not prompt.complete
    prompt.roll(Die.D6, "b")
    assert prompt.complete
    with pytest.raises(DiceError) as impossible:
        PromptDice([7]).roll(Die.D6, "a")
    assert (impossible.value.code, impossible.value.index) == ("dice.impossible", 0)


def test_a_roll_for_a_trooper_takes_his_face_or_else_one_entered_for_his_unit():
    keyed = KeyedDice(
        [
            KeyedFace(6, subject="alpha"),
            KeyedFace(2, subject="pte-fox"),
            KeyedFace(4, subject="alpha"),
        ]
    )
    with rolling_for(keyed, "alpha"):
        with rolling_for(keyed, "pte-fox"):
            assert keyed.roll(Die.D6, "recovery").result == 2
            assert keyed.roll(Die.D6, "recovery").result == 6
        with rolling_for(keyed, "pte-dog"):
            assert keyed.roll(Die.D6, "recovery").result == 4
    keyed.ensure_all_used()


def test_the_prompt_names_the_unit_a_troopers_die_is_within():
    prompt = PromptDice()
    with rolling_for(prompt, "alpha"), rolling_for(prompt, "pte-fox"):
        prompt.roll(Die.D6, "recovery")
    assert prompt.needs == [DiceNeed(Die.D6, "recovery", "pte-fox", None, False, ("alpha",))]


# --- Dice the book rolls though they cannot matter -------------------------------------------


def test_a_moot_die_is_not_taken_from_dice_that_were_not_entered_with_it():
    table = TableDice([4])
    assert roll_moot(table, Die.D6, "green squad's check") is None
    assert table.roll(Die.D6, "next").result == 4
    table.ensure_all_used()
    assert roll_moot(SeededDice(b"seed", "x"), Die.D6, "green squad's check") is None


def test_a_moot_die_entered_in_its_place_is_taken_and_marked():
    table = TableDice([2, 5], moot=True)
    moot = roll_moot(table, Die.D6, "green squad's check")
    assert moot == Roll(Die.D6, 2, "green squad's check", RollSource.TABLE, moot=True)
    assert table.roll(Die.D6, "next").result == 5
    table.ensure_all_used()
    with pytest.raises(DiceError) as impossible:
        roll_moot(TableDice([7], moot=True), Die.D6, "check")
    assert impossible.value.code == "dice.impossible"


def test_keyed_moot_dice_are_taken_only_when_entered_for_them():
    keyed = KeyedDice([KeyedFace(3, subject="alpha")], moot=True)
    with rolling_for(keyed, "bravo"):
        assert roll_moot(keyed, Die.D6, "check") is None
    with rolling_for(keyed, "alpha"):
        moot = roll_moot(keyed, Die.D6, "check")
    assert moot is not None
    assert (moot.result, moot.moot) == (3, True)
    keyed.ensure_all_used()
    plain = KeyedDice([KeyedFace(3, subject="alpha")])
    with rolling_for(plain, "alpha"):
        assert roll_moot(plain, Die.D6, "check") is None


def test_the_prompt_lists_a_moot_die_without_needing_its_face():
    prompt = PromptDice([4])
    with rolling_for(prompt, "green"):
        assert roll_moot(prompt, Die.D6, "check") is None
    with rolling_for(prompt, "veteran"):
        assert prompt.roll(Die.D8, "recovery").result == 4
    assert prompt.needs == [
        DiceNeed(Die.D6, "check", "green", None, assumed=False, moot=True),
        DiceNeed(Die.D8, "recovery", "veteran", 4, assumed=False),
    ]
    assert prompt.complete
    assert not prompt.left_over


def test_the_prompt_takes_moot_faces_in_their_place_when_told_to():
    prompt = PromptDice([6, 4], moot=True)
    moot = roll_moot(prompt, Die.D6, "check")
    assert moot is not None
    assert (moot.result, moot.moot) == (6, True)
    assert prompt.roll(Die.D8, "recovery").result == 4
    assert prompt.complete
    short = PromptDice([], moot=True)
    assert roll_moot(short, Die.D6, "check") is None
    assert short.complete
    assert PromptDice([1, 2]).left_over
