"""Tests for the options framework (rules.options) and the two option sets."""

from __future__ import annotations

import dataclasses
import enum
import json
from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Die
from rules.fad.options import FaDOptions, ReactiveArmourWeapon, RollScope, VehicleType
from rules.options import (
    JSON_SCHEMA_DIALECT,
    OptionProblem,
    OptionsError,
    check_options,
    default_options,
    option,
    options_schema,
    options_to_dict,
    options_type,
    parse_options,
)
from rules.rulesets import Ruleset
from rules.sg2.options import (
    FieldTime,
    FireMissionArrival,
    PointsOnRise,
    QualityProgression,
    RepairDays,
    SG2Options,
    SupportFactors,
)
from rules.sg2.scales import MissionMotivation


def problems_of(ruleset, data, **kwargs):
    with pytest.raises(OptionsError) as caught:
        parse_options(ruleset, data, **kwargs)
    return [(p.field, p.code) for p in caught.value.errors]


# --- rulesets ----------------------------------------------------------------------------------


def test_rulesets_have_codes_and_labels():
    assert Ruleset("sg2") is Ruleset.SG2
    assert Ruleset.FAD == "fad"
    assert Ruleset.SG2.label == "Stargrunt II"
    assert Ruleset.FAD.label == "Fast and Dirty"


def test_each_ruleset_has_its_options_type():
    assert options_type(Ruleset.SG2) is SG2Options
    assert options_type("fad") is FaDOptions


def test_an_unknown_ruleset_is_refused():
    with pytest.raises(ValueError, match="Unknown ruleset 'dba'"):
        default_options("dba")


# --- SG2 defaults are the book's values --------------------------------------------------------


def test_sg2_quality_points_are_the_books_suggestion_p60():
    options = default_options(Ruleset.SG2)
    assert options.quality_progression is QualityProgression.POINTS
    assert (options.quality_points_win, options.quality_points_lose) == (3, 1)
    assert options.quality_points_objective_bonus == 1
    assert options.quality_points_objective_bonus_for_winners is True
    assert options.quality_threshold_green_regular == 5
    assert options.quality_threshold_regular_veteran == 8
    assert options.quality_points_on_rise is PointsOnRise.RESET_TO_ZERO


def test_sg2_replacements_use_an_average_d8_per_platoon_p60():
    options = default_options(Ruleset.SG2)
    assert options.replacement_die is Die.D8
    assert options.allow_overstrength is True
    assert options.green_never_drops_to_untrained is True
    assert options.elite_accepts_ordinary_replacements is False


def test_sg2_rest_and_recovery_times_p61():
    options = default_options(Ruleset.SG2)
    assert options.field_time_multiplier == 2  # "DOUBLE all times given"
    assert options.rr_days_per_fatigue_step == 2
    assert options.repair_days == RepairDays(immobilised=1, system_damaged=1, disabled=3)
    assert options.injured_permanent_on == 2  # "if a 1 or 2 is rolled ... evacuated permanently"
    assert options.replacement_days == 1
    assert options.exhausted_withdrawal_test is True
    assert options.field_doubling_applies_to == (  # "DOUBLE all times given"
        FieldTime.FATIGUE,
        FieldTime.REPAIR,
        FieldTime.INJURED_RETURN,
        FieldTime.REPLACEMENTS,
    )


def test_sg2_support_request_factors_p44():
    assert default_options(Ruleset.SG2).support_factors == SupportFactors(
        artillery_dedicated=0, artillery=2, orbital_dedicated=3, orbital=6, air_dedicated=2, air=4
    )


def test_sg2_battle_defaults():
    options = default_options(Ruleset.SG2)
    assert options.mission_motivation is MissionMotivation.MEDIUM  # P.19
    assert options.last_stand_success_on == 6  # P.53: "a 1 in 6 chance of success"
    assert options.fire_mission_arrival is FireMissionArrival.BOX1_SAME_TURN  # P.46 as printed
    assert options.understrength_roll_in_campaign is False  # P.10: one-off games
    assert options.allocation_pool.value == "living"  # SG2-C
    assert options.rewound_kills is False  # SG2-C
    assert options.opportunity_fire is False
    assert options.overwatch is False


