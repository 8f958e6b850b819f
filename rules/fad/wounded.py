"""Fast and Dirty Recover Wounded (Advanced): wounding, aid teams, recovery and abandoned wounded.

FaD p.35 RECOVER WOUNDED. With this rule a hit that only just beats the defender wounds a figure
instead of removing it; the squad may then spend a Command action forming aid teams and rolling to
save its wounded, must test before it abandons them, and may carry them away. The book has no
post-battle medical step; :func:`wounded_at_end_of_battle` fills that gap as the digest recommends.

Every trooper moves through :class:`MedicalState` only along the transitions
:func:`next_medical_state` allows; anything else raises :class:`MedicalTransitionError`.

One module on purpose, though long: it is the whole of one advanced rule (p.35), whose steps share
its states and transitions; about half of its lines are the book's text in docstrings.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules.dice import DiceSource, Die, Roll
from rules.errors import RuleError
from rules.fad.scales import RESOLVE_WORST, Resolve

# Determine Damage, FaD p.35 Wounding: the attacker must beat the defender by this much to kill.
KILL_MARGIN = 3

# Determine Recovery, FaD p.35: the recovery number needed to return to action or to stabilise.
RECOVERED_AT = 6
STABILISED_AT = 4

# Leave No One Behind, FaD p.35: a d6 showing this or more lets a squad abandon its wounded freely.
ABANDON_WITHOUT_PENALTY_AT = 5

# Forming Aid Teams and Medic, FaD p.35 and p.33; Medevac, FaD p.43.
TROOPERS_PER_AID_TEAM = 2
MEDIC_PATIENTS = 2
MEDEVAC_PATIENTS = 2

# Jet Packs, FaD p.30: two troopers per wounded, and shorter leaps and bounds.
JET_PACK_CARRIERS_PER_WOUNDED = 2
LEAP_DEDUCTION_INCHES = 2
BOUND_DEDUCTION_INCHES = 4


class MedicalTransitionError(RuleError):
    """A medical event that cannot happen to a figure in its current state."""


class MedicalState(enum.StrEnum):
    """Where a trooper stands under Recover Wounded (FaD p.35).

    ``RECOVERED`` is a healthy figure that has been wounded and returned to action; it is kept
    apart from ``HEALTHY`` only so that option ``wounds_recovered_second_wound_kills`` can treat a
    second wound as fatal.
    """

    HEALTHY = "healthy"
    WOUNDED = "wounded"
    STABILISED = "stabilised"
    RECOVERED = "recovered"
    DEAD = "dead"

    @property
    def is_fit(self) -> bool:
        """Able to move, fight and form aid teams: healthy or recovered."""
        return self in (MedicalState.HEALTHY, MedicalState.RECOVERED)

    @property
    def counts_as_casualty_for_resolve(self) -> bool:
        """Counted when Checking Resolve: dead and untreated wounded, not stabilised (p.35)."""
        return self in (MedicalState.WOUNDED, MedicalState.DEAD)


class MedicalEvent(enum.StrEnum):
    """Something that changes a trooper's medical state (FaD p.35, p.34 Heal, p.41 Regenerate)."""

    WOUNDED = "wounded"
    KILLED = "killed"
    RECOVERED = "recovered"
    STABILISED = "stabilised"
    DIED_OF_WOUNDS = "died_of_wounds"
    HEALED = "healed"


# Results of a recovery roll: only an untreated wounded figure may be rolled for (p.35).
_RECOVERY_EVENTS = frozenset(
    {MedicalEvent.RECOVERED, MedicalEvent.STABILISED, MedicalEvent.DIED_OF_WOUNDS}
)


