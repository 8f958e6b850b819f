"""The after-action resolution in the battles' read models: the battle resolved, in its row and
its log.

What the resolution and the vehicle repairs do to units, troopers and vehicles is the rosters'
to fold (``rosters.after_action``, DESIGN §2, ownership).
"""

from __future__ import annotations

from battles.models import Battle
from battles.projections import log
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent


@register
class AfterActionProjection(Projection):
    """The battle resolved after the action (rows of the battles projection)."""

    name = "battles.after_action"
    version = 2

    @Projection.handles("battles.AfterActionResolved")
    def resolved(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        if rows.get(Battle, p["battle_id"]) is None:
            return
        rows.update(Battle, p["battle_id"], status=Battle.Status.RESOLVED.value)
        log(rows, event, "The after-action resolution is complete: the battle is resolved.")