# --- FaD defaults ------------------------------------------------------------------------------


def test_fad_defaults_follow_the_book_and_stated_readings():
    options = default_options(Ruleset.FAD)
    assert options.morale_losing_heart is True  # p.14 "Recommended"
    assert options.assault_no_grenades_penalty == -2  # p.22 table, not the -1 of the limitation
    assert options.adv_recover_wounded is True
    assert options.forcegen_strength_roll is RollScope.PER_SQUAD  # p.44 tutorial
    assert options.vehicle_large_types == (
        VehicleType.LIGHT_TANK,
        VehicleType.MEDIUM_TANK,
        VehicleType.MBT,
        VehicleType.WALKER,
    )
    assert options.vehicle_reactive_armour_weapons == (
        ReactiveArmourWeapon.MISSILE_LAUNCHER,
        ReactiveArmourWeapon.RPG,
    )
    assert options.campaign_cp_banking is False


# --- parsing -----------------------------------------------------------------------------------


def test_a_partial_mapping_updates_only_the_given_options():
    options = parse_options("sg2", {"replacement_die": 12, "quality_points_win": 4})
    assert options.replacement_die is Die.D12
    assert options.quality_points_win == 4
    assert dataclasses.replace(options, replacement_die=Die.D8, quality_points_win=3) == (
        default_options("sg2")
    )


def test_a_partial_mapping_updates_the_base_not_the_defaults():
    base = parse_options("sg2", {"quality_points_win": 4})
    options = parse_options("sg2", {"fire_method": "quick_and_dirty"}, base=base)
    assert options.quality_points_win == 4
    assert options.fire_method.value == "quick_and_dirty"


def test_a_nested_group_is_updated_field_by_field():
    options = parse_options("sg2", {"repair_days": {"disabled": 5}})
    assert options.repair_days == RepairDays(immobilised=1, system_damaged=1, disabled=5)


def test_enum_members_are_accepted_as_well_as_their_values():
    options = parse_options("sg2", {"replacement_die": Die.D10, "mission_motivation": 2})
    assert options.replacement_die is Die.D10
    assert options.mission_motivation is MissionMotivation.HIGH


def test_a_set_of_choices_is_stored_in_declaration_order():
    options = parse_options("sg2", {"field_doubling_applies_to": ["repair", "fatigue"]})
    assert options.field_doubling_applies_to == (FieldTime.FATIGUE, FieldTime.REPAIR)
    assert parse_options("sg2", {"field_doubling_applies_to": []}).field_doubling_applies_to == ()


def test_an_optional_limit_may_be_null():
    options = parse_options("sg2", {"max_support_weapons": 2})
    assert options.max_support_weapons == 2
    assert parse_options("sg2", {"max_support_weapons": None}).max_support_weapons is None


def test_unknown_keys_are_refused():
    assert problems_of("sg2", {"quality_points_victory": 3}) == [
        ("quality_points_victory", "options.unknown")
    ]
    assert problems_of("sg2", {"repair_days": {"wrecked": 3}}) == [
        ("repair_days.wrecked", "options.unknown")
    ]


@pytest.mark.parametrize(
    ("data", "field_name"),
    [
        ({"allow_overstrength": 1}, "allow_overstrength"),
        ({"allow_overstrength": "yes"}, "allow_overstrength"),
        ({"quality_points_win": True}, "quality_points_win"),
        ({"quality_points_win": "3"}, "quality_points_win"),
        ({"quality_points_win": 3.0}, "quality_points_win"),
        ({"quality_points_win": None}, "quality_points_win"),
        ({"fire_method": 1}, "fire_method"),
        ({"replacement_die": "d8"}, "replacement_die"),
        ({"replacement_die": True}, "replacement_die"),
        ({"field_doubling_applies_to": "repair"}, "field_doubling_applies_to"),
        ({"field_doubling_applies_to": 3}, "field_doubling_applies_to"),
        ({"field_doubling_applies_to": [1]}, "field_doubling_applies_to[0]"),
        ({"repair_days": 3}, "repair_days"),
        ({"repair_days": {"disabled": "3"}}, "repair_days.disabled"),
    ],
)
def test_wrong_types_are_refused(data, field_name):
    assert problems_of("sg2", data) == [(field_name, "options.type")]


