from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Die, SeededDice, TableDice
from rules.sg2.casualties import (
    AllocationOrder,
    AllocationOverflow,
    AllocationPool,
    BurstExposure,
    CasualtyError,
    Cover,
    DeliverySystem,
    Figure,
    FigureRole,
    FigureState,
    HitResult,
    Warhead,
    allocate_hits,
    allocated_index,
    allocation_die,
    allocation_pool,
    allowed_transitions,
    artillery_casualties,
    close_combat_casualties,
    close_combat_result,
    penetration,
    power_armour_casualty,
    power_armour_result,
    resolve_fire_casualties,
    state_after_hits,
    transition,
)

FACES = {die: range(1, die.value + 1) for die in Die}


def squad(count: int, *, armour: Die = Die.D6, **states: FigureState) -> list[Figure]:
    return [
        Figure(id=f"f{n}", armour=armour, state=states.get(f"f{n}", FigureState.FIT))
        for n in range(1, count + 1)
    ]


# --- figure states -------------------------------------------------------------------------


def test_dead_figure_has_no_way_out():
    assert allowed_transitions(FigureState.DEAD) == frozenset()
    assert FigureState.DEAD.is_final
    with pytest.raises(CasualtyError) as error:
        transition(FigureState.DEAD, FigureState.FIT)
    assert error.value.code == "figure.invalid_transition"


def test_treatment_results_are_allowed_transitions_of_an_untreated_casualty():
    for result in (FigureState.DEAD, FigureState.STABILISED, FigureState.FIT):
        assert transition(FigureState.UNTREATED, result) is result


def test_a_stabilised_casualty_cannot_walk_back_into_the_fight():
    with pytest.raises(CasualtyError):
        transition(FigureState.STABILISED, FigureState.FIT)


def test_staying_in_the_same_state_is_always_allowed():
    for state in FigureState:
        assert transition(state, state) is state


def test_wrecked_suit_wearer_is_freed_to_fight_by_reorganise_p40():
    assert transition(FigureState.SUIT_DISABLED, FigureState.FIT) is FigureState.FIT


def test_state_flags():
    assert FigureState.UNTREATED.is_casualty
    assert FigureState.STABILISED.is_casualty
    assert not FigureState.FIT.is_casualty
    assert FigureState.DOWN.on_table_alive
    assert not FigureState.CAPTURED.on_table_alive
    assert not FigureState.FIT.is_final


def test_figure_needs_an_id():
    with pytest.raises(ValueError, match="id"):
        Figure(id="")


@given(st.sampled_from(list(FigureState)))
def test_dead_never_comes_back(target):
    if target is FigureState.DEAD:
        assert transition(FigureState.DEAD, target) is FigureState.DEAD
    else:
        with pytest.raises(CasualtyError):
            transition(FigureState.DEAD, target)


# --- penetration (P.36 step 3) --------------------------------------------------------------


def test_penetration_example_p36():
    # Advanced assault rifles D10 against partial light armour D6.
    assert penetration(3, 5) is HitResult.NO_EFFECT
    assert penetration(6, 5) is HitResult.WOUND
    assert penetration(9, 4) is HitResult.KILL


def test_penetration_edges():
    assert penetration(5, 5) is HitResult.NO_EFFECT  # equal fails
    assert penetration(10, 5) is HitResult.WOUND  # exactly twice is only a wound
    assert penetration(11, 5) is HitResult.KILL


def test_exact_probability_of_d10_impact_against_d6_armour():
    counts = Counter(
        resolve_fire_casualties(
            dice=TableDice([(Die.D10, impact), (Die.D6, armour)]),
            figures=squad(1),
            potential_hits=1,
            impact=Die.D10,
        )
        .hits[0]
        .result
        for impact, armour in itertools.product(FACES[Die.D10], FACES[Die.D6])
    )
    # By hand: no effect when impact <= armour, 1+2+3+4+5+6 = 21 of 60 pairs; a kill when
    # impact > 2 x armour, 8+6+4+2 = 20; a wound the other 19.
    assert Fraction(counts[HitResult.NO_EFFECT], 60) == Fraction(7, 20)
    assert Fraction(counts[HitResult.WOUND], 60) == Fraction(19, 60)
    assert Fraction(counts[HitResult.KILL], 60) == Fraction(1, 3)


