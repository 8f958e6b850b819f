"""The roster file format: what it accepts, what it refuses and where it says the problem is."""

from __future__ import annotations

import json
import pickle
import re
import textwrap
import typing
from pathlib import Path

import pytest

from rosters.roster_file import (
    FATIGUES,
    MOTIVATIONS,
    ForceSpec,
    RosterFileError,
    RosterProblem,
    UnitSpec,
    count_troopers,
    count_vehicles,
    iter_units,
    parse_roster,
    roster_json_schema,
    validate_roster,
)
from rosters.vocabulary import CommandLevel, TrooperRole, UnitKind, UnitStatus, VehicleState
from tests.factories import campaign_for

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def yaml_text(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def problems_of(text: str, ruleset: str = "sg2") -> list[RosterProblem]:
    with pytest.raises(RosterFileError) as caught:
        parse_roster(yaml_text(text), ruleset=ruleset, source="test.yaml")
    return caught.value.problems


def only_problem(text: str, ruleset: str = "sg2") -> RosterProblem:
    problems = problems_of(text, ruleset)
    assert len(problems) == 1, problems
    return problems[0]


SG2_SQUAD = """
name: Test force
side: Blue
units:
  - name: 1st Squad
    kind: squad
    quality: regular
    leadership: 2
    troopers:
      - {name: Cpl Hale, role: leader}
      - {name: Pte Ames}
"""


# --- what a good file gives -----------------------------------------------------------------------


def test_defaults_are_filled_in() -> None:
    spec = parse_roster(
        yaml_text(
            """
            name: Test force
            side: Blue
            units:
              - name: 1st Platoon
                kind: platoon
                units:
                  - name: HQ
                    kind: command
                    level: platoon
                    quality: regular
                    leadership: 1
                    troopers:
                      - {name: Lt Reyes, role: leader}
                      - {name: Sgt Hale}
                    vehicles:
                      - {name: One-Zero, class: APC, size: 3}
            """
        ),
        ruleset="sg2",
    )
    assert spec.description == ""
    assert spec.ruleset is None
    platoon = spec.units[0]
    hq = platoon.units[0]
    assert platoon.quality is None
    assert platoon.toe_strength == 0
    assert hq.level is CommandLevel.PLATOON
    assert hq.fatigue == "fresh"
    assert hq.mission_motivation == "medium"
    assert hq.status is UnitStatus.IN_THE_LINE
    assert hq.toe_strength == 2  # the number of troopers listed
    assert hq.specialists == []
    assert hq.key is None
    assert hq.attached_to is None
    sergeant = hq.troopers[1]
    assert sergeant.role is TrooperRole.LINE
    assert (sergeant.weapon, sergeant.armour, sergeant.specialism) == ("", "", "")
    assert sergeant.armour_die is None
    assert sergeant.power_armour is False
    apc = hq.vehicles[0]
    assert apc.vehicle_class == "APC"
    assert apc.capacity == 0
    assert apc.armour is None
    assert apc.state is VehicleState.OPERATIONAL


def test_given_values_are_kept() -> None:
    spec = parse_roster(
        yaml_text(
            """
            name: Test force
            side: Red
            description: A test.
            ruleset: sg2
            units:
              - key: sq
                name: 1st Squad
                kind: squad
                quality: veteran
                leadership: 3
                fatigue: exhausted
                mission_motivation: high
                toe_strength: 8
                specialists: [EW team]
                status: safe_area
                troopers:
                  - name: Cpl Hale
                    role: leader
                    weapon: L7A3 IW
                    armour: full-suit light armour
                    armour_die: 8
                    power_armour: false
                    specialism: EW
                vehicles:
                  - {name: V, vehicle_class: Hoplite, size: 3, capacity: 10, armour: 2,
                     state: immobilised}
            """
        ),
        ruleset="sg2",
    )
    squad = spec.units[0]
    assert (squad.quality, squad.leadership, squad.fatigue) == ("veteran", 3, "exhausted")
    assert squad.mission_motivation == "high"
    assert squad.toe_strength == 8
    assert squad.status is UnitStatus.SAFE_AREA
    assert squad.specialists == ["EW team"]
    assert squad.troopers[0].armour_die == 8
    assert squad.vehicles[0].vehicle_class == "Hoplite"  # the field's own name works too
    assert squad.vehicles[0].state is VehicleState.IMMOBILISED


def test_json_reads_like_yaml() -> None:
    data = {
        "name": "Test force",
        "side": "Blue",
        "units": [
            {
                "name": "1st Squad",
                "kind": "squad",
                "quality": "regular",
                "leadership": 2,
                "troopers": [{"name": "Cpl Hale", "role": "leader"}, {"name": "Pte Ames"}],
                "vehicles": [{"name": "V", "class": "APC", "size": 3}],
            }
        ],
    }
    from_json = parse_roster(json.dumps(data, indent="\t"), ruleset="sg2")
    from_yaml = parse_roster(yaml_text(SG2_SQUAD), ruleset="sg2")
    assert from_json.units[0].troopers == from_yaml.units[0].troopers
    assert from_json.units[0].vehicles[0].vehicle_class == "APC"


def test_fad_unit_has_quality_and_resolve() -> None:
    spec = parse_roster(
        yaml_text(
            """
            name: Test force
            side: Blue
            ruleset: fad
            units:
              - name: Squad
                kind: squad
                quality: conscript
                resolve: determined
                troopers:
                  - {name: Sgt Hale, role: leader, armour: light}
            """
        ),
        ruleset="fad",
    )
    assert spec.units[0].quality == "conscript"
    assert spec.units[0].resolve == "determined"
    assert spec.units[0].leadership is None


FAD_LEADERS = """
name: Test force
side: Blue
ruleset: fad
units:
  - name: Platoon HQ
    kind: command
    quality: regular
    resolve: steady
    troopers:
      - {name: Lt Dunmore, role: leader}
  - name: Old Hands
    kind: squad
    quality: regular
    resolve: steady
    troopers:
      - {name: Sgt Bowen, role: leader, experience: veteran}
      - {name: Pte Paxton}
  - name: Recruits
    kind: squad
    quality: conscript
    resolve: uncertain
    troopers:
      - {name: Cpl Reyes, role: leader}
      - {name: Pte Ames}
"""


def test_a_fad_squad_leader_may_be_given_an_experience_p11() -> None:
    spec = parse_roster(yaml_text(FAD_LEADERS), ruleset="fad")
    experience = {t.name: t.experience for u in spec.units for t in u.troopers}
    assert experience == {
        "Lt Dunmore": None,
        "Sgt Bowen": "veteran",
        "Pte Paxton": None,
        "Cpl Reyes": None,
        "Pte Ames": None,
    }


@pytest.mark.django_db
def test_an_imported_squad_leader_keeps_his_experience_and_starts_inexperienced_p51(
    umpire, umpire_api
) -> None:
    """FaD p.51: every squad leader starts Inexperienced unless raised; the roster keeps the
    experience given, and nobody else has one (an officer's is his leadership, p.32)."""
    campaign = campaign_for(umpire, name="Leaders", ruleset="fad")
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": yaml_text(FAD_LEADERS)}
    )
    assert response.status_code == 201, response.json()
    force = umpire_api.get(f"/api/v1/forces/{response.json()['id']}/").json()
    experience = {t["name"]: t["experience"] for u in force["units"] for t in u["troopers"]}
    assert experience == {
        "Lt Dunmore": "",
        "Sgt Bowen": "veteran",
        "Pte Paxton": "",
        "Cpl Reyes": "inexperienced",
        "Pte Ames": "",
    }


