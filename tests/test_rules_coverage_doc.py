"""``docs/rules-coverage.md`` cannot drift silently from the code.

The document has one row per procedure of the rules digests: its book and page, the pure
function in ``rules/`` that implements it, its status (``service``: reachable through the HTTP
API; ``engine``: a pure function only; ``not yet``), the tests that prove it, and notes. These
tests read every table with that header and check that each function named imports from
``rules.``, that each test file and test named exists, that each status is one of the three
words, that a ``service`` row names a test outside ``tests/rules/`` and an ``engine`` row a test
inside it, that every procedure an option is kept for has a row the service does not run yet,
and that every retired option is listed.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rules.fad.options import FaDOptions
from rules.sg2.options import SG2Options

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "rules-coverage.md"
HEADER = ("procedure", "book, page", "function", "status", "tests", "notes")
STATUSES = ("service", "engine", "not yet")
NONE = "—"
RULES_TESTS = "tests/rules/"
CODE = re.compile(r"`([^`]+)`")


@dataclass(frozen=True)
class NamedTest:
    """A test named in a row: a file, and a test in it (``None`` for the whole file)."""

    path: str
    name: str | None

    def __str__(self) -> str:
        return f"{self.path}::{self.name}" if self.name else self.path


@dataclass(frozen=True)
class Row:
    line: int
    cells: tuple[str, ...]

    @property
    def procedure(self) -> str:
        return self.cells[0]

    @property
    def status(self) -> str:
        return self.cells[3]

    @property
    def notes(self) -> str:
        return self.cells[5]

    @property
    def functions(self) -> list[str]:
        return CODE.findall(self.cells[2])

    @property
    def tests(self) -> list[NamedTest]:
        tests, path = [], ""
        for item in CODE.findall(self.cells[4]):
            file, _, name = item.partition("::")
            path = file or path
            tests.append(NamedTest(path, name or None))
        return tests

    def where(self) -> str:
        return f"docs/rules-coverage.md line {self.line} ({self.procedure})"


def _cells(line: str) -> tuple[str, ...]:
    return tuple(cell.strip() for cell in line.strip().strip("|").split("|"))


@functools.cache
def coverage_rows() -> tuple[Row, ...]:
    """Every row of every table whose header is :data:`HEADER`."""
    rows: list[Row] = []
    in_table = False
    for number, line in enumerate(DOC.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.startswith("|"):
            in_table = False
        elif _cells(line) == HEADER:
            in_table = True
        elif in_table and not set(line) <= set("|- "):
            rows.append(Row(number, _cells(line)))
    return tuple(rows)


def _resolve(dotted: str) -> Any:
    """The object a dotted name names: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:split]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[split:]:
            found = getattr(found, attribute)
        return found
    raise ModuleNotFoundError(dotted)


@functools.cache
def _test_names(path: str) -> frozenset[str]:
    """The test functions of a file, ``name`` at module level and ``Class::name`` in classes."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    names.add(f"{node.name}::{item.name}")
    return frozenset(names)


def _problems(check: Any) -> list[str]:
    return [f"{row.where()}: {problem}" for row in coverage_rows() for problem in check(row)]


def test_the_coverage_tables_are_read():
    rows = coverage_rows()
    assert len(rows) > 150
    wrong = [row.where() for row in rows if len(row.cells) != len(HEADER)]
    assert not wrong, f"rows without {len(HEADER)} cells: {wrong}"
    procedures = [row.procedure for row in rows]
    assert all(procedures), "a row has no procedure"


def test_every_status_is_one_of_the_three_words():
    def check(row: Row) -> list[str]:
        return [] if row.status in STATUSES else [f"status {row.status!r} is not one of {STATUSES}"]

    problems = _problems(check)
    assert not problems, "\n".join(problems)


def test_every_function_named_imports_from_rules():
    def check(row: Row) -> list[str]:
        cell = row.cells[2]
        if cell == NONE:
            return []
        if not row.functions:
            return [f"function cell {cell!r} names no `rules.` function and is not {NONE}"]
        out = []
        for name in row.functions:
            if not name.startswith("rules."):
                out.append(f"{name} is not in the rules package")
                continue
            try:
                _resolve(name)
            except (ImportError, AttributeError) as exc:
                out.append(f"{name} does not import: {exc}")
        return out

    problems = _problems(check)
    assert not problems, "\n".join(problems)


def test_every_test_named_exists():
    def check(row: Row) -> list[str]:
        cell = row.cells[4]
        if cell == NONE:
            return []
        if not row.tests:
            return [f"tests cell {cell!r} names no test and is not {NONE}"]
        out = []
        for test in row.tests:
            if not test.path.startswith("tests/") or not (ROOT / test.path).is_file():
                out.append(f"{test.path} is not a test file")
            elif test.name is not None and test.name not in _test_names(test.path):
                out.append(f"{test} does not exist")
        return out

    problems = _problems(check)
    assert not problems, "\n".join(problems)


def test_a_service_row_names_an_api_test_and_an_engine_row_a_rules_test():
    def check(row: Row) -> list[str]:
        rules_tests = [t for t in row.tests if t.path.startswith(RULES_TESTS)]
        other_tests = [t for t in row.tests if not t.path.startswith(RULES_TESTS)]
        if row.status == "service" and not other_tests:
            return ["a `service` row needs a test through the API, outside tests/rules/"]
        if row.status == "engine" and not (rules_tests and row.functions):
            return ["an `engine` row needs its function and a test in tests/rules/"]
        if row.status == "engine" and other_tests:
            return ["an `engine` row names a test through the API: is it `service`?"]
        return []

    problems = _problems(check)
    assert not problems, "\n".join(problems)


def test_a_procedure_has_one_row():
    seen: dict[str, int] = {}
    twice = []
    for row in coverage_rows():
        if row.procedure in seen:
            twice.append(f"{row.where()} repeats line {seen[row.procedure]}")
        seen.setdefault(row.procedure, row.line)
    assert not twice, "\n".join(twice)


def test_every_procedure_an_option_waits_for_has_a_row_the_service_does_not_run():
    """An option kept for a procedure the service does not run yet (``applies_to``) names
    that procedure in the notes of a row whose status is not ``service``."""
    waiting = {
        f.metadata["applies_to"]: f"{options.__name__}.{f.name}"
        for options in (SG2Options, FaDOptions)
        for f in dataclasses.fields(options)
        if f.metadata.get("applies_to")
    }
    assert waiting, "no option names its procedure: has `applies_to` been renamed?"
    named = {
        code
        for row in coverage_rows()
        if row.status != "service"
        for code in CODE.findall(row.notes)
    }
    missing = sorted(
        f"{code} (e.g. {option})" for code, option in waiting.items() if code not in named
    )
    assert not missing, f"procedures of kept options with no row that is not `service`: {missing}"


def test_every_retired_option_is_listed():
    text = DOC.read_text(encoding="utf-8")
    listed = set(CODE.findall(text))
    retired = [
        f"{options.__name__}.{name}"
        for options in (SG2Options, FaDOptions)
        for name in getattr(options, "RETIRED", {})
        if name not in listed
    ]
    assert not retired, f"retired options missing from docs/rules-coverage.md: {retired}"
