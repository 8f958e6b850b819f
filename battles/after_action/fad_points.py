"""Spending a Fast and Dirty force's campaign points on the price list (FaD p.66 EXPERIENCE).

``POST /forces/{id}/campaign-points/spend/`` runs :class:`CampaignPointsSpend`, a command on the
force's stream: the purchases are refused as a whole if over budget or over a cap, and nothing
is appended. By default (option ``campaign_step_order``) points are spent before the
reinforcement pool is rolled, since they buy reinforcement dice. With option
``campaign_squad_leader_improvement`` a point also raises a squad leader's experience a level
(FaD p.11; the book gives no price, the service's reading is 1).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from pydantic import Field

from battles.after_action.fad_events import CampaignPointsSpent, PurchaseRecord
from battles.after_action.fad_roster import (
    ForceRoster,
    PointsLedger,
    present,
    quality_of,
    require_fad,
    resolve_locked,
    resolve_of,
)
from campaigns.models import Campaign
from eventlog import commands
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import NotFound, RuleViolation, StateConflict
from rosters.models import Force, Trooper, Unit, Vehicle
from rosters.vocabulary import TrooperRole, UnitKind, VehicleState
from rules.dice import DiceSource
from rules.fad import points as points_rules
from rules.fad import replacements as rules
from rules.fad.scales import Quality, Resolve, SquadLeaderExperience
from rules.options import parse_options

Kind = points_rules.PurchaseKind


class PurchaseParams(Params):
    kind: points_rules.PurchaseKind
    target: str = ""
    detail: str = ""


class SpendParams(Params):
    force_id: uuid.UUID
    purchases: list[PurchaseParams] = Field(min_length=1)


def force_of(ctx: CommandContext, force_id: uuid.UUID) -> Force:
    """A force of the command's campaign, read under its lock."""
    force = Force.objects.filter(pk=force_id, campaign_id=ctx.campaign_id).first()
    if force is None:
        raise NotFound("force.not_found", "No such force.", field="force_id")
    return force


@dataclass
class SpendState:
    campaign: Campaign
    force: Force
    options: Any
    ledger: PointsLedger
    roster: ForceRoster
    vehicles: list[Vehicle]


