"""The campaign read models in Django's admin, read-only.

Read models are projections of the log: changing a row here would only be undone by the next
rebuild, so nobody may add, change or delete one. Superusers see every campaign; other staff see
only the campaigns they umpire. The campaign's dice seed is secret and is not shown at all.
"""

from __future__ import annotations

import uuid
from typing import Any, Protocol, TypedDict

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from campaigns.models import Campaign, CampaignHistoryEntry, DiceTrayRoll, JournalNote, Membership


class _CampaignIdRow(TypedDict):
    campaign_id: uuid.UUID


class _CampaignScoped(Protocol):
    campaign_id: uuid.UUID


def umpired_campaign_ids(request: HttpRequest) -> QuerySet[Membership, _CampaignIdRow]:
    user = request.user
    if not user.is_authenticated:  # umpires nothing
        return Membership.objects.none().values("campaign_id")
    return Membership.objects.filter(user_id=user.pk, role=Membership.Role.UMPIRE).values(
        "campaign_id"
    )


class ReadModelAdmin(admin.ModelAdmin):
    """Every campaign read model has a ``campaign_id``, which decides who may see its rows."""

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(campaign_id__in=umpired_campaign_ids(request))

    def has_view_permission(self, request: HttpRequest, obj: _CampaignScoped | None = None) -> bool:
        user = request.user
        if not (user.is_active and user.is_staff):
            return False
        if user.is_superuser:
            return True
        umpired = umpired_campaign_ids(request)
        if obj is None:
            return umpired.exists()
        return umpired.filter(campaign_id=obj.campaign_id).exists()

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(Campaign)
class CampaignAdmin(ReadModelAdmin):
    list_display = ["name", "ruleset", "umpire_id", "created_at"]
    list_filter = ["ruleset"]
    search_fields = ["name"]


@admin.register(Membership)
class MembershipAdmin(ReadModelAdmin):
    list_display = ["username", "user_id", "role", "campaign_id", "joined_at"]
    list_filter = ["role"]
    search_fields = ["username"]


@admin.register(JournalNote)
class JournalNoteAdmin(ReadModelAdmin):
    list_display = ["sequence", "campaign_id", "__str__", "recorded_at"]
    search_fields = ["text"]


@admin.register(DiceTrayRoll)
class DiceTrayRollAdmin(ReadModelAdmin):
    list_display = ["sequence", "campaign_id", "purpose", "total", "recorded_at"]


@admin.register(CampaignHistoryEntry)
class CampaignHistoryEntryAdmin(ReadModelAdmin):
    list_display = ["sequence", "campaign_id", "type", "summary", "recorded_at"]
    list_filter = ["type"]
    search_fields = ["summary"]
