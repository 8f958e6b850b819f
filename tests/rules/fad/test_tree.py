from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Die, SeededDice, TableDice
from rules.fad.tree import (
    BOOK_TREE_OPENING,
    TABLE_MISSIONS,
    CampaignStructureError,
    CampaignTree,
    LinearCampaign,
    Mission,
    PlannedBattle,
    RandomCampaign,
    Side,
    TreeBattle,
    battle_winner,
    campaign_victor,
    next_tree_battle,
    roll_for_role_choice,
    standard_missions,
    validate_tree,
)

FACES = range(1, 7)


def box(
    key: str, attacker: Mission, defender: Mission, on_a: str | None, on_d: str | None
) -> TreeBattle:
    return TreeBattle(
        key=key,
        name=key.replace("_", " ").title(),
        attacker_mission=attacker,
        defender_mission=defender,
        on_attacker_win=on_a,
        on_defender_win=on_d,
    )


# A tree built on the book's opening that follows all of the book's advice (p.65).
TREE = CampaignTree(
    root="attack",
    battles=(
        BOOK_TREE_OPENING,
        box("breakthrough", Mission.SWEEP, Mission.INTERFERE, "final_push", "final_push"),
        box("hold", Mission.INFILTRATE, Mission.EXPAND, "final_push", "final_push"),
        box("final_push", Mission.STRIKE, Mission.PATROL, None, None),
    ),
)


# --- missions -----------------------------------------------------------------------------------


def test_the_mission_table_has_eight_missions_p61() -> None:
    assert {mission.value for mission in TABLE_MISSIONS} == {
        "assault",
        "expand",
        "hold",
        "infiltrate",
        "interfere",
        "patrol",
        "strike",
        "sweep",
    }


def test_escalating_engagement_counts_as_standard_only_with_the_option() -> None:
    assert Mission.ESCALATING_ENGAGEMENT not in standard_missions()
    assert Mission.ESCALATING_ENGAGEMENT in standard_missions(
        campaign_standard_missions="with_escalating_engagement"
    )
    with pytest.raises(ValueError, match="campaign_standard_missions"):
        standard_missions(campaign_standard_missions="all")


# --- random and linear campaigns, p.64 ---------------------------------------------------------


def test_a_random_campaign_is_over_after_the_agreed_number_of_battles() -> None:
    campaign = RandomCampaign(battles_planned=3)
    assert [campaign.is_over(battles_fought=n) for n in range(5)] == [
        False,
        False,
        False,
        True,
        True,
    ]


@pytest.mark.parametrize("planned", [0, -2, True, 2.0])
def test_a_random_campaign_needs_a_positive_whole_number_of_battles(planned: object) -> None:
    with pytest.raises(CampaignStructureError) as error:
        RandomCampaign(battles_planned=planned)  # type: ignore[arg-type]
    assert error.value.code == "campaign.battles_planned"


def test_battles_fought_cannot_be_negative() -> None:
    with pytest.raises(ValueError, match="Battles fought"):
        RandomCampaign(battles_planned=2).is_over(battles_fought=-1)


def test_a_linear_campaign_fights_its_battles_in_order() -> None:
    first = PlannedBattle(name="Landing", attacker_mission=Mission.ASSAULT)
    second = PlannedBattle(name="Ridge")
    campaign = LinearCampaign(battles=(first, second))
    assert campaign.next_battle(battles_fought=0) is first
    assert campaign.next_battle(battles_fought=1) is second
    assert campaign.next_battle(battles_fought=2) is None
    assert second.attacker_mission is None  # generated when it comes up


def test_a_linear_campaign_needs_a_battle() -> None:
    with pytest.raises(CampaignStructureError) as error:
        LinearCampaign(battles=())
    assert error.value.code == "campaign.no_battles"


def test_linear_next_battle_refuses_bad_battle_counts() -> None:
    with pytest.raises(ValueError, match="Battles fought"):
        LinearCampaign(battles=(PlannedBattle(name="x"),)).next_battle(battles_fought=True)


# --- the book's tree, p.65 ---------------------------------------------------------------------


def test_the_book_tree_opens_with_attack_assault_against_hold_p65() -> None:
    assert BOOK_TREE_OPENING.name == "Attack"
    assert BOOK_TREE_OPENING.attacker_mission is Mission.ASSAULT
    assert BOOK_TREE_OPENING.defender_mission is Mission.HOLD
    assert BOOK_TREE_OPENING.on_attacker_win == "breakthrough"
    assert BOOK_TREE_OPENING.on_defender_win == "hold"


