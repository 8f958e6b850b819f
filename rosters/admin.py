from django.contrib import admin

from campaigns.admin import ReadModelAdmin
from rosters.models import Force, Trooper, TrooperRecordEntry, Unit, UnitHistoryEntry, Vehicle


@admin.register(Force)
class ForceAdmin(ReadModelAdmin):
    list_display = ("name", "side", "campaign_id", "raised_sequence")
    search_fields = ("name", "side")


@admin.register(Unit)
class UnitAdmin(ReadModelAdmin):
    list_display = ("name", "kind", "quality", "leadership", "fatigue", "toe_strength", "status")
    list_filter = ("kind", "status", "quality")
    search_fields = ("name",)


@admin.register(Trooper)
class TrooperAdmin(ReadModelAdmin):
    list_display = ("name", "role", "status", "hospital_until_day", "battles_fought", "wounds")
    list_filter = ("status", "role")
    search_fields = ("name",)


@admin.register(Vehicle)
class VehicleAdmin(ReadModelAdmin):
    list_display = ("name", "vehicle_class", "size", "capacity", "state", "repair_until_day")
    list_filter = ("state",)


@admin.register(UnitHistoryEntry)
class UnitHistoryAdmin(ReadModelAdmin):
    list_display = ("sequence", "unit_id", "summary")


@admin.register(TrooperRecordEntry)
class TrooperRecordAdmin(ReadModelAdmin):
    list_display = ("sequence", "trooper_id", "summary")
