"""Infantry close assault (SG2 P.41-43): one action per round of close combat.

The rules are :mod:`rules.sg2.close_assault` and, for the downed figures when the assault is
over, :func:`rules.sg2.casualties.close_combat_casualties`. The book resolves a whole assault
within one game turn (P.42), but the players choose between its rounds: the defender places the
spare attackers afresh for the figures still standing, and after a partial fall-back of a
combined assault the attacker decides whether to go on. So each ``close_assault`` action is one
round: the first also rolls the attackers' reaction tests to charge and the defender's test to
stand; every round ends with the confidence tests of P.42, and between rounds a side may fall
back by choice instead (``breaks_off``). The round is recorded as
``battles.CloseAssaultFought``; while the assault goes on, the units in it show it on their
participant rows (``close_assault``). When it is over the fate of every downed figure of both
sides is rolled and recorded as a ``battles.CasualtiesResolved`` per unit, in mode
``close_combat``, which the rosters fold as they fold every casualty (captures included).

The action is for attackers whose combat move reached the defenders: the combat move and final
defensive fire (P.43) are the umpire's to record before it (``direct_fire``, ``reaction_test``).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field

from battles.actions import BattleAction, BattleContext, Params, battle_action
from battles.casualties.events import CasualtiesResolved, TrooperCasualty
from battles.casualties.state import ROSTER_STATUS, battle_events, figure_of, leaders_down
from battles.models import Participant
from battles.morale.confidence import unit_morale
from battles.projections import dice_text, log, participant_key, trooper_name, unit_name
from campaigns.events import DieRoll, dice_json
from eventlog.catalogue import EventPayload, event_type
from eventlog.errors import CommandError, RuleViolation, StateConflict
from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Trooper
from rosters.vocabulary import TrooperStatus
from rules.dice import DiceSource, Roll, rolling_for
from rules.errors import RuleError
from rules.sg2 import close_assault as rules
from rules.sg2.casualties import FigureState, close_combat_casualties
from rules.sg2.close_assault import CloseCombatWeapon, Result, Side
from rules.sg2.scales import Confidence
from rules.sg2.suppression import UnitAction, may_act

CLOSE_ASSAULT_EVENT = "battles.CloseAssaultFought"
MAX_PARTNERS = 3
MAX_FIGURES = 60


class FigureWeapon(Params):
    trooper_id: uuid.UUID
    weapon: CloseCombatWeapon = Field(
        description="Its close-combat weapon (P.41): none (ranged weapons only), firearm "
        "(pistol, machine pistol), edged, shotgun or flame."
    )


class SparePlacement(Params):
    trooper_id: uuid.UUID = Field(description="A spare figure of the larger side.")
    against: uuid.UUID = Field(description="The figure of the smaller side it fights.")


class CloseAssaultParams(Params):
    unit_id: uuid.UUID = Field(description="The attacking unit.")
    joined_by: list[uuid.UUID] = Field(
        default_factory=list,
        max_length=MAX_PARTNERS,
        description="Other units in a combined assault (P.43), in the order they test.",
    )
    target_id: uuid.UUID = Field(description="The defending unit.")
    terror: bool = Field(default=False, description="The attackers have a terror effect (P.43).")
    defenders_in_cover: bool = Field(
        default=False,
        description="Defenders in cover, in position or in field defences: +1 die in the first "
        "round (P.41).",
    )
    in_position: bool = Field(
        default=False, description="The attackers charge from In Position (SG2-C 2.4)."
    )
    defender_withdraws: bool = Field(
        default=False, description="The defender pulls back rather than receive the charge."
    )
    weapons: list[FigureWeapon] = Field(
        default_factory=list,
        max_length=MAX_FIGURES,
        description="Close-combat weapons of the figures that have one; kept for later rounds.",
    )
    spares: list[SparePlacement] = Field(
        default_factory=list,
        max_length=MAX_FIGURES,
        description="Where the smaller side's player places the larger side's spare figures "
        "this round (P.41); the others in turn.",
    )
    continue_after_partial: bool = Field(
        default=True,
        description="Go on when part of a combined assault falls back (P.43).",
    )
    breaks_off: Literal["attacker", "defender"] | None = Field(
        default=None,
        description="Between rounds, the side that falls back by choice instead of fighting "
        "another round (P.42); the other side has won.",
    )


class AssaultTest(EventPayload):
    """One test of the assault: a charge, the defender's stand, or an end-of-round test."""

    unit_id: uuid.UUID
    side: Literal["attacker", "defender"]
    kind: Literal["charge", "stand", "end_of_round"]
    threat_level: int | None
    target: int | None
    passed: bool
    confidence_before: str
    confidence_after: str
    dice: list[DieRoll] = Field(default_factory=list)


