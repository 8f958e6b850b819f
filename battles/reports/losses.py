"""How each ruleset records a loss the umpire accepted from a battle report.

A decided loss is appended as the casualty event the ruleset's own battle actions append, so the
rosters and the after-action fold it like any other. Each ruleset registers its recorder here
(the SG2 one beside the ``casualties`` action, the FaD one beside ``fad_losses``).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from eventlog.catalogue import EventPayload
from eventlog.errors import StateConflict
from rosters.models import Trooper

# (the battle's context, the trooper, "wounded" or "killed", the report it came from)
LossRecorder = Callable[[Any, Trooper, str, uuid.UUID], EventPayload]

_RECORDERS: dict[str, LossRecorder] = {}


def reported_loss_recorder(ruleset: str) -> Callable[[LossRecorder], LossRecorder]:
    """Register ``ruleset``'s recorder of reported losses (a decorator)."""

    def register(recorder: LossRecorder) -> LossRecorder:
        _RECORDERS[ruleset] = recorder
        return recorder

    return register


def recorder_for(ruleset: str) -> LossRecorder:
    found = _RECORDERS.get(ruleset)
    if found is None:
        raise StateConflict(
            "report.no_loss_recorder",
            "This campaign's ruleset cannot record a reported loss.",
            field="point",
        )
    return found