def test_squad_leader_experience_belongs_to_a_fad_squads_leader_only() -> None:
    problems = problems_of(
        """
        name: Test force
        side: Blue
        units:
          - name: Platoon HQ
            kind: command
            quality: regular
            resolve: steady
            troopers:
              - {name: Lt Dunmore, role: leader, experience: veteran}
          - name: Squad
            kind: squad
            quality: regular
            resolve: steady
            troopers:
              - {name: Cpl Reyes, role: leader, experience: Veteran}
              - {name: Pte Ames, experience: experienced}
              - {name: Pte Hale, role: medic, experience: hardened}
        """,
        ruleset="fad",
    )
    assert [(p.code, p.path, p.line) for p in problems] == [
        ("roster.not_allowed", "units[0].troopers[0].experience", 9),
        ("roster.invalid", "units[1].troopers[0].experience", 15),
        ("roster.not_allowed", "units[1].troopers[1].experience", 16),
        ("roster.not_allowed", "units[1].troopers[2].experience", 17),
    ]
    assert "only the leader (role leader) of a squad" in problems[0].message
    assert '"veteran"' in problems[1].message
    sg2 = only_problem(SG2_SQUAD.replace("role: leader}", "role: leader, experience: veteran}"))
    assert (sg2.code, sg2.path) == ("roster.wrong_ruleset", "units[0].troopers[0].experience")
    assert "Fast and Dirty" in sg2.message


def test_a_byte_order_mark_is_ignored() -> None:
    spec = parse_roster("\ufeff" + yaml_text(SG2_SQUAD), ruleset="sg2")
    assert spec.name == "Test force"


