"""One error shape for the whole API: ``{"code", "message", "field"}``."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, JsonResponse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from eventlog.errors import CommandError, database_busy

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
    body = {
        "code": f"database.{busy}",
        "message": f"{_BUSY_MESSAGES[busy]} Nothing was changed; try again in {retry_after} s.",
        "field": None,
    }
    return body, {"Retry-After": str(retry_after)}


def _first_problem(detail: Any, path: str = "") -> tuple[str, str, str | None]:
    """The first (field, message, code) in a DRF error detail tree."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = key if key != "non_field_errors" else ""
            return _first_problem(value, f"{path}.{name}".strip(".") if name else path)
    if isinstance(detail, list) and detail:
        first = detail[0]
        if isinstance(first, dict | list):
            return _first_problem(first, f"{path}.0" if path else "0")
        return path, str(first), getattr(first, "code", "invalid")
    return path, str(detail), getattr(detail, "code", "invalid")


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
            {
                "code": "request.too_large",
                "message": f"The request body is larger than the {limit:,} bytes accepted.",
                "field": None,
            },
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if isinstance(exc, Http404):
        return Response(
            {"code": "not_found", "message": "Not found.", "field": None},
            status=status.HTTP_404_NOT_FOUND,
        )
    if isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        field, message, code = _first_problem(exc.detail)
        body = {
            "code": f"invalid.{code}",
            "message": f"{field}: {message}" if field else message,
            "field": field or None,
        }
    elif isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else "error"
        body = {"code": code, "message": str(exc.detail), "field": None}
    else:  # pragma: no cover - DRF only handles APIException and the two above
        body = {"code": "error", "message": str(exc), "field": None}
    response.data = body
    return response


def json_not_found(request, exception=None) -> JsonResponse:
    return JsonResponse({"code": "not_found", "message": "Not found.", "field": None}, status=404)


def json_server_error(request) -> JsonResponse:
    return JsonResponse(
        {"code": "server_error", "message": "Something went wrong on our side.", "field": None},
        status=500,
    )
