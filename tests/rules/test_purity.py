"""The rules package stays pure: standard library only, no I/O, no clock, no global randomness."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

RULES_ROOT = Path(__file__).resolve().parents[2] / "rules"

# Standard-library modules that would let a rule reach outside its inputs.
FORBIDDEN_MODULES = frozenset({"random", "time", "os", "secrets", "socket", "subprocess"})
FORBIDDEN_CALLS = frozenset({"open", "input", "print", "exec", "eval", "__import__"})
FORBIDDEN_ATTRIBUTES = frozenset({"now", "utcnow", "today"})


def purity_problems(source: str, filename: str = "<source>") -> list[str]:
    """Every impure import or call in ``source``, as 'file:line: what'."""
    problems = []
    tree = ast.parse(source, filename=filename)
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        for name in names:
            assert isinstance(node, ast.stmt)  # an import, which has a line
            top = name.split(".")[0]
            if top == "rules":
                continue
            if top not in sys.stdlib_module_names:
                problems.append(f"{filename}:{node.lineno}: imports {name}, not in the stdlib")
            elif top in FORBIDDEN_MODULES:
                problems.append(f"{filename}:{node.lineno}: imports {name}")
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in FORBIDDEN_CALLS:
                problems.append(f"{filename}:{node.lineno}: calls {func.id}(")
            if isinstance(func, ast.Attribute) and func.attr in FORBIDDEN_ATTRIBUTES:
                problems.append(f"{filename}:{node.lineno}: calls .{func.attr}()")
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in FORBIDDEN_MODULES
        ):
            problems.append(f"{filename}:{node.lineno}: uses {node.value.id}.{node.attr}")
    return problems


def rules_files() -> list[Path]:
    return sorted(RULES_ROOT.rglob("*.py"))


def test_there_are_rules_modules_to_check():
    names = {path.relative_to(RULES_ROOT).as_posix() for path in rules_files()}
    assert {"__init__.py", "dice.py", "options.py", "sg2/scales.py"} <= names


@pytest.mark.parametrize(
    "path", rules_files(), ids=lambda path: path.relative_to(RULES_ROOT).as_posix()
)
def test_rules_module_is_pure(path):
    assert purity_problems(path.read_text(encoding="utf-8"), path.name) == []


# --- the checker catches what it should --------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import django", "imports django, not in the stdlib"),
        ("from rest_framework import serializers", "imports rest_framework, not in the stdlib"),
        ("import campaigns.models", "imports campaigns.models, not in the stdlib"),
        ("import random", "imports random"),
        ("from random import randint", "imports random"),
        ("import time", "imports time"),
        ("import os.path", "imports os.path"),
        ("from os import environ", "imports os"),
        ("import secrets", "imports secrets"),
        ("x = open('f')", "calls open("),
        ("print('x')", "calls print("),
        ("import datetime\nx = datetime.datetime.now()", "calls .now()"),
        ("from datetime import datetime\nx = datetime.now()", "calls .now()"),
        ("from datetime import date\nx = date.today()", "calls .today()"),
        ("x = random.random()", "uses random.random"),
        ("x = time.time()", "uses time.time"),
        ("x = os.environ", "uses os.environ"),
    ],
)
def test_the_checker_catches_impure_code(source, expected):
    problems = purity_problems(source)
    assert problems
    assert any(expected in problem for problem in problems), problems


@pytest.mark.parametrize(
    "source",
    [
        "from __future__ import annotations",
        "import enum\nimport hashlib\nfrom dataclasses import dataclass",
        "from rules.dice import Die",
        "from . import dice",
        "from datetime import timedelta",
        "import itertools\nx = itertools.product([1], repeat=2)",
        "x = dice.roll(Die.D6, 'purpose')",
    ],
)
def test_the_checker_allows_pure_code(source):
    assert purity_problems(source) == []


def test_the_checker_names_the_file_and_line():
    assert purity_problems("x = 1\nimport random\n", "bad.py") == ["bad.py:2: imports random"]
