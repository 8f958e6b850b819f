"""The event catalogue: every event type, its schema version, payload schema and stream.

Each app declares its event types in its ``events.py`` as pydantic models decorated with
:func:`event_type`. The catalogue validates payloads at the boundary, upcasts old payloads on read,
and publishes the schemas (``GET /api/v1/event-types/``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from eventlog.errors import CommandError

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


class EventPayload(BaseModel):
    """Base class for event payloads: immutable, and strict about unknown fields."""

    model_config = ConfigDict(extra="forbid", frozen=True)


P = TypeVar("P", bound=type[EventPayload])


@dataclass(frozen=True)
class EventType:
    """What the catalogue knows about one event type."""

    name: str
    schema_version: int
    payload_model: type[EventPayload]
    stream_category: str
    description: str
    appendable: bool
    upcasters: Mapping[int, Upcaster] = field(default_factory=dict)

    def json_schema(self) -> dict[str, Any]:
        return self.payload_model.model_json_schema()

    def stream_for(self, entity_id: object) -> str:
        return f"{self.stream_category}:{entity_id}"


_REGISTRY: dict[str, EventType] = {}
_BY_MODEL: dict[type[EventPayload], EventType] = {}


def event_type(
    name: str,
    *,
    stream: str,
    version: int = 1,
    appendable: bool = False,
    upcasters: Mapping[int, Upcaster] | None = None,
) -> Callable[[P], P]:
    """Register a payload model as the event type ``name`` (``app.PastTenseVerb``).

    ``stream`` is the stream category (``campaign``, ``unit``...): events of this type go to
    streams named ``<category>:<id>``. ``appendable`` lets an umpire append it directly through
    the events endpoint; types that only a command may produce leave it off. ``upcasters`` maps an
    old schema version to a function turning such a payload into the next version's shape.
    """
    app, _, verb = name.partition(".")
    if not app or not verb or not verb[0].isupper():
        raise ValueError(f"Event type names look like 'app.PastTenseVerb', not {name!r}.")
    upcasters = dict(upcasters or {})
    missing = [v for v in range(1, version) if v not in upcasters]
    if missing:
        raise ValueError(f"{name} v{version} needs upcasters from versions {missing}.")

    def register(model: P) -> P:
        if name in _REGISTRY and _REGISTRY[name].payload_model is not model:
            raise ValueError(f"Event type {name} is registered twice.")
        spec = EventType(
            name=name,
            schema_version=version,
            payload_model=model,
            stream_category=stream,
            description=(model.__doc__ or "").strip(),
            appendable=appendable,
            upcasters=upcasters,
        )
        _REGISTRY[name] = spec
        _BY_MODEL[model] = spec
        return model

    return register


def unregister(name: str) -> None:
    """Remove a type from the catalogue (used by tests that declare throwaway types)."""
    spec = _REGISTRY.pop(name, None)
    if spec is not None:
        _BY_MODEL.pop(spec.payload_model, None)


def all_types() -> Iterator[EventType]:
    return iter(sorted(_REGISTRY.values(), key=lambda spec: spec.name))


def get(name: str) -> EventType:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise CommandError(
            "event.unknown_type", f"There is no event type called {name!r}.", field="type"
        ) from None


def spec_of(payload: EventPayload) -> EventType:
    return _BY_MODEL[type(payload)]


def validate_payload(name: str, payload: object) -> dict[str, Any]:
    """Validate a raw payload against the current schema of ``name``; return its JSON form."""
    spec = get(name)
    try:
        model = spec.payload_model.model_validate(payload)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise CommandError(
            "event.invalid_payload",
            f"The payload is not a valid {name}: {first['msg']}"
            + (f" (at {where})." if where else "."),
            field="payload" + (f".{where}" if where else ""),
        ) from None
    return model.model_dump(mode="json")


def upcast(name: str, schema_version: int, payload: dict[str, Any]) -> dict[str, Any]:
    """Bring a stored payload up to the current schema version of its type, without storing it."""
    spec = _REGISTRY.get(name)
    if spec is None or schema_version >= spec.schema_version:
        return payload
    for version in range(schema_version, spec.schema_version):
        payload = spec.upcasters[version](payload)
    return payload
