"""Stargrunt II vehicle damage and casualties to vehicle occupants (SG2 P.37-39, P.49, P.55).

A vehicle's damage is the set of markers it carries: IMM and SYS may be carried together,
DISABLED (DIS) and DESTROYED end its part in the battle (P.38-39 INDICATING DAMAGED VEHICLES).

One module on purpose, though long: damage and occupants' casualties are one sequence of rolls
in the book (penetration, location, damage, then the men aboard), tested as one.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from rules.dice import DiceSource, Die, Roll
from rules.errors import RuleError
from rules.sg2.casualties import (
    CasualtyError,
    Figure,
    FigureCasualty,
    FigureState,
    settle_power_armour,
    state_after_hits,
)
from rules.sg2.options import DisabledVehicleStayTest, Environment
from rules.sg2.scales import MissionMotivation, Quality


class VehicleDamage(enum.StrEnum):
    """Damage markers a vehicle can carry, least to most severe (SG2 P.38-39; digest §7.1)."""

    IMMOBILISED = "immobilised"
    SYSTEMS_DAMAGED = "systems_damaged"
    DISABLED = "disabled"
    DESTROYED = "destroyed"

    @property
    def marker(self) -> str:
        return {
            "immobilised": "IMM",
            "systems_damaged": "SYS",
            "disabled": "DIS",
            "destroyed": "smoke",
        }[self.value]

    @property
    def occupant_size_multiplier(self) -> int | None:
        """How the weapon size is multiplied for occupant casualty rolls (P.39), if at all."""
        return {"disabled": 1, "destroyed": 2}.get(self.value)

    @property
    def occupant_confidence_threat_level(self) -> int | None:
        """Threat level of the occupants' confidence test (immobilised: 3, P.39)."""
        return 3 if self is VehicleDamage.IMMOBILISED else None


@dataclass(frozen=True, slots=True)
class VehicleStatus:
    """The damage markers on one vehicle, and what it may still do."""

    damage: frozenset[VehicleDamage] = frozenset()

    @property
    def knocked_out(self) -> bool:
        return bool(self.damage & {VehicleDamage.DISABLED, VehicleDamage.DESTROYED})

    @property
    def destroyed(self) -> bool:
        return VehicleDamage.DESTROYED in self.damage

    @property
    def can_move(self) -> bool:
        return not self.knocked_out and VehicleDamage.IMMOBILISED not in self.damage

    @property
    def can_fire(self) -> bool:
        """SYS stops weapons and every electronic system, communications included (P.39)."""
        return not self.knocked_out and VehicleDamage.SYSTEMS_DAMAGED not in self.damage

    def apply(
        self, damage: VehicleDamage, *, double_disabled_is_destroyed: bool = False
    ) -> VehicleStatus:
        """The status after a new damage result.

        A destroyed vehicle stays destroyed; a disabled one can still be destroyed, and a further
        disabling hit leaves it disabled (SG2-C: "treated as destroyed" only for bailing out),
        unless option ``double_disabled_is_destroyed`` (default false, a gap SG2-C leaves) makes
        a vehicle disabled twice destroyed for the campaign. IMM and SYS add to each other and
        mean nothing on a knocked-out vehicle.
        """
        damage = VehicleDamage(damage)
        if self.destroyed:
            return self
        disabled_again = damage is VehicleDamage.DISABLED and self.knocked_out
        if damage is VehicleDamage.DESTROYED or (disabled_again and double_disabled_is_destroyed):
            return VehicleStatus(frozenset({VehicleDamage.DESTROYED}))
        if self.knocked_out or damage is VehicleDamage.DISABLED:
            return VehicleStatus(frozenset({VehicleDamage.DISABLED}))
        return VehicleStatus(self.damage | {damage})


class SuspensionType(enum.StrEnum):
    """Suspension types and the die each rolls when hit (SG2 P.39, P.55)."""

    CIVILIAN_WHEELED = "civilian_wheeled"
    MILITARY_WHEELED = "military_wheeled"
    TRACKED = "tracked"
    HOVER = "hover"
    GRAV = "grav"
    WALKER = "walker"

    @property
    def fire_die(self) -> Die | None:
        """Die against a suspension hit from fire; grav and walker cannot be hit (P.39)."""
        return {
            "civilian_wheeled": Die.D6,
            "military_wheeled": Die.D10,
            "tracked": Die.D10,
            "hover": Die.D8,
        }.get(self.value)

    @property
    def mine_die(self) -> Die:
        """Die against an AV mine; grav and walker roll a D12 (P.55)."""
        return self.fire_die or Die.D12


