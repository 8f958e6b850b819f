"""Tests for Fast and Dirty shooting (FaD p.17-21, p.24, p.35) in rules.fad.shooting and the
weapons tables (p.19, p.69-70) in rules.fad.weapons.

Exact probabilities are counted over every face of the dice the procedure rolls, fed in as table
dice; the expected fractions are worked out by hand in each docstring.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import TableDice
from rules.errors import RuleError
from rules.fad.options import BaseRangeBand, WeaponsDamageTable
from rules.fad.scales import Quality
from rules.fad.shooting import (
    Concealment,
    Marker,
    PenetrationResult,
    RangeBand,
    Shooter,
    TargetConditions,
    TargetFigure,
    VehicleCondition,
    VehicleDamageEffect,
    allocate_hits,
    crossfire_pinning_test,
    destroyed_vehicle_passengers,
    determine_damage,
    fire_effect,
    hits_from_effect,
    marker_from_fire,
    penetration,
    pinning_level,
    range_band,
    ranging_in,
    small_squad_penalty,
    squad_based_damage,
    strike_effect,
    vehicle_damage,
    vehicle_damage_effect,
)
from rules.fad.weapons import WEAPONS, Armour, Weapon, WeaponClass, armour_named, weapon_damage
from rules.fad.wounded import DamageEffect, MedicalState

FACES = range(1, 7)
REGULAR_SQUAD = Shooter(
    quality=Quality.REGULAR, riflemen=7, saws=1
)  # Rifle Squad 1 of the example platoon


def faces(n: int):
    return itertools.product(FACES, repeat=n)


# --- weapons tables ---------------------------------------------------------------


def test_weapons_tables_p69_p70() -> None:
    """FaD p.69: assault rifles x5 Damage +2; SAW x6 Fire Effect +2; grenade launcher +1d6, AT
    +2; heavy MG x8, Damage +4, Fire Effect +2, AT +1; medium cannon pins (**), beam weapons
    take no range modifiers (*), RPG only at hard targets (***)."""
    assert (
        WEAPONS[Weapon.ASSAULT_RIFLES].range_multiplier,
        WEAPONS[Weapon.ASSAULT_RIFLES].damage,
    ) == (5, 2)
    saw = WEAPONS[Weapon.SQUAD_AUTOMATIC_WEAPON]
    assert (saw.weapon_class, saw.range_multiplier, saw.fire_effect) == (WeaponClass.SUPPORT, 6, 2)
    launcher = WEAPONS[Weapon.GRENADE_LAUNCHER]
    assert (launcher.fire_effect_d6, launcher.anti_tank) == (True, 2)
    hmg = WEAPONS[Weapon.HEAVY_MG]
    assert (hmg.range_multiplier, hmg.damage, hmg.fire_effect, hmg.anti_tank) == (8, 4, 2, 1)
    assert WEAPONS[Weapon.CANNON_MEDIUM].always_pins
    assert not WEAPONS[Weapon.CANNON_LIGHT].always_pins
    assert WEAPONS[Weapon.BEAM_HEAVY].no_range_modifiers
    assert WEAPONS[Weapon.RPG].hard_targets_only
    assert Weapon.GENERAL_PURPOSE_MG.label == "general purpose mg"


@pytest.mark.parametrize(
    ("table", "mounted", "cannon", "mortar", "beam"),
    [
        (WeaponsDamageTable.BY_MOUNT, False, 3, 2, 2),
        (WeaponsDamageTable.BY_MOUNT, True, 2, 1, 3),
        (WeaponsDamageTable.SHOOTING_TABLE, True, 2, 1, 2),
        (WeaponsDamageTable.HEAVY_WEAPONS_TABLE, True, 3, 2, 2),
        (WeaponsDamageTable.VEHICLE_WEAPONS_TABLE, False, 2, 1, 3),
    ],
)
def test_damage_where_the_tables_disagree_follows_the_option_p19_p69_p70(
    table, mounted, cannon, mortar, beam
) -> None:
    """Cannon - Light +2 (p.19, p.70) / +3 (p.69); Mortar - Light +1 / +2; Beam - Heavy +2
    (p.19, p.69) / +3 (p.70). Weapons the tables agree on read the same everywhere; support
    weapons have no Damage."""
    read = {
        w: weapon_damage(w, vehicle_mounted=mounted, weapons_damage_table=table)
        for w in (Weapon.CANNON_LIGHT, Weapon.MORTAR_LIGHT, Weapon.BEAM_HEAVY)
    }
    assert list(read.values()) == [cannon, mortar, beam]
    assert weapon_damage(Weapon.AUTO_CANNON_LIGHT, weapons_damage_table=table) == 6
    assert weapon_damage(Weapon.FLAMETHROWER, weapons_damage_table=table) is None


def test_armour_ratings_p19() -> None:
    """None -2, Light +0, Improved +1, Heavy +2, Light Power +4, Heavy Power +6 (p.19)."""
    assert [a.rating for a in Armour] == [-2, 0, 1, 2, 4, 6]
    assert [a.is_power_armour for a in Armour] == [False] * 4 + [True] * 2
    assert armour_named(" Light Power ") is Armour.LIGHT_POWER
    assert armour_named("heavy-power") is Armour.HEAVY_POWER
    with pytest.raises(RuleError) as refused:
        armour_named("")
    assert refused.value.code == "fire.unknown_armour"


# --- range ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("distance", "band"),
    [
        (0, RangeBand.BASE),
        (4, RangeBand.BASE),
        (5, RangeBand.CLOSE),
        (20, RangeBand.CLOSE),
        (21, RangeBand.MEDIUM),
        (40, RangeBand.MEDIUM),
        (41, RangeBand.LONG),
        (60, RangeBand.LONG),
    ],
)
def test_regular_assault_rifles_range_bands_book_example_p17(distance, band) -> None:
    """FaD p.17: a Regular squad (base range 4") with assault rifles (x5): close to 20",
    medium 21-40", long 41-60". Within the 4" Base Range itself the +2 applies (default
    reading of fire_base_range_band)."""
    assert range_band(distance_inches=distance, quality=Quality.REGULAR, range_multiplier=5) is band


def test_beyond_long_range_cannot_be_shot_p17() -> None:
    with pytest.raises(RuleError) as refused:
        range_band(distance_inches=61, quality=Quality.REGULAR, range_multiplier=5)
    assert refused.value.code == "fire.out_of_range"
    with pytest.raises(RuleError) as refused:
        range_band(distance_inches=-1, quality=Quality.REGULAR, range_multiplier=5)
    assert refused.value.code == "fire.invalid"


def test_base_range_band_option_close_range_reading_p18() -> None:
    """Option fire_base_range_band = close_range: the +2 covers the whole of close range."""
    read = {
        d: range_band(
            distance_inches=d,
            quality=Quality.REGULAR,
            range_multiplier=5,
            fire_base_range_band=BaseRangeBand.CLOSE_RANGE,
        )
        for d in (4, 20, 21)
    }
    assert read == {4: RangeBand.BASE, 20: RangeBand.BASE, 21: RangeBand.MEDIUM}
    assert [b.modifier for b in RangeBand] == [2, 0, -2, -4]


# --- Fire Effect ---------------------------------------------------------------


def test_fire_effect_keeps_the_best_die_and_adds_the_modifiers_p18() -> None:
    """p.18: 2d6 keep the highest (5 of 5, 3); Regular +1, 7 riflemen +2 (full threes), one SAW
    +2 (counted once by default): 10."""
    rolled = fire_effect(dice=TableDice([5, 3]), shooter=REGULAR_SQUAD, band=RangeBand.CLOSE)
    assert (rolled.dice, rolled.best, rolled.total) == ((5, 3), 5, 10)
    assert rolled.modifiers == (("shooter regular", 1), ("riflemen", 2), ("SAWs", 2))
    assert [r.purpose for r in rolled.rolls] == ["Fire Effect die 1 of 2", "Fire Effect die 2 of 2"]


def test_every_infantry_modifier_p18() -> None:
    """p.18, all at once: base range +2, Elite +2, shooter Under Fire -3, target marked -1,
    Bunched Up +2, Non-Combatant +2, Rabble in open +1, concealed sniper -2, 3 riflemen +1, a
    SAW counted twice under fire_saw_double_count +4, rifle grenades +1, flamethrower +1d6 (4),
    traits +1. An individual rolls one die (6)."""
    shooter = Shooter(
        quality=Quality.ELITE,
        squad=False,
        riflemen=3,
        saws=1,
        support=(Weapon.RIFLE_GRENADES, Weapon.FLAMETHROWER),
        under_fire_or_broken=True,
        other_modifier=1,
    )
    target = TargetConditions(
        marked=True, bunched_up=True, non_combatant=True, rabble_in_open=True, concealed_sniper=True
    )
    rolled = fire_effect(
        dice=TableDice([6, 4]),
        shooter=shooter,
        band=RangeBand.BASE,
        target=target,
        fire_saw_double_count=True,
    )
    assert rolled.dice == (6,)
    assert rolled.support_dice == (4,)
    assert dict(rolled.modifiers) == {
        "base range": 2,
        "shooter elite": 2,
        "shooter Under Fire or Broken": -3,
        "target Under Fire or Pinned": -1,
        "target Bunched Up": 2,
        "target Non-Combatant": 2,
        "target Rabble in open terrain": 1,
        "target concealed sniper": -2,
        "riflemen": 1,
        "SAWs": 4,
        "rifle grenades": 1,
        "flamethrower": 4,
        "traits and other modifiers": 1,
    }
    assert rolled.total == 6 + 14


def test_fire_effect_at_a_vehicle_keeps_only_range_quality_and_weapons_p19() -> None:
    """p.19: at a vehicle no target modifiers and no riflemen; a vehicle's heavy MG (1d6) adds
    its Fire Effect +2; a vehicle shooter is not penalised for Under Fire (* infantry only);
    medium range -2."""
    shooter = Shooter(
        quality=Quality.CONSCRIPT,
        squad=False,
        infantry=False,
        riflemen=6,
        heavy=Weapon.HEAVY_MG,
        under_fire_or_broken=True,
    )
    rolled = fire_effect(
        dice=TableDice([3]),
        shooter=shooter,
        band=RangeBand.MEDIUM,
        target=TargetConditions(marked=True, bunched_up=True),
        target_vehicle=True,
    )
    assert rolled.modifiers == (("medium range", -2), ("heavy mg", 2))
    assert rolled.total == 3


def test_beam_weapons_take_no_range_modifier_p69() -> None:
    shooter = Shooter(quality=Quality.REGULAR, squad=False, infantry=False, heavy=Weapon.BEAM_HEAVY)
    rolled = fire_effect(dice=TableDice([4]), shooter=shooter, band=RangeBand.LONG)
    assert rolled.total == 5


def test_a_vehicle_shooting_at_infantry_counts_no_riflemen_p18() -> None:
    """'Shooter every 3 riflemen' applies only to infantry units (p.18 *)."""
    shooter = Shooter(quality=Quality.RABBLE, squad=False, infantry=False, riflemen=9)
    assert fire_effect(dice=TableDice([2]), shooter=shooter, band=RangeBand.CLOSE).total == 2


def test_exact_fire_effect_and_hits_distribution_of_rifle_squad_1() -> None:
    """Best of 2d6 shows k with probability (2k-1)/36. Rifle Squad 1 adds +5 at close range:
    Fire Effect 6..11, hits against an unconcealed target floor(FE/3): 2 for FE 6-8 (k 1-3,
    9/36), 3 for FE 9-11 (k 4-6, 27/36)."""
    hits: Counter[int] = Counter()
    for roll in faces(2):
        total = fire_effect(dice=TableDice(roll), shooter=REGULAR_SQUAD, band=RangeBand.CLOSE).total
        hits[hits_from_effect(total, Concealment.NOT_CONCEALED)] += 1
    assert {h: Fraction(n, 36) for h, n in hits.items()} == {
        2: Fraction(9, 36),
        3: Fraction(27, 36),
    }


def test_hits_per_points_by_concealment_p18() -> None:
    """3, 4 or 5 Fire Effect points a hit; nothing below 0."""
    assert [hits_from_effect(12, c) for c in Concealment] == [4, 3, 2]
    assert hits_from_effect(-3, "not_concealed") == 0


@given(st.integers(min_value=-10, max_value=40))
def test_more_concealment_never_gives_more_hits(effect: int) -> None:
    counts = [hits_from_effect(effect, c) for c in Concealment]
    assert counts == sorted(counts, reverse=True)


# --- markers ---------------------------------------------------------------


def test_pinning_levels_p24() -> None:
    """Rabble 10, Conscript 12, Regular 14, Elite 16; power armour +2."""
    assert [pinning_level(q) for q in Quality] == [10, 12, 14, 16]
    assert pinning_level(Quality.ELITE, power_armour=True) == 18


@pytest.mark.parametrize(
    ("effect", "power", "expected"),
    [
        (12, False, Marker.UNDER_FIRE),
        (13, False, Marker.PINNED),
        (14, True, Marker.UNDER_FIRE),
        (15, True, Marker.PINNED),
    ],
)
def test_pinned_only_when_the_fire_effect_exceeds_the_level_p24(effect, power, expected) -> None:
    """p.24 'exceeds': a Conscript squad is Pinned at 13, not 12 (14/15 in power armour)."""
    assert (
        marker_from_fire(effect=effect, quality=Quality.CONSCRIPT, power_armour=power) is expected
    )


def test_heavy_blast_weapons_always_pin_and_vehicles_never_are_p24_p69() -> None:
    """p.69 **: Medium/Heavy Cannon and Heavy Mortar pin whatever the effect; p.24: vehicles are
    never pinned."""
    assert marker_from_fire(effect=0, quality=Quality.ELITE, pinning_weapon=True) is Marker.PINNED
    assert marker_from_fire(effect=30, quality=Quality.RABBLE, vehicle=True) is Marker.UNDER_FIRE


def test_exact_pin_probability_of_rifle_squad_1_at_a_bunched_up_conscript_squad() -> None:
    """+7 (Regular, riflemen, SAW, Bunched Up): pinned only when the best die is 6 (13 > 12),
    11/36; at 12 the squad is only Under Fire."""
    target = TargetConditions(bunched_up=True)
    pinned = sum(
        marker_from_fire(
            effect=fire_effect(
                dice=TableDice(roll), shooter=REGULAR_SQUAD, band=RangeBand.CLOSE, target=target
            ).total,
            quality=Quality.CONSCRIPT,
        )
        is Marker.PINNED
        for roll in faces(2)
    )
    assert Fraction(pinned, 36) == Fraction(11, 36)


def test_crossfire_pinning_test_p24() -> None:
    """p.24 Crossfire: d6 equal to or above the Quality Level stays Under Fire; a Regular (3+) is
    pinned on 1-2: 2/6."""
    results = [crossfire_pinning_test(dice=TableDice([f]), quality=Quality.REGULAR) for f in FACES]
    assert [r.pinned for r in results] == [True, True, False, False, False, False]
    assert results[0].die == 1
    assert len(results[0].rolls) == 1


# --- allocation and damage ---------------------------------------------------------------

H, W, S, D = MedicalState.HEALTHY, MedicalState.WOUNDED, MedicalState.STABILISED, MedicalState.DEAD


def test_hits_go_to_the_closest_figures_p18() -> None:
    """'if three hits are scored, the three closest enemy figures receive those hits'. The dead
    are off the table; a wounded figure can be hit again (default) or skipped."""
    figures = [
        TargetFigure("a", D),
        TargetFigure("b", W),
        TargetFigure("c"),
        TargetFigure("d", S),
        TargetFigure("e"),
    ]
    assert [f.figure_id for f in allocate_hits(hits=3, figures=figures)] == ["b", "c", "d"]
    skip = allocate_hits(hits=3, figures=figures, fire_allocation_includes_wounded=False)
    assert [f.figure_id for f in skip] == ["c", "e"]
    assert allocate_hits(hits=0, figures=figures) == ()
    with pytest.raises(RuleError):
        allocate_hits(hits=-1, figures=figures)


@given(
    st.integers(min_value=0, max_value=12),
    st.lists(st.sampled_from([H, W, S, D]), max_size=10),
    st.booleans(),
)
def test_allocation_takes_at_most_one_hit_per_figure_in_order(hits, states, wounded) -> None:
    figures = [TargetFigure(str(i), s) for i, s in enumerate(states)]
    taken = allocate_hits(hits=hits, figures=figures, fire_allocation_includes_wounded=wounded)
    assert len(taken) <= hits
    assert [int(f.figure_id) for f in taken] == sorted(int(f.figure_id) for f in taken)
    assert all(f.state is not D for f in taken)


def test_small_squads_take_minus_one_on_damage_p19() -> None:
    assert [small_squad_penalty(n) for n in (1, 2, 3, 8)] == [-1, -1, 0, 0]


def test_determine_damage_basic_and_with_recover_wounded_p19_p35() -> None:
    """Assault rifles +2 against no armour (-2): 2+2 against 4-2 is two ahead: removed in the
    basic game (p.19), wounded with Recover Wounded (p.35); a wounded figure wounded again dies."""
    figure = TargetFigure("pike", H, Armour.NONE.rating)
    basic = determine_damage(
        dice=TableDice([2, 4]), figures_hit=[figure], damage_rating=2, adv_recover_wounded=False
    )
    assert basic[0].effect is DamageEffect.KILLED
    (wounding,) = determine_damage(dice=TableDice([2, 4]), figures_hit=[figure], damage_rating=2)
    assert (wounding.attacker_score, wounding.defender_score) == (4, 2)
    assert wounding.effect is DamageEffect.WOUNDED
    (again,) = determine_damage(
        dice=TableDice([2, 4]), figures_hit=[TargetFigure("pike", W, -2)], damage_rating=2
    )
    assert again.effect is DamageEffect.KILLED
    (small,) = determine_damage(
        dice=TableDice([1, 6]), figures_hit=[figure], damage_rating=2, damage_modifier=-1
    )
    assert small.attacker_score == 2
    assert small.effect is DamageEffect.NO_EFFECT
    (named,) = determine_damage(
        dice=TableDice([6, 1]), figures_hit=[TargetFigure("x1", H, 0, "Pike")], damage_rating=2
    )
    assert [r.purpose for r in named.rolls] == [
        "damage roll for the hit on Pike",
        "armour roll for Pike",
    ]


def test_exact_damage_probabilities_assault_rifles_against_no_armour_p19_p35() -> None:
    """margin = a - d + 4. Kill (>= 3): d - a <= 1, 26/36; wound (0-2): d - a in 2..4, 9/36; no
    effect: d - a = 5, 1/36. The basic game removes on 35/36."""
    for recover, expected in (
        (True, {DamageEffect.KILLED: 26, DamageEffect.WOUNDED: 9, DamageEffect.NO_EFFECT: 1}),
        (False, {DamageEffect.KILLED: 35, DamageEffect.NO_EFFECT: 1}),
    ):
        counts = Counter(
            determine_damage(
                dice=TableDice(roll),
                figures_hit=[TargetFigure("x", H, -2)],
                damage_rating=2,
                adv_recover_wounded=recover,
            )[0].effect
            for roll in faces(2)
        )
        assert counts == expected


def test_squad_based_damage_book_example_p19() -> None:
    """p.19: four hits, attacker 5 against defender 6: one saved, three unsaved; with Recover
    Wounded two wounded and one killed. The saved hit is the last in the order."""
    figures = [TargetFigure(n, H, 2) for n in "abcd"]
    rolled = squad_based_damage(
        dice=TableDice([3, 4]), figures_hit=figures, damage_rating=2, armour_rating=2
    )
    assert (rolled.attacker_score, rolled.defender_score, rolled.saved) == (5, 6, 1)
    assert [(f.figure_id, f.effect) for f in rolled.figures] == [
        ("a", DamageEffect.WOUNDED),
        ("b", DamageEffect.WOUNDED),
        ("c", DamageEffect.KILLED),
    ]
    basic = squad_based_damage(
        dice=TableDice([3, 4]),
        figures_hit=[TargetFigure("a", W, 2), *figures[1:]],
        damage_rating=2,
        armour_rating=2,
        adv_recover_wounded=False,
    )
    assert [f.effect for f in basic.figures] == [DamageEffect.KILLED] * 3
    assert basic.figures[0].state_before is W


# --- vehicles ---------------------------------------------------------------


def test_penetration_bands_p20() -> None:
    """Less: no effect; equal or 1-2 ahead: one damage roll; 3 or more: two."""
    results = [penetration(dice=TableDice([a, 4]), anti_tank=2, armour=2).result for a in (3, 4, 6)]
    assert results == [
        PenetrationResult.NO_EFFECT,
        PenetrationResult.PENETRATED,
        PenetrationResult.PENETRATED,
    ]
    assert (
        penetration(dice=TableDice([6, 1]), anti_tank=5, armour=5).result
        is PenetrationResult.PENETRATED_TWICE
    )
    assert [r.damage_rolls for r in PenetrationResult] == [0, 1, 2]


def test_exact_penetration_probabilities_with_and_without_reactive_armour_p20_p43() -> None:
    """AT +2 against armour 0, margin a - d + 2: no effect when d - a >= 3 (6/36), twice when
    a - d >= 1 (15/36), once otherwise (15/36). Reactive Armour (2d6 keep the highest): no
    effect when max - a >= 3: (7*1 + 9*2 + 11*3) / 216 = 58/216."""
    plain = Counter(penetration(dice=TableDice(r), anti_tank=2, armour=0).result for r in faces(2))
    assert plain == {
        PenetrationResult.NO_EFFECT: 6,
        PenetrationResult.PENETRATED: 15,
        PenetrationResult.PENETRATED_TWICE: 15,
    }
    reactive = Counter(
        penetration(dice=TableDice(r), anti_tank=2, armour=0, reactive_armour=True).result
        for r in faces(3)
    )
    assert Fraction(reactive[PenetrationResult.NO_EFFECT], 216) == Fraction(58, 216)


def test_vehicle_damage_table_p20() -> None:
    """1-2 crew killed, 3-4 immobilised, 5 weapon inoperable, 6 destroyed."""
    tank = VehicleCondition(crew=4, operable_weapons=2)
    assert [vehicle_damage_effect(f, tank) for f in FACES] == [
        VehicleDamageEffect.CREW_KILLED,
        VehicleDamageEffect.CREW_KILLED,
        VehicleDamageEffect.IMMOBILISED,
        VehicleDamageEffect.IMMOBILISED,
        VehicleDamageEffect.WEAPON_INOPERABLE,
        VehicleDamageEffect.DESTROYED,
    ]


def test_vehicle_damage_special_cases_p20() -> None:
    """A light transport that moved loses its driver and crashes; one that did not just loses
    him; a flyer immobilised crashes; results that cannot apply are misses."""
    moved = VehicleCondition(light_transport=True, moved_last_activation=True)
    assert vehicle_damage_effect(1, moved) is VehicleDamageEffect.DESTROYED
    assert (
        vehicle_damage_effect(1, VehicleCondition(light_transport=True))
        is VehicleDamageEffect.CREW_KILLED
    )
    assert vehicle_damage_effect(3, VehicleCondition(flyer=True)) is VehicleDamageEffect.DESTROYED
    drone = VehicleCondition(crew=0, operable_weapons=0, immobilised=True)
    assert [vehicle_damage_effect(f, drone) for f in (1, 3, 5, 6)] == [
        VehicleDamageEffect.NONE,
        VehicleDamageEffect.NONE,
        VehicleDamageEffect.NONE,
        VehicleDamageEffect.DESTROYED,
    ]


def test_rolling_twice_keeps_the_worst_for_the_vehicle_and_exact_odds_p20() -> None:
    """Two rolls, the attacker chooses: destroyed with probability 1 - (5/6)^2 = 11/36; no roll
    without penetration."""
    vehicle = VehicleCondition(crew=3)
    kept = vehicle_damage(
        dice=TableDice([1, 5]), result=PenetrationResult.PENETRATED_TWICE, vehicle=vehicle
    )
    assert (kept.faces, kept.effect) == ((1, 5), VehicleDamageEffect.WEAPON_INOPERABLE)
    none = vehicle_damage(dice=TableDice([]), result=PenetrationResult.NO_EFFECT, vehicle=vehicle)
    assert (none.rolls, none.effect) == ((), VehicleDamageEffect.NONE)
    destroyed = sum(
        vehicle_damage(
            dice=TableDice(r), result=PenetrationResult.PENETRATED_TWICE, vehicle=vehicle
        ).effect
        is VehicleDamageEffect.DESTROYED
        for r in faces(2)
    )
    assert Fraction(destroyed, 36) == Fraction(11, 36)


def test_passengers_of_a_destroyed_vehicle_p21() -> None:
    """p.21: basic 4+ killed (1/2); Recover Wounded 3-4 wounded, 5+ killed; in power armour 5
    wounded, 6 killed."""

    def effects(recover: bool, power: bool) -> list[DamageEffect]:
        return [
            destroyed_vehicle_passengers(
                dice=TableDice([f]), passengers=[("p", power)], adv_recover_wounded=recover
            )[0].effect
            for f in FACES
        ]

    n, w, k = DamageEffect.NO_EFFECT, DamageEffect.WOUNDED, DamageEffect.KILLED
    assert effects(False, True) == [n, n, n, k, k, k]
    assert effects(True, False) == [n, n, w, w, k, k]
    assert effects(True, True) == [n, n, n, n, w, k]


# --- blast ---------------------------------------------------------------


def test_ranging_in_lands_on_five_or_six_p21() -> None:
    assert [ranging_in(dice=TableDice([f])).on_target for f in FACES] == [False] * 4 + [True] * 2


def test_strike_effect_adds_the_dice_and_its_modifiers_p21() -> None:
    """2d6 ADDED: 4 + 5 = 9; Under Fire -1, Rabble in open +1, Bunched Up +2, Non-Combatant +2."""
    plain = strike_effect(dice=TableDice([4, 5]))
    assert (plain.total, plain.modifiers) == (9, ())
    every = strike_effect(
        dice=TableDice([4, 5]),
        target_under_fire=True,
        rabble_in_open=True,
        bunched_up=True,
        non_combatant=True,
    )
    assert every.total == 13
    at_least_nine = sum(strike_effect(dice=TableDice(r)).total >= 9 for r in faces(2))
    assert Fraction(at_least_nine, 36) == Fraction(10, 36)