def test_the_book_opening_alone_is_not_a_playable_tree() -> None:
    with pytest.raises(CampaignStructureError) as error:
        validate_tree(tree=CampaignTree(root="attack", battles=(BOOK_TREE_OPENING,)))
    assert error.value.code == "campaign_tree.dangling"


def test_attacker_win_follows_the_grey_line_and_defender_win_the_white_p65() -> None:
    assert next_tree_battle(tree=TREE, current="attack", winner=Side.ATTACKER) == TREE.battles[1]
    assert next_tree_battle(tree=TREE, current="attack", winner=Side.DEFENDER) == TREE.battles[2]
    after_breakthrough = next_tree_battle(tree=TREE, current="breakthrough", winner=Side.DEFENDER)
    assert after_breakthrough is not None
    assert after_breakthrough.key == "final_push"


def test_the_last_battle_leads_to_the_final_box() -> None:
    assert next_tree_battle(tree=TREE, current="final_push", winner=Side.ATTACKER) is None


def test_the_winner_may_be_given_by_name() -> None:
    following = next_tree_battle(tree=TREE, current="attack", winner="defender")
    assert following is not None
    assert following.key == "hold"


def test_next_battle_from_an_unknown_box_is_refused() -> None:
    with pytest.raises(CampaignStructureError) as error:
        next_tree_battle(tree=TREE, current="nowhere", winner=Side.ATTACKER)
    assert error.value.code == "campaign_tree.unknown_battle"


def test_a_tree_following_the_book_advice_gets_none() -> None:
    report = validate_tree(tree=TREE)
    assert (report.shortest_path, report.longest_path, report.paths) == (3, 3, 2)
    assert report.advice == ()


# --- tree validation ---------------------------------------------------------------------------


def _code(tree: CampaignTree) -> str:
    with pytest.raises(CampaignStructureError) as error:
        validate_tree(tree=tree)
    return error.value.code


def test_a_tree_without_battles_is_refused() -> None:
    assert _code(CampaignTree(root="attack", battles=())) == "campaign_tree.empty"


def test_two_boxes_with_one_key_are_refused() -> None:
    end = box("a", Mission.ASSAULT, Mission.HOLD, None, None)
    assert _code(CampaignTree(root="a", battles=(end, end))) == "campaign_tree.duplicate"


def test_a_root_that_is_not_a_battle_is_refused() -> None:
    end = box("a", Mission.ASSAULT, Mission.HOLD, None, None)
    assert _code(CampaignTree(root="b", battles=(end,))) == "campaign_tree.dangling"


def test_an_exit_to_a_missing_battle_is_refused() -> None:
    tree = CampaignTree(root="a", battles=(box("a", Mission.ASSAULT, Mission.HOLD, None, "ghost"),))
    assert _code(tree) == "campaign_tree.dangling"


def test_a_battle_the_root_never_leads_to_is_refused() -> None:
    tree = CampaignTree(
        root="a",
        battles=(
            box("a", Mission.ASSAULT, Mission.HOLD, None, None),
            box("b", Mission.SWEEP, Mission.EXPAND, None, None),
        ),
    )
    assert _code(tree) == "campaign_tree.unreachable"


def test_a_loop_that_never_reaches_the_final_box_is_refused() -> None:
    tree = CampaignTree(
        root="a",
        battles=(
            box("a", Mission.ASSAULT, Mission.HOLD, "b", None),
            box("b", Mission.SWEEP, Mission.EXPAND, "a", None),
        ),
    )
    assert _code(tree) == "campaign_tree.loop"


def test_a_short_tree_with_repeats_gets_the_book_advice() -> None:
    tree = CampaignTree(
        root="a",
        battles=(
            box("a", Mission.ASSAULT, Mission.HOLD, "b", None),
            box("b", Mission.ASSAULT, Mission.EXPAND, None, None),
        ),
    )
    report = validate_tree(tree=tree)
    assert (report.shortest_path, report.longest_path, report.paths) == (1, 2, 2)
    assert report.advice == (
        "Paths run 1 to 2 battles; the book's tree runs 3 to 5.",
        "Standard missions never played: infiltrate, interfere, patrol, strike, sweep.",
        "Repeated mission: the attacker can play assault twice on a -> b.",
    )


def test_a_path_longer_than_five_battles_gets_advice() -> None:
    missions = list(TABLE_MISSIONS)
    keys = [f"b{i}" for i in range(6)]
    battles = tuple(
        box(
            key,
            sorted(missions)[i],
            sorted(missions)[7 - i],
            keys[i + 1] if i < 5 else None,
            None,
        )
        for i, key in enumerate(keys)
    )
    report = validate_tree(tree=CampaignTree(root="b0", battles=battles))
    assert report.longest_path == 6
    assert report.advice[0] == "Paths run 1 to 6 battles; the book's tree runs 3 to 5."


