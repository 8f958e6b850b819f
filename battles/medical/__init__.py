"""Medical treatment and casualty evacuation in battle (SG2 P.39, P.44-45, P.54).

Treatment (:mod:`.treatment`): one Reorganise action treats every current casualty of a unit,
one D6 each. Casevac (:mod:`.casevac`): a unit leader calls the flight in, it travels the
Inbound Chart to the battle area, squads load their stabilised wounded, and when it leaves the
wounded go to the rear and the units it attended may gain confidence. The battle log folds the
events in :mod:`.projection`; what they do to troopers and units is folded by the rosters
(:mod:`rosters.in_battle`).
"""

from battles.medical.casevac import (
    TURNAROUND_BOX,
    CasevacArrive,
    CasevacCall,
    CasevacDepart,
    CasevacLoad,
    side_of,
)
from battles.medical.events import (
    CasevacArrived,
    CasevacCalled,
    CasevacDeparted,
    CasevacLoaded,
    CasevacRise,
    CasualtiesTreated,
    Treatment,
)
from battles.medical.projection import MedicalProjection
from battles.medical.treatment import FIGURE_STATES, ROSTER_STATUS, MedicalTreatment, figures_of

__all__ = [
    "FIGURE_STATES",
    "ROSTER_STATUS",
    "TURNAROUND_BOX",
    "CasevacArrive",
    "CasevacArrived",
    "CasevacCall",
    "CasevacCalled",
    "CasevacDepart",
    "CasevacDeparted",
    "CasevacLoad",
    "CasevacLoaded",
    "CasevacRise",
    "CasualtiesTreated",
    "MedicalProjection",
    "MedicalTreatment",
    "Treatment",
    "figures_of",
    "side_of",
]
