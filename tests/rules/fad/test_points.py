from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.fad.points import (
    PERSONALITIES,
    CampaignPointsError,
    OfficerLeadership,
    OfficerStanding,
    Purchase,
    PurchaseKind,
    Spending,
    UnitStanding,
    VehicleStanding,
    campaign_points_awarded,
    spend_campaign_points,
)
from rules.fad.replacements import VehicleCondition
from rules.fad.scales import Quality, Resolve, SquadLeaderExperience

SQUAD = UnitStanding(unit_id="alpha", quality=Quality.CONSCRIPT, resolve=Resolve.STEADY)
FANATICS = UnitStanding(
    unit_id="zealots", quality=Quality.REGULAR, resolve=Resolve.STEADY, resolve_locked=True
)
SNIPER = UnitStanding(
    unit_id="sniper", quality=Quality.REGULAR, resolve=Resolve.STEADY, eliminated_lone_figure=True
)
DAMAGED = VehicleStanding(vehicle_id="apc", condition=VehicleCondition.DAMAGED)
DESTROYED = VehicleStanding(vehicle_id="tank", condition=VehicleCondition.DESTROYED)
LIEUTENANT = OfficerStanding(officer_id="lt", leadership=OfficerLeadership.INSPIRING)


def spend(*purchases: Purchase, awarded: int = 10, **kwargs: Any) -> Spending:
    return spend_campaign_points(
        awarded=awarded,
        purchases=purchases,
        units=(SQUAD, FANATICS, SNIPER),
        vehicles=(DAMAGED, DESTROYED),
        officers=(LIEUTENANT,),
        **kwargs,
    )


def refused(*purchases: Purchase, **kwargs: Any) -> CampaignPointsError:
    with pytest.raises(CampaignPointsError) as error:
        spend(*purchases, **kwargs)
    return error.value


# --- points awarded, p.66 ----------------------------------------------------------------------


@pytest.mark.parametrize(("platoons", "points"), [(0, 0), (1, 2), (2, 4), (3, 6)])
def test_two_campaign_points_per_reinforced_platoon(platoons: int, points: int) -> None:
    assert campaign_points_awarded(reinforced_platoons=platoons) == points


@pytest.mark.parametrize("platoons", [-1, True, 1.5])
def test_points_awarded_refuses_impossible_platoon_counts(platoons: object) -> None:
    with pytest.raises(CampaignPointsError) as error:
        campaign_points_awarded(reinforced_platoons=platoons)  # type: ignore[arg-type]
    assert error.value.code == "campaign_points.invalid"


# --- price list, p.66 --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "cost"),
    [
        (PurchaseKind.QUALITY_STEP, 1),
        (PurchaseKind.RESOLVE_STEP, 1),
        (PurchaseKind.REINFORCEMENT_DIE, 1),
        (PurchaseKind.RETURN_LONE_FIGURE, 1),
        (PurchaseKind.REPAIR_VEHICLE, 1),
        (PurchaseKind.PERSONALITY, 1),
        (PurchaseKind.OFFICER_LEADERSHIP_STEP, 1),
        (PurchaseKind.REPLACE_VEHICLE, 2),
        (PurchaseKind.TRAIT, 2),
        # Not the book's: its price is the service's reading (option).
        (PurchaseKind.SQUAD_LEADER_STEP, 1),
    ],
)
def test_price_list_every_row(kind: PurchaseKind, cost: int) -> None:
    assert kind.cost == cost


def test_the_personalities_of_page_33_can_be_granted() -> None:
    assert {
        "Brawler",
        "Comms",
        "Knife Fighter",
        "Lucky",
        "Medic",
        "Motivator",
        "Sharpshooter",
        "Trigger Happy",
    } == PERSONALITIES


def test_a_quality_step_raises_a_unit_one_level() -> None:
    outcome = spend(Purchase(PurchaseKind.QUALITY_STEP, "alpha"))
    assert outcome.units[0].quality is Quality.REGULAR
    assert (outcome.spent, outcome.budget) == (1, 10)


def test_no_unit_may_be_raised_to_elite() -> None:
    error = refused(
        Purchase(PurchaseKind.QUALITY_STEP, "alpha"), Purchase(PurchaseKind.QUALITY_STEP, "alpha")
    )
    assert (error.code, error.index) == ("campaign_points.over_cap", 1)
    assert "Elite" in error.message


