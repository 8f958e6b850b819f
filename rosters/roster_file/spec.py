"""The shape of a roster file: the pydantic models of a force, its units, troopers and vehicles,
and the walk over a force's units.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    WithJsonSchema,
    model_validator,
)

from rosters.vocabulary import CommandLevel, TrooperRole, UnitKind, UnitStatus, VehicleState
from rules.fad import scales as fad_scales
from rules.sg2 import scales as sg2_scales

Path = tuple[str | int, ...]
# No unit or vehicle of a tabletop force counts more men than this; a larger number is a typo.
MAX_COUNT = 1000

SG2_QUALITIES = tuple(q.name.lower() for q in sg2_scales.Quality)
FAD_QUALITIES = tuple(q.name.lower() for q in fad_scales.Quality)
FAD_RESOLVES = tuple(r.name.lower() for r in fad_scales.Resolve)
FAD_LEADER_EXPERIENCES = tuple(e.name.lower() for e in fad_scales.SquadLeaderExperience)
FATIGUES = tuple(f.name.lower() for f in sg2_scales.Fatigue)
MOTIVATIONS = tuple(m.name.lower() for m in sg2_scales.MissionMotivation)
COMMAND_LEVELS = tuple(level.name.lower() for level in CommandLevel)
ARMOUR_DICE = (4, 6, 8, 10, 12)

# Fields that describe the men of a unit; a formation has none of its own (its units do).
_FORMATION_FORBIDDEN = (
    "quality",
    "leadership",
    "resolve",
    "fatigue",
    "mission_motivation",
    "toe_strength",
)


def _or_list(names: Sequence[object]) -> str:
    shown = [str(name) for name in names]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def _command_level_by_name(value: object) -> object:
    # Files name the level ("platoon"); the enum's values are ranks, which a person should not need.
    if isinstance(value, CommandLevel):
        return value
    if isinstance(value, str) and value in COMMAND_LEVELS:
        return CommandLevel[value.upper()]
    raise ValueError(f"the command level must be one of {_or_list(COMMAND_LEVELS)}")


CommandLevelName = Annotated[
    CommandLevel,
    BeforeValidator(_command_level_by_name),
    PlainSerializer(lambda level: level.name.lower(), return_type=str),
    WithJsonSchema({"type": "string", "enum": list(COMMAND_LEVELS)}),
]


class TrooperSpec(BaseModel):
    """One trooper of a unit, as the rules need him: his role, weapon and armour."""

    model_config = ConfigDict(extra="forbid", title="Trooper")

    name: str = Field(
        min_length=1,
        max_length=200,
        description="The trooper's name as the players will know him, e.g. 'Cpl Ana Reyes'.",
    )
    role: TrooperRole = Field(
        default=TrooperRole.LINE,
        description=(
            "What the rules read him as: leader (the unit's one leader), second_in_command (first "
            "in line if the leader falls), medic, support_weapon (SAW, plasma gun, IAVR), "
            "special_weapon (GMS/P), specialist (EW, observer, sniper: say which in specialism), "
            "crew (vehicle crew) or line."
        ),
    )
    weapon: str = Field(default="", description="His weapon, e.g. 'L7A3 IW' or 'L5 SAW'.")
    armour: str = Field(
        default="",
        description="What he wears, as a label, e.g. 'partial light armour'.",
    )
    armour_die: Literal[4, 6, 8, 10, 12] | None = Field(
        default=None,
        description=(
            "Stargrunt II armour die as a number: 4 basic battledress, 6 partial light armour, "
            "8 full-suit light armour, 10 light power armour, 12 heavy power armour (P.28)."
        ),
    )
    power_armour: bool = Field(
        default=False, strict=True, description="True if he fights in a power armour suit."
    )
    specialism: str = Field(
        default="",
        description="The specialist skill, if any, e.g. 'EW', 'forward observer', 'sniper'.",
    )
    experience: str | None = Field(
        default=None,
        description=(
            "Fast and Dirty only: a squad leader's experience in lower case, inexperienced, "
            "experienced or veteran (FaD p.11). Given only to the leader of a squad; a squad "
            "leader without one is inexperienced, the book's starting value (p.51)."
        ),
        json_schema_extra={"enum": [*FAD_LEADER_EXPERIENCES, None]},
    )


class VehicleSpec(BaseModel):
    """A vehicle: a unit's transport (an element of it) or the vehicle a crew unit fights in."""

    model_config = ConfigDict(
        extra="forbid", title="Vehicle", validate_by_alias=True, validate_by_name=True
    )

    name: str = Field(
        min_length=1, max_length=200, description="The vehicle's name or call sign, e.g. 'Two-One'."
    )
    vehicle_class: str = Field(
        alias="class",
        min_length=1,
        max_length=200,
        description="The type of vehicle, e.g. 'FV701 Hoplite APC'. Written `class` in files.",
    )
    size: int = Field(
        ge=1,
        le=5,
        strict=True,
        description="Stargrunt II size class, 1 (very small) to 5 (very large) (P.31).",
    )
    capacity: int = Field(
        default=0,
        ge=0,
        le=MAX_COUNT,
        strict=True,
        description="How many troopers it carries, besides its crew.",
    )
    armour: int | None = Field(
        default=None,
        ge=0,
        le=5,
        strict=True,
        description=(
            "Armour class 0 to 5, never above the size class in Stargrunt II (P.31); leave it out "
            "for an unarmoured vehicle."
        ),
    )
    state: VehicleState = Field(
        default=VehicleState.OPERATIONAL, description="Its damage state, if it is not undamaged."
    )


