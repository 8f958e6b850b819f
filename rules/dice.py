"""Dice: die types, rolls, and the sources a procedure draws its rolls from.

A procedure never rolls by itself. It asks a :class:`DiceSource` for a die of a given type and a
purpose, and the source answers with a :class:`Roll`. The server's source derives each roll from the
campaign seed; the table source replays the dice the players rolled and the umpire entered.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import hashlib
import hmac
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from rules.errors import RuleError


class Die(enum.IntEnum):
    """The five die types of Stargrunt II (P.5); the value is the number of faces."""

    D4 = 4
    D6 = 6
    D8 = 8
    D10 = 10
    D12 = 12

    @property
    def label(self) -> str:
        return f"d{self.value}"


class RollSource(enum.StrEnum):
    """Who produced a roll: the server from the campaign seed, or the players at the table."""

    SERVER = "server"
    TABLE = "table"


@dataclass(frozen=True, slots=True)
class Roll:
    """One die rolled for one purpose, and its face."""

    die: Die
    result: int
    purpose: str
    source: RollSource = RollSource.SERVER
    # Position of the roll in its seeded stream, so anyone holding the seed can recompute it.
    counter: int | None = None
    # Rolled because the book says to roll, though no face could change the outcome.
    moot: bool = False
    # Rolled afresh in a branch of the campaign, from the branch's own seed, because the
    # original never rolled this die for this purpose (see campaigns/branches.py).
    afresh: bool = False


class DiceSource(Protocol):
    """Anything that can produce the next roll a procedure asks for."""

    def roll(self, die: Die, purpose: str) -> Roll:
        """Return the next roll of ``die`` made for ``purpose``."""
        ...


class DiceError(RuleError):
    """A die that cannot be used: impossible face, wrong die type, or no die left to use."""

    def __init__(self, code: str, message: str, *, index: int | None = None) -> None:
        super().__init__(code, message, field=None if index is None else str(index))
        self.index = index


def _as_die(value: Die | int) -> Die:
    try:
        return Die(value)
    except ValueError:
        raise DiceError(
            "dice.unknown_die", f"There is no d{value}: dice are d4, d6, d8, d10 or d12."
        ) from None


def check_face(die: Die, result: int, *, index: int | None = None) -> None:
    """Refuse a face the die cannot show (a 7 on a d6, a 0 on anything)."""
    if isinstance(result, bool) or not isinstance(result, int) or not 1 <= result <= die.value:
        raise DiceError(
            "dice.impossible",
            f"A {die.label} shows 1 to {die.value}; {result!r} is impossible.",
            index=index,
        )


@dataclass(frozen=True, slots=True)
class EnteredDie:
    """A die the players rolled at the table, as the umpire entered it.

    ``die`` may be left out when the umpire only typed the face; the die type the procedure asks
    for is then assumed, and the face is still checked against it.
    """

    result: int
    die: Die | None = None


def roll_moot(dice: DiceSource, die: Die, purpose: str) -> Roll | None:
    """A die the book says to roll although no face can change the outcome: a Green squad's
    replacement check, a Rabble unit's quality loss, the withdrawal test from the sixth battle on.

    The procedure decides without it. A table source that was given such dice (``moot=True``)
    hands the face over, to be recorded with ``moot`` set; the prompt lists the die as one the
    table may roll; any other source, the server's included, rolls nothing (``None``).
    """
    moot = getattr(dice, "roll_moot", None)
    return None if moot is None else moot(die, purpose)


class TableDice:
    """Replays dice rolled at the table, in the order the procedure asks for them.

    Every face is checked against the die the procedure asks for, and an entered die type must be
    the one asked for. Running out of entered dice, or leaving some unused (see
    :meth:`ensure_all_used`), is an error: the umpire entered the wrong number of dice. With
    ``moot`` the entered dice include those the book rolls though they cannot matter
    (:func:`roll_moot`), in their place in the order; without it, those dice are not expected.
    """

    def __init__(
        self,
        entered: Iterable[EnteredDie | tuple[Die | int, int] | int],
        *,
        moot: bool = False,
    ) -> None:
        self.moot = moot
        self._entered: list[EnteredDie] = []
        for index, item in enumerate(entered):
            if isinstance(item, EnteredDie):
                entry = item
            elif isinstance(item, tuple):
                die_value, result = item
                entry = EnteredDie(result=result, die=_as_die(die_value))
            else:
                entry = EnteredDie(result=item)
            if entry.die is not None:
                check_face(entry.die, entry.result, index=index)
            self._entered.append(entry)
        self._next = 0

    @property
    def used(self) -> int:
        return self._next

    @property
    def remaining(self) -> int:
        return len(self._entered) - self._next

    def roll(self, die: Die, purpose: str) -> Roll:
        index = self._next
        if index >= len(self._entered):
            raise DiceError(
                "dice.missing",
                f"A {die.label} is needed for {purpose}, but only {len(self._entered)} "
                f"{'die was' if len(self._entered) == 1 else 'dice were'} entered.",
                index=index,
            )
        entry = self._entered[index]
        if entry.die is not None and entry.die != die:
            raise DiceError(
                "dice.wrong_die",
                f"Die {index + 1} should be a {die.label} for {purpose}, not a {entry.die.label}.",
                index=index,
            )
        check_face(die, entry.result, index=index)
        self._next += 1
        return Roll(die=die, result=entry.result, purpose=purpose, source=RollSource.TABLE)

    def roll_moot(self, die: Die, purpose: str) -> Roll | None:
        if not self.moot:
            return None
        return dataclasses.replace(self.roll(die, purpose), moot=True)

    def ensure_all_used(self) -> None:
        """Refuse dice that were entered but that the procedure never needed."""
        if self.remaining:
            raise DiceError(
                "dice.unused",
                f"{self.remaining} entered {'die was' if self.remaining == 1 else 'dice were'} "
                f"not needed: the procedure used {self._next}.",
                index=self._next,
            )


# --- Whom a roll is for ---------------------------------------------------------------------------


@contextlib.contextmanager
def rolling_for(dice: DiceSource, subject: str) -> Iterator[None]:
    """Say whom the rolls made inside the block are for (a unit's or a trooper's id), to a source
    that wants to know: keyed table dice pick that subject's faces, a prompt names it. Other
    sources roll as they always do."""
    about = getattr(dice, "about", None)
    if about is None:
        yield
        return
    with about(subject):
        yield


class _Attributed:
    """A source that keeps track of whom the current rolls are for: the innermost subject (a
    trooper), within the outer ones (his unit)."""

    def __init__(self) -> None:
        self.subjects: list[str] = []

    @property
    def subject(self) -> str | None:
        return self.subjects[-1] if self.subjects else None

    @contextlib.contextmanager
    def about(self, subject: str) -> Iterator[None]:
        self.subjects.append(subject)
        try:
            yield
        finally:
            self.subjects.pop()


@dataclass(frozen=True, slots=True)
class KeyedFace:
    """A face rolled at the table and entered with what it is for: the subject (a unit or a
    trooper id) and, where one subject rolls for several things, the purpose."""

    result: int
    subject: str | None = None
    purpose: str | None = None
    die: Die | None = None


class KeyedDice(_Attributed):
    """Dice rolled at the table, each entered for a subject (and a purpose), so the order the
    umpire typed them in does not matter across subjects. Each subject's faces are used in the
    order they were entered; a face entered with a purpose goes only to a roll for that purpose.
    A roll for a trooper within his unit takes a face entered for the trooper, or else one entered
    for the unit. Faces entered for no subject go to rolls made for none. With ``moot``, a die
    the book rolls though it cannot matter (:func:`roll_moot`) takes a face if one was entered
    for it, and is simply not rolled otherwise."""

    def __init__(self, entered: Iterable[KeyedFace], *, moot: bool = False) -> None:
        super().__init__()
        self.moot = moot
        self._entered = list(entered)
        for index, entry in enumerate(self._entered):
            if entry.die is not None:
                check_face(entry.die, entry.result, index=index)
        self._used: set[int] = set()

    def roll(self, die: Die, purpose: str) -> Roll:
        index = self._match(purpose)
        if index is not None:
            entry = self._entered[index]
            if entry.die is not None and entry.die != die:
                raise DiceError(
                    "dice.wrong_die",
                    f"Die {index + 1} should be a {die.label} for {purpose}, "
                    f"not a {entry.die.label}.",
                    index=index,
                )
            check_face(die, entry.result, index=index)
            self._used.add(index)
            return Roll(die=die, result=entry.result, purpose=purpose, source=RollSource.TABLE)
        whom = f" for {self.subject}" if self.subject is not None else ""
        raise DiceError(
            "dice.missing",
            f"A {die.label} is needed{whom} for {purpose}, but none was entered{whom}.",
            index=len(self._entered),
        )

    def roll_moot(self, die: Die, purpose: str) -> Roll | None:
        if not self.moot or self._match(purpose) is None:
            return None
        return dataclasses.replace(self.roll(die, purpose), moot=True)

    def _match(self, purpose: str) -> int | None:
        """The first unused face for this roll: entered for the innermost subject, else for an
        outer one; for no subject only when the roll is for none."""
        wanted: list[str | None] = [*reversed(self.subjects)] or [None]
        for subject in wanted:
            for index, entry in enumerate(self._entered):
                if (
                    index not in self._used
                    and entry.subject == subject
                    and entry.purpose in (None, purpose)
                ):
                    return index
        return None

    def ensure_all_used(self) -> None:
        """Refuse faces that were entered but that no roll needed."""
        unused = [i for i in range(len(self._entered)) if i not in self._used]
        if unused:
            raise DiceError(
                "dice.unused",
                f"{len(unused)} entered {'die was' if len(unused) == 1 else 'dice were'} not "
                "needed: no roll was made for what they were entered for.",
                index=unused[0],
            )


@dataclass(frozen=True, slots=True)
class DiceNeed:
    """One die a procedure asks for: its type, what for, for whom (``within`` the outer subjects,
    a trooper's unit), and the face if it is known.

    ``assumed`` is true when an earlier die had no face yet: the procedure was followed as if that
    die showed 1, so this need may change once the real face is known.
    """

    die: Die
    purpose: str
    subject: str | None
    result: int | None
    assumed: bool
    within: tuple[str, ...] = ()
    moot: bool = False


class PromptDice(_Attributed):
    """The dice prompt: follows a procedure with the faces entered so far and records every die
    it asks for. Past the entered faces it answers 1 and marks what follows as assumed, so one
    call lists every die as far as it can be known.

    Dice the book rolls though they cannot matter (:func:`roll_moot`) are listed with ``moot``
    set; they take an entered face only with ``moot`` (the umpire typed them in their place)."""

    def __init__(self, entered: Iterable[int] = (), *, moot: bool = False) -> None:
        super().__init__()
        self._entered = list(entered)
        self.moot = moot
        self.needs: list[DiceNeed] = []
        self._taken = 0

    def roll(self, die: Die, purpose: str) -> Roll:
        return self._need(die, purpose, moot=False)

    def roll_moot(self, die: Die, purpose: str) -> Roll | None:
        roll = self._need(die, purpose, moot=True)
        return roll if roll.moot else None

    def _need(self, die: Die, purpose: str, *, moot: bool) -> Roll:
        index = self._taken
        takes_face = not moot or self.moot
        known = takes_face and index < len(self._entered)
        assumed = any(need.result is None and not need.moot for need in self.needs)
        if known:
            check_face(die, self._entered[index], index=index)
        if takes_face:
            self._taken += 1
        face = self._entered[index] if known else None
        within = tuple(self.subjects[:-1])
        self.needs.append(DiceNeed(die, purpose, self.subject, face, assumed, within, moot))
        return Roll(
            die=die,
            result=face or 1,
            purpose=purpose,
            source=RollSource.TABLE,
            moot=moot and face is not None,
        )

    @property
    def left_over(self) -> bool:
        """More faces were entered than the procedure took."""
        return len(self._entered) > self._taken

    @property
    def complete(self) -> bool:
        """Every die that matters had a face, and no entered face was left over."""
        return not self.left_over and all(
            need.result is not None for need in self.needs if not need.moot
        )


_CHUNK_BITS = 64
_CHUNK_BYTES = _CHUNK_BITS // 8
_CHUNK_SPAN = 1 << _CHUNK_BITS


def unbiased_word_limit(faces: int) -> int:
    """The largest multiple of ``faces`` not above 2**64: words below it map to faces evenly."""
    if isinstance(faces, bool) or not isinstance(faces, int) or not 1 <= faces <= _CHUNK_SPAN:
        raise RuleError("dice.refused", f"A die needs from 1 to 2**64 faces, not {faces!r}.")
    return _CHUNK_SPAN - (_CHUNK_SPAN % faces)


def face_from_words(words: Iterable[int], faces: int) -> int:
    """The face chosen by the first usable 64-bit word of ``words`` for a die of ``faces`` faces.

    A word is usable when it is below :func:`unbiased_word_limit`; it then gives
    ``word % faces + 1``. Words at or above the limit are skipped (rejection sampling), which is
    what keeps every face exactly equally likely.
    """
    limit = unbiased_word_limit(faces)
    for word in words:
        if isinstance(word, bool) or not isinstance(word, int) or not 0 <= word < _CHUNK_SPAN:
            raise RuleError(
                "dice.refused", f"A word must be an integer from 0 to 2**64 - 1, not {word!r}."
            )
        if word < limit:
            return word % faces + 1
    raise RuleError(
        "dice.refused", f"No word below {limit} was supplied, so no face can be chosen."
    )


def seeded_words(seed: bytes, namespace: str, counter: int) -> Iterator[int]:
    """The endless stream of 64-bit words for roll number ``counter`` in ``namespace``.

    Attempt 0, 1, 2, ... each hashes ``"<namespace>:<counter>:<attempt>"`` with HMAC-SHA256 keyed
    with the seed, and yields the digest's four 64-bit big-endian words in order.
    """
    attempt = 0
    while True:
        digest = hmac.new(
            seed, f"{namespace}:{counter}:{attempt}".encode(), hashlib.sha256
        ).digest()
        for offset in range(0, len(digest), _CHUNK_BYTES):
            yield int.from_bytes(digest[offset : offset + _CHUNK_BYTES], "big")
        attempt += 1


def seeded_face(seed: bytes, namespace: str, counter: int, faces: int) -> int:
    """The face of roll number ``counter`` in ``namespace`` for a die with ``faces`` faces.

    HMAC-SHA256 keyed with the campaign seed over ``"<namespace>:<counter>:<attempt>"`` gives
    256 bits, read as four 64-bit big-endian words. A word is used only below the largest multiple
    of ``faces`` that fits in 64 bits, so every face is exactly equally likely (no modulo bias);
    if all four words fall above it, the next attempt is hashed. Publishing ``sha256(seed)`` before
    play lets anyone verify every roll once the seed is revealed.
    """
    return face_from_words(seeded_words(seed, namespace, counter), faces)


class SeededDice:
    """The server's dice: a keyed hash of the campaign seed, a namespace and a counter.

    The namespace names what the rolls are for (a resolution job's id, say), so a job that is run
    again after a crash rolls exactly the same dice.
    """

    def __init__(self, seed: bytes, namespace: str, *, start: int = 0) -> None:
        if not seed:
            raise RuleError("dice.refused", "A seeded roller needs a non-empty seed.")
        self._seed = seed
        self.namespace = namespace
        self._counter = start

    @property
    def counter(self) -> int:
        return self._counter

    def roll(self, die: Die, purpose: str) -> Roll:
        counter = self._counter
        self._counter += 1
        face = seeded_face(self._seed, self.namespace, counter, die.value)
        return Roll(
            die=die, result=face, purpose=purpose, source=RollSource.SERVER, counter=counter
        )


def seed_commitment(seed: bytes) -> str:
    """The public commitment to a campaign seed: its SHA-256, hex encoded."""
    return hashlib.sha256(seed).hexdigest()


# Die-type shifts and the three kinds of roll (SG2 P.6).

DIE_LADDER: tuple[Die, ...] = (Die.D4, Die.D6, Die.D8, Die.D10, Die.D12)


def _check_steps(steps: int) -> None:
    if isinstance(steps, bool) or not isinstance(steps, int):
        raise RuleError("dice.refused", f"A die shift is a whole number of steps, not {steps!r}.")


def shift_die(die: Die, steps: int) -> Die:
    """The die after a CLOSED shift of ``steps`` types (positive is up, negative is down).

    SG2 P.6 DIE TYPE SHIFTS: in a closed shift any excess beyond the ladder D4 D6 D8 D10 D12 is
    ignored, so the result is clamped to D4..D12. The rules assume closed shifts unless they say
    otherwise.
    """
    die = _as_die(die)
    _check_steps(steps)
    index = DIE_LADDER.index(die) + steps
    return DIE_LADDER[min(max(index, 0), len(DIE_LADDER) - 1)]


@dataclass(frozen=True, slots=True)
class OpenShift:
    """The two dice of an opposed roll after an OPEN shift of the actor's die."""

    die: Die
    opponent_die: Die
    # Steps that could not be applied to either die (the opponent's die is itself clamped).
    lost_steps: int = 0


def open_shift_die(die: Die, steps: int, *, opponent_die: Die) -> OpenShift:
    """Shift ``die`` by ``steps`` types as an OPEN shift against ``opponent_die``.

    SG2 P.6 DIE TYPE SHIFTS: in an open shift each step that would take the die above D12 shifts
    the opponent's die DOWN one type instead, and each step below D4 shifts the opponent's die UP
    one type ("or vice-versa"). Used for impact vs armour (P.38) and close-combat weapons (P.41).
    The book does not say what happens when the opponent's die is itself pushed off the ladder;
    it is clamped (a closed shift), and the steps that had nowhere to go are reported.
    """
    die = _as_die(die)
    opponent_die = _as_die(opponent_die)
    _check_steps(steps)
    top = len(DIE_LADDER) - 1
    index = DIE_LADDER.index(die) + steps
    excess = index - top if index > top else index if index < 0 else 0
    opponent_index = DIE_LADDER.index(opponent_die) - excess
    clamped_opponent = min(max(opponent_index, 0), top)
    return OpenShift(
        die=DIE_LADDER[min(max(index, 0), top)],
        opponent_die=DIE_LADDER[clamped_opponent],
        lost_steps=abs(opponent_index - clamped_opponent),
    )


def smallest_die_at_least(count: int, *, cap_at_d12: bool = False) -> Die:
    """The smallest die type with at least ``count`` faces ("round die type up").

    Used to pick a figure at random for hit allocation (SG2 P.36) and for the replacement
    quality check, which rolls "the nearest die type to the number of existing members ... round
    die type up if necessary" (SG2 P.60): 1-4 -> D4, 5-6 -> D6, 7-8 -> D8, 9-10 -> D10,
    11-12 -> D12. No SG2 die has more than 12 faces and the book does not say what to do above
    12: by default that is refused, and with ``cap_at_d12`` a D12 is used (the digests' reading
    for the replacement check); hit allocation over 12 figures is the caller's own option.
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise RuleError(
            "dice.refused",
            f"The count of figures must be a whole number of at least 1, not {count!r}.",
        )
    for die in DIE_LADDER:
        if die.value >= count:
            return die
    if cap_at_d12:
        return Die.D12
    raise RuleError("dice.refused", f"No die has {count} faces: the largest is a d12.")


def _score(value: Roll | int) -> int:
    if isinstance(value, Roll):
        return value.result
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError("dice.refused", f"A score is a roll or a whole number, not {value!r}.")
    return value


def beats_target(roll: Roll | int, target: int) -> bool:
    """Whether a roll succeeds against a target number (SG2 P.6 ROLL VS. TARGET NUMBER).

    The score must be greater than the target; equal or lower fails (P.6 GENERAL RULE).
    """
    return _score(roll) > _score(target)


def wins_opposed(roll: Roll | int, opponent: Roll | int) -> bool:
    """Whether the acting side wins a single opposed roll (SG2 P.6 OPPOSED ROLL).

    The actor must roll higher than the opponent; a tie fails.
    """
    return _score(roll) > _score(opponent)


class OpposedOutcome(enum.IntEnum):
    """The result of a multiple opposed roll, worst to best (SG2 P.6)."""

    FAILURE = 0
    MINOR_SUCCESS = 1
    MAJOR_SUCCESS = 2


def multiple_opposed(rolls: Sequence[Roll | int], opponent: Roll | int) -> OpposedOutcome:
    """The outcome of a multiple opposed roll (SG2 P.6 MULTIPLE OPPOSED ROLL).

    The actor rolls two or more dice (of any types) against the opponent's single die. Count the
    actor's dice that score higher than the opponent: none is a FAILURE, exactly one a MINOR
    SUCCESS, two or more a MAJOR SUCCESS.
    """
    if len(rolls) < 2:
        raise RuleError(
            "dice.refused",
            f"A multiple opposed roll needs at least two dice for the actor, not {len(rolls)}.",
        )
    opponent_score = _score(opponent)
    beating = sum(1 for roll in rolls if _score(roll) > opponent_score)
    return OpposedOutcome(min(beating, 2))