def next_medical_state(
    *,
    state: MedicalState | str,
    event: MedicalEvent | str,
    wounds_recovered_second_wound_kills: bool = False,
) -> MedicalState:
    """The state a trooper moves to when ``event`` happens to him.

    FaD p.35 RECOVER WOUNDED. A fit figure that is wounded is out of action; a wounded (or
    stabilised) figure that is wounded again is killed. A recovery roll moves an untreated wounded
    figure to recovered (6+), stabilised (4-5, no further attempts) or dead (less than 4). Heal
    (p.34) and Regenerate (p.41) restore a wounded or stabilised figure. The dead stay dead.

    Option ``wounds_recovered_second_wound_kills`` (default false, a gap in the book): whether a
    figure that has recovered dies when wounded again rather than being wounded afresh.

    Raises :class:`MedicalTransitionError` (codes ``wounds.dead``, ``wounds.not_wounded``,
    ``wounds.already_stabilised``) for an event that cannot happen in ``state``.
    """
    state = MedicalState(state)
    event = MedicalEvent(event)
    if state is MedicalState.DEAD:
        raise MedicalTransitionError(
            "wounds.dead", f"A dead figure cannot be {event.value.replace('_', ' ')}."
        )
    if event is MedicalEvent.KILLED:
        return MedicalState.DEAD
    if event is MedicalEvent.WOUNDED:
        if state is MedicalState.HEALTHY:
            return MedicalState.WOUNDED
        if state is MedicalState.RECOVERED and not wounds_recovered_second_wound_kills:
            return MedicalState.WOUNDED
        return MedicalState.DEAD
    if state.is_fit:
        raise MedicalTransitionError(
            "wounds.not_wounded",
            f"A {state.value} figure is not wounded, so it cannot be "
            f"{event.value.replace('_', ' ')}.",
        )
    if event is MedicalEvent.HEALED:
        return MedicalState.RECOVERED
    if state is MedicalState.STABILISED:
        # p.35: "No further attempts can be made to recover this figure."
        raise MedicalTransitionError(
            "wounds.already_stabilised",
            "A stabilised figure cannot be treated again: no further recovery attempts are "
            "allowed.",
        )
    return {
        MedicalEvent.RECOVERED: MedicalState.RECOVERED,
        MedicalEvent.STABILISED: MedicalState.STABILISED,
        MedicalEvent.DIED_OF_WOUNDS: MedicalState.DEAD,
    }[event]


def casualties_for_resolve(*, states: Iterable[MedicalState]) -> int:
    """How many of a unit's figures count as casualties when Checking Resolve.

    FaD p.35: stabilised figures "do not count as a casualty when Checking Resolve"; the dead and
    the untreated wounded do.
    """
    return sum(1 for state in states if MedicalState(state).counts_as_casualty_for_resolve)


def _require_count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError("wounded.refused", f"{name} must be a whole number, not {value!r}.")
    if value < 0:
        raise RuleError("wounded.refused", f"{name} cannot be negative; got {value}.")
    return value


# --- wounding ------------------------------------------------------------------------------------


class DamageEffect(enum.StrEnum):
    """What one damaging hit does to the figure it is allocated to."""

    NO_EFFECT = "no_effect"
    WOUNDED = "wounded"
    KILLED = "killed"


@dataclass(frozen=True, slots=True)
class WoundOrKill:
    """The effect of one hit and the figure's state after it.

    ``rolls`` is empty: the damage dice belong to the shooting procedure that rolled them.
    """

    margin: int
    effect: DamageEffect
    state_before: MedicalState
    state_after: MedicalState
    rolls: tuple[Roll, ...] = ()


def wound_or_kill(
    *,
    attacker_score: int,
    defender_score: int,
    target_state: MedicalState = MedicalState.HEALTHY,
    adv_recover_wounded: bool = True,
    wounds_recovered_second_wound_kills: bool = False,
) -> WoundOrKill:
    """Whether a hit wounds or kills, from the Determine Damage margin.

    FaD p.19 Determine Damage and p.35 Wounding. Margin = attacker's score - defender's score:

    * below 0: no effect;
    * 0, 1 or 2: wounded (a figure already wounded or stabilised is killed);
    * 3 or more: killed.

    Option ``adv_recover_wounded`` (default true for campaigns): off is the basic game, where any
    margin of 0 or more removes the figure (reported as killed). Option
    ``wounds_recovered_second_wound_kills`` is passed to :func:`next_medical_state`.
    """
    for name, value in (
        ("The attacker's score", attacker_score),
        ("The defender's score", defender_score),
    ):
        if isinstance(value, bool) or not isinstance(value, int):
            raise RuleError("wounded.refused", f"{name} must be a whole number, not {value!r}.")
    target_state = MedicalState(target_state)
    if target_state is MedicalState.DEAD:
        raise MedicalTransitionError("wounds.dead", "A dead figure cannot be hit again.")
    margin = attacker_score - defender_score
    if margin < 0:
        return WoundOrKill(margin, DamageEffect.NO_EFFECT, target_state, target_state)
    if not adv_recover_wounded or margin >= KILL_MARGIN:
        event = MedicalEvent.KILLED
    else:
        event = MedicalEvent.WOUNDED
    state_after = next_medical_state(
        state=target_state,
        event=event,
        wounds_recovered_second_wound_kills=wounds_recovered_second_wound_kills,
    )
    effect = DamageEffect.KILLED if state_after is MedicalState.DEAD else DamageEffect.WOUNDED
    return WoundOrKill(margin, effect, target_state, state_after)


