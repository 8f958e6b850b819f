"""Stargrunt II campaign options: every choice the book leaves to the umpire, at its default.

Sources: the Stargrunt II rulebook (chapter 22 CAMPAIGN GAMES, P.60-61, and the places in the
battle rules where the book offers alternatives or is silent), and Allan Goodall's unofficial
clarifications (C) and house rules (N), which are campaign options here. Field names are the last
part of the rules digest's ``[OPTION key = default]`` keys; procedures name their parameters the
same way.

One module on purpose, though long: it is a list of declarations, one per option with its
description and page, read and reviewed as the book's list of umpire's choices.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from rules.dice import Die
from rules.options import ForcesVisibility, OptionProblem, check_options, option
from rules.sg2.scales import MissionMotivation


class QualityProgression(enum.StrEnum):
    """How units rise in quality between battles (P.60 IMPROVING TROOP QUALITY)."""

    POINTS = "points"
    UMPIRE = "umpire"


class PointsOnRise(enum.StrEnum):
    """What happens to a unit's improvement points when it rises a level (P.60)."""

    RESET_TO_ZERO = "reset_to_zero"
    SUBTRACT_THRESHOLD = "subtract_threshold"


class FieldTime(enum.StrEnum):
    """The between-battle times that are doubled away from a safe area (P.61)."""

    FATIGUE = "fatigue"
    REPAIR = "repair"
    INJURED_RETURN = "injured_return"
    REPLACEMENTS = "replacements"


class RecoveredCasualties(enum.StrEnum):
    """Which casualties count as recovered from a battle (P.61 is silent)."""

    FRIENDLY_CONTROL = "friendly_control"
    EVACUATED_ONLY = "evacuated_only"
    UMPIRE = "umpire"


class InjuredRecoveryPlace(enum.StrEnum):
    """Where the injured recover before they return to duty (P.61 is silent).

    ``hospital``: a hospital in a safe area, so only their unit's lack of supplies doubles the
    days; ``with_unit``: where their unit rests, so the line or the field doubles them too.
    """

    HOSPITAL = "hospital"
    WITH_UNIT = "with_unit"


class VehicleRecovery(enum.StrEnum):
    """Who recovers repairable vehicles after a battle (P.60: the winner, perhaps the enemy's)."""

    WINNER = "winner"
    EACH_SIDE_OWN = "each_side_own"
    UMPIRE = "umpire"


class AllocationPool(enum.StrEnum):
    """Which figures of a squad are counted when allocating hits (P.36; SG2-C)."""

    LIVING = "living"
    FIT_ONLY = "fit_only"
    FIT_AND_UNTREATED = "fit_and_untreated"
    ALL_FIGURES = "all_figures"


class AllocationOverflow(enum.StrEnum):
    """Where an allocation roll above the number of figures lands (C §Allocating Casualties)."""

    CONTINUE_COUNT = "continue_count"
    FIRST_FIGURE = "first_figure"


class AllocateBeforePenetration(enum.StrEnum):
    """Whether hits are allocated before the impact vs armour rolls (P.36)."""

    AUTO = "auto"
    NEVER = "never"
    ALWAYS = "always"


class FireMissionArrival(enum.StrEnum):
    """When a fire mission that reaches box 1 arrives (P.46 as printed, or C's reading)."""

    BOX1_SAME_TURN = "box1_same_turn"
    BATTLE_AREA_NEXT_TURN = "battle_area_next_turn"


class CasevacEnters(enum.StrEnum):
    """When a called casevac unit enters the table (P.54 next turn; P.44 loiter same turn)."""

    NEXT_TURN = "next_turn"
    SAME_TURN = "same_turn"


class Rounding(enum.StrEnum):
    """Which way a fraction is rounded."""

    DOWN = "down"
    UP = "up"


class ReturningLeader(enum.StrEnum):
    """What happens when a unit's original leader returns (P.10 is silent)."""

    UMPIRE = "umpire"
    KEEP_SUCCESSOR = "keep_successor"
    RESTORE_ORIGINAL = "restore_original"


