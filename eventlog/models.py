"""The event table and the few write-side tables that serve it.

The event table is append-only: database triggers (see the migrations) refuse ``UPDATE`` and
``DELETE``. Nothing here holds a foreign key to a read model, because read models are dropped and
rebuilt from these rows.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class Event(models.Model):
    """One immutable fact in a campaign's history."""

    position = models.BigAutoField(primary_key=True)
    campaign_id = models.UUIDField()
    sequence = models.PositiveBigIntegerField(help_text="Gap-free order within the campaign.")
    stream = models.CharField(max_length=200)
    version = models.PositiveIntegerField(help_text="Position of the event in its stream.")
    type = models.CharField(max_length=100)
    schema_version = models.PositiveSmallIntegerField()
    payload = models.JSONField()
    metadata = models.JSONField(default=dict)
    # NULL, not "", for "no key": the partial index only covers events that carry one.
    idempotency_key = models.CharField(max_length=200, null=True, blank=True)  # noqa: DJ001
    job_id = models.UUIDField(null=True, blank=True)
    recorded_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign_id", "sequence"], name="eventlog_event_campaign_sequence"
            ),
            models.UniqueConstraint(
                fields=["campaign_id", "stream", "version"],
                name="eventlog_event_stream_version",
            ),
        ]
        indexes = [
            models.Index(fields=["campaign_id", "type", "sequence"], name="eventlog_event_type"),
            models.Index(
                fields=["campaign_id", "idempotency_key"],
                name="eventlog_event_idempotency",
                condition=models.Q(idempotency_key__isnull=False),
            ),
            models.Index(
                fields=["job_id"],
                name="eventlog_event_job",
                condition=models.Q(job_id__isnull=False),
            ),
        ]
        ordering = ["position"]

    def __str__(self) -> str:
        return f"{self.type} #{self.sequence} ({self.stream} v{self.version})"


class CampaignHead(models.Model):
    """The last sequence appended to a campaign; its row lock serialises a campaign's appends."""

    campaign_id = models.UUIDField(primary_key=True)
    last_sequence = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.campaign_id} at {self.last_sequence}"


class StreamHead(models.Model):
    """The last version appended to a stream, so an append learns it in the same statement that
    locks it."""

    campaign_id = models.UUIDField()
    stream = models.CharField(max_length=200)
    version = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign_id", "stream"], name="eventlog_streamhead_unique"
            )
        ]
        # Finding which campaign an entity (``unit:<id>``...) belongs to.
        indexes = [models.Index(fields=["stream"], name="eventlog_streamhead_stream")]

    def __str__(self) -> str:
        return f"{self.stream} at {self.version}"


