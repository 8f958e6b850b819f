"""Stargrunt II replacement troops between battles (SG2 P.60-61 REPLACEMENT TROOPS).

Three steps, each an event on the platoon's stream:

1. ``rosters.ReplacementsRolled``: the umpire rolls the platoon's replacement die (option
   ``replacement_die``); the score is the number of new soldiers available to it.
2. ``rosters.ReplacementsAssigned``: the rolled men are shared among the platoon's squads, and
   each receiving squad takes the quality-drop check at once (its dice are in the event).
3. ``rosters.ReplacementsArrived``: after ``replacement_days`` (P.61: one day, in a safe area)
   the calendar enlists them (``rosters.TrooperEnlisted``), so the squad's strength rises then.

The first two are commands (:mod:`.commands`) that roll dice, from the table or the server's
in a resolution job; the third is a calendar step (:mod:`.arrivals`). How many men are left to
assign and who is still on the way are folds of the platoon's stream (:mod:`.ledger`).
"""

from rosters.replacements.arrivals import replacements_arrive
from rosters.replacements.commands import (
    ASSIGN_JOB,
    REQUEST_JOB,
    ReplacementsAssign,
    ReplacementsRequest,
    replacements_assign,
    replacements_request,
)
from rosters.replacements.events import (
    ARRIVED,
    ASSIGNED,
    ROLLED,
    QualityCheck,
    ReplacementsArrived,
    ReplacementsAssigned,
    ReplacementsRolled,
    SquadReplacements,
)
from rosters.replacements.history import ReplacementsProjection, check_text
from rosters.replacements.ledger import (
    Pending,
    PlatoonLedger,
    pending_arrivals,
    platoon_ledger,
    platoon_squads,
)

__all__ = [
    "ARRIVED",
    "ASSIGNED",
    "ASSIGN_JOB",
    "REQUEST_JOB",
    "ROLLED",
    "Pending",
    "PlatoonLedger",
    "QualityCheck",
    "ReplacementsArrived",
    "ReplacementsAssign",
    "ReplacementsAssigned",
    "ReplacementsProjection",
    "ReplacementsRequest",
    "ReplacementsRolled",
    "SquadReplacements",
    "check_text",
    "pending_arrivals",
    "platoon_ledger",
    "platoon_squads",
    "replacements_arrive",
    "replacements_assign",
    "replacements_request",
]
