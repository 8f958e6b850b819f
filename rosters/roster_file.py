"""The roster file: how an umpire writes down a force to load it into a campaign.

A roster file is YAML or JSON holding one force: its name and side, and a tree of units, each with
its troopers and vehicles. The format is described for people in ``docs/roster-format.md`` and for
editors in ``docs/roster-format.schema.json`` (the output of :func:`roster_json_schema`).

:func:`parse_roster` is the only way in: it checks the shape of the file with the pydantic models
below, then the rules that span fields, units or the campaign's ruleset, and reports every problem
it finds at once, each with the line of the file it is on. A :class:`ForceSpec` built any other way
has only had its shape checked.
"""

from __future__ import annotations

import bisect
import difflib
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Annotated, Any, Literal, NamedTuple

import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    ValidationError,
    WithJsonSchema,
    model_validator,
)

from rosters.vocabulary import CommandLevel, TrooperRole, UnitKind, UnitStatus, VehicleState
from rules.fad import scales as fad_scales
from rules.rulesets import RulesetDefinition, definition, definitions
from rules.sg2 import scales as sg2_scales

__all__ = [
    "ForceSpec",
    "RosterFileError",
    "RosterProblem",
    "TrooperSpec",
    "UnitEntry",
    "UnitSpec",
    "VehicleSpec",
    "count_troopers",
    "count_vehicles",
    "iter_units",
    "parse_roster",
    "roster_json_schema",
    "validate_roster",
]

Path = tuple[str | int, ...]

SG2_QUALITIES = tuple(q.name.lower() for q in sg2_scales.Quality)
FAD_QUALITIES = tuple(q.name.lower() for q in fad_scales.Quality)
FAD_RESOLVES = tuple(r.name.lower() for r in fad_scales.Resolve)
FATIGUES = tuple(f.name.lower() for f in sg2_scales.Fatigue)
MOTIVATIONS = tuple(m.name.lower() for m in sg2_scales.MissionMotivation)
COMMAND_LEVELS = tuple(level.name.lower() for level in CommandLevel)
ARMOUR_DICE = (4, 6, 8, 10, 12)

# Fields that describe the men of a unit; a formation has none of its own (its units do).
_FORMATION_FORBIDDEN = (
    "quality",
    "leadership",
    "resolve",
    "fatigue",
    "mission_motivation",
    "toe_strength",
)


def _command_level_by_name(value: object) -> object:
    # Files name the level ("platoon"); the enum's values are ranks, which a person should not need.
    if isinstance(value, CommandLevel):
        return value
    if isinstance(value, str) and value in COMMAND_LEVELS:
        return CommandLevel[value.upper()]
    raise ValueError(f"the command level must be one of {_or_list(COMMAND_LEVELS)}")


CommandLevelName = Annotated[
    CommandLevel,
    BeforeValidator(_command_level_by_name),
    PlainSerializer(lambda level: level.name.lower(), return_type=str),
    WithJsonSchema({"type": "string", "enum": list(COMMAND_LEVELS)}),
]


class TrooperSpec(BaseModel):
    """One trooper of a unit, as the rules need him: his role, weapon and armour."""

    model_config = ConfigDict(extra="forbid", title="Trooper")

    name: str = Field(
        min_length=1,
        max_length=200,
        description="The trooper's name as the players will know him, e.g. 'Cpl Ana Reyes'.",
    )
    role: TrooperRole = Field(
        default=TrooperRole.LINE,
        description=(
            "What the rules read him as: leader (the unit's one leader), second_in_command (first "
            "in line if the leader falls), medic, support_weapon (SAW, plasma gun, IAVR), "
            "special_weapon (GMS/P), specialist (EW, observer, sniper: say which in specialism), "
            "crew (vehicle crew) or line."
        ),
    )
    weapon: str = Field(default="", description="His weapon, e.g. 'L7A3 IW' or 'L5 SAW'.")
    armour: str = Field(
        default="",
        description="What he wears, as a label, e.g. 'partial light armour'.",
    )
    armour_die: Literal[4, 6, 8, 10, 12] | None = Field(
        default=None,
        description=(
            "Stargrunt II armour die as a number: 4 basic battledress, 6 partial light armour, "
            "8 full-suit light armour, 10 light power armour, 12 heavy power armour (P.28)."
        ),
    )
    power_armour: bool = Field(
        default=False, strict=True, description="True if he fights in a power armour suit."
    )
    specialism: str = Field(
        default="",
        description="The specialist skill, if any, e.g. 'EW', 'forward observer', 'sniper'.",
    )