# --- allocation (P.36 step 4) ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "die"),
    [
        (1, Die.D4),
        (4, Die.D4),
        (5, Die.D6),
        (6, Die.D6),
        (7, Die.D8),
        (8, Die.D8),
        (9, Die.D10),
        (10, Die.D10),
        (11, Die.D12),
        (12, Die.D12),
    ],
)
def test_allocation_die_is_nearest_at_or_above_the_figure_count_p36(count, die):
    assert allocation_die(count) is die


def test_five_figures_roll_a_d6_as_the_clarification_says():
    assert allocation_die(5) is Die.D6


def test_more_than_twelve_figures_must_be_split():
    with pytest.raises(CasualtyError) as error:
        allocation_die(13)
    assert error.value.code == "allocation.too_many_figures"


def test_eight_man_squad_d8_five_hits_the_fifth_man_p36():
    outcome = allocate_hits(dice=TableDice([(Die.D8, 5)]), figures=squad(8), hits=1)
    assert outcome.die is Die.D8
    assert outcome.allocations[0].figure_id == "f5"


def test_five_figures_and_a_six_goes_back_to_the_first_figure_p36():
    outcome = allocate_hits(dice=TableDice([(Die.D6, 6)]), figures=squad(5), hits=1)
    assert outcome.allocations[0].figure_id == "f1"


def test_two_figures_overflow_option_decides_the_d4_four():
    assert allocated_index(4, 2) == 1
    assert allocated_index(3, 2) == 0
    assert allocated_index(4, 2, allocation_overflow=AllocationOverflow.FIRST_FIGURE) == 0
    assert allocated_index(2, 2, allocation_overflow=AllocationOverflow.FIRST_FIGURE) == 1
    with pytest.raises(ValueError, match="no figure"):
        allocated_index(1, 0)


def test_lone_figure_takes_every_hit_without_a_roll_p26():
    outcome = allocate_hits(dice=TableDice([]), figures=squad(1), hits=3)
    assert [a.figure_id for a in outcome.allocations] == ["f1"] * 3
    assert outcome.rolls == ()
    assert outcome.die is None
    assert outcome.hits_on("f1") == 3


def test_one_figure_may_take_several_hits():
    outcome = allocate_hits(dice=TableDice([(Die.D4, 2), (Die.D4, 2)]), figures=squad(3), hits=2)
    assert outcome.hits_on("f2") == 2
    assert outcome.hits_on("f1") == 0


def test_living_pool_leaves_out_the_dead_and_counts_casualties():
    figures = squad(5, f2=FigureState.DEAD, f3=FigureState.UNTREATED, f4=FigureState.STABILISED)
    assert [f.id for f in allocation_pool(figures)] == ["f1", "f3", "f4", "f5"]
    outcome = allocate_hits(dice=TableDice([(Die.D4, 2)]), figures=figures, hits=1)
    assert outcome.allocations[0].figure_id == "f3"


@pytest.mark.parametrize(
    ("pool", "expected"),
    [
        (AllocationPool.LIVING, ["f1", "f3", "f4", "f5"]),
        (AllocationPool.ALL_FIGURES, ["f1", "f2", "f3", "f4", "f5"]),
        (AllocationPool.FIT_ONLY, ["f1", "f5"]),
        (AllocationPool.FIT_AND_UNTREATED, ["f1", "f3", "f5"]),
    ],
)
def test_allocation_pool_option_clarification(pool, expected):
    figures = squad(5, f2=FigureState.DEAD, f3=FigureState.UNTREATED, f4=FigureState.STABILISED)
    assert [f.id for f in allocation_pool(figures, allocation_pool=pool)] == expected


