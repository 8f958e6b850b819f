"""Conditional and compressed API reads (docs/adr/0015-export-import-and-caching.md).

- Every successful ``GET`` under ``/api/v1/`` carries a strong ``ETag``, the SHA-256 of its body,
  and a request whose ``If-None-Match`` names it is answered ``304 Not Modified`` without the
  body. Bodies depend on who reads them, so the tag is of the body itself rather than of the
  campaign's last sequence: it cannot be wrong, and it spares the bytes though not the work.
- Answers pinned to an ``as_of`` the campaign has reached never change
  (``eventlog.caching.pin_answer``): ``Cache-Control: private, max-age=31536000, immutable``.
  Everything else is ``private, no-cache``: a client may keep it but asks again each time,
  with its tag. ``private``: no shared cache may keep an answer meant for one reader.
- JSON answers to ``GET`` are compressed with gzip when the client accepts it (a 1,000-event
  page goes from about 237 KB to a tenth of that). Only those: they carry no secret a third
  party could guess at by what it sends (BREACH needs a secret and the attacker's text in one
  compressed body); API tokens travel in headers, the pages' CSRF tokens are in HTML, which is
  not compressed, and the answers that show a token are answers to ``POST``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.middleware.gzip import GZipMiddleware, re_accepts_gzip
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import quote_etag

from eventlog.caching import KEPT_DIGEST, KEPT_GZIP, pinned_sequence

API_PREFIX = "/api/v1/"
PINNED_CACHE_CONTROL = "private, max-age=31536000, immutable"
REVALIDATE_CACHE_CONTROL = "private, no-cache"


def _is_api_read(request: HttpRequest) -> bool:
    return request.method == "GET" and request.path.startswith(API_PREFIX)


class ApiConditionalGetMiddleware:
    """``ETag``, ``If-None-Match`` and ``Cache-Control`` for the API's reads."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if not _is_api_read(request):
            return response
        # The answer depends on who asks: a client's cache keys it by these request headers too.
        patch_vary_headers(response, ("Authorization", "Cookie"))
        if "Cache-Control" not in response:
            pinned = pinned_sequence(request) is not None and response.status_code == 200
            response["Cache-Control"] = PINNED_CACHE_CONTROL if pinned else REVALIDATE_CACHE_CONTROL
        if response.streaming or response.status_code != 200:
            return response
        assert isinstance(response, HttpResponse)
        # A read kept under its log position (ADR 27) brings the digest it was kept with.
        digest = (
            getattr(response, KEPT_DIGEST, None) or hashlib.sha256(response.content).hexdigest()
        )
        response["ETag"] = quote_etag(digest)
        return (
            get_conditional_response(request, etag=response["ETag"], response=response) or response
        )


class ApiJsonGZipMiddleware(GZipMiddleware):
    """Django's gzip (with its random padding against length attacks), for the API's JSON
    answers to ``GET`` only."""

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        content_type = response.get("Content-Type", "")
        if not _is_api_read(request) or not content_type.startswith("application/json"):
            return response
        kept = getattr(response, KEPT_GZIP, None)
        if kept is None:
            return super().process_response(request, response)
        # A kept read (ADR 27) was compressed, with its random padding, when it was kept: the
        # same answer is sent as it was compressed then, as Django's middleware would send it.
        assert isinstance(response, HttpResponse)
        patch_vary_headers(response, ("Accept-Encoding",))
        if not re_accepts_gzip.search(request.META.get("HTTP_ACCEPT_ENCODING", "")):
            return response
        response.content = kept
        response.headers["Content-Length"] = str(len(kept))
        etag = response.get("ETag")
        if etag and etag.startswith('"'):
            response.headers["ETag"] = "W/" + etag
        response.headers["Content-Encoding"] = "gzip"
        return response