# --- refusals, with code, path and line -----------------------------------------------------------


def test_bad_role_is_reported_on_its_line() -> None:
    problem = only_problem(
        """
        name: Test force
        side: Blue
        units:
          - name: 1st Squad
            kind: squad
            quality: regular
            leadership: 2
            troopers:
              - {name: Cpl Hale, role: leader}
              - name: Pte Ames
                role: sergeant
        """
    )
    assert problem.code == "roster.invalid"
    assert problem.path == "units[0].troopers[1].role"
    assert problem.field == "role"
    assert problem.line == 11
    assert '"sergeant"' in problem.message
    assert "second_in_command" in problem.message


def test_syntax_error_in_yaml_has_its_line() -> None:
    problem = only_problem(
        """
        name: Test force
        side: Blue
        units:
          - name: 1st Squad
            kind: squad
            troopers:
              - {name: Cpl Hale, role: leader
              - {name: Pte Ames}
        """
    )
    assert problem.code == "roster.syntax"
    assert problem.line == 8
    assert problem.path == ""
    assert "line 7" in problem.message  # where the unclosed brace opened


def test_tabs_in_yaml_get_a_hint() -> None:
    problem = only_problem("name: x\nside: y\nunits:\n\t- name: z\n")
    assert problem.code == "roster.syntax"
    assert problem.line == 4
    assert "tabs" in problem.message


def test_syntax_error_in_json_has_its_line() -> None:
    text = '{\n  "name": "Test force",\n  "side": "Blue"\n  "units": []\n}\n'
    with pytest.raises(RosterFileError) as caught:
        parse_roster(text, ruleset="sg2")
    (problem,) = caught.value.problems
    assert problem.code == "roster.syntax"
    assert problem.line == 4
    assert "JSON" in problem.message


def test_json_problems_have_lines() -> None:
    text = (
        "{\n"  # 1
        '\t"name": "Test force",\n'  # 2
        '\t"side": "Blue",\n'  # 3
        '\t"units": [\n'  # 4
        "\t\t{\n"  # 5
        '\t\t\t"name": "1st Squad",\n'  # 6
        '\t\t\t"kind": "squad",\n'  # 7
        '\t\t\t"quality": "regular",\n'  # 8
        '\t\t\t"troopers": [\n'  # 9
        '\t\t\t\t{"name": "Cpl Hale", "role": "leader"},\n'  # 10
        '\t\t\t\t{"name": "Pte Ames", "role": "boss"}\n'  # 11
        "\t\t\t]\n"  # 12
        "\t\t}\n"  # 13
        "\t],\n"  # 14
        '\t"side": "Red"\n'  # 15
        "}\n"
    )
    with pytest.raises(RosterFileError) as caught:
        parse_roster(text, ruleset="sg2", source="force.json")
    found = [(p.line, p.path, p.code) for p in caught.value.problems]
    assert found == [
        (5, "units[0].leadership", "roster.missing_field"),
        (11, "units[0].troopers[1].role", "roster.invalid"),
        (15, "side", "roster.duplicate_field"),
    ]


def test_empty_file() -> None:
    problem = only_problem("# nothing but a comment\n")
    assert problem.code == "roster.invalid"
    assert problem.line == 1


def test_top_level_must_be_a_mapping() -> None:
    problem = only_problem("- name: a\n- name: b\n")
    assert problem.code == "roster.invalid"
    assert problem.path == ""
    assert problem.line == 1
    assert "not a list" in problem.message


def test_unknown_field_suggests_the_right_one() -> None:
    problem = only_problem(
        """
        name: Test force
        side: Blue
        units:
          - name: 1st Squad
            kind: squad
            quality: regular
            leadershp: 2
            leadership: 2
        """
    )
    assert problem.code == "roster.unknown_field"
    assert problem.path == "units[0].leadershp"
    assert problem.line == 7
    assert "Did you mean 'leadership'?" in problem.message


def test_missing_field_points_at_its_parent() -> None:
    problem = only_problem(
        """
        name: Test force
        side: Blue
        units:
          - name: 1st Squad
            kind: squad
            quality: regular
            leadership: 2
            troopers:
              - {name: Cpl Hale, role: leader}
              - role: line
                weapon: rifle
        """
    )
    assert problem.code == "roster.missing_field"
    assert problem.path == "units[0].troopers[1].name"
    assert problem.field == "name"
    assert problem.line == 10


def test_missing_top_level_fields() -> None:
    problems = problems_of("name: Test force\n")
    assert [(p.path, p.code, p.line) for p in problems] == [
        ("side", "roster.missing_field", 1),
        ("units", "roster.missing_field", 1),
    ]


