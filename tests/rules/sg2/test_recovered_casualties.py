"""Which injured troopers are "recovered from a battle" (SG2 P.61; digest AMBIG-26)."""

from __future__ import annotations

import itertools

import pytest

from rules.sg2.experience import BattleResult
from rules.sg2.options import RecoveredCasualties
from rules.sg2.recovery import CasualtyFate, UnitAtEnd, casualty_fate

RECOVERED, LEFT, UMPIRE = CasualtyFate.RECOVERED, CasualtyFate.LEFT_WITH_ENEMY, CasualtyFate.UMPIRE
WIN, DRAW, LOSS = BattleResult.WIN, BattleResult.DRAW, BattleResult.LOSS


@pytest.mark.parametrize(
    ("unit_at_end", "abandoned", "side_result", "fate"),
    [
        # Still with his unit at the end: his side has him, won, drawn or lost.
        (UnitAtEnd.HELD, False, WIN, RECOVERED),
        (UnitAtEnd.HELD, False, DRAW, RECOVERED),
        (UnitAtEnd.HELD, False, LOSS, RECOVERED),
        # Left behind (P.20): the winner holds the field and picks up its own (P.60) ...
        (UnitAtEnd.WITHDRAWN, False, WIN, RECOVERED),
        (UnitAtEnd.ROUTED, False, WIN, RECOVERED),
        (UnitAtEnd.HELD, True, WIN, RECOVERED),
        # ... anyone else's stay with the enemy.
        (UnitAtEnd.WITHDRAWN, False, DRAW, LEFT),
        (UnitAtEnd.ROUTED, False, LOSS, LEFT),
        (UnitAtEnd.HELD, True, LOSS, LEFT),
        (UnitAtEnd.HELD, True, DRAW, LEFT),
        # A surrendered unit's men are the enemy's, whoever won (P.53).
        (UnitAtEnd.SURRENDERED, False, WIN, LEFT),
        (UnitAtEnd.SURRENDERED, False, LOSS, LEFT),
    ],
)
def test_friendly_control_reads_where_the_battle_left_him(
    unit_at_end: UnitAtEnd, abandoned: bool, side_result: BattleResult, fate: CasualtyFate
) -> None:
    assert (
        casualty_fate(
            evacuated=False,
            unit_at_end=unit_at_end,
            side_result=side_result,
            abandoned=abandoned,
        )
        is fate
    )


@pytest.mark.parametrize(
    ("option", "unit_at_end", "side_result"),
    list(itertools.product(RecoveredCasualties, UnitAtEnd, BattleResult)),
)
def test_a_casualty_flown_out_is_always_recovered_p54(
    option: RecoveredCasualties, unit_at_end: UnitAtEnd, side_result: BattleResult
) -> None:
    fate = casualty_fate(
        evacuated=True,
        unit_at_end=unit_at_end,
        side_result=side_result,
        abandoned=True,
        recovered_casualties=option,
    )
    assert fate is RECOVERED


@pytest.mark.parametrize("option", ["evacuated_only", "umpire"])
def test_other_options_leave_every_other_casualty_to_the_umpire(option: str) -> None:
    fate = casualty_fate(
        evacuated=False,
        unit_at_end=UnitAtEnd.HELD,
        side_result=WIN,
        recovered_casualties=RecoveredCasualties(option),
    )
    assert fate is UMPIRE


def test_plain_strings_are_read_as_the_enums() -> None:
    fate = casualty_fate(
        evacuated=False,
        unit_at_end=UnitAtEnd("routed"),
        side_result=BattleResult("loss"),
        recovered_casualties=RecoveredCasualties("friendly_control"),
    )
    assert fate == "left_with_enemy"
