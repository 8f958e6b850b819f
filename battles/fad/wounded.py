"""Fast and Dirty Recover Wounded in a battle (FaD p.35, Advanced): ``fad_recover_wounded`` (aid
teams and the recovery roll) and ``fad_leave_wounded`` (Leave No One Behind).

The rules are :mod:`rules.fad.wounded`. A figure's medical state is his roster status: wounded
(untreated), stabilised, fit, dead; the shots and assaults that wound him record it as
``battles.FadLossesRecorded``. A treatment is recorded as ``battles.FadWoundedTreated``: the rosters
fold it into the troopers' statuses (:mod:`rosters.fad_in_battle`), the FaD after-action reads it
so that a recovered figure is no loss and one who died of his wounds is a killed one
(:mod:`battles.after_action.fad`), and Checking Resolve counts the stabilised as no casualty
(:mod:`battles.fad.state`). A failed Leave No One Behind roll lowers the squad's Resolve in the
battle (``Participant.resolve``) by one level for the rest of the game.
"""

from __future__ import annotations

import uuid
from fractions import Fraction
from typing import Any, Literal

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.fad import activation, state
from battles.models import Participant
from battles.projections import dice_text, log, participant_key, unit_name
from battles.suppression import is_vehicle_unit
from campaigns.events import DieRoll, dice_json
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Trooper
from rosters.vocabulary import TrooperRole, TrooperStatus
from rules.dice import DiceSource, rolling_for
from rules.errors import RuleError
from rules.fad import wounded as rules
from rules.fad.activation import UnitAction
from rules.fad.scales import Resolve
from rules.rulesets import Ruleset

TREATED_EVENT = "battles.FadWoundedTreated"
LEFT_EVENT = "battles.FadWoundedLeft"

# A recovery result as the trooper's roster status (FaD p.35).
ROSTER_STATUS = {
    rules.RecoveryResult.RECOVERED: TrooperStatus.FIT,
    rules.RecoveryResult.STABILISED: TrooperStatus.STABILISED,
    rules.RecoveryResult.DIED_OF_WOUNDS: TrooperStatus.DEAD,
}


def _check_squad(ctx: BattleContext, unit_id: uuid.UUID) -> Participant:
    """A fighting infantry unit of a battle played with Recover Wounded (p.35)."""
    if not ctx.options.adv_recover_wounded:
        raise RuleViolation(
            "wounded.rule_off",
            "This campaign plays the basic game (option adv_recover_wounded off): every figure "
            "hit is removed and there are no wounded to recover (p.35).",
            field="unit_id",
        )
    participant = ctx.participant(unit_id)
    if is_vehicle_unit(ctx.unit(unit_id)):
        raise RuleViolation(
            "wounded.not_infantry",
            "Only an infantry unit takes the Recover Wounded action (p.35).",
            field="unit_id",
        )
    return participant


def _wounded(ctx: BattleContext, unit_id: uuid.UUID) -> list[Trooper]:
    """The unit's untreated wounded on the table, in roster order."""
    return [
        t
        for t in state.figures_on_table(ctx, unit_id)
        if state.medical_state(t) is rules.MedicalState.WOUNDED
    ]


def _fit(ctx: BattleContext, unit_id: uuid.UUID) -> list[Trooper]:
    return [t for t in state.figures_on_table(ctx, unit_id) if t.status == TrooperStatus.FIT]


def _medic(ctx: BattleContext, unit_id: uuid.UUID) -> Trooper | None:
    """The unit's fit Medic (p.33), if it has one."""
    return next((t for t in _fit(ctx, unit_id) if t.role == TrooperRole.MEDIC), None)


def _names(troopers: list[Trooper]) -> list[str]:
    """The figures' names for the dice prompt; their ids too where two share a name."""
    names = [t.name for t in troopers]
    if len(set(names)) == len(names):
        return names
    return [f"{t.name} ({t.id})" for t in troopers]


# --- Recover Wounded ----------------------------------------------------------------------------