def test_allocating_with_no_one_left_is_refused():
    with pytest.raises(CasualtyError) as error:
        allocate_hits(
            dice=TableDice([]), figures=squad(2, f1=FigureState.DEAD, f2=FigureState.DEAD), hits=1
        )
    assert error.value.code == "allocation.empty_pool"


def test_allocation_refuses_bad_input():
    with pytest.raises(ValueError, match="hits"):
        allocate_hits(dice=TableDice([]), figures=squad(2), hits=-1)
    with pytest.raises(ValueError, match="once"):
        allocate_hits(dice=TableDice([]), figures=squad(2) + squad(1), hits=1)
    with pytest.raises(CasualtyError):
        allocate_hits(dice=TableDice([]), figures=squad(13), hits=1)


def test_every_figure_of_a_full_pool_is_equally_likely():
    counts = Counter(
        allocate_hits(dice=TableDice([(Die.D6, roll)]), figures=squad(5), hits=1)
        .allocations[0]
        .figure_id
        for roll in FACES[Die.D6]
    )
    # By hand: a D6 over five figures, the 6 going round to the first: f1 2/6, others 1/6.
    assert Fraction(counts["f1"], 6) == Fraction(1, 3)
    assert all(Fraction(counts[f"f{n}"], 6) == Fraction(1, 6) for n in range(2, 6))


@given(
    count=st.integers(min_value=1, max_value=12),
    hits=st.integers(min_value=0, max_value=8),
    data=st.data(),
)
def test_allocation_never_places_more_hits_than_there_are(count, hits, data):
    die = allocation_die(count)
    faces = [data.draw(st.integers(1, die.value)) for _ in range(hits)]
    figures = squad(count)
    entered = [(die, face) for face in faces] if count > 1 else []
    first = allocate_hits(dice=TableDice(entered), figures=figures, hits=hits)
    again = allocate_hits(dice=TableDice(entered), figures=figures, hits=hits)
    assert first == again  # a deterministic function of its dice
    assert len(first.allocations) == hits
    assert sum(first.hits_on(f.id) for f in figures) == hits
    for allocation in first.allocations:
        if count == 1:
            expected = 0  # a lone figure takes the hit without a roll
        else:
            assert allocation.roll is not None
            expected = allocated_index(allocation.roll, count)
        assert allocation.figure_id == figures[expected].id


# --- state after hits -------------------------------------------------------------------------


def test_two_wounds_in_one_resolution_kill_p36():
    assert state_after_hits(FigureState.FIT, wounds=2, kills=0) is FigureState.DEAD


def test_one_wound_makes_a_fit_man_an_untreated_casualty():
    assert state_after_hits(FigureState.FIT, wounds=1, kills=0) is FigureState.UNTREATED


def test_a_kill_kills():
    assert state_after_hits(FigureState.STABILISED, wounds=0, kills=1) is FigureState.DEAD


def test_one_new_wound_leaves_a_casualty_as_he_is_unless_rewound_kills():
    assert state_after_hits(FigureState.UNTREATED, wounds=1, kills=0) is FigureState.UNTREATED
    assert (
        state_after_hits(FigureState.STABILISED, wounds=1, kills=0, rewound_kills=True)
        is FigureState.DEAD
    )


def test_no_hit_changes_nothing_and_the_dead_stay_dead():
    assert state_after_hits(FigureState.FIT, wounds=0, kills=0) is FigureState.FIT
    assert state_after_hits(FigureState.DEAD, wounds=1, kills=0) is FigureState.DEAD
    assert state_after_hits(FigureState.SUIT_DISABLED, wounds=1, kills=0) is FigureState.UNTREATED


def test_hits_on_figures_off_the_table_are_refused():
    with pytest.raises(CasualtyError) as error:
        state_after_hits(FigureState.CAPTURED, wounds=1, kills=0)
    assert error.value.code == "figure.not_on_table"
    with pytest.raises(ValueError, match="wounds"):
        state_after_hits(FigureState.FIT, wounds=-1, kills=0)