class CloseCombatPair(EventPayload):
    """One opposed roll of the round (P.41)."""

    attacker_id: uuid.UUID
    defender_id: uuid.UUID
    attacker_die: int
    defender_die: int
    attacker_score: int
    defender_score: int
    down: uuid.UUID | None


@event_type(CLOSE_ASSAULT_EVENT, stream="battle")
class CloseAssaultFought(EventPayload):
    """A round of a close assault (SG2 P.41-43): the tests, the pairs and their rolls, who went
    down, and whether the assault goes on. The first round also records the charge and the
    defender's stand; an assault the defender does not stand for has no round."""

    battle_id: uuid.UUID
    turn: int = Field(ge=0)
    assault: int = Field(ge=1, description="The assault's number in the battle.")
    round: int = Field(ge=0, description="0: no round was fought.")
    unit_ids: list[uuid.UUID]
    target_id: uuid.UUID
    terror: bool
    defenders_in_cover: bool
    stand_threat_level: int | None = None
    weapons: dict[str, str] = Field(default_factory=dict)
    tests: list[AssaultTest] = Field(default_factory=list)
    pairs: list[CloseCombatPair] = Field(default_factory=list)
    attackers_down: list[uuid.UUID] = Field(default_factory=list)
    defenders_down: list[uuid.UUID] = Field(default_factory=list)
    fell_back: list[uuid.UUID] = Field(default_factory=list)
    result: Literal[
        "charge_failed", "defender_withdrew", "another_round", "attacker_won", "defender_won"
    ]
    follow_through_threat_level: int | None = Field(
        default=None, description="The winners' reaction test to follow through (P.43)."
    )
    broke_off: Literal["attacker", "defender"] | None = Field(
        default=None, description="The side that fell back by choice between rounds (P.42)."
    )
    dice: list[DieRoll] = Field(default_factory=list)


class _Assault:
    """An assault going on: its earlier rounds, read from the battle's events."""

    def __init__(self, events: Sequence[StoredEvent]) -> None:
        self.events = [e.payload for e in events]
        first = self.events[0]
        self.number: int = first["assault"]
        self.attackers = [uuid.UUID(u) for u in first["unit_ids"]]
        self.fell_back = {uuid.UUID(u) for p in self.events for u in p["fell_back"]}
        self.remaining = [u for u in self.attackers if u not in self.fell_back]
        self.target = uuid.UUID(first["target_id"])
        self.down = {d for p in self.events for d in p["attackers_down"] + p["defenders_down"]}
        self.attackers_down = [d for p in self.events for d in p["attackers_down"]]
        self.defenders_down = [d for p in self.events for d in p["defenders_down"]]
        self.round: int = self.events[-1]["round"]
        self.weapons: dict[str, str] = self.events[-1]["weapons"]
        self.partner_fell_back = bool(self.fell_back) or any(
            not t["passed"] for t in first["tests"] if t["kind"] == "charge"
        )


def _assaults(ctx: BattleContext) -> dict[int, list[StoredEvent]]:
    found: dict[int, list[StoredEvent]] = {}
    for event in battle_events(ctx, CLOSE_ASSAULT_EVENT):
        found.setdefault(event.payload["assault"], []).append(event)
    return found


def _open_assaults(ctx: BattleContext) -> list[_Assault]:
    return [
        _Assault(events)
        for events in _assaults(ctx).values()
        if events[-1].payload["result"] == "another_round"
    ]


def _confidence(participant: Participant) -> Confidence:
    return Confidence[participant.confidence.upper()]


