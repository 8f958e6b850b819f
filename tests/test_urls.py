"""The URL configuration: the API's routes are tried first (config/urls.py), which is only right
while no other route could answer a path under the API's prefix."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, get_resolver

API_PREFIX = "api/v1/"


def _routes(patterns, prefix: str = "") -> list[str]:
    found = []
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            found += _routes(pattern.url_patterns, route)
        else:
            assert isinstance(pattern, URLPattern)
            found.append(route)
    return found


def test_the_api_is_tried_first_and_nothing_else_lives_under_its_prefix():
    first, *rest = get_resolver().url_patterns
    assert str(first.pattern) == API_PREFIX
    others = _routes(rest)
    assert others, "the pages and probes are routed too"
    # A route that begins with a converter (<str:slug>/) could match an API path as well.
    clashing = [route for route in others if route.startswith(("api", "<"))]
    assert clashing == []
