"""Fast and Dirty scenario generation (FaD p.59-63): the tables row by row, the rolls in the
book's order, and exact probabilities by enumeration."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Die, SeededDice, TableDice
from rules.fad.scenarios import (
    MISSION_DETAILS,
    MISSION_TABLE,
    Attitude,
    ForceSetup,
    ReconFate,
    ReconUnit,
    ScenarioError,
    Stance,
    assign_missions,
    dummy_markers,
    field_defences,
    generate_scenario,
    has_recon_trait,
    mission_from_totals,
    mission_probabilities,
    mission_totals,
    recon_barred,
    recon_fate,
    recon_points,
    recon_return,
    roll_mission_table,
    roll_off,
)
from rules.fad.tree import TABLE_MISSIONS, Mission

FACES = range(1, 7)
ZEROS = [0] * 8


def test_mission_table_rows_p61():
    """Each row of the MISSION TABLE: the stance and attitude modifiers, in the book's order."""
    rows = {
        mission: (dict(row.stance), dict(row.attitude)) for mission, row in MISSION_TABLE.items()
    }
    assert list(rows) == [
        Mission.ASSAULT,
        Mission.EXPAND,
        Mission.HOLD,
        Mission.INFILTRATE,
        Mission.INTERFERE,
        Mission.PATROL,
        Mission.STRIKE,
        Mission.SWEEP,
    ]
    assert rows == {
        Mission.ASSAULT: ({Stance.OFFENSIVE: 2}, {Attitude.AGGRESSIVE: 1}),
        Mission.EXPAND: ({}, {Attitude.CAUTIOUS: 1}),
        Mission.HOLD: ({Stance.DEFENSIVE: 2}, {Attitude.PASSIVE: 2}),
        Mission.INFILTRATE: ({Stance.OFFENSIVE: 1}, {Attitude.CAUTIOUS: 1}),
        Mission.INTERFERE: ({Stance.DEFENSIVE: 1}, {Attitude.CAUTIOUS: 1}),
        Mission.PATROL: ({Stance.NEUTRAL: 2}, {}),
        Mission.STRIKE: ({}, {Attitude.AGGRESSIVE: 1}),
        Mission.SWEEP: ({Stance.OFFENSIVE: 1}, {Attitude.AGGRESSIVE: 2}),
    }
    assert set(MISSION_DETAILS) == set(Mission)


def test_recon_points_table_p60():
    # Each platoon +1, Offensive +2, Neutral +1, Cautious +2, Passive -1, each recon unit +2.
    assert (
        recon_points(
            platoons=1, stance=Stance.OFFENSIVE, attitude=Attitude.AGGRESSIVE, recon_units=0
        )
        == 3
    )
    assert (
        recon_points(platoons=2, stance=Stance.NEUTRAL, attitude=Attitude.CAUTIOUS, recon_units=1)
        == 2 + 1 + 2 + 2
    )
    assert (
        recon_points(platoons=1, stance=Stance.DEFENSIVE, attitude=Attitude.PASSIVE, recon_units=0)
        == 0
    )
    assert (
        recon_points(platoons=0, stance=Stance.DEFENSIVE, attitude=Attitude.PASSIVE, recon_units=0)
        == -1
    )
    with pytest.raises(ScenarioError):
        recon_points(platoons=-1, stance="neutral", attitude="cautious", recon_units=0)
    with pytest.raises(ScenarioError):
        recon_points(platoons=True, stance="neutral", attitude="cautious", recon_units=0)