@dataclass(frozen=True, slots=True)
class SquadDamage:
    """Optional Squad-Based Damage: hits saved, and the unsaved hits split into wounds and kills."""

    hits: int
    saved: int
    wounded: int
    killed: int
    rolls: tuple[Roll, ...] = ()


def squad_based_damage_casualties(
    *,
    hits: int,
    attacker_score: int,
    defender_score: int,
    adv_recover_wounded: bool = True,
) -> SquadDamage:
    """How a volley's hits become saves, wounds and kills under Optional Squad-Based Damage.

    FaD p.19 Optional - Squad-Based Damage: each point the defender scores above the attacker
    saves one hit; unsaved hits are kills. With Recover Wounded (p.35) half of the kills are
    wounds instead, "rounding up in favor of wounds": 4 hits, 5 against 6 -> 1 saved, 2 wounded,
    1 killed (the book's example). Option ``adv_recover_wounded`` (default true).
    """
    _require_count("The number of hits", hits)
    for name, value in (
        ("The attacker's score", attacker_score),
        ("The defender's score", defender_score),
    ):
        if isinstance(value, bool) or not isinstance(value, int):
            raise RuleError("wounded.refused", f"{name} must be a whole number, not {value!r}.")
    saved = min(hits, max(0, defender_score - attacker_score))
    unsaved = hits - saved
    wounded = (unsaved + 1) // 2 if adv_recover_wounded else 0
    return SquadDamage(hits=hits, saved=saved, wounded=wounded, killed=unsaved - wounded)


# --- Recover Wounded action ----------------------------------------------------------------------


class MedicBonusScope(enum.StrEnum):
    """Which recovery rolls the Medic's +1 applies to (option ``wounds_medic_bonus_scope``)."""

    WHOLE_SQUAD = "whole_squad"
    MEDIC_PATIENTS = "medic_patients"


class Carer(enum.StrEnum):
    """Who treats a wounded figure in a Recover Wounded action."""

    MEDIC = "medic"
    MEDEVAC = "medevac"
    AID_TEAM = "aid_team"
    SELF_REPAIR = "self_repair"


class RecoveryResult(enum.StrEnum):
    """The three bands of the recovery number (FaD p.35 Determine Recovery)."""

    RECOVERED = "recovered"
    STABILISED = "stabilised"
    DIED_OF_WOUNDS = "died_of_wounds"

    @property
    def state_after(self) -> MedicalState:
        return {
            RecoveryResult.RECOVERED: MedicalState.RECOVERED,
            RecoveryResult.STABILISED: MedicalState.STABILISED,
            RecoveryResult.DIED_OF_WOUNDS: MedicalState.DEAD,
        }[self]


@dataclass(frozen=True, slots=True)
class RecoveryRoll:
    """One recovery roll: the die, the modifiers, the recovery number and its result."""

    die: int
    modifier: int
    recovery_number: int
    result: RecoveryResult
    rolls: tuple[Roll, ...]

    @property
    def state_after(self) -> MedicalState:
        return self.result.state_after


