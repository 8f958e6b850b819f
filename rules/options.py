"""Campaign options: the choices each ruleset leaves to the umpire, with the book's defaults.

Each ruleset's options are one frozen dataclass (``SG2Options``, ``FaDOptions``) whose fields carry
:func:`option` metadata, which records a description, the book and page, the allowed range
or choices, and, for an option of a procedure the service does not run yet, the procedure it
applies to (published as ``x-applies-to`` in the schema). A field may be a bool, an int
(optionally ``None``), an enum, a tuple of enum members (a set of choices), or a nested options
dataclass (a simple group such as repair times).

Field names are the last part of the rules digests' ``[OPTION key = default]`` keys, so an options
object can be passed straight through to a procedure: ``procedure(..., replacement_die=opts.
replacement_die)``.

An options class may name the options it no longer has, each with why, in a ``RETIRED`` class
attribute (a mapping): stored options that still hold them are read without them, and a
campaign that asks for one is told why it is gone (``options.retired``).

This module validates (:func:`parse_options`), serialises (:func:`options_to_dict`) and describes
(:func:`options_schema`, a JSON Schema) any such dataclass.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rules.errors import RuleError
from rules.rulesets import Ruleset, RulesetDefinition, definition

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


class ForcesVisibility(enum.StrEnum):
    """What a player sees of the forces of other players (not a rule of either book: a campaign
    setting of Muster's, in both rulesets)."""

    OUTLINE = "outline"  # name, side and number of units
    FULL = "full"  # everything, as the umpire sees it


@dataclass(frozen=True, slots=True)
class OptionProblem:
    """One thing wrong with a set of options: which field, a stable code, and a message."""

    field: str
    code: str
    message: str


class OptionsError(RuleError):
    """Options that cannot be used; ``errors`` lists every problem found, the first one being
    the error's own code, message and field."""

    def __init__(self, errors: Sequence[OptionProblem]) -> None:
        self.errors: list[OptionProblem] = list(errors)
        first = self.errors[0]
        super().__init__(first.code, "; ".join(f"{p.field}: {p.message}" for p in self.errors))
        self.field = first.field or None


def option(
    *,
    description: str,
    source: str,
    minimum: int | None = None,
    maximum: int | None = None,
    choices: Sequence[enum.Enum] | None = None,
    applies_to: str | None = None,
) -> dict[str, Any]:
    """The metadata of an option field: what it means, where the book says so, what it allows.

    Use it as ``name: int = field(default=3, metadata=option(description=..., source=...))``.
    ``minimum``/``maximum`` bound an int; ``choices`` narrows an enum (or tuple of enum members)
    to some of its members. A nested group of options is a frozen dataclass given with
    ``default_factory``. ``applies_to`` names the procedure the option belongs to when the
    service does not run that procedure yet (``"sg2.fire_combat"``): the option is kept, with
    the book's default, for when it does, and the schema says so (``x-applies-to``).
    """
    return {
        "description": description,
        "source": source,
        "minimum": minimum,
        "maximum": maximum,
        "choices": tuple(choices) if choices is not None else None,
        "applies_to": applies_to,
    }


def option_procedures(options_type: type) -> dict[str, str]:
    """The options of ``options_type`` that belong to a procedure the service does not run yet,
    each with that procedure."""
    return {
        f.name: f.metadata["applies_to"]
        for f in dataclasses.fields(options_type)
        if f.metadata.get("applies_to")
    }


def retired_options(options_type: type) -> Mapping[str, str]:
    """The options ``options_type`` no longer has, each with why it was removed."""
    retired: Mapping[str, str] = getattr(options_type, "RETIRED", {})
    return retired


# --- field kinds ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Kind:
    """What a field's type allows, worked out once from its annotation."""

    name: str  # "bool", "int", "enum", "enum_set" or "group"
    optional: bool = False
    enum_type: type[enum.Enum] | None = None
    group_type: type | None = None

    # ``_kind`` gives every "enum" and "enum_set" kind an enum type and every "group" kind a
    # group type, and these are only asked for on kinds of those names.
    @property
    def enum_class(self) -> type[enum.Enum]:
        assert self.enum_type is not None, f"a {self.name} kind has no enum type"
        return self.enum_type

    @property
    def group_class(self) -> type:
        assert self.group_type is not None, f"a {self.name} kind has no group type"
        return self.group_type


def _kind(annotation: Any) -> _Kind:
    optional = False
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) != 1:
            raise TypeError(f"Unsupported option type {annotation!r}.")
        annotation, optional = args[0], True
        origin = typing.get_origin(annotation)
    if origin is tuple:
        member, ellipsis = typing.get_args(annotation)
        if ellipsis is not Ellipsis or not issubclass(member, enum.Enum):
            raise TypeError(f"Unsupported option type {annotation!r}.")
        return _Kind("enum_set", optional, enum_type=member)
    if annotation is bool:
        return _Kind("bool", optional)
    if annotation is int:
        return _Kind("int", optional)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _Kind("enum", optional, enum_type=annotation)
    if isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
        return _Kind("group", optional, group_type=annotation)
    raise TypeError(f"Unsupported option type {annotation!r}.")


