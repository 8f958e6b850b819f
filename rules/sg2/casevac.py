"""Stargrunt II casualty evacuation (CASEVAC) and the Inbound Chart it travels on.

SG2 p.54 CASUALTY EVACUATION (CASEVAC); p.44-45 THE INBOUND CHART, STARTING POSITIONS ON INBOUND
CHART, UNITS LEAVING THE BATTLE AREA.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Literal

from rules.dice import DiceSource, Die, Roll
from rules.errors import RuleError
from rules.sg2.command import CommandLevel, CommunicationOutcome, communication_roll, shift_die
from rules.sg2.morale import check_leadership, raise_confidence
from rules.sg2.scales import Confidence, Quality


class CasevacError(RuleError):
    """A casevac order the rules refuse, with a stable code for the interface to show."""


# --- The Inbound Chart (p.44-45) ------------------------------------------------------------------


class InboundBox(enum.Enum):
    """Where a counter sits on a player's side of the Inbound Chart (p.44)."""

    BOX_3 = "box_3"
    BOX_2 = "box_2"
    BOX_1 = "box_1"
    LOITER = "loiter"
    BATTLE_AREA = "battle_area"


NUMBERED_BOXES: dict[int, InboundBox] = {
    1: InboundBox.BOX_1,
    2: InboundBox.BOX_2,
    3: InboundBox.BOX_3,
}

_INWARD = {
    InboundBox.BOX_3: InboundBox.BOX_2,
    InboundBox.BOX_2: InboundBox.BOX_1,
    InboundBox.BOX_1: InboundBox.BATTLE_AREA,
}
_OUTWARD = {
    InboundBox.BATTLE_AREA: InboundBox.BOX_1,
    InboundBox.BOX_1: InboundBox.BOX_2,
    InboundBox.BOX_2: InboundBox.BOX_3,
}


def inbound_turn_end(
    position: InboundBox, *, is_unit: bool = True, to_loiter: bool = False
) -> InboundBox:
    """Where an inbound counter goes in the Turn End Phase (no dice).

    SG2 p.44 THE INBOUND CHART: every counter moves one box toward the Battle Area, including
    counters placed this turn. A unit (never a fire mission) in box 1 may go to LOITER instead,
    and stays there until called in by a successful communication.
    """
    if to_loiter and (position is not InboundBox.BOX_1 or not is_unit):
        raise RuleError("casevac.refused", "Only a unit in box 1 may be sent to the LOITER box.")
    if position is InboundBox.LOITER:
        return position
    if position is InboundBox.BATTLE_AREA:
        raise RuleError("casevac.refused", "The counter has already reached the Battle Area.")
    if to_loiter:
        return InboundBox.LOITER
    return _INWARD[position]


def outbound_turn_end(position: InboundBox) -> InboundBox:
    """Where a counter leaving the table goes in the Turn End Phase (no dice).

    SG2 p.45 UNITS LEAVING THE BATTLE AREA: units leaving move outward one box per turn, as far as
    the scenario says their base is (a casevac by default to box 3, p.54).
    """
    if position not in _OUTWARD:
        raise RuleError("casevac.refused", f"A counter in {position.name} cannot move further out.")
    return _OUTWARD[position]


CASEVAC_TURNAROUND_BOX = InboundBox.BOX_3
"""Unless the scenario says otherwise, a casevac must reach box 3 before it comes back (p.54)."""


@dataclass(frozen=True, slots=True)
class RandomInboundOutcome:
    """The box a randomly arriving unit starts in."""

    box: InboundBox
    rolls: tuple[Roll, ...]


def random_inbound_box(*, dice: DiceSource) -> RandomInboundOutcome:
    """Decide which box a reinforcement arriving at random starts in.

    SG2 p.45 STARTING POSITIONS ON INBOUND CHART: roll a D6 and halve it. The book does not say
    how to round (digest AMBIG-13); Muster rounds up, so 1-2 is box 1, 3-4 box 2, 5-6 box 3.
    """
    roll = dice.roll(Die.D6, "random arrival box")
    return RandomInboundOutcome(box=NUMBERED_BOXES[math.ceil(roll.result / 2)], rolls=(roll,))


# --- Calling the casevac (p.54) -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CasevacCallOutcome:
    """The result of a call for the casevac and where its counter goes."""

    called: bool
    communication: CommunicationOutcome
    # None: a casevac that must come from a distance is not on the chart until called.
    position_after: InboundBox | None
    may_activate_this_turn: bool
    rolls: tuple[Roll, ...]