class RecoverWoundedParams(Params):
    unit_id: uuid.UUID = Field(description="The infantry unit treating its wounded.")
    trooper_ids: list[uuid.UUID] | None = Field(
        default=None,
        max_length=60,
        description="Its untreated wounded in the order they are treated (the Medic takes the "
        "first two, then a Medevac vehicle two, then one per aid team); by default all of them "
        "in roster order.",
    )
    aid_teams: int | None = Field(
        default=None,
        ge=0,
        le=30,
        description="Two-trooper aid teams formed (p.35); by default as many as the wounded "
        "left after the Medic need, so the most troopers stay free for the other Command action.",
    )
    medevac_in_contact: bool = Field(
        default=False,
        description="A Medevac vehicle in contact treats as two aid teams (p.43).",
    )
    self_repairing: bool = Field(
        default=False,
        description="Self-Repairing troops (p.41): the wounded no team treats roll on their own.",
    )


class TreatedFigure(EventPayload):
    trooper_id: uuid.UUID
    carer: Literal["medic", "medevac", "aid_team", "self_repair"]
    die: int
    modifier: int
    recovery_number: int
    result: Literal["recovered", "stabilised", "died_of_wounds"]
    status_after: TrooperStatus


@event_type(TREATED_EVENT, stream="battle")
class FadWoundedTreated(EventPayload):
    """An infantry unit's Recover Wounded action (FaD p.35): its aid teams, and for each treated
    figure the recovery roll (d6, Under Fire or Pinned -1, Medic present +1): 6+ recovered and
    back in action, 4-5 stabilised (no further attempts, no casualty when Checking Resolve),
    under 4 died of his wounds. ``dice[i]`` is the die of ``treated[i]``."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    marker: str = Field(description="The unit's marker: Under Fire or Pinned gives -1.")
    medic_id: uuid.UUID | None = Field(description="The fit Medic taking part (p.33), if any.")
    medic_bonus_scope: rules.MedicBonusScope
    medevac_in_contact: bool
    aid_teams: int = Field(ge=0)
    troopers_aiding: int = Field(ge=0)
    troopers_free: int = Field(
        ge=0, description="Fit troopers free for the unit's other Command action (p.35)."
    )
    treated: list[TreatedFigure] = Field(min_length=1)
    untreated: list[uuid.UUID] = Field(default_factory=list)
    dice: list[DieRoll] = Field(default_factory=list)


@battle_action
class FadRecoverWounded(BattleAction):
    """An infantry unit forms aid teams and treats its wounded (FaD p.35 RECOVER WOUNDED, a
    Command action). One d6 per treated figure, in treatment order."""

    action = "fad_recover_wounded"
    rulesets = (Ruleset.FAD.value,)
    Params = RecoverWoundedParams

    def check_action(self, ctx: BattleContext, params: RecoverWoundedParams) -> None:
        self._plan(ctx, params)
        activation.check_unit_action(ctx, params.unit_id, UnitAction.RECOVER_WOUNDED)

    def _plan(
        self, ctx: BattleContext, params: RecoverWoundedParams
    ) -> tuple[Participant, list[Trooper], Trooper | None, rules.AidTeams]:
        participant = _check_squad(ctx, params.unit_id)
        wounded = _wounded(ctx, params.unit_id)
        if not wounded:
            raise StateConflict(
                "wounded.none",
                f"{ctx.unit(params.unit_id).name} has no untreated wounded: stabilised figures "
                "are not treated again (p.35).",
                field="unit_id",
            )
        if params.trooper_ids is not None:
            by_id = {t.id: t for t in wounded}
            chosen: list[Trooper] = []
            for index, trooper_id in enumerate(params.trooper_ids):
                trooper = by_id.get(trooper_id)
                if trooper is None or trooper in chosen:
                    raise CommandError(
                        "wounded.not_untreated",
                        "Name each figure once, an untreated wounded figure of the unit (p.35: "
                        "each wounded figure may only be treated one time).",
                        field=f"trooper_ids.{index}",
                    )
                chosen.append(trooper)
            wounded = chosen
        medic = _medic(ctx, params.unit_id)
        try:
            teams = rules.form_aid_teams(
                wounded=len(wounded),
                fit_troopers=len(_fit(ctx, params.unit_id)),
                medic=medic is not None,
                medevac_in_contact=params.medevac_in_contact,
                self_repairing=params.self_repairing,
                aid_teams=params.aid_teams,
            )
        except RuleError as error:
            raise RuleViolation(error.code, error.message, field="aid_teams") from None
        if teams.treated == 0:
            raise RuleViolation(
                "wounded.no_aid_team",
                "Nobody can treat the wounded: an aid team takes two fit troopers (p.35).",
                field="aid_teams",
            )
        return participant, wounded, medic, teams

    def resolve(
        self, ctx: BattleContext, params: RecoverWoundedParams, dice: DiceSource
    ) -> list[Any]:
        participant, wounded, medic, teams = self._plan(ctx, params)
        scope = rules.MedicBonusScope(ctx.options.wounds_medic_bonus_scope)
        with rolling_for(dice, str(params.unit_id)):
            outcome = rules.recover_wounded(
                dice=dice,
                wounded=[
                    rules.Patient(name, rules.MedicalState.WOUNDED) for name in _names(wounded)
                ],
                fit_troopers=len(_fit(ctx, params.unit_id)),
                medic=medic is not None,
                under_fire_or_pinned=participant.marker in ("under_fire", "pinned"),
                medevac_in_contact=params.medevac_in_contact,
                self_repairing=params.self_repairing,
                aid_teams=teams.aid_teams,
                wounds_medic_bonus_scope=scope,
            )
        treated = [
            TreatedFigure(
                trooper_id=trooper.id,
                carer=treatment.carer.value,
                die=treatment.recovery.die,
                modifier=treatment.recovery.modifier,
                recovery_number=treatment.recovery.recovery_number,
                result=treatment.recovery.result.value,
                status_after=ROSTER_STATUS[treatment.recovery.result],
            )
            for trooper, treatment in zip(wounded, outcome.treatments, strict=False)
        ]
        return [
            FadWoundedTreated(
                battle_id=ctx.battle.id,
                unit_id=params.unit_id,
                turn=ctx.battle.turn,
                marker=participant.marker,
                medic_id=medic.id if medic else None,
                medic_bonus_scope=scope,
                medevac_in_contact=params.medevac_in_contact,
                aid_teams=outcome.teams.aid_teams,
                troopers_aiding=outcome.teams.troopers_aiding,
                troopers_free=outcome.teams.troopers_free,
                treated=treated,
                untreated=[t.id for t in wounded[len(treated) :]],
                dice=dice_json(outcome.rolls),
            )
        ]


# --- Leave No One Behind ------------------------------------------------------------------------


class LeaveWoundedParams(Params):
    unit_id: uuid.UUID = Field(description="The squad moving off.")
    trooper_ids: list[uuid.UUID] = Field(
        min_length=1,
        max_length=60,
        description="The wounded figures it leaves behind (stabilised ones need no roll).",
    )
    gaps_inches: list[float] | None = Field(
        default=None,
        max_length=60,
        description="With option wounds_abandon_trigger = left_outside_coherency (default): for "
        "each figure left, in the same order, the inches from him to the nearest fit squad "
        "member once the squad has moved; he is abandoned beyond the coherency distance (p.16). "
        "With the option = declared, the player's declaration is enough.",
    )
    coherency_inches: float | None = Field(
        default=None,
        ge=0,
        le=100,
        description="The squad's coherency distance (p.16), needed with the gaps.",
    )
    medic_stays: bool = Field(
        default=False,
        description="The squad leaves its Medic with the wounded: no roll; he stays until each "
        "has recovered, stabilised or died (p.35).",
    )
    hardened: bool = Field(default=False, description="Hardened trait (p.40): no roll.")
    relentless: bool = Field(default=False, description="Relentless trait (p.41): no roll.")
    left_with_medevac: bool = Field(
        default=False, description="The wounded are left with a Medevac vehicle (p.43): no roll."
    )


@event_type(LEFT_EVENT, stream="battle")
class FadWoundedLeft(EventPayload):
    """A squad moved off leaving wounded behind (FaD p.35 Leave No One Behind): without a Medic
    left with them it rolls d6 for un-stabilised wounded, 5+ without penalty, under 5 it Checks
    Resolve one level lower for the rest of the game (once: "one level less than normal")."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    trooper_ids: list[uuid.UUID]
    unstabilised: int = Field(ge=0)
    abandoned: bool = Field(description="Abandoned by option wounds_abandon_trigger.")
    reason: Literal[
        "not_abandoned",
        "no_unstabilised_wounded",
        "medic_stays",
        "hardened",
        "relentless",
        "medevac",
        "rolled",
    ]
    medic_id: uuid.UUID | None = Field(description="The Medic left with the wounded, if any.")
    resolve_penalty: bool
    resolve_before: str
    resolve_after: str
    dice: list[DieRoll] = Field(default_factory=list)


