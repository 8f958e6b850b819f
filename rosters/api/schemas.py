"""What the rosters API takes and answers, as the OpenAPI schema publishes it.

The views build their answers as plain dicts from ``rosters.selectors``; these serializers
describe those dicts exactly (every key always present, ``null`` where a value may be missing)
and validate request bodies. Words from the roster vocabulary (``rosters.vocabulary``) are
published as named enums, so a generated client gets one type per vocabulary.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from rosters.moves import LOCATIONS
from rosters.vocabulary import TrooperRole, TrooperStatus, UnitKind, UnitStatus, VehicleState
from rules.dice import Die
from rules.sg2.scales import Confidence

# --- Vocabulary ----------------------------------------------------------------------------------


class VocabularyField(serializers.CharField):
    """A word from a fixed vocabulary, published as the enum component ``name``.

    It is a plain string to DRF: where the vocabulary is an input, the command checks the word
    and refuses another with its own code (``unit.bad_location``, say)."""

    def __init__(self, name: str, words: Iterable[str], about: str, **kwargs: Any) -> None:
        self.vocabulary = name
        self.words = [str(word) for word in words]
        self.about = about
        super().__init__(**kwargs)


class VocabularyFieldExtension(OpenApiSerializerFieldExtension):
    target_class = VocabularyField

    def get_name(self) -> str:
        return self.target.vocabulary

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        return {"type": "string", "enum": self.target.words, "description": self.target.about}


def vocabulary(name: str, words: type[enum.Enum] | Iterable[str], about: str, **kwargs: Any):
    values = [w.value for w in words] if isinstance(words, type) else list(words)
    return VocabularyField(name, values, about, **kwargs)


def unit_status(**kwargs: Any) -> VocabularyField:
    return vocabulary(
        "UnitStatus",
        UnitStatus,
        "Where a unit is between battles (SG2 P.61), or that it is gone: in_the_line, "
        "safe_area, rear_area (a safe area that also repairs DISABLED vehicles), in_the_field "
        "(resting in the field), withdrawn (unfit for combat), disbanded.",
        **kwargs,
    )


def trooper_status(**kwargs: Any) -> VocabularyField:
    return vocabulary(
        "TrooperStatus",
        TrooperStatus,
        "A trooper's state: fit, wounded (not yet treated), stabilised, casevaced (flown out; "
        "the after-action decides the rest), in_hospital (back on hospital_until_day), "
        "evacuated (for good), dead, captured.",
        **kwargs,
    )


# --- Shared pieces -------------------------------------------------------------------------------


class RolledDieSerializer(serializers.Serializer):
    """One die as the event that rolled it recorded it."""

    die = serializers.ChoiceField(choices=[d.value for d in Die], help_text="The die's faces.")
    result = serializers.IntegerField(min_value=1, max_value=12, help_text="The face it showed.")
    purpose = serializers.CharField(help_text="What the roll decided, in plain words.")
    # Declared fields leave the class (the serializer's metaclass takes them), so this does not
    # replace ``Field.source`` as the stubs take it to; the same below.
    source = serializers.ChoiceField(  # type: ignore[assignment]
        choices=["server", "table"], help_text="Rolled by the server, or at the table."
    )
    counter = serializers.IntegerField(
        allow_null=True,
        required=False,
        help_text="A server roll's index in the campaign's seeded stream.",
    )
    moot = serializers.BooleanField(
        required=False,
        help_text="Rolled because the book says to, though no face could change the outcome.",
    )


# --- Forces, units, troopers, vehicles -----------------------------------------------------------


class ForceOutlineSerializer(serializers.Serializer):
    """What every member of the campaign sees of a force."""

    id = serializers.UUIDField()
    name = serializers.CharField()
    side = serializers.CharField(help_text="The side it fights for, as its roster file names it.")
    unit_count = serializers.IntegerField(help_text="Its units that are not formations.")
    readable = serializers.BooleanField(
        help_text="Whether the reader sees it whole (its details, units and troopers); if "
        "not, GET /forces/{id}/ answers 403 force.not_yours."
    )


class VehicleSerializer(serializers.Serializer):
    """A vehicle with its damage state (SG2 P.38-39) and the day its repair ends."""

    id = serializers.UUIDField()
    campaign_id = serializers.UUIDField()
    force_id = serializers.UUIDField()
    unit_id = serializers.UUIDField()
    order = serializers.IntegerField(help_text="Its place among its unit's vehicles.")
    name = serializers.CharField()
    vehicle_class = serializers.CharField(allow_blank=True)
    size = serializers.IntegerField()
    capacity = serializers.IntegerField(help_text="How many troopers it carries.")
    armour = serializers.IntegerField(allow_null=True)
    state = vocabulary(
        "VehicleState",
        VehicleState,
        "A vehicle's damage state (SG2 P.38-39), or operational when undamaged.",
    )
    repair_until_day = serializers.IntegerField(
        allow_null=True, help_text="The campaign day its repair ends; null when not in repair."
    )


class TrooperSerializer(serializers.Serializer):
    """A trooper as the roster holds them."""

    id = serializers.UUIDField()
    campaign_id = serializers.UUIDField()
    force_id = serializers.UUIDField()
    unit_id = serializers.UUIDField()
    order = serializers.IntegerField(help_text="Their place in their unit.")
    name = serializers.CharField()
    role = vocabulary(
        "TrooperRole",
        TrooperRole,
        "The role the rules read (SG2 P.8-10, P.26-30, P.39).",
    )
    weapon = serializers.CharField(allow_blank=True)
    armour = serializers.CharField(allow_blank=True)
    armour_die = serializers.IntegerField(allow_null=True)
    power_armour = serializers.BooleanField()
    suit_wrecked = serializers.BooleanField(
        help_text="Their power-armour suit was wrecked (SG2 P.40): unarmoured until repaired."
    )
    suit_repaired_on_day = serializers.IntegerField(allow_null=True)
    specialism = serializers.CharField(allow_blank=True)
    experience = serializers.CharField(
        allow_blank=True,
        help_text="A Fast and Dirty squad leader's experience (FaD p.11); empty otherwise.",
    )
    status = trooper_status()
    hospital_until_day = serializers.IntegerField(
        allow_null=True, help_text="In hospital: the day they are back on duty."
    )
    battles_fought = serializers.IntegerField()
    wounds = serializers.IntegerField()
    days_in_hospital = serializers.IntegerField()


class UnitSummarySerializer(serializers.Serializer):
    """A unit: strength against TO&E, quality, leadership, fatigue and where it is."""

    id = serializers.UUIDField()
    campaign_id = serializers.UUIDField()
    force_id = serializers.UUIDField()
    parent_id = serializers.UUIDField(
        allow_null=True, help_text="The formation it belongs to; null at the top of its force."
    )
    order = serializers.IntegerField(help_text="Its place in its force's organisation.")
    name = serializers.CharField()
    kind = vocabulary(
        "UnitKind",
        UnitKind,
        "What a node of a force's organisation is (SG2 P.8): company, platoon and section are "
        "formations, which hold units and have no troopers of their own.",
    )
    level = serializers.IntegerField(allow_null=True, help_text="A command unit's level.")
    quality = serializers.CharField(
        allow_blank=True,
        help_text="Its quality in its ruleset's words (SG2: untrained, green, regular, veteran, "
        "elite; FaD: rabble, conscript, regular, elite); empty for formations.",
    )
    leadership = serializers.IntegerField(allow_null=True, help_text="1 (best) to 3 (SG2 P.9).")
    resolve = serializers.CharField(allow_blank=True)
    fatigue = serializers.CharField(allow_blank=True, help_text="Its fatigue (SG2 P.19).")
    mission_motivation = serializers.CharField(allow_blank=True)
    toe_strength = serializers.IntegerField(help_text="Its strength by its TO&E.")
    specialists = serializers.ListField(child=serializers.CharField())
    status = unit_status()
    attached_to = serializers.UUIDField(allow_null=True)
    merged_into = serializers.UUIDField(
        allow_null=True, help_text="The unit it was regrouped into (SG2 P.17), if any."
    )
    experience_points = serializers.IntegerField()
    rest_days = serializers.IntegerField(
        help_text="Days of R&R accrued toward the next fatigue level (SG2 P.61)."
    )
    battles_since_rest = serializers.IntegerField()
    unfit = serializers.BooleanField(
        help_text="Failed the exhausted-withdrawal test: out of combat until rested (SG2 P.61)."
    )
    supplied = serializers.BooleanField(
        help_text="Has suitable supplies; without them between-battle times double (SG2 P.61)."
    )
    strength = serializers.IntegerField(help_text="Its troopers fit, wounded or stabilised.")
    starting_confidence = serializers.ChoiceField(
        choices=[c.name.lower() for c in Confidence],
        allow_null=True,
        help_text="The confidence its fatigue starts it at in a battle (SG2 P.19); null "
        "without a fatigue.",
    )
    is_formation = serializers.BooleanField()


class UnitDetailSerializer(UnitSummarySerializer):
    """A unit with its troopers and vehicles."""

    troopers = TrooperSerializer(many=True)
    vehicles = VehicleSerializer(many=True)


class ForceUnitSerializer(UnitDetailSerializer):
    """A unit in its force's organisation, with the units under it."""

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        fields["units"] = ForceUnitSerializer(many=True, help_text="The units under it.")
        return fields


