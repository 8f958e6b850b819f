"""Verifying the server's dice: every server roll of a revealed dice epoch, recomputed.

Pure functions over plain data (the JSON the API gives), so the server's check and anyone else's
read the same input the same way. ``docs/verify_dice.py`` implements the same method on its own,
with the standard library only, for a player who does not want to run this code.

The method (docs/dice-verification.md, docs/adr/0013-dice-epochs.md):

- A campaign's dice seed is secret while it is in use. Its SHA-256 (the *commitment*) is published
  in advance: epoch 0's in ``campaigns.CampaignCreated``, epoch n+1's in the
  ``campaigns.DiceEpochClosed`` that reveals epoch n's seed.
- A server roll is recorded with its die, its face and its ``counter``; the event that holds it
  names the stream (``dice_namespace`` in its metadata, or ``namespace`` in a dice tray's payload)
  and the epoch (``dice_epoch`` in its metadata; events written before epochs existed have none,
  and belong to epoch 0). In a branch of a campaign (what-if), a die kept from the original is
  verified in the original (``dice_rolled_in`` names it), and a die the branch rolled afresh
  names its stream and epoch in ``afresh_dice_namespace`` and ``afresh_dice_epoch``.
- Once an epoch's seed is revealed, each of its rolls must equal
  :func:`rules.dice.seeded_face` of (seed, namespace, counter, die), and the seed's SHA-256 must
  equal the epoch's commitment. Rolls of the epoch still in use cannot be checked yet.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from rules.dice import Die, seeded_face

EXPORT_FORMAT = "muster.dice-export"
EXPORT_VERSION = 1
CAMPAIGN_CREATED = "campaigns.CampaignCreated"
EPOCH_CLOSED = "campaigns.DiceEpochClosed"
SERVER = "server"
DIE_FACES = frozenset(die.value for die in Die)


@dataclass(frozen=True, slots=True)
class EpochRecord:
    """A dice epoch as the log tells it: its commitment, published in event ``committed_in``,
    and, once the epoch is closed, its seed, revealed in event ``revealed_in``."""

    epoch: int
    commitment: str
    committed_in: int | None = None
    seed: str | None = None
    revealed_in: int | None = None


@dataclass(frozen=True, slots=True)
class ServerRoll:
    """One server roll as stored: the event (``sequence``), where in its payload (``path``, and
    ``index`` among the event's server rolls), its epoch, stream, counter, die and face.

    Die and face are kept as found: a copy of the log that was altered may hold anything."""

    sequence: int
    index: int
    path: str
    epoch: int
    namespace: str | None
    counter: int | None
    die: object
    result: object


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A server roll that is not what its seed gives. ``problem`` says why: ``face`` (the stored
    face is not the recomputed one), or, when nothing can be recomputed, ``no_counter``,
    ``no_namespace``, ``bad_die``, ``bad_seed`` (the epoch's revealed seed is not hexadecimal)
    or ``unknown_epoch`` (the log tells of no such epoch)."""

    sequence: int
    index: int
    path: str
    epoch: int
    namespace: str | None
    counter: int | None
    die: object
    stored: object
    expected: int | None
    problem: str


@dataclass(frozen=True, slots=True)
class EpochReport:
    epoch: int
    commitment: str
    revealed: bool
    # None while the seed is secret.
    seed_matches_commitment: bool | None
    checked: int
    mismatched: int
    unrevealed: int


@dataclass(frozen=True, slots=True)
class VerificationReport:
    """What verification found: how many server rolls were recomputed (``checked``), how many of
    them did not match (``mismatches``, each named), how many belong to an epoch whose seed is
    still secret (``unrevealed``), and any seed that does not match its commitment."""

    current_epoch: int
    epochs: list[EpochReport]
    checked: int
    unrevealed: int
    mismatches: list[Mismatch] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches and not self.problems

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "current_epoch": self.current_epoch,
            "checked": self.checked,
            "mismatched": len(self.mismatches),
            "unrevealed": self.unrevealed,
            "epochs": [asdict(epoch) for epoch in self.epochs],
            "mismatches": [asdict(mismatch) for mismatch in self.mismatches],
            "problems": list(self.problems),
        }