@pytest.mark.parametrize(
    ("ruleset", "data", "field_name"),
    [
        ("sg2", {"quality_points_win": -1}, "quality_points_win"),
        ("sg2", {"field_time_multiplier": 0}, "field_time_multiplier"),
        ("sg2", {"injured_permanent_on": 7}, "injured_permanent_on"),
        ("sg2", {"last_stand_success_on": 0}, "last_stand_success_on"),
        ("sg2", {"inbound_start": {"orbital": 4}}, "inbound_start.orbital"),
        ("sg2", {"max_support_weapons": -1}, "max_support_weapons"),
        ("fad", {"assault_no_grenades_penalty": 0}, "assault_no_grenades_penalty"),
        ("fad", {"assault_no_grenades_penalty": -3}, "assault_no_grenades_penalty"),
    ],
)
def test_values_out_of_range_are_refused(ruleset, data, field_name):
    assert problems_of(ruleset, data) == [(field_name, "options.range")]


@pytest.mark.parametrize(
    ("ruleset", "data", "field_name"),
    [
        ("sg2", {"replacement_die": 7}, "replacement_die"),
        ("sg2", {"replacement_die": 20}, "replacement_die"),
        ("sg2", {"fire_method": "fast"}, "fire_method"),
        ("sg2", {"field_doubling_applies_to": ["sleep"]}, "field_doubling_applies_to[0]"),
        ("sg2", {"field_doubling_applies_to": ["repair", "repair"]}, "field_doubling_applies_to"),
        ("fad", {"forcegen_strength_roll": "per_platoon"}, "forcegen_strength_roll"),
        ("fad", {"vehicle_large_types": ["tank"]}, "vehicle_large_types[0]"),
    ],
)
def test_choices_not_on_the_list_are_refused(ruleset, data, field_name):
    assert problems_of(ruleset, data) == [(field_name, "options.choice")]


def test_every_problem_is_reported_at_once():
    problems = problems_of(
        "sg2", {"nonsense": 1, "replacement_die": 7, "quality_points_win": -2, "fire_method": 0}
    )
    assert problems == [
        ("nonsense", "options.unknown"),
        ("replacement_die", "options.choice"),
        ("quality_points_win", "options.range"),
        ("fire_method", "options.type"),
    ]


def test_the_error_message_names_each_problem():
    with pytest.raises(OptionsError) as caught:
        parse_options("sg2", {"quality_points_win": -2})
    assert isinstance(caught.value, ValueError)
    assert str(caught.value) == "quality_points_win: -2 is outside the allowed range 0 or more."
    assert caught.value.errors[0] == OptionProblem(
        "quality_points_win", "options.range", "-2 is outside the allowed range 0 or more."
    )


def test_the_regular_threshold_must_be_below_the_veteran_threshold():
    assert problems_of("sg2", {"quality_threshold_green_regular": 8}) == [
        ("quality_threshold_green_regular", "options.order")
    ]
    options = parse_options(
        "sg2", {"quality_threshold_green_regular": 8, "quality_threshold_regular_veteran": 12}
    )
    assert options.quality_threshold_green_regular == 8


def test_overwatch_needs_opportunity_fire():
    assert problems_of("sg2", {"overwatch": True}) == [("overwatch", "options.requires")]
    assert parse_options("sg2", {"overwatch": True, "opportunity_fire": True}).overwatch


def test_data_must_be_a_mapping():
    assert problems_of("sg2", ["quality_points_win"]) == [("", "options.type")]


def test_the_base_must_belong_to_the_ruleset():
    with pytest.raises(ValueError, match="not SG2Options"):
        parse_options("sg2", {}, base=default_options("fad"))


# --- direct construction is checked too --------------------------------------------------------