class ForceDetailSerializer(serializers.Serializer):
    """A force with its organisation as a tree of units, each with its troopers and vehicles."""

    id = serializers.UUIDField()
    campaign_id = serializers.UUIDField()
    name = serializers.CharField()
    side = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    source = serializers.CharField(  # type: ignore[assignment]
        allow_blank=True, help_text="The roster file it came from."
    )
    raised_sequence = serializers.IntegerField(help_text="The event that raised it.")
    unit_count = serializers.IntegerField(help_text="Its units that are not formations.")
    trooper_count = serializers.IntegerField(help_text="Its troopers fit, wounded or stabilised.")
    units = ForceUnitSerializer(many=True, help_text="The units at the top of its organisation.")


class ServiceRecordEntrySerializer(serializers.Serializer):
    """One line of a trooper's service record."""

    key = serializers.CharField()
    campaign_id = serializers.UUIDField()
    trooper_id = serializers.UUIDField()
    sequence = serializers.IntegerField(help_text="The campaign sequence of the event it tells.")
    event_type = serializers.CharField()
    summary = serializers.CharField()
    battle_id = serializers.UUIDField(allow_null=True)
    dice = RolledDieSerializer(many=True)
    recorded_at = serializers.DateTimeField()


class TrooperDetailSerializer(TrooperSerializer):
    """A trooper with their unit's name and their service record."""

    unit_name = serializers.CharField(allow_null=True)
    service_record = ServiceRecordEntrySerializer(
        many=True,
        help_text="Oldest first, its first 100 lines (the rest: service_record_next); what the "
        "umpire hid is left out until revealed.",
    )
    service_record_next = serializers.URLField(
        allow_null=True,
        help_text="The page of the service record after these lines "
        "(GET /troopers/{id}/service-record/), or null when they are all of it.",
    )