class VehicleSpec(BaseModel):
    """A vehicle: a unit's transport (an element of it) or the vehicle a crew unit fights in."""

    model_config = ConfigDict(
        extra="forbid", title="Vehicle", validate_by_alias=True, validate_by_name=True
    )

    name: str = Field(
        min_length=1, max_length=200, description="The vehicle's name or call sign, e.g. 'Two-One'."
    )
    vehicle_class: str = Field(
        alias="class",
        min_length=1,
        max_length=200,
        description="The type of vehicle, e.g. 'FV701 Hoplite APC'. Written `class` in files.",
    )
    size: int = Field(
        ge=1,
        le=5,
        strict=True,
        description="Stargrunt II size class, 1 (very small) to 5 (very large) (P.31).",
    )
    capacity: int = Field(
        default=0, ge=0, strict=True, description="How many troopers it carries, besides its crew."
    )
    armour: int | None = Field(
        default=None,
        ge=0,
        le=5,
        strict=True,
        description=(
            "Armour class 0 to 5, never above the size class in Stargrunt II (P.31); leave it out "
            "for an unarmoured vehicle."
        ),
    )
    state: VehicleState = Field(
        default=VehicleState.OPERATIONAL, description="Its damage state, if it is not undamaged."
    )


class UnitSpec(BaseModel):
    """A node of the force's organisation: a formation, or a unit with troopers and vehicles."""

    model_config = ConfigDict(extra="forbid", title="Unit")

    key: str | None = Field(
        default=None,
        min_length=1,
        max_length=100,
        description=(
            "A short identifier of your choosing, unique within the file, so that another unit "
            "can name this one in attached_to. It is not stored in the campaign."
        ),
    )
    name: str = Field(
        min_length=1, max_length=200, description="The unit's name, e.g. '1st Squad'."
    )
    kind: UnitKind = Field(
        description=(
            "What the unit is. company, platoon and section are formations: they hold other units "
            "and have no troopers of their own. The others are units: command (an HQ), squad, "
            "weapon_team, vehicle_crew, independent (a sniper or character)."
        ),
    )
    level: CommandLevelName | None = Field(
        default=None,
        description=(
            "The command level a command unit commands at: squad, platoon, company, battalion "
            "or regiment (SG2 P.8)."
        ),
    )
    quality: str | None = Field(
        default=None,
        description=(
            "The unit's quality in lower case. Stargrunt II: untrained, green, regular, veteran, "
            "elite. Fast and Dirty: rabble, conscript, regular, elite. Required for every unit "
            "that is not a formation; not given for formations."
        ),
        json_schema_extra={"enum": [*sorted({*SG2_QUALITIES, *FAD_QUALITIES}), None]},
    )
    leadership: int | None = Field(
        default=None,
        ge=1,
        le=3,
        strict=True,
        description=(
            "Stargrunt II leadership value, 1 (best) to 3 (worst) (P.9). Required for Stargrunt "
            "II units that are not formations; not used by Fast and Dirty."
        ),
    )
    resolve: str | None = Field(
        default=None,
        description=(
            "Fast and Dirty resolve in lower case: reluctant, uncertain, steady, determined. "
            "Required for Fast and Dirty units that are not formations; not used by Stargrunt II."
        ),
        json_schema_extra={"enum": [*FAD_RESOLVES, None]},
    )
    fatigue: Literal["fresh", "tired", "exhausted"] = Field(
        default="fresh",
        description="Stargrunt II fatigue level (P.19). Not used by Fast and Dirty.",
    )
    mission_motivation: Literal["low", "medium", "high"] = Field(
        default="medium",
        description="Stargrunt II mission motivation (P.19). Not used by Fast and Dirty.",
    )
    toe_strength: int | None = Field(
        default=None,
        ge=0,
        strict=True,
        description=(
            "Full strength on the table of organisation; replacements fill the unit up to it. "
            "Defaults to the number of troopers listed, so give it for an under-strength unit."
        ),
    )
    specialists: list[str] = Field(
        default_factory=list,
        description="Specialist elements the unit carries, e.g. ['EW team', 'support liaison'].",
    )
    status: UnitStatus = Field(
        default=UnitStatus.IN_THE_LINE, description="Where the unit is when the force is loaded."
    )
    attached_to: str | None = Field(
        default=None,
        min_length=1,
        description=(
            "The key of another unit in this file that this one is attached to (cross-attached "
            "armour, a supporting weapon team), when that is not its parent in the tree."
        ),
    )
    troopers: list[TrooperSpec] = Field(
        default_factory=list,
        description="The unit's troopers, leader first by convention. Formations have none.",
    )
    vehicles: list[VehicleSpec] = Field(
        default_factory=list,
        description="The unit's vehicles: its transport, or the vehicle a crew unit fights in.",
    )
    units: list[UnitSpec] = Field(
        default_factory=list, description="The units under this one in the chain of command."
    )

    @model_validator(mode="after")
    def _default_toe_strength(self) -> UnitSpec:
        if self.toe_strength is None:
            self.toe_strength = len(self.troopers)
        return self


