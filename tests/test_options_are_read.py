"""No inert option: every campaign option of every ruleset is read by the code that runs the
campaign, or names the procedure it waits for (``applies_to``, published as ``x-applies-to``).

The code is read as syntax trees, never imported: an option counts as read by the service when
an app outside ``rules/`` reads it from a campaign's options (``options.<name>``,
``ctx.options.<name>``) or names it in a string (``getattr(options, "<name>")``), and as read by
the rules when a procedure in ``rules/`` takes it as a parameter of the same name. A nested
group's own fields must each be read somewhere too.

``PENDING`` lists the options still inert, each with what honouring it needs (issue 11). It may
only shrink: an option read by the service must leave it.
"""

from __future__ import annotations

import ast
import dataclasses
import typing
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from rules.options import option_procedures
from rules.rulesets import definitions

ROOT = Path(__file__).resolve().parents[1]
APPS = ("rules", "eventlog", "campaigns", "rosters", "battles", "pages", "demo")
OPTION_MODULES = {
    Path("rules/options.py"),
    Path("rules/sg2/options.py"),
    Path("rules/fad/options.py"),
}

PENDING: dict[str, str] = {}


@dataclasses.dataclass
class Reads:
    """What one part of the code reads: names in calls, parameters, attributes and strings."""

    names: set[str] = dataclasses.field(default_factory=set)
    from_options: set[str] = dataclasses.field(default_factory=set)


def _is_options(node: ast.expr) -> bool:
    """``options``, ``opts`` or ``<anything>.options``."""
    if isinstance(node, ast.Name):
        return node.id in ("options", "opts")
    return isinstance(node, ast.Attribute) and node.attr == "options"


def _files() -> Iterator[Path]:
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            relative = path.relative_to(ROOT)
            if relative not in OPTION_MODULES and "migrations" not in relative.parts:
                yield relative


@cache
def reads() -> dict[str, Reads]:
    """For the rules (``rules/``) and the service (every other app): the names they read."""
    found = {"rules": Reads(), "service": Reads()}
    for relative in _files():
        part = found["rules" if relative.parts[0] == "rules" else "service"]
        tree = ast.parse((ROOT / relative).read_text(), filename=str(relative))
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword | ast.arg) and node.arg:
                # A keyword argument passed, or a procedure's parameter of that name.
                part.names.add(node.arg)
            elif isinstance(node, ast.Attribute):
                part.names.add(node.attr)
                if _is_options(node.value):
                    part.from_options.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                part.names.add(node.value)
                part.from_options.add(node.value)
    return found


def read_by_service(name: str) -> bool:
    return name in reads()["service"].from_options


def read_by_code(name: str) -> bool:
    return any(name in part.names for part in reads().values())


def option_fields(options_type: type) -> list[tuple[str, type | None]]:
    """Each option's name, and its group's class when it is a nested group."""
    hints = typing.get_type_hints(options_type)
    return [
        (f.name, hints[f.name] if dataclasses.is_dataclass(hints[f.name]) else None)
        for f in dataclasses.fields(options_type)
    ]


RULESETS = [(d.code, d.options_type) for d in definitions() if d.code in ("sg2", "fad")]


@pytest.mark.parametrize(("ruleset", "options_type"), RULESETS)
def test_every_option_is_read_or_names_its_procedure(ruleset, options_type):
    waiting = option_procedures(options_type)
    inert = [
        name
        for name, _ in option_fields(options_type)
        if name not in waiting and name not in PENDING and not read_by_code(name)
    ]
    assert not inert, f"{ruleset} options no code reads and no procedure is named for: {inert}"


@pytest.mark.parametrize(("ruleset", "options_type"), RULESETS)
def test_every_option_the_service_runs_is_read_by_the_service(ruleset, options_type):
    """Read by a rules procedure is not enough: the service must pass it, unless the procedure
    is not in the service yet (applies_to) or the option is known to be pending."""
    waiting = option_procedures(options_type)
    unread = [
        name
        for name, _ in option_fields(options_type)
        if name not in waiting and name not in PENDING and not read_by_service(name)
    ]
    assert not unread, f"{ruleset} options the service does not read: {unread}"


@pytest.mark.parametrize(("ruleset", "options_type"), RULESETS)
def test_an_option_named_for_a_procedure_is_not_read_by_the_service_yet(ruleset, options_type):
    """Once the service honours an option, its ``applies_to`` goes (and so does PENDING)."""
    stale = [
        name
        for name in [*option_procedures(options_type), *PENDING]
        if hasattr(options_type, "__dataclass_fields__")
        and name in options_type.__dataclass_fields__
        and read_by_service(name)
    ]
    assert not stale, f"{ruleset} options read by the service but still marked: {stale}"


def test_pending_options_exist_and_name_no_procedure():
    fields = {name for _, options_type in RULESETS for name, _ in option_fields(options_type)}
    waiting = {name for _, t in RULESETS for name in option_procedures(t)}
    assert set(PENDING) <= fields
    assert not set(PENDING) & waiting


@pytest.mark.parametrize(("ruleset", "options_type"), RULESETS)
def test_the_fields_of_an_option_group_are_each_read(ruleset, options_type):
    waiting = option_procedures(options_type)
    unread = [
        f"{name}.{f.name}"
        for name, group in option_fields(options_type)
        if group is not None and name not in waiting
        for f in dataclasses.fields(group)
        if not read_by_code(f.name)
    ]
    assert not unread, f"{ruleset} option group fields no code reads: {unread}"


def test_the_scan_finds_what_it_should():
    """The scan itself: an option read by the service, one read only by a rules procedure,
    and a name nobody uses."""
    assert read_by_service("replacement_die")
    assert read_by_code("last_stand_success_on")
    assert not read_by_service("last_stand_success_on")
    assert not read_by_code("no_such_option_anywhere_in_muster")
