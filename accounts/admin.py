"""API tokens in the admin, read-only: never made there (their secret would be lost) and never
edited; revoking is for their owner, through the API."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from accounts.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "user",
        "prefix",
        "read_only",
        "created_at",
        "last_used_at",
        "expires_at",
        "revoked_at",
    )
    list_filter = ("read_only",)
    search_fields = ("name", "user__username", "prefix")
    exclude = ("digest", "password_fingerprint")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