def test_a_force_needs_a_unit() -> None:
    problem = only_problem("name: x\nside: y\nunits: []\n")
    assert (problem.code, problem.path, problem.line) == ("roster.invalid", "units", 3)


def test_duplicate_field_in_yaml() -> None:
    problem = only_problem(
        """
        name: Test force
        side: Blue
        units:
          - name: 1st Squad
            kind: squad
            quality: regular
            leadership: 2
            quality: veteran
        """
    )
    assert (problem.code, problem.path, problem.line) == (
        "roster.duplicate_field",
        "units[0].quality",
        8,
    )


def test_duplicate_and_unknown_keys() -> None:
    problems = problems_of(
        """
        name: Test force
        side: Blue
        units:
          - key: alpha
            name: 1st Squad
            kind: squad
            quality: regular
            leadership: 2
          - key: alpha
            name: 2nd Squad
            kind: squad
            quality: regular
            leadership: 2
            attached_to: alpah
          - key: bravo
            name: 3rd Squad
            kind: squad
            quality: regular
            leadership: 2
            attached_to: bravo
        """
    )
    assert [(p.code, p.path, p.line) for p in problems] == [
        ("roster.duplicate_key", "units[1].key", 9),
        ("roster.unknown_key", "units[1].attached_to", 14),
        ("roster.attached_to_self", "units[2].attached_to", 20),
    ]
    assert "line 4" in problems[0].message
    assert 'Did you mean "alpha"?' in problems[1].message


def test_attached_to_a_key_elsewhere_in_the_tree() -> None:
    spec = parse_roster(
        yaml_text(
            """
            name: Test force
            side: Blue
            units:
              - name: Tank
                kind: vehicle_crew
                quality: regular
                leadership: 2
                attached_to: p1
              - key: p1
                name: 1st Platoon
                kind: platoon
            """
        ),
        ruleset="sg2",
    )
    assert spec.units[0].attached_to == "p1"


def test_two_leaders() -> None:
    problem = only_problem(
        """
        name: Test force
        side: Blue
        units:
          - name: 1st Squad
            kind: squad
            quality: regular
            leadership: 2
            troopers:
              - {name: Cpl Hale, role: leader}
              - {name: Pte Ames}
              - {name: LCpl Bryce, role: leader}
        """
    )
    assert problem.code == "roster.two_leaders"
    assert problem.path == "units[0].troopers[2].role"
    assert problem.line == 11
    assert '"Cpl Hale"' in problem.message
    assert '"LCpl Bryce"' in problem.message


def test_formations_have_no_ratings_or_troopers() -> None:
    problems = problems_of(
        """
        name: Test force
        side: Blue
        units:
          - name: 1st Platoon
            kind: platoon
            quality: regular
            leadership: 2
            troopers:
              - {name: Lt Reyes, role: leader}
        """
    )
    assert [(p.code, p.path, p.line) for p in problems] == [
        ("roster.not_allowed", "units[0].quality", 6),
        ("roster.not_allowed", "units[0].leadership", 7),
        ("roster.not_allowed", "units[0].troopers", 8),
    ]


def test_sg2_unit_needs_quality_and_leadership() -> None:
    problems = problems_of(
        """
        name: Test force
        side: Blue
        units:
          - name: 1st Squad
            kind: squad
        """
    )
    assert [(p.code, p.path, p.line) for p in problems] == [
        ("roster.missing_field", "units[0].quality", 4),
        ("roster.missing_field", "units[0].leadership", 4),
    ]


def test_fad_unit_needs_resolve_and_refuses_sg2_values() -> None:
    problems = problems_of(
        """
        name: Test force
        side: Blue
        units:
          - name: Squad
            kind: squad
            quality: veteran
            leadership: 2
            fatigue: tired
            mission_motivation: high
        """,
        ruleset="fad",
    )
    assert [(p.code, p.path, p.line) for p in problems] == [
        ("roster.missing_field", "units[0].resolve", 4),
        ("roster.wrong_ruleset", "units[0].quality", 6),
        ("roster.wrong_ruleset", "units[0].leadership", 7),
        ("roster.wrong_ruleset", "units[0].fatigue", 8),
        ("roster.wrong_ruleset", "units[0].mission_motivation", 9),
    ]
    assert "rabble, conscript, regular or elite" in problems[1].message


def test_sg2_refuses_fad_values() -> None:
    problems = problems_of(
        """
        name: Test force
        side: Blue
        units:
          - name: Squad
            kind: squad
            quality: conscript
            leadership: 2
            resolve: steady
        """
    )
    assert [(p.code, p.path, p.line) for p in problems] == [
        ("roster.wrong_ruleset", "units[0].quality", 6),
        ("roster.wrong_ruleset", "units[0].resolve", 8),
    ]


