"""Stargrunt II suppression: markers, what they stop a unit doing, and their removal.

SG2 P.18 SUPPRESSION, SUPPRESSION OF INFANTRY UNITS, SUPPRESSION OF VEHICLES AND BUILDINGS,
MULTIPLE SUPPRESSIONS; the sources of markers in P.10 (a leader falls), P.24 (fired on in travel
mode), P.25 (recon by fire), P.27 (sniper fire), P.35 (a suppression or fully effective fire
result), P.43 (a failed close assault) and P.47 (an artillery burst); their effect on final
defensive fire (P.43). Goodall's clarifications (SG2-C Multiple Support Weapons; Remaining in a
Disabled Vehicle) are the options ``one_suppression_per_fire_action`` and
``non_penetrating_hit_suppresses``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from rules.dice import DiceSource, Roll
from rules.errors import RuleError
from rules.sg2.fire import FireEffect
from rules.sg2.morale import check_leadership
from rules.sg2.scales import Quality

MAX_SUPPRESSION_MARKERS = 3
"""A unit may carry up to three suppression markers at a time; more are ignored (P.18)."""

ACTIONS_PER_ACTIVATION = 2
"""A unit's leader has two actions when the unit is activated (P.15)."""


class SuppressionError(RuleError):
    """A suppression procedure the rules do not allow."""


class SuppressionCause(enum.StrEnum):
    """What puts a suppression marker on a unit (the book's page in each comment)."""

    FIRE = "fire"  # a suppression or fully effective fire result (P.35 step 1; P.37)
    TRAVEL_MODE = "travel_mode"  # fired on in travel mode, whatever the result (P.24)
    RECON_BY_FIRE = "recon_by_fire"  # a major success against a hidden counter (P.25)
    SNIPER = "sniper"  # sniper fire, even when both dice fail (P.27)
    ARTILLERY_BURST = "artillery_burst"  # any figure inside a burst, hurt or not (P.47)
    LEADER_CASUALTY = "leader_casualty"  # the unit leader becomes a casualty (P.10)
    FAILED_ASSAULT = "failed_assault"  # attackers who fail the test and withdraw (P.43)
    NON_PENETRATING_HIT = "non_penetrating_hit"  # a vehicle hit, by option (SG2-C)


class UnitAction(enum.StrEnum):
    """The actions P.18 names for a suppressed unit, and those it forbids."""

    MOVE = "move"
    FIRE = "fire"
    CLOSE_ASSAULT = "close_assault"
    DEFEND_IN_CLOSE_COMBAT = "defend_in_close_combat"
    REORGANISE = "reorganise"
    OBSERVE = "observe"
    COMMUNICATE = "communicate"
    REMOVE_SUPPRESSION = "remove_suppression"
    LEAVE_VEHICLE = "leave_vehicle"  # dismount, or a crew leaving its vehicle's protection
    FIRE_EXTERNAL_WEAPON = "fire_external_weapon"  # a manual pintle mount, the free SAW (P.31)


# P.18: the only things a suppressed infantry unit may do. Reorganising also needs cover.
_INFANTRY_MAY = (
    UnitAction.DEFEND_IN_CLOSE_COMBAT,
    UnitAction.REORGANISE,
    UnitAction.OBSERVE,
    UnitAction.COMMUNICATE,
    UnitAction.REMOVE_SUPPRESSION,
)

# P.18: a suppressed vehicle moves, fires and acts as normal, but nothing may leave its
# protection.
_VEHICLE_MAY_NOT = (UnitAction.LEAVE_VEHICLE, UnitAction.FIRE_EXTERNAL_WEAPON)


def check_markers(markers: int) -> None:
    """Refuse a count of suppression markers outside 0 to 3 (P.18)."""
    if (
        isinstance(markers, bool)
        or not isinstance(markers, int)
        or not 0 <= markers <= MAX_SUPPRESSION_MARKERS
    ):
        raise SuppressionError(
            "suppression.refused",
            f"A unit carries 0 to {MAX_SUPPRESSION_MARKERS} suppression markers, not {markers!r}.",
        )


@dataclass(frozen=True, slots=True)
class MarkersPlaced:
    """Suppression results put on a unit: its markers before and after, and those ignored."""

    before: int
    after: int
    ignored: int

    @property
    def placed(self) -> int:
        return self.after - self.before


def place_markers(markers: int, results: int = 1) -> MarkersPlaced:
    """Give a unit a marker for each suppression result (SG2 P.18 MULTIPLE SUPPRESSIONS).

    "If a unit receives another SUPPRESSION result while it already has a suppression counter
    on it, it gets another counter; a unit may accumulate up to THREE suppression counters in
    this way at any one time (any more over three are ignored)."
    """
    check_markers(markers)
    if isinstance(results, bool) or not isinstance(results, int) or results < 0:
        raise SuppressionError(
            "suppression.refused", f"Suppression results are 0 or more, not {results!r}."
        )
    after = min(markers + results, MAX_SUPPRESSION_MARKERS)
    return MarkersPlaced(before=markers, after=after, ignored=markers + results - after)


def fire_suppresses(effect: FireEffect, *, travel_mode: bool = False) -> bool:
    """Whether one fire gives its target a suppression result (SG2 P.35 step 1; P.24).

    One firer's die beating the range die is SUPPRESSION ONLY, two or more FULLY EFFECTIVE
    (suppression and potential casualties). A unit fired on in travel mode "AUTOMATICALLY
    receives a SUPPRESSION marker, regardless of the fire result" (P.24): one marker, not two.
    """
    return FireEffect(effect) is not FireEffect.NO_EFFECT or travel_mode