@battle_action
class CloseAssault(BattleAction):
    """One round of an infantry close assault (SG2 P.41-43); the first round starts it.

    Dice, in order: first round only, each attacking unit's reaction test to charge (its quality
    die), then the defender's confidence test to stand (none for a BROKEN defender or one that
    withdraws); the round's opposed rolls, fight by fight (each lone figure's die, then each of
    his opponents'); the end-of-round confidence tests, the side with the most casualties first;
    when the assault is over, a D6 for every downed figure, attackers first, each followed at once
    by the P.40 D6 if he is a wounded power-armoured figure.
    """

    action = "close_assault"
    Params = CloseAssaultParams

    def check_action(self, ctx: BattleContext, params: CloseAssaultParams) -> None:
        self._plan(ctx, params)

    def _plan(self, ctx: BattleContext, params: CloseAssaultParams) -> _Assault | None:
        """The assault this round belongs to (None: a new one), after every refusal."""
        attackers = [params.unit_id, *params.joined_by]
        if len(set(attackers)) != len(attackers):
            raise CommandError("action.invalid", "A unit is named twice.", field="joined_by")
        target = ctx.participant(params.target_id, field="target_id")
        for index, unit_id in enumerate(attackers):
            field = "unit_id" if index == 0 else f"joined_by.{index - 1}"
            attacker = ctx.participant(unit_id, field=field)
            if unit_id == params.target_id:
                raise CommandError("action.invalid", "A unit cannot assault itself.", field=field)
            if attacker.side == target.side:
                raise CommandError(
                    "action.invalid",
                    f"{ctx.unit(unit_id).name} is on the defender's side.",
                    field=field,
                )
        ongoing = next((a for a in _open_assaults(ctx) if a.target == params.target_id), None)
        if ongoing is not None:
            if attackers != ongoing.remaining:
                names = ", ".join(ctx.unit(u).name for u in ongoing.remaining)
                raise StateConflict(
                    "close_assault.other_attackers",
                    f"{ctx.unit(params.target_id).name} is in a close assault with {names}: "
                    "the next round is theirs (P.42).",
                    field="unit_id",
                )
            self._fighters(ctx, params, ongoing)
            return ongoing
        for assault in _open_assaults(ctx):
            engaged = {assault.target, *assault.remaining} & {*attackers, params.target_id}
            if engaged:
                raise StateConflict(
                    "close_assault.engaged",
                    f"{ctx.unit(engaged.pop()).name} is already in a close assault: it ends "
                    "within the turn (P.42).",
                    field="unit_id",
                )
        for index, unit_id in enumerate(attackers):
            field = "unit_id" if index == 0 else f"joined_by.{index - 1}"
            attacker = ctx.participant(unit_id, field=field)
            unit = ctx.unit(unit_id)
            if not may_act(UnitAction.CLOSE_ASSAULT, markers=attacker.suppression):
                raise RuleViolation(
                    "suppression.suppressed",
                    f"{unit.name} is suppressed: it may only defend itself in close combat (P.18).",
                    field=field,
                )
            try:
                rules.assault_threat_level(_confidence(attacker))
            except RuleError as error:
                raise RuleViolation(
                    error.code, f"{unit.name}: {error.message}", field=field
                ) from None
            if not self._standing(ctx, unit_id, set()):
                raise StateConflict(
                    "close_assault.no_figures", f"{unit.name} has no fit figure.", field=field
                )
        if not self._standing(ctx, params.target_id, set()):
            raise StateConflict(
                "close_assault.no_figures",
                f"{ctx.unit(params.target_id).name} has no fit figure.",
                field="target_id",
            )
        if params.breaks_off is not None:
            raise CommandError(
                "action.invalid",
                "Only an assault that goes on can be broken off between rounds; a defender "
                "that will not receive the charge withdraws (defender_withdraws).",
                field="breaks_off",
            )
        self._weapons(ctx, params, attackers, None)
        self._pairs(ctx, params, attackers, set())
        return None

    @staticmethod
    def _standing(ctx: BattleContext, unit_id: uuid.UUID, down: set[str]) -> list[Trooper]:
        return [
            t
            for t in ctx.troopers(unit_id)
            if t.status == TrooperStatus.FIT and str(t.id) not in down
        ]

    def _weapons(
        self,
        ctx: BattleContext,
        params: CloseAssaultParams,
        attackers: list[uuid.UUID],
        ongoing: _Assault | None,
    ) -> dict[str, str]:
        units = {*attackers, params.target_id}
        weapons = dict(ongoing.weapons) if ongoing else {}
        for index, given in enumerate(params.weapons):
            trooper = Trooper.objects.filter(pk=given.trooper_id).first()
            if trooper is None or trooper.unit_id not in units:
                raise CommandError(
                    "close_assault.not_in_assault",
                    "That trooper is in none of the units of the assault.",
                    field=f"weapons.{index}.trooper_id",
                )
            weapons[str(given.trooper_id)] = given.weapon.value
        return weapons

    def _pairs(
        self,
        ctx: BattleContext,
        params: CloseAssaultParams,
        attackers: list[uuid.UUID],
        down: set[str],
    ) -> tuple[list[Trooper], list[Trooper], tuple[tuple[str, str], ...]]:
        attacking = [t for u in attackers for t in self._standing(ctx, u, down)]
        defending = self._standing(ctx, params.target_id, down)
        try:
            pairs = rules.pair_off(
                [str(t.id) for t in attacking],
                [str(t.id) for t in defending],
                {str(s.trooper_id): str(s.against) for s in params.spares},
            )
        except RuleError as error:
            raise CommandError("close_assault.pairing", error.message, field="spares") from None
        return attacking, defending, pairs

    def _fighters(self, ctx: BattleContext, params: CloseAssaultParams, ongoing: _Assault) -> None:
        self._weapons(ctx, params, ongoing.remaining, ongoing)
        self._pairs(ctx, params, ongoing.remaining, ongoing.down)

    # --- resolving ---------------------------------------------------------------------------

    def resolve(
        self, ctx: BattleContext, params: CloseAssaultParams, dice: DiceSource
    ) -> list[Any]:
        ongoing = self._plan(ctx, params)
        attackers = [params.unit_id, *params.joined_by]
        weapons = self._weapons(ctx, params, attackers, ongoing)
        rolls: list[Roll] = []
        tests: list[AssaultTest] = []
        base: dict[str, Any] = {
            "battle_id": ctx.battle.id,
            "turn": ctx.battle.turn,
            "target_id": params.target_id,
            "weapons": weapons,
        }
        if ongoing is None:
            number = max(_assaults(ctx), default=0) + 1
            base |= {
                "assault": number,
                "unit_ids": attackers,
                "terror": params.terror,
                "defenders_in_cover": params.defenders_in_cover,
            }
            charging = self._charge(ctx, params, attackers, dice, tests, rolls)
            if not charging:
                return [self._event(base, 0, tests, rolls, result="charge_failed")]
            stand_level = self._stand(ctx, params, charging, dice, tests, rolls)
            base["stand_threat_level"] = stand_level
            if not tests[-1].passed:
                return [
                    self._event(
                        base,
                        0,
                        tests,
                        rolls,
                        result="defender_withdrew",
                        fell_back=[u for u in attackers if u not in charging],
                        follow_through=rules.follow_through_threat_level(defenders_destroyed=False),
                    )
                ]
            fell_back = [u for u in attackers if u not in charging]
            down: set[str] = set()
            remaining, round_number = charging, 1
            partner_fell_back = bool(fell_back)
            earlier_down: tuple[list[str], list[str]] = ([], [])
            cover = params.defenders_in_cover
        else:
            first = ongoing.events[0]
            base |= {
                "assault": ongoing.number,
                "unit_ids": ongoing.remaining,
                "terror": first["terror"],
                "defenders_in_cover": first["defenders_in_cover"],
            }
            fell_back = []
            down = ongoing.down
            remaining, round_number = ongoing.remaining, ongoing.round + 1
            partner_fell_back = ongoing.partner_fell_back
            earlier_down = (ongoing.attackers_down, ongoing.defenders_down)
            cover = first["defenders_in_cover"]
            if params.breaks_off is not None:
                return self._broken_off(ctx, params, base, ongoing, dice)
        attacking, defending, pairs = self._pairs(ctx, params, remaining, down)
        fighters = {
            str(t.id): rules.Fighter(
                id=str(t.id),
                quality=unit_morale(ctx, ctx.participant(t.unit_id))[1],
                weapon=CloseCombatWeapon(weapons.get(str(t.id), "none")),
                power_armour=figure_of(t).power_armour,
                name=t.name,
            )
            for t in [*attacking, *defending]
        }
        fought = rules.fight_round(
            dice=dice,
            attackers=[fighters[str(t.id)] for t in attacking],
            defenders=[fighters[str(t.id)] for t in defending],
            pairs=pairs,
            first_round=round_number == 1,
            defenders_in_cover=cover,
        )
        rolls += fought.rolls
        attackers_down = earlier_down[0] + list(fought.attackers_down)
        defenders_down = earlier_down[1] + list(fought.defenders_down)
        all_down = set(attackers_down) | set(defenders_down)
        units = []
        for unit_id in remaining:
            participant = ctx.participant(unit_id)
            _, quality, leadership = unit_morale(ctx, participant)
            units.append(
                rules.AssaultUnit(
                    str(unit_id),
                    quality,
                    leadership,
                    self._latest_confidence(participant, tests),
                    len(self._standing(ctx, unit_id, all_down)),
                )
            )
        target = ctx.participant(params.target_id, field="target_id")
        _, quality, leadership = unit_morale(ctx, target)
        defender = rules.AssaultUnit(
            str(params.target_id),
            quality,
            leadership,
            self._latest_confidence(target, tests),
            len(self._standing(ctx, params.target_id, all_down)),
        )
        ending = rules.end_of_round(
            dice=dice,
            attackers=units,
            defender=defender,
            attacker_casualties=len(attackers_down),
            defender_casualties=len(defenders_down),
            partner_fell_back=partner_fell_back,
            continue_after_partial=params.continue_after_partial,
        )
        rolls += ending.rolls
        for test in ending.tests:
            tests.append(
                AssaultTest(
                    unit_id=uuid.UUID(test.unit_id),
                    side=test.side.value,
                    kind="end_of_round",
                    threat_level=test.threat_level,
                    target=test.test.target,
                    passed=test.test.passed,
                    confidence_before=test.test.confidence_before.name.lower(),
                    confidence_after=test.test.confidence_after.name.lower(),
                    dice=dice_json(test.test.rolls),
                )
            )
        fell_back += [uuid.UUID(u) for u in ending.fell_back if uuid.UUID(u) != params.target_id]
        if ending.result is Result.DEFENDER_WON and ending.tests:
            # A broken-off combined attack falls back whole (P.43).
            fell_back += [u for u in remaining if u not in fell_back]
        pairs_json = [
            _pair_json(fight, comparison)
            for fight in fought.fights
            for comparison in fight.comparisons
        ]
        result = ending.result.value
        follow = None
        if ending.result is Result.ATTACKER_WON:
            follow = rules.follow_through_threat_level(defenders_destroyed=defender.standing == 0)
        event = self._event(
            base,
            round_number,
            tests,
            rolls,
            result=result,
            fell_back=fell_back,
            pairs=pairs_json,
            attackers_down=list(fought.attackers_down),
            defenders_down=list(fought.defenders_down),
            follow_through=follow,
        )
        if ending.result is Result.ANOTHER_ROUND:
            return [event]
        casualties = self._casualties(
            ctx, dice, attackers_down, defenders_down, ending.result is Result.ATTACKER_WON
        )
        return [event, *casualties]

    def _broken_off(
        self,
        ctx: BattleContext,
        params: CloseAssaultParams,
        base: dict[str, Any],
        ongoing: _Assault,
        dice: DiceSource,
    ) -> list[Any]:
        """A side falls back by choice between rounds: the other has won (P.42)."""
        attacker_won = params.breaks_off == "defender"
        event = self._event(
            base,
            0,
            [],
            [],
            result="attacker_won" if attacker_won else "defender_won",
            fell_back=[] if attacker_won else ongoing.remaining,
            follow_through=(
                rules.follow_through_threat_level(defenders_destroyed=False)
                if attacker_won
                else None
            ),
        )
        event = event.model_copy(update={"broke_off": params.breaks_off})
        casualties = self._casualties(
            ctx, dice, ongoing.attackers_down, ongoing.defenders_down, attacker_won
        )
        return [event, *casualties]

    @staticmethod
    def _latest_confidence(participant: Participant, tests: list[AssaultTest]) -> Confidence:
        mine = [t for t in tests if t.unit_id == participant.unit_id]
        return Confidence[(mine[-1].confidence_after if mine else participant.confidence).upper()]

    def _charge(
        self,
        ctx: BattleContext,
        params: CloseAssaultParams,
        attackers: list[uuid.UUID],
        dice: DiceSource,
        tests: list[AssaultTest],
        rolls: list[Roll],
    ) -> list[uuid.UUID]:
        charging = []
        for unit_id in attackers:
            participant = ctx.participant(unit_id)
            _, quality, leadership = unit_morale(ctx, participant)
            confidence = _confidence(participant)
            level = rules.assault_threat_level(
                confidence,
                in_position=params.in_position,
                assault_from_in_position=ctx.options.assault_from_in_position,
            )
            with rolling_for(dice, str(unit_id)):
                outcome = rules.assault_reaction_test(
                    dice=dice, quality=quality, leadership=leadership, threat_level=level
                )
            rolls += outcome.rolls
            tests.append(
                AssaultTest(
                    unit_id=unit_id,
                    side="attacker",
                    kind="charge",
                    threat_level=level,
                    target=outcome.target,
                    passed=outcome.passed,
                    confidence_before=confidence.name.lower(),
                    confidence_after=confidence.name.lower(),
                    dice=dice_json(outcome.rolls),
                )
            )
            if outcome.passed:
                charging.append(unit_id)
        return charging

    def _stand(
        self,
        ctx: BattleContext,
        params: CloseAssaultParams,
        charging: list[uuid.UUID],
        dice: DiceSource,
        tests: list[AssaultTest],
        rolls: list[Roll],
    ) -> int:
        strength = rules.odds_strength(
            [figure_of(t).power_armour for u in charging for t in self._standing(ctx, u, set())]
        )
        defenders = rules.odds_strength(
            [figure_of(t).power_armour for t in self._standing(ctx, params.target_id, set())]
        )
        level = rules.stand_threat_level(strength, defenders, terror=params.terror)
        target = ctx.participant(params.target_id, field="target_id")
        _, quality, leadership = unit_morale(ctx, target)
        with rolling_for(dice, str(params.target_id)):
            stand = rules.defender_stands(
                dice=dice,
                quality=quality,
                leadership=leadership,
                confidence=_confidence(target),
                threat_level=level,
                withdraw=params.defender_withdraws,
            )
        rolls += stand.rolls
        tests.append(
            AssaultTest(
                unit_id=params.target_id,
                side="defender",
                kind="stand",
                threat_level=stand.threat_level,
                target=stand.test.target if stand.test else None,
                passed=stand.stands,
                confidence_before=target.confidence,
                confidence_after=stand.confidence_after.name.lower(),
                dice=dice_json(stand.rolls),
            )
        )
        return level

    @staticmethod
    def _event(
        base: dict[str, Any],
        round_number: int,
        tests: list[AssaultTest],
        rolls: list[Roll],
        *,
        result: str,
        fell_back: Sequence[uuid.UUID] = (),
        pairs: Sequence[CloseCombatPair] = (),
        attackers_down: Sequence[str] = (),
        defenders_down: Sequence[str] = (),
        follow_through: int | None = None,
    ) -> CloseAssaultFought:
        return CloseAssaultFought(
            **base,
            round=round_number,
            tests=tests,
            pairs=list(pairs),
            attackers_down=[uuid.UUID(d) for d in attackers_down],
            defenders_down=[uuid.UUID(d) for d in defenders_down],
            fell_back=list(dict.fromkeys(fell_back)),
            result=result,
            follow_through_threat_level=follow_through,
            dice=dice_json(rolls),
        )

    def _casualties(
        self,
        ctx: BattleContext,
        dice: DiceSource,
        attackers_down: list[str],
        defenders_down: list[str],
        attacker_won: bool,
    ) -> list[CasualtiesResolved]:
        """The fate of every downed figure (P.42), one event per unit with a downed figure."""
        events: list[CasualtiesResolved] = []
        for down, won in ((attackers_down, attacker_won), (defenders_down, not attacker_won)):
            if not down:
                continue
            troopers = {str(t.id): t for t in Trooper.objects.filter(pk__in=down)}
            by_unit: dict[uuid.UUID, list[TrooperCasualty]] = {}
            unit_rolls: dict[uuid.UUID, list[Roll]] = {}
            for figure_id in down:
                trooper = troopers.get(figure_id)
                if trooper is None or trooper.status != TrooperStatus.FIT:
                    # Another action decided his fate between the rounds (a casualty the umpire
                    # recorded): no die is rolled for him here.
                    continue
                with rolling_for(dice, figure_id):
                    outcome = close_combat_casualties(
                        dice=dice,
                        down=[figure_of(trooper)],
                        side_won=won,
                        environment=ctx.options.environment,
                    )
                (fate,) = outcome.casualties
                unit_rolls.setdefault(trooper.unit_id, []).extend(outcome.rolls)
                by_unit.setdefault(trooper.unit_id, [])
                after = ROSTER_STATUS[fate.state]
                if after is TrooperStatus.FIT:
                    continue  # stunned, back in action with the winners
                by_unit[trooper.unit_id].append(
                    TrooperCasualty(
                        trooper_id=trooper.id,
                        unit_id=trooper.unit_id,
                        status_before=TrooperStatus.FIT,
                        status_after=after,
                        figure_after=fate.state.value,
                        wounds=int(fate.condition is FigureState.UNTREATED),
                        kills=int(fate.condition is FigureState.DEAD),
                        power_armour_roll=(
                            None if after is TrooperStatus.CAPTURED else fate.power_armour_roll
                        ),
                        dice=dice_json(outcome.rolls),
                    )
                )
            for unit_id, casualties in by_unit.items():
                events.append(
                    CasualtiesResolved(
                        battle_id=ctx.battle.id,
                        unit_id=unit_id,
                        turn=ctx.battle.turn,
                        mode="close_combat",
                        casualties=casualties,
                        leaders_down=leaders_down(ctx, casualties),
                        dice=dice_json(unit_rolls[unit_id]),
                    )
                )
        return events


