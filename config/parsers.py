"""JSON bodies parsed with a bound on how deeply they nest, and finite numbers only.

Nothing Muster accepts nests deeper than a handful of levels (a battle's sides, each with its
forces; a purchase list). A body nested thousands deep makes Python's decoder recurse until it
gives up with a RecursionError, which would be a 500: it is refused as a parse error instead,
and so is anything deeper than ``MAX_JSON_DEPTH``. A number too large for a float (``1e999``)
decodes to infinity, which no field means: refused too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import IO, Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_JSON_DEPTH = 32


def json_depth(value: Any) -> int:
    """How deeply lists and objects nest in a parsed JSON value (a scalar is 0); a number that
    is not finite is refused on the way."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise ParseError("JSON numbers must be finite.")
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth + 1)
        pending.extend((child, depth + 1) for child in children)
    return deepest


class BoundedJSONParser(JSONParser):
    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels.") from None
        if json_depth(data) > MAX_JSON_DEPTH:
            raise ParseError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels.")
        return data