def recovery_roll(
    *,
    dice: DiceSource,
    under_fire_or_pinned: bool = False,
    medic_present: bool = False,
    trooper: str = "a wounded figure",
) -> RecoveryRoll:
    """Whether one treated wounded figure recovers, is stabilised or dies of his wounds.

    FaD p.35 Determine Recovery: roll 1d6 and add the RECOVER WOUNDED MODIFIERS (unit Under Fire or
    Pinned -1, Medic present +1) to get the recovery number:

    * 6 or more: recovered, back to his fighting duties;
    * 4 or 5: stabilised; no further attempts; not a casualty when Checking Resolve;
    * less than 4: dies of his wounds and is removed.

    Rolls one d6 ("recovery roll for <trooper>").
    """
    roll = dice.roll(Die.D6, f"recovery roll for {trooper}")
    modifier = (-1 if under_fire_or_pinned else 0) + (1 if medic_present else 0)
    number = roll.result + modifier
    if number >= RECOVERED_AT:
        result = RecoveryResult.RECOVERED
    elif number >= STABILISED_AT:
        result = RecoveryResult.STABILISED
    else:
        result = RecoveryResult.DIED_OF_WOUNDS
    return RecoveryRoll(
        die=roll.result, modifier=modifier, recovery_number=number, result=result, rolls=(roll,)
    )


@dataclass(frozen=True, slots=True)
class AidTeams:
    """How a squad's wounded are shared out among those who treat them, in treatment order.

    The Medic (if any) treats the first wounded, then a Medevac vehicle, then the two-trooper aid
    teams, then (Self-Repairing troops) the wounded treat themselves; the rest go untreated.
    """

    medic_patients: int
    medevac_patients: int
    aid_teams: int
    self_repairing_patients: int
    untreated: int
    troopers_aiding: int
    troopers_free: int

    @property
    def treated(self) -> int:
        return (
            self.medic_patients
            + self.medevac_patients
            + self.aid_teams
            + self.self_repairing_patients
        )

    @property
    def carers(self) -> tuple[Carer, ...]:
        """Who treats each treated wounded figure, in treatment order."""
        return (
            (Carer.MEDIC,) * self.medic_patients
            + (Carer.MEDEVAC,) * self.medevac_patients
            + (Carer.AID_TEAM,) * self.aid_teams
            + (Carer.SELF_REPAIR,) * self.self_repairing_patients
        )


def form_aid_teams(
    *,
    wounded: int,
    fit_troopers: int,
    medic: bool = False,
    medevac_in_contact: bool = False,
    self_repairing: bool = False,
    aid_teams: int | None = None,
) -> AidTeams:
    """Who treats which of a squad's untreated wounded in a Recover Wounded action (no dice).

    FaD p.35 Forming Aid Teams: any two healthy members form an aid team; the squad forms as many
    as its healthy strength allows; each team aids one wounded figure, and each wounded figure is
    treated only once. p.33 Medic: a Medic treats two wounded and needs no helper. p.41
    Self-Repairing: every wounded figure rolls as if an aid team were present, without teams.
    p.43 Medevac: a vehicle in contact treats as if it had two aid teams.

    ``fit_troopers`` counts the squad's fit figures, the Medic included; ``medic`` says a fit Medic
    takes part. ``aid_teams`` is how many two-trooper teams the player forms (default: as many as
    the wounded left over need, so the most troopers stay free for the other Command action).
    """
    _require_count("The number of wounded", wounded)
    _require_count("The number of fit troopers", fit_troopers)
    if medic and fit_troopers < 1:
        raise RuleError(
            "wounded.refused", "A squad with a fit Medic has at least one fit trooper: the Medic."
        )
    medic_patients = min(MEDIC_PATIENTS, wounded) if medic else 0
    remaining = wounded - medic_patients
    medevac_patients = min(MEDEVAC_PATIENTS, remaining) if medevac_in_contact else 0
    remaining -= medevac_patients
    medic_busy = 1 if medic_patients else 0
    teams_possible = (fit_troopers - medic_busy) // TROOPERS_PER_AID_TEAM
    if aid_teams is None:
        # Self-Repairing wounded roll on their own, so no trooper need be tied up.
        teams = 0 if self_repairing else min(teams_possible, remaining)
    else:
        teams = _require_count("The number of aid teams", aid_teams)
        if teams > teams_possible:
            raise RuleError(
                "wounded.refused",
                f"{fit_troopers - medic_busy} fit troopers can form at most {teams_possible} aid "
                f"team{'' if teams_possible == 1 else 's'}, not {teams}.",
            )
        if teams > remaining:
            raise RuleError(
                "wounded.refused",
                f"Each aid team treats one wounded figure, and only {remaining} "
                f"{'is' if remaining == 1 else 'are'} left for aid teams; {teams} is too many.",
            )
    remaining -= teams
    self_repairing_patients = remaining if self_repairing else 0
    aiding = medic_busy + TROOPERS_PER_AID_TEAM * teams
    return AidTeams(
        medic_patients=medic_patients,
        medevac_patients=medevac_patients,
        aid_teams=teams,
        self_repairing_patients=self_repairing_patients,
        untreated=remaining - self_repairing_patients,
        troopers_aiding=aiding,
        troopers_free=fit_troopers - aiding,
    )


