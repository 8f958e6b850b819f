"""Fast and Dirty campaign options: every choice the book leaves to the players, at its default.

Source: Fast and Dirty (FAD 4.0). Where the book offers an optional rule the default is the book's
suggestion; where it is unclear or silent the default is the reading stated in the description.
Field names are the last part of the rules digest's option keys; procedures name their parameters
the same way.

One module on purpose, though long: it is a list of declarations, one per option with its
description and page, read and reviewed as the book's list of choices.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rules.options import ForcesVisibility, check_options, option


class WeaponsDamageTable(enum.StrEnum):
    """Which weapons table gives a weapon's Damage when the tables disagree (p.19, p.69, p.70)."""

    BY_MOUNT = "by_mount"
    SHOOTING_TABLE = "p19"
    HEAVY_WEAPONS_TABLE = "p69"
    VEHICLE_WEAPONS_TABLE = "p70"


class RollScope(enum.StrEnum):
    """How often a force-generation roll is made."""

    PER_SQUAD = "per_squad"
    PER_PLATOON = "per_platoon"
    PER_PLAYER = "per_player"


class ModifierMode(enum.StrEnum):
    """How a +/-1 is applied to a test that counts successes over several dice."""

    PER_DIE = "per_die"
    SUCCESSES = "successes"


class Allowance(enum.StrEnum):
    """How many personalities or traits a force may have (p.33, p.39)."""

    AGREED = "agreed"
    SCENARIO = "scenario"
    D6_PER_PLAYER = "d6_per_player"


class LeaderExperience(enum.StrEnum):
    """A squad leader's experience (p.49)."""

    INEXPERIENCED = "inexperienced"
    EXPERIENCED = "experienced"
    VETERAN = "veteran"


class GrizzledMode(enum.StrEnum):
    """What the Grizzled trait improves (p.40)."""

    RESOLVE_PLUS_ONE = "resolve_plus_one"
    QUALITY_PLUS_ONE = "quality_plus_one"


class ReactiveArmourWeapon(enum.StrEnum):
    """Weapons that reactive armour works against (p.43)."""

    MISSILE_LAUNCHER = "missile_launcher"
    RPG = "rpg"


class OriginalSize(enum.StrEnum):
    """The size a unit's Resolve break point is measured against (p.13)."""

    BATTLE_START = "battle_start"
    INITIAL_STRENGTH = "initial_strength"


class OfficerBonusMode(enum.StrEnum):
    """How an officer's +1 to Resolve is applied (p.13)."""

    ADD_TO_ORIGINAL_SIZE = "add_to_original_size"
    SUBTRACT_FROM_CASUALTIES = "subtract_from_casualties"


class RoutedUnitFate(enum.StrEnum):
    """A routed or surrendered unit after the battle (p.13)."""

    RETURNS_AT_CURRENT_STRENGTH = "returns_at_current_strength"
    COUNTS_AS_ELIMINATED = "counts_as_eliminated"


class AbandonedVehicleFate(enum.StrEnum):
    """An abandoned vehicle after the battle (p.13)."""

    DAMAGED = "damaged"
    DESTROYED = "destroyed"


class UnderFireOnMiss(enum.StrEnum):
    """Whether a shot that never takes effect still marks the target Under Fire (p.24)."""

    DIRECT_FIRE_ONLY = "direct_fire_only"
    ALWAYS = "always"
    NEVER = "never"


class BaseRangeBand(enum.StrEnum):
    """What the Base Range shooting modifier measures (p.17-18)."""

    WITHIN_BASE_RANGE = "within_base_range"
    CLOSE_RANGE = "close_range"


class HitAllocation(enum.StrEnum):
    """Which figures take hits (p.18, optional Hit Allocation)."""

    CLOSEST = "closest"
    RANDOM = "random"
    TARGET_CHOOSES = "target_chooses"


class VehicleType(enum.StrEnum):
    """Vehicle types (p.42)."""

    LIGHT_TRANSPORT = "light_transport"
    APC = "apc"
    IFV = "ifv"
    LIGHT_TANK = "light_tank"
    MEDIUM_TANK = "medium_tank"
    MBT = "mbt"
    WALKER = "walker"


class ScatterMode(enum.StrEnum):
    """How artillery and drop scatter is rolled (p.27, p.30)."""

    ONE_DIRECTION_K_D6 = "one_direction_k_d6"
    PER_FAILED_DIE = "per_failed_die"