class ForceSpec(BaseModel):
    """A force as written in a roster file: one side's troops, loaded into a campaign."""

    model_config = ConfigDict(
        extra="forbid",
        title="Muster roster file",
        json_schema_extra={"$schema": "https://json-schema.org/draft/2020-12/schema"},
    )

    name: str = Field(
        min_length=1, max_length=200, description="The force's name, e.g. 'B Company, 2nd Marines'."
    )
    side: str = Field(
        min_length=1, max_length=100, description="The side it fights for, e.g. 'Blue' or 'NAC'."
    )
    description: str = Field(default="", description="Free text for the umpire and the players.")
    ruleset: Literal["sg2", "fad"] | None = Field(
        default=None,
        description=(
            "The ruleset the file is written for: sg2 (Stargrunt II) or fad (Fast and Dirty). "
            "Optional; if given it must be the campaign's."
        ),
    )
    units: list[UnitSpec] = Field(
        min_length=1, description="The force's top-level units: usually one company or platoon."
    )


def roster_json_schema() -> dict[str, Any]:
    """The JSON Schema of a roster file, with the file's own spelling of every field."""
    return ForceSpec.model_json_schema(by_alias=True)


class UnitEntry(NamedTuple):
    """A unit found by :func:`iter_units`, with where it sits in the file."""

    unit: UnitSpec
    path: str
    """Where the unit is in the file, e.g. ``units[0].units[2]``; unique, spelled as in problems."""
    parent_path: str | None
    """The ``path`` of the unit above it, or None for a top-level unit."""


def iter_units(spec: ForceSpec) -> Iterator[UnitEntry]:
    """Every unit of the force, depth first, each parent before its children."""

    def walk(units: Sequence[UnitSpec], prefix: str, parent: str | None) -> Iterator[UnitEntry]:
        for index, unit in enumerate(units):
            path = f"{prefix}units[{index}]"
            yield UnitEntry(unit, path, parent)
            yield from walk(unit.units, f"{path}.", path)

    yield from walk(spec.units, "", None)


def count_troopers(spec: ForceSpec) -> int:
    """How many troopers the file lists, in all its units."""
    return sum(len(entry.unit.troopers) for entry in iter_units(spec))


def count_vehicles(spec: ForceSpec) -> int:
    """How many vehicles the file lists, in all its units."""
    return sum(len(entry.unit.vehicles) for entry in iter_units(spec))


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


# --- reading the text, with the line of every value ----------------------------------------------


