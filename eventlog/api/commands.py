"""Commands over HTTP: one way for every view to run a command and answer it.

A view parses nothing the command does not: it names the command, passes the body and the ids
from the URL, and says how the outcome is rendered. The ``Idempotency-Key`` header and an
``expected_version`` field in the body work the same on every command.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from eventlog import commands
from eventlog.api.serializers import event_to_json, job_accepted
from eventlog.command_input import EnteredDice
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


def dice_of(body: Mapping[str, Any]) -> EnteredDice | None:
    """The table's dice: faces in the order the rules use them, or each keyed by what it is for
    (``{"face": 4, "for": "<unit or trooper id>", "purpose": "..."}``); checked by the runner."""
    value = body.get(DICE)
    if value is None:
        return None
    if not isinstance(value, list) or any(
        isinstance(face, bool) or not isinstance(face, int | Mapping) for face in value
    ):
        raise CommandError(
            "invalid.dice",
            "dice are the faces rolled at the table: a list of whole numbers, or of faces keyed "
            'by what they are for ({"face": 4, "for": "<id>"}).',
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
    dice: EnteredDice | None = None,
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


def query_params(request: Request, **from_url: Any) -> dict[str, Any]:
    """A command's parameters from a query string, for the dice prompt: a repeated key is a
    list, a value that starts like JSON (``[``, ``{``) is read as JSON, any other stays text
    (the command's own validation turns ``"2"`` into 2)."""
    params: dict[str, Any] = {}
    for key in request.query_params:
        if key == DICE:
            continue
        values = [_query_value(v) for v in request.query_params.getlist(key)]
        params[key] = values if len(values) > 1 else values[0]
    params.update({k: str(v) if isinstance(v, uuid.UUID) else v for k, v in from_url.items()})
    return params


def _query_value(raw: str) -> Any:
    if raw[:1] in ("[", "{"):
        try:
            return json.loads(raw)
        except ValueError:
            return raw  # left for the command's validation to refuse, with its field
    return raw


def _query_dice(request: Request) -> list[int]:
    raw = request.query_params.get(DICE, "")
    try:
        return [int(face) for face in raw.split(",") if face.strip()]
    except ValueError:
        raise CommandError(
            "invalid.dice", "dice are faces separated by commas: dice=3,5,1.", field=DICE
        ) from None


def typed_query(model: type[BaseModel], params: Mapping[str, Any]) -> dict[str, Any]:
    """Parameters from a query string, where every value is text, as the command reads them: a
    field the command takes as a whole number, a number or a yes/no gets the one its text
    spells (``?impact_die=6`` is the die 6, which a field of fixed numbers would not take as
    the text "6"); anything else is left as it is, for the command's own validation to judge."""
    schema = model.model_json_schema()
    definitions = schema.get("$defs", {})
    fields = schema.get("properties", {})
    typed = dict(params)
    for key, value in params.items():
        kinds = _scalar_kinds(fields.get(key, {}), definitions)
        if isinstance(value, list):
            typed[key] = [_spelled(item, kinds) for item in value]
        else:
            typed[key] = _spelled(value, kinds)
    return typed


def _scalar_kinds(schema: Mapping[str, Any], definitions: Mapping[str, Any]) -> set[str]:
    """The JSON types of the values a field (or its list's items) takes."""
    if "$ref" in schema:
        return _scalar_kinds(definitions.get(schema["$ref"].rsplit("/", 1)[-1], {}), definitions)
    kinds: set[str] = set()
    declared = schema.get("type")
    kinds |= set(declared) if isinstance(declared, list) else {declared} if declared else set()
    for choice in schema.get("enum", ()):
        kinds.add({bool: "boolean", int: "integer", float: "number"}.get(type(choice), "string"))
    if "const" in schema:
        kinds |= _scalar_kinds({"enum": [schema["const"]]}, definitions)
    for alternative in (*schema.get("anyOf", ()), *schema.get("oneOf", ())):
        kinds |= _scalar_kinds(alternative, definitions)
    if "items" in schema:
        kinds |= _scalar_kinds(schema["items"], definitions)
    return kinds


_WHOLE = re.compile(r"-?[0-9]+")


def _spelled(value: Any, kinds: set[str]) -> Any:
    if not isinstance(value, str) or "string" in kinds:
        return value
    if "integer" in kinds and _WHOLE.fullmatch(value):
        return int(value)
    if "number" in kinds:
        try:
            return float(value)
        except ValueError:
            return value
    if "boolean" in kinds and value in ("true", "false"):
        return value == "true"
    return value


def dice_prompt(
    request: Request, name: str, *, campaign_id: uuid.UUID, params: Mapping[str, Any]
) -> Response:
    """The dice a command would ask the table for, with the faces in ``?dice=`` so far: each
    die in order with its purpose and whom it is for, and whether the faces complete it."""
    found = commands.prompt(
        name,
        campaign_id=campaign_id,
        params=typed_query(commands.get(name).Params, params),
        actor_id=request.user.pk,
        dice=_query_dice(request),
    )
    return Response(
        {  # DicePromptSerializer
            "complete": found.complete,
            "dice": [
                {
                    "die": need.die.value,
                    "purpose": need.purpose,
                    "for": need.subject,
                    "within": list(need.within),
                    "face": need.result,
                    "assumed": need.assumed,
                    "moot": need.moot,
                }
                for need in found.needs
            ],
        }
    )
