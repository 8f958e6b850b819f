"""Commands on the log itself: appending an event written by hand, and voiding an event."""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

from eventlog import catalogue, store
from eventlog.errors import CommandError, ConcurrencyConflict, NotFound, StateConflict
from eventlog.events import VOIDED, EventVoided
from eventlog.projections import voids
from eventlog.store import AppendResult, NewEvent


def request_fingerprint(**parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def event_append(
    *,
    campaign_id: uuid.UUID,
    type_name: str,
    payload: object,
    stream: str | None,
    expected_version: int | None,
    idempotency_key: str | None,
    actor_id: int,
) -> AppendResult:
    """Validate one event against the catalogue and append it to the campaign's log.

    Only types marked appendable may be written this way; the rest are produced by commands
    that check the rules first.
    """
    spec = catalogue.get(type_name)
    if not spec.appendable:
        raise CommandError(
            "event.not_appendable",
            f"{type_name} events are recorded by their own commands, not appended directly.",
            field="type",
        )
    if stream is None:
        if spec.stream_category != "campaign":
            raise CommandError("event.stream_required", "Name the stream.", field="stream")
        stream = f"campaign:{campaign_id}"
    if spec.stream_category == "campaign" and stream != f"campaign:{campaign_id}":
        raise CommandError(
            "event.wrong_stream",
            f"{type_name} events go to this campaign's stream 'campaign:{campaign_id}'.",
            field="stream",
        )
    if idempotency_key is not None and not 1 <= len(idempotency_key) <= 200:
        raise CommandError(
            "idempotency.invalid_key",
            "An Idempotency-Key has 1 to 200 characters.",
            field="Idempotency-Key",
        )
    event = NewEvent.from_raw(type_name, payload, stream=stream)
    fingerprint = request_fingerprint(
        type=type_name, payload=event.payload, stream=stream, expected_version=expected_version
    )
    result = store.append(
        campaign_id,
        [event],
        expected_versions={stream: expected_version} if expected_version is not None else None,
        idempotency_key=idempotency_key,
        fingerprint=fingerprint,
        actor_id=actor_id,
    )
    if result.replayed and result.fingerprint != fingerprint:
        raise ConcurrencyConflict(
            "idempotency.key_reused",
            "This Idempotency-Key was already used for a different request.",
            field="Idempotency-Key",
        )
    return result


UNVOIDABLE = frozenset({"campaigns.CampaignCreated", VOIDED})


def event_void(
    *, campaign_id: uuid.UUID, sequence: int, reason: str, actor_id: int
) -> AppendResult:
    """Void an earlier event of the campaign: read models are recomputed without it.

    The voided event stays in the log and the void is an event of its own, so the history shows
    both. A campaign's creation, a void, and an event already voided cannot be voided.
    """
    target = next(iter(store.read(campaign_id, after=sequence - 1, upto=sequence)), None)
    if target is None:
        raise NotFound(
            "void.unknown_event", f"Event #{sequence} is not in this campaign.", field="sequence"
        )
    if target.type in UNVOIDABLE:
        raise CommandError(
            "void.not_voidable", f"A {target.type} event cannot be voided.", field="sequence"
        )
    if sequence in voids(campaign_id):
        raise StateConflict(
            "void.already_voided", f"Event #{sequence} is already voided.", field="sequence"
        )
    if not reason or not reason.strip():
        raise CommandError("void.reason_required", "Say why the event is voided.", field="reason")
    void = EventVoided(sequence=sequence, reason=reason.strip())
    return store.append(
        campaign_id,
        [NewEvent.of(void, stream=f"campaign:{campaign_id}")],
        actor_id=actor_id,
        metadata={"voids": target.type},
    )
