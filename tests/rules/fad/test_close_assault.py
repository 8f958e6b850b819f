"""Tests for Fast and Dirty close assault (FaD p.22-23) in rules.fad.close_assault.

The book gives no worked close assault, so the expectations are the book's tables (Infantry
Assault Modifiers, Kill Table, Overrun, Vehicle Assault Damage) applied by hand, and exact
probabilities by enumerating every face.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from typing import TypeVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import SeededDice, TableDice
from rules.errors import RuleError
from rules.fad.close_assault import (
    AssaultedVehicle,
    AssaultResult,
    AssaultSide,
    AssaultTrait,
    DefensiveFire,
    Squad,
    VehicleAssaulters,
    VehicleDamage,
    assault_casualty_effect,
    assault_vehicle,
    close_assault,
    defensive_fire,
    infantry_assault_modifiers,
    kill_number,
    nerves_of_steel,
    overruns,
    vehicle_assault_modifiers,
    vehicle_damage,
)
from rules.fad.options import OverrunEdge
from rules.fad.scales import Quality
from rules.fad.wounded import DamageEffect

ATTACKER = AssaultSide.ATTACKER
DEFENDER = AssaultSide.DEFENDER


T = TypeVar("T")


def present(value: T | None) -> T:
    assert value is not None
    return value


def squad(fighting: int = 4, quality: Quality = Quality.REGULAR, **kw) -> Squad:
    return Squad(fighting=fighting, quality=quality, **kw)


# --- modifiers (p.22) ----------------------------------------------------------------------------


def test_the_infantry_assault_modifiers_table_p22():
    attacker = squad(
        fighting=6,
        quality=Quality.ELITE,
        armour=2,
        power_armour=True,
        lacks_grenades=True,
        assault_shotguns=2,
        flamethrowers=1,
        traits=frozenset({AssaultTrait.ASSAULT_TROOPS, AssaultTrait.TANK_HUNTER}),
        officer_leadership=2,
        other_modifier=2,
    )
    defender = squad(fighting=4, quality=Quality.CONSCRIPT, armour=0)
    assert dict(infantry_assault_modifiers(attacker, defender, charging=True)) == {
        "lacks grenades": -2,
        "charging": 1,
        "better armour": 1,
        "outnumbering": 2,  # +1 per extra figure
        "higher quality": 4,  # +2 per level: Elite over Conscript
        "power armour": 3,
        "assault shotguns": 2,
        "flamethrowers": 2,
        "assault troops": 2,  # Tank Hunter adds nothing against infantry
        "officer": 2,
        "psionics": 2,
    }
    # The weaker side gets none of the comparisons.
    assert infantry_assault_modifiers(defender, attacker, charging=False) == ()


def test_the_no_grenades_limitation_can_cost_one_instead_of_two_p11():
    lacking = squad(lacks_grenades=True)
    assert infantry_assault_modifiers(
        lacking, squad(), charging=False, assault_no_grenades_penalty=-1
    ) == (("lacks grenades", -1),)


@pytest.mark.parametrize(
    ("trait", "infantry", "vehicle"),
    [
        (AssaultTrait.ASSAULT_TROOPS, 2, 2),
        (AssaultTrait.BERSERK, 2, 2),
        (AssaultTrait.SHOCK_TROOPS, 1, 1),
        (AssaultTrait.BUG_HUNTER, 1, 1),
        (AssaultTrait.KNIFE_FIGHTER, 1, 0),
        (AssaultTrait.TANK_HUNTER, 0, 2),
    ],
)
def test_trait_bonuses_p33_p39_p41(trait, infantry, vehicle):
    assert (trait.infantry_bonus, trait.vehicle_bonus) == (infantry, vehicle)


def test_the_kill_table_p22():
    assert kill_number(AssaultResult.ATTACKER_WON, ATTACKER) == 3
    assert kill_number(AssaultResult.ATTACKER_WON, DEFENDER) == 5
    assert kill_number(AssaultResult.DEFENDER_WON, DEFENDER) == 3
    assert kill_number(AssaultResult.DEFENDER_WON, ATTACKER) == 5
    assert kill_number(AssaultResult.DRAW, ATTACKER) == kill_number(AssaultResult.DRAW, DEFENDER)
    assert kill_number(AssaultResult.DRAW, ATTACKER) == 4


@pytest.mark.parametrize(
    ("winner", "loser", "ahead_and_double", "double_only"),
    [
        (8, 4, True, True),
        (7, 4, False, False),
        (1, 0, True, True),
        (1, -3, True, True),
        (0, 0, False, True),  # a draw at nothing: each side doubles the other
        (-2, -2, False, True),
        (5, 5, False, False),
    ],
)
def test_overrun_at_twice_the_other_total_p22(winner, loser, ahead_and_double, double_only):
    assert overruns(winner, loser, assault_overrun_edge=OverrunEdge.AHEAD_AND_DOUBLE) is (
        ahead_and_double
    )
    assert overruns(winner, loser, assault_overrun_edge=OverrunEdge.DOUBLE_ONLY) is double_only


# --- whole assaults ------------------------------------------------------------------------------


def test_the_winner_kills_on_3_the_loser_on_5_and_the_loser_falls_back_6():
    # Regular 4 against Conscript 4: attacker best 3 +1 charging +2 quality = 6; defender 5.
    # Kill dice: attacker 3, 2, 5, 1 (2 kills on 3+); defender 5, 4, 6, 1 (2 kills on 5+).
    dice = TableDice([3, 1, 5, 2, 3, 2, 5, 1, 5, 4, 6, 1])
    outcome = close_assault(dice=dice, attacker=squad(), defender=squad(quality=Quality.CONSCRIPT))
    assert present(outcome.attacker_roll).total == 6
    assert present(outcome.defender_roll).total == 5
    assert outcome.result is AssaultResult.ATTACKER_WON
    assert outcome.overrun == ()
    assert outcome.casualties == {ATTACKER: 2, DEFENDER: 2}
    assert outcome.fall_back == {ATTACKER: 0, DEFENDER: 6}
    assert [r.result for r in outcome.rolls] == [3, 1, 5, 2, 3, 2, 5, 1, 5, 4, 6, 1]
    assert dice.remaining == 0


def test_a_draw_kills_on_4_and_both_fall_back_3():
    dice = TableDice([4, 2, 1, 5, 4, 3, 6, 4])
    outcome = close_assault(
        dice=dice, attacker=squad(fighting=2), defender=squad(fighting=2), fire=None
    )
    # 4 + 1 charging against 5: a draw, kills on 4+.
    assert outcome.result is AssaultResult.DRAW
    assert outcome.kill_rolls[ATTACKER].kills == 1
    assert outcome.kill_rolls[DEFENDER].kills == 2
    assert outcome.casualties == {ATTACKER: 2, DEFENDER: 1}
    # The attackers are all down: nobody of theirs is left to fall back.
    assert outcome.fall_back == {ATTACKER: 0, DEFENDER: 3}


def test_the_defender_wins_and_the_attackers_fall_back():
    dice = TableDice([1, 1, 6, 2, 6, 6, 3, 3])
    outcome = close_assault(dice=dice, attacker=squad(fighting=2), defender=squad(fighting=2))
    # 1 + 1 = 2 against 6: 6 >= 2 x 2, an Overrun of the attackers.
    assert outcome.result is AssaultResult.DEFENDER_WON
    assert outcome.overrun == (ATTACKER,)
    # The overrun attackers roll alone and kill only on 6.
    assert outcome.kill_rolls[ATTACKER].kill_number == 6
    assert DEFENDER not in outcome.kill_rolls
    assert outcome.casualties == {ATTACKER: 2, DEFENDER: 2}
    assert dice.remaining == 2

    dice = TableDice([3, 1, 5, 2, 2, 1, 6, 2])
    outcome = close_assault(dice=dice, attacker=squad(fighting=2), defender=squad(fighting=2))
    assert outcome.result is AssaultResult.DEFENDER_WON  # 4 against 5
    assert outcome.overrun == ()
    assert outcome.casualties == {ATTACKER: 1, DEFENDER: 0}
    assert outcome.fall_back == {ATTACKER: 6, DEFENDER: 0}


def test_an_overrun_wipes_out_the_whole_squad_not_only_its_fighting_figures():
    defender = squad(fighting=2, strength=7, quality=Quality.RABBLE)
    # 6 + 1 + 2 (outnumbering) + 4 (quality) = 13 against 2: Overrun.
    dice = TableDice([6, 1, 2, 1, 6, 5])
    outcome = close_assault(dice=dice, attacker=squad(), defender=defender)
    assert outcome.overrun == (DEFENDER,)
    assert outcome.casualties[DEFENDER] == 7
    assert outcome.kill_rolls[DEFENDER].faces == (6, 5)
    assert outcome.casualties[ATTACKER] == 1
    assert outcome.fall_back == {ATTACKER: 0, DEFENDER: 0}


def test_double_only_wipes_out_both_squads_on_a_draw_at_zero_or_less():
    # Both lack grenades: 1 + 1 charging - 2 = 0 against 2 - 2 = 0.
    attacker = squad(fighting=1, individual=True, lacks_grenades=True)
    defender = squad(fighting=1, individual=True, lacks_grenades=True)
    default = close_assault(dice=TableDice([1, 2, 6, 6]), attacker=attacker, defender=defender)
    assert (default.result, default.overrun) == (AssaultResult.DRAW, ())
    literal = close_assault(
        dice=TableDice([1, 2]),
        attacker=attacker,
        defender=defender,
        assault_overrun_edge=OverrunEdge.DOUBLE_ONLY,
    )
    assert literal.overrun == (ATTACKER, DEFENDER)
    assert literal.casualties == {ATTACKER: 1, DEFENDER: 1}
    assert literal.kill_rolls == {}
    assert len(literal.rolls) == 2


def test_a_lone_figure_rolls_one_die_and_a_legend_counts_a_six_without_rolling():
    dice = TableDice([2, 3, 4, 6, 1])
    outcome = close_assault(
        dice=dice,
        attacker=squad(fighting=1, individual=True, quality=Quality.ELITE),
        defender=squad(fighting=2, legend=True),
    )
    assert present(outcome.attacker_roll).faces == (2,)
    assert present(outcome.defender_roll).faces == ()
    assert present(outcome.defender_roll).total == 6 + 1  # the Legend's 6, outnumbering +1
    assert outcome.result is AssaultResult.DEFENDER_WON
    assert outcome.kill_rolls[ATTACKER].faces == (3,)
    assert outcome.kill_rolls[DEFENDER].faces == (4, 6)
    assert outcome.casualties == {ATTACKER: 1, DEFENDER: 0}


def test_power_armour_rolls_twice_and_negates_kills_on_5_p22():
    armoured = squad(fighting=2, power_armour=True, armour=4, brawlers=1)
    # Attacker: 4 + 1 charging + 1 armour + 3 power armour = 9 against 6 + 1 outnumbering.
    # 2 figures x 2 dice + 1 Brawler = 5 kill dice on 3+.
    dice = TableDice([4, 1, 6, 6, 3, 3, 3, 1, 2, 5, 5, 6, 5, 2, 6])
    outcome = close_assault(dice=dice, attacker=armoured, defender=squad(fighting=3))
    assert (present(outcome.attacker_roll).total, present(outcome.defender_roll).total) == (9, 7)
    assert outcome.result is AssaultResult.ATTACKER_WON
    assert outcome.kill_rolls[ATTACKER].faces == (3, 3, 3, 1, 2)
    assert outcome.kill_rolls[ATTACKER].negation_faces == ()
    assert outcome.casualties[DEFENDER] == 3
    # The defenders kill on 5+ (5, 5, 6); the power armour negates two of three (5, 2, 6).
    assert outcome.kill_rolls[DEFENDER].kills == 3
    assert outcome.kill_rolls[DEFENDER].negation_faces == (5, 2, 6)
    assert outcome.casualties[ATTACKER] == 1
    assert dice.remaining == 0


def test_casualties_never_exceed_the_squad():
    dice = TableDice([6, 6, 1, 1] + [6] * 12)
    outcome = close_assault(
        dice=dice,
        attacker=squad(fighting=8, quality=Quality.RABBLE),
        defender=squad(fighting=4, quality=Quality.ELITE, power_armour=False),
    )
    # 6 + 1 + 4 outnumbering = 11 against 1 + 6 quality = 7: no Overrun (11 < 14).
    assert outcome.result is AssaultResult.ATTACKER_WON
    assert outcome.casualties[DEFENDER] == 4


def test_defensive_fire_downs_the_closest_chargers_before_they_fight():
    # Fire Effect 5 + 4 = 9 in the open: 3 hits. Damage +2 against armour 0:
    # 6+2 v 1 kills, 1+2 v 6 no effect, 3+2 v 3 wounds (margin 2).
    fire = DefensiveFire(modifier=4, damage=2)
    dice = TableDice([5, 2, 6, 1, 1, 6, 3, 3, 4, 4, 4, 4, 1, 1, 1, 1])
    outcome = close_assault(
        dice=dice, attacker=squad(fighting=3, strength=5), defender=squad(fighting=3), fire=fire
    )
    shot = present(outcome.defensive_fire)
    assert (shot.fire_effect, shot.hits) == (9, 3)
    assert [h.effect for h in shot.results] == [
        DamageEffect.KILLED,
        DamageEffect.NO_EFFECT,
        DamageEffect.WOUNDED,
    ]
    assert shot.downed == (0, 2)
    assert outcome.attacker_fighting == 1
    # One charger left: 4 + 1 against the defenders' 4 + 2 outnumbering = 6.
    assert outcome.result is AssaultResult.DEFENDER_WON


def test_defensive_fire_that_downs_every_charger_ends_the_assault():
    fire = DefensiveFire(modifier=6, damage=4, cover="partial", dice=1)
    dice = TableDice([6, 6, 1])
    outcome = close_assault(
        dice=dice, attacker=squad(fighting=1, strength=1), defender=squad(), fire=fire
    )
    # 12 with 4 points a hit: 3 hits, but one figure to take them.
    assert present(outcome.defensive_fire).hits == 3
    assert len(present(outcome.defensive_fire).results) == 1
    assert outcome.result is AssaultResult.NO_CONTEST
    assert outcome.casualties == {ATTACKER: 0, DEFENDER: 0}
    assert outcome.attacker_roll is None


def test_defensive_fire_kills_outright_without_recover_wounded():
    outcome = defensive_fire(
        dice=TableDice([3, 1, 1]),
        fire=DefensiveFire(damage=2, cover="hard", dice=1, modifier=2),
        target_figures=4,
        target_armour=1,
        adv_recover_wounded=False,
    )
    # 5 behind hard cover: one hit; 1 + 2 against 1 + 1: margin 1, removed in the basic game.
    assert [h.effect for h in outcome.results] == [DamageEffect.KILLED]


def test_a_negative_fire_effect_scores_no_hit():
    outcome = defensive_fire(
        dice=TableDice([1, 1]), fire=DefensiveFire(modifier=-6), target_figures=2, target_armour=0
    )
    assert (outcome.fire_effect, outcome.hits, outcome.results) == (-5, 0, ())


# --- exact probabilities -------------------------------------------------------------------------


def _best_of_two() -> dict[int, Fraction]:
    """P(the higher of 2d6 = k) = (2k - 1) / 36."""
    return {k: Fraction(2 * k - 1, 36) for k in range(1, 7)}


def test_the_result_of_two_equal_squads_by_enumeration():
    """Equal squads, 2 figures each: the chargers' +1 is the only modifier. Every face of the
    four victor dice through the procedure, against the distribution of the higher of 2d6."""
    counts: Counter[tuple[AssaultResult, tuple[AssaultSide, ...]]] = Counter()
    for faces in itertools.product(range(1, 7), repeat=4):
        outcome = close_assault(
            dice=TableDice([*faces, *[1] * 4]),
            attacker=squad(fighting=2),
            defender=squad(fighting=2),
        )
        counts[outcome.result, outcome.overrun] += 1
    total = 6**4
    best = _best_of_two()
    win = sum(best[a] * best[d] for a in best for d in best if a + 1 > d)
    draw = sum(best[a] * best[d] for a in best for d in best if a + 1 == d)
    overrun_win = sum(best[a] * best[d] for a in best for d in best if a + 1 >= 2 * d)
    overrun_loss = sum(best[a] * best[d] for a in best for d in best if d >= 2 * (a + 1))
    got = {key: Fraction(n, total) for key, n in counts.items()}
    assert got[AssaultResult.ATTACKER_WON, (DEFENDER,)] == overrun_win
    assert got[AssaultResult.ATTACKER_WON, ()] == win - overrun_win
    assert got[AssaultResult.DRAW, ()] == draw
    assert got[AssaultResult.DEFENDER_WON, (ATTACKER,)] == overrun_loss
    assert sum(got.values()) == 1
    assert win == Fraction(791, 1296)


@pytest.mark.parametrize("kill", [3, 4, 5, 6])
def test_kills_follow_the_binomial_by_enumeration(kill):
    """Three kill dice needing ``kill``+: the number of kills over all 216 faces."""
    result = {3: AssaultResult.ATTACKER_WON, 4: AssaultResult.DRAW, 5: AssaultResult.DEFENDER_WON}
    counts: Counter[int] = Counter()
    for faces in itertools.product(range(1, 7), repeat=3):
        if kill == 6:
            # Overrun of the attackers: they roll alone and kill on 6 only.
            dice = [1, 1, 6, 6, *faces]
        else:
            victor = {3: [6, 6, 1, 4], 4: [4, 4, 5, 5], 5: [2, 2, 4, 4]}[kill]
            dice = [*victor, *faces, 1, 1, 1]
        outcome = close_assault(
            dice=TableDice(dice), attacker=squad(fighting=3), defender=squad(fighting=3, strength=9)
        )
        if kill < 6:
            assert outcome.result is result[kill]
        assert outcome.kill_rolls[ATTACKER].kill_number == kill
        counts[outcome.kill_rolls[ATTACKER].kills] += 1
    p = Fraction(7 - kill, 6)
    for kills in range(4):
        expected = [1, 3, 3, 1][kills] * p**kills * (1 - p) ** (3 - kills)
        assert Fraction(counts[kills], 216) == expected


# --- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "build",
    [
        lambda: Squad(fighting=0, quality=Quality.REGULAR),
        lambda: Squad(fighting=3, strength=2, quality=Quality.REGULAR),
        lambda: Squad(fighting=2, quality=Quality.REGULAR, brawlers=3),
        lambda: Squad(fighting=True, quality=Quality.REGULAR),
        lambda: Squad(fighting=2, quality=Quality.REGULAR, armour=-3),
        lambda: DefensiveFire(dice=3),
        lambda: DefensiveFire(cover="smoke"),
        lambda: DefensiveFire(support_d6=-1),
        lambda: AssaultedVehicle(weakest_armour=-1, crew=1),
        lambda: VehicleAssaulters(in_contact=0, quality=Quality.REGULAR),
        lambda: VehicleAssaulters(in_contact=1, quality=Quality.REGULAR, flamethrowers=-1),
    ],
)
def test_impossible_inputs_are_refused(build):
    with pytest.raises(RuleError) as refused:
        build()
    assert refused.value.code == "close_assault.refused"


def test_casualties_are_killed_unless_the_option_and_recover_wounded_make_them_wounded():
    assert assault_casualty_effect() is DamageEffect.KILLED
    assert assault_casualty_effect(assault_casualties_are_kills=False) is DamageEffect.WOUNDED
    assert (
        assault_casualty_effect(adv_recover_wounded=False, assault_casualties_are_kills=False)
        is DamageEffect.KILLED
    )


# --- assaulting a vehicle (p.23) -----------------------------------------------------------------


@pytest.mark.parametrize("quality", list(Quality))
@pytest.mark.parametrize("tank_hunter", [False, True])
def test_nerves_of_steel_probability_by_quality_p23(quality, tank_hunter):
    passed = sum(
        nerves_of_steel(dice=TableDice([face]), quality=quality, tank_hunter=tank_hunter).passed
        for face in range(1, 7)
    )
    needed = {Quality.RABBLE: 5, Quality.CONSCRIPT: 4, Quality.REGULAR: 3, Quality.ELITE: 2}
    assert passed == min(6, 7 - needed[quality] + int(tank_hunter))


def test_the_vehicle_assault_damage_table_p23():
    tank = AssaultedVehicle(weakest_armour=5, crew=3)
    assert [vehicle_damage(face, tank) for face in range(1, 7)] == [
        VehicleDamage.CREW_KILLED,
        *[VehicleDamage.IMMOBILISED] * 4,
        VehicleDamage.DESTROYED,
    ]
    moving_truck = AssaultedVehicle(
        weakest_armour=0, crew=1, armoured=False, light_transport=True, moved_last_activation=True
    )
    assert vehicle_damage(1, moving_truck) is VehicleDamage.DRIVER_KILLED_CRASHED
    parked = AssaultedVehicle(weakest_armour=0, crew=1, armoured=False, light_transport=True)
    assert vehicle_damage(1, parked) is VehicleDamage.CREW_KILLED
    stuck = AssaultedVehicle(weakest_armour=5, crew=0, immobilised=True)
    assert vehicle_damage(1, stuck) is VehicleDamage.NO_EFFECT
    assert vehicle_damage(3, stuck) is VehicleDamage.NO_EFFECT


def test_an_armoured_vehicle_assault_falters_on_failed_nerves():
    outcome = assault_vehicle(
        dice=TableDice([2]),
        squad=VehicleAssaulters(in_contact=3, quality=Quality.CONSCRIPT),
        vehicle=AssaultedVehicle(weakest_armour=3, crew=2),
    )
    assert outcome.faltered
    assert (outcome.successes, outcome.destroyed, len(outcome.rolls)) == (0, False, 1)


def test_each_attack_die_reaching_the_defence_rolls_damage_in_order():
    squad_ = VehicleAssaulters(
        in_contact=4,
        quality=Quality.REGULAR,
        lacks_grenades=True,
        flamethrowers=1,
        assault_shotguns=1,
        traits=frozenset({AssaultTrait.TANK_HUNTER, AssaultTrait.KNIFE_FIGHTER}),
        officer_leadership=1,
        other_modifier=-2,
    )
    assert dict(vehicle_assault_modifiers(squad_)) == {
        "lacks grenades": -2,
        "assault shotguns": 1,
        "flamethrowers": 2,
        "tank hunter": 2,
        "officer": 1,
        "psionics": -2,
    }
    # Nerves 3 (Regular 3+). Attacks 6, 5, 1, 4 + 2 = 8, 7, 3, 6; defence 4 + weakest armour
    # 3 = 7: two reach it. Damage 1 (a crewman), 3 (immobilised).
    dice = TableDice([3, 6, 5, 1, 4, 4, 1, 3])
    outcome = assault_vehicle(
        dice=dice, squad=squad_, vehicle=AssaultedVehicle(weakest_armour=3, crew=3)
    )
    assert present(outcome.nerves).passed
    assert outcome.defence == 7
    assert outcome.successes == 2
    assert outcome.damage == (VehicleDamage.CREW_KILLED, VehicleDamage.IMMOBILISED)
    assert (outcome.crew_killed, outcome.immobilised, outcome.destroyed) == (1, True, False)
    assert dice.remaining == 0


def test_no_more_damage_is_rolled_once_the_vehicle_is_destroyed():
    # Unarmoured: no nerve test. Attacks 5, 6, 4 against 1 + 0: three damage rolls due.
    dice = TableDice([5, 6, 4, 1, 6, 2])
    outcome = assault_vehicle(
        dice=dice,
        squad=VehicleAssaulters(in_contact=3, quality=Quality.RABBLE),
        vehicle=AssaultedVehicle(weakest_armour=0, crew=1, armoured=False, light_transport=True),
    )
    assert outcome.nerves is None
    assert outcome.damage == (VehicleDamage.DESTROYED,)
    assert outcome.destroyed
    assert dice.remaining == 1


def test_a_moving_light_transport_crashes_when_its_driver_is_killed_p23():
    outcome = assault_vehicle(
        dice=TableDice([4, 1, 1]),
        squad=VehicleAssaulters(in_contact=1, quality=Quality.RABBLE),
        vehicle=AssaultedVehicle(
            weakest_armour=0,
            crew=1,
            armoured=False,
            light_transport=True,
            moved_last_activation=True,
        ),
    )
    assert outcome.damage == (VehicleDamage.DRIVER_KILLED_CRASHED,)
    assert (outcome.crew_killed, outcome.destroyed) == (1, True)


def test_the_probability_of_a_successful_attack_die_by_enumeration():
    """One figure against a defence of d6 + 2, no modifiers: P(attack >= defence) over 36 faces
    is the number of (a, d) with a >= d + 2: 10 / 36."""
    successes = 0
    for attack, defence in itertools.product(range(1, 7), repeat=2):
        dice = [attack, defence, 2]  # a damage die, used only on a success
        outcome = assault_vehicle(
            dice=TableDice(dice),
            squad=VehicleAssaulters(in_contact=1, quality=Quality.ELITE),
            vehicle=AssaultedVehicle(weakest_armour=2, crew=2, armoured=False),
        )
        successes += outcome.successes
    assert Fraction(successes, 36) == Fraction(10, 36)


def test_support_weapons_add_a_d6_each_to_the_defensive_fire_p69():
    # A flamethrower and a grenade launcher: best of 2 and 4, + 0 modifier, + 3 + 5 = 12 against
    # partial concealment: 3 hits; damage +2 against armour 1, 1 v 6, 1 v 6, 1 v 6: no effect.
    outcome = defensive_fire(
        dice=TableDice([2, 4, 3, 5, 1, 6, 1, 6, 1, 6]),
        fire=DefensiveFire(damage=2, cover="partial", support_d6=2),
        target_figures=5,
        target_armour=1,
    )
    assert (outcome.faces, outcome.support_faces) == ((2, 4), (3, 5))
    assert (outcome.fire_effect, outcome.hits, outcome.downed) == (12, 3, ())
    assert len(outcome.rolls) == 10


_squads = st.builds(
    Squad,
    fighting=st.integers(1, 8),
    quality=st.sampled_from(list(Quality)),
    armour=st.integers(-2, 6),
    individual=st.booleans(),
    power_armour=st.booleans(),
    lacks_grenades=st.booleans(),
    flamethrowers=st.integers(0, 2),
    legend=st.booleans(),
)


@given(
    attacker=_squads,
    defender=_squads,
    extra=st.integers(0, 4),
    fire=st.none()
    | st.builds(DefensiveFire, modifier=st.integers(-4, 8), damage=st.integers(0, 4)),
    edge=st.sampled_from(list(OverrunEdge)),
    seed=st.binary(min_size=1, max_size=8),
)
def test_every_assault_keeps_the_books_invariants(attacker, defender, extra, fire, edge, seed):
    attacker = Squad(
        fighting=attacker.fighting,
        strength=attacker.fighting + extra,
        quality=attacker.quality,
        armour=attacker.armour,
        power_armour=attacker.power_armour,
    )
    outcome = close_assault(
        dice=SeededDice(seed, "assault"),
        attacker=attacker,
        defender=defender,
        fire=fire,
        assault_overrun_edge=edge,
    )
    downed = len(outcome.defensive_fire.downed) if outcome.defensive_fire else 0
    sizes = {ATTACKER: attacker.size - downed, DEFENDER: defender.size}
    for side in AssaultSide:
        assert 0 <= outcome.casualties[side] <= sizes[side]
        if side in outcome.overrun:
            assert outcome.casualties[side] == sizes[side]
        if outcome.casualties[side] == sizes[side]:
            assert outcome.fall_back[side] == 0
    if outcome.result is AssaultResult.NO_CONTEST:
        assert outcome.casualties == {ATTACKER: 0, DEFENDER: 0}
        return
    attack, defence = present(outcome.attacker_roll).total, present(outcome.defender_roll).total
    assert (outcome.result is AssaultResult.ATTACKER_WON) == (attack > defence)
    assert (outcome.result is AssaultResult.DRAW) == (attack == defence)
    # Only the loser of an Overrun rolls kill dice, needing 6; otherwise both sides roll.
    if len(outcome.overrun) == 1:
        assert list(outcome.kill_rolls) == list(outcome.overrun)
        assert outcome.kill_rolls[outcome.overrun[0]].kill_number == 6
    elif not outcome.overrun:
        assert set(outcome.kill_rolls) == set(AssaultSide)
    assert all(1 <= roll.result <= 6 for roll in outcome.rolls)