class UnitSpec(BaseModel):
    """A node of the force's organisation: a formation, or a unit with troopers and vehicles."""

    model_config = ConfigDict(extra="forbid", title="Unit")

    key: str | None = Field(
        default=None,
        min_length=1,
        max_length=100,
        description=(
            "A short identifier of your choosing, unique within the file, so that another unit "
            "can name this one in attached_to. It is not stored in the campaign."
        ),
    )
    name: str = Field(
        min_length=1, max_length=200, description="The unit's name, e.g. '1st Squad'."
    )
    kind: UnitKind = Field(
        description=(
            "What the unit is. company, platoon and section are formations: they hold other units "
            "and have no troopers of their own. The others are units: command (an HQ), squad, "
            "weapon_team, vehicle_crew, independent (a sniper or character)."
        ),
    )
    level: CommandLevelName | None = Field(
        default=None,
        description=(
            "The command level a command unit commands at: squad, platoon, company, battalion "
            "or regiment (SG2 P.8)."
        ),
    )
    quality: str | None = Field(
        default=None,
        description=(
            "The unit's quality in lower case. Stargrunt II: untrained, green, regular, veteran, "
            "elite. Fast and Dirty: rabble, conscript, regular, elite. Required for every unit "
            "that is not a formation; not given for formations."
        ),
        json_schema_extra={"enum": [*sorted({*SG2_QUALITIES, *FAD_QUALITIES}), None]},
    )
    leadership: int | None = Field(
        default=None,
        ge=1,
        le=3,
        strict=True,
        description=(
            "Stargrunt II leadership value, 1 (best) to 3 (worst) (P.9). Required for Stargrunt "
            "II units that are not formations; not used by Fast and Dirty."
        ),
    )
    resolve: str | None = Field(
        default=None,
        description=(
            "Fast and Dirty resolve in lower case: reluctant, uncertain, steady, determined. "
            "Required for Fast and Dirty units that are not formations; not used by Stargrunt II."
        ),
        json_schema_extra={"enum": [*FAD_RESOLVES, None]},
    )
    fatigue: Literal["fresh", "tired", "exhausted"] = Field(
        default="fresh",
        description="Stargrunt II fatigue level (P.19). Not used by Fast and Dirty.",
    )
    mission_motivation: Literal["low", "medium", "high"] = Field(
        default="medium",
        description="Stargrunt II mission motivation (P.19). Not used by Fast and Dirty.",
    )
    toe_strength: int | None = Field(
        default=None,
        ge=0,
        le=MAX_COUNT,
        strict=True,
        description=(
            "Full strength on the table of organisation; replacements fill the unit up to it. "
            "Defaults to the number of troopers listed, so give it for an under-strength unit."
        ),
    )
    specialists: list[str] = Field(
        default_factory=list,
        description="Specialist elements the unit carries, e.g. ['EW team', 'support liaison'].",
    )
    status: UnitStatus = Field(
        default=UnitStatus.IN_THE_LINE, description="Where the unit is when the force is loaded."
    )
    attached_to: str | None = Field(
        default=None,
        min_length=1,
        description=(
            "The key of another unit in this file that this one is attached to (cross-attached "
            "armour, a supporting weapon team), when that is not its parent in the tree."
        ),
    )
    troopers: list[TrooperSpec] = Field(
        default_factory=list,
        description="The unit's troopers, leader first by convention. Formations have none.",
    )
    vehicles: list[VehicleSpec] = Field(
        default_factory=list,
        description="The unit's vehicles: its transport, or the vehicle a crew unit fights in.",
    )
    units: list[UnitSpec] = Field(
        default_factory=list, description="The units under this one in the chain of command."
    )

    @model_validator(mode="after")
    def _default_toe_strength(self) -> UnitSpec:
        if self.toe_strength is None:
            self.toe_strength = len(self.troopers)
        return self