@dataclass(frozen=True, slots=True)
class Patient:
    """A trooper and his medical state, as the caller's records hold them."""

    trooper: str
    state: MedicalState


@dataclass(frozen=True, slots=True)
class Treatment:
    """One wounded figure treated in a Recover Wounded action, and what became of him."""

    trooper: str
    carer: Carer
    recovery: RecoveryRoll

    @property
    def state_after(self) -> MedicalState:
        return self.recovery.state_after


@dataclass(frozen=True, slots=True)
class RecoverWoundedOutcome:
    """A whole Recover Wounded action: the teams, each treatment, and who was left untreated."""

    teams: AidTeams
    treatments: tuple[Treatment, ...]
    untreated: tuple[str, ...]
    rolls: tuple[Roll, ...]


def _validated_patients(patients: Sequence[Patient]) -> tuple[Patient, ...]:
    seen: set[str] = set()
    checked = []
    for patient in patients:
        if not isinstance(patient, Patient):
            raise RuleError(
                "wounded.refused", f"Expected a Patient (trooper and state), not {patient!r}."
            )
        if not isinstance(patient.trooper, str) or not patient.trooper:
            raise RuleError(
                "wounded.refused", f"A patient needs a trooper name, not {patient.trooper!r}."
            )
        if patient.trooper in seen:
            raise RuleError(
                "wounded.refused",
                f"{patient.trooper} is listed twice; each figure is treated once.",
            )
        seen.add(patient.trooper)
        checked.append(Patient(patient.trooper, MedicalState(patient.state)))
    return tuple(checked)


def recover_wounded(
    *,
    dice: DiceSource,
    wounded: Sequence[Patient],
    fit_troopers: int,
    medic: bool = False,
    under_fire_or_pinned: bool = False,
    medevac_in_contact: bool = False,
    self_repairing: bool = False,
    aid_teams: int | None = None,
    wounds_medic_bonus_scope: MedicBonusScope | str = MedicBonusScope.WHOLE_SQUAD,
) -> RecoverWoundedOutcome:
    """A squad's Recover Wounded action: form aid teams and roll recovery for each treated figure.

    FaD p.35 RECOVER WOUNDED, a Command action (p.12: one of the two a squad may take; troopers
    not aiding may take the other). Teams are formed by :func:`form_aid_teams`; ``wounded`` lists
    the untreated wounded in the order the player wants them treated (the Medic takes the first
    two). Each treated figure gets one :func:`recovery_roll` (Under Fire or Pinned -1, Medic
    present +1): 6+ recovered, 4-5 stabilised, under 4 died of wounds. Rolls one d6 per treated
    figure, in treatment order.

    Option ``wounds_medic_bonus_scope`` (default ``whole_squad``, the book being unclear): the +1
    applies to every roll while a fit Medic takes part, or only to the Medic's own patients.

    Only untreated wounded may be treated: a dead figure, a fit one or a stabilised one (no
    further attempts) raises :class:`MedicalTransitionError`.
    """
    patients = _validated_patients(wounded)
    for patient in patients:
        if patient.state is not MedicalState.WOUNDED:
            # Ask the state machine, so the refusal carries the same code as any other.
            next_medical_state(state=patient.state, event=MedicalEvent.RECOVERED)
    scope = MedicBonusScope(wounds_medic_bonus_scope)
    teams = form_aid_teams(
        wounded=len(patients),
        fit_troopers=fit_troopers,
        medic=medic,
        medevac_in_contact=medevac_in_contact,
        self_repairing=self_repairing,
        aid_teams=aid_teams,
    )
    treatments = []
    rolls: list[Roll] = []
    for patient, carer in zip(patients, teams.carers, strict=False):
        medic_present = medic if scope is MedicBonusScope.WHOLE_SQUAD else carer is Carer.MEDIC
        recovery = recovery_roll(
            dice=dice,
            under_fire_or_pinned=under_fire_or_pinned,
            medic_present=medic_present,
            trooper=patient.trooper,
        )
        treatments.append(Treatment(patient.trooper, carer, recovery))
        rolls.extend(recovery.rolls)
    untreated = tuple(patient.trooper for patient in patients[teams.treated :])
    return RecoverWoundedOutcome(
        teams=teams, treatments=tuple(treatments), untreated=untreated, rolls=tuple(rolls)
    )


