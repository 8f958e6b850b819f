"""Fast and Dirty scenario generation (FaD p.59-63 SCENARIO GENERATION).

The eight steps of the GENERATION SEQUENCE (p.59): the players choose a stance and an attitude
in secret, count their Recon Points, set up terrain and roll for the choice of table edge, roll
on the Mission Table, count their contact markers and roll for every unit sent on recon duty,
then place markers, spend Recon Points and reveal their forces at the table. This module holds
the tables as data and the rolls as pure functions; every die rolled is returned, in the order
the book rolls it. Placing markers and spending Recon Points (Block, Move, Reveal) are played on
the table top and are not here.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules.dice import DiceSource, Die, Roll
from rules.errors import RuleError
from rules.fad.tree import TABLE_MISSIONS, Mission


class ScenarioError(RuleError):
    """Choices the scenario generation cannot use; ``code`` says which."""


class Stance(enum.StrEnum):
    """A force's readiness, chosen in secret (FaD p.59 Select a Stance)."""

    OFFENSIVE = "offensive"
    NEUTRAL = "neutral"
    DEFENSIVE = "defensive"


class Attitude(enum.StrEnum):
    """The local commander's demeanour, chosen in secret (FaD p.59 Select an Attitude)."""

    AGGRESSIVE = "aggressive"
    CAUTIOUS = "cautious"
    PASSIVE = "passive"


# RECON POINTS TABLE (p.60): +1 per platoon, and these for the stance and the attitude.
RECON_POINTS_PER_PLATOON = 1
RECON_POINTS_PER_RECON_UNIT = 2
STANCE_RECON_POINTS: Mapping[Stance, int] = {
    Stance.OFFENSIVE: 2,
    Stance.NEUTRAL: 1,
    Stance.DEFENSIVE: 0,
}
ATTITUDE_RECON_POINTS: Mapping[Attitude, int] = {
    Attitude.AGGRESSIVE: 0,
    Attitude.CAUTIOUS: 2,
    Attitude.PASSIVE: -1,
}

# DEPLOYMENT ZONES (p.60), in inches from the player's table edge; 18" for both sides in an
# Escalating Engagement whatever their stance (p.62).
DEPLOYMENT_DEPTH: Mapping[Stance, int] = {
    Stance.OFFENSIVE: 6,
    Stance.NEUTRAL: 12,
    Stance.DEFENSIVE: 18,
}
ESCALATING_ENGAGEMENT_DEPTH = 18

# Stance and attitude bonuses (p.59-60): an Offensive stance calls indirect artillery twice (a
# medium cannon crewed by Regulars); a Defensive stance and a Passive attitude each place up to
# three field defences, or one light bunker instead; an Aggressive commander ignores three Under
# Fire results.
ARTILLERY_CALLS: Mapping[Stance, int] = {Stance.OFFENSIVE: 2}
STANCE_FIELD_DEFENCES: Mapping[Stance, int] = {Stance.DEFENSIVE: 3}
ATTITUDE_FIELD_DEFENCES: Mapping[Attitude, int] = {Attitude.PASSIVE: 3}
UNDER_FIRE_IGNORED: Mapping[Attitude, int] = {Attitude.AGGRESSIVE: 3}

# Contact markers (p.61): five Dummy markers per platoon, one more per unit with Elusive or
# Stealth, one fewer per unit with Flyer or Relentless; a Neutral stance gains two and a
# Defensive stance loses two (per platoon, or per force: option scenario_stance_dummy_markers).
DUMMY_MARKERS_PER_PLATOON = 5
STANCE_DUMMY_MARKERS: Mapping[Stance, int] = {Stance.NEUTRAL: 2, Stance.DEFENSIVE: -2}

# The recon-duty roll (p.61): d6, +1 with the Infiltrate (Infiltration) or Recon trait.
RECON_TRAIT_BONUS = 1
RECON_DESTROYED_AT_MOST = 1
RECON_ON_TIME_AT_LEAST = 6

