"""Fast and Dirty close assault: on infantry (FaD p.22) and on a vehicle (p.23).

An infantry assault is resolved in one go, with no further rounds (p.22): the defenders' free
shot at the chargers (defensive fire, no markers), one Determine Victor roll a side, the Kill
Table dice of both sides (or, on an Overrun, the loser's alone), power armour's negation of kills,
and the fall back of the loser (6") or of both squads on a draw (3"). The defensive fire is the
Shooting at Infantry procedure of p.18-19 for one shot, with the modifiers already summed by the
players; the shooting module is not used, so that the assault owns every die it rolls.

A vehicle assault (p.23) is the Nerves of Steel test for an armoured target, one attack die per
figure in base contact against one defence die plus the vehicle's weakest armour, and a roll on
the Vehicle Assault Damage table for each attack die that reaches the defence.

Casualties from the Kill Table are killed unless option ``assault_casualties_are_kills`` is off
and Recover Wounded (option ``adv_recover_wounded``) is in play, when they are wounded: the book
splits wounds from kills only for Determine Damage (p.35), which the defensive fire uses.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from rules.dice import DiceSource, Die, Roll
from rules.errors import RuleError
from rules.fad.options import OverrunEdge
from rules.fad.scales import Quality
from rules.fad.wounded import DamageEffect, wound_or_kill

# Infantry Assault Modifiers, FaD p.22 (and the weapons' notes, p.69).
CHARGING_BONUS = 1
BETTER_ARMOUR_BONUS = 1
QUALITY_LEVEL_BONUS = 2
POWER_ARMOUR_BONUS = 3
ASSAULT_SHOTGUN_BONUS = 1
FLAMETHROWER_BONUS = 2
DEFAULT_NO_GRENADES_PENALTY = -2

# Kill Table, FaD p.22: the d6 each figure rolls must reach this to remove an enemy figure.
OVERRUN_KILL_NUMBER = 6
# Power armour negates a close-assault kill on this or more (p.22, p.33).
POWER_ARMOUR_NEGATES_AT = 5
# Falling back after the assault, in inches (p.22).
LOSER_FALLS_BACK = 6
DRAW_FALLS_BACK = 3
# A Legend always counts as rolling a 6 (p.40).
LEGEND_FACE = 6
# Points of Fire Effect per hit, by the target's cover (p.18).
POINTS_PER_HIT = {"open": 3, "partial": 4, "hard": 5}


class AssaultTrait(enum.StrEnum):
    """Traits and personalities that change a close assault (FaD p.33, p.39-41)."""

    ASSAULT_TROOPS = "assault_troops"  # +2 to all close assaults (p.39)
    BERSERK = "berserk"  # +2 to their close assault (p.39)
    SHOCK_TROOPS = "shock_troops"  # +1 to all close assaults (p.41)
    BUG_HUNTER = "bug_hunter"  # +1 when fighting an alien race (p.39)
    KNIFE_FIGHTER = "knife_fighter"  # +1 in infantry close assaults (p.33)
    TANK_HUNTER = "tank_hunter"  # +2 close assaulting vehicles, +1 Nerves of Steel (p.41)

    @property
    def infantry_bonus(self) -> int:
        return {
            AssaultTrait.ASSAULT_TROOPS: 2,
            AssaultTrait.BERSERK: 2,
            AssaultTrait.SHOCK_TROOPS: 1,
            AssaultTrait.BUG_HUNTER: 1,
            AssaultTrait.KNIFE_FIGHTER: 1,
            AssaultTrait.TANK_HUNTER: 0,
        }[self]

    @property
    def vehicle_bonus(self) -> int:
        return {
            AssaultTrait.ASSAULT_TROOPS: 2,
            AssaultTrait.BERSERK: 2,
            AssaultTrait.SHOCK_TROOPS: 1,
            AssaultTrait.BUG_HUNTER: 1,
            AssaultTrait.KNIFE_FIGHTER: 0,
            AssaultTrait.TANK_HUNTER: 2,
        }[self]


class AssaultResult(enum.StrEnum):
    """Who won the Determine Victor roll (p.22); ``no_contest`` when defensive fire downed every
    charging figure before it reached the enemy."""

    ATTACKER_WON = "attacker_won"
    DEFENDER_WON = "defender_won"
    DRAW = "draw"
    NO_CONTEST = "no_contest"


class AssaultSide(enum.StrEnum):
    ATTACKER = "attacker"
    DEFENDER = "defender"

    @property
    def other(self) -> AssaultSide:
        return AssaultSide.DEFENDER if self is AssaultSide.ATTACKER else AssaultSide.ATTACKER


def _count(name: str, value: object, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError("close_assault.refused", f"{name} must be a whole number, not {value!r}.")
    if value < minimum:
        raise RuleError("close_assault.refused", f"{name} must be at least {minimum}; got {value}.")
    return value


@dataclass(frozen=True, slots=True)
class Squad:
    """One side of an infantry close assault, as it stands when the assault is declared.

    ``fighting``: figures in base contact with the enemy or in its line of sight, the only ones
    counted for outnumbering and rolling on the Kill Table (p.22). ``strength``: the squad's
    figures still able to fight, the fighting ones included (an Overrun wipes them all out).
    ``armour``: the armour rating (p.19: none -2, light 0, ... heavy power +6).
    ``individual``: a lone figure rolls 1d6 to Determine Victor instead of a squad's 2d6.
    ``other_modifier``: psionic Enhance (+2) or Degrade (-2) on this squad (p.34).
    """

    fighting: int
    quality: Quality
    strength: int | None = None
    armour: int = 0
    individual: bool = False
    power_armour: bool = False
    lacks_grenades: bool = False
    assault_shotguns: int = 0
    flamethrowers: int = 0
    traits: frozenset[AssaultTrait] = frozenset()
    officer_leadership: int = 0
    other_modifier: int = 0
    legend: bool = False
    brawlers: int = 0

    def __post_init__(self) -> None:
        _count("The number of figures fighting", self.fighting, minimum=1)
        if self.strength is not None:
            _count("The squad's strength", self.strength, minimum=self.fighting)
        for name, value in (
            ("Assault shotguns", self.assault_shotguns),
            ("Flamethrowers", self.flamethrowers),
            ("An officer's leadership", self.officer_leadership),
            ("Brawlers", self.brawlers),
        ):
            _count(name, value)
        _count("The armour rating", self.armour, minimum=-2)
        if self.brawlers > self.fighting:
            raise RuleError(
                "close_assault.refused",
                f"{self.brawlers} Brawlers cannot fight among {self.fighting} figures.",
            )

    @property
    def size(self) -> int:
        return self.fighting if self.strength is None else self.strength

    @property
    def kill_dice_per_figure(self) -> int:
        """Power armour rolls twice on the Kill Table (p.22)."""
        return 2 if self.power_armour else 1


@dataclass(frozen=True, slots=True)
class DefensiveFire:
    """The defenders' free shot at the chargers (p.22), as Shooting at Infantry (p.18-19).

    ``dice``: 2 for a squad (best of two), 1 for an individual figure or vehicle weapon.
    ``modifier``: every fixed Fire Effect modifier of p.18 summed, range measured from where the
    chargers started. ``support_d6``: support weapons whose Fire Effect is +1d6 (Flamethrower,
    Grenade Launcher, p.69), each rolled and added. ``cover``: the chargers' concealment (open 3,
    partial 4, hard cover 5 points per hit). ``damage``: the highest Damage rating among the
    weapons firing (p.19).
    """

    modifier: int = 0
    damage: int = 0
    cover: str = "open"
    dice: int = 2
    support_d6: int = 0

    def __post_init__(self) -> None:
        _count("Support weapons rolling a d6", self.support_d6)
        if self.dice not in (1, 2):
            raise RuleError(
                "close_assault.refused", "Defensive fire rolls 2d6 for a squad or 1d6 for one."
            )
        if self.cover not in POINTS_PER_HIT:
            raise RuleError(
                "close_assault.refused",
                f"Cover is open, partial or hard, not {self.cover!r}.",
            )


@dataclass(frozen=True, slots=True)
class DefensiveHit:
    """One hit of the defensive fire on the charging figure at ``position`` (closest first)."""

    position: int
    attack: int
    defence: int
    effect: DamageEffect


@dataclass(frozen=True, slots=True)
class DefensiveFireOutcome:
    faces: tuple[int, ...]
    support_faces: tuple[int, ...]
    fire_effect: int
    hits: int
    results: tuple[DefensiveHit, ...]
    rolls: tuple[Roll, ...]

    @property
    def downed(self) -> tuple[int, ...]:
        """Positions of the charging figures wounded or killed."""
        return tuple(
            hit.position for hit in self.results if hit.effect is not DamageEffect.NO_EFFECT
        )


def defensive_fire(
    *,
    dice: DiceSource,
    fire: DefensiveFire,
    target_figures: int,
    target_armour: int,
    adv_recover_wounded: bool = True,
) -> DefensiveFireOutcome:
    """The defenders' free shot at the assaulting squad (FaD p.22, p.18-19, p.35).

    Fire Effect = the best of ``fire.dice`` d6 + ``fire.modifier`` + a d6 per ``fire.support_d6``;
    hits = Fire Effect divided by
    the points per hit of the chargers' cover, rounded down; each hit goes to the next closest
    charging figure (p.18, one hit each; hits beyond the squad's figures are lost). Per hit the
    attacker rolls d6 + Damage and the target d6 + armour: below 0 no effect, 0-2 wounded with
    Recover Wounded (killed without it), 3+ killed (p.19, p.35). No Under Fire or Pinned marker is
    placed (p.22). Rolls ``fire.dice`` d6, the support weapons' d6, then two d6 per hit
    (attacker's, then target's).
    """
    _count("The charging figures", target_figures, minimum=1)
    rolls = [dice.roll(Die.D6, "defensive fire: Fire Effect") for _ in range(fire.dice)]
    faces = tuple(roll.result for roll in rolls)
    support = [
        dice.roll(Die.D6, "defensive fire: support weapon's Fire Effect")
        for _ in range(fire.support_d6)
    ]
    rolls += support
    effect = max(faces) + fire.modifier + sum(roll.result for roll in support)
    hits = max(0, effect) // POINTS_PER_HIT[fire.cover]
    results = []
    for position in range(min(hits, target_figures)):
        attack = dice.roll(Die.D6, "defensive fire: damage")
        defence = dice.roll(Die.D6, "defensive fire: armour")
        rolls += [attack, defence]
        outcome = wound_or_kill(
            attacker_score=attack.result + fire.damage,
            defender_score=defence.result + target_armour,
            adv_recover_wounded=adv_recover_wounded,
        )
        results.append(
            DefensiveHit(
                position=position,
                attack=attack.result,
                defence=defence.result,
                effect=outcome.effect,
            )
        )
    return DefensiveFireOutcome(
        faces=faces,
        support_faces=tuple(roll.result for roll in support),
        fire_effect=effect,
        hits=hits,
        results=tuple(results),
        rolls=tuple(rolls),
    )


def infantry_assault_modifiers(
    squad: Squad,
    enemy: Squad,
    *,
    charging: bool,
    assault_no_grenades_penalty: int = DEFAULT_NO_GRENADES_PENALTY,
) -> tuple[tuple[str, int], ...]:
    """The Infantry Assault Modifiers that apply to ``squad`` against ``enemy`` (FaD p.22).

    Lacks grenades (option ``assault_no_grenades_penalty``: -2 in the tables, -1 in the No
    Grenades limitation of p.11), charging +1, better armour +1, +1 per figure more than the enemy
    has fighting, +2 per level of quality above the enemy's, power armour +3, +1 per assault
    shotgun and +2 per flamethrower (p.69), the traits' and personalities' bonuses, an attached
    officer's Leadership Rating (p.32), psionics. Only those that apply are listed.
    """
    found: list[tuple[str, int]] = []
    if squad.lacks_grenades:
        found.append(("lacks grenades", assault_no_grenades_penalty))
    if charging:
        found.append(("charging", CHARGING_BONUS))
    if squad.armour > enemy.armour:
        found.append(("better armour", BETTER_ARMOUR_BONUS))
    if squad.fighting > enemy.fighting:
        found.append(("outnumbering", squad.fighting - enemy.fighting))
    if squad.quality > enemy.quality:
        found.append(("higher quality", QUALITY_LEVEL_BONUS * (squad.quality - enemy.quality)))
    if squad.power_armour:
        found.append(("power armour", POWER_ARMOUR_BONUS))
    if squad.assault_shotguns:
        found.append(("assault shotguns", ASSAULT_SHOTGUN_BONUS * squad.assault_shotguns))
    if squad.flamethrowers:
        found.append(("flamethrowers", FLAMETHROWER_BONUS * squad.flamethrowers))
    for trait in sorted(squad.traits):
        if trait.infantry_bonus:
            found.append((trait.value.replace("_", " "), trait.infantry_bonus))
    if squad.officer_leadership:
        found.append(("officer", squad.officer_leadership))
    if squad.other_modifier:
        found.append(("psionics", squad.other_modifier))
    return tuple(found)


@dataclass(frozen=True, slots=True)
class VictorRoll:
    """One side's Determine Victor roll: its dice (none for a Legend), best face, modifiers."""

    faces: tuple[int, ...]
    best: int
    modifiers: tuple[tuple[str, int], ...]
    total: int
    rolls: tuple[Roll, ...]


def _victor_roll(
    dice: DiceSource, squad: Squad, modifiers: tuple[tuple[str, int], ...], side: AssaultSide
) -> VictorRoll:
    if squad.legend:
        rolls: list[Roll] = []
        best = LEGEND_FACE
    else:
        rolls = [
            dice.roll(Die.D6, f"close assault: {side.value}'s roll")
            for _ in range(1 if squad.individual else 2)
        ]
        best = max(roll.result for roll in rolls)
    total = best + sum(value for _, value in modifiers)
    return VictorRoll(
        faces=tuple(roll.result for roll in rolls),
        best=best,
        modifiers=modifiers,
        total=total,
        rolls=tuple(rolls),
    )


def overruns(winner_total: int, loser_total: int, *, assault_overrun_edge: OverrunEdge) -> bool:
    """Whether the side scoring ``winner_total`` overruns the side scoring ``loser_total`` (p.22).

    The book: "If either side scores twice or more the total of the other, an Overrun occurs."
    Totals can be 0 or less, where "twice" no longer means "far ahead". Option
    ``assault_overrun_edge`` (a gap): ``ahead_and_double`` (default) needs the winner strictly
    ahead as well; ``double_only`` reads the words alone, so a draw at 0 or less is an Overrun of
    both squads by each other.
    """
    double = winner_total >= 2 * loser_total
    if OverrunEdge(assault_overrun_edge) is OverrunEdge.DOUBLE_ONLY:
        return double
    return double and winner_total > loser_total


@dataclass(frozen=True, slots=True)
class KillRolls:
    """One side's Kill Table dice and the enemy's power-armour rolls against its kills."""

    kill_number: int
    faces: tuple[int, ...]
    kills: int
    negation_faces: tuple[int, ...]
    casualties: int
    rolls: tuple[Roll, ...]


def _kill_rolls(
    dice: DiceSource,
    squad: Squad,
    enemy: Squad,
    enemy_strength: int,
    kill_number: int,
    side: AssaultSide,
) -> KillRolls:
    count = squad.fighting * squad.kill_dice_per_figure + squad.brawlers
    rolls = [dice.roll(Die.D6, f"close assault: {side.value}'s kill roll") for _ in range(count)]
    kills = sum(1 for roll in rolls if roll.result >= kill_number)
    negations: list[Roll] = []
    if enemy.power_armour:
        negations = [
            dice.roll(Die.D6, f"close assault: {side.other.value}'s power armour")
            for _ in range(kills)
        ]
    unsaved = kills - sum(1 for roll in negations if roll.result >= POWER_ARMOUR_NEGATES_AT)
    return KillRolls(
        kill_number=kill_number,
        faces=tuple(roll.result for roll in rolls),
        kills=kills,
        negation_faces=tuple(roll.result for roll in negations),
        casualties=min(unsaved, enemy_strength),
        rolls=tuple(rolls + negations),
    )


def kill_number(result: AssaultResult, side: AssaultSide) -> int:
    """The Kill Table (p.22): enemy killed on 3+ by the side that won, 4+ on a draw, 5+ lost."""
    if result is AssaultResult.DRAW:
        return 4
    won = (result is AssaultResult.ATTACKER_WON) == (side is AssaultSide.ATTACKER)
    return 3 if won else 5


@dataclass(frozen=True, slots=True)
class CloseAssaultOutcome:
    """A whole infantry close assault: defensive fire, the victor rolls, kills and fall back.

    ``casualties`` and ``fall_back`` are by side; the attacker's casualties do not include those
    of the defensive fire (see ``defensive_fire.downed``). ``overrun`` lists the sides wiped out.
    """

    defensive_fire: DefensiveFireOutcome | None
    attacker_fighting: int
    attacker_roll: VictorRoll | None
    defender_roll: VictorRoll | None
    result: AssaultResult
    overrun: tuple[AssaultSide, ...]
    kill_rolls: dict[AssaultSide, KillRolls]
    casualties: dict[AssaultSide, int]
    fall_back: dict[AssaultSide, int]
    rolls: tuple[Roll, ...] = field(default=())


def close_assault(
    *,
    dice: DiceSource,
    attacker: Squad,
    defender: Squad,
    fire: DefensiveFire | None = None,
    assault_no_grenades_penalty: int = DEFAULT_NO_GRENADES_PENALTY,
    assault_overrun_edge: OverrunEdge = OverrunEdge.AHEAD_AND_DOUBLE,
    adv_recover_wounded: bool = True,
) -> CloseAssaultOutcome:
    """An infantry close assault from declaration to fall back (FaD p.22).

    1. Defensive fire (``fire``; ``None`` when the defenders cannot shoot): see
       :func:`defensive_fire`. The attacker's figures are ordered closest first, the fighting ones
       first, so a charging figure downed by it no longer fights. If none is left, the assault
       ends there (``no_contest``).
    2. Determine Victor: each side rolls 2d6 (a lone figure 1d6; a Legend counts a 6 without
       rolling) and keeps the highest, plus :func:`infantry_assault_modifiers` (the attacker is
       charging). The higher total wins; equal totals are a draw.
    3. Overrun (:func:`overruns`): the loser is wiped out, whatever its strength; it still rolls
       its Kill Table dice, killing only on a 6, and the winner rolls none.
    4. Otherwise both sides roll 1d6 per fighting figure (two per power-armoured figure, one more
       per Brawler, p.33) on the Kill Table (:func:`kill_number`). A power-armoured squad negates
       each kill it suffers on a d6 5+. A squad cannot lose more figures than it has.
    5. The loser's survivors fall back 6"; on a draw both squads fall back 3".

    The book resolves the assault in one go: there are no further rounds. Dice: defensive fire,
    the attacker's victor dice, the defender's, then the kill dice of each side followed by the
    enemy's power-armour dice (attacker's first).
    """
    rolls: list[Roll] = []
    fired = None
    fighting = attacker.fighting
    attacker_size = attacker.size
    if fire is not None:
        fired = defensive_fire(
            dice=dice,
            fire=fire,
            target_figures=attacker_size,
            target_armour=attacker.armour,
            adv_recover_wounded=adv_recover_wounded,
        )
        rolls += fired.rolls
        downed = fired.downed
        fighting -= sum(1 for position in downed if position < attacker.fighting)
        attacker_size -= len(downed)
    no_fall_back = {AssaultSide.ATTACKER: 0, AssaultSide.DEFENDER: 0}
    if fighting == 0:
        return CloseAssaultOutcome(
            defensive_fire=fired,
            attacker_fighting=0,
            attacker_roll=None,
            defender_roll=None,
            result=AssaultResult.NO_CONTEST,
            overrun=(),
            kill_rolls={},
            casualties={AssaultSide.ATTACKER: 0, AssaultSide.DEFENDER: 0},
            fall_back=no_fall_back,
            rolls=tuple(rolls),
        )
    charging = Squad(
        fighting=fighting,
        strength=attacker_size,
        quality=attacker.quality,
        armour=attacker.armour,
        individual=attacker.individual,
        power_armour=attacker.power_armour,
        lacks_grenades=attacker.lacks_grenades,
        assault_shotguns=attacker.assault_shotguns,
        flamethrowers=attacker.flamethrowers,
        traits=attacker.traits,
        officer_leadership=attacker.officer_leadership,
        other_modifier=attacker.other_modifier,
        legend=attacker.legend,
        brawlers=min(attacker.brawlers, fighting),
    )
    sides = {AssaultSide.ATTACKER: charging, AssaultSide.DEFENDER: defender}
    victor = {
        side: _victor_roll(
            dice,
            squad,
            infantry_assault_modifiers(
                squad,
                sides[side.other],
                charging=side is AssaultSide.ATTACKER,
                assault_no_grenades_penalty=assault_no_grenades_penalty,
            ),
            side,
        )
        for side, squad in sides.items()
    }
    rolls += victor[AssaultSide.ATTACKER].rolls + victor[AssaultSide.DEFENDER].rolls
    attack_total = victor[AssaultSide.ATTACKER].total
    defence_total = victor[AssaultSide.DEFENDER].total
    if attack_total > defence_total:
        result = AssaultResult.ATTACKER_WON
    elif defence_total > attack_total:
        result = AssaultResult.DEFENDER_WON
    else:
        result = AssaultResult.DRAW
    overrun: tuple[AssaultSide, ...] = ()
    if result is AssaultResult.DRAW:
        if overruns(attack_total, defence_total, assault_overrun_edge=assault_overrun_edge):
            overrun = (AssaultSide.ATTACKER, AssaultSide.DEFENDER)
    else:
        winner = (
            AssaultSide.ATTACKER if result is AssaultResult.ATTACKER_WON else AssaultSide.DEFENDER
        )
        if overruns(
            victor[winner].total,
            victor[winner.other].total,
            assault_overrun_edge=assault_overrun_edge,
        ):
            overrun = (winner.other,)
    kill_rolls: dict[AssaultSide, KillRolls] = {}
    casualties = {side: squad.size for side, squad in sides.items() if side in overrun}
    if len(overrun) == 1:
        (loser,) = overrun
        kill_rolls[loser] = _kill_rolls(
            dice,
            sides[loser],
            sides[loser.other],
            sides[loser.other].size,
            OVERRUN_KILL_NUMBER,
            loser,
        )
        casualties[loser.other] = kill_rolls[loser].casualties
    elif not overrun:
        for side, squad in sides.items():
            kill_rolls[side] = _kill_rolls(
                dice,
                squad,
                sides[side.other],
                sides[side.other].size,
                kill_number(result, side),
                side,
            )
            casualties[side.other] = kill_rolls[side].casualties
    for side in AssaultSide:
        if side in kill_rolls:
            rolls += kill_rolls[side].rolls
    return CloseAssaultOutcome(
        defensive_fire=fired,
        attacker_fighting=fighting,
        attacker_roll=victor[AssaultSide.ATTACKER],
        defender_roll=victor[AssaultSide.DEFENDER],
        result=result,
        overrun=overrun,
        kill_rolls=kill_rolls,
        casualties={side: casualties.get(side, 0) for side in AssaultSide},
        fall_back=_fall_back(result, overrun, casualties, sides),
        rolls=tuple(rolls),
    )


def _fall_back(
    result: AssaultResult,
    overrun: tuple[AssaultSide, ...],
    casualties: dict[AssaultSide, int],
    sides: dict[AssaultSide, Squad],
) -> dict[AssaultSide, int]:
    """Inches each side's survivors fall back (p.22): none for a side with no survivors."""
    if result is AssaultResult.DRAW:
        back = dict.fromkeys(AssaultSide, DRAW_FALLS_BACK)
    else:
        loser = (
            AssaultSide.DEFENDER if result is AssaultResult.ATTACKER_WON else AssaultSide.ATTACKER
        )
        back = {loser: LOSER_FALLS_BACK, loser.other: 0}
    return {
        side: 0 if side in overrun or casualties.get(side, 0) >= sides[side].size else inches
        for side, inches in back.items()
    }


# --- assaulting a vehicle ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NervesOfSteel:
    face: int
    needed: int
    passed: bool
    rolls: tuple[Roll, ...]


def nerves_of_steel(
    *, dice: DiceSource, quality: Quality, tank_hunter: bool = False
) -> NervesOfSteel:
    """The test before charging an armoured vehicle (FaD p.23): d6 (+1 Tank Hunter, p.41) equal to
    or above the squad's Quality Level (Rabble 5+ ... Elite 2+). A squad that fails hesitates and
    its activation ends. One d6."""
    roll = dice.roll(Die.D6, "Nerves of Steel")
    needed = Quality(quality).target_number
    return NervesOfSteel(
        face=roll.result,
        needed=needed,
        passed=roll.result + (1 if tank_hunter else 0) >= needed,
        rolls=(roll,),
    )


class VehicleDamage(enum.StrEnum):
    """The Vehicle Assault Damage table (p.23), and what a result does to this vehicle."""

    CREW_KILLED = "crew_killed"
    DRIVER_KILLED_CRASHED = "driver_killed_crashed"
    IMMOBILISED = "immobilised"
    DESTROYED = "destroyed"
    NO_EFFECT = "no_effect"


@dataclass(frozen=True, slots=True)
class AssaultedVehicle:
    """The vehicle assaulted: its weakest armour rating, whether it is armoured at all, whether it
    is a light (unarmoured) transport and moved in its last activation, its crew still alive and
    whether it is already immobilised."""

    weakest_armour: int
    crew: int
    armoured: bool = True
    light_transport: bool = False
    moved_last_activation: bool = False
    immobilised: bool = False

    def __post_init__(self) -> None:
        _count("The weakest armour rating", self.weakest_armour)
        _count("The crew", self.crew)


@dataclass(frozen=True, slots=True)
class VehicleAssaulters:
    """The figures of the assaulting squad in base contact with the vehicle, and its modifiers
    (p.23 Vehicle Assault Modifiers: lacks grenades, traits, weapons; an officer, psionics)."""

    in_contact: int
    quality: Quality
    lacks_grenades: bool = False
    assault_shotguns: int = 0
    flamethrowers: int = 0
    traits: frozenset[AssaultTrait] = frozenset()
    officer_leadership: int = 0
    other_modifier: int = 0

    def __post_init__(self) -> None:
        _count("The figures in base contact", self.in_contact, minimum=1)
        for name, value in (
            ("Assault shotguns", self.assault_shotguns),
            ("Flamethrowers", self.flamethrowers),
            ("An officer's leadership", self.officer_leadership),
        ):
            _count(name, value)


def vehicle_assault_modifiers(
    squad: VehicleAssaulters, *, assault_no_grenades_penalty: int = DEFAULT_NO_GRENADES_PENALTY
) -> tuple[tuple[str, int], ...]:
    """Modifiers added to each attack die against a vehicle (p.23): lacks grenades (option
    ``assault_no_grenades_penalty``), the shotguns' and flamethrowers' bonus "to all close
    assaults" (p.69), Tank Hunter +2 and the other traits "to all close assaults", an officer and
    psionics."""
    found: list[tuple[str, int]] = []
    if squad.lacks_grenades:
        found.append(("lacks grenades", assault_no_grenades_penalty))
    if squad.assault_shotguns:
        found.append(("assault shotguns", ASSAULT_SHOTGUN_BONUS * squad.assault_shotguns))
    if squad.flamethrowers:
        found.append(("flamethrowers", FLAMETHROWER_BONUS * squad.flamethrowers))
    for trait in sorted(squad.traits):
        if trait.vehicle_bonus:
            found.append((trait.value.replace("_", " "), trait.vehicle_bonus))
    if squad.officer_leadership:
        found.append(("officer", squad.officer_leadership))
    if squad.other_modifier:
        found.append(("psionics", squad.other_modifier))
    return tuple(found)


@dataclass(frozen=True, slots=True)
class VehicleAssaultOutcome:
    """A close assault on a vehicle: the nerve test, the attack and defence dice, each damage
    result in order, and the vehicle after it."""

    nerves: NervesOfSteel | None
    attack_faces: tuple[int, ...]
    modifiers: tuple[tuple[str, int], ...]
    defence_face: int | None
    defence: int | None
    successes: int
    damage_faces: tuple[int, ...]
    damage: tuple[VehicleDamage, ...]
    crew_killed: int
    immobilised: bool
    destroyed: bool
    rolls: tuple[Roll, ...]

    @property
    def faltered(self) -> bool:
        return self.nerves is not None and not self.nerves.passed


def vehicle_damage(face: int, vehicle: AssaultedVehicle) -> VehicleDamage:
    """One roll on the Vehicle Assault Damage table (p.23): 1 one crewman killed (a light
    transport's driver: it crashes and is destroyed if it moved in its last activation), 2-5
    immobilised, 6 destroyed. A result that cannot apply (no crew left, already immobilised)
    has no effect, as on the Vehicle Damage table (p.20)."""
    if face == 6:
        return VehicleDamage.DESTROYED
    if face >= 2:
        return VehicleDamage.NO_EFFECT if vehicle.immobilised else VehicleDamage.IMMOBILISED
    if vehicle.crew == 0:
        return VehicleDamage.NO_EFFECT
    if vehicle.light_transport and vehicle.moved_last_activation:
        return VehicleDamage.DRIVER_KILLED_CRASHED
    return VehicleDamage.CREW_KILLED


def assault_vehicle(
    *,
    dice: DiceSource,
    squad: VehicleAssaulters,
    vehicle: AssaultedVehicle,
    assault_no_grenades_penalty: int = DEFAULT_NO_GRENADES_PENALTY,
) -> VehicleAssaultOutcome:
    """An infantry squad's close assault on a vehicle (FaD p.23).

    An armoured vehicle calls for :func:`nerves_of_steel` first (Tank Hunter +1); on a failure the
    assault falters and nothing else is rolled. Then the attacker rolls 1d6 per figure in base
    contact, each plus :func:`vehicle_assault_modifiers`, and the defender one d6 plus the
    vehicle's weakest armour; each attack result equal to or above the defence rolls once on
    the damage table (:func:`vehicle_damage`), in order, until the vehicle is destroyed (the
    later results could change nothing). Passengers cannot react; a destroyed vehicle's
    passengers are all killed (the caller's to apply). Dice: the nerve die, the attack dice, the
    defence die, then one d6 per damage roll.
    """
    rolls: list[Roll] = []
    nerves = None
    if vehicle.armoured:
        nerves = nerves_of_steel(
            dice=dice, quality=squad.quality, tank_hunter=AssaultTrait.TANK_HUNTER in squad.traits
        )
        rolls += nerves.rolls
        if not nerves.passed:
            return VehicleAssaultOutcome(
                nerves=nerves,
                attack_faces=(),
                modifiers=(),
                defence_face=None,
                defence=None,
                successes=0,
                damage_faces=(),
                damage=(),
                crew_killed=0,
                immobilised=vehicle.immobilised,
                destroyed=False,
                rolls=tuple(rolls),
            )
    modifiers = vehicle_assault_modifiers(
        squad, assault_no_grenades_penalty=assault_no_grenades_penalty
    )
    bonus = sum(value for _, value in modifiers)
    attacks = [dice.roll(Die.D6, "vehicle assault: attack") for _ in range(squad.in_contact)]
    defence_roll = dice.roll(Die.D6, "vehicle assault: defence")
    rolls += [*attacks, defence_roll]
    defence = defence_roll.result + vehicle.weakest_armour
    successes = sum(1 for roll in attacks if roll.result + bonus >= defence)
    state = vehicle
    damage_faces: list[int] = []
    damage: list[VehicleDamage] = []
    crew_killed = 0
    destroyed = False
    for _ in range(successes):
        roll = dice.roll(Die.D6, "vehicle assault: damage")
        rolls.append(roll)
        found = vehicle_damage(roll.result, state)
        damage_faces.append(roll.result)
        damage.append(found)
        if found in (VehicleDamage.CREW_KILLED, VehicleDamage.DRIVER_KILLED_CRASHED):
            crew_killed += 1
            state = AssaultedVehicle(
                weakest_armour=state.weakest_armour,
                crew=state.crew - 1,
                armoured=state.armoured,
                light_transport=state.light_transport,
                moved_last_activation=state.moved_last_activation,
                immobilised=state.immobilised,
            )
        if found is VehicleDamage.IMMOBILISED:
            state = AssaultedVehicle(
                weakest_armour=state.weakest_armour,
                crew=state.crew,
                armoured=state.armoured,
                light_transport=state.light_transport,
                moved_last_activation=state.moved_last_activation,
                immobilised=True,
            )
        if found in (VehicleDamage.DESTROYED, VehicleDamage.DRIVER_KILLED_CRASHED):
            destroyed = True
            break
    return VehicleAssaultOutcome(
        nerves=nerves,
        attack_faces=tuple(roll.result for roll in attacks),
        modifiers=modifiers,
        defence_face=defence_roll.result,
        defence=defence,
        successes=successes,
        damage_faces=tuple(damage_faces),
        damage=tuple(damage),
        crew_killed=crew_killed,
        immobilised=state.immobilised,
        destroyed=destroyed,
        rolls=tuple(rolls),
    )


def assault_casualty_effect(
    *, adv_recover_wounded: bool = True, assault_casualties_are_kills: bool = True
) -> DamageEffect:
    """Whether a figure removed by the Kill Table (or an Overrun) is killed or wounded.

    The book says "removed as a casualty" (p.22) and splits wounds from kills only for Determine
    Damage (p.35). Option ``assault_casualties_are_kills`` (default true, an ambiguity): killed.
    Off, and with Recover Wounded (option ``adv_recover_wounded``), the casualty is wounded.
    """
    if adv_recover_wounded and not assault_casualties_are_kills:
        return DamageEffect.WOUNDED
    return DamageEffect.KILLED
