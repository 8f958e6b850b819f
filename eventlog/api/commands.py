"""Commands over HTTP: one way for every view to run a command and answer it.

A view parses nothing the command does not: it names the command, passes the body and the ids
from the URL, and says how the outcome is rendered. The ``Idempotency-Key`` header and an
``expected_version`` field in the body work the same on every command.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from eventlog import commands
from eventlog.api.serializers import event_to_json, job_accepted
from eventlog.errors import CommandError
from eventlog.models import Job

# Body fields every command accepts besides its own parameters.
EXPECTED_VERSION = "expected_version"
DICE = "dice"


def body_of(request: Request) -> Mapping[str, Any]:
    """The request's body as an object: a body that is not one (a JSON list, say) gives no
    fields, and the command refuses what it then misses."""
    return request.data if isinstance(request.data, Mapping) else {}


def expected_version_of(body: Mapping[str, Any]) -> int | None:
    value = body.get(EXPECTED_VERSION)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise CommandError(
            "invalid.expected_version",
            "expected_version is the stream version you last read: a whole number from 0.",
            field=EXPECTED_VERSION,
        )
    return value


def dice_of(body: Mapping[str, Any]) -> list[int] | None:
    value = body.get(DICE)
    if value is None:
        return None
    if not isinstance(value, list) or any(
        isinstance(face, bool) or not isinstance(face, int) for face in value
    ):
        raise CommandError(
            "invalid.dice",
            "dice are the faces rolled at the table, a list of whole numbers.",
            field=DICE,
        )
    return value


def params_of(body: Mapping[str, Any], **from_url: Any) -> dict[str, Any]:
    """The command's parameters: the body without the fields every command shares, and the
    ids the URL names (which the body cannot override)."""
    params = {k: v for k, v in body.items() if k not in (EXPECTED_VERSION, DICE)}
    params.update({k: str(v) if isinstance(v, uuid.UUID) else v for k, v in from_url.items()})
    return params


def events_body(outcome: commands.Outcome) -> tuple[int, Any]:
    """201 and the events a command appended."""
    return status.HTTP_201_CREATED, {"events": [event_to_json(event) for event in outcome.events]}


def execute(
    request: Request,
    name: str,
    *,
    campaign_id: uuid.UUID,
    params: Mapping[str, Any] | None = None,
    dice: Sequence[int] | None = None,
    respond: Callable[[commands.Outcome], tuple[int, Any]] = events_body,
) -> Response:
    """Run a command for the request's user and answer it: the rendered outcome, or 202 and the
    job when the server rolls. With ``Idempotency-Key`` a repeated request gets the first answer
    (``Idempotent-Replayed: true``) and appends nothing."""
    body = body_of(request)
    outcome = commands.run(
        name,
        campaign_id=campaign_id,
        params=params if params is not None else params_of(body),
        actor_id=request.user.pk,
        dice=dice,
        expected_version=expected_version_of(body),
        idempotency_key=request.headers.get("Idempotency-Key"),
        respond=lambda out: (status.HTTP_202_ACCEPTED, None) if out.job else respond(out),
    )
    return respond_with(request, outcome)


def respond_with(request: Request, outcome: commands.Outcome) -> Response:
    if outcome.job is not None:
        response = job_accepted(request, Job.objects.get(pk=outcome.job.pk))
    else:
        response = Response(outcome.body, status=outcome.status)
    if outcome.replayed:
        response["Idempotent-Replayed"] = "true"
    return response
