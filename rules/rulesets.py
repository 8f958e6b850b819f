"""The rulesets Muster can run a campaign under."""

from __future__ import annotations

import enum


class Ruleset(enum.StrEnum):
    """A ruleset; the value is the short code stored with a campaign."""

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
