"""The rules a roster file must keep that its models cannot see alone: across fields, across
units, and by the campaign's ruleset.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rosters.roster_file.problems import _Finding, _path_text, _show
from rosters.roster_file.spec import _FORMATION_FORBIDDEN, Path, _or_list
from rosters.vocabulary import TrooperRole, UnitKind
from rules.rulesets import RulesetDefinition, definitions

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
            self.leader_experience(unit, path, kind)
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

    def leader_experience(self, unit: Mapping[str, Any], path: Path, kind: UnitKind | None) -> None:
        """A squad leader's experience (FaD p.11): only the leader of a squad has one, and only
        in a ruleset that keeps it."""
        troopers = unit.get("troopers")
        if not isinstance(troopers, list):
            return
        allowed = self.ruleset.leader_experiences
        for index, trooper in enumerate(troopers):
            if not isinstance(trooper, Mapping) or trooper.get("experience") is None:
                continue
            at = (*path, "troopers", index)
            if not allowed:
                owner = next((o for o in self.others if o.leader_experiences), None)
                whose = f"experience is a {owner.label} value; " if owner else ""
                self.add(
                    (*at, "experience"),
                    "roster.wrong_ruleset",
                    f"{whose}a {self.ruleset.label} roster does not use experience.",
                )
            elif trooper.get("role") != TrooperRole.LEADER.value or (
                kind is not None and kind is not UnitKind.SQUAD
            ):
                self.add(
                    (*at, "experience"),
                    "roster.not_allowed",
                    f"{_show(trooper.get('name'))} cannot have an experience: only the leader "
                    "(role leader) of a squad has one.",
                )
            else:
                self.named_value(trooper, at, "experience", allowed)

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
