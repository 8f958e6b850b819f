"""Stargrunt II off-table fire support: requesting it, when it arrives, where it lands.

SG2 P.44 CALLING FOR ARTILLERY FIRE SUPPORT and REQUESTING AIR SUPPORT (the request roll), P.45
STARTING POSITIONS ON INBOUND CHART, P.46 ARRIVAL OF FIRE SUPPORT, FIRE SUPPORT ACCURACY and
MULTIPLE INCOMING ROUNDS. What the rounds do to the figures in their bursts is
:func:`rules.sg2.casualties.artillery_casualties` (P.46-47).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from rules.dice import DiceSource, Die, Roll, shift_die
from rules.errors import RuleError
from rules.sg2.command import CommandLevel, bypassed_levels
from rules.sg2.morale import check_leadership
from rules.sg2.options import FireMissionArrival, InboundStart, SupportFactors
from rules.sg2.scales import Quality

REQUEST_DIE = Die.D8
"""The die a support request starts from, before its shifts (P.44)."""

MAX_SALVO_ROUNDS = 12


class SupportKind(enum.StrEnum):
    """What is asked for (P.44): each has its own factor added to the caller's LV."""

    ARTILLERY = "artillery"
    ORBITAL = "orbital"
    AIR = "air"


class FireSupportError(RuleError):
    def __init__(self, message: str) -> None:
        super().__init__("fire_support.refused", message)


def request_die(*, bypassed: int, chits: int) -> Die:
    """The request die (P.44): a D8, one type lower per command level bypassed between the caller
    and the level the asset is allocated at, one type higher per support request counter committed.
    The shifts are closed (P.6): never below D4 nor above D12."""
    if bypassed < 0 or chits < 0:
        raise FireSupportError("Bypassed levels and committed counters cannot be negative.")
    return shift_die(REQUEST_DIE, chits - bypassed)


def request_factor(kind: SupportKind, *, dedicated: bool, factors: SupportFactors) -> int:
    """What is added to the caller's LV (P.44: artillery +0 by the battery's own forward observer,
    else +2; orbital +3 by an orbital liaison, else +6; air +2 by an air liaison, else +4), as the
    campaign's option ``support_factors`` sets them."""
    by_kind = {
        SupportKind.ARTILLERY: (factors.artillery_dedicated, factors.artillery),
        SupportKind.ORBITAL: (factors.orbital_dedicated, factors.orbital),
        SupportKind.AIR: (factors.air_dedicated, factors.air),
    }
    with_liaison, otherwise = by_kind[kind]
    return with_liaison if dedicated else otherwise


@dataclass(frozen=True, slots=True)
class SupportRequestOutcome:
    """A request for support: whether it got through, and the roll behind it."""

    granted: bool
    die: Die
    target: int
    bypassed: int
    rolls: tuple[Roll, ...]


def request_support(
    *,
    dice: DiceSource,
    kind: SupportKind,
    caller_leadership: int,
    caller_level: CommandLevel,
    asset_level: CommandLevel,
    dedicated: bool = False,
    chits: int = 0,
    factors: SupportFactors | None = None,
) -> SupportRequestOutcome:
    """Request artillery, orbital or air support (SG2 P.44).

    One die, a D8 shifted down one type per command level bypassed between the caller and the
    asset (none for a dedicated observer or liaison element of that asset, "a cross-attached
    element from the support unit") and up one per counter committed; granted when it scores
    more than the caller's LV plus the support's factor. Counters committed are spent whatever
    the roll. Dice: the request die.
    """
    check_leadership(caller_leadership, who="the caller")
    bypassed = 0 if dedicated else bypassed_levels(caller_level, asset_level)
    die = request_die(bypassed=bypassed, chits=chits)
    target = caller_leadership + request_factor(
        kind, dedicated=dedicated, factors=factors or SupportFactors()
    )
    roll = dice.roll(die, f"{kind.value} support request")
    return SupportRequestOutcome(
        granted=roll.result > target, die=die, target=target, bypassed=bypassed, rolls=(roll,)
    )


def starting_box(
    kind: SupportKind, *, asset_level: CommandLevel, start: InboundStart | None = None
) -> int:
    """The Inbound Chart box a granted fire mission starts in (P.45-46 guidelines, option
    ``inbound_start``): company assets box 1, battalion box 2, regiment or higher box 3, orbital
    fire box 3 whoever provides it."""
    start = start or InboundStart()
    if kind is SupportKind.ORBITAL:
        return start.orbital
    if asset_level <= CommandLevel.COMPANY:
        return start.company
    if asset_level is CommandLevel.BATTALION:
        return start.battalion
    return start.regiment