# --- Leave No One Behind and Moving Wounded ------------------------------------------------------


class AbandonTrigger(enum.StrEnum):
    """When wounded count as abandoned (option ``wounds_abandon_trigger``; a gap in the book)."""

    LEFT_OUTSIDE_COHERENCY = "left_outside_coherency"
    DECLARED = "declared"


def wounded_are_abandoned(
    *,
    unstabilised_wounded_gaps_inches: Sequence[int | Fraction],
    coherency_inches: int | Fraction,
    declared: bool = False,
    wounds_abandon_trigger: AbandonTrigger = AbandonTrigger.LEFT_OUTSIDE_COHERENCY,
) -> bool:
    """Whether a squad is abandoning un-stabilised wounded, so Leave No One Behind applies.

    FaD p.35 Leave No One Behind says only "wishes to abandon". Option ``wounds_abandon_trigger``
    (a gap in the book): ``left_outside_coherency`` (default) - a squad that ends a move with an
    un-stabilised wounded figure farther than its coherency distance (p.16) from the nearest fit
    squad member has abandoned him; ``declared`` - the player's declaration decides.
    ``unstabilised_wounded_gaps_inches`` holds, for each un-stabilised wounded figure, that gap.
    """
    gaps = tuple(unstabilised_wounded_gaps_inches)
    for gap in (*gaps, coherency_inches):
        if isinstance(gap, bool) or not isinstance(gap, (int, Fraction)) or gap < 0:
            raise RuleError(
                "wounded.refused", f"Distances are whole or fractional inches, not {gap!r}."
            )
    if AbandonTrigger(wounds_abandon_trigger) is AbandonTrigger.DECLARED:
        return declared and bool(gaps)
    return any(gap > coherency_inches for gap in gaps)


class LeaveReason(enum.StrEnum):
    """Why a squad leaving wounded behind did or did not roll (FaD p.35, p.40-41, p.43)."""

    NO_UNSTABILISED_WOUNDED = "no_unstabilised_wounded"
    MEDIC_STAYS = "medic_stays"
    HARDENED = "hardened"
    RELENTLESS = "relentless"
    MEDEVAC = "medevac"
    ROLLED = "rolled"


@dataclass(frozen=True, slots=True)
class LeaveNoOneBehind:
    """Whether leaving wounded behind costs the squad a Resolve level for the rest of the game."""

    reason: LeaveReason
    resolve_penalty: bool
    medic_stays_with_wounded: bool
    rolls: tuple[Roll, ...]