class _Lines:
    """The line each path of the document starts on: the key's line for a field, the item's for an
    entry of a list. A path the file does not have (a missing field) falls back to its parent."""

    def __init__(self) -> None:
        self.by_path: dict[Path, int] = {}

    def of(self, path: Path) -> int | None:
        for end in range(len(path), -1, -1):
            line = self.by_path.get(path[:end])
            if line is not None:
                return line
        return None


class _SyntaxProblem(Exception):
    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def _read_yaml(text: str, lines: _Lines, findings: list[_Finding]) -> object:
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        detail = error.problem or error.context or "unreadable text"
        if error.context and error.problem:
            where = f", line {error.context_mark.line + 1}" if error.context_mark else ""
            detail += f" ({error.context}{where})"
        if "'\\t'" in detail:
            detail += "; indent with spaces, YAML does not allow tabs there"
        raise _SyntaxProblem(
            mark.line + 1 if mark else None, f"This is not valid YAML: {detail}."
        ) from error
    except yaml.YAMLError as error:
        raise _SyntaxProblem(None, f"This is not valid YAML: {error}.") from error
    finally:
        loader.dispose()
    if node is not None:
        _index_yaml(node, (), node.start_mark.line + 1, lines, findings, set())
    return data


def _index_yaml(
    node: yaml.Node,
    path: Path,
    line: int,
    lines: _Lines,
    findings: list[_Finding],
    ancestors: set[int],
) -> None:
    lines.by_path.setdefault(path, line)
    if id(node) in ancestors:  # an alias of one of its own ancestors: a recursive document
        return
    ancestors = ancestors | {id(node)}
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                continue
            key = key_node.value
            if key in seen:
                findings.append(
                    _Finding(
                        (*path, key),
                        "roster.duplicate_field",
                        f"The field '{key}' is given twice here; only the last one would count.",
                    )
                )
                lines.by_path[(*path, key)] = key_node.start_mark.line + 1
            seen.add(key)
            _index_yaml(
                value_node, (*path, key), key_node.start_mark.line + 1, lines, findings, ancestors
            )
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _index_yaml(item, (*path, index), item.start_mark.line + 1, lines, findings, ancestors)


_JSON_SPACE = re.compile(r"[ \t\n\r]*")
_JSON_LITERAL = re.compile(
    r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|NaN|-?Infinity"
)
# The decoder's own string scanner (the C one when there is one), which ``json`` has no public
# name for; typeshed leaves it out of ``json.decoder``, where it has always been.
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def _read_json(text: str, lines: _Lines, findings: list[_Finding]) -> object:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise _SyntaxProblem(
            error.lineno, f"This is not valid JSON: {error.msg} (column {error.colno})."
        ) from error
    _JsonIndex(text, lines, findings).value(0, (), None)
    return data


class _JsonIndex:
    """Walks JSON text that ``json.loads`` has accepted, noting the line of every value.

    The standard library keeps no positions, and PyYAML refuses some valid JSON (tab indentation),
    so the few lines of a second pass are the dependable way to point at a line.
    """

    def __init__(self, text: str, lines: _Lines, findings: list[_Finding]) -> None:
        self.text = text
        self.lines = lines
        self.findings = findings
        self.line_starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def line(self, position: int) -> int:
        return bisect.bisect_right(self.line_starts, position)

    def skip(self, position: int) -> int:
        return _JSON_SPACE.match(self.text, position).end()  # type: ignore[union-attr]

    def value(self, position: int, path: Path, key_position: int | None) -> int:
        text = self.text
        position = self.skip(position)
        self.lines.by_path.setdefault(
            path, self.line(position if key_position is None else key_position)
        )
        opener = text[position]
        if opener == "{":
            return self.members(position + 1, path)
        if opener == "[":
            return self.items(position + 1, path)
        if opener == '"':
            return _scanstring(text, position + 1)[1]
        return _JSON_LITERAL.match(text, position).end()  # type: ignore[union-attr]

    def members(self, position: int, path: Path) -> int:
        position = self.skip(position)
        seen: set[str] = set()
        while self.text[position] != "}":
            key_position = position
            key, position = _scanstring(self.text, position + 1)
            if key in seen:
                self.findings.append(
                    _Finding(
                        (*path, key),
                        "roster.duplicate_field",
                        f"The field '{key}' is given twice here; only the last one would count.",
                    )
                )
                self.lines.by_path[(*path, key)] = self.line(key_position)
            seen.add(key)
            position = self.skip(position) + 1  # the colon
            position = self.skip(self.value(position, (*path, key), key_position))
            if self.text[position] == ",":
                position = self.skip(position + 1)
        return position + 1

    def items(self, position: int, path: Path) -> int:
        position = self.skip(position)
        index = 0
        while self.text[position] != "]":
            position = self.skip(self.value(position, (*path, index), None))
            index += 1
            if self.text[position] == ",":
                position = self.skip(position + 1)
        return position + 1


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


