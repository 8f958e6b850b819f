"""The battles API's bodies as the OpenAPI schema publishes them.

**Responses** are serializers that describe exactly what the views answer. The views render
their rows through them, so a field one reader's view of a row leaves out (a unit seen in
outline has no name) is there as null, never absent.

**Requests** of commands are the commands' own pydantic parameters, the models the commands
validate with: :func:`command_body` takes them less the ids the URL names, adds
``expected_version`` (every command takes it) and, for a command that rolls, the table's
``dice``. :class:`CommandBodyExtension` publishes such a body. pydantic writes JSON Schema
2020-12 and the published schema is OpenAPI 3.0, so it turns a ``null`` alternative into
``nullable`` and registers the nested models as components (a name already taken by another
shape is a schema warning, which the schema check turns into a failure).
"""

from __future__ import annotations

import enum
import inspect
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, Literal, cast

from drf_spectacular.extensions import (
    OpenApiSerializerExtension,
    OpenApiSerializerFieldExtension,
)
from drf_spectacular.plumbing import ComponentIdentity, ComponentRegistry, ResolvedComponent
from drf_spectacular.utils import OpenApiParameter
from pydantic import BaseModel, ConfigDict, Field, create_model
from rest_framework import serializers

from battles.models import Battle, Participant
from campaigns.visibility import Sight
from rosters.vocabulary import TrooperStatus
from rules.fad.points import PurchaseKind
from rules.sg2.suppression import UnitAction

# --- Requests: commands' pydantic parameters, published ---------------------------------------


class CommandBody(BaseModel):
    """A command's request body as the schema publishes it (see :func:`command_body`)."""

    model_config = ConfigDict(extra="forbid")


class LenientCommandBody(CommandBody):
    """A command's body whose view ignores the fields it does not know."""

    model_config = ConfigDict(extra="ignore")


Face = Annotated[int, Field(ge=1, le=12)]


class KeyedDie(BaseModel):
    """A face rolled at the table, entered for what it was rolled for, so that the order the
    faces are typed in does not matter across subjects."""

    model_config = ConfigDict(extra="forbid")

    face: Face
    for_: str | None = Field(
        default=None,
        alias="for",
        description="Whom the die is for: a unit's or a trooper's id, as the dice prompt says.",
    )
    purpose: str | None = Field(
        default=None, description="What it was rolled for, as the dice prompt words it."
    )
    die: Literal[4, 6, 8, 10, 12] | None = Field(
        default=None, description="The die rolled; checked against the die the rules ask for."
    )


TableDice = list[Face] | list[KeyedDie]

EXPECTED_VERSION_HELP = (
    "The version of the command's stream you last read: if it has moved on since, nothing is "
    "appended and the answer is 409."
)


def command_body(
    name: str,
    params: type[BaseModel],
    *,
    description: str | None,
    from_url: Iterable[str] = (),
    dice: str | None = None,
    unknown_ignored: bool = False,
) -> type[CommandBody]:
    """The body of a command taking ``params``: its fields less those the URL gives
    (``from_url``), ``expected_version``, and with ``dice`` (its help) the table's dice.
    ``unknown_ignored``: the view passes on only the fields it knows, so others are no error."""
    left_out = set(from_url)
    fields: dict[str, Any] = {
        field_name: (info.annotation, info)
        for field_name, info in params.model_fields.items()
        if field_name not in left_out
    }
    fields["expected_version"] = (
        int | None,
        Field(default=None, ge=0, description=EXPECTED_VERSION_HELP),
    )
    if dice is not None:
        fields["dice"] = (TableDice | None, Field(default=None, description=dice))
    body = create_model(
        name,
        __base__=LenientCommandBody if unknown_ignored else CommandBody,
        __doc__=description,
        __module__=params.__module__,
        **fields,
    )
    return cast(type[CommandBody], body)


_REF = "#/components/schemas/{model}"
_MAPS = ("properties", "$defs", "patternProperties")
_SCHEMAS = ("items", "additionalProperties", "not", "contains", "propertyNames")
_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_NULL = {"type": "null"}