def casevac_call(
    *,
    dice: DiceSource,
    caller_quality: Quality,
    caller_leadership: int,
    caller_level: CommandLevel,
    highest_level_on_table: CommandLevel,
    casevac_crew_leadership: int | None = None,
    casevac_in_loiter: bool = True,
    jamming_die: Die | None = None,
    casevac_call_box: int = 2,
    casevac_enters: Literal["next_turn", "same_turn"] = "next_turn",
) -> CasevacCallOutcome:
    """Decide whether an on-table unit leader gets the casevac called in.

    SG2 p.54 CASUALTY EVACUATION: a communication roll (p.16) with the caller's quality die,
    the casevac being allocated at the highest command level on the table: a caller at that level
    rolls his die unshifted, each level below it shifts the die down one type (a squad leader
    under a platoon commander: one type). Success needs a score above the poorer LV of the caller
    and the casevac crew (the caller's own if the crew has none, digest AMBIG-14). Enemy EW may
    jam it (p.52): give the jamming die, rolled after the caller's.

    On success a casevac waiting in LOITER moves straight to the BATTLE AREA; by p.54 it enters
    the table on the NEXT turn (option ``casevac_enters``, default "next_turn"; "same_turn" follows
    the general loiter rule of p.44). A casevac not waiting in LOITER has to come from a distance:
    its counter is placed in box ``casevac_call_box`` (option, default 2; the book gives none).
    """
    check_leadership(caller_leadership, who="the caller")
    if casevac_crew_leadership is not None:
        check_leadership(casevac_crew_leadership, who="the casevac crew")
    if caller_level > highest_level_on_table:
        raise RuleError(
            "casevac.refused", "The caller cannot be above the highest command level on the table."
        )
    if casevac_call_box not in NUMBERED_BOXES:
        raise RuleError(
            "casevac.refused", f"casevac_call_box is 1, 2 or 3, not {casevac_call_box!r}."
        )
    if casevac_enters not in ("next_turn", "same_turn"):
        raise RuleError(
            "casevac.refused",
            f"casevac_enters is 'next_turn' or 'same_turn', not {casevac_enters!r}.",
        )
    communication = communication_roll(
        dice=dice,
        die=shift_die(caller_quality.die, -(highest_level_on_table - caller_level)),
        sender_leadership=caller_leadership,
        receiver_leadership=(
            caller_leadership if casevac_crew_leadership is None else casevac_crew_leadership
        ),
        jamming_die=jamming_die,
    )
    position: InboundBox | None
    if not communication.success:
        position = InboundBox.LOITER if casevac_in_loiter else None
    elif casevac_in_loiter:
        position = InboundBox.BATTLE_AREA
    else:
        position = NUMBERED_BOXES[casevac_call_box]
    return CasevacCallOutcome(
        called=communication.success,
        communication=communication,
        position_after=position,
        may_activate_this_turn=(
            communication.success and casevac_in_loiter and casevac_enters == "same_turn"
        ),
        rolls=communication.rolls,
    )


# --- Loading (p.54) -------------------------------------------------------------------------------


def casevac_capacity(
    *, troop_capacity: int, casevac_capacity_rounding: Literal["down", "up"] = "down"
) -> int:
    """How many injured a casevac vehicle may carry: half its normal troop complement (p.54).

    The book does not say how to round an odd complement: option ``casevac_capacity_rounding``
    (default "down").
    """
    if isinstance(troop_capacity, bool) or not isinstance(troop_capacity, int):
        raise RuleError(
            "casevac.refused", f"A troop capacity is a whole number, not {troop_capacity!r}."
        )
    if troop_capacity < 0:
        raise RuleError(
            "casevac.refused", f"A troop capacity cannot be negative ({troop_capacity})."
        )
    if casevac_capacity_rounding == "down":
        return troop_capacity // 2
    if casevac_capacity_rounding == "up":
        return math.ceil(troop_capacity / 2)
    raise RuleError(
        "casevac.refused",
        f"casevac_capacity_rounding is 'down' or 'up', not {casevac_capacity_rounding!r}.",
    )


@dataclass(frozen=True, slots=True)
class CasevacLoadOutcome:
    """How many injured are aboard after a loading action, and whether the vehicle must leave."""

    aboard: int
    capacity: int
    full: bool
    rolls: tuple[Roll, ...] = ()