@given(
    st.sampled_from([s for s in FigureState if s.on_table_alive or s is FigureState.DEAD]),
    st.integers(0, 4),
    st.integers(0, 4),
    st.booleans(),
)
def test_hits_never_revive_and_never_heal(state, wounds, kills, rewound):
    after = state_after_hits(state, wounds=wounds, kills=kills, rewound_kills=rewound)
    if state is FigureState.DEAD:
        assert after is FigureState.DEAD
    assert after is state or after in allowed_transitions(state)
    assert after is not FigureState.FIT or state is FigureState.FIT


# --- fire resolution ------------------------------------------------------------------------


def test_penetration_example_p36_through_the_fire_procedure():
    dice = TableDice(
        [
            (Die.D10, 3),
            (Die.D6, 5),
            (Die.D10, 6),
            (Die.D6, 5),
            (Die.D10, 9),
            (Die.D6, 4),
            (Die.D8, 2),
            (Die.D8, 7),
        ]
    )
    outcome = resolve_fire_casualties(dice=dice, figures=squad(8), potential_hits=3, impact=Die.D10)
    dice.ensure_all_used()
    assert [h.result for h in outcome.hits] == [
        HitResult.NO_EFFECT,
        HitResult.WOUND,
        HitResult.KILL,
    ]
    assert outcome.hits[0].figure_id is None  # no allocation die for a hit that did nothing
    assert outcome.wounded == ("f2",)
    assert outcome.killed == ("f7",)
    assert not outcome.allocated_first
    assert len(outcome.rolls) == 8


def test_two_wounds_on_one_man_in_one_fire_kill_him():
    dice = TableDice([(Die.D10, 6), (Die.D6, 5)] * 2 + [(Die.D4, 3), (Die.D4, 3)])
    outcome = resolve_fire_casualties(dice=dice, figures=squad(4), potential_hits=2, impact=Die.D10)
    (casualty,) = outcome.casualties
    assert casualty.figure_id == "f3"
    assert casualty.wounds == 2
    assert casualty.after is FigureState.DEAD


def test_cover_shifts_the_armour_die_by_default_p12():
    dice = TableDice([(Die.D8, 5), (Die.D10, 4)])
    outcome = resolve_fire_casualties(
        dice=dice, figures=squad(1), potential_hits=1, impact=Die.D8, cover=Cover.HARD
    )
    assert outcome.hits[0].armour_die is Die.D10
    assert outcome.hits[0].result is HitResult.WOUND


def test_cover_does_not_shift_armour_when_the_option_is_off():
    dice = TableDice([(Die.D8, 5), (Die.D6, 4)])
    outcome = resolve_fire_casualties(
        dice=dice,
        figures=squad(1),
        potential_hits=1,
        impact=Die.D8,
        cover=Cover.HARD,
        cover_shifts_armour_vs_direct_fire=False,
    )
    assert outcome.hits[0].armour_die is Die.D6


def test_cover_beyond_d12_lowers_the_impact_die_open_shift():
    dice = TableDice([(Die.D8, 1), (Die.D12, 1)])
    outcome = resolve_fire_casualties(
        dice=dice,
        figures=squad(1, armour=Die.D12),
        potential_hits=1,
        impact=Die.D10,
        cover=Cover.SOFT,
    )
    assert outcome.hits[0].impact_die is Die.D8


def test_mixed_armour_allocates_each_hit_first_and_rolls_that_mans_armour_p36_note():
    figures = [Figure("a", armour=Die.D4), Figure("b", armour=Die.D10, power_armour=True)]
    dice = TableDice([(Die.D4, 2), (Die.D8, 5), (Die.D10, 3), (Die.D6, 6)])
    outcome = resolve_fire_casualties(dice=dice, figures=figures, potential_hits=1, impact=Die.D8)
    dice.ensure_all_used()
    assert outcome.allocated_first
    hit = outcome.hits[0]
    assert hit.figure_id == "b"
    assert hit.armour_die is Die.D10
    assert hit.allocation_roll == 2
    # A power-armoured casualty rolls P.40 at once: 6, back in action.
    assert outcome.casualties[0].after is FigureState.FIT
    assert outcome.casualties[0].power_armour_roll == 6


