"""Fast and Dirty campaign points: how many a force earns and what they buy (FaD p.66).

EXPERIENCE: after each battle both players receive two campaign points per reinforced platoon in
their force and spend them on the price list below. Spending is checked as a whole: a purchase over
budget or over a cap is refused with a :class:`CampaignPointsError` whose ``code`` names the rule.

The book's list has no price for a squad leader's experience (p.11); with option
``campaign_squad_leader_improvement`` a step costs 1 point, as an officer's leadership step does
(the service's reading).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypeVar

from rules.errors import RuleError
from rules.fad.replacements import VehicleCondition
from rules.fad.scales import Quality, Resolve, SquadLeaderExperience


class CampaignPointsError(RuleError):
    """A campaign point purchase the rules refuse; ``code`` is e.g. ``campaign_points.over_cap``.

    ``index`` is the place of the purchase refused, if one is; ``part`` the part of it at fault
    (``"kind"`` for a purchase the campaign's options do not allow), if not the whole.
    """

    def __init__(
        self, code: str, message: str, *, index: int | None = None, part: str | None = None
    ) -> None:
        super().__init__(code, message, field=None if index is None else str(index))
        self.index = index
        self.part = part


POINTS_PER_REINFORCED_PLATOON = 2


def campaign_points_awarded(*, reinforced_platoons: int) -> int:
    """Campaign points a force receives after a battle (FaD p.66 EXPERIENCE): 2 per platoon.

    The book does not say how attachments are counted (option ``campaign_reinforced_platoon_count``
    is applied by the caller when counting): by default a platoon with its attachments counts once,
    and a force larger than a reinforced platoon counts as two, as for Recon Points (p.60).
    """
    if (
        isinstance(reinforced_platoons, bool)
        or not isinstance(reinforced_platoons, int)
        or reinforced_platoons < 0
    ):
        raise CampaignPointsError(
            "campaign_points.invalid",
            f"Reinforced platoons is a whole number from 0 up, not {reinforced_platoons!r}.",
        )
    return POINTS_PER_REINFORCED_PLATOON * reinforced_platoons


class PurchaseKind(enum.StrEnum):
    """The campaign point price list (FaD p.66 EXPERIENCE)."""

    QUALITY_STEP = "quality_step"
    RESOLVE_STEP = "resolve_step"
    REINFORCEMENT_DIE = "reinforcement_die"
    RETURN_LONE_FIGURE = "return_lone_figure"
    REPAIR_VEHICLE = "repair_vehicle"
    PERSONALITY = "personality"
    OFFICER_LEADERSHIP_STEP = "officer_leadership_step"
    REPLACE_VEHICLE = "replace_vehicle"
    TRAIT = "trait"
    # Not on the book's list: only with option campaign_squad_leader_improvement.
    SQUAD_LEADER_STEP = "squad_leader_step"

    @property
    def cost(self) -> int:
        """Points the purchase costs: 2 to replace a vehicle or assign a trait, otherwise 1
        (a squad leader's step too, priced like an officer's: the book gives no price)."""
        return 2 if self in (PurchaseKind.REPLACE_VEHICLE, PurchaseKind.TRAIT) else 1


class OfficerLeadership(enum.IntEnum):
    """An officer's Leadership Rating, worst to best; the value is the bonus (FaD p.32)."""

    NOVICE = 0
    EXPERIENCED = 1
    INSPIRING = 2
    HEROIC = 3


PERSONALITIES = frozenset(
    {
        "Brawler",
        "Comms",
        "Knife Fighter",
        "Lucky",
        "Medic",
        "Motivator",
        "Sharpshooter",
        "Trigger Happy",
    }
)
"""The Personalities of FaD p.33, which a campaign point can grant."""

HIGHEST_BOUGHT_QUALITY = Quality.REGULAR

_Standing = TypeVar("_Standing")


@dataclass(frozen=True, slots=True)
class UnitStanding:
    """What the price list needs to know about a unit (squad, team or lone figure).

    ``resolve_locked`` marks units that cannot change their resolve (the Fanatic trait, p.56;
    off-board artillery, p.54). ``initial_quality`` and ``initial_resolve`` are the campaign's
    starting values, read only when option ``campaign_initial_value_cap_scope`` is
    ``"strength_quality_resolve"``. ``squad_leader`` is the experience of the squad's leader
    (p.11), or None when it has none on duty.
    """

    unit_id: str
    quality: Quality
    resolve: Resolve
    initial_quality: Quality | None = None
    initial_resolve: Resolve | None = None
    resolve_locked: bool = False
    eliminated_lone_figure: bool = False
    traits: frozenset[str] = frozenset()
    squad_leader: SquadLeaderExperience | None = None


@dataclass(frozen=True, slots=True)
class VehicleStanding:
    vehicle_id: str
    condition: VehicleCondition


@dataclass(frozen=True, slots=True)
class OfficerStanding:
    officer_id: str
    leadership: OfficerLeadership


@dataclass(frozen=True, slots=True)
class Purchase:
    """One item bought: ``target`` is the unit, vehicle or officer id (empty for a reinforcement
    die); ``detail`` is the personality or trait name."""

    kind: PurchaseKind
    target: str = ""
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Spending:
    """The force after its campaign points are spent, and what became of the points."""

    budget: int
    spent: int
    carried_forward: int
    lost: int
    units: tuple[UnitStanding, ...]
    vehicles: tuple[VehicleStanding, ...]
    officers: tuple[OfficerStanding, ...]
    extra_reinforcement_dice: int
    personalities: tuple[tuple[str, str], ...]


def spend_campaign_points(
    *,
    awarded: int,
    purchases: tuple[Purchase, ...],
    units: tuple[UnitStanding, ...] = (),
    vehicles: tuple[VehicleStanding, ...] = (),
    officers: tuple[OfficerStanding, ...] = (),
    banked: int = 0,
    campaign_cp_banking: bool = False,
    campaign_initial_value_cap_scope: str = "strength_only",
    campaign_squad_leader_improvement: bool = False,
) -> Spending:
    """Check and apply a player's campaign point purchases, in order (FaD p.66 EXPERIENCE).

    Price list: 1 point each to raise a unit's quality one step (no unit may be raised to Elite),
    raise a unit's resolve one step (not past Determined; never for a unit whose resolve is
    fixed), roll an extra reinforcement die, return an eliminated lone figure, fully repair a
    damaged vehicle, grant a Personality (p.33), raise an officer's leadership one step (not past
    Heroic); 2 points each to replace an eliminated vehicle or assign a trait to a unit.

    Options: ``campaign_cp_banking`` (default False: unspent points are lost; if True they carry
    forward and ``banked`` points from earlier battles may be spent);
    ``campaign_initial_value_cap_scope`` (default ``"strength_only"``: the reinforcement rule's
    "no unit above its initial starting value" limits only strength;
    ``"strength_quality_resolve"`` also stops quality and resolve being bought above the unit's
    initial values); ``campaign_squad_leader_improvement`` (default False: the book gives no
    price for a squad leader's experience, so none is sold; if True, 1 point raises a squad's
    leader one level, Inexperienced to Experienced to Veteran, p.11; the price is the service's
    reading, that of an officer's leadership step).
    """
    _check_spending(awarded, banked, campaign_cp_banking, campaign_initial_value_cap_scope)
    budget = awarded + banked
    unit_by_id = {unit.unit_id: unit for unit in units}
    vehicle_by_id = {vehicle.vehicle_id: vehicle for vehicle in vehicles}
    officer_by_id = {officer.officer_id: officer for officer in officers}
    cap_initial = campaign_initial_value_cap_scope == "strength_quality_resolve"
    spent = 0
    extra_dice = 0
    personalities: list[tuple[str, str]] = []
    for index, purchase in enumerate(purchases):
        kind = PurchaseKind(purchase.kind)
        if kind is PurchaseKind.SQUAD_LEADER_STEP and not campaign_squad_leader_improvement:
            raise CampaignPointsError(
                "campaign_points.not_allowed",
                f"Purchase {index + 1} buys squad leader experience, which the book gives no "
                "price for; this campaign does not sell it (option "
                "campaign_squad_leader_improvement).",
                index=index,
                part="kind",
            )
        if spent + kind.cost > budget:
            raise CampaignPointsError(
                "campaign_points.over_budget",
                f"Purchase {index + 1} ({kind}) costs {kind.cost}; only {budget - spent} of "
                f"{budget} points are left.",
                index=index,
            )
        spent += kind.cost
        if kind is PurchaseKind.REINFORCEMENT_DIE:
            extra_dice += 1
        elif kind in (PurchaseKind.REPAIR_VEHICLE, PurchaseKind.REPLACE_VEHICLE):
            vehicle = _find(vehicle_by_id, purchase.target, "vehicle", index)
            vehicle_by_id[vehicle.vehicle_id] = _buy_for_vehicle(vehicle, kind, index)
        elif kind is PurchaseKind.OFFICER_LEADERSHIP_STEP:
            officer = _find(officer_by_id, purchase.target, "officer", index)
            officer_by_id[officer.officer_id] = _buy_for_officer(officer, index)
        else:
            unit = _find(unit_by_id, purchase.target, "unit", index)
            unit_by_id[unit.unit_id] = _buy_for_unit(unit, purchase, kind, index, cap_initial)
            if kind is PurchaseKind.PERSONALITY:
                personalities.append((unit.unit_id, purchase.detail))
    remaining = budget - spent
    return Spending(
        budget=budget,
        spent=spent,
        carried_forward=remaining if campaign_cp_banking else 0,
        lost=0 if campaign_cp_banking else remaining,
        units=tuple(unit_by_id[unit.unit_id] for unit in units),
        vehicles=tuple(vehicle_by_id[vehicle.vehicle_id] for vehicle in vehicles),
        officers=tuple(officer_by_id[officer.officer_id] for officer in officers),
        extra_reinforcement_dice=extra_dice,
        personalities=tuple(personalities),
    )


def _check_spending(
    awarded: int, banked: int, campaign_cp_banking: bool, campaign_initial_value_cap_scope: str
) -> None:
    for name, value in (("Awarded points", awarded), ("Banked points", banked)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise CampaignPointsError(
                "campaign_points.invalid", f"{name} is a whole number from 0 up, not {value!r}."
            )
    if campaign_initial_value_cap_scope not in ("strength_only", "strength_quality_resolve"):
        raise RuleError(
            "points.refused",
            "campaign_initial_value_cap_scope is 'strength_only' or 'strength_quality_resolve', "
            f"not {campaign_initial_value_cap_scope!r}.",
        )
    if banked and not campaign_cp_banking:
        raise CampaignPointsError(
            "campaign_points.no_banking",
            "Unspent campaign points are lost after each battle, so none can be banked.",
        )


def _buy_for_vehicle(vehicle: VehicleStanding, kind: PurchaseKind, index: int) -> VehicleStanding:
    needed = (
        VehicleCondition.DAMAGED
        if kind is PurchaseKind.REPAIR_VEHICLE
        else VehicleCondition.DESTROYED
    )
    verb = "repaired" if kind is PurchaseKind.REPAIR_VEHICLE else "replaced"
    if vehicle.condition is not needed:
        raise CampaignPointsError(
            "campaign_points.not_eligible",
            f"Vehicle {vehicle.vehicle_id!r} is {vehicle.condition}; only a {needed} "
            f"vehicle can be {verb}.",
            index=index,
        )
    return replace(vehicle, condition=VehicleCondition.OPERATIONAL)


def _buy_for_officer(officer: OfficerStanding, index: int) -> OfficerStanding:
    if officer.leadership is OfficerLeadership.HEROIC:
        raise CampaignPointsError(
            "campaign_points.over_cap",
            f"Officer {officer.officer_id!r} is already Heroic, the highest leadership.",
            index=index,
        )
    return replace(officer, leadership=OfficerLeadership(officer.leadership + 1))


def _find(by_id: dict[str, _Standing], target: str, what: str, index: int) -> _Standing:
    if target not in by_id:
        raise CampaignPointsError(
            "campaign_points.unknown_target",
            f"Purchase {index + 1} names {what} {target!r}, which is not in the force.",
            index=index,
        )
    return by_id[target]


def _buy_for_unit(
    unit: UnitStanding, purchase: Purchase, kind: PurchaseKind, index: int, cap_initial: bool
) -> UnitStanding:
    def refuse(code: str, message: str) -> CampaignPointsError:
        return CampaignPointsError(f"campaign_points.{code}", message, index=index)

    if kind is PurchaseKind.QUALITY_STEP:
        return _raise_quality(unit, cap_initial, refuse)
    if kind is PurchaseKind.RESOLVE_STEP:
        return _raise_resolve(unit, cap_initial, refuse)
    if kind is PurchaseKind.SQUAD_LEADER_STEP:
        return _raise_squad_leader(unit, refuse)
    if kind is PurchaseKind.RETURN_LONE_FIGURE:
        if not unit.eliminated_lone_figure:
            raise refuse(
                "not_eligible", f"{unit.unit_id!r} is not an eliminated lone figure to return."
            )
        return replace(unit, eliminated_lone_figure=False)
    if kind is PurchaseKind.PERSONALITY:
        if purchase.detail not in PERSONALITIES:
            raise refuse(
                "unknown_personality",
                f"{purchase.detail!r} is not a Personality; choose from "
                f"{', '.join(sorted(PERSONALITIES))}.",
            )
        return unit
    # The only purchase left is a trait.
    trait = purchase.detail.strip()
    if not trait:
        raise refuse("not_eligible", "Name the trait to assign.")
    if trait in unit.traits:
        raise refuse("not_eligible", f"Unit {unit.unit_id!r} already has the trait {trait!r}.")
    return replace(unit, traits=unit.traits | {trait})


Refusal = Callable[[str, str], CampaignPointsError]


def _raise_quality(unit: UnitStanding, cap_initial: bool, refuse: Refusal) -> UnitStanding:
    if unit.quality >= HIGHEST_BOUGHT_QUALITY:
        raise refuse(
            "over_cap",
            f"Unit {unit.unit_id!r} is {unit.quality.name.title()}; campaign points may not "
            "raise any unit to Elite.",
        )
    if cap_initial and unit.initial_quality is not None and unit.quality >= unit.initial_quality:
        raise refuse(
            "over_cap",
            f"Unit {unit.unit_id!r} is at its initial quality and may not be raised above it.",
        )
    return replace(unit, quality=Quality(unit.quality + 1))


def _raise_resolve(unit: UnitStanding, cap_initial: bool, refuse: Refusal) -> UnitStanding:
    if unit.resolve_locked:
        raise refuse(
            "resolve_locked",
            f"Unit {unit.unit_id!r} cannot change its resolve (Fanatic or off-board).",
        )
    if unit.resolve is Resolve.DETERMINED:
        raise refuse(
            "over_cap", f"Unit {unit.unit_id!r} is already Determined, the highest resolve."
        )
    if cap_initial and unit.initial_resolve is not None and unit.resolve >= unit.initial_resolve:
        raise refuse(
            "over_cap",
            f"Unit {unit.unit_id!r} is at its initial resolve and may not be raised above it.",
        )
    return replace(unit, resolve=Resolve(unit.resolve + 1))


def _raise_squad_leader(unit: UnitStanding, refuse: Refusal) -> UnitStanding:
    if unit.squad_leader is None:
        raise refuse(
            "not_eligible",
            f"Unit {unit.unit_id!r} has no squad leader on duty whose experience could be raised.",
        )
    if unit.squad_leader is SquadLeaderExperience.VETERAN:
        raise refuse(
            "over_cap",
            f"The squad leader of {unit.unit_id!r} is already a Veteran, the highest experience.",
        )
    return replace(unit, squad_leader=SquadLeaderExperience(unit.squad_leader + 1))