def load_casevac(
    *,
    troop_capacity: int,
    aboard: int,
    stabilised: int,
    untreated: int = 0,
    casevac_capacity_rounding: Literal["down", "up"] = "down",
    casevac_loads_untreated: bool = False,
) -> CasevacLoadOutcome:
    """Load casualties of one squad into the casevac (one action, in direct contact; no dice).

    SG2 p.54: the casevac loads stabilised casualties, and never holds more injured than half the
    vehicle's normal troop complement (:func:`casevac_capacity`); loading beyond that is refused
    with code ``casevac.over_capacity``. Several pickups are allowed; a full vehicle must leave at
    once. The book mentions only stabilised casualties: option ``casevac_loads_untreated``
    (default False) refuses untreated ones with code ``casevac.untreated``.
    """
    capacity = casevac_capacity(
        troop_capacity=troop_capacity, casevac_capacity_rounding=casevac_capacity_rounding
    )
    for name, count in (("aboard", aboard), ("stabilised", stabilised), ("untreated", untreated)):
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise RuleError(
                "casevac.refused", f"The number of casualties {name} cannot be {count!r}."
            )
    if aboard > capacity:
        raise CasevacError(
            "casevac.over_capacity",
            f"{aboard} injured aboard is already more than this vehicle's {capacity}.",
        )
    if untreated and not casevac_loads_untreated:
        raise CasevacError(
            "casevac.untreated",
            "The casevac takes stabilised casualties only; treat the untreated ones first.",
        )
    loading = stabilised + untreated
    if loading == 0:
        raise RuleError("casevac.refused", "A loading action needs at least one casualty to load.")
    if aboard + loading > capacity:
        raise CasevacError(
            "casevac.over_capacity",
            f"This casevac holds at most {capacity} injured (half its troop capacity of "
            f"{troop_capacity}); {aboard} are aboard, so {loading} more will not fit.",
        )
    return CasevacLoadOutcome(
        aboard=aboard + loading, capacity=capacity, full=aboard + loading == capacity
    )


# --- Confidence rises when the casevac leaves (p.54) ----------------------------------------------


@dataclass(frozen=True, slots=True)
class CasevacMoraleOutcome:
    """A unit's confidence rise when the casevac leaves with wounded aboard."""

    eligible: bool
    levels_gained: int
    confidence_before: Confidence
    confidence_after: Confidence
    rolls: tuple[Roll, ...]


def _no_rise(confidence: Confidence, *, eligible: bool) -> CasevacMoraleOutcome:
    return CasevacMoraleOutcome(
        eligible=eligible,
        levels_gained=0,
        confidence_before=confidence,
        confidence_after=confidence,
        rolls=(),
    )


def casevac_rise_for_loaded_unit(
    *, dice: DiceSource, confidence: Confidence
) -> CasevacMoraleOutcome:
    """Decide how much a squad's confidence rises when the casevac leaves with its wounded.

    SG2 p.54: roll a D6, whatever the unit's quality or leadership: 1-2 no change, 3-5 up one
    level, 6 up two levels. Unlike a rally, this may lift fatigued troops above their starting
    level, up to CONFIDENT but never beyond; a unit already CONFIDENT does not roll. Each squad
    whose casualties were loaded rolls once, when the vehicle leaves (digest AMBIG-15).
    """
    if confidence >= Confidence.CONFIDENT:
        return _no_rise(confidence, eligible=True)
    roll = dice.roll(Die.D6, "casevac confidence rise for the loaded squad")
    if roll.result == 6:
        levels = 2
    elif roll.result >= 3:
        levels = 1
    else:
        levels = 0
    after = raise_confidence(confidence, levels)
    return CasevacMoraleOutcome(
        eligible=True,
        levels_gained=after - confidence,
        confidence_before=confidence,
        confidence_after=after,
        rolls=(roll,),
    )


def casevac_rise_for_nearby_unit(
    *,
    dice: DiceSource,
    confidence: Confidence,
    within_12_inches: bool,
    has_wounded_awaiting_evacuation: bool,
    in_sight: bool = True,
    casevac_nearby_requires_los: bool = False,
) -> CasevacMoraleOutcome:
    """Decide whether seeing comrades evacuated lifts another unit's confidence.

    SG2 p.54: every other friendly unit within 12" of a unit the casevac attended, with no
    wounded of its own to be evacuated, rolls a D6 and rises one level on 5 or 6, up to CONFIDENT
    whatever its fatigue. The p.54 summary adds "and in sight": option
    ``casevac_nearby_requires_los`` (default False). Units that do not qualify, or are already
    CONFIDENT, roll nothing.
    """
    eligible = (
        within_12_inches
        and not has_wounded_awaiting_evacuation
        and (in_sight or not casevac_nearby_requires_los)
    )
    if not eligible or confidence >= Confidence.CONFIDENT:
        return _no_rise(confidence, eligible=eligible)
    roll = dice.roll(Die.D6, "casevac confidence rise for a nearby unit")
    after = raise_confidence(confidence, 1 if roll.result >= 5 else 0)
    return CasevacMoraleOutcome(
        eligible=True,
        levels_gained=after - confidence,
        confidence_before=confidence,
        confidence_after=after,
        rolls=(roll,),
    )
