"""Stargrunt II as a ruleset definition (SG2 P.9 quality, P.10 leadership, P.19 fatigue)."""

from __future__ import annotations

from rules.rulesets import Ruleset, RulesetDefinition, register
from rules.sg2.options import SG2Options
from rules.sg2.scales import Fatigue, Quality


def starting_confidence(fatigue: str | None) -> str | None:
    """SG2 P.19: a Fresh unit starts a battle Confident, a Tired one Steady, an Exhausted one
    Shaken; a unit with no fatigue recorded starts at none."""
    if not fatigue:
        return None
    return Fatigue[fatigue.upper()].starting_confidence.name.lower()


SG2 = register(
    RulesetDefinition(
        code=Ruleset.SG2.value,
        label=Ruleset.SG2.label,
        options_type=SG2Options,
        qualities=tuple(q.name.lower() for q in Quality),
        unit_ratings=("leadership", "fatigue", "mission_motivation"),
        required_ratings=("leadership",),
        vehicle_armour=True,
        # P.17 regrouping, P.60-61 replacements per platoon, P.61 rest and recovery.
        procedures=frozenset({"regroup", "platoon_replacements", "rest_and_recovery"}),
        starting_confidence=starting_confidence,
    )
)
