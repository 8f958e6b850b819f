"""Stargrunt II medical treatment of wounded troops in a Reorganise action (SG2 P.39)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.dice import DiceSource, Die, Roll
from rules.errors import RuleError
from rules.sg2.casualties import CasualtyError, Figure, FigureRole, FigureState

MEDIC_MODIFIER = 1
MEDICAL_UNIT_MODIFIER = 2


class TreatmentRefused(CasualtyError):
    """The figure cannot be given medical treatment (``code`` says why)."""


def treatment_modifier(
    *, medic: bool, medical_unit: bool, medical_modifiers_stack: bool = False
) -> int:
    """The modifier to the treatment D6 (SG2 P.39): +1 with a MEDIC, +2 with a MEDICAL UNIT.

    The book does not say whether both together give +3. Option ``medical_modifiers_stack``
    (default false): false uses the larger bonus (+2), true adds them (+3).
    """
    bonuses = [
        bonus
        for present, bonus in ((medic, MEDIC_MODIFIER), (medical_unit, MEDICAL_UNIT_MODIFIER))
        if present
    ]
    if not bonuses:
        return 0
    return sum(bonuses) if medical_modifiers_stack else max(bonuses)


def treatment_result(total: int) -> FigureState:
    """The P.39 treatment table for a modified total: 1-2 dead, 3-5 stabilised, 6+ fit."""
    if total <= 2:
        return FigureState.DEAD
    if total <= 5:
        return FigureState.STABILISED
    return FigureState.FIT


@dataclass(frozen=True, slots=True)
class TreatmentOutcome:
    """The result of treating one untreated casualty."""

    figure_id: str
    modifier: int
    total: int
    state: FigureState
    rolls: tuple[Roll, ...]


def treat_casualty(
    *,
    dice: DiceSource,
    casualty: Figure,
    medic: bool = False,
    medical_unit: bool = False,
    medical_modifiers_stack: bool = False,
) -> TreatmentOutcome:
    """Treat one untreated casualty: does he die, stabilise or fight on? (SG2 P.39).

    SG2 P.39 MEDICAL TREATMENT OF WOUNDED TROOPS: D6, +1 if the unit includes a MEDIC, +2 if a
    specialised MEDICAL UNIT attends. Total 1-2: too far gone, DEAD (black skull). 3-5:
    STABILISED (red cross), out of the fight until evacuated. 6 or more: the wound was less
    serious than it looked, FIT. Only an untreated casualty (white skull) is treated: anyone
    else is refused with a :class:`TreatmentRefused` whose code is ``treatment.not_wounded``
    (fit, dead or otherwise not a casualty) or ``treatment.already_treated`` (stabilised).

    Option ``medical_modifiers_stack`` (default false), see :func:`treatment_modifier`.
    Dice: one D6.
    """
    _check_treatable(casualty)
    modifier = treatment_modifier(
        medic=medic, medical_unit=medical_unit, medical_modifiers_stack=medical_modifiers_stack
    )
    roll = dice.roll(Die.D6, f"medical treatment of {casualty.id}")
    total = roll.result + modifier
    return TreatmentOutcome(
        figure_id=casualty.id,
        modifier=modifier,
        total=total,
        state=treatment_result(total),
        rolls=(roll,),
    )


def _check_treatable(figure: Figure) -> None:
    if figure.state is FigureState.UNTREATED:
        return
    if figure.state is FigureState.STABILISED:
        raise TreatmentRefused(
            "treatment.already_treated",
            f"Figure {figure.id} has already been stabilised; he is not treated again.",
        )
    raise TreatmentRefused(
        "treatment.not_wounded",
        f"Figure {figure.id} is {figure.state.value}: only an untreated casualty can be treated.",
    )


def unit_has_medic(figures: Sequence[Figure], *, medic_must_be_fit: bool = True) -> bool:
    """Whether the unit includes a MEDIC figure who can help (SG2 P.39).

    The book does not say whether a medic who is himself down still helps. Option
    ``medic_must_be_fit`` (default true): only a fit medic counts; false lets any living medic
    still on the table count.
    """
    return any(
        figure.role is FigureRole.MEDIC
        and (figure.state is FigureState.FIT if medic_must_be_fit else figure.state.on_table_alive)
        for figure in figures
    )


@dataclass(frozen=True, slots=True)
class UnitTreatmentOutcome:
    """The treatment of every untreated casualty of a unit in one Reorganise action."""

    medic: bool
    modifier: int
    treatments: tuple[TreatmentOutcome, ...]
    rolls: tuple[Roll, ...]

    def state_of(self, figure_id: str) -> FigureState | None:
        for treatment in self.treatments:
            if treatment.figure_id == figure_id:
                return treatment.state
        return None


def treat_unit_casualties(
    *,
    dice: DiceSource,
    figures: Sequence[Figure],
    medical_unit: bool = False,
    medical_modifiers_stack: bool = False,
    medic_must_be_fit: bool = True,
) -> UnitTreatmentOutcome:
    """Treat all current casualties of a unit in one Reorganise action (SG2 P.39).

    SG2 P.39: all current casualties (white skulls) of the unit may be treated in one
    Reorganise action, each with its own roll as in :func:`treat_casualty`. Stabilised, dead and
    fit figures are not rolled for. Whether the unit has a medic is decided as the action
    starts, before anyone is treated.

    Options: ``medical_modifiers_stack`` (default false), ``medic_must_be_fit`` (default true).
    Dice: one D6 per untreated casualty, in the order of ``figures``.
    """
    ids = [figure.id for figure in figures]
    if len(set(ids)) != len(ids):
        raise RuleError("medical.refused", "Each figure must appear once, with its own id.")
    medic = unit_has_medic(figures, medic_must_be_fit=medic_must_be_fit)
    treatments = tuple(
        treat_casualty(
            dice=dice,
            casualty=figure,
            medic=medic,
            medical_unit=medical_unit,
            medical_modifiers_stack=medical_modifiers_stack,
        )
        for figure in figures
        if figure.state is FigureState.UNTREATED
    )
    return UnitTreatmentOutcome(
        medic=medic,
        modifier=treatment_modifier(
            medic=medic, medical_unit=medical_unit, medical_modifiers_stack=medical_modifiers_stack
        ),
        treatments=treatments,
        rolls=tuple(roll for treatment in treatments for roll in treatment.rolls),
    )