_FIELDS: dict[type, tuple[tuple[dataclasses.Field[Any], _Kind], ...]] = {}


def _fields(options_type: type) -> tuple[tuple[dataclasses.Field[Any], _Kind], ...]:
    # Resolving the annotations is most of the cost of parsing options, and every read of a
    # campaign parses them: a class's fields never change, so they are resolved once.
    fields = _FIELDS.get(options_type)
    if fields is None:
        hints = typing.get_type_hints(options_type)
        fields = tuple((f, _kind(hints[f.name])) for f in dataclasses.fields(options_type))
        _FIELDS[options_type] = fields
    return fields


def _allowed(f: dataclasses.Field[Any], kind: _Kind) -> tuple[enum.Enum, ...]:
    return f.metadata.get("choices") or tuple(kind.enum_class)


def _json_value(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_json_value(item) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return options_to_dict(value)
    return value


def _describe(choices: Sequence[enum.Enum]) -> str:
    return ", ".join(repr(c.value) for c in choices)


def _parse_enum(
    path: str, raw: object, allowed: tuple[enum.Enum, ...], problems: list[OptionProblem]
) -> enum.Enum | None:
    if isinstance(raw, enum.Enum):
        raw = raw.value
    value_type = type(allowed[0].value)
    if isinstance(raw, bool) or not isinstance(raw, value_type):
        problems.append(
            OptionProblem(
                path,
                "options.type",
                f"expected one of {_describe(allowed)}, not {raw!r}.",
            )
        )
        return None
    for choice in allowed:
        if choice.value == raw:
            return choice
    problems.append(
        OptionProblem(path, "options.choice", f"{raw!r} is not one of {_describe(allowed)}.")
    )
    return None


def _parse_value(
    path: str,
    f: dataclasses.Field[Any],
    kind: _Kind,
    raw: object,
    current: Any,
    problems: list[OptionProblem],
) -> Any:
    """The field's value parsed from ``raw``, or ``None`` after recording a problem."""
    before = len(problems)
    if raw is None and kind.optional:
        return None
    if kind.name == "bool":
        if isinstance(raw, bool):
            return raw
        problems.append(
            OptionProblem(path, "options.type", f"expected true or false, not {raw!r}.")
        )
    elif kind.name == "int":
        if isinstance(raw, bool) or not isinstance(raw, int):
            problems.append(
                OptionProblem(path, "options.type", f"expected a whole number, not {raw!r}.")
            )
        else:
            low, high = f.metadata.get("minimum"), f.metadata.get("maximum")
            if (low is not None and raw < low) or (high is not None and raw > high):
                problems.append(
                    OptionProblem(
                        path,
                        "options.range",
                        f"{raw} is outside the allowed range {_range_text(low, high)}.",
                    )
                )
            else:
                return raw
    elif kind.name == "enum":
        return _parse_enum(path, raw, _allowed(f, kind), problems)
    elif kind.name == "enum_set":
        allowed = _allowed(f, kind)
        if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence | frozenset | set):
            problems.append(
                OptionProblem(path, "options.type", f"expected a list of choices, not {raw!r}.")
            )
            return None
        chosen = [
            _parse_enum(f"{path}[{i}]", item, allowed, problems) for i, item in enumerate(raw)
        ]
        if len(problems) > before:
            return None
        if len(set(chosen)) != len(chosen):
            problems.append(OptionProblem(path, "options.choice", "a choice is listed twice."))
            return None
        # Declaration order, so equal sets of choices compare equal.
        return tuple(c for c in kind.enum_class if c in chosen)
    else:  # group
        if not isinstance(raw, Mapping):
            problems.append(
                OptionProblem(path, "options.type", f"expected an object, not {raw!r}.")
            )
            return None
        return _update(current, raw, path + ".", problems)
    return None