def test_file_written_for_the_other_ruleset() -> None:
    problem = only_problem(
        """
        name: Test force
        side: Blue
        ruleset: fad
        units:
          - name: Squad
            kind: squad
            quality: regular
            leadership: 2
        """
    )
    assert (problem.code, problem.path, problem.line) == ("roster.wrong_ruleset", "ruleset", 3)
    assert "Fast and Dirty" in problem.message
    assert "Stargrunt II" in problem.message


def test_quality_names_are_lower_case_and_of_the_ruleset() -> None:
    problems = problems_of(
        """
        name: Test force
        side: Blue
        units:
          - name: A
            kind: squad
            quality: Veteran
            leadership: 2
          - name: B
            kind: squad
            quality: heroic
            leadership: 2
        """
    )
    assert [(p.code, p.line) for p in problems] == [
        ("roster.invalid", 6),
        ("roster.invalid", 10),
    ]
    assert '"veteran"' in problems[0].message
    assert "untrained, green, regular, veteran or elite" in problems[1].message


def test_fad_resolve_must_be_a_resolve() -> None:
    problem = only_problem(
        """
        name: Test force
        side: Blue
        units:
          - name: Squad
            kind: squad
            quality: regular
            resolve: brave
        """,
        ruleset="fad",
    )
    assert (problem.code, problem.path, problem.line) == (
        "roster.invalid",
        "units[0].resolve",
        7,
    )


def test_numbers_are_numbers() -> None:
    problems = problems_of(
        """
        name: Test force
        side: Blue
        units:
          - name: Squad
            kind: squad
            quality: regular
            leadership: "2"
            toe_strength: 7.5
            troopers:
              - {name: Cpl Hale, power_armour: 1, armour_die: 5}
        """
    )
    assert [(p.path, p.line) for p in problems] == [
        ("units[0].leadership", 7),
        ("units[0].toe_strength", 8),
        ("units[0].troopers[0].armour_die", 10),
        ("units[0].troopers[0].power_armour", 10),
    ]
    assert all(p.code == "roster.invalid" for p in problems)
    assert "whole number" in problems[0].message


def test_text_fields_refuse_numbers() -> None:
    problem = only_problem(
        """
        name: 1914
        side: Blue
        units:
          - {name: Squad, kind: squad, quality: regular, leadership: 2}
        """
    )
    assert (problem.code, problem.path, problem.line) == ("roster.invalid", "name", 1)
    assert "quotes" in problem.message


def test_out_of_range_values() -> None:
    problems = problems_of(
        """
        name: Test force
        side: Blue
        units:
          - name: Squad
            kind: squad
            level: brigade
            quality: regular
            leadership: 4
            toe_strength: -1
            vehicles:
              - {name: V, class: APC, size: 6, capacity: -2, armour: 9}
        """
    )
    assert [(p.path, p.line) for p in problems] == [
        ("units[0].level", 6),
        ("units[0].leadership", 8),
        ("units[0].toe_strength", 9),
        ("units[0].vehicles[0].size", 11),
        ("units[0].vehicles[0].capacity", 11),
        ("units[0].vehicles[0].armour", 11),
    ]
    assert "squad, platoon, company, battalion or regiment" in problems[0].message


def test_vehicle_armour_above_size_is_refused_only_in_sg2() -> None:
    vehicle_text = """
        name: Test force
        side: Blue
        units:
          - name: Tank
            kind: vehicle_crew
            quality: regular
            {rating}
            vehicles:
              - {{name: V, class: light tank, size: 2, armour: 3}}
        """
    problem = only_problem(vehicle_text.format(rating="leadership: 2"))
    assert (problem.code, problem.path, problem.line) == (
        "roster.invalid",
        "units[0].vehicles[0].armour",
        9,
    )
    parse_roster(yaml_text(vehicle_text.format(rating="resolve: steady")), ruleset="fad")


def test_unknown_kind_is_reported_once() -> None:
    problem = only_problem(
        """
        name: Test force
        side: Blue
        units:
          - name: Squad
            kind: fireteam
        """
    )
    assert (problem.code, problem.path, problem.line) == ("roster.invalid", "units[0].kind", 5)
    assert "weapon_team" in problem.message


def test_entries_of_the_wrong_shape() -> None:
    problems = problems_of(
        """
        name: Test force
        side: Blue
        units:
          - just text
          - name: Squad
            kind: squad
            quality: regular
            leadership: 2
            troopers: 5
        """
    )
    assert [(p.code, p.path, p.line) for p in problems] == [
        ("roster.invalid", "units[0]", 4),
        ("roster.invalid", "units[1].troopers", 9),
    ]
    assert (
        problems[0].message == 'Each entry of units must be a mapping of fields, not "just text".'
    )


