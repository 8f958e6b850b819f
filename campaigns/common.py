"""What the campaign commands share: the campaign's stream, reasons, and option refusals."""

from __future__ import annotations

import uuid

from eventlog.errors import CommandError
from rules.options import OptionsError

MAX_REASON_LENGTH = 500


def campaign_stream(campaign_id: uuid.UUID) -> str:
    return f"campaign:{campaign_id}"


def given_reason(reason: str | None, *, code: str) -> str:
    """The reason an umpire gave for a change, trimmed; refused when empty or too long."""
    reason = (reason or "").strip()
    if not reason:
        raise CommandError(code, "Say why.", field="reason")
    if len(reason) > MAX_REASON_LENGTH:
        raise CommandError(
            code, f"Keep the reason to {MAX_REASON_LENGTH} characters.", field="reason"
        )
    return reason


def options_error(exc: OptionsError) -> CommandError:
    """The first problem with some options, naming the option (``options.<name>``)."""
    problem = exc.errors[0]
    return CommandError(
        problem.code,
        problem.message,
        field=f"options.{problem.field}" if problem.field else "options",
    )
