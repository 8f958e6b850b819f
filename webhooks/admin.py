"""Webhooks and their audit trail in Django's admin, read-only, for the campaigns one umpires.

The umpire manages webhooks through the API (docs/webhooks.md); here staff can see what is
registered and who did what. The signing secret is never shown.
"""

from __future__ import annotations

from django.contrib import admin

from campaigns.admin import ReadModelAdmin
from webhooks.models import Webhook, WebhookAudit


@admin.register(Webhook)
class WebhookAdmin(ReadModelAdmin):
    list_display = ["url", "campaign_id", "active", "starts_after", "created_at"]
    list_filter = ["active"]
    exclude = ["secret", "sending_until"]


@admin.register(WebhookAudit)
class WebhookAuditAdmin(ReadModelAdmin):
    list_display = ["at", "action", "webhook_id", "campaign_id", "actor"]
    list_filter = ["action"]