def test_a_resolve_step_raises_a_unit_one_level() -> None:
    outcome = spend(Purchase(PurchaseKind.RESOLVE_STEP, "alpha"))
    assert outcome.units[0].resolve is Resolve.DETERMINED


def test_resolve_cannot_be_bought_past_determined() -> None:
    error = refused(
        Purchase(PurchaseKind.RESOLVE_STEP, "alpha"), Purchase(PurchaseKind.RESOLVE_STEP, "alpha")
    )
    assert error.code == "campaign_points.over_cap"


def test_a_unit_with_fixed_resolve_cannot_buy_resolve_p56() -> None:
    assert refused(Purchase(PurchaseKind.RESOLVE_STEP, "zealots")).code == (
        "campaign_points.resolve_locked"
    )


def test_each_bought_reinforcement_die_is_counted() -> None:
    outcome = spend(
        Purchase(PurchaseKind.REINFORCEMENT_DIE), Purchase(PurchaseKind.REINFORCEMENT_DIE)
    )
    assert (outcome.extra_reinforcement_dice, outcome.spent) == (2, 2)


def test_an_eliminated_lone_figure_returns_to_duty() -> None:
    outcome = spend(Purchase(PurchaseKind.RETURN_LONE_FIGURE, "sniper"))
    assert not outcome.units[2].eliminated_lone_figure


def test_only_an_eliminated_lone_figure_can_be_returned() -> None:
    error = refused(
        Purchase(PurchaseKind.RETURN_LONE_FIGURE, "sniper"),
        Purchase(PurchaseKind.RETURN_LONE_FIGURE, "sniper"),
    )
    assert (error.code, error.index) == ("campaign_points.not_eligible", 1)


def test_a_damaged_vehicle_is_fully_repaired_for_one_point() -> None:
    outcome = spend(Purchase(PurchaseKind.REPAIR_VEHICLE, "apc"))
    assert outcome.vehicles[0].condition is VehicleCondition.OPERATIONAL
    assert outcome.spent == 1


def test_a_destroyed_vehicle_is_replaced_for_two_points() -> None:
    outcome = spend(Purchase(PurchaseKind.REPLACE_VEHICLE, "tank"))
    assert outcome.vehicles[1].condition is VehicleCondition.OPERATIONAL
    assert outcome.spent == 2


def test_a_destroyed_vehicle_cannot_be_merely_repaired() -> None:
    assert refused(Purchase(PurchaseKind.REPAIR_VEHICLE, "tank")).code == (
        "campaign_points.not_eligible"
    )


def test_a_damaged_vehicle_cannot_be_replaced() -> None:
    error = refused(Purchase(PurchaseKind.REPLACE_VEHICLE, "apc"))
    assert error.code == "campaign_points.not_eligible"
    assert "replaced" in error.message


def test_a_personality_is_granted_to_a_member_of_a_unit() -> None:
    outcome = spend(Purchase(PurchaseKind.PERSONALITY, "alpha", "Medic"))
    assert outcome.personalities == (("alpha", "Medic"),)


def test_an_unknown_personality_is_refused() -> None:
    assert refused(Purchase(PurchaseKind.PERSONALITY, "alpha", "Berserk")).code == (
        "campaign_points.unknown_personality"
    )


def test_an_officer_leadership_step() -> None:
    outcome = spend(Purchase(PurchaseKind.OFFICER_LEADERSHIP_STEP, "lt"))
    assert outcome.officers[0].leadership is OfficerLeadership.HEROIC


def test_leadership_cannot_be_bought_past_heroic() -> None:
    error = refused(
        Purchase(PurchaseKind.OFFICER_LEADERSHIP_STEP, "lt"),
        Purchase(PurchaseKind.OFFICER_LEADERSHIP_STEP, "lt"),
    )
    assert error.code == "campaign_points.over_cap"


# --- squad leader experience, option campaign_squad_leader_improvement (p.11, p.66 silent) ----

LED = UnitStanding(
    unit_id="led",
    quality=Quality.REGULAR,
    resolve=Resolve.STEADY,
    squad_leader=SquadLeaderExperience.INEXPERIENCED,
)


def buy_leader_steps(*targets: str, awarded: int = 10, option: bool = True) -> Spending:
    return spend_campaign_points(
        awarded=awarded,
        purchases=tuple(Purchase(PurchaseKind.SQUAD_LEADER_STEP, t) for t in targets),
        units=(LED, SQUAD),
        campaign_squad_leader_improvement=option,
    )


