"""Battle actions as forms: each action's parameters (its pydantic model) become form fields,
and a posted form becomes the action's parameters again.

The form is generated, not written per action, so every action of every ruleset has one and a
new action needs no template. A field is shown by its type: a choice (an enum or literal) as a
select, a flag as a checkbox, a number with its bounds, an id as a select of what the battle
holds (its units, their troopers and vehicles, the sides' fire missions, chosen by the field's
name), a list of ids as a multiple select, and anything nested (a burst, a weapon per figure) as
JSON with its schema's description.
"""

from __future__ import annotations

import enum
import json
import types
import typing
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from django.http import QueryDict
from pydantic import BaseModel
from pydantic.fields import FieldInfo

# Parameters every action has that the form fills itself or leaves to the API.
NOT_ASKED = frozenset({"battle_id", "hidden", "expected_version"})
# Ids of troopers whose names do not say so.
TROOPER_FIELDS = frozenset(
    {
        "sniper_id",
        "closest_id",
        "successor_id",
        "aimed_at",
        "in_contact_ids",
        "figures",
        "counting_order",
        "occupant_ids",
        "target_order",
    }
)

Kind = Literal["choice", "flag", "integer", "number", "text", "entity", "entities", "json"]


@dataclass
class Choice:
    value: str
    label: str
    group: str = ""


@dataclass
class FormField:
    """One parameter of an action as the form shows it."""

    name: str
    label: str
    kind: Kind
    required: bool
    help: str = ""
    choices: list[Choice] = field(default_factory=list)
    minimum: float | None = None
    maximum: float | None = None
    step: str = "1"
    value: Any = None
    error: str = ""

    @property
    def selected(self) -> set[str]:
        if isinstance(self.value, list):
            return {str(v) for v in self.value}
        return {str(self.value)} if self.value not in (None, "") else set()

    @property
    def groups(self) -> list[tuple[str, list[Choice]]]:
        grouped: dict[str, list[Choice]] = {}
        for choice in self.choices:
            grouped.setdefault(choice.group, []).append(choice)
        return list(grouped.items())


@dataclass
class Entities:
    """What the battle holds that an id may name, each with a label for the umpire."""

    units: list[Choice]
    troopers: list[Choice]
    vehicles: list[Choice]
    missions: list[Choice]
    sides: list[Choice]

    def for_field(self, name: str) -> list[Choice]:
        if name in TROOPER_FIELDS or "trooper" in name:
            return self.troopers
        if "vehicle" in name:
            return self.vehicles
        if "mission" in name:
            return self.missions
        return self.units