class FireMethod(enum.StrEnum):
    """How direct fire is resolved in a battle (P.36 THE QUICK-AND-DIRTY OPTION)."""

    FULL = "full"
    QUICK_AND_DIRTY = "quick_and_dirty"


class FirstActivation(enum.StrEnum):
    """Who activates first in a turn (P.15)."""

    SMALLER_SIDE_CHOOSES = "smaller_side_chooses"
    RANDOM = "random"
    ALTERNATE = "alternate"


class SupportChits(enum.StrEnum):
    """How many support request chits each player has (P.44)."""

    SCENARIO = "scenario"
    D6_PER_PLAYER = "d6_per_player"


class Environment(enum.StrEnum):
    """The battle's environment (P.57: in vacuum wounds become kills)."""

    NORMAL = "normal"
    VACUUM = "vacuum"


class RegroupQualityTie(enum.StrEnum):
    """Quality of a regrouped unit when both parts have as many men (P.17 is silent)."""

    LOWER = "lower"
    HIGHER = "higher"


class RegroupFatigue(enum.StrEnum):
    """Fatigue of a regrouped unit (P.17 is silent)."""

    WORSE = "worse"
    BETTER = "better"


class RegroupPersists(enum.StrEnum):
    """Whether a regrouped unit stays merged after the battle (P.17 is silent)."""

    UMPIRE = "umpire"
    PERSISTS = "persists"
    DISSOLVES = "dissolves"


class UnsuppliedEffect(enum.StrEnum):
    """What an unsupplied force suffers in its next battle (P.60 gives no mechanism)."""

    NONE = "none"
    FATIGUE_ONE_WORSE = "fatigue_one_worse"
    CONFIDENCE_ONE_LOWER = "confidence_one_lower"


class CompanyReplacements(enum.StrEnum):
    """How company-level units get replacements (P.60 rolls per platoon only)."""

    UMPIRE = "umpire"
    SHARE_PLATOON_ROLL = "share_platoon_roll"


class FatigueDropAppliesTo(enum.StrEnum):
    """Which units drop a fatigue level after a battle (P.61 "all troops")."""

    PARTICIPANTS = "participants"
    WHOLE_FORCE = "whole_force"


class RrCounterReset(enum.StrEnum):
    """What resets a unit's count of battles since its last R&R (P.61)."""

    ON_FATIGUE_STEP = "on_fatigue_step"
    ON_ANY_RR_DAY = "on_any_rr_day"


class EwMethod(enum.StrEnum):
    """How electronic warfare units are activated (C §Electronic Warfare Clarification)."""

    SIMPLE = "simple"
    COMPLEX = "complex"
    RULEBOOK = "rulebook"


class EmbarkCost(enum.StrEnum):
    """Who pays the action to get in or out of a vehicle (C §Vehicle Loading/Unloading)."""

    PASSENGER_1_ACTION = "passenger_1_action"
    VEHICLE_1_ACTION = "vehicle_1_action"


class Ambush(enum.StrEnum):
    """The ambush rules used in a battle (N §Conducting Ambushes)."""

    NONE = "none"
    SIMPLE = "simple"
    COMPLEX = "complex"


class DisabledVehicleStayTest(enum.StrEnum):
    """The test to stay in a disabled vehicle (C §Remaining in a Disabled Vehicle)."""

    CONFIDENCE = "confidence"
    REACTION = "reaction"


class FaeArmourDice(enum.StrEnum):
    """How a vehicle's armour die is read against fuel-air explosives (N §Fuel-Air Explosives)."""

    D12_TIMES_CLASS = "d12_times_class"
    SUM_OF_ND12 = "sum_of_nd12"


@dataclass(frozen=True, slots=True)
class RepairDays:
    """Days to repair a vehicle in a safe area (P.61 REST AND RECOVERY)."""

    immobilised: int = field(
        default=1, metadata=option(description="Immobilised vehicle", source="SG2 P.61", minimum=0)
    )
    system_damaged: int = field(
        default=1,
        metadata=option(description="Systems-damaged vehicle", source="SG2 P.61", minimum=0),
    )
    disabled: int = field(
        default=3,
        metadata=option(
            description="Disabled vehicle (rear area only)", source="SG2 P.61", minimum=0
        ),
    )

    def __post_init__(self) -> None:
        check_options(self)