def test_allocate_first_always_rolls_for_hits_that_do_nothing():
    dice = TableDice([(Die.D4, 1), (Die.D8, 1), (Die.D6, 6)])
    outcome = resolve_fire_casualties(
        dice=dice,
        figures=squad(3),
        potential_hits=1,
        impact=Die.D8,
        allocate_before_penetration=AllocationOrder.ALWAYS,
    )
    assert outcome.hits[0].figure_id == "f1"
    assert outcome.casualties == ()


def test_mixed_armour_cannot_roll_penetration_first():
    figures = [Figure("a", armour=Die.D4), Figure("b", armour=Die.D10)]
    with pytest.raises(CasualtyError) as error:
        resolve_fire_casualties(
            dice=TableDice([]),
            figures=figures,
            potential_hits=1,
            impact=Die.D8,
            allocate_before_penetration=AllocationOrder.NEVER,
        )
    assert error.value.code == "fire.mixed_armour"


def test_no_potential_hits_rolls_nothing():
    outcome = resolve_fire_casualties(
        dice=TableDice([]), figures=squad(3), potential_hits=0, impact=Die.D8
    )
    assert outcome.rolls == ()
    assert outcome.casualties == ()


def test_power_armour_wound_in_penetration_first_order():
    figures = [Figure("p", armour=Die.D12, power_armour=True)]
    dice = TableDice([(Die.D12, 12), (Die.D12, 7), (Die.D6, 1)])
    outcome = resolve_fire_casualties(dice=dice, figures=figures, potential_hits=1, impact=Die.D12)
    assert outcome.casualties[0].after is FigureState.DEAD


@given(
    hits=st.integers(0, 5),
    count=st.integers(1, 8),
    seed=st.binary(min_size=1, max_size=8),
)
def test_fire_is_deterministic_and_no_figure_takes_more_than_the_hits(hits, count, seed):
    figures = squad(count)
    first = resolve_fire_casualties(
        dice=SeededDice(seed, "fire"), figures=figures, potential_hits=hits, impact=Die.D10
    )
    again = resolve_fire_casualties(
        dice=SeededDice(seed, "fire"), figures=figures, potential_hits=hits, impact=Die.D10
    )
    assert first == again
    assert sum(c.wounds + c.kills for c in first.casualties) <= hits
    for casualty in first.casualties:
        assert casualty.wounds + casualty.kills <= hits
        if casualty.kills or casualty.wounds >= 2:
            assert casualty.after is FigureState.DEAD


# --- power armour (P.40) --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("roll", "state"),
    [
        (1, FigureState.DEAD),
        (2, FigureState.STABILISED),
        (3, FigureState.STABILISED),
        (4, FigureState.STABILISED),
        (5, FigureState.SUIT_DISABLED),
        (6, FigureState.FIT),
    ],
)
def test_power_armour_table_p40(roll, state):
    assert power_armour_result(roll) is state
    outcome = power_armour_casualty(dice=TableDice([(Die.D6, roll)]))
    assert outcome.state is state
    assert outcome.rolls[0].die is Die.D6


def test_power_armour_exact_probabilities():
    counts = Counter(power_armour_casualty(dice=TableDice([roll])).state for roll in FACES[Die.D6])
    assert Fraction(counts[FigureState.DEAD], 6) == Fraction(1, 6)
    assert Fraction(counts[FigureState.STABILISED], 6) == Fraction(1, 2)
    assert Fraction(counts[FigureState.SUIT_DISABLED], 6) == Fraction(1, 6)
    assert Fraction(counts[FigureState.FIT], 6) == Fraction(1, 6)


# --- artillery (P.46-47) --------------------------------------------------------------------