def test_a_squad_leader_step_costs_one_point_with_the_option() -> None:
    outcome = buy_leader_steps("led", awarded=1)
    assert outcome.units[0].squad_leader is SquadLeaderExperience.EXPERIENCED
    assert (outcome.spent, outcome.lost) == (1, 0)
    twice = buy_leader_steps("led", "led", awarded=2)
    assert twice.units[0].squad_leader is SquadLeaderExperience.VETERAN
    assert twice.spent == 2


def test_a_squad_leader_cannot_be_raised_past_veteran() -> None:
    with pytest.raises(CampaignPointsError) as error:
        buy_leader_steps("led", "led", "led")
    assert (error.value.code, error.value.index) == ("campaign_points.over_cap", 2)


def test_a_squad_without_a_leader_on_duty_cannot_buy_experience() -> None:
    with pytest.raises(CampaignPointsError) as error:
        buy_leader_steps("alpha")
    assert (error.value.code, error.value.index) == ("campaign_points.not_eligible", 0)


def test_squad_leader_experience_is_not_for_sale_without_the_option() -> None:
    """The book gives no price (p.66), so by default none is sold: refused before the budget
    is counted, naming the purchase's kind."""
    with pytest.raises(CampaignPointsError) as error:
        buy_leader_steps("led", awarded=0, option=False)
    refusal = error.value
    assert (refusal.code, refusal.index, refusal.part) == ("campaign_points.not_allowed", 0, "kind")


def test_a_trait_is_assigned_to_a_unit_for_two_points() -> None:
    outcome = spend(Purchase(PurchaseKind.TRAIT, "alpha", "Tough"))
    assert outcome.units[0].traits == frozenset({"Tough"})
    assert outcome.spent == 2


def test_a_trait_needs_a_name() -> None:
    assert refused(Purchase(PurchaseKind.TRAIT, "alpha", "  ")).code == (
        "campaign_points.not_eligible"
    )


def test_a_unit_cannot_take_the_same_trait_twice() -> None:
    error = refused(
        Purchase(PurchaseKind.TRAIT, "alpha", "Tough"),
        Purchase(PurchaseKind.TRAIT, "alpha", "Tough"),
    )
    assert (error.code, error.index) == ("campaign_points.not_eligible", 1)


@pytest.mark.parametrize(
    "purchase",
    [
        Purchase(PurchaseKind.QUALITY_STEP, "ghost"),
        Purchase(PurchaseKind.REPAIR_VEHICLE, "ghost"),
        Purchase(PurchaseKind.OFFICER_LEADERSHIP_STEP, "ghost"),
    ],
)
def test_a_purchase_for_a_target_not_in_the_force_is_refused(purchase: Purchase) -> None:
    assert refused(purchase).code == "campaign_points.unknown_target"


# --- budget and banking ------------------------------------------------------------------------


def test_spending_over_budget_is_refused() -> None:
    error = refused(
        Purchase(PurchaseKind.QUALITY_STEP, "alpha"),
        Purchase(PurchaseKind.TRAIT, "alpha", "Tough"),
        awarded=2,
    )
    assert (error.code, error.index) == ("campaign_points.over_budget", 1)


def test_spending_exactly_the_budget_is_allowed() -> None:
    outcome = spend(
        Purchase(PurchaseKind.QUALITY_STEP, "alpha"),
        Purchase(PurchaseKind.REINFORCEMENT_DIE),
        awarded=2,
    )
    assert (outcome.spent, outcome.lost, outcome.carried_forward) == (2, 0, 0)


def test_unspent_points_are_lost_by_default() -> None:
    outcome = spend(Purchase(PurchaseKind.REINFORCEMENT_DIE), awarded=4)
    assert (outcome.lost, outcome.carried_forward) == (3, 0)


def test_banking_carries_unspent_points_and_spends_banked_ones() -> None:
    outcome = spend(
        Purchase(PurchaseKind.TRAIT, "alpha", "Tough"),
        Purchase(PurchaseKind.REINFORCEMENT_DIE),
        awarded=2,
        banked=3,
        campaign_cp_banking=True,
    )
    assert (outcome.budget, outcome.spent, outcome.carried_forward, outcome.lost) == (5, 3, 2, 0)