class UnitHistoryEntrySerializer(serializers.Serializer):
    """One change to a unit, with its cause in plain words."""

    key = serializers.CharField()
    campaign_id = serializers.UUIDField()
    unit_id = serializers.UUIDField()
    sequence = serializers.IntegerField(
        help_text="The campaign sequence of the event it tells: the history's cursor (after=)."
    )
    event_type = serializers.CharField()
    summary = serializers.CharField()
    changes = serializers.DictField(
        child=serializers.JSONField(),
        help_text="What the event changed, by field: mostly [before, after]; some carry what "
        "they name too (a vehicle: [vehicle id, before, after]) or the new value alone.",
    )
    battle_id = serializers.UUIDField(allow_null=True)
    dice = RolledDieSerializer(many=True)
    recorded_at = serializers.DateTimeField()


# --- Replacements (SG2 P.60-61) ------------------------------------------------------------------


class ReplacementRollSerializer(serializers.Serializer):
    """A platoon's last replacement roll."""

    day = serializers.IntegerField(help_text="The campaign day it was rolled.")
    die = serializers.ChoiceField(choices=[d.value for d in Die])
    roll = serializers.IntegerField(help_text="The score.")
    available = serializers.IntegerField(help_text="How many replacements it gave.")
    dice = RolledDieSerializer(many=True)


class ReplacementsOnTheWaySerializer(serializers.Serializer):
    """Replacements assigned to a squad and not yet arrived."""

    unit_id = serializers.UUIDField()
    unit = serializers.CharField(allow_null=True, help_text="The squad's name.")
    count = serializers.IntegerField()
    arrives_on_day = serializers.IntegerField()


class PlatoonReplacementsSerializer(serializers.Serializer):
    """A platoon's replacements: its last roll, how many are left to assign, who is coming."""

    platoon_id = serializers.UUIDField()
    platoon = serializers.CharField(help_text="The platoon's name.")
    last_roll = ReplacementRollSerializer(allow_null=True)
    assigned = serializers.IntegerField(help_text="Assigned from the last roll.")
    left = serializers.IntegerField(help_text="Of the last roll, still to assign.")
    on_the_way = ReplacementsOnTheWaySerializer(many=True)


# --- Requests ------------------------------------------------------------------------------------


class CommandSerializer(serializers.Serializer):
    """Fields every command's body accepts."""

    expected_version = serializers.IntegerField(
        min_value=0,
        required=False,
        allow_null=True,
        help_text="The version of the stream you last read: the command is refused (409) if "
        "it has moved on since.",
    )


