"""Fast and Dirty campaign structures: random, linear and tree campaigns (FaD p.64-65).

A campaign is a method that decides which battle is fought next plus the post-battle steps
(:mod:`rules.fad.replacements`, :mod:`rules.fad.points`). This module holds the first part: the
three structures of BUILDING A CAMPAIGN as data, the walk through a tree from battle outcomes, and
the checks a designer's tree must pass.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from rules.dice import DiceSource, Die, Roll
from rules.errors import RuleError


class CampaignStructureError(RuleError):
    """A campaign structure that cannot be played; ``code`` says which check failed."""


class Mission(enum.StrEnum):
    """The missions of Fast and Dirty (FaD p.61 MISSION TABLE, p.62-63 MISSION DETAILS).

    Escalating Engagement is not on the Mission Table: it is played when both sides are assigned
    the same mission (p.61).
    """

    ASSAULT = "assault"
    EXPAND = "expand"
    HOLD = "hold"
    INFILTRATE = "infiltrate"
    INTERFERE = "interfere"
    PATROL = "patrol"
    STRIKE = "strike"
    SWEEP = "sweep"
    ESCALATING_ENGAGEMENT = "escalating_engagement"


TABLE_MISSIONS: frozenset[Mission] = frozenset(Mission) - {Mission.ESCALATING_ENGAGEMENT}


def standard_missions(*, campaign_standard_missions: str = "table_eight") -> frozenset[Mission]:
    """The "FAD standard missions" a book-style tree uses every one of (FaD p.65 TREE CAMPAIGN).

    Option ``campaign_standard_missions``: ``"table_eight"`` (default, the eight missions of the
    Mission Table, p.61) or ``"with_escalating_engagement"`` (Escalating Engagement counts too).
    The book does not say which it means.
    """
    if campaign_standard_missions == "table_eight":
        return TABLE_MISSIONS
    if campaign_standard_missions == "with_escalating_engagement":
        return frozenset(Mission)
    raise RuleError(
        "tree.refused",
        "campaign_standard_missions is 'table_eight' or 'with_escalating_engagement', "
        f"not {campaign_standard_missions!r}.",
    )


class Side(enum.StrEnum):
    """The two roles of a tree campaign, fixed for the whole campaign (FaD p.65)."""

    ATTACKER = "attacker"
    DEFENDER = "defender"


@dataclass(frozen=True, slots=True)
class PlannedBattle:
    """One engagement of a linear campaign; a mission left ``None`` is rolled when it comes up."""

    name: str
    attacker_mission: Mission | None = None
    defender_mission: Mission | None = None


@dataclass(frozen=True, slots=True)
class RandomCampaign:
    """A set number of battles, each mission generated when it comes up (FaD p.64 Random)."""

    battles_planned: int

    def __post_init__(self) -> None:
        if isinstance(self.battles_planned, bool) or not isinstance(self.battles_planned, int):
            raise CampaignStructureError(
                "campaign.battles_planned",
                f"The number of battles must be a whole number, not {self.battles_planned!r}.",
            )
        if self.battles_planned < 1:
            raise CampaignStructureError(
                "campaign.battles_planned",
                f"A campaign has at least one battle; {self.battles_planned} were planned.",
            )

    def is_over(self, *, battles_fought: int) -> bool:
        """Whether all agreed battles have been fought."""
        _check_battles_fought(battles_fought)
        return battles_fought >= self.battles_planned


@dataclass(frozen=True, slots=True)
class LinearCampaign:
    """Every engagement fixed in advance and fought in order (FaD p.64 Linear)."""

    battles: tuple[PlannedBattle, ...]

    def __post_init__(self) -> None:
        if not self.battles:
            raise CampaignStructureError(
                "campaign.no_battles", "A linear campaign needs at least one battle."
            )

    def next_battle(self, *, battles_fought: int) -> PlannedBattle | None:
        """The battle to fight after ``battles_fought`` battles, or ``None`` when it is over."""
        _check_battles_fought(battles_fought)
        if battles_fought >= len(self.battles):
            return None
        return self.battles[battles_fought]


def _check_battles_fought(battles_fought: int) -> None:
    if (
        isinstance(battles_fought, bool)
        or not isinstance(battles_fought, int)
        or battles_fought < 0
    ):
        raise RuleError(
            "tree.refused", f"Battles fought is a whole number from 0 up, not {battles_fought!r}."
        )


@dataclass(frozen=True, slots=True)
class TreeBattle:
    """One box of a campaign tree (FaD p.65 TREE CAMPAIGN).

    ``key`` identifies the box; ``name`` is the battle's name printed in the black area, kept
    apart from the missions (the book has a battle called "Hold" and a mission called hold). An exit
    of ``None`` leads to the final box, where the campaign victor is decided.
    """

    key: str
    name: str
    attacker_mission: Mission
    defender_mission: Mission
    on_attacker_win: str | None
    on_defender_win: str | None

    def next_key(self, winner: Side) -> str | None:
        return self.on_attacker_win if winner is Side.ATTACKER else self.on_defender_win


@dataclass(frozen=True, slots=True)
class CampaignTree:
    """A tree campaign: its battles and the one it opens with."""

    root: str
    battles: tuple[TreeBattle, ...]

    def battle(self, key: str) -> TreeBattle:
        for battle in self.battles:
            if battle.key == key:
                return battle
        raise CampaignStructureError(
            "campaign_tree.unknown_battle", f"The campaign tree has no battle {key!r}."
        )


# The text of FaD p.65 describes only the first box of the book's example tree; the diagram with
# the other boxes did not survive in the source text. This opening is exactly what the text says;
# a campaign designer completes the tree with the boxes "breakthrough" and "hold".
BOOK_TREE_OPENING = TreeBattle(
    key="attack",
    name="Attack",
    attacker_mission=Mission.ASSAULT,
    defender_mission=Mission.HOLD,
    on_attacker_win="breakthrough",
    on_defender_win="hold",
)
BOOK_TREE_MIN_BATTLES = 3
BOOK_TREE_MAX_BATTLES = 5


@dataclass(frozen=True, slots=True)
class TreeReport:
    """What a valid tree looks like from its root: path lengths and the book's advice it misses.

    ``paths`` counts the distinct sequences of battles from the root to the final box (two exits
    to the same box are one sequence). ``advice`` lists departures from the book's example (3-5
    battles on any path, every standard mission used, no side repeating a mission on a path).
    They are advice, not errors: the book lets players build any tree.
    """

    shortest_path: int
    longest_path: int
    paths: int
    advice: tuple[str, ...]


def validate_tree(
    *, tree: CampaignTree, campaign_standard_missions: str = "table_eight"
) -> TreeReport:
    """Check a campaign tree can be played from its root to the final box (FaD p.65).

    Refused (``CampaignStructureError``): no battles, two boxes with one key, a root or exit that
    names no box, a box the root never leads to, a loop (some path would never reach the final
    box). Reported as advice: the book example's 3-5 battles per path, every standard mission used
    (option ``campaign_standard_missions``), and no side playing a mission twice on one path.
    """
    if not tree.battles:
        raise CampaignStructureError("campaign_tree.empty", "A campaign tree needs battles.")
    by_key: dict[str, TreeBattle] = {}
    for battle in tree.battles:
        if battle.key in by_key:
            raise CampaignStructureError(
                "campaign_tree.duplicate",
                f"Two battles share the key {battle.key!r}; each box needs its own.",
            )
        by_key[battle.key] = battle
    if tree.root not in by_key:
        raise CampaignStructureError(
            "campaign_tree.dangling", f"The tree starts at {tree.root!r}, which is not a battle."
        )
    for battle in tree.battles:
        for side in Side:
            target = battle.next_key(side)
            if target is not None and target not in by_key:
                raise CampaignStructureError(
                    "campaign_tree.dangling",
                    f"If the {side} wins {battle.name!r} the campaign goes to {target!r}, "
                    "which is not a battle in the tree.",
                )
    paths = _paths_from(tree.root, by_key)
    reached = {key for path in paths for key in path}
    unreachable = sorted(set(by_key) - reached)
    if unreachable:
        raise CampaignStructureError(
            "campaign_tree.unreachable",
            f"No path from {tree.root!r} leads to: {', '.join(unreachable)}.",
        )
    return TreeReport(
        shortest_path=min(len(path) for path in paths),
        longest_path=max(len(path) for path in paths),
        paths=len(paths),
        advice=_book_advice(
            paths, by_key, standard_missions(campaign_standard_missions=campaign_standard_missions)
        ),
    )


def _paths_from(root: str, by_key: Mapping[str, TreeBattle]) -> list[tuple[str, ...]]:
    """Every path from ``root`` to the final box; a loop is refused."""
    paths: list[tuple[str, ...]] = []
    stack: list[tuple[str, ...]] = [(root,)]
    while stack:
        path = stack.pop()
        battle = by_key[path[-1]]
        exits = {battle.on_attacker_win, battle.on_defender_win}
        for target in sorted(exits, key=lambda key: "" if key is None else key):
            if target is None:
                paths.append(path)
            elif target in path:
                raise CampaignStructureError(
                    "campaign_tree.loop",
                    f"The path {' -> '.join(path)} -> {target} comes back to {target!r}, so the "
                    "campaign could never end.",
                )
            else:
                stack.append((*path, target))
    return paths


def _book_advice(
    paths: list[tuple[str, ...]],
    by_key: Mapping[str, TreeBattle],
    standard: frozenset[Mission],
) -> tuple[str, ...]:
    advice: list[str] = []
    lengths = [len(path) for path in paths]
    if min(lengths) < BOOK_TREE_MIN_BATTLES or max(lengths) > BOOK_TREE_MAX_BATTLES:
        advice.append(
            f"Paths run {min(lengths)} to {max(lengths)} battles; the book's tree runs "
            f"{BOOK_TREE_MIN_BATTLES} to {BOOK_TREE_MAX_BATTLES}."
        )
    used = {b.attacker_mission for b in by_key.values()} | {
        b.defender_mission for b in by_key.values()
    }
    missing = sorted(standard - used)
    if missing:
        advice.append(f"Standard missions never played: {', '.join(missing)}.")
    repeats: set[str] = set()
    for path in paths:
        for side in Side:
            missions = [
                by_key[key].attacker_mission
                if side is Side.ATTACKER
                else by_key[key].defender_mission
                for key in path
            ]
            for mission in missions:
                if missions.count(mission) > 1:
                    repeats.add(f"the {side} can play {mission} twice on {' -> '.join(path)}")
    advice.extend(f"Repeated mission: {repeat}." for repeat in sorted(repeats))
    return tuple(advice)


def next_tree_battle(*, tree: CampaignTree, current: str, winner: Side | str) -> TreeBattle | None:
    """The battle that follows ``current`` when ``winner`` wins it, or ``None`` at the end.

    FaD p.65: the line from the grey (attacker) area is followed if the attacker wins, the line
    from the white (defender) area if the defender wins; the last line leads to the final box.
    """
    next_key = tree.battle(current).next_key(Side(winner))
    return None if next_key is None else tree.battle(next_key)


def battle_winner(
    *,
    attacker_succeeded: bool,
    defender_succeeded: bool,
    declared: Side | None = None,
    campaign_battle_winner: str = "umpire_declares",
) -> Side:
    """Which side won a battle of a tree campaign (FaD p.65; the book does not define it).

    Each side plays its own mission, so both or neither may succeed. A winner the umpire declares
    always stands. Otherwise, the one side that achieved its mission wins. When both or neither
    did, option ``campaign_battle_winner`` decides: ``"umpire_declares"`` (default: the umpire
    must declare a winner) or ``"defender_on_tie"`` (the defender wins).
    """
    if campaign_battle_winner not in ("umpire_declares", "defender_on_tie"):
        raise RuleError(
            "tree.refused",
            "campaign_battle_winner is 'umpire_declares' or 'defender_on_tie', "
            f"not {campaign_battle_winner!r}.",
        )
    if declared is not None:
        return Side(declared)
    if attacker_succeeded != defender_succeeded:
        return Side.ATTACKER if attacker_succeeded else Side.DEFENDER
    if campaign_battle_winner == "defender_on_tie":
        return Side.DEFENDER
    raise RuleError(
        "tree.refused",
        "Both sides or neither achieved their mission: the umpire must declare the winner.",
    )


def campaign_victor(*, attacker_wins: int, defender_wins: int) -> Side | None:
    """Who wins the campaign: the side with more battle wins (FaD p.65); ``None`` is a draw.

    The book does not say what happens when the wins are equal; this reads it as a draw.
    """
    for wins in (attacker_wins, defender_wins):
        if isinstance(wins, bool) or not isinstance(wins, int) or wins < 0:
            raise RuleError(
                "tree.refused", f"Battle wins are a whole number from 0 up, not {wins!r}."
            )
    if attacker_wins == defender_wins:
        return None
    return Side.ATTACKER if attacker_wins > defender_wins else Side.DEFENDER


@dataclass(frozen=True, slots=True)
class RoleChoice:
    """Which player chooses to be attacker or defender, and the dice that decided it."""

    chooser: int
    rolls: tuple[Roll, ...]


def roll_for_role_choice(*, dice: DiceSource) -> RoleChoice:
    """Which player chooses their role in a tree campaign when they cannot agree (FaD p.65).

    Each player rolls a d6, player 1 first; the higher result chooses attacker or defender. The
    book does not say what a tie does; both roll again until one is higher. ``chooser`` is 1 or 2.
    """
    rolls: list[Roll] = []
    while True:
        first = dice.roll(Die.D6, "player 1 rolls for choice of campaign role")
        second = dice.roll(Die.D6, "player 2 rolls for choice of campaign role")
        rolls.extend((first, second))
        if first.result != second.result:
            return RoleChoice(chooser=1 if first.result > second.result else 2, rolls=tuple(rolls))