def _or_list(names: Sequence[object]) -> str:
    shown = [str(name) for name in names]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


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


# --- rules across fields, units and the ruleset ---------------------------------------------------


class _TreeCheck:
    """The rules the models cannot see alone: across fields, across units, and by ruleset.

    It reads the raw data rather than the models, so that it still runs, and finds its problems,
    when another part of the file has failed the models' checks.
    """

    def __init__(self, ruleset: RulesetDefinition, line_of: Callable[[Path], int | None]) -> None:
        self.ruleset = ruleset
        self.others = [d for d in definitions() if d.code != ruleset.code]
        self.line_of = line_of
        self.findings: list[_Finding] = []
        self.keys: dict[str, Path] = {}
        self.attachments: list[tuple[Path, str, str | None]] = []
        self.open_units: set[int] = set()  # a YAML alias can make a unit its own descendant

    def add(self, path: Path, code: str, message: str) -> None:
        self.findings.append(_Finding(path, code, message))

    def run(self, data: Mapping[str, Any]) -> list[_Finding]:
        written_for = data.get("ruleset")
        other = next((d for d in self.others if d.code == written_for), None)
        if other is not None:
            self.add(
                ("ruleset",),
                "roster.wrong_ruleset",
                f"This roster is written for {other.label} ({other.code}), "
                f"but the campaign plays {self.ruleset.label} ({self.ruleset.code}).",
            )
        self.units(data.get("units"), ())
        self.resolve_attachments()
        return self.findings

    def units(self, units: object, path: Path) -> None:
        if isinstance(units, list):
            for index, unit in enumerate(units):
                if isinstance(unit, Mapping):
                    self.unit(unit, (*path, "units", index))

    def unit(self, unit: Mapping[str, Any], path: Path) -> None:
        if id(unit) in self.open_units:
            self.add(path, "roster.invalid", "A unit cannot contain itself.")
            return
        self.open_units.add(id(unit))
        self.check_unit(unit, path)
        self.open_units.discard(id(unit))

    def check_unit(self, unit: Mapping[str, Any], path: Path) -> None:
        name = unit.get("name")
        called = f'"{name}"' if isinstance(name, str) and name else "This unit"
        self.key(unit, path)
        kind_value = unit.get("kind")
        kind = UnitKind(kind_value) if kind_value in set(UnitKind) else None
        given = {field for field, value in unit.items() if value is not None}
        if kind is not None and kind.is_formation:
            self.formation(unit, path, called, kind, given)
        else:
            self.ruleset_fields(unit, path, called, kind, given)
            self.leaders(unit, path, called)
        if self.ruleset.vehicle_armour:
            self.vehicle_armour(unit, path)
        self.units(unit.get("units"), path)

    def key(self, unit: Mapping[str, Any], path: Path) -> None:
        key = unit.get("key")
        if isinstance(key, str):
            first = self.keys.setdefault(key, path)
            if first != path:
                self.add(
                    (*path, "key"),
                    "roster.duplicate_key",
                    f'The key "{key}" is already used by {_path_text(first)} '
                    f"(line {self.line_of((*first, 'key'))}); keys must be unique in the file.",
                )
        attached = unit.get("attached_to")
        if isinstance(attached, str):
            self.attachments.append((path, attached, key if isinstance(key, str) else None))

    def formation(
        self, unit: Mapping[str, Any], path: Path, called: str, kind: UnitKind, given: set[str]
    ) -> None:
        for field in _FORMATION_FORBIDDEN:
            if field in given:
                self.add(
                    (*path, field),
                    "roster.not_allowed",
                    f"{called} is a {kind.value}, a formation: it has no {field} of its own. "
                    f"Give {field} to the units inside it.",
                )
        troopers = unit.get("troopers")
        if isinstance(troopers, list) and troopers:
            self.add(
                (*path, "troopers"),
                "roster.not_allowed",
                f"{called} is a {kind.value}, a formation: its troopers belong in its units "
                "(a command unit for its HQ), not in the formation itself.",
            )

    def ruleset_fields(
        self,
        unit: Mapping[str, Any],
        path: Path,
        called: str,
        kind: UnitKind | None,
        given: set[str],
    ) -> None:
        label = self.ruleset.label
        for field, owner in self.foreign_ratings().items():
            if field in given:
                self.add(
                    (*path, field),
                    "roster.wrong_ruleset",
                    f"{field} is a {owner.label} value; a {label} roster does not use it.",
                )
        # Without a valid kind it is unknown whether the unit is a formation, so nothing is
        # required of it yet; the kind's own problem is reported.
        if kind is not None:
            for field in ("quality", *self.ruleset.required_ratings):
                if field not in given:
                    self.add(
                        (*path, field),
                        "roster.missing_field",
                        f"{called} needs a {field}: every {label} unit that is not a formation "
                        "has one.",
                    )
        self.named_value(unit, path, "quality", self.ruleset.qualities)
        for rating, names in self.ruleset.rating_names.items():
            self.named_value(unit, path, rating, names)

    def foreign_ratings(self) -> dict[str, RulesetDefinition]:
        """Unit ratings other rulesets use and this one does not, and whose they are."""
        own = set(self.ruleset.unit_ratings)
        return {
            field: other
            for other in reversed(self.others)
            for field in other.unit_ratings
            if field not in own
        }

    def owner_of(self, field: str, value: str) -> RulesetDefinition | None:
        """Another ruleset whose ``field`` (a quality, a rating) can be ``value``."""
        for other in self.others:
            names = other.qualities if field == "quality" else other.rating_names.get(field, ())
            if value in names:
                return other
        return None

    def named_value(
        self,
        unit: Mapping[str, Any],
        path: Path,
        field: str,
        allowed: Sequence[str],
    ) -> None:
        value = unit.get(field)
        if not isinstance(value, str) or value in allowed:
            return
        label = self.ruleset.label
        owner = self.owner_of(field, value)
        if owner is not None:
            message = f'"{value}" is a {owner.label} {field}; {label} uses {_or_list(allowed)}.'
            self.add((*path, field), "roster.wrong_ruleset", message)
        elif value.lower() in allowed:
            message = f'The {field} "{value}" must be written in lower case: "{value.lower()}".'
            self.add((*path, field), "roster.invalid", message)
        else:
            message = f'The {field} "{value}" is not a {label} {field}; use {_or_list(allowed)}.'
            self.add((*path, field), "roster.invalid", message)

    def leaders(self, unit: Mapping[str, Any], path: Path, called: str) -> None:
        troopers = unit.get("troopers")
        if not isinstance(troopers, list):
            return
        leaders = [
            index
            for index, trooper in enumerate(troopers)
            if isinstance(trooper, Mapping) and trooper.get("role") == TrooperRole.LEADER.value
        ]
        for index in leaders[1:]:
            first, again = troopers[leaders[0]], troopers[index]
            self.add(
                (*path, "troopers", index, "role"),
                "roster.two_leaders",
                f"{called} already has a leader ({_show(first.get('name'))}, "
                f"troopers[{leaders[0]}]); {_show(again.get('name'))} cannot be a second one. "
                "A unit has one leader: make the other second_in_command.",
            )

    def vehicle_armour(self, unit: Mapping[str, Any], path: Path) -> None:
        vehicles = unit.get("vehicles")
        if not isinstance(vehicles, list):
            return
        for index, vehicle in enumerate(vehicles):
            if not isinstance(vehicle, Mapping):
                continue
            size, armour = vehicle.get("size"), vehicle.get("armour")
            # Out-of-range or mistyped values are already the models' problem.
            if type(size) is int and type(armour) is int and armour <= 5 and 1 <= size < armour:
                self.add(
                    (*path, "vehicles", index, "armour"),
                    "roster.invalid",
                    f"Armour class {armour} is more than the vehicle's size class {size}; "
                    "no vehicle may carry armour above its size class (SG2 P.31).",
                )

    def resolve_attachments(self) -> None:
        for path, target, own_key in self.attachments:
            if target == own_key:
                self.add(
                    (*path, "attached_to"),
                    "roster.attached_to_self",
                    f'A unit cannot be attached to itself; "{target}" is this unit\'s own key.',
                )
            elif target not in self.keys:
                close = difflib.get_close_matches(target, list(self.keys), n=1)
                hint = f' Did you mean "{close[0]}"?' if close else ""
                self.add(
                    (*path, "attached_to"),
                    "roster.unknown_key",
                    f'attached_to names "{target}", but no unit in the file has that key.{hint}',
                )


