"""Stargrunt II as a ruleset definition (SG2 P.9 quality, P.10 leadership, P.19 fatigue)."""

from __future__ import annotations

from rules.rulesets import Readiness, Ruleset, RulesetDefinition, register
from rules.sg2.campaign import readiness_for_battle
from rules.sg2.options import SG2Options
from rules.sg2.scales import Fatigue, Quality


def battle_readiness(fatigue: str | None, *, supplied: bool, options: SG2Options) -> Readiness:
    """SG2 P.19 and P.60: the fatigue and confidence a unit starts a battle at, worse without
    suitable supplies (option ``unsupplied_effect``)."""
    ready = readiness_for_battle(
        fatigue=Fatigue[fatigue.upper()] if fatigue else None,
        supplied=supplied,
        unsupplied_effect=options.unsupplied_effect,
    )
    return Readiness(
        fatigue=ready.fatigue.name.lower() if ready.fatigue is not None else None,
        confidence=ready.confidence.name.lower() if ready.confidence is not None else None,
        unsupplied_effect=ready.unsupplied_effect.value if ready.unsupplied_effect else None,
    )


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
        battle_readiness=battle_readiness,
    )
)
