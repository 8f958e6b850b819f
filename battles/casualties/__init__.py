"""Casualties in battle: wounds and kills on a unit, the loss of its leader, hits on vehicles and
their occupants, and surrender (SG2 P.10, P.35-40, P.53).

The rules decide in :mod:`rules.sg2.casualties`, :mod:`rules.sg2.vehicles` and
:mod:`rules.sg2.command`; the actions here turn the battle's state into their inputs and their
outcomes into events (:mod:`.events`). The battle log folds them in :mod:`.projection`; what they
do to troopers, units and vehicles is folded by the rosters (:mod:`rosters.in_battle`).
"""

from battles.casualties.events import (
    LEADER_CASUALTY_EVENT,
    VEHICLE_HIT_EVENT,
    CapturedTrooper,
    CasualtiesResolved,
    LeaderCasualtyResolved,
    OccupantRecord,
    PotentialHitRecord,
    TrooperCasualty,
    UnitSurrendered,
    VehicleHit,
)
from battles.casualties.fire import Casualties, CasualtiesParams, NamedCasualty
from battles.casualties.leader import LeaderCasualty, LeaderCasualtyParams
from battles.casualties.projection import CasualtiesProjection
from battles.casualties.state import acting_leader, figure_of
from battles.casualties.surrender import Surrender, SurrenderParams
from battles.casualties.vehicles import VehicleHitAction, VehicleHitParams, vehicle_state

__all__ = [
    "LEADER_CASUALTY_EVENT",
    "VEHICLE_HIT_EVENT",
    "CapturedTrooper",
    "Casualties",
    "CasualtiesParams",
    "CasualtiesProjection",
    "CasualtiesResolved",
    "LeaderCasualty",
    "LeaderCasualtyParams",
    "LeaderCasualtyResolved",
    "NamedCasualty",
    "OccupantRecord",
    "PotentialHitRecord",
    "Surrender",
    "SurrenderParams",
    "TrooperCasualty",
    "UnitSurrendered",
    "VehicleHit",
    "VehicleHitAction",
    "VehicleHitParams",
    "acting_leader",
    "figure_of",
    "vehicle_state",
]
