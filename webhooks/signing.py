"""The signature every delivery carries, and how a receiver checks it (docs/webhooks.md).

``Muster-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed by the secret>``.
The time is signed with the body, so a receiver that refuses old times refuses a replayed
request; ``v1`` names the scheme, so another can be added beside it without breaking receivers.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

SCHEME = "v1"
SECRET_PREFIX = "whsec_"
# How far a signature's time may be from the receiver's clock, by default.
TOLERANCE_SECONDS = 300


def new_secret() -> str:
    """A webhook's signing secret: 256 random bits."""
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """The hex HMAC-SHA256 of ``<timestamp>.<body>`` keyed by ``secret``."""
    signed = str(timestamp).encode() + b"." + body
    return hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


def signature_header(secret: str, body: bytes, *, timestamp: int | None = None) -> str:
    """The ``Muster-Signature`` value for ``body`` sent now (or at ``timestamp``)."""
    timestamp = int(time.time()) if timestamp is None else timestamp
    return f"t={timestamp},{SCHEME}={signature(secret, timestamp, body)}"


def verify(
    secret: str,
    header: str,
    body: bytes,
    *,
    tolerance: int = TOLERANCE_SECONDS,
    now: float | None = None,
) -> bool:
    """Whether ``header`` signs ``body`` with ``secret`` at a time within ``tolerance`` seconds
    of ``now``. Muster's own check, the one docs/webhooks.md shows receivers."""
    parts: dict[str, list[str]] = {}
    for item in header.split(","):
        key, _, value = item.strip().partition("=")
        parts.setdefault(key, []).append(value)
    try:
        timestamp = int(parts["t"][0])
    except (KeyError, ValueError):
        return False
    now = time.time() if now is None else now
    if abs(now - timestamp) > tolerance:
        return False
    expected = signature(secret, timestamp, body)
    return any(hmac.compare_digest(expected, given) for given in parts.get(SCHEME, []))