def test_warhead_and_delivery_tables_p46():
    assert Warhead.GENERAL_PURPOSE_EXPLOSIVE.dispersed_impact is Die.D8
    assert Warhead.ANTI_PERSONNEL_SUBMUNITIONS.dispersed_impact is Die.D12
    assert Warhead.ANTI_ARMOUR_SUBMUNITIONS.dispersed_impact is Die.D6
    assert Warhead.GENERAL_PURPOSE_EXPLOSIVE.point_impact == (Die.D8, 1)
    assert Warhead.ANTI_PERSONNEL_SUBMUNITIONS.point_impact == (Die.D8, 1)
    assert Warhead.ANTI_ARMOUR_SUBMUNITIONS.point_impact == (Die.D12, 2)
    assert [d.burst_radius_inches for d in DeliverySystem] == [3, 4, 6, 10]


def test_artillery_wound_and_kill():
    exposures = [BurstExposure(Figure("a")), BurstExposure(Figure("b"))]
    dice = TableDice([(Die.D8, 5), (Die.D6, 3), (Die.D8, 7), (Die.D6, 3)])
    outcome = artillery_casualties(dice=dice, exposures=exposures)
    assert [c.after for c in outcome.casualties] == [FigureState.UNTREATED, FigureState.DEAD]
    assert outcome.suppressed_figures == ("a", "b")


def test_artillery_open_shift_example_p13():
    # D8 armour, hard cover and in position: three shifts to D12, the extra one lowers impact.
    exposure = BurstExposure(Figure("a", armour=Die.D8), bursts=(Cover.HARD,), in_position=True)
    dice = TableDice([(Die.D10, 10), (Die.D12, 4)])
    outcome = artillery_casualties(
        dice=dice, exposures=[exposure], warhead=Warhead.ANTI_PERSONNEL_SUBMUNITIONS
    )
    roll = outcome.burst_rolls[0]
    assert (roll.impact_die, roll.armour_die) == (Die.D10, Die.D12)
    assert roll.result is HitResult.KILL


def test_more_than_one_wound_from_overlapping_bursts_kills_p47():
    exposure = BurstExposure(Figure("a"), bursts=(Cover.OPEN, Cover.OPEN))
    dice = TableDice([(Die.D8, 4), (Die.D6, 3)] * 2)
    outcome = artillery_casualties(dice=dice, exposures=[exposure])
    assert outcome.casualties[0].wounds == 2
    assert outcome.casualties[0].after is FigureState.DEAD


def test_artillery_skips_the_dead_and_needs_a_burst():
    outcome = artillery_casualties(
        dice=TableDice([]), exposures=[BurstExposure(Figure("a", state=FigureState.DEAD))]
    )
    assert outcome.rolls == ()
    with pytest.raises(ValueError, match="burst"):
        BurstExposure(Figure("a"), bursts=())


def test_artillery_power_armour_rolls_at_once():
    exposure = BurstExposure(Figure("p", armour=Die.D10, power_armour=True))
    dice = TableDice([(Die.D8, 8), (Die.D10, 5), (Die.D6, 5)])
    outcome = artillery_casualties(dice=dice, exposures=[exposure])
    assert outcome.casualties[0].after is FigureState.SUIT_DISABLED


def test_artillery_exact_probabilities_gpe_two_bursts_on_d6_armour():
    counts: Counter[FigureState] = Counter()
    faces = (FACES[Die.D8], FACES[Die.D6], FACES[Die.D8], FACES[Die.D6])
    for i1, a1, i2, a2 in itertools.product(*faces):
        outcome = artillery_casualties(
            dice=TableDice([i1, a1, i2, a2]),
            exposures=[BurstExposure(Figure("a"), bursts=(Cover.OPEN, Cover.OPEN))],
        )
        counts[outcome.casualties[0].after if outcome.casualties else FigureState.FIT] += 1
    # By hand, per burst of D8 against D6: no effect 21/48, wound 15/48, kill 12/48.
    # Unhurt needs two misses (21^2 = 441); one wound and one miss (2 x 21 x 15 = 630);
    # everything else (two wounds or any kill) is dead: 2304 - 441 - 630 = 1233.
    assert Fraction(counts[FigureState.FIT], 2304) == Fraction(441, 2304)
    assert Fraction(counts[FigureState.UNTREATED], 2304) == Fraction(630, 2304)
    assert Fraction(counts[FigureState.DEAD], 2304) == Fraction(1233, 2304)


