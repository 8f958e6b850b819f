"""Tests for rules.dice_verification: server rolls recomputed from revealed seeds, and the
standalone docs/verify_dice.py, which must agree with it on every input."""

from __future__ import annotations

import copy
import hashlib
import hmac
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Die, seed_commitment, seeded_face, seeded_words
from rules.dice_verification import (
    EpochRecord,
    ServerRoll,
    export_from_events,
    server_rolls_of_event,
    verify,
    verify_export,
)

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "dice-verification.md"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("verify_dice", ROOT / "docs" / "verify_dice.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCRIPT = _script()
dice_types = st.sampled_from(list(Die))
seeds = st.binary(min_size=1, max_size=32)
namespaces = st.text(max_size=16)
counters = st.integers(min_value=0, max_value=10**9)


def one_roll_export(seed: bytes, namespace: str, counter: int, die: Die, result: int) -> dict:
    return {
        "current_epoch": 1,
        "epochs": [
            {"epoch": 0, "commitment": seed_commitment(seed), "seed": seed.hex()},
            {"epoch": 1, "commitment": "ab" * 32, "seed": None},
        ],
        "rolls": [
            {
                "sequence": 7,
                "index": 0,
                "path": "dice[0]",
                "epoch": 0,
                "namespace": namespace,
                "counter": counter,
                "die": die.value,
                "result": result,
            }
        ],
    }


@given(seed=seeds, namespace=namespaces, counter=counters, die=dice_types)
def test_any_roll_recomputes_to_its_own_face(seed, namespace, counter, die):
    face = seeded_face(seed, namespace, counter, die.value)
    export = one_roll_export(seed, namespace, counter, die, face)
    report = verify_export(export)
    assert report.ok
    assert (report.checked, report.mismatches, report.unrevealed) == (1, [], 0)
    assert SCRIPT.verify(export) == report.as_json()


@given(seed=seeds, namespace=namespaces, counter=counters, die=dice_types, shift=st.integers(1, 11))
def test_any_changed_face_is_reported(seed, namespace, counter, die, shift):
    face = seeded_face(seed, namespace, counter, die.value)
    step = shift % (die.value - 1) + 1  # 1 to faces - 1: another face the die can show
    changed = (face - 1 + step) % die.value + 1
    export = one_roll_export(seed, namespace, counter, die, changed)
    report = verify_export(export)
    assert not report.ok
    (mismatch,) = report.mismatches
    assert (mismatch.sequence, mismatch.index, mismatch.path) == (7, 0, "dice[0]")
    assert (mismatch.die, mismatch.stored, mismatch.expected, mismatch.problem) == (
        die.value,
        changed,
        face,
        "face",
    )
    assert SCRIPT.verify(export) == report.as_json()


@given(seed=seeds, namespace=namespaces, counter=counters, faces=st.integers(1, 10**6))
def test_the_scripts_derivation_is_the_servers(seed, namespace, counter, faces):
    assert SCRIPT.recompute_face(seed, namespace, counter, faces) == seeded_face(
        seed, namespace, counter, faces
    )


def test_the_worked_example_of_the_documentation():
    """docs/dice-verification.md: seed, namespace and counter to MAC, words and face."""
    text = DOC.read_text()
    seed_hex = hashlib.sha256(b"Kessler Ridge").hexdigest()
    seed = bytes.fromhex(seed_hex)
    assert seed_hex == "4d48a83a711521fc192780565e91b2cd847ded9debe1e741acfcdfd4600ab047"
    assert seed_commitment(seed) == (
        "875d3ab3743eb89baa2375e015fe71ea928524c283e549f7edbb3abdc069ba4b"
    )
    mac = hmac.new(seed, b"job:1:0:0", hashlib.sha256).hexdigest()
    assert mac == "4be63949913fbf7463ed999edf6c40606091a68034c4e06437b71aab73312569"
    words = [next(seeded_words(seed, "job:1", 0))]
    assert words == [0x4BE63949913FBF74] == [5469121785620316020]
    assert 5469121785620316020 < 2**64 - 4 == 18446744073709551612
    assert seeded_face(seed, "job:1", 0, 6) == 5469121785620316020 % 6 + 1 == 3
    assert seeded_face(seed, "job:1", 2, 10) == 10968595788334191927 % 10 + 1 == 8
    assert SCRIPT.recompute_face(seed, "job:1", 0, 6) == 3
    for shown in (
        seed_hex,
        seed_commitment(seed),
        mac,
        "4be63949913fbf74",
        "5469121785620316020",
        "18446744073709551612",
        "10968595788334191927",
    ):
        assert shown in text, shown


def test_server_rolls_are_found_anywhere_in_a_payload_in_a_fixed_order():
    event: dict[str, Any] = {
        "sequence": 12,
        "type": "battles.Something",
        "metadata": {"dice_namespace": "job:4", "dice_epoch": 2},
        "payload": {
            "units": [
                {"dice": [{"die": 6, "result": 2, "source": "server", "counter": 3}]},
                {"dice": [{"die": 6, "result": 5, "source": "table", "counter": None}]},
            ],
            "dice": [{"die": 10, "result": 9, "source": "server", "counter": 0}],
        },
    }
    rolls = server_rolls_of_event(event)
    assert [(r.path, r.index, r.counter, r.die, r.epoch, r.namespace) for r in rolls] == [
        ("dice[0]", 0, 0, 10, 2, "job:4"),
        ("units[0].dice[0]", 1, 3, 6, 2, "job:4"),
    ]
    # The order of an object's keys as stored does not change a roll's index.
    reordered = copy.deepcopy(event)
    reordered["payload"] = dict(reversed(list(event["payload"].items())))
    assert server_rolls_of_event(reordered) == rolls


def test_events_written_before_epochs_belong_to_epoch_0_and_the_tray_names_its_namespace():
    created = {
        "sequence": 1,
        "type": "campaigns.CampaignCreated",
        "payload": {"seed_commitment": seed_commitment(b"\x01" * 32)},
    }
    thrown = {
        "sequence": 2,
        "type": "campaigns.DiceRolled",
        "metadata": {},
        "payload": {
            "namespace": "job:1",
            "rolls": [
                {
                    "die": 6,
                    "result": seeded_face(b"\x01" * 32, "job:1", 0, 6),
                    "source": "server",
                    "counter": 0,
                }
            ],
        },
    }
    closed = {
        "sequence": 3,
        "type": "campaigns.DiceEpochClosed",
        "payload": {
            "epoch": 0,
            "seed": "01" * 32,
            "next_epoch": 1,
            "next_commitment": "cd" * 32,
        },
    }
    export = export_from_events("c", [created, thrown, closed])
    assert export["current_epoch"] == 1
    assert [(e["epoch"], e["committed_in"], e["revealed_in"]) for e in export["epochs"]] == [
        (0, 1, 3),
        (1, 3, None),
    ]
    assert export["rolls"][0]["epoch"] == 0
    assert export["rolls"][0]["namespace"] == "job:1"
    assert verify_export(export).ok
    assert SCRIPT.export_from_events([created, thrown, closed]) == {
        key: export[key] for key in ("current_epoch", "epochs", "rolls")
    }


def test_a_branch_verifies_the_dice_it_rolled_afresh_and_leaves_the_kept_ones_to_its_original():
    """A branch of a campaign (campaigns/branches.py) keeps the original's dice, which only the
    original's seed recomputes, and rolls some afresh from its own seed: its export holds only
    those, with the stream and epoch its metadata names."""
    seed = b"\x02" * 32
    created = {
        "sequence": 1,
        "type": "campaigns.CampaignCreated",
        "payload": {"seed_commitment": seed_commitment(seed)},
    }
    kept = {"die": 8, "result": 8, "source": "server", "counter": 0, "purpose": "kept"}
    afresh = {
        "die": 10,
        "result": seeded_face(seed, "rerun:4", 0, 10),
        "source": "server",
        "counter": 0,
        "afresh": True,
        "purpose": "replacements",
    }
    replayed = {
        "sequence": 2,
        "type": "rosters.ReplacementsRolled",
        "metadata": {
            "dice_rolled_in": "the original",
            "dice_namespace": "job:9",
            "afresh_dice_namespace": "rerun:4",
            "afresh_dice_epoch": 0,
        },
        "payload": {"dice": [kept, afresh]},
    }
    copied = {
        "sequence": 3,
        "type": "battles.ConfidenceTested",
        "metadata": {"dice_rolled_in": "the original", "dice_namespace": "job:2"},
        "payload": {"dice": [kept]},
    }
    closed = {
        "sequence": 4,
        "type": "campaigns.DiceEpochClosed",
        "payload": {"epoch": 0, "seed": seed.hex(), "next_epoch": 1, "next_commitment": "cd" * 32},
    }
    events = [created, replayed, copied, closed]
    export = export_from_events("branch", events)
    assert [(r["sequence"], r["index"], r["namespace"]) for r in export["rolls"]] == [
        (2, 1, "rerun:4")
    ]
    report = verify_export(export)
    assert report.ok
    assert report.as_json()["checked"] == 1
    assert SCRIPT.export_from_events(events) == {
        key: export[key] for key in ("current_epoch", "epochs", "rolls")
    }


def test_a_revealed_seed_that_does_not_match_its_commitment_is_a_problem():
    epochs = [EpochRecord(0, seed_commitment(b"the committed seed"), 1, b"another".hex(), 9)]
    report = verify(epochs, [])
    assert not report.ok
    assert report.epochs[0].seed_matches_commitment is False
    assert report.problems == [
        f"Epoch 0: the revealed seed does not match its commitment {epochs[0].commitment}."
    ]


def _roll(**changes: object) -> ServerRoll:
    fields: dict = {
        "sequence": 5,
        "index": 0,
        "path": "dice[0]",
        "epoch": 0,
        "namespace": "job:1",
        "counter": 0,
        "die": 6,
        "result": seeded_face(b"s", "job:1", 0, 6),
    }
    return ServerRoll(**(fields | changes))


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"epoch": 3}, "unknown_epoch"),
        ({"namespace": None}, "no_namespace"),
        ({"counter": None}, "no_counter"),
        ({"die": 7}, "bad_die"),
        ({"result": True}, "face"),
        ({"result": "3"}, "face"),
    ],
)
def test_a_roll_that_cannot_be_recomputed_is_a_mismatch(changes, problem):
    epochs = [EpochRecord(0, seed_commitment(b"s"), 1, b"s".hex(), 4)]
    report = verify(epochs, [_roll(), _roll(index=1, **changes)])
    assert report.checked == 2
    assert [(m.index, m.problem) for m in report.mismatches] == [(1, problem)]


def test_rolls_of_the_epoch_in_use_are_counted_but_not_checked():
    epochs = [
        EpochRecord(0, seed_commitment(b"s"), 1, b"s".hex(), 4),
        EpochRecord(1, "ef" * 32, 4),
    ]
    report = verify(epochs, [_roll(), _roll(epoch=1, result=1), _roll(epoch=1, result=6)])
    assert report.ok
    assert (report.checked, report.unrevealed, report.current_epoch) == (1, 2, 1)
    assert [(e.epoch, e.revealed, e.checked, e.unrevealed) for e in report.epochs] == [
        (0, True, 1, 0),
        (1, False, 0, 2),
    ]


@pytest.mark.parametrize("seed", ["not hex", ""])
def test_a_revealed_seed_that_is_not_hexadecimal_fails_every_roll_of_its_epoch(seed):
    epochs = [EpochRecord(0, seed_commitment(b"s"), 1, seed, 9)]
    report = verify(epochs, [_roll()])
    assert not report.ok
    assert report.problems == ["Epoch 0: the revealed seed is not hexadecimal."]
    assert report.epochs[0].seed_matches_commitment is False
    assert [(m.problem, m.expected) for m in report.mismatches] == [("bad_seed", None)]