def test_dummy_markers_p61_and_the_stance_option_p59():
    # Five per platoon; Elusive/Stealth +1 each; Flyer/Relentless -1 each.
    assert dummy_markers(platoons=2, stance=Stance.OFFENSIVE) == 10
    assert (
        dummy_markers(
            platoons=2,
            stance=Stance.OFFENSIVE,
            elusive_or_stealth_units=3,
            flyer_or_relentless_units=1,
        )
        == 12
    )
    # Neutral +2 and Defensive -2: per platoon by default (p.61), once per force with the
    # p.59 reading.
    assert dummy_markers(platoons=2, stance=Stance.NEUTRAL) == 14
    assert dummy_markers(platoons=2, stance=Stance.DEFENSIVE) == 6
    per_force = "per_force"
    assert (
        dummy_markers(platoons=2, stance=Stance.NEUTRAL, scenario_stance_dummy_markers=per_force)
        == 12
    )
    assert (
        dummy_markers(platoons=2, stance=Stance.DEFENSIVE, scenario_stance_dummy_markers=per_force)
        == 8
    )
    # Never fewer than none.
    assert dummy_markers(platoons=0, stance=Stance.DEFENSIVE, flyer_or_relentless_units=2) == 0
    with pytest.raises(ScenarioError):
        dummy_markers(platoons=1, stance=Stance.NEUTRAL, scenario_stance_dummy_markers="twice")


def test_field_defences_and_the_recon_duty_bar_p60():
    assert field_defences(Stance.DEFENSIVE, Attitude.PASSIVE) == 6
    assert field_defences(Stance.DEFENSIVE, Attitude.CAUTIOUS) == 3
    assert field_defences(Stance.NEUTRAL, Attitude.PASSIVE) == 3
    assert field_defences(Stance.OFFENSIVE, Attitude.AGGRESSIVE) == 0
    assert recon_barred(resolve="Reluctant", traits=[]) == "its Resolve is Reluctant"
    for trait in ("Berserk", "Hivemind", "Relentless", "Shaky", "Zombie"):
        assert (
            recon_barred(resolve="steady", traits=["Tough", trait]) == f"it has the {trait} trait"
        )
    assert recon_barred(resolve="uncertain", traits=["Tough"]) is None
    assert has_recon_trait(["Infiltration"])
    assert has_recon_trait(["recon"])
    assert has_recon_trait(["Infiltrate"])
    assert not has_recon_trait(["Stealth"])


def test_recon_duty_table_every_face_p61():
    assert [recon_fate(total) for total in range(1, 8)] == [
        ReconFate.DESTROYED,
        ReconFate.DELAYED,
        ReconFate.DELAYED,
        ReconFate.DELAYED,
        ReconFate.DELAYED,
        ReconFate.ON_TIME,
        ReconFate.ON_TIME,
    ]
    back = recon_return(recon_trait=True, dice=TableDice([5]), unit="Scouts")
    assert (back.roll.result, back.modifier, back.total, back.fate) == (5, 1, 6, "on_time")
    assert back.roll.purpose == "Scouts: returning from recon duty"
    assert recon_return(recon_trait=False, dice=TableDice([1])).fate is ReconFate.DESTROYED


@pytest.mark.parametrize(
    ("recon_trait", "expected"),
    [
        (
            False,
            {"destroyed": Fraction(1, 6), "delayed": Fraction(4, 6), "on_time": Fraction(1, 6)},
        ),
        # +1: a 1 becomes 2, so a unit with Infiltrate or Recon is never destroyed.
        (True, {"destroyed": Fraction(0), "delayed": Fraction(4, 6), "on_time": Fraction(2, 6)}),
    ],
)
def test_recon_duty_exact_probabilities(recon_trait, expected):
    counts = Counter(
        recon_return(recon_trait=recon_trait, dice=TableDice([face])).fate for face in FACES
    )
    assert {fate.value: Fraction(counts[fate], 6) for fate in ReconFate} == expected


