"""Medical treatment in battle (SG2 P.39): one Reorganise action treats every current casualty
of a unit, one D6 each (:func:`rules.sg2.medical.treat_unit_casualties`)."""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.medical.events import CasualtiesTreated, Treatment
from battles.suppression import is_vehicle_unit, markers_text
from campaigns.events import dice_json
from eventlog.errors import CommandError, RuleViolation, StateConflict
from rosters.models import Trooper
from rosters.vocabulary import TrooperRole, TrooperStatus
from rules.dice import DiceSource
from rules.sg2.casualties import Figure, FigureRole, FigureState
from rules.sg2.medical import treat_unit_casualties
from rules.sg2.suppression import UnitAction, may_act

# How a roster status reads on the table (P.7 markers). Troopers in the rear or gone are not on
# the table and take no part.
FIGURE_STATES: dict[str, FigureState] = {
    TrooperStatus.FIT: FigureState.FIT,
    TrooperStatus.WOUNDED: FigureState.UNTREATED,
    TrooperStatus.STABILISED: FigureState.STABILISED,
    TrooperStatus.DEAD: FigureState.DEAD,
}

ROSTER_STATUS: dict[FigureState, TrooperStatus] = {
    FigureState.DEAD: TrooperStatus.DEAD,
    FigureState.STABILISED: TrooperStatus.STABILISED,
    FigureState.FIT: TrooperStatus.FIT,
}


def figures_of(troopers: list[Trooper]) -> list[Figure]:
    """The unit's figures on the table, in roster order. Only the medic's role matters here."""
    return [
        Figure(
            id=str(trooper.id),
            role=FigureRole.MEDIC if trooper.role == TrooperRole.MEDIC else FigureRole.RIFLEMAN,
            state=FIGURE_STATES[trooper.status],
        )
        for trooper in troopers
        if trooper.status in FIGURE_STATES
    ]


# --- Medical treatment (P.39) ---------------------------------------------------------------------


class MedicalTreatmentParams(Params):
    unit_id: uuid.UUID
    medical_unit_id: uuid.UUID | None = Field(
        default=None, description="A medical unit of the side's mission attending the unit (+2)."
    )
    trooper_ids: list[uuid.UUID] | None = Field(
        default=None,
        description="The casualties as the table sees them: if given, exactly the unit's "
        "current casualties, so the dice go to the troopers the players meant.",
    )
    in_cover: bool = Field(
        default=False,
        description="The unit is in soft or hard cover: a suppressed unit may reorganise, and "
        "so treat its casualties, only in cover (P.18).",
    )


@battle_action
class MedicalTreatment(BattleAction):
    """Treat every current casualty of a unit in one Reorganise action (SG2 P.39).

    One D6 per casualty in roster order, +1 if the unit has a medic, +2 if a medical unit of
    the side's mission attends (options ``medical_modifiers_stack`` and ``medic_must_be_fit``):
    1-2 dead, 3-5 stabilised, 6+ back in action.
    """

    action = "medical_treatment"
    Params = MedicalTreatmentParams

    def check_action(self, ctx: BattleContext, params: MedicalTreatmentParams) -> None:
        participant = ctx.participant(params.unit_id)
        unit = ctx.unit(params.unit_id)
        if not may_act(
            UnitAction.REORGANISE,
            markers=participant.suppression,
            vehicle=is_vehicle_unit(unit),
            in_cover=params.in_cover,
        ):
            raise RuleViolation(
                "suppression.reorganise_in_open",
                f"{unit.name} is suppressed ({markers_text(participant.suppression)}) and not "
                "in cover: a suppressed unit may reorganise, and treat its casualties, only in "
                "soft or hard cover (P.18).",
                field="in_cover",
            )
        if params.medical_unit_id is not None:
            attending = {
                uuid.UUID(str(u))
                for u in ctx.sides[participant.side].mission.get("medical_unit_ids", [])
            }
            if params.medical_unit_id not in attending:
                raise RuleViolation(
                    "treatment.no_medical_unit",
                    "That unit is not a medical unit on this side's mission card.",
                    field="medical_unit_id",
                )
        troopers = ctx.troopers(params.unit_id)
        wounded = {t.id for t in troopers if t.status == TrooperStatus.WOUNDED}
        if params.trooper_ids is not None:
            _check_named(params.trooper_ids, troopers, wounded)
        if not wounded:
            raise StateConflict(
                "treatment.no_casualties",
                f"{ctx.unit(params.unit_id).name} has no untreated casualties to treat.",
                field="unit_id",
            )

    def resolve(
        self, ctx: BattleContext, params: MedicalTreatmentParams, dice: DiceSource
    ) -> list[Any]:
        troopers = ctx.troopers(params.unit_id)
        outcome = treat_unit_casualties(
            dice=dice,
            figures=figures_of(troopers),
            medical_unit=params.medical_unit_id is not None,
            medical_modifiers_stack=ctx.options.medical_modifiers_stack,
            medic_must_be_fit=ctx.options.medic_must_be_fit,
        )
        return [
            CasualtiesTreated(
                battle_id=ctx.battle.id,
                unit_id=params.unit_id,
                turn=ctx.battle.turn,
                medic=outcome.medic,
                medical_unit_id=params.medical_unit_id,
                modifier=outcome.modifier,
                treatments=[
                    Treatment(
                        trooper_id=uuid.UUID(t.figure_id),
                        total=t.total,
                        result=ROSTER_STATUS[t.state].value,
                    )
                    for t in outcome.treatments
                ],
                dice=dice_json(outcome.rolls),
            )
        ]


def _check_named(named: list[uuid.UUID], troopers: list[Trooper], wounded: set[uuid.UUID]) -> None:
    by_id = {t.id: t for t in troopers}
    for index, trooper_id in enumerate(named):
        field = f"trooper_ids.{index}"
        trooper = by_id.get(trooper_id)
        if trooper is None:
            raise RuleViolation(
                "treatment.not_in_unit", "That trooper is not in the unit treated.", field=field
            )
        if trooper.status == TrooperStatus.STABILISED:
            raise StateConflict(
                "treatment.already_treated",
                f"{trooper.name} is already stabilised; he is not treated again (P.39).",
                field=field,
            )
        if trooper.status != TrooperStatus.WOUNDED:
            raise StateConflict(
                "treatment.not_wounded",
                f"{trooper.name} is {trooper.status.replace('_', ' ')}: only an untreated "
                "casualty can be treated.",
                field=field,
            )
    if len(set(named)) != len(named):
        raise CommandError("action.invalid", "A trooper is named twice.", field="trooper_ids")
    left_out = [by_id[t].name for t in wounded - set(named)]
    if left_out:
        # One Reorganise action treats all the unit's casualties (P.39): naming only some would
        # hand the dice to the wrong men.
        raise StateConflict(
            "treatment.casualty_not_named",
            f"{', '.join(sorted(left_out))} is also an untreated casualty of the unit; one "
            "Reorganise action treats them all.",
            field="trooper_ids",
        )
