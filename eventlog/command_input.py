"""What a command is given from outside, checked before the rules see it: the table's dice, in
order or keyed by whom they are for, and text free of control characters; and the rules'
refusals turned into command errors."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from eventlog.errors import CommandError, InvalidInput, RuleViolation
from eventlog.store import MAX_SEQUENCE
from rules.dice import DiceError, Die, KeyedDice, KeyedFace, TableDice
from rules.errors import RuleError

# Faces rolled at the table: in the order the rules use them, or each keyed by what it is for
# (``{"face": 4, "for": "<unit or trooper id>", "purpose": "...", "die": 6}``).
EnteredDice = Sequence[int] | Sequence[Mapping[str, Any]]


# Text may hold tabs and line breaks; no other control character means anything in a campaign,
# and PostgreSQL refuses NUL outright.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


# The largest whole number a command takes: every count, day and sequence of a campaign fits in
# PostgreSQL's integer, and anything larger is a mistake or an attack, not a campaign.
MAX_INPUT_INTEGER = 2**31 - 1


def refuse_unstorable_input(value: Any, where: str, code: str) -> None:
    """Refuse text with control characters and whole numbers no column can hold, anywhere in a
    command's input, naming the place (``references.0.label``)."""
    if isinstance(value, str):
        if _CONTROL.search(value):
            raise InvalidInput(
                code,
                f"{where or 'The text'}: control characters are not allowed in text.",
                field=where or None,
            )
    elif isinstance(value, int) and not isinstance(value, bool):
        if not -MAX_INPUT_INTEGER <= value <= MAX_INPUT_INTEGER:
            raise InvalidInput(
                code,
                f"{where or 'The number'}: {value} is out of range (at most {MAX_INPUT_INTEGER}).",
                field=where or None,
            )
    elif isinstance(value, Mapping):
        for key, item in value.items():
            refuse_unstorable_input(str(key), where, code)
            refuse_unstorable_input(item, f"{where}.{key}" if where else str(key), code)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            refuse_unstorable_input(item, f"{where}.{index}" if where else str(index), code)


def table_dice(dice: EnteredDice, *, moot: bool = False) -> TableDice | KeyedDice:
    """The table's dice as the rules read them: in order, or keyed by whom they are for; with
    ``moot``, including dice the book rolls though they cannot matter (rules.dice.roll_moot)."""
    faces = [entry for entry in dice if not isinstance(entry, Mapping)]
    if len(faces) == len(dice):
        return TableDice(faces, moot=moot)
    keyed = []
    for index, entry in enumerate(dice):
        if not isinstance(entry, Mapping):
            raise CommandError(
                "dice.mixed",
                "Enter every die as a face, or every die keyed by what it is for, not both.",
                field=f"dice.{index}",
            )
        keyed.append(_keyed_face(entry, index))
    return KeyedDice(keyed, moot=moot)


def _keyed_face(entry: Mapping[str, Any], index: int) -> KeyedFace:
    face, die = entry.get("face"), entry.get("die")
    subject, purpose = entry.get("for"), entry.get("purpose")
    if (
        isinstance(face, bool)
        or not isinstance(face, int)
        or (die is not None and die not in {d.value for d in Die})
        or not isinstance(subject, str | None)
        or not isinstance(purpose, str | None)
        or set(entry) - {"face", "die", "for", "purpose"}
    ):
        raise CommandError(
            "dice.invalid",
            'A keyed die is {"face": n, "for": "<unit or trooper id>", "purpose": "...", '
            '"die": 4-12}; only the face is required.',
            field=f"dice.{index}",
        )
    return KeyedFace(
        result=face, subject=subject, purpose=purpose, die=Die(die) if die is not None else None
    )


@contextlib.contextmanager
def rules_refusals() -> Iterator[None]:
    """Turn the rules' refusals into command errors: a die that does not fit names its place in
    ``dice``; any other :class:`rules.errors.RuleError` keeps its code and field (422)."""
    try:
        yield
    except DiceError as exc:
        field_name = f"dice.{exc.index}" if exc.index is not None else "dice"
        raise CommandError(exc.code, exc.message, field=field_name) from None
    except RuleError as exc:
        raise RuleViolation(exc.code, exc.message, field=exc.field) from None


def as_of_sequence(raw: str | None) -> int | None:
    """An ``?as_of=`` query: the sequence number of an event, from 0; None when not given."""
    if raw in (None, ""):
        return None
    try:
        value = int(raw)
    except ValueError:
        raise CommandError(
            "invalid.as_of", "as_of is the sequence number of an event.", field="as_of"
        ) from None
    if not 0 <= value <= MAX_SEQUENCE:
        raise CommandError("invalid.as_of", f"as_of must be 0 to {MAX_SEQUENCE}.", field="as_of")
    return value
