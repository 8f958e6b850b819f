"""Battle read models: battles, their sides and participating units, and the battle log."""

from __future__ import annotations

from django.db import models


class Battle(models.Model):
    class Status(models.TextChoices):
        PLANNED = "planned"
        COMMITTED = "committed"
        IN_PROGRESS = "in_progress"
        ENDED = "ended"
        RESOLVED = "resolved"

    id = models.UUIDField(primary_key=True)
    campaign_id = models.UUIDField(db_index=True)
    name = models.CharField(max_length=200)
    scenario = models.CharField(max_length=200, blank=True)
    day = models.IntegerField()
    status = models.CharField(max_length=20, choices=Status.choices)
    turn = models.PositiveIntegerField(default=0)
    attacker = models.CharField(max_length=100, blank=True)
    winner = models.CharField(max_length=100, blank=True)
    next_on_attacker_win = models.UUIDField(null=True, blank=True)
    next_on_defender_win = models.UUIDField(null=True, blank=True)
    next_battle_id = models.UUIDField(null=True, blank=True)
    planned_sequence = models.PositiveBigIntegerField()

    class Meta:
        ordering = ["day", "planned_sequence"]

    def __str__(self) -> str:
        return self.name


class BattleSide(models.Model):
    key = models.CharField(primary_key=True, max_length=150)  # "<battle id>:<side>"
    campaign_id = models.UUIDField(db_index=True)
    battle_id = models.UUIDField(db_index=True)
    side = models.CharField(max_length=100)
    order = models.PositiveSmallIntegerField()
    force_ids = models.JSONField(default=list)
    mission = models.JSONField(default=dict)
    casevac = models.JSONField(default=dict)
    # Support request counters and fire missions on the side's Inbound Chart (SG2 P.44-46).
    support = models.JSONField(default=dict)

    class Meta:
        ordering = ["battle_id", "order"]

    def __str__(self) -> str:
        return self.side


class Participant(models.Model):
    """A unit's state in one battle."""

    class Status(models.TextChoices):
        FIGHTING = "fighting"
        WITHDRAWN = "withdrawn"
        ROUTED = "routed"
        SURRENDERED = "surrendered"

    key = models.CharField(primary_key=True, max_length=80)  # "<battle id>:<unit id>"
    campaign_id = models.UUIDField(db_index=True)
    battle_id = models.UUIDField(db_index=True)
    unit_id = models.UUIDField(db_index=True)
    side = models.CharField(max_length=100)
    fatigue = models.CharField(max_length=20, blank=True)
    mission_motivation = models.CharField(max_length=20)
    starting_confidence = models.CharField(max_length=20, blank=True)
    confidence = models.CharField(max_length=20, blank=True)
    suppression = models.PositiveSmallIntegerField(default=0)
    status = models.CharField(max_length=20, choices=Status.choices)
    objective_met = models.BooleanField(default=False)
    # While the unit is in a close assault (SG2 P.41-43): the assault, its side, the last round,
    # the units it fights and its figures down so far; null otherwise.
    close_assault = models.JSONField(null=True, blank=True, default=None)
    # Fast and Dirty: the unit's marker (FaD p.24: under_fire or pinned; blank: none), whether
    # it is broken (p.13), and its Resolve in this battle (p.13-14: Losing Heart and Leave No
    # One Behind lower it; blank until it first changes from the roster's).
    marker = models.CharField(max_length=20, blank=True, default="")
    broken = models.BooleanField(default=False)
    resolve = models.CharField(max_length=20, blank=True, default="")

    class Meta:
        ordering = ["battle_id", "side"]

    def __str__(self) -> str:
        return self.key


class BattleLogEntry(models.Model):
    """One line of a battle's story, with the dice behind it."""

    key = models.CharField(primary_key=True, max_length=80)  # "<event position>:<n>"
    campaign_id = models.UUIDField(db_index=True)
    battle_id = models.UUIDField(db_index=True)
    sequence = models.PositiveBigIntegerField()
    turn = models.PositiveIntegerField(default=0)
    event_type = models.CharField(max_length=100)
    summary = models.TextField()
    dice = models.JSONField(default=list)
    recorded_at = models.DateTimeField()

    class Meta:
        ordering = ["sequence", "key"]

    def __str__(self) -> str:
        return self.summary


class BattleReport(models.Model):
    """A side's account of a battle, filed by one of its players: the losses of both sides as
    they saw them, the objectives they say were met, and notes. A side's later report replaces
    its earlier one until the umpire has decided a point of it."""

    key = models.CharField(primary_key=True, max_length=150)  # "<battle id>:<side>"
    campaign_id = models.UUIDField(db_index=True)
    battle_id = models.UUIDField(db_index=True)
    side = models.CharField(max_length=100)
    report_id = models.UUIDField()
    filed_by = models.CharField(max_length=150, blank=True, default="")
    sequence = models.PositiveBigIntegerField()  # of the event that filed it
    troopers = models.JSONField(default=list)  # [{"trooper_id", "status"}]
    objectives = models.JSONField(default=list)  # [{"objective", "met"}]
    notes = models.TextField(blank=True, default="")
    # The umpire's decision on each point of the report: "trooper:<id>" or
    # "objective:<side>:<objective>" -> {"claimed", "logged", "value", "decision", "upheld",
    # "reason", "sequence"}.
    decisions = models.JSONField(default=dict)

    class Meta:
        ordering = ["battle_id", "side"]

    def __str__(self) -> str:
        return f"{self.side}'s report of battle {self.battle_id}"
