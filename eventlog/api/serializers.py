"""How events and jobs look over HTTP."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers, status
from rest_framework.response import Response

from eventlog.models import Job
from eventlog.store import StoredEvent

HIDDEN_METADATA = ("fingerprint",)


def event_to_json(event: StoredEvent) -> dict[str, Any]:
    return {
        "position": event.position,
        "sequence": event.sequence,
        "stream": event.stream,
        "version": event.version,
        "type": event.type,
        "schema_version": event.schema_version,
        "payload": event.payload,
        "metadata": {k: v for k, v in event.metadata.items() if k not in HIDDEN_METADATA},
        "job": str(event.job_id) if event.job_id else None,
        "recorded_at": event.recorded_at.isoformat().replace("+00:00", "Z"),
    }


class EventOutputSerializer(serializers.Serializer):
    """Schema-only description of an event (responses are built by ``event_to_json``)."""

    position = serializers.IntegerField()
    sequence = serializers.IntegerField()
    stream = serializers.CharField()
    version = serializers.IntegerField()
    type = serializers.CharField()
    schema_version = serializers.IntegerField()
    payload = serializers.JSONField()
    metadata = serializers.JSONField()
    job = serializers.UUIDField(allow_null=True)
    recorded_at = serializers.DateTimeField()
    sight = serializers.ChoiceField(
        choices=["whole", "outline"],
        required=False,
        help_text="How much of the event the reader sees: whole, or in outline (only the fields "
        "that name nothing of another player's force; no metadata).",
    )


class EventPageSerializer(serializers.Serializer):
    """A page of the event log in sequence order (see eventlog.api.pagination)."""

    is_page = True
    results = EventOutputSerializer(many=True)
    next = serializers.URLField(allow_null=True)
    last_sequence = serializers.IntegerField()


class EventInputSerializer(serializers.Serializer):
    type = serializers.CharField(max_length=100)
    payload = serializers.JSONField()
    stream = serializers.CharField(max_length=200, required=False)
    expected_version = serializers.IntegerField(min_value=0, required=False, allow_null=True)


class ProblemSerializer(serializers.Serializer):
    """One thing wrong with a request."""

    code = serializers.CharField(help_text="Stable and machine-readable, e.g. invalid.required.")
    message = serializers.CharField(help_text="A sentence for a person.")
    field = serializers.CharField(
        allow_null=True, help_text="The input it is about, as a dotted path (trooper_ids.0)."
    )


class ErrorSerializer(serializers.Serializer):
    """Every error the API answers: the first problem, and every problem of the request."""

    code = serializers.CharField(help_text="The first problem's code.")
    message = serializers.CharField(help_text="The first problem's message.")
    field = serializers.CharField(allow_null=True, help_text="The first problem's field.")
    problems = ProblemSerializer(many=True, help_text="Every problem found, the first first.")


class JobErrorSerializer(serializers.Serializer):
    """Why a job failed: a rule's refusal or a crash, in the error shape (``problems`` is left
    out where the reader sees the job in outline, and by jobs recorded before it was added)."""

    code = serializers.CharField()
    message = serializers.CharField(allow_blank=True)
    field = serializers.CharField(allow_null=True)
    problems = ProblemSerializer(many=True, required=False)


class JobSerializer(serializers.ModelSerializer):
    events = serializers.SerializerMethodField()
    duration_seconds = serializers.SerializerMethodField()

    class Meta:
        model = Job
        fields = [
            "id",
            "campaign_id",
            "kind",
            "params",
            "status",
            "attempts",
            "requested_at",
            "dispatched_at",
            "started_at",
            "finished_at",
            "duration_seconds",
            "progress",
            "error",
            "events",
        ]
        read_only_fields = fields

    error = JobErrorSerializer(allow_null=True, read_only=True)

    @extend_schema_field(EventOutputSerializer(many=True))
    def get_events(self, job: Job) -> list[dict[str, Any]]:
        from eventlog.store import events_of_job

        # A reader who may not see every event gets them as the caller shows them.
        shown = self.context.get("events_as_seen")
        if shown is not None:
            return shown(events_of_job(job.id))
        return [event_to_json(event) for event in events_of_job(job.id)]

    def get_duration_seconds(self, job: Job) -> float | None:
        if job.started_at and job.finished_at:
            return round((job.finished_at - job.started_at).total_seconds(), 3)
        return None


class EventTypeSerializer(serializers.Serializer):
    name = serializers.CharField()
    schema_version = serializers.IntegerField()
    stream = serializers.CharField()
    description = serializers.CharField()
    appendable = serializers.BooleanField()
    payload_schema = serializers.JSONField()


def job_accepted(request: Any, job: Job) -> Response:
    """202 with the job as it stands now (finished already when jobs run in the web process),
    and its URL in ``Location``."""
    job = Job.objects.get(pk=job.pk)
    response = Response(JobSerializer(job).data, status=status.HTTP_202_ACCEPTED)
    response["Location"] = request.build_absolute_uri(f"/api/v1/jobs/{job.pk}/")
    return response


class EventsAppendedSerializer(serializers.Serializer):
    """What a command appended, in order."""

    events = EventOutputSerializer(many=True)


class DiceNeedSerializer(serializers.Serializer):
    die = serializers.IntegerField(help_text="The die's faces: 4, 6, 8, 10 or 12.")
    purpose = serializers.CharField(help_text="What the roll decides, in plain words.")
    # ``for`` is a Python keyword: the field is declared under another name and renamed below.
    subject = serializers.CharField(
        allow_null=True, help_text="Whom the die is for (a trooper's or unit's id), if anyone."
    )
    within = serializers.ListField(
        child=serializers.CharField(),
        help_text="The outer subjects the die's subject belongs to (a trooper's unit).",
    )
    face = serializers.IntegerField(
        allow_null=True, help_text="The face entered for it so far; null until entered."
    )
    assumed = serializers.BooleanField(
        help_text="An earlier die has no face yet: the prompt went on as if it showed 1, so "
        "this die may change once the real face is known."
    )
    moot = serializers.BooleanField(
        help_text="The book rolls it though it cannot change the outcome: the table may "
        "leave it out."
    )

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        fields["for"] = fields.pop("subject")
        return fields


class DicePromptSerializer(serializers.Serializer):
    """Every die a command asks the table for, in order, with the faces entered so far."""

    complete = serializers.BooleanField(help_text="The faces entered are all the dice needs.")
    dice = DiceNeedSerializer(many=True)