def _plain(annotation: Any) -> tuple[Any, bool]:
    """The annotation without ``None``, and whether ``None`` was allowed."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        kept = [a for a in typing.get_args(annotation) if a is not type(None)]
        plain = kept[0] if len(kept) == 1 else annotation
        return plain, len(kept) != len(typing.get_args(annotation))
    return annotation, False


def _literal_choices(annotation: Any) -> list[Choice] | None:
    if typing.get_origin(annotation) is Literal:
        return [Choice(str(v), _words(v)) for v in typing.get_args(annotation)]
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return [Choice(str(m.value), _words(m.value)) for m in annotation]
    return None


def _words(value: Any) -> str:
    if isinstance(value, int) and value in (4, 6, 8, 10, 12):
        return f"d{value}"
    return str(value).replace("_", " ") or "none"


def _bounds(info: FieldInfo) -> tuple[float | None, float | None]:
    low = high = None
    for meta in info.metadata:
        low = getattr(meta, "ge", None) if getattr(meta, "ge", None) is not None else low
        high = getattr(meta, "le", None) if getattr(meta, "le", None) is not None else high
    return low, high


def form_fields(params: type[BaseModel], entities: Entities) -> list[FormField]:
    """The fields of an action's form, in the order its parameters are declared."""
    fields: list[FormField] = []
    for name, info in params.model_fields.items():
        if name in NOT_ASKED:
            continue
        annotation, optional = _plain(info.annotation)
        required = info.is_required()
        label = name.replace("_", " ").capitalize()
        help_text = info.description or ""
        choices = _literal_choices(annotation)
        origin = typing.get_origin(annotation)
        if name == "side" and annotation is str:
            fields.append(FormField(name, label, "choice", required, help_text, entities.sides))
        elif choices is not None:
            if optional:
                choices = [Choice("", "none"), *choices]
            fields.append(FormField(name, label, "choice", required, help_text, choices))
        elif annotation is bool:
            fields.append(FormField(name, label, "flag", False, help_text))
        elif annotation in (int, float):
            low, high = _bounds(info)
            fields.append(
                FormField(
                    name,
                    label,
                    "integer" if annotation is int else "number",
                    required,
                    help_text,
                    minimum=low,
                    maximum=high,
                    step="1" if annotation is int else "any",
                )
            )
        elif annotation is uuid.UUID:
            listed = entities.for_field(name)
            if optional:
                listed = [Choice("", "none"), *listed]
            fields.append(FormField(name, label, "entity", required, help_text, listed))
        elif origin is list and typing.get_args(annotation)[0] is uuid.UUID:
            fields.append(
                FormField(name, label, "entities", False, help_text, entities.for_field(name))
            )
        elif origin is list and (inner := _literal_choices(typing.get_args(annotation)[0])):
            fields.append(FormField(name, label, "entities", False, help_text, inner))
        elif annotation is str:
            fields.append(FormField(name, label, "text", required, help_text))
        else:
            fields.append(
                FormField(name, label, "json", required, help_text or "JSON, as the API takes it.")
            )
    return fields


def params_from(
    data: QueryDict, fields: Sequence[FormField]
) -> tuple[dict[str, Any], dict[str, str]]:
    """The action's parameters from a posted form, and the fields that could not be read."""
    params: dict[str, Any] = {}
    unreadable: dict[str, str] = {}
    for f in fields:
        if f.kind == "flag":
            params[f.name] = data.get(f.name) == "on"
            continue
        if f.kind == "entities":
            chosen = [v for v in data.getlist(f.name) if v]
            if chosen:
                params[f.name] = chosen
            continue
        raw = (data.get(f.name) or "").strip()
        if raw == "":
            continue
        if f.kind == "integer":
            try:
                params[f.name] = int(raw)
            except ValueError:
                unreadable[f.name] = "A whole number."
        elif f.kind == "number":
            try:
                params[f.name] = float(raw)
            except ValueError:
                unreadable[f.name] = "A number."
        elif f.kind == "json":
            try:
                params[f.name] = json.loads(raw)
            except ValueError:
                unreadable[f.name] = "Not JSON: write it as the API takes it."
        elif f.kind == "choice" and raw.lstrip("-").isdigit():
            params[f.name] = int(raw)
        else:
            params[f.name] = raw
    return params, unreadable


def with_values(
    fields: Sequence[FormField], data: Mapping[str, Any], errors: Mapping[str, str]
) -> list[FormField]:
    """The fields again, holding what was posted and the message of each refusal."""
    shown = []
    for f in fields:
        if f.kind == "entities" and isinstance(data, QueryDict):
            value: Any = data.getlist(f.name)
        elif f.kind == "flag":
            value = data.get(f.name) == "on"
        else:
            value = data.get(f.name, "")
        shown.append(
            FormField(
                f.name,
                f.label,
                f.kind,
                f.required,
                f.help,
                f.choices,
                f.minimum,
                f.maximum,
                f.step,
                value,
                errors.get(f.name, ""),
            )
        )
    return shown


def faces_from(data: QueryDict) -> tuple[list[int], str]:
    """The faces entered in the dice fields, in order, up to the first left empty; or what is
    wrong with them."""
    faces: list[int] = []
    for raw in data.getlist("face"):
        raw = raw.strip()
        if not raw:
            break
        if not raw.isdigit():
            return [], f"{raw!r} is not a face: a die shows a whole number."
        faces.append(int(raw))
    return faces, ""
