"""What a roster file's problems are and what they say: each with its path, line, field, stable
code and a message a person understands.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from pydantic import (
    BaseModel,
)

from rosters.roster_file.spec import ForceSpec, Path, TrooperSpec, UnitSpec, VehicleSpec

# --- problems -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RosterProblem:
    """One thing wrong with a roster file, said so that the umpire can find and fix it."""

    path: str
    """Where in the file, e.g. ``units[0].troopers[3].role``; empty for the whole file."""
    line: int | None
    """1-based line in the file, or None when the roster did not come from text."""
    field: str
    """The last named part of ``path`` (``role``), empty for the whole file."""
    code: str
    """Stable machine-readable code, e.g. ``roster.unknown_field``."""
    message: str
    """A sentence for a person."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class RosterFileError(ValueError):
    """A roster file that cannot be loaded; ``problems`` lists everything wrong with it."""

    def __init__(self, problems: Sequence[RosterProblem], source: str = "<roster>") -> None:
        self.problems = list(problems)
        self.source = source
        super().__init__(str(self))

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from the problems, not the text, when it crosses a process boundary (a job).
        return (type(self), (self.problems, self.source))

    def __str__(self) -> str:
        return "\n".join(self._line(problem) for problem in self.problems)

    def _line(self, problem: RosterProblem) -> str:
        where = self.source if problem.line is None else f"{self.source}:{problem.line}"
        if not problem.path:
            return f"{where}: {problem.message}"
        return f"{where}: {problem.path}: {problem.message}"


@dataclass
class _Finding:
    path: Path
    code: str
    message: str


def _path_text(path: Path) -> str:
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def _field_of(path: Path) -> str:
    return next((part for part in reversed(path) if isinstance(part, str)), "")


# --- what the problems say ------------------------------------------------------------------------


def _show(value: object) -> str:
    """A value as the umpire wrote it in the file."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "nothing (null)"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, Mapping):
        return "a mapping of fields"
    if isinstance(value, list):
        return "a list"
    return str(value)


def _thing(path: Path) -> str:
    """What the mapping at ``path`` is, in words."""
    if not path:
        return "the force"
    named = _field_of(path)
    return {"units": "unit", "troopers": "trooper", "vehicles": "vehicle"}.get(named, named)


_MODEL_AT: dict[str, type[BaseModel]] = {
    "units": UnitSpec,
    "troopers": TrooperSpec,
    "vehicles": VehicleSpec,
}


def _fields_of(path: Path) -> list[str]:
    model: type[BaseModel] = _MODEL_AT.get(_field_of(path), ForceSpec) if path else ForceSpec
    return [info.alias or name for name, info in model.model_fields.items()]


def _invalid_message(kind: str, label: str, value: Any, ctx: Mapping[str, Any], msg: str) -> str:
    """What is wrong with a value the models refused, in words, by pydantic's error type."""
    if kind in ("enum", "literal_error"):
        expected = str(ctx.get("expected", "")).replace("'", "")
        message = f"{label} {_show(value)} is not allowed; use {expected}."
    elif kind == "string_type":
        message = f"{label} must be text, not {_show(value)}; put it in quotes."
    elif kind in ("int_type", "int_parsing", "int_from_float"):
        message = f"{label} must be a whole number, not {_show(value)}."
    elif kind in ("bool_type", "bool_parsing"):
        message = f"{label} must be true or false, not {_show(value)}."
    elif kind in ("greater_than_equal", "greater_than"):
        bound = ctx.get("ge", ctx.get("gt"))
        message = f"{label} {_show(value)} is too small; it must be at least {bound}."
    elif kind in ("less_than_equal", "less_than"):
        bound = ctx.get("le", ctx.get("lt"))
        message = f"{label} {_show(value)} is too large; it must be at most {bound}."
    elif kind == "string_too_short":
        message = f"{label} must not be empty."
    elif kind == "string_too_long":
        message = (
            f"{label} is {len(str(value))} characters long; the limit is {ctx.get('max_length')}."
        )
    elif kind == "too_short":
        message = f"{label} must list at least {ctx.get('min_length')}; this one lists none."
    elif kind == "list_type":
        message = f"{label} must be a list, not {_show(value)}."
    elif kind in ("model_type", "model_attributes_type", "dict_type"):
        message = f"{label} must be a mapping of fields, not {_show(value)}."
    elif kind == "value_error":
        message = f"{label} {_show(value)} is not allowed: {ctx.get('error', msg)}."
    else:
        message = f"{label} {_show(value)} is not allowed: {msg}."
    return message


def _describe(error: Mapping[str, Any]) -> _Finding:
    path: Path = tuple(error["loc"])
    kind = error["type"]
    value = error.get("input")
    ctx = error.get("ctx") or {}
    field = path[-1] if path else ""
    if not path:
        label = "The file"
    elif isinstance(field, int):
        label = f"Each entry of {_field_of(path)}"
    else:
        label = f"The {field}"

    if kind == "missing":
        owner = _thing(path[:-1])
        return _Finding(
            path, "roster.missing_field", f"Every {owner} needs a '{field}'; this one has none."
        )
    if kind == "extra_forbidden":
        owner_path = path[:-1]
        known = _fields_of(owner_path)
        close = difflib.get_close_matches(str(field), known, n=1)
        hint = f" Did you mean '{close[0]}'?" if close else f" The fields are: {', '.join(known)}."
        return _Finding(
            path,
            "roster.unknown_field",
            f"'{field}' is not a field of a {_thing(owner_path)}.{hint}",
        )
    message = _invalid_message(kind, label, value, ctx, error["msg"])
    if not path and kind in ("model_type", "model_attributes_type", "dict_type"):
        message = (
            f"A roster file holds one mapping (name, side, units and so on), not {_show(value)}."
        )
    return _Finding(path, "roster.invalid", message)