def leave_no_one_behind(
    *,
    dice: DiceSource,
    unstabilised_wounded_left: int,
    medic_stays_with_wounded: bool = False,
    hardened: bool = False,
    relentless: bool = False,
    left_with_medevac: bool = False,
) -> LeaveNoOneBehind:
    """Whether a squad abandoning un-stabilised wounded checks Resolve a level lower from now on.

    FaD p.35 Leave No One Behind: roll 1d6; 5+ the squad leaves them without penalty; less than 5
    it still moves off, but is one level less than normal when Checking Resolve for the rest of
    the game (see :func:`resolve_for_checking`). No roll when the squad leaves its Medic with the
    wounded (he stays until each has recovered, stabilised or died: :func:`medic_may_leave`), for
    Hardened (p.40) or Relentless (p.41) troops, or for wounded left with a Medevac vehicle
    (p.43). Leaving only stabilised or dead figures needs no roll. Rolls at most one d6.
    """
    _require_count("The number of un-stabilised wounded left behind", unstabilised_wounded_left)
    exemptions = (
        (unstabilised_wounded_left == 0, LeaveReason.NO_UNSTABILISED_WOUNDED),
        (medic_stays_with_wounded, LeaveReason.MEDIC_STAYS),
        (hardened, LeaveReason.HARDENED),
        (relentless, LeaveReason.RELENTLESS),
        (left_with_medevac, LeaveReason.MEDEVAC),
    )
    for applies, reason in exemptions:
        if applies:
            return LeaveNoOneBehind(
                reason=reason,
                resolve_penalty=False,
                medic_stays_with_wounded=reason is LeaveReason.MEDIC_STAYS,
                rolls=(),
            )
    roll = dice.roll(Die.D6, "Leave No One Behind: abandoning wounded")
    return LeaveNoOneBehind(
        reason=LeaveReason.ROLLED,
        resolve_penalty=roll.result < ABANDON_WITHOUT_PENALTY_AT,
        medic_stays_with_wounded=False,
        rolls=(roll,),
    )


def resolve_for_checking(*, resolve: Resolve, left_wounded_behind: bool) -> Resolve:
    """The Resolve a squad checks at after a failed Leave No One Behind roll.

    FaD p.35: "one level less than normal when Checking Resolve for the remainder of the game".
    "Than normal" makes it one level however often the squad fails; Reluctant cannot go lower.
    """
    resolve = Resolve(resolve)
    if not left_wounded_behind:
        return resolve
    return Resolve(max(RESOLVE_WORST, resolve - 1))


def medic_may_leave(*, wounded_left_with_medic: Iterable[MedicalState]) -> bool:
    """Whether a Medic left with wounded may rejoin his squad.

    FaD p.35: he "may not leave the wounded until they recover, are stabilized, or die from their
    wounds", so he may leave once none of them is still untreated wounded.
    """
    return all(MedicalState(state) is not MedicalState.WOUNDED for state in wounded_left_with_medic)


class CarryMovement(enum.StrEnum):
    """How a squad carrying wounded moves: on foot, or a jet-pack Leap or Bound (FaD p.30)."""

    GROUND = "ground"
    LEAP = "leap"
    BOUND = "bound"


@dataclass(frozen=True, slots=True)
class CarryWounded:
    """Who carries the wounded, how far they may move, and who may still shoot."""

    carried: int
    carriers: int
    move_inches: Fraction
    troopers_free_to_shoot: int
    rolls: tuple[Roll, ...] = ()


def carry_wounded(
    *,
    wounded_carried: int,
    fit_troopers: int,
    movement_inches: int | Fraction,
    jet_packs: bool = False,
    movement: CarryMovement = CarryMovement.GROUND,
) -> CarryWounded:
    """How far a squad may carry its wounded and how many of its troopers that ties up (no dice).

    FaD p.35 Moving Wounded: one wounded per fit soldier, moved up to half the squad's movement
    rate; carriers may not Shoot. p.30 Jet Packs: jet-pack squads carry "in the normal fashion"
    with two troopers per wounded, and a Leap is 2" shorter, a Bound 4" shorter.
    ``movement_inches`` is the distance the squad could move this way unburdened (its movement
    rate on the ground, 12" for a Leap, 18" for a Bound).
    """
    _require_count("The number of wounded carried", wounded_carried)
    _require_count("The number of fit troopers", fit_troopers)
    if (
        isinstance(movement_inches, bool)
        or not isinstance(movement_inches, (int, Fraction))
        or movement_inches < 0
    ):
        raise RuleError(
            "wounded.refused",
            f"A movement distance is whole or fractional inches, not {movement_inches!r}.",
        )
    movement = CarryMovement(movement)
    if movement is not CarryMovement.GROUND and not jet_packs:
        raise RuleError(
            "wounded.refused", f"Only a squad with Jet Packs can {movement.value} (p.30)."
        )
    per_wounded = JET_PACK_CARRIERS_PER_WOUNDED if jet_packs else 1
    carriers = per_wounded * wounded_carried
    if carriers > fit_troopers:
        raise RuleError(
            "wounded.refused",
            f"Carrying {wounded_carried} wounded takes {carriers} fit troopers; the squad has "
            f"{fit_troopers}.",
        )
    if movement is CarryMovement.LEAP:
        move = Fraction(max(0, movement_inches - LEAP_DEDUCTION_INCHES))
    elif movement is CarryMovement.BOUND:
        move = Fraction(max(0, movement_inches - BOUND_DEDUCTION_INCHES))
    else:
        move = Fraction(movement_inches) / 2
    return CarryWounded(
        carried=wounded_carried,
        carriers=carriers,
        move_inches=move,
        troopers_free_to_shoot=fit_troopers - carriers,
    )


