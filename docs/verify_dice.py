#!/usr/bin/env python3
"""Check a Muster campaign's server dice on your own machine.

Standard library only, and written apart from Muster's own code: you need not trust the server,
nor Muster's source, to run it. It reads what you saved from the API, either

* the dice export, ``GET /api/v1/campaigns/{id}/dice/export/``, or
* the event log, ``GET /api/v1/campaigns/{id}/events/``, one or more pages (follow ``next``),

and for every server roll of every closed dice epoch it recomputes the face from the epoch's
revealed seed, the roll's namespace and counter and the die, and checks each revealed seed against
the SHA-256 commitment published before it was used. Every roll that differs is listed.

    python3 verify_dice.py export.json            # or: events-1.json events-2.json ...
    python3 verify_dice.py --json export.json     # the report as JSON

Exit status: 0 when every checked roll matches, 1 when any does not, 2 when the input is unusable.
The method, with a worked example, is in docs/dice-verification.md.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import sys

CAMPAIGN_CREATED = "campaigns.CampaignCreated"
EPOCH_CLOSED = "campaigns.DiceEpochClosed"
DICE = (4, 6, 8, 10, 12)
WORD_RANGE = 2**64


# --- The derivation -------------------------------------------------------------------------


def recompute_face(seed: bytes, namespace: str, counter: int, faces: int) -> int:
    """The face the server rolled: HMAC-SHA256 keyed with the seed, over the text
    "<namespace>:<counter>:<attempt>" for attempt 0, 1, 2, ...; each 32-byte MAC is cut into four
    big-endian 64-bit numbers, and the first number below the largest multiple of ``faces`` that
    is at most 2**64 gives the face, number % faces + 1. Numbers at or above it are passed over,
    so that no face comes up more often than another."""
    usable_below = WORD_RANGE - WORD_RANGE % faces
    attempt = 0
    while True:
        text = f"{namespace}:{counter}:{attempt}"
        mac = hmac.new(seed, text.encode("utf-8"), hashlib.sha256).digest()
        for start in (0, 8, 16, 24):
            number = int.from_bytes(mac[start : start + 8], "big")
            if number < usable_below:
                return number % faces + 1
        attempt += 1


def commitment_of(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


# --- Reading the log ------------------------------------------------------------------------


def _whole(value):
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _server_rolls_in(value, path):
    """(path, roll) for every server roll inside a payload. Object keys are taken in sorted
    order, as the server does, so a roll's index is the same whichever database stored it."""
    if isinstance(value, dict):
        if value.get("source") == "server" and "die" in value and "result" in value:
            yield path, value
            return
        for key in sorted(value, key=str):
            yield from _server_rolls_in(value[key], f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield from _server_rolls_in(item, f"{path}[{position}]")


def export_from_events(events):
    """What the dice export holds, read from the events themselves."""
    epochs = {}
    rolls = []
    for event in sorted(events, key=lambda e: e["sequence"]):
        payload = event.get("payload") or {}
        metadata = event.get("metadata") or {}
        if event.get("type") == CAMPAIGN_CREATED:
            epochs[0] = {
                "epoch": 0,
                "commitment": payload["seed_commitment"],
                "committed_in": event["sequence"],
                "seed": None,
                "revealed_in": None,
            }
        elif event.get("type") == EPOCH_CLOSED:
            closed = payload["epoch"]
            entry = epochs.setdefault(
                closed,
                {"epoch": closed, "commitment": "", "committed_in": None},
            )
            entry.update(seed=payload["seed"], revealed_in=event["sequence"])
            epochs[closed + 1] = {
                "epoch": closed + 1,
                "commitment": payload["next_commitment"],
                "committed_in": event["sequence"],
                "seed": None,
                "revealed_in": None,
            }
        namespace = metadata.get("dice_namespace") or payload.get("namespace")
        epoch = _whole(metadata.get("dice_epoch", 0))
        for index, (path, roll) in enumerate(_server_rolls_in(payload, "")):
            if roll.get("afresh"):
                # Rolled afresh by a branch, from the branch's own seed.
                namespace = metadata.get("afresh_dice_namespace")
                epoch = _whole(metadata.get("afresh_dice_epoch", 0))
            elif metadata.get("dice_rolled_in"):
                # A branch's copy of a roll of its original: verified in the original.
                continue
            rolls.append(
                {
                    "sequence": event["sequence"],
                    "index": index,
                    "path": path,
                    "epoch": -1 if epoch is None else epoch,
                    "namespace": namespace if isinstance(namespace, str) else None,
                    "counter": _whole(roll.get("counter")),
                    "die": roll["die"],
                    "result": roll["result"],
                }
            )
    ordered = [epochs[number] for number in sorted(epochs)]
    return {
        "current_epoch": ordered[-1]["epoch"] if ordered else 0,
        "epochs": ordered,
        "rolls": rolls,
    }


def load(paths):
    """The export in the files: a dice export as it is, or events pages turned into one."""
    events = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        if isinstance(data, dict) and "rolls" in data and "epochs" in data:
            if len(paths) > 1:
                raise ValueError("give one dice export, or any number of events pages")
            return data
        pages = data if isinstance(data, list) else [data]
        for page in pages:
            if isinstance(page, dict) and "results" in page:
                events.extend(page["results"])
            elif isinstance(page, dict) and "sequence" in page:
                events.append(page)
            else:
                raise ValueError(f"{path} is neither a dice export nor events pages")
    unique = {event["sequence"]: event for event in events}
    return export_from_events(unique.values())


# --- Checking -------------------------------------------------------------------------------


def verify(export):
    """The report: the same fields as GET /campaigns/{id}/dice/verification/."""
    problems = []
    seeds = {}
    matches = {}
    for epoch in export["epochs"]:
        if epoch.get("seed") is None:
            continue
        try:
            seed = bytes.fromhex(epoch["seed"])
        except (TypeError, ValueError):
            seed = b""
        if not seed:
            problems.append(f"Epoch {epoch['epoch']}: the revealed seed is not hexadecimal.")
            matches[epoch["epoch"]] = False
            continue
        seeds[epoch["epoch"]] = seed
        matches[epoch["epoch"]] = commitment_of(seed) == epoch.get("commitment")
        if not matches[epoch["epoch"]]:
            published = epoch.get("commitment") or "(none published)"
            problems.append(
                f"Epoch {epoch['epoch']}: the revealed seed does not match its commitment "
                f"{published}."
            )
    secret = {e["epoch"] for e in export["epochs"] if e.get("seed") is None}
    known = {e["epoch"] for e in export["epochs"]}
    tallies = {n: {"checked": 0, "mismatched": 0, "unrevealed": 0} for n in known}
    elsewhere = {"checked": 0, "mismatched": 0, "unrevealed": 0}
    mismatches = []
    for roll in export["rolls"]:
        epoch = roll.get("epoch", 0)
        tally = tallies.get(epoch, elsewhere)
        if epoch in secret:
            tally["unrevealed"] += 1
            continue
        tally["checked"] += 1
        die, counter = roll.get("die"), _whole(roll.get("counter"))
        namespace = roll.get("namespace")
        expected = None
        if epoch not in known:
            problem = "unknown_epoch"
        elif epoch not in seeds:
            problem = "bad_seed"
        elif namespace is None:
            problem = "no_namespace"
        elif counter is None or counter < 0:
            problem = "no_counter"
        elif isinstance(die, bool) or die not in DICE:
            problem = "bad_die"
        else:
            problem = "face"
            expected = recompute_face(seeds[epoch], namespace, counter, die)
        stored = roll.get("result")
        if expected is not None and stored == expected and not isinstance(stored, bool):
            continue
        tally["mismatched"] += 1
        mismatches.append(
            {
                "sequence": roll["sequence"],
                "index": roll.get("index", 0),
                "path": roll.get("path", ""),
                "epoch": epoch,
                "namespace": namespace,
                "counter": counter,
                "die": die,
                "stored": stored,
                "expected": expected,
                "problem": problem,
            }
        )
    epochs = [
        {
            "epoch": e["epoch"],
            "commitment": e.get("commitment") or "",
            "revealed": e.get("seed") is not None,
            "seed_matches_commitment": None if e.get("seed") is None else matches[e["epoch"]],
            **tallies[e["epoch"]],
        }
        for e in export["epochs"]
    ]
    current = export.get("current_epoch")
    if current is None:
        current = epochs[-1]["epoch"] if epochs else 0
    return {
        "ok": not mismatches and not problems,
        "current_epoch": current,
        "checked": sum(t["checked"] for t in tallies.values()) + elsewhere["checked"],
        "mismatched": len(mismatches),
        "unrevealed": sum(t["unrevealed"] for t in tallies.values()),
        "epochs": epochs,
        "mismatches": mismatches,
        "problems": problems,
    }


def describe(report):
    lines = []
    for epoch in report["epochs"]:
        if not epoch["revealed"]:
            lines.append(
                f"Epoch {epoch['epoch']}: seed still secret; {epoch['unrevealed']} server roll(s) "
                "to check once it is closed."
            )
        else:
            seed = "matches" if epoch["seed_matches_commitment"] else "DOES NOT MATCH"
            lines.append(
                f"Epoch {epoch['epoch']}: seed revealed, {seed} its commitment; "
                f"{epoch['checked']} server roll(s) checked, {epoch['mismatched']} mismatch(es)."
            )
    for m in report["mismatches"]:
        expected = "nothing to recompute" if m["expected"] is None else m["expected"]
        lines.append(
            f"Mismatch ({m['problem']}): event #{m['sequence']} roll {m['index']} ({m['path']}), "
            f"d{m['die']} {m['namespace']}:{m['counter']} in epoch {m['epoch']}: "
            f"stored {m['stored']}, expected {expected}."
        )
    lines.extend(report["problems"])
    verdict = "The dice verify" if report["ok"] else "The dice do not verify"
    lines.append(
        f"{verdict}: {report['checked']} server roll(s) checked, {report['mismatched']} "
        f"mismatch(es), {report['unrevealed']} not checkable until their epoch is closed."
    )
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="a dice export, or events pages")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    try:
        export = load(args.files)
        report = verify(export)
    except (OSError, ValueError, KeyError, TypeError) as problem:
        print(f"Cannot read the input: {problem}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print("\n".join(describe(report)))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