def test_banked_points_are_refused_without_banking() -> None:
    assert refused(awarded=2, banked=1).code == "campaign_points.no_banking"


@pytest.mark.parametrize(("awarded", "banked"), [(-1, 0), (2, -1), (True, 0)])
def test_impossible_point_totals_are_refused(awarded: object, banked: object) -> None:
    assert refused(awarded=awarded, banked=banked).code == "campaign_points.invalid"


# --- initial value cap scope -------------------------------------------------------------------


def test_quality_and_resolve_may_pass_initial_values_by_default() -> None:
    veteran = UnitStanding(
        unit_id="v",
        quality=Quality.CONSCRIPT,
        resolve=Resolve.UNCERTAIN,
        initial_quality=Quality.CONSCRIPT,
        initial_resolve=Resolve.UNCERTAIN,
    )
    outcome = spend_campaign_points(
        awarded=2,
        purchases=(
            Purchase(PurchaseKind.QUALITY_STEP, "v"),
            Purchase(PurchaseKind.RESOLVE_STEP, "v"),
        ),
        units=(veteran,),
    )
    assert (outcome.units[0].quality, outcome.units[0].resolve) == (
        Quality.REGULAR,
        Resolve.STEADY,
    )


def test_cap_scope_strength_quality_resolve_stops_buying_above_initial_values() -> None:
    diluted = UnitStanding(
        unit_id="d",
        quality=Quality.RABBLE,
        resolve=Resolve.RELUCTANT,
        initial_quality=Quality.CONSCRIPT,
        initial_resolve=Resolve.UNCERTAIN,
    )
    for kind in (PurchaseKind.QUALITY_STEP, PurchaseKind.RESOLVE_STEP):
        outcome = spend_campaign_points(
            awarded=1,
            purchases=(Purchase(kind, "d"),),
            units=(diluted,),
            campaign_initial_value_cap_scope="strength_quality_resolve",
        )
        assert outcome.spent == 1
        with pytest.raises(CampaignPointsError) as error:
            spend_campaign_points(
                awarded=2,
                purchases=(Purchase(kind, "d"), Purchase(kind, "d")),
                units=(diluted,),
                campaign_initial_value_cap_scope="strength_quality_resolve",
            )
        assert (error.value.code, error.value.index) == ("campaign_points.over_cap", 1)


def test_cap_scope_strength_quality_resolve_without_initial_values_uses_only_the_book_caps() -> (
    None
):
    outcome = spend_campaign_points(
        awarded=1,
        purchases=(Purchase(PurchaseKind.RESOLVE_STEP, "alpha"),),
        units=(SQUAD,),
        campaign_initial_value_cap_scope="strength_quality_resolve",
    )
    assert outcome.units[0].resolve is Resolve.DETERMINED


def test_unknown_cap_scope_is_refused() -> None:
    with pytest.raises(ValueError, match="campaign_initial_value_cap_scope"):
        spend(campaign_initial_value_cap_scope="everything")


# --- properties --------------------------------------------------------------------------------

UNIT_KINDS = [PurchaseKind.QUALITY_STEP, PurchaseKind.RESOLVE_STEP, PurchaseKind.REINFORCEMENT_DIE]


@given(
    st.integers(min_value=0, max_value=8),
    st.lists(st.sampled_from(UNIT_KINDS), max_size=12),
    st.sampled_from(list(Quality)),
    st.sampled_from(list(Resolve)),
)
def test_spending_respects_budget_and_caps(
    awarded: int, kinds: list[PurchaseKind], quality: Quality, resolve: Resolve
) -> None:
    unit = UnitStanding(unit_id="u", quality=quality, resolve=resolve)
    purchases = tuple(Purchase(kind, "u") for kind in kinds)
    refusal: str | None
    try:
        outcome = spend_campaign_points(awarded=awarded, purchases=purchases, units=(unit,))
    except CampaignPointsError as error:
        refusal = error.code
    else:
        refusal = None
    if refusal is not None:
        assert refusal in ("campaign_points.over_budget", "campaign_points.over_cap")
        return
    assert 0 <= outcome.spent <= awarded
    assert outcome.lost == awarded - outcome.spent >= 0
    after = outcome.units[0]
    assert after.quality <= max(quality, Quality.REGULAR)
    assert after.quality >= quality
    assert resolve <= after.resolve <= Resolve.DETERMINED
    assert after.quality - quality == kinds.count(PurchaseKind.QUALITY_STEP)
