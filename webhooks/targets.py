"""Where a webhook may point, and the one HTTP request that sends a delivery there.

Only ``http`` and ``https`` URLs, without credentials in them. The host is resolved and every
address it has must be public unless ``MUSTER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES`` is on, both when
the webhook is registered (a clear 400) and before each delivery; the request then goes to the
address that was checked (the TLS name and ``Host`` are still the URL's), so a name that resolves
elsewhere a moment later cannot turn a delivery towards the server's own network. Redirects are
not followed: a receiver answers where it was registered.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import urllib3
from django.conf import settings

from eventlog.errors import InvalidInput

MAX_URL_LENGTH = 2000
EXCERPT_BYTES = 500
USER_AGENT = "Muster-Webhooks/1"

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True, slots=True)
class Target:
    """A URL taken apart, with the addresses its host resolved to."""

    url: str
    scheme: str
    host: str
    port: int
    path: str  # with the query, as sent on the request line
    host_header: str
    addresses: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Answer:
    status_code: int
    excerpt: str


class DeliveryFailed(Exception):
    """The request could not be made or got no answer (refused, timed out, bad TLS...)."""


class UnsafeTarget(DeliveryFailed):
    """The URL now resolves to an address deliveries may not go to."""


def _refuse(code: str, message: str) -> InvalidInput:
    return InvalidInput(code, message, field="url")


def parse(url: str) -> Target:
    """Take a webhook URL apart, refusing what is not an http(s) URL to a named host; the
    host is not resolved yet (``addresses`` is empty)."""
    if len(url) > MAX_URL_LENGTH:
        raise _refuse("webhook.url_too_long", f"The URL is longer than {MAX_URL_LENGTH}.")
    try:
        parts = urlsplit(url.strip())
    except ValueError:  # an unclosed [IPv6 address], say
        raise _refuse("webhook.url_host", "The URL's host is not well formed.") from None
    if parts.scheme not in ("http", "https"):
        raise _refuse("webhook.url_scheme", "A webhook URL starts with https:// or http://.")
    if not parts.hostname:
        raise _refuse("webhook.url_host", "The URL names no host.")
    if parts.username is not None or parts.password is not None:
        raise _refuse(
            "webhook.url_credentials",
            "Put no user name or password in the URL: check the signature instead.",
        )
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise _refuse("webhook.url_port", "The URL's port is not a port number.") from None
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(
        url=url.strip(),
        scheme=parts.scheme,
        host=parts.hostname,
        port=port,
        path=path,
        host_header=parts.netloc,
        addresses=(),
    )


def _public(address: IPAddress) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


def resolve(target: Target) -> Target:
    """The target with its host's addresses, each checked. Raises :class:`UnsafeTarget` (a
    delivery) or is turned into a 400 by :func:`check_for_registration`."""
    try:
        found = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError, ValueError) as exc:
        raise DeliveryFailed(f"{target.host} does not resolve: {exc}") from None
    addresses = tuple(dict.fromkeys(str(info[4][0]) for info in found))
    if not settings.MUSTER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES:
        for address in addresses:
            if not _public(ipaddress.ip_address(address.partition("%")[0])):
                raise UnsafeTarget(
                    f"{target.host} resolves to {address}, a private, loopback or reserved "
                    "address; deliveries go only to public addresses here."
                )
    return dataclasses.replace(target, addresses=addresses)


def check_for_registration(url: str) -> str:
    """The URL, cleaned, if a webhook may point there; else a 400 naming the problem."""
    target = parse(url)
    try:
        resolve(target)
    except UnsafeTarget as unsafe:
        raise _refuse("webhook.private_address", str(unsafe)) from None
    except DeliveryFailed as failed:
        raise _refuse("webhook.unresolvable", str(failed)) from None
    return target.url


def post(target: Target, body: bytes, headers: dict[str, str]) -> Answer:
    """POST ``body`` to the target at an address it resolved to. Tries the next address only
    when the connection could not be made, so a request is never sent twice here."""
    timeout = settings.MUSTER_WEBHOOK_TIMEOUT_SECONDS
    sent_headers = {
        "Host": target.host_header,
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        **headers,
    }
    failure: Exception | None = None
    for address in target.addresses:
        pool = _pool(target, address, urllib3.Timeout(connect=timeout, read=timeout))
        try:
            response = pool.urlopen(
                "POST",
                target.path,
                body=body,
                headers=sent_headers,
                redirect=False,
                retries=False,
                preload_content=False,
                assert_same_host=False,
            )
            try:
                excerpt = response.read(EXCERPT_BYTES)
            finally:
                response.release_conn()
            return Answer(response.status, excerpt.decode("utf-8", errors="replace"))
        except (
            urllib3.exceptions.NewConnectionError,
            urllib3.exceptions.ConnectTimeoutError,
        ) as exc:
            failure = exc
        except urllib3.exceptions.HTTPError as exc:
            raise DeliveryFailed(_describe(exc)) from None
        finally:
            pool.close()
    raise DeliveryFailed(_describe(failure) if failure else f"{target.host} has no address.")


def _pool(target: Target, address: str, timeout: urllib3.Timeout) -> urllib3.HTTPConnectionPool:
    if target.scheme == "https":
        return urllib3.HTTPSConnectionPool(
            address,
            target.port,
            timeout=timeout,
            retries=False,
            maxsize=1,
            server_hostname=target.host,
            assert_hostname=target.host,
            cert_reqs="CERT_REQUIRED",
        )
    return urllib3.HTTPConnectionPool(
        address, target.port, timeout=timeout, retries=False, maxsize=1
    )


def _describe(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None)
    text = str(reason or exc) or type(exc).__name__
    return text[:300]
