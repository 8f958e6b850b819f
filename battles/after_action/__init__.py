"""After-action resolution of an ended battle, and what follows it on the campaign.

After a battle the umpire resolves what it did to the units that fought: the command
:class:`~battles.after_action.command.AfterAction` (``battles.after_action``) looks up the rules
of the campaign's ruleset (:func:`~battles.after_action.context.register_after_action`), rolls
with table dice or in a resolution job with the server's dice, and ends every resolution with
``battles.AfterActionResolved``, which marks the battle resolved.

- :mod:`.sg2`: Stargrunt II (P.60-61): quality points, fatigue, the withdrawal test, the
  injured's recovery and vehicle repairs; :mod:`.repairs` finishes repairs on the calendar;
- :mod:`.fad`: Fast and Dirty's post-battle steps 1-4 and campaign points (p.66), after the
  losses the umpire names with :mod:`.fad_losses`; :mod:`.fad_points` spends the points and
  :mod:`.fad_reinforcements` rolls the reinforcement pool;
- :mod:`.events`, :mod:`.fad_events`: the event types; :mod:`.projections`,
  :mod:`.fad_projection`: the read models they change.
"""

from __future__ import annotations

# Importing the modules registers their event types, commands, resolvers, calendar step and
# projections.
from battles.after_action import (  # noqa: F401
    fad,
    fad_losses,
    fad_points,
    fad_projection,
    fad_reinforcements,
    projections,
    repairs,
    sg2,
)
from battles.after_action.command import AFTER_ACTION_JOB, AfterAction, after_action_resolve
from battles.after_action.context import AfterActionContext, register_after_action

__all__ = [
    "AFTER_ACTION_JOB",
    "AfterAction",
    "AfterActionContext",
    "after_action_resolve",
    "register_after_action",
]