def test_escalating_engagement_is_missed_only_when_it_counts_as_standard() -> None:
    report = validate_tree(tree=TREE, campaign_standard_missions="with_escalating_engagement")
    assert report.advice == ("Standard missions never played: escalating_engagement.",)


# --- battle and campaign winners ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("attacker", "defender", "winner"),
    [(True, False, Side.ATTACKER), (False, True, Side.DEFENDER)],
)
def test_the_one_side_that_achieved_its_mission_wins(
    attacker: bool, defender: bool, winner: Side
) -> None:
    assert battle_winner(attacker_succeeded=attacker, defender_succeeded=defender) is winner


@pytest.mark.parametrize(("attacker", "defender"), [(True, True), (False, False)])
def test_the_umpire_must_declare_when_both_or_neither_succeeded(
    attacker: bool, defender: bool
) -> None:
    with pytest.raises(ValueError, match="umpire must declare"):
        battle_winner(attacker_succeeded=attacker, defender_succeeded=defender)
    assert (
        battle_winner(
            attacker_succeeded=attacker, defender_succeeded=defender, declared=Side.ATTACKER
        )
        is Side.ATTACKER
    )


def test_defender_on_tie_gives_the_defender_a_drawn_battle() -> None:
    assert (
        battle_winner(
            attacker_succeeded=True,
            defender_succeeded=True,
            campaign_battle_winner="defender_on_tie",
        )
        is Side.DEFENDER
    )


def test_a_declared_winner_stands_over_the_mission_results() -> None:
    assert (
        battle_winner(attacker_succeeded=True, defender_succeeded=False, declared=Side.DEFENDER)
        is Side.DEFENDER
    )


def test_unknown_battle_winner_option_is_refused() -> None:
    with pytest.raises(ValueError, match="campaign_battle_winner"):
        battle_winner(
            attacker_succeeded=True, defender_succeeded=False, campaign_battle_winner="coin"
        )


@pytest.mark.parametrize(
    ("attacker", "defender", "victor"),
    [(3, 1, Side.ATTACKER), (1, 2, Side.DEFENDER), (2, 2, None), (0, 0, None)],
)
def test_the_side_with_more_wins_takes_the_campaign_p65(
    attacker: int, defender: int, victor: Side | None
) -> None:
    assert campaign_victor(attacker_wins=attacker, defender_wins=defender) is victor


@pytest.mark.parametrize("wins", [-1, True, 1.5])
def test_campaign_victor_refuses_impossible_win_counts(wins: object) -> None:
    with pytest.raises(ValueError, match="Battle wins"):
        campaign_victor(attacker_wins=wins, defender_wins=0)  # type: ignore[arg-type]


# --- choosing roles, p.65 ----------------------------------------------------------------------


def test_the_higher_roll_chooses_the_role() -> None:
    outcome = roll_for_role_choice(dice=TableDice([2, 5]))
    assert outcome.chooser == 2
    assert [roll.result for roll in outcome.rolls] == [2, 5]
    assert all(roll.die is Die.D6 for roll in outcome.rolls)
    assert roll_for_role_choice(dice=TableDice([6, 1])).chooser == 1


def test_tied_role_rolls_are_rolled_again() -> None:
    dice = TableDice([4, 4, 3, 3, 1, 2])
    outcome = roll_for_role_choice(dice=dice)
    assert outcome.chooser == 2
    assert len(outcome.rolls) == 6
    assert dice.remaining == 0


def test_role_choice_round_probabilities_by_enumeration() -> None:
    first = second = tie = 0
    for a, b in itertools.product(FACES, repeat=2):
        if a == b:
            tie += 1
            continue
        chooser = roll_for_role_choice(dice=TableDice([a, b])).chooser
        first += chooser == 1
        second += chooser == 2
    assert (Fraction(first, 36), Fraction(second, 36), Fraction(tie, 36)) == (
        Fraction(5, 12),
        Fraction(5, 12),
        Fraction(1, 6),
    )


@given(st.binary(min_size=1, max_size=8))
def test_role_choice_is_deterministic_for_a_seed(seed: bytes) -> None:
    first = roll_for_role_choice(dice=SeededDice(seed, "roles"))
    again = roll_for_role_choice(dice=SeededDice(seed, "roles"))
    assert first == again
    assert first.chooser in (1, 2)
    last_pair = first.rolls[-2:]
    assert (last_pair[0].result > last_pair[1].result) == (first.chooser == 1)
    assert all(
        a.result == b.result for a, b in zip(first.rolls[:-2:2], first.rolls[1:-2:2], strict=True)
    )