@commands.command
class CampaignPointsSpend(Command[SpendParams, SpendState]):
    """Spend a force's campaign points on the price list, within its caps (FaD p.66)."""

    name = "battles.campaign_points_spend"
    Params = SpendParams
    invalid_code = "campaign_points.invalid"

    def stream(self, ctx: CommandContext, params: SpendParams) -> str:
        return f"force:{params.force_id}"

    def load(self, ctx: CommandContext, params: SpendParams) -> SpendState:
        force = force_of(ctx, params.force_id)
        campaign = Campaign.objects.get(pk=ctx.campaign_id)
        return SpendState(
            campaign=campaign,
            force=force,
            options=parse_options(campaign.ruleset, campaign.options),
            ledger=PointsLedger.load(campaign.id, force.id),
            roster=ForceRoster.load(campaign.id, force.id),
            vehicles=list(Vehicle.objects.filter(force_id=force.id)),
        )

    def check(self, ctx: CommandContext, state: SpendState, params: SpendParams) -> None:
        require_fad(state.campaign, "Campaign points")
        force, ledger, options = state.force, state.ledger, state.options
        if ledger.battle_id is None:
            raise StateConflict(
                "campaign_points.none_awarded",
                f"{force.name} has not been awarded campaign points yet.",
                field="purchases",
            )
        if ledger.spent and not options.campaign_cp_banking:
            raise StateConflict(
                "campaign_points.step_over",
                f"{force.name} has spent its points for this battle; unspent points are lost.",
                field="purchases",
            )
        before_pool = options.campaign_step_order == "points_before_reinforcements"
        if ledger.reinforcements_rolled and before_pool:
            raise StateConflict(
                "campaign_points.step_over",
                "The reinforcement pool is rolled after the points are spent (option "
                "campaign_step_order); the points of this battle can no longer be spent.",
                field="purchases",
            )
        for index, purchase in enumerate(params.purchases):
            if purchase.kind is Kind.REINFORCEMENT_DIE and ledger.reinforcements_rolled:
                raise RuleViolation(
                    "campaign_points.not_eligible",
                    "The reinforcement pool of this battle is already rolled.",
                    field=f"purchases.{index}.kind",
                )

    def decide(
        self, ctx: CommandContext, state: SpendState, params: SpendParams, dice: DiceSource | None
    ) -> Decision:
        standings, figures = _standings(state)
        wanted = tuple(
            points_rules.Purchase(kind=p.kind, target=p.target, detail=p.detail)
            for p in params.purchases
        )
        try:
            spending = points_rules.spend_campaign_points(
                awarded=state.ledger.balance,
                purchases=wanted,
                units=tuple(standings.values()),
                vehicles=tuple(
                    points_rules.VehicleStanding(
                        vehicle_id=str(v.id), condition=_vehicle_condition(v.state)
                    )
                    for v in state.vehicles
                ),
                campaign_cp_banking=state.options.campaign_cp_banking,
                campaign_initial_value_cap_scope=state.options.campaign_initial_value_cap_scope,
                campaign_squad_leader_improvement=(state.options.campaign_squad_leader_improvement),
            )
        except points_rules.CampaignPointsError as exc:
            # The rules name the purchase by its place; the request names it by its field.
            where = "purchases" if exc.index is None else f"purchases.{exc.index}"
            if exc.index is not None and exc.part is not None:
                where += f".{exc.part}"
            raise RuleViolation(exc.code, exc.message, field=where) from None
        payload = CampaignPointsSpent(
            force_id=state.force.id,
            battle_id=uuid.UUID(str(state.ledger.battle_id)),
            purchases=_records(wanted, standings, state.vehicles, figures),
            budget=spending.budget,
            spent=spending.spent,
            lost=spending.lost,
            balance=spending.carried_forward,
        )
        return Decision.of([payload], stream=self.stream(ctx, params))


def _vehicle_condition(state: str) -> rules.VehicleCondition:
    if state == VehicleState.OPERATIONAL:
        return rules.VehicleCondition.OPERATIONAL
    if state == VehicleState.DESTROYED:
        return rules.VehicleCondition.DESTROYED
    return rules.VehicleCondition.DAMAGED


def _standings(
    state: SpendState,
) -> tuple[dict[str, points_rules.UnitStanding], dict[str, Trooper]]:
    """What the price list reads of each unit with a quality and resolve, by unit id; and the
    figure a purchase for the unit concerns, by unit id: the lone figure that was eliminated,
    which a point may return to duty, or the squad's leader on duty."""
    standings: dict[str, points_rules.UnitStanding] = {}
    figures: dict[str, Trooper] = {}
    roster = state.roster
    for unit in roster.units.values():
        quality, resolve = quality_of(unit), resolve_of(unit)
        if quality is None or resolve is None:
            continue
        members = roster.troopers[unit.id]
        lone = roster.initial(unit) == 1 and not present(members)
        leader = _squad_leader(unit, members)
        if lone and members:
            figures[str(unit.id)] = members[0]
        elif leader is not None:
            figures[str(unit.id)] = leader
        standings[str(unit.id)] = points_rules.UnitStanding(
            unit_id=str(unit.id),
            quality=quality,
            resolve=resolve,
            resolve_locked=resolve_locked(unit),
            eliminated_lone_figure=lone and bool(members),
            traits=frozenset(unit.specialists),
            squad_leader=(None if leader is None else _experience(leader, roster, state.options)),
        )
    return standings, figures


def _squad_leader(unit: Unit, members: list[Trooper]) -> Trooper | None:
    """The squad's leader on duty; none for a unit that is not a squad, whose leader is an
    officer or none (FaD p.7, p.32), or a squad whose leader is lost."""
    if unit.kind != UnitKind.SQUAD:
        return None
    return next((t for t in present(members) if t.role == TrooperRole.LEADER), None)