class Job(models.Model):
    """A resolution job: a request for the server to roll dice and apply rules.

    Written in the same transaction as the command that asks for it (an outbox), dispatched to
    Celery on commit, and re-dispatched by a periodic sweep if its message is lost.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    campaign_id = models.UUIDField(db_index=True)
    ordinal = models.PositiveIntegerField(
        help_text="The job's number in its campaign; it names the seeded stream of its dice."
    )
    kind = models.CharField(max_length=100)
    params = models.JSONField(default=dict)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    requested_at = models.DateTimeField()
    dispatched_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    error = models.JSONField(null=True, blank=True)
    command_id = models.UUIDField(
        null=True, blank=True, help_text="The command whose dice the job rolls."
    )
    request_id = models.CharField(
        max_length=128,
        blank=True,
        default="",
        help_text="The id of the request that asked for the job: the worker's log lines carry it.",
    )
    dice_epoch = models.PositiveIntegerField(
        default=0,
        help_text="The campaign's dice epoch when the job was asked for: whose seed its dice come "
        "from, however late it runs.",
    )
    progress = models.JSONField(
        null=True,
        blank=True,
        help_text="How far a long job has come ({done, total} and what it counts), written in the "
        "same transaction as the work it counts.",
    )

    class Meta:
        indexes = [models.Index(fields=["status", "dispatched_at"], name="eventlog_job_sweep")]
        constraints = [
            models.UniqueConstraint(fields=["campaign_id", "ordinal"], name="eventlog_job_ordinal")
        ]
        ordering = ["requested_at"]

    def __str__(self) -> str:
        return f"{self.kind} {self.id} ({self.status})"

    @property
    def dice_namespace(self) -> str:
        """Server dice of the job are the campaign seed's stream ``job:<ordinal>``: the same
        commands in the same order roll the same dice, and a rerun of the job rolls them again."""
        return f"job:{self.ordinal}"

    @property
    def is_finished(self) -> bool:
        return self.status in (self.Status.SUCCEEDED, self.Status.FAILED)


class ProjectionSnapshot(models.Model):
    """A cached fold of some projections up to a sequence; a cache, safe to delete at any time."""

    campaign_id = models.UUIDField()
    projection_key = models.CharField(max_length=200)
    sequence = models.PositiveBigIntegerField()
    state = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign_id", "projection_key", "sequence"],
                name="eventlog_snapshot_unique",
            )
        ]

    def __str__(self) -> str:
        return f"{self.projection_key} of {self.campaign_id} at {self.sequence}"


class RowVersion(models.Model):
    """One state of a read-model row and the stretch of the campaign's log it held for: from the
    event that wrote it (``valid_from``) up to, not including, the event that next changed or
    deleted it (``valid_to``; NULL while it still holds). Written for the tables a projection
    declares temporal, in the same transaction as the rows, so a table *as of* any point is an
    index lookup (ADR 26). Rebuilt with the read models."""

    id = models.BigAutoField(primary_key=True)
    campaign_id = models.UUIDField()
    table = models.CharField(max_length=100, help_text="The model's label, e.g. rosters.unit.")
    row_key = models.CharField(max_length=100, help_text="The row's primary key, as text.")
    valid_from = models.PositiveBigIntegerField()
    valid_to = models.PositiveBigIntegerField(null=True, blank=True)
    data = models.JSONField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign_id", "table", "row_key", "valid_from"],
                name="eventlog_rowversion_key",
            )
        ]
        # The rows of a table live at a point: those that ended after it (or not at all). On
        # PostgreSQL a GiST index on the range serves early points as well (migration 0010).
        indexes = [
            models.Index(
                fields=["campaign_id", "table", "valid_to"], name="eventlog_rowversion_live"
            )
        ]

    def __str__(self) -> str:
        return f"{self.table} {self.row_key} [{self.valid_from}, {self.valid_to})"


class CommandRecord(models.Model):
    """A command as it was run: what was asked (name, parameters, dice, actor), what it came to
    (the events' sequences or the job that rolls its dice) and the response it got.

    Written once, in the command's transaction, and never changed: a campaign's commands can be
    read back and run again, and a client's ``Idempotency-Key`` finds the original response.
    """

    class DiceSource(models.TextChoices):
        NONE = "none"
        TABLE = "table"
        SERVER = "server"

    id = models.UUIDField(primary_key=True, editable=False)
    campaign_id = models.UUIDField()
    name = models.CharField(max_length=100)
    params = models.JSONField()
    dice_source = models.CharField(max_length=10, choices=DiceSource.choices)
    table_dice = models.JSONField(null=True, blank=True)
    actor_id = models.IntegerField(null=True, blank=True)
    # Client keys only: the server's jobs never take one, so a client cannot collide with them.
    idempotency_key = models.CharField(max_length=200, null=True, blank=True)  # noqa: DJ001
    fingerprint = models.CharField(max_length=64)
    job_id = models.UUIDField(null=True, blank=True)
    first_sequence = models.PositiveBigIntegerField(null=True, blank=True)
    last_sequence = models.PositiveBigIntegerField(null=True, blank=True)
    response_status = models.PositiveSmallIntegerField()
    response_body = models.JSONField(null=True, blank=True)
    recorded_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign_id", "actor_id", "idempotency_key"],
                name="eventlog_command_idempotency",
                condition=models.Q(idempotency_key__isnull=False),
            )
        ]
        indexes = [
            models.Index(fields=["campaign_id", "recorded_at"], name="eventlog_command_campaign")
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.id}"


class ErasedCampaign(models.Model):
    """A campaign whose log was erased as a whole: a branch its umpire deleted
    (``campaigns.branches``). The log's append-only triggers let the events of these campaigns,
    and of no other, be deleted."""

    campaign_id = models.UUIDField(primary_key=True)
    erased_by_id = models.IntegerField(null=True, blank=True)
    erased_at = models.DateTimeField()
    reason = models.CharField(max_length=200)

    def __str__(self) -> str:
        return f"{self.campaign_id} erased at {self.erased_at}"