def test_mission_totals_add_stance_attitude_and_the_players_two_bonuses_p61():
    faces = [3, 3, 3, 3, 3, 3, 3, 3]
    totals = mission_totals(
        faces,
        stance=Stance.OFFENSIVE,
        attitude=Attitude.AGGRESSIVE,
        bonuses=[Mission.STRIKE, "hold"],
    )
    assert totals == {
        Mission.ASSAULT: 6,
        Mission.EXPAND: 3,
        Mission.HOLD: 4,
        Mission.INFILTRATE: 4,
        Mission.INTERFERE: 3,
        Mission.PATROL: 3,
        Mission.STRIKE: 5,
        Mission.SWEEP: 6,
    }
    with pytest.raises(ScenarioError) as too_many:
        mission_totals(
            faces, stance="neutral", attitude="passive", bonuses=["hold", "patrol", "sweep"]
        )
    assert too_many.value.code == "scenario.too_many_bonuses"
    with pytest.raises(ScenarioError) as repeated:
        mission_totals(faces, stance="neutral", attitude="passive", bonuses=["hold", "hold"])
    assert repeated.value.code == "scenario.repeated_mission"
    with pytest.raises(ScenarioError) as unknown:
        mission_totals(faces, stance="neutral", attitude="passive", bonuses=["picnic"])
    assert unknown.value.code == "scenario.unknown_mission"
    with pytest.raises(ScenarioError) as escalating:
        mission_totals(
            faces, stance="neutral", attitude="passive", bonuses=["escalating_engagement"]
        )
    assert escalating.value.code == "scenario.unknown_mission"
    with pytest.raises(ScenarioError):
        mission_totals(faces[:7], stance="neutral", attitude="passive")


def test_the_highest_total_is_the_mission_and_ties_go_to_the_players_preference_p61():
    totals = dict.fromkeys(MISSION_TABLE, 2) | {Mission.HOLD: 7, Mission.SWEEP: 7}
    assert mission_from_totals(totals) == ((Mission.HOLD, Mission.SWEEP), Mission.HOLD)
    assert mission_from_totals(totals, preference=["strike", "sweep"]) == (
        (Mission.HOLD, Mission.SWEEP),
        Mission.SWEEP,
    )
    totals[Mission.PATROL] = 8
    assert mission_from_totals(totals, preference=["sweep"]) == ((Mission.PATROL,), Mission.PATROL)


def test_the_same_mission_for_both_is_an_escalating_engagement_p61():
    assert assign_missions(Mission.HOLD, Mission.HOLD) == (
        Mission.ESCALATING_ENGAGEMENT,
        Mission.ESCALATING_ENGAGEMENT,
    )
    assert assign_missions(Mission.HOLD, Mission.SWEEP) == (Mission.HOLD, Mission.SWEEP)


def test_the_mission_table_rolls_a_d6_per_mission_in_the_tables_order():
    rolled = roll_mission_table(
        stance=Stance.DEFENSIVE,
        attitude=Attitude.PASSIVE,
        dice=TableDice([6, 6, 1, 2, 3, 4, 5, 6]),
        bonuses=["assault"],
        force="Red",
    )
    assert [r.purpose for r in rolled.rolls] == [f"Red: Mission Table, {m}" for m in MISSION_TABLE]
    # Assault 6+1, Expand 6, Hold 1+2+2, Interfere 3+1, Sweep 6.
    assert rolled.totals[Mission.ASSAULT] == 7
    assert rolled.totals[Mission.HOLD] == 5
    assert rolled.highest == (Mission.ASSAULT,)
    assert rolled.mission is Mission.ASSAULT


def _enumerated(stance, attitude, bonuses, preference) -> dict[Mission, Fraction]:
    """Every one of the 6^8 Mission Table rolls, decided independently of the module's code."""
    missions = list(MISSION_TABLE)
    offsets = [
        MISSION_TABLE[m].stance.get(stance, 0)
        + MISSION_TABLE[m].attitude.get(attitude, 0)
        + (1 if m in bonuses else 0)
        for m in missions
    ]
    rank = [*preference, *(m for m in missions if m not in preference)]
    position = [rank.index(m) for m in missions]
    counts = [0] * len(missions)
    for faces in itertools.product(FACES, repeat=len(missions)):
        totals = [face + offset for face, offset in zip(faces, offsets, strict=True)]
        best = max(totals)
        winner = min((position[i], i) for i, total in enumerate(totals) if total == best)[1]
        counts[winner] += 1
    return {m: Fraction(counts[i], 6 ** len(missions)) for i, m in enumerate(missions)}