@dataclass(frozen=True, slots=True)
class VehicleArmour:
    """Armour of the face hit: class 1-5 rolls D12 x class; class 0 is a softskin (P.38)."""

    armour_class: int
    softskin_die: Die = Die.D6

    def __post_init__(self) -> None:
        if (
            isinstance(self.armour_class, bool)
            or not isinstance(self.armour_class, int)
            or not 0 <= self.armour_class <= 5
        ):
            raise RuleError(
                "vehicles.refused", f"Armour class is 0 (softskin) to 5, not {self.armour_class!r}."
            )

    @property
    def die(self) -> Die:
        return Die.D12 if self.armour_class else self.softskin_die

    @property
    def multiplier(self) -> int:
        return self.armour_class or 1


class NonPenetratingLocation(enum.StrEnum):
    """Where a non-penetrating hit lands, by D6 (SG2 P.39)."""

    SUSPENSION = "suspension"  # 1-2
    HULL = "hull"  # 3-5, no further effect
    SYSTEMS = "systems"  # 6

    @classmethod
    def from_roll(cls, roll: int) -> NonPenetratingLocation:
        if roll <= 2:
            return cls.SUSPENSION
        return cls.SYSTEMS if roll == 6 else cls.HULL


def penetration_result(impact_score: int, armour_score: int) -> VehicleDamage | None:
    """Impact against vehicle armour (P.38): above it DISABLED, above twice it DESTROYED."""
    if impact_score <= armour_score:
        return None
    if impact_score > 2 * armour_score:
        return VehicleDamage.DESTROYED
    return VehicleDamage.DISABLED


@dataclass(frozen=True, slots=True)
class VehicleHitOutcome:
    """The effect of one hit on a vehicle."""

    impact_score: int
    armour_score: int
    damage: VehicleDamage | None
    location: NonPenetratingLocation | None
    suspension_impact_score: int | None
    suspension_score: int | None
    status_after: VehicleStatus
    rolls: tuple[Roll, ...]

    @property
    def penetrated(self) -> bool:
        return self.location is None


