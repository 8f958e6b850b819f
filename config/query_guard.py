"""Refuse control characters in a request's query string before any view reads it.

A NUL byte in ``?type=`` reaches PostgreSQL, which refuses it with an error the view never
expected (a 500). No query parameter of Muster means anything with a control character in its
name or value, so the request is answered 400 with the JSON error shape, naming the parameter.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse

from eventlog.errors import error_body

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class RefuseControlCharactersInQuery:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        for name, values in request.GET.lists():
            for value in (name, *values):
                if _CONTROL.search(value):
                    return JsonResponse(
                        error_body(
                            "invalid.control_character",
                            f"{name!r}: control characters are not allowed in a query parameter.",
                            _CONTROL.sub("?", name),
                        ),
                        status=400,
                    )
        return self.get_response(request)