# --- the entry points -----------------------------------------------------------------------------


def parse_roster(text: str, *, ruleset: str, source: str = "<roster>") -> ForceSpec:
    """Read a roster file for a campaign played under ``ruleset`` ("sg2" or "fad").

    ``text`` is JSON if it starts with "{", YAML otherwise. ``source`` names the file in error
    messages. Raises :class:`RosterFileError` listing every problem, ordered by line.
    """
    campaign_ruleset = definition(ruleset)
    text = text.removeprefix("\ufeff")
    lines = _Lines()
    findings: list[_Finding] = []
    try:
        if text.lstrip().startswith("{"):
            data = _read_json(text, lines, findings)
        else:
            data = _read_yaml(text, lines, findings)
    except _SyntaxProblem as problem:
        syntax = RosterProblem("", problem.line, "", "roster.syntax", problem.message)
        raise RosterFileError([syntax], source=source) from None
    if data is None:
        empty = RosterProblem(
            "",
            1,
            "",
            "roster.invalid",
            "The file is empty; a roster needs a name, a side and units.",
        )
        raise RosterFileError([empty], source=source)
    return _validate(data, campaign_ruleset, lines, findings, source)


def validate_roster(data: object, *, ruleset: str, source: str = "<roster>") -> ForceSpec:
    """Check a roster already read into Python data (lines are then unknown)."""
    return _validate(data, definition(ruleset), _Lines(), [], source)