def _lowered_already(ctx: BattleContext, unit_id: uuid.UUID) -> bool:
    return any(
        e.payload["unit_id"] == str(unit_id) and e.payload["resolve_penalty"]
        for e in state.battle_events(ctx, LEFT_EVENT)
    )


@battle_action
class FadLeaveWounded(BattleAction):
    """A squad moves off leaving wounded behind (FaD p.35 Leave No One Behind). At most one d6."""

    action = "fad_leave_wounded"
    rulesets = (Ruleset.FAD.value,)
    Params = LeaveWoundedParams

    def check_action(self, ctx: BattleContext, params: LeaveWoundedParams) -> None:
        self._plan(ctx, params)

    def _plan(
        self, ctx: BattleContext, params: LeaveWoundedParams
    ) -> tuple[Participant, list[Trooper], Trooper | None, bool]:
        participant = _check_squad(ctx, params.unit_id)
        lying = {
            t.id: t
            for t in state.figures_on_table(ctx, params.unit_id)
            if state.medical_state(t) in (rules.MedicalState.WOUNDED, rules.MedicalState.STABILISED)
        }
        left: list[Trooper] = []
        for index, trooper_id in enumerate(params.trooper_ids):
            trooper = lying.get(trooper_id)
            if trooper is None or trooper in left:
                raise CommandError(
                    "wounded.not_wounded",
                    "Name each figure left behind once, a wounded or stabilised figure of the "
                    "unit.",
                    field=f"trooper_ids.{index}",
                )
            left.append(trooper)
        medic = _medic(ctx, params.unit_id) if params.medic_stays else None
        if params.medic_stays and medic is None:
            raise RuleViolation(
                "wounded.no_medic",
                "The squad has no fit Medic to leave with its wounded (p.35).",
                field="medic_stays",
            )
        unstabilised = [t for t in left if t.status == TrooperStatus.WOUNDED]
        trigger = rules.AbandonTrigger(ctx.options.wounds_abandon_trigger)
        if trigger is rules.AbandonTrigger.DECLARED or not unstabilised:
            # Declared, or only stabilised figures left: no distance decides anything.
            return participant, left, medic, True
        if params.gaps_inches is None or params.coherency_inches is None:
            raise CommandError(
                "wounded.gaps_required",
                "Give the gap from each figure left to the squad and its coherency distance "
                "(option wounds_abandon_trigger = left_outside_coherency).",
                field="gaps_inches",
            )
        if len(params.gaps_inches) != len(left):
            raise CommandError(
                "wounded.gaps_required",
                "Give one gap for each figure left behind, in the same order.",
                field="gaps_inches",
            )
        gaps = [
            gap
            for trooper, gap in zip(left, params.gaps_inches, strict=True)
            if trooper in unstabilised
        ]
        abandoned = rules.wounded_are_abandoned(
            unstabilised_wounded_gaps_inches=[_inches(g) for g in gaps],
            coherency_inches=_inches(params.coherency_inches),
            wounds_abandon_trigger=trigger,
        )
        return participant, left, medic, abandoned

    def resolve(
        self, ctx: BattleContext, params: LeaveWoundedParams, dice: DiceSource
    ) -> list[Any]:
        participant, left, medic, abandoned = self._plan(ctx, params)
        unit = ctx.unit(params.unit_id)
        before = state.resolve(participant, unit)
        traits = state.battle_traits(ctx, unit)
        unstabilised = sum(1 for t in left if t.status == TrooperStatus.WOUNDED)
        reason = "not_abandoned"
        penalty = False
        rolls: tuple[Any, ...] = ()
        if abandoned:
            with rolling_for(dice, str(params.unit_id)):
                outcome = rules.leave_no_one_behind(
                    dice=dice,
                    unstabilised_wounded_left=unstabilised,
                    medic_stays_with_wounded=medic is not None,
                    # Also the unit's traits in the battle: its roster's and a mission's bonus.
                    hardened=params.hardened or "hardened" in traits,
                    relentless=params.relentless or "relentless" in traits,
                    left_with_medevac=params.left_with_medevac,
                )
            reason, penalty, rolls = outcome.reason.value, outcome.resolve_penalty, outcome.rolls
        lowered = penalty and not _lowered_already(ctx, params.unit_id)
        after = rules.resolve_for_checking(resolve=before, left_wounded_behind=lowered)
        return [
            FadWoundedLeft(
                battle_id=ctx.battle.id,
                unit_id=params.unit_id,
                turn=ctx.battle.turn,
                trooper_ids=[t.id for t in left],
                unstabilised=unstabilised,
                abandoned=abandoned,
                reason=reason,
                medic_id=medic.id if medic else None,
                resolve_penalty=penalty,
                resolve_before=before.name.lower(),
                resolve_after=Resolve(after).name.lower(),
                dice=dice_json(rolls),
            )
        ]


