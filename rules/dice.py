"""Dice: die types, rolls, and the sources a procedure draws its rolls from.

A procedure never rolls by itself. It asks a :class:`DiceSource` for a die of a given type and a
purpose, and the source answers with a :class:`Roll`. The server's source derives each roll from the
campaign seed; the table source replays the dice the players rolled and the umpire entered.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol


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


class DiceSource(Protocol):
    """Anything that can produce the next roll a procedure asks for."""

    def roll(self, die: Die, purpose: str) -> Roll:
        """Return the next roll of ``die`` made for ``purpose``."""
        ...


class DiceError(ValueError):
    """A die that cannot be used: impossible face, wrong die type, or no die left to use."""

    def __init__(self, code: str, message: str, *, index: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
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


class TableDice:
    """Replays dice rolled at the table, in the order the procedure asks for them.

    Every face is checked against the die the procedure asks for, and an entered die type must be
    the one asked for. Running out of entered dice, or leaving some unused (see
    :meth:`ensure_all_used`), is an error: the umpire entered the wrong number of dice.
    """

    def __init__(self, entered: Iterable[EnteredDie | tuple[Die | int, int] | int]) -> None:
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

    def ensure_all_used(self) -> None:
        """Refuse dice that were entered but that the procedure never needed."""
        if self.remaining:
            raise DiceError(
                "dice.unused",
                f"{self.remaining} entered {'die was' if self.remaining == 1 else 'dice were'} "
                f"not needed: the procedure used {self._next}.",
                index=self._next,
            )


_CHUNK_BITS = 64
_CHUNK_SPAN = 1 << _CHUNK_BITS


def seeded_face(seed: bytes, namespace: str, counter: int, faces: int) -> int:
    """The face of roll number ``counter`` in ``namespace`` for a die with ``faces`` faces.

    HMAC-SHA256 keyed with the campaign seed over ``"<namespace>:<counter>:<attempt>"`` gives
    256 bits, read as four 64-bit big-endian words. A word is used only below the largest multiple
    of ``faces`` that fits in 64 bits, so every face is exactly equally likely (no modulo bias);
    if all four words fall above it, the next attempt is hashed. Publishing ``sha256(seed)`` before
    play lets anyone verify every roll once the seed is revealed.
    """
    limit = _CHUNK_SPAN - (_CHUNK_SPAN % faces)
    attempt = 0
    while True:
        digest = hmac.new(
            seed, f"{namespace}:{counter}:{attempt}".encode(), hashlib.sha256
        ).digest()
        for offset in range(0, len(digest), _CHUNK_BITS // 8):
            word = int.from_bytes(digest[offset : offset + _CHUNK_BITS // 8], "big")
            if word < limit:
                return word % faces + 1
        attempt += (
            1  # pragma: no cover - needs four consecutive words in the top 2**-61 of the range
        )


class SeededDice:
    """The server's dice: a keyed hash of the campaign seed, a namespace and a counter.

    The namespace names what the rolls are for (a resolution job's id, say), so a job that is run
    again after a crash rolls exactly the same dice.
    """

    def __init__(self, seed: bytes, namespace: str, *, start: int = 0) -> None:
        if not seed:
            raise ValueError("A seeded roller needs a non-empty seed.")
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