def _check_multiplier(value: int, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RuleError(
            "vehicles.refused", f"The {what} must be a whole number of at least 1, not {value!r}."
        )


def resolve_vehicle_hit(
    *,
    dice: DiceSource,
    impact: Die,
    armour: VehicleArmour,
    suspension: SuspensionType,
    major_hit: bool = False,
    impact_multiplier: int = 1,
    status: VehicleStatus = VehicleStatus(),
    double_disabled_is_destroyed: bool = False,
) -> VehicleHitOutcome:
    """Decide the damage state one minor or major hit leaves a vehicle in (SG2 P.38-39).

    SG2 P.38 ARMOUR PENETRATION AND HIT EFFECTS: impact die x multiplier (listed value x weapon
    size; doubled for a MAJOR hit) against the armour die (D12 x armour class; softskin D6).
    Impact above armour: DISABLED; above twice armour: DESTROYED. SG2 P.39 NON-PENETRATING HITS:
    D6 1-2 suspension, 3-5 hull (no effect), 6 systems (SYS, automatic). A suspension hit is a
    new opposed roll of the impact (minor or major value) against the suspension die (civilian
    wheeled D6, military wheeled D10, tracked D10, hover D8); higher impact IMMOBILISES. Grav
    and walker suspensions cannot be hit. The caller supplies the hit (from the multiple opposed
    roll) and the face's armour; artillery against point targets is a minor hit (P.47). Option
    ``double_disabled_is_destroyed``: see :meth:`VehicleStatus.apply`.

    Dice: the impact die, the armour die; if not penetrated a D6 for location; for a suspension
    hit on a wheeled, tracked or hover vehicle the impact die again and the suspension die.
    """
    _check_multiplier(impact_multiplier, "impact multiplier")
    multiplier = impact_multiplier * (2 if major_hit else 1)
    impact_roll = dice.roll(impact, "impact against vehicle armour")
    armour_roll = dice.roll(armour.die, "vehicle armour")
    rolls = [impact_roll, armour_roll]
    impact_score = impact_roll.result * multiplier
    armour_score = armour_roll.result * armour.multiplier
    damage = penetration_result(impact_score, armour_score)
    location: NonPenetratingLocation | None = None
    suspension_impact: int | None = None
    suspension_score: int | None = None
    if damage is None:
        location_roll = dice.roll(Die.D6, "location of non-penetrating hit")
        rolls.append(location_roll)
        location = NonPenetratingLocation.from_roll(location_roll.result)
        suspension_die = SuspensionType(suspension).fire_die
        if location is NonPenetratingLocation.SYSTEMS:
            damage = VehicleDamage.SYSTEMS_DAMAGED
        elif location is NonPenetratingLocation.SUSPENSION and suspension_die is not None:
            second_impact = dice.roll(impact, "impact against suspension")
            suspension_roll = dice.roll(suspension_die, "suspension")
            rolls += [second_impact, suspension_roll]
            suspension_impact = second_impact.result * multiplier
            suspension_score = suspension_roll.result
            if suspension_impact > suspension_score:
                damage = VehicleDamage.IMMOBILISED
    return VehicleHitOutcome(
        impact_score=impact_score,
        armour_score=armour_score,
        damage=damage,
        location=location,
        suspension_impact_score=suspension_impact,
        suspension_score=suspension_score,
        status_after=(
            status
            if damage is None
            else status.apply(damage, double_disabled_is_destroyed=double_disabled_is_destroyed)
        ),
        rolls=tuple(rolls),
    )


@dataclass(frozen=True, slots=True)
class SystemsRepairOutcome:
    """Whether backup systems came on line."""

    restored: bool
    status_after: VehicleStatus
    rolls: tuple[Roll, ...]


def restore_systems(*, dice: DiceSource, status: VehicleStatus) -> SystemsRepairOutcome:
    """Try to bring backup systems on line, one action (SG2 P.39 SYSTEMS HIT).

    SG2 P.39: each activation with a SYS marker one action may be spent: D6, 5 or 6 removes the
    SYS marker. Refused for a vehicle with no SYS marker or one that is knocked out.
    Dice: one D6.
    """
    if status.knocked_out or VehicleDamage.SYSTEMS_DAMAGED not in status.damage:
        raise CasualtyError(
            "vehicle.no_systems_damage", "Only a vehicle carrying a SYS marker can restore systems."
        )
    roll = dice.roll(Die.D6, "backup systems")
    restored = roll.result >= 5
    after = VehicleStatus(status.damage - {VehicleDamage.SYSTEMS_DAMAGED}) if restored else status
    return SystemsRepairOutcome(restored=restored, status_after=after, rolls=(roll,))


@dataclass(frozen=True, slots=True)
class OccupantRoll:
    """One occupant's casualty roll(s) and what became of him."""

    figure_id: str
    armour_roll: int | None  # None: a roll he could not pass, or none called for
    casualty: bool
    severity_roll: int | None
    change: FigureCasualty | None


@dataclass(frozen=True, slots=True)
class OccupantCasualtiesOutcome:
    """What happened to the occupants of a penetrated vehicle."""

    save_above: int | None
    occupants: tuple[OccupantRoll, ...]
    rolls: tuple[Roll, ...]

    @property
    def killed(self) -> tuple[str, ...]:
        return tuple(
            o.figure_id for o in self.occupants if o.change and o.change.after is FigureState.DEAD
        )

    @property
    def wounded(self) -> tuple[str, ...]:
        return tuple(
            o.figure_id
            for o in self.occupants
            if o.change and o.change.after in (FigureState.UNTREATED, FigureState.STABILISED)
        )


def _check_occupants(occupants: Sequence[Figure]) -> None:
    ids = [figure.id for figure in occupants]
    if len(set(ids)) != len(ids):
        raise RuleError("vehicles.refused", "Each occupant must appear once, with his own id.")
    for figure in occupants:
        if not figure.state.on_table_alive and figure.state is not FigureState.DEAD:
            raise CasualtyError(
                "figure.not_on_table", f"Figure {figure.id} is {figure.state.value}, not aboard."
            )


def _hurt(
    figure: Figure, *, dead: bool, environment: Environment = Environment.NORMAL
) -> FigureCasualty:
    wounds, kills = (0, 1) if dead else (1, 0)
    after = state_after_hits(figure.state, wounds=wounds, kills=kills, environment=environment)
    return FigureCasualty(figure.id, figure.state, after, wounds, kills)


def _occupants_by_threshold(
    dice: DiceSource,
    occupants: Sequence[Figure],
    save_above: int,
    what: str,
    environment: Environment = Environment.NORMAL,
) -> OccupantCasualtiesOutcome:
    rolls: list[Roll] = []
    armour_rolls: list[int | None] = []
    for figure in occupants:
        if figure.armour.value <= save_above:
            # No face of his armour die can exceed the number: he is a casualty without a roll.
            armour_rolls.append(None)
            continue
        roll = dice.roll(figure.armour, f"armour of {figure.id} against {what}")
        rolls.append(roll)
        armour_rolls.append(roll.result)
    results: list[OccupantRoll] = []
    changes: list[FigureCasualty] = []
    for figure, armour_roll in zip(occupants, armour_rolls, strict=True):
        casualty = armour_roll is None or armour_roll <= save_above
        if not casualty:
            results.append(OccupantRoll(figure.id, armour_roll, False, None, None))
            continue
        if Environment(environment) is Environment.VACUUM:
            # Every wound is a kill in a vacuum (P.57): the severity die cannot matter.
            change = _hurt(figure, dead=True)
            changes.append(change)
            results.append(OccupantRoll(figure.id, armour_roll, True, None, change))
            continue
        severity = dice.roll(Die.D6, f"casualty severity of {figure.id}")
        rolls.append(severity)
        change = _hurt(figure, dead=severity.result <= 3)
        changes.append(change)
        results.append(OccupantRoll(figure.id, armour_roll, True, severity.result, change))
    rolls += settle_power_armour(dice, occupants, changes)
    settled = {change.figure_id: change for change in changes}
    return OccupantCasualtiesOutcome(
        save_above=save_above,
        occupants=tuple(
            OccupantRoll(
                r.figure_id,
                r.armour_roll,
                r.casualty,
                r.severity_roll,
                settled.get(r.figure_id, r.change),
            )
            for r in results
        ),
        rolls=tuple(rolls),
    )


def occupant_save_number(
    *,
    damage: VehicleDamage,
    weapon_size_class: int | None,
    support_weapon_size_class: int = 1,
) -> int:
    """The armour score each occupant must exceed (SG2 P.39 CASUALTIES TO VEHICLE OCCUPANTS).

    The size class of the weapon that knocked the vehicle out; doubled if it was DESTROYED.
    ``weapon_size_class`` None means an infantry support weapon, whose size class the book does
    not give: option ``support_weapon_size_class`` (default 1).
    """
    multiplier = VehicleDamage(damage).occupant_size_multiplier
    if multiplier is None:
        raise CasualtyError(
            "vehicle.no_occupant_casualties",
            f"A vehicle that is {damage.value} causes no occupant casualties.",
        )
    size = support_weapon_size_class if weapon_size_class is None else weapon_size_class
    _check_multiplier(size, "weapon size class")
    return size * multiplier


def occupant_casualties(
    *,
    dice: DiceSource,
    occupants: Sequence[Figure],
    damage: VehicleDamage,
    weapon_size_class: int | None,
    support_weapon_size_class: int = 1,
    environment: Environment = Environment.NORMAL,
) -> OccupantCasualtiesOutcome:
    """Which occupants of a vehicle a penetrating hit kills or wounds (SG2 P.39).

    SG2 P.39 CASUALTIES TO VEHICLE OCCUPANTS: when a support or heavy weapon DISABLES or
    DESTROYS a vehicle, every occupant (crew and passengers) rolls his own armour die and must
    exceed the weapon's size class (doubled if DESTROYED) or be a casualty; each casualty then
    rolls D6: 1-3 DEAD, 4-6 WOUNDED. Also used for buildings (P.56). An occupant whose armour
    die cannot exceed the number is a casualty without rolling ("anyone in less than D8 armour
    is automatically a casualty"). Power-armoured casualties not killed roll P.40 at once.

    Option ``support_weapon_size_class`` (default 1), see :func:`occupant_save_number`. Option
    ``environment``: in a vacuum every casualty is killed (P.57), with no severity die.
    Dice: armour dice in occupant order, then a D6 per casualty (none in a vacuum), then P.40
    D6s.
    """
    _check_occupants(occupants)
    save_above = occupant_save_number(
        damage=damage,
        weapon_size_class=weapon_size_class,
        support_weapon_size_class=support_weapon_size_class,
    )
    return _occupants_by_threshold(
        dice, occupants, save_above, f"a {damage.value} vehicle", environment
    )


def small_arms_occupant_result(armour_roll: int) -> FigureState | None:
    """The P.37 small-arms occupant table: 1 DEAD, 2 WOUNDED, 3+ unharmed (None)."""
    if armour_roll == 1:
        return FigureState.DEAD
    if armour_roll == 2:
        return FigureState.UNTREATED
    return None


@dataclass(frozen=True, slots=True)
class SmallArmsVehicleOutcome:
    """The effect of a fully effective small-arms fire on a lightly armoured vehicle."""

    impact_score: int | None
    armour_score: int | None
    penetrated: bool
    damage: VehicleDamage | None
    occupants: tuple[OccupantRoll, ...]
    status_after: VehicleStatus
    rolls: tuple[Roll, ...]


def small_arms_against_vehicle(
    *,
    dice: DiceSource,
    impact: Die,
    armour: VehicleArmour,
    occupants: Sequence[Figure],
    status: VehicleStatus = VehicleStatus(),
    environment: Environment = Environment.NORMAL,
    double_disabled_is_destroyed: bool = False,
) -> SmallArmsVehicleOutcome:
    """What a fully effective small-arms fire does to a vehicle and its occupants (SG2 P.37).

    SG2 P.37 FIRING SMALL ARMS AT POINT TARGETS: the caller supplies that two or more firer dice
    beat the range die (one only is suppression). Armour class 2 or more: nothing beyond
    suppression. Class 1 or softskin: one penetration roll as a MINOR hit with the small-arms
    impact (never doubled) against the armour die. Impact not above armour: no effect; above
    it: each occupant rolls his own armour die, 1 DEAD, 2 WOUNDED, 3+ unharmed; above twice it:
    the same, and the vehicle is DISABLED.

    Options ``environment`` (a wound is a kill in a vacuum, P.57) and
    ``double_disabled_is_destroyed`` (see :meth:`VehicleStatus.apply`).

    Dice: impact, armour; then one armour die per occupant in order; then P.40 D6s for
    power-armoured occupants wounded.
    """
    _check_occupants(occupants)
    if armour.armour_class >= 2:
        return SmallArmsVehicleOutcome(None, None, False, None, (), status, ())
    impact_roll = dice.roll(impact, "small arms impact against vehicle")
    armour_roll = dice.roll(armour.die, "vehicle armour")
    rolls = [impact_roll, armour_roll]
    impact_score = impact_roll.result
    armour_score = armour_roll.result * armour.multiplier
    penetrated = impact_score > armour_score
    damage = VehicleDamage.DISABLED if impact_score > 2 * armour_score else None
    results: list[OccupantRoll] = []
    changes: list[FigureCasualty] = []
    if penetrated:
        for figure in occupants:
            roll = dice.roll(figure.armour, f"armour of {figure.id} against small arms")
            rolls.append(roll)
            hurt = small_arms_occupant_result(roll.result)
            change = (
                None
                if hurt is None
                else _hurt(figure, dead=hurt is FigureState.DEAD, environment=environment)
            )
            if change is not None:
                changes.append(change)
            results.append(OccupantRoll(figure.id, roll.result, change is not None, None, change))
    rolls += settle_power_armour(dice, occupants, changes)
    settled = {change.figure_id: change for change in changes}
    return SmallArmsVehicleOutcome(
        impact_score=impact_score,
        armour_score=armour_score,
        penetrated=penetrated,
        damage=damage,
        occupants=tuple(
            OccupantRoll(r.figure_id, r.armour_roll, r.casualty, None, settled.get(r.figure_id))
            for r in results
        ),
        status_after=(
            status
            if damage is None
            else status.apply(damage, double_disabled_is_destroyed=double_disabled_is_destroyed)
        ),
        rolls=tuple(rolls),
    )


@dataclass(frozen=True, slots=True)
class MineAttackOutcome:
    """The effect of an anti-vehicle mine on a vehicle and its occupants."""

    mine_score: int
    suspension_score: int
    damage: VehicleDamage | None
    occupants: OccupantCasualtiesOutcome | None
    status_after: VehicleStatus
    rolls: tuple[Roll, ...]


AV_MINE_SIZE_CLASS = 2


def anti_vehicle_mine(
    *,
    dice: DiceSource,
    suspension: SuspensionType,
    softskin: bool,
    occupants: Sequence[Figure],
    status: VehicleStatus = VehicleStatus(),
    environment: Environment = Environment.NORMAL,
    double_disabled_is_destroyed: bool = False,
) -> MineAttackOutcome:
    """What an anti-vehicle mine does to the vehicle it attacks (SG2 P.55).

    SG2 P.55: the mine rolls D10 against the suspension die (civilian wheeled D6, military
    wheeled D10, tracked D10, hover D8, grav and walker D12). Mine higher: IMMOBILISED; more
    than twice: DISABLED, and occupants roll as for a size-2 weapon: an AFV as a minor hit
    (casualty on an armour roll of 1-2), a softskin as a major hit (casualty on 1-4); casualties
    then D6 1-3 dead, 4-6 wounded. The caller decides whether the mine attacks (automatic in an
    AV field, D6 3+ in a mixed one).

    Options ``environment`` and ``double_disabled_is_destroyed`` as in
    :func:`small_arms_against_vehicle`.

    Dice: the mine D10, the suspension die, then the occupant dice as :func:`occupant_casualties`.
    """
    _check_occupants(occupants)
    mine = dice.roll(Die.D10, "anti-vehicle mine")
    suspension_roll = dice.roll(SuspensionType(suspension).mine_die, "suspension against mine")
    rolls = [mine, suspension_roll]
    damage: VehicleDamage | None = None
    casualties: OccupantCasualtiesOutcome | None = None
    if mine.result > 2 * suspension_roll.result:
        damage = VehicleDamage.DISABLED
        save_above = AV_MINE_SIZE_CLASS * (2 if softskin else 1)
        casualties = _occupants_by_threshold(dice, occupants, save_above, "a mine", environment)
        rolls += casualties.rolls
    elif mine.result > suspension_roll.result:
        damage = VehicleDamage.IMMOBILISED
    return MineAttackOutcome(
        mine_score=mine.result,
        suspension_score=suspension_roll.result,
        damage=damage,
        occupants=casualties,
        status_after=(
            status
            if damage is None
            else status.apply(damage, double_disabled_is_destroyed=double_disabled_is_destroyed)
        ),
        rolls=tuple(rolls),
    )


class LandingResult(enum.StrEnum):
    """How an aircraft's emergency landing ends (SG2 P.49)."""

    EXPLODED = "exploded"
    CRASH_LANDED = "crash_landed"
    CONTROLLED = "controlled"


@dataclass(frozen=True, slots=True)
class EmergencyLandingOutcome:
    """The landing and what became of everyone aboard."""

    result: LandingResult
    pilot_roll: int | None
    casualties: tuple[FigureCasualty, ...]
    rolls: tuple[Roll, ...]


def crash_landing_result(roll: int) -> FigureState | None:
    """The P.49 crash-landing table per occupant: 1 killed, 2-3 wounded, 4+ safe (None)."""
    if roll == 1:
        return FigureState.DEAD
    if roll <= 3:
        return FigureState.UNTREATED
    return None


def everyone_aboard_killed(occupants: Sequence[Figure]) -> tuple[FigureCasualty, ...]:
    """An air vehicle destroyed in the air, or landing on a solid object, kills all (P.49)."""
    _check_occupants(occupants)
    return tuple(_hurt(figure, dead=True) for figure in occupants)


def emergency_landing(
    *,
    dice: DiceSource,
    pilot_quality: Quality,
    occupants: Sequence[Figure],
    hits_solid_object: bool = False,
    environment: Environment = Environment.NORMAL,
) -> EmergencyLandingOutcome:
    """How a disabled aircraft's emergency landing ends for those aboard (SG2 P.49).

    SG2 P.49: the pilot rolls his Quality die: 1 the aircraft explodes as if destroyed (all
    aboard killed); 2-3 it crash-lands: D6 per occupant regardless of armour, 1 killed, 2-3
    wounded, 4+ safe; 4+ a controlled landing, nobody hurt. Landing on a solid object (vehicle,
    building) destroys it and kills all aboard without a roll. The caller places the landing
    point. Power-armoured occupants wounded roll P.40 at once. Option ``environment``: in a
    vacuum a wounded occupant is killed (P.57).

    Dice: the pilot's Quality die; for a crash landing a D6 per occupant, then P.40 D6s.
    """
    _check_occupants(occupants)
    if hits_solid_object:
        return EmergencyLandingOutcome(
            LandingResult.EXPLODED, None, everyone_aboard_killed(occupants), ()
        )
    pilot = dice.roll(Quality(pilot_quality).die, "pilot's emergency landing")
    rolls = [pilot]
    if pilot.result == 1:
        return EmergencyLandingOutcome(
            LandingResult.EXPLODED, 1, everyone_aboard_killed(occupants), (pilot,)
        )
    if pilot.result >= 4:
        return EmergencyLandingOutcome(LandingResult.CONTROLLED, pilot.result, (), (pilot,))
    changes: list[FigureCasualty] = []
    for figure in occupants:
        roll = dice.roll(Die.D6, f"crash landing {figure.id}")
        rolls.append(roll)
        hurt = crash_landing_result(roll.result)
        if hurt is not None:
            changes.append(_hurt(figure, dead=hurt is FigureState.DEAD, environment=environment))
    rolls += settle_power_armour(dice, occupants, changes)
    return EmergencyLandingOutcome(
        LandingResult.CRASH_LANDED, pilot.result, tuple(changes), tuple(rolls)
    )


BAIL_OUT_DISTANCE_INCHES = 6


@dataclass(frozen=True, slots=True)
class BailOut:
    """What the occupants of a damaged vehicle must or may do."""

    must_bail_out: bool
    # A test at this threat level decides whether they may stay; failing it they must bail out
    # (and a failed confidence test costs confidence levels). None: no test.
    stay_test_threat_level: int | None
    # True: the test must be taken; False: only if they want to stay aboard.
    test_compulsory: bool
    suppressed: bool
    # Which test: a confidence test, or (option disabled_vehicle_stay_test) a reaction test.
    stay_test: DisabledVehicleStayTest = DisabledVehicleStayTest.CONFIDENCE


_STAY_IN_DISABLED_THREAT = {
    MissionMotivation.LOW: 4,
    MissionMotivation.MEDIUM: 2,
    MissionMotivation.HIGH: 1,
}


def occupants_after_hit(
    *,
    damage: VehicleDamage,
    already_disabled: bool = False,
    mission_motivation: MissionMotivation = MissionMotivation.MEDIUM,
    disabled_vehicle_bailout: bool = True,
    disabled_vehicle_stay_test: DisabledVehicleStayTest = DisabledVehicleStayTest.CONFIDENCE,
) -> BailOut:
    """Whether the occupants of a damaged vehicle must get out (SG2 P.39; SG2-C).

    IMMOBILISED (P.39): a compulsory confidence test at threat level 3; failing it they must
    bail out, passing they may stay. SYSTEMS: no effect on occupants. With option
    ``disabled_vehicle_bailout`` (default true, Goodall's "Remaining in a Disabled Vehicle"):
    DESTROYED, or a penetrating hit on a vehicle already disabled: they must bail out 6" and are
    suppressed; DISABLED: they bail out 6" suppressed, unless they choose to take a confidence
    test at threat level 4/2/1 (LOW/MEDIUM/HIGH motivation) and pass it to stay, still
    suppressed. Option ``disabled_vehicle_stay_test`` (default ``confidence``, Goodall's word):
    ``reaction`` makes that test a reaction test, whose failure costs no confidence (SG2-C,
    AMBIG). With the option off only the book applies: a destroyed hulk must be left,
    a disabled vehicle may be left or not. Occupant casualties are rolled first
    (:func:`occupant_casualties`); bailing out is 6" (``BAIL_OUT_DISTANCE_INCHES``).
    """
    damage = VehicleDamage(damage)
    if damage is VehicleDamage.SYSTEMS_DAMAGED:
        return BailOut(False, None, False, False)
    if damage is VehicleDamage.IMMOBILISED:
        return BailOut(False, 3, True, False)
    if not disabled_vehicle_bailout:
        return BailOut(damage is VehicleDamage.DESTROYED, None, False, False)
    if damage is VehicleDamage.DESTROYED or already_disabled:
        return BailOut(True, None, False, True)
    threat = _STAY_IN_DISABLED_THREAT[MissionMotivation(mission_motivation)]
    return BailOut(False, threat, False, True, DisabledVehicleStayTest(disabled_vehicle_stay_test))