# --- after the battle ----------------------------------------------------------------------------


class WoundedAtEnd(enum.StrEnum):
    """What happens to the wounded when a battle ends (option ``campaign_wounded_at_end``)."""

    COUNT_AS_LOSSES = "count_as_losses"
    STABILISED_RETURN = "stabilised_return"
    ROLL_RECOVERY = "roll_recovery"


@dataclass(frozen=True, slots=True)
class EndOfBattleFate:
    """One trooper after the battle: his state at the end, whether he returns, and any roll."""

    trooper: str
    state_at_end: MedicalState
    returns: bool
    recovery: RecoveryRoll | None = None


@dataclass(frozen=True, slots=True)
class WoundedAtEndOfBattle:
    """Who of a unit returns for the next battle and who is a loss for the Replacements roll."""

    fates: tuple[EndOfBattleFate, ...]
    rolls: tuple[Roll, ...]

    @property
    def returning(self) -> tuple[str, ...]:
        return tuple(fate.trooper for fate in self.fates if fate.returns)

    @property
    def lost(self) -> tuple[str, ...]:
        return tuple(fate.trooper for fate in self.fates if not fate.returns)

    @property
    def losses(self) -> int:
        return len(self.lost)


def wounded_at_end_of_battle(
    *,
    dice: DiceSource,
    troopers: Sequence[Patient],
    campaign_wounded_at_end: WoundedAtEnd | str = WoundedAtEnd.COUNT_AS_LOSSES,
) -> WoundedAtEndOfBattle:
    """Which of a unit's troopers are losses when the battle ends (FaD has no rule for this).

    FaD p.66 Replacements rolls for "each infantry unit that suffered any losses" but the book
    never says what a wounded or stabilised figure is afterwards. Option
    ``campaign_wounded_at_end`` (a gap in the book):

    * ``count_as_losses`` (default, the digest's recommendation): every wounded, stabilised or
      dead figure is a loss, as the basic game removes incapacitated figures (p.19);
    * ``stabilised_return``: stabilised figures return; untreated wounded and the dead are lost;
    * ``roll_recovery``: stabilised figures return; each untreated wounded gets one more
      unmodified :func:`recovery_roll` (6 recovered and 4-5 stabilised return, under 4 dies).

    Fit figures always return and the dead never do. Rolls one d6 per untreated wounded, in the
    order given, and only under ``roll_recovery``.
    """
    reading = WoundedAtEnd(campaign_wounded_at_end)
    fates = []
    rolls: list[Roll] = []
    for patient in _validated_patients(troopers):
        state = patient.state
        recovery = None
        if state.is_fit:
            returns = True
        elif state is MedicalState.DEAD or reading is WoundedAtEnd.COUNT_AS_LOSSES:
            returns = False
        elif state is MedicalState.STABILISED:
            returns = True
        elif reading is WoundedAtEnd.STABILISED_RETURN:
            returns = False
        else:
            recovery = recovery_roll(dice=dice, trooper=patient.trooper)
            rolls.extend(recovery.rolls)
            returns = recovery.result is not RecoveryResult.DIED_OF_WOUNDS
        fates.append(EndOfBattleFate(patient.trooper, state, returns, recovery))
    return WoundedAtEndOfBattle(fates=tuple(fates), rolls=tuple(rolls))
