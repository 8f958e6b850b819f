"""Every refusal the rules make carries a stable code, a message and, where it has one, a field."""

from __future__ import annotations

import ast
import pathlib

import pytest

from rules.dice import DiceError, Die, TableDice
from rules.errors import RuleError
from rules.options import OptionsError, parse_options
from rules.rulesets import Ruleset
from rules.scales import UnmappedScaleError

RULES = pathlib.Path(__file__).resolve().parents[2] / "rules"


def test_a_rule_error_keeps_its_code_message_and_field():
    error = RuleError("casevac.over_capacity", "Too many aboard.", field="troopers")
    assert (error.code, error.message, error.field, str(error)) == (
        "casevac.over_capacity",
        "Too many aboard.",
        "troopers",
        "Too many aboard.",
    )


def test_a_die_that_cannot_be_used_names_its_place_in_the_entered_dice():
    with pytest.raises(DiceError) as refused:
        TableDice([7]).roll(Die.D6, "a test")
    assert refused.value.code == "dice.impossible"
    assert refused.value.field == "0"
    assert isinstance(refused.value, RuleError)


def test_options_refused_name_the_first_problem_as_the_error():
    with pytest.raises(RuleError) as refused:
        parse_options(Ruleset.SG2, {"no_such_option": 1})
    assert isinstance(refused.value, OptionsError)
    assert refused.value.code == refused.value.errors[0].code
    assert refused.value.field == "no_such_option"


def test_an_unmapped_scale_value_is_a_rule_refusal():
    assert UnmappedScaleError("no counterpart").code == "scale.unmapped"


def test_no_rule_raises_a_bare_value_error():
    """A refusal without a code cannot be told apart from a bug by the service."""
    offenders = []
    for path in RULES.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Raise)
                and isinstance(node.exc, ast.Call)
                and getattr(node.exc.func, "id", None) == "ValueError"
            ):
                offenders.append(f"{path.relative_to(RULES)}:{node.lineno}")
    assert offenders == []
