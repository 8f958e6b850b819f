"""How fast a client may log in and write: DRF's throttles, counting in the cache.

Rates are ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (set from the environment in
``config/settings/base.py``), read at every request rather than once at import as DRF's classes
do, so a changed setting takes effect at once (and tests can set the real rates).

- ``login``: attempts to log in (the login page and ``POST /api/v1/auth/token/`` together) from
  one address;
- ``login_username``: attempts to log in as one username, from any address (someone guessing one
  account's password from many machines);
- ``writes``: requests that change something (any method but GET, HEAD and OPTIONS), by user, or
  by address for a client not logged in;
- ``anon``: any request from a client not logged in, by address.

The address is ``REMOTE_ADDR``, or with ``NUM_PROXIES`` proxies in front the address the
nearest of them saw in ``X-Forwarded-For`` (DRF's ``get_ident``).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable
from typing import Any, cast

from django.http import HttpRequest
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle


class _RatesFromSettings:
    """Reads the scope's rate from the current settings, not from DRF's copy at import."""

    scope: str

    def get_rate(self) -> str | None:
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        return None if rate is None else str(rate)


def _hashed(text: str) -> str:
    # Cache keys stay short and printable whatever a client sends.
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def attempted_username(request: Any) -> str:
    """The username a log-in request tries, as the user model compares it."""
    data = getattr(request, "data", None)
    if data is None:  # a plain Django request (the login page)
        data = request.POST
    value = data.get("username") if hasattr(data, "get") else None
    return value.strip().casefold() if isinstance(value, str) else ""


class LoginAddressThrottle(_RatesFromSettings, SimpleRateThrottle):
    scope = "login"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class LoginUsernameThrottle(_RatesFromSettings, SimpleRateThrottle):
    scope = "login_username"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        username = attempted_username(request)
        if not username:
            return None
        return self.cache_format % {"scope": self.scope, "ident": _hashed(username)}


class WriteRateThrottle(_RatesFromSettings, UserRateThrottle):
    """Writes, by user (or by address for a client not logged in); reads are not counted."""

    scope = "writes"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if request.method in SAFE_METHODS:
            return None
        return super().get_cache_key(request, view)


class AnonymousRateThrottle(_RatesFromSettings, AnonRateThrottle):
    """Any request of a client not logged in, by address."""

    scope = "anon"


LOGIN_THROTTLES: tuple[type[SimpleRateThrottle], ...] = (
    LoginAddressThrottle,
    LoginUsernameThrottle,
)


def login_wait(request: HttpRequest, view: Any) -> int | None:
    """Seconds to wait before another log-in attempt is allowed, or None when this one may go
    ahead (and is counted). For views outside DRF, such as the login page."""
    # DRF's throttles read only what a Django request has too: its address and user.
    as_drf = cast(Request, request)
    throttles: Iterable[SimpleRateThrottle] = [throttle() for throttle in LOGIN_THROTTLES]
    waits = [throttle.wait() for throttle in throttles if not throttle.allow_request(as_drf, view)]
    if not waits:
        return None
    return max(math.ceil(wait or 1) for wait in waits)
