"""The rulesets Muster can run a campaign under, as objects the service asks.

A :class:`RulesetDefinition` holds what a campaign's ruleset decides everywhere outside the
rules' own procedures: its options (type and schema), its scales (the qualities a roster may give,
the unit ratings it uses, how fatigue sets the confidence a unit starts a battle at) and its
roster-file rules. The Django apps look a campaign's ruleset up by its code and ask it; they keep
their own registries, keyed by the same code, for what only they can do (battle actions,
after-action and between-battle steps). Registering a definition and those entries is all a new
ruleset takes.

:class:`Ruleset` names the two rulesets that ship with Muster (Stargrunt II and Fast and Dirty).
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.errors import RuleError


class Ruleset(enum.StrEnum):
    """A built-in ruleset; the value is the short code stored with a campaign."""

    SG2 = "sg2"
    FAD = "fad"

    @property
    def label(self) -> str:
        """The ruleset's name as people write it."""
        return _LABELS[self]


_LABELS = {
    Ruleset.SG2: "Stargrunt II",
    Ruleset.FAD: "Fast and Dirty",
}


def no_starting_confidence(fatigue: str | None) -> str | None:
    """For rulesets without a confidence ladder: a unit starts a battle with none."""
    return None


@dataclass(frozen=True)
class Readiness:
    """How a unit starts a battle: the fatigue it fights at, its starting confidence, and the
    effect of being unsupplied it suffers (an option's value), if any."""

    fatigue: str | None
    confidence: str | None
    unsupplied_effect: str | None = None


def unchanged_readiness(fatigue: str | None, *, supplied: bool, options: Any) -> Readiness:
    """For rulesets whose book says nothing of supplies: the unit fights as it stands."""
    return Readiness(fatigue=fatigue or None, confidence=None)


@dataclass(frozen=True)
class RulesetDefinition:
    """One ruleset as the service sees it.

    ``qualities`` are the quality names a roster may give a unit, worst first. ``unit_ratings``
    are the unit fields the ruleset rates units by besides quality (``leadership``, ``resolve``,
    ...): a roster giving another ruleset's rating is refused; ``required_ratings`` are those
    every unit must have, and ``rating_names`` the words a named rating may take.
    ``leader_experiences`` are the words a squad leader's experience may take, worst first (the
    first is a leader's when the roster gives none); empty for a ruleset that keeps none.
    ``vehicle_armour`` says whether roster vehicles carry armour dice. ``starting_confidence``
    maps a unit's fatigue to the confidence it starts a battle at; ``battle_readiness`` adds
    what its supplies and the campaign's options do to that. ``procedures`` names the
    between-battle procedures of the book that the service offers for it (``regroup``,
    ``platoon_replacements``, ``rest_and_recovery``, ``campaign_points``).
    """

    code: str
    label: str
    options_type: type
    qualities: tuple[str, ...]
    unit_ratings: tuple[str, ...] = ()
    required_ratings: tuple[str, ...] = ()
    rating_names: Mapping[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    leader_experiences: tuple[str, ...] = ()
    vehicle_armour: bool = False
    procedures: frozenset[str] = frozenset()
    starting_confidence: Callable[[str | None], str | None] = field(
        default=no_starting_confidence, compare=False
    )
    battle_readiness: Callable[..., Readiness] = field(default=unchanged_readiness, compare=False)

    def __str__(self) -> str:
        return self.code

    def has(self, procedure: str) -> bool:
        """Whether the ruleset's book has this between-battle procedure."""
        return procedure in self.procedures


_DEFINITIONS: dict[str, RulesetDefinition] = {}
_BUILT_IN_LOADED = threading.Event()


def register(definition: RulesetDefinition) -> RulesetDefinition:
    """Make a ruleset available to campaigns under its code."""
    existing = _DEFINITIONS.get(definition.code)
    if existing is not None and existing != definition:
        raise RuleError(
            "ruleset.duplicate",
            f"A different ruleset is already registered as {definition.code!r}.",
        )
    _DEFINITIONS[definition.code] = definition
    return definition


def unregister(code: str) -> None:
    """Withdraw a ruleset (for tests that register one of their own)."""
    _DEFINITIONS.pop(code, None)


def _load_built_in() -> None:
    if not _BUILT_IN_LOADED.is_set():
        # Imported here: the ruleset packages import this module.
        import rules.sg2.ruleset  # noqa: I001 - the first ruleset Muster had comes first
        import rules.fad.ruleset  # noqa: F401

        _BUILT_IN_LOADED.set()


def definitions() -> list[RulesetDefinition]:
    """Every ruleset a campaign can be created under, in the order they were registered."""
    _load_built_in()
    return list(_DEFINITIONS.values())


def definition(code: str | Ruleset | RulesetDefinition) -> RulesetDefinition:
    """The ruleset registered under ``code``, or a refusal that lists the known ones."""
    if isinstance(code, RulesetDefinition):
        return code
    _load_built_in()
    found = _DEFINITIONS.get(str(code))
    if found is None:
        known = ", ".join(_DEFINITIONS)
        raise RuleError(
            "ruleset.unknown", f"Unknown ruleset {str(code)!r}: known rulesets are {known}."
        )
    return found