def _pair_json(fight: rules.FightOutcome, c: rules.Comparison) -> CloseCombatPair:
    lone_attacks = fight.lone_side is Side.ATTACKER
    attacker = fight.lone_id if lone_attacks else c.opponent_id
    defender = c.opponent_id if lone_attacks else fight.lone_id
    return CloseCombatPair(
        attacker_id=uuid.UUID(attacker),
        defender_id=uuid.UUID(defender),
        attacker_die=(fight.lone_die if lone_attacks else c.opponent_die).value,
        defender_die=(c.opponent_die if lone_attacks else fight.lone_die).value,
        attacker_score=c.lone_score if lone_attacks else c.opponent_score,
        defender_score=c.opponent_score if lone_attacks else c.lone_score,
        down=uuid.UUID(c.down) if c.down else None,
    )


# --- the battle log and the units in the assault ------------------------------------------------


def _names(rows: Rows, ids: Sequence[str]) -> str:
    names = [trooper_name(rows, i) for i in ids]
    if len(names) < 2:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def _test_text(rows: Rows, t: dict[str, Any]) -> str:
    name = unit_name(rows, t["unit_id"])
    face = t["dice"][0]["result"] if t["dice"] else None
    if t["kind"] == "stand" and t["threat_level"] is None:
        if t["confidence_after"] == t["confidence_before"]:
            return f"{name} pulled back rather than receive the charge"
        return f"{name}, {t['confidence_before']}, dropped to routed and fled without a test (P.41)"
    verdict = (
        f"passed ({face} beats {t['target']})"
        if t["passed"]
        else f"failed ({face} does not beat {t['target']})"
    )
    what = {
        "charge": "reaction test to charge",
        "stand": "confidence test to stand",
        "end_of_round": "confidence test",
    }[t["kind"]]
    line = f"{name} {verdict} its {what} at threat level {t['threat_level']}"
    if t["confidence_after"] != t["confidence_before"]:
        line += f", dropping from {t['confidence_before']} to {t['confidence_after']}"
    return line


