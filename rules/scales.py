"""How the unit scales of Stargrunt II and Fast and Dirty correspond, so one model serves both.

Fast and Dirty was written from Stargrunt II and borrows its vocabulary, but not its mechanics.
Muster stores every unit's native values (an SG2 unit has an SG2 Quality, a FaD unit a FaD
Quality) and never converts them silently; this module is the one place that says which scales
correspond and how (FaD p.6, p.13; SG2 P.9, P.19-20):

- FaD Quality Rabble..Elite (4 levels) and SG2 Quality Untrained..Elite (5 levels) correspond
  partly, by order: Rabble/Untrained, Conscript/Green, Regular/Regular, Elite/Elite; SG2 Veteran
  has no FaD level.
- FaD Resolve (Reluctant..Determined) and SG2 Mission Motivation (Low..High) do not map: Resolve is
  a lasting unit rating that sets when the unit breaks; MM is set per scenario and only changes
  which events force a test.
- SG2 Leadership Value (1..3, 1 best) has no FaD counterpart: FaD rates squad leaders and officers
  instead, with the opposite polarity.
- SG2 Confidence (CO..RO) has no FaD counterpart: FaD morale is broken or unbroken, decided at each
  activation, not a ladder.
- SG2 Fatigue (Fresh..Exhausted) has no FaD counterpart.

Beware the shared names: FaD Regular and Elite are not the same training as SG2 Regular and
Elite, and FaD *Steady* (a Resolve) is unrelated to SG2 *Steady* (a confidence level).
"""

from __future__ import annotations

import enum
from types import MappingProxyType

from rules.errors import RuleError
from rules.fad.scales import Quality as FaDQuality
from rules.fad.scales import Resolve
from rules.rulesets import Ruleset
from rules.sg2.scales import Confidence, Fatigue, MissionMotivation
from rules.sg2.scales import Quality as SG2Quality


class UnmappedScaleError(RuleError):
    """A value of a scale that has no counterpart in the other ruleset."""

    def __init__(self, message: str) -> None:
        super().__init__("scale.unmapped", message)


# FaD digest §11 crosswalk: ordinal, with SG2 Veteran left out (FaD jumps from Regular to Elite).
SG2_TO_FAD_QUALITY = MappingProxyType(
    {
        SG2Quality.UNTRAINED: FaDQuality.RABBLE,
        SG2Quality.GREEN: FaDQuality.CONSCRIPT,
        SG2Quality.REGULAR: FaDQuality.REGULAR,
        SG2Quality.VETERAN: None,
        SG2Quality.ELITE: FaDQuality.ELITE,
    }
)
FAD_TO_SG2_QUALITY = MappingProxyType(
    {
        FaDQuality.RABBLE: SG2Quality.UNTRAINED,
        FaDQuality.CONSCRIPT: SG2Quality.GREEN,
        FaDQuality.REGULAR: SG2Quality.REGULAR,
        FaDQuality.ELITE: SG2Quality.ELITE,
    }
)


def fad_quality_for(quality: SG2Quality) -> FaDQuality | None:
    """The FaD quality that corresponds to an SG2 quality, or ``None`` for Veteran.

    Untrained -> Rabble, Green -> Conscript, Regular -> Regular, Elite -> Elite. FaD has four
    levels to SG2's five and nothing between Regular and Elite, so an SG2 Veteran has no FaD
    level; the caller (the umpire) must choose Regular or Elite.
    """
    if not isinstance(quality, SG2Quality):
        raise RuleError("scales.refused", f"Expected an SG2 quality, not {quality!r}.")
    return SG2_TO_FAD_QUALITY[quality]


def sg2_quality_for(quality: FaDQuality) -> SG2Quality:
    """The SG2 quality that corresponds to a FaD quality (every FaD level has one).

    Rabble -> Untrained, Conscript -> Green, Regular -> Regular, Elite -> Elite.
    """
    if not isinstance(quality, FaDQuality):
        raise RuleError("scales.refused", f"Expected a FaD quality, not {quality!r}.")
    return FAD_TO_SG2_QUALITY[quality]


class Correspondence(enum.StrEnum):
    """How well a scale of one ruleset maps to the other's."""

    PARTLY = "partly"
    NONE = "none"


_HOME_RULESET: dict[type[enum.Enum], Ruleset] = {
    Resolve: Ruleset.FAD,
    MissionMotivation: Ruleset.SG2,
    Confidence: Ruleset.SG2,
    Fatigue: Ruleset.SG2,
}

_UNMAPPED_REASONS: dict[type[enum.Enum], str] = {
    Resolve: (
        "FaD Resolve has no SG2 counterpart: it is a lasting unit rating that sets when the unit"
        " breaks, while SG2 Mission Motivation is set per scenario and only changes which events"
        " force a confidence test"
    ),
    MissionMotivation: (
        "SG2 Mission Motivation has no FaD counterpart: FaD Resolve is a lasting unit rating, not"
        " a per-scenario setting"
    ),
    Confidence: (
        "SG2 Confidence has no FaD counterpart: FaD morale is only broken or unbroken, decided"
        " afresh at each activation"
    ),
    Fatigue: "SG2 Fatigue has no FaD counterpart",
}


def correspondence(scale: type[enum.Enum]) -> Correspondence:
    """Whether a scale maps to the other ruleset partly (quality) or not at all."""
    if scale in (SG2Quality, FaDQuality):
        return Correspondence.PARTLY
    if scale in _UNMAPPED_REASONS:
        return Correspondence.NONE
    raise RuleError(
        "scales.refused",
        f"{getattr(scale, '__name__', scale)!r} is not a unit scale of either ruleset.",
    )


def counterpart(
    value: SG2Quality | FaDQuality | Resolve | Confidence | Fatigue | MissionMotivation,
    *,
    to: Ruleset | str,
) -> SG2Quality | FaDQuality | Resolve | Confidence | Fatigue | MissionMotivation | None:
    """The value's counterpart in ruleset ``to``, a ruleset or its code (a value already of
    ``to`` is returned as is).

    Quality maps by order (``None`` for an SG2 Veteran, see :func:`fad_quality_for`). Resolve,
    Confidence, Fatigue and Mission Motivation do not map at all: converting one to the other
    ruleset raises :class:`UnmappedScaleError` saying why. SG2 Leadership Value is a plain 1..3
    number with no FaD counterpart, so it is not accepted here either.
    """
    to = Ruleset(to)
    if isinstance(value, SG2Quality):
        return value if to is Ruleset.SG2 else fad_quality_for(value)
    if isinstance(value, FaDQuality):
        return value if to is Ruleset.FAD else sg2_quality_for(value)
    for scale, reason in _UNMAPPED_REASONS.items():
        if isinstance(value, scale):
            if _HOME_RULESET[scale] is to:
                return value
            raise UnmappedScaleError(f"{reason} (cannot convert {value.name} to {to.label}).")
    raise UnmappedScaleError(
        f"{value!r} is not a value of a unit scale; leadership values and other numbers have no"
        " counterpart in the other ruleset."
    )
