"""Rulesets as objects: what each built-in one declares, and registering another."""

from __future__ import annotations

import dataclasses

import pytest

from rules import rulesets
from rules.errors import RuleError
from rules.fad.options import FaDOptions
from rules.options import default_options, options_schema
from rules.rulesets import Ruleset, RulesetDefinition, definition, no_starting_confidence
from rules.sg2.options import SG2Options


def test_the_built_in_rulesets_are_registered_by_their_codes():
    assert [d.code for d in rulesets.definitions()] == ["sg2", "fad"]
    assert definition(Ruleset.SG2).options_type is SG2Options
    assert definition("fad").options_type is FaDOptions
    assert str(definition("sg2")) == "sg2"
    assert definition(definition("sg2")) is definition("sg2")


def test_each_ruleset_lists_its_qualities_worst_first_and_its_unit_ratings():
    assert definition("sg2").qualities == ("untrained", "green", "regular", "veteran", "elite")
    assert definition("fad").qualities == ("rabble", "conscript", "regular", "elite")
    assert definition("sg2").unit_ratings == ("leadership", "fatigue", "mission_motivation")
    assert definition("fad").unit_ratings == ("resolve",)
    assert definition("sg2").required_ratings == ("leadership",)
    assert definition("fad").required_ratings == ("resolve",)
    assert definition("fad").rating_names == {
        "resolve": ("reluctant", "uncertain", "steady", "determined")
    }
    assert (definition("sg2").vehicle_armour, definition("fad").vehicle_armour) == (True, False)


def test_the_between_battle_procedures_each_book_has():
    """SG2 P.17 regrouping, P.60-61 replacements per platoon and rest and recovery; FaD replaces
    losses in its after-action (p.64-66) and has none of these."""
    sg2, fad = definition("sg2"), definition("fad")
    for procedure in ("regroup", "platoon_replacements", "rest_and_recovery"):
        assert sg2.has(procedure)
        assert not fad.has(procedure)
    assert fad.has("campaign_points")
    assert not sg2.has("campaign_points")


@pytest.mark.parametrize(
    ("fatigue", "confidence"),
    [
        ("fresh", "confident"),
        ("tired", "steady"),
        ("exhausted", "shaken"),
        (None, None),
        ("", None),
    ],
)
def test_sg2_fatigue_sets_the_confidence_a_unit_starts_a_battle_at(fatigue, confidence):
    """SG2 P.19: Fresh units start Confident, Tired Steady, Exhausted Shaken."""
    assert definition("sg2").starting_confidence(fatigue) == confidence


def test_fad_units_start_a_battle_with_no_confidence_level():
    assert definition("fad").starting_confidence("fresh") is None
    assert no_starting_confidence("tired") is None
    ready = definition("fad").battle_readiness(None, supplied=False, options=FaDOptions())
    assert (ready.fatigue, ready.confidence, ready.unsupplied_effect) == (None, None, None)


def test_sg2_readiness_reads_the_unsupplied_option():
    ready = definition("sg2").battle_readiness("tired", supplied=False, options=SG2Options())
    assert (ready.fatigue, ready.confidence, ready.unsupplied_effect) == (
        "tired",
        "shaken",
        "confidence_one_lower",
    )
    assert definition("sg2").battle_readiness(None, supplied=False, options=SG2Options()) == (
        rulesets.Readiness(None, None, None)
    )


def test_an_unknown_ruleset_is_refused_with_the_known_ones_listed():
    with pytest.raises(RuleError) as refused:
        definition("gw40k")
    assert refused.value.code == "ruleset.unknown"
    assert "sg2, fad" in refused.value.message


@dataclasses.dataclass(frozen=True)
class _SkirmishOptions:
    pass


def test_a_third_ruleset_can_be_registered_and_withdrawn():
    skirmish = RulesetDefinition(
        code="skirmish", label="Skirmish", options_type=_SkirmishOptions, qualities=("raw", "old")
    )
    try:
        assert rulesets.register(skirmish) is skirmish
        assert rulesets.register(skirmish) is skirmish  # registering it again changes nothing
        assert definition("skirmish") is skirmish
        assert isinstance(default_options("skirmish"), _SkirmishOptions)
        assert options_schema("skirmish")["title"] == "Skirmish campaign options"
        with pytest.raises(RuleError) as clash:
            rulesets.register(dataclasses.replace(skirmish, label="Another"))
        assert clash.value.code == "ruleset.duplicate"
    finally:
        rulesets.unregister("skirmish")
    assert "skirmish" not in [d.code for d in rulesets.definitions()]
