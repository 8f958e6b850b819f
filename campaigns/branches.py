"""Branches: a campaign played again from a point of another under other options (what-if).

A branch is a campaign of its own. Its log starts as a copy of the original's up to the point
(with the campaign's and every entity's id translated, since ids are unique across the
installation), then the original's commands after the point are run again, in order, under the
branch's options (:func:`rerun_branch`, a resolution job that commits one command at a time with
its progress). A command run again gets the original's dice, die by die, wherever the rules ask
for the same die for the same purpose (:class:`ReplayedDice`); a die the original never rolled is
rolled afresh from the branch's own seed and marked ``afresh``. A command the branch's rules
refuse is recorded as refused (``campaigns.BranchCommandRefused``) and the branch goes on.

Nothing is ever written to the original. See docs/adr/0022-what-if-branches.md.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import secrets
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import models, transaction
from django.db.models import QuerySet
from django.utils import timezone

from campaigns import dice_epochs
from campaigns.common import options_error
from campaigns.events import BranchCommandRefused, BranchOrigin, CampaignCreated, OptionsChanged
from campaigns.models import Campaign, CampaignSeed
from eventlog import commands, jobs, projections, store
from eventlog.errors import CommandError, NotFound, StateConflict
from eventlog.models import CommandRecord, ErasedCampaign, Event, Job
from eventlog.store import NewEvent, StoredEvent
from rules.dice import DiceSource, Die, Roll, RollSource, seed_commitment
from rules.options import OptionsError, options_to_dict, parse_options

logger = logging.getLogger(__name__)

BRANCH_CREATE = "campaigns.branch_create"
RERUN_JOB = "campaigns.branch_rerun"
MAX_NAME = 200
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


# --- Ids ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IdMap:
    """The branch's id of each id of the original, and back: each id's bits exclusive-or'ed with
    those of the original's id and the branch's (a random one). The original's id becomes the
    branch's, the same id always gets the same counterpart, two branches share no id, and the
    map is its own inverse, so the ids a command derives from ids (``CommandContext.new_id``) can
    be derived from the original's ids and translated. Maps compose: an original's map to a
    branch, then the branch's to a branch of it, is the original's map to the latter."""

    original: uuid.UUID
    branch: uuid.UUID

    def __call__(self, value: uuid.UUID) -> uuid.UUID:
        return uuid.UUID(int=value.int ^ self.original.int ^ self.branch.int)

    def text(self, value: str) -> str:
        """A text with every id in it translated (a stream, a key, a die's purpose)."""
        return _UUID.sub(lambda found: str(self(uuid.UUID(found.group()))), value)

    def json(self, value: Any) -> Any:
        """A JSON value with every id in it, keys included, translated."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.json(item) for item in value]
        if isinstance(value, dict):
            return {self.text(str(key)): self.json(item) for key, item in value.items()}
        return value


# --- Dice -----------------------------------------------------------------------------------------


def rolls_in(payload: Any) -> list[dict[str, Any]]:
    """Every die an event's payload records. An event's ``dice`` list holds all its rolls (some
    repeat them beside what they decided, a trooper's recovery say): when it has one, that list
    alone; otherwise every roll found anywhere in it, in the order it lists them."""
    if isinstance(payload, dict) and isinstance(payload.get("dice"), list):
        return [roll for roll in payload["dice"] if _is_roll(roll)]
    found: list[dict[str, Any]] = []
    if _is_roll(payload):
        found.append(payload)
    elif isinstance(payload, dict):
        for value in payload.values():
            found.extend(rolls_in(value))
    elif isinstance(payload, list):
        for item in payload:
            found.extend(rolls_in(item))
    return found


def _is_roll(value: Any) -> bool:
    return isinstance(value, dict) and {"die", "result", "purpose", "source"} <= value.keys()


def rolls_of(events: Iterable[StoredEvent]) -> list[dict[str, Any]]:
    """The dice a command's events record, in the order they were rolled: the server's by their
    place in the seeded stream, the table's as entered."""
    rolls = [roll for event in events for roll in rolls_in(event.payload)]
    return sorted(rolls, key=lambda roll: -1 if roll.get("counter") is None else roll["counter"])


class ReplayedDice:
    """The dice of a command run again in a branch: the original's own, die by die, where the
    rules ask for the same die for the same purpose (each face once, in the order the original
    rolled them); anything else from ``afresh``, the branch's seeded stream, marked so."""

    def __init__(self, original: Iterable[Mapping[str, Any]], afresh: DiceSource) -> None:
        self._original = list(original)
        self._used: set[int] = set()
        self._afresh = afresh

    def _take(self, die: Die, purpose: str, *, moot: bool) -> Roll | None:
        for index, roll in enumerate(self._original):
            if (
                index not in self._used
                and roll["die"] == die.value
                and roll["purpose"] == purpose
                and bool(roll.get("moot")) == moot
            ):
                self._used.add(index)
                return Roll(
                    die=die,
                    result=roll["result"],
                    purpose=purpose,
                    source=RollSource(roll["source"]),
                    counter=roll.get("counter"),
                    moot=moot,
                )
        return None

    def roll(self, die: Die, purpose: str) -> Roll:
        kept = self._take(die, purpose, moot=False)
        if kept is not None:
            return kept
        return dataclasses.replace(self._afresh.roll(die, purpose), afresh=True)

    def roll_moot(self, die: Die, purpose: str) -> Roll | None:
        # A die that cannot matter is kept when the table rolled it, and never rolled afresh:
        # the server rolls no such die (rules.dice.roll_moot).
        return self._take(die, purpose, moot=True)


# --- The point ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Point:
    """Where a branch leaves its original: after ``sequence``, in words."""

    sequence: int
    words: str


def _command_of(event: StoredEvent) -> str | None:
    command = event.metadata.get("command")
    return str(command) if command is not None else None


def _end_of_command(campaign_id: uuid.UUID, sequence: int) -> int:
    """The last event of the command the event at ``sequence`` belongs to."""
    first = store.read_sequences(campaign_id, [sequence])
    if not first:
        return sequence
    command = _command_of(first[0])
    last = sequence
    for event in store.read(campaign_id, after=sequence):
        if command is None or _command_of(event) != command:
            break
        last = event.sequence
    return last


def resolve_point(
    campaign_id: uuid.UUID,
    *,
    sequence: int | None = None,
    before_battle: uuid.UUID | None = None,
    after_battle: uuid.UUID | None = None,
) -> Point:
    """The point a branch starts from: after an event, or before or after a battle. An event in
    the middle of a command's events is refused: a branch starts between commands."""
    given = [name for name, value in (("sequence", sequence), ("before_battle", before_battle),
             ("after_battle", after_battle)) if value is not None]  # fmt: skip
    if len(given) != 1:
        raise CommandError(
            "branch.point_required",
            "Give exactly one point: sequence, before_battle or after_battle.",
            field="point",
        )
    last = store.last_sequence(campaign_id)
    if sequence is not None:
        if not 1 <= sequence <= last:
            raise CommandError(
                "branch.point_outside_log",
                f"The campaign's log runs from event 1 to event {last}.",
                field="point.sequence",
            )
        end = _end_of_command(campaign_id, sequence)
        if end != sequence:
            raise CommandError(
                "branch.point_inside_command",
                f"Event {sequence} is not the last of its command: a branch starts between "
                f"commands, after event {end} for instance.",
                field="point.sequence",
            )
        return Point(sequence, f"after event {sequence}")
    battle_id = before_battle or after_battle
    assert battle_id is not None  # one of the three was given
    field = "point.before_battle" if before_battle is not None else "point.after_battle"
    bounds = store.stream_bounds(campaign_id, f"battle:{battle_id}")
    if bounds is None:
        raise NotFound("battle.not_found", "No such battle in this campaign.", field=field)
    name = _battle_name(campaign_id, battle_id)
    if before_battle is not None:
        if bounds[0] <= 1:
            raise CommandError(
                "branch.point_outside_log", "Nothing comes before that battle.", field=field
            )
        return Point(bounds[0] - 1, f"before {name}")
    return Point(_end_of_command(campaign_id, bounds[1]), f"after {name}")


def _battle_name(campaign_id: uuid.UUID, battle_id: uuid.UUID) -> str:
    """The battle as its planning named it (this app sits below the battles: it reads the log)."""
    planned = next(iter(store.read(campaign_id, stream=f"battle:{battle_id}", limit=1)), None)
    name = planned.payload.get("name") if planned is not None else None
    return f"the battle {name!r}" if name else "the battle"


# --- Making a branch ------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewBranch:
    branch_id: uuid.UUID
    job: Job
    point: Point
    commands: int


def options_at(campaign_id: uuid.UUID, upto: int) -> tuple[str, dict[str, Any]]:
    """The campaign's ruleset and options as they stood after event ``upto``."""
    ruleset, options = "", {}
    voided = projections.voids(campaign_id, upto)
    for event in store.read(campaign_id, upto=upto):
        if event.sequence in voided:
            continue
        if event.type == "campaigns.CampaignCreated":
            ruleset, options = event.payload["ruleset"], dict(event.payload["options"])
        elif event.type == "campaigns.OptionsChanged":
            options = dict(event.payload["options"])
    return ruleset, options


def _changed_options(
    ruleset: str, current: Mapping[str, Any], changes: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, dict[str, object]]]:
    """The branch's options and what changed, validated as an umpire's change would be."""
    try:
        base = parse_options(ruleset, dict(current))
        updated = parse_options(ruleset, dict(changes), base=base, refuse_retired=True)
    except OptionsError as exc:
        raise options_error(exc) from None
    before, after = options_to_dict(base), options_to_dict(updated)
    changed = {
        name: {"from": before.get(name), "to": value}
        for name, value in after.items()
        if before.get(name) != value
    }
    return after, changed


def rerun_plan(campaign_id: uuid.UUID, after: int, upto: int) -> list[tuple[str, list[int]]]:
    """The commands whose events come after ``after`` up to ``upto``, in the order they were
    appended, each with its events' sequences."""
    plan: dict[str, list[int]] = {}
    for event in store.read(campaign_id, after=after, upto=upto):
        command = _command_of(event) or f"event:{event.sequence}"
        plan.setdefault(command, []).append(event.sequence)
    return list(plan.items())


def branch_create(
    *,
    original_id: uuid.UUID,
    actor_id: int,
    point: Point,
    option_changes: Mapping[str, Any],
    name: str | None = None,
    seed: str | None = None,
    dispatch: bool = True,
) -> NewBranch:
    """Make a branch of ``original_id`` from ``point`` under ``option_changes``: its creation,
    the original's log up to the point and the change of options, in one transaction, with the
    job that runs the original's later commands again (dispatched when that commits, unless
    ``dispatch`` is false: the command line runs it itself)."""
    original = Campaign.objects.filter(pk=original_id).first()
    if original is None:
        raise NotFound("campaign.not_found", "No such campaign.")
    label = (name or f"{original.name} (branch {point.words})").strip()[:MAX_NAME]
    if not label:
        raise CommandError("branch.name_required", "A branch needs a name.", field="name")
    if seed is not None and not re.fullmatch(r"[0-9a-f]{64}", seed):
        raise CommandError("campaign.bad_seed", "A seed is 64 hexadecimal digits.", field="seed")
    ruleset, options = options_at(original_id, point.sequence)
    branch_options, changed = _changed_options(ruleset, options, option_changes)
    original_last = store.last_sequence(original_id)
    plan = rerun_plan(original_id, point.sequence, original_last)
    branch_id = uuid.uuid4()
    ids = IdMap(original_id, branch_id)
    seed = seed or secrets.token_hex(32)
    create_id = uuid.uuid4()
    umpire = get_user_model()._default_manager.filter(pk=actor_id).first()
    if umpire is None:
        raise CommandError("campaign.umpire_required", "A branch is made by an umpire.")
    with transaction.atomic(durable=True):
        store.lock_campaign(branch_id)
        CampaignSeed.objects.create(campaign_id=branch_id, seed=seed)
        created = _creation(
            original_id,
            ids,
            label,
            seed,
            BranchOrigin(
                campaign_id=original_id,
                sequence=point.sequence,
                original_last_sequence=original_last,
                point=point.words,
                option_changes={key: value["to"] for key, value in changed.items()},
                branched_by=actor_id,
            ),
        )
        store.append(
            branch_id,
            [NewEvent.of(created, stream=f"campaign:{branch_id}")],
            actor_id=actor_id,
            metadata={"command": str(create_id), "command_name": BRANCH_CREATE},
            project=False,
            savepoint=False,
        )
        _copy_prefix(original_id, ids, point.sequence)
        if changed:
            _change_options(branch_id, actor_id, branch_options, changed, point)
        projections.rebuild(branch_id)
        CommandRecord.objects.create(
            id=create_id,
            campaign_id=branch_id,
            name=BRANCH_CREATE,
            params={
                "original_id": str(original_id),
                "point": point.sequence,
                "options": dict(option_changes),
                "name": label,
            },
            dice_source=CommandRecord.DiceSource.NONE,
            actor_id=actor_id,
            fingerprint="",
            first_sequence=1,
            last_sequence=store.last_sequence(branch_id),
            response_status=202,
            recorded_at=timezone.now(),
        )
        job = Job.objects.create(
            campaign_id=branch_id,
            ordinal=1,
            kind=RERUN_JOB,
            params={
                "original_id": str(original_id),
                "after": point.sequence,
                "upto": original_last,
            },
            command_id=create_id,
            requested_by_id=actor_id,
            requested_at=timezone.now(),
            progress={"done": 0, "total": len(plan), "refused": 0, "skipped": 0},
        )
        if dispatch:
            job_id = job.pk
            transaction.on_commit(lambda: jobs.dispatch(job_id), robust=True)
    return NewBranch(branch_id=branch_id, job=job, point=point, commands=len(plan))


def _creation(
    original_id: uuid.UUID, ids: IdMap, name: str, seed: str, origin: BranchOrigin
) -> CampaignCreated:
    first = next(iter(store.read(original_id, upto=1)))
    payload = first.payload
    return CampaignCreated(
        campaign_id=ids.branch,
        name=name,
        ruleset=payload["ruleset"],
        options=payload["options"],
        umpire_id=payload["umpire_id"],
        umpire_username=payload.get("umpire_username", ""),
        seed_commitment=seed_commitment(bytes.fromhex(seed)),
        branch_of=origin,
    )


def _copy_prefix(original_id: uuid.UUID, ids: IdMap, upto: int) -> None:
    """The original's events 2 to ``upto`` (its creation is the branch's own), ids translated,
    each append as it was (its events, metadata and time), and the records of their commands."""
    group: list[StoredEvent] = []
    command_ids: set[str] = set()

    def flush() -> None:
        if not group:
            return
        first = group[0]
        store.append(
            ids.branch,
            [
                NewEvent(e.type, ids.json(e.payload), ids.text(e.stream), e.schema_version)
                for e in group
            ],
            metadata={
                **ids.json(first.metadata),
                **_rolled_in(first, original_id),
                **_derived_from(first, original_id),
            },
            recorded_at=first.recorded_at,
            project=False,
            savepoint=False,
        )
        group.clear()

    for event in store.read(original_id, after=1, upto=upto, upcast=False):
        if group and (
            group[-1].recorded_at != event.recorded_at or group[-1].metadata != event.metadata
        ):
            flush()
        group.append(event)
        command = _command_of(event)
        if command is not None:
            command_ids.add(command)
    flush()
    records = CommandRecord.objects.filter(campaign_id=original_id, id__in=command_ids)
    CommandRecord.objects.bulk_create(
        [
            CommandRecord(
                id=ids(record.id),
                campaign_id=ids.branch,
                name=record.name,
                params=ids.json(record.params),
                dice_source=record.dice_source,
                table_dice=ids.json(record.table_dice),
                actor_id=record.actor_id,
                fingerprint=record.fingerprint,
                first_sequence=record.first_sequence,
                last_sequence=record.last_sequence,
                response_status=record.response_status,
                response_body=ids.json(record.response_body),
                recorded_at=record.recorded_at,
            )
            for record in records.iterator()
            if record.name != BRANCH_CREATE
        ]
    )


def _rolled_in(event: StoredEvent, original_id: uuid.UUID) -> dict[str, str]:
    """Whose seed rolled the server dice an event of the original holds: the original's, or, if
    the original is a branch itself, whoever it says (rules/dice_verification.py)."""
    return {"dice_rolled_in": str(event.metadata.get("dice_rolled_in") or original_id)}


def _derived_from(event: StoredEvent, original_id: uuid.UUID) -> dict[str, str]:
    """Whose command the ids an event's command created were derived from, and in which
    campaign: the command itself in the original, or, if the original had it from its own
    original, whatever it says. A branch of a branch derives ids from there, translated by the
    map between that campaign and itself (the maps compose: see IdMap)."""
    command = _command_of(event)
    if command is None:
        return {}
    return {
        "ids_from": str(event.metadata.get("ids_from") or command),
        "ids_campaign": str(event.metadata.get("ids_campaign") or original_id),
    }


def _change_options(
    branch_id: uuid.UUID,
    actor_id: int,
    options: dict[str, Any],
    changed: dict[str, dict[str, object]],
    point: Point,
) -> None:
    """The branch's own options, as an ordinary change of options right after the point (so a
    branch of this branch runs it again like any other)."""
    reason = f"The branch's options, from {point.words}."
    command_id = uuid.uuid4()
    change = OptionsChanged(options=options, changes=changed, reason=reason)
    appended = store.append(
        branch_id,
        [NewEvent.of(change, stream=f"campaign:{branch_id}")],
        actor_id=actor_id,
        metadata={"command": str(command_id), "command_name": "campaigns.options_change"},
        project=False,
        savepoint=False,
    )
    sequence = appended.events[0].sequence
    CommandRecord.objects.create(
        id=command_id,
        campaign_id=branch_id,
        name="campaigns.options_change",
        params={"changes": {key: value["to"] for key, value in changed.items()}, "reason": reason},
        dice_source=CommandRecord.DiceSource.NONE,
        actor_id=actor_id,
        fingerprint="",
        first_sequence=sequence,
        last_sequence=sequence,
        response_status=201,
        recorded_at=timezone.now(),
    )


# --- Running the original's commands again ------------------------------------------------------


@dataclass(frozen=True)
class Rerun:
    """One command of the original, to run again in the branch."""

    command_id: str
    sequences: list[int]


class _Refused(Exception):
    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.field = code, message, field


@jobs.procedure(RERUN_JOB)
def rerun_branch(job_id: uuid.UUID, *, progress: Callable[[int], None] | None = None) -> None:
    """Run the original's commands again in the branch, one per transaction, each with the job's
    progress, so a job stopped half way goes on from where it stopped."""
    job = Job.objects.get(pk=job_id)
    original_id = uuid.UUID(job.params["original_id"])
    plan = rerun_plan(original_id, job.params["after"], job.params["upto"])
    ids = IdMap(original_id, job.campaign_id)
    branch_options = _branch_options(job.campaign_id)
    while True:
        with transaction.atomic(durable=True):
            job = Job.objects.select_for_update().get(pk=job_id)
            state = dict(job.progress or {})
            done = state.get("done", 0)
            if done >= len(plan):
                return
            store.lock_campaign(job.campaign_id)
            command_id, sequences = plan[done]
            outcome = _rerun_one(
                original_id, ids, Rerun(command_id, sequences), done + 1, branch_options
            )
            state["done"] = done + 1
            if outcome != "ran":
                state[outcome] = state.get(outcome, 0) + 1
            job.progress = state
            job.save(update_fields=["progress"])
        if progress is not None:
            progress(1)


def _branch_options(branch_id: uuid.UUID) -> set[str]:
    """The options the branch chose: an option change of the original does not undo them."""
    created = next(iter(store.read(branch_id, upto=1)))
    origin = created.payload.get("branch_of") or {}
    return set(origin.get("option_changes", {}))


def _rerun_one(
    original_id: uuid.UUID, ids: IdMap, rerun: Rerun, number: int, kept_options: set[str]
) -> str:
    """Run one command of the original again: "ran", "refused" or "skipped"."""
    events = store.read_sequences(original_id, rerun.sequences)
    first = events[0]
    name = str(first.metadata.get("command_name", ""))
    record = CommandRecord.objects.filter(campaign_id=original_id, id=rerun.command_id).first()
    metadata = {
        "rerun_of": rerun.command_id,
        **_rolled_in(first, original_id),
        **_derived_from(first, original_id),
    }
    for kept in ("dice_namespace", "dice_epoch"):
        if kept in first.metadata:
            metadata[kept] = first.metadata[kept]
    try:
        if record is None or name == BRANCH_CREATE:
            raise _Refused(
                "branch.command_not_recorded",
                f"The original's events {rerun.sequences[0]}-{rerun.sequences[-1]} were not "
                "written by a recorded command, so they cannot be run again.",
            )
        try:
            cmd = commands.get(record.name)
        except LookupError:
            raise _Refused(
                "branch.unknown_command", f"{record.name} is not a command of this version."
            ) from None
        if not cmd.replayable:
            return "skipped"
        params = _params_for_branch(record, ids, kept_options)
        namespace = f"rerun:{number}"
        dice = ReplayedDice(
            [ids.json(roll) for roll in rolls_of(events)],
            commands.server_dice(ids.branch, namespace),
        )
        with transaction.atomic():
            commands.run_again(
                record.name,
                campaign_id=ids.branch,
                params=params,
                actor_id=record.actor_id,
                dice=dice,
                dice_source=record.dice_source,
                ids_from=uuid.UUID(metadata["ids_from"]),
                translate_id=IdMap(uuid.UUID(metadata["ids_campaign"]), ids.branch),
                recorded_at=first.recorded_at,
                metadata={
                    **metadata,
                    "afresh_dice_namespace": namespace,
                    "afresh_dice_epoch": dice_epochs.current_dice_epoch(ids.branch),
                },
            )
        return "ran"
    except CommandError as refusal:
        refused = _Refused(refusal.code, refusal.message, refusal.field)
    except _Refused as own:
        refused = own
    payload = BranchCommandRefused(
        original_command_id=uuid.UUID(rerun.command_id)
        if _UUID.fullmatch(rerun.command_id)
        else uuid.UUID(int=0),
        command=(record.name if record is not None else name)[:100] or "unknown",
        code=refused.code[:100],
        message=refused.message[:2000],
        field=refused.field,
    )
    if record is not None:
        # The refused command stays on record in the branch, so a branch of this branch runs
        # it again (its dice afresh: none was rolled here).
        metadata["command"] = str(ids(record.id))
    appended = store.append(
        ids.branch,
        [NewEvent.of(payload, stream=f"campaign:{ids.branch}")],
        actor_id=record.actor_id if record is not None else None,
        metadata={**metadata, "command_name": payload.command},
        recorded_at=first.recorded_at,
        savepoint=False,
    )
    if record is not None:
        sequence = appended.events[0].sequence
        CommandRecord.objects.create(
            id=ids(record.id),
            campaign_id=ids.branch,
            name=record.name,
            params=ids.json(record.params),
            dice_source=record.dice_source,
            actor_id=record.actor_id,
            fingerprint=record.fingerprint,
            first_sequence=sequence,
            last_sequence=sequence,
            response_status=422,
            response_body={"code": payload.code, "message": payload.message},
            recorded_at=timezone.now(),
        )
    return "refused"


def _params_for_branch(record: CommandRecord, ids: IdMap, kept_options: set[str]) -> Any:
    """The command's parameters in the branch: ids translated; an original's event named by its
    sequence, the branch's counterpart of it; the branch's own options left as it set them."""
    params = ids.json(record.params)
    if record.name == "campaigns.options_change":
        changes = {k: v for k, v in params.get("changes", {}).items() if k not in kept_options}
        if not changes:
            raise _Refused(
                "branch.options_kept",
                "The branch keeps its own value of "
                + ", ".join(sorted(params.get("changes", {})))
                + ": the original's change of it is not made here.",
                "changes",
            )
        params["changes"] = changes
    if record.name == "eventlog.event_void":
        params["sequence"] = _counterpart(record.campaign_id, ids, int(params["sequence"]))
    return params


def _counterpart(original_id: uuid.UUID, ids: IdMap, sequence: int) -> int:
    """The branch's event that stands for the original's event ``sequence``: the same one in the
    copied log, or the event in the same place among the events of the same command run
    again."""
    branch_created = next(iter(store.read(ids.branch, upto=1)))
    point = branch_created.payload["branch_of"]["sequence"]
    if sequence <= point:
        return sequence
    found = store.read_sequences(original_id, [sequence])
    if not found or _command_of(found[0]) is None:
        raise _Refused("branch.no_counterpart", f"Event {sequence} has no counterpart here.")
    target = found[0]
    command = _command_of(target)
    siblings = [
        e.sequence
        for e in store.read(original_id, after=point)
        if _command_of(e) == command and e.sequence <= sequence
    ]
    index = len(siblings) - 1
    rerun = (
        Event.objects.filter(campaign_id=ids.branch, metadata__rerun_of=command)
        .order_by("sequence")
        .values_list("sequence", "type")
    )
    ran = list(rerun)
    if index < len(ran) and ran[index][1] == target.type:
        return ran[index][0]
    raise _Refused(
        "branch.no_counterpart",
        f"The original's event {sequence} ({target.type}) did not happen in this branch, so "
        "it cannot be voided here.",
        "sequence",
    )


# --- Deleting a branch ----------------------------------------------------------------------------


def branch_delete(*, branch_id: uuid.UUID, actor_id: int) -> None:
    """Erase a branch: its log, commands, jobs, seed and read models. Only a branch, only by the
    umpire who made it, and not while another branch grows from it; the original is never
    touched (its events are not the branch's: the branch holds copies)."""
    with transaction.atomic(durable=True):
        store.lock_campaign(branch_id)
        campaign = Campaign.objects.filter(pk=branch_id).first()
        if campaign is None or not campaign.branch_of:
            raise NotFound("branch.not_found", "No such branch.")
        if campaign.branch_of.get("branched_by") != actor_id:
            raise StateConflict(
                "branch.not_yours",
                "Only the umpire who made a branch may delete it.",
            )
        children = Campaign.objects.filter(branch_of__campaign_id=str(branch_id))
        if children.exists():
            raise StateConflict(
                "branch.has_branches",
                "Other branches were made from this one: delete them first.",
            )
        running = Job.objects.filter(
            campaign_id=branch_id, status__in=(Job.Status.PENDING, Job.Status.RUNNING)
        )
        if running.exists():
            raise StateConflict(
                "branch.busy", "The branch is still being played through; delete it after."
            )
        ErasedCampaign.objects.create(
            campaign_id=branch_id,
            erased_by_id=actor_id,
            erased_at=timezone.now(),
            reason="branch deleted",
        )
        for model in _campaign_tables():
            model._default_manager.filter(campaign_id=branch_id).delete()


def _campaign_tables() -> list[type[models.Model]]:
    """Every table with rows of a campaign (a ``campaign_id`` column), but the list of erased
    campaigns: the log, its heads, commands, jobs, seeds, read models, webhooks and their logs."""
    return [
        model
        for model in apps.get_models()
        if model is not ErasedCampaign
        and any(f.attname == "campaign_id" for f in model._meta.concrete_fields)
    ]


def branches_of(campaign_id: uuid.UUID) -> QuerySet[Campaign]:
    """The branches made from a campaign, oldest first."""
    return Campaign.objects.filter(branch_of__campaign_id=str(campaign_id)).order_by(
        "created_at", "id"
    )


def rerun_job(branch_id: uuid.UUID) -> Job | None:
    return Job.objects.filter(campaign_id=branch_id, kind=RERUN_JOB).first()