def test_mission_probabilities_match_every_roll_enumerated():
    """An Offensive, Aggressive force giving +1 to Assault and Sweep, preferring Sweep."""
    stance, attitude = Stance.OFFENSIVE, Attitude.AGGRESSIVE
    bonuses, preference = (Mission.ASSAULT, Mission.SWEEP), (Mission.SWEEP,)
    exact = mission_probabilities(
        stance=stance, attitude=attitude, bonuses=bonuses, preference=preference
    )
    assert exact == _enumerated(stance, attitude, bonuses, preference)
    assert sum(exact.values()) == 1
    # Sweep (+4) takes it more often than Assault (+4) only through the tie preference.
    assert exact[Mission.SWEEP] > exact[Mission.ASSAULT] > exact[Mission.STRIKE]
    # Expand (+0) wins only on a 6 when Sweep and Assault (+4) both roll 1 (5 < 6) and neither
    # Infiltrate nor Strike (+1) beats it (a 6 would make 7): 1/6 x 1/36 x (5/6)^2.
    assert exact[Mission.EXPAND] == Fraction(1, 6) * Fraction(1, 36) * Fraction(5, 6) ** 2


@given(
    stance=st.sampled_from(list(Stance)),
    attitude=st.sampled_from(list(Attitude)),
    bonuses=st.lists(st.sampled_from(sorted(TABLE_MISSIONS)), max_size=2, unique=True),
    preference=st.lists(st.sampled_from(sorted(TABLE_MISSIONS)), unique=True),
)
def test_mission_probabilities_always_sum_to_one(stance, attitude, bonuses, preference):
    chances = mission_probabilities(
        stance=stance, attitude=attitude, bonuses=bonuses, preference=preference
    )
    assert sum(chances.values()) == 1
    assert all(chance >= 0 for chance in chances.values())


def test_a_roll_off_re_rolls_ties_and_may_be_won_by_the_lowest():
    high = roll_off(dice=TableDice([3, 3, 2, 5]), purpose="edge", names=("A", "B"))
    assert high.winner == 1
    assert [r.purpose for r in high.rolls] == ["A: edge", "B: edge", "A: edge", "B: edge"]
    with_points = roll_off(
        dice=TableDice([2, 5]), purpose="edge", names=("A", "B"), modifiers=(4, 0)
    )
    assert with_points.winner == 0
    lowest = roll_off(dice=TableDice([2, 5]), purpose="placing", names=("A", "B"), lowest_wins=True)
    assert lowest.winner == 0


def _setup(name: str, **extra: Any) -> ForceSetup:
    fields: dict[str, Any] = {
        "stance": Stance.NEUTRAL,
        "attitude": Attitude.CAUTIOUS,
        "platoons": 1,
        "units": 4,
    }
    return ForceSetup(name=name, **(fields | extra))


