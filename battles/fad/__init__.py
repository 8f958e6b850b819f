"""Fast and Dirty battles resolved by the service: the FaD ruleset's battle actions.

Each module is one group of procedures of the FaD book (:mod:`rules.fad` holds the rules). A
unit's battle state is on its :class:`battles.models.Participant`: ``marker`` (Under Fire or
Pinned, FaD p.24), ``broken`` (p.13) and ``resolve`` (its Resolve once lowered in the battle).
Casualties are recorded as ``battles.FadLossesRecorded``, the event the rosters and the
after-action already fold for the ``fad_losses`` action.
"""

# Each module registers its battle actions and projections when imported.
from battles.fad import (  # noqa: F401
    activation,
    artillery,
    close_assault,
    mines,
    morale,
    scenario_generation,
    shooting,
    traits,
    wounded,
)
