"""How every list in the API is cut into pages.

Two styles, one for each kind of list:

- **By sequence**, for what the event log orders (a campaign's events, a unit's history, a
  battle's log): ``?after=<sequence>&limit=N`` answers ``{"results", "next"}``; ``next`` is the
  URL of the following page, or null at the end. A cursor stays right while the log grows.
- **By offset**, for everything else (campaigns, forces, units, troopers, battles, members...):
  ``?limit=N&offset=M`` answers ``{"count", "next", "previous", "results"}``.

A limit or offset that is not a whole number in range is refused with 400 and the parameter
named, rather than quietly replaced by the default.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from itertools import groupby
from typing import Any, TypeVar

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.request import Request

from eventlog.errors import CommandError

PAGE_DEFAULT = 100
PAGE_MAX = 1000
# Far beyond any list a campaign holds, and within every database's integer.
OFFSET_MAX = 2**31

T = TypeVar("T")


def int_param(request: Request, name: str, default: int, *, low: int, high: int) -> int:
    """A whole-number query parameter between ``low`` and ``high``, or a 400 naming it."""
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise CommandError(
            "invalid.integer", f"{name} must be a whole number.", field=name
        ) from None
    if not low <= value <= high:
        raise CommandError("invalid.range", f"{name} must be {low} to {high}.", field=name)
    return value


def _url_with(request: Request, **changes: int) -> str:
    query = request.query_params.copy()
    for name, value in changes.items():
        query[name] = str(value)
    return request.build_absolute_uri(request.path + "?" + query.urlencode())


def offset_page(request: Request, items: Sequence[T] | QuerySet[Any, Any]) -> dict[str, Any]:
    """One page of ``items`` by ``limit`` and ``offset``, with the links to its neighbours. A
    query set is counted and sliced by the database."""
    limit = int_param(request, "limit", PAGE_DEFAULT, low=1, high=PAGE_MAX)
    offset = int_param(request, "offset", 0, low=0, high=OFFSET_MAX)
    count = items.count() if isinstance(items, QuerySet) else len(items)
    following = offset + limit
    return {
        "count": count,
        "next": _url_with(request, offset=following, limit=limit) if following < count else None,
        "previous": (
            _url_with(request, offset=max(offset - limit, 0), limit=limit) if offset > 0 else None
        ),
        "results": list(items[offset:following]),
    }


def sequence_page(
    request: Request,
    read: Callable[[int, int], Sequence[T]],
    *,
    sequence_of: Callable[[T], int],
) -> dict[str, Any]:
    """One page of a log-ordered list: ``read(after, n)`` gives up to ``n`` items whose sequence
    is above ``after``, in order; one more than the page is asked for, to know if there is a
    next page without counting the rest."""
    after = int_param(request, "after", 0, low=0, high=2**62)
    limit = int_param(request, "limit", PAGE_DEFAULT, low=1, high=PAGE_MAX)
    items = list(read(after, limit + 1))
    more = len(items) > limit
    items = items[:limit]
    return {
        "results": items,
        "next": _url_with(request, after=sequence_of(items[-1]), limit=limit) if more else None,
    }


def event_lines_page(
    request: Request, lines: Iterable[dict[str, Any]], *, limit: int
) -> dict[str, Any]:
    """A page of lines told by the log's events, in sequence order: ``limit`` lines, or a few
    more so that the lines one event tells are never split between pages (the cursor, ``after``,
    is the event's sequence)."""
    taken: list[dict[str, Any]] = []
    more = False
    for _, told in groupby(lines, key=lambda line: line["sequence"]):
        if len(taken) >= limit:
            more = True
            break
        taken.extend(told)
    following = (
        _url_with(request, after=taken[-1]["sequence"], limit=limit) if more and taken else None
    )
    return {"results": taken, "next": following}


OFFSET_PAGE_PARAMETERS = [
    OpenApiParameter(
        "limit", int, description=f"How many to list, 1 to {PAGE_MAX} (default {PAGE_DEFAULT})."
    ),
    OpenApiParameter("offset", int, description="How many to skip from the start (default 0)."),
]

SEQUENCE_PAGE_PARAMETERS = [
    OpenApiParameter(
        "after", int, description="Only what comes after this sequence (the cursor; default 0)."
    ),
    OpenApiParameter(
        "limit", int, description=f"How many to list, 1 to {PAGE_MAX} (default {PAGE_DEFAULT})."
    ),
]


def _page_schema(
    item: type[serializers.Serializer], suffix: str, how: str, fields: dict[str, Any]
) -> type[serializers.Serializer]:
    base = item.__name__.removesuffix("Serializer")
    return type(
        base + suffix,
        (serializers.Serializer,),
        {
            "__module__": item.__module__,
            "__doc__": f"A page of {base} {how}.",
            "is_page": True,
            **fields,
            "results": item(many=True),
        },
    )


@cache
def offset_page_of(item: type[serializers.Serializer]) -> type[serializers.Serializer]:
    """The schema of an offset page of ``item``s (named ``<Item>Page``)."""
    return _page_schema(
        item,
        "Page",
        "by offset",
        {
            "count": serializers.IntegerField(help_text="How many there are in all."),
            "next": _link("The next page, if any."),
            "previous": _link("The previous page, if any."),
        },
    )


@cache
def sequence_page_of(item: type[serializers.Serializer]) -> type[serializers.Serializer]:
    """The schema of a by-sequence page of ``item``s (named ``<Item>LogPage``)."""
    return _page_schema(item, "LogPage", "in log order", {"next": _link("The next page, if any.")})


def _link(help_text: str) -> serializers.URLField:
    return serializers.URLField(allow_null=True, help_text=help_text)