# --- close combat (P.42) --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("roll", "won", "expected"),
    [
        (1, True, (FigureState.DEAD, False)),
        (2, False, (FigureState.DEAD, False)),
        (3, True, (FigureState.UNTREATED, False)),
        (4, False, (FigureState.UNTREATED, True)),
        (5, True, (FigureState.FIT, False)),
        (6, False, (FigureState.FIT, True)),
    ],
)
def test_close_combat_table_p42(roll, won, expected):
    assert close_combat_result(roll, side_won=won) == expected


def test_losers_wounded_and_stunned_are_captured_p42_box():
    down = [Figure("a", state=FigureState.DOWN), Figure("b"), Figure("c")]
    outcome = close_combat_casualties(dice=TableDice([1, 3, 6]), down=down, side_won=False)
    assert [c.state for c in outcome.casualties] == [
        FigureState.DEAD,
        FigureState.CAPTURED,
        FigureState.CAPTURED,
    ]
    assert outcome.casualties[2].stunned
    assert not outcome.casualties[1].stunned


def test_winners_stunned_return_to_the_fight():
    outcome = close_combat_casualties(dice=TableDice([5]), down=[Figure("a")], side_won=True)
    assert outcome.casualties[0].state is FigureState.FIT


def test_close_combat_power_armour_wounded_rolls_p40():
    down = [Figure("p", armour=Die.D10, power_armour=True), Figure("q")]
    outcome = close_combat_casualties(dice=TableDice([3, 4, 2]), down=down, side_won=True)
    assert outcome.casualties[0].condition is FigureState.STABILISED
    assert outcome.casualties[0].power_armour_roll == 2
    assert outcome.casualties[1].condition is FigureState.UNTREATED


def test_close_combat_refuses_the_dead():
    with pytest.raises(CasualtyError) as error:
        close_combat_casualties(
            dice=TableDice([]), down=[Figure("a", state=FigureState.DEAD)], side_won=True
        )
    assert error.value.code == "close_combat.not_down"


@pytest.mark.parametrize("won", [True, False])
def test_close_combat_exact_probabilities(won):
    counts = Counter(
        close_combat_casualties(dice=TableDice([roll]), down=[Figure("a")], side_won=won)
        .casualties[0]
        .state
        for roll in FACES[Die.D6]
    )
    assert Fraction(counts[FigureState.DEAD], 6) == Fraction(1, 3)
    if won:
        assert Fraction(counts[FigureState.UNTREATED], 6) == Fraction(1, 3)
        assert Fraction(counts[FigureState.FIT], 6) == Fraction(1, 3)
    else:
        assert Fraction(counts[FigureState.CAPTURED], 6) == Fraction(2, 3)


def test_figure_role_defaults_to_rifleman():
    assert Figure("a").role is FigureRole.RIFLEMAN


def test_allocate_first_on_a_lone_figure_needs_no_allocation_die():
    dice = TableDice([(Die.D8, 8), (Die.D6, 1)])
    outcome = resolve_fire_casualties(
        dice=dice,
        figures=squad(1),
        potential_hits=1,
        impact=Die.D8,
        allocate_before_penetration=AllocationOrder.ALWAYS,
    )
    dice.ensure_all_used()
    assert outcome.killed == ("f1",)
    assert outcome.hits[0].allocation_roll is None


def test_campaign_option_values_pass_straight_through():
    outcome = allocate_hits(
        dice=TableDice([(Die.D4, 4)]),
        figures=squad(2),
        hits=1,
        allocation_pool="fit_only",
        allocation_overflow="first_figure",
    )
    assert outcome.allocations[0].figure_id == "f1"