# --- From events to an export ---------------------------------------------------------------------


def _is_server_roll(value: Mapping[str, Any]) -> bool:
    return value.get("source") == SERVER and "die" in value and "result" in value


def _walk(value: object, path: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every server roll in a payload, with its JSON path. Keys are visited in sorted order:
    PostgreSQL's jsonb does not keep the order an object was written in, and a roll's index must
    not depend on the database."""
    if isinstance(value, Mapping):
        if _is_server_roll(value):
            yield path, value
            return
        for key in sorted(value, key=str):
            yield from _walk(value[key], f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield from _walk(item, f"{path}[{position}]")


def _whole(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def server_rolls_of_event(event: Mapping[str, Any]) -> list[ServerRoll]:
    """The server rolls an event holds (an event as the API gives it: ``sequence``, ``payload``,
    ``metadata``), in a fixed order."""
    payload = event.get("payload") or {}
    metadata = event.get("metadata") or {}
    rolls = []
    for index, (path, roll) in enumerate(_walk(payload, "")):
        if roll.get("afresh"):
            # A branch's own roll, from its own seed (campaigns/branches.py).
            namespace = metadata.get("afresh_dice_namespace")
            epoch = _whole(metadata.get("afresh_dice_epoch", 0))
        elif metadata.get("dice_rolled_in"):
            # A branch's copy of a roll of its original: verified in the original's log.
            continue
        else:
            namespace = metadata.get("dice_namespace") or payload.get("namespace")
            epoch = _whole(metadata.get("dice_epoch", 0))
        rolls.append(
            ServerRoll(
                sequence=event["sequence"],
                index=index,
                path=path,
                epoch=epoch if epoch is not None else -1,
                namespace=namespace if isinstance(namespace, str) else None,
                counter=_whole(roll.get("counter")),
                die=roll["die"],
                result=roll["result"],
            )
        )
    return rolls


def epochs_of_events(events: Iterable[Mapping[str, Any]]) -> list[EpochRecord]:
    """The dice epochs the log tells of: epoch 0 committed at the campaign's creation, and each
    closed epoch revealed with the next one's commitment."""
    epochs: dict[int, EpochRecord] = {}
    for event in events:
        payload = event.get("payload") or {}
        if event.get("type") == CAMPAIGN_CREATED:
            epochs[0] = EpochRecord(0, payload["seed_commitment"], event["sequence"])
        elif event.get("type") == EPOCH_CLOSED:
            closed = payload["epoch"]
            before = epochs.get(closed, EpochRecord(closed, ""))
            epochs[closed] = EpochRecord(
                closed, before.commitment, before.committed_in, payload["seed"], event["sequence"]
            )
            epochs[closed + 1] = EpochRecord(
                closed + 1, payload["next_commitment"], event["sequence"]
            )
    return [epochs[number] for number in sorted(epochs)]


def export_from_events(campaign_id: str, events: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The dice export of a campaign's log: its epochs (commitments, revealed seeds) and every
    server roll with what recomputing it needs. Nothing in it is secret."""
    events = list(events)
    epochs = epochs_of_events(events)
    rolls = [roll for event in events for roll in server_rolls_of_event(event)]
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "campaign_id": campaign_id,
        "current_epoch": epochs[-1].epoch if epochs else 0,
        "epochs": [asdict(epoch) for epoch in epochs],
        "rolls": [asdict(roll) for roll in rolls],
    }


# --- Verification ---------------------------------------------------------------------------------


def _seed_bytes(seed: str) -> bytes | None:
    try:
        return bytes.fromhex(seed)
    except (TypeError, ValueError):
        return None


def _recompute(roll: ServerRoll, seed: bytes) -> tuple[int | None, str]:
    """The face the seed gives for the roll, or why none can be computed."""
    if roll.namespace is None:
        return None, "no_namespace"
    if roll.counter is None or roll.counter < 0:
        return None, "no_counter"
    if not isinstance(roll.die, int) or isinstance(roll.die, bool) or roll.die not in DIE_FACES:
        return None, "bad_die"
    return seeded_face(seed, roll.namespace, roll.counter, roll.die), "face"


def verify(
    epochs: Sequence[EpochRecord], rolls: Sequence[ServerRoll], *, current_epoch: int | None = None
) -> VerificationReport:
    """Recompute every server roll of every revealed epoch and check each revealed seed against
    its commitment.

    A roll of an epoch whose seed is still secret is *unrevealed*; every other roll is *checked*,
    and a checked roll that cannot be recomputed (it names no epoch the log tells of, or has no
    counter) is a mismatch as much as one whose face differs."""
    seeds: dict[int, bytes] = {}
    problems: list[str] = []
    for epoch in epochs:
        if epoch.seed is None:
            continue
        seed = _seed_bytes(epoch.seed)
        if not seed:
            problems.append(f"Epoch {epoch.epoch}: the revealed seed is not hexadecimal.")
            continue
        seeds[epoch.epoch] = seed
        if hashlib.sha256(seed).hexdigest() != epoch.commitment:
            problems.append(
                f"Epoch {epoch.epoch}: the revealed seed does not match its commitment "
                f"{epoch.commitment or '(none published)'}."
            )
    secret = {epoch.epoch for epoch in epochs if epoch.seed is None}
    tallies = {epoch.epoch: {"checked": 0, "mismatched": 0, "unrevealed": 0} for epoch in epochs}
    unknown = {"checked": 0, "mismatched": 0, "unrevealed": 0}
    mismatches: list[Mismatch] = []
    for roll in rolls:
        tally = tallies.get(roll.epoch, unknown)
        if roll.epoch in secret:
            tally["unrevealed"] += 1
            continue
        tally["checked"] += 1
        seed = seeds.get(roll.epoch)
        if seed is None:
            expected, problem = None, "bad_seed" if roll.epoch in tallies else "unknown_epoch"
        else:
            expected, problem = _recompute(roll, seed)
        if expected is not None and roll.result == expected and not isinstance(roll.result, bool):
            continue
        tally["mismatched"] += 1
        mismatches.append(
            Mismatch(
                sequence=roll.sequence,
                index=roll.index,
                path=roll.path,
                epoch=roll.epoch,
                namespace=roll.namespace,
                counter=roll.counter,
                die=roll.die,
                stored=roll.result,
                expected=expected,
                problem=problem,
            )
        )
    reports = [
        EpochReport(
            epoch=epoch.epoch,
            commitment=epoch.commitment,
            revealed=epoch.seed is not None,
            seed_matches_commitment=(
                None
                if epoch.seed is None
                else epoch.epoch in seeds
                and hashlib.sha256(seeds[epoch.epoch]).hexdigest() == epoch.commitment
            ),
            **tallies[epoch.epoch],
        )
        for epoch in epochs
    ]
    if current_epoch is None:
        current_epoch = epochs[-1].epoch if epochs else 0
    return VerificationReport(
        current_epoch=current_epoch,
        epochs=reports,
        checked=sum(report.checked for report in reports) + unknown["checked"],
        unrevealed=sum(report.unrevealed for report in reports),
        mismatches=mismatches,
        problems=problems,
    )


def verify_export(export: Mapping[str, Any]) -> VerificationReport:
    """Verify a dice export (:func:`export_from_events`, ``GET /campaigns/{id}/dice/export/``)."""
    epochs = [
        EpochRecord(
            epoch=item["epoch"],
            commitment=item.get("commitment") or "",
            committed_in=item.get("committed_in"),
            seed=item.get("seed"),
            revealed_in=item.get("revealed_in"),
        )
        for item in export.get("epochs", [])
    ]
    rolls = [
        ServerRoll(
            sequence=item["sequence"],
            index=item.get("index", 0),
            path=item.get("path", ""),
            epoch=item.get("epoch", 0),
            namespace=item.get("namespace"),
            counter=_whole(item.get("counter")),
            die=item.get("die"),
            result=item.get("result"),
        )
        for item in export.get("rolls", [])
    ]
    return verify(epochs, rolls, current_epoch=export.get("current_epoch"))