def test_a_unit_that_contains_itself() -> None:
    problem = only_problem(
        """
        name: Test force
        side: Blue
        units:
          - &platoon
            name: 1st Platoon
            kind: platoon
            units: [*platoon]
        """
    )
    assert (problem.code, problem.path, problem.line) == ("roster.invalid", "units[0].units[0]", 4)


def test_every_problem_at_once_in_line_order() -> None:
    problems = problems_of(
        """
        name: ""
        side: Blue
        units:
          - name: 1st Platoon
            kind: platoon
            units:
              - name: HQ
                kind: command
                quality: regular
                colour: green
                troopers:
                  - {name: Lt Reyes, role: leader}
                  - {name: Sgt Hale, role: leader}
              - name: 1st Squad
                kind: squad
                quality: rabble
                leadership: 2
                troopers:
                  - {name: Cpl Ames, role: boss}
        """
    )
    assert [(p.line, p.code, p.path) for p in problems] == [
        (1, "roster.invalid", "name"),
        (7, "roster.missing_field", "units[0].units[0].leadership"),
        (10, "roster.unknown_field", "units[0].units[0].colour"),
        (13, "roster.two_leaders", "units[0].units[0].troopers[1].role"),
        (16, "roster.wrong_ruleset", "units[0].units[1].quality"),
        (19, "roster.invalid", "units[0].units[1].troopers[0].role"),
    ]


def test_error_text_lists_file_line_path_and_message() -> None:
    with pytest.raises(RosterFileError) as caught:
        parse_roster("name: x\nside: y\nunits: []\n", ruleset="sg2", source="force.yaml")
    error = caught.value
    assert isinstance(error, ValueError)
    assert str(error) == f"force.yaml:3: units: {error.problems[0].message}"
    assert error.problems[0].to_dict()["code"] == "roster.invalid"


def test_error_survives_pickling() -> None:
    with pytest.raises(RosterFileError) as caught:
        parse_roster("name: x\nside: y\nunits: []\n", ruleset="sg2", source="force.yaml")
    copy = pickle.loads(pickle.dumps(caught.value))
    assert copy.problems == caught.value.problems
    assert str(copy) == str(caught.value)


def test_validate_roster_has_no_lines() -> None:
    with pytest.raises(RosterFileError) as caught:
        validate_roster({"name": "x", "side": "y", "units": [{"name": "s"}]}, ruleset="sg2")
    (problem,) = caught.value.problems
    assert (problem.code, problem.path, problem.line) == (
        "roster.missing_field",
        "units[0].kind",
        None,
    )
    assert str(caught.value).startswith("<roster>: units[0].kind: ")


def test_unknown_ruleset_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="dirtside"):
        parse_roster(yaml_text(SG2_SQUAD), ruleset="dirtside")


# --- walking a force ------------------------------------------------------------------------------


def test_iter_units_walks_parents_first() -> None:
    spec = parse_roster(
        yaml_text(
            """
            name: Test force
            side: Blue
            units:
              - name: Company
                kind: company
                units:
                  - {name: HQ, kind: command, quality: regular, leadership: 1,
                     troopers: [{name: Capt Reyes, role: leader}]}
                  - name: 1st Platoon
                    kind: platoon
                    units:
                      - {name: Squad, kind: squad, quality: regular, leadership: 2,
                         troopers: [{name: Cpl Hale, role: leader}, {name: Pte Ames}]}
              - {name: Sniper, kind: independent, quality: elite, leadership: 1,
                 troopers: [{name: Cpl Vance, role: specialist, specialism: sniper}]}
            """
        ),
        ruleset="sg2",
    )
    walked = [(entry.unit.name, entry.path, entry.parent_path) for entry in iter_units(spec)]
    assert walked == [
        ("Company", "units[0]", None),
        ("HQ", "units[0].units[0]", "units[0]"),
        ("1st Platoon", "units[0].units[1]", "units[0]"),
        ("Squad", "units[0].units[1].units[0]", "units[0].units[1]"),
        ("Sniper", "units[1]", None),
    ]
    assert count_troopers(spec) == 4
    assert count_vehicles(spec) == 0


# --- the examples and the schema ------------------------------------------------------------------


def _kinds(spec: ForceSpec) -> dict[UnitKind, int]:
    kinds: dict[UnitKind, int] = {}
    for entry in iter_units(spec):
        kinds[entry.unit.kind] = kinds.get(entry.unit.kind, 0) + 1
    return kinds


