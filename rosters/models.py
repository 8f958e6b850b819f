"""Roster read models: forces, units, troopers, vehicles and their histories.

All are projections of the log (``rosters/projections.py``): rebuilt from events, never edited.
Primary keys come from the events (entity ids, event positions).
"""

from __future__ import annotations

from django.db import models

from rosters.vocabulary import TrooperRole, TrooperStatus, UnitKind, UnitStatus, VehicleState


class Force(models.Model):
    id = models.UUIDField(primary_key=True)
    campaign_id = models.UUIDField(db_index=True)
    name = models.CharField(max_length=200)
    side = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    source = models.CharField(max_length=200, blank=True)
    raised_sequence = models.PositiveBigIntegerField()

    class Meta:
        ordering = ["raised_sequence"]

    def __str__(self) -> str:
        return self.name


class Unit(models.Model):
    id = models.UUIDField(primary_key=True)
    campaign_id = models.UUIDField(db_index=True)
    force_id = models.UUIDField(db_index=True)
    parent_id = models.UUIDField(null=True, blank=True)
    order = models.PositiveIntegerField()
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=20, choices=[(k.value, k.value) for k in UnitKind])
    level = models.PositiveSmallIntegerField(null=True, blank=True)
    quality = models.CharField(max_length=20, blank=True)
    leadership = models.PositiveSmallIntegerField(null=True, blank=True)
    resolve = models.CharField(max_length=20, blank=True)
    fatigue = models.CharField(max_length=20, blank=True)
    mission_motivation = models.CharField(max_length=20, blank=True)
    toe_strength = models.PositiveIntegerField()
    specialists = models.JSONField(default=list)
    status = models.CharField(max_length=20, choices=[(s.value, s.value) for s in UnitStatus])
    attached_to = models.UUIDField(null=True, blank=True)
    merged_into = models.UUIDField(null=True, blank=True)
    experience_points = models.PositiveIntegerField(default=0)
    rest_days = models.PositiveIntegerField(
        default=0, help_text="Days of R&R accrued toward the next fatigue level (SG2 P.61)."
    )
    battles_since_rest = models.PositiveIntegerField(default=0)
    unfit = models.BooleanField(
        default=False,
        help_text="Failed the exhausted-withdrawal test: must stay out of combat until R&R "
        "restores a fatigue level, or it disintegrates (SG2 P.61).",
    )
    supplied = models.BooleanField(
        default=True,
        help_text="Has suitable supplies; without them every between-battle time doubles "
        "(SG2 P.61).",
    )

    class Meta:
        ordering = ["force_id", "order"]

    def __str__(self) -> str:
        return self.name


class Trooper(models.Model):
    id = models.UUIDField(primary_key=True)
    campaign_id = models.UUIDField(db_index=True)
    force_id = models.UUIDField(db_index=True)
    unit_id = models.UUIDField(db_index=True)
    order = models.PositiveIntegerField()
    name = models.CharField(max_length=200)
    role = models.CharField(max_length=30, choices=[(r.value, r.value) for r in TrooperRole])
    weapon = models.CharField(max_length=200, blank=True)
    armour = models.CharField(max_length=200, blank=True)
    armour_die = models.PositiveSmallIntegerField(null=True, blank=True)
    power_armour = models.BooleanField(default=False)
    suit_wrecked = models.BooleanField(
        default=False,
        help_text="His power-armour suit was wrecked (SG2 P.40 roll 5): until it is repaired "
        "he fights unarmoured.",
    )
    suit_repaired_on_day = models.IntegerField(
        null=True,
        blank=True,
        help_text="The day his wrecked suit is repaired; none until the after-action sets it.",
    )
    specialism = models.CharField(max_length=200, blank=True)
    experience = models.CharField(
        max_length=20,
        blank=True,
        help_text="A Fast and Dirty squad leader's experience: inexperienced, experienced or "
        "veteran (FaD p.11); empty for anyone else.",
    )
    status = models.CharField(max_length=20, choices=[(s.value, s.value) for s in TrooperStatus])
    hospital_until_day = models.IntegerField(null=True, blank=True)
    battles_fought = models.PositiveIntegerField(default=0)
    wounds = models.PositiveIntegerField(default=0)
    days_in_hospital = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["unit_id", "order"]

    def __str__(self) -> str:
        return self.name


class Vehicle(models.Model):
    id = models.UUIDField(primary_key=True)
    campaign_id = models.UUIDField(db_index=True)
    force_id = models.UUIDField(db_index=True)
    unit_id = models.UUIDField(db_index=True)
    order = models.PositiveIntegerField()
    name = models.CharField(max_length=200)
    vehicle_class = models.CharField(max_length=100, blank=True)
    size = models.PositiveSmallIntegerField()
    capacity = models.PositiveSmallIntegerField()
    armour = models.PositiveSmallIntegerField(null=True, blank=True)
    state = models.CharField(max_length=20, choices=[(s.value, s.value) for s in VehicleState])
    repair_until_day = models.IntegerField(null=True, blank=True)

    class Meta:
        ordering = ["unit_id", "order"]

    def __str__(self) -> str:
        return self.name


class UnitHistoryEntry(models.Model):
    """One change to a unit, with its cause in plain words."""

    key = models.CharField(primary_key=True, max_length=80)  # "<event position>:<unit id>"
    campaign_id = models.UUIDField(db_index=True)
    unit_id = models.UUIDField(db_index=True)
    sequence = models.PositiveBigIntegerField()
    event_type = models.CharField(max_length=100)
    summary = models.TextField()
    changes = models.JSONField(default=dict)
    battle_id = models.UUIDField(null=True, blank=True)
    dice = models.JSONField(default=list)
    recorded_at = models.DateTimeField()

    class Meta:
        ordering = ["sequence"]

    def __str__(self) -> str:
        return self.summary


class TrooperRecordEntry(models.Model):
    """One line of a trooper's service record."""

    key = models.CharField(primary_key=True, max_length=80)  # "<event position>:<trooper id>"
    campaign_id = models.UUIDField(db_index=True)
    trooper_id = models.UUIDField(db_index=True)
    sequence = models.PositiveBigIntegerField()
    event_type = models.CharField(max_length=100)
    summary = models.TextField()
    battle_id = models.UUIDField(null=True, blank=True)
    dice = models.JSONField(default=list)
    recorded_at = models.DateTimeField()

    class Meta:
        ordering = ["sequence"]

    def __str__(self) -> str:
        return self.summary


class RosterBattle(models.Model):
    """A battle as the rosters know it, folded from ``battles.BattlePlanned``: its name for the
    lines of histories and service records, and who is aboard each side's casevac, so a
    departing casevac is told in the history of the unit that loaded each man. The rosters keep
    their own copy rather than read the battles' tables (DESIGN §2, ownership)."""

    id = models.UUIDField(primary_key=True)  # the battle's id
    campaign_id = models.UUIDField(db_index=True)
    name = models.CharField(max_length=200)
    casevac_aboard = models.JSONField(
        default=dict, help_text="Per side of the battle: trooper id -> the unit that loaded him."
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