def _range_text(low: int | None, high: int | None) -> str:
    if high is None:
        return f"{low} or more"
    if low is None:
        return f"{high} or less"
    return f"{low} to {high}"


def _update(
    base: Any,
    data: Mapping[str, object],
    prefix: str,
    problems: list[OptionProblem],
    refuse_retired: bool = False,
) -> Any:
    fields = {f.name: (f, kind) for f, kind in _fields(type(base))}
    retired = retired_options(type(base))
    updates: dict[str, Any] = {}
    for key, raw in data.items():
        path = f"{prefix}{key}"
        if key in retired and key not in fields:
            if refuse_retired:
                problems.append(
                    OptionProblem(
                        path, "options.retired", f"the option {key!r} was removed: {retired[key]}"
                    )
                )
            continue
        if key not in fields:
            problems.append(
                OptionProblem(path, "options.unknown", f"there is no option called {key!r}.")
            )
            continue
        f, kind = fields[key]
        before = len(problems)
        value = _parse_value(path, f, kind, raw, getattr(base, key), problems)
        if len(problems) == before:
            updates[key] = value
    if len(problems):
        return base
    try:
        return dataclasses.replace(base, **updates)
    except OptionsError as error:
        problems.extend(dataclasses.replace(p, field=f"{prefix}{p.field}") for p in error.errors)
        return base


def check_options(options: Any) -> None:
    """Refuse an options object whose fields break their declared types, ranges or choices.

    Options classes call this from ``__post_init__`` so that an object built directly is held to
    the same rules as one parsed from JSON. A class may add cross-field checks by defining
    ``cross_field_problems(self) -> list[OptionProblem]``.
    """
    problems: list[OptionProblem] = []
    for f, kind in _fields(type(options)):
        value = getattr(options, f.name)
        if value is None and kind.optional:
            continue
        if kind.name == "group":
            # A group checks its own fields when it is built.
            if not isinstance(value, kind.group_class):
                problems.append(
                    OptionProblem(f.name, "options.type", f"expected a group, not {value!r}.")
                )
        elif kind.name == "enum_set":
            members = value if isinstance(value, tuple) else (value,)
            if not isinstance(value, tuple) or not all(
                isinstance(m, kind.enum_class) for m in members
            ):
                problems.append(
                    OptionProblem(
                        f.name, "options.type", f"expected a tuple of choices, not {value!r}."
                    )
                )
            else:
                _parse_value(f.name, f, kind, list(members), value, problems)
        elif kind.name == "enum" and not isinstance(value, kind.enum_class):
            problems.append(
                OptionProblem(
                    f.name, "options.type", f"expected a {kind.enum_class.__name__}, not {value!r}."
                )
            )
        else:
            _parse_value(f.name, f, kind, value, value, problems)
    cross = getattr(options, "cross_field_problems", None)
    if not problems and cross is not None:
        problems.extend(cross())
    if problems:
        raise OptionsError(problems)


# --- the public functions ------------------------------------------------------------------------


def options_type(ruleset: Ruleset | RulesetDefinition | str) -> type:
    """The options dataclass of a ruleset."""
    return _as_ruleset(ruleset).options_type


def _as_ruleset(ruleset: Ruleset | RulesetDefinition | str) -> RulesetDefinition:
    try:
        return definition(ruleset)
    except RuleError as exc:
        raise RuleError("options.refused", exc.message) from None


def default_options(ruleset: Ruleset | RulesetDefinition | str) -> Any:
    """The ruleset's options with every value at the book's default."""
    return options_type(ruleset)()


