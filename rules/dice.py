"""Dice: die types, rolls, and the sources a procedure draws its rolls from.

A procedure never rolls by itself. It asks a :class:`DiceSource` for a die of a given type and a
purpose, and the source answers with a :class:`Roll`. The server's source derives each roll from the
campaign seed; the table source replays the dice the players rolled and the umpire entered.
"""

from __future__ import annotations

import enum
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


class DiceSource(Protocol):
    """Anything that can produce the next roll a procedure asks for."""

    def roll(self, die: Die, purpose: str) -> Roll:
        """Return the next roll of ``die`` made for ``purpose``."""
        ...