def available_turn(requested_turn: int, box: int, *, arrival: FireMissionArrival) -> int:
    """The turn a fire mission placed in ``box`` in turn ``requested_turn`` can be brought down.

    Counters move one box in each Turn End Phase, the turn they were placed included (P.44).
    As printed (P.46), a mission is available once it is in box 1: a mission placed in box 1
    arrives the same turn. Read as Goodall's clarifications read it (SG2-C), it must first move
    into the Battle Area, a turn later."""
    if box < 1:
        raise FireSupportError(f"The Inbound Chart has boxes 1 to 3, not {box}.")
    if arrival is FireMissionArrival.BOX1_SAME_TURN:
        return requested_turn + box - 1
    return requested_turn + box


def accuracy_target(leadership: int, *, guided: bool) -> int:
    """What the requesting unit's quality die must beat for the mission to land on its marker
    (P.46): its LV with a specialist observer with designation equipment who can still see the
    impact point, otherwise twice its LV."""
    check_leadership(leadership, who="the requesting unit")
    return leadership if guided else 2 * leadership


@dataclass(frozen=True, slots=True)
class RoundPlacement:
    """Where one round of a salvo lands: round 1 on the (possibly deviated) impact point, each
    other round ``distance`` inches from round 1 towards ``direction`` on the clock face (12
    perpendicular to the firer's baseline, P.46)."""

    round: int
    direction: int | None
    distance: int


@dataclass(frozen=True, slots=True)
class LandingOutcome:
    """Where a fire mission came down (P.46)."""

    accurate: bool
    feature_direction: int | None
    feature_distance: int
    accuracy_die: Die
    accuracy_roll: int
    target: int
    deviation_direction: int | None
    deviation_distance: int
    rounds: tuple[RoundPlacement, ...]
    rolls: tuple[Roll, ...]


def fire_mission_landing(
    *,
    dice: DiceSource,
    quality: Quality,
    leadership: int,
    guided: bool,
    rounds: int,
    in_large_feature: bool = False,
) -> LandingOutcome:
    """Bring a fire mission down (SG2 P.46 FIRE SUPPORT ACCURACY, MULTIPLE INCOMING ROUNDS).

    The requesting unit's quality die must beat :func:`accuracy_target`. If it does not, the
    impact point deviates: a D12 for the direction (clock face) and a D8 for the distance, in
    inches multiplied by the score of the failed accuracy roll ("if a unit with LV 2 scored a 2
    ... the Distance die score is multiplied by 2"). The first round lands on the impact point;
    each further round of the salvo lands a D12 direction and D6 inches from the first.

    Aimed at a terrain feature larger than the burst radius (SG2-C Firing Artillery at Terrain
    Features, option ``artillery_terrain_targeting``), the marker is first placed at the
    feature's centre and moved a D12 direction and D8 inches, never past the feature's edge;
    then accuracy as usual.

    Dice: for a large terrain feature, its D12 and D8; the accuracy die; if it failed, the
    direction D12 and the distance D8; then per further round its direction D12 and distance D6.
    """
    if not 1 <= rounds <= MAX_SALVO_ROUNDS:
        raise FireSupportError(
            f"A salvo has 1 to {MAX_SALVO_ROUNDS} rounds (one per weapon in the battery), "
            f"not {rounds}."
        )
    target = accuracy_target(leadership, guided=guided)
    rolls: list[Roll] = []
    feature_direction: int | None = None
    feature_distance = 0
    if in_large_feature:
        rolls += [
            dice.roll(Die.D12, "placement in the terrain feature, direction"),
            dice.roll(Die.D8, "placement in the terrain feature, distance"),
        ]
        feature_direction, feature_distance = rolls[0].result, rolls[1].result
    accuracy = dice.roll(quality.die, "fire mission accuracy")
    rolls.append(accuracy)
    accurate = accuracy.result > target
    direction: int | None = None
    distance = 0
    if not accurate:
        direction_roll = dice.roll(Die.D12, "deviation direction")
        distance_roll = dice.roll(Die.D8, "deviation distance")
        rolls += [direction_roll, distance_roll]
        direction = direction_roll.result
        distance = distance_roll.result * accuracy.result
    placements = [RoundPlacement(round=1, direction=None, distance=0)]
    for number in range(2, rounds + 1):
        round_direction = dice.roll(Die.D12, f"round {number} direction from round 1")
        round_distance = dice.roll(Die.D6, f"round {number} distance from round 1")
        rolls += [round_direction, round_distance]
        placements.append(
            RoundPlacement(
                round=number, direction=round_direction.result, distance=round_distance.result
            )
        )
    return LandingOutcome(
        accurate=accurate,
        feature_direction=feature_direction,
        feature_distance=feature_distance,
        accuracy_die=quality.die,
        accuracy_roll=accuracy.result,
        target=target,
        deviation_direction=direction,
        deviation_distance=distance,
        rounds=tuple(placements),
        rolls=tuple(rolls),
    )
