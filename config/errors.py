"""One error shape for the whole API: ``{"code", "message", "field", "problems"}``.

``code``, ``message`` and ``field`` describe the first problem, so a client that shows one
message has one to show; ``problems`` lists every problem of the request, each with its own
``code``, ``message`` and ``field``, so a form can mark every field at once.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from eventlog.errors import CommandError, database_busy, error_body

logger = logging.getLogger(__name__)

_BUSY_MESSAGES = {
    "lock_timeout": "The campaign is busy with another change.",
    "statement_timeout": "The database took too long to answer.",
}


def busy_answer(exc: BaseException) -> tuple[dict[str, Any], dict[str, str]] | None:
    """The 503 body and headers for a statement the database gave up on (a lock or statement
    timeout): the request may succeed if sent again, so it is told when. None for anything
    else."""
    busy = database_busy(exc)
    if busy is None:
        return None
    retry_after = settings.DB_BUSY_RETRY_AFTER
    logger.warning("The database gave up on a statement (%s); answered 503.", busy)
    body = error_body(
        f"database.{busy}",
        f"{_BUSY_MESSAGES[busy]} Nothing was changed; try again in {retry_after} s.",
    )
    return body, {"Retry-After": str(retry_after)}


def problems_of(detail: Any, path: str = "") -> list[dict[str, Any]]:
    """Every (field, message, code) in a DRF error detail tree, in the order DRF found them."""
    if isinstance(detail, dict):
        found: list[dict[str, Any]] = []
        for key, value in detail.items():
            name = key if key != "non_field_errors" else ""
            found += problems_of(value, f"{path}.{name}".strip(".") if name else path)
        return found
    if isinstance(detail, list):
        found = []
        for index, item in enumerate(detail):
            if isinstance(item, dict | list):
                found += problems_of(item, f"{path}.{index}" if path else str(index))
            else:
                found.append(_problem(path, item))
        return found
    return [_problem(path, detail)]


def _problem(field: str, detail: Any) -> dict[str, Any]:
    message = str(detail)
    return {
        "code": f"invalid.{getattr(detail, 'code', None) or 'invalid'}",
        "message": f"{field}: {message}" if field else message,
        "field": field or None,
    }


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, CommandError):
        return Response(exc.as_dict(), status=exc.status)
    busy = busy_answer(exc)
    if busy is not None:
        body, headers = busy
        return Response(body, status=status.HTTP_503_SERVICE_UNAVAILABLE, headers=headers)
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return Response(
            error_body(
                "request.too_large",
                f"The request body is larger than the {limit:,} bytes accepted.",
            ),
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if isinstance(exc, Http404):
        return Response(error_body("not_found", "Not found."), status=status.HTTP_404_NOT_FOUND)
    if isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        problems = problems_of(exc.detail) or [_problem("", "The request is not valid.")]
        body = {**problems[0], "problems": problems}
    elif isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        body = error_body(codes if isinstance(codes, str) else "error", str(exc.detail))
    else:  # pragma: no cover - DRF only handles APIException and the two above
        body = error_body("error", str(exc))
    response.data = body
    return response


# Pages answer people with pages; everything else (the API, health checks) answers with JSON.
_PAGE_ERRORS = {
    403: ("Not yours to see", "You may not see this page, or do this, in this campaign."),
    404: ("Not found", "There is no such page, or nothing here you may see."),
    500: ("Something went wrong", "Something went wrong on our side. Nothing you did is lost."),
}


def _for_people(request: HttpRequest) -> bool:
    path = request.path
    return not path.startswith(("/api/", "/livez", "/readyz", "/healthz", "/metrics"))


def _page(status_code: int, request: HttpRequest | None = None) -> HttpResponse:
    title, message = _PAGE_ERRORS[status_code]
    context = {"status": status_code, "title": title, "message": message}
    body: str
    try:
        body = loader.render_to_string("pages/error.html", context, request=request)
    except Exception:  # a page that failed to render must not hide the error it reports
        logger.exception("The %s page could not be rendered.", status_code)
        body = f"<!doctype html><title>{title}</title><h1>{title}</h1><p>{message}</p>"
    return HttpResponse(body, status=status_code)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _for_people(request):
        return _page(404, request)
    return JsonResponse(error_body("not_found", "Not found."), status=404)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _for_people(request):
        return _page(403, request)
    return JsonResponse(error_body("permission_denied", "You may not do this."), status=403)


def server_error(request: HttpRequest) -> HttpResponse:
    if _for_people(request):
        # No request: its context processors may be what failed.
        return _page(500)
    return JsonResponse(error_body("server_error", "Something went wrong on our side."), status=500)