class OverrunEdge(enum.StrEnum):
    """When a close-assault winner overruns (p.22), totals at or below zero included."""

    AHEAD_AND_DOUBLE = "ahead_and_double"
    DOUBLE_ONLY = "double_only"


class MedicBonusScope(enum.StrEnum):
    """Which recovery rolls a Medic's +1 applies to (p.35)."""

    WHOLE_SQUAD = "whole_squad"
    MEDIC_PATIENTS = "medic_patients"


class AbandonTrigger(enum.StrEnum):
    """When wounded count as abandoned for Leave No One Behind (p.35)."""

    LEFT_OUTSIDE_COHERENCY = "left_outside_coherency"
    DECLARED = "declared"


class WoundedAtEnd(enum.StrEnum):
    """Wounded figures at the end of a battle (the book has no post-battle medical step)."""

    COUNT_AS_LOSSES = "count_as_losses"
    STABILISED_RETURN = "stabilised_return"
    ROLL_RECOVERY = "roll_recovery"


class StandardMissions(enum.StrEnum):
    """Which missions count as the standard missions of a tree campaign (p.61, p.65)."""

    TABLE_EIGHT = "table_eight"
    WITH_ESCALATING_ENGAGEMENT = "with_escalating_engagement"


class BattleWinner(enum.StrEnum):
    """Who decides a tree-campaign battle's winner (p.65)."""

    UMPIRE_DECLARES = "umpire_declares"
    DEFENDER_ON_TIE = "defender_on_tie"


class StepOrder(enum.StrEnum):
    """The order of the post-battle steps (p.66)."""

    POINTS_BEFORE_REINFORCEMENTS = "points_before_reinforcements"
    AS_PRINTED = "as_printed"


class HalfStrengthBasis(enum.StrEnum):
    """What "half its strength" in Quality Loss is measured against (p.66)."""

    INITIAL_STRENGTH = "initial_strength"
    STRENGTH_AFTER_BATTLE = "strength_after_battle"


class InitialValueCapScope(enum.StrEnum):
    """What the Reinforcements cap "no unit above its initial value" covers (p.66)."""

    STRENGTH_ONLY = "strength_only"
    STRENGTH_QUALITY_RESOLVE = "strength_quality_resolve"


class ReinforcedPlatoonCount(enum.StrEnum):
    """How reinforced platoons are counted for campaign points (p.66)."""

    ATTACHMENTS_ROUND_UP = "attachments_round_up"
    PLATOONS_ONLY = "platoons_only"


class UnusedReinforcements(enum.StrEnum):
    """Reinforcement troopers not placed in a unit (p.66)."""

    LOST = "lost"
    BANKED = "banked"


class EmptyUnits(enum.StrEnum):
    """A wiped-out unit that rolls no replacements (p.66)."""

    STAY_AT_ZERO = "stay_at_zero"
    REMOVED = "removed"


class VehicleCrewLosses(enum.StrEnum):
    """Crew killed on a vehicle that survived (p.66)."""

    COUNTS_AS_DAMAGED = "counts_as_damaged"
    INFANTRY_REPLACEMENTS = "infantry_replacements"


class PsionicStrength(enum.StrEnum):
    """A psionic's drained Strength between battles (p.34)."""

    RESET = "reset"
    CARRIED_OVER = "carried_over"


class OneUseItems(enum.StrEnum):
    """One-use items (Combat Drugs, Lucky, smoke) between battles."""

    REFRESHED = "refreshed"
    CONSUMED = "consumed"


class MinesTypes(enum.StrEnum):
    """How light and heavy minefields map to the mine weapons (p.31, p.70)."""

    LIGHT_AP_HEAVY_AV = "light_ap_heavy_av"
    UMPIRE = "umpire"


class CampaignStructure(enum.StrEnum):
    """How a campaign decides its next battle (p.64 BUILDING A CAMPAIGN)."""

    LINKED = "linked"  # linear or tree: each planned battle names the one that follows
    RANDOM = "random"  # an agreed number of battles, each generated when it comes up


class DummyMarkers(enum.StrEnum):
    """How many dummy contact markers a stance gives or takes (p.59, p.61)."""

    PER_PLATOON = "per_platoon"
    PER_FORCE = "per_force"


_DEFAULT_LARGE_VEHICLES = (
    VehicleType.LIGHT_TANK,
    VehicleType.MEDIUM_TANK,
    VehicleType.MBT,
    VehicleType.WALKER,
)


def _on(default: bool, description: str, source: str, applies_to: str | None = None) -> Any:
    """A true/false option field."""
    return field(
        default=default,
        metadata=option(description=description, source=source, applies_to=applies_to),
    )


