"""Tests for Fast and Dirty Recover Wounded (FaD p.35) in rules.fad.wounded."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import DiceError, Die, SeededDice, TableDice
from rules.fad.scales import Resolve
from rules.fad.wounded import (
    AbandonTrigger,
    Carer,
    CarryMovement,
    DamageEffect,
    LeaveReason,
    MedicalEvent,
    MedicalState,
    MedicalTransitionError,
    MedicBonusScope,
    Patient,
    RecoveryResult,
    WoundedAtEnd,
    carry_wounded,
    casualties_for_resolve,
    form_aid_teams,
    leave_no_one_behind,
    medic_may_leave,
    next_medical_state,
    recover_wounded,
    recovery_roll,
    resolve_for_checking,
    squad_based_damage_casualties,
    wound_or_kill,
    wounded_are_abandoned,
    wounded_at_end_of_battle,
)

FACES = range(1, 7)
H, W, S, R, D = (
    MedicalState.HEALTHY,
    MedicalState.WOUNDED,
    MedicalState.STABILISED,
    MedicalState.RECOVERED,
    MedicalState.DEAD,
)

# The allowed transitions, written out by hand from FaD p.35, p.34 (Heal) and p.41 (Regenerate),
# with option wounds_recovered_second_wound_kills off.
ALLOWED = {
    (H, MedicalEvent.WOUNDED): W,
    (H, MedicalEvent.KILLED): D,
    (R, MedicalEvent.WOUNDED): W,
    (R, MedicalEvent.KILLED): D,
    (W, MedicalEvent.WOUNDED): D,
    (W, MedicalEvent.KILLED): D,
    (W, MedicalEvent.RECOVERED): R,
    (W, MedicalEvent.STABILISED): S,
    (W, MedicalEvent.DIED_OF_WOUNDS): D,
    (W, MedicalEvent.HEALED): R,
    (S, MedicalEvent.WOUNDED): D,
    (S, MedicalEvent.KILLED): D,
    (S, MedicalEvent.HEALED): R,
}


def wounded(*names: str) -> list[Patient]:
    return [Patient(name, W) for name in names]


# --- the state machine ---------------------------------------------------------------------------


@pytest.mark.parametrize(("state", "event"), list(itertools.product(MedicalState, MedicalEvent)))
def test_every_state_and_event_follows_the_transition_table(state, event):
    if (state, event) in ALLOWED:
        assert next_medical_state(state=state, event=event) is ALLOWED[state, event]
    else:
        with pytest.raises(MedicalTransitionError):
            next_medical_state(state=state, event=event)


@pytest.mark.parametrize("event", list(MedicalEvent))
def test_a_dead_figure_refuses_every_event_with_the_dead_code(event):
    with pytest.raises(MedicalTransitionError) as raised:
        next_medical_state(state=D, event=event)
    assert raised.value.code == "wounds.dead"
    assert isinstance(raised.value, ValueError)


@pytest.mark.parametrize("state", [H, R])
def test_a_fit_figure_cannot_be_rolled_for_as_if_wounded(state):
    with pytest.raises(MedicalTransitionError) as raised:
        next_medical_state(state=state, event=MedicalEvent.STABILISED)
    assert raised.value.code == "wounds.not_wounded"
    assert "not wounded" in raised.value.message


@pytest.mark.parametrize(
    "event", [MedicalEvent.RECOVERED, MedicalEvent.STABILISED, MedicalEvent.DIED_OF_WOUNDS]
)
def test_a_stabilised_figure_gets_no_further_recovery_attempts_p35(event):
    with pytest.raises(MedicalTransitionError) as raised:
        next_medical_state(state=S, event=event)
    assert raised.value.code == "wounds.already_stabilised"


def test_a_recovered_figure_wounded_again_is_only_wounded_by_default():
    assert next_medical_state(state=R, event=MedicalEvent.WOUNDED) is W


def test_option_second_wound_kills_a_recovered_figure():
    assert (
        next_medical_state(
            state=R, event=MedicalEvent.WOUNDED, wounds_recovered_second_wound_kills=True
        )
        is D
    )
    # A figure never wounded before is still only wounded.
    assert (
        next_medical_state(
            state=H, event=MedicalEvent.WOUNDED, wounds_recovered_second_wound_kills=True
        )
        is W
    )


def test_states_given_as_strings_are_accepted():
    assert next_medical_state(state="wounded", event="stabilised") is S


def test_an_unknown_state_is_refused():
    with pytest.raises(ValueError, match="MedicalState"):
        next_medical_state(state="bruised", event=MedicalEvent.WOUNDED)


@given(st.lists(st.sampled_from(list(MedicalEvent)), max_size=12), st.booleans())
def test_states_only_move_along_allowed_transitions(events, second_wound_kills):
    state = H
    for event in events:
        try:
            after = next_medical_state(
                state=state,
                event=event,
                wounds_recovered_second_wound_kills=second_wound_kills,
            )
        except MedicalTransitionError:
            assert (state, event) not in ALLOWED
            continue
        if second_wound_kills and (state, event) == (R, MedicalEvent.WOUNDED):
            assert after is D
        else:
            assert after is ALLOWED[state, event]
        state = after


def test_stabilised_figures_are_not_casualties_when_checking_resolve_p35():
    assert casualties_for_resolve(states=[H, W, S, R, D, S, W]) == 3
    assert casualties_for_resolve(states=[]) == 0
    assert [state.is_fit for state in MedicalState] == [True, False, False, True, False]


# --- wound or kill -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attacker", "defender", "effect", "after"),
    [
        (3, 4, DamageEffect.NO_EFFECT, H),
        (4, 4, DamageEffect.WOUNDED, W),
        (5, 4, DamageEffect.WOUNDED, W),
        (6, 4, DamageEffect.WOUNDED, W),
        (7, 4, DamageEffect.KILLED, D),
        (12, 2, DamageEffect.KILLED, D),
    ],
)
def test_the_damage_margin_wounds_at_zero_to_two_and_kills_at_three_p35(
    attacker, defender, effect, after
):
    outcome = wound_or_kill(attacker_score=attacker, defender_score=defender)
    assert (outcome.effect, outcome.state_after, outcome.margin) == (
        effect,
        after,
        attacker - defender,
    )
    assert outcome.state_before is H
    assert outcome.rolls == ()


@pytest.mark.parametrize("state", [W, S])
def test_a_wounded_or_stabilised_figure_wounded_again_is_killed_p35(state):
    outcome = wound_or_kill(attacker_score=4, defender_score=4, target_state=state)
    assert outcome.effect is DamageEffect.KILLED
    assert outcome.state_after is D


def test_a_miss_leaves_a_wounded_figure_wounded():
    outcome = wound_or_kill(attacker_score=1, defender_score=4, target_state=W)
    assert (outcome.effect, outcome.state_after) == (DamageEffect.NO_EFFECT, W)


def test_a_recovered_figure_is_wounded_again_unless_the_option_makes_it_fatal():
    assert wound_or_kill(attacker_score=5, defender_score=4, target_state=R).state_after is W
    fatal = wound_or_kill(
        attacker_score=5,
        defender_score=4,
        target_state=R,
        wounds_recovered_second_wound_kills=True,
    )
    assert fatal.effect is DamageEffect.KILLED


def test_without_recover_wounded_any_damaging_hit_removes_the_figure_p19():
    outcome = wound_or_kill(attacker_score=4, defender_score=4, adv_recover_wounded=False)
    assert outcome.effect is DamageEffect.KILLED
    miss = wound_or_kill(attacker_score=3, defender_score=4, adv_recover_wounded=False)
    assert miss.effect is DamageEffect.NO_EFFECT


def test_a_dead_figure_cannot_be_hit():
    with pytest.raises(MedicalTransitionError) as raised:
        wound_or_kill(attacker_score=6, defender_score=1, target_state=D)
    assert raised.value.code == "wounds.dead"


@pytest.mark.parametrize("bad", [True, 2.5, "4"])
def test_scores_must_be_whole_numbers(bad):
    with pytest.raises(ValueError, match="whole number"):
        wound_or_kill(attacker_score=bad, defender_score=3)
    with pytest.raises(ValueError, match="whole number"):
        wound_or_kill(attacker_score=3, defender_score=bad)


@pytest.mark.parametrize(
    ("damage_rating", "armour_rating", "no_effect", "wounded_p", "killed"),
    [
        # Equal ratings: margin = a - d. No effect 15/36; 0,1,2 -> 6+5+4; 3,4,5 -> 3+2+1.
        (0, 0, Fraction(15, 36), Fraction(15, 36), Fraction(6, 36)),
        # Damage 2 against Light armour 0: margin = a - d + 2.
        (2, 0, Fraction(6, 36), Fraction(15, 36), Fraction(15, 36)),
        # Damage 0 against Heavy Power armour +6: only 6 against 1... never; margin <= -1.
        (0, 6, Fraction(1), Fraction(0), Fraction(0)),
    ],
)
def test_exact_probabilities_of_wound_and_kill_over_both_damage_dice(
    damage_rating, armour_rating, no_effect, wounded_p, killed
):
    counts = Counter(
        wound_or_kill(
            attacker_score=attack + damage_rating, defender_score=defence + armour_rating
        ).effect
        for attack, defence in itertools.product(FACES, FACES)
    )
    assert Fraction(counts[DamageEffect.NO_EFFECT], 36) == no_effect
    assert Fraction(counts[DamageEffect.WOUNDED], 36) == wounded_p
    assert Fraction(counts[DamageEffect.KILLED], 36) == killed


_SEVERITY = {DamageEffect.NO_EFFECT: 0, DamageEffect.WOUNDED: 1, DamageEffect.KILLED: 2}


@given(st.integers(-20, 20), st.integers(-20, 20), st.integers(0, 5))
def test_a_bigger_margin_is_never_less_severe(attacker, defender, extra):
    lower = wound_or_kill(attacker_score=attacker, defender_score=defender)
    higher = wound_or_kill(attacker_score=attacker + extra, defender_score=defender)
    assert _SEVERITY[higher.effect] >= _SEVERITY[lower.effect]


def test_squad_based_damage_book_example_p19():
    # "four hits ... attacker 5, defender 6. So one hit is saved, and three become kills ...
    # two figures are wounded, and only one is killed."
    outcome = squad_based_damage_casualties(hits=4, attacker_score=5, defender_score=6)
    assert (outcome.saved, outcome.wounded, outcome.killed) == (1, 2, 1)
    assert outcome.rolls == ()


@pytest.mark.parametrize(
    ("hits", "attacker", "defender", "saved", "wounded_n", "killed"),
    [
        (4, 6, 6, 0, 2, 2),
        (5, 9, 3, 0, 3, 2),
        (1, 4, 4, 0, 1, 0),
        (3, 2, 8, 3, 0, 0),
        (0, 5, 5, 0, 0, 0),
    ],
)
def test_squad_based_damage_rounds_odd_kills_in_favour_of_wounds(
    hits, attacker, defender, saved, wounded_n, killed
):
    outcome = squad_based_damage_casualties(
        hits=hits, attacker_score=attacker, defender_score=defender
    )
    assert (outcome.saved, outcome.wounded, outcome.killed) == (saved, wounded_n, killed)


def test_squad_based_damage_without_recover_wounded_is_all_kills():
    outcome = squad_based_damage_casualties(
        hits=4, attacker_score=5, defender_score=6, adv_recover_wounded=False
    )
    assert (outcome.saved, outcome.wounded, outcome.killed) == (1, 0, 3)


def test_squad_based_damage_refuses_bad_input():
    with pytest.raises(ValueError, match="negative"):
        squad_based_damage_casualties(hits=-1, attacker_score=1, defender_score=1)
    with pytest.raises(ValueError, match="whole number"):
        squad_based_damage_casualties(hits=1, attacker_score=1, defender_score=None)  # type: ignore[arg-type]  # the wrong type on purpose


# --- the recovery roll ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "under_fire", "medic", "number", "result"),
    [
        (6, False, False, 6, RecoveryResult.RECOVERED),
        (5, False, False, 5, RecoveryResult.STABILISED),
        (4, False, False, 4, RecoveryResult.STABILISED),
        (3, False, False, 3, RecoveryResult.DIED_OF_WOUNDS),
        (1, False, False, 1, RecoveryResult.DIED_OF_WOUNDS),
        (5, False, True, 6, RecoveryResult.RECOVERED),
        (3, False, True, 4, RecoveryResult.STABILISED),
        (6, True, False, 5, RecoveryResult.STABILISED),
        (4, True, False, 3, RecoveryResult.DIED_OF_WOUNDS),
        (6, True, True, 6, RecoveryResult.RECOVERED),
        (1, True, False, 0, RecoveryResult.DIED_OF_WOUNDS),
    ],
)
def test_recovery_number_bands_and_modifiers_p35(face, under_fire, medic, number, result):
    dice = TableDice([face])
    outcome = recovery_roll(
        dice=dice, under_fire_or_pinned=under_fire, medic_present=medic, trooper="Pvt Hicks"
    )
    assert outcome.die == face
    assert outcome.recovery_number == number
    assert outcome.result is result
    assert outcome.state_after is result.state_after
    assert [roll.purpose for roll in outcome.rolls] == ["recovery roll for Pvt Hicks"]
    assert outcome.rolls[0].die is Die.D6
    dice.ensure_all_used()


def test_recovery_results_map_to_recovered_stabilised_and_dead():
    assert RecoveryResult.RECOVERED.state_after is R
    assert RecoveryResult.STABILISED.state_after is S
    assert RecoveryResult.DIED_OF_WOUNDS.state_after is D


@pytest.mark.parametrize(
    ("under_fire", "medic", "recovered", "stabilised", "died"),
    [
        # No modifier: 6 / 4-5 / 1-3.
        (False, False, Fraction(1, 6), Fraction(2, 6), Fraction(3, 6)),
        # Medic +1: 5-6 / 3-4 / 1-2.
        (False, True, Fraction(2, 6), Fraction(2, 6), Fraction(2, 6)),
        # Under Fire -1: never 6+ / 5-6 / 1-4.
        (True, False, Fraction(0), Fraction(2, 6), Fraction(4, 6)),
        # Both cancel out.
        (True, True, Fraction(1, 6), Fraction(2, 6), Fraction(3, 6)),
    ],
)
def test_exact_recovery_probabilities_for_every_modifier_combination(
    under_fire, medic, recovered, stabilised, died
):
    counts = Counter(
        recovery_roll(
            dice=TableDice([face]), under_fire_or_pinned=under_fire, medic_present=medic
        ).result
        for face in FACES
    )
    assert Fraction(counts[RecoveryResult.RECOVERED], 6) == recovered
    assert Fraction(counts[RecoveryResult.STABILISED], 6) == stabilised
    assert Fraction(counts[RecoveryResult.DIED_OF_WOUNDS], 6) == died


@given(st.sampled_from(FACES), st.booleans())
def test_a_medic_never_makes_recovery_worse_and_fire_never_makes_it_better(face, under_fire):
    order = {
        RecoveryResult.DIED_OF_WOUNDS: 0,
        RecoveryResult.STABILISED: 1,
        RecoveryResult.RECOVERED: 2,
    }

    def result(*, fire, medic):
        return order[
            recovery_roll(
                dice=TableDice([face]), under_fire_or_pinned=fire, medic_present=medic
            ).result
        ]

    assert result(fire=under_fire, medic=True) >= result(fire=under_fire, medic=False)
    assert result(fire=True, medic=False) <= result(fire=False, medic=False)


# --- forming aid teams ---------------------------------------------------------------------------


def test_two_healthy_troopers_form_one_aid_team_for_one_wounded_p35():
    teams = form_aid_teams(wounded=1, fit_troopers=6)
    assert (teams.aid_teams, teams.troopers_aiding, teams.troopers_free) == (1, 2, 4)
    assert teams.carers == (Carer.AID_TEAM,)
    assert teams.untreated == 0


def test_aid_teams_are_limited_by_healthy_strength_p35():
    teams = form_aid_teams(wounded=4, fit_troopers=5)
    assert teams.aid_teams == 2
    assert teams.treated == 2
    assert teams.untreated == 2
    assert teams.troopers_free == 1


def test_a_lone_trooper_cannot_form_an_aid_team():
    teams = form_aid_teams(wounded=2, fit_troopers=1)
    assert (teams.treated, teams.untreated, teams.troopers_free) == (0, 2, 1)


def test_a_medic_treats_two_wounded_without_a_helper_p33():
    teams = form_aid_teams(wounded=2, fit_troopers=1, medic=True)
    assert teams.medic_patients == 2
    assert teams.aid_teams == 0
    assert teams.troopers_aiding == 1
    assert teams.carers == (Carer.MEDIC, Carer.MEDIC)


def test_the_medic_takes_the_first_two_and_pairs_the_rest():
    teams = form_aid_teams(wounded=4, fit_troopers=5, medic=True)
    assert teams.carers == (Carer.MEDIC, Carer.MEDIC, Carer.AID_TEAM, Carer.AID_TEAM)
    assert (teams.troopers_aiding, teams.troopers_free) == (5, 0)


def test_a_medic_with_one_wounded_treats_just_him():
    teams = form_aid_teams(wounded=1, fit_troopers=3, medic=True)
    assert (teams.medic_patients, teams.aid_teams, teams.troopers_free) == (1, 0, 2)


def test_no_wounded_means_no_teams_even_with_a_medic():
    teams = form_aid_teams(wounded=0, fit_troopers=4, medic=True)
    assert (teams.treated, teams.troopers_aiding, teams.troopers_free) == (0, 0, 4)


def test_a_medevac_in_contact_treats_as_two_aid_teams_p43():
    teams = form_aid_teams(wounded=3, fit_troopers=4, medevac_in_contact=True)
    assert teams.carers == (Carer.MEDEVAC, Carer.MEDEVAC, Carer.AID_TEAM)
    assert teams.troopers_aiding == 2


def test_self_repairing_wounded_roll_without_aid_teams_p41():
    teams = form_aid_teams(wounded=3, fit_troopers=0, self_repairing=True)
    assert teams.carers == (Carer.SELF_REPAIR,) * 3
    assert (teams.aid_teams, teams.troopers_aiding, teams.untreated) == (0, 0, 0)


def test_the_player_may_form_fewer_teams_to_free_troopers_for_another_action():
    teams = form_aid_teams(wounded=3, fit_troopers=6, aid_teams=1)
    assert (teams.treated, teams.untreated, teams.troopers_free) == (1, 2, 4)


def test_self_repairing_troops_may_still_form_teams_if_the_player_wants():
    teams = form_aid_teams(wounded=2, fit_troopers=2, self_repairing=True, aid_teams=1)
    assert teams.carers == (Carer.AID_TEAM, Carer.SELF_REPAIR)


def test_more_teams_than_fit_troopers_allow_is_refused():
    with pytest.raises(ValueError, match="at most 1 aid team,"):
        form_aid_teams(wounded=3, fit_troopers=3, aid_teams=2)
    with pytest.raises(ValueError, match="at most 0 aid teams"):
        form_aid_teams(wounded=3, fit_troopers=1, aid_teams=1)


def test_more_teams_than_wounded_is_refused():
    with pytest.raises(ValueError, match="only 1 is left"):
        form_aid_teams(wounded=1, fit_troopers=6, aid_teams=2)
    with pytest.raises(ValueError, match="only 0 are left"):
        form_aid_teams(wounded=2, fit_troopers=6, medic=True, aid_teams=1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"wounded": -1, "fit_troopers": 2}, "negative"),
        ({"wounded": 1, "fit_troopers": 1.5}, "whole number"),
        ({"wounded": 1, "fit_troopers": 0, "medic": True}, "Medic"),
        ({"wounded": 1, "fit_troopers": 4, "aid_teams": True}, "whole number"),
    ],
)
def test_form_aid_teams_refuses_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        form_aid_teams(**kwargs)


@given(
    st.integers(0, 12),
    st.integers(0, 12),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_every_wounded_is_treated_at_most_once_and_teams_never_exceed_the_squad(
    wounded_n, fit, medic, medevac, self_repairing
):
    if medic and fit == 0:
        fit = 1
    teams = form_aid_teams(
        wounded=wounded_n,
        fit_troopers=fit,
        medic=medic,
        medevac_in_contact=medevac,
        self_repairing=self_repairing,
    )
    assert teams.treated + teams.untreated == wounded_n
    assert len(teams.carers) == teams.treated
    assert 0 <= teams.troopers_aiding <= fit
    assert teams.troopers_aiding + teams.troopers_free == fit
    assert teams.medic_patients <= 2
    assert teams.medevac_patients <= 2
    if self_repairing:
        assert teams.untreated == 0


# --- the Recover Wounded action ------------------------------------------------------------------


def test_recover_wounded_rolls_once_per_treated_figure_in_order():
    dice = TableDice([6, 4, 2])
    outcome = recover_wounded(dice=dice, wounded=wounded("A", "B", "C", "D"), fit_troopers=6)
    dice.ensure_all_used()
    assert [t.trooper for t in outcome.treatments] == ["A", "B", "C"]
    assert [t.state_after for t in outcome.treatments] == [R, S, D]
    assert outcome.untreated == ("D",)
    assert [roll.purpose for roll in outcome.rolls] == [
        "recovery roll for A",
        "recovery roll for B",
        "recovery roll for C",
    ]


def test_no_die_is_rolled_when_no_one_can_be_treated():
    dice = TableDice([])
    outcome = recover_wounded(dice=dice, wounded=wounded("A"), fit_troopers=1)
    assert outcome.treatments == ()
    assert outcome.untreated == ("A",)
    assert outcome.rolls == ()


def test_under_fire_takes_one_off_every_recovery_roll_p35():
    outcome = recover_wounded(
        dice=TableDice([6, 4]),
        wounded=wounded("A", "B"),
        fit_troopers=4,
        under_fire_or_pinned=True,
    )
    assert [t.recovery.result for t in outcome.treatments] == [
        RecoveryResult.STABILISED,
        RecoveryResult.DIED_OF_WOUNDS,
    ]


def test_a_medic_adds_one_to_every_roll_in_the_squad_by_default():
    outcome = recover_wounded(
        dice=TableDice([5, 5, 3]),
        wounded=wounded("A", "B", "C"),
        fit_troopers=3,
        medic=True,
    )
    assert [t.carer for t in outcome.treatments] == [Carer.MEDIC, Carer.MEDIC, Carer.AID_TEAM]
    assert [t.recovery.modifier for t in outcome.treatments] == [1, 1, 1]
    assert [t.state_after for t in outcome.treatments] == [R, R, S]


def test_option_medic_bonus_only_for_the_medics_own_patients():
    outcome = recover_wounded(
        dice=TableDice([5, 5, 3]),
        wounded=wounded("A", "B", "C"),
        fit_troopers=3,
        medic=True,
        wounds_medic_bonus_scope=MedicBonusScope.MEDIC_PATIENTS,
    )
    assert [t.recovery.modifier for t in outcome.treatments] == [1, 1, 0]
    assert [t.state_after for t in outcome.treatments] == [R, R, D]


def test_exact_probability_every_wounded_survives_with_medic_patients_scope_under_fire():
    # Medic's two patients: modifier 0, survive on 4-6 (1/2 each). Aid team's patient: -1,
    # survives on 5-6 (1/3). All three survive: 1/2 * 1/2 * 1/3 = 1/12.
    survived = 0
    recovered_all = 0
    for faces in itertools.product(FACES, repeat=3):
        outcome = recover_wounded(
            dice=TableDice(faces),
            wounded=wounded("A", "B", "C"),
            fit_troopers=3,
            medic=True,
            under_fire_or_pinned=True,
            wounds_medic_bonus_scope="medic_patients",
        )
        states = [t.state_after for t in outcome.treatments]
        survived += D not in states
        recovered_all += states == [R, R, R]
    assert Fraction(survived, 216) == Fraction(1, 12)
    # The aid team's patient can never reach 6 under fire without the medic's bonus.
    assert recovered_all == 0


def test_exact_probability_both_wounded_recover_with_a_medic_for_the_whole_squad():
    # Medic +1 for both: 5-6 each, (1/3)^2 = 1/9.
    both = sum(
        [
            t.state_after
            for t in recover_wounded(
                dice=TableDice(faces), wounded=wounded("A", "B"), fit_troopers=3, medic=True
            ).treatments
        ]
        == [R, R]
        for faces in itertools.product(FACES, repeat=2)
    )
    assert Fraction(both, 36) == Fraction(1, 9)


def test_medevac_and_self_repair_treat_without_tying_up_troopers():
    outcome = recover_wounded(
        dice=TableDice([6, 1, 4]),
        wounded=wounded("A", "B", "C"),
        fit_troopers=0,
        medevac_in_contact=True,
        self_repairing=True,
    )
    assert [t.carer for t in outcome.treatments] == [
        Carer.MEDEVAC,
        Carer.MEDEVAC,
        Carer.SELF_REPAIR,
    ]
    assert [t.state_after for t in outcome.treatments] == [R, D, S]


@pytest.mark.parametrize(
    ("state", "code"),
    [
        (D, "wounds.dead"),
        (S, "wounds.already_stabilised"),
        (H, "wounds.not_wounded"),
        (R, "wounds.not_wounded"),
    ],
)
def test_only_untreated_wounded_may_be_treated(state, code):
    with pytest.raises(MedicalTransitionError) as raised:
        recover_wounded(dice=TableDice([6]), wounded=[Patient("A", state)], fit_troopers=4)
    assert raised.value.code == code


def test_a_figure_listed_twice_is_refused():
    with pytest.raises(ValueError, match="listed twice"):
        recover_wounded(dice=TableDice([6, 6]), wounded=wounded("A", "A"), fit_troopers=4)


@pytest.mark.parametrize("bad", [("A", W), Patient("", W), Patient(7, W)])  # type: ignore[arg-type]  # the wrong type on purpose
def test_malformed_patients_are_refused(bad):
    with pytest.raises(ValueError, match=r"Patient|trooper name"):
        recover_wounded(dice=TableDice([6]), wounded=[bad], fit_troopers=4)


def test_an_unknown_medic_bonus_scope_is_refused():
    with pytest.raises(ValueError, match="MedicBonusScope"):
        recover_wounded(
            dice=TableDice([6]),
            wounded=wounded("A"),
            fit_troopers=2,
            wounds_medic_bonus_scope="nearby",
        )


def test_too_few_entered_dice_is_a_dice_error():
    with pytest.raises(DiceError):
        recover_wounded(dice=TableDice([6]), wounded=wounded("A", "B"), fit_troopers=4)


@given(
    st.lists(st.sampled_from(list(MedicalState)), min_size=1, max_size=6),
    st.binary(min_size=1, max_size=8),
    st.booleans(),
    st.booleans(),
)
def test_a_dead_trooper_is_never_recovered(states, seed, medic, under_fire):
    patients = [Patient(f"T{i}", state) for i, state in enumerate(states)]
    try:
        outcome = recover_wounded(
            dice=SeededDice(seed, "wounded"),
            wounded=patients,
            fit_troopers=8,
            medic=medic,
            under_fire_or_pinned=under_fire,
        )
    except MedicalTransitionError:
        assert any(state is not W for state in states)
        return
    assert all(state is W for state in states)
    for treatment in outcome.treatments:
        assert treatment.state_after in (R, S, D)
        assert (W, MedicalEvent(treatment.recovery.result.value)) in ALLOWED


@given(st.binary(min_size=1, max_size=8), st.integers(0, 6), st.integers(0, 8))
def test_the_same_seed_gives_the_same_recover_wounded_outcome(seed, wounded_n, fit):
    def run():
        return recover_wounded(
            dice=SeededDice(seed, "job-1"),
            wounded=wounded(*(f"T{i}" for i in range(wounded_n))),
            fit_troopers=fit,
        )

    first, second = run(), run()
    assert first == second
    assert len(first.rolls) == first.teams.treated


# --- Leave No One Behind -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "penalty"), [(1, True), (2, True), (3, True), (4, True), (5, False), (6, False)]
)
def test_leave_no_one_behind_five_or_more_leaves_without_penalty_p35(face, penalty):
    dice = TableDice([face])
    outcome = leave_no_one_behind(dice=dice, unstabilised_wounded_left=2)
    dice.ensure_all_used()
    assert outcome.reason is LeaveReason.ROLLED
    assert outcome.resolve_penalty is penalty
    assert outcome.medic_stays_with_wounded is False
    assert [roll.purpose for roll in outcome.rolls] == ["Leave No One Behind: abandoning wounded"]


def test_exact_probability_of_the_leave_no_one_behind_penalty():
    penalties = sum(
        leave_no_one_behind(dice=TableDice([face]), unstabilised_wounded_left=1).resolve_penalty
        for face in FACES
    )
    assert Fraction(penalties, 6) == Fraction(2, 3)


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"unstabilised_wounded_left": 0}, LeaveReason.NO_UNSTABILISED_WOUNDED),
        (
            {"unstabilised_wounded_left": 2, "medic_stays_with_wounded": True},
            LeaveReason.MEDIC_STAYS,
        ),
        ({"unstabilised_wounded_left": 2, "hardened": True}, LeaveReason.HARDENED),
        ({"unstabilised_wounded_left": 2, "relentless": True}, LeaveReason.RELENTLESS),
        ({"unstabilised_wounded_left": 2, "left_with_medevac": True}, LeaveReason.MEDEVAC),
    ],
)
def test_no_roll_when_the_book_lets_a_squad_leave_its_wounded(kwargs, reason):
    outcome = leave_no_one_behind(dice=TableDice([]), **kwargs)
    assert outcome.reason is reason
    assert outcome.resolve_penalty is False
    assert outcome.rolls == ()
    assert outcome.medic_stays_with_wounded is (reason is LeaveReason.MEDIC_STAYS)


def test_leave_no_one_behind_refuses_a_negative_count():
    with pytest.raises(ValueError, match="negative"):
        leave_no_one_behind(dice=TableDice([]), unstabilised_wounded_left=-1)


@pytest.mark.parametrize(
    ("normal", "after"),
    [
        (Resolve.DETERMINED, Resolve.STEADY),
        (Resolve.STEADY, Resolve.UNCERTAIN),
        (Resolve.UNCERTAIN, Resolve.RELUCTANT),
        (Resolve.RELUCTANT, Resolve.RELUCTANT),
    ],
)
def test_a_failed_roll_checks_resolve_one_level_lower_but_never_below_reluctant(normal, after):
    assert resolve_for_checking(resolve=normal, left_wounded_behind=True) is after
    assert resolve_for_checking(resolve=normal, left_wounded_behind=False) is normal


@given(st.sampled_from(list(Resolve)), st.booleans())
def test_resolve_for_checking_stays_within_one_level_of_normal(normal, left):
    checked = resolve_for_checking(resolve=normal, left_wounded_behind=left)
    assert Resolve.RELUCTANT <= checked <= normal
    assert normal - checked <= 1


def test_the_medic_stays_until_every_wounded_is_recovered_stabilised_or_dead_p35():
    assert medic_may_leave(wounded_left_with_medic=[W, S]) is False
    assert medic_may_leave(wounded_left_with_medic=[R, S, D]) is True
    assert medic_may_leave(wounded_left_with_medic=[]) is True


@pytest.mark.parametrize(
    ("gaps", "coherency", "abandoned"),
    [
        ([3, 4], 4, False),
        ([3, 5], 4, True),
        ([Fraction(9, 2)], 4, True),
        ([], 4, False),
    ],
)
def test_wounded_left_outside_coherency_are_abandoned_by_default(gaps, coherency, abandoned):
    assert (
        wounded_are_abandoned(unstabilised_wounded_gaps_inches=gaps, coherency_inches=coherency)
        is abandoned
    )


def test_option_abandoned_only_when_the_player_declares_it():
    kwargs: dict[str, Any] = {
        "coherency_inches": 4,
        "wounds_abandon_trigger": AbandonTrigger.DECLARED,
    }
    assert wounded_are_abandoned(unstabilised_wounded_gaps_inches=[9], **kwargs) is False
    assert (
        wounded_are_abandoned(unstabilised_wounded_gaps_inches=[1], declared=True, **kwargs) is True
    )
    assert (
        wounded_are_abandoned(unstabilised_wounded_gaps_inches=[], declared=True, **kwargs) is False
    )


@pytest.mark.parametrize(("gaps", "coherency"), [([-1], 4), ([2.5], 4), ([2], True)])
def test_abandonment_refuses_bad_distances(gaps, coherency):
    with pytest.raises(ValueError, match="inches"):
        wounded_are_abandoned(unstabilised_wounded_gaps_inches=gaps, coherency_inches=coherency)


# --- Moving Wounded ------------------------------------------------------------------------------


def test_each_fit_soldier_carries_one_wounded_at_half_the_squads_rate_p35():
    plan = carry_wounded(wounded_carried=2, fit_troopers=5, movement_inches=6)
    assert (plan.carriers, plan.move_inches, plan.troopers_free_to_shoot) == (2, Fraction(3), 3)
    assert plan.rolls == ()


def test_half_an_odd_movement_rate_is_kept_exact():
    plan = carry_wounded(wounded_carried=1, fit_troopers=1, movement_inches=7)
    assert plan.move_inches == Fraction(7, 2)


def test_jet_pack_squads_need_two_carriers_per_wounded_p30():
    plan = carry_wounded(wounded_carried=2, fit_troopers=5, movement_inches=6, jet_packs=True)
    assert (plan.carriers, plan.move_inches, plan.troopers_free_to_shoot) == (4, Fraction(3), 1)


@pytest.mark.parametrize(
    ("movement", "distance", "carried_distance"),
    [(CarryMovement.LEAP, 12, 10), (CarryMovement.BOUND, 18, 14), (CarryMovement.LEAP, 1, 0)],
)
def test_carrying_shortens_a_leap_by_two_and_a_bound_by_four_p30(
    movement, distance, carried_distance
):
    plan = carry_wounded(
        wounded_carried=1,
        fit_troopers=2,
        movement_inches=distance,
        jet_packs=True,
        movement=movement,
    )
    assert plan.move_inches == carried_distance


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"wounded_carried": 3, "fit_troopers": 2, "movement_inches": 6}, "takes 3 fit"),
        (
            {"wounded_carried": 2, "fit_troopers": 3, "movement_inches": 6, "jet_packs": True},
            "takes 4 fit",
        ),
        ({"wounded_carried": 1, "fit_troopers": 2, "movement_inches": 6.0}, "inches"),
        ({"wounded_carried": 1, "fit_troopers": 2, "movement_inches": -2}, "inches"),
        (
            {"wounded_carried": 1, "fit_troopers": 2, "movement_inches": 12, "movement": "leap"},
            "Jet Packs",
        ),
        ({"wounded_carried": -1, "fit_troopers": 2, "movement_inches": 6}, "negative"),
    ],
)
def test_carry_wounded_refuses_impossible_loads(kwargs, message):
    with pytest.raises(ValueError, match=message):
        carry_wounded(**kwargs)


# --- wounded at the end of a battle --------------------------------------------------------------

ROSTER = [Patient("fit", H), Patient("back", R), Patient("stab", S), Patient("hurt", W)]
ROSTER_WITH_DEAD = [*ROSTER, Patient("dead", D)]


def test_by_default_every_wounded_stabilised_or_dead_figure_is_a_loss():
    outcome = wounded_at_end_of_battle(dice=TableDice([]), troopers=ROSTER_WITH_DEAD)
    assert outcome.returning == ("fit", "back")
    assert outcome.lost == ("stab", "hurt", "dead")
    assert outcome.losses == 3
    assert outcome.rolls == ()


def test_option_stabilised_figures_return():
    outcome = wounded_at_end_of_battle(
        dice=TableDice([]),
        troopers=ROSTER_WITH_DEAD,
        campaign_wounded_at_end=WoundedAtEnd.STABILISED_RETURN,
    )
    assert outcome.returning == ("fit", "back", "stab")
    assert outcome.lost == ("hurt", "dead")


@pytest.mark.parametrize(
    ("face", "returns", "result"),
    [
        (6, True, RecoveryResult.RECOVERED),
        (5, True, RecoveryResult.STABILISED),
        (4, True, RecoveryResult.STABILISED),
        (3, False, RecoveryResult.DIED_OF_WOUNDS),
        (1, False, RecoveryResult.DIED_OF_WOUNDS),
    ],
)
def test_option_roll_recovery_gives_each_untreated_wounded_one_unmodified_roll(
    face, returns, result
):
    dice = TableDice([face])
    outcome = wounded_at_end_of_battle(
        dice=dice, troopers=ROSTER_WITH_DEAD, campaign_wounded_at_end="roll_recovery"
    )
    dice.ensure_all_used()
    hurt = next(fate for fate in outcome.fates if fate.trooper == "hurt")
    assert hurt.returns is returns
    assert hurt.recovery is not None
    assert hurt.recovery.result is result
    assert hurt.recovery.modifier == 0
    assert hurt.state_at_end is W
    assert "stab" in outcome.returning
    assert "dead" in outcome.lost
    assert [roll.purpose for roll in outcome.rolls] == ["recovery roll for hurt"]


def test_exact_probability_an_untreated_wounded_returns_under_roll_recovery():
    returning = sum(
        wounded_at_end_of_battle(
            dice=TableDice([face]),
            troopers=[Patient("hurt", W)],
            campaign_wounded_at_end=WoundedAtEnd.ROLL_RECOVERY,
        ).losses
        == 0
        for face in FACES
    )
    assert Fraction(returning, 6) == Fraction(1, 2)


@given(
    st.lists(st.sampled_from(list(MedicalState)), max_size=8),
    st.sampled_from(list(WoundedAtEnd)),
    st.binary(min_size=1, max_size=8),
)
def test_the_dead_never_return_and_the_fit_always_do(states, reading, seed):
    troopers = [Patient(f"T{i}", state) for i, state in enumerate(states)]
    outcome = wounded_at_end_of_battle(
        dice=SeededDice(seed, "end"), troopers=troopers, campaign_wounded_at_end=reading
    )
    for fate in outcome.fates:
        if fate.state_at_end is D:
            assert not fate.returns
        if fate.state_at_end.is_fit:
            assert fate.returns
    assert len(outcome.rolls) == (states.count(W) if reading is WoundedAtEnd.ROLL_RECOVERY else 0)


def test_an_unknown_end_of_battle_reading_is_refused():
    with pytest.raises(ValueError, match="WoundedAtEnd"):
        wounded_at_end_of_battle(
            dice=TableDice([]), troopers=ROSTER, campaign_wounded_at_end="heal_all"
        )