def _validate(
    data: object,
    ruleset: RulesetDefinition,
    lines: _Lines,
    findings: list[_Finding],
    source: str,
) -> ForceSpec:
    spec: ForceSpec | None = None
    try:
        spec = ForceSpec.model_validate(data)
    except ValidationError as error:
        findings.extend(
            _describe(item)
            for item in error.errors(include_url=False)
            # A unit that contains itself is reported by the tree check, in words.
            if item["type"] != "recursion_loop"
        )
    if isinstance(data, Mapping):
        findings.extend(_TreeCheck(ruleset, lines.of).run(data))
    if spec is not None and not findings:
        return spec

    problems: list[RosterProblem] = []
    seen: set[tuple[Path, str, str]] = set()
    for finding in findings:
        identity = (finding.path, finding.code, finding.message)
        if identity in seen:
            continue
        seen.add(identity)
        problems.append(
            RosterProblem(
                path=_path_text(finding.path),
                line=lines.of(finding.path),
                field=_field_of(finding.path),
                code=finding.code,
                message=finding.message,
            )
        )
    problems.sort(key=lambda problem: (problem.line is None, problem.line or 0))
    raise RosterFileError(problems, source=source)


if __name__ == "__main__":  # regenerate docs/roster-format.schema.json
    print(json.dumps(roster_json_schema(), indent=2, ensure_ascii=False))
