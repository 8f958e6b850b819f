"""Options of procedures the service does not run yet (``applies_to``, published as
``x-applies-to``), and options a ruleset has retired."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import pytest

from rules.fad.options import FaDOptions
from rules.options import (
    OptionsError,
    option,
    option_procedures,
    options_schema,
    parse_options,
    retired_options,
)
from rules.sg2.options import SG2Options, UnsuppliedEffect


def test_an_option_names_the_procedure_it_waits_for_in_the_schema():
    sg2 = options_schema("sg2")["properties"]
    assert sg2["max_support_weapons"]["x-applies-to"] == "sg2.fire_combat"
    assert "x-applies-to" not in sg2["fire_method"]  # direct_fire reads it
    assert "x-applies-to" not in sg2["support_factors"]  # fire_support_request reads it
    assert sg2["fae"]["x-applies-to"] == "sg2.fae"
    # An option the service honours names no procedure.
    assert "x-applies-to" not in sg2["replacement_die"]
    assert "x-applies-to" not in sg2["environment"]
    fad = options_schema("fad")["properties"]
    assert fad["move_variable"]["x-applies-to"] == "fad.movement"
    assert "x-applies-to" not in fad["turn_card_activation"]  # fad_draw_activation reads it
    assert "x-applies-to" not in fad["vehicle_large_types"]  # fad_shoot_vehicle reads it
    assert "x-applies-to" not in fad["fire_hit_allocation"]  # fad_shoot reads it
    assert "x-applies-to" not in fad["campaign_cp_banking"]


@pytest.mark.parametrize("options_type", [SG2Options, FaDOptions])
def test_the_procedures_of_a_ruleset_are_listed_by_option(options_type):
    procedures = option_procedures(options_type)
    ruleset = "sg2" if options_type is SG2Options else "fad"
    properties = options_schema(ruleset)["properties"]
    assert procedures == {
        name: prop["x-applies-to"] for name, prop in properties.items() if "x-applies-to" in prop
    }
    assert all(p.startswith(f"{ruleset}.") for p in procedures.values())


def test_retired_options_are_dropped_from_stored_options_and_refused_as_new_choices():
    assert "unit_generation" in retired_options(SG2Options)
    assert "campaign_resolve_gain_cap" in retired_options(FaDOptions)
    assert "unit_generation" not in options_schema("sg2")["properties"]
    # A campaign created before the option was retired still reads its options.
    stored = parse_options("sg2", {"unit_generation": "scenario", "replacement_die": 10})
    assert stored.replacement_die == 10
    with pytest.raises(OptionsError) as refused:
        parse_options("sg2", {"unit_generation": "scenario"}, refuse_retired=True)
    problem = refused.value.errors[0]
    assert (problem.field, problem.code) == ("unit_generation", "options.retired")
    assert "carries its units over" in problem.message
    # A name that never was an option is unknown, whichever way it is read.
    with pytest.raises(OptionsError, match="no option called 'nothing'"):
        parse_options("fad", {"nothing": 1})


@dataclass(frozen=True, slots=True)
class Sample:
    RETIRED: ClassVar[dict[str, str]] = {"old": "it meant nothing."}
    kept: int = field(
        default=1, metadata=option(description="K", source="test", applies_to="test.x")
    )


def test_a_class_without_retired_options_retires_nothing():
    @dataclass(frozen=True)
    class Plain:
        pass

    assert retired_options(Plain) == {}
    assert retired_options(Sample) == {"old": "it meant nothing."}
    assert option_procedures(Sample) == {"kept": "test.x"}


def test_an_unsupplied_forces_confidence_suffers_by_default_p60():
    """SG2 P.60: without supplies "their Confidence and combat efficiency will suffer VERY
    greatly in the next and subsequent battles". The book gives no mechanism but says it
    suffers, so the default is not the digest's "none" (docs/rules-coverage.md)."""
    assert SG2Options().unsupplied_effect is UnsuppliedEffect.CONFIDENCE_ONE_LOWER
    assert parse_options("sg2", {"unsupplied_effect": "none"}).unsupplied_effect is (
        UnsuppliedEffect.NONE
    )