@dataclass(frozen=True, slots=True)
class SupportFactors:
    """What is added to the caller's LV when requesting support (P.44)."""

    artillery_dedicated: int = field(
        default=0,
        metadata=option(
            description="Artillery, by that battery's observer", source="SG2 P.44", minimum=0
        ),
    )
    artillery: int = field(
        default=2, metadata=option(description="Artillery, otherwise", source="SG2 P.44", minimum=0)
    )
    orbital_dedicated: int = field(
        default=3,
        metadata=option(description="Orbital, by an orbital liaison", source="SG2 P.44", minimum=0),
    )
    orbital: int = field(
        default=6, metadata=option(description="Orbital, otherwise", source="SG2 P.44", minimum=0)
    )
    air_dedicated: int = field(
        default=2,
        metadata=option(description="Air, by an air liaison", source="SG2 P.44", minimum=0),
    )
    air: int = field(
        default=4, metadata=option(description="Air, otherwise", source="SG2 P.44", minimum=0)
    )

    def __post_init__(self) -> None:
        check_options(self)


@dataclass(frozen=True, slots=True)
class InboundStart:
    """The Inbound Chart box support starts in, by who provides it (P.45 STARTING POSITIONS)."""

    company: int = field(
        default=1,
        metadata=option(
            description="Company fire support", source="SG2 P.45", minimum=1, maximum=3
        ),
    )
    battalion: int = field(
        default=2,
        metadata=option(
            description="Battalion fire support", source="SG2 P.45", minimum=1, maximum=3
        ),
    )
    regiment: int = field(
        default=3,
        metadata=option(
            description="Regiment or higher fire support", source="SG2 P.45", minimum=1, maximum=3
        ),
    )
    orbital: int = field(
        default=3,
        metadata=option(description="Orbital support", source="SG2 P.45", minimum=1, maximum=3),
    )

    def __post_init__(self) -> None:
        check_options(self)


# P.61: "DOUBLE all times given", the replacements' day included (the digest's AMBIG-25 default
# leaves it out; the book wins).
_DEFAULT_FIELD_TIMES = (
    FieldTime.FATIGUE,
    FieldTime.REPAIR,
    FieldTime.INJURED_RETURN,
    FieldTime.REPLACEMENTS,
)