class ForceSpec(BaseModel):
    """A force as written in a roster file: one side's troops, loaded into a campaign."""

    model_config = ConfigDict(
        extra="forbid",
        title="Muster roster file",
        json_schema_extra={"$schema": "https://json-schema.org/draft/2020-12/schema"},
    )

    name: str = Field(
        min_length=1, max_length=200, description="The force's name, e.g. 'B Company, 2nd Marines'."
    )
    side: str = Field(
        min_length=1, max_length=100, description="The side it fights for, e.g. 'Blue' or 'NAC'."
    )
    description: str = Field(default="", description="Free text for the umpire and the players.")
    ruleset: Literal["sg2", "fad"] | None = Field(
        default=None,
        description=(
            "The ruleset the file is written for: sg2 (Stargrunt II) or fad (Fast and Dirty). "
            "Optional; if given it must be the campaign's."
        ),
    )
    units: list[UnitSpec] = Field(
        min_length=1, description="The force's top-level units: usually one company or platoon."
    )


def roster_json_schema() -> dict[str, Any]:
    """The JSON Schema of a roster file, with the file's own spelling of every field."""
    return ForceSpec.model_json_schema(by_alias=True)


class UnitEntry(NamedTuple):
    """A unit found by :func:`iter_units`, with where it sits in the file."""

    unit: UnitSpec
    path: str
    """Where the unit is in the file, e.g. ``units[0].units[2]``; unique, spelled as in problems."""
    parent_path: str | None
    """The ``path`` of the unit above it, or None for a top-level unit."""


def iter_units(spec: ForceSpec) -> Iterator[UnitEntry]:
    """Every unit of the force, depth first, each parent before its children."""

    def walk(units: Sequence[UnitSpec], prefix: str, parent: str | None) -> Iterator[UnitEntry]:
        for index, unit in enumerate(units):
            path = f"{prefix}units[{index}]"
            yield UnitEntry(unit, path, parent)
            yield from walk(unit.units, f"{path}.", path)

    yield from walk(spec.units, "", None)


def count_troopers(spec: ForceSpec) -> int:
    """How many troopers the file lists, in all its units."""
    return sum(len(entry.unit.troopers) for entry in iter_units(spec))


def count_vehicles(spec: ForceSpec) -> int:
    """How many vehicles the file lists, in all its units."""
    return sum(len(entry.unit.vehicles) for entry in iter_units(spec))