_RESULT_TEXT = {
    "charge_failed": "the charge did not go in: the attackers lose their first action (P.41)",
    "defender_withdrew": 'the defenders withdraw 6" or their basic move and the attackers '
    "occupy the position (P.41)",
    "another_round": "both sides hold: another round follows, with no cover bonus (P.42)",
    "attacker_won": "the attackers won the assault",
    "defender_won": 'the defenders held: the attackers fall back 6" or their basic move (P.42)',
}


@register
class CloseAssaultProjection(Projection):
    """The log lines of close assaults, the confidence they change and the units in an assault
    (rows of the battles projection)."""

    name = "battles.close_assault"
    version = 1

    @Projection.handles(CLOSE_ASSAULT_EVENT)
    def close_assault_fought(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        for test in p["tests"]:
            key = participant_key(p["battle_id"], test["unit_id"])
            if rows.get(Participant, key) is not None:
                rows.update(Participant, key, confidence=test["confidence_after"])
        going_on = p["result"] == "another_round"
        for unit_id, side in [(u, "attacker") for u in p["unit_ids"]] + [
            (p["target_id"], "defender")
        ]:
            key = participant_key(p["battle_id"], unit_id)
            row = rows.get(Participant, key)
            if row is None:
                continue
            state = None
            if going_on and unit_id not in p["fell_back"]:
                down_now = p["attackers_down"] if side == "attacker" else p["defenders_down"]
                earlier = (row.get("close_assault") or {}).get("down", [])
                state = {
                    "assault": p["assault"],
                    "side": side,
                    "round": p["round"],
                    "against": (
                        [p["target_id"]]
                        if side == "attacker"
                        else [u for u in p["unit_ids"] if u not in p["fell_back"]]
                    ),
                    "down": earlier + down_now,
                }
            rows.update(Participant, key, close_assault=state)
        attackers = " and ".join(unit_name(rows, u) for u in p["unit_ids"])
        target = unit_name(rows, p["target_id"])
        tests_before = [t for t in p["tests"] if t["kind"] != "end_of_round"]
        tests_after = [t for t in p["tests"] if t["kind"] == "end_of_round"]
        n = 0
        if tests_before:
            told = "; ".join(_test_text(rows, t) for t in tests_before)
            odds = p["stand_threat_level"]
            terror = ", doubled for terror" if p["terror"] else ""
            at = f" (odds threat level {odds}{terror})" if odds is not None else ""
            dice = [d for t in tests_before for d in t["dice"]]
            log(
                rows,
                event,
                f"Close assault {p['assault']}: {attackers} charged {target}{at}: {told}."
                + dice_text(dice),
                n=n,
                dice=dice,
            )
            n += 1
        if p["round"]:
            fights = []
            for pair in p["pairs"]:
                a = (
                    f"{trooper_name(rows, pair['attacker_id'])} "
                    f"(d{pair['attacker_die']}: {pair['attacker_score']})"
                )
                d = (
                    f"{trooper_name(rows, pair['defender_id'])} "
                    f"(d{pair['defender_die']}: {pair['defender_score']})"
                )
                if pair["down"] is None:
                    fights.append(f"{a} and {d} tied")
                elif pair["down"] == pair["defender_id"]:
                    fights.append(f"{a} downed {d}")
                else:
                    fights.append(f"{d} downed {a}")
            down = p["attackers_down"] + p["defenders_down"]
            fell = f"; down: {_names(rows, down)}" if down else "; nobody went down"
            before = sum(len(t["dice"]) for t in tests_before)
            after = sum(len(t["dice"]) for t in tests_after)
            dice = p["dice"][before : len(p["dice"]) - after]
            cover = ", defenders in cover" if p["round"] == 1 and p["defenders_in_cover"] else ""
            log(
                rows,
                event,
                f"Close assault {p['assault']} on {target}, round {p['round']}{cover}: "
                + "; ".join(fights)
                + fell
                + "."
                + dice_text(dice),
                n=n,
                dice=dice,
            )
            n += 1
        told = "; ".join(_test_text(rows, t) for t in tests_after)
        if p.get("broke_off"):
            who = attackers if p["broke_off"] == "attacker" else target
            told = f"{who} fell back by choice from close assault {p['assault']} on {target}"
        summary = f"{told}: {_RESULT_TEXT[p['result']]}" if told else _RESULT_TEXT[p["result"]]
        summary = summary[0].upper() + summary[1:]
        if p["fell_back"] and p["result"] not in ("charge_failed", "defender_won"):
            summary += f"; {' and '.join(unit_name(rows, u) for u in p['fell_back'])} fell back"
        if p["follow_through_threat_level"] is not None:
            summary += (
                f"; they may follow through after a reaction test at threat level "
                f"{p['follow_through_threat_level']} (P.43)"
            )
        if p["result"] in ("attacker_won", "defender_won") and (
            p["attackers_down"] or p["defenders_down"] or p["round"] > 1
        ):
            summary += "; the downed figures' fates follow (P.42)"
        dice = [d for t in tests_after for d in t["dice"]]
        log(rows, event, summary + "." + dice_text(dice), n=n, dice=dice)