def fire_action_results(suppressing_results: int, *, one_suppression_per_fire_action: bool) -> int:
    """How many suppression results one fire action gives its target.

    By the book every suppression result places a marker (P.18), so weapons of one action
    resolved one by one (several support weapons at a point target) may place one each.
    Goodall's clarification (SG2-C Multiple Support Weapons; option
    ``one_suppression_per_fire_action``): "one fire action can result in only one suppression
    marker being placed", the marker for a fallen leader (P.10) apart.
    """
    if (
        isinstance(suppressing_results, bool)
        or not isinstance(suppressing_results, int)
        or suppressing_results < 0
    ):
        raise SuppressionError(
            "suppression.refused",
            f"Suppression results are 0 or more, not {suppressing_results!r}.",
        )
    if one_suppression_per_fire_action:
        return min(suppressing_results, 1)
    return suppressing_results


def vehicle_hit_suppresses(*, penetrated: bool, non_penetrating_hit_suppresses: bool) -> bool:
    """Whether a support or heavy weapon's hit on a vehicle puts a marker on it.

    The book places markers against vehicles that "take fire that would produce a suppression
    result" (P.18), and a hit by a support or heavy weapon (P.37-39) has no suppression result:
    by default no marker. Goodall (SG2-C Remaining in a Disabled Vehicle; option
    ``non_penetrating_hit_suppresses``): "On a non-penetrating hit, the vehicle takes a
    suppression marker"; a penetrating hit disables or destroys it, and the occupants who bail
    out are suppressed instead.
    """
    return non_penetrating_hit_suppresses and not penetrated


def may_act(
    action: UnitAction, *, markers: int, vehicle: bool = False, in_cover: bool = False
) -> bool:
    """Whether a unit with ``markers`` suppression markers may take ``action`` (SG2 P.18).

    Infantry may only defend itself in close combat (not fire at the oncoming assault),
    REORGANISE if in soft or hard cover, and its leader OBSERVE, COMMUNICATE and try to remove
    the suppression. A vehicle moves, fires and acts as normal, but its crew or passengers may
    not leave it nor fire a manually operated external weapon. Crew-served weapons may not fire
    while their crew is suppressed (P.30): they are infantry here.
    """
    check_markers(markers)
    action = UnitAction(action)
    if markers == 0:
        return True
    if vehicle:
        return action not in _VEHICLE_MAY_NOT
    if action is UnitAction.REORGANISE:
        return in_cover
    return action in _INFANTRY_MAY


def suppressed_may(*, vehicle: bool = False) -> tuple[UnitAction, ...]:
    """What a suppressed unit may still do (SG2 P.18), REORGANISE only in cover for infantry."""
    if vehicle:
        return tuple(action for action in UnitAction if action not in _VEHICLE_MAY_NOT)
    return _INFANTRY_MAY


def final_defensive_fire_threat_level(markers: int) -> int | None:
    """The reaction test a suppressed defender passes before firing at an assault (SG2 P.43).

    "The defenders may attempt to do this EVEN IF SUPPRESSED, although if they are then they must
    first pass a REACTION TEST with a Threat Level equal to the number of Suppression markers";
    an unsuppressed unit fires without a test (None).
    """
    check_markers(markers)
    return markers or None


@dataclass(frozen=True, slots=True)
class RemovalAttempt:
    """One action of the leader spent on a marker: the quality die and whether it beat his LV."""

    roll: Roll
    removed: bool


@dataclass(frozen=True, slots=True)
class SuppressionRemovalOutcome:
    """What the leader's actions did to the unit's markers."""

    markers_before: int
    markers_after: int
    target: int
    attempts: tuple[RemovalAttempt, ...]
    rolls: tuple[Roll, ...]

    @property
    def removed(self) -> int:
        return self.markers_before - self.markers_after

    @property
    def actions_spent(self) -> int:
        return len(self.attempts)


def remove_suppression(
    *, dice: DiceSource, quality: Quality, leadership: int, markers: int, actions: int = 1
) -> SuppressionRemovalOutcome:
    """The unit leader's attempts to remove suppression markers (SG2 P.18).

    "To do this requires the unit to be activated, and its Leader to expend one action, for
    which he gets to roll the unit quality die - if he scores greater than his own Leadership
    value, the suppression counter is removed and he may use his second action in any way
    desired. If the first roll fails, the player may try again with the leader's second action."
    Each marker takes its own successful roll (MULTIPLE SUPPRESSIONS). ``actions`` is how many of
    his two actions (P.15) the leader will spend; he stops when no marker is left. Independent
    figures roll the same way against their own leadership (P.26).

    Dice: one quality die per action spent.
    """
    check_leadership(leadership, who="the unit leader")
    check_markers(markers)
    if markers == 0:
        raise SuppressionError(
            "suppression.none", "The unit is not suppressed: it has no marker to remove."
        )
    if (
        isinstance(actions, bool)
        or not isinstance(actions, int)
        or not 1 <= actions <= ACTIONS_PER_ACTIVATION
    ):
        raise SuppressionError(
            "suppression.refused",
            f"A leader spends 1 or {ACTIONS_PER_ACTIVATION} actions of an activation (P.15), "
            f"not {actions!r}.",
        )
    die = Quality(quality).die
    left = markers
    attempts: list[RemovalAttempt] = []
    for _ in range(actions):
        if left == 0:
            break
        roll = dice.roll(die, "suppression removal")
        removed = roll.result > leadership
        left -= int(removed)
        attempts.append(RemovalAttempt(roll=roll, removed=removed))
    return SuppressionRemovalOutcome(
        markers_before=markers,
        markers_after=left,
        target=leadership,
        attempts=tuple(attempts),
        rolls=tuple(attempt.roll for attempt in attempts),
    )
