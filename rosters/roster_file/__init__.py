"""The roster file: how an umpire writes down a force to load it into a campaign.

A roster file is YAML or JSON holding one force: its name and side, and a tree of units, each with
its troopers and vehicles. The format is described for people in ``docs/roster-format.md`` and for
editors in ``docs/roster-format.schema.json`` (the output of :func:`roster_json_schema`).

:func:`parse_roster` is the only way in: it checks the shape of the file with the pydantic
models of :mod:`.spec`, then the rules that span fields, units or the campaign's ruleset
(:mod:`.checks`), and reports every problem it finds at once, each with the line of the file it
is on (:mod:`.reading`, :mod:`.problems`). A :class:`ForceSpec` built any other way
has only had its shape checked.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import ValidationError

from rosters.roster_file.checks import _TreeCheck
from rosters.roster_file.problems import (
    RosterFileError,
    RosterProblem,
    _describe,
    _field_of,
    _Finding,
    _path_text,
)
from rosters.roster_file.reading import _Lines, _read_json, _read_yaml, _SyntaxProblem
from rosters.roster_file.spec import (
    ARMOUR_DICE,
    COMMAND_LEVELS,
    FAD_LEADER_EXPERIENCES,
    FAD_QUALITIES,
    FAD_RESOLVES,
    FATIGUES,
    MOTIVATIONS,
    SG2_QUALITIES,
    ForceSpec,
    Path,
    TrooperSpec,
    UnitEntry,
    UnitSpec,
    VehicleSpec,
    count_troopers,
    count_vehicles,
    iter_units,
    roster_json_schema,
)
from rules.rulesets import RulesetDefinition, definition

__all__ = [
    "ARMOUR_DICE",
    "COMMAND_LEVELS",
    "FAD_LEADER_EXPERIENCES",
    "FAD_QUALITIES",
    "FAD_RESOLVES",
    "FATIGUES",
    "MOTIVATIONS",
    "SG2_QUALITIES",
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
        syntax = RosterProblem("", problem.line, "", problem.code, problem.message)
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