class ForceImportSerializer(serializers.Serializer):
    """A roster file to raise a force from."""

    roster = serializers.CharField(help_text="The roster file's text, YAML or JSON.")
    # The serializer's metaclass takes declared fields out of the class, so this field does not
    # replace ``Field.source`` as the stubs take it to.
    source = serializers.CharField(  # type: ignore[assignment]
        required=False,
        default="upload",
        max_length=200,
        help_text="Where the file came from (its name, say).",
    )


def _reason() -> serializers.CharField:
    return serializers.CharField(
        max_length=500,
        allow_blank=True,
        help_text="Why the umpire made the change (blank: 400 adjustment.reason_required).",
    )


class AdjustmentSerializer(CommandSerializer):
    """An umpire's adjustment: why it is made."""

    reason = _reason()


class QualityAdjustmentSerializer(AdjustmentSerializer):
    """A unit's new quality, and why."""

    quality = serializers.CharField(
        max_length=20,
        help_text="A quality of the campaign's ruleset (SG2: untrained, green, regular, "
        "veteran, elite; FaD: rabble, conscript, regular, elite).",
    )


class LeadershipAdjustmentSerializer(AdjustmentSerializer):
    """A unit's new leadership value, and why."""

    leadership = serializers.IntegerField(help_text="1 (best) to 3 (SG2 P.9).")


class AttachmentSerializer(AdjustmentSerializer):
    """The unit a unit is attached to, and why."""

    to_unit_id = serializers.UUIDField(help_text="The unit it is attached to.")


class RegroupSerializer(AdjustmentSerializer):
    """The unit a unit regroups with, and why."""

    with_unit_id = serializers.UUIDField(help_text="The unit it regroups with (SG2 P.17).")


class MoveSerializer(CommandSerializer):
    """Where a unit goes, and why."""

    to = vocabulary(
        "UnitLocation",
        LOCATIONS,
        "Where a unit goes: in_the_line, safe_area, rear_area (a safe area that also repairs "
        "DISABLED vehicles) or in_the_field (SG2 P.61).",
    )
    reason = serializers.CharField(max_length=500, required=False, default="", allow_blank=True)


class RenameSerializer(AdjustmentSerializer):
    """A trooper's new name, and why."""

    name = serializers.CharField(max_length=200)


class TransferSerializer(AdjustmentSerializer):
    """The unit a trooper joins, and why."""

    to_unit_id = serializers.UUIDField(help_text="The unit the trooper joins.")


class SuppliesSerializer(CommandSerializer):
    """Whether a force or a unit has suitable supplies (SG2 P.61), and why."""

    supplied = serializers.BooleanField(help_text="False: short of supplies (P.61 doubles times).")
    reason = serializers.CharField(max_length=500, help_text="Why the umpire says so.")


@extend_schema_field(
    {
        "oneOf": [
            {"type": "integer", "minimum": 1, "maximum": 12, "description": "A face, in order."},
            {
                "type": "object",
                "description": "A face keyed by whom it is for.",
                "properties": {
                    "face": {"type": "integer", "minimum": 1, "maximum": 12},
                    "for": {"type": "string", "nullable": True, "description": "A unit's id."},
                    "purpose": {"type": "string", "nullable": True},
                    "die": {"type": "integer", "enum": [d.value for d in Die]},
                },
                "required": ["face"],
                "additionalProperties": False,
            },
        ]
    }
)
class TableDieField(serializers.JSONField):
    """A face rolled at the table: a number, or an object keyed by whom it is for."""


class TableDiceSerializer(CommandSerializer):
    """A command the server rolls for unless the table's dice are given."""

    dice = serializers.ListField(
        child=TableDieField(),
        required=False,
        allow_null=True,
        default=None,
        help_text="Faces rolled at the table, in the order the rules use them (the request: the "
        "platoon's one die; the assignment: one quality-check die per receiving squad that "
        "rolls, in the order of the assignments), or each keyed by the unit it is for: "
        '{"face": 4, "for": "<platoon or squad id>"}. Leave out to have the server roll '
        "(202 and a job).",
    )


class ReplacementShareSerializer(serializers.Serializer):
    """How many of the rolled replacements a squad receives."""

    unit_id = serializers.UUIDField(help_text="A squad of the platoon, in a safe area.")
    count = serializers.IntegerField(min_value=1, max_value=100)


class ReplacementsAssignSerializer(TableDiceSerializer):
    """The platoon's rolled replacements shared among its squads (SG2 P.60-61)."""

    assignments = ReplacementShareSerializer(many=True, allow_empty=False)