def test_building_options_directly_checks_them():
    with pytest.raises(OptionsError) as caught:
        SG2Options(quality_points_win=-1, replacement_die="d8", quality_progression="points")  # type: ignore[arg-type]  # the wrong types on purpose
    assert [(p.field, p.code) for p in caught.value.errors] == [
        ("quality_progression", "options.type"),
        ("quality_points_win", "options.range"),
        ("replacement_die", "options.type"),
    ]


def test_building_options_directly_checks_sets_groups_and_optionals():
    with pytest.raises(OptionsError) as caught:
        SG2Options(field_doubling_applies_to=["repair"], repair_days={"disabled": 3})  # type: ignore[arg-type]  # the wrong types on purpose
    assert [(p.field, p.code) for p in caught.value.errors] == [
        ("field_doubling_applies_to", "options.type"),
        ("repair_days", "options.type"),
    ]
    with pytest.raises(OptionsError):
        SG2Options(field_doubling_applies_to=(FieldTime.REPAIR, FieldTime.REPAIR))
    with pytest.raises(OptionsError):
        SG2Options(field_doubling_applies_to=("repair",))  # type: ignore[arg-type]  # the wrong type on purpose
    assert SG2Options(max_support_weapons=None).max_support_weapons is None
    with pytest.raises(OptionsError):
        RepairDays(disabled=-1)


def test_building_options_directly_runs_the_cross_field_checks():
    with pytest.raises(OptionsError, match="must be below"):
        SG2Options(quality_threshold_green_regular=9)


# --- serialising and the schema ----------------------------------------------------------------


@pytest.mark.parametrize("ruleset", list(Ruleset))
def test_options_round_trip_through_json(ruleset):
    options = default_options(ruleset)
    data = json.loads(json.dumps(options_to_dict(options)))
    assert parse_options(ruleset, data) == options


def test_options_to_dict_writes_enums_as_values_and_groups_as_objects():
    data = options_to_dict(parse_options("sg2", {"field_doubling_applies_to": ["repair"]}))
    assert data["replacement_die"] == 8
    assert data["quality_progression"] == "points"
    assert data["mission_motivation"] == 1
    assert data["field_doubling_applies_to"] == ["repair"]
    assert data["repair_days"] == {"immobilised": 1, "system_damaged": 1, "disabled": 3}
    assert data["max_support_weapons"] is None


@pytest.mark.parametrize("ruleset", list(Ruleset))
def test_the_schema_lists_every_option_with_its_default(ruleset):
    schema = options_schema(ruleset)
    options = default_options(ruleset)
    assert (
        schema["$schema"] == JSON_SCHEMA_DIALECT == "https://json-schema.org/draft/2020-12/schema"
    )
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) == {f.name for f in dataclasses.fields(options)}
    defaults = {name: prop["default"] for name, prop in schema["properties"].items()}
    assert defaults == options_to_dict(options)
    for name, prop in schema["properties"].items():
        assert "(" in prop["description"], name  # every option cites its book and page
    json.dumps(schema)


def test_the_schema_states_ranges_choices_and_nesting():
    props = options_schema("sg2")["properties"]
    assert props["quality_points_win"]["type"] == "integer"
    assert props["quality_points_win"]["minimum"] == 0
    assert "maximum" not in props["quality_points_win"]
    assert props["injured_permanent_on"]["maximum"] == 6
    assert props["replacement_die"] == {
        "type": "integer",
        "enum": [4, 6, 8, 10, 12],
        "description": props["replacement_die"]["description"],
        "default": 8,
    }
    assert props["fire_method"]["enum"] == ["full", "quick_and_dirty"]
    assert props["allow_overstrength"]["type"] == "boolean"
    assert props["field_doubling_applies_to"]["type"] == "array"
    assert props["field_doubling_applies_to"]["uniqueItems"] is True
    assert props["max_support_weapons"]["type"] == ["integer", "null"]
    assert props["repair_days"]["type"] == "object"
    assert props["repair_days"]["additionalProperties"] is False
    assert props["repair_days"]["properties"]["disabled"]["default"] == 3
    assert props["inbound_start"]["properties"]["orbital"]["maximum"] == 3
    fad = options_schema("fad")
    assert fad["title"] == "Fast and Dirty campaign options"
    assert fad["properties"]["forcegen_strength_roll"]["enum"] == ["per_squad", "per_player"]