def openapi_schema(node: Mapping[str, Any]) -> dict[str, Any]:
    """A pydantic JSON Schema (2020-12) as an OpenAPI 3.0 schema: ``anyOf [X, null]`` is ``X``
    made ``nullable`` (a nullable enum lists null, as drf-spectacular's own enums do), ``const``
    is a one-value ``enum``, a ``$ref`` with siblings is wrapped in ``allOf``, titles go."""
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title":
            continue
        if key in _MAPS:
            out[key] = {name: openapi_schema(item) for name, item in value.items()}
        elif key in _SCHEMAS and isinstance(value, Mapping):
            out[key] = openapi_schema(value)
        elif key in _LISTS:
            out[key] = [openapi_schema(item) for item in value]
        elif key == "const":
            out["enum"] = [value]
        else:
            out[key] = value
    for combiner in ("anyOf", "oneOf"):
        options = out.get(combiner)
        if not options or _NULL not in options:
            continue
        rest = [option for option in options if option != _NULL]
        del out[combiner]
        if len(rest) == 1:
            out = {**rest[0], **out}
        else:
            out[combiner] = rest
        out["nullable"] = True
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    if "$ref" in out and len(out) > 1:
        out["allOf"] = [{"$ref": out.pop("$ref")}]
    return out


def _register(registry: ComponentRegistry, name: str, schema: dict[str, Any]) -> dict[str, str]:
    """Register a schema as a component under its name, and refer to it; the same name for
    another shape is a warning (``ComponentRegistry.__contains__`` compares the identities:
    here, the shape)."""
    component = ResolvedComponent(
        name=name,
        type=ResolvedComponent.SCHEMA,
        schema=schema,
        object=ComponentIdentity(json.dumps(schema, sort_keys=True)),
    )
    if component not in registry:
        registry.register(component)
    return component.ref


def enum_ref(
    registry: ComponentRegistry, name: str, values: Sequence[Any], description: str = ""
) -> dict[str, str]:
    """A fixed set of values as an enum component of its own name.

    drf-spectacular names the enums it finds inline after the property they are found in, and
    warns when one property name carries several sets (every ``status``) or one set several
    names (a die's faces): a set named here keeps its own name and stays out of that."""
    kind = "integer" if all(isinstance(v, int) for v in values) else "string"
    schema: dict[str, Any] = {"type": kind, "enum": list(values)}
    if description:
        schema["description"] = description
    return _register(registry, name, schema)