# Traits that bar a unit from recon duty (p.60), with a Reluctant Resolve.
RECON_BARRED_TRAITS = frozenset({"berserk", "hivemind", "relentless", "shaky", "zombie"})
RECON_TRAITS = frozenset({"infiltrate", "infiltration", "recon"})


@dataclass(frozen=True, slots=True)
class MissionModifiers:
    """One row of the MISSION TABLE (p.61): what a stance and an attitude add to its roll."""

    stance: Mapping[Stance, int]
    attitude: Mapping[Attitude, int]

    def modifier(self, stance: Stance | str, attitude: Attitude | str) -> int:
        return self.stance.get(Stance(stance), 0) + self.attitude.get(Attitude(attitude), 0)


# MISSION TABLE (p.61), in the book's order, which is also the order the dice are rolled in.
MISSION_TABLE: Mapping[Mission, MissionModifiers] = {
    Mission.ASSAULT: MissionModifiers({Stance.OFFENSIVE: 2}, {Attitude.AGGRESSIVE: 1}),
    Mission.EXPAND: MissionModifiers({}, {Attitude.CAUTIOUS: 1}),
    Mission.HOLD: MissionModifiers({Stance.DEFENSIVE: 2}, {Attitude.PASSIVE: 2}),
    Mission.INFILTRATE: MissionModifiers({Stance.OFFENSIVE: 1}, {Attitude.CAUTIOUS: 1}),
    Mission.INTERFERE: MissionModifiers({Stance.DEFENSIVE: 1}, {Attitude.CAUTIOUS: 1}),
    Mission.PATROL: MissionModifiers({Stance.NEUTRAL: 2}, {}),
    Mission.STRIKE: MissionModifiers({}, {Attitude.AGGRESSIVE: 1}),
    Mission.SWEEP: MissionModifiers({Stance.OFFENSIVE: 1}, {Attitude.AGGRESSIVE: 2}),
}
MISSION_BONUSES = 2  # each player may give +1 to any two missions (p.61)
MISSION_BONUS = 1


@dataclass(frozen=True, slots=True)
class MissionDetails:
    """A mission of MISSION DETAILS (p.62-63): the objective markers it needs, how it is won,
    and the bonus the force gains."""

    objectives: tuple[str, ...]
    victory_conditions: str
    bonus: str
    page: str


MISSION_DETAILS: Mapping[Mission, MissionDetails] = {
    Mission.ASSAULT: MissionDetails(
        ("one far objective, declared before the battle",),
        'Occupy the declared far objective and keep every enemy more than 8" from it for 2 '
        "consecutive turns.",
        "One Assault Troops and one Hardened trait.",
        "FaD p.62",
    ),
    Mission.ESCALATING_ENGAGEMENT: MissionDetails(
        (),
        'Eliminate or rout half of the opposing units (rounding up). Both sides deploy 18" '
        "deep; recon units are placed first, the rest enter one unit per platoon per turn; no "
        "Recon Points are spent.",
        "One Brave and one Shock Troops trait.",
        "FaD p.62",
    ),
    Mission.EXPAND: MissionDetails(
        ("both middle objectives",),
        'Occupy both middle objectives and keep every enemy more than 8" from them for 2 '
        "consecutive turns.",
        "One Grizzled and one Tough trait.",
        "FaD p.62",
    ),
    Mission.HOLD: MissionDetails(
        ("both near objectives",),
        'Keep every enemy more than 15" from either near objective for 3 consecutive turns.',
        "Three field defences in the deployment area, or one light bunker instead.",
        "FaD p.62",
    ),
    Mission.INFILTRATE: MissionDetails(
        ("the enemy table edge",),
        "Move one unbroken infantry squad per platoon of the force off the enemy table edge.",
        "One Infiltrate and one Stealth trait.",
        "FaD p.62",
    ),
    Mission.INTERFERE: MissionDetails(
        (),
        "Deny the enemy their victory.",
        "One Recon trait; that unit may call indirect artillery once (a medium cannon crewed "
        "by Regulars).",
        "FaD p.63",
    ),
    Mission.PATROL: MissionDetails(
        ("both middle objectives", "either far objective"),
        "Make infantry contact with both middle objectives and either far objective.",
        "One Agile and one Elusive trait.",
        "FaD p.63",
    ),
    Mission.STRIKE: MissionDetails(
        ("the enemy's highest-ranking figure on the table",),
        "Kill the opposing commander, the highest-ranking figure on the table.",
        "One sniper of Regular quality.",
        "FaD p.63",
    ),
    Mission.SWEEP: MissionDetails(
        (),
        "Eliminate or rout half of the opposing units (rounding up).",
        "One Brave and one Shock Troops trait.",
        "FaD p.63",
    ),
}


