"""Fast and Dirty unit state: who goes first, Checking Resolve, Morale Tests, Losing Heart, the
Under Fire and Pinned markers, and Command Response.

FaD p.12 TURN SEQUENCE (initiative), p.12 UNIT ACTIVATION, p.13 CHECKING RESOLVE and MORALE TESTS,
p.14 Optional - Losing Heart, p.24 UNDER FIRE and PINNING, p.25 COMMAND RESPONSE. Every die is
returned in the outcome, in the order it was rolled.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from rules.dice import DiceSource, Die, Roll
from rules.errors import RuleError
from rules.fad.options import GrizzledMode, ModifierMode, OfficerBonusMode, OriginalSize
from rules.fad.scales import RESOLVE_WORST, Quality, Resolve, SquadLeaderExperience

# p.13 MORALE TESTS: three dice, two successes rally, none routs.
MORALE_DICE = 3
RALLY_SUCCESSES = 2

# p.14 Losing Heart: the army's share of units eliminated that costs a level of Resolve.
LOSING_HEART_LEVELS = ((3, 4), (1, 2))  # 75% costs two levels in all, 50% one

# p.25 COMMAND RESPONSE: a unit activating this close to an enemy unit tests.
COMMAND_RESPONSE_RANGE_INCHES = 10

# --- markers (p.24) -------------------------------------------------------------------------------

NO_MARKER = ""
UNDER_FIRE = "under_fire"
PINNED = "pinned"
_MARKER_RANK = {NO_MARKER: 0, UNDER_FIRE: 1, PINNED: 2}

MarkerT = TypeVar("MarkerT", bound=str)


def _check_marker(value: str, field: str) -> None:
    if value not in _MARKER_RANK:
        raise RuleError(
            "marker.unknown",
            f"{value!r} is not a marker: none (''), 'under_fire' or 'pinned' (p.24).",
            field=field,
        )


def marker_after(current: MarkerT, placed: MarkerT, *, vehicle: bool = False) -> MarkerT:
    """The marker a unit carries once ``placed`` is put on it (FaD p.24 UNDER FIRE, PINNING).

    Markers never stack: "there is no need to place multiple markers on a unit". A Pinned
    marker replaces an Under Fire one ("Replace any Under Fire marker with a Pinned marker"),
    and an Under Fire marker placed on a pinned unit leaves it pinned. Vehicles are never pinned:
    on a vehicle a Pinned marker is an Under Fire one. Values are the strings ``""`` (none),
    ``"under_fire"`` and ``"pinned"``, or members of a ``StrEnum`` with those values; the result
    is one of the two arguments.

    Every action that places a marker (shooting, Command Disruption, a destroyed vehicle nearby)
    should put it on through this function.
    """
    _check_marker(current, "current")
    _check_marker(placed, "placed")
    if vehicle and placed == PINNED:
        placed = type(placed)(UNDER_FIRE)
    return placed if _MARKER_RANK[placed] > _MARKER_RANK[current] else current


# --- Checking Resolve (p.13) ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ResolveCheck:
    """A unit's Resolve checked at its activation (FaD p.13).

    ``checked`` is false for a vehicle that activates without an Under Fire marker: its crew is
    not checked and acts normally. ``losses`` are the infantry casualties or the vehicle's
    penetrating hits counted against ``break_point``.
    """

    vehicle: bool
    checked: bool
    broken: bool
    resolve: Resolve
    losses: int
    break_point: int
    original_size: int | None = None


def _count(name: str, value: object, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError("resolve.refused", f"{name} must be a whole number, not {value!r}.")
    if value < minimum:
        raise RuleError("resolve.refused", f"{name} must be at least {minimum}; got {value}.")
    return value


def original_size(
    *,
    strength_at_battle_start: int,
    initial_strength: int,
    resolve_original_size: OriginalSize | str = OriginalSize.BATTLE_START,
) -> int:
    """The size an infantry unit's break point is measured against (FaD p.13).

    The book says "original size" without saying which. Option ``resolve_original_size``:
    ``battle_start`` (default) is the figures the unit brought to this battle, as campaign units
    are often below their full strength; ``initial_strength`` is the strength it was raised with.
    """
    start = _count("The strength at the battle's start", strength_at_battle_start, minimum=1)
    initial = _count("The initial strength", initial_strength, minimum=1)
    if OriginalSize(resolve_original_size) is OriginalSize.INITIAL_STRENGTH:
        return initial
    return start


def check_infantry_resolve(
    *,
    resolve: Resolve,
    original_size: int,
    casualties: int,
    officer_attached: bool = False,
    resolve_officer_bonus_mode: OfficerBonusMode | str = OfficerBonusMode.ADD_TO_ORIGINAL_SIZE,
) -> ResolveCheck:
    """Whether an infantry unit is Broken when it activates (FaD p.13 INFANTRY RESOLVE TABLE).

    Broken when casualties *equal or exceed* Reluctant 1 casualty, Uncertain 25%, Steady 50%,
    Determined 75% of the original size (:meth:`Resolve.infantry_break_point`). Casualties are the
    dead and the untreated wounded; stabilised figures do not count (p.35,
    :func:`rules.fad.wounded.casualties_for_resolve`).

    An attached officer raises the squad's strength by 1 for this check (p.32). Option
    ``resolve_officer_bonus_mode``: ``add_to_original_size`` (default) adds 1 to the size,
    ``subtract_from_casualties`` counts one casualty fewer.
    """
    resolve = Resolve(resolve)
    size = _count("The original size", original_size, minimum=1)
    lost = _count("The casualties", casualties)
    if officer_attached:
        if OfficerBonusMode(resolve_officer_bonus_mode) is OfficerBonusMode.ADD_TO_ORIGINAL_SIZE:
            size += 1
        else:
            lost = max(0, lost - 1)
    break_point = resolve.infantry_break_point(size)
    return ResolveCheck(
        vehicle=False,
        checked=True,
        broken=lost >= break_point,
        resolve=resolve,
        losses=lost,
        break_point=break_point,
        original_size=size,
    )


def check_vehicle_resolve(
    *, resolve: Resolve, penetrating_hits: int, under_fire: bool
) -> ResolveCheck:
    """Whether a vehicle's crew is Broken when it activates (FaD p.13 VEHICLE RESOLVE TABLE).

    A vehicle's Resolve is checked only when it activates marked Under Fire (p.13, p.24); its
    crew is Broken when the penetrating hits it has sustained equal or exceed Reluctant 1,
    Uncertain 2, Steady 3, Determined 4.
    """
    resolve = Resolve(resolve)
    hits = _count("The penetrating hits", penetrating_hits)
    break_point = resolve.vehicle_break_hits
    return ResolveCheck(
        vehicle=True,
        checked=under_fire,
        broken=under_fire and hits >= break_point,
        resolve=resolve,
        losses=hits,
        break_point=break_point,
    )


# --- Morale Tests (p.13) --------------------------------------------------------------------------


class AutoSuccess(enum.StrEnum):
    """What gives a Morale Test one automatic success, rolling one die fewer."""

    ARMOUR_NEARBY = "armour_nearby"  # a squad within 8" of a tank or walker (p.13)
    FORTIFIED = "fortified"  # in a bunker or trench (p.28)
    BRAVE = "brave"  # the Brave trait (p.39)


class MoraleResult(enum.StrEnum):
    """What a Morale Test leaves the unit (FaD p.13)."""

    RALLIED = "rallied"  # two or more successes: unbroken, acts normally this turn
    STAYS_BROKEN = "stays_broken"  # one: falls back (a vehicle at Standard speed)
    REMOVED = "removed"  # none: routs or surrenders; an immobilised vehicle's crew bails out


@dataclass(frozen=True, slots=True)
class MoraleAttempt:
    """One throw of a Morale Test: the dice as they finally lie and what they scored."""

    faces: tuple[int, ...]
    rerolled: int
    dice_successes: int
    successes: int


@dataclass(frozen=True, slots=True)
class MoraleOutcome:
    """A Morale Test (FaD p.13): every attempt (a Motivator's re-roll makes a second), the
    result, and every die in the order it was rolled."""

    quality: Quality
    target_number: int
    vehicle: bool
    dice_rolled: int
    auto_successes: int
    auto_failures: int
    leader_modifier: int
    attempts: tuple[MoraleAttempt, ...]
    result: MoraleResult
    crew_bailed_out: bool
    rolls: tuple[Roll, ...]

    @property
    def successes(self) -> int:
        return self.attempts[-1].successes


def _morale_attempt(
    dice: DiceSource,
    *,
    count: int,
    target: int,
    auto_successes: int,
    die_modifier: int,
    success_modifier: int,
    rerolls: int,
    purpose: str,
    rolls: list[Roll],
) -> MoraleAttempt:
    faces: list[int] = []
    for _ in range(count):
        roll = dice.roll(Die.D6, purpose)
        rolls.append(roll)
        faces.append(roll.result)
    rerolled = 0
    for index, face in enumerate(faces):
        # The officer re-rolls failed dice while the squad still needs them to rally.
        scored = sum(1 for f in faces if f + die_modifier >= target)
        if rerolled == rerolls or auto_successes + scored + success_modifier >= RALLY_SUCCESSES:
            break
        if face + die_modifier < target:
            roll = dice.roll(Die.D6, f"{purpose}: officer's re-roll")
            rolls.append(roll)
            faces[index] = roll.result
            rerolled += 1
    scored = sum(1 for face in faces if face + die_modifier >= target)
    return MoraleAttempt(
        faces=tuple(faces),
        rerolled=rerolled,
        dice_successes=scored,
        successes=max(0, auto_successes + scored + success_modifier),
    )


def morale_test(
    *,
    dice: DiceSource,
    quality: Quality,
    vehicle: bool = False,
    immobilised: bool = False,
    auto_successes: Iterable[AutoSuccess | str] = (),
    shaky: bool = False,
    officer_leadership: int = 0,
    motivator: bool = False,
    leader_experience: SquadLeaderExperience | None = None,
    morale_leader_modifier_mode: ModifierMode | str = ModifierMode.PER_DIE,
    morale_auto_success_stacking: bool = False,
) -> MoraleOutcome:
    """A unit's Morale Test (FaD p.13 MORALE TESTS): roll 3d6, do not add them, and count the
    dice that equal or exceed the unit's Quality Level (Rabble 5+, Conscript 4+, Regular 3+,
    Elite 2+).

    Two or more successes: the unit rallies, is unbroken and acts normally this turn. One: it
    stays broken and falls back (a vehicle's crew retreats at Standard speed; an immobilised
    vehicle's crew bails out and the vehicle is removed). None: the unit routs or surrenders and
    is removed from play.

    Modifiers: each of ``auto_successes`` (a tank or walker within 8", p.13; a bunker or trench,
    p.28; Brave, p.39) is one automatic success, rolling one die fewer; Shaky (p.41) is one
    automatic failure, rolling one die fewer. Option ``morale_auto_success_stacking`` (the book
    is silent): off (default), several sources still give one automatic success; on, each gives
    one. An attached officer re-rolls as many failed dice as his Leadership Rating (p.32), once
    each, in the order they were rolled, while the squad still needs them to rally (a re-roll
    can only help, so none is rolled once it has rallied). A Motivator (p.33) re-rolls a failed
    test: the whole test is taken again, officer's re-rolls included, and the second result
    stands. A squad
    leader's experience (p.11) gives -1 (Inexperienced) or +1 (Veteran); option
    ``morale_leader_modifier_mode``: ``per_die`` (default) adds it to every die, ``successes``
    adds it to the successes counted.
    """
    quality = Quality(quality)
    target = quality.target_number
    leadership = _count("The officer's leadership rating", officer_leadership)
    sources = {AutoSuccess(source) for source in auto_successes}
    failures = 1 if shaky else 0
    autos = len(sources) if morale_auto_success_stacking else min(1, len(sources))
    autos = min(autos, MORALE_DICE - failures)
    count = MORALE_DICE - autos - failures
    modifier = 0 if leader_experience is None else leader_experience.morale_modifier
    per_die = ModifierMode(morale_leader_modifier_mode) is ModifierMode.PER_DIE
    rolls: list[Roll] = []
    attempts: list[MoraleAttempt] = []
    purposes = ["morale test", "morale test: Motivator's re-roll"]
    for purpose in purposes[: 2 if motivator else 1]:
        attempt = _morale_attempt(
            dice,
            count=count,
            target=target,
            auto_successes=autos,
            die_modifier=modifier if per_die else 0,
            success_modifier=0 if per_die else modifier,
            rerolls=leadership,
            purpose=purpose,
            rolls=rolls,
        )
        attempts.append(attempt)
        if attempt.successes >= RALLY_SUCCESSES:
            break
    successes = attempts[-1].successes
    bailed_out = vehicle and immobilised and successes == 1
    if successes >= RALLY_SUCCESSES:
        result = MoraleResult.RALLIED
    elif successes == 1 and not bailed_out:
        result = MoraleResult.STAYS_BROKEN
    else:
        result = MoraleResult.REMOVED
    return MoraleOutcome(
        quality=quality,
        target_number=target,
        vehicle=vehicle,
        dice_rolled=count,
        auto_successes=autos,
        auto_failures=failures,
        leader_modifier=modifier,
        attempts=tuple(attempts),
        result=result,
        crew_bailed_out=bailed_out,
        rolls=tuple(rolls),
    )


# --- Losing Heart (p.14) --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ArmyUnit:
    """One unit of an army as Losing Heart counts it (FaD p.14): squads, heavy weapons teams,
    snipers, officers and vehicles are one unit each."""

    unit_id: str
    resolve: Resolve
    eliminated: bool = False


@dataclass(frozen=True, slots=True)
class ResolveShift:
    """A remaining unit's Resolve lowered by Losing Heart; ``after`` None: it was Reluctant and
    is eliminated instead."""

    unit_id: str
    before: Resolve
    after: Resolve | None

    @property
    def eliminated(self) -> bool:
        return self.after is None


@dataclass(frozen=True, slots=True)
class LosingHeartOutcome:
    """The army's losses, the levels of Resolve they cost, and what each remaining unit loses
    now (FaD p.14)."""

    army_size: int
    eliminated: int
    levels_due: int
    levels_already_lost: int
    shifts: tuple[ResolveShift, ...]

    @property
    def new_levels(self) -> int:
        return max(0, self.levels_due - self.levels_already_lost)


def losing_heart_levels(*, army_size: int, eliminated: int) -> int:
    """Levels of Resolve an army has lost to its losses (FaD p.14): one at 50% of its units
    eliminated, two at 75%; 'at least', so exactly half costs a level."""
    size = _count("The army's size", army_size, minimum=1)
    lost = _count("The units eliminated", eliminated)
    if lost > size:
        raise RuleError("resolve.refused", f"An army of {size} units cannot lose {lost} of them.")
    for levels, (numerator, denominator) in zip((2, 1), LOSING_HEART_LEVELS, strict=True):
        if lost * denominator >= numerator * size:
            return levels
    return 0


def resolve_after_losing_heart(resolve: Resolve, levels: int) -> Resolve | None:
    """A unit's Resolve after losing ``levels`` to Losing Heart, or None when it is eliminated:
    "Any Reluctant unit required to lose another level of Resolve is automatically eliminated
    instead" (FaD p.14)."""
    lowered = Resolve(resolve) - _count("The levels", levels)
    return None if lowered < RESOLVE_WORST else Resolve(lowered)


def losing_heart(
    *,
    army: Sequence[ArmyUnit],
    levels_already_lost: int = 0,
    hard_points: int = 0,
    hard_points_destroyed: int = 0,
    morale_losing_heart_hard_points: bool = False,
) -> LosingHeartOutcome:
    """Optional - Losing Heart (FaD p.14, recommended): once an army has lost at least 50% of its
    units, every unit's Resolve drops one level for good; at 75% every remaining unit drops one
    more. Each unit counts once, whatever its size.

    ``levels_already_lost`` are the levels the army lost earlier in the battle: only the new ones
    are taken from the units still fighting (``shifts``). Option
    ``morale_losing_heart_hard_points`` (default off): the scenario's on-board artillery and
    "hard target points" (bunkers, bridges, radar stations) count as units of the army, so
    ``hard_points`` add to its size and ``hard_points_destroyed`` to its losses; they have no
    Resolve to lose.
    """
    already = _count("The levels already lost", levels_already_lost)
    points = _count("The hard points", hard_points)
    destroyed = _count("The hard points destroyed", hard_points_destroyed)
    if destroyed > points:
        raise RuleError(
            "resolve.refused", f"{destroyed} hard points cannot be destroyed out of {points}."
        )
    if not morale_losing_heart_hard_points and points:
        raise RuleError(
            "losing_heart.hard_points_off",
            "Hard points count as units only with option morale_losing_heart_hard_points (p.14).",
            field="hard_points",
        )
    size = len(army) + points
    eliminated = sum(1 for unit in army if unit.eliminated) + destroyed
    due = losing_heart_levels(army_size=size, eliminated=eliminated)
    new = max(0, due - already)
    shifts = tuple(
        ResolveShift(
            unit_id=unit.unit_id,
            before=Resolve(unit.resolve),
            after=resolve_after_losing_heart(unit.resolve, new),
        )
        for unit in army
        if not unit.eliminated and new
    )
    return LosingHeartOutcome(
        army_size=size,
        eliminated=eliminated,
        levels_due=due,
        levels_already_lost=already,
        shifts=shifts,
    )


# --- Command Response (p.25) ----------------------------------------------------------------------


def command_response_due(*, marker: str, enemy_within_inches: float | None) -> bool:
    """Whether a unit must take a Command Response test as it activates (FaD p.25): it activates
    Under Fire or Pinned, or 10" or less from an enemy unit (``None``: no enemy in reach)."""
    _check_marker(marker, "marker")
    near = enemy_within_inches is not None and enemy_within_inches <= COMMAND_RESPONSE_RANGE_INCHES
    return marker != NO_MARKER or near


@dataclass(frozen=True, slots=True)
class CommandResponseOutcome:
    """A Command Response test (FaD p.25): the d6 (a re-rolled one replaces the first), the
    modifiers, and whether the unit may act as its player chooses."""

    quality: Quality
    target_number: int
    modifiers: tuple[tuple[str, int], ...]
    faces: tuple[int, ...]
    total: int
    passed: bool
    rerolled: bool
    rolls: tuple[Roll, ...]


def command_response(
    *,
    dice: DiceSource,
    quality: Quality,
    took_casualties_last_turn: bool = False,
    untreated_wounded: bool = False,
    squad_leader_lost: bool = False,
    officer_present: bool = False,
    comms: bool = False,
    reroll_available: bool = False,
) -> CommandResponseOutcome:
    """Command Response (FaD p.25, advanced): roll 1d6, add the modifiers and compare with the
    unit's Quality Level (5+, 4+, 3+, 2+); equal or more passes.

    Modifiers: squad took casualties last turn -1, has untreated wounded -1, lost its squad
    leader -1, an officer present +1 (p.32), a Comms expert +1 (p.33). A unit that fails may
    still Shoot, Recover Wounded or call for Indirect Artillery Fire, but may Move only to
    improve cover and Rush only away from the enemy. With ``reroll_available`` (the side's HQ
    trait or Command Vehicle, once a turn, p.40, p.43) a failed test is rolled again and the
    second roll stands.
    """
    quality = Quality(quality)
    target = quality.target_number
    named = (
        ("took casualties last turn", -1, took_casualties_last_turn),
        ("untreated wounded", -1, untreated_wounded),
        ("squad leader lost", -1, squad_leader_lost),
        ("officer present", 1, officer_present),
        ("comms", 1, comms),
    )
    modifiers = tuple((name, value) for name, value, applies in named if applies)
    bonus = sum(value for _, value in modifiers)
    rolls = [dice.roll(Die.D6, "command response")]
    if rolls[0].result + bonus < target and reroll_available:
        rolls.append(dice.roll(Die.D6, "command response: HQ re-roll"))
    total = rolls[-1].result + bonus
    return CommandResponseOutcome(
        quality=quality,
        target_number=target,
        modifiers=modifiers,
        faces=tuple(roll.result for roll in rolls),
        total=total,
        passed=total >= target,
        rerolled=len(rolls) == 2,
        rolls=tuple(rolls),
    )


# --- Initiative (p.12) ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InitiativeRoll:
    """One side's initiative die, with Improved Intel's +1 while it lasts (p.11)."""

    side: str
    face: int
    bonus: int
    total: int
    intel_lost: bool


@dataclass(frozen=True, slots=True)
class InitiativeOutcome:
    """Who goes first this turn (FaD p.12): every throw (ties on the first turn are thrown
    again), the side that goes first, and whether a tie decided it."""

    throws: tuple[tuple[InitiativeRoll, InitiativeRoll], ...]
    first: str
    by_tie: bool
    rolls: tuple[Roll, ...]


def initiative(
    *,
    dice: DiceSource,
    sides: tuple[str, str],
    lost_last_turn: str | None = None,
    improved_intel: Iterable[str] = (),
) -> InitiativeOutcome:
    """Who activates first this turn (FaD p.12 TURN SEQUENCE): each side rolls 1d6, the highest
    goes first; "on a draw, the side that lost initiative last turn moves first this turn".

    Improved Intel (p.11) gives its side +1 "until an activation roll comes up a natural 1": we
    read that the natural 1 ends it at once, so that roll gets no +1. On a draw with no previous
    turn (``lost_last_turn`` None, the first turn) the book has no rule; both sides roll again.
    """
    first_side, second_side = sides
    if first_side == second_side:
        raise RuleError("initiative.refused", "Initiative is rolled between two sides.")
    if lost_last_turn is not None and lost_last_turn not in sides:
        raise RuleError(
            "initiative.refused", f"{lost_last_turn!r} is not one of the sides.", field="lost"
        )
    intel = set(improved_intel)
    rolls: list[Roll] = []
    throws: list[tuple[InitiativeRoll, InitiativeRoll]] = []
    while True:
        throw: list[InitiativeRoll] = []
        for side in sides:
            roll = dice.roll(Die.D6, f"initiative: {side}")
            rolls.append(roll)
            lost = side in intel and roll.result == 1
            if lost:
                intel.discard(side)
            bonus = 1 if side in intel else 0
            throw.append(InitiativeRoll(side, roll.result, bonus, roll.result + bonus, lost))
        throws.append((throw[0], throw[1]))
        if throw[0].total != throw[1].total:
            winner = max(throw, key=lambda t: t.total).side
            return InitiativeOutcome(tuple(throws), winner, False, tuple(rolls))
        if lost_last_turn is not None:
            return InitiativeOutcome(tuple(throws), lost_last_turn, True, tuple(rolls))


def grizzled(
    resolve: Resolve, quality: Quality, *, traits_grizzled_mode: GrizzledMode
) -> tuple[Resolve, Quality]:
    """The Resolve a Grizzled unit checks with and the Quality it takes its Morale Test at (FaD
    p.40, whose wording mixes the two: option ``traits_grizzled_mode``). By default its Resolve
    counts one level better; otherwise its Quality does. Neither goes past the best level."""
    if GrizzledMode(traits_grizzled_mode) is GrizzledMode.RESOLVE_PLUS_ONE:
        return Resolve(min(resolve + 1, Resolve.DETERMINED)), quality
    return resolve, Quality(min(quality + 1, Quality.ELITE))
