"""The pieces a branch is made of: its translation of ids, and the dice it replays
(campaigns/branches.py)."""

from __future__ import annotations

import datetime as dt
import uuid

from hypothesis import given
from hypothesis import strategies as st

from campaigns.branches import IdMap, ReplayedDice, rolls_in, rolls_of
from eventlog.store import StoredEvent
from rules.dice import Die, RollSource, SeededDice

ids = st.uuids()


@given(ids, ids, ids)
def test_the_translation_of_ids_is_its_own_inverse_and_maps_the_campaign(original, branch, other):
    translate = IdMap(original, branch)
    assert translate(original) == branch
    assert translate(branch) == original
    assert translate(translate(other)) == other


@given(ids, ids, st.lists(ids, min_size=2, max_size=20, unique=True))
def test_different_ids_stay_different(original, branch, many):
    translate = IdMap(original, branch)
    assert len({translate(value) for value in many}) == len(many)


def test_ids_are_translated_wherever_they_are_written():
    original, branch, unit = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    translate = IdMap(original, branch)
    payload = {
        "unit_id": str(unit),
        str(unit): ["medical treatment of " + str(unit)],
        "count": 3,
        "stream": f"unit:{unit}",
    }
    mine = translate.json(payload)
    there = str(translate(unit))
    assert mine == {
        "unit_id": there,
        there: ["medical treatment of " + there],
        "count": 3,
        "stream": f"unit:{there}",
    }
    assert translate.json(mine) == payload


def roll(die: int, result: int, purpose: str, **extra) -> dict:
    return {"die": die, "result": result, "purpose": purpose, "source": "server", **extra}


def test_a_replayed_die_is_the_original_s_for_the_same_die_and_purpose():
    afresh = SeededDice(b"\x01" * 32, "rerun:1")
    dice = ReplayedDice(
        [roll(8, 3, "replacements", counter=0), roll(6, 5, "quality", counter=1)], afresh
    )
    kept = dice.roll(Die.D6, "quality")
    assert (kept.result, kept.counter, kept.afresh) == (5, 1, False)
    # The branch asks for a D10 where the original rolled a D8: rolled afresh, marked so.
    fresh = dice.roll(Die.D10, "replacements")
    expected = SeededDice(b"\x01" * 32, "rerun:1").roll(Die.D10, "replacements")
    assert (fresh.result, fresh.afresh, fresh.source) == (expected.result, True, RollSource.SERVER)
    # Each original face is used once: a second roll for the same purpose is rolled afresh.
    assert dice.roll(Die.D6, "quality").afresh is True
    assert dice.roll(Die.D8, "replacements").result == 3


def test_a_die_that_cannot_matter_is_replayed_but_never_rolled_afresh():
    dice = ReplayedDice(
        [roll(6, 2, "withdrawal", moot=True, source="table")], SeededDice(b"\x02" * 32, "x")
    )
    assert dice.roll_moot(Die.D6, "rest") is None
    moot = dice.roll_moot(Die.D6, "withdrawal")
    assert moot is not None
    assert (moot.result, moot.moot, moot.source) == (2, True, RollSource.TABLE)


def test_a_command_s_dice_are_read_once_in_the_order_they_were_rolled():
    twice = {
        "troopers": [{"dice": [roll(6, 4, "recovery", counter=1)]}],
        "dice": [roll(6, 2, "recovery", counter=0), roll(6, 4, "recovery", counter=1)],
    }
    assert [r["result"] for r in rolls_in(twice)] == [2, 4]
    nested = {"hits": [{"roll": roll(6, 1, "impact", counter=3)}]}
    assert rolls_in(nested) == [roll(6, 1, "impact", counter=3)]

    def event(sequence: int, payload: dict) -> StoredEvent:
        return StoredEvent(
            position=sequence,
            campaign_id=uuid.uuid4(),
            sequence=sequence,
            stream="x",
            version=sequence,
            type="t",
            schema_version=1,
            payload=payload,
            metadata={},
            idempotency_key=None,
            job_id=None,
            recorded_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
        )

    late = {"dice": [roll(8, 7, "late", counter=5)]}
    early = {"dice": [roll(8, 1, "early", counter=2)]}
    # The server's dice by their place in the seeded stream, whatever the events' order.
    assert [r["purpose"] for r in rolls_of([event(1, late), event(2, early)])] == ["early", "late"]


@given(ids, ids, ids, ids)
def test_translations_compose_through_a_branch_of_a_branch(original, branch, again, other):
    """What a branch of a branch derives from the first original's commands lands where the
    branch's own translation sends the ids the branch derived."""
    assert IdMap(branch, again)(IdMap(original, branch)(other)) == IdMap(original, again)(other)