def _inches(value: float) -> Fraction:
    """Inches as the rules take them: whole or fractional."""
    return Fraction(value).limit_denominator(1000)


# --- log ----------------------------------------------------------------------------------------

_RESULT_TEXT = {
    "recovered": "recovered and back in action",
    "stabilised": "stabilised",
    "died_of_wounds": "died of his wounds",
}
_CARER_TEXT = {
    "medic": "by the Medic",
    "medevac": "by the Medevac vehicle",
    "aid_team": "by an aid team",
    "self_repair": "by his own nano-medics",
}
_REASON_TEXT = {
    "not_abandoned": "they stay within its coherency distance: not abandoned",
    "no_unstabilised_wounded": "all stabilised: no roll",
    "medic_stays": "its Medic stays with them: no roll",
    "hardened": "Hardened: no roll",
    "relentless": "Relentless: no roll",
    "medevac": "left with a Medevac vehicle: no roll",
}


def _name(rows: Rows, trooper_id: str) -> str:
    trooper = rows.get(Trooper, trooper_id)
    return trooper["name"] if trooper else "a figure"


@register
class FadWoundedProjection(Projection):
    """The battle-log lines of Recover Wounded and Leave No One Behind, and the Resolve a failed
    Leave No One Behind roll lowers (rows of the battles projection)."""

    name = "battles.fad_wounded"
    version = 1

    @Projection.handles(TREATED_EVENT)
    def treated(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        squad = unit_name(rows, p["unit_id"])
        modifiers = []
        if p["marker"]:
            modifiers.append(f"{'Pinned' if p['marker'] == 'pinned' else 'Under Fire'} -1")
        if p["medic_id"]:
            modifiers.append("Medic present +1")
        parts = []
        for t in p["treated"]:
            total = (
                f"{t['die']}{t['modifier']:+d} = {t['recovery_number']}"
                if t["modifier"]
                else f"{t['die']}"
            )
            parts.append(
                f"{_name(rows, t['trooper_id'])} treated {_CARER_TEXT[t['carer']]}: {total}, "
                f"{_RESULT_TEXT[t['result']]}"
            )
        line = f"{squad} recovered wounded"
        if modifiers:
            line += f" ({', '.join(modifiers)})"
        line += ": " + "; ".join(parts)
        if p["untreated"]:
            line += "; untreated: " + ", ".join(_name(rows, t) for t in p["untreated"])
        log(rows, event, line + "." + dice_text(p["dice"]))

    @Projection.handles(LEFT_EVENT)
    def left(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        squad = unit_name(rows, p["unit_id"])
        names = ", ".join(_name(rows, t) for t in p["trooper_ids"])
        line = f"{squad} moved off leaving {names} behind: "
        if p["reason"] != "rolled":
            line += _REASON_TEXT[p["reason"]]
        elif not p["resolve_penalty"]:
            line += f"Leave No One Behind {p['dice'][0]['result']}, no penalty"
        elif p["resolve_after"] != p["resolve_before"]:
            line += (
                f"Leave No One Behind {p['dice'][0]['result']}, under 5: it Checks Resolve as "
                f"{p['resolve_after'].capitalize()} instead of {p['resolve_before'].capitalize()} "
                "for the rest of the game"
            )
        else:
            line += (
                f"Leave No One Behind {p['dice'][0]['result']}, under 5: its Resolve stays "
                f"{p['resolve_after'].capitalize()} (one level lower at most)"
            )
        key = participant_key(p["battle_id"], p["unit_id"])
        if p["resolve_after"] != p["resolve_before"] and rows.get(Participant, key) is not None:
            rows.update(Participant, key, resolve=p["resolve_after"])
        log(rows, event, line + "." + dice_text(p["dice"]))