EXPECTED_EXAMPLES = {
    # file: (ruleset, units, troopers, vehicles)
    "sg2-reinforced-combat-company.yaml": ("sg2", 25, 113, 19),
    "sg2-scenario-1-blue.yaml": ("sg2", 5, 22, 0),
    "sg2-scenario-1-red.yaml": ("sg2", 5, 32, 0),
    "sg2-scenario-2-blue.yaml": ("sg2", 8, 27, 6),
    "sg2-scenario-2-red.yaml": ("sg2", 4, 22, 0),
    "sg2-scenario-3-blue.yaml": ("sg2", 4, 18, 0),
    "sg2-scenario-3-red.yaml": ("sg2", 11, 63, 1),
    "fad-rifle-platoon.yaml": ("fad", 5, 26, 0),
}


def test_every_example_is_listed() -> None:
    assert sorted(path.name for path in EXAMPLES.glob("*.yaml")) == sorted(EXPECTED_EXAMPLES)


@pytest.mark.parametrize("name", sorted(EXPECTED_EXAMPLES))
def test_example_loads_with_its_counts(name: str) -> None:
    ruleset, units, troopers, vehicles = EXPECTED_EXAMPLES[name]
    path = EXAMPLES / name
    spec = parse_roster(path.read_text(encoding="utf-8"), ruleset=ruleset, source=name)
    assert spec.ruleset == ruleset
    assert len(list(iter_units(spec))) == units
    assert count_troopers(spec) == troopers
    assert count_vehicles(spec) == vehicles
    names = [t.name for entry in iter_units(spec) for t in entry.unit.troopers]
    assert len(names) == len(set(names)), "trooper names are unique within a file"
    other = "fad" if ruleset == "sg2" else "sg2"
    with pytest.raises(RosterFileError):
        parse_roster(path.read_text(encoding="utf-8"), ruleset=other)


def test_reinforced_combat_company_follows_the_book() -> None:
    text = (EXAMPLES / "sg2-reinforced-combat-company.yaml").read_text(encoding="utf-8")
    spec = parse_roster(text, ruleset="sg2")
    assert _kinds(spec) == {
        UnitKind.COMPANY: 1,
        UnitKind.COMMAND: 4,  # the company HQ and three platoon HQs
        UnitKind.SECTION: 1,  # the fire support battery
        UnitKind.WEAPON_TEAM: 3,
        UnitKind.PLATOON: 4,  # the armour platoon and three infantry platoons
        UnitKind.VEHICLE_CREW: 3,
        UnitKind.SQUAD: 9,
    }
    company = spec.units[0]
    hq = company.units[0]
    assert hq.level is CommandLevel.COMPANY
    assert hq.leadership == 1
    assert len(hq.vehicles) == 1
    assert sum(t.role is TrooperRole.MEDIC for t in hq.troopers) == 1
    squads = [e.unit for e in iter_units(spec) if e.unit.kind is UnitKind.SQUAD]
    for squad in squads:
        roles = [t.role for t in squad.troopers]
        assert roles.count(TrooperRole.LEADER) == 1
        assert roles.count(TrooperRole.SUPPORT_WEAPON) == 1
        assert roles.count(TrooperRole.SPECIAL_WEAPON) == 1
        assert roles.count(TrooperRole.LINE) == 5
        assert len(squad.vehicles) == 1
    platoons = [u for u in company.units if u.kind is UnitKind.PLATOON]
    assert platoons[0].name == "Attached Armour Platoon"
    assert {squad.quality for squad in platoons[2].units} == {"veteran"}


def test_scenario_motivation_and_fatigue_are_the_books() -> None:
    def units_of(name: str) -> list[UnitSpec]:
        spec = parse_roster((EXAMPLES / name).read_text(encoding="utf-8"), ruleset="sg2")
        return [e.unit for e in iter_units(spec) if not e.unit.kind.is_formation]

    for name in ("sg2-scenario-1-blue.yaml", "sg2-scenario-1-red.yaml"):
        assert {(u.fatigue, u.mission_motivation) for u in units_of(name)} == {("fresh", "medium")}
    for name in ("sg2-scenario-2-blue.yaml", "sg2-scenario-2-red.yaml"):
        assert {(u.fatigue, u.mission_motivation) for u in units_of(name)} == {("fresh", "medium")}
    blue = units_of("sg2-scenario-3-blue.yaml")
    assert {(u.fatigue, u.mission_motivation) for u in blue} == {("tired", "high")}
    assert blue[0].leadership == 1  # the platoon commander is LV 1
    assert {u.quality for u in blue[1:]} <= {"regular", "veteran"}
    # understrength
    assert all(u.toe_strength is not None and u.toe_strength > len(u.troopers) for u in blue)
    red = units_of("sg2-scenario-3-red.yaml")
    assert {u.fatigue for u in red} == {"fresh", "tired"}