def _experience(leader: Trooper, roster: ForceRoster, options: Any) -> SquadLeaderExperience:
    """A squad leader's experience (FaD p.11). A leader with none recorded is a replacement for
    a lost one, as experienced as option ``leaders_replacement_experience`` says (the book is
    silent), or a leader loaded before the rosters kept it, Inexperienced as every squad
    leader starts (p.51)."""
    if leader.experience:
        return SquadLeaderExperience[leader.experience.upper()]
    if leader.id in roster.newcomers:
        return SquadLeaderExperience[str(options.leaders_replacement_experience).upper()]
    return SquadLeaderExperience.INEXPERIENCED


def _records(
    wanted: tuple[points_rules.Purchase, ...],
    standings: dict[str, points_rules.UnitStanding],
    vehicles: list[Vehicle],
    figures: dict[str, Trooper],
) -> list[PurchaseRecord]:
    """Each purchase with what it changed, walking them in order for the history (the rules
    have accepted them all)."""
    walk = dict(standings)
    vehicle_state = {str(v.id): v.state for v in vehicles}
    records = []
    for purchase in wanted:
        record: dict[str, Any] = {
            "kind": purchase.kind,
            "target": purchase.target,
            "detail": purchase.detail,
            "cost": purchase.kind.cost,
        }
        if purchase.kind is Kind.QUALITY_STEP:
            unit = walk[purchase.target]
            after = Quality(unit.quality + 1)
            record.update(before=unit.quality.name.lower(), after=after.name.lower())
            walk[purchase.target] = replace(unit, quality=after)
        elif purchase.kind is Kind.RESOLVE_STEP:
            unit = walk[purchase.target]
            after_resolve = Resolve(unit.resolve + 1)
            record.update(before=unit.resolve.name.lower(), after=after_resolve.name.lower())
            walk[purchase.target] = replace(unit, resolve=after_resolve)
        elif purchase.kind is Kind.SQUAD_LEADER_STEP:
            unit = walk[purchase.target]
            before = unit.squad_leader
            assert before is not None, "the rules refuse a squad without a leader"
            after_experience = SquadLeaderExperience(before + 1)
            record.update(
                before=before.name.lower(),
                after=after_experience.name.lower(),
                trooper_id=figures[purchase.target].id,
            )
            walk[purchase.target] = replace(unit, squad_leader=after_experience)
        elif purchase.kind in (Kind.REPAIR_VEHICLE, Kind.REPLACE_VEHICLE):
            record.update(
                before=vehicle_state[purchase.target], after=VehicleState.OPERATIONAL.value
            )
        elif purchase.kind is Kind.RETURN_LONE_FIGURE:
            trooper = figures[purchase.target]
            record.update(before=trooper.status, after="fit", trooper_id=trooper.id)
        records.append(PurchaseRecord(**record))
    return records


def campaign_points_spend(
    *, campaign: Campaign, force: Force, purchases: list[dict[str, Any]], actor: AbstractBaseUser
) -> commands.Outcome:
    """Spend a force's campaign points on the price list, within its caps (FaD p.66
    EXPERIENCE). Refused as a whole if over budget or over a cap; nothing is appended."""
    return commands.run(
        CampaignPointsSpend.name,
        campaign_id=campaign.id,
        params={"force_id": str(force.id), "purchases": purchases},
        actor_id=actor.pk,
    )


def campaign_points_view(*, campaign_id: uuid.UUID, force: Force) -> dict[str, Any]:
    """A force's campaign point balance and every award, purchase and pool roll."""
    ledger = PointsLedger.load(campaign_id, force.id)
    return {
        "force_id": str(force.id),
        "balance": ledger.balance,
        "battle_id": ledger.battle_id,
        "extra_reinforcement_dice": ledger.extra_dice,
        "reinforcements_rolled": ledger.reinforcements_rolled,
        "history": ledger.history,
    }