@dataclass(frozen=True, slots=True)
class SG2Options:
    """Every Stargrunt II campaign option, each at the book's default."""

    # --- the campaign in Muster ---
    forces_visibility: ForcesVisibility = field(
        default=ForcesVisibility.OUTLINE,
        metadata=option(
            description="What players see of other players' forces: outline (name, side and "
            "number of units) or full",
            source="Muster",
        ),
    )
    observers_see_hidden: bool = field(
        default=False,
        metadata=option(
            description="Observers see what the umpire records as hidden before it is revealed "
            "(notes, battle actions, battles, mission cards), as the umpire does",
            source="Muster",
        ),
    )

    # --- improving troop quality (P.60) ---
    quality_progression: QualityProgression = field(
        default=QualityProgression.POINTS,
        metadata=option(
            description="Quality rises by the book's points scheme, or the umpire awards them",
            source="SG2 P.60 IMPROVING TROOP QUALITY",
        ),
    )
    quality_points_win: int = field(
        default=3,
        metadata=option(
            description="Points for a battle on the winning side", source="SG2 P.60", minimum=0
        ),
    )
    quality_points_lose: int = field(
        default=1,
        metadata=option(
            description="Points for a battle on the losing side", source="SG2 P.60", minimum=0
        ),
    )
    quality_points_draw: int = field(
        default=1,
        metadata=option(
            description="Points for a drawn battle (the book is silent)",
            source="SG2 P.60",
            minimum=0,
        ),
    )
    quality_points_objective_bonus: int = field(
        default=1,
        metadata=option(
            description="Extra points for achieving the unit's own objective",
            source="SG2 P.60",
            minimum=0,
        ),
    )
    quality_points_objective_bonus_for_winners: bool = field(
        default=True,
        metadata=option(
            description="The objective bonus is given on the winning side too",
            source="SG2 P.60 ('even if their side loses')",
        ),
    )
    quality_threshold_green_regular: int = field(
        default=5,
        metadata=option(
            description="Points to rise from Green to Regular", source="SG2 P.60", minimum=1
        ),
    )
    quality_threshold_regular_veteran: int = field(
        default=8,
        metadata=option(
            description="Points to rise from Regular to Veteran", source="SG2 P.60", minimum=1
        ),
    )
    quality_rise_automatic: bool = field(
        default=True,
        metadata=option(
            description="A unit with enough points rises at once (the book says it 'may')",
            source="SG2 P.60",
        ),
    )
    quality_points_on_rise: PointsOnRise = field(
        default=PointsOnRise.RESET_TO_ZERO,
        metadata=option(description="Improvement points after a rise", source="SG2 P.60"),
    )
    # --- replacements (P.60-61) ---
    replacement_die: Die = field(
        default=Die.D8,
        metadata=option(
            description="Die rolled per platoon for replacements: d6 few ... d12 plenty",
            source="SG2 P.60 REPLACEMENT TROOPS",
        ),
    )
    allow_overstrength: bool = field(
        default=True,
        metadata=option(
            description="Extra replacements may reinforce a full unit", source="SG2 P.60-61"
        ),
    )
    green_never_drops_to_untrained: bool = field(
        default=True,
        metadata=option(
            description="The quality-drop check never takes Green to Untrained", source="SG2 P.61"
        ),
    )
    elite_accepts_ordinary_replacements: bool = field(
        default=False,
        metadata=option(
            description="Elite units take ordinary replacements (then checked as any unit)",
            source="SG2 P.61",
        ),
    )
    company_replacements: CompanyReplacements = field(
        default=CompanyReplacements.UMPIRE,
        metadata=option(
            description="Replacements for company-level units (the book rolls per platoon only)",
            source="SG2 P.60",
        ),
    )
    # --- rest and recovery (P.61) ---
    field_time_multiplier: int = field(
        default=2,
        metadata=option(
            description="Times are multiplied by this away from a safe area or short of supplies",
            source="SG2 P.61 REST AND RECOVERY",
            minimum=1,
        ),
    )
    field_doubling_applies_to: tuple[FieldTime, ...] = field(
        default=_DEFAULT_FIELD_TIMES,
        metadata=option(
            description="Which times the field multiplier applies to", source="SG2 P.61"
        ),
    )
    rr_days_per_fatigue_step: int = field(
        default=2,
        metadata=option(
            description="Days of R&R to recover one fatigue level", source="SG2 P.61", minimum=1
        ),
    )
    repair_days: RepairDays = field(
        default_factory=RepairDays,
        metadata=option(description="Days to repair a vehicle", source="SG2 P.61"),
    )
    injured_permanent_on: int = field(
        default=2,
        metadata=option(
            description="An injured trooper rolling this or less on a d6 is evacuated for the"
            " campaign; above it he returns after that many days",
            source="SG2 P.61",
            minimum=0,
            maximum=6,
        ),
    )
    injured_recovery_place: InjuredRecoveryPlace = field(
        default=InjuredRecoveryPlace.HOSPITAL,
        metadata=option(
            description="Where the injured recover: a safe-area hospital (doubled only without"
            " supplies) or with their unit (doubled in the line or the field too)",
            source="SG2 P.61 (silent)",
        ),
    )
    replacement_days: int = field(
        default=1,
        metadata=option(
            description="Days to receive and assign replacements", source="SG2 P.61", minimum=0
        ),
    )
    exhausted_withdrawal_test: bool = field(
        default=True,
        metadata=option(
            description="An Exhausted unit kept fighting tests to stay in the line",
            source="SG2 P.61",
        ),
    )
    fatigue_drop_applies_to: FatigueDropAppliesTo = field(
        default=FatigueDropAppliesTo.PARTICIPANTS,
        metadata=option(
            description="Units that drop one fatigue level after a battle", source="SG2 P.61"
        ),
    )
    rr_counter_reset: RrCounterReset = field(
        default=RrCounterReset.ON_FATIGUE_STEP,
        metadata=option(
            description="What resets the count of battles since the last R&R", source="SG2 P.61"
        ),
    )
    recovered_casualties: RecoveredCasualties = field(
        default=RecoveredCasualties.FRIENDLY_CONTROL,
        metadata=option(
            description="Casualties that count as recovered from a battle",
            source="SG2 P.61 (silent)",
        ),
    )
    post_battle_treat_untreated: bool = field(
        default=True,
        metadata=option(
            description="Untreated casualties get one treatment roll at the end of the battle",
            source="SG2 P.39, P.61 (silent)",
        ),
    )
    vehicle_recovery: VehicleRecovery = field(
        default=VehicleRecovery.WINNER,
        metadata=option(
            description="Who recovers repairable vehicles after a battle", source="SG2 P.60"
        ),
    )
    unsupplied_effect: UnsuppliedEffect = field(
        # The book: an unsupplied force's "Confidence and combat efficiency will suffer VERY
        # greatly in the next and subsequent battles", with no mechanism. The digest's "none"
        # contradicts it; the book wins (docs/rules-coverage.md).
        default=UnsuppliedEffect.CONFIDENCE_ONE_LOWER,
        metadata=option(
            description="What an unsupplied force suffers in its next battle (the book says its"
            " confidence suffers, with no mechanism)",
            source="SG2 P.60 CAMPAIGN GAMES",
        ),
    )
    understrength_roll_in_campaign: bool = field(
        default=False,
        metadata=option(
            description="Roll for absentees before each battle (the book: one-off games only)",
            source="SG2 P.10 UNDER-STRENGTH UNITS",
            applies_to="sg2.under_strength",
        ),
    )
    returning_leader: ReturningLeader = field(
        default=ReturningLeader.UMPIRE,
        metadata=option(
            description="When a unit's original leader returns", source="SG2 P.10 (silent)"
        ),
    )
    # --- casualties and medical treatment ---
    allocation_pool: AllocationPool = field(
        default=AllocationPool.LIVING,
        metadata=option(
            description="Figures counted when allocating hits",
            source="SG2 P.36; SG2-C Allocating Casualties",
        ),
    )
    allocation_overflow: AllocationOverflow = field(
        default=AllocationOverflow.CONTINUE_COUNT,
        metadata=option(
            description="Where an allocation roll above the number of figures lands",
            source="SG2 P.36; SG2-C Allocating Casualties",
        ),
    )
    rewound_kills: bool = field(
        default=False,
        metadata=option(
            description="A wounded figure wounded again in a later fire resolution is killed",
            source="SG2 P.36; SG2-C Allocating Casualties",
        ),
    )
    rewound_reverts_to_untreated: bool = field(
        default=False,
        metadata=option(
            description="A treated casualty wounded again becomes untreated",
            source="SG2-C Allocating Casualties (gap)",
        ),
    )
    allocate_before_penetration: AllocateBeforePenetration = field(
        default=AllocateBeforePenetration.AUTO,
        metadata=option(
            description="Allocate hits before the armour rolls (auto: when mixed armour)",
            source="SG2 P.36",
        ),
    )
    cover_shifts_armour_vs_direct_fire: bool = field(
        default=True,
        metadata=option(
            description="Cover shifts the armour die against direct fire",
            source="SG2 P.12 (P.36 says no modifiers)",
        ),
    )
    pa_suit_repair_days: int = field(
        default=3,
        metadata=option(
            description="Days to repair a wrecked power-armour suit", source="SG2 P.40", minimum=0
        ),
    )
    support_weapon_size_class: int = field(
        default=1,
        metadata=option(
            description="Size class of infantry support weapons for vehicle occupant rolls",
            source="SG2 P.39",
            minimum=1,
            maximum=5,
        ),
    )
    medical_modifiers_stack: bool = field(
        default=False,
        metadata=option(
            description="A medic's +1 and a medical unit's +2 add up (otherwise the larger counts)",
            source="SG2 P.39",
        ),
    )
    medic_must_be_fit: bool = field(
        default=True,
        metadata=option(description="Only a fit medic gives his +1", source="SG2 P.39"),
    )
    # --- fire, morale and support ---
    fire_method: FireMethod = field(
        default=FireMethod.FULL,
        metadata=option(
            description="How direct fire is resolved; the same for every player all battle",
            source="SG2 P.36",
        ),
    )
    qd_leftover_roll: bool = field(
        default=True,
        metadata=option(
            description="Quick-and-dirty fire rolls for left-over hits",
            source="SG2 P.36",
        ),
    )
    artillery_attack_alone_triggers_test: bool = field(
        default=False,
        metadata=option(
            description="Artillery or aerospace attack alone forces a confidence test",
            source="SG2 P.20",
        ),
    )
    last_stand_enabled: bool = field(
        default=True,
        metadata=option(
            description="Units may attempt a last stand",
            source="SG2 P.53 THE LAST STAND",
            applies_to="sg2.last_stand",
        ),
    )
    last_stand_success_on: int = field(
        default=6,
        metadata=option(
            description="A last stand succeeds on this or more on a d6",
            source="SG2 P.53",
            minimum=1,
            maximum=6,
            applies_to="sg2.last_stand",
        ),
    )
    support_factors: SupportFactors = field(
        default_factory=SupportFactors,
        metadata=option(
            description="Added to the caller's LV when requesting support",
            source="SG2 P.44",
        ),
    )
    support_chits: SupportChits = field(
        default=SupportChits.SCENARIO,
        metadata=option(
            description="Support request chits per player",
            source="SG2 P.44",
        ),
    )
    inbound_start: InboundStart = field(
        default_factory=InboundStart,
        metadata=option(
            description="Inbound Chart starting boxes",
            source="SG2 P.45",
        ),
    )
    fire_mission_arrival: FireMissionArrival = field(
        default=FireMissionArrival.BOX1_SAME_TURN,
        metadata=option(
            description="When a fire mission reaching box 1 arrives",
            source="SG2 P.46 (SG2-C reads it as next turn)",
        ),
    )
    fire_mission_must_fire_in_arrival_turn: bool = field(
        default=True,
        metadata=option(
            description="An available fire mission must be resolved before that turn ends",
            source="SG2 P.46",
        ),
    )
    casevac_enters: CasevacEnters = field(
        default=CasevacEnters.NEXT_TURN,
        metadata=option(description="When a called casevac enters", source="SG2 P.54"),
    )
    casevac_call_box: int = field(
        default=2,
        metadata=option(
            description="Inbound Chart box a casevac called from a distance starts in",
            source="SG2 P.54 (silent)",
            minimum=1,
            maximum=3,
        ),
    )
    casevac_capacity_rounding: Rounding = field(
        default=Rounding.DOWN,
        metadata=option(
            description="Rounding of half the troop complement a casevac may carry",
            source="SG2 P.54",
        ),
    )
    casevac_loads_untreated: bool = field(
        default=False,
        metadata=option(
            description="A casevac may load untreated casualties, not only stabilised ones",
            source="SG2 P.54",
        ),
    )
    casevac_nearby_requires_los: bool = field(
        default=False,
        metadata=option(
            description="Nearby units need line of sight to the casevac to gain confidence",
            source="SG2 P.54",
        ),
    )
    mission_motivation: MissionMotivation = field(
        default=MissionMotivation.MEDIUM,
        metadata=option(
            description="Default mission motivation (0 low, 1 medium, 2 high)", source="SG2 P.19"
        ),
    )
    first_activation: FirstActivation = field(
        default=FirstActivation.SMALLER_SIDE_CHOOSES,
        metadata=option(
            description="Who activates first each turn",
            source="SG2 P.15",
            applies_to="sg2.activation",
        ),
    )
    environment: Environment = field(
        default=Environment.NORMAL,
        metadata=option(description="Battle environment", source="SG2 P.57"),
    )
    regroup_quality_tie: RegroupQualityTie = field(
        default=RegroupQualityTie.LOWER,
        metadata=option(description="Regrouping: quality on a tie", source="SG2 P.17"),
    )
    regroup_fatigue: RegroupFatigue = field(
        default=RegroupFatigue.WORSE,
        metadata=option(description="Regrouping: fatigue", source="SG2 P.17"),
    )
    regroup_persists: RegroupPersists = field(
        default=RegroupPersists.UMPIRE,
        metadata=option(
            description="Regrouping: the merged unit after the battle", source="SG2 P.17"
        ),
    )
    # --- Goodall's clarifications (C) ---
    artillery_terrain_targeting: bool = field(
        default=True,
        metadata=option(
            description="Artillery may be aimed at terrain features",
            source="SG2-C Firing Artillery at Terrain Features",
        ),
    )
    assault_from_in_position: bool = field(
        default=True,
        metadata=option(
            description="Close assault from In Position at threat level +1",
            source="SG2-C Assault From In Position",
        ),
    )
    ew_method: EwMethod = field(
        default=EwMethod.SIMPLE,
        metadata=option(
            description="Electronic warfare activation",
            source="SG2-C Electronic Warfare Clarification",
            applies_to="sg2.electronic_warfare",
        ),
    )
    max_support_weapons: int | None = field(
        default=None,
        metadata=option(
            description="Most support weapons per squad (none: no limit)",
            source="SG2-C Multiple Support Weapons",
            minimum=0,
            applies_to="sg2.fire_combat",
        ),
    )
    one_suppression_per_fire_action: bool = field(
        default=False,
        metadata=option(
            description="One fire action places at most one suppression marker on its target, "
            "however many of its weapons are resolved one by one (a fallen leader's marker "
            "apart); off: one marker per suppression result, as the book says (P.18)",
            source="SG2-C Multiple Support Weapons",
        ),
    )
    non_penetrating_hit_suppresses: bool = field(
        default=False,
        metadata=option(
            description="A support or heavy weapon's hit that fails to penetrate a vehicle "
            "places a suppression marker on it; off: only fire with a suppression result "
            "does (P.18)",
            source="SG2-C Remaining in a Disabled Vehicle; SG2 P.18",
        ),
    )
    split_fire_same_target: bool = field(
        default=True,
        metadata=option(
            description="Split fire at one target",
            source="SG2-C Split Fire At One Target",
            applies_to="sg2.fire_combat",
        ),
    )
    disabled_vehicle_bailout: bool = field(
        default=True,
        metadata=option(
            description="Crews test to stay in a disabled vehicle",
            source="SG2-C Remaining in a Disabled Vehicle",
        ),
    )
    disabled_vehicle_stay_test: DisabledVehicleStayTest = field(
        default=DisabledVehicleStayTest.CONFIDENCE,
        metadata=option(
            description="The test to stay in a disabled vehicle",
            source="SG2-C Remaining in a Disabled Vehicle",
        ),
    )
    double_disabled_is_destroyed: bool = field(
        default=False,
        metadata=option(
            description="A vehicle disabled twice in a battle is destroyed for the campaign",
            source="SG2-C Remaining in a Disabled Vehicle (gap)",
        ),
    )
    embark_cost: EmbarkCost = field(
        default=EmbarkCost.PASSENGER_1_ACTION,
        metadata=option(
            description="Action cost of getting in or out of a vehicle",
            source="SG2-C Vehicle Loading/Unloading Clarification",
            applies_to="sg2.activation",
        ),
    )
    equipment_losses_persist: bool = field(
        default=False,
        metadata=option(
            description="Unrecoverable equipment stays lost between battles",
            source="SG2-C (gap)",
            applies_to="sg2.cross_training",
        ),
    )
    # --- Goodall's new rules (N) ---
    ambush: Ambush = field(
        default=Ambush.NONE,
        metadata=option(
            description="Ambush rules", source="SG2-H Conducting Ambushes", applies_to="sg2.ambush"
        ),
    )
    ambush_spotting_by_fire: bool = field(
        default=False,
        metadata=option(
            description="The ambushed column may spot by fire",
            source="SG2-H Conducting Ambushes",
            applies_to="sg2.ambush",
        ),
    )
    ambush_embarked_can_spot: bool = field(
        default=False,
        metadata=option(
            description="Embarked troops may spot in an ambush (the scenario decides)",
            source="SG2-H Conducting Ambushes",
            applies_to="sg2.ambush",
        ),
    )
    cross_training: bool = field(
        default=False,
        metadata=option(
            description="Cross training and equipment recovery (always on for Phalon forces)",
            source="SG2-H Cross Training",
            applies_to="sg2.cross_training",
        ),
    )
    captured_weapons_usable: bool = field(
        default=False,
        metadata=option(
            description="Captured enemy weapons may be used",
            source="SG2-H Recovering Equipment Between Two Squads",
            applies_to="sg2.cross_training",
        ),
    )
    fae: bool = field(
        default=True,
        metadata=option(
            description="Fuel-air explosive rules, whenever a force fields them",
            source="SG2-H Fuel-Air Explosives",
            applies_to="sg2.fae",
        ),
    )
    fae_armour_dice: FaeArmourDice = field(
        default=FaeArmourDice.D12_TIMES_CLASS,
        metadata=option(
            description="Vehicle armour against fuel-air explosives",
            source="SG2-H Fuel-Air Explosives; SG2 P.38",
            applies_to="sg2.fae",
        ),
    )
    fae_track_sealed_vehicles: bool = field(
        default=False,
        metadata=option(
            description="Track which vehicles are sealed",
            source="SG2-H Advanced Rule: FAEs and Vehicles",
            applies_to="sg2.fae",
        ),
    )
    opportunity_fire: bool = field(
        default=False,
        metadata=option(
            description="Opportunity fire",
            source="SG2-H Opportunity Fire",
            applies_to="sg2.opportunity_fire",
        ),
    )
    overwatch: bool = field(
        default=False,
        metadata=option(
            description="Overwatch (needs opportunity fire)",
            source="SG2-H Overwatch",
            applies_to="sg2.opportunity_fire",
        ),
    )
    overwatch_as_whole_activation: bool = field(
        default=False,
        metadata=option(
            description="Overwatch takes the unit's whole activation, not one action",
            source="SG2-H Overwatch",
            applies_to="sg2.opportunity_fire",
        ),
    )
    opfire_consumes_player_activation: bool = field(
        default=False,
        metadata=option(
            description="Opportunity fire uses up the firing player's next activation",
            source="SG2-H Opportunity Fire",
            applies_to="sg2.opportunity_fire",
        ),
    )
    abandoned_casualty_reaction_modifier: bool = field(
        default=True,
        metadata=option(
            description="Abandoning wounded also adds +3/+2/+1 to the unit's reaction tests",
            source="SG2-H Opportunity Fire; SG2 P.20",
            applies_to="sg2.opportunity_fire",
        ),
    )

    # Options removed because they cannot mean anything in Muster (docs/rules-coverage.md).
    RETIRED: ClassVar[Mapping[str, str]] = {
        "unit_generation": "a campaign always carries its units over from battle to battle"
        " (SG2 P.10, the book's preferred method); the quality and leadership a force starts"
        " with are its roster file's, set by the scenario or drawn at the table beforehand.",
    }

    def __post_init__(self) -> None:
        check_options(self)

    def cross_field_problems(self) -> list[OptionProblem]:
        """Settings that cannot go together."""
        problems = []
        if self.quality_threshold_green_regular >= self.quality_threshold_regular_veteran:
            problems.append(
                OptionProblem(
                    "quality_threshold_green_regular",
                    "options.order",
                    "the Green to Regular threshold must be below the Regular to Veteran one"
                    f" ({self.quality_threshold_green_regular} is not below"
                    f" {self.quality_threshold_regular_veteran}).",
                )
            )
        if self.overwatch and not self.opportunity_fire:
            problems.append(
                OptionProblem(
                    "overwatch", "options.requires", "overwatch needs opportunity fire to be on."
                )
            )
        return problems
