"""Read models in the Django admin: visible, never editable.

Read models are projections of the log, so the admin may show them but never add, change or
delete a row (that would be a change with no event behind it). Superusers see every campaign;
other staff see only the campaigns they umpire.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest


class ReadModelAdmin(admin.ModelAdmin):
    """A read-only admin for a projection table with a ``campaign_id`` column."""

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return bool(request.user.is_active and request.user.is_staff)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request)

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        from campaigns.models import Membership

        umpired = Membership.objects.filter(user_id=request.user.pk, role="umpire").values(
            "campaign_id"
        )
        return queryset.filter(campaign_id__in=umpired)
