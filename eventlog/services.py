"""Appending an event an umpire wrote by hand (``POST /campaigns/{id}/events/``)."""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

from eventlog import catalogue, store
from eventlog.errors import CommandError, ConcurrencyConflict
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