def test_the_schema_accepts_the_defaults_and_refuses_bad_values():
    jsonschema = pytest.importorskip("jsonschema")
    for ruleset in Ruleset:
        schema = options_schema(ruleset)
        jsonschema.Draft202012Validator.check_schema(schema)
        jsonschema.validate(options_to_dict(default_options(ruleset)), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"replacement_die": 7}, options_schema("sg2"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"no_such_option": 7}, options_schema("sg2"))


@given(
    win=st.integers(min_value=-5, max_value=30),
    green=st.integers(min_value=-2, max_value=20),
    veteran=st.integers(min_value=-2, max_value=20),
)
def test_parsing_accepts_exactly_the_valid_point_settings(win, green, veteran):
    data = {
        "quality_points_win": win,
        "quality_threshold_green_regular": green,
        "quality_threshold_regular_veteran": veteran,
    }
    valid = win >= 0 and green >= 1 and veteran >= 1 and green < veteran
    if valid:
        options = parse_options("sg2", data)
        assert parse_options("sg2", options_to_dict(options)) == options
    else:
        with pytest.raises(OptionsError):
            parse_options("sg2", data)


# --- the framework on its own ------------------------------------------------------------------


class Colour(enum.StrEnum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True, slots=True)
class Sample:
    limit: int = field(default=5, metadata=option(description="At most", source="test", maximum=9))
    colour: Colour = field(default=Colour.RED, metadata=option(description="C", source="test"))
    shade: Colour | None = field(default=None, metadata=option(description="S", source="test"))


def test_an_upper_bound_alone_is_described():
    with pytest.raises(OptionsError, match="10 is outside the allowed range 9 or less"):
        check_options(Sample(limit=10))
    check_options(Sample())


@pytest.mark.parametrize(
    "annotation",
    [float, str, int | str, tuple[int, ...], tuple[Colour, Colour], list[Colour]],
)
def test_unsupported_field_types_are_a_programming_error(annotation):
    bad = dataclasses.make_dataclass("Bad", [("value", annotation, None)], frozen=True)
    with pytest.raises(TypeError, match="Unsupported option type"):
        check_options(bad())


def test_schema_of_an_optional_choice_and_an_upper_bound_alone():
    from rules.options import _object_schema

    props = _object_schema(Sample, Sample())["properties"]
    assert props["limit"] == {
        "type": "integer",
        "maximum": 9,
        "description": "At most (test)",
        "default": 5,
    }
    assert props["shade"]["type"] == ["string", "null"]
    assert props["shade"]["enum"] == ["red", "blue", None]
    assert props["shade"]["default"] is None


def test_an_optional_choice_accepts_none_and_members():
    check_options(Sample(shade=Colour.BLUE))
    with pytest.raises(OptionsError):
        check_options(Sample(shade="blue"))  # type: ignore[arg-type]  # the wrong type on purpose


def test_stored_options_are_parsed_once_and_a_refusal_every_time():
    stored = {"fire_method": "quick_and_dirty", "forces_visibility": "full"}
    first = parse_options("sg2", stored)
    assert parse_options("sg2", dict(stored)) is first
    assert first == parse_options("sg2", stored, base=default_options("sg2"))
    for _ in range(2):
        with pytest.raises(OptionsError):
            parse_options("sg2", {"nonsense": True})


@pytest.mark.parametrize(
    "value",
    [{"quick_and_dirty"}, ("quick_and_dirty",), float("nan")],
    ids=["a set", "a tuple", "not a number"],
)
def test_options_that_are_not_plain_json_are_parsed_as_given(value):
    # Neither kept nor turned into JSON on the way: each is judged as the value it is.
    with pytest.raises(OptionsError) as refused:
        parse_options("sg2", {"fire_method": value})
    assert [p.code for p in refused.value.errors] == ["options.type"]