def test_a_scenario_rolls_edge_missions_recon_then_placement_in_the_books_order():
    blue = _setup(
        "Blue",
        stance=Stance.OFFENSIVE,
        attitude=Attitude.AGGRESSIVE,
        recon=(ReconUnit("s1", "Scouts", recon_trait=True), ReconUnit("s2", "Squad 2")),
        mission_bonuses=(Mission.ASSAULT,),
    )
    red = _setup(
        "Red",
        stance=Stance.DEFENSIVE,
        attitude=Attitude.PASSIVE,
        recon=(ReconUnit("r1", "Red Squad"),),
    )
    faces = [
        1, 1,  # edge: Blue 1 + 7 RP beats Red 1 + 3 RP
        5, 1, 1, 1, 1, 1, 1, 1,  # Blue: Assault 5+2+1+1 = 9
        1, 1, 6, 1, 1, 1, 1, 1,  # Red: Hold 6+2+2 = 10
        4,  # Scouts: 4+1, delayed
        1,  # Squad 2: destroyed
        6,  # Red Squad: in time
        3, 2,  # equal markers: Red's lower die places first
    ]  # fmt: skip
    scenario = generate_scenario(first=blue, second=red, dice=TableDice(faces))
    assert [r.result for r in scenario.rolls] == faces
    assert scenario.edge_roll.winner == 0
    b, r = scenario.forces
    assert (b.recon_points, r.recon_points) == (1 + 2 + 0 + 4, 1 + 0 - 1 + 2)
    assert (b.mission, r.mission) == (Mission.ASSAULT, Mission.HOLD)
    assert b.details.bonus == "One Assault Troops and one Hardened trait."
    assert [(u.key, back.fate) for u, back in b.recon] == [
        ("s1", ReconFate.DELAYED),
        ("s2", ReconFate.DESTROYED),
    ]
    assert [(u.key, back.fate) for u, back in r.recon] == [("r1", ReconFate.ON_TIME)]
    assert (b.deployment_depth, r.deployment_depth) == (6, 18)
    assert (b.artillery_calls, r.field_defences, b.under_fire_ignored) == (2, 6, 3)
    # Blue: 5 dummies and 4 - 2 True markers; Red: 5 - 2 dummies and 4 True markers.
    assert (b.markers, r.markers) == (7, 7)
    assert scenario.first_to_place == 1
    assert not scenario.escalating_engagement


def test_equal_markers_roll_for_who_places_first_lowest_first_p61():
    faces = [6, 1, 6, *([1] * 7), 1, 1, 1, 1, 1, 1, 6, 1, 4, 4, 5, 2]
    scenario = generate_scenario(first=_setup("A"), second=_setup("B"), dice=TableDice(faces))
    assert scenario.forces[0].mission is Mission.ASSAULT
    assert scenario.forces[1].mission is Mission.STRIKE
    assert scenario.forces[0].markers == scenario.forces[1].markers == 4 + 7
    assert scenario.placement_roll is not None
    assert [r.result for r in scenario.placement_roll.rolls] == [4, 4, 5, 2]
    assert scenario.first_to_place == 1


def test_more_markers_place_first():
    faces = [6, 1, 6, *([1] * 7), 1, 1, 1, 1, 1, 1, 6, 1]
    scenario = generate_scenario(
        first=_setup("A", units=5), second=_setup("B"), dice=TableDice(faces)
    )
    assert scenario.first_to_place == 0
    assert scenario.placement_roll is None


def test_the_same_mission_makes_an_escalating_engagement_without_recon_rolls_p62():
    faces = [2, 5] + [1, 1, 6, 1, 1, 1, 1, 1] * 2
    scenario = generate_scenario(
        first=_setup("A", recon=(ReconUnit("a", "A scouts"),)),
        second=_setup("B"),
        dice=TableDice(faces),
    )
    assert scenario.escalating_engagement
    assert [f.mission for f in scenario.forces] == [Mission.ESCALATING_ENGAGEMENT] * 2
    assert [f.deployment_depth for f in scenario.forces] == [18, 18]
    assert scenario.forces[0].recon == ()
    # The player who chose the table edge places the recon units first.
    assert scenario.first_to_place == scenario.edge_roll.winner == 1
    assert len(scenario.rolls) == len(faces)


def test_a_force_cannot_send_more_units_on_recon_than_it_has():
    with pytest.raises(ScenarioError):
        generate_scenario(
            first=_setup("A", units=0, recon=(ReconUnit("a", "A"),)),
            second=_setup("B"),
            dice=SeededDice(b"\0" * 32, "test"),
        )


def test_seeded_dice_give_the_same_scenario_twice():
    def made() -> tuple:
        s = generate_scenario(
            first=_setup("A", recon=(ReconUnit("a", "A scouts"),)),
            second=_setup("B"),
            dice=SeededDice(bytes(range(32)), "job:1"),
        )
        return tuple((r.die, r.result, r.purpose) for r in s.rolls)

    assert made() == made()
    assert all(die is Die.D6 for die, _, _ in made())