def _count(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ScenarioError("scenario.invalid", f"{name} is a whole number from 0 up.")
    return value


def recon_points(
    *, platoons: int, stance: Stance | str, attitude: Attitude | str, recon_units: int
) -> int:
    """A force's Recon Points (FaD p.60 RECON POINTS TABLE): +1 per platoon (a force larger
    than a reinforced platoon counting as two, the caller's count), the stance's and the
    attitude's, and +2 per unit sent on recon duty. A Passive attitude's -1 may leave 0 or less:
    the book sets no floor, and a force with none simply spends none."""
    return (
        RECON_POINTS_PER_PLATOON * _count(platoons, "platoons")
        + STANCE_RECON_POINTS[Stance(stance)]
        + ATTITUDE_RECON_POINTS[Attitude(attitude)]
        + RECON_POINTS_PER_RECON_UNIT * _count(recon_units, "recon_units")
    )


def dummy_markers(
    *,
    platoons: int,
    stance: Stance | str,
    elusive_or_stealth_units: int = 0,
    flyer_or_relentless_units: int = 0,
    scenario_stance_dummy_markers: str = "per_platoon",
) -> int:
    """A force's Dummy contact markers (FaD p.61 Deploy Contact Markers).

    Five per platoon, one more per unit with Elusive or Stealth, one fewer per unit with Flyer
    or Relentless; a Neutral stance gains two and a Defensive stance loses two. Option
    ``scenario_stance_dummy_markers``: ``"per_platoon"`` (default, as p.61 counts them) or
    ``"per_force"`` (as the stance list on p.59 says, two in all). Never fewer than none.
    """
    if scenario_stance_dummy_markers not in ("per_platoon", "per_force"):
        raise ScenarioError(
            "scenario.invalid",
            "scenario_stance_dummy_markers is 'per_platoon' or 'per_force', "
            f"not {scenario_stance_dummy_markers!r}.",
        )
    platoons = _count(platoons, "platoons")
    stance_markers = STANCE_DUMMY_MARKERS.get(Stance(stance), 0)
    if scenario_stance_dummy_markers == "per_platoon":
        stance_markers *= platoons
    total = (
        DUMMY_MARKERS_PER_PLATOON * platoons
        + _count(elusive_or_stealth_units, "elusive_or_stealth_units")
        - _count(flyer_or_relentless_units, "flyer_or_relentless_units")
        + stance_markers
    )
    return max(total, 0)


def field_defences(stance: Stance | str, attitude: Attitude | str) -> int:
    """Field defences a force may place in its deployment area (FaD p.60): three for a
    Defensive stance and three more for a Passive attitude (each three may be one light bunker
    instead). The Hold mission's three come on top (p.62)."""
    return STANCE_FIELD_DEFENCES.get(Stance(stance), 0) + ATTITUDE_FIELD_DEFENCES.get(
        Attitude(attitude), 0
    )


def recon_barred(*, resolve: str, traits: Sequence[str]) -> str | None:
    """Why a unit may not go on recon duty, or ``None`` (FaD p.60): not with Reluctant Resolve,
    nor with the Berserk, Hivemind, Relentless, Shaky or Zombie trait."""
    if resolve.lower() == "reluctant":
        return "its Resolve is Reluctant"
    barred = sorted({t.lower() for t in traits} & RECON_BARRED_TRAITS)
    if barred:
        return f"it has the {barred[0].title()} trait"
    return None


def has_recon_trait(traits: Sequence[str]) -> bool:
    """Whether a unit has the Infiltration (Infiltrate, p.61) or Recon trait (p.40)."""
    return bool({t.lower() for t in traits} & RECON_TRAITS)


@dataclass(frozen=True, slots=True)
class MissionRoll:
    """One force's roll on the Mission Table (FaD p.61): a d6 per mission in the table's order,
    each total with its modifiers, the missions tied on the highest total, and the one assigned
    (the player's choice among ties)."""

    rolls: tuple[Roll, ...]
    totals: Mapping[Mission, int]
    highest: tuple[Mission, ...]
    mission: Mission


def _check_missions(missions: Sequence[Mission | str], name: str) -> tuple[Mission, ...]:
    try:
        chosen = tuple(Mission(m) for m in missions)
    except ValueError as exc:
        raise ScenarioError("scenario.unknown_mission", f"{name}: {exc}.") from None
    if len(set(chosen)) != len(chosen):
        raise ScenarioError("scenario.repeated_mission", f"{name} names a mission twice.")
    outside = [m for m in chosen if m not in TABLE_MISSIONS]
    if outside:
        raise ScenarioError(
            "scenario.unknown_mission",
            f"{name}: {outside[0]} is not on the Mission Table (p.61).",
        )
    return chosen


def check_mission_bonuses(bonuses: Sequence[Mission | str]) -> tuple[Mission, ...]:
    """The missions a player gives +1 to: at most two, different, on the Mission Table (p.61)."""
    chosen = _check_missions(bonuses, "mission_bonuses")
    if len(chosen) > MISSION_BONUSES:
        raise ScenarioError(
            "scenario.too_many_bonuses",
            f"A player gives +1 to at most {MISSION_BONUSES} missions (p.61), not {len(chosen)}.",
        )
    return chosen


def mission_totals(
    faces: Sequence[int],
    *,
    stance: Stance | str,
    attitude: Attitude | str,
    bonuses: Sequence[Mission | str] = (),
) -> dict[Mission, int]:
    """Each mission's total from its d6 (``faces`` in the table's order), its stance and
    attitude modifiers and the player's +1 (FaD p.61)."""
    chosen = check_mission_bonuses(bonuses)
    if len(faces) != len(MISSION_TABLE):
        raise ScenarioError(
            "scenario.invalid", f"The Mission Table needs {len(MISSION_TABLE)} dice."
        )
    return {
        mission: face
        + row.modifier(Stance(stance), Attitude(attitude))
        + (MISSION_BONUS if mission in chosen else 0)
        for face, (mission, row) in zip(faces, MISSION_TABLE.items(), strict=True)
    }


def mission_from_totals(
    totals: Mapping[Mission, int], *, preference: Sequence[Mission | str] = ()
) -> tuple[tuple[Mission, ...], Mission]:
    """The missions on the highest total and the one assigned (FaD p.61): on a tie the player
    chooses, here by ``preference`` (missions in the order the player wants them, given before
    the dice are rolled); tied missions the preference leaves out go in the table's order."""
    ranked = _check_missions(preference, "mission_preference")
    best = max(totals.values())
    highest = tuple(m for m in MISSION_TABLE if totals.get(m) == best)
    preferred = [m for m in ranked if m in highest]
    return highest, preferred[0] if preferred else highest[0]


def mission_probabilities(
    *,
    stance: Stance | str,
    attitude: Attitude | str,
    bonuses: Sequence[Mission | str] = (),
    preference: Sequence[Mission | str] = (),
) -> dict[Mission, Fraction]:
    """The exact chance of each mission on one force's Mission Table roll (FaD p.61), ties
    going as :func:`mission_from_totals` decides them: a mission is assigned when its total ``t``
    beats every mission ranked before it and is not beaten by any ranked after it."""
    chosen = check_mission_bonuses(bonuses)
    ranked = _check_missions(preference, "mission_preference")
    order = [*ranked, *(m for m in MISSION_TABLE if m not in ranked)]
    offset = {
        m: row.modifier(Stance(stance), Attitude(attitude)) + (MISSION_BONUS if m in chosen else 0)
        for m, row in MISSION_TABLE.items()
    }
    sixth = Fraction(1, 6)

    def below(mission: Mission, total: int, *, inclusive: bool) -> Fraction:
        limit = total - offset[mission] + (1 if inclusive else 0)
        return sixth * min(max(limit - 1, 0), 6)

    chances: dict[Mission, Fraction] = {}
    for rank, mission in enumerate(order):
        chance = Fraction(0)
        for face in range(1, 7):
            total = face + offset[mission]
            term = sixth
            for other in order[:rank]:
                term *= below(other, total, inclusive=False)
            for other in order[rank + 1 :]:
                term *= below(other, total, inclusive=True)
            chance += term
        chances[mission] = chance
    return {m: chances[m] for m in MISSION_TABLE}


def roll_mission_table(
    *,
    stance: Stance | str,
    attitude: Attitude | str,
    dice: DiceSource,
    bonuses: Sequence[Mission | str] = (),
    preference: Sequence[Mission | str] = (),
    force: str = "",
) -> MissionRoll:
    """Roll one force's mission (FaD p.61 Determine Missions): 1d6 for each mission of the
    table, in its order, plus the stance's and the attitude's modifiers and +1 on up to two
    missions the player chose; the highest total is the mission (ties: the player's choice,
    ``preference``)."""
    check_mission_bonuses(bonuses)
    _check_missions(preference, "mission_preference")
    who = f"{force}: " if force else ""
    rolls = tuple(dice.roll(Die.D6, f"{who}Mission Table, {mission}") for mission in MISSION_TABLE)
    totals = mission_totals(
        [r.result for r in rolls], stance=stance, attitude=attitude, bonuses=bonuses
    )
    highest, mission = mission_from_totals(totals, preference=preference)
    return MissionRoll(rolls=rolls, totals=totals, highest=highest, mission=mission)


def assign_missions(first: Mission, second: Mission) -> tuple[Mission, Mission]:
    """Both forces' missions (FaD p.61): assigned the same mission, both play an Escalating
    Engagement instead."""
    if Mission(first) == Mission(second):
        return Mission.ESCALATING_ENGAGEMENT, Mission.ESCALATING_ENGAGEMENT
    return Mission(first), Mission(second)


class ReconFate(enum.StrEnum):
    """What became of a unit sent on recon duty (FaD p.61)."""

    DESTROYED = "destroyed"  # ambushed: the unit and a True marker are removed
    DELAYED = "delayed"  # enters from its own table edge on turn 2; a True marker is removed
    ON_TIME = "on_time"  # back in time to deploy with the rest of the force


@dataclass(frozen=True, slots=True)
class ReconReturn:
    """A recon unit's roll: the die, +1 for Infiltrate or Recon, the total and its fate."""

    roll: Roll
    modifier: int
    total: int
    fate: ReconFate


def recon_fate(total: int) -> ReconFate:
    """The recon-duty table (FaD p.61): 1 destroyed in an ambush, 2-5 delayed, 6+ in time."""
    if total <= RECON_DESTROYED_AT_MOST:
        return ReconFate.DESTROYED
    if total >= RECON_ON_TIME_AT_LEAST:
        return ReconFate.ON_TIME
    return ReconFate.DELAYED


def recon_return(*, recon_trait: bool, dice: DiceSource, unit: str = "") -> ReconReturn:
    """Roll for a unit back from recon duty (FaD p.61): 1d6, +1 with the Infiltrate or Recon
    trait, once the Dummy markers are counted."""
    roll = dice.roll(Die.D6, f"{unit + ': ' if unit else ''}returning from recon duty")
    modifier = RECON_TRAIT_BONUS if recon_trait else 0
    total = roll.result + modifier
    return ReconReturn(roll=roll, modifier=modifier, total=total, fate=recon_fate(total))


@dataclass(frozen=True, slots=True)
class RollOff:
    """Both forces rolled 1d6 until one came out ahead: who won and every die, first force's
    die first in each round."""

    winner: int  # 0 for the first force, 1 for the second
    rolls: tuple[Roll, ...]


def roll_off(
    *,
    dice: DiceSource,
    purpose: str,
    names: tuple[str, str],
    modifiers: tuple[int, int] = (0, 0),
    lowest_wins: bool = False,
) -> RollOff:
    """Each force rolls 1d6 and adds its modifier; the highest (or lowest) wins; a tie is
    rolled again (FaD p.60 table edge: the book does not say, re-rolling is ours; p.61 marker
    placement: "Re-roll ties")."""
    rolls: list[Roll] = []
    while True:
        first = dice.roll(Die.D6, f"{names[0]}: {purpose}")
        second = dice.roll(Die.D6, f"{names[1]}: {purpose}")
        rolls.extend((first, second))
        scores = (first.result + modifiers[0], second.result + modifiers[1])
        if scores[0] != scores[1]:
            ahead = scores[0] < scores[1] if lowest_wins else scores[0] > scores[1]
            return RollOff(winner=0 if ahead else 1, rolls=tuple(rolls))


@dataclass(frozen=True, slots=True)
class ReconUnit:
    """A unit a force sends on recon duty: its key (the caller's id) and whether it has the
    Infiltrate or Recon trait."""

    key: str
    name: str
    recon_trait: bool = False


@dataclass(frozen=True, slots=True)
class ForceSetup:
    """What a force brings to scenario generation: its name, the secret stance and attitude,
    its platoons and units, the traits that change its markers, its recon units and its Mission
    Table choices (+1 on up to two missions; the order it prefers missions in on a tie)."""

    name: str
    stance: Stance
    attitude: Attitude
    platoons: int
    units: int
    elusive_or_stealth_units: int = 0
    flyer_or_relentless_units: int = 0
    recon: tuple[ReconUnit, ...] = ()
    mission_bonuses: tuple[Mission, ...] = ()
    mission_preference: tuple[Mission, ...] = ()


@dataclass(frozen=True, slots=True)
class ForceScenario:
    """One force's part of a generated scenario."""

    name: str
    stance: Stance
    attitude: Attitude
    recon_points: int
    deployment_depth: int
    field_defences: int
    artillery_calls: int
    under_fire_ignored: int
    mission_roll: MissionRoll
    mission: Mission
    dummy_markers: int
    true_markers: int
    recon: tuple[tuple[ReconUnit, ReconReturn], ...]

    @property
    def details(self) -> MissionDetails:
        return MISSION_DETAILS[self.mission]

    @property
    def markers(self) -> int:
        return self.dummy_markers + self.true_markers


@dataclass(frozen=True, slots=True)
class Scenario:
    """A generated scenario (FaD p.59-63): both forces' parts, who chose the table edge, who
    places first, and every die in the order it was rolled."""

    forces: tuple[ForceScenario, ForceScenario]
    edge_roll: RollOff
    escalating_engagement: bool
    first_to_place: int  # 0 or 1: places the first contact markers (or recon units, p.62)
    placement_roll: RollOff | None
    rolls: tuple[Roll, ...]


def generate_scenario(
    *,
    first: ForceSetup,
    second: ForceSetup,
    dice: DiceSource,
    scenario_stance_dummy_markers: str = "per_platoon",
) -> Scenario:
    """Generate a scenario for two forces (FaD p.59-63 GENERATION SEQUENCE), rolling as the
    book does, the first force's dice before the second's at each step:

    1. Recon Points (p.60) from platoons, stance, attitude and recon units.
    2. Table edge (p.60): each rolls 1d6 + RP; the highest chooses its edge (ties re-rolled).
    3. Missions (p.61): each rolls the Mission Table; the same mission for both is an
       Escalating Engagement.
    4. Contact markers (p.61): a True marker per unit and the Dummy markers (option
       ``scenario_stance_dummy_markers``); then 1d6 per recon unit, +1 for Infiltrate or Recon
       (1 destroyed and its True marker removed, 2-5 delayed to turn 2 and a True marker
       removed, 6+ in time). The force with more markers places first; on equal counts both
       roll 1d6, the lowest first, ties re-rolled.

    In an Escalating Engagement (p.62) the recon forces have already met: no recon unit rolls,
    no contact markers are deployed, both sides deploy 18" deep and the player who chose the
    table edge places the recon units first.
    """
    setups = (first, second)
    names = (first.name, second.name)
    for setup in setups:
        check_mission_bonuses(setup.mission_bonuses)
        _count(setup.units, "units")
        if len(setup.recon) > setup.units:
            raise ScenarioError(
                "scenario.invalid", f"{setup.name} sends more units on recon than it has."
            )
    points = tuple(
        recon_points(
            platoons=s.platoons, stance=s.stance, attitude=s.attitude, recon_units=len(s.recon)
        )
        for s in setups
    )
    edge = roll_off(
        dice=dice,
        purpose="1d6 + Recon Points for the choice of table edge",
        names=names,
        modifiers=(points[0], points[1]),
    )
    mission_rolls = tuple(
        roll_mission_table(
            stance=s.stance,
            attitude=s.attitude,
            dice=dice,
            bonuses=s.mission_bonuses,
            preference=s.mission_preference,
            force=s.name,
        )
        for s in setups
    )
    missions = assign_missions(mission_rolls[0].mission, mission_rolls[1].mission)
    escalating = missions[0] is Mission.ESCALATING_ENGAGEMENT
    rolls: list[Roll] = [*edge.rolls, *mission_rolls[0].rolls, *mission_rolls[1].rolls]
    dummies = tuple(
        0
        if escalating
        else dummy_markers(
            platoons=s.platoons,
            stance=s.stance,
            elusive_or_stealth_units=s.elusive_or_stealth_units,
            flyer_or_relentless_units=s.flyer_or_relentless_units,
            scenario_stance_dummy_markers=scenario_stance_dummy_markers,
        )
        for s in setups
    )
    returns: list[tuple[tuple[ReconUnit, ReconReturn], ...]] = []
    for setup in setups:
        back = (
            ()
            if escalating
            else tuple(
                (unit, recon_return(recon_trait=unit.recon_trait, dice=dice, unit=unit.name))
                for unit in setup.recon
            )
        )
        rolls.extend(r.roll for _, r in back)
        returns.append(back)
    true_markers = tuple(
        0
        if escalating
        else setup.units
        - sum(1 for _, r in back if r.fate in (ReconFate.DESTROYED, ReconFate.DELAYED))
        for setup, back in zip(setups, returns, strict=True)
    )
    forces = tuple(
        ForceScenario(
            name=s.name,
            stance=s.stance,
            attitude=s.attitude,
            recon_points=points[i],
            deployment_depth=ESCALATING_ENGAGEMENT_DEPTH
            if escalating
            else DEPLOYMENT_DEPTH[Stance(s.stance)],
            field_defences=field_defences(s.stance, s.attitude),
            artillery_calls=ARTILLERY_CALLS.get(Stance(s.stance), 0),
            under_fire_ignored=UNDER_FIRE_IGNORED.get(Attitude(s.attitude), 0),
            mission_roll=mission_rolls[i],
            mission=missions[i],
            dummy_markers=dummies[i],
            true_markers=true_markers[i],
            recon=returns[i],
        )
        for i, s in enumerate(setups)
    )
    placement: RollOff | None = None
    if escalating:
        first_to_place = edge.winner
    elif forces[0].markers != forces[1].markers:
        first_to_place = 0 if forces[0].markers > forces[1].markers else 1
    else:
        placement = roll_off(
            dice=dice,
            purpose="1d6 for who places contact markers first (lowest)",
            names=names,
            lowest_wins=True,
        )
        rolls.extend(placement.rolls)
        first_to_place = placement.winner
    return Scenario(
        forces=(forces[0], forces[1]),
        edge_roll=edge,
        escalating_engagement=escalating,
        first_to_place=first_to_place,
        placement_roll=placement,
        rolls=tuple(rolls),
    )
