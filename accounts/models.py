"""API tokens. Only a hash of each secret is stored: the secret is shown once, when it is made."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """A secret a program presents (``Authorization: Token <secret>``) to act as its user.

    It stops working when it is revoked, when it expires, and when its user's password changes
    (``password_fingerprint`` no longer matches the user's password hash).
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    prefix = models.CharField(
        max_length=16, help_text="The secret's first characters, to recognise it by."
    )
    digest = models.CharField(
        max_length=64, unique=True, help_text="SHA-256 of the secret; the secret is not stored."
    )
    read_only = models.BooleanField(default=False)
    password_fingerprint = models.CharField(
        max_length=64, help_text="Keyed hash of the user's password hash when the token was made."
    )
    created_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "id"]
        indexes = [models.Index(fields=["user", "-created_at"], name="accounts_token_user_created")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
