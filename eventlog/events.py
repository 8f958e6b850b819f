"""Event types of the event log itself."""

from __future__ import annotations

from pydantic import Field

from eventlog.catalogue import EventPayload, event_type

VOIDED = "eventlog.EventVoided"


@event_type(VOIDED, stream="campaign")
class EventVoided(EventPayload):
    """The umpire voided an earlier event: every read model is recomputed as if it had never
    happened. The voided event stays in the log."""

    sequence: int = Field(ge=1, description="The campaign sequence number of the voided event.")
    reason: str = Field(min_length=1, max_length=500)