def _named_enums(registry: ComponentRegistry, owner: str, schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with the inline enum of each property (or of its items) made a component
    named after the model and the property: ``CasualtiesActionCover``."""
    properties = schema.get("properties")
    if not properties:
        return schema
    named = {}
    for prop, sub in properties.items():
        items = sub.get("items") if sub.get("type") == "array" else None
        target = items if isinstance(items, Mapping) and "enum" in items else sub
        if "enum" not in target:
            named[prop] = sub
            continue
        values = [value for value in target["enum"] if value is not None]
        ref = enum_ref(registry, f"{owner}{camel(prop)}", values)
        rest = {k: v for k, v in target.items() if k not in ("enum", "type")}
        replaced = {"allOf": [ref], **rest} if rest else ref
        named[prop] = replaced if target is sub else {**sub, "items": replaced}
    return {**schema, "properties": named}


def openapi_of(model: type[BaseModel], registry: ComponentRegistry) -> dict[str, Any]:
    """A pydantic model's OpenAPI 3.0 schema, its nested models registered as components."""
    schema = model.model_json_schema(ref_template=_REF, mode="validation")
    for name, definition in schema.pop("$defs", {}).items():
        _register(registry, name, _named_enums(registry, name, openapi_schema(definition)))
    return _named_enums(registry, model.__name__, openapi_schema(schema))


class CommandBodyExtension(OpenApiSerializerExtension):
    """Publishes a :class:`CommandBody` as its own component, in OpenAPI 3.0. It takes
    precedence over drf-spectacular's pydantic support, which writes the schema as JSON Schema
    2020-12 (``{"type": "null"}`` alternatives an OpenAPI 3.0 reader refuses)."""

    target_class = CommandBody
    match_subclasses = True
    priority = 1

    def get_name(self, auto_schema: Any, direction: str) -> str:
        return self.target.__name__

    def map_serializer(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        return openapi_of(self.target, auto_schema.registry)


class EnumField(serializers.ChoiceField):
    """A choice among a fixed set of values, published as an enum component of its own name
    (see :func:`enum_ref`)."""

    def __init__(
        self, enum_name: str, choices: Sequence[Any], *, about: str = "", **kwargs: Any
    ) -> None:
        self.enum_name, self.about = enum_name, about
        super().__init__(choices=choices, **kwargs)

    @classmethod
    def of(cls, values: type[enum.Enum], **kwargs: Any) -> EnumField:
        """The field of an enum class, published as pydantic publishes the class (its name,
        its docstring), so that a body and a response share one component."""
        about = inspect.cleandoc(values.__doc__ or "")
        return cls(values.__name__, [v.value for v in values], about=about, **kwargs)


class EnumFieldExtension(OpenApiSerializerFieldExtension):
    target_class = EnumField
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        field = self.target
        return enum_ref(auto_schema.registry, field.enum_name, list(field.choices), field.about)


def _inline(node: Any, defs: Mapping[str, Any]) -> Any:
    """``node`` with every ``$ref`` to ``defs`` replaced by what it names."""
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, Mapping):
        return node
    if "$ref" in node:
        named = defs[node["$ref"].rpartition("/")[2]]
        return _inline({**named, **{k: v for k, v in node.items() if k != "$ref"}}, defs)
    return {key: _inline(value, defs) for key, value in node.items()}


_SCALARS = {"string", "integer", "number", "boolean"}


def _query_schema(schema: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """A parameter's schema as a query string carries it, and a note on how to write it: a
    scalar as itself (a query has no null), anything else as JSON."""
    schema = {k: v for k, v in schema.items() if k != "nullable"}
    if schema.get("default", "") is None:
        del schema["default"]
    if "enum" in schema:
        schema["enum"] = [value for value in schema["enum"] if value is not None]
    if schema.get("type") in _SCALARS:
        return schema, ""
    return {"type": "string"}, ' Written as JSON, e.g. ["..."] for a list.'


def prompt_parameters(
    params: type[BaseModel], *, from_url: Iterable[str] = (), dice: str
) -> list[OpenApiParameter]:
    """A command's parameters as the query string of its dice prompt (``GET``), which reads
    them as the body would give them: ``?dice=`` holds the faces entered so far."""
    schema = params.model_json_schema(mode="validation")
    defs = schema.get("$defs", {})
    required = set(schema.get("required", []))
    left_out = {*from_url, "hidden"}  # whether it is hidden changes no die
    found = []
    for name, prop in schema["properties"].items():
        if name in left_out:
            continue
        resolved = openapi_schema(_inline(prop, defs))
        description = resolved.pop("description", "")
        query, note = _query_schema(resolved)
        found.append(
            OpenApiParameter(
                name, query, required=name in required, description=(description + note).strip()
            )
        )
    found.append(OpenApiParameter("dice", str, description=dice))
    return found


DICE_QUERY_HELP = (
    "The faces entered so far, in order, separated by commas (dice=3,5): the prompt follows "
    "them, marking later dice that an earlier missing face leaves uncertain as assumed."
)

IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    description="Repeat a request safely: the same key (1 to 200 characters) answers the first "
    "response again, with `Idempotent-Replayed: true`, and appends nothing.",
)


def camel(name: str) -> str:
    """``medical_treatment`` -> ``MedicalTreatment``."""
    return "".join(part.capitalize() for part in re.split(r"[_\-]", name) if part)


# --- Responses ---------------------------------------------------------------------------------


class BattleSerializer(serializers.Serializer):
    """A battle as the campaign's list shows it."""

    id = serializers.UUIDField()
    campaign_id = serializers.UUIDField()
    name = serializers.CharField()
    scenario = serializers.CharField(allow_blank=True)
    day = serializers.IntegerField(help_text="The campaign day it is fought on.")
    status = EnumField("BattleStatus", Battle.Status.values)
    turn = serializers.IntegerField(help_text="The game turn; 0 before it starts.")
    attacker = serializers.CharField(allow_blank=True, help_text="The attacking side, if any.")
    winner = serializers.CharField(
        allow_blank=True, help_text="The side that won, or 'draw'; blank until it ends."
    )
    next_on_attacker_win = serializers.UUIDField(allow_null=True)
    next_on_defender_win = serializers.UUIDField(allow_null=True)
    next_battle_id = serializers.UUIDField(
        allow_null=True, help_text="The battle that follows, once it has ended."
    )
    planned_sequence = serializers.IntegerField(help_text="The sequence of the plan's event.")


class BattleSecretSerializer(serializers.Serializer):
    """The umpire recorded this hidden: its hiding, and its reveal once revealed."""

    sequence = serializers.IntegerField(help_text="The sequence of the hiding's event.")
    revealed_at = serializers.IntegerField(
        allow_null=True, help_text="The sequence of its reveal; null while hidden."
    )


class MissionCasevacSerializer(serializers.Serializer):
    """The casevac the mission card puts on call (SG2 P.54, P.44)."""

    on_call = serializers.BooleanField()
    start_box = serializers.IntegerField(help_text="The inbound chart box it starts in.")
    troop_capacity = serializers.IntegerField()
    command_level = serializers.IntegerField()
    airborne = serializers.BooleanField(help_text="It runs through the enemy's ADE (P.48).")
    ecm_die = serializers.IntegerField(
        allow_null=True, help_text="The aircraft's ECM die; null rolls a D4 (P.48)."
    )
    armour_class = serializers.IntegerField(help_text="D12 x class; 0 a softskin's D6 (P.38).")
    crew_quality = EnumField(
        "CasevacCrewQuality",
        ["untrained", "green", "regular", "veteran", "elite"],
        allow_null=True,
        help_text="The pilot's quality, for his reaction test against the ADE (P.48).",
    )
    crew_leadership = serializers.IntegerField(allow_null=True)

    def to_representation(self, instance: Any) -> dict[str, Any]:
        defaults = {
            "airborne": True,
            "ecm_die": None,
            "armour_class": 0,
            "crew_quality": None,
            "crew_leadership": None,
        }
        return super().to_representation({**defaults, **instance})


class MissionCardSerializer(serializers.Serializer):
    """A side's mission card (SG2 P.59). A card the umpire hid shows a reader it is hidden
    from only the side, its forces and its casevac (``hidden`` is then true)."""

    side = serializers.CharField()
    force_ids = serializers.ListField(child=serializers.UUIDField())
    mission_motivation = EnumField("MissionMotivation", ["low", "medium", "high"], allow_null=True)
    objectives = serializers.ListField(child=serializers.CharField(), allow_null=True)
    victory_conditions = serializers.CharField(allow_blank=True, allow_null=True)
    casevac = MissionCasevacSerializer()
    hostile_ade = EnumField(
        "AirDefenceLevel",
        ["none", "minimal", "low", "moderate", "high", "extreme"],
        help_text="The enemy's Air Defence Environment this side's aircraft face (P.48).",
    )
    medical_unit_ids = serializers.ListField(child=serializers.UUIDField(), allow_null=True)
    support_chits = serializers.IntegerField(
        allow_null=True,
        help_text="Support request counters the scenario gives the side (P.44); null when the "
        "card is hidden from the reader.",
    )
    hidden = serializers.BooleanField(help_text="The card is hidden from this reader.")

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return super().to_representation(
            {"hidden": False, "hostile_ade": "none", "support_chits": None, **instance}
        )


class CasevacAboardSerializer(serializers.Serializer):
    trooper_id = serializers.UUIDField()
    unit_id = serializers.UUIDField()


class CasevacStateSerializer(serializers.Serializer):
    """Where a side's casevac is. Who is aboard is shown to the readers who see the whole
    side; the others see only how many."""

    status = EnumField(
        "CasevacStatus",
        ["none", "on_call", "called", "arrived", "departed", "turned_back", "lost"],
        help_text="none: no casevac; on_call, then called (inbound), arrived, departed; "
        "turned_back: it aborted on its way in through the enemy's air defences; lost: they "
        "shot it down (P.48).",
    )
    box = serializers.IntegerField(
        allow_null=True, help_text="The inbound chart box while on call or inbound."
    )
    aboard = CasevacAboardSerializer(many=True)
    aboard_count = serializers.IntegerField()
    full = serializers.BooleanField(help_text="Full: it must leave at once.")
    called_turn = serializers.IntegerField(allow_null=True)
    arrived_turn = serializers.IntegerField(allow_null=True)
    departed_turn = serializers.IntegerField(allow_null=True)

    def to_representation(self, instance: Any) -> dict[str, Any]:
        aboard = instance.get("aboard") or []
        return super().to_representation(
            {"aboard_count": len(aboard), "full": False, **instance, "aboard": aboard}
        )


class FireMissionLandingSerializer(serializers.Serializer):
    accurate = serializers.BooleanField(help_text="It landed on its impact marker (P.46).")
    deviation_direction = serializers.IntegerField(
        allow_null=True, help_text="Clock face the impact point deviated towards."
    )
    deviation_distance = serializers.IntegerField(help_text="Inches it deviated.")
    rounds = serializers.JSONField(
        help_text="Each round: round, direction (clock face from round 1; null for round 1) "
        "and distance (inches from round 1)."
    )


class FireMissionSerializer(serializers.Serializer):
    """A fire mission on a side's Inbound Chart (SG2 P.44-47). Another side's readers see its
    counter only (number, status and turns) until it comes down."""

    mission_id = serializers.UUIDField()
    number = serializers.IntegerField()
    status = EnumField(
        "FireMissionStatus",
        ["inbound", "landed", "fired"],
        help_text="inbound: on the Inbound Chart; landed: came down, its bursts to resolve; "
        "fired: its bursts resolved.",
    )
    requested_turn = serializers.IntegerField()
    box = serializers.IntegerField(help_text="The Inbound Chart box it started in.")
    available_turn = serializers.IntegerField(help_text="The first turn it can come down.")
    unit_id = serializers.UUIDField(allow_null=True, help_text="The unit that requested it.")
    kind = EnumField("FireSupportKind", ["artillery", "orbital"], allow_null=True)
    asset_level = EnumField(
        "FireSupportAssetLevel", ["company", "battalion", "regiment"], allow_null=True
    )
    delivery = EnumField(
        "DeliverySystem", ["small", "medium", "large", "very_large"], allow_null=True
    )
    warhead = EnumField(
        "Warhead",
        ["general_purpose_explosive", "anti_personnel_submunitions", "anti_armour_submunitions"],
        allow_null=True,
    )
    rounds = serializers.IntegerField(allow_null=True)
    target = serializers.CharField(allow_null=True, allow_blank=True)
    landing = FireMissionLandingSerializer(allow_null=True)
    fired_turn = serializers.IntegerField(allow_null=True)

    def to_representation(self, instance: Any) -> dict[str, Any]:
        shown = dict.fromkeys(
            (
                "unit_id",
                "kind",
                "asset_level",
                "delivery",
                "warhead",
                "rounds",
                "target",
                "landing",
                "fired_turn",
            )
        )
        return super().to_representation({**shown, **instance})


class SupportStateSerializer(serializers.Serializer):
    """A side's off-table support (SG2 P.44-46): its request counters and fire missions."""

    chits_rolled = serializers.IntegerField(
        allow_null=True,
        help_text="The D6 rolled for counters (option support_chits = d6_per_player).",
    )
    chits_spent = serializers.IntegerField(allow_null=True)
    missions = FireMissionSerializer(many=True)

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return super().to_representation(
            {"chits_rolled": None, "chits_spent": 0, "missions": [], **(instance or {})}
        )


class BattleSideSerializer(serializers.Serializer):
    key = serializers.CharField()
    campaign_id = serializers.UUIDField()
    battle_id = serializers.UUIDField()
    side = serializers.CharField()
    order = serializers.IntegerField()
    force_ids = serializers.ListField(child=serializers.UUIDField())
    mission = MissionCardSerializer()
    casevac = CasevacStateSerializer()
    support = SupportStateSerializer()
    mission_secret = BattleSecretSerializer(
        allow_null=True, help_text="The mission card was recorded hidden: when, and its reveal."
    )


class ParticipantSerializer(serializers.Serializer):
    """A unit fighting in the battle. A unit of a side the reader sees in outline shows only
    its side (``sight`` is then ``outline`` and every other field null)."""

    side = serializers.CharField()
    sight = EnumField("Sight", [Sight.WHOLE.value, Sight.OUTLINE.value])
    key = serializers.CharField(allow_null=True)
    campaign_id = serializers.UUIDField(allow_null=True)
    battle_id = serializers.UUIDField(allow_null=True)
    unit_id = serializers.UUIDField(allow_null=True)
    unit_name = serializers.CharField(allow_null=True)
    fatigue = serializers.CharField(allow_null=True, allow_blank=True)
    mission_motivation = serializers.CharField(allow_null=True)
    starting_confidence = serializers.CharField(allow_null=True, allow_blank=True)
    confidence = serializers.CharField(allow_null=True, allow_blank=True)
    suppression = serializers.IntegerField(allow_null=True)
    suppressed_may = serializers.ListField(
        child=EnumField.of(UnitAction),
        allow_null=True,
        required=False,
        help_text="While suppressed, the only actions the unit may take (SG2 P.18; reorganise "
        "only in cover); empty when it is not suppressed.",
    )
    status = EnumField("ParticipantStatus", Participant.Status.values, allow_null=True)
    objective_met = serializers.BooleanField(allow_null=True)
    marker = EnumField(
        "FadMarker",
        ["", "under_fire", "pinned"],
        allow_null=True,
        required=False,
        help_text="Fast and Dirty: the unit's Under Fire or Pinned marker (FaD p.24); blank: none.",
    )
    broken = serializers.BooleanField(
        allow_null=True, required=False, help_text="Fast and Dirty: the unit is broken (FaD p.13)."
    )
    resolve = serializers.CharField(
        allow_null=True,
        allow_blank=True,
        required=False,
        help_text="Fast and Dirty: the unit's Resolve in this battle once lowered (FaD p.14, "
        "p.35); blank: the roster's.",
    )
    close_assault = serializers.JSONField(
        allow_null=True,
        required=False,
        help_text="While the unit is in a close assault (SG2 P.41-43): assault (its number), "
        "side, round (the last fought), against (the units it fights) and down (its figures "
        "down so far); null otherwise.",
    )

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return super().to_representation({"sight": Sight.WHOLE.value, **instance})


class BattleDetailSerializer(BattleSerializer):
    """A battle: its state, its sides with their mission cards and casevac, and the units
    fighting, as the reader may see them."""

    secret = BattleSecretSerializer(
        allow_null=True, help_text="The whole battle was recorded hidden: when, and its reveal."
    )
    sides = BattleSideSerializer(many=True)
    participants = ParticipantSerializer(many=True)


class LoggedDieSerializer(serializers.Serializer):
    """One die behind a log line."""

    die = serializers.IntegerField(help_text="Its faces: 4, 6, 8, 10 or 12.")
    result = serializers.IntegerField()
    purpose = serializers.CharField()
    # ``source`` and ``type`` name attributes of a serializer field: such fields are declared
    # under another name and renamed (``get_fields``).
    die_source = EnumField("DieSource", ["server", "table"])
    counter = serializers.IntegerField(
        allow_null=True, help_text="A server die's index in the campaign's seeded stream."
    )
    moot = serializers.BooleanField(help_text="Rolled though no face could change the outcome.")

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        return {("source" if name == "die_source" else name): f for name, f in fields.items()}

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return super().to_representation({"counter": None, "moot": False, **instance})


class BattleLogLineSerializer(serializers.Serializer):
    """One line of the battle's story. A line about a side the reader sees in outline is one
    sentence that names no one, without dice (``sight`` is then ``outline``)."""

    key = serializers.CharField()
    campaign_id = serializers.UUIDField()
    battle_id = serializers.UUIDField()
    sequence = serializers.IntegerField(help_text="The sequence of the event it tells.")
    turn = serializers.IntegerField()
    event_type = serializers.CharField()
    summary = serializers.CharField()
    dice = LoggedDieSerializer(many=True)
    recorded_at = serializers.DateTimeField()
    sight = EnumField("Sight", [Sight.WHOLE.value, Sight.OUTLINE.value])

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return super().to_representation({"sight": Sight.WHOLE.value, **instance})


class CasualtyCountSerializer(serializers.Serializer):
    """A side's casualties counted: the casualties of forces the reader sees in outline are
    counted here though not listed by name (``sight`` is then ``outline``)."""

    side = serializers.CharField()
    killed = serializers.IntegerField()
    wounded = serializers.IntegerField(help_text="Untreated or stabilised.")
    captured = serializers.IntegerField()
    casevaced = serializers.IntegerField()
    sight = EnumField("Sight", [Sight.WHOLE.value, Sight.OUTLINE.value])


class CasualtySerializer(serializers.Serializer):
    """A trooper the battle left a casualty."""

    side = serializers.CharField()
    trooper_id = serializers.UUIDField()
    name = serializers.CharField()
    unit_id = serializers.UUIDField()
    status = EnumField(
        "CasualtyStatus",
        [
            TrooperStatus.DEAD.value,
            TrooperStatus.WOUNDED.value,
            TrooperStatus.STABILISED.value,
            TrooperStatus.CAPTURED.value,
            TrooperStatus.CASEVACED.value,
        ],
    )
    after_battle = serializers.BooleanField(help_text="Died of his wounds after the battle.")


class BattleCasualtiesPageSerializer(serializers.Serializer):
    """A battle's casualties: each side's counts, and a page of the casualties by name (those
    of the forces the reader sees whole), side by side in the battle's order."""

    is_page = True  # config.openapi: a page is a list to a client

    battle_id = serializers.UUIDField()
    name = serializers.CharField(help_text="The battle's name.")
    sides = CasualtyCountSerializer(many=True)
    count = serializers.IntegerField(help_text="How many casualties are named in all.")
    next = serializers.URLField(allow_null=True, help_text="The next page, if any.")
    previous = serializers.URLField(allow_null=True, help_text="The previous page, if any.")
    results = CasualtySerializer(many=True)


class HospitalStaySerializer(serializers.Serializer):
    """A trooper in hospital, and the day he is back on duty."""

    trooper_id = serializers.UUIDField()
    name = serializers.CharField()
    force_id = serializers.UUIDField()
    unit_id = serializers.UUIDField()
    unit_name = serializers.CharField(allow_blank=True)
    hospital_until_day = serializers.IntegerField(allow_null=True)
    days_in_hospital = serializers.IntegerField()


class _ProgressionStep(serializers.Serializer):
    unit_id = serializers.UUIDField()
    sequence = serializers.IntegerField(help_text="The event that made the change.")
    day = serializers.IntegerField()
    battle_id = serializers.UUIDField(allow_null=True)
    battle_name = serializers.CharField(allow_null=True)
    event_type = serializers.CharField()


class QualityStepSerializer(_ProgressionStep):
    """The unit's quality and improvement points after an event that changed them."""

    quality = serializers.CharField()
    points = serializers.IntegerField()
    points_gained = serializers.IntegerField(
        allow_null=True, help_text="The points a battle's award gave; null for other changes."
    )


class StrengthStepSerializer(_ProgressionStep):
    """The unit's strength after an event that changed it."""

    strength = serializers.IntegerField()
    change = serializers.IntegerField(allow_null=True, help_text="Null for the first count.")


class UnitProgressionSerializer(serializers.Serializer):
    """A unit's quality and points after each change, and its strength over time."""

    unit_id = serializers.UUIDField()
    name = serializers.CharField()
    quality = QualityStepSerializer(many=True)
    strength = StrengthStepSerializer(many=True)


class PurchaseSerializer(serializers.Serializer):
    """One item bought with campaign points, and what it changed."""

    kind = EnumField.of(PurchaseKind)
    target = serializers.CharField(allow_blank=True)
    detail = serializers.CharField(allow_blank=True)
    cost = serializers.IntegerField()
    before = serializers.CharField(allow_null=True)
    after = serializers.CharField(allow_null=True)
    trooper_id = serializers.UUIDField(allow_null=True)

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return super().to_representation(
            {"before": None, "after": None, "trooper_id": None, **instance}
        )


class PointsEntrySerializer(serializers.Serializer):
    """One entry of a force's campaign points: an award after a battle, a purchase, or the
    reinforcement pool's roll. The fields of the other kinds are null."""

    sequence = serializers.IntegerField()
    entry_type = EnumField(
        "PointsEntryType",
        [
            "battles.FadCampaignPointsAwarded",
            "battles.FadCampaignPointsSpent",
            "battles.FadReinforcementsRolled",
        ],
    )
    battle_id = serializers.UUIDField()
    balance = serializers.IntegerField(help_text="The points left to spend after it.")
    points = serializers.IntegerField(allow_null=True, help_text="An award: the points.")
    reinforced_platoons = serializers.IntegerField(allow_null=True)
    lapsed = serializers.IntegerField(allow_null=True, help_text="An award: points lost.")
    spent = serializers.IntegerField(allow_null=True, help_text="A purchase: points spent.")
    lost = serializers.IntegerField(allow_null=True, help_text="A purchase: points lost.")
    purchases = PurchaseSerializer(many=True, allow_null=True)
    pool = serializers.IntegerField(allow_null=True, help_text="A pool's roll: troopers.")
    unused = serializers.IntegerField(allow_null=True)

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        return {("type" if name == "entry_type" else name): f for name, f in fields.items()}


class CampaignPointsSerializer(serializers.Serializer):
    """A Fast and Dirty force's campaign points (FaD p.66)."""

    force_id = serializers.UUIDField()
    balance = serializers.IntegerField()
    battle_id = serializers.UUIDField(
        allow_null=True, help_text="The battle the points were earned in."
    )
    extra_reinforcement_dice = serializers.IntegerField()
    reinforcements_rolled = serializers.BooleanField()
    history = PointsEntrySerializer(many=True)