def parse_options(
    ruleset: Ruleset | RulesetDefinition | str,
    data: Mapping[str, object],
    *,
    base: Any = None,
    refuse_retired: bool = False,
) -> Any:
    """Options from JSON-like ``data``; keys left out keep their value in ``base`` (or the default).

    Unknown keys, wrong types, values out of range and choices not on the list are all refused
    together in one :class:`OptionsError`. An option the ruleset has retired is left out of
    stored options read back; ``refuse_retired`` (for a campaign's new choices) refuses it,
    saying why it was removed.
    """
    ruleset = _as_ruleset(ruleset)
    options_class = ruleset.options_type
    if base is None:
        stored = _as_json_text(data)
        if stored is not None:
            return _parse_json_text(ruleset.code, stored, refuse_retired)
        base = options_class()
    elif not isinstance(base, options_class):
        raise RuleError(
            "options.refused",
            f"The base options are {type(base).__name__}, not {options_class.__name__}.",
        )
    return _parse(options_class, base, data, refuse_retired)


def _as_json_text(data: object) -> str | None:
    """``data`` as JSON text when it is plain JSON (as a campaign's stored options are), else
    None. Keys keep their order: problems are reported in it."""
    if not isinstance(data, Mapping):
        return None
    try:
        text = json.dumps(data)
    except (TypeError, ValueError):
        return None
    # Tuples, enum members and non-string keys would come back as something else.
    return text if json.loads(text) == data else None


@functools.lru_cache(maxsize=1024)
def _parse_json_text(ruleset: str, text: str, refuse_retired: bool) -> Any:
    # Every read of a campaign parses its stored options; the result is a frozen dataclass, so
    # one parse of the same JSON serves them all. A refusal raises, and is not kept.
    options_class = options_type(ruleset)
    return _parse(options_class, options_class(), json.loads(text), refuse_retired)


def _parse(options_class: type, base: Any, data: object, refuse_retired: bool) -> Any:
    if not isinstance(data, Mapping):
        raise OptionsError(
            [OptionProblem("", "options.type", f"expected an object of options, not {data!r}.")]
        )
    problems: list[OptionProblem] = []
    result = _update(base, data, "", problems, refuse_retired)
    if problems:
        raise OptionsError(problems)
    return result


def options_to_dict(options: Any) -> dict[str, Any]:
    """The options as a JSON-ready dict: enums as their values, sets of choices as lists."""
    return {f.name: _json_value(getattr(options, f.name)) for f in dataclasses.fields(options)}


def options_schema(ruleset: Ruleset | RulesetDefinition | str) -> dict[str, Any]:
    """A JSON Schema (draft 2020-12) of the ruleset's options, with defaults and descriptions."""
    ruleset = _as_ruleset(ruleset)
    schema = _object_schema(options_type(ruleset), default_options(ruleset))
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "title": f"{ruleset.label} campaign options",
        **schema,
    }


def _object_schema(options_class: type, default: Any) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for f, kind in _fields(options_class):
        value = getattr(default, f.name)
        if kind.name == "group":
            prop = _object_schema(kind.group_type, value)  # type: ignore[arg-type]
        else:
            prop = _value_schema(f, kind)
        prop["description"] = f"{f.metadata['description']} ({f.metadata['source']})"
        prop["default"] = _json_value(value)
        if f.metadata.get("applies_to"):
            # Kept for a procedure the service does not run yet: it changes nothing until then.
            prop["x-applies-to"] = f.metadata["applies_to"]
        properties[f.name] = prop
    return {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }


def _value_schema(f: dataclasses.Field[Any], kind: _Kind) -> dict[str, Any]:
    prop: dict[str, Any]
    if kind.name == "bool":
        prop = {"type": "boolean"}
    elif kind.name == "int":
        prop = {"type": "integer"}
        if f.metadata.get("minimum") is not None:
            prop["minimum"] = f.metadata["minimum"]
        if f.metadata.get("maximum") is not None:
            prop["maximum"] = f.metadata["maximum"]
    else:
        values = [c.value for c in _allowed(f, kind)]
        item = {"type": "integer" if isinstance(values[0], int) else "string", "enum": values}
        prop = (
            item if kind.name == "enum" else {"type": "array", "items": item, "uniqueItems": True}
        )
    if kind.optional:
        prop["type"] = [prop["type"], "null"]
        if "enum" in prop:
            prop["enum"] = [*prop["enum"], None]
    return prop
