"""The words a roster is written in: kinds of unit, trooper roles and statuses, vehicle states.

Values are lower-case strings, as they appear in roster files, events and the API.
"""

from __future__ import annotations

import enum

from rules.sg2.command import CommandLevel

__all__ = [
    "CommandLevel",
    "TrooperRole",
    "TrooperStatus",
    "UnitKind",
    "UnitStatus",
    "VehicleState",
]


class UnitKind(enum.StrEnum):
    """What a node of a force's organisation is (SG2 P.8 ORGANISING YOUR FORCES)."""

    COMPANY = "company"  # a formation: holds a command unit and platoons
    PLATOON = "platoon"
    SECTION = "section"
    COMMAND = "command"  # a squad-sized command unit (HQ) at some command level
    SQUAD = "squad"
    WEAPON_TEAM = "weapon_team"
    VEHICLE_CREW = "vehicle_crew"  # a vehicle crewed and commanded by its own people
    INDEPENDENT = "independent"  # a sniper or character (P.26)

    @property
    def is_formation(self) -> bool:
        """Formations group units; they have no troopers of their own."""
        return self in (UnitKind.COMPANY, UnitKind.PLATOON, UnitKind.SECTION)


class UnitStatus(enum.StrEnum):
    """Where a unit is between battles, or that it is gone."""

    IN_THE_LINE = "in_the_line"
    SAFE_AREA = "safe_area"  # a safe area: R&R, replacements, repairs but not of DISABLED vehicles
    # A rear area with full engineering facilities: a safe area that also repairs DISABLED
    # vehicles (SG2 P.61).
    REAR_AREA = "rear_area"
    IN_THE_FIELD = "in_the_field"  # resting in the field: R&R takes twice as long
    WITHDRAWN = "withdrawn"  # withdrawn to a rear area as unfit for combat (SG2 P.61)
    DISBANDED = "disbanded"


class TrooperRole(enum.StrEnum):
    """The roles the rules read (SG2 P.8-10, P.26-30, P.39)."""

    LEADER = "leader"
    SECOND_IN_COMMAND = "second_in_command"
    MEDIC = "medic"
    SUPPORT_WEAPON = "support_weapon"
    SPECIAL_WEAPON = "special_weapon"
    SPECIALIST = "specialist"
    CREW = "crew"
    LINE = "line"


class TrooperStatus(enum.StrEnum):
    """A trooper's state in the campaign."""

    FIT = "fit"
    WOUNDED = "wounded"  # a casualty not yet treated
    STABILISED = "stabilised"
    CASEVACED = "casevaced"  # flown out of a battle; the after-action roll decides the rest
    IN_HOSPITAL = "in_hospital"  # back on duty on ``hospital_until_day``
    EVACUATED = "evacuated"  # evacuated for good
    DEAD = "dead"
    CAPTURED = "captured"

    @property
    def is_present(self) -> bool:
        """Counts toward the unit's current strength."""
        return self in (TrooperStatus.FIT, TrooperStatus.WOUNDED, TrooperStatus.STABILISED)


class VehicleState(enum.StrEnum):
    """A vehicle's damage state (SG2 P.38-39), or undamaged."""

    OPERATIONAL = "operational"
    IMMOBILISED = "immobilised"
    SYSTEMS_DAMAGED = "systems_damaged"
    DISABLED = "disabled"
    DESTROYED = "destroyed"