@dataclass(frozen=True, slots=True)
class FaDOptions:
    """Every Fast and Dirty campaign option, each at the book's default or the stated reading."""

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

    # --- force profiles and generation ---
    weapons_damage_table: WeaponsDamageTable = field(
        default=WeaponsDamageTable.BY_MOUNT,
        metadata=option(
            description="Damage when the weapons tables disagree: by_mount uses p.69 for"
            " infantry-served and p.70 for vehicle weapons",
            source="FaD p.19, p.69-70",
        ),
    )
    move_variable: bool = _on(False, "Variable movement", "FaD p.15", applies_to="fad.movement")
    forcegen_strength_roll: RollScope = field(
        default=RollScope.PER_SQUAD,
        metadata=option(
            description="Squad strength roll in random force generation",
            source="FaD p.9, p.44",
            choices=(RollScope.PER_SQUAD, RollScope.PER_PLAYER),
            applies_to="fad.force_generation",
        ),
    )
    forcegen_firepower_roll: RollScope = field(
        default=RollScope.PER_PLATOON,
        metadata=option(
            description="Firepower roll in random force generation",
            source="FaD p.10",
            choices=(RollScope.PER_PLATOON, RollScope.PER_SQUAD),
            applies_to="fad.force_generation",
        ),
    )
    forcegen_greater_variety: bool = _on(
        False, "Greater Variety force generation", "FaD p.11", applies_to="fad.force_generation"
    )
    assault_no_grenades_penalty: int = field(
        default=-2,
        metadata=option(
            description="Close-assault modifier for lacking grenades (the limitation says -1)",
            source="FaD p.11, p.22-23",
            minimum=-2,
            maximum=-1,
        ),
    )
    morale_leader_modifier_mode: ModifierMode = field(
        default=ModifierMode.PER_DIE,
        metadata=option(
            description="How a squad leader's +/-1 applies to a Morale Test",
            source="FaD p.13",
        ),
    )
    personalities_allowance: Allowance = field(
        default=Allowance.AGREED,
        metadata=option(
            description="Personalities a force may have",
            source="FaD p.33",
            applies_to="fad.force_generation",
        ),
    )
    traits_allowance: Allowance = field(
        default=Allowance.AGREED,
        metadata=option(
            description="Traits a force may have",
            source="FaD p.39",
            applies_to="fad.force_generation",
        ),
    )
    leaders_replacement_experience: LeaderExperience = field(
        default=LeaderExperience.INEXPERIENCED,
        metadata=option(
            description="Experience of a squad leader who replaces a lost one (book silent)",
            source="FaD p.25, p.49",
        ),
    )
    traits_grizzled_mode: GrizzledMode = field(
        default=GrizzledMode.RESOLVE_PLUS_ONE,
        metadata=option(
            description="What the Grizzled trait improves",
            source="FaD p.40",
        ),
    )
    vehicle_reactive_armour_weapons: tuple[ReactiveArmourWeapon, ...] = field(
        default=(ReactiveArmourWeapon.MISSILE_LAUNCHER, ReactiveArmourWeapon.RPG),
        metadata=option(
            description="Weapons reactive armour works against",
            source="FaD p.43",
        ),
    )
    # --- turn, resolve and morale ---
    turn_card_activation: bool = _on(False, "Activation by drawing cards", "FaD p.12")
    resolve_original_size: OriginalSize = field(
        default=OriginalSize.BATTLE_START,
        metadata=option(
            description="Size the Resolve break point is measured against",
            source="FaD p.13 CHECKING RESOLVE",
        ),
    )
    resolve_officer_bonus_mode: OfficerBonusMode = field(
        default=OfficerBonusMode.ADD_TO_ORIGINAL_SIZE,
        metadata=option(
            description="How an officer's +1 to Resolve applies",
            source="FaD p.13",
        ),
    )
    morale_auto_success_stacking: bool = _on(
        False,
        "Several automatic successes in a Morale Test add up",
        "FaD p.13",
    )
    campaign_routed_unit_fate: RoutedUnitFate = field(
        default=RoutedUnitFate.RETURNS_AT_CURRENT_STRENGTH,
        metadata=option(description="A routed unit in the campaign", source="FaD p.13"),
    )
    campaign_abandoned_vehicle_fate: AbandonedVehicleFate = field(
        default=AbandonedVehicleFate.DAMAGED,
        metadata=option(description="An abandoned vehicle in the campaign", source="FaD p.13"),
    )
    morale_losing_heart: bool = _on(True, "Losing Heart (the book recommends it)", "FaD p.14")
    morale_losing_heart_hard_points: bool = _on(
        False,
        "Losing Heart also counts on-board artillery and hard points",
        "FaD p.14",
    )
    morale_losing_heart_persists: bool = _on(
        False,
        "Resolve lost to Losing Heart carries over to later battles",
        "FaD p.14",
    )
    # --- fire ---
    fire_crossfire: bool = _on(False, "Crossfire", "FaD p.24")
    fire_under_fire_on_miss: UnderFireOnMiss = field(
        default=UnderFireOnMiss.DIRECT_FIRE_ONLY,
        metadata=option(
            description="A shot that never takes effect still marks the target Under Fire",
            source="FaD p.21, p.24",
        ),
    )
    adv_command_disruption: bool = _on(True, "Command Disruption (advanced)", "FaD p.25")
    adv_command_response: bool = _on(True, "Command Response (advanced)", "FaD p.25")
    fire_base_range_band: BaseRangeBand = field(
        default=BaseRangeBand.WITHIN_BASE_RANGE,
        metadata=option(
            description="What the Base Range modifier measures",
            source="FaD p.18",
        ),
    )
    fire_saw_double_count: bool = _on(
        False,
        "A SAW's +2 counts both as a modifier and as its Fire Effect",
        "FaD p.18, p.69",
    )
    fire_hit_allocation: HitAllocation = field(
        default=HitAllocation.CLOSEST,
        metadata=option(description="Which figures take hits", source="FaD p.18"),
    )
    fire_allocation_includes_wounded: bool = _on(
        True, "Wounded figures may be allocated hits", "FaD p.18, p.35"
    )
    fire_squad_based_damage: bool = _on(False, "Squad-based damage", "FaD p.19")
    vehicle_large_types: tuple[VehicleType, ...] = field(
        default=_DEFAULT_LARGE_VEHICLES,
        metadata=option(
            description="Vehicle types that count as large",
            source="FaD p.21",
        ),
    )
    artillery_comms_bonus_mode: ModifierMode = field(
        default=ModifierMode.PER_DIE,
        metadata=option(
            description="How a communications bonus applies",
            source="FaD p.30",
        ),
    )
    scatter_mode: ScatterMode = field(
        default=ScatterMode.ONE_DIRECTION_K_D6,
        metadata=option(
            description="Scatter: one direction and k d6 inches, k the failed dice",
            source="FaD p.27, p.30",
        ),
    )
    # --- close assault and mines ---
    assault_casualties_are_kills: bool = _on(
        True,
        "Close-assault casualties are killed, not wounded",
        "FaD p.22, p.35",
    )
    assault_overrun_edge: OverrunEdge = field(
        default=OverrunEdge.AHEAD_AND_DOUBLE,
        metadata=option(
            description="Overrun needs winner > loser and winner >= 2 x loser",
            source="FaD p.22",
        ),
    )
    mines_types: MinesTypes = field(
        default=MinesTypes.LIGHT_AP_HEAVY_AV,
        metadata=option(
            description="Light and heavy minefields",
            source="FaD p.31, p.70",
        ),
    )
    # --- wounded ---
    adv_recover_wounded: bool = _on(True, "Recover Wounded (advanced)", "FaD p.35")
    wounds_recovered_second_wound_kills: bool = _on(
        False,
        "A recovered figure dies to its next wound",
        "FaD p.35",
    )
    wounds_medic_bonus_scope: MedicBonusScope = field(
        default=MedicBonusScope.WHOLE_SQUAD,
        metadata=option(
            description="Rolls a Medic's +1 applies to",
            source="FaD p.35",
        ),
    )
    wounds_abandon_trigger: AbandonTrigger = field(
        default=AbandonTrigger.LEFT_OUTSIDE_COHERENCY,
        metadata=option(
            description="When wounded count as abandoned",
            source="FaD p.35 LEAVE NO ONE BEHIND",
        ),
    )
    # --- campaign ---
    campaign_wounded_at_end: WoundedAtEnd = field(
        default=WoundedAtEnd.COUNT_AS_LOSSES,
        metadata=option(description="Wounded figures at the end of a battle", source="FaD p.66"),
    )
    campaign_standard_missions: StandardMissions = field(
        default=StandardMissions.TABLE_EIGHT,
        metadata=option(
            description="The standard missions of a tree",
            source="FaD p.61, p.65",
            applies_to="fad.tree_validation",
        ),
    )
    campaign_battle_winner: BattleWinner = field(
        default=BattleWinner.UMPIRE_DECLARES,
        metadata=option(description="Who decides a battle's winner", source="FaD p.65"),
    )
    campaign_step_order: StepOrder = field(
        default=StepOrder.POINTS_BEFORE_REINFORCEMENTS,
        metadata=option(
            description="Roll steps 1-4, spend points, then roll the reinforcement pool",
            source="FaD p.66 POST-BATTLE STEPS",
        ),
    )
    campaign_half_strength_basis: HalfStrengthBasis = field(
        default=HalfStrengthBasis.INITIAL_STRENGTH,
        metadata=option(description="Quality Loss: half of which strength", source="FaD p.66"),
    )
    campaign_quality_loss_counts_reinforcements: bool = _on(
        False, "Reinforcement troopers count toward Quality Loss", "FaD p.66"
    )
    campaign_quality_loss_vehicles: bool = _on(
        False, "A repaired or replaced vehicle rolls Quality Loss", "FaD p.66"
    )
    campaign_initial_value_cap_scope: InitialValueCapScope = field(
        default=InitialValueCapScope.STRENGTH_ONLY,
        metadata=option(description="What the initial-value cap covers", source="FaD p.66"),
    )
    campaign_reinforced_platoon_count: ReinforcedPlatoonCount = field(
        default=ReinforcedPlatoonCount.ATTACHMENTS_ROUND_UP,
        metadata=option(description="Counting reinforced platoons", source="FaD p.60, p.66"),
    )
    campaign_cp_banking: bool = _on(False, "Unspent campaign points are kept", "FaD p.66")
    campaign_unused_reinforcements: UnusedReinforcements = field(
        default=UnusedReinforcements.LOST,
        metadata=option(description="Reinforcements not placed", source="FaD p.66"),
    )
    campaign_empty_units: EmptyUnits = field(
        default=EmptyUnits.STAY_AT_ZERO,
        metadata=option(description="A wiped-out unit with no replacements", source="FaD p.66"),
    )
    campaign_vehicle_crew_losses: VehicleCrewLosses = field(
        default=VehicleCrewLosses.COUNTS_AS_DAMAGED,
        metadata=option(description="Crew killed on a surviving vehicle", source="FaD p.66"),
    )
    campaign_psionic_strength: PsionicStrength = field(
        default=PsionicStrength.RESET,
        metadata=option(
            description="Drained psionic Strength",
            source="FaD p.34, p.66",
            applies_to="fad.psionics",
        ),
    )
    campaign_one_use_items: OneUseItems = field(
        default=OneUseItems.REFRESHED,
        metadata=option(
            description="One-use items between battles",
            source="FaD p.66",
            applies_to="fad.one_use_items",
        ),
    )
    campaign_squad_leader_improvement: bool = _on(
        False,
        "Squad leader experience may be bought with campaign points: 1 point a level, up to "
        "Veteran (book silent; the price is an officer's leadership step's)",
        "FaD p.11, p.66",
    )
    campaign_locked_resolve_skips_roll: bool = _on(
        True, "Units whose Resolve is fixed skip the Resolve Loss roll", "FaD p.54, p.56, p.66"
    )
    campaign_mission_bonus_persists: bool = _on(
        False,
        "Mission bonus traits stay with the units that received them after the battle (book "
        "silent: by default they last the battle)",
        "FaD p.62-63",
    )
    scenario_stance_dummy_markers: DummyMarkers = field(
        default=DummyMarkers.PER_PLATOON,
        metadata=option(
            description="Dummy markers given by a stance",
            source="FaD p.59, p.61",
        ),
    )
    campaign_structure: CampaignStructure = field(
        default=CampaignStructure.LINKED,
        metadata=option(
            description="How the next battle is decided: linked (linear or tree, each battle "
            "planned names the next) or random (each battle generated from the scenario tables "
            "when it comes up)",
            source="FaD p.64",
        ),
    )
    campaign_battles_planned: int | None = field(
        default=None,
        metadata=option(
            description="The number of battles agreed for a random campaign (none: not counted)",
            source="FaD p.64",
            minimum=1,
            maximum=100,
        ),
    )

    # Options removed because they cannot change anything (docs/rules-coverage.md).
    RETIRED: ClassVar[Mapping[str, str]] = {
        "campaign_resolve_gain_cap": "Determined is the highest Resolve (FaD p.6), so a Resolve"
        " Loss roll of 5-6 on a Determined unit changes nothing whatever the option said"
        " (p.66).",
    }

    def __post_init__(self) -> None:
        check_options(self)
