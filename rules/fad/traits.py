"""Fast and Dirty traits and declarations the battle actions apply themselves: the bonus traits a
mission gives a force (FaD p.62-63 MISSION DETAILS), the Under Fire and Pinned markers some units
ignore (p.24; Last Stand p.31, Hardened p.40, Relentless p.41), a heavy weapons team attached to a
squad (p.29) and the psionic power Embolden (p.34).

Traits are named by their keys (``assault_troops``, ``hardened``); :func:`trait_key` turns a
roster's text ("Assault Troops") into one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rules.errors import RuleError
from rules.fad.morale import NO_MARKER, PINNED, UNDER_FIRE
from rules.fad.tree import Mission


class TraitError(RuleError):
    """Trait choices the rules cannot use; ``code`` says which."""


def trait_key(text: str) -> str:
    """A trait's key from the way a roster or a player writes it: "Shock Troops",
    "shock-troops" and "shock_troops" are ``shock_troops``."""
    return "_".join(text.strip().lower().replace("-", " ").replace("_", " ").split())


# --- mission bonuses (p.62-63) ------------------------------------------------------------------

# The traits each mission's bonus gives the force. Hold gives field defences and Strike a sniper
# (no trait); an Escalating Engagement's bonuses are the Sweep's (p.62).
MISSION_BONUS_TRAITS: Mapping[Mission, tuple[str, ...]] = {
    Mission.ASSAULT: ("assault_troops", "hardened"),
    Mission.ESCALATING_ENGAGEMENT: ("brave", "shock_troops"),
    Mission.EXPAND: ("grizzled", "tough"),
    Mission.HOLD: (),
    Mission.INFILTRATE: ("infiltrate", "stealth"),
    Mission.INTERFERE: ("recon",),
    Mission.PATROL: ("agile", "elusive"),
    Mission.STRIKE: (),
    Mission.SWEEP: ("brave", "shock_troops"),
}


@dataclass(frozen=True, slots=True)
class BonusTraits:
    """One unit given some of a mission's bonus traits."""

    unit: str
    traits: tuple[str, ...]


def check_mission_bonus(
    mission: Mission | str, given: Sequence[BonusTraits]
) -> tuple[BonusTraits, ...]:
    """The mission's bonus traits as the player gives them (FaD p.62 MISSION DETAILS): "If
    multiple traits are listed, they can be assigned to one unit, or split between two". Every
    trait of the mission card is given once, each unit named receives at least one, and a unit
    is named once; a mission whose bonus is no trait (Hold, Strike) gives none. Returns the
    assignment with each unit's traits as keys."""
    mission = Mission(mission)
    card = MISSION_BONUS_TRAITS[mission]
    title = mission.value.replace("_", " ").title()
    if not card:
        raise TraitError(
            "mission_bonus.no_traits",
            f"The {title} mission's bonus is not a trait (p.62-63): nothing to give.",
        )
    assigned = tuple(
        BonusTraits(unit=g.unit, traits=tuple(trait_key(t) for t in g.traits)) for g in given
    )
    units = [g.unit for g in assigned]
    if len(set(units)) != len(units):
        raise TraitError("mission_bonus.unit_twice", "Name each unit once.", field="units")
    for index, g in enumerate(assigned):
        if not g.traits:
            raise TraitError(
                "mission_bonus.no_traits_given",
                "Each unit named receives at least one of the mission's traits.",
                field=f"units.{index}.traits",
            )
    listed = ", ".join(t.replace("_", " ").title() for t in card)
    if Counter(t for g in assigned for t in g.traits) != Counter(card):
        raise TraitError(
            "mission_bonus.wrong_traits",
            f"The {title} mission gives {listed}, each once (p.62-63).",
            field="units",
        )
    return assigned


# --- markers some units ignore (p.24) -----------------------------------------------------------

RELENTLESS = "relentless"
HARDENED = "hardened"


def marker_in_effect(
    marker: str, *, traits: Iterable[str] = (), last_stand: bool = False, casualties: int = 0
) -> str:
    """The marker whose effects the unit suffers (FaD p.24): its own, unless it ignores it.

    Relentless troops "ignore the effects of being Under Fire or Pinned" (p.41), and so does a
    unit making a Last Stand (p.31); Hardened troops "ignore being Under Fire until they suffer
    their first casualty" (p.40), ``casualties`` being the figures the unit has lost in the
    battle. A Hardened unit that is Pinned is Pinned."""
    if marker not in (NO_MARKER, UNDER_FIRE, PINNED):
        raise TraitError(
            "marker.unknown",
            f"{marker!r} is not a marker: none (''), 'under_fire' or 'pinned' (p.24).",
            field="marker",
        )
    keys = {trait_key(t) for t in traits}
    if marker == NO_MARKER or last_stand or RELENTLESS in keys:
        return NO_MARKER
    if marker == UNDER_FIRE and HARDENED in keys and casualties == 0:
        return NO_MARKER
    return marker


def ignores_pinned(*, traits: Iterable[str] = (), last_stand: bool = False) -> bool:
    """Whether a Pinned unit still acts as if unpinned (p.24; Relentless p.41, Last Stand
    p.31)."""
    return marker_in_effect(PINNED, traits=traits, last_stand=last_stand) == NO_MARKER


# --- a heavy weapons team attached to a squad (p.29) --------------------------------------------


@dataclass(frozen=True, slots=True)
class ResolveCount:
    """The numbers a unit's Resolve is checked against (p.13): its original size and its
    casualties."""

    original_size: int
    casualties: int


def with_attached_team(squad: ResolveCount, team: ResolveCount) -> ResolveCount:
    """A squad with a heavy weapons team attached (FaD p.29): "For purposes of Checking Resolve
    and taking Morale Tests, the numbers of the two squads are combined"."""
    for what, count in (("squad", squad), ("team", team)):
        if count.original_size < 1 or count.casualties < 0:
            raise TraitError(
                "resolve.invalid",
                f"The {what}'s original size is 1 or more and its casualties 0 or more.",
            )
    return ResolveCount(
        original_size=squad.original_size + team.original_size,
        casualties=squad.casualties + team.casualties,
    )


# --- Embolden (p.34) ----------------------------------------------------------------------------


def takes_morale_test(*, broken: bool, forced: bool, emboldened: bool = False) -> bool:
    """Whether the unit takes a Morale Test as it activates (p.13): when Broken, or forced by a
    Terrifying squad or Terror (p.41, p.34), unless a psionic Emboldened it: "One friendly unit
    does not have to take a morale test the next time they activate" (p.34)."""
    return (broken or forced) and not emboldened
