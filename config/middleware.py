"""Middleware around every request: its id and log line, the Content-Security-Policy header, and
the 503 for a database that gave up on a statement."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.conf import settings
from django.core.signals import request_finished
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, JsonResponse

from config import metrics
from config.errors import busy_answer
from eventlog import logcontext

logger = logging.getLogger("muster.request")

REQUEST_ID_HEADER = "X-Request-ID"
# Probes and scrapes come every few seconds: logged at DEBUG so they do not drown the rest.
_QUIET_PATHS = frozenset({"/livez", "/readyz", "/healthz", "/metrics"})


class RequestIdMiddleware:
    """Give every request an id (the caller's ``X-Request-ID`` when well formed), bind it for the
    request's log lines and the jobs it records, echo it in the response, and log and count the
    request when it is answered. First in the chain, so even a redirect or a refusal by another
    middleware carries the id."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = logcontext.accepted_request_id(request.headers.get(REQUEST_ID_HEADER))
        started = time.perf_counter()
        # Left bound until the response is closed (_forget_request_id): Django logs a 4xx or 5xx
        # answer after the last middleware has returned, and that line needs the id too.
        logcontext.request_id.set(request_id)
        response = self.get_response(request)
        seconds = time.perf_counter() - started
        response[REQUEST_ID_HEADER] = request_id
        route = _route(request)
        metrics.observe_request(request.method or "", route, response.status_code, seconds)
        logger.log(
            logging.DEBUG if request.path in _QUIET_PATHS else logging.INFO,
            "%s %s %s",
            request.method,
            request.path,
            response.status_code,
            extra={
                "method": request.method,
                "path": request.path,
                "route": route,
                "status": response.status_code,
                "duration_ms": round(seconds * 1000, 1),
            },
        )
        return response


@receiver(request_finished, dispatch_uid="muster-forget-request-id")
def _forget_request_id(**kwargs: object) -> None:
    """The request is over: lines its thread logs next (between requests) belong to none."""
    logcontext.request_id.set(None)


def _route(request: HttpRequest) -> str:
    """The URL pattern that answered (``api/v1/campaigns/<uuid:campaign_id>/``), not the path:
    metrics labelled by path would grow a series per campaign."""
    match = getattr(request, "resolver_match", None)
    return match.route if match is not None else "<unmatched>"


class ContentSecurityPolicyMiddleware:
    """Send ``settings.CONTENT_SECURITY_POLICY`` (when set) with every response that has none.

    Django 5.2 has no CSP support of its own. The pages load only their own scripts and styles;
    the API docs load theirs as files too (``SpectacularSwaggerSplitView``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.policy = settings.CONTENT_SECURITY_POLICY

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if self.policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = self.policy
        return response


class DatabaseBusyMiddleware:
    """A view that the database gave up on (lock or statement timeout) answers 503 with
    ``Retry-After`` in the API's error shape, rather than a 500. API views answer this in their
    exception handler already; this covers the pages and every other plain view."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        busy = busy_answer(exception)
        if busy is None:
            return None
        body, headers = busy
        return JsonResponse(body, status=503, headers=headers)
