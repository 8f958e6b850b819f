"""Morale in battle: confidence tests (SG2 P.20-21), reaction tests (P.21), rallying and
regrouping (P.17). The battle log folds the events in :mod:`.projection`; what regrouping does
to units and troopers is folded by the rosters (:mod:`rosters.in_battle`)."""

from battles.morale.confidence import (
    ConfidenceTest,
    ConfidenceTested,
    ReactionTest,
    ReactionTested,
    unit_morale,
)
from battles.morale.projection import MoraleProjection
from battles.morale.rally import (
    Rally,
    RallyAttempted,
    Regroup,
    UnitsRegrouped,
    command_level,
    fatigue_of,
)

__all__ = [
    "ConfidenceTest",
    "ConfidenceTested",
    "MoraleProjection",
    "Rally",
    "RallyAttempted",
    "ReactionTest",
    "ReactionTested",
    "Regroup",
    "UnitsRegrouped",
    "command_level",
    "fatigue_of",
    "unit_morale",
]
