"""``Authorization: Token <secret>`` (or ``Bearer <secret>``) against the hashed API tokens."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed

if TYPE_CHECKING:
    from accounts.models import ApiToken

KEYWORDS = ("token", "bearer")


class ApiTokenAuthentication(BaseAuthentication):
    """Authenticates a request by its API token: ``request.auth`` is the :class:`ApiToken`.

    A token that is unknown, revoked, expired or older than its user's password is a 401 whose
    code says which (``token.invalid``, ``token.revoked``, ``token.expired``,
    ``token.password_changed``).
    """

    def authenticate(self, request: Any) -> tuple[Any, ApiToken] | None:
        # Imported here: DRF imports this class while it loads, before the models may be.
        from accounts.tokens import token_authenticate_asking
        from eventlog.api.read_cache import position_answered, position_to_ask

        words = get_authorization_header(request).split()
        if not words or words[0].lower().decode(errors="replace") not in KEYWORDS:
            return None
        if len(words) != 2:
            raise AuthenticationFailed(
                "Give the token after the keyword: Authorization: Token <secret>.",
                code="token.malformed",
            )
        try:
            secret = words[1].decode("ascii")
        except UnicodeDecodeError:
            raise AuthenticationFailed("Invalid token.", code="token.invalid") from None
        # A kept read's log position is read in the token's statement (eventlog.api.read_cache).
        asked = position_to_ask(request)
        token, position = token_authenticate_asking(
            secret, (asked.sql, asked.params) if asked else None
        )
        if asked is not None:
            position_answered(request, asked, position)
        return token.user, token

    def authenticate_header(self, request: Any) -> str:
        # Makes DRF answer 401 (not 403) to a request without valid credentials.
        return "Token"
