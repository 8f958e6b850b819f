"""What a read-only token may do: read."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission


class ReadOnlyTokensOnlyRead(BasePermission):
    """A request made with a read-only token may only read (GET, HEAD, OPTIONS): any other
    method is a 403 ``token.read_only``, whatever the token's user may do otherwise."""

    message = "This token is read-only: it may not change anything."
    code = "token.read_only"

    def has_permission(self, request: Any, view: Any) -> bool:
        # request.auth is the ApiToken for token requests, None for sessions. Read by attribute:
        # DRF imports this class while it loads its own views, before any model may be.
        if getattr(request.auth, "read_only", False):
            return request.method in SAFE_METHODS
        return True
