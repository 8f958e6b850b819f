"""``/metrics``: Prometheus metrics for requests, commands, appends and jobs, behind a token.

The endpoint exists only when ``METRICS_TOKEN`` is set (404 otherwise) and answers only a request
that sends ``Authorization: Bearer <METRICS_TOKEN>`` (401 otherwise): the metrics name commands and
routes, which are nobody else's business.

Under gunicorn each worker process counts its own requests. Set ``PROMETHEUS_MULTIPROC_DIR`` to an
empty directory the workers share and start gunicorn with ``-c config/gunicorn.py`` (it empties the
directory at start and drops a dead worker's files) to have ``/metrics`` add them all up.
"""

from __future__ import annotations

import hmac
import os

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

from eventlog.errors import error_body
from eventlog.metrics import JobCollector

REQUESTS = Counter(
    "muster_http_requests",
    "HTTP requests answered, by method, URL pattern and status.",
    ["method", "route", "status"],
)
REQUEST_SECONDS = Histogram(
    "muster_http_request_seconds",
    "Time to answer an HTTP request, by method and URL pattern.",
    ["method", "route"],
)


def observe_request(method: str, route: str, status: int, seconds: float) -> None:
    REQUESTS.labels(method, route, str(status)).inc()
    REQUEST_SECONDS.labels(method, route).observe(seconds)


def has_metrics_token(request: HttpRequest) -> bool:
    """Whether the request carries the metrics token (never, when none is configured)."""
    token = settings.METRICS_TOKEN
    if not token:
        return False
    sent = request.headers.get("Authorization", "")
    return hmac.compare_digest(sent.encode(), f"Bearer {token}".encode())


# The job table's metrics are the same whichever process is asked: kept apart from the
# process's own, which may be read from gunicorn's shared directory instead.
_JOBS = CollectorRegistry()
_JOBS.register(JobCollector())


def _registries() -> list[CollectorRegistry]:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        processes = CollectorRegistry()
        multiprocess.MultiProcessCollector(processes)
        return [processes, _JOBS]
    return [REGISTRY, _JOBS]


@never_cache
def metrics_view(request: HttpRequest) -> HttpResponse:
    if not settings.METRICS_TOKEN:
        return JsonResponse(error_body("not_found", "Not found."), status=404)
    if not has_metrics_token(request):
        return JsonResponse(
            error_body(
                "not_authenticated",
                "Send the metrics token: Authorization: Bearer <METRICS_TOKEN>.",
            ),
            status=401,
            headers={"WWW-Authenticate": 'Bearer realm="metrics"'},
        )
    body = b"".join(generate_latest(registry) for registry in _registries())
    return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)