def test_error_output_shown_in_the_docs_is_real() -> None:
    doc = (ROOT / "docs" / "roster-format.md").read_text(encoding="utf-8")
    good, broken = re.findall(r"```yaml\n(.*?)```", doc, re.DOTALL)[:2]
    shown = re.findall(r"```text\n(.*?)```", doc, re.DOTALL)[0]
    parse_roster(good, ruleset="sg2")
    with pytest.raises(RosterFileError) as caught:
        parse_roster(broken, ruleset="sg2", source="platoon.yaml")
    assert str(caught.value) == shown.strip()


def test_committed_schema_matches_the_models() -> None:
    committed = (ROOT / "docs" / "roster-format.schema.json").read_text(encoding="utf-8")
    assert committed == json.dumps(roster_json_schema(), indent=2, ensure_ascii=False) + "\n"


def test_schema_uses_the_file_spelling() -> None:
    schema = roster_json_schema()
    vehicle = schema["$defs"]["VehicleSpec"]
    assert "class" in vehicle["properties"]
    assert "class" in vehicle["required"]
    assert schema["additionalProperties"] is False
    unit = schema["$defs"]["UnitSpec"]["properties"]
    assert unit["level"]["anyOf"][0]["enum"] == [level.name.lower() for level in CommandLevel]
    for definition in schema["$defs"].values():
        for field, prop in definition.get("properties", {}).items():
            assert prop.get("description"), f"{field} has no description"


def test_fatigue_and_motivation_words_match_the_scales() -> None:
    fatigue = UnitSpec.model_fields["fatigue"].annotation
    motivation = UnitSpec.model_fields["mission_motivation"].annotation
    assert typing.get_args(fatigue) == FATIGUES
    assert typing.get_args(motivation) == MOTIVATIONS


# --- hostile files -------------------------------------------------------------------------------


def _yaml_bomb(levels: int) -> str:
    """Nested aliases: each level is nine of the one before, so the file stays tiny while the
    document it stands for grows ninefold per level."""
    lines = ['x0: &x0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for n in range(1, levels + 1):
        lines.append(f"x{n}: &x{n} [{', '.join([f'*x{n - 1}'] * 9)}]")
    return "\n".join([*lines, "name: Bomb", "side: Blue", f"units: *x{levels}"]) + "\n"


@pytest.mark.parametrize("levels", [7, 8])
def test_a_yaml_bomb_is_refused_before_it_is_expanded(levels: int) -> None:
    # Seven levels stand for 9**8 (43 million) values in a 400-byte file: walking them took
    # minutes and gigabytes. The size is counted on the parsed graph, each node once
    # (bench/hostile_input.py measures the time and memory it takes).
    problem = only_problem(_yaml_bomb(levels))
    assert (problem.code, problem.line) == ("roster.too_large", 1)
    assert "aliases" in problem.message


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("name: !!binary aGVsbG8=\nside: A\nunits: []\n", "!!binary"),
        ("name: A\nside: A\nunits: !!set {a, b}\n", "!!set"),
        ("name: !!python/object/apply:os.system [id]\nside: A\n", "!!python/object"),
        ("name: ! A\nside: A\nunits: []\n", "!"),
        ("%TAG ! tag:example.com,2000:\n---\nname: !x A\nside: A\n", "tag:example.com,2000:x"),
    ],
)
def test_tags_are_refused_whatever_they_ask_for(text: str, shown: str) -> None:
    problem = only_problem(text)
    assert problem.code == "roster.syntax"
    assert f"tags such as {shown}" in problem.message


def test_aliases_that_stay_small_are_still_read() -> None:
    spec = parse_roster(
        yaml_text(
            """
            name: Shared
            side: Blue
            units:
              - name: Alpha
                kind: squad
                quality: regular
                leadership: 2
                troopers: &team [{name: Pte A, role: leader}, {name: Pte B}]
              - name: Bravo
                kind: squad
                quality: regular
                leadership: 2
                troopers: *team
            """
        ),
        ruleset="sg2",
    )
    assert [u.name for u in spec.units] == ["Alpha", "Bravo"]
    assert [t.name for t in spec.units[1].troopers] == ["Pte A", "Pte B"]


def test_a_control_character_is_a_syntax_problem_not_a_crash() -> None:
    problem = only_problem("name: Bad\x01\nside: Blue\nunits: []\n")
    assert problem.code == "roster.syntax"
